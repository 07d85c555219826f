//! The MCP adapter: an rmcp `ServerHandler` over the planning service.
//!
//! It is written by hand rather than with rmcp's `#[tool]` macros because the catalogue
//! already exists: `Planning::tools()` gives each tool's name, description and input
//! schema (derived from the type that parses the arguments), and `Planning::call` runs
//! it. This module only translates: the catalogue into `tools/list` (built once, kept in
//! an `Arc`, since rmcp makes one handler per session), a `tools/call` into
//! `Planning::call`, and the `Reply` into a `CallToolResult` (text, `structuredContent`,
//! `isError`). A refusal is always a tool result with `isError`, never a JSON-RPC error:
//! a model reads the text and fixes its call.
//!
//! MCP Apps: a client announces that it renders views through the
//! `io.modelcontextprotocol/ui` extension, by any of three routes — its `initialize`
//! capabilities' `extensions` (the stable spec) or `experimental` (older hosts), or
//! the per-request `_meta["io.modelcontextprotocol/clientCapabilities"]` of protocol
//! 2026-07-28. One is enough ([`renders_views`]). Such a client gets the view-only
//! tools too, marked `_meta.ui.visibility: ["app"]` so the host hides them from the
//! model; any other client gets exactly the model tools, with no `_meta.ui` (nothing
//! would hide the view-only ones from its model, and a page is 110,000 characters).
//! The list therefore depends on the client: it is marked `cacheScope: private`.
//! Visibility is no permission boundary: `tools/call` serves every tool to every
//! client, and the planning service checks the caller's rights as always.
//!
//! Resources: `palmaplan://schedule/{id}/json` (a template) gives a whole schedule as
//! JSON, under the same rights and the same privacy rule as the view's pages
//! (`Planning::schedule_json`); `resources/list` names the caller's schedules so.
//!
//! The view: `ui://palmaplan/planning?v=<hash>` (`crate::view`), of type
//! `text/html;profile=mcp-app`, with the same `_meta.ui` ([`view_resource_meta`]: a CSP
//! that opens no domain but allows WebAssembly, and a border) on the list entry and on
//! the read content, since hosts differ in which one they read. The tools that show
//! the view (`show_schedule`, `what_if`, `diff_versions`) point at it through
//! `_meta.ui.resourceUri` and the older flat `_meta["ui/resourceUri"]`, for MCP Apps
//! clients only. The list names the view to MCP Apps clients only: a text-only client
//! (Claude Code offers listed resources as `@` mentions) would gain nothing but a way
//! to paste megabytes of HTML into its model's context. Reading it is open to every
//! client, at the current URI, at any older `?v=` and at the bare URI: it is the same
//! public page for everyone and carries no data.
//!
//! Who calls: over HTTP the auth layer (`http`) puts a `Caller` in the request's
//! extensions, which rmcp hands over as `http::request::Parts`; over stdio the caller
//! is fixed when the process starts (`--token`). Their language is the server's unless
//! the call's arguments carry `"lang": "fr" | "en"`, a key every tool accepts; it is
//! taken out before the arguments reach the tool (whose types deny unknown fields).

use std::sync::Arc;
use std::time::Instant;

use axum::http::request::Parts;
use palmaplan_model::Lang;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities,
    ContentBlock, ExtensionCapabilities, Implementation, JsonObject, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, MetaObject, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use crate::planning::{Access, Caller, Code, Planning, Reply, ToolSpec, Visibility, tr};
use crate::view;

/// The argument every tool accepts to choose the language of its answer.
pub const LANG_ARG: &str = "lang";

/// The MCP Apps extension's identifier, in capabilities.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an MCP App's view.
pub const UI_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The template of the schedule resources.
pub const SCHEDULE_URI_TEMPLATE: &str = "palmaplan://schedule/{id}/json";

/// The view resource the tools that show a view point at (`_meta.ui.resourceUri`):
/// `ui://palmaplan/planning?v=<hash>`, the page built into this binary.
pub fn view_resource_uri() -> &'static str {
    view::resource_uri()
}

