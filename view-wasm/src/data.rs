//! The schedule as the view holds it: assembled page by page from `get_schedule_page`.
//! Plain Rust, unit-tested natively.
//!
//! A page's records are added to a growing schedule as soon as the page arrives, so the
//! first window is drawn from page 0 while the rest comes. Collections are re-sorted
//! only when a page added to them (one run appended to a sorted run: linear). Texts
//! that paging cut arrive as continuations at the end of the stream; they are joined
//! when the last page is in, and from then on the schedule is exactly the server's
//! (a test checks it equals the paginated schedule).
//!
//! Live updates do not come back here: `app` applies the model's `delta` (the current
//! state of the items the new journal entries touched) to the copy, and reads the pages
//! again only when there is no delta (a replaced schedule, one too large). Replaying the
//! entries' commands instead would link the whole command engine into the view, about
//! 300 KB of wasm, which the page's size budget cannot carry.

use std::collections::BTreeSet;

use palmaplan_model::paging::{Field, Kind, Record};
use palmaplan_model::{Schedule, wire};
use serde::Deserialize;
use serde_json::Value;

// The collections of `Assembly::dirty`.
const GROUPS: u8 = 1;
const ROWS: u8 = 2;
const BARS: u8 = 4;
const MILESTONES: u8 = 8;
const LINKS: u8 = 16;
const ACTIONS: u8 = 32;
const MEMBERS: u8 = 64;
const ABSENCES: u8 = 128;

/// The records of a page or of a delta, read straight from their JSON text into their
/// types. `host` moves a message's `records` array out of the object tree as the message
/// arrives, as texts set aside (see `take_record_parts`): read through a generic
/// `Value` tree first, a page of 110,000 characters took several times as long, and
/// the view carried a second copy of the records' reader.
pub fn take_records(v: &mut Value) -> Result<Vec<Record<'static>>, String> {
    let mut all = Vec::new();
    for part in take_record_parts(v)? {
        all.extend(read_records(&part)?);
    }
    Ok(all)
}

/// The records of a message `host` set aside.
enum Held {
    /// Their texts, in parts.
    Ready(Vec<String>),
    /// Being unpacked (a packed page, see `host::split_records`), with what waits for
    /// them (`when_ready`).
    Unpacking(Vec<Box<dyn FnOnce()>>),
    /// Unpacking failed: why.
    Failed(String),
}

/// Messages whose records `host` set aside, by number, the oldest first.
type Stash = Vec<(u64, Held)>;

thread_local! {
    static STASH: std::cell::RefCell<(u64, Stash)> = const { std::cell::RefCell::new((0, Vec::new())) };
}

/// How many messages' records wait at most: a message's reader takes them in the task
/// the message arrives in (or once they are unpacked), so only the records of answers
/// nobody reads (a duplicate, a call that timed out) stay, and these go as newer ones
/// come.
const STASH_KEPT: usize = 8;

/// Sets aside `held` and gives the number the message then carries as `records_ref`.
fn stash(held: Held) -> u64 {
    let (n, dropped) = STASH.with(|s| {
        let (next, kept) = &mut *s.borrow_mut();
        *next += 1;
        let dropped = (kept.len() >= STASH_KEPT).then(|| kept.remove(0).1);
        kept.push((*next, held));
        (*next, dropped)
    });
    // Whoever waited for dropped records is told (they are then missing), outside the
    // stash's borrow.
    if let Some(Held::Unpacking(waiting)) = dropped {
        waiting.into_iter().for_each(|f| f());
    }
    n
}

/// Sets aside the texts of a message's records and gives the number the message then
/// carries as `records_ref`: the texts reach their reader as they are, instead of going
/// into the message's JSON text (every quote escaped) and out again (~7 ms for page 0).
pub fn stash_record_parts(parts: Vec<String>) -> u64 {
    stash(Held::Ready(parts))
}

