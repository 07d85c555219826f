//! Paging: splits a schedule into pages whose JSON text stays under a size limit, for the
//! view to fetch one by one (`get_schedule_page`), and puts the pages back together into
//! exactly the schedule they came from.
//!
//! Owns the record stream, its order, the page texts and their reassembly. Leaves to
//! others: the server's envelope around a page and any caching of pages (server), the
//! fetching of pages and the notice shown for a cut text (view).
//!
//! # The record stream
//!
//! A schedule becomes a stream of small JSON records, each an object with one key that
//! names its kind (`{"bar":{...}}`): one `header` (name, settings, notes, `next_id` and
//! the number of items of each kind, so the view can show progress and reassembly can
//! tell when something is missing), then one record per group, row, bar, milestone,
//! link, member, action and absence. Groups and rows carry their `index` in the
//! schedule, because their position is meaningful and the stream does not follow it;
//! every other collection is sorted by id in a schedule, so reassembly only sorts them
//! again. The kind is the key rather than a `"t"` field inside the item because
//! serde_json must buffer a whole object to find such a field: reading pages back took
//! twice as long that way.
//!
//! Bars, milestones, links and actions, nearly all of a large schedule, are written as
//! arrays of their fields, up to the last one not at its default
//! (`{"bar":[12,3,"Pose",20514,20518]}`, `{"link":[40,12,13]}`; a link of another kind
//! or with a lag goes on `[40,12,13,"SS",2]`). Links, milestones and actions keep their
//! declaration order, which serde's derived `Deserialize` reads from an array as from
//! an object. Bars and milestones have readers of their own (`read_bar`,
//! `read_milestone`), because their arrays differ in two ways: a date is its day number
//! (days since 1970-01-01: `20514` is 2026-03-02), and a bar's progress, the optional
//! field a tracked schedule sets most, comes right after its dates, not behind five
//! empty fields (`null,"",null,null,null`). Only these arrays read a number as a date;
//! every tool input, and the objects, take `"YYYY-MM-DD"` alone. Against objects, the
//! arrays take 40% off the text of `synth`'s 100,000-bar schedule (15.9 MB instead of
//! ~26, before dates became numbers) and spare the view matching every key of every
//! record: reading the records is the largest step of the view's JavaScript
//! translation while pages arrive.
//! Deltas (`delta`) keep the objects: a model may read them.
//!
//! On a page, records of these four kinds that follow one another go in runs: one
//! element of the records array holds their arrays under the kind's plural
//! (`{"bars":[[12,3,"Pose",20514,20518],[13,3,"Dépose",20519,20520]]}`), and the reader
//! hands them over one by one as records. A run saves each record its `{"bar":` and `}`
//! (a fifth of `synth`'s 100,000-bar schedule: 11.6 M characters in 106 pages instead of
//! 14.5 M in 132) and saves the reader a key to match per record. A run ends after
//! `RUN_UNITS` of records, because the server cuts a page into parts between elements
//! and a part must stay small enough for the view to read it within a frame or so. A cut
//! record never goes in a run (the notice needs its `cut` wrapper), and the reader still
//! takes a lone `{"bar":[...]}`.
//!
//! The order puts first what the view's first window needs: the header, the groups,
//! then (given a [`Priority`]) the window's rows, each followed by its bars and
//! milestones that meet the window's dates (so a page cut anywhere holds whole rows
//! from the top), and the links whose two ends are both in the window (a link with
//! one end outside cannot be drawn from the first page anyway); then the members (rows
//! name them); then everything else in display order: rows, each row's bars then
//! milestones, links, actions, absences. Continuations of cut texts come last.
//!
//! # Page texts
//!
//! A page is `{"page":i,"records":[...],"pages":n}`, pages numbered from 0 (the records
//! array's elements being records and runs). The number
//! of pages is known only once the last page is full, so it is written last: every page
//! is then built in place, once, and never copied to patch its beginning. Room for 20
//! digits of each number is reserved, so the final text never exceeds the limit.
//!
//! Sizes are counted in UTF-16 code units: what JavaScript's `String.length` reports,
//! and never fewer than the text's chars (nor more than its UTF-8 bytes), so a page
//! under `max_chars` units is under `max_chars` chars however the host counts. With
//! [`Measure::Text`] a record's size is that of its JSON text written as a JSON string
//! (each quote and backslash one unit more): the server sends a page's records to the
//! view as texts, which the browser carries as strings rather than as trees of objects.
//!
//! # Cutting
//!
//! A record that cannot fit on a page of its own (a label, notes, name or reason of up
//! to a million chars) is cut: it keeps a head of its longest texts and is wrapped as
//! `{"cut":{"fields":["label"],"record":{"bar":{...}}}}` (so the view can show a
//! one-line notice), and the remainders travel in `cont` records (item, field, part number, text; the final part says `"last":true`)
//! at the end of the stream, where they fill whatever room pages have left. A cut record
//! is shrunk to a quarter of a page, not to a whole page, so that a long description in
//! the header does not push the first window off the first page. Texts are cut on char
//! boundaries by their escaped size (a control char takes six units once escaped), and
//! settings, which cannot be shown half, move whole into continuations as JSON text.
//!
//! Each record is serialised once, straight into its page; a record that overflows is
//! moved to the next page by copying its bytes, never serialised again.
//!
//! Reassembly assumes what a schedule guarantees: ids unique, collections sorted by id.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::io::Write as _;

use serde::{Deserialize, Serialize};

use crate::date::Date;
use crate::schedule::*;

/// The default size limit of a page: the server's 120,000 chars minus its envelope.
pub const PAGE_CHARS: usize = 110_000;

/// The smallest size limit `paginate` accepts. Below it a page would hold only a few
/// bars and the cost of each page's envelope and of continuations would dominate.
pub const MIN_PAGE_CHARS: usize = 4_096;

/// Room kept on every page for `{"page":`, `,"records":[`, `],"pages":` and `}` (31
/// units) and 20 digits for each of the two numbers.
const ENVELOPE: usize = 31 + 2 * 20;

/// The least room a continuation part is given; with less left on a page, the part
/// starts the next page. Six units always fit at least one escaped char.
const MIN_PART: usize = 64;

/// How a page's records are counted against its limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Measure {
    /// As the JSON they are: the page travels as JSON.
    #[default]
    Json,
    /// As their JSON text written inside a JSON string: the records travel as text in
    /// another JSON document (`\"` for a quote, `\\` for a backslash, so each takes one
    /// unit more, as does the backslash of an escape serde_json already wrote).
    Text,
}

impl Measure {
    /// The units `text` takes, counted this way.
    pub fn of(self, text: &str) -> usize {
        self.bytes(text.as_bytes())
    }

    fn bytes(self, bytes: &[u8]) -> usize {
        let more = match self {
            Measure::Json => 0,
            Measure::Text => bytes.iter().filter(|&&b| b == b'"' || b == b'\\').count(),
        };
        utf16_units(bytes) + more
    }

    fn record(self, rec: &Record<'_>) -> usize {
        let bytes = serde_json::to_vec(&Wire(rec)).expect("a record has only string keys");
        self.bytes(&bytes)
    }

    /// Units of a char inside a JSON string of a record: every escape serde_json
    /// writes starts with a backslash, and a quote or a backslash is escaped twice.
    fn char(self, c: char) -> usize {
        let json = escaped_char_units(c);
        match self {
            Measure::Json => json,
            Measure::Text => match c {
                '"' | '\\' => json + 2,
                '\0'..='\u{1f}' => json + 1,
                _ => json,
            },
        }
    }

    /// Units of a text inside a JSON string of a record, without its quotes.
    fn text(self, text: &str) -> usize {
        text.chars().map(|c| self.char(c)).sum()
    }

    /// The byte index where to cut `text` so that its head takes at most `budget`
    /// units inside a record: always on a char boundary.
    fn split_at(self, text: &str, budget: usize) -> usize {
        let mut used = 0;
        for (i, c) in text.char_indices() {
            used += self.char(c);
            if used > budget {
                return i;
            }
        }
        text.len()
    }
}

/// What the view's first window shows: these rows, between these days (inclusive).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Priority {
    /// The rows of the window. Their order does not matter: the stream follows the
    /// schedule's display order. Unknown rows are ignored.
    pub rows: Vec<RowId>,
    pub from: Date,
    pub to: Date,
}

/// The kinds of records, as named in a continuation's `of` and in errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Header,
    Group,
    Row,
    Bar,
    Milestone,
    Link,
    Action,
    Member,
    Absence,
    Cont,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Header => "header",
            Kind::Group => "group",
            Kind::Row => "row",
            Kind::Bar => "bar",
            Kind::Milestone => "milestone",
            Kind::Link => "link",
            Kind::Action => "action",
            Kind::Member => "member",
            Kind::Absence => "absence",
            Kind::Cont => "continuation",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The fields that can be cut. `Settings` is the header's settings, moved whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    Name,
    Label,
    Notes,
    Color,
    Email,
    Reason,
    Settings,
}

impl Field {
    /// Every field, in declaration order.
    pub const ALL: [Field; 7] = [
        Field::Name,
        Field::Label,
        Field::Notes,
        Field::Color,
        Field::Email,
        Field::Reason,
        Field::Settings,
    ];

    /// The wire name ("label", "notes"...).
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Label => "label",
            Field::Notes => "notes",
            Field::Color => "color",
            Field::Email => "email",
            Field::Reason => "reason",
            Field::Settings => "settings",
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How many items of each kind the schedule has: lets the view show progress and
/// reassembly notice a missing record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub groups: usize,
    pub rows: usize,
    pub bars: usize,
    pub milestones: usize,
    pub links: usize,
    pub actions: usize,
    pub members: usize,
    pub absences: usize,
}

impl Counts {
    fn of(s: &Schedule) -> Counts {
        Counts {
            groups: s.groups.len(),
            rows: s.rows.len(),
            bars: s.bars.len(),
            milestones: s.milestones.len(),
            links: s.links.len(),
            actions: s.actions.len(),
            members: s.members.len(),
            absences: s.absences.len(),
        }
    }
}

