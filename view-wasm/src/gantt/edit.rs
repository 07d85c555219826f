//! Direct editing in the chart: the edit in progress (a link, a row, a group or a
//! milestone selected, a name edited in place, a link or a bar being drawn) and the
//! pure parts of each gesture — the link type its ends choose, the dates a drag in a
//! row gives, the `apply_patch` arguments each gesture sends, and the words a screen
//! reader hears. The gestures themselves (pointer and keys) are in `gantt`; everything
//! here is tested natively.
//!
//! Each gesture writes through `apply_patch` at the rank the view shows, exactly as a
//! model would: `delete_link`, `update_link` (the lag), `update_period` and
//! `update_milestone` (the label), `rename_row`, `rename_group`, `add_link`,
//! `add_period`.
//! At that rank, a view behind someone else's write is refused as out of date rather
//! than writing over what it has not seen.

use palmaplan_model::calendar::Calendar;
use palmaplan_model::command::{Edge, MAX_LAG};
use palmaplan_model::{
    BarId, Date, GroupId, ItemId, Lang, LinkId, LinkKind, Lock, LockTarget, MilestoneId, RowId,
    Schedule, TimeUnit,
};
use serde_json::{Value, json};

/// The edit in progress in the chart: one at a time.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Edit {
    #[default]
    None,
    /// A link selected (a click on its arrow, or `L` from the selected bar): Delete
    /// removes it, `+`/`-` change its lag.
    Link(LinkId),
    /// A row, a group or a milestone selected (a click on it, `R` from the selected
    /// bar, `M`): F2 renames it; from a milestone, `C` draws a link. Bars have their
    /// own selection (`St::selected`), which the rest of the view reads.
    Picked(Named),
    /// A name being edited in place (F2, a double click, a bar just drawn).
    Rename(Named),
    /// A link being drawn from one end of a bar or from a milestone.
    Linking(Linking),
    /// A bar being drawn in a row by dragging, from one day to another (either order).
    Creating { row: RowId, from: Date, to: Date },
}

/// A link being drawn: from an end of a bar, to an end of the item under the pointer
/// (or the one the arrow keys picked).
#[derive(Clone, Debug, PartialEq)]
pub struct Linking {
    pub from: ItemId,
    pub from_edge: Edge,
    pub to: Option<ItemId>,
    pub to_edge: Edge,
    /// Where the pointer is, in the items' coordinates; `None` from the keyboard.
    pub pointer: Option<(f64, f64)>,
}

/// What a name edited in place belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    Bar(BarId),
    Milestone(MilestoneId),
    Row(RowId),
    Group(GroupId),
}

/// The name `n` has now (`None` once it is gone).
pub fn current_name(s: &Schedule, n: Named) -> Option<&str> {
    match n {
        Named::Bar(b) => s.bar(b).map(|b| b.label.as_str()),
        Named::Milestone(m) => s.milestone(m).map(|m| m.label.as_str()),
        Named::Row(r) => s.row(r).map(|r| r.name.as_str()),
        Named::Group(g) => s.group(g).map(|g| g.name.as_str()),
    }
}

/// The lock that holds what `n` names still, as the server reads it: a group's own or
/// the schedule's for a group; a milestone is held as its row is.
pub fn named_lock(s: &Schedule, n: Named) -> Option<&Lock> {
    if s.locks.is_empty() {
        return None;
    }
    match n {
        Named::Bar(b) => s.bar_lock(b),
        Named::Milestone(m) => item_lock(s, ItemId(m.0)),
        Named::Row(r) => s.row_lock(r),
        Named::Group(g) => s
            .lock(LockTarget::Group(g))
            .or_else(|| s.lock(LockTarget::Schedule)),
    }
}

/// What `n` is, with its name, in a sentence ("the row “Build”", « la ligne « Build » »);
/// a bar is named alone, as everywhere in the view.
pub fn named_words(lang: Lang, n: Named, name: &str) -> String {
    let what = match (lang, n) {
        (_, Named::Bar(_)) => "",
        (Lang::Fr, Named::Milestone(_)) => "du jalon ",
        (Lang::Fr, Named::Row(_)) => "de la ligne ",
        (Lang::Fr, Named::Group(_)) => "du groupe ",
        (Lang::En, Named::Milestone(_)) => "the milestone ",
        (Lang::En, Named::Row(_)) => "the row ",
        (Lang::En, Named::Group(_)) => "the group ",
    };
    match (lang, n) {
        (Lang::Fr, Named::Bar(_)) => format!("de «\u{a0}{name}\u{a0}»"),
        (Lang::Fr, _) => format!("{what}«\u{a0}{name}\u{a0}»"),
        (Lang::En, _) => format!("{what}“{name}”"),
    }
}

