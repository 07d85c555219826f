//! The record stream read back from its JSON text by hand, without serde: what the view
//! reads pages, deltas and cut settings with.
//!
//! Why not serde: the view is one HTML file with a size budget, and serde's derived
//! readers of the fourteen record types (each with a sequence form JSON never uses, the
//! flattened `index` of groups and rows buffered through serde's generic content) were
//! a tenth of its code. This reader reads what the stream's serde form writes, and what
//! serde would accept of it besides (fields in any order, unknown fields skipped, `null`
//! for an absent optional field, any whitespace), into the same records: a test checks
//! it on schedules using every field, cut and whole. It is a little more lenient than
//! serde where the server never writes: a repeated key keeps its last value, and `-0`
//! is an integer.
//!
//! Owns: a small pull reader of JSON text and the readers of `Record`, `Settings` and
//! the enums on the wire. Errors say what was expected, where (a byte offset), and in
//! which record field.

use std::borrow::Cow;

use crate::date::{Date, Weekday};
use crate::layout::Zoom;
use crate::paging::{Counts, Cut, Field, Header, Kind, Placed, Record};
use crate::schedule::*;

type Res<T> = Result<T, String>;

/// The records of a page (a JSON array of records).
pub fn read_records(text: &str) -> Res<Vec<Record<'static>>> {
    let mut r = Reader::new(text);
    let mut out = Vec::new();
    r.array(&mut |r| {
        out.push(record(r)?);
        Ok(())
    })?;
    r.end()?;
    Ok(out)
}

/// A schedule's settings (their JSON object), as continuations carry them.
pub fn read_settings(text: &str) -> Res<Settings> {
    let mut r = Reader::new(text);
    let s = settings(&mut r)?;
    r.end()?;
    Ok(s)
}

/// A zoom level by its wire name ("day", "week", "month", "quarter").
pub fn zoom_named(name: &str) -> Option<Zoom> {
    let names = [
        ("day", Zoom::Day),
        ("week", Zoom::Week),
        ("month", Zoom::Month),
        ("quarter", Zoom::Quarter),
    ];
    names.iter().find(|(n, _)| *n == name).map(|(_, z)| *z)
}

// ---------------------------------------------------------------------------------
// The records

