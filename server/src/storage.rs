//! Storage: the only module that speaks SQL. One schema, two backends (an embedded
//! SQLite file by default, PostgreSQL given a `postgres://` URL), reached through sqlx's
//! `Any` driver so that every query is written once and both backends run the same
//! storage test suite.
//!
//! **The journal is the truth.** A schedule's state is its latest snapshot (the
//! `snapshots` row: a state and its rank) plus the journal entries after it,
//! replayed through the model's `apply`. A write applies its commands to the state kept
//! in memory, in place (O(change)), then one transaction does `UPDATE schedules SET
//! rank = rank + 1 ... WHERE id = ? AND rank = ?` and appends the journal entry at
//! rank + 1: it stores the entry and nothing in proportion to the schedule. The store
//! applies the commands itself, so what the journal holds is exactly what changed the
//! state. If another writer got there first, the update touches no row, nothing is
//! written, the state kept in memory (already changed) is dropped, and the write is
//! retried from a fresh read (or, for `apply_patch` with an expected rank, refused as
//! out of date). The journal's primary key (schedule, rank) makes a gap or a duplicate
//! rank impossible on both backends. Starting the transaction with the UPDATE (not a
//! read) matters on SQLite: a transaction that reads first and writes later fails with
//! SQLITE_BUSY_SNAPSHOT under WAL when another writer commits in between; one that
//! writes first simply waits for the lock (busy_timeout).
//!
//! Snapshots live in a table of their own (the `schedules` row, read at every request,
//! stays small). They are written off the request path: the write that takes a schedule
//! [`SNAPSHOT_EVERY`] entries past its snapshot (more for a large one: one entry per
//! 2,000 bytes of its state) starts a task that serialises the
//! state at that rank and stores it (`WHERE rank < ?`, so an older snapshot
//! never replaces a newer one). Old entries stay: history, undo and diffs read them.
//!
//! Writers of one schedule in one process take turns (`WriteTurns`) before that
//! optimistic write: a writer that loses the race redoes all its work (read and parse
//! the state, apply, serialise the whole state again), so N writers racing on one
//! schedule spend O(N) work per successful write, and with dozens of them writes
//! almost stop. Waiting in line does the work once. The rank check in the transaction
//! is unchanged: it still decides between processes sharing a database.
//!
//! Current states are kept in memory (`StateCache`), keyed by schedule and creation
//! time, with their rank, within a byte budget (the least recently used go first).
//! `load` still asks the database for the current rank first (one small indexed read),
//! so a write by another process is seen at once: a kept state behind it catches up by
//! applying the entries after its rank ([`CATCH_UP`] at most; further behind, it is
//! read again from the snapshot). The creation time tells apart a schedule whose id
//! SQLite gave again after a delete.
//!
//! The model stays out of here: states and journal commands arrive as the model's JSON
//! and a closure turns the current state into the next one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use palmaplan_model::Schedule;
use palmaplan_model::command::{self, Command};
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyPool, Executor, Row};

mod oauth;
pub use oauth::{CodeInfo, GrantInfo, GrantToken, OAuthClient, SpentCode, TokenKind};

/// The columns `entry_from_row` reads, in its order.
macro_rules! entry_columns {
    () => {
        "rank, author, at, kind, target_rank, commands, inverse"
    };
}

/// Which database a store runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A store: a connection pool and the backend it talks to.
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    snapshot_every: i64,
    turns: Arc<WriteTurns>,
    states: Arc<StateCache>,
    /// `(schedule, rank)` of each write this process commits, sent after the commit:
    /// what the web screen's event streams push (`crate::web`). Writes of another
    /// process on the same database are not seen here.
    committed: tokio::sync::broadcast::Sender<(i64, i64)>,
}

/// How far behind the database a kept state catches up by replaying entries; beyond
/// this it is read again from the snapshot.
pub const CATCH_UP: i64 = 2_000;

/// How many commits a slow listener of [`Store::committed`] may fall behind.
pub const COMMITTED_BACKLOG: usize = 1024;

/// How many entries past its snapshot a schedule gets before a new snapshot is taken,
/// at the least.
pub const SNAPSHOT_EVERY: i64 = 1_000;

/// A large schedule waits longer: one more entry per this many bytes of its state, so
/// that serialising it costs each write a bounded share (a 23 MB state is snapshotted
/// every ~12,000 entries, which a restart replays in about 0.15 s).
const SNAPSHOT_BYTES_PER_ENTRY: usize = 2_000;

/// The default byte budget of the kept states: ten 100,000-bar schedules.
pub const DEFAULT_STATE_CACHE_BYTES: usize = 1 << 30;

/// The current states of the schedules read or written last, within a byte budget.
#[derive(Debug)]
struct StateCache {
    inner: Mutex<CacheInner>,
    budget: usize,
    /// What this process knows of each schedule's stored snapshot, apart from the kept
    /// states (a writer takes those out and puts them back; this stays put).
    snapshots: Mutex<HashMap<i64, SnapshotMeta>>,
}

#[derive(Clone, Copy, Debug)]
struct SnapshotMeta {
    created_at: i64,
    /// The rank of the latest snapshot stored (as far as this process knows).
    rank: i64,
    /// A snapshot task is under way.
    running: bool,
}

impl Default for StateCache {
    fn default() -> StateCache {
        StateCache::with_budget(DEFAULT_STATE_CACHE_BYTES)
    }
}

#[derive(Debug, Default)]
struct CacheInner {
    by_id: HashMap<i64, CachedState>,
    /// Counts uses, to find the least recently used entry.
    tick: u64,
    bytes: usize,
}

#[derive(Debug)]
struct CachedState {
    created_at: i64,
    rank: i64,
    state: Arc<Schedule>,
    /// An estimate of the state's size in memory.
    bytes: usize,
    used: u64,
}

/// A state taken out of the cache to be written.
#[derive(Debug)]
struct Taken {
    created_at: i64,
    rank: i64,
    state: Arc<Schedule>,
    bytes: usize,
}

impl StateCache {
    fn with_budget(budget: usize) -> StateCache {
        StateCache {
            inner: Mutex::default(),
            budget,
            snapshots: Mutex::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, CacheInner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The kept state of schedule `id` (of this creation time): its rank and state.
    fn get(&self, id: i64, created_at: i64) -> Option<(i64, Arc<Schedule>)> {
        let mut c = self.lock();
        c.tick += 1;
        let tick = c.tick;
        let e = c.by_id.get_mut(&id)?;
        if e.created_at != created_at {
            return None;
        }
        e.used = tick;
        Some((e.rank, Arc::clone(&e.state)))
    }

    /// Takes the kept state out (a write changes it in place, then puts it back).
    fn take(&self, id: i64, created_at: i64) -> Option<Taken> {
        let mut c = self.lock();
        if c.by_id.get(&id)?.created_at != created_at {
            return None;
        }
        let e = c.by_id.remove(&id)?;
        c.bytes = c.bytes.saturating_sub(e.bytes);
        Some(Taken {
            created_at: e.created_at,
            rank: e.rank,
            state: e.state,
            bytes: e.bytes,
        })
    }

    /// Keeps a state, unless a newer one of the same schedule is already kept; then
    /// evicts the least recently used others while over the budget.
    fn put(&self, id: i64, t: Taken) {
        let mut c = self.lock();
        if let Some(e) = c.by_id.get(&id)
            && e.created_at == t.created_at
            && e.rank > t.rank
        {
            return;
        }
        c.tick += 1;
        let used = c.tick;
        if let Some(old) = c.by_id.insert(
            id,
            CachedState {
                created_at: t.created_at,
                rank: t.rank,
                state: t.state,
                bytes: t.bytes,
                used,
            },
        ) {
            c.bytes = c.bytes.saturating_sub(old.bytes);
        }
        c.bytes += t.bytes;
        while c.bytes > self.budget && c.by_id.len() > 1 {
            let oldest = c
                .by_id
                .iter()
                .filter(|(k, _)| **k != id)
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| *k);
            let Some(k) = oldest else { break };
            if let Some(e) = c.by_id.remove(&k) {
                c.bytes = c.bytes.saturating_sub(e.bytes);
            }
        }
    }

    fn snaps(&self) -> std::sync::MutexGuard<'_, HashMap<i64, SnapshotMeta>> {
        self.snapshots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Records that schedule `id` (of this creation time) has a snapshot at `rank`.
    fn note_snapshot(&self, id: i64, created_at: i64, rank: i64) {
        let mut s = self.snaps();
        let m = s.entry(id).or_insert(SnapshotMeta {
            created_at,
            rank,
            running: false,
        });
        if m.created_at != created_at {
            *m = SnapshotMeta {
                created_at,
                rank,
                running: false,
            };
        }
        m.rank = m.rank.max(rank);
    }

    /// Starts a snapshot of schedule `id` at `rank` if it is `every` entries or more past
    /// the last one and none is under way; false otherwise.
    fn claim_snapshot(&self, id: i64, created_at: i64, rank: i64, every: i64) -> bool {
        let mut s = self.snaps();
        match s.get_mut(&id) {
            Some(m) if m.created_at == created_at && !m.running && rank - m.rank >= every => {
                m.running = true;
                true
            }
            _ => false,
        }
    }

    fn snapshot_done(&self, id: i64, created_at: i64, rank: Option<i64>) {
        let mut s = self.snaps();
        if let Some(m) = s.get_mut(&id)
            && m.created_at == created_at
        {
            m.running = false;
            if let Some(r) = rank {
                m.rank = m.rank.max(r);
            }
        }
    }

    fn forget(&self, id: i64) {
        let mut c = self.lock();
        if let Some(e) = c.by_id.remove(&id) {
            c.bytes = c.bytes.saturating_sub(e.bytes);
        }
        drop(c);
        self.snaps().remove(&id);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().by_id.len()
    }

    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.lock().bytes
    }
}

/// An estimate of a schedule's size in memory, in bytes: its items and their texts.
/// Computed once when a state is read from its snapshot (writes change it by little).
fn approx_bytes(s: &Schedule) -> usize {
    use std::mem::size_of;
    let texts = s
        .bars
        .iter()
        .map(|b| b.label.len() + b.notes.len())
        .sum::<usize>()
        + s.milestones
            .iter()
            .map(|m| m.label.len() + m.notes.len())
            .sum::<usize>()
        + s.actions.iter().map(|a| a.label.len()).sum::<usize>()
        + s.rows.iter().map(|r| r.name.len()).sum::<usize>()
        + s.notes.len();
    size_of::<Schedule>()
        + texts
        + s.bars.len() * size_of::<palmaplan_model::Bar>()
        + s.milestones.len() * size_of::<palmaplan_model::Milestone>()
        + s.links.len() * size_of::<palmaplan_model::Link>()
        + s.actions.len() * size_of::<palmaplan_model::Action>()
        + s.rows.len() * size_of::<palmaplan_model::Row>()
        + s.groups.len() * size_of::<palmaplan_model::Group>()
        + s.members.len() * size_of::<palmaplan_model::Member>()
        + s.absences.len() * size_of::<palmaplan_model::Absence>()
}