/// Sets aside records still being unpacked; `unpacked` gives them (or why not) later.
pub fn stash_unpacking() -> u64 {
    stash(Held::Unpacking(Vec::new()))
}

/// The records set aside as `n` are unpacked (or could not be): who waited reads them.
pub fn unpacked(n: u64, parts: Result<Vec<String>, String>) {
    let waiting = STASH.with(|s| {
        let kept = &mut s.borrow_mut().1;
        let held = &mut kept.iter_mut().find(|(k, _)| *k == n)?.1;
        let now = match parts {
            Ok(parts) => Held::Ready(parts),
            Err(e) => Held::Failed(e),
        };
        match std::mem::replace(held, now) {
            Held::Unpacking(waiting) => Some(waiting),
            // Given twice: the first stands.
            other => {
                *held = other;
                None
            }
        }
    });
    waiting.into_iter().flatten().for_each(|f| f());
}

/// The number of the records `host` set aside for message `v`, if it did.
pub fn records_ref(v: &Value) -> Option<u64> {
    v.get("records_ref").and_then(Value::as_u64)
}

/// Runs `f` once the records set aside as `held` (`records_ref`) can be read: at once,
/// unless they are still being unpacked.
pub fn when_ready(held: Option<u64>, f: impl FnOnce() + 'static) {
    let Some(n) = held else {
        return f();
    };
    let mut f = Some(Box::new(f) as Box<dyn FnOnce()>);
    STASH.with(|s| {
        if let Some((_, Held::Unpacking(waiting))) =
            s.borrow_mut().1.iter_mut().find(|(k, _)| *k == n)
        {
            waiting.extend(f.take());
        }
    });
    if let Some(f) = f {
        f();
    }
}

/// The texts of a message's records, in parts (`records_ref` is the number of the texts
/// `host` set aside, the parts of a long array; `records_json` is one text, as the
/// view's own made-up page and the tests give it): a page read part by part, a task
/// each, never holds the browser for the whole page.
pub fn take_record_parts(v: &mut Value) -> Result<Vec<String>, String> {
    if let Some(n) = records_ref(v) {
        return STASH.with(|s| {
            let kept = &mut s.borrow_mut().1;
            let Some(at) = kept.iter().position(|(k, _)| *k == n) else {
                return Err(format!("records {n} already read or dropped"));
            };
            match kept.remove(at).1 {
                Held::Ready(parts) => Ok(parts),
                Held::Failed(e) => Err(e),
                held @ Held::Unpacking(_) => {
                    kept.insert(at, (n, held));
                    Err(format!("records {n} not unpacked yet"))
                }
            }
        });
    }
    match v.get_mut("records_json").map(Value::take) {
        Some(Value::String(text)) => Ok(vec![text]),
        _ => Err("records missing".into()),
    }
}

/// One part of the records, read from its text (by serde, the model's own readers).
pub use palmaplan_model::paging::{read_records, read_records_with};

/// What `host` does to a message's records, for tests: `records` becomes
/// `records_json`, its JSON text.
#[cfg(test)]
pub fn as_received(mut v: Value) -> Value {
    if let Some(r) = v.get_mut("records").map(Value::take) {
        v["records_json"] = Value::String(r.to_string());
        if let Some(o) = v.as_object_mut() {
            o.remove("records");
        }
    }
    v
}

/// A schedule arriving in pages.
#[derive(Debug)]
pub struct Assembly {
    pub schedule_id: i64,
    /// The rank the pages were made at.
    pub rank: i64,
    /// The page numbers received (the records themselves are in `partial`).
    received: BTreeSet<usize>,
    total: Option<usize>,
    partial: Schedule,
    groups: Vec<(usize, palmaplan_model::Group)>,
    rows: Vec<(usize, palmaplan_model::Row)>,
    /// Items whose texts were cut and are not whole yet.
    cut: usize,
    /// Collections appended to since they were last sorted (bit per collection, see
    /// `settle`): sorting waits until someone reads the schedule, so a page costs its
    /// own size, not the schedule's.
    dirty: u8,
    /// Parts of cut texts: (kind, id, field, part, text).
    conts: Vec<(Kind, Option<u64>, Field, u32, String)>,
    complete: bool,
    /// The schedule's analysis, as the last page brought it (`app::Analysis` reads it).
    pub analysis: Option<Value>,
}

