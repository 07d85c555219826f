//! The view-only tools: what the embedded view (an MCP App, or the `/embed` page) reads
//! to draw a schedule and keep up with it. They are listed only to clients that render
//! MCP Apps (`Visibility::App`), but answer anyone whose role allows it: visibility is
//! no permission boundary.
//!
//! - `get_schedule_page`: the whole schedule in pages (the model's `paging`), each
//!   answer under `RESPONSE_CHARS` as the client receives it. The first page holds the
//!   useful window (the model's `layout::useful_window`, or the window the view asks
//!   for). The page is the `structuredContent` (a `paging::TextPage`, its records as
//!   JSON texts, with the schedule's id, its rank and the window beside it); the text
//!   only says which page it is. With `packed` (the packed view page, which unpacks
//!   gzip in the browser), page 0 stays as it is and is answered at once, and the
//!   model's later pages come several to an answer, each gzip in base64
//!   (`packed_parts`): a 100,000-bar schedule in ~27 answers instead of 113, and
//!   about a quarter of the characters, which the host and the browser copy several
//!   times on the way.
//! - `get_changes_since`: the journal after a rank, for live updates; a poll with
//!   nothing new reads the rank only. With `records`, the answer also carries the
//!   current state of every item the entries touched (the model's `delta`), so the view
//!   brings its copy up to date in the size of the change instead of reading the
//!   schedule again; no delta (null) for a replaced schedule or one too large.
//!   The last page (which the paging leaves room for) and the delta also carry the
//!   schedule's `analysis` (critical bars, bars at risk, violated links) when it fits,
//!   so the view need not compute it.
//! - `get_schedule_absences`: the agenda's data, members' names and absence dates.
//!
//! None of them carries an e-mail or an absence reason, for anyone (owners included):
//! a view's answers pass through a host and show on a screen others may see
//! (`privacy::strip_all`). `palmaplan://schedule/{id}/json`, the MCP resource with the
//! same data, is read through [`Planning::schedule_json`] here, under the same rule.
//!
//! Pages are cached per schedule, state (rank and creation time) and requested window:
//! the view fetches page after page of the same state, and paging a 100,000-bar
//! schedule costs far more than looking up its rank.
//!
//! "Today", which places the default window, is the date in the schedule's time zone
//! (`zones::today_of`). The page cache is keyed by the UTC date, which is known before
//! the state is read: pages made earlier on that UTC day may place their window by
//! the zone's day before, which only orders the pages (a day's difference moves no
//! data).

use crate::planning::Code;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use palmaplan_model::command::Command;
use palmaplan_model::delta;
use palmaplan_model::layout::{self, useful_window};
use palmaplan_model::paging::{self, Priority};
use palmaplan_model::text::{count, plural};
use palmaplan_model::{Date, Lang, MemberId, RowId, Schedule, wire};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::args::date;
use super::journal::{Poll, fetch_changes, pack_changes, parse_commands};
use super::privacy::{strip_all, strip_command, strip_record};
use super::{Access, Caller, Ctx, Planning, Refusal, Reply, ScheduleRef, ToolSpec, tool};
use crate::storage::{JournalEntry, Role};

/// The most characters one view-only answer may take as the client receives it (the
/// JSON-RPC message with the text and the structuredContent): Claude caps a tool
/// result near 150,000.
pub(super) const RESPONSE_CHARS: usize = 120_000;

/// Room kept in an answer for what surrounds a page: the JSON-RPC envelope, the text,
/// the schedule's id, rank and window (at most `WINDOW_MAX_ROWS` row ids): under 6,000
/// characters.
const ENVELOPE_CHARS: usize = 10_000;

/// The bound of one page's JSON (the model's `paging::PAGE_CHARS`).
const PAGE_CHARS: usize = RESPONSE_CHARS - ENVELOPE_CHARS;
/// Page 0 is smaller: about the first screen of the window (some twenty rows of ten
/// bars), which the view draws as soon as it has read it; a full page took the view
/// ~30 ms more to read before anything showed. Counted as the records' text is sent
/// (`paging::Measure::Text`, about a fifth more than their JSON).
const FIRST_PAGE_CHARS: usize = 38_000;

/// Bytes of records after which a part of a page's text is closed (records are never
/// split): the view reads a part per task, a few milliseconds each, so that reading a
/// page never holds the browser for long.
const PART_BYTES: usize = 16_000;

/// The most rows the first window holds (the inline view shows about fifteen; the rest
/// is scrolled to before the next page arrives).
const WINDOW_ROWS: usize = 40;

/// The most rows a requested window may name.
const WINDOW_MAX_ROWS: usize = 200;

/// How many page sets the cache keeps (one per schedule state and window).
const CACHED_SETS: usize = 4;

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "get_view_code",
            "View-only. One part of the view's JavaScript translation, for hosts whose CSP refuses WebAssembly: the page names its build and how many parts; the answer's structuredContent is {build, part, parts, data} (gzip in base64).",
            Access::Read,
            get_view_code,
        )
        .on_no_schedule()
        .view_only()
        .returns::<ViewCode>(),
        tool(
            "get_schedule_page",
            "View-only. One page of a whole schedule for the embedded view: structuredContent is the page ({page, pages, record_parts}: the records as JSON texts, each part an array, see the model's paging) with the schedule's id, rank and first window; each answer stays under 120,000 characters. Page 0 holds the useful window (or the one given). With packed: true (a reader that unpacks gzip), pages after 0 come several to an answer in packed_parts (each page's record parts, one per line, gzip in base64), and page 0 may come before the count (pages null: page 1's answer tells). E-mails and absence reasons are never included.",
            Access::Read,
            get_schedule_page,
        )
        .used_by_view()
        .view_only()
        .returns::<PageAnswer<'static>>(),
        tool(
            "get_changes_since",
            "View-only. The journal entries after a rank, oldest first, with their commands, author and time, for the view's live updates. Answers at once when nothing changed. Capped: when \"more\" is true, call again with rank = next_since. With records: true, \"delta\" holds the current state of every item those entries touched ({records, removed, next_id, rank}: page records, ids gone, the state's rank), or null when the view must read the pages again. E-mails and absence reasons are removed.",
            Access::Read,
            get_changes_since,
        )
        .used_by_view()
        .view_only()
        .returns::<wire::ChangesSince>(),
        tool(
            "get_schedule_absences",
            "View-only. The members' absences between two days (at most 366 days), for the agenda: each member's name and the absence dates, never the reason nor the e-mail.",
            Access::Read,
            get_schedule_absences,
        )
        .used_by_view()
        .view_only()
        .returns::<wire::AgendaAbsences>(),
    ]
}

// ---- The page cache

/// What identifies a set of pages: the schedule's state and the window asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
struct PageKey {
    schedule: i64,
    /// A saved version's pages, or None for the schedule as it is now.
    version: Option<i64>,
    rank: i64,
    created_at: i64,
    /// The window given by the view, or None for the useful window of `today`.
    window: Option<Priority>,
    today: Date,
}

/// A schedule's pages at one state, with the window page 0 leads with.
#[derive(Debug)]
struct PageSet {
    pages: Vec<String>,
    window: Priority,
    /// The analysis the last page also carries (see `analysis_of`).
    analysis: Option<Value>,
    /// The same pages as a view that unpacks reads them (`packed`), made the first time
    /// one asks.
    packed: std::sync::OnceLock<Packed>,
}

/// A page set for a view that unpacks (`get_schedule_page` with `packed`): page 0 as it
/// is (the first window is drawn from it at once), then the model's pages several to an
/// answer, each page's record parts compressed (gzip, base64): the records of a
/// 100,000-bar schedule take some 27 answers instead of 113, and about a quarter of the
/// characters, which the host and the browser copy several times on the way.
#[derive(Debug)]
struct Packed {
    answers: Vec<PackedAnswer>,
}

/// One answer of a packed page set: the model's pages `first..end`.
#[derive(Debug)]
struct PackedAnswer {
    first: usize,
    end: usize,
    /// Each page's parts, one per line, gzip in base64; None for one page sent as it
    /// is (page 0, or a page that compression would not shorten).
    packed: Option<Vec<String>>,
    /// Whether one of its records is a part of a text cut by the paging.
    cut: bool,
}

/// At most this many characters of analysis (critical bars, bars at risk, violated
/// links) with a delta or the last page, which the paging leaves room for. Without it,
/// the view computes the analysis itself. In its wire form (`idset`) the ids of every
/// bar of a 100,000-bar schedule take ~17,000 characters.
const ANALYSIS_BUDGET: usize = 60_000;

/// The analysis a view draws (the model's `risk::highlights`), computed here natively
/// (~50 ms at 100,000 bars with two links each) because the view, which runs the model
/// translated to JavaScript, took ~140 ms in one task for the critical path alone, on
/// every live update. With the length of its text; None when that is over `budget`.
fn analysis_of(s: &Schedule, budget: usize) -> Option<(Value, usize)> {
    let v = palmaplan_model::risk::highlights(s).to_wire(s);
    let len = v.to_string().len();
    (len <= budget).then_some((v, len))
}

/// The latest page sets, newest last.
#[derive(Debug, Default)]
pub(crate) struct PageCache {
    sets: Mutex<VecDeque<(PageKey, Arc<PageSet>)>>,
    /// One lock per schedule whose pages are being made or waited for, held while they
    /// are made: a view's first request that comes while `prepare_pages` makes them (or
    /// three pages asked for at once after a write) waits for those pages rather than
    /// making them again. The last one out removes the entry (`Making`).
    making: Mutex<std::collections::HashMap<i64, Arc<tokio::sync::Mutex<()>>>>,
}