/// The view resource's `_meta`, on its list entry and its read content alike. The CSP
/// opens no domain: the view loads nothing and talks only to its host (`tools/call`).
/// `wasmUnsafeEval` asks the hosts that read it (a pending addition to the spec) to let
/// WebAssembly compile, which a CSP without `'wasm-unsafe-eval'` refuses; declaring it
/// costs nothing where it is unknown.
pub fn view_resource_meta() -> MetaObject {
    let mut meta = JsonObject::new();
    meta.insert(
        "ui".into(),
        json!({
            "csp": {
                "connectDomains": [],
                "resourceDomains": [],
                "frameDomains": [],
                "baseUriDomains": [],
                "wasmUnsafeEval": true
            },
            "prefersBorder": true
        }),
    );
    MetaObject(meta)
}

/// The MCP server: the planning service, its catalogue in MCP form, and how callers are
/// found. Cheap to clone (one clone per HTTP session).
#[derive(Clone, Debug)]
pub struct McpServer {
    planning: Planning,
    /// The model tools, as clients without MCP Apps see them.
    catalogue: Arc<Vec<Tool>>,
    /// Every tool, as MCP Apps clients see them (view-only ones marked).
    catalogue_ui: Arc<Vec<Tool>>,
    /// The server's language, for texts sent before any caller is known.
    lang: Lang,
    /// The caller of a stdio server (over HTTP each request carries its own).
    fixed_caller: Option<Caller>,
}

impl McpServer {
    /// A server whose callers arrive with each request (HTTP).
    pub fn new(planning: Planning, lang: Lang) -> McpServer {
        let model_tools = Arc::new(catalogue(&planning, false));
        let all_tools = Arc::new(catalogue(&planning, true));
        McpServer {
            planning,
            catalogue: model_tools,
            catalogue_ui: all_tools,
            lang,
            fixed_caller: None,
        }
    }

    /// A server for one caller (stdio, where the token is given at start).
    pub fn for_caller(planning: Planning, caller: Caller) -> McpServer {
        let mut server = McpServer::new(planning, caller.lang);
        server.fixed_caller = Some(caller);
        server
    }

    /// The tools as `tools/list` shows them to a client without MCP Apps.
    pub fn tools(&self) -> &[Tool] {
        &self.catalogue
    }

    /// The tools as `tools/list` shows them to a client that renders MCP Apps.
    pub fn tools_for_views(&self) -> &[Tool] {
        &self.catalogue_ui
    }

    /// The request's caller: the one the auth layer put in the HTTP request, else the
    /// process's own (stdio).
    fn caller(&self, ctx: &RequestContext<RoleServer>) -> Option<Caller> {
        ctx.extensions
            .get::<Parts>()
            .and_then(|parts| parts.extensions.get::<Caller>())
            .or(self.fixed_caller.as_ref())
            .cloned()
    }

    /// Runs one call: the caller's language (maybe overridden by the arguments), then
    /// the planning service.
    pub async fn call(&self, caller: Option<Caller>, name: &str, arguments: JsonObject) -> Reply {
        let Some(mut caller) = caller else {
            // Only reachable if the HTTP service is mounted without the auth layer.
            return refusal(
                Code::Unauthenticated,
                tr(
                    self.lang,
                    "Aucun jeton n'accompagne cet appel. Créez-en un avec `palmaplan token create` et envoyez-le dans l'en-tête « Authorization: Bearer ppt_… ».",
                    "No token came with this call. Create one with `palmaplan token create` and send it in the header “Authorization: Bearer ppt_…”.",
                ),
            );
        };
        let mut arguments = arguments;
        match take_lang(&mut arguments) {
            Ok(Some(lang)) => caller.lang = lang,
            Ok(None) => {}
            Err(given) => {
                return refusal(
                    Code::InvalidArguments,
                    tr(
                        caller.lang,
                        format!(
                            "« lang » vaut {given} : écrivez \"fr\" ou \"en\" (ou retirez-le pour la langue du serveur)."
                        ),
                        format!(
                            "“lang” is {given}: write \"fr\" or \"en\" (or leave it out for the server's language)."
                        ),
                    ),
                );
            }
        }
        let started = Instant::now();
        let reply = self
            .planning
            .call(&caller, name, Value::Object(arguments))
            .await;
        tracing::info!(
            tool = name,
            user = caller.user_id,
            is_error = reply.is_error,
            ms = started.elapsed().as_millis() as u64,
            "tool call"
        );
        reply
    }
}

