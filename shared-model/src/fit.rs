//! Fitting the Gantt to its frame: the zoom and scale that show a window across the
//! width available, how the person's own zoom steps from there, where each bar's and
//! milestone's label goes (inside, to the right or to the left), and the lanes that keep
//! the items of one row apart when they (or their labels) overlap: a row grows by one
//! line per lane.
//!
//! Pure, like the rest of the layout: the view gives the width it measured, and text
//! widths are estimated from the characters rather than measured, so a schedule lays
//! out the same in every browser and in the tests. The estimate errs wide (its figures
//! are those of DejaVu Sans, a wide font and the one Debian's browsers fall back to), so
//! a label judged to fit inside its bar does fit; one judged too wide only goes beside
//! its bar a little early.

use crate::date::Date;
use crate::layout::{LINE_HEIGHT, Line, LineKind, RowIndex, Timeline, Zoom};
use crate::schedule::{Bar, BarId, Constraint, ConstraintKind, Milestone, MilestoneId, Schedule};

/// The smallest scale the chart squeezes to (a quarter is then 36 px, "T4" still fits):
/// a window longer than the frame allows at this scale is scrolled instead.
pub const MIN_PX_PER_DAY: f64 = 0.4;
/// The narrowest bar drawn: a one-day bar on a narrow screen stays a target to point
/// at and to see, not a sliver.
pub const MIN_BAR_WIDTH: f64 = 6.0;
/// The space between a bar or a milestone and a label written beside it.
pub const LABEL_GAP: f64 = 4.0;
/// A bar's inner padding on each side (the view's `.pp-b`).
pub const BAR_PADDING: f64 = 5.0;
/// Half a milestone's diamond (14 px wide, rotated: 10 px of side).
pub const MILESTONE_HALF: f64 = 7.0;
/// The least space between two items of one lane, labels included.
pub const LANE_MARGIN: f64 = 4.0;
/// The font size of the labels of bars, milestones and header cells, in px.
pub const LABEL_FONT: f64 = 11.0;
/// What the lock glyph ("🔒 ") adds before a held bar's label.
pub const LOCK_WIDTH: f64 = 16.0;
/// A deadline's flag ("⚑" at 11 px), drawn from 3 px before the end of its day.
pub const DEADLINE_WIDTH: f64 = 12.0;

// ---------------------------------------------------------------------------------
// Text widths

/// An estimate of the width of `text` at `font_px`, from each character's class (in
/// em, rounded up from DejaVu Sans). Wider than most fonts, never much narrower.
pub fn text_width(text: &str, font_px: f64) -> f64 {
    let em: f64 = text
        .chars()
        .map(|c| match c {
            ' ' | 'i' | 'l' | 'j' | '\'' | '|' | '.' | ',' | ':' | ';' | '!' => 0.34,
            'f' | 't' | 'r' | 'I' | '(' | ')' | '[' | ']' | '-' | '/' => 0.44,
            'm' | 'w' | 'M' | 'W' | '@' | '%' | '—' => 1.0,
            'A'..='Z' => 0.78,
            '0'..='9' => 0.66,
            c if c.is_ascii() => 0.66,
            // Latin, Greek and Cyrillic letters, accented or not.
            '\u{a0}'..='\u{4ff}' => 0.7,
            // Thin spaces (French typography) and general punctuation.
            '\u{2000}'..='\u{206f}' => 0.5,
            // Symbols, emoji, CJK: about a square each.
            _ => 1.25,
        })
        .sum();
    em * font_px
}

/// Whether a header cell of `width` px shows `label` whole (the cell's 3 px padding and
/// its border included). A cell too narrow shows no label rather than a cut one.
pub fn label_fits(label: &str, width: f64, bold: bool) -> bool {
    let w = text_width(label, LABEL_FONT) * if bold { 1.1 } else { 1.0 };
    w + 6.0 <= width
}

// ---------------------------------------------------------------------------------
// Zoom for a width

/// The smallest scale (px a day) at which a zoom's cells keep their labels whole: a
/// two-digit day, a week ("S49"), a short month ("sept."), a quarter ("T4").
pub fn min_px_per_day(zoom: Zoom) -> f64 {
    match zoom {
        Zoom::Day => 21.0,
        Zoom::Week => 4.5,
        Zoom::Month => 1.4,
        Zoom::Quarter => MIN_PX_PER_DAY,
    }
}

