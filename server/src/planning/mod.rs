//! The planning service: every tool of the product as plain async Rust, independent of
//! any transport. The MCP adapter (`mcp`) and the `/embed` HTTP calls are thin layers
//! that turn a request into `Planning::call(caller, tool, arguments)` and the `Reply`
//! back into their wire format; the view has no rights of its own, it calls these same
//! tools.
//!
//! A tool is a `ToolSpec`: a name, a description a model can act on, a JSON Schema of
//! its arguments (derived from the same Rust type that parses them, so they cannot
//! drift), and an async function. `call` parses the arguments, runs the tool, and turns
//! every failure into a `Reply` with `is_error` and a text that says what to fix, in
//! the caller's language: a bad call is never a panic nor a protocol error.
//!
//! Rights are declared, not coded in handlers: each tool declares the least role it
//! needs on its schedule, whether it writes, whether it creates a schedule and whether
//! the embedded view calls it; `call` decides the tool-level rules from that (token
//! scope, schedule restriction, `/embed` link scope) and `Ctx::open` checks the role.
//! Every write goes through the one gate (`gate`, `Ctx::write`), which decides per
//! command from the model's table, then journals. A panic in a tool is caught, logged
//! and answered as an error: a bug never takes the server down.

mod analysis;
pub(crate) mod args;
mod codes;
mod constraints;
mod edits;
#[cfg(test)]
mod fuzz;
mod gate;
mod io;
mod journal;
#[cfg(test)]
mod journal_testkit;
mod patch;
mod people;
#[cfg(test)]
mod people_testkit;
mod periods;
pub(crate) mod privacy;
mod proposals;
mod schedules;
pub(crate) mod scheduling;
mod schema;
mod search;
mod show;
mod structure;
mod titles;
mod tracking;
mod versions;
mod view;
pub(crate) mod zones;

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use palmaplan_model::command::{self, Command};
use palmaplan_model::{Lang, Schedule};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::embed::Embed;
use crate::storage::{Role, Store, StoreError};

pub(crate) use gate::{Cascading, Failed, Origin, Write};

pub use args::ScheduleRef;
pub use codes::Code;

/// A tool's title and hints (see `titles`).
pub(crate) fn presentation(name: &str) -> Option<titles::Presentation> {
    titles::of(name)
}

/// What a strict client finds wrong with a tool schema (see `schema`).
#[cfg(test)]
pub(crate) fn schema_findings(schema: &Value) -> Vec<String> {
    schema::findings(schema)
}

/// A source of the current time, injected so tests can move it.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Unix milliseconds.
    fn now_ms(&self) -> i64;
}

/// The system clock.
#[derive(Debug)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64)
    }
}

/// Who is calling: the user behind the token, and what the token allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    pub user_id: i64,
    /// The token's write scope (a read-only token writes nothing, whatever the role).
    pub can_write: bool,
    /// The one schedule a restricted token may touch.
    pub only_schedule: Option<i64>,
    /// The most this caller may do on a schedule, whatever their role there (an
    /// `/embed` link's cap: a promotion after the link was given does not widen it).
    /// None: their role. Set for the view's two doors (an `/embed` link; the web
    /// screen, capped at owner, i.e. their role), and `call` treats a caller with a cap
    /// as a view (tools the view uses only).
    pub max_role: Option<Role>,
    /// The language of the texts, from the server's setting or the call.
    pub lang: Lang,
    /// Whether the client renders MCP Apps views (the MCP adapter sets it from the
    /// negotiation; the `/embed` view is one too). `show_schedule` then gives no link.
    pub apps: bool,
    /// What the call comes with: a named token (its id) or an OAuth grant (minus its
    /// id); None for the view's doors. An `/embed` link issued for the call carries it,
    /// so that revoking the token or the grant ends the link too.
    pub credential: Option<i64>,
}

/// The `_meta` key of the person's words (`wire::ResultMeta::person_text`).
pub const PERSON_TEXT: &str = "palmaplan/person_text";

/// What a tool answers: a text that stands on its own, and a compact structured value
/// (ids, rank, counts — never a whole schedule).
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    pub text: String,
    pub structured: Value,
    pub is_error: bool,
    /// The result's `_meta`: what only the view reads (an object, or Null for none).
    pub meta: Value,
}

impl Reply {
    pub fn ok(text: impl Into<String>, structured: Value) -> Reply {
        Reply {
            text: text.into(),
            structured,
            is_error: false,
            meta: Value::Null,
        }
    }