/// One record of the stream, tagged by its kind (`{"bar":{...}}`, or an array in pages:
/// see the module header): the tag comes first
/// by construction, so serde_json reads a record straight into its type, with no
/// buffering (see [`read_records`]). Borrowed when paginating (no copy of the schedule), owned
/// (`Record<'static>`) when read back from a page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Record<'a> {
    Header(Header<'a>),
    Group(Placed<'a, Group>),
    Row(Placed<'a, Row>),
    #[serde(deserialize_with = "read_bar")]
    Bar(Cow<'a, Bar>),
    #[serde(deserialize_with = "read_milestone")]
    Milestone(Cow<'a, Milestone>),
    Link(Cow<'a, Link>),
    Action(Cow<'a, Action>),
    Member(Cow<'a, Member>),
    Absence(Cow<'a, Absence>),
    /// A record some of whose texts are only a head.
    Cut(Cut<'a>),
    Cont(Cont<'a>),
}

/// The schedule's own fields, and how many items of each kind follow.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header<'a> {
    pub name: Cow<'a, str>,
    /// Absent when cut: the settings then travel whole in continuations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Cow<'a, Settings>>,
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub notes: Cow<'a, str>,
    pub next_id: u64,
    pub counts: Counts,
    /// The schedule's locks (few: they travel whole, never cut).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locks: Vec<Lock>,
}

impl<'a> Header<'a> {
    /// The header of a schedule, borrowing its texts.
    pub fn of(s: &'a Schedule) -> Header<'a> {
        Header {
            name: Cow::Borrowed(&s.name),
            settings: Some(Cow::Borrowed(&s.settings)),
            notes: Cow::Borrowed(&s.notes),
            next_id: s.next_id,
            counts: Counts::of(s),
            locks: s.locks.clone(),
        }
    }
}

/// A group or a row with its position in the schedule, which the stream does not follow.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placed<'a, T: Clone> {
    pub index: usize,
    #[serde(flatten)]
    pub item: Cow<'a, T>,
}

/// A record cut to fit a page: `fields` hold only a head, their remainders follow in
/// continuations at the end of the stream.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cut<'a> {
    pub fields: Vec<Field>,
    pub record: Box<Record<'a>>,
}

/// A part of a cut text: part 1 follows the head kept in the record, and so on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cont<'a> {
    pub of: Kind,
    /// The item's id; none for the header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    pub field: Field,
    pub part: u32,
    pub text: Cow<'a, str>,
    /// Set on the final part, so that a lost final part is noticed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub last: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn own<T: ToOwned + ?Sized>(c: Cow<'_, T>) -> Cow<'static, T> {
    Cow::Owned(c.into_owned())
}

impl Record<'_> {
    /// The kind of item the record carries (of the cut record, for a cut one).
    pub fn kind(&self) -> Kind {
        match self {
            Record::Header(_) => Kind::Header,
            Record::Group(_) => Kind::Group,
            Record::Row(_) => Kind::Row,
            Record::Bar(_) => Kind::Bar,
            Record::Milestone(_) => Kind::Milestone,
            Record::Link(_) => Kind::Link,
            Record::Action(_) => Kind::Action,
            Record::Member(_) => Kind::Member,
            Record::Absence(_) => Kind::Absence,
            Record::Cut(c) => c.record.kind(),
            Record::Cont(_) => Kind::Cont,
        }
    }

    /// The id of the item the record carries; none for the header and continuations.
    pub fn id(&self) -> Option<u64> {
        match self {
            Record::Header(_) | Record::Cont(_) => None,
            Record::Group(g) => Some(g.item.id.0),
            Record::Row(r) => Some(r.item.id.0),
            Record::Bar(b) => Some(b.id.0),
            Record::Milestone(m) => Some(m.id.0),
            Record::Link(l) => Some(l.id.0),
            Record::Action(a) => Some(a.id.0),
            Record::Member(m) => Some(m.id.0),
            Record::Absence(a) => Some(a.id.0),
            Record::Cut(c) => c.record.id(),
        }
    }

    /// The fields of this record that were cut (their texts are only a head).
    pub fn cut_fields(&self) -> &[Field] {
        match self {
            Record::Cut(c) => &c.fields,
            _ => &[],
        }
    }

    /// The same record, owning its data.
    pub fn into_owned(self) -> Record<'static> {
        match self {
            Record::Header(h) => Record::Header(Header {
                name: own(h.name),
                settings: h.settings.map(own),
                notes: own(h.notes),
                next_id: h.next_id,
                counts: h.counts,
                locks: h.locks,
            }),
            Record::Group(g) => Record::Group(Placed {
                index: g.index,
                item: own(g.item),
            }),
            Record::Row(r) => Record::Row(Placed {
                index: r.index,
                item: own(r.item),
            }),
            Record::Bar(b) => Record::Bar(own(b)),
            Record::Milestone(m) => Record::Milestone(own(m)),
            Record::Link(l) => Record::Link(own(l)),
            Record::Action(a) => Record::Action(own(a)),
            Record::Member(m) => Record::Member(own(m)),
            Record::Absence(a) => Record::Absence(own(a)),
            Record::Cut(c) => Record::Cut(Cut {
                fields: c.fields,
                record: Box::new(c.record.into_owned()),
            }),
            Record::Cont(c) => Record::Cont(Cont {
                text: own(c.text),
                ..c
            }),
        }
    }
}

/// A record as a page writes it: bars, milestones, links and actions as arrays of their fields
/// in declaration order (`{"link":[7,3,4]}`), every other record as its object (see
/// the module header). They are read back by the same derived `Deserialize` as the
/// objects (serde's derive reads a struct from an array too), so there is one reader.
struct Wire<'r, 'a>(&'r Record<'a>);

impl Serialize for Wire<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // The variant indexes are those of `Record`'s declaration; serde_json writes
        // only the name, which `Record`'s `rename_all` makes snake case.
        match self.0 {
            Record::Bar(b) => s.serialize_newtype_variant("Record", 3, "bar", &BarFields(b)),
            Record::Milestone(m) => {
                s.serialize_newtype_variant("Record", 4, "milestone", &MilestoneFields(m))
            }
            Record::Link(l) => s.serialize_newtype_variant("Record", 5, "link", &LinkFields(l)),
            Record::Action(a) => {
                s.serialize_newtype_variant("Record", 6, "action", &ActionFields(a))
            }
            Record::Cut(c) => s.serialize_newtype_variant("Record", 9, "cut", &CutWire(c)),
            other => other.serialize(s),
        }
    }
}

/// The key of the run a record goes in on a page (`{"bars":[[...],[...]]}`), for the
/// kinds written as arrays; none for the others, and for a cut record.
fn run_key(rec: &Record<'_>) -> Option<&'static str> {
    match rec {
        Record::Bar(_) => Some("bars"),
        Record::Milestone(_) => Some("milestones"),
        Record::Link(_) => Some("links"),
        Record::Action(_) => Some("actions"),
        _ => None,
    }
}

/// Units of a run's opening (`{"bars":[`) and closing (`]}`).
fn run_frame(measure: Measure, key: &str) -> usize {
    measure.of(&format!("{{\"{key}\":[")) + 2
}

/// Writes a record as a page does: as its own object, or (`in_run`, for a record that
/// has a [`run_key`]) as its array alone, an element of its run.
fn write_record(out: &mut Vec<u8>, rec: &Record<'_>, in_run: bool) {
    let written = match (in_run, rec) {
        (true, Record::Bar(b)) => serde_json::to_writer(out, &BarFields(b)),
        (true, Record::Milestone(m)) => serde_json::to_writer(out, &MilestoneFields(m)),
        (true, Record::Link(l)) => serde_json::to_writer(out, &LinkFields(l)),
        (true, Record::Action(a)) => serde_json::to_writer(out, &ActionFields(a)),
        _ => serde_json::to_writer(out, &Wire(rec)),
    };
    written.expect("a record has only string keys and writing to a Vec cannot fail");
}

/// A cut record with its record in the wire form.
struct CutWire<'r, 'a>(&'r Cut<'a>);

impl Serialize for CutWire<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut st = s.serialize_struct("Cut", 2)?;
        st.serialize_field("fields", &self.0.fields)?;
        st.serialize_field("record", &Wire(&self.0.record))?;
        st.end()
    }
}

/// How many of the optional fields (`set`, in declaration order) an array must hold:
/// up to the last one that is not its default. Those before it are written even at
/// their default (`null`, `""`, `0`), which reads back as that default.
fn optional_len(set: &[bool]) -> usize {
    set.iter().rposition(|&x| x).map_or(0, |i| i + 1)
}

struct BarFields<'r>(&'r Bar);

impl Serialize for BarFields<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple as _;
        // Every field named, so that a field added to `Bar` fails to compile here and in
        // `read_bar`, which reads them back in this order (a unit test reads every shape
        // back).
        let Bar {
            id,
            row,
            label,
            start,
            end,
            color,
            notes,
            pin,
            constraint,
            deadline,
            progress,
            actual_start,
            actual_finish,
        } = self.0;
        let more = optional_len(&[
            *progress != 0,
            color.is_some(),
            !notes.is_empty(),
            pin.is_some(),
            constraint.is_some(),
            deadline.is_some(),
            actual_start.is_some(),
            actual_finish.is_some(),
        ]);
        let mut t = s.serialize_tuple(5 + more)?;
        t.serialize_element(id)?;
        t.serialize_element(row)?;
        t.serialize_element(label)?;
        t.serialize_element(&Day(*start))?;
        t.serialize_element(&Day(*end))?;
        if more > 0 {
            t.serialize_element(progress)?;
        }
        if more > 1 {
            t.serialize_element(color)?;
        }
        if more > 2 {
            t.serialize_element(notes)?;
        }
        if more > 3 {
            t.serialize_element(&pin.map(Day))?;
        }
        if more > 4 {
            t.serialize_element(constraint)?;
        }
        if more > 5 {
            t.serialize_element(&deadline.map(Day))?;
        }
        if more > 6 {
            t.serialize_element(&actual_start.map(Day))?;
        }
        if more > 7 {
            t.serialize_element(&actual_finish.map(Day))?;
        }
        t.end()
    }
}

/// Reads a bar as a page writes it (`BarFields`' array) or as an object (a delta's).
fn read_bar<'de, 'a, D: serde::Deserializer<'de>>(d: D) -> Result<Cow<'a, Bar>, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = Bar;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a bar: [id, row, label, start, end, ...] or an object")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Bar, A::Error> {
            let (id, row, label, Day(start), Day(end)) = (
                needed(&mut a, 0, &self)?,
                needed(&mut a, 1, &self)?,
                needed(&mut a, 2, &self)?,
                needed(&mut a, 3, &self)?,
                needed(&mut a, 4, &self)?,
            );
            Ok(Bar {
                id,
                row,
                label,
                start,
                end,
                progress: optional(&mut a)?,
                color: optional(&mut a)?,
                notes: optional(&mut a)?,
                pin: optional::<_, Option<Day>>(&mut a)?.map(|d| d.0),
                constraint: optional(&mut a)?,
                deadline: optional::<_, Option<Day>>(&mut a)?.map(|d| d.0),
                actual_start: optional::<_, Option<Day>>(&mut a)?.map(|d| d.0),
                actual_finish: optional::<_, Option<Day>>(&mut a)?.map(|d| d.0),
            })
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, a: A) -> Result<Bar, A::Error> {
            Bar::deserialize(serde::de::value::MapAccessDeserializer::new(a))
        }
    }
    d.deserialize_any(V).map(Cow::Owned)
}

/// The `n`th element of a record's array, which it must have.
fn needed<'de, A, T>(a: &mut A, n: usize, what: &dyn serde::de::Expected) -> Result<T, A::Error>
where
    A: serde::de::SeqAccess<'de>,
    T: Deserialize<'de>,
{
    a.next_element()?
        .ok_or_else(|| serde::de::Error::invalid_length(n, what))
}

/// The next element of a record's array, or its default when the array ended before it.
fn optional<'de, A, T>(a: &mut A) -> Result<T, A::Error>
where
    A: serde::de::SeqAccess<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(a.next_element()?.unwrap_or_default())
}

/// A date as a record's array holds it: its day number (days since 1970-01-01), which
/// reads faster than its text. Only arrays read it: `Date`'s own reader, which every tool
/// input goes through, takes `"YYYY-MM-DD"` alone.
#[derive(Clone, Copy)]
struct Day(Date);

impl Serialize for Day {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i32(self.0.days())
    }
}

impl<'de> Deserialize<'de> for Day {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Day, D::Error> {
        let n = i32::deserialize(d)?;
        let date = Date::from_days(n);
        if date.in_supported_range() {
            Ok(Day(date))
        } else {
            Err(serde::de::Error::custom(format_args!(
                "day {n} is not a date a schedule holds (years {} to {})",
                crate::date::MIN_YEAR,
                crate::date::MAX_YEAR
            )))
        }
    }
}

struct MilestoneFields<'r>(&'r Milestone);

impl Serialize for MilestoneFields<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple as _;
        let Milestone {
            id,
            row,
            label,
            date,
            color,
            notes,
            constraint,
            deadline,
        } = self.0;
        let more = optional_len(&[
            color.is_some(),
            !notes.is_empty(),
            constraint.is_some(),
            deadline.is_some(),
        ]);
        let mut t = s.serialize_tuple(4 + more)?;
        t.serialize_element(id)?;
        t.serialize_element(row)?;
        t.serialize_element(label)?;
        t.serialize_element(&Day(*date))?;
        if more > 0 {
            t.serialize_element(color)?;
        }
        if more > 1 {
            t.serialize_element(notes)?;
        }
        if more > 2 {
            t.serialize_element(constraint)?;
        }
        if more > 3 {
            t.serialize_element(&deadline.map(Day))?;
        }
        t.end()
    }
}

/// Reads a milestone as a page writes it (`MilestoneFields`' array) or as an object.
fn read_milestone<'de, 'a, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Cow<'a, Milestone>, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = Milestone;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a milestone: [id, row, label, date, ...] or an object")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Milestone, A::Error> {
            let (id, row, label, Day(date)) = (
                needed(&mut a, 0, &self)?,
                needed(&mut a, 1, &self)?,
                needed(&mut a, 2, &self)?,
                needed(&mut a, 3, &self)?,
            );
            Ok(Milestone {
                id,
                row,
                label,
                date,
                color: optional(&mut a)?,
                notes: optional(&mut a)?,
                constraint: optional(&mut a)?,
                deadline: optional::<_, Option<Day>>(&mut a)?.map(|d| d.0),
            })
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, a: A) -> Result<Milestone, A::Error> {
            Milestone::deserialize(serde::de::value::MapAccessDeserializer::new(a))
        }
    }
    d.deserialize_any(V).map(Cow::Owned)
}

struct ActionFields<'r>(&'r Action);

impl Serialize for ActionFields<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple as _;
        let Action {
            id,
            bar,
            label,
            status,
            assignee,
        } = self.0;
        let more = optional_len(&[*status != ActionStatus::Todo, assignee.is_some()]);
        let mut t = s.serialize_tuple(3 + more)?;
        t.serialize_element(id)?;
        t.serialize_element(bar)?;
        t.serialize_element(label)?;
        if more > 0 {
            t.serialize_element(status)?;
        }
        if more > 1 {
            t.serialize_element(assignee)?;
        }
        t.end()
    }
}

struct LinkFields<'r>(&'r Link);

impl Serialize for LinkFields<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple as _;
        let Link {
            id,
            from,
            to,
            kind,
            lag,
        } = self.0;
        let more = optional_len(&[*kind != LinkKind::FS, *lag != 0]);
        let mut t = s.serialize_tuple(3 + more)?;
        t.serialize_element(id)?;
        t.serialize_element(from)?;
        t.serialize_element(to)?;
        if more > 0 {
            t.serialize_element(kind)?;
        }
        if more > 1 {
            t.serialize_element(lag)?;
        }
        t.end()
    }
}

/// The places of an owned record's cuttable parts, borrowed all at once.
struct Slots<'r> {
    texts: Vec<(Field, &'r mut String)>,
    /// The header's settings, which move whole.
    settings: Option<&'r mut Option<Cow<'static, Settings>>>,
}

impl Record<'static> {
    /// The cuttable parts of this record; none for links, continuations and records
    /// already cut.
    fn slots(&mut self) -> Option<Slots<'_>> {
        let (texts, settings) = match self {
            Record::Header(h) => (
                vec![
                    (Field::Name, h.name.to_mut()),
                    (Field::Notes, h.notes.to_mut()),
                ],
                Some(&mut h.settings),
            ),
            Record::Group(g) => (g.item.to_mut().texts(), None),
            Record::Row(r) => (r.item.to_mut().texts(), None),
            Record::Bar(b) => (b.to_mut().texts(), None),
            Record::Milestone(m) => (m.to_mut().texts(), None),
            Record::Action(a) => (a.to_mut().texts(), None),
            Record::Member(m) => (m.to_mut().texts(), None),
            Record::Absence(a) => (a.to_mut().texts(), None),
            Record::Link(_) | Record::Cut(_) | Record::Cont(_) => return None,
        };
        Some(Slots { texts, settings })
    }
}

/// The text fields of an item, for cutting and for joining continuations back.
trait Texts {
    fn texts(&mut self) -> Vec<(Field, &mut String)>;
}

impl Texts for Group {
    fn texts(&mut self) -> Vec<(Field, &mut String)> {
        vec![(Field::Name, &mut self.name)]
    }
}

impl Texts for Row {
    fn texts(&mut self) -> Vec<(Field, &mut String)> {
        vec![(Field::Name, &mut self.name)]
    }
}

impl Texts for Bar {
    fn texts(&mut self) -> Vec<(Field, &mut String)> {
        let mut v = vec![
            (Field::Label, &mut self.label),
            (Field::Notes, &mut self.notes),
        ];
        v.extend(self.color.as_mut().map(|c| (Field::Color, c)));
        v
    }
}

impl Texts for Milestone {
    fn texts(&mut self) -> Vec<(Field, &mut String)> {
        let mut v = vec![
            (Field::Label, &mut self.label),
            (Field::Notes, &mut self.notes),
        ];
        v.extend(self.color.as_mut().map(|c| (Field::Color, c)));
        v
    }
}

impl Texts for Action {
    fn texts(&mut self) -> Vec<(Field, &mut String)> {
        vec![(Field::Label, &mut self.label)]
    }
}

impl Texts for Member {
    fn texts(&mut self) -> Vec<(Field, &mut String)> {
        let mut v = vec![(Field::Name, &mut self.name)];
        v.extend(self.email.as_mut().map(|e| (Field::Email, e)));
        v
    }
}

impl Texts for Absence {
    fn texts(&mut self) -> Vec<(Field, &mut String)> {
        vec![(Field::Reason, &mut self.reason)]
    }
}

fn text_of<T: Texts>(item: &mut T, field: Field) -> Option<&mut String> {
    item.texts()
        .into_iter()
        .find(|(f, _)| *f == field)
        .map(|(_, t)| t)
}

