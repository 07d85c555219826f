//! Snapshots of the chart's HTML (`chart_html`) for two fixtures, at three zooms (day,
//! week, month) and two frame widths (390 and 1280 px): the demo schedule shown as
//! `show_schedule` shows it by default, and a small made-up schedule with overlapping
//! bars in one row (lanes), a milestone over a bar, a one-day bar whose label goes
//! beside it, links of three kinds (one of them broken), a text that must be escaped
//! and the critical path on. "Today" is fixed, so the snapshots do not move with the
//! calendar.
//!
//! Each snapshot is the chart's HTML for the inline viewport, one tag a line and indented
//! by depth (so that a change reads as a diff of the lines it touched), under a header
//! naming the inputs and the axis the layout chose. The files are under
//! `view-wasm/tests-data/chart/`. A change of the chart's HTML fails these tests; when the
//! change is meant, write the new snapshots with
//!
//! ```text
//! UPDATE_EXPECT=1 cargo test -p palmaplan-view gantt::snapshots
//! ```
//!
//! and read their diff before committing it.
//!
//! Beside them, the blocks and grid lines the chart keeps between drawings (`DRAWN`,
//! `GRID`) are checked against drawings from nothing: while scrolling, and after a
//! change of each thing a block or a grid line is drawn from.

use std::sync::Arc;

use palmaplan_model::idset::IdSet;
use palmaplan_model::layout::{LINE_HEIGHT, Zoom};
use palmaplan_model::wire::ViewOptions;
use palmaplan_model::{
    Bar, BarId, Date, Group, GroupId, ItemId, Lang, Link, LinkId, LinkKind, Member, MemberId,
    Milestone, MilestoneId, Row, RowId, Schedule,
};

use super::{HEAD, INLINE_LINES, chart_html, px};
use crate::app::{Doc, Notice, Shown, St};
use crate::host::Backend;
use crate::phase::Card;
use crate::sig::Sig;

fn day(s: &str) -> Date {
    s.parse().expect("a fixture date")
}

/// The view's state as it stands once `show_schedule`'s result for `s` is in, inline,
/// in a frame `width` px wide, at `zoom` chosen by the person. Built field by field as
/// `app::start` does, so a new cell fails to build here until it is given a value.
pub(crate) fn state(
    s: Schedule,
    lang: Lang,
    today: &str,
    width: f64,
    zoom: Zoom,
    options: ViewOptions,
) -> St {
    let st = St {
        lang: Sig::new(lang),
        dark: Sig::new(false),
        host: Sig::new(None),
        embed: false,
        // The card's clock is the browser's; its phase is not drawn by `chart_html`.
        card: Sig::new(Card::new(0.0)),
        shown: Sig::new(Some(Shown::Gantt)),
        options: Sig::new(options),
        help: Sig::new(None),
        read_only: Sig::new(false),
        doc: Sig::new(Some(Arc::new(Doc::new(1, 1, s, true, (1, 1), 0)))),
        before: Sig::new(None),
        reference: Sig::new(None),
        sides: Sig::new((None, None)),
        lay: Sig::new(None),
        load_error: Sig::new(None),
        notice: Sig::new(Notice::None),
        selected: Sig::new(None),
        fullscreen: Sig::new(false),
        collapsed: Sig::new(IdSet::default()),
        zoom: Sig::new(Some(zoom)),
        today: Sig::new(day(today)),
        withdrawn: Sig::new(false),
        proposal_done: Sig::new(None),
        width: Sig::new(width),
        idle_polls: Sig::new(0),
        hidden: Sig::new(false),
        shown_at: Sig::new(None),
        changes: Sig::new(None),
        reply_text: Sig::new(String::new()),
        expanded: Sig::new(false),
        confirm: Sig::new(None),
        edit: Sig::new(super::edit::Edit::None),
        declined: Sig::new(false),
        agenda: Sig::new(None),
        backend: Sig::new(Backend::Host),
    };
    st.relayout();
    st
}

