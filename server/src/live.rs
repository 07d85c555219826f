//! Instant updates: `GET /embed/<schedule>/events?t=<link>` and
//! `GET /app/schedules/<schedule>/events` (the web screen, under its session's cookie),
//! server-sent event streams that push the schedule's rank each time a write on it is
//! committed, so the view served full page reads the change at once with
//! `get_changes_since` instead of polling.
//!
//! The ranks come from `Store::committed`, a broadcast sent by the store right after
//! each write's transaction commits (whatever the route: MCP, the view's calls, undo):
//! no stream reads the database in a loop. The stream opens with the current rank (so a
//! reconnecting browser misses nothing), then sends only ranks above the last sent; a
//! stream that fell behind the broadcast reads the rank once. It is its door's: a link
//! checked as `/embed/<id>/call` checks it (signature, expiry, the credential it was
//! asked with not revoked, the user's role now), or a live session with a role on the
//! schedule. It ends when the link or the session expires; and the door and the role
//! are checked again before each push and every [`RECHECK`], so a removed access, a
//! revoked token or a sign-out ends it within that time. At most
//! [`MAX_STREAMS_PER_USER`] streams per person at once (a browser keeps one per open
//! tab); a comment every [`KEEP_ALIVE`] (by default) keeps proxies from closing an idle
//! stream. Stopping the server ends every stream.
//!
//! Writes made by another process on the same database (a `palmaplan stdio` server a
//! desktop client started) are not broadcast by this process's store: [`watch`] reads
//! the followed schedules' ranks every [`WATCH_EVERY`] and announces what changed, so
//! they are pushed within about a second.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use tokio::sync::broadcast::error::RecvError;

use crate::http::{AppState, call_refused, check_link, link_token};
use crate::oauth::page_lang;
use crate::planning::{Code, Planning, tr};
use crate::storage::Store;
use crate::web::{no_schedule, view_session};

/// Event streams one person may hold open at once: under the six connections a browser
/// keeps per host over HTTP/1.1, so that past it the view falls back to polling (a
/// refused stream) before the tab's own calls would wait for a free connection; the
/// view closes its stream while its tab is hidden.
pub const MAX_STREAMS_PER_USER: usize = 4;

/// How often an idle stream sends a comment, by default (`AppState::keep_alive`).
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The open streams, per user and per schedule followed.
#[derive(Debug, Default)]
pub struct Streams {
    open: Mutex<Open>,
}

#[derive(Debug, Default)]
struct Open {
    per_user: HashMap<i64, usize>,
    per_schedule: HashMap<i64, usize>,
}

/// Adds `by` to `key`'s count, dropping it at zero.
fn count_in(map: &mut HashMap<i64, usize>, key: i64, up: bool) {
    let n = map.entry(key).or_insert(0);
    if up {
        *n += 1;
    } else {
        *n = n.saturating_sub(1);
        if *n == 0 {
            map.remove(&key);
        }
    }
}

impl Streams {
    /// A slot for one more stream of `user` on `schedule`, or None when they hold the
    /// most already.
    fn take(self: &Arc<Self>, user: i64, schedule: i64) -> Option<Slot> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if open.per_user.get(&user).copied().unwrap_or(0) >= MAX_STREAMS_PER_USER {
            return None;
        }
        count_in(&mut open.per_user, user, true);
        count_in(&mut open.per_schedule, schedule, true);
        Some(Slot {
            streams: Arc::clone(self),
            user,
            schedule,
        })
    }

    /// The schedules someone follows now.
    pub fn followed(&self) -> Vec<i64> {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.per_schedule.keys().copied().collect()
    }

    /// How many streams `user` holds now.
    pub fn count(&self, user: i64) -> usize {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.per_user.get(&user).copied().unwrap_or(0)
    }
}

/// One open stream; given back when the stream is dropped (the browser went away).
#[derive(Debug)]
struct Slot {
    streams: Arc<Streams>,
    user: i64,
    schedule: i64,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.streams.open.lock().unwrap_or_else(|e| e.into_inner());
        count_in(&mut open.per_user, self.user, false);
        count_in(&mut open.per_schedule, self.schedule, false);
    }
}

/// How often [`watch`] reads the ranks of the schedules someone follows.
pub const WATCH_EVERY: Duration = Duration::from_secs(1);