/// The records of a page or of a delta (the JSON text of their array), read straight
/// from the text into their types by serde, as the view reads them: never through a
/// generic JSON tree, which took several times as long on a page of 110,000 characters.
/// serde_json refuses nesting deeper than 128 levels with an error, so a hostile text
/// cannot overflow the stack; the error says what was expected and where.
pub fn read_records(text: &str) -> Result<Vec<Record<'static>>, String> {
    let mut all = Vec::new();
    read_records_with(text, |r| all.push(r))?;
    Ok(all)
}

/// [`read_records`], each record handed to `each` as it is read rather than gathered:
/// the view adds a page's records to its schedule this way, sparing a vector of records
/// and a copy of each (the largest are ~150 bytes), which its JavaScript translation
/// pays dearly. Records before an error have been handed over.
pub fn read_records_with(text: &str, each: impl FnMut(Record<'static>)) -> Result<(), String> {
    let mut d = serde_json::Deserializer::from_str(text);
    serde::de::Deserializer::deserialize_seq(&mut d, Elements(each))
        .and_then(|()| d.end())
        .map_err(|e| e.to_string())
}

/// A page's records array, read into a vector (a [`Page`]'s `records`).
fn read_page_records<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Vec<Record<'static>>, D::Error> {
    let mut all = Vec::new();
    d.deserialize_seq(Elements(|r| all.push(r)))?;
    Ok(all)
}

/// The elements of a records array, each record (those of a run one by one) handed to
/// the function.
struct Elements<F>(F);

impl<'de, F: FnMut(Record<'static>)> serde::de::Visitor<'de> for Elements<F> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of records")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(mut self, mut a: A) -> Result<(), A::Error> {
        while let Some(()) = a.next_element_seed(Element(&mut self.0))? {}
        Ok(())
    }
}

/// The key of an element of a records array: a record's kind, or a run's (plural).
#[derive(Deserialize)]
#[serde(variant_identifier, rename_all = "snake_case")]
enum Tag {
    Header,
    Group,
    Row,
    Bar,
    Milestone,
    Link,
    Action,
    Member,
    Absence,
    Cut,
    Cont,
    Bars,
    Milestones,
    Links,
    Actions,
}

/// A bar read by [`read_bar`] (an array or an object), and a milestone by
/// [`read_milestone`].
struct ReadBar(Cow<'static, Bar>);
struct ReadMilestone(Cow<'static, Milestone>);

impl<'de> Deserialize<'de> for ReadBar {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ReadBar, D::Error> {
        read_bar(d).map(ReadBar)
    }
}

impl<'de> Deserialize<'de> for ReadMilestone {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ReadMilestone, D::Error> {
        read_milestone(d).map(ReadMilestone)
    }
}

/// One element of a records array: a record (`{"bar":[...]}`) or a run of records of
/// one kind (`{"bars":[[...],[...]]}`), handed over one by one.
struct Element<'f, F>(&'f mut F);

impl<'de, F: FnMut(Record<'static>)> serde::de::DeserializeSeed<'de> for Element<'_, F> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, F: FnMut(Record<'static>)> serde::de::Visitor<'de> for Element<'_, F> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "a record, an object of one key that names its kind ({\"bar\":[...]}), or a run \
             of records of one kind ({\"bars\":[[...],[...]]})",
        )
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        let Some(tag) = m.next_key::<Tag>()? else {
            return Err(serde::de::Error::custom(
                "an empty object where a record goes: a record is an object of one key, its kind",
            ));
        };
        let each = self.0;
        match tag {
            Tag::Header => each(Record::Header(m.next_value()?)),
            Tag::Group => each(Record::Group(m.next_value()?)),
            Tag::Row => each(Record::Row(m.next_value()?)),
            Tag::Bar => each(Record::Bar(m.next_value::<ReadBar>()?.0)),
            Tag::Milestone => each(Record::Milestone(m.next_value::<ReadMilestone>()?.0)),
            Tag::Link => each(Record::Link(m.next_value()?)),
            Tag::Action => each(Record::Action(m.next_value()?)),
            Tag::Member => each(Record::Member(m.next_value()?)),
            Tag::Absence => each(Record::Absence(m.next_value()?)),
            Tag::Cut => each(Record::Cut(m.next_value()?)),
            Tag::Cont => each(Record::Cont(m.next_value()?)),
            Tag::Bars => m.next_value_seed(Run(each, |b: ReadBar| Record::Bar(b.0)))?,
            Tag::Milestones => {
                m.next_value_seed(Run(each, |x: ReadMilestone| Record::Milestone(x.0)))?;
            }
            Tag::Links => m.next_value_seed(Run(each, Record::Link))?,
            Tag::Actions => m.next_value_seed(Run(each, Record::Action))?,
        }
        if m.next_key::<serde::de::IgnoredAny>()?.is_some() {
            return Err(serde::de::Error::custom(
                "a record has one key, its kind: a second key follows it",
            ));
        }
        Ok(())
    }
}

/// A run's array of records, each made a record by `.1` and handed to `.0`.
struct Run<'f, F, T>(&'f mut F, fn(T) -> Record<'static>);

impl<'de, F: FnMut(Record<'static>), T: Deserialize<'de>> serde::de::DeserializeSeed<'de>
    for Run<'_, F, T>
{
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, F: FnMut(Record<'static>), T: Deserialize<'de>> serde::de::Visitor<'de>
    for Run<'_, F, T>
{
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a run: an array of records' arrays")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
        while let Some(x) = a.next_element()? {
            (self.0)((self.1)(x));
        }
        Ok(())
    }
}

/// A schedule's settings (their JSON object), as the continuations of a cut header carry
/// them.
pub fn read_settings(text: &str) -> Result<Settings, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

/// A page as the view reads it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Page {
    /// This page's number, from 0.
    pub page: usize,
    /// How many pages the schedule has.
    pub pages: usize,
    #[serde(deserialize_with = "read_page_records")]
    pub records: Vec<Record<'static>>,
}

/// A page as the server sends it to the view: its records as JSON texts, in parts, each
/// the text of an array of records (a browser carries a string across frames for a
/// fraction of what a tree of objects costs it). See [`Measure::Text`].
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct TextPage {
    pub page: usize,
    pub pages: usize,
    pub record_parts: Vec<String>,
}

impl TextPage {
    /// The page its parts make, or what is wrong with one of them.
    pub fn read(&self) -> Result<Page, String> {
        let mut records = Vec::new();
        for (i, part) in self.record_parts.iter().enumerate() {
            records.extend(read_records(part).map_err(|e| format!("part {i}: {e}"))?);
        }
        Ok(Page {
            page: self.page,
            pages: self.pages,
            records,
        })
    }
}

/// An item of a page whose texts were cut: the view shows a one-line notice until the
/// continuations arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CutItem<'p> {
    pub kind: Kind,
    /// None for the header.
    pub id: Option<u64>,
    pub fields: &'p [Field],
}

impl Page {
    /// The items of this page that were cut, in page order.
    pub fn cut_items(&self) -> impl Iterator<Item = CutItem<'_>> + '_ {
        self.records.iter().filter_map(|r| {
            let fields = r.cut_fields();
            (!fields.is_empty()).then(|| CutItem {
                kind: r.kind(),
                id: r.id(),
                fields,
            })
        })
    }
}

/// Splits a schedule into page texts of at most `max_chars` UTF-16 code units each
/// (hence at most `max_chars` chars), first what `priority`'s window needs, then the
/// rest in display order (see the module header). `PAGE_CHARS` is the server's value.
///
/// # Panics
///
/// If `max_chars` is below `MIN_PAGE_CHARS`: that is a caller's constant gone wrong,
/// and quietly making pages larger than asked would break the caller's own limit.
pub fn paginate(s: &Schedule, priority: Option<&Priority>, max_chars: usize) -> Vec<String> {
    paginate_with_first(s, priority, max_chars, max_chars)
}

/// [`paginate`] with a smaller first page: page 0 stops at about `first_chars`, so the
/// view that waits for it to draw its first screen reads (and the host carries) a
/// fraction of a full page; the pages after it hold up to `max_chars`. A record larger
/// than the first page's room starts page 0 anyway when it fits a full page, so page 0
/// is never empty; `first_chars` is a target, `max_chars` the bound on every page.
pub fn paginate_with_first(
    s: &Schedule,
    priority: Option<&Priority>,
    first_chars: usize,
    max_chars: usize,
) -> Vec<String> {
    paginate_leaving_room(s, priority, first_chars, max_chars, 0)
}

/// [`paginate_with_first`] whose last page also leaves `last_room` units free under its
/// bound, for what the caller sends with it (the server's analysis of the schedule).
/// When the last page is too full, its last record moves to a page of its own; that
/// record is at most a quarter of a page unless it is the continuation of a cut text,
/// and then the room may be short: callers check the last page's length.
pub fn paginate_leaving_room(
    s: &Schedule,
    priority: Option<&Priority>,
    first_chars: usize,
    max_chars: usize,
    last_room: usize,
) -> Vec<String> {
    paginate_leaving_room_with(s, priority, first_chars, max_chars, Measure::Json, || {
        last_room
    })
}

/// [`paginate_leaving_room`] whose room is asked for only once every record is packed:
/// the caller may still be computing what it sends with the last page (the server
/// makes its analysis on another thread meanwhile). The records are counted as
/// `measure` says (every limit and room is in those units); the page texts are the
/// same JSON either way.
pub fn paginate_leaving_room_with(
    s: &Schedule,
    priority: Option<&Priority>,
    first_chars: usize,
    max_chars: usize,
    measure: Measure,
    last_room: impl FnOnce() -> usize,
) -> Vec<String> {
    assert!(
        max_chars >= MIN_PAGE_CHARS && first_chars >= MIN_PAGE_CHARS,
        "paginate: max_chars is {max_chars}, first_chars {first_chars}, below the minimum \
         of {MIN_PAGE_CHARS}; pass PAGE_CHARS or a limit of at least MIN_PAGE_CHARS"
    );
    let order = Order::new(s, priority);
    let mut p = Packer::new(max_chars, measure);
    p.first_cap = first_chars.min(max_chars) - ENVELOPE;

    p.push(&Record::Header(Header::of(s)));
    for (index, g) in s.groups.iter().enumerate() {
        p.push(&Record::Group(Placed {
            index,
            item: Cow::Borrowed(g),
        }));
    }
    let row = |index: usize| {
        Record::Row(Placed {
            index,
            item: Cow::Borrowed(&s.rows[index]),
        })
    };
    let bar = |i: u32| Record::Bar(Cow::Borrowed(&s.bars[i as usize]));
    let milestone = |i: u32| Record::Milestone(Cow::Borrowed(&s.milestones[i as usize]));

    // The first window, row by row (each row with its items), so that a page cut
    // anywhere holds whole rows from the top of the window.
    for &r in &order.window_rows {
        p.push(&row(r));
        for &i in order.bars.of(r) {
            if order.bar_sent[i as usize] {
                p.push(&bar(i));
            }
        }
        for &i in order.milestones.of(r) {
            if order.milestone_sent[i as usize] {
                p.push(&milestone(i));
            }
        }
    }
    for (l, &sent) in s.links.iter().zip(&order.link_sent) {
        if sent {
            p.push(&Record::Link(Cow::Borrowed(l)));
        }
    }

    for m in &s.members {
        p.push(&Record::Member(Cow::Borrowed(m)));
    }

    // Everything else, in display order.
    for (r, &sent) in order.row_in_window.iter().enumerate() {
        if !sent {
            p.push(&row(r));
        }
    }
    // One bucket per row, then one for items whose row does not exist.
    for r in 0..=s.rows.len() {
        for &i in order.bars.of(r) {
            if !order.bar_sent[i as usize] {
                p.push(&bar(i));
            }
        }
        for &i in order.milestones.of(r) {
            if !order.milestone_sent[i as usize] {
                p.push(&milestone(i));
            }
        }
    }
    for (l, &sent) in s.links.iter().zip(&order.link_sent) {
        if !sent {
            p.push(&Record::Link(Cow::Borrowed(l)));
        }
    }
    for a in &s.actions {
        p.push(&Record::Action(Cow::Borrowed(a)));
    }
    for a in &s.absences {
        p.push(&Record::Absence(Cow::Borrowed(a)));
    }
    p.push_continuations();
    p.leave_room(last_room());
    p.finish()
}