/// Takes the `lang` key out of the arguments: `Ok(None)` when absent, `Err(value)` when
/// it names no language we speak.
fn take_lang(arguments: &mut JsonObject) -> Result<Option<Lang>, String> {
    let Some(value) = arguments.remove(LANG_ARG) else {
        return Ok(None);
    };
    let lower = value.as_str().map(str::to_ascii_lowercase);
    match lower.as_deref() {
        Some(s) if s == "fr" || s.starts_with("fr-") || s.starts_with("fr_") => Ok(Some(Lang::Fr)),
        Some(s) if s == "en" || s.starts_with("en-") || s.starts_with("en_") => Ok(Some(Lang::En)),
        _ => Err(value.to_string()),
    }
}

fn refusal(code: Code, text: String) -> Reply {
    Reply {
        text,
        structured: json!({ "error": code }),
        is_error: true,
        meta: Value::Null,
    }
}

/// The planning catalogue as MCP tools: each schema gains the optional `lang` property
/// (so clients that check arguments against the schema let it through; the server's
/// `instructions` say what it is, once), and each tool has its title and hints. For a client that renders MCP Apps (`ui`), the view-only
/// tools come too, with `_meta.ui.visibility: ["app"]`, and the tools that show a view
/// point at it; otherwise only the model tools, without any `_meta.ui`.
fn catalogue(planning: &Planning, ui: bool) -> Vec<Tool> {
    planning
        .tools()
        .filter(|spec| ui || spec.visibility == Visibility::Model)
        .map(|spec| {
            let mut schema = match &spec.input_schema {
                Value::Object(o) => o.clone(),
                _ => JsonObject::new(),
            };
            if let Some(Value::Object(props)) = schema.get_mut("properties") {
                props.insert(
                    LANG_ARG.into(),
                    json!({ "type": "string", "enum": ["fr", "en"] }),
                );
            }
            let read = spec.access == Access::Read;
            let shown = crate::planning::presentation(spec.name);
            // A reading tool destroys nothing and may be called again freely.
            let annotations = ToolAnnotations::new()
                .read_only(read)
                .destructive(!read && shown.is_some_and(|p| p.destructive))
                .idempotent(read || shown.is_some_and(|p| p.idempotent))
                .open_world(false);
            let mut tool = Tool::new(spec.name, spec.description, Arc::new(schema))
                .with_annotations(annotations);
            if let Some(p) = shown {
                tool = tool.with_title(p.title);
            }
            if let Some(Value::Object(out)) = &spec.output_schema {
                tool = tool.with_raw_output_schema(Arc::new(out.clone()));
            }
            match ui_meta(spec, ui) {
                Some(meta) => tool.with_meta(meta),
                None => tool,
            }
        })
        .collect()
}

/// A tool's `_meta` for MCP Apps clients: `ui.visibility` for the view-only tools,
/// `ui.resourceUri` (and the older flat `ui/resourceUri`, which the official SDK still
/// writes) for the tools that show the view.
fn ui_meta(spec: &ToolSpec, ui: bool) -> Option<MetaObject> {
    if !ui {
        return None;
    }
    let mut ui_obj = JsonObject::new();
    let mut meta = JsonObject::new();
    if spec.visibility == Visibility::App {
        ui_obj.insert("visibility".into(), json!(["app"]));
    }
    if spec.shows_view {
        let uri = view_resource_uri();
        ui_obj.insert("resourceUri".into(), json!(uri));
        meta.insert("ui/resourceUri".into(), json!(uri));
    }
    if ui_obj.is_empty() {
        return None;
    }
    meta.insert("ui".into(), Value::Object(ui_obj));
    Some(MetaObject(meta))
}

/// Whether capabilities announce MCP Apps: the extension under `extensions` or
/// `experimental`, whose settings list the view type we serve (`mimeTypes` holds
/// `text/html;profile=mcp-app`; case and spaces around `;` do not matter, as hosts
/// write it differently). An announcement without the type is not enough: the view is
/// that type, and a host that does not list it says it does not render it.
pub fn announces_views(caps: &ClientCapabilities) -> bool {
    let ours = |t: &str| {
        let t: String = t.chars().filter(|c| !c.is_whitespace()).collect();
        t.eq_ignore_ascii_case(UI_MIME_TYPE)
    };
    [caps.extensions.as_ref(), caps.experimental.as_ref()]
        .into_iter()
        .flatten()
        .filter_map(|map| map.get(UI_EXTENSION))
        .any(|settings| match settings.get("mimeTypes") {
            Some(Value::Array(types)) => types.iter().any(|t| t.as_str().is_some_and(ours)),
            _ => false,
        })
}