/// Hears the writes this process did not make: another process on the same database
/// (a `palmaplan stdio` server a desktop client started, a second `serve`) commits
/// without this store's broadcast knowing. Every `every`, while anyone follows a
/// schedule, its rank is read (one indexed read per followed schedule, none when no
/// stream is open) and any change is announced on the same broadcast the store's own
/// commits use; streams skip a rank they already sent, so a write this process made and
/// announced twice is pushed once. Ends when the server stops.
pub async fn watch(
    store: Store,
    streams: Arc<Streams>,
    shutdown: tokio_util::sync::CancellationToken,
    every: Duration,
) {
    let mut known: HashMap<i64, i64> = HashMap::new();
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            () = shutdown.cancelled() => return,
        }
        let followed = streams.followed();
        known.retain(|id, _| followed.contains(id));
        for id in followed {
            let Ok(rank) = store.rank(id).await else {
                continue;
            };
            // A schedule seen for the first time is announced too: a write between a
            // stream's opening and this read would otherwise wait for the next one.
            if known.insert(id, rank) != Some(rank) {
                store.announce(id, rank);
            }
        }
    }
}

/// How often a quiet stream checks that the person still has access (a role, a live
/// session or credential): their access removed, the stream ends within this time,
/// not only at the next write.
pub const RECHECK: Duration = Duration::from_secs(30);

/// What a stream was opened with.
#[derive(Debug)]
pub(crate) enum Door {
    /// An `/embed` link, with the credential it was asked with (if it says).
    Link(Option<i64>),
    /// A web-screen session: its hash.
    Session(String),
}

/// What a stream holds between two events.
struct Follow {
    store: Store,
    committed: tokio::sync::broadcast::Receiver<(i64, i64)>,
    schedule: i64,
    user: i64,
    /// What the stream was opened with, checked again before each push and every
    /// [`RECHECK`].
    door: Door,
    /// The clock sessions are checked by.
    clock: Planning,
    /// When to check the door and the access again though nothing was written.
    recheck: tokio::time::Interval,
    /// The last rank sent; None before the first event.
    sent: Option<i64>,
    /// When the link stops working, as a deadline of this process's clock.
    ends: tokio::time::Instant,
    /// The server stopping: a stream is never-ending, so a graceful shutdown that waits
    /// for the requests in flight must end it.
    shutdown: tokio_util::sync::CancellationToken,
    _slot: Slot,
}

impl Follow {
    /// The next rank to send, or None when the stream ends.
    async fn next(&mut self) -> Option<i64> {
        if self.sent.is_none() {
            return self.store.rank(self.schedule).await.ok();
        }
        loop {
            let pushed = tokio::select! {
                r = self.committed.recv() => r,
                () = tokio::time::sleep_until(self.ends) => return None,
                () = self.shutdown.cancelled() => return None,
                _ = self.recheck.tick() => {
                    if self.allowed().await {
                        continue;
                    }
                    return None;
                }
            };
            let rank = match pushed {
                Ok((id, rank)) if id == self.schedule => rank,
                Ok(_) => continue,
                // Fell behind the broadcast: the rank, read once.
                Err(RecvError::Lagged(_)) => self.store.rank(self.schedule).await.ok()?,
                Err(RecvError::Closed) => return None,
            };
            if self.sent.is_some_and(|s| rank <= s) {
                continue;
            }
            // Their access may have been removed since the stream opened, their
            // session closed or their token revoked.
            if self.allowed().await {
                return Some(rank);
            }
            return None;
        }
    }

    /// Whether the person may still follow the schedule: the door still open (a live
    /// session, a credential not revoked) and a role on it. A database that does not
    /// answer ends the stream (the browser reconnects, and is checked then).
    async fn allowed(&self) -> bool {
        let door = match &self.door {
            Door::Link(None) => Ok(true),
            Door::Link(Some(c)) => self.store.credential_live(*c).await,
            Door::Session(hash) => self
                .store
                .web_session_expiry(hash, self.clock.now_ms())
                .await
                .map(|e| e.is_some()),
        };
        matches!(door, Ok(true))
            && matches!(self.store.role(self.schedule, self.user).await, Ok(Some(_)))
    }
}

/// `GET /embed/<schedule>/events?t=<link>` (or `Authorization: Embed <link>`).
pub(crate) async fn events(
    State(state): State<Arc<AppState>>,
    Path(schedule): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let lang = state.lang;
    let claims = match check_link(&state, &schedule, link_token(&headers, query.as_deref())).await {
        Ok((claims, _)) => claims,
        Err(e) => {
            tracing::info!(reason = e.code().as_str(), "event stream refused");
            return call_refused(e.status(), e.code(), e.message(lang));
        }
    };
    stream(
        &state,
        lang,
        claims.schedule,
        claims.user,
        claims.expires_at,
        Door::Link(claims.credential),
    )
}