/// Items (by index) grouped by the position of their row: a compressed table, one
/// bucket per row and a last one for items whose row does not exist. Within a bucket,
/// items stay in id order.
#[derive(Debug)]
struct ByRow {
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl ByRow {
    fn new(row_positions: impl Iterator<Item = usize> + Clone, buckets: usize) -> ByRow {
        let mut starts = vec![0u32; buckets + 1];
        for p in row_positions.clone() {
            starts[p + 1] += 1;
        }
        for b in 0..buckets {
            starts[b + 1] += starts[b];
        }
        let mut fill = starts.clone();
        let mut items = vec![0u32; starts[buckets] as usize];
        for (i, p) in row_positions.enumerate() {
            items[fill[p] as usize] = i as u32;
            fill[p] += 1;
        }
        ByRow { starts, items }
    }

    fn of(&self, bucket: usize) -> &[u32] {
        &self.items[self.starts[bucket] as usize..self.starts[bucket + 1] as usize]
    }
}

/// The order of the stream: which items belong to the first window, and the items of
/// each row.
#[derive(Debug)]
struct Order {
    /// Positions of the window's rows, in display order.
    window_rows: Vec<usize>,
    row_in_window: Vec<bool>,
    bars: ByRow,
    milestones: ByRow,
    /// Whether each bar (milestone, link) went out with the first window.
    bar_sent: Vec<bool>,
    milestone_sent: Vec<bool>,
    link_sent: Vec<bool>,
}

impl Order {
    fn new(s: &Schedule, priority: Option<&Priority>) -> Order {
        let orphan = s.rows.len();
        // Row positions by row id, for a binary search per bar: no hashing in the loop.
        let mut by_id: Vec<(RowId, usize)> =
            s.rows.iter().enumerate().map(|(i, r)| (r.id, i)).collect();
        crate::order::sort_by_u64(&mut by_id, |p| p.0.0);
        let position = |row: RowId| {
            by_id
                .binary_search_by_key(&row, |&(id, _)| id)
                .map_or(orphan, |k| by_id[k].1)
        };
        let bar_rows: Vec<usize> = s.bars.iter().map(|b| position(b.row)).collect();
        let milestone_rows: Vec<usize> = s.milestones.iter().map(|m| position(m.row)).collect();

        let mut row_in_window = vec![false; s.rows.len()];
        let mut bar_sent = vec![false; s.bars.len()];
        let mut milestone_sent = vec![false; s.milestones.len()];
        let mut link_sent = vec![false; s.links.len()];
        if let Some(w) = priority {
            for &r in &w.rows {
                let p = position(r);
                if p != orphan {
                    row_in_window[p] = true;
                }
            }
            let mut window_items = Vec::new();
            for (i, b) in s.bars.iter().enumerate() {
                let p = bar_rows[i];
                if p != orphan && row_in_window[p] && b.start <= w.to && b.end >= w.from {
                    bar_sent[i] = true;
                    window_items.push(b.id.0);
                }
            }
            for (i, m) in s.milestones.iter().enumerate() {
                let p = milestone_rows[i];
                if p != orphan && row_in_window[p] && w.from <= m.date && m.date <= w.to {
                    milestone_sent[i] = true;
                    window_items.push(m.id.0);
                }
            }
            crate::order::sort_by_u64(&mut window_items, |&id| id);
            if !window_items.is_empty() {
                let inside = |id: ItemId| window_items.binary_search(&id.0).is_ok();
                for (l, sent) in s.links.iter().zip(&mut link_sent) {
                    *sent = inside(l.from) && inside(l.to);
                }
            }
        }
        let window_rows = (0..s.rows.len()).filter(|&p| row_in_window[p]).collect();
        Order {
            window_rows,
            row_in_window,
            bars: ByRow::new(bar_rows.iter().copied(), orphan + 1),
            milestones: ByRow::new(milestone_rows.iter().copied(), orphan + 1),
            bar_sent,
            milestone_sent,
            link_sent,
        }
    }
}

/// The remainder of a cut text, waiting for the end of the stream.
#[derive(Debug)]
struct Pending {
    of: Kind,
    id: Option<u64>,
    field: Field,
    text: String,
}

/// Fills pages with serialised records, in stream order.
#[derive(Debug)]
struct Packer {
    /// Room for records on a page, in UTF-16 units counted by `measure`.
    cap: usize,
    measure: Measure,
    /// Room for records on page 0 (at most `cap`).
    first_cap: usize,
    /// The size a cut record is shrunk to.
    cut_target: usize,
    done: Vec<Vec<u8>>,
    /// The page being filled: its opening, then its records so far.
    cur: Vec<u8>,
    /// Units of the records (and commas) on the current page, with the `]}` of an open
    /// run.
    cur_units: usize,
    /// Elements of the page's records array (a run is one), for its commas.
    cur_records: usize,
    /// Items on the page (each record of a run counts), for `leave_room`.
    cur_items: usize,
    /// The run the page's last element is, while it can take more records.
    run: Option<OpenRun>,
    /// Where the page's last item was written, so that `leave_room` can move it.
    last: Written,
    pending: Vec<Pending>,
}

/// A run being written: its key and the units of its records so far.
#[derive(Clone, Copy, Debug)]
struct OpenRun {
    key: &'static str,
    units: usize,
}

/// Where an item was written on the current page: from `mark` (its comma, if any), its
/// own text from `item` (after a run's opening when it opened one).
#[derive(Clone, Copy, Debug, Default)]
struct Written {
    mark: usize,
    item: usize,
    run: Option<&'static str>,
    opened: bool,
}

/// Units of a run's records after which the next record starts a new run: the server
/// cuts a page into parts (of ~16,000 bytes) between elements, so a run must stay small
/// against a part; the run's own `{"bars":[` and `]}` then cost under 0.3%.
const RUN_UNITS: usize = 4_000;

impl Packer {
    fn new(max_chars: usize, measure: Measure) -> Packer {
        let cap = max_chars - ENVELOPE;
        let mut p = Packer {
            cap,
            measure,
            first_cap: cap,
            cut_target: cap / 4,
            done: Vec::new(),
            cur: Vec::new(),
            cur_units: 0,
            cur_records: 0,
            cur_items: 0,
            run: None,
            last: Written::default(),
            pending: Vec::new(),
        };
        p.open_page();
        p
    }

    fn open_page(&mut self) {
        // Most pages are ASCII: their byte length is their size in units.
        self.cur = Vec::with_capacity(self.cap + ENVELOPE);
        let n = self.done.len();
        write!(self.cur, "{{\"page\":{n},\"records\":[").expect("writing to a Vec cannot fail");
        self.cur_units = 0;
        self.cur_records = 0;
        self.cur_items = 0;
    }

    /// Ends the open run, whose `]}` is already counted.
    fn close_run(&mut self) {
        if self.run.take().is_some() {
            self.cur.extend_from_slice(b"]}");
        }
    }

    fn next_page(&mut self) {
        self.close_run();
        let full = std::mem::take(&mut self.cur);
        self.done.push(full);
        self.open_page();
    }

    fn push(&mut self, rec: &Record<'_>) {
        if self.place(rec) {
            return;
        }
        let cut = self.cut(rec);
        let placed = self.place(&cut);
        assert!(
            placed,
            "paging: a {} record cut to {} units still exceeds a page of {} units",
            cut.kind(),
            self.cut_target,
            self.cap
        );
    }

    /// Puts a record on the current page (in the open run of its kind, or opening one,
    /// if it goes in runs), or alone at the top of the next one when it does not fit.
    /// False, with nothing written, when it is larger than a page.
    fn place(&mut self, rec: &Record<'_>) -> bool {
        let run = run_key(rec);
        let joins =
            matches!((run, self.run), (Some(k), Some(r)) if r.key == k && r.units < RUN_UNITS);
        if !joins {
            self.close_run();
        }
        let mark = self.cur.len();
        if joins || self.cur_records > 0 {
            self.cur.push(b',');
        }
        let opened = run.is_some() && !joins;
        if let (true, Some(key)) = (opened, run) {
            write!(self.cur, "{{\"{key}\":[").expect("writing to a Vec cannot fail");
        }
        let item = self.cur.len();
        write_record(&mut self.cur, rec, run.is_some());
        let item_units = self.measure.bytes(&self.cur[item..]);
        // The comma and the run's opening (ASCII) measured apart: the item once only.
        let units =
            self.measure.bytes(&self.cur[mark..item]) + item_units + if opened { 2 } else { 0 };
        let alone = item_units + run.map_or(0, |k| run_frame(self.measure, k));
        let room = if self.done.is_empty() {
            self.first_cap
        } else {
            self.cap
        };
        let at = Written {
            mark,
            item,
            run,
            opened,
        };
        if self.cur_units + units <= room || (self.cur_items == 0 && alone <= self.cap) {
            self.cur_units += units;
            self.cur_items += 1;
            match (opened, run, &mut self.run) {
                (true, Some(key), _) => {
                    self.run = Some(OpenRun {
                        key,
                        units: item_units,
                    });
                }
                (false, Some(_), Some(r)) => r.units += 1 + item_units,
                _ => {}
            }
            if !joins {
                self.cur_records += 1;
            }
            self.last = at;
            return true;
        }
        if alone > self.cap {
            self.cur.truncate(mark);
            return false;
        }
        self.move_to_new_page(at);
        true
    }

    /// Moves the item written at `at` (the current page's last) alone to a new page,
    /// in a run of its own if it goes in runs: cheaper than serialising it again, and
    /// it happens once per page at most.
    fn move_to_new_page(&mut self, at: Written) {
        let moved = self.cur.split_off(at.item);
        self.cur.truncate(at.mark);
        if at.opened {
            // Its run's opening went with the truncation.
            self.run = None;
        }
        self.next_page();
        let mark = self.cur.len();
        let item_units = self.measure.bytes(&moved);
        if let Some(key) = at.run {
            write!(self.cur, "{{\"{key}\":[").expect("writing to a Vec cannot fail");
            self.run = Some(OpenRun {
                key,
                units: item_units,
            });
        }
        let item = self.cur.len();
        self.cur.extend_from_slice(&moved);
        self.cur_units = item_units + at.run.map_or(0, |k| run_frame(self.measure, k));
        self.cur_records = 1;
        self.cur_items = 1;
        self.last = Written {
            mark,
            item,
            run: at.run,
            opened: true,
        };
    }

    /// Moves the current page's last item to a new page when the current page has
    /// less than `units` free and the item leaves that much on a page of its own.
    /// The room is counted against the full page's bound even on page 0, the only page
    /// of a small schedule: the first page's smaller target is for the records the
    /// first screen waits for, and a second page would cost that schedule a round trip.
    fn leave_room(&mut self, units: usize) {
        if units == 0 || self.cur_units + units <= self.cap || self.cur_items < 2 {
            return;
        }
        let at = self.last;
        let alone = self.measure.bytes(&self.cur[at.item..])
            + at.run.map_or(0, |k| run_frame(self.measure, k));
        if alone + units <= self.cap {
            self.move_to_new_page(at);
        }
    }

    /// Shrinks a record larger than a page to `cut_target` units: its shortest texts
    /// stay whole while they fit, the rest keep a head; remainders wait in `pending`.
    fn cut(&mut self, rec: &Record<'_>) -> Record<'static> {
        let mut owned = rec.clone().into_owned();
        let (of, id) = (owned.kind(), owned.id());

        // The record with every cuttable part emptied, wrapped and flagged: its size is
        // the fixed cost, and what remains of the target is shared among the texts.
        let mut emptied = owned.clone();
        let mut candidates: Vec<(Field, usize)> = Vec::new();
        if let Some(slots) = emptied.slots() {
            for (field, text) in slots.texts {
                if !text.is_empty() {
                    candidates.push((field, self.measure.text(text)));
                    text.clear();
                }
            }
            if let Some(st) = slots.settings.and_then(Option::take) {
                let json = serde_json::to_string(&*st).expect("settings serialise");
                candidates.push((Field::Settings, self.measure.bytes(json.as_bytes())));
            }
        }
        let skeleton = Record::Cut(Cut {
            fields: candidates.iter().map(|c| c.0).collect(),
            record: Box::new(emptied),
        });
        let skeleton_units = self.measure.record(&skeleton);
        // Each kept field also pays for its quotes and its key, which the skeleton may
        // lack (empty notes are not written): 16 units covers the longest key, 20 once
        // its four quotes are escaped again as text.
        let per_field = match self.measure {
            Measure::Json => 16,
            Measure::Text => 20,
        };
        let mut budget = self
            .cut_target
            .saturating_sub(skeleton_units + per_field * candidates.len());

        // Shortest first: short texts stay whole, the long ones are the ones cut.
        crate::order::sort_by_key(&mut candidates, |&(field, units)| (units, field));
        let Some(mut slots) = owned.slots() else {
            return owned;
        };
        let mut fields = Vec::new();
        for (field, units) in candidates {
            if units <= budget {
                budget -= units;
                continue;
            }
            fields.push(field);
            if field == Field::Settings {
                if let Some(settings) = slots.settings.as_deref_mut() {
                    let st = settings.take().expect("a candidate");
                    let text = serde_json::to_string(&*st).expect("settings serialise");
                    self.pending.push(Pending {
                        of,
                        id,
                        field,
                        text,
                    });
                }
                continue;
            }
            let text = slots
                .texts
                .iter_mut()
                .find(|(f, _)| *f == field)
                .map(|(_, t)| t)
                .expect("a candidate");
            let at = self.measure.split_at(text, budget);
            budget -= self.measure.text(&text[..at]);
            let rest = text.split_off(at);
            self.pending.push(Pending {
                of,
                id,
                field,
                text: rest,
            });
        }
        crate::order::sort(&mut fields);
        Record::Cut(Cut {
            fields,
            record: Box::new(owned),
        })
    }

    /// Writes the remainders of cut texts, in parts that fill each page's leftover room.
    fn push_continuations(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        for p in &pending {
            let mut rest = p.text.as_str();
            let mut part = 1u32;
            while !rest.is_empty() {
                let skeleton = Record::Cont(Cont {
                    of: p.of,
                    id: p.id,
                    field: p.field,
                    part,
                    text: Cow::Borrowed(""),
                    last: true,
                });
                let comma = usize::from(self.cur_records > 0);
                let room = self
                    .cap
                    .saturating_sub(self.cur_units + comma + self.measure.record(&skeleton));
                if room < MIN_PART {
                    self.next_page();
                    continue;
                }
                let at = self.measure.split_at(rest, room);
                let (text, tail) = rest.split_at(at);
                let rec = Record::Cont(Cont {
                    of: p.of,
                    id: p.id,
                    field: p.field,
                    part,
                    text: Cow::Borrowed(text),
                    last: tail.is_empty(),
                });
                let placed = self.place(&rec);
                assert!(placed, "paging: a continuation sized to a page overflowed");
                rest = tail;
                part += 1;
            }
        }
    }

    fn finish(mut self) -> Vec<String> {
        self.close_run();
        let last = std::mem::take(&mut self.cur);
        self.done.push(last);
        let n = self.done.len();
        self.done
            .into_iter()
            .map(|mut page| {
                write!(page, "],\"pages\":{n}}}").expect("writing to a Vec cannot fail");
                String::from_utf8(page).expect("serde_json writes UTF-8")
            })
            .collect()
    }
}

/// Size in UTF-16 code units of UTF-8 text: one per char, two for a char outside the
/// Basic Multilingual Plane (a four-byte sequence, lead byte 0xF0 and above).
fn utf16_units(bytes: &[u8]) -> usize {
    if bytes.is_ascii() {
        return bytes.len();
    }
    bytes
        .iter()
        .map(|&b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

/// Size of a char inside a JSON string as serde_json writes it, in UTF-16 units: quote,
/// backslash and the five control chars with a short escape take two, the other
/// control chars six (`\u00XX`).
fn escaped_char_units(c: char) -> usize {
    match c {
        '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
        '\0'..='\u{1f}' => 6,
        _ => c.len_utf16(),
    }
}

/// Why pages do not make a schedule. Each says what to fetch again or what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReassembleError {
    NoPages,
    /// Pages of two different paginations were mixed.
    WrongTotal {
        page: usize,
        says: usize,
        expected: usize,
    },
    PageOutOfRange {
        page: usize,
        pages: usize,
    },
    DuplicatePage {
        page: usize,
    },
    MissingPage {
        page: usize,
        pages: usize,
    },
    MissingHeader,
    DuplicateHeader,
    /// A group or row index missing or given twice.
    BadIndex {
        kind: Kind,
        index: usize,
    },
    CountMismatch {
        kind: Kind,
        expected: usize,
        found: usize,
    },
    MissingContinuation {
        of: Kind,
        id: Option<u64>,
        field: Field,
        part: u32,
    },
    DuplicateContinuation {
        of: Kind,
        id: Option<u64>,
        field: Field,
        part: u32,
    },
    /// A continuation for a field no record says was cut.
    UnexpectedContinuation {
        of: Kind,
        id: Option<u64>,
        field: Field,
    },
    /// A record says a field was cut that it does not have.
    NoSuchField {
        of: Kind,
        id: Option<u64>,
        field: Field,
    },
    MissingSettings,
    /// A cut record inside another: not something `paginate` writes.
    NestedCut,
    BadSettings {
        message: String,
    },
}

struct ItemName(Kind, Option<u64>);

impl fmt::Display for ItemName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Some(id) => write!(f, "{} {id}", self.0),
            None => write!(f, "the {}", self.0),
        }
    }
}