/// Whether the client of this request renders MCP Apps, by any route: the request's
/// own `_meta` capabilities (protocol 2026-07-28) or the session's `initialize`.
/// (rmcp's `client_capabilities()` returns the first of these that exists; a request
/// whose `_meta` does not repeat the extension must not hide what `initialize` said.)
fn renders_views(ctx: &RequestContext<RoleServer>) -> bool {
    ctx.meta
        .client_capabilities()
        .is_some_and(|c| announces_views(&c))
        || ctx
            .peer
            .peer_info()
            .is_some_and(|info| announces_views(&info.capabilities))
}

/// A planning reply as an MCP tool result.
pub fn to_result(reply: Reply) -> CallToolResult {
    let structured = match reply.structured {
        Value::Null => None,
        v @ Value::Object(_) => Some(v),
        // structuredContent is an object in the protocol; wrap anything else.
        other => Some(json!({ "value": other })),
    };
    let mut result = CallToolResult::success(vec![ContentBlock::text(reply.text)]);
    result.structured_content = structured;
    result.is_error = Some(reply.is_error);
    if let Value::Object(meta) = reply.meta {
        result.meta = Some(rmcp::model::MetaObject(meta));
    }
    result
}

/// What the server declares: tools, resources (the schedules as JSON, the view) and the
/// MCP Apps extension.
fn capabilities() -> ServerCapabilities {
    let mut extensions = ExtensionCapabilities::new();
    extensions.insert(UI_EXTENSION.into(), JsonObject::new());
    ServerCapabilities::builder()
        .enable_extensions_with(extensions)
        .enable_resources()
        .enable_tools()
        .build()
}

/// The view resource as `resources/list` names it.
fn view_resource(lang: Lang) -> Resource {
    Resource::new(view_resource_uri(), "planning-view")
        .with_title(tr(
            lang,
            "PalmaPlan — vue du planning",
            "PalmaPlan — schedule view",
        ))
        .with_description(tr(
            lang,
            "La vue interactive (Gantt, kanban, agenda, avant/après) que montrent show_schedule, what_if et diff_versions.",
            "The interactive view (Gantt, kanban, agenda, before/after) that show_schedule, what_if and diff_versions display.",
        ))
        .with_mime_type(UI_MIME_TYPE)
        .with_size(view::HTML.len() as u64)
        .with_meta(view_resource_meta())
}

/// The schedule id in `palmaplan://schedule/{id}/json`.
fn schedule_uri_id(uri: &str) -> Option<i64> {
    uri.strip_prefix("palmaplan://schedule/")?
        .strip_suffix("/json")?
        .parse()
        .ok()
        .filter(|id| *id > 0)
}

fn schedule_uri(id: i64) -> String {
    format!("palmaplan://schedule/{id}/json")
}