/// The time axis of the chart: its zoom (the cells of its header), its scale and the
/// days it covers, `from` at x = 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    pub zoom: Zoom,
    pub px_per_day: f64,
    pub from: Date,
    /// Inclusive.
    pub to: Date,
}

impl Fit {
    pub fn timeline(&self) -> Timeline {
        Timeline {
            origin: self.from,
            px_per_day: self.px_per_day,
        }
    }

    /// The axis' width, in px.
    pub fn width(&self) -> f64 {
        self.timeline().width_of(self.from, self.to)
    }
}

/// The axis that shows the window [from, to] in `width` px.
///
/// - With no zoom chosen (the default), the window fills the width exactly: the scale
///   is the width over the days, and the zoom the most detailed one whose labels fit at
///   that scale. Only a window too long even at [`MIN_PX_PER_DAY`] is scrolled.
/// - With a zoom chosen (by the person, or asked by the tool), that zoom's own scale;
///   when the window is then narrower than the width, the axis runs on both sides of
///   it until it fills the width, as a Gantt's time axis does: the frame never ends in
///   a blank.
pub fn fit(from: Date, to: Date, width: f64, chosen: Option<Zoom>) -> Fit {
    let (from, to) = if to < from { (to, from) } else { (from, to) };
    let width = if width.is_finite() {
        width.max(1.0)
    } else {
        1.0
    };
    let days = f64::from(from.days_until(to) + 1);
    match chosen {
        None => {
            let ppd = (width / days).max(MIN_PX_PER_DAY);
            let zoom = Zoom::ALL
                .into_iter()
                .find(|z| ppd >= min_px_per_day(*z))
                .unwrap_or(Zoom::Quarter);
            Fit {
                zoom,
                px_per_day: ppd,
                from,
                to,
            }
        }
        Some(zoom) => {
            let ppd = zoom.px_per_day();
            let missing = ((width / ppd).ceil() - days).max(0.0) as i32;
            Fit {
                zoom,
                px_per_day: ppd,
                from: from.add_days(-(missing / 2)),
                to: to.add_days(missing - missing / 2),
            }
        }
    }
}

/// The zoom one step in (`finer`: more px a day) or out from the scale shown, which may
/// be a fitted scale between two zooms: the next zoom whose own scale is larger (or
/// smaller). None at either end.
pub fn step(px_per_day: f64, finer: bool) -> Option<Zoom> {
    // A hundredth of the scale: a fitted scale equal to a zoom's is that zoom.
    let eps = px_per_day.abs() / 100.0;
    if finer {
        Zoom::ALL
            .into_iter()
            .rev()
            .find(|z| z.px_per_day() > px_per_day + eps)
    } else {
        Zoom::ALL
            .into_iter()
            .find(|z| z.px_per_day() < px_per_day - eps)
    }
}

// ---------------------------------------------------------------------------------
// Labels

/// Where an item's label is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Side {
    /// In the bar (a milestone's label is never inside).
    #[default]
    Inside,
    /// After the bar or the diamond.
    Right,
    /// Before it, when there is no room after it within the axis.
    Left,
    /// On the lane under it, centred on it and kept on the axis ([`below_x`]), when
    /// there is room on neither side (a narrow screen): the item takes two lanes.
    Below,
}

/// An item placed on its line: what it covers with its label, in px from the axis'
/// start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    pub side: Side,
    /// The leftmost and rightmost x of the item and its label.
    pub extent: (f64, f64),
}

impl Placed {
    /// The lanes it takes: two with its label under it.
    pub fn lanes(&self) -> u16 {
        if self.side == Side::Below { 2 } else { 1 }
    }
}

/// The left x of a label written under the item [start, end]: centred on it, moved
/// back onto the axis [0, axis_width] when it would leave it.
pub fn below_x(start: f64, end: f64, label_width: f64, axis_width: f64) -> f64 {
    let centred = (start + end - label_width) / 2.0;
    centred.min(axis_width - label_width).max(0.0)
}

/// An item [start, end] with its label under it.
fn below(start: f64, end: f64, label_width: f64, axis_width: f64) -> Placed {
    let lx = below_x(start, end, label_width, axis_width);
    Placed {
        side: Side::Below,
        extent: (start.min(lx), end.max(lx + label_width)),
    }
}

// ---------------------------------------------------------------------------------
// Marks: an item's constraints and deadline, drawn on its line

