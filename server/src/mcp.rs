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
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use crate::planning::{Access, Caller, Planning, Reply, tr};

/// The argument every tool accepts to choose the language of its answer.
pub const LANG_ARG: &str = "lang";

/// The MCP server: the planning service, its catalogue in MCP form, and how callers are
/// found. Cheap to clone (one clone per HTTP session).
#[derive(Clone, Debug)]
pub struct McpServer {
    planning: Planning,
    catalogue: Arc<Vec<Tool>>,
    /// The server's language, for texts sent before any caller is known.
    lang: Lang,
    /// The caller of a stdio server (over HTTP each request carries its own).
    fixed_caller: Option<Caller>,
}

impl McpServer {
    /// A server whose callers arrive with each request (HTTP).
    pub fn new(planning: Planning, lang: Lang) -> McpServer {
        let catalogue = Arc::new(catalogue(&planning));
        McpServer {
            planning,
            catalogue,
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

    /// The tools as `tools/list` shows them.
    pub fn tools(&self) -> &[Tool] {
        &self.catalogue
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
                "unauthenticated",
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
                    "invalid_arguments",
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

fn refusal(code: &str, text: String) -> Reply {
    Reply {
        text,
        structured: json!({ "error": code }),
        is_error: true,
    }
}

/// The planning catalogue as MCP tools: each schema gains the optional `lang` property
/// (so clients that check arguments against the schema let it through), and each tool
/// says whether it only reads.
fn catalogue(planning: &Planning) -> Vec<Tool> {
    planning
        .tools()
        .map(|spec| {
            let mut schema = match &spec.input_schema {
                Value::Object(o) => o.clone(),
                _ => JsonObject::new(),
            };
            if let Some(Value::Object(props)) = schema.get_mut("properties") {
                props.insert(
                    LANG_ARG.into(),
                    json!({
                        "type": "string",
                        "enum": ["fr", "en"],
                        "description": "Language of the answer's text (default: the server's, French unless configured)."
                    }),
                );
            }
            let read = spec.access == Access::Read;
            // Only the read-only hint is known for every tool; the others keep the
            // protocol's cautious defaults (a write may be destructive).
            let annotations = ToolAnnotations::new().read_only(read);
            Tool::new(spec.name, spec.description, Arc::new(schema)).with_annotations(annotations)
        })
        .collect()
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
    result
}

/// What the server declares. The MCP Apps extension (the view as a resource, the
/// `io.modelcontextprotocol/ui` extension) is added here: `.enable_resources()` and
/// `.enable_extensions_with(...)`, with `list_resources` / `read_resource` below.
fn capabilities() -> ServerCapabilities {
    ServerCapabilities::builder().enable_tools().build()
}

/// How a model should start, in the server's language.
fn instructions(lang: Lang) -> String {
    tr(
        lang,
        "PalmaPlan garde des plannings (groupes, lignes, blocs datés, jalons, liens de dépendance, actions, membres et absences). \
         Commencez par list_schedules pour voir les plannings et leurs ids, puis get_schedule pour le résumé et les risques d'un planning. \
         Chaque écriture répond avec le nouveau rang du planning (sa position dans le journal). \
         Un refus (isError) dit quoi corriger : corrigez l'appel plutôt que de réessayer tel quel. \
         Les textes sont en français ; ajoutez \"lang\": \"en\" aux arguments d'un appel pour une réponse en anglais.",
        "PalmaPlan keeps schedules (groups, rows, dated bars, milestones, dependency links, actions, members and absences). \
         Start with list_schedules to see the schedules and their ids, then get_schedule for one schedule's summary and risks. \
         Every write answers with the schedule's new rank (its position in the journal). \
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
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.catalogue.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.catalogue.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let caller = self.caller(&ctx);
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
        assert_eq!(names.len(), server.planning.tools().count());
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
    fn info_names_the_server_and_how_to_start() {
        let info = capabilities();
        assert!(info.tools.is_some());
        for lang in [Lang::Fr, Lang::En] {
            assert!(instructions(lang).contains("list_schedules"));
            assert!(instructions(lang).contains("get_schedule"));
        }
    }
}