impl fmt::Display for ReassembleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ReassembleError::*;
        match self {
            NoPages => write!(f, "no page given: fetch page 0 first"),
            WrongTotal {
                page,
                says,
                expected,
            } => write!(
                f,
                "page {page} says there are {says} pages, others say {expected}: pages of two \
                 versions of the schedule were mixed; fetch them all again"
            ),
            PageOutOfRange { page, pages } => write!(
                f,
                "page {page} is out of range: there are {pages} pages, numbered from 0"
            ),
            DuplicatePage { page } => write!(f, "page {page} was given twice: give it once"),
            MissingPage { page, pages } => {
                write!(f, "page {page} of {pages} is missing: fetch it")
            }
            MissingHeader => write!(f, "no page holds the header record"),
            DuplicateHeader => write!(f, "two header records: pages of two paginations?"),
            BadIndex { kind, index } => write!(
                f,
                "{kind} index {index} is missing or given twice among the {kind} records"
            ),
            CountMismatch {
                kind,
                expected,
                found,
            } => write!(
                f,
                "the header announces {expected} {kind} records but the pages hold {found}"
            ),
            MissingContinuation {
                of,
                id,
                field,
                part,
            } => write!(
                f,
                "part {part} of the cut {field} of {} is missing",
                ItemName(*of, *id)
            ),
            DuplicateContinuation {
                of,
                id,
                field,
                part,
            } => write!(
                f,
                "part {part} of the cut {field} of {} was given twice",
                ItemName(*of, *id)
            ),
            UnexpectedContinuation { of, id, field } => write!(
                f,
                "a continuation of the {field} of {} arrived, but no record says that \
                 field was cut",
                ItemName(*of, *id)
            ),
            NoSuchField { of, id, field } => write!(
                f,
                "{} says its {field} was cut, but it has no such field",
                ItemName(*of, *id)
            ),
            MissingSettings => write!(
                f,
                "the header has no settings and does not say they were cut"
            ),
            NestedCut => write!(
                f,
                "a cut record wraps another cut record: these pages were not made by paginate"
            ),
            BadSettings { message } => write!(
                f,
                "the settings joined from their continuations are not valid: {message}"
            ),
        }
    }
}

impl std::error::Error for ReassembleError {}

/// A cut text's parts, gathered from continuations.
type Parts = BTreeMap<(Kind, Option<u64>, Field), Vec<(u32, String, bool)>>;

/// Puts pages (in any order) back together into the schedule they were cut from.
pub fn reassemble(pages: &[Page]) -> Result<Schedule, ReassembleError> {
    use ReassembleError as E;

    let total = pages.first().ok_or(E::NoPages)?.pages;
    let mut ordered: Vec<&Page> = pages.iter().collect();
    crate::order::sort_by_u64(&mut ordered, |p| p.page as u64);
    for (k, p) in ordered.iter().enumerate() {
        if p.pages != total {
            return Err(E::WrongTotal {
                page: p.page,
                says: p.pages,
                expected: total,
            });
        }
        if p.page >= total {
            return Err(E::PageOutOfRange {
                page: p.page,
                pages: total,
            });
        }
        if p.page < k {
            return Err(E::DuplicatePage { page: p.page });
        }
        if p.page > k {
            return Err(E::MissingPage {
                page: k,
                pages: total,
            });
        }
    }
    if ordered.len() < total {
        return Err(E::MissingPage {
            page: ordered.len(),
            pages: total,
        });
    }

    let mut header = None;
    let mut s = Schedule::new("");
    let mut groups: Vec<(usize, Group)> = Vec::new();
    let mut rows: Vec<(usize, Row)> = Vec::new();
    let mut cuts: Vec<(Kind, Option<u64>, Field)> = Vec::new();
    let mut parts = Parts::new();
    for rec in ordered.iter().flat_map(|p| &p.records) {
        let (rec, cut) = match rec {
            Record::Cut(c) => (&*c.record, &c.fields[..]),
            r => (r, &[][..]),
        };
        let (kind, id) = (rec.kind(), rec.id());
        cuts.extend(cut.iter().map(|&f| (kind, id, f)));
        match rec {
            Record::Header(h) => {
                if header.is_some() {
                    return Err(E::DuplicateHeader);
                }
                s.name = h.name.to_string();
                s.notes = h.notes.to_string();
                s.next_id = h.next_id;
                s.locks = h.locks.clone();
                match &h.settings {
                    Some(st) => s.settings = Settings::clone(st),
                    None if cut.contains(&Field::Settings) => {}
                    None => return Err(E::MissingSettings),
                }
                header = Some(h.counts);
            }
            Record::Group(g) => groups.push((g.index, Group::clone(&g.item))),
            Record::Row(r) => rows.push((r.index, Row::clone(&r.item))),
            Record::Bar(b) => s.bars.push(Bar::clone(b)),
            Record::Milestone(m) => s.milestones.push(Milestone::clone(m)),
            Record::Link(l) => s.links.push(Link::clone(l)),
            Record::Action(a) => s.actions.push(Action::clone(a)),
            Record::Member(m) => s.members.push(Member::clone(m)),
            Record::Absence(a) => s.absences.push(Absence::clone(a)),
            Record::Cut(_) => return Err(E::NestedCut),
            Record::Cont(c) => parts.entry((c.of, c.id, c.field)).or_default().push((
                c.part,
                c.text.to_string(),
                c.last,
            )),
        }
    }
    let counts = header.ok_or(E::MissingHeader)?;

    s.groups = in_index_order(groups, Kind::Group)?;
    s.rows = in_index_order(rows, Kind::Row)?;
    crate::order::sort_by_u64(&mut s.bars, |b| b.id.0);
    crate::order::sort_by_u64(&mut s.milestones, |m| m.id.0);
    crate::order::sort_by_u64(&mut s.links, |l| l.id.0);
    crate::order::sort_by_u64(&mut s.actions, |a| a.id.0);
    crate::order::sort_by_u64(&mut s.members, |m| m.id.0);
    crate::order::sort_by_u64(&mut s.absences, |a| a.id.0);
    let found = Counts::of(&s);
    for (kind, expected, found) in [
        (Kind::Group, counts.groups, found.groups),
        (Kind::Row, counts.rows, found.rows),
        (Kind::Bar, counts.bars, found.bars),
        (Kind::Milestone, counts.milestones, found.milestones),
        (Kind::Link, counts.links, found.links),
        (Kind::Action, counts.actions, found.actions),
        (Kind::Member, counts.members, found.members),
        (Kind::Absence, counts.absences, found.absences),
    ] {
        if expected != found {
            return Err(E::CountMismatch {
                kind,
                expected,
                found,
            });
        }
    }

    for (of, id, field) in cuts {
        let rest = join_parts(&mut parts, of, id, field)?;
        append(&mut s, of, id, field, rest)?;
    }
    if let Some(&(of, id, field)) = parts.keys().next() {
        return Err(E::UnexpectedContinuation { of, id, field });
    }
    Ok(s)
}

/// Groups or rows put back at their positions, which must be exactly 0..n.
fn in_index_order<T>(mut items: Vec<(usize, T)>, kind: Kind) -> Result<Vec<T>, ReassembleError> {
    crate::order::sort_by_u64(&mut items, |&(i, _)| i as u64);
    items
        .into_iter()
        .enumerate()
        .map(|(k, (index, item))| {
            if index == k {
                Ok(item)
            } else {
                Err(ReassembleError::BadIndex {
                    kind,
                    index: k.min(index),
                })
            }
        })
        .collect()
}

/// The remainder of a cut text: its parts 1..=n in order, the last flagged as such.
fn join_parts(
    parts: &mut Parts,
    of: Kind,
    id: Option<u64>,
    field: Field,
) -> Result<String, ReassembleError> {
    let missing = |part| ReassembleError::MissingContinuation {
        of,
        id,
        field,
        part,
    };
    let mut list = parts.remove(&(of, id, field)).ok_or(missing(1))?;
    crate::order::sort_by_key(&mut list, |p| p.0);
    let mut text = String::new();
    let mut expected = 1u32;
    let mut ended = false;
    for (part, piece, last) in list {
        if part < expected {
            return Err(ReassembleError::DuplicateContinuation {
                of,
                id,
                field,
                part,
            });
        }
        if part > expected || ended {
            return Err(missing(expected));
        }
        text.push_str(&piece);
        ended = last;
        expected += 1;
    }
    if ended {
        Ok(text)
    } else {
        Err(missing(expected))
    }
}

/// Appends the remainder of a cut field to the item it belongs to.
fn append(
    s: &mut Schedule,
    of: Kind,
    id: Option<u64>,
    field: Field,
    rest: String,
) -> Result<(), ReassembleError> {
    let no_such = ReassembleError::NoSuchField { of, id, field };
    if of == Kind::Header {
        match field {
            Field::Name => s.name.push_str(&rest),
            Field::Notes => s.notes.push_str(&rest),
            Field::Settings => {
                s.settings =
                    serde_json::from_str(&rest).map_err(|e| ReassembleError::BadSettings {
                        message: e.to_string(),
                    })?;
            }
            _ => return Err(no_such),
        }
        return Ok(());
    }
    let Some(id) = id else {
        return Err(no_such);
    };
    let slot = match of {
        Kind::Group => s
            .groups
            .iter_mut()
            .find(|g| g.id.0 == id)
            .and_then(|g| text_of(g, field)),
        Kind::Row => s
            .rows
            .iter_mut()
            .find(|r| r.id.0 == id)
            .and_then(|r| text_of(r, field)),
        Kind::Bar => {
            find_by(&s.bars, BarId(id), |b| b.id).and_then(|i| text_of(&mut s.bars[i], field))
        }
        Kind::Milestone => find_by(&s.milestones, MilestoneId(id), |m| m.id)
            .and_then(|i| text_of(&mut s.milestones[i], field)),
        Kind::Action => find_by(&s.actions, ActionId(id), |a| a.id)
            .and_then(|i| text_of(&mut s.actions[i], field)),
        Kind::Member => find_by(&s.members, MemberId(id), |m| m.id)
            .and_then(|i| text_of(&mut s.members[i], field)),
        Kind::Absence => find_by(&s.absences, AbsenceId(id), |a| a.id)
            .and_then(|i| text_of(&mut s.absences[i], field)),
        Kind::Header | Kind::Link | Kind::Cont => None,
    };
    slot.ok_or(no_such)?.push_str(&rest);
    Ok(())
}

#[cfg(test)]
mod tests {
    use expect_test::expect;
    use proptest::prelude::*;

    use super::*;
    use crate::synth::{Spec, generate};

    fn d(s: &str) -> Date {
        s.parse().unwrap()
    }

    fn parse(texts: &[String]) -> Vec<Page> {
        texts
            .iter()
            .map(|t| serde_json::from_str(t).unwrap_or_else(|e| panic!("{e} in {t:.200}")))
            .collect()
    }

    /// Every page within the limit (in chars and in UTF-16 units), numbered in order.
    fn check_sizes(texts: &[String], max_chars: usize) -> Result<(), TestCaseError> {
        check_sizes_as(texts, max_chars, Measure::Json)
    }

    /// [`check_sizes`] counted as `measure` (as a JSON string for `Measure::Text`).
    fn check_sizes_as(
        texts: &[String],
        max_chars: usize,
        measure: Measure,
    ) -> Result<(), TestCaseError> {
        for (i, t) in texts.iter().enumerate() {
            let units = t.encode_utf16().count();
            prop_assert!(units <= max_chars, "page {i}: {units} units > {max_chars}");
            if measure == Measure::Text {
                // Measured on the text as serde_json writes it inside a string.
                let written = serde_json::to_string(t).unwrap().encode_utf16().count() - 2;
                prop_assert!(
                    written <= max_chars,
                    "page {i}: {written} units as text > {max_chars}"
                );
            }
            prop_assert!(t.chars().count() <= units);
            let head = format!("{{\"page\":{i},\"records\":[");
            prop_assert!(t.starts_with(&head), "page {i} starts {:.40}", t);
        }
        Ok(())
    }

    /// The units a page's records take, without its envelope.
    fn record_units(texts: &[String], i: usize) -> usize {
        record_units_as(texts, i, Measure::Json)
    }

    /// [`record_units`] counted as `measure`.
    fn record_units_as(texts: &[String], i: usize, measure: Measure) -> usize {
        let envelope = format!("{{\"page\":{i},\"records\":[],\"pages\":{}}}", texts.len());
        measure.of(&texts[i]) - measure.of(&envelope)
    }

    /// Units `next` would add at the end of `page`: a comma and its array when it
    /// joins the run that ends the page (of its kind, not yet at `RUN_UNITS`), else a
    /// comma and the record, in a run of its own if it goes in runs.
    fn added_units(page: &str, next: &Record<'_>, measure: Measure) -> usize {
        let v: serde_json::Value = serde_json::from_str(page).unwrap();
        let last = v["records"].as_array().unwrap().last();
        let mut alone = Vec::new();
        write_record(&mut alone, next, run_key(next).is_some());
        let alone = measure.bytes(&alone);
        match run_key(next) {
            Some(key) => match last.and_then(|r| r.get(key)) {
                Some(run) if measure.of(&run.to_string()) - 2 < RUN_UNITS => 1 + alone,
                _ => 1 + alone + run_frame(measure, key),
            },
            None => 1 + alone,
        }
    }