/// The x of a constraint's line on the axis: the start of its day for a start
/// constraint, the end for a finish one (the view draws it 2 px wide, centred there).
pub fn constraint_x(tl: &Timeline, c: &Constraint) -> f64 {
    match c.kind {
        ConstraintKind::StartNoEarlierThan
        | ConstraintKind::StartNoLaterThan
        | ConstraintKind::MustStartOn => tl.x_of(c.date),
        ConstraintKind::FinishNoEarlierThan | ConstraintKind::FinishNoLaterThan => {
            tl.x_of(c.date) + tl.px_per_day
        }
    }
}

/// The left x of a deadline's flag: 3 px before the end of its day.
pub fn deadline_x(tl: &Timeline, deadline: Date) -> f64 {
    tl.x_of(deadline) + tl.px_per_day - 3.0
}

/// The span [start, end] widened to the item's marks (its constraints' lines and its
/// deadline's flag), which a label beside it must not cover either.
fn with_marks(
    tl: &Timeline,
    (mut start, mut end): (f64, f64),
    constraints: impl Iterator<Item = Constraint>,
    deadline: Option<Date>,
) -> (f64, f64) {
    for c in constraints {
        let x = constraint_x(tl, &c);
        (start, end) = (start.min(x - 1.0), end.max(x + 1.0));
    }
    if let Some(d) = deadline {
        let x = deadline_x(tl, d);
        (start, end) = (start.min(x), end.max(x + DEADLINE_WIDTH));
    }
    (start, end)
}

/// What a bar drawn from `x` over `width` covers with its marks: the span its label
/// goes beside.
pub fn bar_body(tl: &Timeline, b: &Bar, x: f64, width: f64) -> (f64, f64) {
    let pin = b.pin.map(|date| Constraint {
        kind: ConstraintKind::StartNoEarlierThan,
        date,
    });
    with_marks(
        tl,
        (x, x + width),
        pin.into_iter().chain(b.constraint),
        b.deadline,
    )
}

/// What a milestone centred on `x` covers with its marks.
pub fn milestone_body(tl: &Timeline, m: &Milestone, x: f64) -> (f64, f64) {
    let diamond = (x - MILESTONE_HALF, x + MILESTONE_HALF);
    with_marks(tl, diamond, m.constraint.into_iter(), m.deadline)
}

/// A bar drawn from `x` over `width` (already at least [`MIN_BAR_WIDTH`]), with a label
/// `label_width` wide, on an axis `axis_width` wide: inside when it fits with the bar's
/// padding, else to the right when that stays on the axis, else to the left when that
/// does, else under it when it fits the axis' width, else inside (cut with an ellipsis:
/// the label is wider than the whole axis).
pub fn place_bar(x: f64, width: f64, label_width: f64, axis_width: f64) -> Placed {
    place_bar_with_marks(x, width, (x, x + width), label_width, axis_width)
}

/// [`place_bar`] for a bar whose marks widen it to `body` ([`bar_body`]): a label
/// beside it goes beside the body, so that it covers no mark.
pub fn place_bar_with_marks(
    x: f64,
    width: f64,
    body: (f64, f64),
    label_width: f64,
    axis_width: f64,
) -> Placed {
    let (start, end) = (body.0.min(x), body.1.max(x + width));
    let beside = LABEL_GAP + label_width;
    if label_width + 2.0 * BAR_PADDING <= width {
        Placed {
            side: Side::Inside,
            extent: (start, end),
        }
    } else if end + beside <= axis_width {
        Placed {
            side: Side::Right,
            extent: (start, end + beside),
        }
    } else if start - beside >= 0.0 {
        Placed {
            side: Side::Left,
            extent: (start - beside, end),
        }
    } else if label_width <= axis_width {
        below(start, end, label_width, axis_width)
    } else {
        Placed {
            side: Side::Inside,
            extent: (start, end),
        }
    }
}

/// A milestone whose diamond is centred on `x`: its label to the right when that stays
/// on the axis, else to the left when that does, else under it when it fits the axis,
/// else to the right (the axis scrolls on).
pub fn place_milestone(x: f64, label_width: f64, axis_width: f64) -> Placed {
    place_milestone_with_marks(
        (x - MILESTONE_HALF, x + MILESTONE_HALF),
        label_width,
        axis_width,
    )
}