/// The chart's HTML for `st` unscrolled, in the inline viewport `render` gives it: the
/// frame's width, and the inline height (the lines, at most `INLINE_LINES`) less the
/// borders.
fn inline_chart(st: St) -> String {
    let lines_h = st.lay.with_untracked(|l| {
        l.as_ref()
            .map_or(0.0, |l| palmaplan_model::fit::total_height(&l.lines))
    });
    let inline_h = HEAD + lines_h.clamp(2.0 * LINE_HEIGHT, INLINE_LINES * LINE_HEIGHT) + 16.0;
    let width = st.width.get_untracked();
    chart_html(st, (0.0, 0.0), (width, inline_h - 2.0), None, None)
        .as_str()
        .to_owned()
}

/// One tag a line, indented by nesting depth; text on a line of its own. Panics when an
/// end tag does not close the element open at that point: the chart's HTML must nest
/// (the browser would otherwise repair it into another tree than the one meant).
fn pretty(html: &str) -> String {
    let mut out = String::with_capacity(html.len() * 2);
    let mut open: Vec<&str> = Vec::new();
    let mut rest = html;
    let line = |out: &mut String, depth: usize, text: &str| {
        for _ in 0..depth {
            out.push_str("  ");
        }
        out.push_str(text);
        out.push('\n');
    };
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            line(&mut out, open.len(), rest);
            break;
        };
        if lt > 0 {
            line(&mut out, open.len(), &rest[..lt]);
        }
        rest = &rest[lt..];
        // A comment (the chart's block and cut markers) may hold no '>' of its own.
        let end = if rest.starts_with("<!--") {
            rest.find("-->").map(|i| i + 3)
        } else {
            rest.find('>').map(|i| i + 1)
        }
        .expect("a tag left open at the end of the chart's HTML");
        let tag = &rest[..end];
        rest = &rest[end..];
        if let Some(name) = tag.strip_prefix("</") {
            let name = name.trim_end_matches('>');
            let was = open.pop();
            assert_eq!(was, Some(name), "</{name}> closes {was:?}");
            line(&mut out, open.len(), tag);
        } else if tag.starts_with("<!--") {
            line(&mut out, open.len(), tag);
        } else {
            line(&mut out, open.len(), tag);
            let name = tag[1..]
                .split(|c: char| c.is_whitespace() || c == '>' || c == '/')
                .next()
                .unwrap_or_default();
            // A void element (the rename field) has no end tag.
            if name != "input" {
                open.push(name);
            }
        }
    }
    assert!(open.is_empty(), "elements left open: {open:?}");
    out
}

/// Checks one fixture at the three zooms and the two widths against its snapshot files.
fn check(name: &str, make: impl Fn() -> Schedule, lang: Lang, today: &str, options: ViewOptions) {
    for zoom in [Zoom::Day, Zoom::Week, Zoom::Month] {
        for width in [390.0, 1280.0] {
            let st = state(make(), lang, today, width, zoom, options.clone());
            let (from, to, ppd, lines) = st.lay.with_untracked(|l| {
                let l = l.as_ref().expect("a layout for a shown schedule");
                (l.from, l.to, l.ppd, l.lines.len())
            });
            let html = inline_chart(st);
            let zoom_name = format!("{zoom:?}").to_lowercase();
            let snapshot = format!(
                "<!-- {name}, {zoom_name} zoom, {width} px wide, today {today}: axis {from} → {to} at {ppd} px a day, {lines} lines -->\n{}",
                pretty(&html)
            );
            expect_test::expect_file![format!(
                "../../tests-data/chart/{name}-{zoom_name}-{}.html",
                px(width)
            )]
            .assert_eq(&snapshot);
        }
    }
}

#[test]
fn the_demo_s_chart_at_three_zooms_and_two_widths() {
    // Today in the middle of the demo (2026-11-02 → 12-18): the today line is drawn and
    // the ABAP adaptation, behind its planned progress, is late.
    check(
        "demo",
        palmaplan_model::demo::s4hana_migration,
        Lang::Fr,
        "2026-11-20",
        ViewOptions::default(),
    );
}