/// The writers of this process waiting for their turn, one line per schedule (fair:
/// first come, first served). A schedule's line goes away when nobody is in it.
#[derive(Debug, Default)]
struct WriteTurns {
    lines: Mutex<HashMap<i64, Arc<tokio::sync::Mutex<()>>>>,
}

/// A writer's turn on a schedule; the next writer's turn starts when it is dropped.
struct Turn<'a> {
    turns: &'a WriteTurns,
    id: i64,
    guard: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl WriteTurns {
    /// Waits for this process's previous writers of schedule `id`.
    async fn take(&self, id: i64) -> Turn<'_> {
        let line = {
            let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(lines.entry(id).or_default())
        };
        Turn {
            turns: self,
            id,
            guard: Some(line.lock_owned().await),
        }
    }

    /// How many schedules have writers in line (for tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        // Hand the turn over first, then forget the line if nobody else holds it: a
        // writer only joins a line under `lines`' lock, so a count of one (the map's)
        // means nobody is waiting.
        drop(self.guard.take());
        let mut lines = self
            .turns
            .lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if lines
            .get(&self.id)
            .is_some_and(|l| Arc::strong_count(l) == 1)
        {
            lines.remove(&self.id);
        }
    }
}

/// What a storage call can fail with, besides a refusal decided by the caller.
#[derive(Debug)]
pub enum StoreError {
    /// No such schedule (or it was deleted).
    NotFound,
    /// The database failed; the message is for logs, not for users.
    Db(sqlx::Error),
    /// A stored value could not be read back (a bug or a hand-edited database).
    Corrupt(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::NotFound => f.write_str("no such schedule"),
            StoreError::Db(e) => write!(f, "database error: {e}"),
            StoreError::Corrupt(m) => write!(f, "stored data cannot be read: {m}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        StoreError::Db(e)
    }
}

/// The kind of a journal entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// An ordinary write.
    Write,
    /// Undoes the entry at `target_rank`.
    Undo,
    /// Redoes the entry at `target_rank` (an undo).
    Redo,
}

impl EntryKind {
    fn as_str(self) -> &'static str {
        match self {
            EntryKind::Write => "write",
            EntryKind::Undo => "undo",
            EntryKind::Redo => "redo",
        }
    }

    fn parse(s: &str) -> Result<EntryKind, StoreError> {
        match s {
            "write" => Ok(EntryKind::Write),
            "undo" => Ok(EntryKind::Undo),
            "redo" => Ok(EntryKind::Redo),
            other => Err(StoreError::Corrupt(format!("journal kind {other:?}"))),
        }
    }
}

/// A journal entry as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JournalEntry {
    pub rank: i64,
    pub author: i64,
    /// Unix milliseconds.
    pub at: i64,
    pub kind: EntryKind,
    pub target_rank: Option<i64>,
    pub commands: String,
    pub inverse: String,
}

/// The outcome of a write.
#[derive(Debug)]
pub enum Written<R> {
    /// Stored at this rank: the new state (shared with the store's), the commands as
    /// applied and their inverse, and what the closure returned beside them.
    Done {
        rank: i64,
        state: Arc<Schedule>,
        applied: Vec<Command>,
        inverse: Vec<Command>,
        /// What the cascade moved, by id (empty without one).
        cascade: Vec<palmaplan_model::push::Moved>,
        result: R,
    },
    /// `expected_rank` was given and the schedule has moved on: nothing was written.
    OutOfDate { current: i64 },
}

/// What a write asks the store to do: the commands it applies (in place, then
/// journals), what kind of entry that is, and a value for the caller.
#[derive(Clone, Debug)]
pub struct Change<R> {
    pub commands: Vec<Command>,
    pub kind: EntryKind,
    /// The entry an undo or a redo answers.
    pub target_rank: Option<i64>,
    /// Move what is downstream of the commands so that every link holds (see
    /// `command::apply_cascading`); the moves are journalled with the commands.
    pub cascade: Option<palmaplan_model::push::Cascade>,
    pub result: R,
}

/// How a store is opened.
#[derive(Clone, Copy, Debug)]
pub struct StoreOptions {
    /// The byte budget of the states kept in memory.
    pub state_cache_bytes: usize,
    /// SQLite only: `synchronous = FULL` (a commit survives a power cut) rather than
    /// `NORMAL` (it survives a crash of the process, not of the machine).
    pub sqlite_full_sync: bool,
    /// Entries past its snapshot after which a schedule gets a new one.
    pub snapshot_every: i64,
}

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            state_cache_bytes: DEFAULT_STATE_CACHE_BYTES,
            sqlite_full_sync: false,
            snapshot_every: SNAPSHOT_EVERY,
        }
    }
}

/// A schedule's current state and rank.
#[derive(Clone, Debug)]
pub struct Stored {
    pub id: i64,
    pub rank: i64,
    pub state: Schedule,
}

/// How stale a token's "last used" date may be (see `Store::use_token`).
const LAST_USE_PRECISION_MS: i64 = 60_000;

/// Optimistic retries before a write gives up under contention (each retry means
/// another writer succeeded, so the system as a whole always makes progress).
const MAX_RETRIES: usize = 200;

impl Store {
    /// Opens (creating if needed) the database at `url` and brings its schema up to date.
    /// `sqlite://path` (created, WAL) or `postgres://...`.
    pub async fn open(url: &str) -> Result<Store, StoreError> {
        Store::open_with(url, StoreOptions::default()).await
    }