/// [`place_milestone`] for a milestone whose marks widen its diamond to `body`
/// ([`milestone_body`]).
pub fn place_milestone_with_marks(body: (f64, f64), label_width: f64, axis_width: f64) -> Placed {
    let (start, end) = body;
    let beside = LABEL_GAP + label_width;
    if end + beside <= axis_width {
        Placed {
            side: Side::Right,
            extent: (start, end + beside),
        }
    } else if start - beside >= 0.0 {
        Placed {
            side: Side::Left,
            extent: (start - beside, end),
        }
    } else if label_width <= axis_width {
        below(start, end, label_width, axis_width)
    } else {
        Placed {
            side: Side::Right,
            extent: (start, end + beside),
        }
    }
}

// ---------------------------------------------------------------------------------
// Lanes

/// The first lane of each item (in the order given) and the number of lanes. An item
/// is its extent and how many lanes it takes from its first (two with its label under
/// it). Taken from the leftmost, each goes where all its lanes are free, that is where
/// it starts at least [`LANE_MARGIN`] after their last ends, the topmost such place,
/// else in new lanes below. So no two items of one lane overlap, and for items of one
/// lane each the lanes are the fewest there can be (greedy interval partitioning).
pub fn assign_lanes(items: &[(f64, f64, u16)]) -> (Vec<u16>, u16) {
    let mut lanes = Vec::new();
    let n = assign_lanes_into(items, &mut lanes, &mut Scratch::default());
    (lanes, n)
}

/// The buffers [`assign_lanes_into`] reuses from one row to the next: a schedule of
/// 100,000 bars is 10,000 rows, and three allocations a row were most of the cost.
#[derive(Debug, Default)]
pub struct Scratch {
    order: Vec<u32>,
    ends: Vec<f64>,
}

/// [`assign_lanes`], writing the lanes into `lanes` and reusing `scratch`.
pub fn assign_lanes_into(
    items: &[(f64, f64, u16)],
    lanes: &mut Vec<u16>,
    scratch: &mut Scratch,
) -> u16 {
    let Scratch { order, ends } = scratch;
    order.clear();
    order.extend(0..items.len() as u32);
    // Usually in order already (a row's bars come by start): sorted only when not.
    if items.windows(2).any(|w| w[1].0 < w[0].0) {
        // Whole sixteenths of a pixel as the key: the model's sorts take integers.
        crate::order::sort_by_key(order, |&i| ((items[i as usize].0 * 16.0).round() as i64, i));
    }
    ends.clear();
    lanes.clear();
    lanes.resize(items.len(), 0);
    for &i in order.iter() {
        let (a, b, h) = items[i as usize];
        let h = usize::from(h.max(1));
        let mut lane = 0;
        loop {
            if ends.len() < lane + h {
                ends.resize(lane + h, f64::NEG_INFINITY);
            }
            if ends[lane..lane + h].iter().all(|e| *e + LANE_MARGIN <= a) {
                break;
            }
            lane += 1;
        }
        ends[lane..lane + h].iter_mut().for_each(|e| *e = b);
        lanes[i as usize] = lane as u16;
    }
    (ends.len() as u16).max(1)
}

/// Where an item is drawn on its line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slot {
    /// 0 for the line's first lane; each lane is [`LINE_HEIGHT`] tall.
    pub lane: u16,
    pub side: Side,
}

/// The slot of every bar and milestone of the lines laid out, by their position in
/// `Schedule::bars` and `Schedule::milestones` (the default slot for the others).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lanes {
    bars: Vec<Slot>,
    milestones: Vec<Slot>,
}

impl Lanes {
    pub fn bar(&self, s: &Schedule, id: BarId) -> Slot {
        s.bars
            .binary_search_by(|b| b.id.cmp(&id))
            .ok()
            .and_then(|p| self.bars.get(p).copied())
            .unwrap_or_default()
    }

    pub fn milestone(&self, s: &Schedule, id: MilestoneId) -> Slot {
        s.milestones
            .binary_search_by(|m| m.id.cmp(&id))
            .ok()
            .and_then(|p| self.milestones.get(p).copied())
            .unwrap_or_default()
    }
}

/// The width of a bar's label as the view writes it (the lock glyph first when a lock
/// holds the bar).
pub fn bar_label_width(s: &Schedule, bar: &crate::schedule::Bar) -> f64 {
    let lock = if s.bar_lock(bar.id).is_some() {
        LOCK_WIDTH
    } else {
        0.0
    };
    text_width(&bar.label, LABEL_FONT) + lock
}