    fn tiny() -> Schedule {
        let mut s = Schedule::new("Launch");
        s.notes = "Say \"hi\"".into();
        s.groups.push(Group {
            id: GroupId(1),
            name: "Build".into(),
        });
        for (id, name) in [(2, "Back"), (3, "Front")] {
            s.rows.push(Row {
                id: RowId(id),
                group: GroupId(1),
                name: name.into(),
                member: (id == 3).then_some(MemberId(10)),
            });
        }
        for (id, row, start, end) in [
            (4, 2, "2026-03-02", "2026-03-03"),
            (5, 3, "2026-03-04", "2026-03-05"),
            (6, 3, "2026-06-01", "2026-06-01"),
        ] {
            s.bars.push(Bar {
                id: BarId(id),
                row: RowId(row),
                label: format!("Task {id}"),
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
            });
        }
        s.milestones.push(Milestone {
            id: MilestoneId(7),
            row: RowId(3),
            label: "Go".into(),
            date: d("2026-03-06"),
            color: None,
            notes: String::new(),
            constraint: None,
            deadline: None,
        });
        for (id, from, to) in [(8, 4, 5), (9, 5, 6)] {
            s.links.push(Link {
                id: LinkId(id),
                from: ItemId(from),
                to: ItemId(to),
                kind: LinkKind::FS,
                lag: 0,
            });
        }
        s.members.push(Member {
            id: MemberId(10),
            name: "Ana".into(),
            email: None,
        });
        s.absences.push(Absence {
            id: AbsenceId(11),
            member: MemberId(10),
            start: d("2026-03-04"),
            end: d("2026-03-04"),
            reason: String::new(),
        });
        s.next_id = 12;
        s
    }

    #[test]
    fn the_first_window_comes_first() {
        let s = tiny();
        let window = Priority {
            rows: vec![RowId(3)],
            from: d("2026-03-01"),
            to: d("2026-03-31"),
        };
        let texts = paginate(&s, Some(&window), MIN_PAGE_CHARS);
        assert_eq!(texts.len(), 1);
        let pretty = texts[0].replace("},{", "},\n{");
        expect![[r#"
            {"page":0,"records":[{"header":{"name":"Launch","settings":{"time_zone":"Europe/Paris","working_weekdays":["mon","tue","wed","thu","fri"],"holidays":[],"time_unit":"day"},"notes":"Say \"hi\"","next_id":12,"counts":{"groups":1,"rows":2,"bars":3,"milestones":1,"links":2,"actions":0,"members":1,"absences":1}}},
            {"group":{"index":0,"id":1,"name":"Build"}},
            {"row":{"index":1,"id":3,"group":1,"name":"Front","member":10}},
            {"bars":[[5,3,"Task 5",20516,20517]]},
            {"milestones":[[7,3,"Go",20518]]},
            {"member":{"id":10,"name":"Ana"}},
            {"row":{"index":0,"id":2,"group":1,"name":"Back"}},
            {"bars":[[4,2,"Task 4",20514,20515],[6,3,"Task 6",20605,20605]]},
            {"links":[[8,4,5],[9,5,6]]},
            {"absence":{"id":11,"member":10,"start":"2026-03-04","end":"2026-03-04"}}],"pages":1}"#]]
        .assert_eq(&pretty);
        assert_eq!(reassemble(&parse(&texts)), Ok(s.clone()));

        // Without a window: plain display order.
        let plain = paginate(&s, None, MIN_PAGE_CHARS);
        let kinds: Vec<Kind> = parse(&plain)[0].records.iter().map(Record::kind).collect();
        use Kind::*;
        assert_eq!(
            kinds,
            [
                Header, Group, Member, Row, Row, Bar, Bar, Bar, Milestone, Link, Link, Absence
            ]
        );
        assert_eq!(reassemble(&parse(&plain)), Ok(s));
    }

    /// Consecutive bars, milestones, links and actions share runs, each of one kind and
    /// ended soon after `RUN_UNITS`, so that the server's parts stay small; the pages
    /// read back into the schedule.
    #[test]
    fn records_of_a_kind_go_in_small_runs() {
        let s = generate(Spec::new(3_000));
        let texts = paginate(&s, None, PAGE_CHARS);
        let (mut runs, mut in_runs, mut largest) = (0, 0, 0);
        for t in &texts {
            let v: serde_json::Value = serde_json::from_str(t).unwrap();
            for element in v["records"].as_array().unwrap() {
                let (key, value) = element.as_object().unwrap().iter().next().unwrap();
                if ["bars", "milestones", "links", "actions"].contains(&key.as_str()) {
                    let items = value.as_array().unwrap();
                    let last = items.last().unwrap().to_string().len();
                    // Without its brackets, its last record and that record's comma.
                    let before = (value.to_string().len() - 2 - last).saturating_sub(1);
                    assert!(
                        before < RUN_UNITS,
                        "a run of {before} units before its last"
                    );
                    runs += 1;
                    in_runs += items.len();
                    largest = largest.max(value.to_string().len());
                }
            }
        }
        let n = s.bars.len() + s.milestones.len() + s.links.len() + s.actions.len();
        assert_eq!(in_runs, n, "every such record in a run");
        assert!(runs * 20 < n, "{runs} runs for {n} records");
        assert!(largest < RUN_UNITS + 200, "a run of {largest} bytes");
        assert_eq!(reassemble(&parse(&texts)), Ok(s));
    }

    #[test]
    fn links_join_the_window_when_both_ends_are_in_it() {
        let s = tiny();
        let window = Priority {
            rows: vec![RowId(2), RowId(3)],
            from: d("2026-03-01"),
            to: d("2026-03-31"),
        };
        let pages = parse(&paginate(&s, Some(&window), MIN_PAGE_CHARS));
        let first: Vec<(Kind, Option<u64>)> = pages[0]
            .records
            .iter()
            .map(|r| (r.kind(), r.id()))
            .collect();
        use Kind::*;
        assert_eq!(
            first[..8],
            [
                (Header, None),
                (Group, Some(1)),
                (Row, Some(2)),
                (Bar, Some(4)),
                (Row, Some(3)),
                (Bar, Some(5)),
                (Milestone, Some(7)),
                (Link, Some(8)),
            ]
        );
        // Link 9 reaches bar 6, outside the window's dates: it waits with the rest.
        assert_eq!(first[8], (Member, Some(10)));
    }

    /// A text with quotes, backslashes, newlines, control chars and chars of one, two
    /// and three UTF-8 bytes and two UTF-16 units, drawn from a seed.
    fn wild_text(seed: u64, len: usize) -> String {
        const PIECES: [&str; 16] = [
            "a", "Z", " ", "\"", "\\", "\n", "\t", "\u{1}", "\u{1f}", "é", "€", "😀", "\u{2028}",
            "\u{7f}", "«", "»",
        ];
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                PIECES[(x % 16) as usize]
            })
            .collect()
    }

