//! The math of the views: zoom levels and time scales, the x of a date, row placement
//! with collapsible groups, the lines and items a scrolled viewport shows, the useful
//! window of the inline view, kanban columns and agenda days.
//!
//! Nothing here touches a DOM or knows pixels beyond plain numbers: the view owns
//! drawing, scrolling and pointer handling and calls these functions with what it
//! measured. Which bars match a query is `filter`'s business (a [`RowFilter`] turns its
//! answer into the rows to show); what is critical or at risk is `cpm`'s and `risk`'s.
//!
//! Every line (a group header or a row) is laid out [`LINE_HEIGHT`] tall, which makes
//! [`visible_lines`] O(1): the first visible line is a division, not a search. The
//! chart then stacks overlapping items in lanes (`fit::stack`), which makes some rows
//! taller; it finds its visible lines with `fit::visible_lines`, a binary search on the
//! lines' tops, so scrolling 10,000 rows still costs about what scrolling ten does.
//! Items are reached through a [`RowIndex`] built once per schedule, so a frame costs
//! O(visible items), not O(bars).

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::Lang;
use crate::calendar::Calendar;
use crate::date::Date;
use crate::idset::IdSet;
use crate::schedule::*;

// ---------------------------------------------------------------------------------
// Zoom and timeline

/// How much time the Gantt shows per pixel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Zoom {
    /// 32 px a day: wide enough for a two-digit day number in the header and for a
    /// one-day bar to be a comfortable pointer and touch target when dragging.
    Day,
    /// 10 px a day (70 px a week): a week label ("S49") fits its tick, and the twelve
    /// weeks of the inline window span 840 px, about a conversation's width.
    #[default]
    Week,
    /// 3 px a day (about 91 px a month): a short month name fits, and a year spans
    /// about 1,100 px, a laptop screen.
    Month,
    /// 1.2 px a day (about 110 px a quarter): a multi-year programme (three years are
    /// about 1,300 px) fits a screen, and "T4" still fits its tick.
    Quarter,
}

impl Zoom {
    /// From the most detailed to the widest.
    pub const ALL: [Zoom; 4] = [Zoom::Day, Zoom::Week, Zoom::Month, Zoom::Quarter];

    /// A zoom by its wire name ("day", "week", "month", "quarter"), read by serde so
    /// that the names cannot drift from the ones the server writes.
    pub fn named(name: &str) -> Option<Zoom> {
        use serde::de::IntoDeserializer;
        let d: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
            name.into_deserializer();
        Zoom::deserialize(d).ok()
    }

    pub fn px_per_day(self) -> f64 {
        match self {
            Zoom::Day => 32.0,
            Zoom::Week => 10.0,
            Zoom::Month => 3.0,
            Zoom::Quarter => 1.2,
        }
    }

    /// The most detailed zoom at which `days` days fit in `width_px` pixels; `Quarter`
    /// when even that is too wide (the view then scrolls).
    pub fn fitting(days: i32, width_px: f64) -> Zoom {
        let days = f64::from(days.max(1));
        Zoom::ALL
            .into_iter()
            .find(|z| days * z.px_per_day() <= width_px)
            .unwrap_or(Zoom::Quarter)
    }
}

/// The mapping between dates and x coordinates: day `origin` starts at x = 0 and each
/// day is `px_per_day` wide (which must be positive).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    pub origin: Date,
    pub px_per_day: f64,
}

/// How far from the origin [`Timeline::date_at`] goes before clamping: far beyond the
/// years a schedule accepts, and safe from `i32` overflow.
const MAX_DAY_OFFSET: f64 = 1_000_000.0;

impl Timeline {
    pub fn new(origin: Date, zoom: Zoom) -> Timeline {
        Timeline {
            origin,
            px_per_day: zoom.px_per_day(),
        }
    }

    /// The x at which day `offset` (counted from the origin) starts.
    fn x_at(&self, offset: i32) -> f64 {
        f64::from(offset) * self.px_per_day
    }

    /// The x at which a day starts.
    pub fn x_of(&self, date: Date) -> f64 {
        self.x_at(self.origin.days_until(date))
    }

    /// The day under x: the date `d` with `x_of(d) <= x < x_of(d + 1)`. A non-finite x
    /// or a non-positive scale gives the origin; an x more than a million days away is
    /// clamped to a million days (far outside any schedule).
    pub fn date_at(&self, x: f64) -> Date {
        if !x.is_finite() || !self.px_per_day.is_finite() || self.px_per_day <= 0.0 {
            return self.origin;
        }
        let guess = (x / self.px_per_day)
            .floor()
            .clamp(-MAX_DAY_OFFSET, MAX_DAY_OFFSET);
        let mut n = guess as i32;
        // The division can round across a day boundary; settle on the day whose
        // [x_of, x_of + width) really holds x, as `x_of` computes it, so that a click
        // on a drawn edge and the date the model stores always agree.
        if self.x_at(n) > x {
            n -= 1;
        } else if self.x_at(n + 1) <= x {
            n += 1;
        }
        self.origin.add_days(n)
    }

    /// The width of the inclusive span [start, end_inclusive] (0 when it is empty).
    pub fn width_of(&self, start: Date, end_inclusive: Date) -> f64 {
        self.x_at((start.days_until(end_inclusive) + 1).max(0))
    }
}

// ---------------------------------------------------------------------------------
// Time scale

/// One cell of a header row: a unit of time (a day, a week, a month...) starting on
/// `date`, drawn from `x` over `width`. The first and last cells are clipped to the
/// scale's range, so `x` and `width` may cover only part of the unit while `date`
/// stays the unit's first day.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tick {
    pub date: Date,
    pub x: f64,
    pub width: f64,
    pub label: String,
}

/// The two header rows of the timeline over [from, to] (inclusive): `major` above
/// (months or years), `minor` below (days, weeks, months or quarters).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scale {
    pub zoom: Zoom,
    /// Day `from` starts at x = 0.
    pub timeline: Timeline,
    pub from: Date,
    pub to: Date,
    /// The total width of the range (0 when `to < from`).
    pub width: f64,
    pub major: Vec<Tick>,
    pub minor: Vec<Tick>,
}

/// A unit of the calendar that header cells count in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Day,
    Week,
    Month,
    Quarter,
    Year,
}

impl Unit {
    /// The first day of the unit holding `d`.
    fn start_of(self, d: Date) -> Date {
        match self {
            Unit::Day => d,
            Unit::Week => d.monday(),
            Unit::Month => d.first_of_month(),
            Unit::Quarter => d.add_months_to_first(-((d.month() as i32 - 1) % 3)),
            Unit::Year => d.add_months_to_first(-(d.month() as i32 - 1)),
        }
    }

    /// The first day of the next unit, from a unit's first day.
    fn next(self, start: Date) -> Date {
        match self {
            Unit::Day => start.add_days(1),
            Unit::Week => start.add_days(7),
            Unit::Month => start.add_months_to_first(1),
            Unit::Quarter => start.add_months_to_first(3),
            Unit::Year => start.add_months_to_first(12),
        }
    }

