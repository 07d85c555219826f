//! Direct editing in the chart: the edit in progress (a link selected, a bar renamed in
//! place, a link or a bar being drawn) and the pure parts of each gesture — the link
//! type its ends choose, the dates a drag in a row gives, the `apply_patch` arguments
//! each gesture sends, and the words a screen reader hears. The gestures themselves
//! (pointer and keys) are in `gantt`; everything here is tested natively.
//!
//! Each gesture writes through `apply_patch` at the rank the view shows, exactly as a
//! model would: `delete_link`, `update_period` (the label), `add_link`, `add_period`.
//! At that rank, a view behind someone else's write is refused as out of date rather
//! than writing over what it has not seen.

use palmaplan_model::calendar::Calendar;
use palmaplan_model::command::Edge;
use palmaplan_model::{
    BarId, Date, ItemId, Lang, LinkId, LinkKind, Lock, MilestoneId, RowId, Schedule,
};
use serde_json::{Value, json};

/// The edit in progress in the chart: one at a time.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Edit {
    #[default]
    None,
    /// A link selected (a click on its arrow, or `L` from the selected bar): Delete
    /// removes it.
    Link(LinkId),
    /// A bar's label being edited in place (F2, a double click, a bar just drawn).
    Rename(BarId),
    /// A link being drawn from one end of a bar.
    Linking(Linking),
    /// A bar being drawn in a row by dragging, from one day to another (either order).
    Creating { row: RowId, from: Date, to: Date },
}

/// A link being drawn: from an end of a bar, to an end of the item under the pointer
/// (or the one the arrow keys picked).
#[derive(Clone, Debug, PartialEq)]
pub struct Linking {
    pub from: BarId,
    pub from_edge: Edge,
    pub to: Option<ItemId>,
    pub to_edge: Edge,
    /// Where the pointer is, in the items' coordinates; `None` from the keyboard.
    pub pointer: Option<(f64, f64)>,
}

/// The link type the two ends choose, as in the usual Gantts: from a bar's end to the
/// other's start is finish-to-start, start to start is SS, end to end FF, start to
/// end SF.
pub fn link_kind(from: Edge, to: Edge) -> LinkKind {
    match (from, to) {
        (Edge::End, Edge::Start) => LinkKind::FS,
        (Edge::Start, Edge::Start) => LinkKind::SS,
        (Edge::End, Edge::End) => LinkKind::FF,
        (Edge::Start, Edge::End) => LinkKind::SF,
    }
}

/// The two ends of a link type (the inverse of [`link_kind`]).
pub fn kind_ends(kind: LinkKind) -> (Edge, Edge) {
    match kind {
        LinkKind::FS => (Edge::End, Edge::Start),
        LinkKind::SS => (Edge::Start, Edge::Start),
        LinkKind::FF => (Edge::End, Edge::End),
        LinkKind::SF => (Edge::Start, Edge::End),
    }
}

/// The next type in the keyboard's cycle: FS, SS, FF, SF, FS…
pub fn next_kind(kind: LinkKind) -> LinkKind {
    match kind {
        LinkKind::FS => LinkKind::SS,
        LinkKind::SS => LinkKind::FF,
        LinkKind::FF => LinkKind::SF,
        LinkKind::SF => LinkKind::FS,
    }
}

/// A link type in words ("fin→début", "finish-to-start").
pub fn kind_words(lang: Lang, kind: LinkKind) -> &'static str {
    match (lang, kind) {
        (Lang::Fr, LinkKind::FS) => "fin→début",
        (Lang::Fr, LinkKind::SS) => "début→début",
        (Lang::Fr, LinkKind::FF) => "fin→fin",
        (Lang::Fr, LinkKind::SF) => "début→fin",
        (Lang::En, LinkKind::FS) => "finish-to-start",
        (Lang::En, LinkKind::SS) => "start-to-start",
        (Lang::En, LinkKind::FF) => "finish-to-finish",
        (Lang::En, LinkKind::SF) => "start-to-finish",
    }
}