    pub fn with_meta(mut self, meta: Value) -> Reply {
        self.meta = meta;
        self
    }

    /// The words the view shows the person for this answer (`_meta`
    /// `palmaplan/person_text`, read as `wire::ResultMeta`): what was done, items named
    /// by their labels, without the ids, ranks and tools the model acts with.
    pub fn for_person(mut self, text: impl Into<String>) -> Reply {
        // Into the `_meta` object as it is: whatever else it holds stays.
        if !self.meta.is_object() {
            self.meta = Value::Object(serde_json::Map::new());
        }
        self.meta[PERSON_TEXT] = Value::String(text.into());
        self
    }

    /// Adds a sentence to the person's words, when the answer has some, after a full
    /// stop.
    pub fn person_also(&mut self, sentence: &str) {
        if let Some(Value::String(text)) = self.meta.get_mut(PERSON_TEXT) {
            if !text.ends_with(['.', '!', '?', '…']) {
                text.push('.');
            }
            text.push(' ');
            text.push_str(sentence);
        }
    }
}

/// Why a tool refused: a text saying what to fix, and a short machine-readable code.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    pub code: Code,
    pub text: String,
    pub details: Value,
    /// What the view shows the person (`_meta` `palmaplan/person_text`, as an answer's
    /// [`Reply::for_person`]): why, by labels, without the ids, command numbers and
    /// tools of `text`; `None` where `text` is all there is.
    pub person: Option<String>,
}

impl Refusal {
    pub fn new(code: Code, text: impl Into<String>) -> Refusal {
        Refusal {
            code,
            text: text.into(),
            details: Value::Null,
            person: None,
        }
    }

    pub fn with(mut self, details: Value) -> Refusal {
        self.details = details;
        self
    }

    /// The refusal in the person's words (see [`Refusal::person`]).
    pub fn for_person(mut self, text: impl Into<String>) -> Refusal {
        self.person = Some(text.into());
        self
    }

    pub fn into_reply(self) -> Reply {
        let mut structured = json!({ "error": self.code });
        if let (Value::Object(extra), Some(obj)) = (self.details, structured.as_object_mut()) {
            obj.extend(extra);
        }
        let reply = Reply {
            text: self.text,
            structured,
            is_error: true,
            meta: Value::Null,
        };
        match self.person {
            Some(person) => reply.for_person(person),
            None => reply,
        }
    }
}

/// Picks the French or the English text.
pub fn tr(lang: Lang, fr: impl Into<String>, en: impl Into<String>) -> String {
    match lang {
        Lang::Fr => fr.into(),
        Lang::En => en.into(),
    }
}

/// Whether a tool only reads or also writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

type ToolFuture = Pin<Box<dyn Future<Output = Result<Reply, Refusal>> + Send>>;
type ToolFn = Arc<dyn Fn(Ctx, Value) -> ToolFuture + Send + Sync>;

/// Who a tool is meant for. The catalogue is one list; the MCP adapter lists the
/// view-only tools only to clients that render MCP Apps (as `_meta.ui.visibility:
/// ["app"]`, which hosts hide from the model). It is no permission boundary: a
/// view-only tool answers any caller whose role allows it, like every tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    /// A tool for models (and the view): listed to every client.
    Model,
    /// A tool for the embedded view only (pages of a whole schedule, live updates).
    App,
}

/// One tool of the catalogue.
#[derive(Clone)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub access: Access,
    pub visibility: Visibility,
    /// Whether the tool's answer is meant to be shown in the view (`show_schedule`, the
    /// before/after of `what_if` and `diff_versions`): the MCP adapter points such tools at the view
    /// resource (`_meta.ui.resourceUri`) for the clients that render it.
    pub shows_view: bool,
    /// The least role the caller needs on the schedule the tool works on (checked by
    /// `Ctx::open`); None for a tool that works on no one schedule (`list_schedules`,
    /// `search`, `create_schedule`, `import_schedule`).
    pub role: Option<Role>,
    /// Whether the tool creates a schedule: refused to tokens and links restricted to
    /// one schedule (they could neither see nor delete what they made).
    pub creates: bool,
    /// Whether the embedded view calls it: the only tools an `/embed` link may call.
    pub in_view: bool,
    /// JSON Schema of the arguments (an object schema).
    pub input_schema: Value,
    /// JSON Schema of a successful answer's structuredContent, for the tools whose
    /// result is a type (`returns`); clients validate the answers against it.
    pub output_schema: Option<Value>,
    run: ToolFn,
}