    /// The label of the unit starting on `start`. A month above days or weeks says its
    /// year ("novembre 2026"); a month in the minor row of the Month zoom sits under
    /// its year and is short ("nov.").
    fn label(self, start: Date, lang: Lang, major: bool) -> String {
        let (y, m, d) = start.ymd();
        match self {
            Unit::Day => d.to_string(),
            Unit::Week => match lang {
                Lang::Fr => format!("S{}", start.iso_week()),
                Lang::En => format!("W{}", start.iso_week()),
            },
            Unit::Month if major => format!("{} {y}", month_name(m, lang)),
            Unit::Month => month_short(m, lang).to_owned(),
            Unit::Quarter => match lang {
                Lang::Fr => format!("T{}", (m - 1) / 3 + 1),
                Lang::En => format!("Q{}", (m - 1) / 3 + 1),
            },
            Unit::Year => y.to_string(),
        }
    }
}

/// A month's full name (1 = January). French month names take no capital.
pub fn month_name(month: u32, lang: Lang) -> &'static str {
    const FR: [&str; 12] = [
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ];
    const EN: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let i = (month.clamp(1, 12) - 1) as usize;
    match lang {
        Lang::Fr => FR[i],
        Lang::En => EN[i],
    }
}

/// A month's abbreviated name, as each language abbreviates it ("sept.", "Sep").
pub fn month_short(month: u32, lang: Lang) -> &'static str {
    const FR: [&str; 12] = [
        "janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.",
        "déc.",
    ];
    const EN: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let i = (month.clamp(1, 12) - 1) as usize;
    match lang {
        Lang::Fr => FR[i],
        Lang::En => EN[i],
    }
}

/// The header rows for [from, to] at a zoom, in a language. Costs one tick per unit in
/// the range: the view asks for the range it shows (plus a margin), not the whole
/// schedule at Day zoom.
pub fn scale(zoom: Zoom, from: Date, to: Date, lang: Lang) -> Scale {
    scale_at(zoom, zoom.px_per_day(), from, to, lang)
}

/// The header rows for [from, to] with a zoom's cells at another scale (a fitted one,
/// `fit::fit`). A cell too narrow for its label shows a shorter one (a month above days
/// or weeks: "déc. 2026", then "déc.") or none, never a cut one: the first and last
/// cells, clipped to the range, are the ones this usually shortens.
pub fn scale_at(zoom: Zoom, px_per_day: f64, from: Date, to: Date, lang: Lang) -> Scale {
    let timeline = Timeline {
        origin: from,
        px_per_day,
    };
    let (major, minor) = match zoom {
        Zoom::Day => (Unit::Month, Unit::Day),
        Zoom::Week => (Unit::Month, Unit::Week),
        Zoom::Month => (Unit::Year, Unit::Month),
        Zoom::Quarter => (Unit::Year, Unit::Quarter),
    };
    let end = to.add_days(1);
    Scale {
        zoom,
        timeline,
        from,
        to,
        width: timeline.width_of(from, to),
        major: ticks(major, from, end, &timeline, lang, true),
        minor: ticks(minor, from, end, &timeline, lang, false),
    }
}

/// The cells of one header row over [from, end), clipped to it.
fn ticks(unit: Unit, from: Date, end: Date, tl: &Timeline, lang: Lang, major: bool) -> Vec<Tick> {
    let mut out = Vec::new();
    if end <= from {
        return out;
    }
    let mut start = unit.start_of(from);
    while start < end {
        let next = unit.next(start);
        let (a, b) = (start.max(from), next.min(end));
        let x = tl.x_of(a);
        let width = tl.x_of(b) - x;
        let mut label = unit.label(start, lang, major);
        if !crate::fit::label_fits(&label, width, major) {
            // A month above days or weeks says less before it says nothing: "déc. 2026",
            // then "déc.".
            let (y, m, _) = start.ymd();
            let short = month_short(m, lang);
            label = [format!("{short} {y}"), short.to_owned()]
                .into_iter()
                .filter(|_| unit == Unit::Month && major)
                .find(|l| crate::fit::label_fits(l, width, major))
                .unwrap_or_default();
        }
        out.push(Tick {
            date: start,
            x,
            width,
            label,
        });
        start = next;
    }
    out
}

// ---------------------------------------------------------------------------------
// Rows and lines

/// The height of every line, group header or row, in pixels. One height for both is
/// what keeps [`visible_lines`] a division (see the module header).
pub const LINE_HEIGHT: f64 = 28.0;

/// The rows a filter keeps: the view shows these rows (and the headers of their
/// groups) and hides the others.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowFilter {
    /// Sorted, without duplicates.
    rows: Vec<RowId>,
}

impl RowFilter {
    pub fn from_rows(rows: impl IntoIterator<Item = RowId>) -> RowFilter {
        let mut rows: Vec<RowId> = rows.into_iter().collect();
        crate::order::sort_by_u64(&mut rows, |r| r.0);
        rows.dedup();
        RowFilter { rows }
    }

    /// The rows holding these bars (what `filter::Filter::select` returns); ids that
    /// name no bar are ignored.
    pub fn from_bars(s: &Schedule, bars: &[BarId]) -> RowFilter {
        RowFilter::from_rows(bars.iter().filter_map(|b| s.bar(*b).map(|b| b.row)))
    }

    pub fn contains(&self, row: RowId) -> bool {
        self.rows.binary_search(&row).is_ok()
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// What a line shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LineKind {
    /// A group's header. `rows` counts the rows it holds (those the filter keeps);
    /// `span` is the roll-up of their bars and milestones (first start, last end),
    /// drawn as a summary bar, which is all a collapsed group shows.
    Group {
        id: GroupId,
        collapsed: bool,
        rows: usize,
        span: Option<(Date, Date)>,
    },
    Row {
        id: RowId,
        group: GroupId,
    },
}

/// One line of the Gantt's grid and timeline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub kind: LineKind,
    /// Top of the line, from the top of the first line.
    pub y: f64,
    pub height: f64,
    /// Indentation level: 0 for a group header, 1 for a row.
    pub depth: u8,
}

/// Rows found by id. Rows are kept in display order, not by id, so this sorted copy
/// turns "which row is r7" into a binary search.
#[derive(Clone, Debug)]
struct RowLookup {
    /// (row id, position in `Schedule::rows`), sorted by id.
    sorted: Vec<(RowId, u32)>,
}

impl RowLookup {
    fn new(s: &Schedule) -> RowLookup {
        let mut sorted: Vec<(RowId, u32)> = s
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id, i as u32))
            .collect();
        crate::order::sort_by_u64(&mut sorted, |p| p.0.0);
        RowLookup { sorted }
    }

    /// The position of a row in `Schedule::rows`.
    fn pos(&self, id: RowId) -> Option<usize> {
        self.sorted
            .binary_search_by(|(r, _)| r.cmp(&id))
            .ok()
            .map(|i| self.sorted[i].1 as usize)
    }
}