/// A hold on a schedule's making lock (`PageCache::making`); its drop removes the
/// lock from the map once nobody else holds it, so the map only has the schedules
/// being paged.
struct Making<'a> {
    cache: &'a PageCache,
    schedule: i64,
    lock: Arc<tokio::sync::Mutex<()>>,
}

impl Drop for Making<'_> {
    fn drop(&mut self) {
        let mut m = self
            .cache
            .making
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Only the map's and this one: no one else waits on it, nor can start to
        // (taking a hold goes through this map's mutex, held here).
        if Arc::strong_count(&self.lock) == 2 {
            m.remove(&self.schedule);
        }
    }
}

impl PageCache {
    fn making(&self, schedule: i64) -> Making<'_> {
        let mut m = self
            .making
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Making {
            cache: self,
            schedule,
            lock: Arc::clone(m.entry(schedule).or_default()),
        }
    }

    fn get(&self, key: &PageKey) -> Option<Arc<PageSet>> {
        let sets = self.sets.lock().ok()?;
        sets.iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| Arc::clone(v))
    }

    fn put(&self, key: PageKey, set: Arc<PageSet>) {
        if let Ok(mut sets) = self.sets.lock() {
            // A newer state of a schedule makes its older pages useless.
            sets.retain(|(k, _)| {
                k.schedule != key.schedule || k.version != key.version || k.rank >= key.rank
            });
            sets.retain(|(k, _)| *k != key);
            sets.push_back((key, set));
            while sets.len() > CACHED_SETS {
                sets.pop_front();
            }
        }
    }
}

/// When each (user, schedule) last had a view shown, in ms. One entry per pair that
/// ever had one: small, and lost on restart (views then simply stay up).
#[derive(Debug, Default)]
pub(crate) struct LatestViews {
    at: Mutex<std::collections::HashMap<(i64, i64), i64>>,
}

impl LatestViews {
    pub(super) fn shown(&self, user: i64, schedule: i64, at_ms: i64) {
        if let Ok(mut m) = self.at.lock() {
            let e = m.entry((user, schedule)).or_insert(at_ms);
            *e = (*e).max(at_ms);
        }
    }

    fn latest(&self, user: i64, schedule: i64) -> Option<i64> {
        self.at.lock().ok()?.get(&(user, schedule)).copied()
    }
}

impl Ctx {
    /// Notes that this caller was just shown a view of `schedule`.
    pub(super) fn view_shown(&self, schedule: i64, at_ms: i64) {
        self.inner
            .latest_views
            .shown(self.caller.user_id, schedule, at_ms);
    }

    /// When this caller was last shown a view of `schedule` (ISO, to the ms).
    fn latest_view(&self, schedule: i64) -> Option<String> {
        self.inner
            .latest_views
            .latest(self.caller.user_id, schedule)
            .map(super::journal::iso_utc_ms)
    }
}

/// The server's UTC date: the page cache's key (see the module header).
fn utc_today(ctx: &Ctx) -> Date {
    Date::from_days(i32::try_from(ctx.now_ms().div_euclid(86_400_000)).unwrap_or(0))
}

// ---- get_schedule_page

/// A window of the schedule to put first.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WindowArg {
    /// YYYY-MM-DD.
    from: String,
    /// YYYY-MM-DD, inclusive.
    to: String,
    /// The rows shown (ids); by default (or empty) the rows with something between the
    /// two days.
    #[serde(default)]
    rows: Option<Vec<u64>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GetPage {
    schedule: ScheduleRef,
    /// The page number, from 0 (the answer says how many pages there are).
    page: usize,
    /// What to put on the first pages (default: the useful window around today).
    #[serde(default)]
    window: Option<WindowArg>,
    /// A saved version's id (see list_versions): its pages instead of the schedule as
    /// it is now (the view draws it as the baseline or one side of a comparison).
    #[serde(default)]
    version: Option<i64>,
    /// Pages for a reader that unpacks gzip: after page 0, several of the model's pages
    /// to an answer, in `packed_parts` (fewer, shorter answers; the numbering and the
    /// count are then those of the packed pages).
    #[serde(default)]
    packed: bool,
}

/// The rows with a bar or a milestone between two days, in display order, capped.
fn rows_between(s: &Schedule, from: Date, to: Date, cap: usize) -> Vec<RowId> {
    let mut occupied: Vec<RowId> = s
        .bars
        .iter()
        .filter(|b| b.start <= to && b.end >= from)
        .map(|b| b.row)
        .chain(
            s.milestones
                .iter()
                .filter(|m| m.date >= from && m.date <= to)
                .map(|m| m.row),
        )
        .collect();
    occupied.sort_unstable();
    occupied.dedup();
    s.rows
        .iter()
        .map(|r| r.id)
        .filter(|id| occupied.binary_search(id).is_ok())
        .take(cap)
        .collect()
}

/// The window asked for, checked (rows are resolved once the state is loaded).
fn requested_window(ctx: &Ctx, w: &WindowArg) -> Result<Priority, Refusal> {
    let from = date(ctx, "window.from", &w.from)?;
    let to = date(ctx, "window.to", &w.to)?;
    if to < from {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                format!("«\u{a0}window\u{a0}»\u{a0}: le dernier jour ({to}) précède le premier ({from})\u{202f}; inversez-les."),
                format!("“window”: the last day ({to}) comes before the first ({from}); swap them."),
            ),
        ));
    }
    let rows = w.rows.clone().unwrap_or_default();
    if rows.len() > WINDOW_MAX_ROWS {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                format!(
                    "«\u{a0}window.rows\u{a0}» nomme {} lignes\u{202f}; {WINDOW_MAX_ROWS} au plus.",
                    rows.len()
                ),
                format!(
                    "“window.rows” names {} rows; {WINDOW_MAX_ROWS} at most.",
                    rows.len()
                ),
            ),
        ));
    }
    Ok(Priority {
        rows: rows.into_iter().map(RowId).collect(),
        from,
        to,
    })
}

/// The pages of a schedule's current state, or of one of its saved versions, from the
/// cache or made now.
async fn page_set(
    ctx: &Ctx,
    id: i64,
    version: Option<i64>,
    window: Option<Priority>,
    rows_given: bool,
) -> Result<(i64, Arc<PageSet>), Refusal> {
    let (rank, created_at) = ctx.store().stamp(id).await.map_err(|e| ctx.db_error(e))?;
    let today = utc_today(ctx);
    let key = PageKey {
        schedule: id,
        version,
        rank,
        created_at,
        window: window.clone(),
        today,
    };
    if version.is_none()
        && let Some(set) = ctx.inner.pages.get(&key)
    {
        return Ok((rank, set));
    }
    // The schedule as it is now is made once at a time (a saved version's pages, read
    // from the store with their own cache check below, do not wait behind it).
    // Declared before its guard, so dropped after it.
    let making = version.is_none().then(|| ctx.inner.pages.making(id));
    let mut waited = false;
    let _making = match &making {
        Some(m) => Some(match m.lock.try_lock() {
            Ok(held) => held,
            Err(_) => {
                waited = true;
                m.lock.lock().await
            }
        }),
        None => None,
    };
    // Made while this waited (by `prepare_pages`, or a request beside this one), maybe
    // for a state written meanwhile, which the maker read: looked for at the rank now.
    let key = if waited {
        let (rank, created_at) = ctx.store().stamp(id).await.map_err(|e| ctx.db_error(e))?;
        PageKey {
            rank,
            created_at,
            ..key
        }
    } else {
        key
    };
    if version.is_none()
        && let Some(set) = ctx.inner.pages.get(&key)
    {
        return Ok((key.rank, set));
    }
    let (state, read_rank) = match version {
        None => {
            let (rank, shared) = ctx
                .store()
                .load_shared(id)
                .await
                .map_err(|e| ctx.db_error(e))?;
            (shared, rank)
        }
        Some(vid) => {
            let found = ctx
                .store()
                .version_state(id, vid)
                .await
                .map_err(|e| ctx.db_error(e))?;
            let Some((info, state)) = found else {
                return Err(Refusal::new(
                    Code::VersionNotFound,
                    ctx.tr(
                        format!("Le planning {id} n'a pas de version {vid}. Appelez list_versions pour voir leurs ids."),
                        format!("Schedule {id} has no version {vid}. Call list_versions to see their ids."),
                    ),
                ));
            };
            let rank = info.rank;
            let key = PageKey {
                rank,
                ..key.clone()
            };
            if let Some(set) = ctx.inner.pages.get(&key) {
                return Ok((rank, set));
            }
            (Arc::new(state), rank)
        }
    };
    // The useful window is the one around the schedule's own today (its time zone).
    let local_today = super::zones::today_of(ctx, &state);
    // CPU work of ~40 ms at 100,000 bars: off the async workers, which meanwhile run
    // the show_schedule call this may have been started beside.
    let set = tokio::task::spawn_blocking(move || make_pages(state, local_today, window, rows_given))
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "making pages failed");
            Refusal::new(
                Code::Internal,
                ctx.tr(
                    "Le serveur n'a pas pu préparer les pages de ce planning. Réessayez dans un instant.",
                    "The server could not prepare this schedule's pages. Try again in a moment.",
                ),
            )
        })?;
    let set = Arc::new(set);
    // A write may have landed between the stamp and the load: key on what was read.
    let key = PageKey {
        rank: read_rank,
        ..key
    };
    ctx.inner.pages.put(key, Arc::clone(&set));
    Ok((read_rank, set))
}