/// Two rows: in "Design", a long bar with a short review overlapping it (two lanes) and
/// a one-day bar whose label cannot fit it; in "Launch", a kickoff milestone on the day
/// a bar starts and a go-live milestone. FS, SS and FF links join them.
pub(crate) fn small() -> Schedule {
    let mut s = Schedule::new("Small");
    s.members.push(Member {
        id: MemberId(1),
        name: "Ada Lovelace".into(),
        email: None,
    });
    s.groups.push(Group {
        id: GroupId(2),
        name: "Team".into(),
    });
    for (id, name, member) in [(3, "Design", Some(MemberId(1))), (4, "Launch", None)] {
        s.rows.push(Row {
            id: RowId(id),
            group: GroupId(2),
            name: name.into(),
            member,
        });
    }
    let mut long = Bar::new(
        BarId(10),
        RowId(3),
        "R&D <draft> \"v1\"",
        day("2026-03-02"),
        day("2026-03-13"),
    );
    long.progress = 40;
    long.color = Some("#2f6fdf".into());
    s.bars.push(long);
    s.bars.push(Bar::new(
        BarId(11),
        RowId(3),
        "Review",
        day("2026-03-09"),
        day("2026-03-11"),
    ));
    s.bars.push(Bar::new(
        BarId(12),
        RowId(3),
        "Sign-off by the board",
        day("2026-03-16"),
        day("2026-03-16"),
    ));
    s.bars.push(Bar::new(
        BarId(13),
        RowId(4),
        "Rollout",
        day("2026-03-02"),
        day("2026-03-06"),
    ));
    s.milestones.push(Milestone::new(
        MilestoneId(20),
        RowId(4),
        "Kickoff",
        day("2026-03-02"),
    ));
    s.milestones.push(Milestone::new(
        MilestoneId(21),
        RowId(4),
        "Go-live",
        day("2026-03-17"),
    ));
    for (id, from, to, kind) in [
        (30, 10, 12, LinkKind::FS),
        (31, 10, 11, LinkKind::SS),
        (32, 11, 13, LinkKind::FF),
        (33, 12, 21, LinkKind::FS),
    ] {
        s.links.push(Link {
            id: LinkId(id),
            from: ItemId(from),
            to: ItemId(to),
            kind,
            lag: 0,
        });
    }
    s.next_id = 40;
    palmaplan_model::command::validate_schedule(&s).expect("the small fixture is a valid schedule");
    s
}

#[test]
fn a_small_chart_with_lanes_milestones_and_links_at_three_zooms_and_two_widths() {
    let options = ViewOptions {
        critical_path: Some(true),
        ..ViewOptions::default()
    };
    check("small", small, Lang::En, "2026-03-10", options);
}

#[test]
fn the_pretty_form_refuses_html_that_does_not_nest() {
    assert_eq!(
        pretty("<div a=\"1\"><span>x</span></div>"),
        "<div a=\"1\">\n  <span>\n    x\n  </span>\n</div>\n"
    );
    let crossed = std::panic::catch_unwind(|| pretty("<div><span></div></span>"));
    assert!(crossed.is_err());
    let unclosed = std::panic::catch_unwind(|| pretty("<div><span></span>"));
    assert!(unclosed.is_err());
}