/// The rows of each group in display order: groups in their order, and within a
/// group its rows in their order in `Schedule::rows`. Positions index `s.groups` and
/// `s.rows`. A row whose group does not exist (a validated schedule has none) is left
/// out rather than shown under a header that does not exist.
fn display_order(s: &Schedule) -> Vec<(usize, Vec<usize>)> {
    let groups = s.group_positions();
    let mut out: Vec<(usize, Vec<usize>)> = (0..s.groups.len()).map(|g| (g, Vec::new())).collect();
    for (i, r) in s.rows.iter().enumerate() {
        if let Ok(k) = groups.binary_search_by(|(g, _)| g.cmp(&r.group)) {
            out[groups[k].1].1.push(i);
        }
    }
    out
}

/// For each row (by position), the first and last day of its bars and milestones.
fn row_spans(s: &Schedule, lookup: &RowLookup) -> Vec<Option<(Date, Date)>> {
    let mut spans: Vec<Option<(Date, Date)>> = vec![None; s.rows.len()];
    let items = s.bars.iter().map(|b| (b.row, b.start, b.end));
    let ms = s.milestones.iter().map(|m| (m.row, m.date, m.date));
    for (row, start, end) in items.chain(ms) {
        if let Some(p) = lookup.pos(row) {
            spans[p] = Some(merge(spans[p], (start, end)));
        }
    }
    spans
}

fn merge(a: Option<(Date, Date)>, b: (Date, Date)) -> (Date, Date) {
    match a {
        None => b,
        Some((s, e)) => (s.min(b.0), e.max(b.1)),
    }
}

/// The lines of the Gantt, top to bottom: each group's header, then its rows unless
/// the group is collapsed. With `only`, rows the filter does not keep are hidden, and
/// so are groups left with no row; without it, an empty group still shows its header
/// (it is where the next row goes). Roll-ups cover the rows shown.
pub fn lines(s: &Schedule, collapsed: &IdSet<GroupId>, only: Option<&RowFilter>) -> Vec<Line> {
    let lookup = RowLookup::new(s);
    let spans = row_spans(s, &lookup);
    let mut out = Vec::with_capacity(s.groups.len() + s.rows.len());
    let mut push = |kind: LineKind, depth: u8| {
        let y = out.len() as f64 * LINE_HEIGHT;
        out.push(Line {
            kind,
            y,
            height: LINE_HEIGHT,
            depth,
        });
    };
    for (g, rows) in display_order(s) {
        let kept: Vec<usize> = rows
            .into_iter()
            .filter(|r| only.is_none_or(|f| f.contains(s.rows[*r].id)))
            .collect();
        if only.is_some() && kept.is_empty() {
            continue;
        }
        let span = kept
            .iter()
            .filter_map(|r| spans[*r])
            .fold(None, |acc, x| Some(merge(acc, x)));
        let group = &s.groups[g];
        let is_collapsed = collapsed.contains(&group.id);
        push(
            LineKind::Group {
                id: group.id,
                collapsed: is_collapsed,
                rows: kept.len(),
                span,
            },
            0,
        );
        if !is_collapsed {
            for r in kept {
                push(
                    LineKind::Row {
                        id: s.rows[r].id,
                        group: group.id,
                    },
                    1,
                );
            }
        }
    }
    out
}

/// The lines to render for a viewport: those crossing [scroll_top, scroll_top +
/// viewport_height), widened by `overscan` lines on each side so a fast scroll does not
/// show blank lines before the next frame. O(1). A non-positive or non-finite
/// `row_height` gives an empty range; a negative or non-finite scroll counts as 0.
pub fn visible_lines(
    lines_len: usize,
    row_height: f64,
    scroll_top: f64,
    viewport_height: f64,
    overscan: usize,
) -> Range<usize> {
    if lines_len == 0 || !row_height.is_finite() || row_height <= 0.0 {
        return 0..0;
    }
    let finite_or_zero = |v: f64| if v.is_finite() { v.max(0.0) } else { 0.0 };
    let top = finite_or_zero(scroll_top);
    let bottom = top + finite_or_zero(viewport_height);
    // `as usize` saturates, so a huge scroll lands past the end and is clamped below.
    let mut first = (top / row_height).floor() as usize;
    let mut last = (bottom / row_height).ceil() as usize;
    // Division may round across a line boundary: correct against the line's top as the
    // view computes it (index * height), so no crossing line is ever missed.
    if first > 0 && first as f64 * row_height > top {
        first -= 1;
    }
    if (last as f64) * row_height < bottom {
        last += 1;
    }
    let first = first.min(lines_len);
    let last = last.min(lines_len).max(first);
    first.saturating_sub(overscan)..last.saturating_add(overscan).min(lines_len)
}

/// Each row's bars and milestones sorted by date, built once per schedule so that a
/// frame finds the items of its visible lines without looking at the others.
/// Positions index `Schedule::bars` and `Schedule::milestones`: rebuild the index when
/// the schedule changes (a stale index is never unsafe, only wrong).
#[derive(Clone, Debug)]
pub struct RowIndex {
    rows: RowLookup,
    /// `bars[bar_offsets[r]..bar_offsets[r + 1]]`: row r's bars, by start then id.
    bar_offsets: Vec<u32>,
    bars: Vec<u32>,
    /// Per row, the longest bar's length in days minus one: a bar that ends on or
    /// after `from` starts on or after `from - longest`, which bounds the search.
    longest: Vec<i32>,
    /// `milestones[ms_offsets[r]..ms_offsets[r + 1]]`: row r's milestones, by date.
    ms_offsets: Vec<u32>,
    milestones: Vec<u32>,
}

impl RowIndex {
    pub fn new(s: &Schedule) -> RowIndex {
        let rows = RowLookup::new(s);
        let n = s.rows.len();
        let bar_rows: Vec<Option<usize>> = s.bars.iter().map(|b| rows.pos(b.row)).collect();
        let ms_rows: Vec<Option<usize>> = s.milestones.iter().map(|m| rows.pos(m.row)).collect();
        let (bar_offsets, mut bars) = bucket(n, &bar_rows);
        let (ms_offsets, mut milestones) = bucket(n, &ms_rows);
        let mut longest = vec![0i32; n];
        for r in 0..n {
            let slice = &mut bars[bar_offsets[r] as usize..bar_offsets[r + 1] as usize];
            crate::order::sort_by_key(slice, |&i| {
                let b = &s.bars[i as usize];
                (b.start, b.id)
            });
            longest[r] = slice
                .iter()
                .map(|&i| {
                    let b = &s.bars[i as usize];
                    b.start.days_until(b.end).max(0)
                })
                .max()
                .unwrap_or(0);
            let slice = &mut milestones[ms_offsets[r] as usize..ms_offsets[r + 1] as usize];
            crate::order::sort_by_key(slice, |&i| {
                let m = &s.milestones[i as usize];
                (m.date, m.id)
            });
        }
        RowIndex {
            rows,
            bar_offsets,
            bars,
            longest,
            ms_offsets,
            milestones,
        }
    }
}