impl ToolSpec {
    /// The same tool, for the embedded view only.
    pub(crate) fn view_only(mut self) -> ToolSpec {
        self.visibility = Visibility::App;
        self
    }

    /// The same tool, shown in the view where the host renders it.
    pub(crate) fn with_view(mut self) -> ToolSpec {
        self.shows_view = true;
        self
    }

    /// The same tool, needing `role` on its schedule.
    pub(crate) fn needs(mut self, role: Role) -> ToolSpec {
        self.role = Some(role);
        self
    }

    /// The same tool, working on no one schedule.
    pub(crate) fn on_no_schedule(mut self) -> ToolSpec {
        self.role = None;
        self
    }

    /// The same tool, creating a schedule.
    pub(crate) fn creates_schedule(mut self) -> ToolSpec {
        self.creates = true;
        self
    }

    /// The same tool, answering a `T` as structuredContent (its schema is declared).
    pub(crate) fn returns<T: schemars::JsonSchema>(mut self) -> ToolSpec {
        self.output_schema = Some(args::output_schema_of::<T>());
        self
    }

    /// The same tool, called by the embedded view (so `/embed` links may call it).
    pub(crate) fn used_by_view(mut self) -> ToolSpec {
        self.in_view = true;
        self
    }
}

impl std::fmt::Debug for ToolSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSpec")
            .field("name", &self.name)
            .field("access", &self.access)
            .field("role", &self.role)
            .field("creates", &self.creates)
            .field("in_view", &self.in_view)
            .field("visibility", &self.visibility)
            .finish()
    }
}

/// Declares a tool whose arguments parse into `P`. A reading tool needs the viewer
/// role on its schedule, a writing one the editor role, unless `needs` says otherwise.
pub(crate) fn tool<P, F, Fut>(
    name: &'static str,
    description: &'static str,
    access: Access,
    f: F,
) -> ToolSpec
where
    P: DeserializeOwned + schemars::JsonSchema + Send + 'static,
    F: Fn(Ctx, P) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Reply, Refusal>> + Send + 'static,
{
    let f = Arc::new(f);
    ToolSpec {
        name,
        description,
        access,
        visibility: Visibility::Model,
        shows_view: false,
        role: Some(match access {
            Access::Read => Role::Viewer,
            Access::Write => Role::Editor,
        }),
        creates: false,
        in_view: false,
        input_schema: args::schema_of::<P>(),
        output_schema: None,
        run: Arc::new(move |ctx: Ctx, raw: Value| {
            let f = Arc::clone(&f);
            Box::pin(async move {
                let params: P = args::parse(raw, ctx.lang())?;
                f(ctx, params).await
            })
        }),
    }
}

/// Every tool's declaration, in the catalogue's order.
fn specs() -> Vec<ToolSpec> {
    let all = schedules::tools()
        .into_iter()
        .chain(edits::tools())
        .chain(patch::tools())
        .chain(structure::tools())
        .chain(people::tools())
        .chain(analysis::tools())
        .chain(scheduling::tools())
        .chain(search::tools())
        .chain(io::tools())
        .chain(periods::tools())
        .chain(constraints::tools())
        .chain(tracking::tools())
        .chain(journal::tools())
        .chain(versions::tools())
        .chain(view::tools())
        .chain(proposals::tools())
        .chain(show::tools());
    #[cfg(test)]
    let all = all.chain(std::iter::once(panicking_tool()));
    all.collect()
}

/// A tool that panics, to prove `call` survives it: built into the unit tests only,
/// never shipped.
#[cfg(test)]
fn panicking_tool() -> ToolSpec {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Nothing {}
    tool(
        "panic_for_test",
        "Panics (unit tests only).",
        Access::Read,
        |_ctx: Ctx, _p: Nothing| async move {
            let empty: Vec<u8> = Vec::new();
            // An index out of bounds, the kind of bug a tool could have.
            let _ = empty[std::hint::black_box(3)];
            Ok(Reply::ok("unreachable", Value::Null))
        },
    )
    .on_no_schedule()
}

/// One row of the rights table, as the tests and the docs read it: a tool, the role it
/// needs on its schedule (None: it works on no one schedule), whether it writes,
/// whether it creates a schedule, and whether an `/embed` link may call it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Rights {
    pub tool: &'static str,
    pub role: Option<Role>,
    pub writes: bool,
    pub creates: bool,
    pub in_view: bool,
}

