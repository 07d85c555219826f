//! Storage: the only module that speaks SQL. One schema, two backends (an embedded
//! SQLite file by default, PostgreSQL given a `postgres://` URL), reached through sqlx's
//! `Any` driver so that every query is written once and both backends run the same
//! storage test suite.
//!
//! Writes use optimistic concurrency decided inside the writing transaction: the new
//! state is computed from a read of (state, rank), then one transaction does
//! `UPDATE schedules ... WHERE id = ? AND rank = ?` and appends the journal entry at
//! rank + 1. If another writer got there first, the update touches no row, nothing is
//! written, and the write is retried from a fresh read (or, for `apply_patch` with an
//! expected rank, refused as out of date). The journal's primary key (schedule, rank)
//! makes a gap or a duplicate rank impossible on both backends. Starting the transaction
//! with the UPDATE (not a read) matters on SQLite: a transaction that reads first and
//! writes later fails with SQLITE_BUSY_SNAPSHOT under WAL when another writer commits
//! in between; one that writes first simply waits for the lock (busy_timeout).
//!
//! Writers of one schedule in one process take turns (`WriteTurns`) before that
//! optimistic write: a writer that loses the race redoes all its work (read and parse
//! the state, apply, serialise the whole state again), so N writers racing on one
//! schedule spend O(N) work per successful write, and with dozens of them writes
//! almost stop. Waiting in line does the work once. The rank check in the transaction
//! is unchanged: it still decides between processes sharing a database.
//!
//! Parsed states are kept in memory (`StateCache`), keyed by schedule, creation time and
//! rank: a state at a rank never changes, since every write bumps the rank. `load`
//! still asks the database for the current rank first (one small indexed read), so a
//! write by another process is seen at once; only the parse of the whole state (and
//! the transfer of its JSON) is saved. The creation time tells apart a schedule whose
//! id SQLite gave again after a delete.
//!
//! The model stays out of here: states and journal commands arrive as the model's JSON
//! and a closure turns the current state into the next one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use palmaplan_model::Schedule;
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyPool, Executor, Row};

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
    turns: Arc<WriteTurns>,
    states: Arc<StateCache>,
}

/// How many schedules' parsed states a store keeps.
const CACHED_STATES: usize = 16;

/// The parsed states of the schedules read last, at most `CACHED_STATES` of them.
#[derive(Debug, Default)]
struct StateCache {
    inner: Mutex<CacheInner>,
}

#[derive(Debug, Default)]
struct CacheInner {
    by_id: HashMap<i64, CachedState>,
    /// Counts uses, to find the least recently used entry.
    tick: u64,
}

#[derive(Debug)]
struct CachedState {
    created_at: i64,
    rank: i64,
    state: Arc<Schedule>,
    used: u64,
}

impl StateCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, CacheInner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The state of schedule `id` at `rank`, if kept.
    fn get(&self, id: i64, created_at: i64, rank: i64) -> Option<Arc<Schedule>> {
        let mut c = self.lock();
        c.tick += 1;
        let tick = c.tick;
        let e = c.by_id.get_mut(&id)?;
        if e.created_at != created_at || e.rank != rank {
            return None;
        }
        e.used = tick;
        Some(Arc::clone(&e.state))
    }

    /// Keeps a state, unless a newer one of the same schedule is already kept.
    fn put(&self, id: i64, created_at: i64, rank: i64, state: Arc<Schedule>) {
        let mut c = self.lock();
        if c.by_id
            .get(&id)
            .is_some_and(|e| e.created_at == created_at && e.rank > rank)
        {
            return;
        }
        c.tick += 1;
        let used = c.tick;
        c.by_id.insert(
            id,
            CachedState {
                created_at,
                rank,
                state,
                used,
            },
        );
        while c.by_id.len() > CACHED_STATES {
            let oldest = c.by_id.iter().min_by_key(|(_, e)| e.used).map(|(k, _)| *k);
            match oldest {
                Some(k) => c.by_id.remove(&k),
                None => break,
            };
        }
    }

    fn forget(&self, id: i64) {
        self.lock().by_id.remove(&id);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().by_id.len()
    }
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