/// `GET /app/schedules/<schedule>/events`: the web screen's stream, under the person's
/// session (the cookie; an EventSource of the same origin sends it, and no token is in
/// the address). It ends with the session, and at the next write once they sign out.
pub(crate) async fn app_events(
    State(state): State<Arc<AppState>>,
    Path(schedule): Path<String>,
    headers: HeaderMap,
) -> Response {
    let lang = page_lang(&state, &headers, None);
    let session = match view_session(&state, &headers, lang, false).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let store = state.planning.store();
    let role = match schedule.parse::<i64>() {
        Ok(id) => store.role(id, session.user.id).await.map(|r| r.map(|_| id)),
        Err(_) => Ok(None),
    };
    let id = match role {
        Ok(Some(id)) => id,
        Ok(None) => return no_schedule(lang, &schedule),
        Err(e) => {
            tracing::error!(error = %e, "event stream: the database does not answer");
            return call_refused(
                StatusCode::SERVICE_UNAVAILABLE,
                Code::Storage,
                tr(
                    lang,
                    "La base de données ne répond pas\u{a0}: réessayez dans un instant.",
                    "The database does not answer: try again in a moment.",
                ),
            );
        }
    };
    let ends = match store
        .web_session_expiry(&session.hash, state.planning.now_ms())
        .await
    {
        Ok(Some(at)) => at,
        _ => state.planning.now_ms(),
    };
    stream(
        &state,
        lang,
        id,
        session.user.id,
        ends,
        Door::Session(session.hash),
    )
}

/// The stream of `schedule`'s ranks for `user`, until `ends_ms` (this process's clock,
/// as `Planning::now_ms`), checked before each push and every [`RECHECK`]: their role,
/// and the door it was opened by.
fn stream(
    state: &AppState,
    lang: palmaplan_model::Lang,
    schedule: i64,
    user: i64,
    ends_ms: i64,
    door: Door,
) -> Response {
    let Some(slot) = state.streams.take(user, schedule) else {
        return call_refused(
            StatusCode::TOO_MANY_REQUESTS,
            Code::Busy,
            tr(
                lang,
                format!(
                    "Vous suivez déjà {MAX_STREAMS_PER_USER} plannings en direct (un par onglet ouvert)\u{a0}: fermez un onglet de PalmaPlan, puis rechargez celui-ci."
                ),
                format!(
                    "You already follow {MAX_STREAMS_PER_USER} schedules live (one per open tab): close a PalmaPlan tab, then reload this one."
                ),
            ),
        );
    };
    let left_ms = u64::try_from(ends_ms - state.planning.now_ms()).unwrap_or(0);
    let store = state.planning.store().clone();
    let follow = Follow {
        committed: store.committed(),
        store,
        schedule,
        user,
        door,
        clock: state.planning.clone(),
        recheck: recheck_every(RECHECK),
        sent: None,
        ends: tokio::time::Instant::now() + Duration::from_millis(left_ms),
        shutdown: state.shutdown.clone(),
        _slot: slot,
    };
    tracing::info!(schedule, user, "event stream opened");
    let stream = futures_util::stream::unfold(follow, |mut f| async move {
        let rank = f.next().await?;
        f.sent = Some(rank);
        Some((
            Ok::<_, Infallible>(Event::default().data(rank.to_string())),
            f,
        ))
    });
    let mut r = Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(state.keep_alive))
        .into_response();
    let h = r.headers_mut();
    h.insert("cache-control", HeaderValue::from_static("no-store"));
    h.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    // nginx buffers responses unless told not to; a buffered stream is no stream.
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