/// The rights table of every shipped tool, from the tools' own declarations (what
/// `call` and `Ctx::open` enforce).
pub fn rights() -> Vec<Rights> {
    specs()
        .iter()
        .map(|s| Rights {
            tool: s.name,
            role: s.role,
            writes: s.access == Access::Write,
            creates: s.creates,
            in_view: s.in_view,
        })
        .collect()
}

/// The planning service. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Planning {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    store: Store,
    clock: Arc<dyn Clock>,
    tools: BTreeMap<&'static str, ToolSpec>,
    /// The pages of recently paged schedules (`get_schedule_page`).
    pages: view::PageCache,
    /// When each user last had each schedule shown as a view (`show_schedule` to an
    /// MCP Apps host): an older view sees it in `get_changes_since` and withdraws.
    latest_views: view::LatestViews,
    /// Signs the `/embed` links; None where the server has no HTTP address to give
    /// (then `show_schedule` says so instead of giving a link).
    embed: Option<Arc<Embed>>,
}

/// What a tool runs with: the service, the caller, and the role the tool needs.
#[derive(Clone, Debug)]
pub struct Ctx {
    inner: Arc<Inner>,
    pub caller: Caller,
    /// The tool's declared role (`ToolSpec::role`), which `open` checks.
    need: Role,
    /// The tool called: a dedicated tool's refusal names the field, not the patch
    /// command it wrote (`update_group` runs `rename_group` and `move_group`).
    tool: &'static str,
}

/// The result of a write.
#[derive(Clone, Debug)]
pub struct Wrote {
    pub rank: i64,
    /// The state after the write, shared with the store's (no copy).
    pub state: Arc<Schedule>,
    pub applied: Vec<Command>,
    /// The inverse stored in the journal entry: the old values, for replies that say
    /// what changed from what (no need to read the entry back).
    pub inverse: Vec<Command>,
    /// What the cascade moved after the commands, by id (empty without one).
    pub cascade: Vec<palmaplan_model::push::Moved>,
    /// The project end before the write, when it cascaded.
    pub end_before: Option<palmaplan_model::Date>,
}

impl Planning {
    pub fn new(store: Store, clock: Arc<dyn Clock>) -> Planning {
        Planning::build(store, clock, None)
    }

    /// The service with `/embed` links (signed with the secret of the data folder).
    pub fn with_embed(store: Store, clock: Arc<dyn Clock>, embed: Embed) -> Planning {
        Planning::build(store, clock, Some(Arc::new(embed)))
    }

    fn build(store: Store, clock: Arc<dyn Clock>, embed: Option<Arc<Embed>>) -> Planning {
        let mut tools = BTreeMap::new();
        for spec in specs() {
            let name = spec.name;
            assert!(
                tools.insert(name, spec).is_none(),
                "tool {name} declared twice"
            );
        }
        Planning {
            inner: Arc::new(Inner {
                store,
                clock,
                tools,
                pages: view::PageCache::default(),
                latest_views: view::LatestViews::default(),
                embed,
            }),
        }
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// The `/embed` links, when the server gives them.
    pub fn embed(&self) -> Option<&Embed> {
        self.inner.embed.as_deref()
    }

    pub fn now_ms(&self) -> i64 {
        self.inner.clock.now_ms()
    }

    /// Every tool, by name.
    pub fn tools(&self) -> impl Iterator<Item = &ToolSpec> {
        self.inner.tools.values()
    }

    /// Why `caller` may not call `tool` at all, from the tool's declaration (its
    /// writing, creating and `/embed` scope), before any argument is read: what
    /// `call` answers first, for the transports that give it an HTTP status.
    pub fn refusal_for(&self, caller: &Caller, tool: &str) -> Option<Refusal> {
        self.inner
            .tools
            .get(tool)
            .and_then(|spec| tool_refusal(spec, caller))
    }

    /// Calls a tool. Never panics on input and never fails: a refusal is a `Reply` with
    /// `is_error` and a text that says what to fix.
    pub async fn call(&self, caller: &Caller, name: &str, arguments: Value) -> Reply {
        let Some(spec) = self.inner.tools.get(name) else {
            let known: Vec<&str> = self.inner.tools.keys().copied().collect();
            return Refusal::new(
                Code::UnknownTool,
                tr(
                    caller.lang,
                    format!(
                        "L'outil «\u{a0}{name}\u{a0}» n'existe pas. Outils disponibles\u{a0}: {}.",
                        known.join(", ")
                    ),
                    format!(
                        "There is no tool “{name}”. Available tools: {}.",
                        known.join(", ")
                    ),
                ),
            )
            .into_reply();
        };
        if let Some(refusal) = tool_refusal(spec, caller) {
            return refusal.into_reply();
        }
        let ctx = Ctx {
            inner: Arc::clone(&self.inner),
            caller: caller.clone(),
            need: spec.role.unwrap_or(Role::Viewer),
            tool: spec.name,
        };
        // The tool runs as its own task so that a panic in it (a bug) is caught here
        // and answered, instead of unwinding through the transport: the session and
        // every other one stay up. A write is one transaction, so a panic before its
        // commit wrote nothing.
        match tokio::spawn((spec.run)(ctx, arguments)).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(refusal)) => refusal.into_reply(),
            Err(e) => {
                tracing::error!(tool = name, error = %e, "a tool failed unexpectedly");
                Refusal::new(
                    Code::Internal,
                    tr(
                        caller.lang,
                        format!("«\u{a0}{name}\u{a0}» a échoué sur une erreur interne du serveur (elle est consignée dans ses journaux). Si c'était une modification, elle n'a pas été écrite\u{a0}: vérifiez avec get_schedule, puis réessayez ou signalez-le."),
                        format!("“{name}” failed on an internal server error (it is in the server's logs). If it was a change, it was not written: check with get_schedule, then try again or report it."),
                    ),
                )
                .into_reply()
            }
        }
    }
}

