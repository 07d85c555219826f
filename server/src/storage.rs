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
//! The model stays out of here: states and journal commands arrive as the model's JSON
//! and a closure turns the current state into the next one.

use std::time::Duration;

use palmaplan_model::Schedule;
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyPool, Executor, Row};

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
    /// Stored at this rank; `R` is what the closure returned beside the new state.
    Done { rank: i64, result: R },
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
        let store = Store { pool, backend };
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

    /// Creates a schedule at rank 0 and returns its id.
    pub async fn create_schedule(&self, state: &Schedule, now_ms: i64) -> Result<i64, StoreError> {
        let json = to_json(state)?;
        let row = sqlx::query(
            "INSERT INTO schedules (name, state, rank, created_at, updated_at) \
             VALUES ($1, $2, 0, $3, $3) RETURNING id",
        )
        .bind(&state.name)
        .bind(json)
        .bind(now_ms)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get(0)?)
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

    /// The current state and rank of a schedule.
    pub async fn load(&self, id: i64) -> Result<Stored, StoreError> {
        let row = sqlx::query("SELECT state, rank FROM schedules WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound)?;
        let state: String = row.try_get(0)?;
        Ok(Stored {
            id,
            rank: row.try_get(1)?,
            state: from_json(&state)?,
        })
    }

    /// Applies `change` to the current state and stores the result with its journal
    /// entry, as one transaction at the next rank. With `expected_rank`, writes only if
    /// the schedule is still at that rank. `change` may run more than once (after a lost
    /// race it sees the newer state); an `Err` from it is returned as is, nothing written.
    pub async fn write<R, E>(
        &self,
        id: i64,
        author: i64,
        now_ms: i64,
        expected_rank: Option<i64>,
        mut change: impl FnMut(&Stored) -> Result<(Schedule, NewEntry, R), E>,
    ) -> Result<Result<Written<R>, E>, StoreError> {
        for _ in 0..MAX_RETRIES {
            let current = self.load(id).await?;
            if let Some(expected) = expected_rank {
                if current.rank != expected {
                    return Ok(Ok(Written::OutOfDate {
                        current: current.rank,
                    }));
                }
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
            return Ok(Ok(Written::Done { rank, result }));
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
        let rows = sqlx::query(
            "SELECT rank, author, at, kind, target_rank, commands, inverse FROM journal \
             WHERE schedule_id = $1 AND rank > $2 ORDER BY rank LIMIT $3",
        )
        .bind(id)
        .bind(rank)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(entry_from_row).collect()
    }

    /// One journal entry.
    pub async fn entry(&self, id: i64, rank: i64) -> Result<Option<JournalEntry>, StoreError> {
        let row = sqlx::query(
            "SELECT rank, author, at, kind, target_rank, commands, inverse FROM journal \
             WHERE schedule_id = $1 AND rank = $2",
        )
        .bind(id)
        .bind(rank)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(entry_from_row).transpose()
    }

    /// The newest entries of a schedule, newest first (for history and undo).
    pub async fn latest_entries(
        &self,
        id: i64,
        limit: i64,
    ) -> Result<Vec<JournalEntry>, StoreError> {
        let rows = sqlx::query(
            "SELECT rank, author, at, kind, target_rank, commands, inverse FROM journal \
             WHERE schedule_id = $1 ORDER BY rank DESC LIMIT $2",
        )
        .bind(id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(entry_from_row).collect()
    }
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

    /// A fresh SQLite database in a temporary folder of its own.
    pub(crate) async fn temp_store(name: &str) -> Store {
        let dir =
            std::env::temp_dir().join(format!("palmaplan-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Store::open(&format!("sqlite://{}", dir.join("db.sqlite").display()))
            .await
            .unwrap()
    }

    fn entry(tag: &str) -> NewEntry {
        NewEntry {
            kind: EntryKind::Write,
            target_rank: None,
            commands: format!("[\"{tag}\"]"),
            inverse: "[]".into(),
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_writers_get_gapless_ranks() {
        let store = temp_store("concurrent").await;
        let id = store.create_schedule(&Schedule::new("C"), 0).await.unwrap();
        let mut tasks = Vec::new();
        for w in 0..16 {
            let store = store.clone();
            tasks.push(tokio::spawn(async move {
                for k in 0..10 {
                    let out = store
                        .write(id, w, 1, None, |cur| {
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
        let stored = store.load(id).await.unwrap();
        assert_eq!(stored.rank, 160);
        // Every write is in the state exactly once: none was lost to a race.
        assert_eq!(stored.state.notes.matches(';').count(), 160);
    }

    #[tokio::test]
    async fn expected_rank_is_decided_at_write_time() {
        let store = temp_store("expected").await;
        let id = store.create_schedule(&Schedule::new("E"), 0).await.unwrap();
        let step = |cur: &Stored| Ok::<_, ()>((cur.state.clone(), entry("x"), ()));
        let first = store.write(id, 1, 1, Some(0), step).await.unwrap().unwrap();
        assert!(matches!(first, Written::Done { rank: 1, .. }));
        let second = store.write(id, 1, 1, Some(0), step).await.unwrap().unwrap();
        assert!(matches!(second, Written::OutOfDate { current: 1 }));
        assert_eq!(store.changes_since(id, 0, 10).await.unwrap().len(), 1);
        assert!(store.changes_since(id, 1, 10).await.unwrap().is_empty());
        assert!(matches!(store.load(99).await, Err(StoreError::NotFound)));
    }
}