impl RowIndex {
    /// A row's bars (by start then id) and milestones (by date), as positions in
    /// `Schedule::bars` and `Schedule::milestones`; None for a row it does not hold.
    pub fn items_of(&self, row: RowId) -> Option<(&[u32], &[u32])> {
        let r = self.rows.pos(row)?;
        let bars = &self.bars[self.bar_offsets[r] as usize..self.bar_offsets[r + 1] as usize];
        let ms = &self.milestones[self.ms_offsets[r] as usize..self.ms_offsets[r + 1] as usize];
        Some((bars, ms))
    }
}

/// Items grouped by row, as offsets and a flat list (one allocation, not one per row).
fn bucket(rows: usize, item_rows: &[Option<usize>]) -> (Vec<u32>, Vec<u32>) {
    let mut offsets = vec![0u32; rows + 1];
    for r in item_rows.iter().flatten() {
        offsets[r + 1] += 1;
    }
    for r in 0..rows {
        offsets[r + 1] += offsets[r];
    }
    let mut fill = offsets.clone();
    let mut flat = vec![0u32; offsets[rows] as usize];
    for (i, r) in item_rows.iter().enumerate() {
        if let Some(r) = r {
            flat[fill[*r] as usize] = i as u32;
            fill[*r] += 1;
        }
    }
    (offsets, flat)
}

/// A bar or a milestone to draw, on the line at index `line` of the lines given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum VisibleItem {
    Bar {
        line: usize,
        id: BarId,
        start: Date,
        end: Date,
    },
    Milestone {
        line: usize,
        id: MilestoneId,
        date: Date,
    },
}

/// The bars and milestones of the visible row lines that cross [from, to] (inclusive),
/// line by line; within a line, bars by start then milestones by date. Group headers
/// carry their roll-up in the line itself. Costs O(visible lines x log + items found),
/// whatever the schedule's size (a row with one very long bar scans the bars that
/// start during that bar's length before `from`).
pub fn visible_items(
    index: &RowIndex,
    s: &Schedule,
    lines: &[Line],
    visible: Range<usize>,
    from: Date,
    to: Date,
) -> Vec<VisibleItem> {
    let mut out = Vec::new();
    let visible = visible.start.min(lines.len())..visible.end.min(lines.len());
    for (k, line) in lines[visible.clone()].iter().enumerate() {
        let LineKind::Row { id, .. } = line.kind else {
            continue;
        };
        let Some(r) = index.rows.pos(id) else {
            continue;
        };
        let line_index = visible.start + k;
        let bars = &index.bars[index.bar_offsets[r] as usize..index.bar_offsets[r + 1] as usize];
        let earliest = from.add_days(-index.longest[r]);
        let start_at = |p: &u32| s.bars.get(*p as usize).map(|b| b.start);
        let lo = bars.partition_point(|p| start_at(p).is_some_and(|d| d < earliest));
        let hi = bars.partition_point(|p| start_at(p).is_some_and(|d| d <= to));
        for p in &bars[lo..hi.max(lo)] {
            if let Some(b) = s.bars.get(*p as usize).filter(|b| b.end >= from) {
                out.push(VisibleItem::Bar {
                    line: line_index,
                    id: b.id,
                    start: b.start,
                    end: b.end,
                });
            }
        }
        let ms = &index.milestones[index.ms_offsets[r] as usize..index.ms_offsets[r + 1] as usize];
        let date_at = |p: &u32| s.milestones.get(*p as usize).map(|m| m.date);
        let lo = ms.partition_point(|p| date_at(p).is_some_and(|d| d < from));
        let hi = ms.partition_point(|p| date_at(p).is_some_and(|d| d <= to));
        for p in &ms[lo..hi.max(lo)] {
            if let Some(m) = s.milestones.get(*p as usize) {
                out.push(VisibleItem::Milestone {
                    line: line_index,
                    id: m.id,
                    date: m.date,
                });
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------
// The useful window of the inline view

/// Days shown before today when today falls within the plan: enough to see what just
/// finished (last week) without spending the width on the past.
pub const WINDOW_DAYS_BEFORE_TODAY: i32 = 7;
/// Days added on each side of the plan, so the first and last bars do not touch the
/// edges of the view.
pub const WINDOW_PADDING_DAYS: i32 = 3;
/// The longest window: twelve weeks, 840 px at Week zoom, about the width of a
/// conversation, and the horizon a status conversation covers (this month and the
/// next two). Longer plans are scrolled or opened full screen.
pub const WINDOW_MAX_DAYS: i32 = 84;

/// The span and rows worth showing inline, before anyone scrolls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    pub from: Date,
    /// Inclusive.
    pub to: Date,
    /// Rows with a bar or milestone crossing [from, to], in display order.
    pub rows: Vec<RowId>,
}

/// The span worth showing inline and its occupied rows (at most `max_rows`).
///
/// - The plan is its span padded by [`WINDOW_PADDING_DAYS`] on each side.
/// - If today falls within it, the window starts [`WINDOW_DAYS_BEFORE_TODAY`] days
///   before today (never before the plan) and runs on for at most [`WINDOW_MAX_DAYS`];
///   when the plan ends sooner, the window reaches back further instead, so the width
///   is spent on the plan rather than on empty days.
/// - If the plan is still to come, the window shows its beginning; if it is over,
///   its end (the latest state is what people ask about).
/// - An empty schedule gets a window starting a week before today.
pub fn useful_window(s: &Schedule, today: Date, max_rows: usize) -> Window {
    let Some((first, last)) = s.span() else {
        let from = today.add_days(-WINDOW_DAYS_BEFORE_TODAY);
        return Window {
            from,
            to: from.add_days(WINDOW_MAX_DAYS - 1),
            rows: Vec::new(),
        };
    };
    let (lo, hi) = (
        first.add_days(-WINDOW_PADDING_DAYS),
        last.add_days(WINDOW_PADDING_DAYS),
    );
    let span_from = |from: Date| (from, hi.min(from.add_days(WINDOW_MAX_DAYS - 1)));
    let (mut from, to) = if (lo..=hi).contains(&today) {
        span_from(lo.max(today.add_days(-WINDOW_DAYS_BEFORE_TODAY)))
    } else if today > hi {
        (lo.max(hi.add_days(-(WINDOW_MAX_DAYS - 1))), hi)
    } else {
        span_from(lo)
    };
    if from.days_until(to) + 1 < WINDOW_MAX_DAYS {
        from = lo.max(to.add_days(-(WINDOW_MAX_DAYS - 1)));
    }

    let lookup = RowLookup::new(s);
    let mut occupied = vec![false; s.rows.len()];
    let bars = s.bars.iter().map(|b| (b.row, b.start, b.end));
    let ms = s.milestones.iter().map(|m| (m.row, m.date, m.date));
    for (row, start, end) in bars.chain(ms) {
        if start <= to
            && end >= from
            && let Some(p) = lookup.pos(row)
        {
            occupied[p] = true;
        }
    }
    let rows = display_order(s)
        .into_iter()
        .flat_map(|(_, rows)| rows)
        .filter(|r| occupied[*r])
        .take(max_rows)
        .map(|r| s.rows[r].id)
        .collect();
    Window { from, to, rows }
}

// ---------------------------------------------------------------------------------
// Kanban

/// An action as a kanban card, with what the card shows of its bar and assignee.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Card {
    pub action: ActionId,
    pub label: String,
    pub status: ActionStatus,
    pub bar: BarId,
    /// Empty when the bar does not exist (a validated schedule has no such action).
    pub bar_label: String,
    pub assignee: Option<MemberId>,
    pub assignee_name: Option<String>,
}

/// One kanban column: the cards of one status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    pub status: ActionStatus,
    pub cards: Vec<Card>,
}

/// The kanban board: to do, in progress, done. Cards are ordered by bar, then by
/// action id, so the actions of one bar stay together and the order never depends on
/// when statuses changed.
pub fn kanban(s: &Schedule) -> [Column; 3] {
    let mut columns = ActionStatus::ALL.map(|status| Column {
        status,
        cards: Vec::new(),
    });
    for a in &s.actions {
        let column = ActionStatus::ALL
            .iter()
            .position(|st| *st == a.status)
            .unwrap_or(0);
        columns[column].cards.push(Card {
            action: a.id,
            label: a.label.clone(),
            status: a.status,
            bar: a.bar,
            bar_label: s.bar(a.bar).map(|b| b.label.clone()).unwrap_or_default(),
            assignee: a.assignee,
            assignee_name: a.assignee.and_then(|m| s.member(m)).map(|m| m.name.clone()),
        });
    }
    for c in &mut columns {
        crate::order::sort_by_key(&mut c.cards, |card| (card.bar, card.action));
    }
    columns
}

// ---------------------------------------------------------------------------------
// Agenda

/// The longest agenda: a year, leap day included. A longer range is clamped to its
/// first 366 days rather than refused: the view asks for a month or a quarter, and a
/// larger request is a mistake whose useful part is the beginning.
pub const AGENDA_MAX_DAYS: i32 = 366;

/// The agenda's shortest window: four weeks.
pub const AGENDA_MIN_DAYS: i32 = 28;

/// The window the agenda opens on when the tool named none: from the Monday of the week
/// of the first absence to the end of the last one (at least [`AGENDA_MIN_DAYS`], at
/// most [`AGENDA_MAX_DAYS`]), so that it shows every absence there is; without
/// absences, the schedule's span the same way; with neither, four weeks from today.
/// When the absences spread over more than a year, the window starts at the first one
/// that is not over yet (the last one when all are), as a person asks about what comes.
pub fn agenda_window(s: &Schedule, today: Date) -> (Date, Date) {
    let absences: Vec<(Date, Date)> = s
        .absences
        .iter()
        .filter(|a| a.start <= a.end)
        .map(|a| (a.start, a.end))
        .collect();
    let span = if absences.is_empty() {
        s.span()
    } else {
        let first = absences.iter().map(|a| a.0).min();
        let last = absences.iter().map(|a| a.1).max();
        first.zip(last)
    };
    let Some((mut first, last)) = span else {
        return (today, today.add_days(AGENDA_MIN_DAYS - 1));
    };
    if first.days_until(last) + 1 > AGENDA_MAX_DAYS {
        let coming = absences.iter().filter(|a| a.1 >= today).map(|a| a.0).min();
        let latest = absences.iter().map(|a| a.0).max();
        first = coming.or(latest).unwrap_or(first.max(today.monday()));
    }
    let from = first.monday();
    let to = last
        .max(from.add_days(AGENDA_MIN_DAYS - 1))
        .min(from.add_days(AGENDA_MAX_DAYS - 1));
    (from, to)
}

/// A member away on a day. The absence's reason is private and never part of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AbsentMember {
    pub id: MemberId,
    pub name: String,
}