/// The tool-level rules, from the tool's declaration and the caller's token or link.
fn tool_refusal(spec: &ToolSpec, caller: &Caller) -> Option<Refusal> {
    let name = spec.name;
    let lang = caller.lang;
    if caller.max_role.is_some() && !spec.in_view {
        return Some(Refusal::new(
            Code::OutsideLink,
            tr(
                lang,
                format!(
                    "La vue du planning (un lien /embed, l'écran web) n'appelle que ses propres outils\u{a0}: «\u{a0}{name}\u{a0}» n'en fait pas partie. Appelez-le par un client MCP avec votre jeton."
                ),
                format!(
                    "The schedule's view (an /embed link, the web screen) calls its own tools only: “{name}” is not one of them. Call it from an MCP client with your token."
                ),
            ),
        ));
    }
    if spec.access == Access::Write && !caller.can_write {
        return Some(Refusal::new(
            Code::ReadOnlyToken,
            tr(
                lang,
                format!(
                    "«\u{a0}{name}\u{a0}» modifie un planning, et ce jeton est en lecture seule. Créez un jeton avec la portée «\u{a0}write\u{a0}»."
                ),
                format!(
                    "“{name}” changes a schedule and this token is read-only. Create a token with the “write” scope."
                ),
            ),
        ));
    }
    if spec.creates
        && let Some(only) = caller.only_schedule
    {
        return Some(Refusal::new(
            Code::TokenRestricted,
            tr(
                lang,
                format!(
                    "Ce jeton est limité au planning {only}\u{a0}: «\u{a0}{name}\u{a0}» crée un autre planning, que ce jeton ne pourrait ni voir ni supprimer. Utilisez un jeton sans restriction (palmaplan token create sans --schedule)."
                ),
                format!(
                    "This token is restricted to schedule {only}: “{name}” creates another schedule, which this token could neither see nor delete. Use an unrestricted token (palmaplan token create without --schedule)."
                ),
            ),
        ));
    }
    None
}

