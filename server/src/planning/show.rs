//! `show_schedule`: a schedule as the live view (Gantt chart, kanban board or agenda).
//!
//! What the caller gets depends on their client. A host that renders MCP Apps shows the
//! view itself (the MCP adapter points the tool at the view resource and sets
//! `Caller::apps`): the answer is a text that sums the view up, and carries no link
//! and no token anywhere. Any other client (Claude Code, a terminal) gets a text that
//! stands on its own — the summary, the risks, the view's options — and a signed
//! one-hour `/embed` link that opens the schedule in a browser (see `crate::embed`).
//! The link is read-only unless `editable: true` was asked and the caller's role and
//! token allow writing; it is never more than their role.
//!
//! The options are checked here even though the view applies them: a wrong filter,
//! zoom, date or version is refused with what to fix, before anything is shown.
//! `structured` stays compact (`{schedule_id, name, view, options, rank, read_only,
//! shown_at, url, expires_at}`), never the schedule: Claude Code hands it to the model.

use crate::planning::Code;
use palmaplan_model::filter::{self, FilterContext};
use palmaplan_model::idset::IdSet;
use palmaplan_model::{BarId, Date, Lang, cpm, risk, text, wire};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::args::date;
use super::journal::{iso_utc, iso_utc_ms};
use super::people::quoted;
use super::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, role_name, tool};
use crate::embed::Grant;
use crate::storage::Role;

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![tool(
        "show_schedule",
        "Show a live view (Gantt, actions' kanban, absences' agenda). Without MCP Apps: the summary and a one-hour browser link.",
        Access::Read,
        show_schedule,
    )
    .used_by_view()
    .with_view()
    .returns::<wire::Shown>()]
}

/// Which view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum View {
    /// The Gantt chart.
    #[default]
    Gantt,
    /// The bars' actions in three columns: to do, in progress, done.
    Kanban,
    /// The members' absences, day by day (never their reason).
    Agenda,
}

/// Time scale of the Gantt chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Zoom {
    Day,
    Week,
    Month,
    Quarter,
}

/// Which panels of the Gantt chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Panel {
    /// The rows only.
    Grid,
    /// The bars only.
    Timeline,
    /// Both (the default).
    Both,
}

/// How the view is laid out inline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(super) enum Display {
    /// The smaller inline display.
    Compact,
}