/// The x of a milestone's centre: the end of its day when a link leads to it, its
/// start when none does (a kickoff), as the model places milestones.
pub fn milestone_x(tl: &Timeline, date: Date, preceded: bool) -> f64 {
    tl.x_of(date) + if preceded { tl.px_per_day } else { 0.0 }
}

/// Places the labels of the rows' items on the axis `fit` and stacks each row's items
/// in lanes, then gives each row line the height of its lanes and moves every line
/// below it down. Costs a pass over the items of the rows in `lines` and a sort per
/// row; run again when the axis or the schedule changes.
pub fn stack(s: &Schedule, index: &RowIndex, lines: &mut [Line], fit: &Fit) -> Lanes {
    let tl = fit.timeline();
    let axis = fit.width();
    let mut lanes = Lanes {
        bars: vec![Slot::default(); s.bars.len()],
        milestones: vec![Slot::default(); s.milestones.len()],
    };
    // The milestones a link leads to (by position), for `milestone_x`: a binary search
    // per link, and none without milestones.
    let mut preceded = vec![false; s.milestones.len()];
    if !s.milestones.is_empty() {
        for l in &s.links {
            if let Ok(p) = s.milestones.binary_search_by(|m| m.id.0.cmp(&l.to.0)) {
                preceded[p] = true;
            }
        }
    }
    let mut y = 0.0;
    let mut extents: Vec<(f64, f64, u16)> = Vec::new();
    let mut sides: Vec<Side> = Vec::new();
    let (mut assigned, mut scratch) = (Vec::new(), Scratch::default());
    for line in lines.iter_mut() {
        line.y = y;
        line.height = LINE_HEIGHT;
        if let LineKind::Row { id, .. } = line.kind
            && let Some((bars, milestones)) = index.items_of(id)
        {
            extents.clear();
            sides.clear();
            for &p in bars {
                let b = &s.bars[p as usize];
                let x = tl.x_of(b.start);
                let w = tl.width_of(b.start, b.end).max(MIN_BAR_WIDTH);
                let body = bar_body(&tl, b, x, w);
                let placed = place_bar_with_marks(x, w, body, bar_label_width(s, b), axis);
                extents.push((placed.extent.0, placed.extent.1, placed.lanes()));
                sides.push(placed.side);
            }
            for &p in milestones {
                let m = &s.milestones[p as usize];
                let x = milestone_x(&tl, m.date, preceded[p as usize]);
                let body = milestone_body(&tl, m, x);
                let placed =
                    place_milestone_with_marks(body, text_width(&m.label, LABEL_FONT), axis);
                extents.push((placed.extent.0, placed.extent.1, placed.lanes()));
                sides.push(placed.side);
            }
            let count = assign_lanes_into(&extents, &mut assigned, &mut scratch);
            let items = bars
                .iter()
                .map(|p| (true, *p))
                .chain(milestones.iter().map(|p| (false, *p)));
            for (k, (is_bar, p)) in items.enumerate() {
                let slot = Slot {
                    lane: assigned[k],
                    side: sides[k],
                };
                let target = if is_bar {
                    &mut lanes.bars
                } else {
                    &mut lanes.milestones
                };
                if let Some(t) = target.get_mut(p as usize) {
                    *t = slot;
                }
            }
            line.height = LINE_HEIGHT * f64::from(count);
        }
        y += line.height;
    }
    lanes
}

/// The lines to render for a viewport when lines differ in height: those crossing
/// [scroll_top, scroll_top + viewport_height), widened by `overscan` lines on each
/// side. A binary search on the lines' tops: O(log lines).
pub fn visible_lines(
    lines: &[Line],
    scroll_top: f64,
    viewport_height: f64,
    overscan: usize,
) -> std::ops::Range<usize> {
    let finite_or_zero = |v: f64| if v.is_finite() { v.max(0.0) } else { 0.0 };
    let top = finite_or_zero(scroll_top);
    let bottom = top + finite_or_zero(viewport_height);
    let first = lines.partition_point(|l| l.y + l.height <= top);
    let last = lines.partition_point(|l| l.y < bottom).max(first);
    first.saturating_sub(overscan)..last.saturating_add(overscan).min(lines.len())
}