/// Makes the pages of `state` (as stored: what the view may not see is removed here)
/// around `window` (or the useful one at `today`), with the analysis on a thread of
/// its own beside the paging: each takes tens of milliseconds at 100,000 bars.
fn make_pages(
    state: Arc<Schedule>,
    today: Date,
    window: Option<Priority>,
    rows_given: bool,
) -> PageSet {
    // The kept state is shared; it is copied only when it holds an e-mail or a reason.
    let private = state.members.iter().any(|m| m.email.is_some())
        || state.absences.iter().any(|a| !a.reason.is_empty());
    let state = if private {
        let mut copy = Schedule::clone(&state);
        strip_all(&mut copy);
        Arc::new(copy)
    } else {
        state
    };
    let priority = match window {
        None => {
            let w = useful_window(&state, today, WINDOW_ROWS);
            Priority {
                rows: w.rows,
                from: w.from,
                to: w.to,
            }
        }
        Some(mut p) => {
            if !rows_given {
                p.rows = rows_between(&state, p.from, p.to, WINDOW_ROWS);
            }
            p
        }
    };
    // The analysis rides on the last page, which the paging leaves room for: it is
    // made meanwhile, and waited for once every record is packed.
    let (pages, analysis) = std::thread::scope(|scope| {
        let made = scope.spawn(|| analysis_of(&state, ANALYSIS_BUDGET));
        let mut analysis = None;
        let pages = paging::paginate_leaving_room_with(
            &state,
            Some(&priority),
            FIRST_PAGE_CHARS,
            PAGE_CHARS,
            // The records travel as texts (see `get_schedule_page`).
            paging::Measure::Text,
            || {
                analysis = made
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                analysis.as_ref().map_or(0, |(_, len)| *len)
            },
        );
        (pages, analysis)
    });
    let len = analysis.as_ref().map_or(0, |(_, len)| *len);
    // The room is short only when the last record is a part of a text cut by paging
    // that nearly fills a page; the view then computes the analysis.
    let last = pages.len() - 1;
    // In UTF-16 units of the text sent, as the paging and the client count (an accent is
    // two bytes, a quote is written `\"`).
    let fits = len + paging::Measure::Text.of(&pages[last]) <= PAGE_CHARS;
    let analysis = analysis.filter(|_| fits).map(|(a, _)| a);
    PageSet {
        analysis,
        pages,
        window: priority,
        packed: std::sync::OnceLock::new(),
    }
}

/// Whether a page's records hold a part of a text cut by the paging.
fn has_cut(records: &[&serde_json::value::RawValue]) -> bool {
    records.iter().any(|r| r.get().starts_with("{\"cut\""))
}

/// A page's record parts, one per line (a JSON text holds no raw line break), gzip in
/// base64; with whether one is cut. None when compression would not make the page
/// shorter than its text.
fn pack_page(page: &str) -> Result<(Option<String>, bool), serde_json::Error> {
    use base64::Engine as _;
    use std::io::Write as _;
    let text: PageText = serde_json::from_str(page)?;
    let lines = record_parts(&text.records).join("\n");
    // Level 3: the records of a 100,000-bar schedule of the model's `synth` (16 MB)
    // take 3.4 MB, in ~180 ms of one core. Level 1 (zlib-rs's quick strategy) took 5.1
    // MB in ~140 ms: 43 answers instead of 27 for the render bench's schedule. Levels
    // 4 to 9 save under 9% more for 1.3 to 10 times the time, which page 1's answer
    // waits for.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(3));
    let packed = gz
        .write_all(lines.as_bytes())
        .and_then(|()| gz.finish())
        .map(|bytes| base64::engine::general_purpose::STANDARD.encode(bytes))
        .ok()
        // With its quotes and comma in the answer, it must leave the page's bound.
        .filter(|b64| b64.len() + 3 < paging::Measure::Text.of(page));
    Ok((packed, has_cut(&text.records)))
}

/// The answers of `set` for a view that unpacks: page 0 alone and as it is, then as
/// many compressed pages to an answer as stay under `PAGE_CHARS`, the last one leaving
/// room for the analysis. Compressed on every core (the making waits for it only once
/// per set).
fn pack_set(set: &PageSet) -> Result<Packed, serde_json::Error> {
    let n = set.pages.len();
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(n.max(1));
    let mut packed: Vec<(Option<String>, bool)> = Vec::with_capacity(n);
    std::thread::scope(|scope| {
        let chunk = n.saturating_sub(1).div_ceil(workers).max(1);
        let handles: Vec<_> = set
            .pages
            .get(1..)
            .unwrap_or_default()
            .chunks(chunk)
            .map(|pages| {
                scope.spawn(move || pages.iter().map(|p| pack_page(p)).collect::<Vec<_>>())
            })
            .collect();
        let first: PageText = serde_json::from_str(&set.pages[0])?;
        packed.push((None, has_cut(&first.records)));
        for h in handles {
            let made = h
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            for p in made {
                packed.push(p?);
            }
        }
        Ok::<(), serde_json::Error>(())
    })?;
    let analysis = set
        .analysis
        .as_ref()
        .map_or(0, |a| a.to_string().len() + r#","analysis":"#.len());
    let mut answers: Vec<PackedAnswer> = Vec::new();
    // The answer being filled, with its characters.
    let mut open: Option<(PackedAnswer, usize)> = None;
    for (i, (text, cut)) in packed.into_iter().enumerate() {
        let room = if i + 1 == n {
            PAGE_CHARS - analysis
        } else {
            PAGE_CHARS
        };
        // Plain when compressed it would not fit even alone (the last page, whose
        // text leaves room for the analysis, then goes as it is).
        let text = text.filter(|t| t.len() + 3 <= room);
        let Some(text) = text else {
            answers.extend(open.take().map(|(a, _)| a));
            answers.push(PackedAnswer {
                first: i,
                end: i + 1,
                packed: None,
                cut,
            });
            continue;
        };
        let cost = text.len() + 3;
        if let Some((a, used)) = open.as_mut()
            && *used + cost <= room
        {
            a.end = i + 1;
            a.cut |= cut;
            *used += cost;
            a.packed.get_or_insert_default().push(text);
            continue;
        }
        answers.extend(open.take().map(|(a, _)| a));
        open = Some((
            PackedAnswer {
                first: i,
                end: i + 1,
                packed: Some(vec![text]),
                cut,
            },
            cost,
        ));
    }
    answers.extend(open.map(|(a, _)| a));
    Ok(Packed { answers })
}

/// Makes, in the background, the pages a view just shown will ask for first: the
/// schedule as it is now, around the window its options name (or the useful one).
/// `show_schedule` starts it as soon as it has opened the schedule: at 100,000 bars
/// making them takes ~40 ms (`e2e/bench/pages.mjs`), which then passes beside the
/// tool's own run, not between the view's first request and the first window.
pub(super) fn prepare_pages(ctx: &Ctx, id: i64, from: Option<Date>, to: Option<Date>) {
    let window = match (from, to) {
        (Some(from), Some(to)) => Some(Priority {
            rows: Vec::new(),
            from,
            to,
        }),
        _ => None,
    };
    let ctx = ctx.clone();
    tokio::spawn(async move {
        // A failure is the view's own request's to report. Packed too: the packed
        // page's view asks for them so.
        if let Ok((_, set)) = page_set(&ctx, id, None, window, false).await {
            let _ = packed_of(&ctx, &set).await;
        }
    });
}

/// The first window a page set is built around.
#[derive(Debug, Serialize, JsonSchema)]
struct PageWindow {
    from: Date,
    to: Date,
    rows: Vec<RowId>,
}

/// `get_schedule_page`'s result: the model's page (`paging::TextPage`) with the
/// schedule's id, rank and first window.
#[derive(Debug, Serialize, JsonSchema)]
struct PageAnswer<'a> {
    schedule_id: i64,
    #[serde(flatten)]
    head: wire::PageHead,
    /// The saved version paged, null for the current state.
    version: Option<i64>,
    window: PageWindow,
    /// The page's records (groups, rows, bars, milestones, links, … and the parts of
    /// texts cut by the paging, see the model's paging) as JSON texts, in order: each
    /// part is the text of an array of records. Texts, not objects: a browser carries
    /// a string from frame to frame for a fraction of what a tree of objects costs.
    record_parts: Vec<String>,
    /// When asked for `packed` (and `record_parts` is then empty): the model's pages of
    /// this answer, in order, each the gzip (in base64) of its record parts, one per
    /// line.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    packed_parts: Vec<String>,
    /// On the last page, when it fits: the critical bars and the risks.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Map<String, Value>>")]
    analysis: Option<&'a Value>,
}

/// A page as the paging wrote it, its records left as their texts.
#[derive(Deserialize)]
struct PageText<'a> {
    #[serde(borrow)]
    records: Vec<&'a serde_json::value::RawValue>,
}

/// The records' texts of a page, joined into arrays of whole records of about
/// `PART_BYTES` bytes.
fn record_parts(records: &[&serde_json::value::RawValue]) -> Vec<String> {
    let mut parts = Vec::new();
    let mut part = String::new();
    for r in records {
        part.push(if part.is_empty() { '[' } else { ',' });
        part.push_str(r.get());
        if part.len() >= PART_BYTES {
            part.push(']');
            parts.push(std::mem::take(&mut part));
        }
    }
    if !part.is_empty() || parts.is_empty() {
        part.push_str(if part.is_empty() { "[]" } else { "]" });
        parts.push(part);
    }
    parts
}