/// A saved version named by its id or its name.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(untagged)]
enum VersionRef {
    Id(i64),
    Name(String),
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ShowSchedule {
    schedule: ScheduleRef,
    /// "kanban": actions; "agenda": absences.
    #[serde(default)]
    view: View,
    /// Filter panel query.
    #[serde(default)]
    filter: Option<String>,
    #[serde(default)]
    zoom: Option<Zoom>,
    /// YYYY-MM-DD.
    #[serde(default)]
    from: Option<String>,
    /// YYYY-MM-DD.
    #[serde(default)]
    to: Option<String>,
    #[serde(default)]
    panel: Option<Panel>,
    #[serde(default)]
    critical_path: Option<bool>,
    /// Version drawn as baseline.
    #[serde(default)]
    reference: Option<VersionRef>,
    /// Allow editing (never above your role).
    #[serde(default)]
    editable: Option<bool>,
    /// "compact": smaller.
    #[serde(default)]
    display: Option<Display>,
}

/// The options as checked: what the structured answer and the link carry.
#[derive(Debug, Default)]
struct Options {
    /// (name, JSON value) in a fixed order.
    given: Vec<(&'static str, Value)>,
    /// The same as the link's query parameters.
    query: Vec<(&'static str, String)>,
    /// Short phrases for the text.
    phrases: Vec<String>,
}

impl Options {
    fn push(&mut self, name: &'static str, value: Value, query: String, phrase: String) {
        self.given.push((name, value));
        self.query.push((name, query));
        self.phrases.push(phrase);
    }

    fn json(&self) -> Value {
        Value::Object(
            self.given
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect::<Map<_, _>>(),
        )
    }

    /// The options in the result's type. Their names are its fields (the test of every
    /// option reads them back whole), so nothing is dropped.
    fn typed(&self) -> wire::ViewOptions {
        serde_json::from_value(self.json()).unwrap_or_default()
    }
}

fn lowercase<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn view_name(view: View, lang: Lang) -> &'static str {
    match (view, lang) {
        (View::Gantt, Lang::Fr) => "diagramme de Gantt",
        (View::Gantt, Lang::En) => "Gantt chart",
        (View::Kanban, Lang::Fr) => "tableau kanban des actions",
        (View::Kanban, Lang::En) => "kanban board of the actions",
        (View::Agenda, Lang::Fr) => "agenda des absences",
        (View::Agenda, Lang::En) => "agenda of the absences",
    }
}

async fn show_schedule(ctx: Ctx, p: ShowSchedule) -> Result<Reply, Refusal> {
    let lang = ctx.lang();
    // Options that need no schedule are checked first: a typo costs nothing.
    let query = p.filter.as_deref().map(str::trim).unwrap_or("");
    let parsed = filter::parse(query).map_err(|e| {
        Refusal::new(
            Code::InvalidFilter,
            ctx.tr(
                format!(
                    "«\u{a0}filter\u{a0}»\u{a0}: requête invalide\u{a0}:\n{}",
                    e.render(query, lang)
                ),
                format!("“filter”: invalid query:\n{}", e.render(query, lang)),
            ),
        )
        .with(json!({ "position": e.position, "len": e.len }))
    })?;
    let from = p
        .from
        .as_deref()
        .map(|v| date(&ctx, "from", v))
        .transpose()?;
    let to = p.to.as_deref().map(|v| date(&ctx, "to", v)).transpose()?;
    if let (Some(a), Some(b)) = (from, to)
        && b < a
    {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                format!("«\u{a0}to\u{a0}» ({b}) est avant «\u{a0}from\u{a0}» ({a})\u{a0}: donnez une fenêtre dont le dernier jour suit le premier."),
                format!("“to” ({b}) is before “from” ({a}): give a window whose last day follows its first."),
            ),
        ));
    }

    let o = ctx.open_redacted(&p.schedule).await?;
    let s = &o.state;
    if ctx.caller.apps {
        // Made beside the rest of this call (~40 ms at 100,000 bars), for the view
        // that asks for page 0 on the tool's input.
        super::view::prepare_pages(&ctx, o.id, from, to);
    }
    let role = o.viewer.role;

    let mut options = Options::default();
    if !query.is_empty() {
        let critical: IdSet<BarId> = cpm::critical_path(s)
            .map(|cp| cp.critical_bars().collect())
            .unwrap_or_default();
        // Late and overdue bars at the schedule's today, for `is:late`, `is:overdue`
        // and `is:at-risk`.
        let risks = risk::risks_at(s, super::zones::today_of(&ctx, s));
        let at_risk = risks.bars_at_risk();
        let mut fc = FilterContext::new(s, &critical, &at_risk)
            .with_lateness(risks.late.iter().chain(&risks.overdue));
        // Floats cost a critical path of their own: computed only for a query that
        // compares them (`float<=2`).
        if parsed.uses_floats() {
            fc = fc.with_floats(&filter::floats_of(s));
        }
        let matching = parsed.select(&fc, s).len();
        let q = quoted(lang, query);
        options.push(
            "filter",
            json!(query),
            query.to_owned(),
            ctx.tr(
                format!(
                    "filtre {q} ({} sur {})",
                    text::count(Lang::Fr, matching, "bloc", "blocs"),
                    s.bars.len()
                ),
                format!(
                    "filter {q} ({matching} of {})",
                    text::count(Lang::En, s.bars.len(), "bar", "bars")
                ),
            ),
        );
    }
    if let Some(z) = p.zoom {
        let name = lowercase(&z);
        let shown = match (z, lang) {
            (Zoom::Day, Lang::Fr) => "jour",
            (Zoom::Week, Lang::Fr) => "semaine",
            (Zoom::Month, Lang::Fr) => "mois",
            (Zoom::Quarter, Lang::Fr) => "trimestre",
            (_, Lang::En) => name.as_str(),
        };
        let phrase = ctx.tr(format!("zoom\u{a0}: {shown}"), format!("zoom: {shown}"));
        options.push("zoom", json!(name), name.clone(), phrase);
    }
    push_window(&ctx, &mut options, from, to);
    if let Some(panel) = p.panel {
        let name = lowercase(&panel);
        let shown = match (panel, lang) {
            (Panel::Grid, Lang::Fr) => "les lignes seules",
            (Panel::Timeline, Lang::Fr) => "les blocs seuls",
            (Panel::Both, Lang::Fr) => "lignes et blocs",
            (Panel::Grid, Lang::En) => "rows only",
            (Panel::Timeline, Lang::En) => "bars only",
            (Panel::Both, Lang::En) => "rows and bars",
        };
        let phrase = ctx.tr(
            format!("panneaux\u{a0}: {shown}"),
            format!("panels: {shown}"),
        );
        options.push("panel", json!(name), name.clone(), phrase);
    }
    if let Some(cp) = p.critical_path {
        let phrase = if cp {
            ctx.tr("chemin critique en évidence", "critical path highlighted")
        } else {
            ctx.tr("sans chemin critique", "no critical path")
        };
        options.push("critical_path", json!(cp), cp.to_string(), phrase);
    }
    if let Some(v) = &p.reference {
        let (vid, vname) = find_version(&ctx, o.id, v).await?;
        let phrase = ctx.tr(
            format!("référence\u{a0}: version {}", quoted(lang, &vname)),
            format!("baseline: version {}", quoted(lang, &vname)),
        );
        options.push(
            "reference",
            json!({ "id": vid, "name": vname }),
            vid.to_string(),
            phrase,
        );
    }
    if let Some(d) = p.display {
        let name = lowercase(&d);
        let phrase = ctx.tr("affichage compact", "compact display");
        options.push("display", json!(name), name.clone(), phrase);
    }
    if let Some(e) = p.editable {
        // Kept in the options as asked; `read_only` says what was granted.
        options.given.push(("editable", json!(e)));
    }

    // The summary and the risks, as get_schedule words them.
    let mut text = text::schedule_summary(s, lang);
    if let Some(line) = super::scheduling::ends_line(&ctx, s) {
        text.push('\n');
        text.push_str(&line);
    }
    // The risks at the status date (today in the schedule's zone): late and overdue
    // bars beside the plan's own.
    let status = super::zones::today_of(&ctx, s);
    if let Some(line) = text::risks_line(&risk::risks_at(s, status), lang) {
        text.push('\n');
        text.push_str(&line);
    }
    let mut described = vec![ctx.tr(
        format!("Vue\u{a0}: {}", view_name(p.view, lang)),
        format!("View: {}", view_name(p.view, lang)),
    )];
    described.extend(options.phrases.iter().cloned());
    text.push('\n');
    text.push_str(&described.join(if lang == Lang::Fr { "\u{202f}; " } else { "; " }));
    text.push('.');

    let now = ctx.now_ms();
    let may_write = role >= Role::Editor && ctx.caller.can_write;
    let why_read_only = |asked: bool| -> String {
        if !asked || may_write {
            String::new()
        } else if role < Role::Editor {
            ctx.tr(
                format!(
                    " (votre rôle {} ne permet pas de modifier)",
                    role_name(role, Lang::Fr)
                ),
                format!(
                    " (your {} role does not allow editing)",
                    role_name(role, Lang::En)
                ),
            )
        } else {
            ctx.tr(
                " (ce jeton est en lecture seule)",
                " (this token is read-only)",
            )
        }
    };

    let (read_only, url, expires_at) = if ctx.caller.apps {
        // The host draws the view: no link, no token. An older view of this schedule
        // for this user withdraws when it sees this one (get_changes_since). The /embed
        // page's own call (the only caller with a role cap) is no view in a
        // conversation and withdraws nothing.
        if ctx.caller.max_role.is_none() {
            ctx.view_shown(o.id, now);
        }
        let read_only = p.editable == Some(false) || !may_write;
        text.push('\n');
        text.push_str(&if read_only {
            ctx.tr(
                format!("Le planning s'affiche dans la conversation, en lecture seule{}.", why_read_only(p.editable != Some(false))),
                format!("The schedule shows in the conversation, read-only{}.", why_read_only(p.editable != Some(false))),
            )
        } else {
            ctx.tr(
                format!("Le planning s'affiche dans la conversation, modifiable (rôle {})\u{a0}: un geste dans la vue est une écriture comme une autre, annulable avec undo.", role_name(role, Lang::Fr)),
                format!("The schedule shows in the conversation, editable ({} role): a gesture in the view is a write like any other, undone with undo.", role_name(role, Lang::En)),
            )
        });
        (read_only, None, None)
    } else if let Some(embed) = ctx.embed() {
        let grant = Grant {
            schedule: o.id,
            user: ctx.caller.user_id,
            role,
            token_can_write: ctx.caller.can_write,
            editable: p.editable == Some(true),
            credential: ctx.caller.credential,
        };
        let issued = embed.issue(&grant, now).map_err(|e| {
            tracing::error!(error = %e.message(Lang::En), "cannot sign an /embed link");
            Refusal::new(e.code(), e.message(lang))
        })?;
        let mut query: Vec<(&str, String)> = Vec::new();
        if p.view != View::Gantt {
            query.push(("view", lowercase(&p.view)));
        }
        query.extend(options.query.iter().cloned());
        let url = embed.url(o.id, &issued.token, &query);
        let how = issued.claims.describe(lang) + &why_read_only(p.editable == Some(true));
        text.push('\n');
        text.push_str(&ctx.tr(
            format!("Cet hôte n'affiche pas les vues MCP Apps\u{a0}: cette adresse ouvre le planning, valable une heure, {how}\u{a0}: {url}"),
            format!("This host does not display MCP Apps views: this address opens the schedule, valid for one hour, {how}: {url}"),
        ));
        (
            !issued.claims.editable,
            Some(url),
            Some(iso_utc(issued.claims.expires_at)),
        )
    } else {
        text.push('\n');
        text.push_str(&ctx.tr(
            "Cet hôte n'affiche pas les vues MCP Apps, et ce serveur n'a pas d'adresse HTTP pour donner un lien (il tourne sans `palmaplan serve`). Lancez `palmaplan serve` sur les mêmes données pour ouvrir le planning dans un navigateur.",
            "This host does not display MCP Apps views, and this server has no HTTP address to give a link (it runs without `palmaplan serve`). Run `palmaplan serve` on the same data to open the schedule in a browser.",
        ));
        (true, None, None)
    };

    Ok(Reply::ok(
        text,
        json!(wire::Shown {
            schedule_id: o.id,
            name: s.name.clone(),
            view: match p.view {
                View::Gantt => wire::ViewKind::Gantt,
                View::Kanban => wire::ViewKind::Kanban,
                View::Agenda => wire::ViewKind::Agenda,
            },
            options: options.typed(),
            rank: o.rank,
            read_only,
            shown_at: iso_utc_ms(now),
            url,
            expires_at,
        }),
    )
    // What the view's Help button opens through the host (`ui/open-link`): in `_meta`,
    // which only the view reads, so the model's text and structuredContent keep no link.
    .with_meta(match ctx.embed() {
        Some(e) => wire::ResultMeta {
            help_url: Some(format!(
                "{}/help?lang={}",
                e.public_url(),
                match ctx.lang() {
                    Lang::Fr => "fr",
                    Lang::En => "en",
                }
            )),
            ..Default::default()
        }
        .to_value(),
        None => Value::Null,
    }))
}