#[test]
fn the_chart_draws_each_edit_in_progress_where_the_person_works() {
    use super::edit::{Edit, Linking};
    use palmaplan_model::command::Edge;
    let st = state(
        small(),
        Lang::En,
        "2026-03-10",
        1280.0,
        Zoom::Week,
        ViewOptions::default(),
    );
    // A selected bar offers its two link handles; nothing is being edited.
    st.selected.set(Some(BarId(11)));
    let html = inline_chart(st);
    pretty(&html);
    assert_eq!(
        html.matches("data-lkh=").count(),
        2,
        "two handles on the selected bar"
    );
    assert!(html.contains(
        "aria-label=\"Link from the end of “Review” (drag to another bar or milestone)\""
    ));
    // A link selected: its arrow marked, and the selected cell with its name.
    st.edit.set(Edit::Link(LinkId(32)));
    let html = inline_chart(st);
    assert!(
        html.contains("<path id=\"pp-l32\" role=\"gridcell\" aria-selected=\"true\" aria-label=\"Finish-to-finish link from “Review” to “Rollout”\" class=\"bad sel\" data-link=\"32\""),
        "the (broken) arrow shows the selection and is the selected cell"
    );
    // One pointer ground for the links of a block, named by none.
    assert!(!html.contains("class=\"pp-lh\" role="));
    assert_eq!(
        html.matches("aria-selected=\"true\"").count(),
        2,
        "the bar and the link"
    );
    // A rename: the field over the bar, with its name escaped, and no handles.
    st.edit
        .set(Edit::Rename(super::edit::Named::Bar(BarId(10))));
    let html = inline_chart(st);
    pretty(&html);
    assert!(html.contains(
        "<input class=\"pp-rename\" type=\"text\" value=\"R&amp;D &lt;draft&gt; &quot;v1&quot;\""
    ));
    assert!(!html.contains("data-lkh="));
    // A link drawn from the keyboard to bar 13, end to end: the target marked, the
    // dashed line, and the tip naming the link it would make.
    st.edit.set(Edit::Linking(Linking {
        from: ItemId(11),
        from_edge: Edge::End,
        to: Some(ItemId(13)),
        to_edge: Edge::End,
        pointer: None,
    }));
    let html = inline_chart(st);
    pretty(&html);
    assert!(html.contains("pp-draft"));
    let class_of_13 = html
        .split("id=\"pp-b13\" class=\"")
        .nth(1)
        .and_then(|c| c.split('"').next());
    assert!(
        class_of_13.is_some_and(|c| c.split(' ').any(|w| w == "tgt")),
        "the target bar is marked: {class_of_13:?}"
    );
    assert!(html.contains("Finish-to-finish link from “Review” to “Rollout” · ↑/↓: target, T: type, Enter: create, Esc: cancel"));
    // A bar drawn in row 4 from a Sunday to a Wednesday: Monday to Wednesday.
    st.edit.set(Edit::Creating {
        row: RowId(4),
        from: day("2026-03-11"),
        to: day("2026-03-08"),
    });
    let html = inline_chart(st);
    pretty(&html);
    assert!(html.contains("class=\"pp-b pp-new\""));
    assert!(html.contains("New bar: 2026-03-09 → 2026-03-11"));
}

#[test]
fn rows_groups_and_milestones_are_selected_and_renamed_in_place() {
    use super::edit::{Edit, Linking, Named};
    use palmaplan_model::command::Edge;
    let st = state(
        small(),
        Lang::En,
        "2026-03-10",
        1280.0,
        Zoom::Week,
        ViewOptions::default(),
    );
    // Every name cell says what it names, for a click or a double click.
    let html = inline_chart(st);
    assert!(html.contains(
        "<div class=\"pp-cell pp-group\" role=\"rowheader\" aria-expanded=\"true\" data-grp=\"2\""
    ));
    assert!(html.contains("<div class=\"pp-cell\" role=\"rowheader\" data-row=\"4\""));
    // A row selected: its cell marked and the grid's active cell.
    st.edit.set(Edit::Picked(Named::Row(RowId(4))));
    let html = inline_chart(st);
    pretty(&html);
    assert!(html.contains("<div class=\"pp-cell sel\" id=\"pp-r4\" role=\"rowheader\" aria-selected=\"true\" data-row=\"4\""));
    // Renamed: the field in its name cell, in a block of its own after the lines'.
    st.edit.set(Edit::Rename(Named::Row(RowId(4))));
    let html = inline_chart(st);
    pretty(&html);
    let field = "<input class=\"pp-rename\" type=\"text\" value=\"Launch\" aria-label=\"New name of the row “Launch” (Enter: rename, Esc: cancel)\"";
    let grid = html.split(super::CUT).nth(3).unwrap_or_default();
    assert!(grid.contains(field), "in the grid column");
    assert!(grid.contains(&format!("data-blk=\"{}\"", usize::MAX - 1)));
    st.edit.set(Edit::Rename(Named::Group(GroupId(2))));
    assert!(inline_chart(st).contains("value=\"Team\" aria-label=\"New name of the group “Team”"));
    // A milestone selected: marked, with its two link handles; renamed over its diamond.
    st.edit.set(Edit::Picked(Named::Milestone(MilestoneId(21))));
    let html = inline_chart(st);
    pretty(&html);
    assert!(html.contains(
        "<div class=\"pp-ms sel\" id=\"pp-m21\" aria-selected=\"true\" role=\"gridcell\""
    ));
    assert_eq!(html.matches("data-lkh=").count(), 2);
    assert!(html.contains(
        "aria-label=\"Link from the end of “Go-live” (drag to another bar or milestone)\""
    ));
    st.edit.set(Edit::Rename(Named::Milestone(MilestoneId(21))));
    let html = inline_chart(st);
    assert!(html.contains("value=\"Go-live\" aria-label=\"New name of the milestone “Go-live”"));
    assert!(!html.contains("data-lkh="));
    // A link drawn from a milestone to a bar: the target marked, the tip naming it.
    st.edit.set(Edit::Linking(Linking {
        from: ItemId(20),
        from_edge: Edge::End,
        to: Some(ItemId(13)),
        to_edge: Edge::Start,
        pointer: None,
    }));
    let html = inline_chart(st);
    assert!(html.contains("pp-draft"));
    assert!(html.contains("Finish-to-start link from “Kickoff” to “Rollout”"));
    // And from a bar to a milestone: the diamond is the target.
    st.edit.set(Edit::Linking(Linking {
        from: ItemId(13),
        from_edge: Edge::End,
        to: Some(ItemId(21)),
        to_edge: Edge::Start,
        pointer: None,
    }));
    let html = inline_chart(st);
    assert!(html.contains("<div class=\"pp-ms tgt\""));
}

