//! The MCP Apps surface from the outside (a real HTTP server, rmcp's client): who gets
//! the view-only tools (each route of the negotiation, and none), that they answer
//! every client anyway, the pages of a 100,000-bar schedule (each answer under 120,000
//! characters, reassembled exactly), privacy (no e-mail, no absence reason in any byte
//! of any view-only answer, even for the owner), proposals accepted at their rank (and
//! only one of two concurrent ones), read-only comparisons, the schedule resource, and
//! the view resource (listed to MCP Apps clients with its `_meta.ui`, read at any of its
//! URIs by anyone, the very bytes built into the server, pointed at by the tools that
//! show it, and clean of anything that loads, evaluates or carries a credential).

mod common;

use common::{Client, TestServer, call, page_offences, views_caps};
use palmaplan_model::paging::{Page, TextPage, reassemble};
use palmaplan_model::risk::{self, Highlights};
use palmaplan_model::synth::{self, Spec};
use palmaplan_model::{Schedule, demo};
use palmaplan_server::{bootstrap, view};
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResult, ClientCapabilities, ErrorCode,
    PaginatedRequestParams, ReadResourceRequestParams, RequestMetaObject, Resource,
    ResourceContents, Tool,
};
use serde_json::{Value, json};

const UI: &str = "io.modelcontextprotocol/ui";
const VIEW_ONLY: [&str; 4] = [
    "get_schedule_page",
    "get_changes_since",
    "get_schedule_absences",
    "get_view_code",
];
/// The tools whose answer the view shows.
const SHOWS_VIEW: [&str; 3] = ["show_schedule", "what_if", "diff_versions"];

/// The most characters an answer may take as the client receives it.
const RESPONSE_CHARS: usize = 120_000;

/// `_meta.ui` of a listed tool.
fn ui_meta(t: &Tool) -> Option<&Value> {
    t.meta.as_ref().and_then(|m| m.0.get("ui"))
}