impl Assembly {
    pub fn new(schedule_id: i64, rank: i64) -> Assembly {
        Assembly {
            schedule_id,
            rank,
            received: BTreeSet::new(),
            total: None,
            partial: Schedule::new(""),
            groups: Vec::new(),
            rows: Vec::new(),
            cut: 0,
            conts: Vec::new(),
            dirty: 0,
            complete: false,
            analysis: None,
        }
    }

    /// Reads a `get_schedule_page` structuredContent (its records as `records_json`, see
    /// [`take_records`]). Returns an error text when it is not a page of this assembly
    /// (another rank: the caller starts over).
    /// Takes the value: a page's records move into the schedule without a copy.
    pub fn add(&mut self, mut structured: Value) -> Result<(), String> {
        let Some(page) = self.check(&structured)? else {
            return Ok(());
        };
        let records = take_records(&mut structured)?;
        self.absorb(records);
        self.finish(page)
    }

    /// Checks that a page belongs to this assembly; its number, or None when it was
    /// already added. The caller then absorbs its records (at once or part by part) and
    /// calls [`Assembly::finish`].
    pub fn check(&mut self, structured: &Value) -> Result<Option<usize>, String> {
        // Read in place: the records beside the head are skipped, not copied.
        let head = wire::PageHead::deserialize(structured)
            .map_err(|e| format!("a page without its head: {e}"))?;
        if head.rank != self.rank {
            return Err(format!(
                "page made at rank {}, expected {}",
                head.rank, self.rank
            ));
        }
        // No count on an early page 0 of packed pages: page 1's answer tells.
        if let Some(pages) = head.pages {
            if self.total.is_some_and(|t| t != pages) {
                return Err("pages of two paginations".into());
            }
            self.total = Some(pages);
        }
        let page = head.page;
        Ok((!self.received.contains(&page)).then_some(page))
    }

    /// Notes that every record of `page` is in; once all pages are, joins the cut
    /// texts and sorts what needs it.
    pub fn finish(&mut self, page: usize) -> Result<(), String> {
        self.received.insert(page);
        if self.received.len() == self.total.unwrap_or(usize::MAX) {
            self.settle();
            self.join_continuations()?;
            self.complete = true;
            self.cut = 0;
            self.groups.clear();
            self.rows.clear();
        }
        Ok(())
    }

    /// Appends the parts of cut texts, in order, to their items.
    fn join_continuations(&mut self) -> Result<(), String> {
        let mut conts = std::mem::take(&mut self.conts);
        palmaplan_model::order::sort_by_key(&mut conts, |c| (c.0, c.1, c.2, c.3));
        let s = &mut self.partial;
        let mut settings = String::new();
        for (kind, id, field, _, text) in conts {
            let id = id.unwrap_or(0);
            let slot: Option<&mut String> = match (kind, field) {
                (Kind::Header, Field::Name) => Some(&mut s.name),
                (Kind::Header, Field::Notes) => Some(&mut s.notes),
                (Kind::Header, Field::Settings) => Some(&mut settings),
                (Kind::Group, Field::Name) => s
                    .groups
                    .iter_mut()
                    .find(|g| g.id.0 == id)
                    .map(|g| &mut g.name),
                (Kind::Row, Field::Name) => s
                    .rows
                    .iter_mut()
                    .find(|r| r.id.0 == id)
                    .map(|r| &mut r.name),
                (Kind::Bar, Field::Label) => {
                    find(&mut s.bars, id, |b| b.id.0).map(|b| &mut b.label)
                }
                (Kind::Bar, Field::Notes) => {
                    find(&mut s.bars, id, |b| b.id.0).map(|b| &mut b.notes)
                }
                (Kind::Milestone, Field::Label) => {
                    find(&mut s.milestones, id, |m| m.id.0).map(|m| &mut m.label)
                }
                (Kind::Milestone, Field::Notes) => {
                    find(&mut s.milestones, id, |m| m.id.0).map(|m| &mut m.notes)
                }
                (Kind::Action, Field::Label) => {
                    find(&mut s.actions, id, |a| a.id.0).map(|a| &mut a.label)
                }
                (Kind::Member, Field::Name) => {
                    find(&mut s.members, id, |m| m.id.0).map(|m| &mut m.name)
                }
                // What the view never shows (colours, e-mails, reasons) keeps its head.
                _ => None,
            };
            if let Some(slot) = slot {
                slot.push_str(&text);
            }
        }
        if !settings.is_empty() {
            s.settings = palmaplan_model::paging::read_settings(&settings)
                .map_err(|e| format!("settings: {e}"))?;
        }
        Ok(())
    }

