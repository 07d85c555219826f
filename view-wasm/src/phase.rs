//! The phase of the card a tool call draws: waiting for the result, showing it,
//! cancelled, or stalled. Plain Rust, unit-tested natively.
//!
//! Cancel is a phase of its own (TasKadence's rule): before a result it stops the stall
//! timer and nothing is retried; a result that still arrives wins; a cancel after a
//! result leaves the result. Without a result or a cancel, the card offers Reload after
//! [`STALL_MS`]: never an endless skeleton.

use serde_json::Value;

/// The longest a skeleton shows.
pub const STALL_MS: f64 = 8_000.0;

#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    /// Nothing yet (or only the input): the skeleton.
    Waiting,
    /// The tool's result is here.
    Result(Value),
    /// The person stopped the call before its result.
    Cancelled { reason: Option<String> },
    /// Nothing came in time: Reload is offered.
    Stalled,
}

#[derive(Clone, Debug)]
pub struct Card {
    started: f64,
    input: Option<Value>,
    phase: Phase,
}

impl Card {
    pub fn new(now: f64) -> Card {
        Card {
            started: now,
            input: None,
            phase: Phase::Waiting,
        }
    }

    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    pub fn input(&self) -> Option<&Value> {
        self.input.as_ref()
    }

    /// Whether the tool input asked for the one-line card.
    pub fn compact(&self) -> bool {
        self.input
            .as_ref()
            .and_then(|i| i.get("display"))
            .and_then(Value::as_str)
            == Some("compact")
    }

    pub fn on_input(&mut self, args: Value) {
        self.input = Some(args);
    }

    /// A result always wins, even after a cancel or a stall.
    pub fn on_result(&mut self, result: Value) {
        self.phase = Phase::Result(result);
    }

    pub fn on_cancel(&mut self, reason: Option<String>) {
        if !matches!(self.phase, Phase::Result(_)) {
            self.phase = Phase::Cancelled { reason };
        }
    }

    /// Moves a waiting card to Stalled once [`STALL_MS`] have passed since it started
    /// (or since the last Reload). Returns whether it changed.
    pub fn tick(&mut self, now: f64) -> bool {
        if self.phase == Phase::Waiting && now - self.started >= STALL_MS {
            self.phase = Phase::Stalled;
            return true;
        }
        false
    }

    /// Reload: wait again, for another [`STALL_MS`].
    pub fn restart(&mut self, now: f64) {
        self.started = now;
        if !matches!(self.phase, Phase::Result(_)) {
            self.phase = Phase::Waiting;
        }
    }
}

/// Whether a tool writes: decides the words of a cancel or a failure ("nothing was
/// changed" for a read; "it may have gone through" for a write).
pub fn tool_writes(tool: &str) -> bool {
    !matches!(
        tool,
        "show_schedule"
            | "what_if"
            | "diff_versions"
            | "get_schedule_page"
            | "get_changes_since"
            | "get_schedule_absences"
            | "get_schedule"
    ) && !tool.starts_with("get_")
        && !tool.starts_with("list_")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_result_shows_and_a_later_cancel_leaves_it() {
        let mut c = Card::new(0.0);
        c.on_input(json!({"schedule": 5}));
        c.on_result(json!({"rank": 1}));
        c.on_cancel(None);
        assert_eq!(c.phase(), &Phase::Result(json!({"rank": 1})));
        assert!(!c.tick(1e9));
    }

    #[test]
    fn a_cancel_stops_the_stall_timer_and_a_late_result_wins() {
        let mut c = Card::new(0.0);
        c.on_cancel(Some("user".into()));
        assert!(
            !c.tick(STALL_MS * 2.0),
            "a cancelled card never turns into Reload"
        );
        assert_eq!(
            c.phase(),
            &Phase::Cancelled {
                reason: Some("user".into())
            }
        );
        c.on_result(json!({"ok": true}));
        assert_eq!(c.phase(), &Phase::Result(json!({"ok": true})));
    }

    #[test]
    fn nothing_for_eight_seconds_offers_reload_then_reload_waits_again() {
        let mut c = Card::new(1_000.0);
        assert!(!c.tick(8_999.0));
        assert!(c.tick(9_000.0));
        assert_eq!(c.phase(), &Phase::Stalled);
        c.restart(20_000.0);
        assert_eq!(c.phase(), &Phase::Waiting);
        assert!(!c.tick(27_999.0));
        assert!(c.tick(28_000.0));
        // A result after the stall still wins.
        c.on_result(json!(1));
        assert_eq!(c.phase(), &Phase::Result(json!(1)));
    }

    #[test]
    fn compact_is_known_from_the_input() {
        let mut c = Card::new(0.0);
        assert!(!c.compact());
        c.on_input(json!({"schedule": 1, "display": "compact"}));
        assert!(c.compact());
    }

    #[test]
    fn reads_and_writes() {
        for read in [
            "show_schedule",
            "get_schedule_page",
            "list_periods",
            "what_if",
        ] {
            assert!(!tool_writes(read), "{read}");
        }
        for write in ["move_periods", "apply_patch", "undo", "set_action_status"] {
            assert!(tool_writes(write), "{write}");
        }
    }
}