/// Checks a tools/list: the model tools only, without any `_meta`; or with the view-only
/// ones marked and the ones that show the view pointing at it.
fn check_list(tools: &[Tool], with_views: bool, model_count: usize, route: &str) {
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    let expected = if with_views {
        model_count + VIEW_ONLY.len()
    } else {
        model_count
    };
    assert_eq!(tools.len(), expected, "{route}: {names:?}");
    for t in tools {
        let view_only = VIEW_ONLY.contains(&t.name.as_ref());
        assert!(with_views || !view_only, "{route}: {} listed", t.name);
        if with_views && view_only {
            assert_eq!(
                ui_meta(t).map(|ui| &ui["visibility"]),
                Some(&json!(["app"])),
                "{route}: {}",
                t.name
            );
        } else if with_views && SHOWS_VIEW.contains(&t.name.as_ref()) {
            // Both keys, the same URI; visible to the model too (no visibility).
            let uri = json!(view::resource_uri());
            assert_eq!(
                ui_meta(t),
                Some(&json!({"resourceUri": uri})),
                "{route}: {}",
                t.name
            );
            let flat = t.meta.as_ref().and_then(|m| m.0.get("ui/resourceUri"));
            assert_eq!(flat, Some(&uri), "{route}: {}", t.name);
        } else {
            // No `_meta` at all: no `ui`, no flat resource key.
            assert!(t.meta.is_none(), "{route}: {} has _meta", t.name);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_view_only_tools_are_listed_to_mcp_apps_clients_by_any_route() {
    let server = TestServer::start("apps-negotiation").await;

    // None: a client that announces nothing gets exactly the model tools.
    let plain = server.client().await;
    let info = plain.peer_info().unwrap();
    assert!(
        info.capabilities
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(UI)),
        "the server advertises the extension: {:?}",
        info.capabilities
    );
    assert!(info.capabilities.resources.is_some());
    let model = plain.list_all_tools().await.unwrap();
    let n = model.len();
    assert!(n > 50, "{n}");
    check_list(&model, false, n, "none");
    for needed in ["what_if", "diff_versions", "apply_patch"] {
        assert!(model.iter().any(|t| t.name == needed), "{needed}");
    }

    // 1. `capabilities.extensions` at initialize; 2. `capabilities.experimental`.
    for route in ["extensions", "experimental"] {
        let client = server
            .client_with_caps(&server.token, views_caps(route))
            .await
            .unwrap();
        let listed = client.list_tools(None).await.unwrap();
        assert_eq!(listed.cache_scope, Some(CacheScope::Private), "{route}");
        check_list(&listed.tools, true, n, route);
        client.cancel().await.unwrap();
    }
    // A host that names only other view types does not render ours.
    let other: ClientCapabilities =
        serde_json::from_value(json!({"extensions": {UI: {"mimeTypes": ["application/x-other"]}}}))
            .unwrap();
    let client = server.client_with_caps(&server.token, other).await.unwrap();
    check_list(
        &client.list_all_tools().await.unwrap(),
        false,
        n,
        "other type",
    );
    client.cancel().await.unwrap();

    // 3. The request's own `_meta["io.modelcontextprotocol/clientCapabilities"]`: on a
    // session that announced nothing at initialize...
    let mut meta = RequestMetaObject::new();
    meta.set_client_capabilities(views_caps("extensions"));
    let mut params = PaginatedRequestParams::default();
    params.meta = Some(meta);
    let listed = plain.list_tools(Some(params)).await.unwrap();
    check_list(&listed.tools, true, n, "request _meta");
    // ... and from a 2026-07-28 client, which sends it on every request (or not).
    let stateless = server
        .discover_client_with_caps(views_caps("extensions"))
        .await;
    let listed = stateless.list_tools(None).await.unwrap();
    assert_eq!(listed.cache_scope, Some(CacheScope::Private));
    check_list(&listed.tools, true, n, "2026-07-28 with the extension");
    stateless.cancel().await.unwrap();
    let stateless = server.discover_client().await;
    check_list(
        &stateless.list_all_tools().await.unwrap(),
        false,
        n,
        "2026-07-28 without",
    );

    // Visibility is no permission boundary: a client without MCP Apps calls them.
    let id = server.demo_id;
    for (tool, args) in [
        ("get_schedule_page", json!({"schedule": id, "page": 0})),
        ("get_changes_since", json!({"schedule": id, "rank": 0})),
        (
            "get_schedule_absences",
            json!({"schedule": id, "from": "2026-11-01", "to": "2026-12-31"}),
        ),
    ] {
        for client in [&plain, &stateless] {
            let a = call(client, tool, args.clone()).await;
            assert!(!a.is_error, "{tool}: {}", a.text);
            assert_eq!(a.structured["schedule_id"], id, "{tool}");
        }
    }
    // ... and rights are checked as for any tool.
    let stranger = server
        .store
        .add_user("Sam", "sam@example.org", 1)
        .await
        .unwrap();
    let token = bootstrap::create_token(&server.store, stranger, "t", false, None, 1)
        .await
        .unwrap()
        .secret;
    let outsider = server
        .client_with_caps(&token, views_caps("extensions"))
        .await
        .unwrap();
    // The schedule's view-only tools refuse someone who cannot see it…
    for tool in &VIEW_ONLY[..3] {
        let a = call(
            &outsider,
            tool,
            json!({"schedule": id, "page": 0, "rank": 0, "from": "2026-11-01", "to": "2026-11-30"}),
        )
        .await;
        assert!(a.is_error, "{tool}: {}", a.text);
    }
    let a = call(
        &outsider,
        "get_schedule_page",
        json!({"schedule": id, "page": 0}),
    )
    .await;
    assert_eq!(a.structured["error"], "schedule_not_found", "{}", a.text);
    // …while the view's code is anyone's (it is in the server's binary, like the page).
    let a = call(
        &outsider,
        "get_view_code",
        json!({"build": view::translation_build(), "part": 0}),
    )
    .await;
    assert!(!a.is_error, "{}", a.text);
    assert_eq!(a.structured["data"], view::translation_part(0).unwrap());
    for c in [plain, stateless, outsider] {
        c.cancel().await.unwrap();
    }
    server.stop().await;
}

/// A tool's whole answer as the client receives it (the CallToolResult serialised),
/// with the JSON-RPC envelope around it.
async fn raw_call(client: &Client, tool: &str, args: Value) -> (CallToolResult, String) {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    if let Value::Object(map) = args {
        params = params.with_arguments(map);
    }
    let result = client.call_tool(params).await.unwrap();
    let raw = format!(
        r#"{{"jsonrpc":"2.0","id":123456,"result":{}}}"#,
        serde_json::to_string(&result).unwrap()
    );
    (result, raw)
}

/// UTF-16 code units: what a JavaScript host counts (never fewer than chars).
fn units(s: &str) -> usize {
    s.encode_utf16().count()
}

/// Every page of a schedule, each answer's structuredContent and whole text: each under
/// the bound, and the bound used, not merely respected.
async fn all_pages(client: &Client, id: i64) -> Vec<(Value, String)> {
    let (mut out, mut largest, mut n) = (Vec::new(), 0, 1);
    while out.len() < n {
        let i = out.len();
        let (r, raw) = raw_call(
            client,
            "get_schedule_page",
            json!({"schedule": id, "page": i}),
        )
        .await;
        assert_eq!(r.is_error, Some(false), "page {i}: {}", text_of(&r));
        let size = units(&raw);
        assert!(size < RESPONSE_CHARS, "page {i}: {size} characters");
        largest = largest.max(size);
        let s = r.structured_content.unwrap();
        n = s["pages"].as_u64().unwrap() as usize;
        out.push((s, raw));
    }
    assert!(largest > 100_000, "largest answer {largest}");
    out
}

/// Every answer of a schedule's packed pages (`packed`), as a view that unpacks reads
/// them: each under the bound; page 0 says no count when the pages were not packed yet.
async fn all_packed_answers(client: &Client, id: i64) -> Vec<(Value, String)> {
    let mut out: Vec<(Value, String)> = Vec::new();
    let mut n = None;
    while out.len() < n.unwrap_or(2) {
        let i = out.len();
        let (r, raw) = raw_call(
            client,
            "get_schedule_page",
            json!({"schedule": id, "page": i, "packed": true}),
        )
        .await;
        assert_eq!(r.is_error, Some(false), "packed page {i}: {}", text_of(&r));
        let size = units(&raw);
        assert!(size < RESPONSE_CHARS, "packed page {i}: {size} characters");
        let s = r.structured_content.unwrap();
        if let Some(pages) = s["pages"].as_u64() {
            n = Some(pages as usize);
        }
        out.push((s, raw));
    }
    out
}

/// The record parts of a packed answer, unpacked as the view does (gzip in base64, a
/// part per line), or its plain parts.
fn unpacked_parts(s: &Value) -> Vec<String> {
    use base64::Engine as _;
    use std::io::Read as _;
    let texts = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| a.iter().map(|t| t.as_str().unwrap().to_owned()).collect())
            .unwrap_or_default()
    };
    let mut parts = texts(&s["record_parts"]);
    for packed in texts(&s["packed_parts"]) {
        let gz = base64::engine::general_purpose::STANDARD
            .decode(packed)
            .unwrap();
        let mut text = String::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_string(&mut text)
            .unwrap();
        parts.extend(text.split('\n').map(str::to_owned));
    }
    parts
}

