//! Test helpers for the journal, version and period tools: the planning service on a
//! fresh SQLite file, three people on a copy of the demo schedule (Alice owns it, Bob
//! edits it, Carol reads it), and a clock that moves one second per reading, so texts
//! with times are deterministic.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use palmaplan_model::{Lang, Schedule, demo};
use serde_json::Value;

use super::{Caller, Clock, Planning, Reply};
use crate::storage::{Role, Store};

/// 2026-05-03T09:20:00Z, then one second more at each reading.
#[derive(Debug)]
pub(super) struct StepClock(AtomicI64);

impl Clock for StepClock {
    fn now_ms(&self) -> i64 {
        self.0.fetch_add(1_000, Ordering::SeqCst)
    }
}

pub(super) const START_MS: i64 = 1_777_800_000_000;

#[derive(Debug)]
pub(super) struct Kit {
    pub(super) planning: Planning,
    /// The demo schedule's id.
    pub(super) schedule: i64,
    pub(super) alice: Caller,
    pub(super) bob: Caller,
    pub(super) carol: Caller,
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

/// The same caller with English texts.
pub(super) fn en(c: &Caller) -> Caller {
    Caller {
        lang: Lang::En,
        ..c.clone()
    }
}

impl Kit {
    /// A fresh database in a temporary folder named after the test.
    pub(super) async fn new(name: &str) -> Kit {
        let dir =
            std::env::temp_dir().join(format!("palmaplan-journal-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open(&format!("sqlite://{}", dir.join("db.sqlite").display()))
            .await
            .unwrap();
        let alice = store
            .add_user("Alice", "alice@example.org", 0)
            .await
            .unwrap();
        let bob = store.add_user("Bob", "bob@example.org", 0).await.unwrap();
        let carol = store
            .add_user("Carol", "carol@example.org", 0)
            .await
            .unwrap();
        let schedule = store
            .create_schedule(&demo::s4hana_migration(), alice, 0)
            .await
            .unwrap();
        store.set_role(schedule, bob, Role::Editor).await.unwrap();
        store.set_role(schedule, carol, Role::Viewer).await.unwrap();
        let planning = Planning::new(store, Arc::new(StepClock(AtomicI64::new(START_MS))));
        Kit {
            planning,
            schedule,
            alice: caller(alice),
            bob: caller(bob),
            carol: caller(carol),
        }
    }

    pub(super) async fn call(&self, who: &Caller, tool: &str, args: Value) -> Reply {
        self.planning.call(who, tool, args).await
    }

    /// Calls a tool that must succeed; checks the text stands on its own.
    pub(super) async fn ok(&self, who: &Caller, tool: &str, args: Value) -> Reply {
        let r = self.call(who, tool, args).await;
        assert!(!r.is_error, "{tool} failed: {}", r.text);
        check_text(&r);
        r
    }

    /// Calls a tool that must refuse, with this code.
    pub(super) async fn refused(&self, who: &Caller, tool: &str, args: Value, code: &str) -> Reply {
        let r = self.call(who, tool, args).await;
        assert!(r.is_error, "{tool} should have refused: {}", r.text);
        assert_eq!(r.structured["error"], code, "{}", r.text);
        check_text(&r);
        r
    }

    pub(super) async fn state(&self) -> Schedule {
        self.planning
            .store()
            .load(self.schedule)
            .await
            .unwrap()
            .state
    }

    pub(super) async fn rank(&self) -> i64 {
        self.planning.store().rank(self.schedule).await.unwrap()
    }
}

/// Every answer: a text, no Rust debug output, a compact structured value.
fn check_text(r: &Reply) {
    assert!(!r.text.trim().is_empty());
    for debug in ["Some(", "None", "BarId(", "Err(", "Ok(", "{:?}"] {
        assert!(!r.text.contains(debug), "debug output in: {}", r.text);
    }
    let size = r.structured.to_string().len();
    assert!(size < 4_096, "structured is {size} bytes: {}", r.structured);
    check_meta(r);
}

/// The person's words of an answer, if it has some, checked by [`check_person`]; the
/// test kits of every tool family call it on every answer.
pub(super) fn check_meta(r: &Reply) {
    if let Some(person) = palmaplan_model::wire::ResultMeta::read(&r.meta).person_text {
        check_person(&person);
    }
}

/// The person's words (`_meta` `palmaplan/person_text`) hold none of what the model
/// acts with: an id after a kind's word ("bloc 14", "Lien 22"), a rank, a tool's name.
pub(super) fn check_person(text: &str) {
    let ids = palmaplan_model::text::ids_named(text);
    assert!(ids.is_empty(), "{ids:?} in the person's words: {text}");
    for tool in super::specs().iter().map(|t| t.name) {
        // A tool's name as a word of its own (“undo” and “redo” are English words too).
        let as_word = text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == tool && w.contains('_'));
        assert!(!as_word, "the tool {tool} in the person's words: {text}");
    }
    assert!(!text.contains("reschedule"), "{text}");
}

/// Two states equal but for `next_id`, which an undo never brings back.
pub(super) fn same(a: &Schedule, b: &Schedule) -> bool {
    let mut a = a.clone();
    a.next_id = b.next_id;
    a == *b
}

#[test]
#[should_panic(expected = "[\"bloc 14)\"] in the person's words")]
fn the_person_check_finds_an_id() {
    check_person("«\u{a0}Pose\u{a0}» (bloc 14) déplacé.");
}

#[test]
#[should_panic(expected = "the tool apply_patch in the person's words")]
fn the_person_check_finds_a_tool() {
    check_person("Acceptez avec apply_patch.");
}

#[test]
fn the_person_s_words_are_where_the_view_reads_them() {
    use palmaplan_model::wire::ResultMeta;
    let r = Reply::ok("t", serde_json::json!({}))
        .with_meta(serde_json::json!({ "palmaplan/help_url": "https://example.org/help" }))
        .for_person("« Pose » déplacé");
    let mut r = r;
    r.person_also("2 blocs décalés en cascade.");
    let meta = ResultMeta::read(&r.meta);
    assert_eq!(
        meta.person_text.as_deref(),
        Some("« Pose » déplacé. 2 blocs décalés en cascade.")
    );
    assert_eq!(
        meta.help_url.as_deref(),
        Some("https://example.org/help"),
        "kept"
    );
    // Without words for the person, a sentence adds none.
    let mut bare = Reply::ok("t", serde_json::json!({}));
    bare.person_also("2 blocs décalés en cascade.");
    assert_eq!(bare.meta, Value::Null);
}