    /// [`Store::open`] with options.
    pub async fn open_with(url: &str, opts: StoreOptions) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            return Err(StoreError::Corrupt(format!(
                "unsupported database URL {url:?}: use sqlite://PATH or postgres://..."
            )));
        };
        let url = match backend {
            Backend::Sqlite if !url.contains("mode=") => {
                let sep = if url.contains('?') { '&' } else { '?' };
                format!("{url}{sep}mode=rwc")
            }
            _ => url.to_owned(),
        };
        let mut options = AnyPoolOptions::new().max_connections(16);
        if backend == Backend::Sqlite {
            let sync = if opts.sqlite_full_sync {
                "PRAGMA synchronous = FULL"
            } else {
                "PRAGMA synchronous = NORMAL"
            };
            options = options.after_connect(move |conn, _| {
                Box::pin(async move {
                    // Each connection waits for the write lock instead of failing, and
                    // enforces the schema's foreign keys.
                    conn.execute("PRAGMA busy_timeout = 10000").await?;
                    conn.execute("PRAGMA foreign_keys = ON").await?;
                    conn.execute(sync).await?;
                    Ok(())
                })
            });
        }
        let pool = options
            .acquire_timeout(Duration::from_secs(30))
            .connect(&url)
            .await?;
        if backend == Backend::Sqlite {
            pool.execute("PRAGMA journal_mode = WAL").await?;
        }
        let store = Store {
            pool,
            backend,
            snapshot_every: opts.snapshot_every.max(1),
            turns: Arc::default(),
            states: Arc::new(StateCache::with_budget(opts.state_cache_bytes)),
            committed: tokio::sync::broadcast::channel(COMMITTED_BACKLOG).0,
        };
        store.migrate().await?;
        Ok(store)
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The writes this process commits from now on, as `(schedule, rank)`, each sent
    /// once its transaction is committed. A receiver that falls more than
    /// [`COMMITTED_BACKLOG`] behind gets `Lagged` and should read the rank again.
    pub fn committed(&self) -> tokio::sync::broadcast::Receiver<(i64, i64)> {
        self.committed.subscribe()
    }

    /// Tells [`Store::committed`]'s listeners of a rank this store did not write
    /// (another process's commit, seen by `live::watch`).
    pub fn announce(&self, schedule: i64, rank: i64) {
        let _ = self.committed.send((schedule, rank));
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        use sqlx::SqlSafeStr;
        use sqlx::migrate::{Migration, MigrationType, Migrator};
        // The migration files are embedded in the binary (versioned, append-only); one
        // folder per backend because DDL differs (row ids), the queries do not.
        let files: &[(i64, &str, &'static str)] = match self.backend {
            Backend::Sqlite => &[
                (
                    1,
                    "init",
                    include_str!("../migrations/sqlite/0001_init.sql"),
                ),
                (
                    2,
                    "snapshots",
                    include_str!("../migrations/sqlite/0002_snapshots.sql"),
                ),
                (
                    3,
                    "oauth",
                    include_str!("../migrations/sqlite/0003_oauth.sql"),
                ),
                (
                    4,
                    "signin_links",
                    include_str!("../migrations/sqlite/0004_signin_links.sql"),
                ),
                (
                    5,
                    "client_documents_kept",
                    include_str!("../migrations/sqlite/0005_client_documents_kept.sql"),
                ),
            ],
            Backend::Postgres => &[
                (
                    1,
                    "init",
                    include_str!("../migrations/postgres/0001_init.sql"),
                ),
                (
                    2,
                    "snapshots",
                    include_str!("../migrations/postgres/0002_snapshots.sql"),
                ),
                (
                    3,
                    "oauth",
                    include_str!("../migrations/postgres/0003_oauth.sql"),
                ),
                (
                    4,
                    "signin_links",
                    include_str!("../migrations/postgres/0004_signin_links.sql"),
                ),
                (
                    5,
                    "client_documents_kept",
                    include_str!("../migrations/postgres/0005_client_documents_kept.sql"),
                ),
            ],
        };
        let migrations = files
            .iter()
            .map(|(v, d, sql)| {
                Migration::new(
                    *v,
                    (*d).into(),
                    MigrationType::Simple,
                    sql.into_sql_str(),
                    false,
                )
            })
            .collect();
        Migrator::with_migrations(migrations)
            .run(&self.pool)
            .await
            .map_err(|e| StoreError::Db(e.into()))
    }

    /// Creates a schedule at rank 0 with its owner, in one transaction, and returns its id.
    pub async fn create_schedule(
        &self,
        state: &Schedule,
        owner: i64,
        now_ms: i64,
    ) -> Result<i64, StoreError> {
        let json = to_json(state)?;
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(
            "INSERT INTO schedules (name, rank, created_at, updated_at) \
             VALUES ($1, 0, $2, $2) RETURNING id",
        )
        .bind(&state.name)
        .bind(now_ms)
        .fetch_one(&mut *tx)
        .await?;
        let id: i64 = row.try_get(0)?;
        sqlx::query("INSERT INTO snapshots (schedule_id, rank, state) VALUES ($1, 0, $2)")
            .bind(id)
            .bind(json)
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO roles (schedule_id, user_id, role) VALUES ($1, $2, $3)")
            .bind(id)
            .bind(owner)
            .bind(Role::Owner.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        // SQLite may give again the id of a schedule deleted just before.
        self.states.forget(id);
        Ok(id)
    }

    /// The current rank of a schedule: the cheap check a poll makes first.
    pub async fn rank(&self, id: i64) -> Result<i64, StoreError> {
        self.number_of(id, "SELECT rank FROM schedules WHERE id = $1")
            .await
    }

    /// One number of one schedule's row.
    async fn number_of(&self, id: i64, sql: &'static str) -> Result<i64, StoreError> {
        let row = sqlx::query(sql)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound)?;
        Ok(row.try_get(0)?)
    }

    /// A schedule's rank and creation time (Unix ms): together they name one state of
    /// one schedule, even if a deleted schedule's id is handed out again (SQLite may
    /// reuse the highest id). What a cache of derived data (the view's pages) keys on.
    pub async fn stamp(&self, id: i64) -> Result<(i64, i64), StoreError> {
        let row = sqlx::query("SELECT rank, created_at FROM schedules WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound)?;
        Ok((row.try_get(0)?, row.try_get(1)?))
    }

    /// The current state and rank of a schedule (a copy: for readers that change it,
    /// such as a redaction; [`Store::load_shared`] lends it without copying).
    pub async fn load(&self, id: i64) -> Result<Stored, StoreError> {
        let (rank, state) = self.load_shared(id).await?;
        Ok(Stored {
            id,
            rank,
            state: Schedule::clone(&state),
        })
    }

    /// The current rank and state of a schedule, shared with the store's kept state: no
    /// copy, no parse at the current rank.
    pub async fn load_shared(&self, id: i64) -> Result<(i64, Arc<Schedule>), StoreError> {
        let (rank, created_at) = self.stamp(id).await?;
        if let Some((kept, state)) = self.states.get(id, created_at)
            && kept == rank
        {
            return Ok((rank, state));
        }
        // A writer of this process may have the state out, changing it: wait for it
        // rather than read the whole state again.
        let _turn = self.turns.take(id).await;
        let (rank, created_at) = self.stamp(id).await?;
        if let Some((kept, state)) = self.states.get(id, created_at)
            && kept == rank
        {
            return Ok((rank, state));
        }
        let t = self.current(id, created_at, rank).await?;
        let out = (t.rank, Arc::clone(&t.state));
        self.states.put(id, t);
        Ok(out)
    }

    /// The state of schedule `id` at `rank` (at least), taken out of the kept states
    /// (or read): the kept one as is or caught up by replaying the entries after it,
    /// else the snapshot and the entries after it.
    async fn current(&self, id: i64, created_at: i64, rank: i64) -> Result<Taken, StoreError> {
        if let Some(mut t) = self.states.take(id, created_at) {
            if t.rank >= rank {
                return Ok(t);
            }
            if t.rank < rank && rank - t.rank <= CATCH_UP {
                let to = t.rank;
                match self.replay(id, Arc::make_mut(&mut t.state), to, rank).await {
                    Ok(reached) => {
                        t.rank = reached;
                        return Ok(t);
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, schedule = id, "catching up failed; reading the snapshot")
                    }
                }
            }
        }
        let row = sqlx::query(
            "SELECT sn.state, sn.rank, s.rank, s.created_at FROM schedules s \
             JOIN snapshots sn ON sn.schedule_id = s.id WHERE s.id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound)?;
        let json: String = row.try_get(0)?;
        let (snapshot_rank, now_rank, created_at): (i64, i64, i64) =
            (row.try_get(1)?, row.try_get(2)?, row.try_get(3)?);
        let mut state = from_json(&json)?;
        let bytes = json.len().max(approx_bytes(&state));
        let reached = self
            .replay(id, &mut state, snapshot_rank, now_rank.max(rank))
            .await?;
        self.states.note_snapshot(id, created_at, snapshot_rank);
        Ok(Taken {
            created_at,
            rank: reached,
            state: Arc::new(state),
            bytes,
        })
    }

    /// Applies to `state` (at rank `from`) the journal entries after it, up to `to` or
    /// as far as the journal goes; returns the rank reached.
    async fn replay(
        &self,
        id: i64,
        state: &mut Schedule,
        from: i64,
        to: i64,
    ) -> Result<i64, StoreError> {
        let mut at = from;
        while at < to {
            let batch = self.changes_since(id, at, (to - at).min(500)).await?;
            if batch.is_empty() {
                break;
            }
            for e in batch {
                if e.rank != at + 1 {
                    return Err(StoreError::Corrupt(format!(
                        "schedule {id}: journal entry {} follows {at}",
                        e.rank
                    )));
                }
                let cmds: Vec<Command> = serde_json::from_str(&e.commands)
                    .map_err(|err| StoreError::Corrupt(format!("entry {}: {err}", e.rank)))?;
                command::apply_in_place(state, &cmds).map_err(|err| {
                    StoreError::Corrupt(format!(
                        "schedule {id}: entry {} does not replay: {}",
                        e.rank,
                        err.message(palmaplan_model::Lang::En)
                    ))
                })?;
                at = e.rank;
            }
        }
        Ok(at)
    }

    /// Applies a change to the current state and stores its journal entry, as one
    /// transaction at the next rank. `plan` looks at the current state and says which
    /// commands to apply (it may refuse); the store applies them in place, in memory,
    /// and journals them as applied: the entry and nothing in proportion to the
    /// schedule is written. With `expected_rank`, writes only if the schedule is still
    /// at that rank. `plan` may run more than once (after a race lost to another
    /// process it sees the newer state); an `Err` from it, or from applying, is
    /// returned as is, nothing written. Writers of this process take turns on a
    /// schedule.
    pub async fn write<R, E: From<command::ApplyError>>(
        &self,
        id: i64,
        author: i64,
        now_ms: i64,
        expected_rank: Option<i64>,
        mut plan: impl FnMut(&Schedule) -> Result<Change<R>, E>,
    ) -> Result<Result<Written<R>, E>, StoreError> {
        let _turn = self.turns.take(id).await;
        for _ in 0..MAX_RETRIES {
            let (rank, created_at) = self.stamp(id).await?;
            if let Some(expected) = expected_rank
                && rank != expected
            {
                return Ok(Ok(Written::OutOfDate { current: rank }));
            }
            let mut t = self.current(id, created_at, rank).await?;
            if t.rank != rank {
                // Another process wrote in between: decide on the newer state.
                self.states.put(id, t);
                if expected_rank.is_some() {
                    return Ok(Ok(Written::OutOfDate {
                        current: self.rank(id).await?,
                    }));
                }
                continue;
            }
            let change = match plan(&t.state) {
                Ok(c) => c,
                Err(e) => {
                    self.states.put(id, t);
                    return Ok(Err(e));
                }
            };
            // In place: a copy only if a reader still holds this state.
            let state = Arc::make_mut(&mut t.state);
            let applied = match command::apply_cascading(state, &change.commands, change.cascade) {
                Ok(a) => a,
                Err(e) => {
                    // A failed apply leaves the state exactly as it was.
                    self.states.put(id, t);
                    return Ok(Err(E::from(e)));
                }
            };
            let name = state.name.clone();
            let stored = self
                .append(id, rank, &name, author, now_ms, &change, &applied)
                .await;
            match stored {
                Ok(Some(written)) => {
                    // The kept state's size follows what the writes add to it.
                    t.bytes = if change
                        .commands
                        .iter()
                        .any(|c| matches!(c, Command::ReplaceSchedule { .. }))
                    {
                        approx_bytes(&t.state)
                    } else {
                        t.bytes + written
                    };
                }
                Ok(None) => {
                    // Lost to another process: this state is dropped (it holds a change
                    // that was not written), the next round reads the newer one.
                    if expected_rank.is_some() {
                        return Ok(Ok(Written::OutOfDate {
                            current: self.rank(id).await?,
                        }));
                    }
                    continue;
                }
                Err(e) => return Err(e),
            }
            t.rank = rank + 1;
            // Committed: listeners may read it now. No receiver is not an error.
            let _ = self.committed.send((id, rank + 1));
            let shared = Arc::clone(&t.state);
            let every = self
                .snapshot_every
                .max(i64::try_from(t.bytes / SNAPSHOT_BYTES_PER_ENTRY).unwrap_or(i64::MAX));
            self.states.put(id, t);
            if self.states.claim_snapshot(id, created_at, rank + 1, every) {
                self.snapshot_later(id, created_at, rank + 1);
            }
            return Ok(Ok(Written::Done {
                rank: rank + 1,
                state: shared,
                applied: applied.applied,
                inverse: applied.inverse,
                cascade: applied.cascade,
                result: change.result,
            }));
        }
        Err(StoreError::Db(sqlx::Error::PoolTimedOut))
    }

    /// The writing transaction: the rank moves from `rank` to `rank + 1` and the entry is
    /// appended, or (false) another writer moved it first and nothing is written.
    #[allow(clippy::too_many_arguments)]
    async fn append<R>(
        &self,
        id: i64,
        rank: i64,
        name: &str,
        author: i64,
        now_ms: i64,
        change: &Change<R>,
        applied: &command::Applied,
    ) -> Result<Option<usize>, StoreError> {
        // The entry that cannot be written whole is not written at all: its undo would
        // do nothing.
        let commands = serde_json::to_string(&applied.applied)
            .map_err(|e| StoreError::Corrupt(format!("a journal entry: {e}")))?;
        let inverse = serde_json::to_string(&applied.inverse)
            .map_err(|e| StoreError::Corrupt(format!("a journal entry: {e}")))?;
        let mut tx = self.pool.begin().await?;
        let updated = sqlx::query(
            "UPDATE schedules SET name = $1, rank = rank + 1, updated_at = $2 \
             WHERE id = $3 AND rank = $4",
        )
        .bind(name)
        .bind(now_ms)
        .bind(id)
        .bind(rank)
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() != 1 {
            tx.rollback().await?;
            return Ok(None);
        }
        let written = commands.len() + inverse.len();
        sqlx::query(
            "INSERT INTO journal (schedule_id, rank, author, at, kind, target_rank, commands, inverse) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(id)
        .bind(rank + 1)
        .bind(author)
        .bind(now_ms)
        .bind(change.kind.as_str())
        .bind(change.target_rank)
        .bind(commands)
        .bind(inverse)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some(written))
    }

    /// Stores a snapshot of the kept state at `rank` in a task of its own (off the
    /// request path). A newer snapshot is never replaced by an older one.
    fn snapshot_later(&self, id: i64, created_at: i64, rank: i64) {
        let Some((kept, state)) = self.states.get(id, created_at) else {
            self.states.snapshot_done(id, created_at, None);
            return;
        };
        debug_assert!(kept >= rank);
        let store = self.clone();
        tokio::spawn(async move {
            let done = store.store_snapshot(id, created_at, kept, state).await;
            match done {
                Ok(()) => store.states.snapshot_done(id, created_at, Some(kept)),
                Err(e) => {
                    tracing::warn!(error = %e, schedule = id, "a snapshot could not be stored; the next write tries again");
                    store.states.snapshot_done(id, created_at, None);
                }
            }
        });
    }

    /// Writes `state` (at `rank`) as the snapshot of schedule `id`.
    async fn store_snapshot(
        &self,
        id: i64,
        created_at: i64,
        rank: i64,
        state: Arc<Schedule>,
    ) -> Result<(), StoreError> {
        let json = tokio::task::spawn_blocking(move || to_json(&state))
            .await
            .map_err(|e| StoreError::Corrupt(e.to_string()))??;
        sqlx::query(
            "UPDATE snapshots SET state = $1, rank = $2 WHERE schedule_id = $3 AND rank < $2 \
             AND EXISTS (SELECT 1 FROM schedules WHERE id = $3 AND created_at = $4)",
        )
        .bind(json)
        .bind(rank)
        .bind(id)
        .bind(created_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Takes a snapshot of schedule `id` now (tests and maintenance): the state at its
    /// current rank becomes the stored one.
    pub async fn snapshot_now(&self, id: i64) -> Result<i64, StoreError> {
        let (_, created_at) = self.stamp(id).await?;
        let (rank, state) = self.load_shared(id).await?;
        self.store_snapshot(id, created_at, rank, state).await?;
        self.states.snapshot_done(id, created_at, Some(rank));
        Ok(rank)
    }

    /// The rank of a schedule's stored snapshot.
    pub async fn snapshot_rank(&self, id: i64) -> Result<i64, StoreError> {
        self.number_of(id, "SELECT rank FROM snapshots WHERE schedule_id = $1")
            .await
    }

    /// Journal entries after `rank`, oldest first, at most `limit`. One indexed range
    /// query on the journal's primary key: O(entries returned).
    pub async fn changes_since(
        &self,
        id: i64,
        rank: i64,
        limit: i64,
    ) -> Result<Vec<JournalEntry>, StoreError> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            entry_columns!(),
            " FROM journal \
             WHERE schedule_id = $1 AND rank > $2 ORDER BY rank LIMIT $3"
        ))
        .bind(id)
        .bind(rank)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(entry_from_row).collect()
    }

    /// One journal entry.
    pub async fn entry(&self, id: i64, rank: i64) -> Result<Option<JournalEntry>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            entry_columns!(),
            " FROM journal \
             WHERE schedule_id = $1 AND rank = $2"
        ))
        .bind(id)
        .bind(rank)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(entry_from_row).transpose()
    }

    /// The entries below `rank`, newest first, at most `limit`: the journal read backwards
    /// page by page (undo and redo look for the caller's latest entry). One indexed range
    /// query on the primary key.
    pub async fn entries_before(
        &self,
        id: i64,
        rank: i64,
        limit: i64,
    ) -> Result<Vec<JournalEntry>, StoreError> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            entry_columns!(),
            " FROM journal \
             WHERE schedule_id = $1 AND rank < $2 ORDER BY rank DESC LIMIT $3"
        ))
        .bind(id)
        .bind(rank)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(entry_from_row).collect()
    }

    /// The newest entries of a schedule, newest first (for history and undo).
    pub async fn latest_entries(
        &self,
        id: i64,
        limit: i64,
    ) -> Result<Vec<JournalEntry>, StoreError> {
        self.entries_before(id, i64::MAX, limit).await
    }
}