async fn get_schedule_page(ctx: Ctx, p: GetPage) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let window = p
        .window
        .as_ref()
        .map(|w| requested_window(&ctx, w))
        .transpose()?;
    let rows_given = p
        .window
        .as_ref()
        .is_some_and(|w| w.rows.as_ref().is_some_and(|r| !r.is_empty()));
    let (rank, set) = page_set(&ctx, id, p.version, window, rows_given).await?;
    // Page 0 is the model's page 0 whether packed or not: answered at once, before the
    // other pages are packed (in the background meanwhile), with their count left to
    // page 1's answer (the first window does not wait ~100-200 ms of compression).
    let early = p.packed && p.page == 0 && set.pages.len() > 1 && set.packed.get().is_none();
    let packed = if early {
        let (c, s) = (ctx.clone(), Arc::clone(&set));
        tokio::spawn(async move {
            // A failure is page 1's request's to report.
            let _ = packed_of(&c, &s).await;
        });
        None
    } else if p.packed {
        Some(packed_of(&ctx, &set).await?)
    } else {
        None
    };
    let n = packed.as_ref().map_or(set.pages.len(), |k| k.answers.len());
    // The model's page sent as it is, or the compressed pages of this answer.
    let (text, packed) = match &packed {
        None if early => (set.pages.first(), None),
        None => (set.pages.get(p.page), None),
        Some(k) => match k.answers.get(p.page) {
            Some(a) => match &a.packed {
                None => (set.pages.get(a.first), None),
                Some(parts) => (None, Some((parts, a.cut))),
            },
            None => (None, None),
        },
    };
    let (record_parts, packed_parts, cut) = match (text, packed) {
        (Some(text), _) => {
            let page: PageText = serde_json::from_str(text)
                .map_err(|e| page_failed(&ctx, "a page is not JSON", e))?;
            (
                record_parts(&page.records),
                Vec::new(),
                has_cut(&page.records),
            )
        }
        (None, Some((parts, cut))) => (Vec::new(), parts.clone(), cut),
        (None, None) => {
            return Err(Refusal::new(
                Code::PageNotFound,
                ctx.tr(
                    format!("Le planning {id} n'a pas de page {}\u{a0}: il en a {n}, {} de 0 à {} (rang {rank}).", p.page, plural(Lang::Fr, n, "numérotée", "numérotées"), n - 1),
                    format!("Schedule {id} has no page {}: it has {n}, numbered 0 to {} (rank {rank}).", p.page, n - 1),
                ),
            )
            .with(json!({ "pages": n, "rank": rank })));
        }
    };
    let w = &set.window;
    let answer = PageAnswer {
        schedule_id: id,
        head: wire::PageHead {
            rank,
            page: p.page,
            pages: (!early).then_some(n),
        },
        version: p.version,
        window: PageWindow {
            from: w.from,
            to: w.to,
            rows: w.rows.clone(),
        },
        record_parts,
        packed_parts,
        analysis: set.analysis.as_ref().filter(|_| !early && p.page == n - 1),
    };
    let mut text = if early {
        ctx.tr(
            format!("Page 0 du planning {id} au rang {rank}\u{a0}: les données sont dans structuredContent\u{a0}; la réponse de la page 1 dit combien il y en a."),
            format!("Page 0 of schedule {id} at rank {rank}: the data is in structuredContent; page 1's answer tells how many pages there are."),
        )
    } else {
        ctx.tr(
        format!(
            "Page {} du planning {id} au rang {rank} ({}, {} de 0 à {})\u{a0}: les données sont dans structuredContent.",
            p.page,
            count(Lang::Fr, n, "page", "pages"),
            plural(Lang::Fr, n, "numérotée", "numérotées"),
            n - 1
        ),
        format!(
            "Page {} of schedule {id} at rank {rank} ({}, numbered 0 to {}): the data is in structuredContent.",
            p.page,
            count(Lang::En, n, "page", "pages"),
            n - 1
        ),
    )
    };
    if p.page == 0 {
        text.push_str(&ctx.tr(
            format!(
                " Elle commence par la fenêtre du {} au {} ({}).",
                w.from,
                w.to,
                count(Lang::Fr, w.rows.len(), "ligne", "lignes")
            ),
            format!(
                " It starts with the window from {} to {} ({}).",
                w.from,
                w.to,
                count(Lang::En, w.rows.len(), "row", "rows")
            ),
        ));
    }
    if cut {
        text.push_str(&ctx.tr(
            " Un texte trop long y est coupé\u{202f}; sa suite est dans les dernières pages.",
            " A text too long is cut here; the rest of it is in the last pages.",
        ));
    }
    let structured = serde_json::to_value(&answer)
        .map_err(|e| page_failed(&ctx, "a page answer did not serialise", e))?;
    Ok(Reply::ok(text, structured))
}

/// The packed answers of `set`, made the first time a view asks (off the async
/// workers: ~50 ms of compression at 100,000 bars, on every core).
async fn packed_of<'s>(ctx: &Ctx, set: &'s Arc<PageSet>) -> Result<&'s Packed, Refusal> {
    if let Some(k) = set.packed.get() {
        return Ok(k);
    }
    let making = Arc::clone(set);
    let made = tokio::task::spawn_blocking(move || {
        // Several requests at once: the first packs, the others wait for it.
        let mut failed = None;
        making.packed.get_or_init(|| {
            pack_set(&making).unwrap_or_else(|e| {
                failed = Some(e);
                Packed {
                    answers: Vec::new(),
                }
            })
        });
        failed
    })
    .await;
    match made {
        Ok(None) => {}
        Ok(Some(e)) => return Err(page_failed(ctx, "a page could not be packed", e)),
        Err(e) => return Err(page_failed(ctx, "packing pages failed", e)),
    }
    // Empty only when packing failed, which was logged then.
    match set.packed.get() {
        Some(k) if !k.answers.is_empty() => Ok(k),
        _ => Err(page_failed(
            ctx,
            "pages left unpacked",
            "packing failed before",
        )),
    }
}

/// A page the server cannot give (a bug, logged): the caller is told to try again.
fn page_failed(ctx: &Ctx, what: &str, e: impl std::fmt::Display) -> Refusal {
    tracing::error!(error = %e, "{what}");
    Refusal::new(
        Code::Internal,
        ctx.tr(
            "Le serveur n'a pas pu préparer cette page. Réessayez dans un instant.",
            "The server could not prepare this page. Try again in a moment.",
        ),
    )
}

// ---- get_changes_since

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ChangesSince {
    schedule: ScheduleRef,
    /// The rank the view already has: entries after it are returned.
    rank: i64,
    /// At most this many entries (100 by default, at most 500).
    #[serde(default)]
    limit: Option<u32>,
    /// Also the current state of the items the entries touched ("delta").
    #[serde(default)]
    records: bool,
}

const CHANGES_DEFAULT: u32 = 100;
/// With `records`, the entries get this much of the answer and the delta the rest.
const CHANGES_BUDGET_WITH_RECORDS: usize = 30_000;
const DELTA_BUDGET: usize = 80_000;
const CHANGES_MAX: u32 = 500;
/// Characters of entries one answer carries before it stops with "more": with the
/// text and the envelope, the answer stays under `RESPONSE_CHARS`.
const CHANGES_BUDGET: usize = 100_000;
/// How many authors the text names.
const NAMED_AUTHORS: usize = 10;

async fn get_changes_since(ctx: Ctx, p: ChangesSince) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let limit = p.limit.unwrap_or(CHANGES_DEFAULT).clamp(1, CHANGES_MAX);
    let mut f = match fetch_changes(&ctx, id, p.rank, limit).await? {
        Poll::Changed(f) => f,
        Poll::Idle { rank } => {
            let mut text = ctx.tr(
                format!(
                    "Aucune modification du planning {id} depuis le rang {} (rang actuel {rank}).",
                    p.rank
                ),
                format!(
                    "No change of schedule {id} since rank {} (current rank {rank}).",
                    p.rank
                ),
            );
            if rank < p.rank {
                text.push_str(&ctx.tr(
                    format!(
                        " Le rang {} n'existe pas\u{a0}: relisez le planning.",
                        p.rank
                    ),
                    format!(" Rank {} does not exist: read the schedule again.", p.rank),
                ));
            }
            return Ok(Reply::ok(
                text,
                json!(wire::ChangesSince {
                    schedule_id: id,
                    rank,
                    entries: Vec::new(),
                    more: false,
                    next_since: rank,
                    latest_view: ctx.latest_view(id),
                    delta: None,
                }),
            ));
        }
    };
    // The view never sees an e-mail or a reason, whoever looks.
    for cmds in &mut f.commands {
        for c in cmds.iter_mut() {
            strip_command(c);
        }
    }
    let budget = if p.records {
        CHANGES_BUDGET_WITH_RECORDS
    } else {
        CHANGES_BUDGET
    };
    let packed = pack_changes(&f, budget);
    let (rank, since, next, more, list) = (f.rank, f.since, packed.next, packed.more, packed.items);
    let delta = if p.records {
        let carried = f.entries.iter().take_while(|e| e.rank <= next).count();
        delta_of(&ctx, id, &f.entries[..carried], &f.commands[..carried]).await?
    } else {
        Value::Null
    };
    let too_large = !packed.too_large.is_empty();
    let mut who: Vec<&str> = Vec::new();
    for item in &list {
        if let Some(name) = item["author_name"].as_str()
            && !who.contains(&name)
        {
            who.push(name);
        }
    }
    let extra = who.len().saturating_sub(NAMED_AUTHORS);
    who.truncate(NAMED_AUTHORS);
    let mut by = who.join(", ");
    if extra > 0 {
        by.push_str(&ctx.tr(
            format!(" et {}", count(Lang::Fr, extra, "autre", "autres")),
            format!(" and {extra} more"),
        ));
    }
    let mut text = ctx.tr(
        format!(
            "{} du planning {id} après le rang {since}, jusqu'au rang {next} (rang actuel {rank}), par {by}.",
            count(Lang::Fr, list.len(), "modification", "modifications")
        ),
        format!(
            "{} of schedule {id} after rank {since}, up to rank {next} (current rank {rank}), by {by}.",
            count(Lang::En, list.len(), "change", "changes")
        ),
    );
    if too_large {
        text.push_str(&ctx.tr(
            " Une modification est trop volumineuse pour cette réponse\u{a0}: relisez le planning avec get_schedule_page.",
            " One change is too large for this answer: read the schedule again with get_schedule_page.",
        ));
    }
    if more {
        text.push_str(&ctx.tr(
            format!(" Il y en a d'autres\u{a0}: rappelez get_changes_since avec rank = {next}."),
            format!(" There are more: call get_changes_since again with rank = {next}."),
        ));
    }
    let sc = wire::ChangesSince {
        schedule_id: id,
        rank,
        // Each entry an object (a `journal::ChangeEntry`, packed to size).
        entries: list
            .into_iter()
            .filter_map(|e| match e {
                Value::Object(m) => Some(m),
                _ => None,
            })
            .collect(),
        more,
        next_since: next,
        latest_view: ctx.latest_view(id),
        delta: p.records.then_some(delta),
    };
    Ok(Reply::ok(text, json!(sc)))
}