/// A journal entry about to be written.
#[derive(Clone, Debug)]
pub struct NewEntry {
    pub kind: EntryKind,
    pub target_rank: Option<i64>,
    /// The commands as applied (JSON array of the model's commands).
    pub commands: String,
    /// Their inverse (JSON array).
    pub inverse: String,
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
    /// Stored at this rank: the new state, and what the closure returned beside it.
    Done {
        rank: i64,
        state: Box<Schedule>,
        result: R,
    },
    /// `expected_rank` was given and the schedule has moved on: nothing was written.
    OutOfDate { current: i64 },
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
            options = options.after_connect(|conn, _| {
                Box::pin(async move {
                    // Each connection waits for the write lock instead of failing, and
                    // enforces the schema's foreign keys.
                    conn.execute("PRAGMA busy_timeout = 10000").await?;
                    conn.execute("PRAGMA foreign_keys = ON").await?;
                    conn.execute("PRAGMA synchronous = NORMAL").await?;
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
            turns: Arc::default(),
            states: Arc::default(),
        };
        store.migrate().await?;
        Ok(store)
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        use sqlx::SqlSafeStr;
        use sqlx::migrate::{Migration, MigrationType, Migrator};
        // The migration files are embedded in the binary (versioned, append-only); one
        // folder per backend because DDL differs (row ids), the queries do not.
        let files: &[(i64, &str, &'static str)] = match self.backend {
            Backend::Sqlite => &[(
                1,
                "init",
                include_str!("../migrations/sqlite/0001_init.sql"),
            )],
            Backend::Postgres => &[(
                1,
                "init",
                include_str!("../migrations/postgres/0001_init.sql"),
            )],
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
            "INSERT INTO schedules (name, state, rank, created_at, updated_at) \
             VALUES ($1, $2, 0, $3, $3) RETURNING id",
        )
        .bind(&state.name)
        .bind(json)
        .bind(now_ms)
        .fetch_one(&mut *tx)
        .await?;
        let id: i64 = row.try_get(0)?;
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
        let row = sqlx::query("SELECT rank FROM schedules WHERE id = $1")
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

    /// The current state and rank of a schedule.
    pub async fn load(&self, id: i64) -> Result<Stored, StoreError> {
        Ok(self.load_with_birth(id).await?.0)
    }

    /// The current rank and state of a schedule, shared with the cache of parsed states:
    /// for readers that only look (a live update's delta), so a large schedule is not
    /// copied for each of them.
    pub async fn load_shared(&self, id: i64) -> Result<(i64, Arc<Schedule>), StoreError> {
        let (rank, created_at) = self.stamp(id).await?;
        if let Some(state) = self.states.get(id, created_at, rank) {
            return Ok((rank, state));
        }
        let (stored, _) = self.load_with_birth(id).await?;
        Ok((stored.rank, Arc::new(stored.state)))
    }

    /// The current state and rank of a schedule, and its creation time (which, with its
    /// id, names it in the cache of parsed states). The rank is always read from the
    /// database; the state is parsed only when the cache has not got it at that rank.
    async fn load_with_birth(&self, id: i64) -> Result<(Stored, i64), StoreError> {
        let (rank, created_at) = self.stamp(id).await?;
        if let Some(state) = self.states.get(id, created_at, rank) {
            let state = Schedule::clone(&state);
            return Ok((Stored { id, rank, state }, created_at));
        }
        let row = sqlx::query("SELECT state, rank, created_at FROM schedules WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound)?;
        let json: String = row.try_get(0)?;
        let (rank, created_at): (i64, i64) = (row.try_get(1)?, row.try_get(2)?);
        let state = from_json(&json)?;
        self.states
            .put(id, created_at, rank, Arc::new(state.clone()));
        Ok((Stored { id, rank, state }, created_at))
    }

    /// Applies `change` to the current state and stores the result with its journal
    /// entry, as one transaction at the next rank. With `expected_rank`, writes only if
    /// the schedule is still at that rank. `change` may run more than once (after a race
    /// lost to another process it sees the newer state); an `Err` from it is returned as
    /// is, nothing written. Writers of this process take turns on a schedule.
    pub async fn write<R, E>(
        &self,
        id: i64,
        author: i64,
        now_ms: i64,
        expected_rank: Option<i64>,
        mut change: impl FnMut(&Stored) -> Result<(Schedule, NewEntry, R), E>,
    ) -> Result<Result<Written<R>, E>, StoreError> {
        let _turn = self.turns.take(id).await;
        for _ in 0..MAX_RETRIES {
            let (current, created_at) = self.load_with_birth(id).await?;
            if let Some(expected) = expected_rank
                && current.rank != expected
            {
                return Ok(Ok(Written::OutOfDate {
                    current: current.rank,
                }));
            }
            let (next, entry, result) = match change(&current) {
                Ok(x) => x,
                Err(e) => return Ok(Err(e)),
            };
            let json = to_json(&next)?;
            let mut tx = self.pool.begin().await?;
            let updated = sqlx::query(
                "UPDATE schedules SET state = $1, name = $2, rank = rank + 1, updated_at = $3 \
                 WHERE id = $4 AND rank = $5",
            )
            .bind(json)
            .bind(&next.name)
            .bind(now_ms)
            .bind(id)
            .bind(current.rank)
            .execute(&mut *tx)
            .await?;
            if updated.rows_affected() != 1 {
                tx.rollback().await?;
                if expected_rank.is_some() {
                    return Ok(Ok(Written::OutOfDate {
                        current: self.rank(id).await?,
                    }));
                }
                continue;
            }
            let rank = current.rank + 1;
            sqlx::query(
                "INSERT INTO journal (schedule_id, rank, author, at, kind, target_rank, commands, inverse) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(id)
            .bind(rank)
            .bind(author)
            .bind(now_ms)
            .bind(entry.kind.as_str())
            .bind(entry.target_rank)
            .bind(entry.commands)
            .bind(entry.inverse)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            self.states
                .put(id, created_at, rank, Arc::new(next.clone()));
            return Ok(Ok(Written::Done {
                rank,
                state: Box::new(next),
                result,
            }));
        }
        Err(StoreError::Db(sqlx::Error::PoolTimedOut))
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

    /// Gives (or changes) a user's role on a schedule.
    pub async fn set_role(
        &self,
        schedule_id: i64,
        user_id: i64,
        role: Role,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM roles WHERE schedule_id = $1 AND user_id = $2")
            .bind(schedule_id)
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO roles (schedule_id, user_id, role) VALUES ($1, $2, $3)")
            .bind(schedule_id)
            .bind(user_id)
            .bind(role.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
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
        for sql in [
            "DELETE FROM journal WHERE schedule_id = $1",
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
        Store::open(&format!("{base}/{db}")).await.unwrap()
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

    fn entry(tag: &str) -> NewEntry {
        NewEntry {
            kind: EntryKind::Write,
            target_rank: None,
            commands: format!("[\"{tag}\"]"),
            inverse: "[]".into(),
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
                            let mut next = cur.state.clone();
                            next.notes.push_str(&format!("{w}.{k};"));
                            Ok::<_, ()>((next, entry(&format!("{w}.{k}")), ()))
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
                            let mut next = cur.state.clone();
                            next.notes.push_str(&format!("{w}.{k};"));
                            Ok::<_, ()>((next, entry("x"), ()))
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
        assert!(a.states.get(id, 1, 0).is_some(), "a read keeps the state");
        b.write(id, owner, 2, None, |cur| {
            let mut next = cur.state.clone();
            next.notes = "from b".into();
            Ok::<_, ()>((next, entry("b"), ()))
        })
        .await
        .unwrap()
        .unwrap();
        let seen = a.load(id).await.unwrap();
        assert_eq!((seen.rank, seen.state.notes.as_str()), (1, "from b"));
        // A write keeps the state it wrote: the next read parses nothing.
        a.write(id, owner, 3, None, |cur| {
            let mut next = cur.state.clone();
            next.notes = "from a".into();
            Ok::<_, ()>((next, entry("a"), ()))
        })
        .await
        .unwrap()
        .unwrap();
        assert_eq!(a.states.get(id, 1, 2).unwrap().notes, "from a");

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
    async fn the_kept_states_are_bounded() {
        let store = sqlite_store("kept_bounded").await;
        let owner = store.add_user("O", "o@example.org", 0).await.unwrap();
        let mut ids = Vec::new();
        for n in 0..CACHED_STATES + 4 {
            let id = store
                .create_schedule(&Schedule::new(format!("S{n}")), owner, 0)
                .await
                .unwrap();
            store.load(id).await.unwrap();
            ids.push(id);
        }
        assert_eq!(store.states.len(), CACHED_STATES);
        // The least recently read went first.
        assert!(store.states.get(ids[0], 0, 0).is_none());
        assert!(store.states.get(ids[CACHED_STATES + 3], 0, 0).is_some());
    }

    async fn expected_rank_is_decided_at_write_time(store: Store) {
        let owner = store.add_user("O", "o@example.org", 0).await.unwrap();
        let id = store
            .create_schedule(&Schedule::new("E"), owner, 0)
            .await
            .unwrap();
        let step = |cur: &Stored| Ok::<_, ()>((cur.state.clone(), entry("x"), ()));
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