/// Sets (`Some`) or removes (`None`) a user's role on a schedule, in a transaction.
async fn put_role(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    schedule_id: i64,
    user_id: i64,
    role: Option<Role>,
) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM roles WHERE schedule_id = $1 AND user_id = $2")
        .bind(schedule_id)
        .bind(user_id)
        .execute(&mut **tx)
        .await?;
    if let Some(role) = role {
        sqlx::query("INSERT INTO roles (schedule_id, user_id, role) VALUES ($1, $2, $3)")
            .bind(schedule_id)
            .bind(user_id)
            .bind(role.as_str())
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// What [`Store::change_role_keeping_an_owner`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoleChange {
    /// Changed; the role they had before, if any.
    Done { before: Option<Role> },
    /// Refused: they are the schedule's only owner, and would no longer be one.
    LastOwner,
}

/// A schedule in a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleInfo {
    pub id: i64,
    pub name: String,
    pub rank: i64,
    pub role: Role,
    pub updated_at: i64,
}

/// A person's role on a schedule. Ordered: a higher role can do all a lower one can.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Viewer,
    Editor,
    Owner,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Editor => "editor",
            Role::Owner => "owner",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "viewer" => Some(Role::Viewer),
            "editor" => Some(Role::Editor),
            "owner" => Some(Role::Owner),
            _ => None,
        }
    }
}

/// A user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub id: i64,
    pub name: String,
    pub email: String,
}

/// A named API token as listed (never its secret: only a hash is stored).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenInfo {
    pub id: i64,
    pub user_id: i64,
    pub label: String,
    pub can_write: bool,
    pub schedule_id: Option<i64>,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

/// A saved version as listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionInfo {
    pub id: i64,
    pub name: String,
    pub rank: i64,
    pub created_at: i64,
    pub created_by: i64,
}

macro_rules! token_columns {
    () => {
        "id, user_id, label, can_write, schedule_id, created_at, last_used_at, revoked_at"
    };
}

fn token_from_row(row: &AnyRow) -> Result<TokenInfo, StoreError> {
    let can_write: i64 = row.try_get(3)?;
    Ok(TokenInfo {
        id: row.try_get(0)?,
        user_id: row.try_get(1)?,
        label: row.try_get(2)?,
        can_write: can_write != 0,
        schedule_id: row.try_get(4)?,
        created_at: row.try_get(5)?,
        last_used_at: row.try_get(6)?,
        revoked_at: row.try_get(7)?,
    })
}