/// A link's accessible name: « Lien fin→début de « A » à « B » ».
pub fn link_name(lang: Lang, kind: LinkKind, from: &str, to: &str) -> String {
    let k = kind_words(lang, kind);
    match lang {
        Lang::Fr => format!("Lien {k} de «\u{a0}{from}\u{a0}» à «\u{a0}{to}\u{a0}»"),
        Lang::En => {
            let mut k = k.to_owned();
            k[..1].make_ascii_uppercase();
            format!("{k} link from “{from}” to “{to}”")
        }
    }
}

/// The label of an item (a bar's or a milestone's), for the words of a link.
pub fn item_label(s: &Schedule, item: ItemId) -> &str {
    s.bar(BarId(item.0))
        .map(|b| b.label.as_str())
        .or_else(|| s.milestone(MilestoneId(item.0)).map(|m| m.label.as_str()))
        .unwrap_or("?")
}

/// The lock that holds an item still: a bar's (its own, its row's, its group's, the
/// schedule's), or a milestone's row's. A link is held when either end is, and the
/// server refuses any write that touches a held item.
pub fn item_lock(s: &Schedule, item: ItemId) -> Option<&Lock> {
    if s.locks.is_empty() {
        return None;
    }
    match s.milestone(MilestoneId(item.0)) {
        Some(m) => s.row_lock(m.row),
        None => s.bar_lock(BarId(item.0)),
    }
}

/// The links that touch a bar, in id order: what `L` cycles through.
pub fn links_of_bar(s: &Schedule, bar: BarId) -> Vec<LinkId> {
    let mut v: Vec<LinkId> = s
        .links
        .iter()
        .filter(|l| l.from.0 == bar.0 || l.to.0 == bar.0)
        .map(|l| l.id)
        .collect();
    palmaplan_model::order::sort_by_u64(&mut v, |l| l.0);
    v
}

/// The link after `current` in `links` (the first when `current` is none of them).
pub fn next_link(links: &[LinkId], current: Option<LinkId>) -> Option<LinkId> {
    let at = current.and_then(|c| links.iter().position(|l| *l == c));
    match at {
        Some(i) => links.get((i + 1) % links.len()).copied(),
        None => links.first().copied(),
    }
}

/// The dates a drag from day `a` to day `b` in a row gives a new bar: in order, its
/// start on a working day (forward) and its end on one (backward), as the server's
/// dates are kept; a drag over days off only gives the next working day.
pub fn drawn_span(cal: &Calendar, a: Date, b: Date) -> (Date, Date) {
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    let start = cal.snap_forward(a);
    let end = cal.snap_backward(b);
    (start, end.max(start))
}

/// The dates of a bar made from the keyboard: from the first working day after
/// `after` (the selected bar's end), else from `today`'s working day, one working week
/// long (a unit of a schedule counted in weeks, five days of one counted in days).
pub fn keyed_span(cal: &Calendar, after: Option<Date>, today: Date) -> (Date, Date) {
    let start = match after {
        Some(d) => cal.add(d, 1),
        None => cal.snap_forward(today),
    };
    (start, cal.add(start, cal.days_per_week().max(1) - 1))
}

/// The name a new bar gets before the person types theirs.
pub fn new_bar_label(lang: Lang) -> &'static str {
    match lang {
        Lang::Fr => "Nouveau bloc",
        Lang::En => "New bar",
    }
}

/// `apply_patch`'s arguments for one command at the rank the view shows.
fn patch(command: Value, rank: i64) -> Value {
    json!({ "commands": [command], "expected_rank": rank })
}

pub fn delete_link_args(link: LinkId, rank: i64) -> Value {
    patch(json!({ "op": "delete_link", "link": link.0 }), rank)
}

/// Renaming a bar: the name trimmed, or `None` when nothing is left (the view refuses
/// it before any call, as the server would).
pub fn rename_args(bar: BarId, name: &str, rank: i64) -> Option<Value> {
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    Some(patch(
        json!({ "op": "update_period", "bar": bar.0, "label": name }),
        rank,
    ))
}

/// Linking `from` to `to` with the type the ends chose; `None` for a link to itself.
pub fn add_link_args(from: BarId, to: ItemId, kind: LinkKind, rank: i64) -> Option<Value> {
    if from.0 == to.0 {
        return None;
    }
    Some(patch(
        json!({ "op": "add_link", "from": from.0, "to": to.0, "kind": kind }),
        rank,
    ))
}