/// The current state of the items some entries touched (the model's `delta`), stripped
/// of e-mails and reasons, with the rank of the state it was read from; null when an
/// entry replaced the whole schedule or the delta would not fit in the answer (the view
/// then reads the pages again). Read from the state after the entries, possibly later
/// ones too: the view asks again from `next_since` and converges.
/// The ids come from each entry's commands and inverse (stripping a command of its
/// e-mail or reason leaves the ids it names).
async fn delta_of(
    ctx: &Ctx,
    id: i64,
    entries: &[JournalEntry],
    commands: &[Vec<Command>],
) -> Result<Value, Refusal> {
    let mut ids = Vec::new();
    for (e, cmds) in entries.iter().zip(commands) {
        let Some(inverse) = parse_commands(&e.inverse) else {
            return Ok(Value::Null);
        };
        let all = || cmds.iter().chain(&inverse);
        if all().any(|c| c.footprint().whole) {
            return Ok(Value::Null);
        }
        ids.extend(delta::touched(all()));
    }
    let (state_rank, state) = ctx
        .store()
        .load_shared(id)
        .await
        .map_err(|e| ctx.db_error(e))?;
    let mut d = delta::delta(&state, &ids);
    d.records.iter_mut().for_each(strip_record);
    let mut v = serde_json::to_value(&d).unwrap_or(Value::Null);
    let len = v.to_string().len();
    if len > DELTA_BUDGET {
        return Ok(Value::Null);
    }
    v["rank"] = json!(state_rank);
    if let Some((a, _)) = analysis_of(&state, (DELTA_BUDGET - len).min(ANALYSIS_BUDGET)) {
        v["analysis"] = a;
    }
    Ok(v)
}

// ---- get_view_code

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ViewCodeArgs {
    /// The build the page names (its `palmaplan-translation` tag).
    build: String,
    /// From 0.
    part: u64,
}

/// `get_view_code`'s result: part `part` of `parts` of the translation of build `build`.
#[derive(Debug, Serialize, JsonSchema)]
struct ViewCode {
    build: &'static str,
    part: u64,
    parts: u64,
    /// Base64 text; the parts joined in order are the gzip of the script.
    data: &'static str,
}

async fn get_view_code(ctx: Ctx, p: ViewCodeArgs) -> Result<Reply, Refusal> {
    let build = crate::view::translation_build();
    let parts = crate::view::translation_parts() as u64;
    if p.build != build {
        // A page kept by the host from another version of this server: its glue does not
        // match this code. Reopening the view reads the current page.
        return Err(Refusal::new(
            Code::OutOfDate,
            ctx.tr(
                format!("Cette vue vient d'une autre version du serveur (code {} demandé, {build} servi)\u{a0}: rouvrez-la pour obtenir la version actuelle.", p.build),
                format!("This view is from another version of the server (code {} asked for, {build} served): open it again to get the current one.", p.build),
            ),
        ));
    }
    let data = usize::try_from(p.part)
        .ok()
        .and_then(crate::view::translation_part)
        .ok_or_else(|| {
            Refusal::new(
                Code::InvalidArguments,
                ctx.tr(
                    format!(
                        "Il n'y a pas de partie {}\u{a0}: les parties vont de 0 à {}.",
                        p.part,
                        parts - 1
                    ),
                    format!(
                        "There is no part {}: parts go from 0 to {}.",
                        p.part,
                        parts - 1
                    ),
                ),
            )
        })?;
    let text = ctx.tr(
        format!("Code de la vue, partie {} sur {parts}.", p.part + 1),
        format!("The view's code, part {} of {parts}.", p.part + 1),
    );
    let code = ViewCode {
        build,
        part: p.part,
        parts,
        data,
    };
    Ok(Reply::ok(
        text,
        serde_json::to_value(&code).unwrap_or(Value::Null),
    ))
}

// ---- get_schedule_absences

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Absences {
    schedule: ScheduleRef,
    /// YYYY-MM-DD.
    from: String,
    /// Last day (inclusive), YYYY-MM-DD; at most 366 days after `from`.
    to: String,
}

/// Characters of absences and names one answer carries before it stops with "more".
const ABSENCES_BUDGET: usize = 100_000;
/// How many absences the text lists.
const ABSENCES_LISTED: usize = 20;

async fn get_schedule_absences(ctx: Ctx, p: Absences) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let from = date(&ctx, "from", &p.from)?;
    let to = date(&ctx, "to", &p.to)?;
    if to < from {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                format!("«\u{a0}to\u{a0}» ({to}) précède «\u{a0}from\u{a0}» ({from})\u{a0}: inversez-les."),
                format!("“to” ({to}) comes before “from” ({from}): swap them."),
            ),
        ));
    }
    let days = from.days_until(to) + 1;
    if days > layout::AGENDA_MAX_DAYS {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                format!("Du {from} au {to}, cela fait {days} jours\u{202f}; demandez {} jours au plus (par exemple «\u{a0}to\u{a0}» = {}).", layout::AGENDA_MAX_DAYS, from.add_days(layout::AGENDA_MAX_DAYS - 1)),
                format!("From {from} to {to} is {days} days; ask for {} days at most (e.g. “to” = {}).", layout::AGENDA_MAX_DAYS, from.add_days(layout::AGENDA_MAX_DAYS - 1)),
            ),
        ));
    }
    let stored = ctx.store().load(id).await.map_err(|e| ctx.db_error(e))?;
    let s = &stored.state;
    let mut found: Vec<_> = s
        .absences
        .iter()
        .filter(|a| a.start <= to && a.end >= from)
        .collect();
    found.sort_by_key(|a| (a.start, a.member, a.id));
    // Members are sorted by id.
    let name_of = |m: MemberId| {
        s.members
            .binary_search_by_key(&m, |x| x.id)
            .map_or("?", |i| s.members[i].name.as_str())
    };
    // Only what the agenda draws: who and when. Never the reason nor the e-mail.
    let mut used = 0usize;
    let mut list = Vec::new();
    let mut members: Vec<MemberId> = Vec::new();
    let mut lines = String::new();
    let mut more = false;
    for a in &found {
        let item = wire::AgendaAbsence {
            id: a.id,
            member: a.member,
            start: a.start,
            end: a.end,
        };
        let mut size = json!(item).to_string().len();
        let new_member = !members.contains(&a.member);
        if new_member {
            size += name_of(a.member).len() + 32;
        }
        if used + size > ABSENCES_BUDGET {
            more = true;
            break;
        }
        used += size;
        if new_member {
            members.push(a.member);
        }
        if list.len() < ABSENCES_LISTED {
            let span = if a.start == a.end {
                a.start.to_string()
            } else {
                format!("{} → {}", a.start, a.end)
            };
            let who = name_of(a.member);
            lines.push_str(&ctx.tr(
                format!("\n- {who}\u{a0}: {span}"),
                format!("\n- {who}: {span}"),
            ));
        }
        list.push(item);
    }
    members.sort_unstable();
    let people: Vec<wire::AgendaMember> = members
        .iter()
        .map(|m| wire::AgendaMember {
            id: *m,
            name: name_of(*m).to_owned(),
        })
        .collect();
    let mut text = if list.is_empty() {
        ctx.tr(
            format!("Aucune absence du {from} au {to} dans le planning {id}."),
            format!("No absence from {from} to {to} in schedule {id}."),
        )
    } else {
        ctx.tr(
            format!(
                "{} de {} du {from} au {to} dans le planning {id}\u{a0}:",
                count(Lang::Fr, list.len(), "absence", "absences"),
                count(Lang::Fr, people.len(), "membre", "membres")
            ),
            format!(
                "{} of {} from {from} to {to} in schedule {id}:",
                count(Lang::En, list.len(), "absence", "absences"),
                count(Lang::En, people.len(), "member", "members")
            ),
        )
    };
    text.push_str(&lines);
    if list.len() > ABSENCES_LISTED {
        let rest = list.len() - ABSENCES_LISTED;
        text.push_str(&ctx.tr(
            format!(
                "\n… et {} (dans structuredContent).",
                count(Lang::Fr, rest, "autre", "autres")
            ),
            format!("\n… and {rest} more (in structuredContent)."),
        ));
    }
    if more {
        text.push_str(&ctx.tr(
            format!(
                "\nLa liste s'arrête là\u{a0}: demandez une période plus courte que {from} → {to}."
            ),
            format!("\nThe list stops here: ask for a shorter period than {from} → {to}."),
        ));
    }
    Ok(Reply::ok(
        text,
        json!(wire::AgendaAbsences {
            schedule_id: id,
            rank: stored.rank,
            from,
            to,
            members: people,
            absences: list,
            more,
        }),
    ))
}

