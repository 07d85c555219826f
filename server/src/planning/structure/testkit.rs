//! Test fixture for the structure tools: a `Planning` over a fresh SQLite store in a
//! temporary folder, the demo schedule, and three callers holding the owner, editor and
//! viewer roles on it. Self-contained (it uses only the public API of `planning` and
//! `storage`), so it can be lifted to `planning/` for every tool family as is.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use palmaplan_model::{Lang, Schedule, demo};
use serde_json::Value;

use crate::planning::{Caller, Clock, Planning, Reply};
use crate::storage::{Role, Store};

/// A fixed clock: tests never depend on the time of day.
#[derive(Debug)]
pub(crate) struct FixedClock(pub(crate) i64);

impl Clock for FixedClock {
    fn now_ms(&self) -> i64 {
        self.0
    }
}

/// The fixture. Its folder is removed when it is dropped.
#[derive(Debug)]
pub(crate) struct Kit {
    pub(crate) planning: Planning,
    /// The demo schedule's id.
    pub(crate) schedule: i64,
    pub(crate) owner: Caller,
    pub(crate) editor: Caller,
    pub(crate) viewer: Caller,
    /// A user with no role on the demo schedule.
    pub(crate) stranger: Caller,
    dir: PathBuf,
}

impl Drop for Kit {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn caller(user_id: i64) -> Caller {
    Caller {
        user_id,
        can_write: true,
        only_schedule: None,
        max_role: None,
        lang: Lang::Fr,
        apps: false,
        credential: None,
    }
}

/// A fresh store with the demo schedule "S/4HANA Migration" and its three callers
/// (French texts; use `Kit::en` for English).
pub(crate) async fn kit() -> Kit {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("palmaplan-structure-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let store = Store::open(&format!("sqlite://{}", dir.join("db.sqlite").display()))
        .await
        .expect("store");
    let now = 1_795_000_000_000;
    // The owner is Camille, a member of the demo: her own e-mail is hers to see.
    let owner = store
        .add_user("Camille Martin", "camille.martin@example.org", now)
        .await
        .expect("owner");
    let editor = store
        .add_user("Karim Benali", "karim.benali@example.org", now)
        .await
        .expect("editor");
    let viewer = store
        .add_user("Victor Viewer", "victor@example.org", now)
        .await
        .expect("viewer");
    let stranger = store
        .add_user("Stella Stranger", "stella@example.org", now)
        .await
        .expect("stranger");
    let schedule = store
        .create_schedule(&demo::s4hana_migration(), owner, now)
        .await
        .expect("demo");
    store
        .set_role(schedule, editor, Role::Editor)
        .await
        .expect("role");
    store
        .set_role(schedule, viewer, Role::Viewer)
        .await
        .expect("role");
    Kit {
        planning: Planning::new(store, Arc::new(FixedClock(now))),
        schedule,
        owner: caller(owner),
        editor: caller(editor),
        viewer: caller(viewer),
        stranger: caller(stranger),
        dir,
    }
}

impl Kit {
    /// Calls a tool on the demo schedule: `args` gets `"schedule": <id>` added.
    pub(crate) async fn call(&self, who: &Caller, tool: &str, mut args: Value) -> Reply {
        if let Some(obj) = args.as_object_mut() {
            obj.entry("schedule").or_insert(Value::from(self.schedule));
        }
        let reply = self.planning.call(who, tool, args).await;
        check_text(&reply);
        reply
    }

    /// The same caller with English texts.
    pub(crate) fn en(who: &Caller) -> Caller {
        Caller {
            lang: Lang::En,
            ..who.clone()
        }
    }

    /// The demo schedule's current state.
    pub(crate) async fn state(&self) -> Schedule {
        self.planning
            .store()
            .load(self.schedule)
            .await
            .expect("load")
            .state
    }
}

/// Every reply's text stands on its own: not empty, no Rust debug output; the person's
/// words, if any, hold nothing of the model's.
pub(crate) fn check_text(r: &Reply) {
    assert!(!r.text.trim().is_empty(), "empty text: {r:?}");
    crate::planning::journal_testkit::check_meta(r);
    for bad in ["{", "}", "Some(", "None", "Err(", "Ok(", "\\n", "r#"] {
        assert!(!r.text.contains(bad), "debug output ({bad}) in: {}", r.text);
    }
    let size = r.structured.to_string().len();
    assert!(
        size < 4096,
        "structured too big ({size} bytes): {}",
        r.structured
    );
}

/// Asserts a success and returns it.
pub(crate) fn ok(r: Reply) -> Reply {
    assert!(!r.is_error, "refused: {}", r.text);
    r
}

/// Asserts a refusal with this code and returns it.
pub(crate) fn refused(r: Reply, code: &str) -> Reply {
    assert!(r.is_error, "accepted: {}", r.text);
    assert_eq!(r.structured["error"], code, "{}", r.text);
    r
}

/// Asserts the refusal a viewer gets for a write: it names the role needed.
pub(crate) fn needs_editor(r: Reply) {
    let r = refused(r, "forbidden");
    assert!(r.text.contains("éditeur"), "{}", r.text);
    assert_eq!(r.structured["needed"], "editor");
    // The view shows the person the role, without the tool or the schedule's id.
    let person = palmaplan_model::wire::ResultMeta::read(&r.meta).person_text;
    assert!(
        person
            .as_deref()
            .is_some_and(|p| p.contains("lecteur") && p.contains("éditeur")),
        "{person:?}"
    );
}
