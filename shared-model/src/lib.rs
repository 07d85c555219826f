//! PalmaPlan's planning domain, shared by the server and the view.
//!
//! Pure by design: no IO, no clock, no randomness, nothing async. "Today" and ids come
//! in as arguments. The same code validates a write on the server, replays the journal
//! in the view and previews a drag at pointer speed, so both sides always agree.
//!
//! Map: `date` and `calendar` (time), `schedule` (the types), `command` (the patch
//! language and `apply`), `constraint` (date constraints and deadlines in working
//! time), `cpm` (critical path), `push` (cascades), `risk`, `idset` (id sets and the
//! highlights' wire form), `diff`, `delta` (live updates in the size of the change),
//! `layout` (Gantt, kanban and agenda math), `filter` (the Filter panel language),
//! `order` (sorting with one copy of the sort's code), `paging`, `text`
//! (French and English summaries), `tracking` (progress at a status date, late and
//! overdue bars, slippage against a baseline), `synth` (deterministic generated schedules for
//! tests and benchmarks). See docs/ARCHITECTURE.md.

pub mod calendar;
pub mod command;
pub mod constraint;
pub mod cpm;
pub mod date;
pub mod delta;
pub mod demo;
pub mod diff;
pub mod filter;
pub mod fit;
pub mod idset;
pub mod layout;
pub mod order;
pub mod paging;
pub mod push;
pub mod risk;
pub mod schedule;
pub mod synth;
pub mod text;
pub mod tracking;
pub mod wire;

// The fuzz harnesses (proptest, stable Rust) of the parsers and of the patch commands.
#[cfg(test)]
mod fuzz;
// Builders the worked examples of `cpm`, `push` and `constraint` share.
#[cfg(test)]
mod testkit;

pub use date::{Date, Weekday};
pub use schedule::*;

/// The language of the texts the model writes. French is the default: the product's
/// first users are French; English on request.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    Fr,
    En,
}