// ---- The schedule as a resource

impl Planning {
    /// The schedules a caller may read, as (id, name): what `resources/list` shows.
    pub async fn readable_schedules(&self, caller: &Caller) -> Result<Vec<(i64, String)>, Refusal> {
        let ctx = self.ctx(caller);
        let list = ctx
            .store()
            .schedules_of(caller.user_id)
            .await
            .map_err(|e| ctx.db_error(e))?;
        Ok(list
            .into_iter()
            .filter(|s| caller.only_schedule.is_none_or(|only| only == s.id))
            .map(|s| (s.id, s.name))
            .collect())
    }

    /// A whole schedule as JSON (the model's format, as `export_schedule` writes it),
    /// with the view's rule: no e-mail and no absence reason, whoever asks. Rights are
    /// checked as for any read. What `palmaplan://schedule/{id}/json` reads.
    pub async fn schedule_json(&self, caller: &Caller, id: i64) -> Result<String, Refusal> {
        let ctx = self.ctx(caller);
        let (id, _) = ctx.open(&ScheduleRef::Id(id)).await?;
        let mut state = ctx
            .store()
            .load(id)
            .await
            .map_err(|e| ctx.db_error(e))?
            .state;
        strip_all(&mut state);
        Ok(serde_json::to_string(&state).unwrap_or_else(|_| "{}".into()))
    }