fn record(r: &mut Reader<'_>) -> Res<Record<'static>> {
    let mut rec = None;
    r.object(&mut |r, kind| {
        if rec.is_some() {
            return Err(r.err("a record with one kind only"));
        }
        rec = Some(match kind {
            "header" => Record::Header(header(r)?),
            "group" => {
                let (index, item) = group(r)?;
                Record::Group(Placed {
                    index,
                    item: Cow::Owned(item),
                })
            }
            "row" => {
                let (index, item) = row(r)?;
                Record::Row(Placed {
                    index,
                    item: Cow::Owned(item),
                })
            }
            "bar" => Record::Bar(Cow::Owned(bar(r)?)),
            "milestone" => Record::Milestone(Cow::Owned(milestone(r)?)),
            "link" => Record::Link(Cow::Owned(link(r)?)),
            "action" => Record::Action(Cow::Owned(action(r)?)),
            "member" => Record::Member(Cow::Owned(member(r)?)),
            "absence" => Record::Absence(Cow::Owned(absence(r)?)),
            "cut" => Record::Cut(cut(r)?),
            "cont" => Record::Cont(cont(r)?),
            _ => {
                let at = r.here();
                return Err(format!(
                    "unknown record kind `{}` at byte {at}",
                    short(kind)
                ));
            }
        });
        Ok(())
    })?;
    rec.ok_or_else(|| r.err("a record (an object with its kind as key)"))
}

/// A required field's value, or an error naming it and where its object starts.
fn need<T>(v: Option<T>, what: &str, field: &str, at: usize) -> Res<T> {
    v.ok_or_else(|| format!("{what} at byte {at}: missing field `{field}`"))
}

fn header(r: &mut Reader<'_>) -> Res<Header<'static>> {
    let at = r.here();
    let (mut name, mut settings_, mut notes, mut next_id, mut counts_) =
        (None, None, String::new(), None, None);
    let mut locks = Vec::new();
    r.object(&mut |r, k| {
        match k {
            "name" => name = Some(r.string()?),
            "settings" => settings_ = r.or_null(settings)?,
            "notes" => notes = r.string()?,
            "next_id" => next_id = Some(r.u64()?),
            "counts" => counts_ = Some(counts(r)?),
            "locks" => r.array(&mut |r| {
                locks.push(lock(r)?);
                Ok(())
            })?,
            _ => r.skip()?,
        }
        Ok(())
    })?;
    let w = "header";
    Ok(Header {
        name: Cow::Owned(need(name, w, "name", at)?),
        settings: settings_.map(Cow::Owned),
        notes: Cow::Owned(notes),
        next_id: need(next_id, w, "next_id", at)?,
        counts: need(counts_, w, "counts", at)?,
        locks,
    })
}

fn lock(r: &mut Reader<'_>) -> Res<Lock> {
    let at = r.here();
    let (mut target, mut by, mut by_name, mut since_ms, mut reason) =
        (None, None, None, None, String::new());
    r.object(&mut |r, k| {
        match k {
            "target" => target = Some(lock_target(r)?),
            "by" => by = Some(r.u64()?),
            "by_name" => by_name = Some(r.string()?),
            "since_ms" => {
                let (neg, n) = r.integer()?;
                let n = i64::try_from(n).map_err(|_| r.err_at(at, "a time in range"))?;
                since_ms = Some(if neg { -n } else { n });
            }
            "reason" => reason = r.string()?,
            _ => r.skip()?,
        }
        Ok(())
    })?;
    let w = "lock";
    Ok(Lock {
        target: need(target, w, "target", at)?,
        by: need(by, w, "by", at)?,
        by_name: need(by_name, w, "by_name", at)?,
        since_ms: need(since_ms, w, "since_ms", at)?,
        reason,
    })
}

/// `"schedule"`, or `{"group": 5}`, `{"row": 6}`, `{"bar": 14}`.
fn lock_target(r: &mut Reader<'_>) -> Res<LockTarget> {
    let at = r.here();
    if r.peek() == Some(b'"') {
        return match r.string()?.as_str() {
            "schedule" => Ok(LockTarget::Schedule),
            _ => Err(r.err_at(at, "a lock target (\"schedule\", {\"group\": id}...)")),
        };
    }
    let mut target = None;
    r.object(&mut |r, k| {
        let id = r.u64()?;
        target = Some(match k {
            "group" => LockTarget::Group(GroupId(id)),
            "row" => LockTarget::Row(RowId(id)),
            "bar" => LockTarget::Bar(BarId(id)),
            _ => return Err(r.err_at(at, "a lock target (\"schedule\", {\"group\": id}...)")),
        });
        Ok(())
    })?;
    target.ok_or_else(|| r.err_at(at, "a lock target"))
}

fn counts(r: &mut Reader<'_>) -> Res<Counts> {
    let at = r.here();
    let mut n = [None; 8];
    let names = [
        "groups",
        "rows",
        "bars",
        "milestones",
        "links",
        "actions",
        "members",
        "absences",
    ];
    r.object(&mut |r, k| {
        match names.iter().position(|n| *n == k) {
            Some(i) => n[i] = Some(r.usize()?),
            None => r.skip()?,
        }
        Ok(())
    })?;
    let mut got = [0; 8];
    for (i, v) in n.into_iter().enumerate() {
        got[i] = need(v, "counts", names[i], at)?;
    }
    let [
        groups,
        rows,
        bars,
        milestones,
        links,
        actions,
        members,
        absences,
    ] = got;
    Ok(Counts {
        groups,
        rows,
        bars,
        milestones,
        links,
        actions,
        members,
        absences,
    })
}

fn settings(r: &mut Reader<'_>) -> Res<Settings> {
    let at = r.here();
    let (mut zone, mut weekdays, mut holidays, mut unit) = (None, None, None, None);
    let mut scheduling = Scheduling::Manual;
    r.object(&mut |r, k| {
        match k {
            "time_zone" => zone = Some(r.string()?),
            "working_weekdays" => {
                let mut days = Vec::new();
                r.array(&mut |r| {
                    days.push(r.pick(&WEEKDAYS, "a weekday (\"mon\"...)")?);
                    Ok(())
                })?;
                weekdays = Some(days);
            }
            "holidays" => {
                let mut dates = Vec::new();
                r.array(&mut |r| {
                    dates.push(r.date()?);
                    Ok(())
                })?;
                holidays = Some(dates);
            }
            "time_unit" => {
                unit = Some(r.pick(
                    &[("day", TimeUnit::Day), ("week", TimeUnit::Week)],
                    "a time unit (\"day\" or \"week\")",
                )?)
            }
            "scheduling" => {
                scheduling = r.pick(
                    &[("auto", Scheduling::Auto), ("manual", Scheduling::Manual)],
                    "a scheduling mode (\"auto\" or \"manual\")",
                )?
            }
            _ => r.skip()?,
        }
        Ok(())
    })?;
    let w = "settings";
    Ok(Settings {
        time_zone: need(zone, w, "time_zone", at)?,
        working_weekdays: need(weekdays, w, "working_weekdays", at)?,
        holidays: need(holidays, w, "holidays", at)?,
        time_unit: need(unit, w, "time_unit", at)?,
        scheduling,
    })
}

const WEEKDAYS: [(&str, Weekday); 7] = [
    ("mon", Weekday::Mon),
    ("tue", Weekday::Tue),
    ("wed", Weekday::Wed),
    ("thu", Weekday::Thu),
    ("fri", Weekday::Fri),
    ("sat", Weekday::Sat),
    ("sun", Weekday::Sun),
];

fn group(r: &mut Reader<'_>) -> Res<(usize, Group)> {
    let at = r.here();
    let (mut index, mut id, mut name) = (None, None, None);
    r.object(&mut |r, k| {
        match k {
            "index" => index = Some(r.usize()?),
            "id" => id = Some(r.u64()?),
            "name" => name = Some(r.string()?),
            _ => r.skip()?,
        }
        Ok(())
    })?;
    let w = "group";
    Ok((
        need(index, w, "index", at)?,
        Group {
            id: GroupId(need(id, w, "id", at)?),
            name: need(name, w, "name", at)?,
        },
    ))
}

fn row(r: &mut Reader<'_>) -> Res<(usize, Row)> {
    let at = r.here();
    let (mut index, mut id, mut group, mut name, mut member) = (None, None, None, None, None);
    r.object(&mut |r, k| {
        match k {
            "index" => index = Some(r.usize()?),
            "id" => id = Some(r.u64()?),
            "group" => group = Some(r.u64()?),
            "name" => name = Some(r.string()?),
            "member" => member = r.or_null(Reader::u64)?,
            _ => r.skip()?,
        }
        Ok(())
    })?;
    let w = "row";
    Ok((
        need(index, w, "index", at)?,
        Row {
            id: RowId(need(id, w, "id", at)?),
            group: GroupId(need(group, w, "group", at)?),
            name: need(name, w, "name", at)?,
            member: member.map(MemberId),
        },
    ))
}

fn bar(r: &mut Reader<'_>) -> Res<Bar> {
    let at = r.here();
    let (mut id, mut row, mut label, mut start, mut end) = (None, None, None, None, None);
    let (mut color, mut notes, mut pin) = (None, String::new(), None);
    let (mut constraint, mut deadline) = (None, None);
    let (mut progress, mut actual_start, mut actual_finish) = (0, None, None);
    r.object(&mut |r, k| {
        match k {
            "id" => id = Some(r.u64()?),
            "row" => row = Some(r.u64()?),
            "label" => label = Some(r.string()?),
            "start" => start = Some(r.date()?),
            "end" => end = Some(r.date()?),
            "color" => color = r.or_null(Reader::string)?,
            "notes" => notes = r.string()?,
            "pin" => pin = r.or_null(Reader::date)?,
            "constraint" => constraint = r.or_null(constraint_of)?,
            "deadline" => deadline = r.or_null(Reader::date)?,
            "progress" => progress = r.u8()?,
            "actual_start" => actual_start = r.or_null(Reader::date)?,
            "actual_finish" => actual_finish = r.or_null(Reader::date)?,
            _ => r.skip()?,
        }
        Ok(())
    })?;
    let w = "bar";
    Ok(Bar {
        id: BarId(need(id, w, "id", at)?),
        row: RowId(need(row, w, "row", at)?),
        label: need(label, w, "label", at)?,
        start: need(start, w, "start", at)?,
        end: need(end, w, "end", at)?,
        color,
        notes,
        pin,
        constraint,
        deadline,
        progress,
        actual_start,
        actual_finish,
    })
}

fn constraint_of(r: &mut Reader<'_>) -> Res<Constraint> {
    let at = r.here();
    let (mut kind, mut date) = (None, None);
    r.object(&mut |r, k| {
        match k {
            "kind" => {
                kind = Some(r.pick(
                    &ConstraintKind::ALL.map(|c| (c.as_str(), c)),
                    "a constraint kind (\"start_no_earlier_than\", \"start_no_later_than\", \"must_start_on\", \"finish_no_earlier_than\" or \"finish_no_later_than\")",
                )?)
            }
            "date" => date = Some(r.date()?),
            _ => r.skip()?,
        }
        Ok(())
    })?;
    let w = "constraint";
    Ok(Constraint {
        kind: need(kind, w, "kind", at)?,
        date: need(date, w, "date", at)?,
    })
}

fn milestone(r: &mut Reader<'_>) -> Res<Milestone> {
    let at = r.here();
    let (mut id, mut row, mut label, mut date) = (None, None, None, None);
    let (mut color, mut notes) = (None, String::new());
    let (mut constraint, mut deadline) = (None, None);
    r.object(&mut |r, k| {
        match k {
            "id" => id = Some(r.u64()?),
            "row" => row = Some(r.u64()?),
            "label" => label = Some(r.string()?),
            "date" => date = Some(r.date()?),
            "color" => color = r.or_null(Reader::string)?,
            "notes" => notes = r.string()?,
            "constraint" => constraint = r.or_null(constraint_of)?,
            "deadline" => deadline = r.or_null(Reader::date)?,
            _ => r.skip()?,
        }
        Ok(())
    })?;
    let w = "milestone";
    Ok(Milestone {
        id: MilestoneId(need(id, w, "id", at)?),
        row: RowId(need(row, w, "row", at)?),
        label: need(label, w, "label", at)?,
        date: need(date, w, "date", at)?,
        color,
        notes,
        constraint,
        deadline,
    })
}

fn link(r: &mut Reader<'_>) -> Res<Link> {
    let at = r.here();
    let (mut id, mut from, mut to, mut kind, mut lag) = (None, None, None, LinkKind::FS, 0);
    r.object(&mut |r, k| {
        match k {
            "id" => id = Some(r.u64()?),
            "from" => from = Some(r.u64()?),
            "to" => to = Some(r.u64()?),
            "kind" => {
                kind = r.pick(
                    &[
                        ("FS", LinkKind::FS),
                        ("SS", LinkKind::SS),
                        ("FF", LinkKind::FF),
                        ("SF", LinkKind::SF),
                    ],
                    "a link type (\"FS\", \"SS\", \"FF\" or \"SF\")",
                )?
            }
            "lag" => {
                let at = r.here();
                lag = i32::try_from(r.i64()?).map_err(|_| r.err_at(at, "a lag in i32 range"))?
            }
            _ => r.skip()?,
        }
        Ok(())
    })?;
    let w = "link";
    Ok(Link {
        id: LinkId(need(id, w, "id", at)?),
        from: ItemId(need(from, w, "from", at)?),
        to: ItemId(need(to, w, "to", at)?),
        kind,
        lag,
    })
}

fn action(r: &mut Reader<'_>) -> Res<Action> {
    let at = r.here();
    let (mut id, mut bar, mut label, mut status, mut assignee) =
        (None, None, None, ActionStatus::Todo, None);
    r.object(&mut |r, k| {
        match k {
            "id" => id = Some(r.u64()?),
            "bar" => bar = Some(r.u64()?),
            "label" => label = Some(r.string()?),
            "status" => {
                status = r.pick(
                    &ActionStatus::ALL.map(|a| (a.as_str(), a)),
                    "a status (\"todo\", \"in_progress\" or \"done\")",
                )?
            }
            "assignee" => assignee = r.or_null(Reader::u64)?,
            _ => r.skip()?,
        }
        Ok(())
    })?;
    let w = "action";
    Ok(Action {
        id: ActionId(need(id, w, "id", at)?),
        bar: BarId(need(bar, w, "bar", at)?),
        label: need(label, w, "label", at)?,
        status,
        assignee: assignee.map(MemberId),
    })
}

fn member(r: &mut Reader<'_>) -> Res<Member> {
    let at = r.here();
    let (mut id, mut name, mut email) = (None, None, None);
    r.object(&mut |r, k| {
        match k {
            "id" => id = Some(r.u64()?),
            "name" => name = Some(r.string()?),
            "email" => email = r.or_null(Reader::string)?,
            _ => r.skip()?,
        }
        Ok(())
    })?;
    let w = "member";
    Ok(Member {
        id: MemberId(need(id, w, "id", at)?),
        name: need(name, w, "name", at)?,
        email,
    })
}

fn absence(r: &mut Reader<'_>) -> Res<Absence> {
    let at = r.here();
    let (mut id, mut member, mut start, mut end, mut reason) =
        (None, None, None, None, String::new());
    r.object(&mut |r, k| {
        match k {
            "id" => id = Some(r.u64()?),
            "member" => member = Some(r.u64()?),
            "start" => start = Some(r.date()?),
            "end" => end = Some(r.date()?),
            "reason" => reason = r.string()?,
            _ => r.skip()?,
        }
        Ok(())
    })?;
    let w = "absence";
    Ok(Absence {
        id: AbsenceId(need(id, w, "id", at)?),
        member: MemberId(need(member, w, "member", at)?),
        start: need(start, w, "start", at)?,
        end: need(end, w, "end", at)?,
        reason,
    })
}

const FIELD: &str = "a field name (\"label\", \"notes\"...)";

/// The fields by their wire names.
fn field_names() -> [(&'static str, Field); 7] {
    Field::ALL.map(|f| (f.as_str(), f))
}

fn cut(r: &mut Reader<'_>) -> Res<Cut<'static>> {
    let at = r.here();
    let (mut fields, mut rec) = (None, None);
    r.object(&mut |r, k| {
        match k {
            "fields" => {
                let mut all = Vec::new();
                r.array(&mut |r| {
                    all.push(r.pick(&field_names(), FIELD)?);
                    Ok(())
                })?;
                fields = Some(all);
            }
            "record" => rec = Some(Box::new(record(r)?)),
            _ => r.skip()?,
        }
        Ok(())
    })?;
    Ok(Cut {
        fields: need(fields, "cut", "fields", at)?,
        record: need(rec, "cut", "record", at)?,
    })
}

fn cont(r: &mut Reader<'_>) -> Res<crate::paging::Cont<'static>> {
    let at = r.here();
    let (mut of, mut id, mut field, mut part, mut text, mut last) =
        (None, None, None, None, None, false);
    r.object(&mut |r, k| {
        match k {
            "of" => {
                of = Some(r.pick(
                    &[
                        ("header", Kind::Header),
                        ("group", Kind::Group),
                        ("row", Kind::Row),
                        ("bar", Kind::Bar),
                        ("milestone", Kind::Milestone),
                        ("link", Kind::Link),
                        ("action", Kind::Action),
                        ("member", Kind::Member),
                        ("absence", Kind::Absence),
                        ("cont", Kind::Cont),
                    ],
                    "a record kind (\"bar\"...)",
                )?)
            }
            "id" => id = r.or_null(Reader::u64)?,
            "field" => field = Some(r.pick(&field_names(), FIELD)?),
            "part" => {
                let at = r.here();
                part = Some(u32::try_from(r.u64()?).map_err(|_| r.err_at(at, "a part number"))?)
            }
            "text" => text = Some(r.string()?),
            "last" => last = r.bool()?,
            _ => r.skip()?,
        }
        Ok(())
    })?;
    let w = "cont";
    Ok(crate::paging::Cont {
        of: need(of, w, "of", at)?,
        id,
        field: need(field, w, "field", at)?,
        part: need(part, w, "part", at)?,
        text: Cow::Owned(need(text, w, "text", at)?),
        last,
    })
}

/// At most 40 chars of a text quoted in an error.
fn short(s: &str) -> String {
    s.chars().take(40).collect()
}

// ---------------------------------------------------------------------------------
// The pull reader

/// Reads JSON text from the front. Every method skips the whitespace before its value.
struct Reader<'t> {
    text: &'t str,
    at: usize,
    /// Objects and arrays open: bounded, as serde_json bounds it, so that a deeply
    /// nested value gets an error rather than overflowing the stack.
    depth: u32,
}

/// serde_json's bound on nesting.
const MAX_DEPTH: u32 = 128;

impl<'t> Reader<'t> {
    fn new(text: &'t str) -> Reader<'t> {
        Reader {
            text,
            at: 0,
            depth: 0,
        }
    }

    /// Where the next value starts (after any whitespace).
    fn here(&mut self) -> usize {
        self.peek();
        self.at
    }

    /// Enters an object or an array.
    fn open(&mut self, c: u8, expected: &str) -> Res<()> {
        self.eat(c, expected)?;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("at most 128 nested objects and arrays"));
        }
        Ok(())
    }

    fn err(&self, expected: &str) -> String {
        self.err_at(self.at, expected)
    }

    fn err_at(&self, at: usize, expected: &str) -> String {
        let found = match self.text.as_bytes().get(at) {
            None => "the end of the text".to_owned(),
            Some(_) => format!("`{}`", short(self.text.get(at..).unwrap_or(""))),
        };
        format!("expected {expected} at byte {at}, found {found}")
    }

    /// The next byte that is not whitespace, not consumed.
    fn peek(&mut self) -> Option<u8> {
        let b = self.text.as_bytes();
        while let Some(c) = b.get(self.at) {
            if !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(*c);
            }
            self.at += 1;
        }
        None
    }

    fn eat(&mut self, c: u8, expected: &str) -> Res<()> {
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.err(expected))
        }
    }

    /// Only whitespace is left.
    fn end(&mut self) -> Res<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.err("the end of the text")),
        }
    }

    /// Reads an object, giving each key to `each`, which must read its value.
    fn object(&mut self, each: &mut dyn FnMut(&mut Reader<'t>, &str) -> Res<()>) -> Res<()> {
        self.open(b'{', "an object")?;
        if self.peek() == Some(b'}') {
            self.at += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            let key = self.str_cow()?;
            self.eat(b':', "`:`")?;
            each(self, &key)?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(self.err("`,` or `}`")),
            }
        }
    }

    /// Reads an array, `each` reading each element.
    fn array(&mut self, each: &mut dyn FnMut(&mut Reader<'t>) -> Res<()>) -> Res<()> {
        self.open(b'[', "an array")?;
        if self.peek() == Some(b']') {
            self.at += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            each(self)?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(self.err("`,` or `]`")),
            }
        }
    }

    /// `None` for `null`, else what `read` reads.
    fn or_null<T>(&mut self, read: fn(&mut Reader<'t>) -> Res<T>) -> Res<Option<T>> {
        if self.peek() == Some(b'n') {
            self.word("null")?;
            Ok(None)
        } else {
            read(self).map(Some)
        }
    }

    fn word(&mut self, w: &str) -> Res<()> {
        self.peek();
        if self.text[self.at..].starts_with(w) {
            self.at += w.len();
            Ok(())
        } else {
            Err(self.err(w))
        }
    }

    fn bool(&mut self) -> Res<bool> {
        match self.peek() {
            Some(b't') => self.word("true").map(|_| true),
            Some(b'f') => self.word("false").map(|_| false),
            _ => Err(self.err("`true` or `false`")),
        }
    }

    fn string(&mut self) -> Res<String> {
        self.str_cow().map(Cow::into_owned)
    }

    /// A string: borrowed from the text when it has no escapes, as nearly all do.
    fn str_cow(&mut self) -> Res<Cow<'t, str>> {
        self.eat(b'"', "a string")?;
        let text = self.text;
        let b = text.as_bytes();
        let start = self.at;
        let mut i = start;
        while let Some(&c) = b.get(i) {
            match c {
                b'"' => {
                    self.at = i + 1;
                    return Ok(Cow::Borrowed(&text[start..i]));
                }
                b'\\' => break,
                0..=0x1f => return Err(self.err_at(i, "no control character in a string")),
                _ => i += 1,
            }
        }
        let mut out = String::from(&text[start..i]);
        loop {
            let run = i;
            while let Some(&c) = b.get(i) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                i += 1;
            }
            out.push_str(&text[run..i]);
            match b.get(i) {
                Some(b'"') => {
                    self.at = i + 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    let esc = b.get(i + 1).copied();
                    i += 2;
                    let c = match esc {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let hi = self.hex4(i)?;
                            i += 4;
                            let c = if (0xD800..0xDC00).contains(&hi)
                                && b.get(i) == Some(&b'\\')
                                && b.get(i + 1) == Some(&b'u')
                            {
                                let lo = self.hex4(i + 2)?;
                                if (0xDC00..0xE000).contains(&lo) {
                                    i += 6;
                                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                                } else {
                                    None
                                }
                            } else {
                                char::from_u32(hi)
                            };
                            // A lone surrogate is no char; serde_json refuses it too.
                            c.ok_or_else(|| self.err_at(i - 6, "a valid \\u escape"))?
                        }
                        _ => return Err(self.err_at(i - 2, "a valid escape")),
                    };
                    out.push(c);
                }
                Some(_) => return Err(self.err_at(i, "no control character in a string")),
                None => return Err(self.err_at(i, "the string's closing `\"`")),
            }
        }
    }

    fn hex4(&self, at: usize) -> Res<u32> {
        let digits = self
            .text
            .get(at..at + 4)
            .filter(|d| d.bytes().all(|c| c.is_ascii_hexdigit()));
        digits
            .and_then(|d| u32::from_str_radix(d, 16).ok())
            .ok_or_else(|| self.err_at(at, "four hex digits"))
    }

    fn date(&mut self) -> Res<Date> {
        let at = self.here();
        let s = self.str_cow()?;
        s.parse()
            .map_err(|_| self.err_at(at, "a date as \"YYYY-MM-DD\""))
    }

    /// One of `names`' values, by its name.
    fn pick<T: Copy>(&mut self, names: &[(&str, T)], expected: &str) -> Res<T> {
        let at = self.here();
        let s = self.str_cow()?;
        names
            .iter()
            .find(|(n, _)| *n == s)
            .map(|(_, v)| *v)
            .ok_or_else(|| self.err_at(at, expected))
    }

    /// An integer's sign and magnitude: no fraction, no exponent (serde_json refuses
    /// those for integer fields too).
    fn integer(&mut self) -> Res<(bool, u64)> {
        self.peek();
        let start = self.at;
        let b = self.text.as_bytes();
        let neg = b.get(self.at) == Some(&b'-');
        let mut i = self.at + usize::from(neg);
        let digits = i;
        let mut n: u64 = 0;
        while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            n = n
                .checked_mul(10)
                .and_then(|n| n.checked_add(u64::from(c - b'0')))
                .ok_or_else(|| self.err_at(start, "an integer in range"))?;
            i += 1;
        }
        let leading_zero = i - digits > 1 && b[digits] == b'0';
        if i == digits || leading_zero || matches!(b.get(i), Some(b'.' | b'e' | b'E')) {
            return Err(self.err_at(start, "an integer"));
        }
        self.at = i;
        Ok((neg, n))
    }

    fn u64(&mut self) -> Res<u64> {
        let at = self.here();
        match self.integer()? {
            (true, n) if n > 0 => Err(self.err_at(at, "a non-negative integer")),
            (_, n) => Ok(n),
        }
    }

    fn u8(&mut self) -> Res<u8> {
        let at = self.here();
        let n = self.u64()?;
        u8::try_from(n).map_err(|_| self.err_at(at, "an integer from 0 to 255"))
    }

    fn usize(&mut self) -> Res<usize> {
        let at = self.here();
        let n = self.u64()?;
        usize::try_from(n).map_err(|_| self.err_at(at, "an integer in range"))
    }

    fn i64(&mut self) -> Res<i64> {
        let at = self.here();
        let (neg, n) = self.integer()?;
        let v = if neg {
            0i64.checked_sub_unsigned(n)
        } else {
            i64::try_from(n).ok()
        };
        v.ok_or_else(|| self.err_at(at, "an integer in range"))
    }

    /// Skips a number, checking JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)?
    /// ([eE] [+-]? [0-9]+)?`. By hand: Rust's float parser would bring its tables.
    fn number(&mut self) -> Res<()> {
        let b = self.text.as_bytes();
        let start = self.at;
        let mut i = start + usize::from(b.get(start) == Some(&b'-'));
        let digits = |i: &mut usize| {
            let from = *i;
            while b.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i - from
        };
        let int_at = i;
        let mut ok = match digits(&mut i) {
            0 => false,
            n => n == 1 || b[int_at] != b'0',
        };
        if ok && b.get(i) == Some(&b'.') {
            i += 1;
            ok = digits(&mut i) > 0;
        }
        if ok && matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            ok = digits(&mut i) > 0;
        }
        if ok {
            self.at = i;
            Ok(())
        } else {
            Err(self.err_at(start, "a number"))
        }
    }

    /// Skips one value of any kind (a field this reader does not know).
    fn skip(&mut self) -> Res<()> {
        match self.peek() {
            Some(b'{') => self.object(&mut |r, _| r.skip()),
            Some(b'[') => self.array(&mut |r| r.skip()),
            Some(b'"') => self.str_cow().map(drop),
            Some(b't' | b'f') => self.bool().map(drop),
            Some(b'n') => self.word("null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.err("a value")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paging::{Priority, paginate, paginate_with_first};
    use proptest::prelude::*;

    /// A schedule using every field of every record type, with texts that need
    /// escaping, and long ones that paging cuts.
    fn every_field() -> Schedule {
        let mut s = crate::demo::s4hana_migration();
        s.notes = "Notes «\u{a0}é\u{a0}» \"quoted\" \\ back\nslash\t\u{1}\u{1F600}".into();
        s.settings.holidays = vec!["2026-12-25".parse().unwrap(), "2027-01-01".parse().unwrap()];
        s.settings.time_unit = TimeUnit::Week;
        s.settings.working_weekdays = Weekday::ALL.to_vec();
        s.locks = vec![
            Lock {
                target: LockTarget::Schedule,
                by: 3,
                by_name: "Alice «\u{a0}A\u{a0}»".into(),
                since_ms: -1,
                reason: String::new(),
            },
            Lock {
                target: LockTarget::Group(GroupId(5)),
                by: 4,
                by_name: "Bob".into(),
                since_ms: 1_764_580_440_000,
                reason: "revue \"en cours\"".into(),
            },
            Lock {
                target: LockTarget::Bar(BarId(14)),
                by: 4,
                by_name: "Bob".into(),
                since_ms: 0,
                reason: "x".into(),
            },
        ];
        if let Some(b) = s.bars.first_mut() {
            b.color = Some("#ff8800".into());
            b.notes = "x".repeat(9_000) + "\u{1F600}é";
            b.pin = Some(b.start);
            b.constraint = Some(Constraint {
                kind: ConstraintKind::FinishNoLaterThan,
                date: b.end,
            });
            b.deadline = Some(b.end.add_days(3));
            b.progress = 100;
            b.actual_start = Some(b.start);
            b.actual_finish = Some(b.end);
        }
        if let Some(b) = s.bars.get_mut(1) {
            b.progress = 40;
            b.actual_start = Some(b.start.add_days(1));
        }
        // Every constraint kind, on bars (whose "start no earlier than" is the pin) and
        // on milestones.
        for (b, kind) in s.bars.iter_mut().skip(1).zip(&ConstraintKind::ALL[1..]) {
            b.constraint = Some(Constraint {
                kind: *kind,
                date: b.start,
            });
        }
        for (m, kind) in s.milestones.iter_mut().zip(&ConstraintKind::ALL) {
            m.constraint = Some(Constraint {
                kind: *kind,
                date: m.date,
            });
            m.deadline = Some(m.date);
        }
        if let Some(m) = s.milestones.first_mut() {
            m.color = Some("red".into());
            m.notes = "jalon\r\n".into();
        }
        for (i, l) in s.links.iter_mut().enumerate() {
            l.kind = [LinkKind::FS, LinkKind::SS, LinkKind::FF, LinkKind::SF][i % 4];
            l.lag = [0, -3, 2, i32::MIN][i % 4];
        }
        for (i, a) in s.actions.iter_mut().enumerate() {
            a.status = ActionStatus::ALL[i % 3];
        }
        if let Some(m) = s.members.first_mut() {
            m.email = Some("ana@example.org".into());
        }
        if let Some(a) = s.absences.first_mut() {
            a.reason = "congés ".repeat(2_000);
        }
        if let Some(r) = s.rows.first_mut() {
            r.name = "ligne ".repeat(3_000);
        }
        s.name = "n".repeat(6_000);
        s
    }

    fn both_ways(page: &str) {
        let v: serde_json::Value = serde_json::from_str(page).unwrap();
        let records = v["records"].to_string();
        let by_serde: Vec<Record<'static>> = serde_json::from_str(&records).unwrap();
        assert_eq!(read_records(&records).unwrap(), by_serde);
    }

    #[test]
    fn reads_what_serde_reads_on_every_record_kind_cut_and_whole() {
        let s = every_field();
        let pages = paginate(&s, None, 4_096);
        assert!(pages.len() > 5);
        let all = pages.concat();
        for kind in [
            "\"cut\"",
            "\"cont\"",
            "\"last\":true",
            "\"header\"",
            "\"absence\"",
        ] {
            assert!(all.contains(kind), "{kind} missing from the test's pages");
        }
        for p in &pages {
            both_ways(p);
        }
        let rows = s.rows.iter().take(3).map(|r| r.id).collect();
        let from = s.span().unwrap().0;
        let window = Priority {
            rows,
            from,
            to: from.add_days(30),
        };
        for p in paginate_with_first(&s, Some(&window), 5_000, 200_000) {
            both_ways(&p);
        }
        let settings = serde_json::to_string(&s.settings).unwrap();
        assert_eq!(read_settings(&settings).unwrap(), s.settings);
    }

    #[test]
    fn reads_the_delta_records() {
        let s = every_field();
        let mut touched: Vec<u64> = s.bars.iter().map(|b| b.id.0).take(3).collect();
        touched.extend(s.links.iter().map(|l| l.id.0).take(4));
        touched.extend(s.absences.iter().map(|a| a.id.0).take(1));
        touched.extend(s.rows.iter().map(|r| r.id.0).take(2));
        touched.push(crate::command::SCHEDULE_FIELDS);
        let d = crate::delta::delta(&s, &touched);
        assert!(d.records.len() >= 10);
        let text = serde_json::to_string(&d.records).unwrap();
        assert_eq!(read_records(&text).unwrap().len(), d.records.len());
        let by_serde: Vec<Record<'static>> = serde_json::from_str(&text).unwrap();
        assert_eq!(read_records(&text).unwrap(), by_serde);
    }

    #[test]
    fn accepts_what_serde_accepts_around_the_written_form() {
        let text = r#" [ {"bar" : {"notes":"", "pin":null, "extra":{"a":[1,-2.5e3,0.5E+2,0,true,null,"x"]},
            "end":"2026-03-10","start":"2026-03-09","label":"A\u00e9\ud83d\ude00","row":2,"id":5,"color":null}},
            {"link":{"id":7,"from":5,"to":6}}, {"row":{"id":2,"group":1,"name":"R","index":0,"member":null}} ] "#;
        let by_serde: Vec<Record<'static>> = serde_json::from_str(text).unwrap();
        assert_eq!(read_records(text).unwrap(), by_serde);
        assert_eq!(read_records("[]").unwrap(), vec![]);
    }

    #[test]
    fn bad_input_gets_an_error_saying_what_and_where() {
        let cases = [
            ("", "expected an array at byte 0, found the end of the text"),
            (
                r#"[{"bar":{"id":1}}]"#,
                "bar at byte 8: missing field `row`",
            ),
            (r#"[{"link":{"id": x}}]"#, "expected an integer at byte 16"),
            (r#"[{"tree":{}}]"#, "unknown record kind `tree`"),
            (r#"[{}]"#, "expected a record"),
            (
                r#"[{"link":{"id":1,"from":2,"to":3}, "bar":{}}]"#,
                "one kind only",
            ),
            (
                r#"[{"link":{"id":1.5,"from":2,"to":3}}]"#,
                "expected an integer at byte 15",
            ),
            (
                r#"[{"link":{"id":-1,"from":2,"to":3}}]"#,
                "a non-negative integer",
            ),
            (
                r#"[{"link":{"id":1,"from":2,"to":3,"lag":9999999999}}]"#,
                "a lag in i32 range",
            ),
            (
                r#"[{"link":{"id":1,"from":2,"to":3,"kind":"XX"}}]"#,
                "a link type",
            ),
            (
                r#"[{"link":{"id":01,"from":2,"to":3}}]"#,
                "expected an integer",
            ),
            (r#"[{"member":{"id":1,"name":"a\qb"}}]"#, "a valid escape"),
            (
                r#"[{"member":{"id":1,"name":"\ud800"}}]"#,
                "a valid \\u escape",
            ),
            (r#"[{"member":{"id":1,"name":"abc}}]"#, "closing"),
            (
                "[{\"member\":{\"id\":1,\"name\":\"a\nb\"}}]",
                "no control character",
            ),
            (
                r#"[{"absence":{"id":1,"member":2,"start":"2026-02-30","end":"2026-03-01"}}]"#,
                "a date",
            ),
            (
                r#"[{"link":{"id":1,"from":2,"to":3}}] x"#,
                "expected the end of the text",
            ),
            (
                r#"[{"link":{"id":1,"from":2,"to":3}},]"#,
                "expected an object at byte",
            ),
        ];
        for (text, want) in cases {
            let got = read_records(text).unwrap_err();
            assert!(got.contains(want), "{text}: {got}");
            assert!(
                serde_json::from_str::<Vec<Record<'static>>>(text).is_err(),
                "{text}"
            );
        }
        assert!(
            read_settings(r#"{"time_zone":"UTC"}"#)
                .unwrap_err()
                .contains("missing field")
        );
    }

    /// A hostile page or settings text nested 100,000 deep gets an error, never a stack
    /// overflow: the reader stops at 128 levels, wherever the nesting starts (a record
    /// list, an unknown field's value skipped, the settings' object).
    #[test]
    fn a_hundred_thousand_levels_get_an_error_not_a_crash() {
        let n = 100_000;
        let brackets = "[".repeat(n);
        let keys = r#"{"a":"#.repeat(n);
        let too_deep = "at most 128 nested objects and arrays";
        for text in [
            format!("[{{\"bar\":{{\"extra\":{brackets}"),
            format!("[{{\"bar\":{{\"extra\":{keys}"),
            format!("[{{\"link\":{{\"id\":1,\"x\":[{keys}"),
        ] {
            let e = read_records(&text).unwrap_err();
            assert!(e.contains(too_deep), "{}: {e}", &text[..20]);
        }
        // Nesting where a record or a settings object must be is refused at once.
        assert!(
            read_records(&brackets)
                .unwrap_err()
                .contains("expected an object at byte 1")
        );
        assert!(
            read_records(&keys)
                .unwrap_err()
                .contains("expected an array at byte 0")
        );
        let kind_a = format!("[{keys}");
        assert!(
            read_records(&kind_a)
                .unwrap_err()
                .contains("unknown record kind `a`")
        );
        assert!(
            read_settings(&brackets)
                .unwrap_err()
                .contains("expected an object at byte 0")
        );
        for text in [keys.clone(), format!("{{\"x\":{brackets}")] {
            let e = read_settings(&text).unwrap_err();
            assert!(e.contains(too_deep), "{}: {e}", &text[..20]);
        }
        // The same nesting closed is refused too; 128 levels in all (the settings'
        // object and 127 arrays in an unknown field) are read: only the bound refuses,
        // not the shape.
        let closed = format!("{keys}1{}", "}".repeat(n));
        assert!(read_settings(&closed).unwrap_err().contains(too_deep));
        let with_extra = |arrays: usize| {
            format!(
                r#"{{"time_zone":"UTC","working_weekdays":["mon"],"holidays":[],"time_unit":"day","x":{}1{}}}"#,
                "[".repeat(arrays),
                "]".repeat(arrays)
            )
        };
        let allowed = read_settings(&with_extra(127));
        assert!(allowed.is_ok(), "{allowed:?}");
        assert!(
            read_settings(&with_extra(128))
                .unwrap_err()
                .contains(too_deep)
        );
    }

    #[test]
    fn zoom_names_are_serdes() {
        for z in Zoom::ALL {
            let name = serde_json::to_value(z).unwrap();
            assert_eq!(zoom_named(name.as_str().unwrap()), Some(z));
        }
        assert_eq!(zoom_named("year"), None);
    }

    proptest! {
        #[test]
        fn any_text_and_numbers_read_back(label in any::<String>(), id in any::<u64>(),
                                          lag in any::<i32>(), pretty in any::<bool>()) {
            let bar = Bar { id: BarId(id), row: RowId(id / 2), label: label.clone(),
                start: Date::from_ymd(2026, 1, 1).unwrap(), end: Date::from_ymd(2026, 1, 2).unwrap(),
                color: None, notes: label, pin: None, constraint: None, deadline: None,
                progress: (id % 101) as u8, actual_start: None, actual_finish: None };
            let link = Link { id: LinkId(id), from: ItemId(1), to: ItemId(2), kind: LinkKind::SF, lag };
            let records = vec![Record::Bar(Cow::Owned(bar)), Record::Link(Cow::Owned(link))];
            let text = if pretty {
                serde_json::to_string_pretty(&records)
            } else {
                serde_json::to_string(&records)
            }
            .unwrap();
            let by_serde: Vec<Record<'static>> = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(read_records(&text).unwrap(), by_serde);
        }
    }
}