/// A new bar with an explicit id (the schedule's next one), so the view knows which
/// bar to rename once the write is read back.
pub fn add_bar_args(
    id: BarId,
    row: RowId,
    label: &str,
    (start, end): (Date, Date),
    rank: i64,
) -> Value {
    patch(
        json!({ "op": "add_period", "id": id.0, "row": row.0, "label": label, "start": start, "end": end }),
        rank,
    )
}

/// The details line of a selected link: its name, its lag, and (when the view may
/// write) the key that deletes it.
pub fn link_details(s: &Schedule, link: LinkId, lang: Lang, writes: bool) -> Option<String> {
    let l = s.links.iter().find(|l| l.id == link)?;
    let mut t = link_name(lang, l.kind, item_label(s, l.from), item_label(s, l.to));
    if l.lag != 0 {
        t.push_str(&match lang {
            Lang::Fr => format!(" · décalage de {}", l.lag),
            Lang::En => format!(" · lag {}", l.lag),
        });
    }
    t.push_str(match (lang, writes) {
        (_, false) => "",
        (Lang::Fr, true) => {
            " · Suppr\u{a0}: supprimer ce lien, L\u{a0}: lien suivant, Échap\u{a0}: désélectionner"
        }
        (Lang::En, true) => " · Delete: delete this link, L: next link, Esc: clear",
    });
    Some(t)
}

/// Why a rename is refused before any call.
pub fn empty_name(lang: Lang) -> &'static str {
    match lang {
        Lang::Fr => {
            "Le nom ne peut pas être vide\u{a0}: tapez un nom, ou Échap pour garder l'ancien."
        }
        Lang::En => "The name cannot be empty: type a name, or Esc to keep the old one.",
    }
}