/// One day of the agenda.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgendaDay {
    pub date: Date,
    /// Whether the schedule's calendar works that day (weekday and holidays).
    pub working: bool,
    /// Members away that day, by name then id.
    pub absent: Vec<AbsentMember>,
}

/// The days of [from, to] (inclusive, clamped to [`AGENDA_MAX_DAYS`]; empty when
/// `to < from`) with who is away. Absences of a member the schedule does not hold
/// are skipped: the agenda names people, and such an absence has no name to show.
pub fn agenda(s: &Schedule, from: Date, to: Date) -> Vec<AgendaDay> {
    if to < from {
        return Vec::new();
    }
    let to = to.min(from.add_days(AGENDA_MAX_DAYS - 1));
    let cal = Calendar::for_schedule(s);
    let mut days: Vec<AgendaDay> = (0..=from.days_until(to))
        .map(|k| {
            let date = from.add_days(k);
            AgendaDay {
                date,
                working: cal.is_working(date),
                absent: Vec::new(),
            }
        })
        .collect();
    for a in &s.absences {
        let (start, end) = (a.start.max(from), a.end.min(to));
        let Some(m) = s.member(a.member) else {
            continue;
        };
        if start > end {
            continue;
        }
        for k in from.days_until(start)..=from.days_until(end) {
            days[k as usize].absent.push(AbsentMember {
                id: m.id,
                name: m.name.clone(),
            });
        }
    }
    for d in &mut days {
        crate::order::sort_by(&mut d.absent, |a, b| {
            a.name.cmp(&b.name).then(a.id.cmp(&b.id))
        });
        // Two overlapping absences of one member make one line, not two.
        d.absent.dedup_by_key(|a| a.id);
    }
    days
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth;
    use proptest::prelude::*;

    fn d(s: &str) -> Date {
        s.parse().unwrap()
    }

    fn bar(id: u64, row: u64, start: &str, end: &str) -> Bar {
        Bar {
            id: BarId(id),
            row: RowId(row),
            label: format!("Bar {id}"),
            start: d(start),
            end: d(end),
            color: None,
            notes: String::new(),
            pin: None,
            constraint: None,
            deadline: None,
            progress: 0,
            actual_start: None,
            actual_finish: None,
        }
    }

    fn row(id: u64, group: u64, name: &str) -> Row {
        Row {
            id: RowId(id),
            group: GroupId(group),
            name: name.into(),
            member: None,
        }
    }

    /// Two groups in display order 20 then 10 (not id order), rows 21 and 22 in group
    /// 20, row 11 in group 10, row 23 in group 20 listed after row 11, and an empty
    /// group 30.
    fn sample() -> Schedule {
        let mut s = Schedule::new("Layout");
        for (id, name) in [(20, "Build"), (10, "Finance"), (30, "Empty")] {
            s.groups.push(Group {
                id: GroupId(id),
                name: name.into(),
            });
        }
        s.rows = vec![
            row(22, 20, "Backend"),
            row(21, 20, "Frontend"),
            row(11, 10, "Budget"),
            row(23, 20, "Ops"),
        ];
        s.bars = vec![
            bar(40, 22, "2026-11-02", "2026-11-06"),
            bar(41, 22, "2026-11-09", "2026-11-20"),
            bar(42, 21, "2026-11-16", "2026-11-18"),
            bar(43, 11, "2026-10-01", "2026-10-15"),
        ];
        s.milestones = vec![Milestone {
            id: MilestoneId(50),
            row: RowId(23),
            label: "Go live".into(),
            date: d("2026-12-01"),
            color: None,
            notes: String::new(),
            constraint: None,
            deadline: None,
        }];
        s.next_id = 60;
        s
    }

    #[test]
    fn zoom_serde_and_fitting() {
        assert_eq!(
            serde_json::to_string(&Zoom::Quarter).unwrap(),
            "\"quarter\""
        );
        assert_eq!(Zoom::fitting(20, 700.0), Zoom::Day);
        assert_eq!(Zoom::fitting(70, 700.0), Zoom::Week);
        assert_eq!(Zoom::fitting(71, 700.0), Zoom::Month);
        assert_eq!(Zoom::fitting(5000, 700.0), Zoom::Quarter);
        for z in Zoom::ALL {
            let name = serde_json::to_value(z).unwrap();
            assert_eq!(Zoom::named(name.as_str().unwrap()), Some(z));
        }
        assert_eq!(Zoom::named("year"), None);
    }

    #[test]
    fn timeline_maps_days_to_x_and_back() {
        let tl = Timeline::new(d("2026-11-01"), Zoom::Day);
        assert_eq!(tl.x_of(d("2026-11-03")), 64.0);
        assert_eq!(tl.x_of(d("2026-10-31")), -32.0);
        assert_eq!(tl.date_at(63.9), d("2026-11-02"));
        assert_eq!(tl.date_at(64.0), d("2026-11-03"));
        assert_eq!(tl.date_at(-0.1), d("2026-10-31"));
        assert_eq!(tl.date_at(f64::NAN), d("2026-11-01"));
        assert_eq!(tl.width_of(d("2026-11-03"), d("2026-11-03")), 32.0);
        assert_eq!(tl.width_of(d("2026-11-03"), d("2026-11-09")), 224.0);
        assert_eq!(tl.width_of(d("2026-11-03"), d("2026-11-01")), 0.0);
    }

    fn labels(ticks: &[Tick]) -> String {
        ticks
            .iter()
            .map(|t| format!("{}@{}+{}", t.label, t.x, t.width))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn day_scale_months_over_days() {
        let s = scale(Zoom::Day, d("2026-10-30"), d("2026-11-02"), Lang::Fr);
        assert_eq!(s.width, 128.0);
        // Two days of each month: too narrow for "octobre 2026", which is not cut but shortened.
        expect_test::expect!["oct.@0+64 nov.@64+64"].assert_eq(&labels(&s.major));
        let wide = scale(Zoom::Day, d("2026-10-27"), d("2026-11-05"), Lang::Fr);
        expect_test::expect!["octobre 2026@0+160 novembre 2026@160+160"]
            .assert_eq(&labels(&wide.major));
        expect_test::expect!["30@0+32 31@32+32 1@64+32 2@96+32"].assert_eq(&labels(&s.minor));
        assert_eq!(
            s.major[0].date,
            d("2026-10-01"),
            "a clipped tick keeps its date"
        );
    }

    #[test]
    fn week_scale_uses_iso_weeks() {
        let fr = scale(Zoom::Week, d("2026-11-25"), d("2026-12-13"), Lang::Fr);
        expect_test::expect!["nov.@0+60 décembre 2026@60+130"].assert_eq(&labels(&fr.major));
        expect_test::expect!["S48@0+50 S49@50+70 S50@120+70"].assert_eq(&labels(&fr.minor));
        assert_eq!(fr.minor[0].date, d("2026-11-23"));
        let en = scale(Zoom::Week, d("2026-12-28"), d("2027-01-10"), Lang::En);
        expect_test::expect!["Dec@0+40 January 2027@40+100"].assert_eq(&labels(&en.major));
        expect_test::expect!["W53@0+70 W1@70+70"].assert_eq(&labels(&en.minor));
    }

    #[test]
    fn month_and_quarter_scales() {
        let m = scale(Zoom::Month, d("2026-11-01"), d("2027-02-28"), Lang::Fr);
        expect_test::expect!["2026@0+183 2027@183+177"].assert_eq(&labels(&m.major));
        expect_test::expect!["nov.@0+90 déc.@90+93 janv.@183+93 févr.@276+84"]
            .assert_eq(&labels(&m.minor));
        let q = scale(Zoom::Quarter, d("2026-08-15"), d("2027-03-31"), Lang::En);
        let minor: Vec<(&str, String)> = q
            .minor
            .iter()
            .map(|t| (t.label.as_str(), t.date.to_string()))
            .collect();
        assert_eq!(
            minor,
            [
                ("Q3", "2026-07-01".to_string()),
                ("Q4", "2026-10-01".to_string()),
                ("Q1", "2027-01-01".to_string())
            ]
        );
        let widths: f64 = q.minor.iter().map(|t| t.width).sum();
        assert!((widths - q.width).abs() < 1e-9, "{widths} vs {}", q.width);
        assert_eq!(q.major.len(), 2);
        let q_fr = scale(Zoom::Quarter, d("2026-10-01"), d("2026-12-31"), Lang::Fr);
        assert_eq!(q_fr.minor[0].label, "T4");
        let empty = scale(Zoom::Day, d("2026-11-02"), d("2026-11-01"), Lang::Fr);
        assert!(empty.major.is_empty() && empty.minor.is_empty() && empty.width == 0.0);
    }

    #[test]
    fn month_names_by_hand() {
        assert_eq!(month_name(8, Lang::Fr), "août");
        assert_eq!(month_name(8, Lang::En), "August");
        assert_eq!(month_short(9, Lang::Fr), "sept.");
        assert_eq!(month_short(6, Lang::En), "Jun");
    }

    fn describe(lines: &[Line]) -> String {
        lines
            .iter()
            .map(|l| match &l.kind {
                LineKind::Group {
                    id,
                    collapsed,
                    rows,
                    span,
                } => format!(
                    "{}:{id:?}{} rows={rows} span={}",
                    l.y,
                    if *collapsed { "+" } else { "" },
                    span.map_or("-".into(), |(a, b)| format!("{a}..{b}"))
                ),
                LineKind::Row { id, group } => format!("{}:  {id:?} in {group:?}", l.y),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn lines_follow_display_order_and_collapse() {
        let s = sample();
        let all = lines(&s, &IdSet::default(), None);
        expect_test::expect![[r#"
            0:g20 rows=3 span=2026-11-02..2026-12-01
            28:  r22 in g20
            56:  r21 in g20
            84:  r23 in g20
            112:g10 rows=1 span=2026-10-01..2026-10-15
            140:  r11 in g10
            168:g30 rows=0 span=-"#]]
        .assert_eq(&describe(&all));
        assert!(all.iter().all(|l| l.height == LINE_HEIGHT));
        assert_eq!(all[1].depth, 1);
        assert_eq!(all[0].depth, 0);

        let collapsed = lines(&s, &IdSet::from_iter([GroupId(20)]), None);
        expect_test::expect![[r#"
            0:g20+ rows=3 span=2026-11-02..2026-12-01
            28:g10 rows=1 span=2026-10-01..2026-10-15
            56:  r11 in g10
            84:g30 rows=0 span=-"#]]
        .assert_eq(&describe(&collapsed));
    }

    #[test]
    fn a_row_filter_hides_rows_and_empty_groups() {
        let s = sample();
        let only = RowFilter::from_bars(&s, &[BarId(42), BarId(999)]);
        assert_eq!(only.len(), 1);
        let shown = lines(&s, &IdSet::default(), Some(&only));
        expect_test::expect![[r#"
            0:g20 rows=1 span=2026-11-16..2026-11-18
            28:  r21 in g20"#]]
        .assert_eq(&describe(&shown));
        assert!(lines(&s, &IdSet::default(), Some(&RowFilter::default())).is_empty());
    }

    #[test]
    fn visible_lines_examples() {
        assert_eq!(visible_lines(100, 28.0, 0.0, 280.0, 0), 0..10);
        assert_eq!(visible_lines(100, 28.0, 14.0, 280.0, 0), 0..11);
        assert_eq!(visible_lines(100, 28.0, 280.0, 280.0, 5), 5..25);
        assert_eq!(visible_lines(100, 28.0, 2_716.0, 280.0, 5), 92..100);
        assert_eq!(visible_lines(100, 28.0, 1e12, 280.0, 2), 98..100);
        assert_eq!(visible_lines(100, 28.0, -50.0, 56.0, 0), 0..2);
        assert_eq!(visible_lines(0, 28.0, 0.0, 280.0, 3), 0..0);
        assert_eq!(visible_lines(10, 0.0, 0.0, 280.0, 3), 0..0);
        assert_eq!(visible_lines(10, f64::NAN, 0.0, 280.0, 3), 0..0);
    }

    #[test]
    fn visible_items_of_visible_rows_and_dates() {
        let s = sample();
        let index = RowIndex::new(&s);
        let all = lines(&s, &IdSet::default(), None);
        let items = visible_items(&index, &s, &all, 0..6, d("2026-11-06"), d("2026-11-30"));
        assert_eq!(
            items,
            vec![
                VisibleItem::Bar {
                    line: 1,
                    id: BarId(40),
                    start: d("2026-11-02"),
                    end: d("2026-11-06")
                },
                VisibleItem::Bar {
                    line: 1,
                    id: BarId(41),
                    start: d("2026-11-09"),
                    end: d("2026-11-20")
                },
                VisibleItem::Bar {
                    line: 2,
                    id: BarId(42),
                    start: d("2026-11-16"),
                    end: d("2026-11-18")
                },
            ]
        );
        let later = visible_items(&index, &s, &all, 2..100, d("2026-12-01"), d("2026-12-01"));
        assert_eq!(
            later,
            vec![VisibleItem::Milestone {
                line: 3,
                id: MilestoneId(50),
                date: d("2026-12-01")
            }]
        );
        assert!(visible_items(&index, &s, &all, 0..1, d("2026-11-01"), d("2026-12-31")).is_empty());
    }

    /// The index must find exactly what a scan of every item finds.
    #[test]
    fn visible_items_agree_with_a_full_scan() {
        let s = synth::generate(synth::Spec::new(3_000));
        let index = RowIndex::new(&s);
        let all = lines(&s, &IdSet::default(), None);
        let (from, to) = (d("2026-03-02"), d("2026-04-10"));
        let range = 40..140;
        let mut found = visible_items(&index, &s, &all, range.clone(), from, to);
        let mut expected = Vec::new();
        for (k, l) in all.iter().enumerate().take(range.end).skip(range.start) {
            let LineKind::Row { id, .. } = l.kind else {
                continue;
            };
            for b in s
                .bars
                .iter()
                .filter(|b| b.row == id && b.start <= to && b.end >= from)
            {
                expected.push(VisibleItem::Bar {
                    line: k,
                    id: b.id,
                    start: b.start,
                    end: b.end,
                });
            }
            for m in s
                .milestones
                .iter()
                .filter(|m| m.row == id && m.date >= from && m.date <= to)
            {
                expected.push(VisibleItem::Milestone {
                    line: k,
                    id: m.id,
                    date: m.date,
                });
            }
        }
        assert!(!expected.is_empty());
        let key = |i: &VisibleItem| match i {
            VisibleItem::Bar { line, id, .. } => (*line, id.0),
            VisibleItem::Milestone { line, id, .. } => (*line, id.0),
        };
        found.sort_by_key(key);
        expected.sort_by_key(key);
        assert_eq!(found, expected);
    }

    #[test]
    fn useful_window_around_today() {
        let s = sample();
        // The plan: 2026-10-01 .. 2026-12-01, padded to 2026-09-28 .. 2026-12-04.
        let w = useful_window(&s, d("2026-11-10"), 10);
        // A week before today would leave only 32 days to the end: reach back to fill.
        assert_eq!((w.from, w.to), (d("2026-09-28"), d("2026-12-04")));
        assert_eq!(w.rows, vec![RowId(22), RowId(21), RowId(23), RowId(11)]);

        let mut long = sample();
        long.bars.push(bar(44, 11, "2026-11-01", "2027-06-30"));
        let w = useful_window(&long, d("2026-11-10"), 2);
        assert_eq!((w.from, w.to), (d("2026-11-03"), d("2027-01-25")));
        assert_eq!(w.from.days_until(w.to) + 1, WINDOW_MAX_DAYS);
        assert_eq!(w.rows, vec![RowId(22), RowId(21)], "capped to max_rows");

        let before = useful_window(&long, d("2026-01-01"), 10);
        assert_eq!((before.from, before.to), (d("2026-09-28"), d("2026-12-20")));
        let after = useful_window(&long, d("2028-01-01"), 10);
        assert_eq!((after.from, after.to), (d("2027-04-11"), d("2027-07-03")));
        assert_eq!(
            after.rows,
            vec![RowId(11)],
            "only rows with items in the window"
        );

        let empty = useful_window(&Schedule::new("E"), d("2026-11-10"), 10);
        assert_eq!((empty.from, empty.rows.len()), (d("2026-11-03"), 0));
    }

    #[test]
    fn kanban_columns_in_stable_order() {
        let mut s = sample();
        s.members.push(Member {
            id: MemberId(70),
            name: "Alice".into(),
            email: None,
        });
        let action = |id, bar, status, assignee| Action {
            id: ActionId(id),
            bar: BarId(bar),
            label: format!("Action {id}"),
            status,
            assignee,
        };
        s.actions = vec![
            action(80, 41, ActionStatus::Todo, Some(MemberId(70))),
            action(81, 40, ActionStatus::Todo, None),
            action(82, 40, ActionStatus::Done, None),
            action(83, 40, ActionStatus::Todo, None),
            action(84, 42, ActionStatus::InProgress, Some(MemberId(99))),
        ];
        let [todo, doing, done] = kanban(&s);
        assert_eq!(todo.status, ActionStatus::Todo);
        let ids: Vec<u64> = todo.cards.iter().map(|c| c.action.0).collect();
        assert_eq!(ids, [81, 83, 80]);
        assert_eq!(todo.cards[2].assignee_name.as_deref(), Some("Alice"));
        assert_eq!(todo.cards[2].bar_label, "Bar 41");
        assert_eq!(doing.cards.len(), 1);
        assert_eq!(doing.cards[0].assignee, Some(MemberId(99)));
        assert_eq!(doing.cards[0].assignee_name, None);
        assert_eq!(done.cards[0].action, ActionId(82));
    }

    #[test]
    fn agenda_names_absent_members_without_reasons() {
        let mut s = sample();
        s.settings.holidays = vec![d("2026-11-11")];
        s.members = vec![
            Member {
                id: MemberId(70),
                name: "Zoé".into(),
                email: None,
            },
            Member {
                id: MemberId(71),
                name: "Alice".into(),
                email: None,
            },
        ];
        let absence = |id, member, start: &str, end: &str| Absence {
            id: AbsenceId(id),
            member: MemberId(member),
            start: d(start),
            end: d(end),
            reason: "Medical appointment".into(),
        };
        s.absences = vec![
            absence(90, 70, "2026-11-09", "2026-11-12"),
            absence(91, 71, "2026-11-12", "2026-11-20"),
            absence(92, 70, "2026-11-12", "2026-11-12"),
            absence(93, 99, "2026-11-10", "2026-11-10"),
        ];
        let days = agenda(&s, d("2026-11-10"), d("2026-11-14"));
        let text: Vec<String> = days
            .iter()
            .map(|day| {
                let names: Vec<&str> = day.absent.iter().map(|a| a.name.as_str()).collect();
                format!("{} {} {}", day.date, day.working, names.join(","))
            })
            .collect();
        assert_eq!(
            text,
            [
                "2026-11-10 true Zoé",
                "2026-11-11 false Zoé",
                "2026-11-12 true Alice,Zoé",
                "2026-11-13 true Alice",
                "2026-11-14 false Alice",
            ]
        );
        let json = serde_json::to_string(&days).unwrap();
        assert!(!json.contains("Medical"), "reasons are private: {json}");

        assert_eq!(
            agenda(&s, d("2026-01-01"), d("2030-01-01")).len(),
            AGENDA_MAX_DAYS as usize
        );
        assert!(agenda(&s, d("2026-11-10"), d("2026-11-09")).is_empty());
    }

    proptest! {
        #[test]
        fn date_x_round_trip(offset in -200_000i32..200_000, zoom in 0usize..4, frac in 0.0f64..1.0) {
            let tl = Timeline::new(d("2026-11-30"), Zoom::ALL[zoom]);
            let day = tl.origin.add_days(offset);
            let x = tl.x_of(day);
            prop_assert_eq!(tl.date_at(x), day);
            // Any x inside the day's cell maps back to the day.
            let inside = x + frac * tl.px_per_day;
            if inside < tl.x_of(day.add_days(1)) {
                prop_assert_eq!(tl.date_at(inside), day);
            }
            prop_assert_eq!(tl.width_of(day, day), tl.px_per_day);
        }

        #[test]
        fn date_at_brackets_any_x(x in -1e5f64..1e5, ppd in 0.1f64..100.0) {
            let tl = Timeline { origin: d("2026-11-30"), px_per_day: ppd };
            let day = tl.date_at(x);
            prop_assert!(tl.x_of(day) <= x, "{} > {x}", tl.x_of(day));
            prop_assert!(x < tl.x_of(day.add_days(1)));
        }

        #[test]
        fn visible_lines_cover_the_viewport(
            len in 0usize..5_000,
            h in 1.0f64..80.0,
            top in -100.0f64..200_000.0,
            view in 0.0f64..3_000.0,
            overscan in 0usize..20,
        ) {
            let r = visible_lines(len, h, top, view, overscan);
            prop_assert!(r.start <= r.end && r.end <= len, "{r:?}");
            let top = top.max(0.0);
            for i in 0..len {
                let crosses = (i as f64) * h < top + view && (i as f64 + 1.0) * h > top;
                if crosses {
                    prop_assert!(r.contains(&i), "line {i} crosses the viewport, range {r:?}");
                }
            }
            let most = (view / h).ceil() as usize + 2 + 2 * overscan;
            prop_assert!(r.len() <= most, "{r:?} longer than {most}");
        }
    }

    #[test]
    fn the_agenda_opens_on_the_absences_or_the_span() {
        // The demo: one absence (2026-11-26..27), today after it.
        let mut s = crate::demo::s4hana_migration();
        let (from, to) = agenda_window(&s, d("2026-12-01"));
        assert_eq!(from, d("2026-11-23"), "the Monday of the absence's week");
        assert_eq!(to, d("2026-12-20"), "four weeks");
        for a in &s.absences {
            assert!(from <= a.start && a.end <= to);
        }
        let days = agenda(&s, from, to);
        assert!(days.iter().any(|d| !d.absent.is_empty()));
        // Absences months apart: all of them.
        let mut far = s.absences[0].clone();
        far.id = AbsenceId(s.next_id);
        far.start = d("2027-03-01");
        far.end = d("2027-03-05");
        s.absences.push(far);
        assert_eq!(
            agenda_window(&s, d("2026-12-01")),
            (d("2026-11-23"), d("2027-03-05"))
        );
        // Over a year apart: from the first not over yet.
        s.absences[1].start = d("2028-03-01");
        s.absences[1].end = d("2028-03-02");
        assert_eq!(
            agenda_window(&s, d("2026-12-01")),
            (d("2028-02-28"), d("2028-03-26"))
        );
        // No absence: the schedule's span (2026-11-02..2026-12-18).
        s.absences.clear();
        assert_eq!(
            agenda_window(&s, d("2030-01-01")),
            (d("2026-11-02"), d("2026-12-18"))
        );
        // Nothing at all: four weeks from today.
        let empty = Schedule::new("e");
        assert_eq!(
            agenda_window(&empty, d("2026-12-01")),
            (d("2026-12-01"), d("2026-12-28"))
        );
    }

    #[test]
    fn a_month_too_narrow_for_its_name_is_shortened_first() {
        // December at 4.6 px a day over 21 days (97 px): not "décembre 2026".
        let sc = scale_at(Zoom::Week, 4.6, d("2026-12-01"), d("2026-12-21"), Lang::Fr);
        assert_eq!(sc.major[0].label, "déc. 2026");
        let sc = scale_at(Zoom::Week, 4.6, d("2026-12-01"), d("2026-12-09"), Lang::En);
        assert_eq!(sc.major[0].label, "Dec");
        // Weeks are not shortened: a week too narrow shows nothing.
        let sc = scale_at(Zoom::Week, 4.6, d("2026-11-30"), d("2026-12-01"), Lang::En);
        assert_eq!(sc.minor[0].label, "");
    }

    #[test]
    fn a_header_cell_too_narrow_for_its_label_shows_none() {
        // Week zoom from a Friday: the major row's October cell is three days (30 px):
        // neither "octobre 2026", "oct. 2026" nor "oct." fits.
        let sc = scale(Zoom::Week, d("2026-10-30"), d("2026-12-21"), Lang::Fr);
        assert_eq!(sc.major[0].label, "", "{:?}", sc.major[0]);
        assert_eq!(sc.major[1].label, "novembre 2026");
        for t in sc.major.iter().chain(&sc.minor) {
            assert!(t.label.is_empty() || crate::fit::label_fits(&t.label, t.width, false));
        }
    }
}