    fn ctx(&self, caller: &Caller) -> Ctx {
        Ctx {
            inner: Arc::clone(&self.inner),
            caller: caller.clone(),
            need: Role::Viewer,
            tool: "get_schedule_page",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::journal_testkit::{Kit, en};
    use super::*;
    use palmaplan_model::paging::{Page, TextPage, reassemble};

    /// A `get_schedule_page` answer's page, its records read from their texts.
    fn page_of(r: &Reply) -> Page {
        serde_json::from_value::<TextPage>(r.structured.clone())
            .unwrap()
            .read()
            .unwrap()
    }

    /// The demo's private data.
    fn secrets() -> Vec<String> {
        let demo = palmaplan_model::demo::s4hana_migration();
        let mut out: Vec<String> = demo
            .members
            .iter()
            .filter_map(|m| m.email.clone())
            .collect();
        out.extend(demo.absences.iter().map(|a| a.reason.clone()));
        out
    }

    fn no_secret(what: &str, r: &Reply) {
        let all = format!("{}\n{}", r.text, r.structured);
        for s in secrets() {
            assert!(!all.contains(&s), "{what} shows “{s}”: {all}");
        }
        assert!(!all.contains('@'), "{what} shows an e-mail: {all}");
    }

    /// Packed answers cover the model's pages in order, page 0 alone and as it is, each
    /// under the bound (the last leaving room for the analysis), and a page compression
    /// would not shorten (labels of random ideographs) goes as it is.
    #[test]
    fn packed_answers_cover_the_pages_under_the_bound() {
        let today: Date = "2026-11-02".parse().unwrap();
        for noisy in [false, true] {
            let mut s = palmaplan_model::synth::generate(palmaplan_model::synth::Spec::new(10_000));
            if noisy {
                // A fixed sequence (the model's tests have no randomness either).
                let mut x: u64 = 1;
                for b in &mut s.bars {
                    b.label = (0..400)
                        .map(|_| {
                            x = x
                                .wrapping_mul(6_364_136_223_846_793_005)
                                .wrapping_add(1_442_695_040_888_963_407);
                            // One of 4,096 CJK ideographs: one unit of the page's
                            // bound as text, but 12 bits of entropy, two base64
                            // characters once compressed.
                            char::from_u32(0x4E00 + (x >> 52) as u32).expect("a CJK ideograph")
                        })
                        .collect();
                }
            }
            let set = make_pages(Arc::new(s), today, None, false);
            let packed = pack_set(&set).unwrap();
            let analysis = set
                .analysis
                .as_ref()
                .map_or(0, |a| a.to_string().len() + r#","analysis":"#.len());
            let last = packed.answers.len() - 1;
            let mut next = 0;
            for (i, a) in packed.answers.iter().enumerate() {
                assert_eq!((a.first, i == 0), (next, a.end == 1), "answer {i}");
                assert!(a.end > a.first);
                next = a.end;
                match &a.packed {
                    None => {
                        assert_eq!(a.end - a.first, 1, "answer {i}: plain pages go alone");
                        let shorter = pack_page(&set.pages[a.first]).unwrap().0;
                        let room = if i == last {
                            PAGE_CHARS - analysis
                        } else {
                            PAGE_CHARS
                        };
                        assert!(
                            i == 0 || shorter.is_none_or(|t| t.len() + 3 > room),
                            "answer {i}: a page that packs went as it is"
                        );
                    }
                    Some(texts) => {
                        assert_eq!(texts.len(), a.end - a.first);
                        let chars: usize = texts.iter().map(|t| t.len() + 3).sum();
                        let room = if i == last {
                            PAGE_CHARS - analysis
                        } else {
                            PAGE_CHARS
                        };
                        assert!(chars <= room, "answer {i}: {chars} characters");
                    }
                }
            }
            assert_eq!(next, set.pages.len());
            let plain = packed.answers.iter().filter(|a| a.packed.is_none()).count();
            if noisy {
                assert!(
                    plain > 1,
                    "random ideographs compressed: {plain} plain answers"
                );
            } else {
                // After page 0, at least two pages to an answer (three here: pages
                // already hold records as arrays, which leave gzip less to take out).
                assert!(
                    (packed.answers.len() - 1) * 2 < set.pages.len(),
                    "{} answers for {} pages",
                    packed.answers.len(),
                    set.pages.len()
                );
            }
        }
    }

    #[test]
    fn a_page_and_its_envelope_fit_the_response() {
        assert_eq!(PAGE_CHARS, paging::PAGE_CHARS);
        const { assert!(WINDOW_MAX_ROWS * 21 + 2_000 < ENVELOPE_CHARS) };
    }

    #[tokio::test]
    async fn pages_reassemble_the_schedule_without_private_data_even_for_owners() {
        let k = Kit::new("view-pages").await;
        let id = k.schedule;
        let r = k
            .call(
                &k.alice,
                "get_schedule_page",
                json!({"schedule": id, "page": 0}),
            )
            .await;
        assert!(!r.is_error, "{}", r.text);
        no_secret("page 0", &r);
        assert_eq!(r.structured["rank"], 0);
        assert_eq!(r.structured["schedule_id"], id);
        assert!(
            !r.structured["window"]["rows"]
                .as_array()
                .unwrap()
                .is_empty()
        );
        assert!(
            r.text
                .starts_with(&format!("Page 0 du planning {id} au rang 0 (1 page")),
            "{}",
            r.text
        );
        let page = page_of(&r);
        let mut expected = k.state().await;
        strip_all(&mut expected);
        assert_eq!(reassemble(&[page]).unwrap(), expected);

        let r = k
            .refused(
                &en(&k.carol),
                "get_schedule_page",
                json!({"schedule": id, "page": 1}),
                "page_not_found",
            )
            .await;
        assert!(
            r.text.contains("has no page 1: it has 1, numbered 0 to 0"),
            "{}",
            r.text
        );

        // A window of our own, then a write: the next page is of the new state.
        let r = k
            .call(
                &k.carol,
                "get_schedule_page",
                json!({"schedule": id, "page": 0, "window": {"from": "2026-11-02", "to": "2026-11-06"}}),
            )
            .await;
        assert!(!r.is_error, "{}", r.text);
        assert_eq!(r.structured["window"]["from"], "2026-11-02");
        k.ok(
            &k.bob,
            "move_periods",
            json!({"schedule": id, "bars": [14], "by": 1}),
        )
        .await;
        let r = k
            .call(
                &k.carol,
                "get_schedule_page",
                json!({"schedule": id, "page": 0}),
            )
            .await;
        assert_eq!(r.structured["rank"], 1);
        let r = k
            .refused(
                &k.carol,
                "get_schedule_page",
                json!({"schedule": id, "page": 0, "window": {"from": "2026-11-06", "to": "2026-11-02"}}),
                "invalid_arguments",
            )
            .await;
        assert!(r.text.contains("inversez-les"), "{}", r.text);
    }

    #[tokio::test]
    async fn a_view_shown_has_its_first_pages_made_before_it_asks() {
        let k = Kit::new("view-prepared").await;
        let id = k.schedule;
        let apps = Caller {
            apps: true,
            ..k.alice.clone()
        };
        let made = |window: &Option<Priority>| {
            let sets = k.planning.inner.pages.sets.lock().unwrap();
            sets.iter()
                .find(|(key, _)| key.schedule == id && key.window == *window)
                .map(|(_, set)| Arc::clone(set))
        };
        let window = Some(Priority {
            rows: Vec::new(),
            from: "2026-11-02".parse().unwrap(),
            to: "2026-11-20".parse().unwrap(),
        });
        for (args, window, asked) in [
            (
                json!({"schedule": id}),
                None,
                json!({"schedule": id, "page": 0}),
            ),
            (
                json!({"schedule": id, "from": "2026-11-02", "to": "2026-11-20"}),
                window,
                json!({"schedule": id, "page": 0, "window": {"from": "2026-11-02", "to": "2026-11-20"}}),
            ),
        ] {
            assert!(made(&window).is_none());
            k.ok(&apps, "show_schedule", args).await;
            // Made in the background: waited for, a bounded time.
            let mut set = None;
            for _ in 0..500 {
                set = made(&window);
                if set.is_some() {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
            let set = set.expect("the pages of the view just shown are made");
            // The view's first request is answered from them, not made again.
            k.ok(&apps, "get_schedule_page", asked).await;
            assert!(Arc::ptr_eq(&set, &made(&window).unwrap()));
        }
    }

    #[tokio::test]
    async fn pages_asked_for_at_once_are_made_once() {
        let k = Kit::new("view-made-once").await;
        let ctx = Ctx {
            inner: Arc::clone(&k.planning.inner),
            caller: k.alice.clone(),
            need: Role::Viewer,
            tool: "get_schedule_page",
        };
        let (a, b, c) = tokio::join!(
            page_set(&ctx, k.schedule, None, None, false),
            page_set(&ctx, k.schedule, None, None, false),
            page_set(&ctx, k.schedule, None, None, false),
        );
        let (a, b, c) = (a.unwrap().1, b.unwrap().1, c.unwrap().1);
        assert!(
            Arc::ptr_eq(&a, &b) && Arc::ptr_eq(&b, &c),
            "one set, made once"
        );
        // The last one out took the schedule's lock out of the map.
        let locks = |ctx: &Ctx| ctx.inner.pages.making.lock().unwrap().len();
        assert_eq!(locks(&ctx), 0, "a lock left behind");
        // Held by one, waited on by another: the first one out leaves it to the other.
        let first = ctx.inner.pages.making(k.schedule);
        let second = ctx.inner.pages.making(k.schedule);
        assert!(
            Arc::ptr_eq(&first.lock, &second.lock),
            "one lock per schedule"
        );
        drop(first);
        assert_eq!(
            locks(&ctx),
            1,
            "the lock taken from under its second holder"
        );
        drop(second);
        assert_eq!(locks(&ctx), 0);
    }

    #[tokio::test]
    async fn a_request_that_waited_across_a_write_takes_the_pages_made_meanwhile() {
        let k = Kit::new("view-waited-write").await;
        let ctx = Ctx {
            inner: Arc::clone(&k.planning.inner),
            caller: k.alice.clone(),
            need: Role::Viewer,
            tool: "get_schedule_page",
        };
        // The pages being made (the lock held here); a request comes, reads the rank
        // (0) and waits.
        let making = ctx.inner.pages.making(k.schedule);
        let held = making.lock.lock().await;
        let waiter = {
            let ctx = ctx.clone();
            let id = k.schedule;
            tokio::spawn(async move { page_set(&ctx, id, None, None, false).await })
        };
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        assert!(!waiter.is_finished(), "the request did not wait");
        // A write lands, and the maker reads the state after it.
        k.ok(
            &k.bob,
            "move_periods",
            json!({"schedule": k.schedule, "bars": [14], "by": 1}),
        )
        .await;
        let (rank, created_at) = ctx.store().stamp(k.schedule).await.unwrap();
        assert_eq!(rank, 1);
        let (_, state) = ctx.store().load_shared(k.schedule).await.unwrap();
        let today = utc_today(&ctx);
        let made = Arc::new(make_pages(state, today, None, false));
        ctx.inner.pages.put(
            PageKey {
                schedule: k.schedule,
                version: None,
                rank,
                created_at,
                window: None,
                today,
            },
            Arc::clone(&made),
        );
        drop(held);
        drop(making);
        let (got_rank, got) = waiter.await.unwrap().unwrap();
        assert_eq!(got_rank, 1);
        assert!(Arc::ptr_eq(&got, &made), "the waiter made the pages again");
    }

    #[tokio::test]
    async fn a_saved_version_is_paged_like_the_schedule_now() {
        let k = Kit::new("view-version-pages").await;
        let id = k.schedule;
        let saved = k
            .ok(
                &k.alice,
                "save_version",
                json!({"schedule": id, "name": "Base"}),
            )
            .await;
        let vid = saved.structured["version"]["id"].as_i64().unwrap();
        let before = k.state().await.bars[0].clone();
        k.ok(
            &k.alice,
            "move_periods",
            json!({"schedule": id, "bars": [before.id.0], "by": 3}),
        )
        .await;
        let bar_in = |r: &Reply| {
            let page = page_of(r);
            reassemble(&[page]).unwrap().bars[0].clone()
        };
        let now = k
            .ok(
                &k.carol,
                "get_schedule_page",
                json!({"schedule": id, "page": 0}),
            )
            .await;
        let then = k
            .ok(
                &k.carol,
                "get_schedule_page",
                json!({"schedule": id, "page": 0, "version": vid}),
            )
            .await;
        assert_ne!(
            bar_in(&now).start,
            before.start,
            "the schedule now has the move"
        );
        assert_eq!(
            bar_in(&then).start,
            before.start,
            "the version has the old dates"
        );
        assert_eq!(then.structured["version"], vid);
        assert!(
            then.structured["rank"].as_i64().unwrap() < now.structured["rank"].as_i64().unwrap()
        );
        no_secret("a version's page", &then);
        let r = k
            .planning
            .call(
                &k.carol,
                "get_schedule_page",
                json!({"schedule": id, "page": 0, "version": 987_654}),
            )
            .await;
        assert!(r.is_error);
        assert_eq!(r.structured["error"], "version_not_found");
        assert!(r.text.contains("list_versions"), "{}", r.text);
    }

    #[tokio::test]
    async fn a_newer_view_is_announced_to_older_ones_of_the_same_user() {
        let k = Kit::new("view-latest").await;
        let id = k.schedule;
        let apps = |c: &Caller| Caller {
            apps: true,
            ..c.clone()
        };
        let poll = |who: Caller| {
            let k = &k;
            async move {
                k.ok(
                    &who,
                    "get_changes_since",
                    json!({"schedule": id, "rank": 0}),
                )
                .await
                .structured["latest_view"]
                    .clone()
            }
        };
        assert_eq!(
            poll(k.alice.clone()).await,
            Value::Null,
            "no view shown yet"
        );
        let first = k
            .ok(&apps(&k.alice), "show_schedule", json!({"schedule": id}))
            .await;
        let second = k
            .ok(&apps(&k.alice), "show_schedule", json!({"schedule": id}))
            .await;
        let (a, b) = (
            &first.structured["shown_at"],
            &second.structured["shown_at"],
        );
        assert!(
            a.as_str().unwrap() < b.as_str().unwrap(),
            "{a} then {b}: ordered to the ms"
        );
        assert_eq!(
            &poll(k.alice.clone()).await,
            b,
            "the first view learns a newer one is open"
        );
        // Another user's views and a client without views change nothing for Alice.
        k.ok(&apps(&k.carol), "show_schedule", json!({"schedule": id}))
            .await;
        k.ok(&k.alice, "show_schedule", json!({"schedule": id}))
            .await;
        assert_eq!(&poll(k.alice.clone()).await, b);
        // The /embed page's own call (a capped caller) is no view in a conversation.
        let link = Caller {
            max_role: Some(Role::Viewer),
            only_schedule: Some(id),
            ..apps(&k.alice)
        };
        k.ok(&link, "show_schedule", json!({"schedule": id})).await;
        assert_eq!(&poll(k.alice.clone()).await, b);
    }

    #[tokio::test]
    async fn changes_since_carry_no_email_nor_reason_and_cost_nothing_when_idle() {
        let k = Kit::new("view-changes").await;
        let id = k.schedule;
        let r = k
            .ok(
                &k.carol,
                "get_changes_since",
                json!({"schedule": id, "rank": 0}),
            )
            .await;
        assert_eq!(r.structured["entries"], json!([]));
        assert!(r.text.contains("Aucune modification"), "{}", r.text);
        k.ok(
            &k.alice,
            "add_member",
            json!({"schedule": id, "name": "Zoé", "email": "zoe@example.org"}),
        )
        .await;
        let members = k.state().await.members;
        let zoe = members.iter().find(|m| m.name == "Zoé").unwrap().id;
        k.ok(
            &k.alice,
            "add_absence",
            json!({"schedule": id, "member": zoe.0, "start": "2026-11-09", "end": "2026-11-10", "reason": "Chirurgie"}),
        )
        .await;
        for who in [&k.alice, &k.carol] {
            let r = k
                .ok(who, "get_changes_since", json!({"schedule": id, "rank": 0}))
                .await;
            let all = format!("{}\n{}", r.text, r.structured);
            assert!(!all.contains("zoe@") && !all.contains("Chirurgie"), "{all}");
            assert_eq!(r.structured["entries"].as_array().unwrap().len(), 2);
            assert_eq!(r.structured["next_since"], 2);
            assert_eq!(r.structured["entries"][0]["author_name"], "Alice");
        }
        let r = k
            .ok(
                &k.carol,
                "get_changes_since",
                json!({"schedule": id, "rank": 1, "limit": 1}),
            )
            .await;
        assert_eq!(r.structured["entries"][0]["rank"], 2);
        assert_eq!(r.structured["more"], false);
        let r = k
            .ok(
                &k.carol,
                "get_changes_since",
                json!({"schedule": id, "rank": 0, "limit": 1}),
            )
            .await;
        assert_eq!(r.structured["more"], true);
        assert!(r.text.contains("rank = 1"), "{}", r.text);
    }

    #[tokio::test]
    async fn changes_with_records_bring_a_copy_up_to_date_without_secrets() {
        let k = Kit::new("view-delta").await;
        let id = k.schedule;
        // The view's copy: the schedule as its pages give it (stripped).
        let mut copy = k.state().await;
        strip_all(&mut copy);
        let rank0 = k
            .ok(
                &k.carol,
                "get_changes_since",
                json!({"schedule": id, "rank": 0}),
            )
            .await
            .structured["rank"]
            .as_i64()
            .unwrap();
        k.ok(
            &k.alice,
            "move_periods",
            json!({"schedule": id, "bars": [16], "by": 2}),
        )
        .await;
        k.ok(
            &k.alice,
            "delete_periods",
            json!({"schedule": id, "bars": [17], "confirm": true}),
        )
        .await;
        k.ok(
            &k.alice,
            "add_member",
            json!({"schedule": id, "name": "Zoé", "email": "zoe@example.org"}),
        )
        .await;
        let zoe = k
            .state()
            .await
            .members
            .iter()
            .find(|m| m.name == "Zoé")
            .unwrap()
            .id;
        k.ok(
            &k.alice,
            "add_absence",
            json!({"schedule": id, "member": zoe.0, "start": "2026-11-09", "end": "2026-11-10", "reason": "Chirurgie"}),
        )
        .await;
        let r = k
            .ok(
                &k.carol,
                "get_changes_since",
                json!({"schedule": id, "rank": rank0, "records": true}),
            )
            .await;
        let all = format!("{}\n{}", r.text, r.structured);
        assert!(!all.contains("zoe@") && !all.contains("Chirurgie"), "{all}");
        let d = &r.structured["delta"];
        assert_eq!(d["rank"], r.structured["next_since"]);
        let records = d["records"].as_array().unwrap();
        // The moved bar, the deleted one's links' other ends, the member, the absence:
        // a handful of records, not the schedule.
        let now = k.state().await;
        assert!(records.len() < 12, "{records:?}");
        assert!(d["removed"].as_array().unwrap().contains(&json!(17)));
        // The analysis of the new state rides along: the view need not compute it.
        let critical: Vec<u64> = palmaplan_model::cpm::critical_bars(&now)
            .unwrap()
            .iter()
            .map(|b| b.0)
            .collect();
        assert!(!critical.is_empty());
        let risks = palmaplan_model::risk::risks(&now);
        let mut at_risk: Vec<u64> = risks.bars_at_risk().into_iter().map(|b| b.0).collect();
        at_risk.sort_unstable();
        let mut violated: Vec<u64> = risks.violated_links.iter().map(|v| v.link.0).collect();
        violated.sort_unstable();
        violated.dedup();
        let expected_analysis = palmaplan_model::risk::Highlights {
            critical: critical.into_iter().map(palmaplan_model::BarId).collect(),
            at_risk: at_risk.into_iter().map(palmaplan_model::BarId).collect(),
            violated_links: violated.into_iter().map(palmaplan_model::LinkId).collect(),
        };
        let read = |v: &Value| palmaplan_model::risk::Highlights::from_wire(v, &now);
        assert_eq!(read(&d["analysis"]), Some(expected_analysis.clone()));
        let page = k
            .ok(
                &k.carol,
                "get_schedule_page",
                json!({"schedule": id, "page": 0}),
            )
            .await;
        assert_eq!(page.structured["pages"], 1);
        assert_eq!(read(&page.structured["analysis"]), Some(expected_analysis));
        let parsed: delta::Delta<'static> = serde_json::from_value(d.clone()).unwrap();
        delta::apply_delta(&mut copy, parsed).unwrap();
        let mut expected = now;
        strip_all(&mut expected);
        assert_eq!(copy, expected);
        // Without `records`, no delta; a restored version (the whole schedule) gives null.
        let r = k
            .ok(
                &k.carol,
                "get_changes_since",
                json!({"schedule": id, "rank": rank0}),
            )
            .await;
        assert!(r.structured.get("delta").is_none());
        k.ok(
            &k.alice,
            "save_version",
            json!({"schedule": id, "name": "Base"}),
        )
        .await;
        k.ok(
            &k.alice,
            "move_periods",
            json!({"schedule": id, "bars": [16], "by": 1}),
        )
        .await;
        let before = r.structured["rank"].as_i64().unwrap() + 1;
        k.ok(
            &k.alice,
            "restore_version",
            json!({"schedule": id, "version": "Base", "confirm": true}),
        )
        .await;
        let r = k
            .ok(
                &k.carol,
                "get_changes_since",
                json!({"schedule": id, "rank": before, "records": true}),
            )
            .await;
        assert_eq!(r.structured["entries"].as_array().unwrap().len(), 1);
        assert_eq!(r.structured["delta"], Value::Null);
    }

    #[tokio::test]
    async fn absences_give_names_and_dates_only() {
        let k = Kit::new("view-absences").await;
        let id = k.schedule;
        for who in [&k.alice, &k.carol] {
            let r = k
                .ok(
                    who,
                    "get_schedule_absences",
                    json!({"schedule": id, "from": "2026-10-01", "to": "2026-12-31"}),
                )
                .await;
            no_secret("absences", &r);
            let demo = palmaplan_model::demo::s4hana_migration();
            assert_eq!(
                r.structured["absences"].as_array().unwrap().len(),
                demo.absences.len()
            );
            let a = &demo.absences[0];
            let name = &demo.members.iter().find(|m| m.id == a.member).unwrap().name;
            assert!(r.text.contains(name.as_str()), "{}", r.text);
            assert_eq!(r.structured["absences"][0]["start"], json!(a.start));
        }
        let r = k
            .refused(
                &k.carol,
                "get_schedule_absences",
                json!({"schedule": id, "from": "2026-01-01", "to": "2027-06-30"}),
                "invalid_arguments",
            )
            .await;
        assert!(r.text.contains("366 jours au plus"), "{}", r.text);
        let r = k
            .ok(
                &en(&k.carol),
                "get_schedule_absences",
                json!({"schedule": id, "from": "2020-01-01", "to": "2020-01-31"}),
            )
            .await;
        assert!(
            r.text
                .starts_with("No absence from 2020-01-01 to 2020-01-31"),
            "{}",
            r.text
        );
    }

    #[tokio::test]
    async fn the_view_code_comes_in_parts_of_its_build_only() {
        let k = Kit::new("view-code").await;
        let build = crate::view::translation_build();
        let parts = crate::view::translation_parts();
        // Any role may read it (a viewer's view needs it as much), part after part.
        let mut whole = String::new();
        for part in 0..parts {
            // Not `ok`: its answers are large on purpose (the kit checks for compact ones).
            let r = k
                .call(
                    &k.carol,
                    "get_view_code",
                    json!({"build": build, "part": part}),
                )
                .await;
            assert!(!r.is_error, "{}", r.text);
            assert_eq!(r.structured["build"], build);
            assert_eq!(r.structured["parts"], parts);
            assert_eq!(r.structured["part"], part);
            whole.push_str(r.structured["data"].as_str().unwrap());
            assert!(r.text.contains(&format!("sur {parts}")), "{}", r.text);
            // The answer stays under what a host carries in one tool result.
            assert!(r.structured.to_string().len() + r.text.len() < RESPONSE_CHARS);
        }
        assert_eq!(whole, crate::view::TRANSLATION);
        let r = k
            .refused(
                &k.carol,
                "get_view_code",
                json!({"build": "0123456789abcdef", "part": 0}),
                "out_of_date",
            )
            .await;
        assert!(r.text.contains("rouvrez-la"), "{}", r.text);
        let r = k
            .refused(
                &en(&k.carol),
                "get_view_code",
                json!({"build": build, "part": parts}),
                "invalid_arguments",
            )
            .await;
        assert!(
            r.text
                .contains(&format!("parts go from 0 to {}", parts - 1)),
            "{}",
            r.text
        );
    }

    #[tokio::test]
    async fn the_resource_is_the_schedule_without_private_data() {
        let k = Kit::new("view-resource").await;
        let json = k
            .planning
            .schedule_json(&k.alice, k.schedule)
            .await
            .unwrap();
        let back: Schedule = serde_json::from_str(&json).unwrap();
        let mut expected = k.state().await;
        strip_all(&mut expected);
        assert_eq!(back, expected);
        assert_eq!(
            k.planning.readable_schedules(&k.carol).await.unwrap(),
            vec![(k.schedule, expected.name.clone())]
        );
        let stranger = Caller {
            user_id: 999,
            ..k.carol.clone()
        };
        let refused = k
            .planning
            .schedule_json(&stranger, k.schedule)
            .await
            .unwrap_err();
        assert_eq!(refused.code, Code::ScheduleNotFound);
    }
}