impl Ctx {
    pub fn lang(&self) -> Lang {
        self.caller.lang
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    pub fn now_ms(&self) -> i64 {
        self.inner.clock.now_ms()
    }

    /// The `/embed` links, when the server gives them.
    pub fn embed(&self) -> Option<&Embed> {
        self.inner.embed.as_deref()
    }

    /// Picks the text in the caller's language.
    pub fn tr(&self, fr: impl Into<String>, en: impl Into<String>) -> String {
        tr(self.lang(), fr, en)
    }

    /// A storage failure, as users see it (the detail goes to the logs).
    pub fn db_error(&self, e: StoreError) -> Refusal {
        if matches!(e, StoreError::NotFound) {
            return Refusal::new(
                Code::NotFound,
                self.tr(
                    "Ce planning n'existe plus.",
                    "This schedule no longer exists.",
                ),
            );
        }
        tracing::error!(error = %e, "storage failure");
        Refusal::new(
            Code::Storage,
            self.tr(
                "Le serveur n'a pas pu lire ou écrire ses données\u{202f}; rien n'a été modifié. Réessayez dans un instant.",
                "The server could not read or write its data; nothing was changed. Try again in a moment.",
            ),
        )
    }

    /// Resolves a schedule (by id or name) among the caller's, and checks that their
    /// role is at least the tool's declared one and that the token may touch it.
    pub async fn open(&self, schedule: &ScheduleRef) -> Result<(i64, Role), Refusal> {
        let needed = self.need;
        let all = self
            .store()
            .schedules_of(self.caller.user_id)
            .await
            .map_err(|e| self.db_error(e))?;
        // A token or a link restricted to one schedule learns no other's name: names,
        // the closest name and ids written as text are looked for among what it may
        // open (an id as a number is still told apart as "restricted", as before).
        let mine: Vec<_> = match self.caller.only_schedule {
            Some(only) => all.iter().filter(|s| s.id == only).cloned().collect(),
            None => all.clone(),
        };
        let found: Vec<_> = match schedule {
            ScheduleRef::Id(id) => all.iter().filter(|s| s.id == *id).collect(),
            ScheduleRef::Name(name) => {
                let exact: Vec<_> = mine.iter().filter(|s| s.name == *name).collect();
                let lower = name.to_lowercase();
                let by_name: Vec<_> = if exact.is_empty() {
                    mine.iter()
                        .filter(|s| s.name.to_lowercase() == lower)
                        .collect()
                } else {
                    exact
                };
                // "2" from a client that sends every argument as text: an id. When a
                // schedule is also named so, the two are ambiguous (below), not one
                // silently preferred.
                let by_id: Vec<_> = name
                    .trim()
                    .parse::<i64>()
                    .map(|id| mine.iter().filter(|s| s.id == id).collect())
                    .unwrap_or_default();
                let mut both = by_name;
                for s in by_id {
                    if !both.iter().any(|b| b.id == s.id) {
                        both.push(s);
                    }
                }
                both
            }
        };
        let info = match found.as_slice() {
            [one] => *one,
            [] => {
                // Restricted: the same answer whether a schedule of that name exists
                // elsewhere or not (nothing to learn of the others).
                if let (Some(only), ScheduleRef::Name(_)) = (self.caller.only_schedule, schedule) {
                    return Err(Refusal::new(
                        Code::TokenRestricted,
                        self.tr(
                            format!("Ce jeton est limité au planning {only}\u{a0}: «\u{a0}{schedule}\u{a0}» n'est pas ce planning."),
                            format!("This token is restricted to schedule {only}: “{schedule}” is not that schedule."),
                        ),
                    ));
                }
                let close = match schedule {
                    ScheduleRef::Name(name) => {
                        args::closest(name, mine.iter().map(|s| s.name.as_str()))
                            .and_then(|n| mine.iter().find(|s| s.name == n))
                    }
                    ScheduleRef::Id(_) => None,
                };
                let hint = match close {
                    Some(s) => self.tr(
                        format!(
                            " Vouliez-vous dire «\u{a0}{}\u{a0}» (id {})\u{202f}?",
                            s.name, s.id
                        ),
                        format!(" Did you mean “{}” (id {})?", s.name, s.id),
                    ),
                    None => String::new(),
                };
                return Err(Refusal::new(
                    Code::ScheduleNotFound,
                    self.tr(
                        format!("Aucun planning «\u{a0}{schedule}\u{a0}» parmi les vôtres.{hint} Appelez list_schedules pour voir leurs noms et ids."),
                        format!("No schedule “{schedule}” among yours.{hint} Call list_schedules to see their names and ids."),
                    ),
                )
                .with(json!({ "closest": close.map(|s| s.id) })));
            }
            many => {
                let ids: Vec<String> = many.iter().map(|s| s.id.to_string()).collect();
                return Err(Refusal::new(
                    Code::AmbiguousSchedule,
                    self.tr(
                        format!("Plusieurs plannings s'appellent «\u{a0}{schedule}\u{a0}» (ids {}). Indiquez l'id.", ids.join(", ")),
                        format!("Several schedules are named “{schedule}” (ids {}). Give the id.", ids.join(", ")),
                    ),
                ));
            }
        };
        if let Some(only) = self.caller.only_schedule
            && only != info.id
        {
            return Err(self.restricted(only, info.id));
        }
        let role = self
            .caller
            .max_role
            .map_or(info.role, |cap| info.role.min(cap));
        if role < info.role && role < needed {
            // Capped by an /embed link: the role is not what to ask for.
            return Err(Refusal::new(
                Code::Forbidden,
                self.tr(
                    format!(
                        "Ce lien donne au plus le rôle {} sur «\u{a0}{}\u{a0}»\u{202f}; cette action demande le rôle {}.",
                        role_name(role, Lang::Fr),
                        info.name,
                        role_name(needed, Lang::Fr)
                    ),
                    format!(
                        "This link gives at most the {} role on “{}”; this needs the {} role.",
                        role_name(role, Lang::En),
                        info.name,
                        role_name(needed, Lang::En)
                    ),
                ),
            )
            .with(json!({ "role": role.as_str(), "needed": needed.as_str() }))
            .for_person(self.tr(
                format!(
                    "Ce lien ne donne que le rôle {}\u{a0}: il ne permet pas cette modification, qui demande le rôle {}. Rien n'a été modifié.",
                    role_name(role, Lang::Fr),
                    role_name(needed, Lang::Fr)
                ),
                format!(
                    "This link gives only the {} role: it does not allow this change, which needs the {} role. Nothing was changed.",
                    role_name(role, Lang::En),
                    role_name(needed, Lang::En)
                ),
            )));
        }
        if role < needed {
            return Err(Refusal::new(
                Code::Forbidden,
                self.tr(
                    format!(
                        "Votre rôle sur «\u{a0}{}\u{a0}» est {}\u{202f}; cette action demande le rôle {}. Demandez-le à un propriétaire du planning.",
                        info.name,
                        role_name(info.role, Lang::Fr),
                        role_name(needed, Lang::Fr)
                    ),
                    format!(
                        "Your role on “{}” is {}; this needs the {} role. Ask an owner of the schedule for it.",
                        info.name,
                        role_name(info.role, Lang::En),
                        role_name(needed, Lang::En)
                    ),
                ),
            )
            .with(json!({ "role": info.role.as_str(), "needed": needed.as_str() }))
            .for_person(role_refused_for_person(self.lang(), info.role, needed)));
        }
        Ok((info.id, role))
    }

    /// Applies commands to a schedule as one journalled write, through the gate. With
    /// `expected_rank`, writes only if the schedule is still at that rank (decided in
    /// the transaction).
    pub async fn apply(
        &self,
        id: i64,
        commands: &[Command],
        expected_rank: Option<i64>,
    ) -> Result<Wrote, Refusal> {
        self.apply_cascading(id, commands, expected_rank, Cascading::BySetting)
            .await
    }

    /// [`Ctx::apply`] with a cascade chosen by the caller (a tool's `cascade`).
    pub(crate) async fn apply_cascading(
        &self,
        id: i64,
        commands: &[Command],
        expected_rank: Option<i64>,
        cascade: Cascading,
    ) -> Result<Wrote, Refusal> {
        let mut write = Write::of(commands, expected_rank);
        write.cascade = cascade;
        match self.write(id, write).await {
            Ok(wrote) => Ok(wrote),
            Err(Failed::Refused(r)) => Err(r),
            Err(Failed::Invalid(e)) => Err(self.invalid_here(id, &e).await),
            Err(Failed::OutOfDate(current)) => Err(Refusal::new(
                Code::OutOfDate,
                self.tr(
                    format!("Cette proposition n'est plus à jour\u{a0}: le planning a changé depuis (rang {current}). Rien n'a été écrit\u{202f}; demandez une nouvelle proposition."),
                    format!("This proposal is out of date: the schedule has changed since (rank {current}). Nothing was written; ask for a new one."),
                ),
            )
            .with(json!({ "rank": current }))
            .for_person(self.tr(
                "Le planning a changé entre-temps\u{a0}: rien n'a été modifié. Recommencez sur le planning à jour.",
                "The schedule changed in the meantime: nothing was changed. Try again on the up-to-date schedule.",
            ))),
        }
    }

    /// [`Ctx::invalid`] for a write to schedule `here`: an id that names nothing there
    /// but something of the kind asked for in another of the caller's schedules says
    /// which (a model with two schedules open mixes their ids up).
    async fn invalid_here(&self, here: i64, e: &command::ApplyError) -> Refusal {
        let mut refusal = self.invalid(e);
        // The person's words name items by their labels, read in the state the commands
        // were refused on (a refusal is rare: one more read of a cached state).
        if let Ok((_, s)) = self.store().load_shared(here).await {
            refusal.person = e.person_message(&s, self.lang());
        }
        // A token or a link restricted to one schedule is told nothing of the others.
        if self.caller.only_schedule.is_some() {
            return refusal;
        }
        let command::Problem::NotFound {
            kind,
            id,
            actual: None,
        } = e.problem
        else {
            return refusal;
        };
        let Ok(mine) = self.store().schedules_of(self.caller.user_id).await else {
            return refusal;
        };
        let mut found = Vec::new();
        // Bounded: a refusal must stay cheap for someone with many schedules.
        for info in mine.iter().filter(|s| s.id != here).take(ELSEWHERE_CAP) {
            if let Ok((_, s)) = self.store().load_shared(info.id).await
                && command::kind_of(&s, id).is_some_and(|k| kind.admits(k))
            {
                found.push((info.name.clone(), info.id));
            }
        }
        if found.is_empty() {
            return refusal;
        }
        let what = kind.indefinite(self.lang());
        let fr: Vec<String> = found
            .iter()
            .map(|(n, i)| format!("«\u{a0}{n}\u{a0}» (id {i})"))
            .collect();
        let en: Vec<String> = found
            .iter()
            .map(|(n, i)| format!("“{n}” (id {i})"))
            .collect();
        let hint = self.tr(
            format!(
                "Il existe {what} {id} dans {}\u{a0}: {}. Nommez ce planning si c'est celui que vous vouliez.",
                if found.len() > 1 { "vos plannings" } else { "votre planning" },
                fr.join(", ")
            ),
            format!(
                "There is {what} {id} in your schedule{} {}: name that schedule if it is the one you meant.",
                if found.len() > 1 { "s" } else { "" },
                en.join(", ")
            ),
        );
        refusal.text = format!("{} {hint}", refusal.text);
        refusal
    }

    /// A command that does not apply, as a refusal: `locked` when a lock holds what
    /// it would touch (with who set it), `constraint_broken` when its cascade would
    /// push an item past an upper-bound constraint (naming it), else
    /// `invalid_command`.
    pub(crate) fn invalid(&self, e: &command::ApplyError) -> Refusal {
        let text = match self.tool {
            // The caller wrote the commands: the message says which one.
            "apply_patch" | "what_if" => e.message(self.lang()),
            _ => e.field_message(self.lang()),
        };
        self.invalid_with(e, text)
    }

    /// [`Ctx::invalid`] with a text of the caller's.
    pub(crate) fn invalid_with(&self, e: &command::ApplyError, text: String) -> Refusal {
        let mut details = json!({ "command": e.command, "op": e.op, "field": e.field });
        let problem = match &e.problem {
            command::Problem::Cascade { inner, item } => {
                details["cascade_item"] = json!(item);
                &**inner
            }
            p => p,
        };
        let code = match problem {
            command::Problem::Locked { lock, .. } => {
                details["lock"] = json!({
                    "target": lock.target, "by_name": lock.by_name, "since_ms": lock.since_ms,
                });
                Code::Locked
            }
            command::Problem::CascadeConstraint {
                item,
                kind,
                date,
                by_days,
                ..
            } => {
                details["cascade_item"] = json!(item);
                details["constraint"] = json!({ "kind": kind, "date": date });
                details["by_days"] = json!(by_days);
                Code::ConstraintBroken
            }
            _ => Code::InvalidCommand,
        };
        Refusal::new(code, text).with(details)
    }
}

/// How many of the caller's other schedules a refusal for an unknown id looks in.
const ELSEWHERE_CAP: usize = 20;

/// A role too low for a change, in the person's words (no tool, no command number).
pub(crate) fn role_refused_for_person(lang: Lang, role: Role, needed: Role) -> String {
    tr(
        lang,
        format!(
            "Votre rôle sur ce planning ({}) ne permet pas cette modification, qui demande le rôle {}. Demandez-le à un propriétaire du planning. Rien n'a été modifié.",
            role_name(role, Lang::Fr),
            role_name(needed, Lang::Fr)
        ),
        format!(
            "Your role on this schedule ({}) does not allow this change, which needs the {} role. Ask an owner of the schedule for it. Nothing was changed.",
            role_name(role, Lang::En),
            role_name(needed, Lang::En)
        ),
    )
}

/// A role's name in a language.
pub fn role_name(role: Role, lang: Lang) -> &'static str {
    match (role, lang) {
        (Role::Viewer, Lang::Fr) => "lecteur",
        (Role::Editor, Lang::Fr) => "éditeur",
        (Role::Owner, Lang::Fr) => "propriétaire",
        (Role::Viewer, Lang::En) => "viewer",
        (Role::Editor, Lang::En) => "editor",
        (Role::Owner, Lang::En) => "owner",
    }
}