impl Store {
    /// Adds a user; the e-mail is unique.
    pub async fn add_user(&self, name: &str, email: &str, now_ms: i64) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "INSERT INTO users (name, email, created_at) VALUES ($1, $2, $3) RETURNING id",
        )
        .bind(name)
        .bind(email)
        .bind(now_ms)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get(0)?)
    }

    pub async fn user(&self, id: i64) -> Result<Option<User>, StoreError> {
        let row = sqlx::query("SELECT id, name, email FROM users WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(user_from_row).transpose()
    }

    pub async fn user_by_email(&self, email: &str) -> Result<Option<User>, StoreError> {
        let row = sqlx::query("SELECT id, name, email FROM users WHERE email = $1")
            .bind(email)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(user_from_row).transpose()
    }

    pub async fn user_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query("SELECT COUNT(*) FROM users")
            .fetch_one(&self.pool)
            .await?
            .try_get(0)?)
    }

    /// Stores a token by the hash of its secret.
    pub async fn add_token(
        &self,
        user_id: i64,
        label: &str,
        hash: &str,
        can_write: bool,
        schedule_id: Option<i64>,
        now_ms: i64,
    ) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "INSERT INTO tokens (user_id, label, hash, can_write, schedule_id, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(user_id)
        .bind(label)
        .bind(hash)
        .bind(i64::from(can_write))
        .bind(schedule_id)
        .bind(now_ms)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get(0)?)
    }

    /// The live (not revoked) token with this hash, marking it used now.
    pub async fn use_token(
        &self,
        hash: &str,
        now_ms: i64,
    ) -> Result<Option<TokenInfo>, StoreError> {
        let row = sqlx::query(concat!(
            "SELECT ",
            token_columns!(),
            " FROM tokens WHERE hash = $1 AND revoked_at IS NULL"
        ))
        .bind(hash)
        .fetch_optional(&self.pool)
        .await?;
        let Some(mut token) = row.as_ref().map(token_from_row).transpose()? else {
            return Ok(None);
        };
        // Every MCP request authenticates; writing the last use each time would make
        // every read a write (and serialise readers on SQLite). A minute's precision is
        // all "last used" needs.
        if token
            .last_used_at
            .is_none_or(|t| now_ms - t >= LAST_USE_PRECISION_MS)
        {
            sqlx::query("UPDATE tokens SET last_used_at = $1 WHERE id = $2")
                .bind(now_ms)
                .bind(token.id)
                .execute(&self.pool)
                .await?;
            token.last_used_at = Some(now_ms);
        }
        Ok(Some(token))
    }

    /// A user's tokens, newest first, revoked ones included.
    pub async fn tokens(&self, user_id: i64) -> Result<Vec<TokenInfo>, StoreError> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            token_columns!(),
            " FROM tokens WHERE user_id = $1 ORDER BY id DESC"
        ))
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(token_from_row).collect()
    }

    /// Revokes one of a user's tokens; false when there is no such live token.
    pub async fn revoke_token(
        &self,
        user_id: i64,
        token_id: i64,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND user_id = $3 AND revoked_at IS NULL",
        )
        .bind(now_ms)
        .bind(token_id)
        .bind(user_id)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Whether a credential (`Caller::credential`: a named token's id, or minus an
    /// OAuth grant's id) is still live: not revoked. An unknown one is not.
    pub async fn credential_live(&self, credential: i64) -> Result<bool, StoreError> {
        let sql = if credential > 0 {
            "SELECT 1 FROM tokens WHERE id = $1 AND revoked_at IS NULL"
        } else {
            "SELECT 1 FROM oauth_grants WHERE id = $1 AND revoked_at IS NULL"
        };
        let row = sqlx::query(sql)
            .bind(credential.saturating_abs())
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.is_some())
    }

    /// Gives (or changes) a user's role on a schedule.
    pub async fn set_role(
        &self,
        schedule_id: i64,
        user_id: i64,
        role: Role,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        put_role(&mut tx, schedule_id, user_id, Some(role)).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Gives, changes (`Some`) or removes (`None`) a user's role on a schedule, unless
    /// that would leave it without an owner. One transaction that first takes the
    /// schedule's row (a row lock on PostgreSQL, the write lock on SQLite), so two
    /// owners demoting each other at once cannot both pass the check: the second reads
    /// the first's change.
    pub async fn change_role_keeping_an_owner(
        &self,
        schedule_id: i64,
        user_id: i64,
        role: Option<Role>,
    ) -> Result<RoleChange, StoreError> {
        let mut tx = self.pool.begin().await?;
        let found = sqlx::query("UPDATE schedules SET rank = rank WHERE id = $1")
            .bind(schedule_id)
            .execute(&mut *tx)
            .await?;
        if found.rows_affected() != 1 {
            return Err(StoreError::NotFound);
        }
        let rows = sqlx::query("SELECT user_id, role FROM roles WHERE schedule_id = $1")
            .bind(schedule_id)
            .fetch_all(&mut *tx)
            .await?;
        let mut before = None;
        let mut owners = 0;
        for r in &rows {
            let who: i64 = r.try_get(0)?;
            let s: String = r.try_get(1)?;
            let had = Role::parse(&s).ok_or_else(|| StoreError::Corrupt(format!("role {s:?}")))?;
            if had == Role::Owner {
                owners += 1;
            }
            if who == user_id {
                before = Some(had);
            }
        }
        if before == Some(Role::Owner) && role != Some(Role::Owner) && owners <= 1 {
            return Ok(RoleChange::LastOwner);
        }
        put_role(&mut tx, schedule_id, user_id, role).await?;
        tx.commit().await?;
        Ok(RoleChange::Done { before })
    }

    /// Removes a user's role on a schedule; false when they had none.
    pub async fn remove_role(&self, schedule_id: i64, user_id: i64) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM roles WHERE schedule_id = $1 AND user_id = $2")
            .bind(schedule_id)
            .bind(user_id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// A user's role on a schedule, if any.
    pub async fn role(&self, schedule_id: i64, user_id: i64) -> Result<Option<Role>, StoreError> {
        let row = sqlx::query("SELECT role FROM roles WHERE schedule_id = $1 AND user_id = $2")
            .bind(schedule_id)
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?;
        match row {
            None => Ok(None),
            Some(r) => {
                let s: String = r.try_get(0)?;
                Role::parse(&s)
                    .map(Some)
                    .ok_or_else(|| StoreError::Corrupt(format!("role {s:?}")))
            }
        }
    }

    /// The people with a role on a schedule: (user, role), by user id.
    pub async fn members_with_roles(
        &self,
        schedule_id: i64,
    ) -> Result<Vec<(User, Role)>, StoreError> {
        let rows = sqlx::query(
            "SELECT u.id, u.name, u.email, r.role FROM roles r JOIN users u ON u.id = r.user_id \
             WHERE r.schedule_id = $1 ORDER BY u.id",
        )
        .bind(schedule_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let role: String = r.try_get(3)?;
                let role = Role::parse(&role)
                    .ok_or_else(|| StoreError::Corrupt(format!("role {role:?}")))?;
                Ok((user_from_row(r)?, role))
            })
            .collect()
    }

    /// The schedules a user has a role on, by name.
    pub async fn schedules_of(&self, user_id: i64) -> Result<Vec<ScheduleInfo>, StoreError> {
        let rows = sqlx::query(
            "SELECT s.id, s.name, s.rank, r.role, s.updated_at FROM schedules s \
             JOIN roles r ON r.schedule_id = s.id WHERE r.user_id = $1 ORDER BY s.name, s.id",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let role: String = r.try_get(3)?;
                Ok(ScheduleInfo {
                    id: r.try_get(0)?,
                    name: r.try_get(1)?,
                    rank: r.try_get(2)?,
                    role: Role::parse(&role)
                        .ok_or_else(|| StoreError::Corrupt(format!("role {role:?}")))?,
                    updated_at: r.try_get(4)?,
                })
            })
            .collect()
    }

    /// Deletes a schedule with its journal, roles and versions.
    pub async fn delete_schedule(&self, id: i64) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        // The schedule's row first, as every transaction that changes its roles takes
        // it first (`change_role_keeping_an_owner`): in the same order, two of them wait
        // for each other instead of deadlocking on PostgreSQL.
        for sql in [
            "UPDATE schedules SET rank = rank WHERE id = $1",
            "DELETE FROM journal WHERE schedule_id = $1",
            "DELETE FROM snapshots WHERE schedule_id = $1",
            "DELETE FROM roles WHERE schedule_id = $1",
            "DELETE FROM versions WHERE schedule_id = $1",
        ] {
            sqlx::query(sql).bind(id).execute(&mut *tx).await?;
        }
        let done = sqlx::query("DELETE FROM schedules WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.states.forget(id);
        Ok(done.rows_affected() == 1)
    }

    /// Saves the current state as a named version.
    pub async fn save_version(
        &self,
        schedule_id: i64,
        name: &str,
        by: i64,
        now_ms: i64,
    ) -> Result<VersionInfo, StoreError> {
        let cur = self.load(schedule_id).await?;
        let row = sqlx::query(
            "INSERT INTO versions (schedule_id, name, rank, state, created_at, created_by) \
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(schedule_id)
        .bind(name)
        .bind(cur.rank)
        .bind(to_json(&cur.state)?)
        .bind(now_ms)
        .bind(by)
        .fetch_one(&self.pool)
        .await?;
        Ok(VersionInfo {
            id: row.try_get(0)?,
            name: name.to_owned(),
            rank: cur.rank,
            created_at: now_ms,
            created_by: by,
        })
    }

    pub async fn versions(&self, schedule_id: i64) -> Result<Vec<VersionInfo>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, name, rank, created_at, created_by FROM versions WHERE schedule_id = $1 ORDER BY id",
        )
        .bind(schedule_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(version_from_row).collect()
    }

    /// A version's snapshot, if it belongs to the schedule.
    pub async fn version_state(
        &self,
        schedule_id: i64,
        version_id: i64,
    ) -> Result<Option<(VersionInfo, Schedule)>, StoreError> {
        let row = sqlx::query(
            "SELECT id, name, rank, created_at, created_by, state FROM versions WHERE schedule_id = $1 AND id = $2",
        )
        .bind(schedule_id)
        .bind(version_id)
        .fetch_optional(&self.pool)
        .await?;
        match row {
            None => Ok(None),
            Some(r) => {
                let state: String = r.try_get(5)?;
                Ok(Some((version_from_row(&r)?, from_json(&state)?)))
            }
        }
    }

    pub async fn delete_version(
        &self,
        schedule_id: i64,
        version_id: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM versions WHERE schedule_id = $1 AND id = $2")
            .bind(schedule_id)
            .bind(version_id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }
}

/// A user from the columns (id, name, email).
fn user_from_row(r: &AnyRow) -> Result<User, StoreError> {
    Ok(User {
        id: r.try_get(0)?,
        name: r.try_get(1)?,
        email: r.try_get(2)?,
    })
}

/// A version from the columns (id, name, rank, created_at, created_by).
fn version_from_row(r: &AnyRow) -> Result<VersionInfo, StoreError> {
    Ok(VersionInfo {
        id: r.try_get(0)?,
        name: r.try_get(1)?,
        rank: r.try_get(2)?,
        created_at: r.try_get(3)?,
        created_by: r.try_get(4)?,
    })
}

fn entry_from_row(row: &AnyRow) -> Result<JournalEntry, StoreError> {
    let kind: String = row.try_get(3)?;
    Ok(JournalEntry {
        rank: row.try_get(0)?,
        author: row.try_get(1)?,
        at: row.try_get(2)?,
        kind: EntryKind::parse(&kind)?,
        target_rank: row.try_get(4)?,
        commands: row.try_get(5)?,
        inverse: row.try_get(6)?,
    })
}