/// What the tip says while a link is drawn (`kind` once a target is under it).
pub fn linking_words(lang: Lang, kind: Option<LinkKind>, from: &str, to: Option<&str>) -> String {
    match (kind, to) {
        (Some(k), Some(to)) => match lang {
            Lang::Fr => format!(
                "{} · ↑/↓\u{a0}: cible, T\u{a0}: type, Entrée\u{a0}: créer, Échap\u{a0}: annuler",
                link_name(lang, k, from, to)
            ),
            Lang::En => format!(
                "{} · ↑/↓: target, T: type, Enter: create, Esc: cancel",
                link_name(lang, k, from, to)
            ),
        },
        _ => match lang {
            Lang::Fr => format!("Lien depuis «\u{a0}{from}\u{a0}»\u{a0}: choisissez l'autre bloc"),
            Lang::En => format!("Link from “{from}”: pick the other bar"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use palmaplan_model::Settings;

    #[test]
    fn the_ends_choose_the_link_type_as_the_usual_gantts_do() {
        assert_eq!(link_kind(Edge::End, Edge::Start), LinkKind::FS);
        assert_eq!(link_kind(Edge::Start, Edge::Start), LinkKind::SS);
        assert_eq!(link_kind(Edge::End, Edge::End), LinkKind::FF);
        assert_eq!(link_kind(Edge::Start, Edge::End), LinkKind::SF);
        for k in [LinkKind::FS, LinkKind::SS, LinkKind::FF, LinkKind::SF] {
            let (a, b) = kind_ends(k);
            assert_eq!(link_kind(a, b), k);
        }
        // The keyboard's cycle goes through the four and back.
        let mut k = LinkKind::FS;
        let mut seen = vec![];
        for _ in 0..4 {
            seen.push(k);
            k = next_kind(k);
        }
        assert_eq!(k, LinkKind::FS);
        assert_eq!(
            seen,
            [LinkKind::FS, LinkKind::SS, LinkKind::FF, LinkKind::SF]
        );
    }

    #[test]
    fn a_link_is_named_in_each_language_with_its_typography() {
        assert_eq!(
            link_name(Lang::Fr, LinkKind::FS, "A", "B"),
            "Lien fin→début de «\u{a0}A\u{a0}» à «\u{a0}B\u{a0}»"
        );
        assert_eq!(
            link_name(Lang::En, LinkKind::SF, "A", "B"),
            "Start-to-finish link from “A” to “B”"
        );
        assert!(empty_name(Lang::Fr).contains("vide\u{a0}:"));
        assert!(linking_words(Lang::Fr, None, "A", None).contains("«\u{a0}A\u{a0}»\u{a0}:"));
    }

    #[test]
    fn each_gesture_sends_the_command_a_model_would() {
        assert_eq!(
            delete_link_args(LinkId(22), 7),
            json!({ "commands": [{ "op": "delete_link", "link": 22 }], "expected_rank": 7 })
        );
        assert_eq!(
            rename_args(BarId(14), "  Recette  ", 3),
            Some(
                json!({ "commands": [{ "op": "update_period", "bar": 14, "label": "Recette" }], "expected_rank": 3 })
            )
        );
        assert_eq!(
            rename_args(BarId(14), " \t ", 3),
            None,
            "an empty name is refused"
        );
        assert_eq!(
            add_link_args(BarId(14), ItemId(15), LinkKind::SS, 0),
            Some(
                json!({ "commands": [{ "op": "add_link", "from": 14, "to": 15, "kind": "SS" }], "expected_rank": 0 })
            )
        );
        assert_eq!(add_link_args(BarId(14), ItemId(14), LinkKind::FS, 0), None);
        let d = |s: &str| s.parse::<Date>().unwrap();
        assert_eq!(
            add_bar_args(
                BarId(90),
                RowId(6),
                "New bar",
                (d("2026-11-16"), d("2026-11-20")),
                2
            ),
            json!({ "commands": [{ "op": "add_period", "id": 90, "row": 6, "label": "New bar", "start": "2026-11-16", "end": "2026-11-20" }], "expected_rank": 2 })
        );
        // Every command is one the model's patch language reads.
        for args in [
            delete_link_args(LinkId(22), 7),
            rename_args(BarId(14), "x", 3).unwrap(),
            add_link_args(BarId(14), ItemId(15), LinkKind::SS, 0).unwrap(),
            add_bar_args(
                BarId(90),
                RowId(6),
                "x",
                (d("2026-11-16"), d("2026-11-20")),
                2,
            ),
        ] {
            let c = args["commands"][0].clone();
            serde_json::from_value::<palmaplan_model::command::Command>(c.clone())
                .unwrap_or_else(|e| panic!("{c}: {e}"));
        }
    }

    #[test]
    fn a_drawn_bar_takes_working_days_from_the_drag_in_either_direction() {
        let cal = Calendar::new(&Settings::default()).unwrap();
        let d = |s: &str| s.parse::<Date>().unwrap();
        // Saturday to the next Saturday, dragged right to left: Monday to Friday.
        assert_eq!(
            drawn_span(&cal, d("2026-11-21"), d("2026-11-14")),
            (d("2026-11-16"), d("2026-11-20"))
        );
        // A weekend only: the next working day.
        assert_eq!(
            drawn_span(&cal, d("2026-11-14"), d("2026-11-15")),
            (d("2026-11-16"), d("2026-11-16"))
        );
        // From the keyboard: a working week after the selected bar's end (a Wednesday).
        assert_eq!(
            keyed_span(&cal, Some(d("2026-11-18")), d("2026-01-01")),
            (d("2026-11-19"), d("2026-11-25"))
        );
        assert_eq!(
            keyed_span(&cal, None, d("2026-11-14")),
            (d("2026-11-16"), d("2026-11-20"))
        );
    }

    #[test]
    fn l_cycles_through_the_links_of_the_selected_bar() {
        let s = palmaplan_model::demo::s4hana_migration();
        let bar = s.links[0].to;
        let links = links_of_bar(&s, BarId(bar.0));
        assert!(!links.is_empty());
        assert_eq!(next_link(&links, None), Some(links[0]));
        let last = *links.last().unwrap();
        assert_eq!(next_link(&links, Some(last)), Some(links[0]), "round again");
        assert_eq!(next_link(&[], None), None);
        assert!(item_lock(&s, bar).is_none());
        let l = &s.links[0];
        let said = link_details(&s, l.id, Lang::En, true).unwrap();
        assert!(
            said.starts_with(&link_name(
                Lang::En,
                l.kind,
                item_label(&s, l.from),
                item_label(&s, l.to)
            )),
            "{said}"
        );
        assert!(said.contains("Delete: delete this link"));
        assert!(
            !link_details(&s, l.id, Lang::Fr, false)
                .unwrap()
                .contains("Suppr")
        );
    }
}