/// A timer whose first tick is one period from now (tokio's first is at once).
fn recheck_every(period: Duration) -> tokio::time::Interval {
    let mut i = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    i.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{Change, EntryKind};
    use palmaplan_model::command::{ApplyError, Command};
    use tokio::time::{Instant, timeout};

    fn move14() -> Change<()> {
        Change {
            commands: vec![Command::MovePeriods {
                bars: vec![palmaplan_model::BarId(14)],
                milestones: vec![],
                by: 1,
            }],
            kind: EntryKind::Write,
            target_rank: None,
            cascade: None,
            result: (),
        }
    }

    #[tokio::test]
    async fn a_stream_follows_commits_and_ends_with_the_link_the_server_or_the_access() {
        let dir = std::env::temp_dir().join(format!("palmaplan-live-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open(&format!("sqlite://{}", dir.join("db.sqlite").display()))
            .await
            .unwrap();
        // (`dir` is read again below, for a second process.)
        let user = store.add_user("A", "a@example.org", 0).await.unwrap();
        let demo = palmaplan_model::demo::s4hana_migration();
        let id = store.create_schedule(&demo, user, 0).await.unwrap();
        let other = store.create_schedule(&demo, user, 0).await.unwrap();
        let streams = Arc::new(Streams::default());
        let follow = |ends: Duration| Follow {
            committed: store.committed(),
            store: store.clone(),
            schedule: id,
            user,
            door: Door::Link(None),
            clock: Planning::new(store.clone(), Arc::new(crate::planning::SystemClock)),
            recheck: recheck_every(Duration::from_millis(100)),
            sent: None,
            ends: Instant::now() + ends,
            shutdown: tokio_util::sync::CancellationToken::new(),
            _slot: streams.take(user, id).unwrap(),
        };
        let write = |schedule: i64| {
            let store = store.clone();
            async move {
                store
                    .write(schedule, user, 1, None, |_| Ok::<_, ApplyError>(move14()))
                    .await
                    .unwrap()
                    .unwrap();
            }
        };
        let hour = Duration::from_secs(3600);

        // The current rank, then each commit of this schedule, none of another's.
        let mut f = follow(hour);
        assert_eq!(f.next().await, Some(0));
        f.sent = Some(0);
        write(other).await;
        write(id).await;
        assert_eq!(timeout(hour, f.next()).await.unwrap(), Some(1));
        f.sent = Some(1);

        // Another process's write on the same database is not broadcast by this store,
        // but `watch` hears it at its next read of the followed schedules' ranks.
        let url = format!("sqlite://{}", dir.join("db.sqlite").display());
        let elsewhere = Store::open(&url).await.unwrap();
        elsewhere
            .write(id, user, 1, None, |_| Ok::<_, ApplyError>(move14()))
            .await
            .unwrap()
            .unwrap();
        let quiet = timeout(Duration::from_millis(200), f.next()).await;
        assert!(
            quiet.is_err(),
            "nothing pushed by the broadcast alone: {quiet:?}"
        );
        let stop = tokio_util::sync::CancellationToken::new();
        let watcher = tokio::spawn(watch(
            store.clone(),
            Arc::clone(&streams),
            stop.clone(),
            Duration::from_millis(50),
        ));
        assert_eq!(
            timeout(Duration::from_secs(5), f.next()).await.unwrap(),
            Some(2)
        );
        f.sent = Some(2);
        stop.cancel();
        watcher.await.unwrap();

        // The link's hour over: the stream ends.
        drop(f);
        let mut f = follow(Duration::from_millis(50));
        f.sent = Some(1);
        let t = Instant::now();
        assert_eq!(f.next().await, None);
        assert!(t.elapsed() >= Duration::from_millis(40));

        // The server stopping: it ends.
        drop(f);
        let mut f = follow(hour);
        f.sent = Some(1);
        let stop = f.shutdown.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            stop.cancel();
        });
        assert_eq!(timeout(hour, f.next()).await.unwrap(), None);

        // The person's access removed: the next commit is not pushed, the stream ends.
        drop(f);
        let mut f = follow(hour);
        f.sent = Some(1);
        store.remove_role(id, user).await.unwrap();
        write(id).await;
        assert_eq!(timeout(hour, f.next()).await.unwrap(), None);

        // Removed while nothing is written: the stream ends at the next check.
        drop(f);
        store
            .set_role(id, user, crate::storage::Role::Owner)
            .await
            .unwrap();
        let mut f = follow(hour);
        f.sent = Some(2);
        let t = Instant::now();
        store.remove_role(id, user).await.unwrap();
        assert_eq!(
            timeout(Duration::from_secs(5), f.next()).await.unwrap(),
            None
        );
        assert!(
            t.elapsed() >= Duration::from_millis(90),
            "at a check, not before"
        );
        drop(f);
        assert_eq!(streams.count(user), 0, "every slot given back");
    }

    #[test]
    fn streams_are_capped_per_person_and_given_back() {
        let streams = Arc::new(Streams::default());
        let mut held: Vec<Slot> = (0..MAX_STREAMS_PER_USER)
            .map(|i| streams.take(1, 10 + i as i64 % 2).expect("under the cap"))
            .collect();
        assert!(streams.take(1, 10).is_none(), "one more than the cap");
        let other = streams
            .take(2, 30)
            .expect("another person has their own count");
        assert_eq!(streams.count(1), MAX_STREAMS_PER_USER);
        let mut followed = streams.followed();
        followed.sort_unstable();
        assert_eq!(followed, [10, 11, 30]);
        held.pop();
        assert_eq!(streams.count(1), MAX_STREAMS_PER_USER - 1);
        assert!(
            streams.take(1, 10).is_some(),
            "a closed stream frees its slot"
        );
        drop(held);
        drop(other);
        assert_eq!((streams.count(1), streams.count(2)), (0, 0));
        assert!(
            streams.followed().is_empty(),
            "no schedule followed once all are closed"
        );
    }
}