/// The items' blocks of a chart's HTML: each block's number, its items' text and the
/// link paths it draws (arrows and their hit twins, one string each).
fn items_blocks(html: &str) -> Vec<(usize, String, Vec<String>)> {
    let items = html.split(super::CUT).nth(7).expect("the items' part");
    items
        .split(super::BLOCK)
        .filter(|b| !b.is_empty())
        .map(|b| {
            let k = b
                .strip_prefix("<div class=\"pp-blk\" data-blk=\"")
                .and_then(|r| r.split('"').next())
                .and_then(|k| k.parse().ok())
                .expect("a block's number");
            let (own, svg) = b.split_once("<svg").unwrap_or((b, ""));
            let links = svg
                .split("<path")
                .skip(1)
                .map(|p| p.split("</path>").next().unwrap_or(p).to_owned())
                .collect();
            (k, own.to_owned(), links)
        })
        .collect()
}

#[test]
fn a_scroll_draws_what_a_drawing_from_nothing_draws_keeping_the_blocks_it_can() {
    // 2,000 bars, two links each, many between distant rows; scrolled down in steps that
    // are not a block's height, then back up faster.
    let s = palmaplan_model::synth::generate(palmaplan_model::synth::Spec::new(2000));
    let st = state(
        s,
        Lang::En,
        "2026-02-10",
        1280.0,
        Zoom::Week,
        ViewOptions::default(),
    );
    let view = (1280.0, 520.0);
    // The lines' blocks are numbered from the number of lines (one line a block).
    let lines = st
        .lay
        .with_untracked(|l| l.as_ref().map_or(0, |l| l.lines.len()));
    let mut before: Vec<(usize, String, Vec<String>)> = Vec::new();
    let mut kept = 0;
    let mut crossing = 0;
    for step in 0..90_u32 {
        let top = if step < 60 {
            f64::from(step) * 37.0
        } else {
            f64::from(90 - step) * 71.0
        };
        let drawn_html = chart_html(st, (0.0, top), view, None, None);
        let drawn = items_blocks(drawn_html.as_str());
        // A drawing from nothing at the same place, the history kept aside.
        let history = (super::DRAWN.take(), super::GRID.take());
        let fresh_html = chart_html(st, (0.0, top), view, None, None);
        let fresh = items_blocks(fresh_html.as_str());
        super::DRAWN.set(history.0);
        super::GRID.set(history.1);
        // The grid's lines, kept or written, as a drawing from nothing writes them.
        let grid = |h: &str| h.split(super::CUT).nth(3).map(str::to_owned);
        assert_eq!(
            grid(drawn_html.as_str()),
            grid(fresh_html.as_str()),
            "the grid at {top} px"
        );

        let keys = |b: &[(usize, String, Vec<String>)]| b.iter().map(|b| b.0).collect::<Vec<_>>();
        assert_eq!(keys(&drawn), keys(&fresh), "the blocks at {top} px");
        for (d, f) in drawn.iter().zip(&fresh) {
            assert_eq!(d.1, f.1, "block {} at {top} px: its items", d.0);
        }
        // The links a fresh drawing draws, each once, with the same path (in the
        // block of its two ends, or in the block of links of the lower of its two).
        let all: Vec<&String> = drawn.iter().flat_map(|b| &b.2).collect();
        let mut sorted = all.clone();
        let mut wanted: Vec<&String> = fresh.iter().flat_map(|b| &b.2).collect();
        sorted.sort_unstable();
        wanted.sort_unstable();
        assert_eq!(sorted, wanted, "the links at {top} px");
        let mut ids: Vec<&str> = all
            .iter()
            .filter_map(|p| p.split(" data-link=\"").nth(1))
            .filter_map(|r| r.split('"').next())
            .collect();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n, "at {top} px: a link drawn twice");
        // A block of lines that stays in view is kept as it was, links and all (the
        // blocks of links between two blocks, numbered below the lines' blocks, are
        // drawn again at each drawing).
        for b in drawn.iter().filter(|b| b.0 >= lines) {
            if let Some(was) = before.iter().find(|w| w.0 == b.0) {
                assert!(was == b, "block {} at {top} px: drawn again", b.0);
                kept += 1;
            }
        }
        crossing += drawn.iter().filter(|b| b.0 < lines).count();
        before = drawn;
    }
    assert!(kept > 0, "no block kept while scrolling");
    assert!(crossing > 0, "no link between two blocks drawn");
}