/// The date window's phrase and values.
fn push_window(ctx: &Ctx, options: &mut Options, from: Option<Date>, to: Option<Date>) {
    if let Some(a) = from {
        let phrase = match to {
            Some(b) => ctx.tr(format!("du {a} au {b}"), format!("from {a} to {b}")),
            None => ctx.tr(format!("à partir du {a}"), format!("from {a}")),
        };
        options.push("from", json!(a.to_string()), a.to_string(), phrase);
    }
    if let Some(b) = to {
        // Said with `from` when both are given.
        let phrase = ctx.tr(format!("jusqu'au {b}"), format!("until {b}"));
        options.given.push(("to", json!(b.to_string())));
        options.query.push(("to", b.to_string()));
        if from.is_none() {
            options.phrases.push(phrase);
        }
    }
}

/// A version of schedule `id` by id or name: (id, name).
async fn find_version(ctx: &Ctx, id: i64, v: &VersionRef) -> Result<(i64, String), Refusal> {
    let all = ctx
        .store()
        .versions(id)
        .await
        .map_err(|e| ctx.db_error(e))?;
    let found = match v {
        VersionRef::Id(vid) => all.into_iter().find(|x| x.id == *vid),
        VersionRef::Name(name) => {
            let lower = name.trim().to_lowercase();
            all.into_iter().find(|x| x.name.to_lowercase() == lower)
        }
    };
    found.map(|x| (x.id, x.name)).ok_or_else(|| {
        let shown = match v {
            VersionRef::Id(i) => i.to_string(),
            VersionRef::Name(n) => n.clone(),
        };
        Refusal::new(
            Code::VersionNotFound,
            ctx.tr(
                format!("«\u{a0}reference\u{a0}»\u{a0}: aucune version «\u{a0}{shown}\u{a0}» pour ce planning. Enregistrez-en une avec save_version, ou appelez list_versions pour voir leurs ids et noms."),
                format!("“reference”: no version “{shown}” for this schedule. Save one with save_version, or call list_versions to see their ids and names."),
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicI64, Ordering};

    use palmaplan_model::demo;
    use serde_json::json;

    use super::super::{Caller, Clock, Planning};
    use crate::embed::Embed;
    use crate::storage::{Role, Store};

    #[derive(Debug)]
    struct FixedClock(AtomicI64);

    impl Clock for FixedClock {
        fn now_ms(&self) -> i64 {
            self.0.load(Ordering::SeqCst)
        }
    }

    struct World {
        planning: Planning,
        owner: Caller,
        viewer: Caller,
        id: i64,
        embed: Embed,
    }

    async fn world(name: &str, with_embed: bool) -> World {
        let dir =
            std::env::temp_dir().join(format!("palmaplan-show-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open(&format!("sqlite://{}", dir.join("db.sqlite").display()))
            .await
            .unwrap();
        let owner = store.add_user("Ada", "ada@example.org", 0).await.unwrap();
        let viewer = store.add_user("Vic", "vic@example.org", 0).await.unwrap();
        let id = store
            .create_schedule(&demo::s4hana_migration(), owner, 0)
            .await
            .unwrap();
        store.set_role(id, viewer, Role::Viewer).await.unwrap();
        let clock = Arc::new(FixedClock(AtomicI64::new(1_790_000_000_000)));
        let planning = if with_embed {
            Planning::with_embed(store, clock, Embed::new(&dir, "http://127.0.0.1:4785"))
        } else {
            Planning::new(store, clock)
        };
        let caller = |user_id| Caller {
            user_id,
            can_write: true,
            only_schedule: None,
            max_role: None,
            lang: palmaplan_model::Lang::Fr,
            apps: false,
            credential: None,
        };
        World {
            planning,
            owner: caller(owner),
            viewer: caller(viewer),
            id,
            embed: Embed::new(&dir, "http://127.0.0.1:4785"),
        }
    }

    #[tokio::test]
    async fn without_mcp_apps_the_text_stands_alone_with_a_one_hour_link() {
        let w = world("link", true).await;
        let r = w
            .planning
            .call(&w.owner, "show_schedule", json!({"schedule": w.id}))
            .await;
        assert!(!r.is_error, "{}", r.text);
        let lines: Vec<&str> = r.text.lines().collect();
        assert!(
            lines[0].starts_with("Planning «\u{a0}S/4HANA Migration\u{a0}» — du 2026-11-02"),
            "{}",
            r.text
        );
        assert!(r.text.contains("Risques\u{a0}:"), "{}", r.text);
        assert!(
            r.text.contains("Vue\u{a0}: diagramme de Gantt."),
            "{}",
            r.text
        );
        let url = r.structured["url"].as_str().unwrap();
        let last = lines.last().unwrap();
        assert_eq!(
            *last,
            format!(
                "Cet hôte n'affiche pas les vues MCP Apps\u{a0}: cette adresse ouvre le planning, valable une heure, en lecture seule\u{a0}: {url}"
            )
        );
        let prefix = format!("http://127.0.0.1:4785/embed/{}?t=", w.id);
        assert!(url.starts_with(&prefix), "{url}");
        let token = &url[prefix.len()..];
        let claims = w
            .embed
            .verify(token, &w.id.to_string(), 1_790_000_000_001)
            .unwrap();
        assert!(!claims.editable);
        assert_eq!(claims.cap, Role::Viewer);
        assert_eq!(r.structured["read_only"], true);
        assert_eq!(r.structured["view"], "gantt");
        assert_eq!(r.structured["options"], json!({}));
        assert_eq!(r.structured["rank"], 0);
        assert_eq!(r.structured["name"], "S/4HANA Migration");
        // To the millisecond: two views shown within a second are still ordered.
        assert_eq!(r.structured["shown_at"], "2026-09-21T14:13:20.000Z");
        assert_eq!(r.structured["expires_at"], "2026-09-21T15:13:20Z");
        let keys: Vec<&String> = r.structured.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "expires_at",
                "name",
                "options",
                "rank",
                "read_only",
                "schedule_id",
                "shown_at",
                "url",
                "view"
            ]
        );
        assert!(serde_json::to_string(&r.structured).unwrap().len() < 1000);
    }

    #[tokio::test]
    async fn editable_links_only_for_those_who_may_write() {
        let w = world("editable", true).await;
        let r = w
            .planning
            .call(
                &w.owner,
                "show_schedule",
                json!({"schedule": w.id, "editable": true, "lang": null}),
            )
            .await;
        assert!(r.is_error, "lang is the adapter's, not the tool's");
        let r = w
            .planning
            .call(
                &w.owner,
                "show_schedule",
                json!({"schedule": w.id, "editable": true}),
            )
            .await;
        assert_eq!(r.structured["read_only"], false, "{}", r.text);
        assert!(
            r.text
                .contains("valable une heure, modifiable (rôle propriétaire)\u{a0}: http"),
            "{}",
            r.text
        );
        // A viewer asking for an editable link gets a read-only one, and is told why.
        let r = w
            .planning
            .call(
                &w.viewer,
                "show_schedule",
                json!({"schedule": w.id, "editable": true}),
            )
            .await;
        assert_eq!(r.structured["read_only"], true);
        assert!(
            r.text.contains(
                "en lecture seule (votre rôle lecteur ne permet pas de modifier)\u{a0}: http"
            ),
            "{}",
            r.text
        );
        // A read-only token too.
        let ro = Caller {
            can_write: false,
            ..w.owner.clone()
        };
        let r = w
            .planning
            .call(
                &ro,
                "show_schedule",
                json!({"schedule": w.id, "editable": true, "lang": "en"}),
            )
            .await;
        assert!(r.is_error);
        let en = Caller {
            lang: palmaplan_model::Lang::En,
            ..ro
        };
        let r = w
            .planning
            .call(
                &en,
                "show_schedule",
                json!({"schedule": w.id, "editable": true}),
            )
            .await;
        assert_eq!(r.structured["read_only"], true);
        assert!(
            r.text
                .contains("valid for one hour, read-only (this token is read-only): http"),
            "{}",
            r.text
        );
    }

    #[tokio::test]
    async fn an_mcp_apps_host_gets_no_link_and_no_token() {
        let w = world("apps", true).await;
        let apps = Caller {
            apps: true,
            ..w.owner.clone()
        };
        let r = w
            .planning
            .call(
                &apps,
                "show_schedule",
                json!({"schedule": w.id, "view": "kanban", "editable": true}),
            )
            .await;
        assert!(!r.is_error, "{}", r.text);
        assert_eq!(r.structured["url"], json!(null));
        assert_eq!(r.structured["expires_at"], json!(null));
        assert_eq!(r.structured["read_only"], false);
        assert_eq!(r.structured["view"], "kanban");
        // The Help address travels in _meta, for the view only.
        assert_eq!(
            r.meta["palmaplan/help_url"],
            "http://127.0.0.1:4785/help?lang=fr"
        );
        let all = format!("{} {}", r.text, r.structured);
        assert!(!all.contains("http") && !all.contains("?t="), "{all}");
        assert!(
            r.text.contains("Vue\u{a0}: tableau kanban des actions."),
            "{}",
            r.text
        );
        assert!(
            r.text
                .contains("s'affiche dans la conversation, modifiable (rôle propriétaire)"),
            "{}",
            r.text
        );
        let r = w
            .planning
            .call(
                &apps,
                "show_schedule",
                json!({"schedule": w.id, "editable": false}),
            )
            .await;
        assert_eq!(r.structured["read_only"], true);
        assert!(r.text.contains("en lecture seule."), "{}", r.text);
        let viewer = Caller {
            apps: true,
            ..w.viewer.clone()
        };
        let r = w
            .planning
            .call(&viewer, "show_schedule", json!({"schedule": w.id}))
            .await;
        assert_eq!(r.structured["read_only"], true);
        assert!(
            r.text
                .contains("lecture seule (votre rôle lecteur ne permet pas de modifier)."),
            "{}",
            r.text
        );
    }

    #[tokio::test]
    async fn options_are_checked_and_carried() {
        let w = world("options", true).await;
        let call = |args| w.planning.call(&w.owner, "show_schedule", args);
        let r = call(json!({"schedule": w.id, "filter": "member:Thomas (", "zoom": "week"})).await;
        assert!(
            r.is_error && r.text.contains("«\u{a0}filter\u{a0}»") && r.text.contains('^'),
            "{}",
            r.text
        );
        let r = call(json!({"schedule": w.id, "zoom": "year"})).await;
        assert!(
            r.is_error && r.text.contains("day, week, month, quarter"),
            "{}",
            r.text
        );
        let r = call(json!({"schedule": w.id, "from": "2026-13-01"})).await;
        assert!(
            r.is_error && r.text.contains("«\u{a0}from\u{a0}»"),
            "{}",
            r.text
        );
        let r = call(json!({"schedule": w.id, "from": "2026-12-01", "to": "2026-11-01"})).await;
        assert!(
            r.is_error && r.text.contains("«\u{a0}to\u{a0}» (2026-11-01) est avant"),
            "{}",
            r.text
        );
        let r = call(json!({"schedule": w.id, "panel": "side"})).await;
        assert!(
            r.is_error && r.text.contains("grid, timeline, both"),
            "{}",
            r.text
        );
        let r = call(json!({"schedule": w.id, "reference": "Baseline"})).await;
        assert!(
            r.is_error && r.text.contains("aucune version «\u{a0}Baseline\u{a0}»"),
            "{}",
            r.text
        );
        let r = call(json!({"schedule": w.id, "display": "large"})).await;
        assert!(r.is_error, "{}", r.text);

        let saved = w
            .planning
            .call(
                &w.owner,
                "save_version",
                json!({"schedule": w.id, "name": "Baseline"}),
            )
            .await;
        assert!(!saved.is_error, "{}", saved.text);
        let r = call(json!({
            "schedule": "S/4HANA Migration", "view": "gantt", "filter": "member:Thomas",
            "zoom": "month", "from": "2026-11-01", "to": "2026-12-31", "panel": "timeline",
            "critical_path": true, "reference": "baseline", "display": "compact", "editable": false,
        }))
        .await;
        assert!(!r.is_error, "{}", r.text);
        assert!(
            r.text.contains("Vue\u{a0}: diagramme de Gantt\u{202f}; filtre «\u{a0}member:Thomas\u{a0}» (1 bloc sur 6)\u{202f}; zoom\u{a0}: mois\u{202f}; du 2026-11-01 au 2026-12-31\u{202f}; panneaux\u{a0}: les blocs seuls\u{202f}; chemin critique en évidence\u{202f}; référence\u{a0}: version «\u{a0}Baseline\u{a0}»\u{202f}; affichage compact."),
            "{}",
            r.text
        );
        let vid = r.structured["options"]["reference"]["id"].as_i64().unwrap();
        assert_eq!(
            r.structured["options"],
            json!({
                "filter": "member:Thomas", "zoom": "month", "from": "2026-11-01", "to": "2026-12-31",
                "panel": "timeline", "critical_path": true,
                "reference": {"id": vid, "name": "Baseline"}, "display": "compact", "editable": false,
            })
        );
        let url = r.structured["url"].as_str().unwrap();
        assert!(
            url.ends_with(&format!("&filter=member%3AThomas&zoom=month&from=2026-11-01&to=2026-12-31&panel=timeline&critical_path=true&reference={vid}&display=compact")),
            "{url}"
        );
        let en = Caller {
            lang: palmaplan_model::Lang::En,
            ..w.owner.clone()
        };
        let r = w
            .planning
            .call(
                &en,
                "show_schedule",
                json!({"schedule": w.id, "view": "agenda", "to": "2026-12-31"}),
            )
            .await;
        assert!(
            r.text
                .contains("View: agenda of the absences; until 2026-12-31."),
            "{}",
            r.text
        );
        assert!(
            r.structured["url"]
                .as_str()
                .unwrap()
                .contains("&view=agenda&to=2026-12-31")
        );
    }

    #[tokio::test]
    async fn without_an_http_address_it_says_so() {
        let w = world("nolink", false).await;
        let r = w
            .planning
            .call(&w.viewer, "show_schedule", json!({"schedule": w.id}))
            .await;
        assert!(!r.is_error, "{}", r.text);
        assert!(r.text.contains("palmaplan serve"), "{}", r.text);
        assert_eq!(r.structured["url"], json!(null));
        // Someone else's schedule stays invisible.
        let stranger = Caller {
            user_id: 999,
            ..w.viewer.clone()
        };
        let r = w
            .planning
            .call(&stranger, "show_schedule", json!({"schedule": w.id}))
            .await;
        assert!(
            r.is_error && r.text.contains("list_schedules"),
            "{}",
            r.text
        );
    }
}