/// The height of the lines, top to bottom.
pub fn total_height(lines: &[Line]) -> f64 {
    lines.last().map_or(0.0, |l| l.y + l.height)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::idset::IdSet;
    use crate::layout;

    fn d(s: &str) -> Date {
        s.parse().unwrap()
    }

    #[test]
    fn the_default_zoom_fills_the_width_with_the_window() {
        // The demo's useful window (2026-10-30 .. 2026-12-21, 53 days) at the widths of
        // a phone, MCP Inspector's frame and a laptop, less the grid.
        let (from, to) = (d("2026-10-30"), d("2026-12-21"));
        for (width, zoom) in [
            (250.0, Zoom::Week),
            (476.0, Zoom::Week),
            (958.0, Zoom::Week),
            (1_700.0, Zoom::Day),
        ] {
            let f = fit(from, to, width, None);
            assert_eq!(f.zoom, zoom, "at {width} px");
            assert!((f.width() - width).abs() < 1e-6, "{} at {width}", f.width());
            assert_eq!((f.from, f.to), (from, to));
        }
        // A year at 400 px: months (1.1 px a day is under a month's 1.4): quarters.
        let f = fit(d("2026-01-01"), d("2026-12-31"), 400.0, None);
        assert_eq!(f.zoom, Zoom::Quarter);
        assert!((f.width() - 400.0).abs() < 1e-6);
        // Three years at 100 px cannot fit: the smallest scale, scrolled.
        let f = fit(d("2026-01-01"), d("2028-12-31"), 100.0, None);
        assert_eq!(f.px_per_day, MIN_PX_PER_DAY);
        assert!(f.width() > 100.0);
    }

    #[test]
    fn each_fitted_zoom_keeps_its_header_labels_whole() {
        // At the smallest scale of each zoom, every full cell's label fits (a week of
        // week 52, a month as long as February, the longest short month name).
        for zoom in Zoom::ALL {
            let ppd = min_px_per_day(zoom);
            let sc = layout::scale_at(zoom, ppd, d("2026-01-05"), d("2027-03-31"), crate::Lang::Fr);
            // The first and last cells are clipped to the range; the others are whole.
            for t in &sc.minor[1..sc.minor.len() - 1] {
                assert!(!t.label.is_empty(), "{zoom:?}: {t:?}");
            }
        }
    }

    #[test]
    fn a_chosen_zoom_keeps_its_scale_and_the_axis_still_fills_the_frame() {
        let (from, to) = (d("2026-11-02"), d("2026-11-29"));
        let f = fit(from, to, 1_000.0, Some(Zoom::Month));
        assert_eq!(f.px_per_day, 3.0);
        assert!(f.width() >= 1_000.0 && f.width() < 1_006.0, "{}", f.width());
        // The window stays in the middle.
        assert!(f.from < from && f.to > to);
        assert!((f.from.days_until(from) - to.days_until(f.to)).abs() <= 1);
        // Wider than the frame: the window as it is, scrolled.
        let f = fit(from, to, 200.0, Some(Zoom::Day));
        assert_eq!((f.from, f.to, f.px_per_day), (from, to, 32.0));
    }

    #[test]
    fn zoom_steps_go_from_the_scale_shown() {
        // A fitted 14 px a day is between Week (10) and Day (32).
        assert_eq!(step(14.0, true), Some(Zoom::Day));
        assert_eq!(step(14.0, false), Some(Zoom::Week));
        assert_eq!(step(10.0, false), Some(Zoom::Month));
        assert_eq!(step(10.0, true), Some(Zoom::Day));
        assert_eq!(step(60.0, true), None);
        assert_eq!(step(60.0, false), Some(Zoom::Day));
        assert_eq!(step(1.2, false), None);
        assert_eq!(step(0.5, true), Some(Zoom::Quarter));
    }

    #[test]
    fn text_widths_grow_with_the_text_and_the_font() {
        assert_eq!(text_width("", 11.0), 0.0);
        assert!(text_width("Mise en production", 11.0) > text_width("Bascule", 11.0));
        assert!(text_width("WWW", 11.0) > text_width("iii", 11.0) * 2.0);
        assert_eq!(text_width("ab", 22.0), 2.0 * text_width("ab", 11.0));
        // DejaVu Sans writes "Bascule" in about 44 px at 11 px: never estimated below.
        assert!(text_width("Bascule", 11.0) >= 44.0);
    }

    #[test]
    fn a_label_goes_inside_then_right_then_left() {
        // Wide enough: inside.
        let p = place_bar(100.0, 80.0, 60.0, 500.0);
        assert_eq!(
            p,
            Placed {
                side: Side::Inside,
                extent: (100.0, 180.0)
            }
        );
        // Too narrow: after it.
        let p = place_bar(100.0, 30.0, 60.0, 500.0);
        assert_eq!(p.side, Side::Right);
        assert_eq!(p.extent, (100.0, 130.0 + LABEL_GAP + 60.0));
        // No room after it on the axis: before it.
        let p = place_bar(440.0, 30.0, 60.0, 500.0);
        assert_eq!(p.side, Side::Left);
        assert_eq!(p.extent, (440.0 - LABEL_GAP - 60.0, 470.0));
        // Room on neither side: under it, centred, on two lanes.
        let p = place_bar(200.0, 30.0, 280.0, 500.0);
        assert_eq!(p.side, Side::Below);
        assert_eq!(p.lanes(), 2);
        assert_eq!(p.extent, (200.0 + 15.0 - 140.0, 215.0 + 140.0));
        // ...kept on the axis near its ends.
        assert_eq!(below_x(10.0, 40.0, 280.0, 500.0), 0.0);
        assert_eq!(below_x(470.0, 490.0, 280.0, 500.0), 220.0);
        // Wider than the whole axis: inside, cut.
        let p = place_bar(10.0, 30.0, 600.0, 500.0);
        assert_eq!(p.side, Side::Inside);
        // A milestone at the axis' end writes its label before it.
        assert_eq!(place_milestone(495.0, 60.0, 500.0).side, Side::Left);
        assert_eq!(place_milestone(50.0, 60.0, 500.0).side, Side::Right);
        // ...under it when neither side has room, after it when even that has not.
        assert_eq!(place_milestone(250.0, 300.0, 500.0).side, Side::Below);
        assert_eq!(place_milestone(30.0, 600.0, 500.0).side, Side::Right);
    }

    #[test]
    fn a_label_beside_its_item_covers_none_of_its_marks() {
        let s = crate::demo::s4hana_migration();
        let tl = Timeline {
            origin: d("2026-11-01"),
            px_per_day: 10.0,
        };
        let mut b = s.bars[0].clone();
        b.start = d("2026-11-10");
        b.end = d("2026-11-11");
        let (x, w) = (tl.x_of(b.start), tl.width_of(b.start, b.end));
        assert_eq!(bar_body(&tl, &b, x, w), (x, x + w), "no marks: the bar");
        // A deadline two days after it, a pin the day before it.
        b.deadline = Some(d("2026-11-13"));
        b.pin = Some(d("2026-11-09"));
        let body = bar_body(&tl, &b, x, w);
        assert_eq!(
            body,
            (
                x - 10.0 - 1.0,
                deadline_x(&tl, d("2026-11-13")) + DEADLINE_WIDTH
            )
        );
        let p = place_bar_with_marks(x, w, body, 60.0, 1_000.0);
        assert_eq!(p.side, Side::Right);
        assert!(p.extent.0 <= body.0 && p.extent.1 >= body.1 + LABEL_GAP + 60.0);
        // A finish constraint's line is at the end of its day.
        let c = Constraint {
            kind: ConstraintKind::FinishNoLaterThan,
            date: d("2026-11-11"),
        };
        assert_eq!(constraint_x(&tl, &c), tl.x_of(d("2026-11-12")));
        // A milestone's deadline widens its body the same way.
        let mut m = s.milestones[0].clone();
        m.deadline = Some(m.date.add_days(3));
        let mx = tl.x_of(m.date);
        let body = milestone_body(&tl, &m, mx);
        assert!(body.1 > mx + MILESTONE_HALF);
        assert_eq!(place_milestone_with_marks(body, 50.0, 1e9).extent.0, body.0);
    }

    #[test]
    fn overlapping_extents_get_distinct_lanes_and_others_share() {
        let (lanes, n) = assign_lanes(&[
            (0.0, 50.0, 1),
            (20.0, 80.0, 1),
            (60.0, 90.0, 1),
            (100.0, 120.0, 1),
        ]);
        assert_eq!(n, 2);
        assert_ne!(lanes[0], lanes[1]);
        // The third starts after the first ends: back in lane 0.
        assert_eq!(lanes[2], lanes[0]);
        assert_eq!(lanes[3], 0);
        // Touching within the margin counts as overlapping.
        let (lanes, n) = assign_lanes(&[(0.0, 50.0, 1), (52.0, 60.0, 1)]);
        assert_eq!((lanes, n), (vec![0, 1], 2));
        assert_eq!(assign_lanes(&[]), (vec![], 1));
        // The order given does not matter.
        let (lanes, _) = assign_lanes(&[(60.0, 90.0, 1), (0.0, 50.0, 1), (20.0, 80.0, 1)]);
        assert_ne!(lanes[1], lanes[2]);
        assert_eq!(lanes[0], lanes[1]);
        // An item with its label under it takes two free lanes: here lanes 1 and 2,
        // since lane 0 is busy; the next one fits lane 0 again.
        let (lanes, n) = assign_lanes(&[(0.0, 50.0, 1), (10.0, 70.0, 2), (60.0, 90.0, 1)]);
        assert_eq!((lanes, n), (vec![0, 1, 0], 3));
        let (lanes, n) = assign_lanes(&[(0.0, 50.0, 2), (60.0, 90.0, 1)]);
        assert_eq!((lanes, n), (vec![0, 0], 2));
    }

    #[test]
    fn stacking_grows_the_rows_whose_items_overlap_and_moves_the_lines_below() {
        let mut s = crate::demo::s4hana_migration();
        // A second bar over the first one of the first row.
        let first = s.bars[0].clone();
        let mut over = first.clone();
        over.id = BarId(s.next_id);
        over.label = "Recouvrement".into();
        over.start = first.start.add_days(1);
        s.next_id += 1;
        s.bars.push(over.clone());
        let index = RowIndex::new(&s);
        let mut lines = layout::lines(&s, &IdSet::default(), None);
        let (from, to) = s.span().unwrap();
        let f = fit(from, to, 900.0, None);
        let lanes = stack(&s, &index, &mut lines, &f);
        let a = lanes.bar(&s, first.id);
        let b = lanes.bar(&s, over.id);
        assert_ne!(a.lane, b.lane, "overlapping bars share no lane");
        let k = lines
            .iter()
            .position(|l| matches!(l.kind, LineKind::Row { id, .. } if id == first.row))
            .unwrap();
        assert_eq!(lines[k].height, 2.0 * LINE_HEIGHT);
        for w in lines.windows(2) {
            assert_eq!(w[1].y, w[0].y + w[0].height);
        }
        assert_eq!(
            total_height(&lines),
            lines.iter().map(|l| l.height).sum::<f64>()
        );
        // The other rows of the first group keep one lane.
        assert_eq!(lines[k + 1].height, LINE_HEIGHT);
        // The go-live milestone is the schedule's last day: three days of padding are
        // no room for its label, written before it rather than cut by the frame.
        let f = fit(from.add_days(-3), to.add_days(3), 900.0, None);
        let mut lines = layout::lines(&s, &IdSet::default(), None);
        let lanes = stack(&s, &index, &mut lines, &f);
        let go_live = &s.milestones[0];
        assert_eq!(go_live.date, to);
        assert_eq!(lanes.milestone(&s, go_live.id).side, Side::Left);
    }

    #[test]
    fn the_lines_of_a_viewport_are_found_whatever_their_heights() {
        let mut lines: Vec<Line> = (0..6)
            .map(|i| Line {
                kind: LineKind::Row {
                    id: crate::schedule::RowId(i),
                    group: crate::schedule::GroupId(1),
                },
                y: 0.0,
                height: LINE_HEIGHT * if i == 2 { 3.0 } else { 1.0 },
                depth: 1,
            })
            .collect();
        let mut y = 0.0;
        for l in &mut lines {
            l.y = y;
            y += l.height;
        }
        // Lines 0..2 end at 56; line 2 covers 56..140.
        assert_eq!(visible_lines(&lines, 60.0, 10.0, 0), 2..3);
        assert_eq!(visible_lines(&lines, 0.0, 57.0, 0), 0..3);
        assert_eq!(visible_lines(&lines, 140.0, 28.0, 0), 3..4);
        assert_eq!(visible_lines(&lines, 140.0, 28.0, 2), 1..6);
        assert_eq!(visible_lines(&lines, 10_000.0, 28.0, 0), 6..6);
        assert_eq!(visible_lines(&lines, f64::NAN, 28.0, 0), 0..1);
    }
}