    /// Adds records of a page (all of them, or one part of them).
    pub fn absorb(&mut self, records: Vec<Record<'static>>) {
        records.into_iter().for_each(|r| self.absorb_one(r));
    }

    /// Adds one record, as it is read (`paging::read_records_with`). Matched where it
    /// lies, not moved into a pair with its cut flag first: a record is up to ~150 bytes,
    /// and each move is a copy in the JavaScript translation.
    pub fn absorb_one(&mut self, r: Record<'static>) {
        let s = &mut self.partial;
        self.dirty |= match r {
            Record::Cut(c) => {
                self.cut += 1;
                // A cut record inside a cut one is not a record of the stream.
                if !matches!(*c.record, Record::Cut(_)) {
                    self.absorb_one(*c.record);
                }
                0
            }
            Record::Header(h) => {
                s.name = h.name.to_string();
                if let Some(st) = &h.settings {
                    s.settings = st.as_ref().clone();
                }
                s.notes = h.notes.to_string();
                s.next_id = h.next_id;
                s.locks = h.locks.clone();
                0
            }
            Record::Group(p) => {
                self.groups.push((p.index, p.item.into_owned()));
                GROUPS
            }
            Record::Row(p) => {
                self.rows.push((p.index, p.item.into_owned()));
                ROWS
            }
            Record::Bar(b) => {
                s.bars.push(b.into_owned());
                BARS
            }
            Record::Milestone(m) => {
                s.milestones.push(m.into_owned());
                MILESTONES
            }
            Record::Link(l) => {
                s.links.push(l.into_owned());
                LINKS
            }
            Record::Action(a) => {
                s.actions.push(a.into_owned());
                ACTIONS
            }
            Record::Member(m) => {
                s.members.push(m.into_owned());
                MEMBERS
            }
            Record::Absence(a) => {
                s.absences.push(a.into_owned());
                ABSENCES
            }
            Record::Cont(c) => {
                self.conts
                    .push((c.of, c.id, c.field, c.part, c.text.to_string()));
                0
            }
        };
    }

    /// Puts the collections appended to back in order (groups and rows by position,
    /// the others by id), so lookups by id work.
    fn settle(&mut self) {
        let (d, s) = (self.dirty, &mut self.partial);
        self.dirty = 0;
        if d & GROUPS != 0 {
            palmaplan_model::order::sort_by_u64(&mut self.groups, |(i, _)| *i as u64);
            s.groups = self.groups.iter().map(|(_, g)| g.clone()).collect();
        }
        if d & ROWS != 0 {
            palmaplan_model::order::sort_by_u64(&mut self.rows, |(i, _)| *i as u64);
            s.rows = self.rows.iter().map(|(_, r)| r.clone()).collect();
        }
        if d & BARS != 0 {
            palmaplan_model::order::sort_by_u64(&mut s.bars, |b| b.id.0);
        }
        if d & MILESTONES != 0 {
            palmaplan_model::order::sort_by_u64(&mut s.milestones, |m| m.id.0);
        }
        if d & LINKS != 0 {
            palmaplan_model::order::sort_by_u64(&mut s.links, |l| l.id.0);
        }
        if d & ACTIONS != 0 {
            palmaplan_model::order::sort_by_u64(&mut s.actions, |a| a.id.0);
        }
        if d & MEMBERS != 0 {
            palmaplan_model::order::sort_by_u64(&mut s.members, |m| m.id.0);
        }
        if d & ABSENCES != 0 {
            palmaplan_model::order::sort_by_u64(&mut s.absences, |a| a.id.0);
        }
    }