fn to_json(s: &Schedule) -> Result<String, StoreError> {
    serde_json::to_string(s).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn from_json(s: &str) -> Result<Schedule, StoreError> {
    serde_json::from_str(s).map_err(|e| StoreError::Corrupt(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use palmaplan_model::command::ApplyError;

    /// The URL of a fresh SQLite database in a temporary folder of its own.
    fn sqlite_url(name: &str) -> String {
        let dir =
            std::env::temp_dir().join(format!("palmaplan-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        format!("sqlite://{}", dir.join("db.sqlite").display())
    }

    /// A fresh SQLite database in a temporary folder of its own.
    async fn sqlite_store(name: &str) -> Store {
        Store::open(&sqlite_url(name)).await.unwrap()
    }

    /// A fresh database on the PostgreSQL server that `.ci/test.sh` starts (or that
    /// PALMAPLAN_TEST_POSTGRES names). Missing, the test fails: both backends must pass
    /// the same suite, so a silent skip would hide a broken one.
    async fn postgres_store(name: &str) -> Store {
        Store::open(&postgres_url(name).await).await.unwrap()
    }

    /// Two stores on one fresh database, standing for two server processes.
    async fn pair(backend: Backend, name: &str) -> (Store, Store) {
        let url = match backend {
            Backend::Sqlite => sqlite_url(name),
            Backend::Postgres => postgres_url(name).await,
        };
        (
            Store::open(&url).await.unwrap(),
            Store::open(&url).await.unwrap(),
        )
    }

    /// The URL of a fresh database on the test PostgreSQL server.
    async fn postgres_url(name: &str) -> String {
        let admin = std::env::var("PALMAPLAN_TEST_POSTGRES").expect(
            "PALMAPLAN_TEST_POSTGRES is not set: run the tests with `bash .ci/test.sh`, which starts \
             a PostgreSQL server, or set it to an admin URL such as postgres://user@127.0.0.1:5432/postgres",
        );
        sqlx::any::install_default_drivers();
        let db = format!("palmaplan_test_{}_{name}", std::process::id());
        let pool = AnyPoolOptions::new()
            .max_connections(1)
            .connect(&admin)
            .await
            .unwrap();
        pool.execute(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {db}")))
            .await
            .unwrap();
        pool.execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {db}")))
            .await
            .unwrap();
        let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
        format!("{base}/{db}")
    }

    /// Runs one storage test on both backends.
    macro_rules! on_both_backends {
        ($name:ident, $body:ident) => {
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn sqlite() {
                    super::$body(super::sqlite_store(stringify!($name)).await).await;
                }
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn postgres() {
                    super::$body(super::postgres_store(stringify!($name)).await).await;
                }
            }
        };
    }

    on_both_backends!(concurrent_writers, concurrent_writers_get_gapless_ranks);
    on_both_backends!(expected_rank, expected_rank_is_decided_at_write_time);
    on_both_backends!(people, users_tokens_roles_versions);
    on_both_backends!(oauth, oauth_clients_grants_codes_tokens);
    on_both_backends!(unused_clients, unused_clients_go_after_a_day);
    on_both_backends!(last_owner, two_owners_demoting_each_other_leave_one);

    /// Runs a two-process storage test on both backends.
    macro_rules! on_both_backends_twice {
        ($name:ident, $body:ident) => {
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn sqlite() {
                    let (a, b) = super::pair(super::Backend::Sqlite, stringify!($name)).await;
                    super::$body(a, b).await;
                }
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn postgres() {
                    let (a, b) = super::pair(super::Backend::Postgres, stringify!($name)).await;
                    super::$body(a, b).await;
                }
            }
        };
    }

    on_both_backends_twice!(journal_truth, the_journal_is_the_truth);
    on_both_backends_twice!(interleaved, two_processes_stay_consistent);

    /// A move of bar 14 of the demo by `by` working days.
    fn move14(by: i32) -> Change<()> {
        Change {
            commands: vec![Command::MovePeriods {
                bars: vec![palmaplan_model::BarId(14)],
                milestones: vec![],
                by,
            }],
            kind: EntryKind::Write,
            target_rank: None,
            cascade: None,
            result: (),
        }
    }

    /// A write stores its entry and nothing in proportion to the schedule; any process
    /// finds the same state from the snapshot and the entries after it; snapshots come
    /// later, off the request path, and change nothing of what is read.
    async fn the_journal_is_the_truth(a: Store, b: Store) {
        let owner = a.add_user("O", "o@example.org", 0).await.unwrap();
        let start = palmaplan_model::demo::s4hana_migration();
        let id = a.create_schedule(&start, owner, 0).await.unwrap();
        for k in 0..5 {
            let by = if k % 2 == 0 { 2 } else { -1 };
            a.write(id, owner, 1, None, |_| Ok::<_, ApplyError>(move14(by)))
                .await
                .unwrap()
                .unwrap();
        }
        assert_eq!(
            a.snapshot_rank(id).await.unwrap(),
            0,
            "no state stored by a write"
        );
        let mine = a.load(id).await.unwrap();
        let theirs = b.load(id).await.unwrap();
        assert_eq!(
            (theirs.rank, &theirs.state),
            (5, &mine.state),
            "replayed elsewhere"
        );
        let (mut replayed, entries) = (start.clone(), a.changes_since(id, 0, 100).await.unwrap());
        for e in entries {
            let cmds: Vec<Command> = serde_json::from_str(&e.commands).unwrap();
            command::apply_in_place(&mut replayed, &cmds).unwrap();
        }
        assert_eq!(replayed, mine.state, "the journal alone gives the state");
        assert_eq!(a.snapshot_now(id).await.unwrap(), 5);
        assert_eq!(b.snapshot_rank(id).await.unwrap(), 5);
        let third = pair_again(&b).await;
        assert_eq!(third.load(id).await.unwrap().state, mine.state);

        // SNAPSHOT_EVERY entries past the snapshot, a write starts one in the background.
        for k in 0..SNAPSHOT_EVERY {
            let by = if k % 2 == 0 { 1 } else { -1 };
            b.write(id, owner, 2, None, |_| Ok::<_, ApplyError>(move14(by)))
                .await
                .unwrap()
                .unwrap();
        }
        // (b counts from the snapshot it knew of, so it is due a little earlier.)
        let mut waited = 0;
        while b.snapshot_rank(id).await.unwrap() < SNAPSHOT_EVERY && waited < 100 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            waited += 1;
        }
        let taken = b.snapshot_rank(id).await.unwrap();
        assert!(
            taken >= SNAPSHOT_EVERY,
            "a snapshot was taken in the background: {taken}"
        );
        let (x, y) = (a.load(id).await.unwrap(), b.load(id).await.unwrap());
        assert_eq!((x.rank, &x.state), (5 + SNAPSHOT_EVERY, &y.state));
        assert_eq!(pair_again(&a).await.load(id).await.unwrap().state, x.state);
    }

    /// A third store on the database of `s` (a restart).
    async fn pair_again(s: &Store) -> Store {
        Store {
            pool: s.pool.clone(),
            backend: s.backend,
            snapshot_every: s.snapshot_every,
            turns: Arc::default(),
            states: Arc::default(),
            // Another process: it does not hear this one's commits.
            committed: tokio::sync::broadcast::channel(COMMITTED_BACKLOG).0,
        }
    }

    /// Two processes writing in turn and at once: gapless ranks, one state, and an
    /// expected rank decided in the writing transaction whoever wrote last.
    async fn two_processes_stay_consistent(a: Store, b: Store) {
        let owner = a.add_user("O", "o@example.org", 0).await.unwrap();
        let id = a
            .create_schedule(&palmaplan_model::demo::s4hana_migration(), owner, 0)
            .await
            .unwrap();
        for k in 0..20 {
            let s = if k % 2 == 0 { &a } else { &b };
            s.write(id, owner, 1, None, |_| Ok::<_, ApplyError>(move14(1)))
                .await
                .unwrap()
                .unwrap();
        }
        let mut tasks = Vec::new();
        for w in 0..8 {
            let s = if w % 2 == 0 { a.clone() } else { b.clone() };
            tasks.push(tokio::spawn(async move {
                for _ in 0..10 {
                    s.write(id, owner, 1, None, |_| Ok::<_, ApplyError>(move14(-1)))
                        .await
                        .unwrap()
                        .unwrap();
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        let (x, y) = (a.load(id).await.unwrap(), b.load(id).await.unwrap());
        assert_eq!((x.rank, y.rank), (100, 100));
        assert_eq!(x.state, y.state);
        let ranks: Vec<i64> = a
            .changes_since(id, 0, 1_000)
            .await
            .unwrap()
            .iter()
            .map(|e| e.rank)
            .collect();
        assert_eq!(ranks, (1..=100).collect::<Vec<_>>());
        // +20 then -80 working days: bar 14 is 60 working days earlier than it began.
        let demo = palmaplan_model::demo::s4hana_migration();
        let cal = palmaplan_model::calendar::Calendar::for_schedule(&demo);
        let b14 = demo.bar(palmaplan_model::BarId(14)).unwrap();
        let moved = x.state.bar(palmaplan_model::BarId(14)).unwrap();
        assert_eq!(cal.diff(moved.start, b14.start), 60);
        // b is at rank 100 too: a write expecting 99 is refused, by either.
        let late = a
            .write(id, owner, 1, Some(99), |_| Ok::<_, ApplyError>(move14(1)))
            .await
            .unwrap()
            .unwrap();
        assert!(matches!(late, Written::OutOfDate { current: 100 }));
    }

    /// A database made by the first schema (no snapshot rank) opens with its schedules
    /// and their journals as they were.
    #[tokio::test]
    async fn a_database_of_the_first_schema_is_migrated_with_everything() {
        use sqlx::SqlSafeStr;
        use sqlx::migrate::{Migration, MigrationType, Migrator};
        let url = sqlite_url("migrate_v1");
        sqlx::any::install_default_drivers();
        let pool = AnyPoolOptions::new()
            .connect(&format!("{url}?mode=rwc"))
            .await
            .unwrap();
        Migrator::with_migrations(vec![Migration::new(
            1,
            "init".into(),
            MigrationType::Simple,
            include_str!("../migrations/sqlite/0001_init.sql").into_sql_str(),
            false,
        )])
        .run(&pool)
        .await
        .unwrap();
        // What the first schema's writes left: the state at rank 2, two entries.
        let start = palmaplan_model::demo::s4hana_migration();
        let (after, done) = command::apply(&start, &move14(3).commands).unwrap();
        let (after, done2) = command::apply(&after, &move14(1).commands).unwrap();
        sqlx::query(
            "INSERT INTO users (id, name, email, created_at) VALUES (1, 'O', 'o@example.org', 0)",
        )
        .execute(&pool)
        .await
        .unwrap();
        sqlx::query("INSERT INTO schedules (id, name, state, rank, created_at, updated_at) VALUES (1, $1, $2, 2, 5, 6)")
            .bind(&after.name)
            .bind(serde_json::to_string(&after).unwrap())
            .execute(&pool)
            .await
            .unwrap();
        sqlx::query("INSERT INTO roles (schedule_id, user_id, role) VALUES (1, 1, 'owner')")
            .execute(&pool)
            .await
            .unwrap();
        for (rank, d) in [(1, &done), (2, &done2)] {
            sqlx::query("INSERT INTO journal (schedule_id, rank, author, at, kind, target_rank, commands, inverse) VALUES (1, $1, 1, 6, 'write', NULL, $2, $3)")
                .bind(rank)
                .bind(serde_json::to_string(&d.applied).unwrap())
                .bind(serde_json::to_string(&d.inverse).unwrap())
                .execute(&pool)
                .await
                .unwrap();
        }
        pool.close().await;
        let store = Store::open(&url).await.unwrap();
        let s = store.load(1).await.unwrap();
        assert_eq!((s.rank, &s.state), (2, &after));
        assert_eq!(store.snapshot_rank(1).await.unwrap(), 2);
        assert_eq!(store.changes_since(1, 0, 10).await.unwrap().len(), 2);
        // And it goes on from there.
        store
            .write(1, 1, 7, Some(2), |_| Ok::<_, ApplyError>(move14(-4)))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(store.load(1).await.unwrap().state, start);
    }

    /// A change that appends `more` to the schedule's notes.
    fn notes(cur: &Schedule, more: &str) -> Change<()> {
        set_notes(&format!("{}{more}", cur.notes))
    }

    /// A change that sets the schedule's notes.
    fn set_notes(notes: &str) -> Change<()> {
        Change {
            commands: vec![Command::SetScheduleNotes {
                notes: notes.to_owned(),
            }],
            kind: EntryKind::Write,
            target_rank: None,
            cascade: None,
            result: (),
        }
    }

    async fn concurrent_writers_get_gapless_ranks(store: Store) {
        let owner = store.add_user("O", "o@example.org", 0).await.unwrap();
        let id = store
            .create_schedule(&Schedule::new("C"), owner, 0)
            .await
            .unwrap();
        let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for w in 0..16 {
            let store = store.clone();
            let calls = Arc::clone(&calls);
            tasks.push(tokio::spawn(async move {
                for k in 0..10 {
                    let out = store
                        .write(id, w, 1, None, |cur| {
                            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            Ok::<_, ApplyError>(notes(cur, &format!("{w}.{k};")))
                        })
                        .await
                        .unwrap()
                        .unwrap();
                    assert!(matches!(out, Written::Done { .. }));
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        let entries = store.changes_since(id, 0, 1_000).await.unwrap();
        let ranks: Vec<i64> = entries.iter().map(|e| e.rank).collect();
        assert_eq!(ranks, (1..=160).collect::<Vec<_>>());
        let back: Vec<i64> = store
            .entries_before(id, 11, 3)
            .await
            .unwrap()
            .iter()
            .map(|e| e.rank)
            .collect();
        assert_eq!(back, [10, 9, 8], "read backwards from a rank");
        let stored = store.load(id).await.unwrap();
        assert_eq!(stored.rank, 160);
        // Every write is in the state exactly once: none was lost to a race.
        assert_eq!(stored.state.notes.matches(';').count(), 160);
        // Writers of one process took turns: none built a state only to lose the race
        // and start again, and no line is left behind.
        assert_eq!(calls.load(std::sync::atomic::Ordering::Relaxed), 160);
        assert_eq!(store.turns.len(), 0);
    }

    /// Two stores on one file stand for two processes: each has its own turns, so their
    /// writers race and the rank check in the transaction decides.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn writers_of_two_processes_still_get_gapless_ranks() {
        let url = sqlite_url("two_processes");
        let a = Store::open(&url).await.unwrap();
        let b = Store::open(&url).await.unwrap();
        let owner = a.add_user("O", "o@example.org", 0).await.unwrap();
        let id = a
            .create_schedule(&Schedule::new("T"), owner, 0)
            .await
            .unwrap();
        let mut tasks = Vec::new();
        for w in 0..8 {
            let store = if w % 2 == 0 { a.clone() } else { b.clone() };
            tasks.push(tokio::spawn(async move {
                for k in 0..10 {
                    store
                        .write(id, w, 1, None, |cur| {
                            Ok::<_, ApplyError>(notes(cur, &format!("{w}.{k};")))
                        })
                        .await
                        .unwrap()
                        .unwrap();
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        let ranks: Vec<i64> = b
            .changes_since(id, 0, 1_000)
            .await
            .unwrap()
            .iter()
            .map(|e| e.rank)
            .collect();
        assert_eq!(ranks, (1..=80).collect::<Vec<_>>());
        let stored = a.load(id).await.unwrap();
        assert_eq!(stored.rank, 80);
        assert_eq!(stored.state.notes.matches(';').count(), 80);
    }

    /// Another process's writes, deletes and creations are seen at once, even though a
    /// store keeps parsed states.
    #[tokio::test]
    async fn kept_states_are_never_stale() {
        let url = sqlite_url("kept_states");
        let a = Store::open(&url).await.unwrap();
        let b = Store::open(&url).await.unwrap();
        let owner = a.add_user("O", "o@example.org", 0).await.unwrap();
        let id = a
            .create_schedule(&Schedule::new("X"), owner, 1)
            .await
            .unwrap();
        assert_eq!(a.load(id).await.unwrap().state.name, "X");
        assert!(a.states.get(id, 1).is_some(), "a read keeps the state");
        b.write(id, owner, 2, None, |_| {
            Ok::<_, ApplyError>(set_notes("from b"))
        })
        .await
        .unwrap()
        .unwrap();
        let seen = a.load(id).await.unwrap();
        assert_eq!((seen.rank, seen.state.notes.as_str()), (1, "from b"));
        // A write keeps the state it wrote: the next read parses nothing.
        a.write(id, owner, 3, None, |_| {
            Ok::<_, ApplyError>(set_notes("from a"))
        })
        .await
        .unwrap()
        .unwrap();
        let (kept, state) = a.states.get(id, 1).unwrap();
        assert_eq!((kept, state.notes.as_str()), (2, "from a"));

        // SQLite gives the id of the last schedule again once it is deleted: the creation
        // time tells the new one apart, at the same rank.
        assert!(b.delete_schedule(id).await.unwrap());
        assert!(matches!(a.load(id).await, Err(StoreError::NotFound)));
        let again = b
            .create_schedule(&Schedule::new("Y"), owner, 4)
            .await
            .unwrap();
        assert_eq!(again, id, "SQLite gave the id again");
        assert_eq!(a.load(id).await.unwrap().state.name, "Y");
        // In one process (a fixed clock gives the same creation time), creating forgets.
        assert!(a.delete_schedule(id).await.unwrap());
        let z = a
            .create_schedule(&Schedule::new("Z"), owner, 4)
            .await
            .unwrap();
        assert_eq!((z, a.load(z).await.unwrap().state.name.as_str()), (id, "Z"));
    }

    #[tokio::test]
    async fn the_kept_states_are_bounded_in_bytes() {
        let probe = sqlite_store("kept_probe").await;
        let owner = probe.add_user("O", "o@example.org", 0).await.unwrap();
        let big = palmaplan_model::synth::generate(palmaplan_model::synth::Spec::new(1_000));
        let one = probe.create_schedule(&big, owner, 0).await.unwrap();
        probe.load(one).await.unwrap();
        let size = probe.states.bytes();
        assert!(
            size > 100_000,
            "a 1,000-bar state is estimated at {size} bytes"
        );
        // A budget of three such states keeps three, the most recently read.
        let url = sqlite_url("kept_bounded");
        let store = Store::open_with(
            &url,
            StoreOptions {
                state_cache_bytes: size * 3 + size / 2,
                ..StoreOptions::default()
            },
        )
        .await
        .unwrap();
        let owner = store.add_user("O", "o@example.org", 0).await.unwrap();
        let mut ids = Vec::new();
        for _ in 0..6 {
            let id = store.create_schedule(&big, owner, 0).await.unwrap();
            store.load(id).await.unwrap();
            ids.push(id);
        }
        assert_eq!(store.states.len(), 3);
        assert!(store.states.bytes() <= size * 3 + size / 2);
        assert!(store.states.get(ids[0], 0).is_none());
        assert!(store.states.get(ids[5], 0).is_some());
    }

    async fn expected_rank_is_decided_at_write_time(store: Store) {
        let owner = store.add_user("O", "o@example.org", 0).await.unwrap();
        let id = store
            .create_schedule(&Schedule::new("E"), owner, 0)
            .await
            .unwrap();
        let step = |_: &Schedule| Ok::<_, ApplyError>(set_notes("x"));
        let first = store.write(id, 1, 1, Some(0), step).await.unwrap().unwrap();
        assert!(matches!(first, Written::Done { rank: 1, .. }));
        let second = store.write(id, 1, 1, Some(0), step).await.unwrap().unwrap();
        assert!(matches!(second, Written::OutOfDate { current: 1 }));
        assert_eq!(store.changes_since(id, 0, 10).await.unwrap().len(), 1);
        assert!(store.changes_since(id, 1, 10).await.unwrap().is_empty());
        assert!(matches!(store.load(99).await, Err(StoreError::NotFound)));
        // The stamp: rank and creation time.
        let e2 = store
            .create_schedule(&Schedule::new("E2"), owner, 7)
            .await
            .unwrap();
        assert_eq!(store.stamp(id).await.unwrap(), (1, 0));
        assert_eq!(store.stamp(e2).await.unwrap(), (0, 7));
        assert!(matches!(store.stamp(99).await, Err(StoreError::NotFound)));
    }

    async fn oauth_clients_grants_codes_tokens(store: Store) {
        let alice = store
            .add_user("Alice", "alice@example.org", 1)
            .await
            .unwrap();
        let bob = store.add_user("Bob", "bob@example.org", 1).await.unwrap();
        assert!(store.set_password_hash(alice, "$argon2id$x").await.unwrap());
        assert!(!store.set_password_hash(999, "$argon2id$x").await.unwrap());
        let (user, phc) = store
            .user_with_password("alice@example.org")
            .await
            .unwrap()
            .unwrap();
        assert_eq!((user.id, phc.as_deref()), (alice, Some("$argon2id$x")));
        let (_, none) = store
            .user_with_password("bob@example.org")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(none, None, "no password until one is set");

        let client = OAuthClient {
            client_id: "pcl_1".into(),
            name: "Claude".into(),
            redirect_uris: vec![
                "https://claude.ai/cb".into(),
                "http://127.0.0.1:9/cb".into(),
            ],
            created_at: 2,
            kept_until: None,
        };
        store.add_client(&client).await.unwrap();
        assert_eq!(store.client("pcl_1").await.unwrap(), Some(client.clone()));
        assert!(
            store.add_client(&client).await.is_err(),
            "client ids are unique"
        );
        assert_eq!(store.client("pcl_2").await.unwrap(), None);
        // A metadata document's client is stored, then replaced when fetched again.
        let mut doc = OAuthClient {
            client_id: "https://app.example/client.json".into(),
            name: "App".into(),
            redirect_uris: vec!["https://app.example/cb".into()],
            created_at: 3,
            kept_until: Some(9),
        };
        store.put_client(&doc).await.unwrap();
        assert_eq!(
            store.client(&doc.client_id).await.unwrap(),
            Some(doc.clone())
        );
        doc.name = "App 2".into();
        doc.redirect_uris.push("https://app.example/cb2".into());
        doc.created_at = 4;
        doc.kept_until = Some(10);
        store.put_client(&doc).await.unwrap();
        assert_eq!(
            store.client(&doc.client_id).await.unwrap(),
            Some(doc.clone())
        );

        let g = store
            .add_grant("pcl_1", alice, false, Some(7), "http://x/mcp", 3)
            .await
            .unwrap();
        store
            .add_code("c1", g, "https://claude.ai/cb", "chal", 63)
            .await
            .unwrap();
        let (peeked, spent) = store.code("c1").await.unwrap().unwrap();
        assert_eq!((peeked.grant.id, peeked.expires_at, spent), (g, 63, false));
        assert!(store.code("nope").await.unwrap().is_none());
        let SpentCode::Fresh(code) = store.spend_code("c1", 4).await.unwrap() else {
            panic!("the first use spends the code");
        };
        assert_eq!(
            (code.grant.id, code.grant.can_write, code.grant.schedule_id),
            (g, false, Some(7))
        );
        assert_eq!(
            (code.expires_at, code.code_challenge.as_str()),
            (63, "chal")
        );
        assert_eq!(code.grant.client_name, "Claude");
        assert_eq!(
            store.spend_code("c1", 5).await.unwrap(),
            SpentCode::Again { grant_id: g },
            "a code is spent once"
        );
        assert!(store.code("c1").await.unwrap().unwrap().1, "seen spent");
        assert_eq!(
            store.spend_code("nope", 5).await.unwrap(),
            SpentCode::Unknown
        );

        store
            .add_grant_token(g, TokenKind::Access, "a1", 5, 100)
            .await
            .unwrap();
        store
            .add_grant_token(g, TokenKind::Refresh, "r1", 5, 1000)
            .await
            .unwrap();
        let a = store
            .grant_token("a1", TokenKind::Access)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((a.grant.id, a.expires_at, a.revoked_at), (g, 100, None));
        assert!(
            store
                .grant_token("a1", TokenKind::Refresh)
                .await
                .unwrap()
                .is_none(),
            "an access token is not a refresh token"
        );
        let r = store
            .grant_token("r1", TokenKind::Refresh)
            .await
            .unwrap()
            .unwrap();
        assert!(
            store.revoke_grant_token(r.id, 6).await.unwrap(),
            "the rotation wins once"
        );
        assert!(
            !store.revoke_grant_token(r.id, 7).await.unwrap(),
            "and only once"
        );
        store.touch_grant_token(&a, 8).await.unwrap();
        let used = store
            .grant_token("a1", TokenKind::Access)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((used.created_at, used.last_used_at), (5, Some(8)));
        store.touch_grant_token(&used, 9).await.unwrap();
        let again = store
            .grant_token("a1", TokenKind::Access)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(again.last_used_at, Some(8), "kept to the minute");

        assert!(
            !store.revoke_grant(g, Some(bob), 9).await.unwrap(),
            "not Bob's grant"
        );
        assert!(store.revoke_grant(g, Some(alice), 9).await.unwrap());
        assert!(
            !store.revoke_grant(g, None, 10).await.unwrap(),
            "revoked once"
        );
        let a = store
            .grant_token("a1", TokenKind::Access)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (a.revoked_at, a.grant.revoked_at),
            (Some(9), Some(9)),
            "its tokens die with it"
        );
        let listed = store.grants(alice).await.unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(
            (listed[0].last_used_at, listed[0].revoked_at),
            (Some(8), Some(9))
        );
        assert!(store.grants(bob).await.unwrap().is_empty());

        // Past their expiry, codes, tokens and sign-ins go; the rest stays.
        store
            .add_code("c2", g, "https://claude.ai/cb", "chal", 2_000)
            .await
            .unwrap();
        store
            .add_grant_token(g, TokenKind::Refresh, "r2", 5, 2_000)
            .await
            .unwrap();
        assert_eq!(
            store.purge_expired_oauth(1_500).await.unwrap(),
            3,
            "c1, a1, r1"
        );
        assert_eq!(
            store.spend_code("c1", 1_500).await.unwrap(),
            SpentCode::Unknown
        );
        assert!(
            store
                .grant_token("a1", TokenKind::Access)
                .await
                .unwrap()
                .is_none()
        );
        assert!(
            store
                .grant_token("r2", TokenKind::Refresh)
                .await
                .unwrap()
                .is_some()
        );
        assert!(matches!(
            store.spend_code("c2", 1_501).await.unwrap(),
            SpentCode::Fresh(_)
        ));

        store.add_web_session("s1", alice, 10, 20).await.unwrap();
        assert_eq!(
            store
                .web_session_user("s1", 19)
                .await
                .unwrap()
                .map(|u| u.id),
            Some(alice)
        );
        assert_eq!(
            store.web_session_user("s1", 20).await.unwrap(),
            None,
            "expired"
        );
        assert_eq!(store.web_session_user("s2", 11).await.unwrap(), None);
        // A new password ends the person's sessions, and only theirs; so does sign-out.
        store.add_web_session("s3", alice, 10, 90).await.unwrap();
        store.add_web_session("s4", bob, 10, 90).await.unwrap();
        store.add_web_session("s5", bob, 10, 90).await.unwrap();
        assert!(store.set_password_hash(alice, "$argon2id$y").await.unwrap());
        assert_eq!(store.web_session_user("s3", 11).await.unwrap(), None);
        assert!(store.web_session_user("s4", 11).await.unwrap().is_some());
        assert!(store.delete_web_session("s4").await.unwrap());
        assert!(!store.delete_web_session("s4").await.unwrap(), "once");
        assert_eq!(store.web_session_user("s4", 11).await.unwrap(), None);
        assert!(store.web_session_user("s5", 11).await.unwrap().is_some());
    }

    /// Anyone may register a client: those that never got a grant go after a day; one
    /// with a grant (even revoked: it is listed for its person) stays.
    async fn unused_clients_go_after_a_day(store: Store) {
        let alice = store
            .add_user("Alice", "alice@example.org", 1)
            .await
            .unwrap();
        let day = super::oauth::UNUSED_CLIENT_TTL_MS;
        for (id, at) in [("pcl_used", 0), ("pcl_unused", 0), ("pcl_recent", day)] {
            let client = OAuthClient {
                client_id: id.into(),
                name: id.into(),
                redirect_uris: vec!["https://claude.ai/cb".into()],
                created_at: at,
                kept_until: None,
            };
            store.add_client(&client).await.unwrap();
        }
        let g = store
            .add_grant("pcl_used", alice, false, None, "http://x/mcp", 1)
            .await
            .unwrap();
        assert!(store.revoke_grant(g, None, 2).await.unwrap());
        assert_eq!(
            store.purge_expired_oauth(day - 1).await.unwrap(),
            0,
            "a day not yet over"
        );
        assert_eq!(store.purge_expired_oauth(day + 1).await.unwrap(), 1);
        assert!(store.client("pcl_unused").await.unwrap().is_none());
        assert!(store.client("pcl_used").await.unwrap().is_some());
        assert!(store.client("pcl_recent").await.unwrap().is_some());
    }

    async fn two_owners_demoting_each_other_leave_one(store: Store) {
        let a = store.add_user("A", "a@example.org", 0).await.unwrap();
        let b = store.add_user("B", "b@example.org", 0).await.unwrap();
        let demo = palmaplan_model::demo::s4hana_migration();
        // Many rounds, so that the two transactions do overlap in some.
        for _ in 0..20 {
            let id = store.create_schedule(&demo, a, 0).await.unwrap();
            store.set_role(id, b, Role::Owner).await.unwrap();
            let (x, y) = tokio::join!(
                store.change_role_keeping_an_owner(id, a, Some(Role::Editor)),
                store.change_role_keeping_an_owner(id, b, None),
            );
            let outcomes = [x.unwrap(), y.unwrap()];
            assert_eq!(
                outcomes
                    .iter()
                    .filter(|o| **o == RoleChange::LastOwner)
                    .count(),
                1,
                "{outcomes:?}"
            );
            let owners = store
                .members_with_roles(id)
                .await
                .unwrap()
                .into_iter()
                .filter(|(_, r)| *r == Role::Owner)
                .count();
            assert_eq!(owners, 1);
        }
        let id = store.create_schedule(&demo, a, 0).await.unwrap();
        assert_eq!(
            store
                .change_role_keeping_an_owner(id, b, Some(Role::Viewer))
                .await
                .unwrap(),
            RoleChange::Done { before: None }
        );
        assert_eq!(
            store
                .change_role_keeping_an_owner(id, a, None)
                .await
                .unwrap(),
            RoleChange::LastOwner
        );
        assert!(matches!(
            store.change_role_keeping_an_owner(9_999, a, None).await,
            Err(StoreError::NotFound)
        ));
    }

    async fn users_tokens_roles_versions(store: Store) {
        let alice = store
            .add_user("Alice", "alice@example.org", 5)
            .await
            .unwrap();
        assert!(
            store
                .add_user("Alice bis", "alice@example.org", 5)
                .await
                .is_err(),
            "e-mails are unique"
        );
        let t = store
            .add_token(alice, "laptop", "h1", true, None, 6)
            .await
            .unwrap();
        let used = store.use_token("h1", 7).await.unwrap().unwrap();
        assert_eq!(
            (used.id, used.last_used_at, used.can_write),
            (t, Some(7), true)
        );
        // The last use is kept to the minute: no write on every request.
        let again = store.use_token("h1", 8).await.unwrap().unwrap();
        assert_eq!(again.last_used_at, Some(7));
        let later = store.use_token("h1", 60_007).await.unwrap().unwrap();
        assert_eq!(later.last_used_at, Some(60_007));
        assert_eq!(
            store.tokens(alice).await.unwrap()[0].last_used_at,
            Some(60_007)
        );
        assert!(store.use_token("nope", 7).await.unwrap().is_none());
        assert!(store.revoke_token(alice, t, 8).await.unwrap());
        assert!(
            !store.revoke_token(alice, t, 9).await.unwrap(),
            "a revoked token stays revoked"
        );
        assert!(
            store.use_token("h1", 10).await.unwrap().is_none(),
            "a revoked token no longer works"
        );
        assert_eq!(store.tokens(alice).await.unwrap()[0].revoked_at, Some(8));

        let bob = store.add_user("Bob", "bob@example.org", 5).await.unwrap();
        let id = store
            .create_schedule(&Schedule::new("Plan"), bob, 1)
            .await
            .unwrap();
        assert_eq!(store.role(id, bob).await.unwrap(), Some(Role::Owner));
        assert_eq!(store.role(id, alice).await.unwrap(), None);
        store.set_role(id, alice, Role::Editor).await.unwrap();
        store.set_role(id, alice, Role::Owner).await.unwrap();
        assert_eq!(store.role(id, alice).await.unwrap(), Some(Role::Owner));
        let listed = store.schedules_of(alice).await.unwrap();
        assert_eq!((listed.len(), listed[0].role), (1, Role::Owner));

        let v = store.save_version(id, "baseline", alice, 11).await.unwrap();
        assert_eq!(store.versions(id).await.unwrap(), vec![v.clone()]);
        let (_, snap) = store.version_state(id, v.id).await.unwrap().unwrap();
        assert_eq!(snap.name, "Plan");
        assert!(store.delete_version(id, v.id).await.unwrap());
        assert!(store.delete_schedule(id).await.unwrap());
        assert!(store.schedules_of(alice).await.unwrap().is_empty());
    }
}