/// The rename field's accessible name and tooltip.
pub fn rename_field_name(lang: Lang, n: Named, name: &str) -> String {
    let of = named_words(lang, n, name);
    match lang {
        Lang::Fr => format!("Nouveau nom {of} (Entrée\u{a0}: renommer, Échap\u{a0}: annuler)"),
        Lang::En => format!("New name of {of} (Enter: rename, Esc: cancel)"),
    }
}

/// The details line of a selected row, group or milestone: what it is and (when the
/// view may write) the keys that act on it.
pub fn picked_details(s: &Schedule, n: Named, lang: Lang, writes: bool) -> Option<String> {
    let name = current_name(s, n)?;
    let mut t = match (lang, n) {
        (Lang::Fr, Named::Bar(_)) => format!("Bloc «\u{a0}{name}\u{a0}»"),
        (Lang::Fr, Named::Milestone(_)) => format!("Jalon «\u{a0}{name}\u{a0}»"),
        (Lang::Fr, Named::Row(_)) => format!("Ligne «\u{a0}{name}\u{a0}»"),
        (Lang::Fr, Named::Group(_)) => format!("Groupe «\u{a0}{name}\u{a0}»"),
        (Lang::En, Named::Bar(_)) => format!("Bar “{name}”"),
        (Lang::En, Named::Milestone(_)) => format!("Milestone “{name}”"),
        (Lang::En, Named::Row(_)) => format!("Row “{name}”"),
        (Lang::En, Named::Group(_)) => format!("Group “{name}”"),
    };
    let fr = lang == Lang::Fr;
    let mut keys: Vec<&str> = Vec::new();
    if writes {
        keys.push(if fr {
            "F2\u{a0}: renommer"
        } else {
            "F2: rename"
        });
        if let Named::Milestone(_) = n {
            keys.push(if fr {
                "C\u{a0}: lier depuis ce jalon"
            } else {
                "C: link from this milestone"
            });
        }
    }
    match n {
        Named::Row(_) => keys.push(if fr {
            "R\u{a0}: son groupe"
        } else {
            "R: its group"
        }),
        Named::Milestone(_) => keys.push(if fr {
            "M\u{a0}: jalon suivant"
        } else {
            "M: next milestone"
        }),
        _ => {}
    }
    keys.push(if fr {
        "Échap\u{a0}: désélectionner"
    } else {
        "Esc: clear"
    });
    t.push_str(" · ");
    t.push_str(&keys.join(", "));
    Some(t)
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
/// dates are kept; a drag over days off only gives the next working day. In a schedule
/// counted in weeks, whole weeks: from the first working day of `a`'s week (Monday to
/// Sunday) to the last of `b`'s, as its bars are moved and lengthened a week at a time.
pub fn drawn_span(cal: &Calendar, unit: TimeUnit, a: Date, b: Date) -> (Date, Date) {
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    let (a, b) = match unit {
        TimeUnit::Day => (a, b),
        TimeUnit::Week => (a.monday(), b.monday().add_days(6)),
    };
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

/// Renaming a bar, a milestone, a row or a group, with the command each has: the name
/// trimmed, or `None` when nothing is left (the view refuses it before any call, as the
/// server would).
pub fn rename_args(n: Named, name: &str, rank: i64) -> Option<Value> {
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    let command = match n {
        Named::Bar(b) => json!({ "op": "update_period", "bar": b.0, "label": name }),
        Named::Milestone(m) => json!({ "op": "update_milestone", "milestone": m.0, "label": name }),
        Named::Row(r) => json!({ "op": "rename_row", "row": r.0, "name": name }),
        Named::Group(g) => json!({ "op": "rename_group", "group": g.0, "name": name }),
    };
    Some(patch(command, rank))
}

/// A link's lag moved by `step` units of the schedule's time unit (`+`/`-`), within
/// the bounds the server takes; `None` when it would not change.
pub fn lag_args(s: &Schedule, link: LinkId, step: i32, rank: i64) -> Option<Value> {
    let l = s.links.iter().find(|l| l.id == link)?;
    let lag = l.lag.saturating_add(step).clamp(-MAX_LAG, MAX_LAG);
    (lag != l.lag).then(|| {
        patch(
            json!({ "op": "update_link", "link": link.0, "lag": lag }),
            rank,
        )
    })
}

/// A lag in words, in the schedule's time unit ("2 jours", "-1 week").
pub fn lag_words(lang: Lang, unit: TimeUnit, lag: i32) -> String {
    // Singular for 1 in English, for 0 and 1 in French.
    let one = match lang {
        Lang::Fr => lag.abs() < 2,
        Lang::En => lag.abs() == 1,
    };
    let word = match (lang, unit, one) {
        (Lang::Fr, TimeUnit::Day, true) => "jour ouvré",
        (Lang::Fr, TimeUnit::Day, false) => "jours ouvrés",
        (Lang::Fr, TimeUnit::Week, _) => "semaine",
        (Lang::En, TimeUnit::Day, true) => "working day",
        (Lang::En, TimeUnit::Day, false) => "working days",
        (Lang::En, TimeUnit::Week, true) => "week",
        (Lang::En, TimeUnit::Week, false) => "weeks",
    };
    // « semaines » in the plural.
    let plural = if lang == Lang::Fr && unit == TimeUnit::Week && !one {
        "s"
    } else {
        ""
    };
    format!("{lag} {word}{plural}")
}

/// Linking `from` to `to` with the type the ends chose; `None` for a link to itself.
pub fn add_link_args(from: ItemId, to: ItemId, kind: LinkKind, rank: i64) -> Option<Value> {
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
    let lag = lag_words(lang, s.settings.time_unit, l.lag);
    t.push_str(&match lang {
        Lang::Fr => format!(" · décalage\u{a0}: {lag}"),
        Lang::En => format!(" · lag: {lag}"),
    });
    t.push_str(match (lang, writes) {
        (_, false) => "",
        (Lang::Fr, true) => {
            " · Suppr\u{a0}: supprimer ce lien, +/-\u{a0}: décalage, L\u{a0}: lien suivant, Échap\u{a0}: désélectionner"
        }
        (Lang::En, true) => {
            " · Delete: delete this link, +/-: lag, L: next link, Esc: clear"
        }
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
            Lang::Fr => {
                format!("Lien depuis «\u{a0}{from}\u{a0}»\u{a0}: choisissez l'autre bloc ou jalon")
            }
            Lang::En => format!("Link from “{from}”: pick the other bar or milestone"),
        },
    }
}

/// How far `(x, y)` is from an arrow the chart drew, given as its path's `d`: moves
/// (`M x y`) then straight runs (`H x`, `V y`, `L x y`), as `gantt` writes them. None
/// for a path without a run, or one in another form.
pub fn distance_to_path(d: &str, (x, y): (f64, f64)) -> Option<f64> {
    let mut best: Option<f64> = None;
    let mut at: Option<(f64, f64)> = None;
    let mut rest = d.trim();
    while let Some(c) = rest.chars().next() {
        rest = rest[c.len_utf8()..].trim_start();
        // The numbers up to the next command letter.
        let end = rest
            .find(|ch: char| ch.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let nums: Vec<f64> = rest[..end]
            .split([' ', ','])
            .filter(|t| !t.is_empty())
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        rest = &rest[end..];
        let next = match (c, nums.as_slice(), at) {
            ('M', [a, b], _) => {
                at = Some((*a, *b));
                continue;
            }
            ('H', [a], Some((_, b))) => (*a, b),
            ('V', [b], Some((a, _))) => (a, *b),
            ('L', [a, b], Some(_)) => (*a, *b),
            _ => return None,
        };
        let from = at?;
        let dist = to_segment((x, y), from, next);
        best = Some(best.map_or(dist, |b: f64| b.min(dist)));
        at = Some(next);
    }
    best
}

/// How far `p` is from the segment `a`-`b`.
fn to_segment(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 {
        0.0
    } else {
        (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0)
    };
    let (cx, cy) = (a.0 + t * dx, a.1 + t * dy);
    ((p.0 - cx).powi(2) + (p.1 - cy).powi(2)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use palmaplan_model::Settings;

    #[test]
    fn a_press_is_measured_to_the_nearest_run_of_an_arrow() {
        let d = "M30 42H65V70H98";
        // On a run, beside one, past its end.
        assert_eq!(distance_to_path(d, (50.0, 42.0)), Some(0.0));
        assert_eq!(distance_to_path(d, (68.0, 60.0)), Some(3.0));
        assert_eq!(distance_to_path(d, (102.0, 73.0)), Some(5.0));
        // Before its first point: to that point.
        assert_eq!(distance_to_path(d, (26.0, 45.0)), Some(5.0));
        // Two arrows written in one path: the nearer one counts.
        assert_eq!(distance_to_path("M0 0H10M0 20H10", (5.0, 18.0)), Some(2.0));
        assert_eq!(distance_to_path("M0 0L3 4", (3.0, 4.0)), Some(0.0));
        // Nothing drawn, or a form the chart does not write.
        assert_eq!(distance_to_path("", (0.0, 0.0)), None);
        assert_eq!(distance_to_path("M0 0", (0.0, 0.0)), None);
        assert_eq!(distance_to_path("M0 0C1 1 2 2 3 3", (0.0, 0.0)), None);
        assert_eq!(distance_to_path("H5", (0.0, 0.0)), None);
    }

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
            rename_args(Named::Bar(BarId(14)), "  Recette  ", 3),
            Some(
                json!({ "commands": [{ "op": "update_period", "bar": 14, "label": "Recette" }], "expected_rank": 3 })
            )
        );
        assert_eq!(
            rename_args(Named::Row(RowId(7)), " \t ", 3),
            None,
            "an empty name is refused"
        );
        assert_eq!(
            add_link_args(ItemId(14), ItemId(15), LinkKind::SS, 0),
            Some(
                json!({ "commands": [{ "op": "add_link", "from": 14, "to": 15, "kind": "SS" }], "expected_rank": 0 })
            )
        );
        assert_eq!(add_link_args(ItemId(14), ItemId(14), LinkKind::FS, 0), None);
        // Rows, groups and milestones are renamed with their own commands.
        assert_eq!(
            rename_args(Named::Row(RowId(7)), " Build ", 1).unwrap()["commands"][0],
            json!({ "op": "rename_row", "row": 7, "name": "Build" })
        );
        assert_eq!(
            rename_args(Named::Group(GroupId(2)), "Run", 1).unwrap()["commands"][0],
            json!({ "op": "rename_group", "group": 2, "name": "Run" })
        );
        assert_eq!(
            rename_args(Named::Milestone(MilestoneId(30)), "Go", 1).unwrap()["commands"][0],
            json!({ "op": "update_milestone", "milestone": 30, "label": "Go" })
        );
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
            rename_args(Named::Bar(BarId(14)), "x", 3).unwrap(),
            rename_args(Named::Milestone(MilestoneId(30)), "x", 3).unwrap(),
            rename_args(Named::Row(RowId(7)), "x", 3).unwrap(),
            rename_args(Named::Group(GroupId(2)), "x", 3).unwrap(),
            add_link_args(ItemId(30), ItemId(15), LinkKind::FS, 0).unwrap(),
            json!({ "commands": [{ "op": "update_link", "link": 22, "lag": -1 }] }),
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
            drawn_span(&cal, TimeUnit::Day, d("2026-11-21"), d("2026-11-14")),
            (d("2026-11-16"), d("2026-11-20"))
        );
        // A weekend only: the next working day.
        assert_eq!(
            drawn_span(&cal, TimeUnit::Day, d("2026-11-14"), d("2026-11-15")),
            (d("2026-11-16"), d("2026-11-16"))
        );
        // Counted in weeks, whole weeks: Wednesday to the next Tuesday is two weeks,
        // Monday 16 to Friday 27; within a weekend, the week it ends.
        assert_eq!(
            drawn_span(&cal, TimeUnit::Week, d("2026-11-18"), d("2026-11-24")),
            (d("2026-11-16"), d("2026-11-27"))
        );
        assert_eq!(
            drawn_span(&cal, TimeUnit::Week, d("2026-11-15"), d("2026-11-14")),
            (d("2026-11-09"), d("2026-11-13"))
        );
        // A week of holidays only gives the next working day.
        let off = Settings {
            holidays: (16..=20).map(|n| d(&format!("2026-11-{n}"))).collect(),
            ..Settings::default()
        };
        let cal_off = Calendar::new(&off).unwrap();
        assert_eq!(
            drawn_span(&cal_off, TimeUnit::Week, d("2026-11-17"), d("2026-11-17")),
            (d("2026-11-23"), d("2026-11-23"))
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

    #[test]
    fn rows_groups_and_milestones_are_named_and_held_as_the_server_holds_them() {
        let s = palmaplan_model::demo::s4hana_migration();
        let row = &s.rows[0];
        let group = &s.groups[0];
        let m = &s.milestones[0];
        assert_eq!(
            current_name(&s, Named::Row(row.id)),
            Some(row.name.as_str())
        );
        assert_eq!(
            current_name(&s, Named::Group(group.id)),
            Some(group.name.as_str())
        );
        assert_eq!(
            current_name(&s, Named::Milestone(m.id)),
            Some(m.label.as_str())
        );
        assert_eq!(current_name(&s, Named::Row(RowId(999_999))), None);
        assert_eq!(
            rename_field_name(Lang::En, Named::Row(RowId(1)), "Build"),
            "New name of the row “Build” (Enter: rename, Esc: cancel)"
        );
        assert_eq!(
            rename_field_name(Lang::En, Named::Bar(BarId(1)), "Build"),
            "New name of “Build” (Enter: rename, Esc: cancel)"
        );
        assert_eq!(
            rename_field_name(Lang::Fr, Named::Group(GroupId(1)), "Run"),
            "Nouveau nom du groupe «\u{a0}Run\u{a0}» (Entrée\u{a0}: renommer, Échap\u{a0}: annuler)"
        );
        let said = picked_details(&s, Named::Milestone(m.id), Lang::En, true).unwrap();
        assert_eq!(
            said,
            format!(
                "Milestone “{}” · F2: rename, C: link from this milestone, M: next milestone, Esc: clear",
                m.label
            )
        );
        let read = picked_details(&s, Named::Row(row.id), Lang::Fr, false).unwrap();
        assert!(
            read.ends_with(" · R\u{a0}: son groupe, Échap\u{a0}: désélectionner"),
            "{read}"
        );
        assert!(!read.contains("F2"));
        // A group's lock holds the group, its rows and their milestones; the row's
        // own lock does not hold its group.
        let mut locked = s.clone();
        locked.locks.push(Lock {
            target: LockTarget::Group(group.id),
            by: 1,
            by_name: "Ann".into(),
            since_ms: 0,
            reason: String::new(),
        });
        let in_group = locked.rows.iter().find(|r| r.group == group.id).unwrap().id;
        assert!(named_lock(&locked, Named::Group(group.id)).is_some());
        assert!(named_lock(&locked, Named::Row(in_group)).is_some());
        let mut row_locked = s.clone();
        row_locked.locks.push(Lock {
            target: LockTarget::Row(in_group),
            by: 1,
            by_name: "Ann".into(),
            since_ms: 0,
            reason: String::new(),
        });
        assert!(named_lock(&row_locked, Named::Row(in_group)).is_some());
        assert!(named_lock(&row_locked, Named::Group(group.id)).is_none());
        assert!(named_lock(&s, Named::Milestone(m.id)).is_none());
    }

    #[test]
    fn plus_and_minus_move_a_link_s_lag_by_a_unit_within_the_server_s_bounds() {
        let mut s = palmaplan_model::demo::s4hana_migration();
        let l = s.links[0].clone();
        assert_eq!(
            lag_args(&s, l.id, 1, 4),
            Some(
                json!({ "commands": [{ "op": "update_link", "link": l.id.0, "lag": l.lag + 1 }], "expected_rank": 4 })
            )
        );
        assert_eq!(
            lag_args(&s, l.id, -1, 4).unwrap()["commands"][0]["lag"],
            json!(l.lag - 1),
            "below zero, a lead"
        );
        s.links[0].lag = MAX_LAG;
        assert_eq!(
            lag_args(&s, l.id, 1, 4),
            None,
            "at the bound, nothing to send"
        );
        assert_eq!(lag_args(&s, LinkId(999_999), 1, 4), None);
        assert_eq!(lag_words(Lang::En, TimeUnit::Day, 1), "1 working day");
        assert_eq!(lag_words(Lang::En, TimeUnit::Week, -2), "-2 weeks");
        assert_eq!(lag_words(Lang::Fr, TimeUnit::Week, 3), "3 semaines");
        assert_eq!(lag_words(Lang::Fr, TimeUnit::Day, 0), "0 jour ouvré");
        assert_eq!(lag_words(Lang::Fr, TimeUnit::Day, -4), "-4 jours ouvrés");
        let said = link_details(&s, l.id, Lang::En, true).unwrap();
        assert!(said.contains(" · lag: "), "{said}");
        assert!(said.contains("+/-: lag"), "{said}");
    }
}