#[test]
fn each_part_of_what_a_block_is_drawn_from_draws_what_a_drawing_from_nothing_draws() {
    use super::edit::Edit;
    // The chart drawn once (its blocks kept), then one thing changed: the drawing that
    // follows is the one made from nothing. Each change also changes the items, so a
    // part left out of what the kept blocks are checked against (`ItemsKey`) fails.
    type Change = Box<dyn Fn(St) -> f64>;
    let renamed = |s: &mut Schedule| s.bars[0].label = "Renamed".into();
    let doc_of = |f: &dyn Fn(&mut Schedule)| {
        let mut s = small();
        f(&mut s);
        Arc::new(Doc::new(1, 2, s, true, (1, 1), 0))
    };
    let changes: Vec<(&str, Change)> = vec![
        (
            "the language",
            Box::new(|st| {
                st.lang.set(Lang::Fr);
                0.0
            }),
        ),
        (
            "the critical path's marks",
            Box::new(|st| {
                st.options.update(|o| o.critical_path = Some(false));
                0.0
            }),
        ),
        (
            "the selection",
            Box::new(|st| {
                st.selected.set(Some(BarId(11)));
                0.0
            }),
        ),
        (
            "the right to write",
            Box::new(|st| {
                st.selected.set(Some(BarId(11)));
                super::DRAWN.set(None);
                chart_html(st, (0.0, 0.0), (1280.0, 400.0), None, None);
                st.read_only.set(true);
                0.0
            }),
        ),
        (
            "the edit",
            Box::new(|st| {
                st.edit.set(Edit::Link(LinkId(31)));
                0.0
            }),
        ),
        (
            "today",
            Box::new(|st| {
                st.today.set(day("2027-01-04"));
                0.0
            }),
        ),
        ("the days drawn", Box::new(|_| 6_000.0)),
        (
            "the zoom",
            Box::new(|st| {
                st.zoom.set(Some(Zoom::Week));
                st.relayout();
                0.0
            }),
        ),
        // The lines only (a filter), then the state only (laid out as before).
        (
            "the layout",
            Box::new(|st| {
                st.options.update(|o| o.filter = Some("Review".into()));
                st.relayout();
                0.0
            }),
        ),
        (
            "the state",
            Box::new(move |st| {
                st.doc.set(Some(doc_of(&renamed)));
                0.0
            }),
        ),
        (
            "the shadow",
            Box::new(move |st| {
                st.before.set(Some(doc_of(&|s: &mut Schedule| {
                    s.bars[1].start = day("2026-02-02");
                })));
                0.0
            }),
        ),
    ];
    let options = ViewOptions {
        critical_path: Some(true),
        ..ViewOptions::default()
    };
    let view = (1280.0, 400.0);
    for (name, change) in &changes {
        let st = state(
            small(),
            Lang::En,
            "2026-03-10",
            1280.0,
            Zoom::Day,
            options.clone(),
        );
        super::DRAWN.set(None);
        super::GRID.set(None);
        let first = chart_html(st, (0.0, 0.0), view, None, None)
            .as_str()
            .to_owned();
        let left = change(st);
        let drawn = chart_html(st, (left, 0.0), view, None, None)
            .as_str()
            .to_owned();
        super::DRAWN.set(None);
        super::GRID.set(None);
        let fresh = chart_html(st, (left, 0.0), view, None, None)
            .as_str()
            .to_owned();
        assert!(
            drawn == fresh,
            "{name}: the kept blocks drew\n{drawn}\nnot\n{fresh}"
        );
        assert!(
            items_blocks(&first) != items_blocks(&fresh),
            "{name}: changes nothing in the items, so this case tests nothing"
        );
    }
}