    /// The schedule so far (the whole one once complete).
    pub fn schedule(&mut self) -> &Schedule {
        self.settle();
        &self.partial
    }

    pub fn into_schedule(mut self) -> Schedule {
        self.settle();
        self.partial
    }

    pub fn complete(&self) -> bool {
        self.complete
    }

    /// The next page to ask for, if any.
    pub fn next_page(&self) -> Option<usize> {
        self.missing_pages().next()
    }

    /// The pages not received yet, in order (none before the first page; only page 1
    /// while no answer told how many there are).
    pub fn missing_pages(&self) -> impl Iterator<Item = usize> + '_ {
        let total = match self.total {
            _ if self.complete => 0,
            Some(t) => t,
            None if self.received.is_empty() => 0,
            None => 2,
        };
        (0..total).filter(|p| !self.received.contains(p))
    }

    /// (pages received, pages in all), for a progress line.
    pub fn progress(&self) -> (usize, usize) {
        let total = self.total.unwrap_or(0);
        if self.complete {
            (total, total)
        } else {
            (self.received.len(), total)
        }
    }

    /// How many items show a cut text for now (the one-line notice).
    pub fn cut_items(&self) -> usize {
        self.cut
    }
}

/// An item of a collection sorted by id.
fn find<T>(items: &mut [T], id: u64, key: impl Fn(&T) -> u64) -> Option<&mut T> {
    let k = items.binary_search_by_key(&id, key).ok()?;
    items.get_mut(k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use palmaplan_model::paging::{PAGE_CHARS, paginate};
    use palmaplan_model::synth;
    use serde_json::json;

    fn pages_of(s: &Schedule, max: usize) -> Vec<Value> {
        paginate(s, None, max)
            .into_iter()
            .map(|t| {
                let mut v: Value = serde_json::from_str(&t).unwrap();
                v["rank"] = json!(7);
                v["schedule_id"] = json!(1);
                as_received(v)
            })
            .collect()
    }

    #[test]
    fn pages_in_any_order_rebuild_the_schedule_exactly() {
        let s = synth::generate(synth::Spec::new(3_000));
        let pages = pages_of(&s, 20_000);
        assert!(pages.len() > 3, "the test needs several pages");
        let mut a = Assembly::new(1, 7);
        a.add(pages[0].clone()).unwrap();
        assert!(!a.complete());
        assert!(
            !a.schedule().groups.is_empty(),
            "page 0 already draws something"
        );
        assert_eq!(a.next_page(), Some(1));
        let n = pages.len();
        assert!(a.missing_pages().eq(1..n));
        for (i, p) in pages.iter().enumerate().skip(1).rev() {
            a.add(p.clone()).unwrap();
            // What is left to ask for ahead: the pages not in yet, in order.
            assert!(a.missing_pages().eq((1..n).filter(|&q| q < i)));
            // Partial states stay sorted, so lookups by id work while loading.
            assert!(a.schedule().bars.windows(2).all(|w| w[0].id < w[1].id));
        }
        assert!(a.complete());
        assert_eq!(a.next_page(), None);
        assert_eq!(a.missing_pages().count(), 0);
        assert_eq!(a.schedule(), &s);
    }

    /// The fixture host of `trunk serve` answers with these pages: they must stay the
    /// model's pagination of the demo (`UPDATE_FIXTURES=1 cargo test` rewrites them).
    #[test]
    fn the_dev_fixture_is_the_demo_as_paged() {
        let s = palmaplan_model::demo::s4hana_migration();
        let pages: Vec<Value> = paginate(&s, None, PAGE_CHARS)
            .iter()
            .map(|t| serde_json::from_str(t).unwrap())
            .collect();
        let want = serde_json::to_string_pretty(&pages).unwrap() + "\n";
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/dev/demo-pages.json");
        if std::env::var_os("UPDATE_FIXTURES").is_some() {
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "{path} is stale: run UPDATE_FIXTURES=1 cargo test -p palmaplan-view"
        );
    }

    /// Reads the pages as the view does, each first given the shape `host` gives it
    /// (`as_received`), part by part; checks the result is the schedule read whole, and
    /// gives each page as received, for more checks.
    fn read_as_received(as_received: impl Fn(Value) -> Value) -> Vec<Value> {
        let s = palmaplan_model::demo::s4hana_migration();
        let pages = pages_of(&s, palmaplan_model::paging::MIN_PAGE_CHARS);
        let mut a = Assembly::new(1, 7);
        let mut received = Vec::new();
        for p in &pages {
            let mut p = as_received(p.clone());
            received.push(p.clone());
            let page = a.check(&p).unwrap().unwrap();
            for part in take_record_parts(&mut p).unwrap() {
                a.absorb(read_records(&part).unwrap());
            }
            a.finish(page).unwrap();
            // Again: already in, nothing to add.
            assert_eq!(a.check(&pages[page]).unwrap(), None);
        }
        assert!(a.complete());
        let mut whole = Assembly::new(1, 7);
        for p in &pages {
            whole.add(p.clone()).unwrap();
        }
        assert_eq!(a.into_schedule(), whole.into_schedule());
        received
    }

    #[test]
    fn a_page_read_part_by_part_gives_the_same_schedule() {
        // Cut the records into parts of three and set aside, as host does with a long
        // array.
        read_as_received(|mut p| {
            let text = p["records_json"].as_str().unwrap().to_owned();
            let records: Vec<Value> = serde_json::from_str(&text).unwrap();
            let parts = records
                .chunks(3)
                .map(|c| serde_json::to_string(c).unwrap())
                .collect();
            p.as_object_mut().unwrap().remove("records_json");
            p["records_ref"] = json!(stash_record_parts(parts));
            p
        });
    }

    #[test]
    fn records_set_aside_are_read_once_and_only_the_last_few_are_kept() {
        // As host does: the records' text set aside, the message carrying its number.
        let received = read_as_received(|mut p| {
            let text = p["records_json"].as_str().unwrap().to_owned();
            let n = stash_record_parts(vec![text]);
            p.as_object_mut().unwrap().remove("records_json");
            p["records_ref"] = json!(n);
            p
        });
        for mut p in received {
            assert!(
                take_record_parts(&mut p)
                    .unwrap_err()
                    .contains("already read")
            );
        }
        // Records nobody reads do not pile up: the oldest go.
        let first = stash_record_parts(vec!["[]".into()]);
        for _ in 0..STASH_KEPT {
            stash_record_parts(vec!["[]".into()]);
        }
        let mut old = json!({ "records_ref": first });
        assert!(take_record_parts(&mut old).is_err());
        STASH.with(|s| assert_eq!(s.borrow().1.len(), STASH_KEPT));
    }

    #[test]
    fn records_being_unpacked_are_read_once_unpacked_or_refused_with_why() {
        use std::cell::Cell;
        use std::rc::Rc;
        let ran = Rc::new(Cell::new(0));
        let n = stash_unpacking();
        let mut p = json!({ "records_ref": n });
        assert!(
            take_record_parts(&mut p)
                .unwrap_err()
                .contains("not unpacked yet")
        );
        let r = Rc::clone(&ran);
        when_ready(records_ref(&p), move || r.set(r.get() + 1));
        assert_eq!(ran.get(), 0, "ran before the records were unpacked");
        unpacked(n, Ok(vec!["[]".into(), "[]".into()]));
        assert_eq!(ran.get(), 1);
        // Unpacked twice: the first stands, and nobody is told again.
        unpacked(n, Err("late".into()));
        assert_eq!(ran.get(), 1);
        assert_eq!(take_record_parts(&mut p).unwrap(), vec!["[]", "[]"]);
        // Ready already, or not set aside at all: at once.
        let r = Rc::clone(&ran);
        when_ready(Some(stash_record_parts(Vec::new())), move || {
            r.set(r.get() + 1)
        });
        let r = Rc::clone(&ran);
        when_ready(None, move || r.set(r.get() + 1));
        assert_eq!(ran.get(), 3);

        // A failure reaches the reader as its reason.
        let n = stash_unpacking();
        unpacked(n, Err("records could not be unpacked: bad gzip".into()));
        let mut p = json!({ "records_ref": n });
        assert!(take_record_parts(&mut p).unwrap_err().contains("bad gzip"));

        // Dropped while unpacking (newer messages came): who waited is told, and the
        // records are then missing rather than waited for forever.
        let n = stash_unpacking();
        let r = Rc::clone(&ran);
        when_ready(Some(n), move || r.set(r.get() + 1));
        for _ in 0..STASH_KEPT {
            stash_record_parts(vec!["[]".into()]);
        }
        assert_eq!(ran.get(), 4);
        let mut p = json!({ "records_ref": n });
        assert!(take_record_parts(&mut p).unwrap_err().contains("dropped"));
    }

    /// Page 0 of packed pages may come before the server packed them, without a count:
    /// page 1 is then asked for, and its answer tells how many there are.
    #[test]
    fn a_page_0_without_a_count_leads_to_page_1() {
        let s = synth::generate(synth::Spec::new(3_000));
        let mut pages = pages_of(&s, 20_000);
        let n = pages.len();
        assert!(n > 3, "the test needs several pages");
        pages[0]["pages"] = Value::Null;
        let mut a = Assembly::new(1, 7);
        assert_eq!(a.next_page(), None);
        a.add(pages[0].clone()).unwrap();
        assert_eq!(a.progress(), (1, 0));
        assert!(a.missing_pages().eq([1]), "page 1 tells the count");
        a.add(pages[1].clone()).unwrap();
        assert!(a.missing_pages().eq(2..n));
        for p in &pages[2..] {
            a.add(p.clone()).unwrap();
        }
        assert!(a.complete());
        assert_eq!(a.schedule(), &s);
    }

    #[test]
    fn a_page_of_another_rank_is_refused() {
        let s = palmaplan_model::demo::s4hana_migration();
        let pages = pages_of(&s, PAGE_CHARS);
        let mut a = Assembly::new(1, 6);
        assert!(a.add(pages[0].clone()).unwrap_err().contains("rank 7"));
        let mut a = Assembly::new(1, 7);
        a.add(pages[0].clone()).unwrap();
        assert!(a.complete());
        assert_eq!(a.progress(), (1, 1));
    }

    #[test]
    fn a_cut_label_is_counted_until_the_last_page() {
        let mut s = palmaplan_model::demo::s4hana_migration();
        s.bars[0].label = "L".repeat(30_000);
        let pages = pages_of(&s, 8_000);
        let mut a = Assembly::new(1, 7);
        a.add(pages[0].clone()).unwrap();
        assert_eq!(a.cut_items(), 1);
        for p in &pages[1..] {
            a.add(p.clone()).unwrap();
        }
        assert_eq!(a.cut_items(), 0);
        assert_eq!(a.schedule().bars[0].label.len(), 30_000);
    }
}
