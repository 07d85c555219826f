//! PalmaPlan's embedded view: the Gantt chart, kanban board, agenda and before/after
//! that MCP Apps hosts show in the conversation (and the `/embed` page shows in a
//! browser). A Leptos client-side app in Rust compiled to wasm32, translated to
//! JavaScript by wasm2js and packed into one HTML file by `build.sh`; the drawing math
//! is the model crate's.
//!
//! Map: `bridge` (the MCP Apps protocol as a plain state machine), `phase` (the card's
//! phases: waiting, result, cancelled, stalled), `data` (pages in, journal replayed),
//! `host` (the Backend seam: the host bridge or HTTP, the only code that talks
//! outside), `live` (the `/embed` page's event stream: when to read the journal), `app` (state and life), `gantt` (the card and the chart), `boards`
//! (kanban, agenda, before/after lists), `sig` (state cells with Leptos triggers, redraws, timers), `texts`
//! (words). See docs/ARCHITECTURE.md.

// Leptos's typed views nest one type per element and closure: the shell's (`shell::full`)
// go past the compiler's default query depth of 128 in a build from nothing (the
// native test build, where the renderer's HTML output is on), though not in an
// incremental one.
#![recursion_limit = "256"]

pub mod app;
pub mod boards;
pub mod bridge;
pub mod data;
pub mod gantt;
pub mod host;
pub mod html;
pub mod live;
pub mod phase;
pub mod shell;
pub mod sig;
pub mod texts;

use palmaplan_model::Lang;
use wasm_bindgen::prelude::*;

/// The entry point the loader calls once the module runs (either path).
#[wasm_bindgen]
pub fn start() {
    app::start(embed_mode());
    // The skeleton of the bootstrap goes once the view is mounted.
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("pp-boot"))
    {
        el.remove();
    }
    host::mark("mounted", &JsValue::TRUE);
}

/// Under `/embed/<id>?t=<token>&...` the server marks the page
/// `<meta name="palmaplan-mode" content="embed" data-lang="fr">`, under
/// `/app/schedules/<id>` (the web screen) `content="app"` with the session's
/// `data-csrf`; the view then reads the schedule, the token and the view's options (the address's other parameters,
/// which `show_schedule` wrote there) from its own address, and calls the server over
/// HTTP.
fn embed_mode() -> Option<app::Embed> {
    let doc = web_sys::window()?.document()?;
    let meta = doc.query_selector("meta[name=palmaplan-mode]").ok()??;
    let session = match meta.get_attribute("content").as_deref() {
        Some("embed") => false,
        Some("app") => true,
        _ => return None,
    };
    let lang = match meta.get_attribute("data-lang").as_deref() {
        Some("en") => Lang::En,
        _ => Lang::Fr,
    };
    let loc = web_sys::window()?.location();
    let path = loc.pathname().ok()?;
    let id: i64 = path
        .strip_prefix(if session {
            "/app/schedules/"
        } else {
            "/embed/"
        })?
        .split('/')
        .next()?
        .parse()
        .ok()?;
    let search = loc.search().ok()?;
    let mut token = None;
    let mut args = serde_json::Map::new();
    args.insert("schedule".into(), id.into());
    for kv in search
        .trim_start_matches('?')
        .split('&')
        .filter(|kv| !kv.is_empty())
    {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        let v = js_sys::decode_uri_component(&v.replace('+', " "))
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default();
        match k {
            "t" => token = Some(v),
            "critical_path" => {
                args.insert(k.into(), (v == "true").into());
            }
            // A version given by id travels as a number (a string would be a name).
            "reference" => {
                let v = v
                    .parse::<i64>()
                    .map_or_else(|_| v.clone().into(), Into::into);
                args.insert(k.into(), v);
            }
            "view" | "filter" | "zoom" | "from" | "to" | "panel" => {
                args.insert(k.into(), v.into());
            }
            _ => {}
        }
    }
    let door = if session {
        host::Door::Session(meta.get_attribute("data-csrf")?)
    } else {
        host::Door::Link(token?)
    };
    Some(app::Embed {
        schedule: id,
        door,
        lang,
        args: serde_json::Value::Object(args),
    })
}