    #[test]
    fn an_outsized_label_is_cut_flagged_and_joined_back() {
        let mut s = generate(Spec::new(300));
        let label: String = "Un \"long\" libellé\nsur plusieurs lignes\\ "
            .chars()
            .cycle()
            .take(400_000)
            .collect();
        let target = s.bars[17].id;
        s.bars[17].label = label.clone();
        let texts = paginate(&s, None, PAGE_CHARS);
        check_sizes(&texts, PAGE_CHARS).unwrap();
        let pages = parse(&texts);

        let cut: Vec<(usize, CutItem<'_>)> = pages
            .iter()
            .enumerate()
            .flat_map(|(i, p)| p.cut_items().map(move |c| (i, c)))
            .collect();
        assert_eq!(cut.len(), 1, "{cut:?}");
        let (on, item) = cut[0];
        assert_eq!(
            (item.kind, item.id, item.fields),
            (Kind::Bar, Some(target.0), &[Field::Label][..])
        );
        let head = pages[on]
            .records
            .iter()
            .find_map(|r| match r {
                Record::Cut(c) => match &*c.record {
                    Record::Bar(bar) if bar.id == target => Some(bar.label.clone()),
                    _ => None,
                },
                _ => None,
            })
            .unwrap();
        assert!(!head.is_empty() && label.starts_with(&head));
        assert!(Measure::Json.text(&head) <= (PAGE_CHARS - ENVELOPE) / 4);

        let parts: Vec<(u32, bool)> = pages
            .iter()
            .flat_map(|p| &p.records)
            .filter_map(|r| match r {
                Record::Cont(c)
                    if (c.of, c.id, c.field) == (Kind::Bar, Some(target.0), Field::Label) =>
                {
                    Some((c.part, c.last))
                }
                _ => None,
            })
            .collect();
        // 400,000 chars, 10% of which escape to two: at least four more pages.
        assert!(parts.len() >= 4, "{parts:?}");
        let expected: Vec<(u32, bool)> = (1..=parts.len() as u32)
            .map(|k| (k, k == parts.len() as u32))
            .collect();
        assert_eq!(parts, expected);
        assert_eq!(reassemble(&pages), Ok(s));
    }

    /// One line per page: each record's kind, id and cut fields, and each
    /// continuation's part and length.
    fn outline(pages: &[Page]) -> String {
        let record = |r: &Record<'_>| match r {
            Record::Cont(c) => format!(
                "cont {}{} {} #{} ({} chars{})",
                c.of,
                c.id.map(|i| format!(" {i}")).unwrap_or_default(),
                c.field,
                c.part,
                c.text.chars().count(),
                if c.last { ", last" } else { "" }
            ),
            r => {
                let id = r.id().map(|i| format!(" {i}")).unwrap_or_default();
                let cut = r.cut_fields();
                if cut.is_empty() {
                    format!("{}{id}", r.kind())
                } else {
                    format!("{}{id} cut {cut:?}", r.kind())
                }
            }
        };
        pages
            .iter()
            .map(|p| {
                let records: Vec<String> = p.records.iter().map(record).collect();
                format!("page {}: {}", p.page, records.join(", "))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn cut_records_keep_a_head_and_continue_at_the_end() {
        let mut s = tiny();
        s.notes = "x".repeat(6_000);
        s.bars[0].label = "é\"".repeat(4_500);
        s.bars[0].notes = "A short note stays whole.".into();
        let pages = parse(&paginate(&s, None, MIN_PAGE_CHARS));
        expect![[r#"
            page 0: header cut [Notes], group 1, member 10, row 2, row 3, bar 4 cut [Label], bar 5, bar 6, milestone 7, link 8, link 9, absence 11, cont header notes #1 (1620 chars)
            page 1: cont header notes #2 (3732 chars, last), cont bar 4 label #1 (97 chars)
            page 2: cont bar 4 label #2 (2633 chars)
            page 3: cont bar 4 label #3 (2633 chars)
            page 4: cont bar 4 label #4 (2633 chars)
            page 5: cont bar 4 label #5 (421 chars, last)"#]].assert_eq(&outline(&pages));
        let heads: Vec<usize> = pages[0]
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Cut(c) => match &*c.record {
                    Record::Header(h) => Some(h.notes.len()),
                    Record::Bar(b) => Some(b.label.chars().count()),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        expect![[r#"
            [
                648,
                583,
            ]
        "#]]
        .assert_debug_eq(&heads);
        assert_eq!(reassemble(&pages), Ok(s));
    }

    #[test]
    fn settings_too_large_for_a_page_move_whole() {
        let mut s = generate(Spec::new(50));
        s.settings.holidays = (0..20_000).map(|k| d("2020-01-01").add_days(k)).collect();
        s.settings.time_zone = wild_text(3, 2_000);
        let texts = paginate(&s, None, MIN_PAGE_CHARS);
        check_sizes(&texts, MIN_PAGE_CHARS).unwrap();
        let pages = parse(&texts);
        let first = &pages[0].records[0];
        assert_eq!(first.cut_fields(), [Field::Settings]);
        match first {
            Record::Cut(c) => match &*c.record {
                Record::Header(h) => assert_eq!(h.settings, None),
                r => panic!("page 0 starts with {r:?}"),
            },
            r => panic!("page 0 starts with {r:?}"),
        }
        assert_eq!(reassemble(&pages), Ok(s));
    }

    #[test]
    fn a_hundred_thousand_bars() {
        let s = generate(Spec::new(100_000));
        let window = Priority {
            rows: s.rows[40..70].iter().map(|r| r.id).collect(),
            from: s.bars[0].start,
            to: s.bars[0].start.add_days(90),
        };
        let texts = paginate(&s, Some(&window), PAGE_CHARS);
        check_sizes(&texts, PAGE_CHARS).unwrap();
        // Pages are filled: all but the last hold more than 99% of their room.
        for i in 0..texts.len() - 1 {
            assert!(record_units(&texts, i) > (PAGE_CHARS - ENVELOPE) * 99 / 100);
        }
        let mut pages = parse(&texts);
        pages.reverse();
        assert!(reassemble(&pages) == Ok(s.clone()), "reassembly differs");

        // Counted as the text the server sends: as full, in units of that text.
        let texts = paginate_leaving_room_with(
            &s,
            Some(&window),
            PAGE_CHARS,
            PAGE_CHARS,
            Measure::Text,
            || 0,
        );
        check_sizes_as(&texts, PAGE_CHARS, Measure::Text).unwrap();
        for i in 0..texts.len() - 1 {
            let units = record_units_as(&texts, i, Measure::Text);
            assert!(
                units > (PAGE_CHARS - ENVELOPE) * 99 / 100,
                "page {i}: {units}"
            );
        }
        assert!(reassemble(&parse(&texts)) == Ok(s), "reassembly differs");
    }

    #[test]
    fn a_smaller_first_page_holds_the_start_of_the_window_and_reassembles() {
        let s = generate(Spec::new(10_000));
        let window = Priority {
            rows: s.rows[40..70].iter().map(|r| r.id).collect(),
            from: s.bars[0].start,
            to: s.bars[0].start.add_days(90),
        };
        let first = 24_000;
        let texts = paginate_with_first(&s, Some(&window), first, PAGE_CHARS);
        check_sizes(&texts, PAGE_CHARS).unwrap();
        assert!(texts[0].len() <= first, "page 0 is {} long", texts[0].len());
        assert!(record_units(&texts, 0) > (first - ENVELOPE) * 95 / 100);
        let whole = paginate(&s, Some(&window), PAGE_CHARS);
        assert!(texts.len() <= whole.len() + 1);
        let pages = parse(&texts);
        // Page 0 starts as the full-size one does: header, groups, the window's rows.
        let kinds: Vec<Kind> = pages[0].records.iter().take(3).map(Record::kind).collect();
        assert_eq!(kinds[0], Kind::Header);
        assert!(reassemble(&pages) == Ok(s), "reassembly differs");
        // A header larger than the first page still starts page 0.
        let mut big = tiny();
        big.notes = "n".repeat(20_000);
        let texts = paginate_with_first(&big, None, MIN_PAGE_CHARS, PAGE_CHARS);
        assert_eq!(parse(&texts)[0].records[0].kind(), Kind::Header);
        assert_eq!(reassemble(&parse(&texts)), Ok(big));
    }

    #[test]
    fn the_last_page_leaves_the_room_asked_for() {
        let s = generate(Spec::new(3_000));
        let whole = paginate_with_first(&s, None, 24_000, 40_000);
        let last = |texts: &[String]| texts.last().unwrap().encode_utf16().count();
        // Room the last page already has changes nothing (counted as the packer does,
        // with the longest envelope a page can have).
        let free = 40_000 - ENVELOPE - record_units(&whole, whole.len() - 1);
        assert!(paginate_leaving_room(&s, None, 24_000, 40_000, free) == whole);
        // More room than that: its last record moves to a page of its own.
        for room in [free + 1, 40_000 - ENVELOPE - 1_000] {
            let texts = paginate_leaving_room(&s, None, 24_000, 40_000, room);
            check_sizes(&texts, 40_000).unwrap();
            assert_eq!(texts.len(), whole.len() + 1);
            assert!(last(&texts) + room <= 40_000, "{room}: {}", last(&texts));
            // The pages before keep their records; only the page count in them changes.
            let (before, now) = (parse(&whole), parse(&texts));
            for i in 0..before.len() - 1 {
                assert!(before[i].records == now[i].records, "page {i} changed");
            }
            let last_before = &before[before.len() - 1].records;
            assert!(now[now.len() - 2].records[..] == last_before[..last_before.len() - 1]);
            assert!(
                reassemble(&parse(&texts)) == Ok(s.clone()),
                "reassembly differs"
            );
            // The room given late, once the records are packed, gives the same pages,
            // and is asked for once.
            let mut asked = 0;
            let late = paginate_leaving_room_with(&s, None, 24_000, 40_000, Measure::Json, || {
                asked += 1;
                room
            });
            assert_eq!(asked, 1);
            assert!(late == texts, "{room}: the late room gave other pages");
        }
        // A single page keeps the room under the full page's bound, past the first
        // page's target; beyond that bound it splits in two the same way.
        let one = paginate_leaving_room(&tiny(), None, MIN_PAGE_CHARS, PAGE_CHARS, 4_000);
        assert!(one == paginate(&tiny(), None, PAGE_CHARS));
        let room = MIN_PAGE_CHARS - ENVELOPE - 200;
        let texts = paginate_leaving_room(&tiny(), None, MIN_PAGE_CHARS, MIN_PAGE_CHARS, room);
        assert_eq!(texts.len(), 2);
        assert!(last(&texts) + room <= MIN_PAGE_CHARS);
        assert_eq!(reassemble(&parse(&texts)), Ok(tiny()));
        // Room no record leaves on a page of its own is not made.
        let texts = paginate_leaving_room(&s, None, 24_000, 40_000, 39_990);
        assert!(texts == whole);
    }

    #[test]
    #[should_panic(expected = "max_chars is 4095, first_chars 4095, below the minimum of 4096")]
    fn a_limit_below_the_minimum_is_refused() {
        paginate(&tiny(), None, MIN_PAGE_CHARS - 1);
    }

    #[test]
    fn units_are_measured_as_javascript_does() {
        for t in ["abc", "é€", "😀a😀", "\u{2028}«»", ""] {
            assert_eq!(utf16_units(t.as_bytes()), t.encode_utf16().count(), "{t}");
        }
        for c in [
            '"', '\\', '\n', '\u{1}', '\u{1f}', '\u{7f}', 'é', '😀', '\u{2028}',
        ] {
            let json = serde_json::to_string(&c.to_string()).unwrap();
            let inner = json.encode_utf16().count() - 2;
            assert_eq!(escaped_char_units(c), inner, "{c:?} -> {json}");
            assert_eq!(Measure::Json.char(c), inner, "{c:?} -> {json}");
            // Written again as a string, as the server sends a page's records.
            let text = serde_json::to_string(&json[1..json.len() - 1]).unwrap();
            let inner = text.encode_utf16().count() - 2;
            assert_eq!(Measure::Text.char(c), inner, "{c:?} -> {text}");
        }
        let t = "a\"😀b";
        assert_eq!(Measure::Json.split_at(t, 2), 1);
        assert_eq!(Measure::Json.split_at(t, 4), 2);
        assert_eq!(Measure::Json.split_at(t, 5), 6);
        assert_eq!(Measure::Json.split_at(t, 6), t.len());
        assert_eq!(Measure::Text.split_at(t, 4), 1);
        assert_eq!(Measure::Text.split_at(t, 5), 2);
        assert_eq!(Measure::Text.split_at(t, 7), 6);
        assert_eq!(Measure::Text.split_at(t, 8), t.len());
        // A whole record: the units of its text as a JSON string, without the quotes.
        let s = tiny();
        let rec = Record::Header(Header::of(&s));
        let json = serde_json::to_string(&rec).unwrap();
        let text = serde_json::to_string(&json).unwrap();
        assert_eq!(Measure::Text.record(&rec), text.encode_utf16().count() - 2);
        assert_eq!(Measure::Text.of(&json), Measure::Text.record(&rec));
        assert_eq!(Measure::Json.record(&rec), json.encode_utf16().count());
    }

    /// Pages of a schedule with a cut header name, as parsed pages.
    fn cut_pages() -> (Schedule, Vec<Page>) {
        let mut s = generate(Spec::new(200));
        s.name = wild_text(9, 10_000);
        let pages = parse(&paginate(&s, None, MIN_PAGE_CHARS));
        assert!(pages.len() > 3);
        (s, pages)
    }

    #[test]
    fn reassembly_says_what_is_wrong() {
        let (s, pages) = cut_pages();
        let n = pages.len();
        let err = |pages: Vec<Page>| reassemble(&pages).unwrap_err().to_string();
        assert_eq!(reassemble(&pages).as_ref(), Ok(&s));

        let mut missing = pages.clone();
        missing.remove(2);
        let mut twice = pages.clone();
        twice.push(pages[1].clone());
        let mut mixed = pages.clone();
        mixed[1].pages += 1;
        let mut no_part = pages.clone();
        let last = &mut no_part[n - 1].records;
        let at = last.iter().rposition(|r| r.kind() == Kind::Cont).unwrap();
        last.remove(at);
        let mut no_bar = pages.clone();
        let at = no_bar[1].records.iter().position(|r| r.kind() == Kind::Bar);
        no_bar[1].records.remove(at.unwrap());
        let mut no_header = pages.clone();
        no_header[0].records.remove(0);
        let mut stray = pages.clone();
        stray[0].records.push(Record::Cont(Cont {
            of: Kind::Bar,
            id: Some(s.bars[0].id.0),
            field: Field::Notes,
            part: 1,
            text: "x".into(),
            last: true,
        }));
        let messages = [
            err(vec![]),
            err(missing),
            err(twice),
            err(mixed),
            err(no_part),
            err(no_bar),
            err(no_header),
            err(stray),
        ]
        .join("\n");
        expect![[r#"
            no page given: fetch page 0 first
            page 2 of 10 is missing: fetch it
            page 1 was given twice: give it once
            page 1 says there are 11 pages, others say 10: pages of two versions of the schedule were mixed; fetch them all again
            part 6 of the cut name of the header is missing
            the header announces 200 bar records but the pages hold 199
            no page holds the header record
            a continuation of the notes of bar 9 arrived, but no record says that field was cut"#]]
        .assert_eq(&messages);
    }

    /// Where a generated text goes.
    #[derive(Clone, Copy, Debug)]
    struct Injection {
        target: u8,
        pick: usize,
        seed: u64,
        len: usize,
    }

    fn inject(s: &mut Schedule, i: Injection) {
        let text = wild_text(i.seed, i.len);
        fn at<T>(v: &mut [T], pick: usize) -> Option<&mut T> {
            let n = v.len();
            (n > 0).then(|| &mut v[pick % n])
        }
        let n = i.target % 15;
        match n {
            0 => s.name = text,
            1 => s.notes = text,
            2 => s.settings.time_zone = text,
            3 => {
                let days = i.len as i32 / 8;
                s.settings.holidays = (0..days).map(|k| d("2025-01-01").add_days(k)).collect();
            }
            4 => {
                if let Some(g) = at(&mut s.groups, i.pick) {
                    g.name = text;
                }
            }
            5 => {
                if let Some(r) = at(&mut s.rows, i.pick) {
                    r.name = text;
                }
            }
            6..=8 => {
                if let Some(b) = at(&mut s.bars, i.pick) {
                    match n {
                        6 => b.label = text,
                        7 => b.notes = text,
                        _ => b.color = Some(text),
                    }
                }
            }
            9 | 10 => {
                if let Some(m) = at(&mut s.milestones, i.pick) {
                    if n == 9 {
                        m.label = text;
                    } else {
                        m.notes = text;
                    }
                }
            }
            11 => {
                if let Some(a) = at(&mut s.actions, i.pick) {
                    a.label = text;
                }
            }
            12 | 13 => {
                if let Some(m) = at(&mut s.members, i.pick) {
                    if n == 12 {
                        m.name = text;
                    } else {
                        m.email = Some(text);
                    }
                }
            }
            _ => {
                if let Some(a) = at(&mut s.absences, i.pick) {
                    a.reason = text;
                }
            }
        }
    }

    fn injection() -> impl Strategy<Value = Injection> {
        let len = prop_oneof![0usize..200, 0usize..5_000, 5_000usize..40_000];
        (any::<u8>(), any::<usize>(), any::<u64>(), len).prop_map(|(target, pick, seed, len)| {
            Injection {
                target,
                pick,
                seed,
                len,
            }
        })
    }

    /// Window bars (ids) in stream order: by row display position, then id.
    fn window_bars(s: &Schedule, w: &Priority) -> Vec<BarId> {
        let mut v: Vec<(usize, BarId)> = s
            .bars
            .iter()
            .filter(|b| w.rows.contains(&b.row) && b.start <= w.to && b.end >= w.from)
            .filter_map(|b| s.rows.iter().position(|r| r.id == b.row).map(|p| (p, b.id)))
            .collect();
        v.sort();
        v.into_iter().map(|(_, b)| b).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn pages_fit_and_reassemble_exactly(
            bars in 0usize..400,
            seed in 1u64..1_000,
            links_per_bar in 0.0f64..3.0,
            injections in proptest::collection::vec(injection(), 0..6),
            max_chars in MIN_PAGE_CHARS..24_000,
            window in proptest::option::of((
                proptest::collection::vec(any::<usize>(), 0..30),
                0i32..200,
                0i32..60,
            )),
            reverse in any::<bool>(),
            last_room in prop_oneof![Just(0usize), 0usize..6_000],
            measure in prop_oneof![Just(Measure::Json), Just(Measure::Text)],
        ) {
            let mut s = generate(Spec { bars, links_per_bar, seed, ..Spec::new(bars) });
            for i in injections {
                inject(&mut s, i);
            }
            // Constraints and deadlines travel in the bar and milestone records.
            for (k, b) in s.bars.iter_mut().enumerate().filter(|(k, _)| (*k as u64 + seed).is_multiple_of(7)) {
                b.constraint = Some(Constraint { kind: ConstraintKind::ALL[1 + k % 4], date: b.end });
                b.deadline = (k % 2 == 0).then_some(b.end.add_days(2));
            }
            // So do progress and the actual dates.
            for (k, b) in s.bars.iter_mut().enumerate().filter(|(k, _)| (*k as u64 + seed).is_multiple_of(3)) {
                b.progress = (k % 101) as u8;
                b.actual_start = Some(b.start);
                if b.progress == 100 {
                    b.actual_finish = Some(b.end);
                }
            }
            for (k, m) in s.milestones.iter_mut().enumerate().filter(|(k, _)| (*k as u64 + seed).is_multiple_of(2)) {
                m.constraint = Some(Constraint { kind: ConstraintKind::ALL[k % 5], date: m.date });
                m.deadline = Some(m.date);
            }
            let priority = window.map(|(picks, from, len)| Priority {
                rows: picks.iter().filter(|_| !s.rows.is_empty()).map(|p| s.rows[p % s.rows.len()].id).collect(),
                from: d("2026-01-05").add_days(from),
                to: d("2026-01-05").add_days(from + len),
            });
            let texts = paginate_leaving_room_with(&s, priority.as_ref(), max_chars, max_chars, measure, || last_room);
            check_sizes_as(&texts, max_chars, measure)?;
            // The room asked for is there, unless the last page has a single record or
            // its last record would not leave that room on a page of its own.
            let tail = texts.len() - 1;
            let records = &parse(&texts[tail..])[0].records;
            let cap = max_chars - ENVELOPE;
            prop_assert!(
                record_units_as(&texts, tail, measure) + last_room <= cap
                    || records.len() == 1
                    || measure.record(&records[records.len() - 1]) + last_room > cap
            );
            let mut pages = parse(&texts);
            for (i, p) in pages.iter().enumerate() {
                prop_assert_eq!((p.page, p.pages), (i, texts.len()));
            }
            prop_assert_eq!(pages[0].records[0].kind(), Kind::Header);

            if let Some(w) = &priority {
                // The window's bars lead, in order, as many as fit on the first page.
                let expected = window_bars(&s, w);
                // A window bar with an outsized text travels as a cut record: it still
                // counts as that bar, in its place.
                let on_first: Vec<BarId> = pages[0].records.iter().filter_map(|r| match r {
                    Record::Bar(bar) => Some(bar.id),
                    Record::Cut(cut) => match cut.record.as_ref() {
                        Record::Bar(bar) => Some(bar.id),
                        _ => None,
                    },
                    _ => None,
                }).collect();
                let k = on_first.len().min(expected.len());
                prop_assert_eq!(&on_first[..k], &expected[..k]);
                if k < expected.len() {
                    let next = &pages[1].records[0];
                    prop_assert!(
                        record_units_as(&texts, 0, measure) + added_units(&texts[0], next, measure)
                            > max_chars - ENVELOPE,
                        "page 0 had room for {:?}", next
                    );
                }
            }

            if reverse {
                pages.reverse();
            }
            let back = reassemble(&pages);
            prop_assert!(back == Ok(s), "reassembly differs: {:?}", back.err());
        }
    }
}

/// The records read back from their text by serde ([`read_records`]): what the view
/// reads pages, deltas and cut settings with. Every kind of record, cut and whole, comes
/// back as it went; bad and hostile texts get an error, never a panic.
#[cfg(test)]
mod read_tests {
    use super::*;
    use crate::date::Weekday;
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

    /// The records of a page text read back equal the ones paging wrote, and written
    /// again one by one they are the page's JSON, each run taken apart into its records.
    fn reads_back(page: &str) {
        let v: serde_json::Value = serde_json::from_str(page).unwrap();
        let records = v["records"].to_string();
        let page: Page = serde_json::from_str(page).unwrap();
        assert_eq!(read_records(&records).unwrap(), page.records);
        let again: Vec<serde_json::Value> = page
            .records
            .iter()
            .map(|r| serde_json::to_value(Wire(r)).unwrap())
            .collect();
        assert!(
            serde_json::Value::from(again) == apart(&v["records"]),
            "written again, the records are the same JSON"
        );
    }

    /// A page's records array with each run (`{"bars":[a,b]}`) replaced by its records
    /// (`{"bar":a},{"bar":b}`).
    fn apart(records: &serde_json::Value) -> serde_json::Value {
        let mut out = Vec::new();
        for r in records.as_array().unwrap() {
            let (key, value) = r.as_object().unwrap().iter().next().unwrap();
            // No record's kind ends in "s": a key that does is a run's.
            match key.strip_suffix('s') {
                Some(kind) => {
                    for item in value.as_array().unwrap() {
                        out.push(serde_json::json!({ kind: item }));
                    }
                }
                _ => out.push(r.clone()),
            }
        }
        serde_json::Value::from(out)
    }

    /// Every combination of a bar's, a milestone's, a link's and an action's optional fields, set or
    /// at their default, written as a page writes them: an array up to the last field
    /// set, read back equal by the same reader as the object form, which reads equal
    /// too. Shows the arrays follow their order (`BarFields`, declaration order for the
    /// others) and trim only defaults.
    #[test]
    fn arrays_read_back_for_every_combination_of_optional_fields() {
        let day = |n: i32| Date::from_ymd(2026, 3, 2).unwrap().add_days(n);
        let check = |rec: Record<'static>, len: usize| {
            let text = serde_json::to_string(&Wire(&rec)).unwrap();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            // A cut record's fields are those of the record inside it.
            let whole = v.get("cut").map_or(&v, |c| &c["record"]);
            let fields = whole.as_object().unwrap().values().next().unwrap();
            assert_eq!(fields.as_array().map(Vec::len), Some(len), "{text}");
            assert_eq!(
                read_records(&format!("[{text}]")).unwrap(),
                vec![rec.clone()]
            );
            let object = serde_json::to_string(&rec).unwrap();
            assert!(object.contains("\"id\":"), "{object}");
            assert_eq!(read_records(&format!("[{object}]")).unwrap(), vec![rec]);
        };
        for set in 0u32..1 << 8 {
            let on = |i: u32| set & (1 << i) != 0;
            let mut b = Bar::new(
                BarId(1 << 40),
                RowId(7),
                "Pose «\u{a0}A\u{a0}»",
                day(0),
                day(4),
            );
            b.color = on(0).then(|| "#2f6fdf".to_owned());
            b.notes = if on(1) {
                "à \"faire\"".into()
            } else {
                String::new()
            };
            b.pin = on(2).then(|| day(-1));
            b.constraint = on(3).then(|| Constraint {
                kind: ConstraintKind::FinishNoLaterThan,
                date: day(4),
            });
            b.deadline = on(4).then(|| day(9));
            b.progress = if on(5) { 35 } else { 0 };
            b.actual_start = on(6).then(|| day(1));
            b.actual_finish = on(7).then(|| day(3));
            // Where each of the bits above goes in the array: progress first.
            let at = [1, 2, 3, 4, 5, 0, 6, 7];
            let len = 5
                + (0..8)
                    .filter(|&i| on(i))
                    .map(|i| at[i as usize] + 1)
                    .max()
                    .unwrap_or(0);
            check(Record::Bar(Cow::Owned(b.clone())), len);
            check(
                Record::Cut(Cut {
                    fields: vec![Field::Label],
                    record: Box::new(Record::Bar(Cow::Owned(b))),
                }),
                len,
            );
        }
        for set in 0u32..1 << 4 {
            let on = |i: u32| set & (1 << i) != 0;
            let m = Milestone {
                id: MilestoneId(3),
                row: RowId(7),
                label: "Go".into(),
                date: day(5),
                color: on(0).then(|| "red".to_owned()),
                notes: if on(1) { "n".into() } else { String::new() },
                constraint: on(2).then(|| Constraint {
                    kind: ConstraintKind::StartNoEarlierThan,
                    date: day(5),
                }),
                deadline: on(3).then(|| day(6)),
            };
            let len = 4 + (0..4).rev().find(|&i| on(i)).map_or(0, |i| i as usize + 1);
            check(Record::Milestone(Cow::Owned(m)), len);
        }
        for (kind, lag, len) in [
            (LinkKind::FS, 0, 3),
            (LinkKind::SS, 0, 4),
            (LinkKind::FS, -2, 5),
            (LinkKind::SF, i32::MIN, 5),
        ] {
            let l = Link {
                id: LinkId(u64::MAX),
                from: ItemId(1),
                to: ItemId(2),
                kind,
                lag,
            };
            check(Record::Link(Cow::Owned(l)), len);
        }
        for (status, assignee, len) in [
            (ActionStatus::Todo, None, 3),
            (ActionStatus::Done, None, 4),
            (ActionStatus::Todo, Some(MemberId(9)), 5),
            (ActionStatus::InProgress, Some(MemberId(9)), 5),
        ] {
            let a = Action {
                id: ActionId(4),
                bar: BarId(1),
                label: "Relire".into(),
                status,
                assignee,
            };
            check(Record::Action(Cow::Owned(a)), len);
        }
    }

    /// `read_records_with` hands each record over as it is read, those before an error
    /// included, and refuses what `read_records` refuses.
    #[test]
    fn records_are_handed_over_as_read_up_to_an_error() {
        let mut seen = Vec::new();
        let e = read_records_with(r#"[{"link":[1,2,3]},{"link":[4,5]}]"#, |r| {
            seen.push(r.id())
        })
        .unwrap_err();
        assert!(e.contains("invalid length 2"), "{e}");
        assert_eq!(seen, [Some(1)]);
        for (text, says) in [
            (r#"[{"link":[1,2,3]}] x"#, "trailing characters"),
            (r#"{"link":[1,2,3]}"#, "expected an array of records"),
        ] {
            assert!(read_records_with(text, |_| {}).unwrap_err().contains(says));
            assert!(read_records(text).unwrap_err().contains(says));
        }
    }

    /// An array of the wrong length or with a field of the wrong type is refused with
    /// what was expected, as an object with a wrong field is.
    #[test]
    fn bad_arrays_are_refused_with_what_was_expected() {
        for (text, says) in [
            (r#"[{"bar":[1,2,"a",20514]}]"#, "invalid length 4"),
            (r#"[{"link":[1,2]}]"#, "invalid length 2"),
            (r#"[{"link":[1,2,3,"FS",0,9]}]"#, "trailing"),
            (
                r#"[{"bar":[1,2,"a",20514,20518,0,null,"",null,null,null,null,null,9]}]"#,
                "trailing",
            ),
            (r#"[{"bar":[1,2,"a",20514,"2026-03-06"]}]"#, "expected i32"),
            (
                r#"[{"bar":[1,2,"a",20514,900000]}]"#,
                "day 900000 is not a date",
            ),
            (r#"[{"milestone":[1,2,3,20514]}]"#, "expected a string"),
            (r#"[{"milestone":[1,2,"a"]}]"#, "invalid length 3"),
            // An object keeps dates as texts: a day number is not one.
            (
                r#"[{"bar":{"id":1,"row":2,"label":"a","start":20514,"end":20518}}]"#,
                "YYYY-MM-DD",
            ),
            (r#"[{"link":[1,2,3,"XX"]}]"#, "unknown variant"),
        ] {
            let e = read_records(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn reads_every_record_kind_cut_and_whole() {
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
            reads_back(p);
        }
        let read: Vec<Page> = pages
            .iter()
            .map(|p| serde_json::from_str(p).unwrap())
            .collect();
        assert_eq!(reassemble(&read), Ok(s.clone()));
        let rows = s.rows.iter().take(3).map(|r| r.id).collect();
        let from = s.span().unwrap().0;
        let window = Priority {
            rows,
            from,
            to: from.add_days(30),
        };
        for p in paginate_with_first(&s, Some(&window), 5_000, 200_000) {
            reads_back(&p);
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
        assert_eq!(read_records(&text).unwrap(), d.records);
    }

    #[test]
    fn reads_the_written_form_with_any_order_unknown_fields_nulls_and_spaces() {
        let text = r#" [ {"bar" : {"notes":"", "pin":null, "extra":{"a":[1,-2.5e3,0.5E+2,0,true,null,"x"]},
            "end":"2026-03-10","start":"2026-03-09","label":"A\u00e9\ud83d\ude00","row":2,"id":5,"color":null}},
            {"link":{"id":7,"from":5,"to":6}}, {"row":{"id":2,"group":1,"name":"R","index":0,"member":null}} ] "#;
        let records = read_records(text).unwrap();
        let Record::Bar(bar) = &records[0] else {
            panic!("{records:?}")
        };
        assert_eq!(
            (bar.id, bar.row, bar.label.as_str()),
            (BarId(5), RowId(2), "Aé😀")
        );
        assert_eq!((bar.pin, bar.color.as_deref()), (None, None));
        let Record::Row(row) = &records[2] else {
            panic!("{records:?}")
        };
        assert_eq!(
            (row.index, row.item.id, row.item.name.as_str()),
            (0, RowId(2), "R")
        );
        assert_eq!(read_records("[]").unwrap(), vec![]);
    }

    #[test]
    fn bad_input_gets_an_error_saying_what_and_where() {
        let cases = [
            ("", "EOF while parsing a value at line 1 column 0"),
            (
                r#"[{"bar":{"id":1}}]"#,
                "missing field `row` at line 1 column 16",
            ),
            (
                r#"[{"link":{"id": x}}]"#,
                "expected value at line 1 column 17",
            ),
            (r#"[{"tree":{}}]"#, "unknown variant `tree`"),
            (r#"[{}]"#, "an empty object where a record goes"),
            (
                r#"[{"bars":{}}]"#,
                "expected a run: an array of records' arrays",
            ),
            (r#"[{"bars":[[1,2,"a",20514]]}]"#, "invalid length 4"),
            (r#"[{"links":[[1,2,3],[4,5]]}]"#, "invalid length 2"),
            (
                r#"[{"bars":[],"links":[]}]"#,
                "a record has one key, its kind: a second key follows it",
            ),
            (
                r#"[{"link":{"id":1,"from":2,"to":3}, "bar":{}}]"#,
                "a second key follows it at line 1 column 40",
            ),
            (r#"[{"link":{"id":1.5,"from":2,"to":3}}]"#, "expected u64"),
            (r#"[{"link":{"id":-1,"from":2,"to":3}}]"#, "expected u64"),
            (
                r#"[{"link":{"id":1,"from":2,"to":3,"lag":9999999999}}]"#,
                "expected i32",
            ),
            (
                r#"[{"link":{"id":1,"from":2,"to":3,"kind":"XX"}}]"#,
                "unknown variant `XX`",
            ),
            (r#"[{"link":{"id":01,"from":2,"to":3}}]"#, "invalid number"),
            (r#"[{"member":{"id":1,"name":"a\qb"}}]"#, "invalid escape"),
            (
                r#"[{"member":{"id":1,"name":"\ud800"}}]"#,
                "unexpected end of hex escape",
            ),
            (
                r#"[{"member":{"id":1,"name":"abc}}]"#,
                "EOF while parsing a string",
            ),
            (
                "[{\"member\":{\"id\":1,\"name\":\"a\nb\"}}]",
                "control character",
            ),
            (
                r#"[{"absence":{"id":1,"member":2,"start":"2026-02-30","end":"2026-03-01"}}]"#,
                "2026-02-30",
            ),
            (
                r#"[{"link":{"id":1,"from":2,"to":3}}] x"#,
                "trailing characters",
            ),
            (r#"[{"link":{"id":1,"from":2,"to":3}},]"#, "trailing comma"),
        ];
        for (text, want) in cases {
            let got = read_records(text).unwrap_err();
            assert!(got.contains(want), "{text}: {got}");
        }
        assert!(
            read_settings(r#"{"time_zone":"UTC"}"#)
                .unwrap_err()
                .contains("missing field")
        );
    }

    /// A hostile page or settings text nested 100,000 deep gets an error, never a stack
    /// overflow: serde_json stops at 128 levels of what it reads into types (records
    /// within cut records, the buffered fields of a group or a row, the settings), and
    /// skips an unknown field's value without recursing, however deep.
    #[test]
    fn a_hundred_thousand_levels_get_an_error_not_a_crash() {
        let n = 100_000;
        let brackets = "[".repeat(n);
        let keys = r#"{"a":"#.repeat(n);
        let too_deep = "recursion limit exceeded";
        for text in [
            format!("[{{\"row\":{{\"index\":0,\"x\":[{keys}"),
            format!("[{}", r#"{"cut":{"fields":[],"record":"#.repeat(n)),
        ] {
            let e = read_records(&text).unwrap_err();
            assert!(e.contains(too_deep), "{}: {e}", &text[..20]);
        }
        // Skipped, then refused where the text ends.
        for text in [
            format!("[{{\"bar\":{{\"extra\":{brackets}"),
            format!("[{{\"bar\":{{\"extra\":{keys}"),
            format!("[{{\"link\":{{\"id\":1,\"x\":[{keys}"),
        ] {
            let e = read_records(&text).unwrap_err();
            assert!(e.contains("EOF while parsing"), "{}: {e}", &text[..20]);
        }
        // Nesting where a record or a settings object must be is refused at once.
        let e = read_records(&brackets).unwrap_err();
        assert!(
            e.contains("expected a record") && e.contains("line 1 column 1"),
            "{e}"
        );
        assert!(
            read_records(&keys)
                .unwrap_err()
                .contains("expected an array of records")
        );
        assert!(
            read_records(&format!("[{keys}"))
                .unwrap_err()
                .contains("unknown variant `a`")
        );
        let e = read_settings(&brackets).unwrap_err();
        assert!(e.contains("expected a string at line 1 column 1"), "{e}");
        assert!(
            read_settings(&keys)
                .unwrap_err()
                .contains("EOF while parsing")
        );
        // Closed, a deep unknown field is skipped and the settings read.
        let with_extra = |arrays: usize| {
            format!(
                r#"{{"time_zone":"UTC","working_weekdays":["mon"],"holidays":[],"time_unit":"day","x":{}1{}}}"#,
                "[".repeat(arrays),
                "]".repeat(arrays)
            )
        };
        let allowed = read_settings(&with_extra(n));
        assert!(allowed.is_ok(), "{allowed:?}");
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
            prop_assert_eq!(read_records(&text).unwrap(), records);
        }
    }
}