/// A `get_schedule_page` answer's page, its records read from their texts.
fn read_page(structured: Value) -> Page {
    serde_json::from_value::<TextPage>(structured)
        .unwrap()
        .read()
        .unwrap()
}

fn text_of(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// A schedule as the view sees it: no e-mail and no absence reason.
fn stripped(mut s: Schedule) -> Schedule {
    for m in &mut s.members {
        m.email = None;
    }
    for a in &mut s.absences {
        a.reason.clear();
    }
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_100000_bar_schedule_pages_under_the_bound_and_reassembles_exactly() {
    let server = TestServer::start("apps-pages").await;
    let mut big = synth::generate(Spec::new(100_000));
    big.name = "Synthèse 100 000".into();
    assert!(big.members.iter().any(|m| m.email.is_some()));
    assert!(big.absences.iter().any(|a| !a.reason.is_empty()));
    let id = server
        .store
        .create_schedule(&big, server.owner_id, 1)
        .await
        .unwrap();
    let client = server.client().await;

    let answers = all_pages(&client, id).await;
    let n = answers.len();
    assert!(n > 20, "{n} pages");
    let rank = answers[0].0["rank"].clone();
    let plain_parts: Vec<String> = answers
        .iter()
        .flat_map(|(s, _)| unpacked_parts(s))
        .collect();
    let first_parts = answers[0].0["record_parts"].clone();
    let mut pages = Vec::new();
    let mut analysis = Value::Null;
    for (i, (s, raw)) in answers.into_iter().enumerate() {
        assert!(!raw.contains('@'), "page {i} carries an e-mail");
        assert_eq!(s["rank"], rank);
        assert_eq!(s["page"], i);
        assert_eq!(s.get("analysis").is_some(), i == n - 1, "page {i}");
        if i == n - 1 {
            analysis = s["analysis"].clone();
        }
        pages.push(read_page(s));
    }
    let back = reassemble(&pages).unwrap();
    assert!(
        back == stripped(big),
        "the pages do not reassemble the schedule"
    );
    // The last page carries the schedule's analysis, which reads back over the
    // reassembled copy as the model's own.
    assert_eq!(
        Highlights::from_wire(&analysis, &back),
        Some(risk::highlights(&back))
    );

    // Packed, as the packed view page reads them: the same record parts in order, in
    // under half as many answers; page 0 as it is and at once (its count left to page
    // 1), the analysis on the last answer only.
    let packed = all_packed_answers(&client, id).await;
    let k = packed.len();
    // 46 for 114 pages of this schedule since pages put their
    // records in runs (fewer characters a page, hardly fewer once compressed).
    assert!(k * 2 < n, "{k} packed answers for {n} pages");
    assert_eq!(
        packed[0].0["pages"],
        Value::Null,
        "page 0 waited for the packing"
    );
    assert_eq!(packed[0].0["record_parts"], first_parts);
    assert!(packed[0].0.get("packed_parts").is_none());
    for (i, (s, raw)) in packed.iter().enumerate() {
        assert!(!raw.contains('@'), "packed page {i} carries an e-mail");
        assert_eq!(s["page"], i);
        assert_eq!(s["rank"], rank);
        if i > 0 {
            assert_eq!(s["pages"], k, "packed page {i}");
        }
        assert_eq!(s.get("analysis").is_some(), i == k - 1, "packed page {i}");
    }
    assert!(
        packed[1..]
            .iter()
            .any(|(s, _)| s.get("packed_parts").is_some())
    );
    assert_eq!(packed[k - 1].0["analysis"], analysis);
    let packed_parts: Vec<String> = packed.iter().flat_map(|(s, _)| unpacked_parts(s)).collect();
    assert!(
        packed_parts == plain_parts,
        "the packed pages do not carry the pages' records"
    );
    // Packed already: page 0 now tells the count.
    let again = call(
        &client,
        "get_schedule_page",
        json!({"schedule": id, "page": 0, "packed": true}),
    )
    .await;
    assert_eq!(again.structured["pages"], k);

    // Past the last page: a refusal that says how many there are.
    let a = call(
        &client,
        "get_schedule_page",
        json!({"schedule": id, "page": n, "lang": "en"}),
    )
    .await;
    assert!(a.is_error);
    assert!(
        a.text
            .contains(&format!("it has {n}, numbered 0 to {}", n - 1)),
        "{}",
        a.text
    );
    client.cancel().await.unwrap();
    server.stop().await;
}

/// A page's records travel as texts, in which a quote or a backslash takes one unit more
/// than in their JSON: the pages are measured as sent, so texts full of them still give
/// answers under the bound (and the pages reassemble the schedule).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_of_texts_full_of_quotes_stay_under_the_bound() {
    let server = TestServer::start("apps-quoted-pages").await;
    let mut s = synth::generate(Spec::new(3_000));
    for (i, b) in s.bars.iter_mut().enumerate() {
        b.label = format!("\"{i}\" \\ «\t» \"\"\"\"\\\\\\\\");
        // Texts longer than a page, cut by the paging and continued on later pages.
        if i % 1_000 == 0 {
            b.notes = "\"\\".repeat(20_000);
        }
    }
    let id = server
        .store
        .create_schedule(&s, server.owner_id, 1)
        .await
        .unwrap();
    let client = server.client().await;
    let pages: Vec<Page> = all_pages(&client, id)
        .await
        .into_iter()
        .map(|(s, _)| read_page(s))
        .collect();
    assert!(pages.len() > 3, "{} pages", pages.len());
    assert!(
        reassemble(&pages).unwrap() == stripped(s),
        "the pages do not reassemble the schedule"
    );
    client.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_view_only_answer_carries_an_email_or_a_reason_even_for_the_owner() {
    let server = TestServer::start("apps-privacy").await;
    let client = server
        .client_with_caps(&server.token, views_caps("extensions"))
        .await
        .unwrap();
    let id = server.demo_id;
    // Private data in the journal too.
    let added = call(
        &client,
        "add_member",
        json!({"schedule": id, "name": "Zoé Martin", "email": "zoe.martin@example.org"}),
    )
    .await;
    assert!(!added.is_error, "{}", added.text);
    let zoe = added.structured["member"]
        .as_u64()
        .unwrap_or_else(|| panic!("add_member answers the member's id: {}", added.structured));
    let absent = call(
        &client,
        "add_absence",
        json!({"schedule": id, "member": zoe, "start": "2026-11-16", "end": "2026-11-18", "reason": "Opération du genou"}),
    )
    .await;
    assert!(!absent.is_error, "{}", absent.text);

    let mut secrets: Vec<String> = demo::s4hana_migration()
        .members
        .iter()
        .filter_map(|m| m.email.clone())
        .collect();
    secrets.extend(
        demo::s4hana_migration()
            .absences
            .iter()
            .map(|a| a.reason.clone()),
    );
    secrets.push("zoe.martin".into());
    secrets.push("Opération du genou".into());
    // The owner sees them elsewhere: the check below could see a leak.
    let list = call(&client, "list_absences", json!({"schedule": id})).await;
    assert!(list.text.contains("Opération du genou"), "{}", list.text);

    let mut answers = Vec::new();
    for (tool, args) in [
        ("get_schedule_page", json!({"schedule": id, "page": 0})),
        ("get_changes_since", json!({"schedule": id, "rank": 0})),
        (
            "get_schedule_absences",
            json!({"schedule": id, "from": "2026-10-01", "to": "2027-01-31"}),
        ),
    ] {
        for lang in ["fr", "en"] {
            let mut args = args.clone();
            args["lang"] = json!(lang);
            let (r, raw) = raw_call(&client, tool, args).await;
            assert_eq!(r.is_error, Some(false), "{tool}: {}", text_of(&r));
            answers.push((tool, raw));
        }
    }
    let absences = &answers[4].1;
    assert!(
        absences.contains("Zoé Martin") && absences.contains("2026-11-16"),
        "{absences}"
    );
    let resource = client
        .read_resource(ReadResourceRequestParams::new(format!(
            "palmaplan://schedule/{id}/json"
        )))
        .await
        .unwrap();
    answers.push(("resource", serde_json::to_string(&resource).unwrap()));
    for (what, raw) in &answers {
        assert!(!raw.contains('@'), "{what} carries an e-mail: {raw}");
        for s in &secrets {
            assert!(!raw.contains(s.as_str()), "{what} carries “{s}”");
        }
    }
    client.cancel().await.unwrap();
    server.stop().await;
}

/// "Accept": apply_patch with a proposal's commands at the rank it was made at.
async fn accept(
    client: &Client,
    id: i64,
    p: &common::Answer,
) -> Result<CallToolResult, rmcp::ServiceError> {
    let args = json!({"schedule": id, "commands": p.structured["commands"], "expected_rank": p.structured["rank"]});
    let params =
        CallToolRequestParams::new("apply_patch").with_arguments(args.as_object().unwrap().clone());
    client.call_tool(params).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proposals_apply_at_their_rank_and_only_one_of_two_concurrent_ones() {
    let server = TestServer::start("apps-proposals").await;
    let alice = server.client().await;
    let bob = server.client().await;
    let id = server.demo_id;
    let bars = demo::s4hana_migration().bars;
    let (b1, b2) = (bars[0].id.0, bars[1].id.0);

    let p = call(
        &alice,
        "what_if",
        json!({"schedule": id, "commands": [{"op": "move_periods", "bars": [b1], "by": 5}]}),
    )
    .await;
    assert!(!p.is_error, "{}", p.text);
    assert_eq!(p.structured["rank"], 0);
    assert_eq!(p.structured["acceptable"], true);
    assert_eq!(
        server.store.rank(id).await.unwrap(),
        0,
        "what_if writes nothing"
    );
    assert!(p.text.contains("expected_rank = 0"), "{}", p.text);
    let applied = call(
        &alice,
        "apply_patch",
        json!({"schedule": id, "commands": p.structured["commands"], "expected_rank": p.structured["rank"]}),
    )
    .await;
    assert!(!applied.is_error, "{}", applied.text);
    assert_eq!(applied.structured["rank"], 1);
    let now = server.store.load(id).await.unwrap().state;
    assert!(
        now.bar(bars[0].id).unwrap().start > bars[0].start,
        "the bar moved"
    );

    // Two proposals made at the same rank, accepted at the same time: one applies.
    let p1 = call(
        &alice,
        "what_if",
        json!({"schedule": id, "commands": [{"op": "move_periods", "bars": [b2], "by": 1}]}),
    )
    .await;
    let p2 = call(
        &bob,
        "what_if",
        json!({"schedule": id, "commands": [{"op": "move_periods", "bars": [b2], "by": -1}]}),
    )
    .await;
    assert_eq!(p1.structured["rank"], 1);
    assert_eq!(p2.structured["rank"], 1);
    let (r1, r2) = tokio::join!(accept(&alice, id, &p1), accept(&bob, id, &p2));
    let (r1, r2) = (r1.unwrap(), r2.unwrap());
    let outcomes = [r1.is_error == Some(true), r2.is_error == Some(true)];
    assert_eq!(outcomes.iter().filter(|e| **e).count(), 1, "{r1:?}\n{r2:?}");
    let loser = if outcomes[0] { &r1 } else { &r2 };
    assert_eq!(
        loser.structured_content.as_ref().unwrap()["error"],
        "out_of_date"
    );
    assert!(
        text_of(loser).contains("n'est plus à jour"),
        "{}",
        text_of(loser)
    );
    assert_eq!(server.store.rank(id).await.unwrap(), 2);

    // A proposal with a change the chart cannot show is not acceptable.
    let p = call(
        &alice,
        "what_if",
        json!({"schedule": id, "commands": [{"op": "set_schedule_notes", "notes": "Revue"}], "lang": "en"}),
    )
    .await;
    assert_eq!(p.structured["acceptable"], false, "{}", p.structured);
    assert!(p.text.contains("Changes not shown: 1"), "{}", p.text);
    alice.cancel().await.unwrap();
    bob.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn versions_compare_read_only_and_schedules_read_as_resources() {
    let server = TestServer::start("apps-diff").await;
    let client = server.client().await;
    let id = server.demo_id;
    let bar = demo::s4hana_migration().bars[0].id.0;
    let saved = call(
        &client,
        "save_version",
        json!({"schedule": id, "name": "Baseline"}),
    )
    .await;
    assert!(!saved.is_error, "{}", saved.text);
    call(
        &client,
        "move_periods",
        json!({"schedule": id, "bars": [bar], "by": 3}),
    )
    .await;
    let before = server.store.load(id).await.unwrap();
    let d = call(
        &client,
        "diff_versions",
        json!({"schedule": id, "from": "Baseline", "to": "current", "lang": "en"}),
    )
    .await;
    assert!(!d.is_error, "{}", d.text);
    assert!(
        d.text.contains("read-only, nothing was written"),
        "{}",
        d.text
    );
    assert_eq!(d.structured["kind"], "comparison");
    assert_eq!(d.structured["acceptable"], false);
    assert_eq!(d.structured["changes"]["count"], 1, "{}", d.structured);
    let after = server.store.load(id).await.unwrap();
    assert_eq!(after.rank, before.rank, "diff_versions writes nothing");
    assert_eq!(after.state, before.state);
    let same = call(
        &client,
        "diff_versions",
        json!({"schedule": id, "from": "current", "to": "current"}),
    )
    .await;
    assert_eq!(same.structured["changes"]["count"], 0);

    // The schedule as a resource: the template, the list, the read.
    let templates = client.list_all_resource_templates().await.unwrap();
    assert!(
        templates
            .iter()
            .any(|t| t.uri_template == "palmaplan://schedule/{id}/json"),
        "{templates:?}"
    );
    let listed = client.list_all_resources().await.unwrap();
    let uri = format!("palmaplan://schedule/{id}/json");
    assert!(listed.iter().any(|r| r.uri == uri), "{listed:?}");
    let read = client
        .read_resource(ReadResourceRequestParams::new(uri.clone()))
        .await
        .unwrap();
    let ResourceContents::TextResourceContents {
        text, mime_type, ..
    } = &read.contents[0]
    else {
        panic!("a text resource");
    };
    assert_eq!(mime_type.as_deref(), Some("application/json"));
    let state: Schedule = serde_json::from_str(text).unwrap();
    assert!(
        state == stripped(after.state),
        "the resource is the stripped state"
    );
    for bad in ["palmaplan://schedule/999999/json", "palmaplan://nothing"] {
        let err = client
            .read_resource(ReadResourceRequestParams::new(bad))
            .await
            .unwrap_err();
        assert!(!err.to_string().is_empty());
    }
    client.cancel().await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_schedule_gives_an_mcp_apps_host_no_link_and_others_one() {
    let server = TestServer::start("apps-show").await;
    let apps = server
        .client_with_caps(&server.token, views_caps("extensions"))
        .await
        .unwrap();
    let a = call(&apps, "show_schedule", json!({"schedule": 1})).await;
    assert!(!a.is_error, "{}", a.text);
    assert!(a.structured["url"].is_null() && a.structured["expires_at"].is_null());
    let whole = format!("{} {}", a.text, a.structured);
    assert!(
        !whole.contains("/embed/") && !whole.contains("t="),
        "{whole}"
    );
    assert!(!whole.contains(&server.token), "{whole}");

    let plain = server.client().await;
    let b = call(&plain, "show_schedule", json!({"schedule": 1})).await;
    assert!(!b.is_error, "{}", b.text);
    let url = b.structured["url"]
        .as_str()
        .expect("a link for a text-only client");
    assert!(
        url.contains("/embed/1?t=") && b.text.contains(url),
        "{}",
        b.text
    );
    for c in [apps, plain] {
        c.cancel().await.unwrap();
    }
    server.stop().await;
}

/// The `_meta` of the view resource, on its list entry and its read content.
fn view_meta() -> Value {
    json!({"ui": {
        "csp": {
            "connectDomains": [], "resourceDomains": [], "frameDomains": [],
            "baseUriDomains": [], "wasmUnsafeEval": true
        },
        "prefersBorder": true
    }})
}

/// The `ui://` entries of a resources/list.
fn listed_views(resources: &[Resource]) -> Vec<&Resource> {
    resources
        .iter()
        .filter(|r| r.uri.starts_with("ui://"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_view_resource_is_listed_to_mcp_apps_clients_and_read_at_any_of_its_uris() {
    let server = TestServer::start("apps-view").await;
    let apps = server
        .client_with_caps(&server.token, views_caps("extensions"))
        .await
        .unwrap();
    let plain = server.client().await;

    // Listed once to an MCP Apps client, with its type and `_meta.ui`.
    let listed = apps.list_all_resources().await.unwrap();
    let views = listed_views(&listed);
    assert_eq!(views.len(), 1, "{listed:?}");
    let entry = views[0];
    let uri = entry.uri.clone();
    let hash = uri
        .strip_prefix("ui://palmaplan/planning?v=")
        .unwrap_or_else(|| panic!("{uri}"));
    assert!(
        hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
        "{uri}"
    );
    assert_eq!(uri, view::resource_uri());
    assert_eq!(
        entry.mime_type.as_deref(),
        Some("text/html;profile=mcp-app")
    );
    assert_eq!(
        serde_json::to_value(&entry.meta).unwrap(),
        view_meta(),
        "{entry:?}"
    );
    // The schedules are still listed beside it.
    let json_uri = format!("palmaplan://schedule/{}/json", server.demo_id);
    assert!(listed.iter().any(|r| r.uri == json_uri), "{listed:?}");
    // Listed by the per-request route too; not to a text-only client (see mcp.rs).
    let stateless = server
        .discover_client_with_caps(views_caps("experimental"))
        .await;
    let again = stateless.list_all_resources().await.unwrap();
    assert_eq!(
        listed_views(&again)
            .iter()
            .map(|r| &r.uri)
            .collect::<Vec<_>>(),
        [&uri]
    );
    let plain_list = plain.list_all_resources().await.unwrap();
    assert!(listed_views(&plain_list).is_empty(), "{plain_list:?}");
    assert!(plain_list.iter().any(|r| r.uri == json_uri));

    // The tools that show the view point at the listed URI, by both keys.
    let tools = apps.list_all_tools().await.unwrap();
    for name in SHOWS_VIEW {
        let t = tools.iter().find(|t| t.name == name).unwrap();
        let meta = &t.meta.as_ref().unwrap().0;
        assert_eq!(meta["ui"]["resourceUri"], uri, "{name}");
        assert_eq!(meta["ui/resourceUri"], uri, "{name}");
    }
    assert_eq!(
        tools
            .iter()
            .filter(|t| t
                .meta
                .as_ref()
                .is_some_and(|m| m.0.contains_key("ui/resourceUri")))
            .count(),
        3
    );
    for t in plain.list_all_tools().await.unwrap() {
        assert!(t.meta.is_none(), "{} has _meta without MCP Apps", t.name);
    }

    // Read: the current URI, an older build's, the bare one; by any client. Always the
    // page built into the server, with the same `_meta`.
    let older = "ui://palmaplan/planning?v=0000000000000000";
    for client in [&apps, &plain, &stateless] {
        for asked in [uri.as_str(), older, "ui://palmaplan/planning"] {
            let read = client
                .read_resource(ReadResourceRequestParams::new(asked))
                .await
                .unwrap_or_else(|e| panic!("{asked}: {e}"));
            assert_eq!(read.contents.len(), 1, "{asked}");
            let ResourceContents::TextResourceContents {
                uri: got,
                mime_type,
                text,
                meta,
                ..
            } = &read.contents[0]
            else {
                panic!("{asked}: not text");
            };
            assert_eq!(got, asked);
            assert_eq!(mime_type.as_deref(), Some("text/html;profile=mcp-app"));
            assert_eq!(serde_json::to_value(meta).unwrap(), view_meta(), "{asked}");
            assert!(text == view::HTML, "{asked}: not the embedded page");
            assert_eq!(text.matches(view::MCP_MARKER).count(), 1);
        }
    }
    // Nothing in it loads, evaluates or carries a credential.
    let offences = page_offences(view::HTML);
    assert!(offences.is_empty(), "{offences:#?}");

    // Other ui:// paths: resource not found, saying where the view is.
    for bad in [
        "ui://palmaplan/other",
        "ui://palmaplan/planning/x",
        "ui://other/planning",
    ] {
        let err = plain
            .read_resource(ReadResourceRequestParams::new(bad))
            .await
            .unwrap_err();
        let rmcp::ServiceError::McpError(e) = &err else {
            panic!("{bad}: {err}");
        };
        assert_eq!(e.code, ErrorCode::RESOURCE_NOT_FOUND, "{bad}: {e:?}");
        assert!(
            e.message.starts_with(&format!("Aucune vue « {bad} »"))
                && e.message
                    .contains("PalmaPlan n'a qu'une vue : ui://palmaplan/planning,"),
            "{bad}: {}",
            e.message
        );
    }
    for c in [apps, plain, stateless] {
        c.cancel().await.unwrap();
    }
    server.stop().await;
}

#[test]
fn the_page_scanner_catches_each_pattern_and_only_them() {
    // Clean, though close to each pattern: the XML namespaces, look-alike names.
    let clean = r#"<!doctype html><html><head><meta name="palmaplan-mode" content="mcp"></head>
<body><svg xmlns="http://www.w3.org/2000/svg"><g/></svg>
<div xmlns="http://www.w3.org/1999/xhtml" xml:lang="fr"></div>
<x xmlns:xml="http://www.w3.org/XML/1998/namespace"/>
<formula-bar></formula-bar><p>Le jeton ppt_… se crée côté serveur.</p>
<script>prefetch(a); retrieval(b); evaluate(c); reimport(d); renewFunction(e);
new FunctionCall(); x.newFunction; xhr.setRequestHeader("Authorization","Embed "+t);
const wppt_x = 1; var o = {Bearers: 2};</script></body></html>"#;
    assert_eq!(page_offences(clean), Vec::<String>::new());

    for (bad, what) in [
        ("fetch('/x')", "`fetch(`"),
        ("window.fetch (u)", "`fetch(`"),
        ("eval('1+1')", "`eval(`"),
        ("new Function('a', 'return a')", "`new Function`"),
        ("new\n  Function()", "`new Function`"),
        ("import('./chunk.js')", "`import(`"),
        ("<form action=\"x\">", "`<form`"),
        ("<FORM>", "`<form`"),
        ("<img src=\"http://example.com/a.png\">", "an address"),
        (
            "<script src=\"https://cdn.example.com/a.js\"></script>",
            "an address",
        ),
        ("HTTPS://EXAMPLE.ORG", "an address"),
        ("http://www.w3.org/2000/svg.evil.example/x", "an address"),
        ("http://www.w3.org/1999/xhtml/../../evil", "an address"),
        (
            "const t = 'ppt_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';",
            "a named token",
        ),
        ("h['Authorization'] = 'Bearer ' + t;", "`Bearer `"),
        ("authorization: bearer abc", "`Bearer `"),
    ] {
        // Alone and inside an otherwise clean page.
        for page in [
            bad.to_owned(),
            clean.replace("<body>", &format!("<body>{bad}")),
        ] {
            let found = page_offences(&page);
            assert_eq!(found.len(), 1, "{bad}: {found:#?}");
            assert!(found[0].starts_with(what), "{bad}: {found:#?}");
        }
    }
}