#[test]
fn each_part_of_what_a_grid_line_is_drawn_from_draws_what_a_drawing_from_nothing_draws() {
    use super::edit::{Edit, Named};
    // As above for the grid's lines (`GridKey`): the chart drawn once, one thing changed,
    // the next drawing is the one made from nothing, and the change shows in the grid.
    type Change = Box<dyn Fn(St)>;
    let changes: Vec<(&str, Change)> = vec![
        // The language shows in the grid in the groups' fold buttons, which the whole
        // chart has: drawn so first.
        (
            "the language",
            Box::new(|st| {
                st.fullscreen.set(true);
                chart_html(st, (0.0, 0.0), (1280.0, 400.0), None, None);
                st.lang.set(Lang::Fr);
            }),
        ),
        (
            "the row picked",
            Box::new(|st| st.edit.set(Edit::Picked(Named::Row(RowId(3))))),
        ),
        (
            "the whole chart shown",
            Box::new(|st| st.fullscreen.set(true)),
        ),
        (
            "the state",
            Box::new(|st| {
                let mut s = small();
                s.rows[0].name = "Renamed".into();
                st.doc
                    .set(Some(Arc::new(Doc::new(1, 2, s, true, (1, 1), 0))));
            }),
        ),
        (
            "the layout",
            Box::new(|st| {
                st.options.update(|o| o.filter = Some("Review".into()));
                st.relayout();
            }),
        ),
    ];
    let grid = |h: &str| h.split(super::CUT).nth(3).map(str::to_owned);
    let view = (1280.0, 400.0);
    for (name, change) in &changes {
        let st = state(
            small(),
            Lang::En,
            "2026-03-10",
            1280.0,
            Zoom::Day,
            ViewOptions::default(),
        );
        super::DRAWN.set(None);
        super::GRID.set(None);
        let first = chart_html(st, (0.0, 0.0), view, None, None)
            .as_str()
            .to_owned();
        change(st);
        let drawn = chart_html(st, (0.0, 0.0), view, None, None)
            .as_str()
            .to_owned();
        super::DRAWN.set(None);
        super::GRID.set(None);
        let fresh = chart_html(st, (0.0, 0.0), view, None, None)
            .as_str()
            .to_owned();
        assert!(
            grid(&drawn) == grid(&fresh),
            "{name}: the kept lines drew\n{drawn}\nnot\n{fresh}"
        );
        assert!(
            grid(&first) != grid(&fresh),
            "{name}: changes nothing in the grid, so this case tests nothing"
        );
    }
}