/// How a model should start, in the server's language.
fn instructions(lang: Lang) -> String {
    tr(
        lang,
        "PalmaPlan garde des plannings (groupes, lignes, blocs datés, jalons, liens de dépendance, actions, membres et absences). \
         Les outils dont le nom dit «\u{a0}period\u{a0}» travaillent sur les blocs (les barres du Gantt). \
         «\u{a0}schedule\u{a0}» est l'id ou le nom d'un planning. Commencez par list_schedules pour voir les plannings et leurs ids, puis get_schedule pour le résumé et les risques d'un planning. \
         Les dates s'écrivent AAAA-MM-JJ\u{202f}; un bloc inclut son premier et son dernier jour. Durées, décalages et délais des liens se comptent en jours ouvrés (ou en semaines, selon l'unité du planning). \
         cascade (outils qui changent dates ou liens)\u{a0}: true ou \"push\" déplace les successeurs pour que les liens tiennent, false les laisse, \"pull\" les avance aussi\u{202f}; par défaut, le réglage scheduling du planning. \
         Une écriture ne change que les champs donnés\u{202f}; null efface là où c'est dit. Chaque écriture répond avec ce qui a changé, les nouveaux risques et le nouveau rang du planning (sa position dans le journal), et undo l'annule (sauf delete_schedule). \
         Un refus (isError) dit quoi corriger\u{a0}: corrigez l'appel plutôt que de réessayer tel quel. \
         Les textes sont en français\u{202f}; ajoutez \"lang\": \"en\" aux arguments d'un appel pour une réponse en anglais.",
        "PalmaPlan keeps schedules (groups, rows, dated bars, milestones, dependency links, actions, members and absences). \
         Tools whose name says \"period\" work on bars (the Gantt's bars). \
         \"schedule\" is a schedule's id or name. Start with list_schedules to see the schedules and their ids, then get_schedule for one schedule's summary and risks. \
         Dates are YYYY-MM-DD; a bar includes its first and last day. Durations, offsets and lags count working days (or weeks, per the schedule's time unit). \
         cascade (tools that change dates or links): true or \"push\" moves successors so links hold, false leaves them, \"pull\" also brings them earlier; by default, the schedule's scheduling setting. \
         A write changes only the fields given; null clears where said. Every write answers with what changed, any new risk and the schedule's new rank (its position in the journal), and undo takes it back (except delete_schedule). \
         A refusal (isError) says what to fix: fix the call rather than retrying it unchanged. \
         Texts are in English; add \"lang\": \"fr\" to a call's arguments for a French answer.",
    )
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(capabilities())
            .with_server_info(
                Implementation::new("palmaplan", env!("CARGO_PKG_VERSION"))
                    .with_title("PalmaPlan")
                    .with_description(
                        "Team schedules (Gantt) kept by a server, edited through tools.",
                    ),
            )
            .with_instructions(instructions(self.lang))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = if renders_views(&ctx) {
            &self.catalogue_ui
        } else {
            &self.catalogue
        };
        // The list depends on the client: no shared cache may hand it to another.
        Ok(ListToolsResult::with_all_items(tools.to_vec()).with_cache_scope(CacheScope::Private))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.catalogue_ui.iter().find(|t| t.name == name).cloned()
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let lang = self.caller(&ctx).map_or(self.lang, |c| c.lang);
        // The view first, for the clients that render it (see the module's header).
        let mut resources: Vec<Resource> = Vec::new();
        if renders_views(&ctx) {
            resources.push(view_resource(lang));
        }
        let Some(caller) = self.caller(&ctx) else {
            return Ok(ListResourcesResult::with_all_items(resources)
                .with_cache_scope(CacheScope::Private));
        };
        let list = self
            .planning
            .readable_schedules(&caller)
            .await
            .map_err(|r| ErrorData::internal_error(r.text, None))?;
        resources.extend(list.into_iter().map(|(id, name)| {
            Resource::new(schedule_uri(id), format!("schedule-{id}"))
                .with_title(name)
                .with_description(tr(
                    caller.lang,
                    "Le planning entier en JSON (sans e-mails ni motifs d'absence).",
                    "The whole schedule as JSON (without e-mails or absence reasons).",
                ))
                .with_mime_type("application/json")
        }));
        Ok(ListResourcesResult::with_all_items(resources).with_cache_scope(CacheScope::Private))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let template = ResourceTemplate::new(SCHEDULE_URI_TEMPLATE, "schedule-json")
            .with_title("PalmaPlan schedule (JSON)")
            .with_description(
                "A whole schedule as JSON, by id (see list_schedules), under your role on it; members' e-mails and absence reasons are left out.",
            )
            .with_mime_type("application/json");
        Ok(ListResourceTemplatesResult::with_all_items(vec![template]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let lang = self.caller(&ctx).map_or(self.lang, |c| c.lang);
        if view::is_view_uri(&uri) {
            // Whatever version was asked, the page this server has: an older build's
            // page is not kept, and the current one talks to the current tools.
            return Ok(ReadResourceResult::new(vec![
                ResourceContents::text(view::HTML, uri)
                    .with_mime_type(UI_MIME_TYPE)
                    .with_meta(view_resource_meta()),
            ])
            .into());
        }
        if uri.starts_with("ui://") {
            return Err(ErrorData::resource_not_found(
                tr(
                    lang,
                    format!(
                        "Aucune vue « {uri} ». PalmaPlan n'a qu'une vue : {}, que désigne le _meta.ui.resourceUri de show_schedule, what_if et diff_versions.",
                        view::BASE_URI
                    ),
                    format!(
                        "No view “{uri}”. PalmaPlan has one view: {}, which the _meta.ui.resourceUri of show_schedule, what_if and diff_versions names.",
                        view::BASE_URI
                    ),
                ),
                Some(json!({ "uri": uri })),
            ));
        }
        let Some(id) = schedule_uri_id(&uri) else {
            return Err(ErrorData::resource_not_found(
                tr(
                    lang,
                    format!(
                        "Aucune ressource « {uri} ». Les plannings se lisent à palmaplan://schedule/<id>/json (ids : list_schedules)."
                    ),
                    format!(
                        "No resource “{uri}”. Schedules read at palmaplan://schedule/<id>/json (ids: list_schedules)."
                    ),
                ),
                Some(json!({ "uri": uri })),
            ));
        };
        let Some(caller) = self.caller(&ctx) else {
            return Err(ErrorData::invalid_request(
                tr(
                    lang,
                    "Aucun jeton n'accompagne cette requête.",
                    "No token came with this request.",
                ),
                None,
            ));
        };
        match self.planning.schedule_json(&caller, id).await {
            Ok(json) => Ok(ReadResourceResult::new(vec![
                ResourceContents::text(json, uri).with_mime_type("application/json"),
            ])
            .with_cache_scope(CacheScope::Private)
            .into()),
            Err(refusal) => Err(ErrorData::resource_not_found(
                refusal.text,
                Some(json!({ "uri": uri, "error": refusal.code })),
            )),
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A client that renders MCP Apps gets views, never links or tokens in texts
        // (`show_schedule`): the planning service learns it through the caller.
        let caller = self.caller(&ctx).map(|mut c| {
            c.apps = renders_views(&ctx);
            c
        });
        let reply = self
            .call(caller, &request.name, request.arguments.unwrap_or_default())
            .await;
        Ok(to_result(reply).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planning::SystemClock;
    use crate::storage::Store;

    async fn server(name: &str) -> (McpServer, Caller) {
        let dir = std::env::temp_dir().join(format!("palmaplan-mcp-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open(&format!("sqlite://{}", dir.join("db.sqlite").display()))
            .await
            .unwrap();
        let user_id = store.add_user("Ada", "ada@example.org", 0).await.unwrap();
        let planning = Planning::new(store, Arc::new(SystemClock));
        let caller = Caller {
            user_id,
            can_write: true,
            only_schedule: None,
            max_role: None,
            lang: Lang::Fr,
            apps: false,
            credential: None,
        };
        (McpServer::new(planning, Lang::Fr), caller)
    }

    fn args(v: Value) -> JsonObject {
        match v {
            Value::Object(o) => o,
            _ => panic!("not an object"),
        }
    }

    #[test]
    fn lang_is_taken_out_of_the_arguments() {
        let mut a = args(json!({"lang": "en", "schedule": 1}));
        assert_eq!(take_lang(&mut a), Ok(Some(Lang::En)));
        assert_eq!(a, args(json!({"schedule": 1})));
        let mut a = args(json!({"lang": "FR-ca"}));
        assert_eq!(take_lang(&mut a), Ok(Some(Lang::Fr)));
        let mut a = args(json!({"schedule": 1}));
        assert_eq!(take_lang(&mut a), Ok(None));
        let mut a = args(json!({"lang": "de"}));
        assert_eq!(take_lang(&mut a), Err("\"de\"".into()));
        let mut a = args(json!({"lang": 3}));
        assert!(take_lang(&mut a).is_err());
    }

    #[tokio::test]
    async fn catalogue_has_every_tool_with_lang_and_hints() {
        let (server, _) = server("catalogue").await;
        let names: Vec<&str> = server.tools().iter().map(|t| t.name.as_ref()).collect();
        assert!(names.contains(&"list_schedules"), "{names:?}");
        assert!(!names.contains(&"get_schedule_page"), "{names:?}");
        assert_eq!(
            server.tools_for_views().len(),
            server.planning.tools().count()
        );
        assert_eq!(server.tools().len() + 4, server.tools_for_views().len());
        for tool in server.tools() {
            assert!(
                tool.meta.is_none(),
                "{} has _meta for a client without views",
                tool.name
            );
        }
        for tool in server.tools_for_views() {
            let view_only = [
                "get_schedule_page",
                "get_changes_since",
                "get_schedule_absences",
                "get_view_code",
            ]
            .contains(&tool.name.as_ref());
            let shows_view =
                ["show_schedule", "what_if", "diff_versions"].contains(&tool.name.as_ref());
            let meta = tool.meta.as_ref().map(|m| &m.0);
            let ui = meta.and_then(|m| m.get("ui"));
            if view_only {
                assert_eq!(ui, Some(&json!({"visibility": ["app"]})), "{}", tool.name);
            } else if shows_view {
                // Visible to the model and the view alike (the default): no visibility.
                let uri = json!(view::resource_uri());
                assert_eq!(ui, Some(&json!({"resourceUri": uri})), "{}", tool.name);
                assert_eq!(meta.unwrap().get("ui/resourceUri"), Some(&uri));
            } else {
                assert_eq!(meta, None, "{}", tool.name);
            }
        }
        for spec in server.planning.tools() {
            // `lang` is reserved for the language: no tool may take a field of that name.
            assert!(
                spec.input_schema["properties"].get(LANG_ARG).is_none(),
                "{} declares its own `lang`",
                spec.name
            );
        }
        for tool in server.tools() {
            assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
            assert_eq!(
                tool.input_schema["properties"][LANG_ARG]["enum"],
                json!(["fr", "en"])
            );
            let read_only = tool.annotations.as_ref().and_then(|a| a.read_only_hint);
            assert!(read_only.is_some(), "{}", tool.name);
        }
        let list = server.get_tool("list_schedules").unwrap();
        assert_eq!(list.annotations.unwrap().read_only_hint, Some(true));
        assert!(server.get_tool("nope").is_none());
    }

    /// The most the model tools may take: 40 KB, what issue 20 set (docs/tools.md says
    /// where it stands).
    const MODEL_TOOLS_BUDGET: usize = 40_000;

    /// The most the model tools' output schemas may take together.
    const OUTPUT_SCHEMAS_BUDGET: usize = 70_000;

    /// What a client hands the model for every model tool, in bytes of compact JSON
    /// (`outputSchema` is for the client's validation and is counted apart).
    fn model_bytes(tools: &[Tool]) -> usize {
        tools
            .iter()
            // The test build's own tool is not one a client ever sees.
            .filter(|t| t.name != "panic_for_test")
            .map(|t| {
                let mut v = serde_json::to_value(t).unwrap();
                if let Some(o) = v.as_object_mut() {
                    o.remove("outputSchema");
                    o.remove("_meta");
                }
                serde_json::to_string(&v).unwrap().len()
            })
            .sum()
    }

    #[test]
    fn the_french_instructions_keep_french_typography() {
        let fr = instructions(Lang::Fr);
        for (i, c) in fr.char_indices() {
            if matches!(c, ':' | ';' | '!' | '?' | '»') {
                assert!(
                    !fr[..i].ends_with(' '),
                    "an ordinary space before « {c} »: …{}",
                    &fr[i.saturating_sub(30)..i + 1]
                );
            }
            if c == '«' {
                assert!(
                    !fr[i + c.len_utf8()..].starts_with(' '),
                    "after «: {}",
                    &fr[i..]
                );
            }
        }
        assert!(!instructions(Lang::En).contains('«'));
    }

    #[tokio::test]
    async fn the_catalogue_is_portable_and_compact() {
        let (server, _) = server("portable").await;
        let mut problems = Vec::new();
        for tool in server.tools_for_views() {
            let schema = Value::Object((*tool.input_schema).clone());
            for f in crate::planning::schema_findings(&schema) {
                problems.push(format!("{} inputSchema{f}", tool.name));
            }
            if let Some(out) = &tool.output_schema {
                for f in crate::planning::schema_findings(&Value::Object((**out).clone())) {
                    problems.push(format!("{} outputSchema{f}", tool.name));
                }
            }
        }
        assert!(problems.is_empty(), "{problems:#?}");
        if let Ok(path) = std::env::var("PALMAPLAN_DUMP_TOOLS") {
            std::fs::write(path, serde_json::to_string(server.tools()).unwrap()).unwrap();
        }
        // The output schemas are for the client's validation, not the model's context:
        // measured apart, and kept compact (no command's schema repeated in them).
        let outputs: usize = server
            .tools()
            .iter()
            .filter_map(|t| t.output_schema.as_ref())
            .map(|o| serde_json::to_string(&**o).unwrap().len())
            .sum();
        eprintln!("output schemas: {outputs} bytes");
        assert!(
            outputs < OUTPUT_SCHEMAS_BUDGET,
            "the output schemas take {outputs} bytes"
        );
        let bytes = model_bytes(server.tools());
        let shipped = server
            .tools()
            .iter()
            .filter(|t| t.name != "panic_for_test")
            .count();
        eprintln!("model tools: {shipped} tools, {bytes} bytes");
        assert!(
            bytes < MODEL_TOOLS_BUDGET,
            "the model tools take {bytes} bytes"
        );
    }

    #[tokio::test]
    async fn calls_pick_the_language_and_refuse_usefully() {
        let (server, caller) = server("calls").await;
        let fr = server
            .call(Some(caller.clone()), "list_schedules", JsonObject::new())
            .await;
        assert!(!fr.is_error);
        assert!(fr.text.contains("aucun planning"), "{}", fr.text);
        let en = server
            .call(
                Some(caller.clone()),
                "list_schedules",
                args(json!({"lang": "en"})),
            )
            .await;
        assert!(en.text.contains("no schedule yet"), "{}", en.text);
        let bad = server
            .call(
                Some(caller.clone()),
                "list_schedules",
                args(json!({"lang": "it"})),
            )
            .await;
        assert!(bad.is_error && bad.text.contains("\"fr\""), "{}", bad.text);
        let nobody = server.call(None, "list_schedules", JsonObject::new()).await;
        assert!(nobody.is_error && nobody.text.contains("palmaplan token create"));
        let result = to_result(
            server
                .call(Some(caller), "no_such_tool", args(json!({"lang": "en"})))
                .await,
        );
        assert_eq!(result.is_error, Some(true));
        let text = &result.content[0].as_text().unwrap().text;
        assert!(text.contains("There is no tool"), "{text}");
        assert_eq!(result.structured_content.unwrap()["error"], "unknown_tool");
    }

    #[test]
    fn views_are_announced_by_any_route_with_our_type() {
        let parse = |v: Value| serde_json::from_value::<ClientCapabilities>(v).unwrap();
        assert!(!announces_views(&ClientCapabilities::default()));
        for route in ["extensions", "experimental"] {
            // The extension without the type it renders is no announcement of views.
            assert!(!announces_views(&parse(
                json!({ route: { UI_EXTENSION: {} } })
            )));
            assert!(announces_views(&parse(
                json!({ route: { UI_EXTENSION: { "mimeTypes": ["Text/HTML; profile=mcp-app"] } } })
            )));
            assert!(!announces_views(&parse(
                json!({ route: { UI_EXTENSION: { "mimeTypes": ["text/html"] } } })
            )));
            assert!(announces_views(&parse(
                json!({ route: { UI_EXTENSION: { "mimeTypes": [UI_MIME_TYPE] } } })
            )));
            assert!(!announces_views(&parse(
                json!({ route: { UI_EXTENSION: { "mimeTypes": ["application/x-other"] } } })
            )));
            assert!(!announces_views(&parse(
                json!({ route: { "other/ext": {} } })
            )));
        }
    }

    #[test]
    fn the_view_resource_opens_no_domain_but_allows_webassembly() {
        let meta = view_resource_meta();
        assert_eq!(
            serde_json::to_value(&meta).unwrap(),
            json!({"ui": {
                "csp": {
                    "connectDomains": [], "resourceDomains": [], "frameDomains": [],
                    "baseUriDomains": [], "wasmUnsafeEval": true
                },
                "prefersBorder": true
            }})
        );
        let listed = view_resource(Lang::En);
        assert_eq!(listed.uri, view::resource_uri());
        assert_eq!(listed.mime_type.as_deref(), Some(UI_MIME_TYPE));
        assert_eq!(listed.meta, Some(meta));
        assert_eq!(view_resource_uri(), view::resource_uri());
    }

    #[test]
    fn schedule_uris_name_one_schedule() {
        assert_eq!(schedule_uri_id("palmaplan://schedule/12/json"), Some(12));
        assert_eq!(schedule_uri_id(&schedule_uri(7)), Some(7));
        for bad in [
            "palmaplan://schedule/x/json",
            "palmaplan://schedule/0/json",
            "palmaplan://schedule/12",
            "ui://palmaplan/planning",
        ] {
            assert_eq!(schedule_uri_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn info_names_the_server_and_how_to_start() {
        let info = capabilities();
        assert!(info.tools.is_some());
        assert!(info.resources.is_some());
        assert!(info.extensions.as_ref().unwrap().contains_key(UI_EXTENSION));
        for lang in [Lang::Fr, Lang::En] {
            assert!(instructions(lang).contains("list_schedules"));
            assert!(instructions(lang).contains("get_schedule"));
        }
    }
}
