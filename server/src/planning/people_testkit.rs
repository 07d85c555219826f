//! Test fixtures for the people, analysis, search and import/export tools: a planning
//! service over a fresh SQLite file, four users with different rights on a copy of the
//! demo schedule, and small helpers to call tools and read their answers.
//!
//! Self-contained on purpose (other tool families keep their own kits), so each family
//! can change its fixtures without touching the others' tests.

use std::sync::Arc;

use palmaplan_model::{Lang, Schedule, demo};
use serde_json::Value;

use super::{Caller, Clock, Planning, Reply};
use crate::storage::{Role, Store};

/// A clock that never moves: answers do not depend on when the tests run.
#[derive(Debug)]
pub(super) struct FixedClock;

impl Clock for FixedClock {
    fn now_ms(&self) -> i64 {
        1_780_000_000_000
    }
}

/// The service, the demo schedule's id and its callers.
#[derive(Debug)]
pub(super) struct Kit {
    pub(super) planning: Planning,
    pub(super) schedule: i64,
    /// Owner of the demo copy.
    pub(super) owner: Caller,
    pub(super) editor: Caller,
    pub(super) viewer: Caller,
    /// A viewer whose user e-mail is the demo member Thomas Dubois's (he has the
    /// demo's one absence), written in another case to check it does not matter.
    pub(super) thomas: Caller,
    /// A user with no role on the demo copy.
    pub(super) stranger: Caller,
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

impl Kit {
    /// A fresh kit in a temporary folder named after the test.
    pub(super) async fn new(name: &str) -> Kit {
        let dir =
            std::env::temp_dir().join(format!("palmaplan-people-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let store = Store::open(&format!("sqlite://{}", dir.join("db.sqlite").display()))
            .await
            .expect("store");
        let now = FixedClock.now_ms();
        let mut ids = Vec::new();
        for (n, email) in [
            ("Olivia Owner", "olivia@example.org"),
            ("Eddie Editor", "eddie@example.org"),
            ("Vera Viewer", "vera@example.org"),
            ("Thomas Dubois", "Thomas.Dubois@Example.org"),
            ("Sam Stranger", "sam@example.org"),
        ] {
            ids.push(store.add_user(n, email, now).await.expect("user"));
        }
        let schedule = store
            .create_schedule(&demo::s4hana_migration(), ids[0], now)
            .await
            .expect("schedule");
        for (user, role) in [
            (ids[1], Role::Editor),
            (ids[2], Role::Viewer),
            (ids[3], Role::Viewer),
        ] {
            store.set_role(schedule, user, role).await.expect("role");
        }
        Kit {
            planning: Planning::new(store, Arc::new(FixedClock)),
            schedule,
            owner: caller(ids[0]),
            editor: caller(ids[1]),
            viewer: caller(ids[2]),
            thomas: caller(ids[3]),
            stranger: caller(ids[4]),
        }
    }

    /// Calls a tool and returns its reply as is.
    pub(super) async fn call(&self, who: &Caller, tool: &str, args: Value) -> Reply {
        self.planning.call(who, tool, args).await
    }

    /// Calls a tool that must succeed.
    pub(super) async fn ok(&self, who: &Caller, tool: &str, args: Value) -> Reply {
        let r = self.call(who, tool, args).await;
        assert!(!r.is_error, "{tool} refused: {}", r.text);
        check_reply(&r);
        // Compact, except an export, whose purpose is the whole schedule.
        if tool != "export_schedule" {
            let size = r.structured.to_string().len();
            assert!(size < 4096, "{tool}: structured is {size} bytes");
        }
        r
    }

    /// Calls a tool that must refuse, and returns the refusal.
    pub(super) async fn refused(&self, who: &Caller, tool: &str, args: Value) -> Reply {
        let r = self.call(who, tool, args).await;
        assert!(r.is_error, "{tool} should have refused: {}", r.text);
        check_reply(&r);
        r
    }

    /// The stored state of a schedule.
    pub(super) async fn state(&self, id: i64) -> Schedule {
        self.planning.store().load(id).await.expect("load").state
    }
}

/// In English.
pub(super) fn en(c: &Caller) -> Caller {
    Caller {
        lang: Lang::En,
        ..c.clone()
    }
}

/// What every answer must be: some text, no Rust debug output; the person's words, if
/// any, without what is the model's.
pub(super) fn check_reply(r: &Reply) {
    assert!(!r.text.trim().is_empty(), "empty text");
    super::journal_testkit::check_meta(r);
    for debug in [
        "Some(",
        "None)",
        "Err(",
        "Ok(",
        "BarId(",
        "MemberId(",
        "panicked",
    ] {
        assert!(
            !r.text.contains(debug),
            "debug output {debug:?} in: {}",
            r.text
        );
    }
}

#[tokio::test]
async fn the_family_s_tools_have_object_schemas_with_documented_fields() {
    let k = Kit::new("schemas").await;
    let names = [
        "list_members",
        "add_member",
        "update_member",
        "share_schedule",
        "list_access",
        "add_absence",
        "update_absence",
        "list_absences",
        "schedule_risks",
        "search",
        "export_schedule",
        "import_schedule",
        "import_csv_periods",
    ];
    for name in names {
        let spec = k
            .planning
            .tools()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("{name} is not declared"));
        let schema = &spec.input_schema;
        assert_eq!(schema["type"], "object", "{name}: {schema}");
        let props = schema["properties"].as_object().unwrap();
        assert!(!props.is_empty(), "{name}");
        // `schedule` is an id or a name in every tool, said once in the server's
        // instructions: its schema (integer or string) is its description.
        for (field, p) in props.iter().filter(|(f, _)| *f != "schedule") {
            assert!(
                p.get("description").is_some(),
                "{name}.{field} has no description: {schema}"
            );
        }
    }
    let add = k
        .planning
        .tools()
        .find(|t| t.name == "add_absence")
        .unwrap();
    let member = add.input_schema["properties"]["member"].to_string();
    assert!(
        member.contains("integer") && member.contains("string"),
        "{member}"
    );
}

/// A text with its no-break spaces made visible (⟨nnbsp⟩ U+202F, ⟨nbsp⟩ U+00A0), so a
/// test states the typography it expects.
pub(super) fn visible(t: &str) -> String {
    t.replace('\u{202f}', "⟨nnbsp⟩").replace('\u{a0}', "⟨nbsp⟩")
}
