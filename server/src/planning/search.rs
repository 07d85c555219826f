//! Finding things: `search` looks for words in the names of everything (bars,
//! milestones, rows, groups, members) of one schedule or of all the caller's, and
//! `list_periods` with a filter runs the Filter panel's language over a schedule's bars.
//!
//! Both compare text the filter's way (`filter::fold`: no case, no accents, in any script), so
//! "equipe" finds "Équipe" in the search box, in the Filter panel and here alike.
//! Neither looks at private fields: a search for an e-mail finds nothing.

use crate::planning::Code;
use palmaplan_model::filter::{self, FilterContext, fold};
use palmaplan_model::idset::IdSet;
use palmaplan_model::text::{LIST_CAP, count, plural};
use palmaplan_model::{BarId, Lang, Schedule, cpm, risk};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::people::{more_line, quoted, span_text};
use super::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, tool};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "search",
            "Find words (all of them, any case or accents) in names of bars, milestones, rows, groups, members; in one schedule or all yours.",
            Access::Read,
            search,
        )
        .returns::<Found>()
        .on_no_schedule(),
    ]
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Search {
    /// Omit to search all your schedules.
    #[serde(default)]
    schedule: Option<ScheduleRef>,
    /// The words to find.
    query: String,
}

/// One thing found, as the answer lists it.
#[derive(Debug, Serialize, JsonSchema)]
struct FoundItem {
    schedule_id: i64,
    /// "bar", "milestone", "row", "group" or "member".
    kind: &'static str,
    id: u64,
    name: String,
}

/// `search`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct Found {
    /// The query as given.
    query: String,
    /// How many things match.
    count: usize,
    /// The first of them.
    results: Vec<FoundItem>,
}

/// One thing found.
struct Hit {
    schedule_id: i64,
    schedule: String,
    kind: &'static str,
    id: u64,
    name: String,
    /// Dates, or the group of a row.
    detail: Option<String>,
}

/// Whether every word appears in the folded text.
fn matches(words: &[String], text: &str) -> bool {
    let folded = fold(text);
    words.iter().all(|w| folded.contains(w.as_str()))
}

/// The hits in one schedule, appended to `out` (past `cap` only counted).
fn search_in(
    id: i64,
    s: &Schedule,
    words: &[String],
    out: &mut Vec<Hit>,
    total: &mut usize,
    cap: usize,
) {
    let mut push = |kind: &'static str, item: u64, name: &str, detail: Option<String>| {
        *total += 1;
        if out.len() < cap {
            out.push(Hit {
                schedule_id: id,
                schedule: s.name.clone(),
                kind,
                id: item,
                name: name.to_owned(),
                detail,
            });
        }
    };
    for g in s.groups.iter().filter(|g| matches(words, &g.name)) {
        push("group", g.id.0, &g.name, None);
    }
    for r in s.rows.iter().filter(|r| matches(words, &r.name)) {
        let group = s.group(r.group).map(|g| g.name.clone());
        push("row", r.id.0, &r.name, group);
    }
    for b in s.bars.iter().filter(|b| matches(words, &b.label)) {
        push("bar", b.id.0, &b.label, Some(span_text(b.start, b.end)));
    }
    for m in s.milestones.iter().filter(|m| matches(words, &m.label)) {
        push("milestone", m.id.0, &m.label, Some(m.date.to_string()));
    }
    for m in s.members.iter().filter(|m| matches(words, &m.name)) {
        push("member", m.id.0, &m.name, None);
    }
}

fn kind_word(ctx: &Ctx, kind: &str) -> String {
    match kind {
        "group" => ctx.tr("groupe", "group"),
        "row" => ctx.tr("ligne", "row"),
        "bar" => ctx.tr("bloc", "bar"),
        "milestone" => ctx.tr("jalon", "milestone"),
        _ => ctx.tr("membre", "member"),
    }
}

async fn search(ctx: Ctx, p: Search) -> Result<Reply, Refusal> {
    let words: Vec<String> = p.query.split_whitespace().map(fold).collect();
    if words.is_empty() {
        return Err(Refusal::new(
            Code::InvalidArguments,
            ctx.tr(
                "«\u{a0}query\u{a0}» est vide\u{a0}: donnez un ou plusieurs mots à chercher.",
                "“query” is empty: give one or more words to search for.",
            ),
        ));
    }
    let lang = ctx.lang();
    let mut hits = Vec::new();
    let mut total = 0;
    let mut searched = 0;
    match &p.schedule {
        Some(r) => {
            let o = ctx.open_redacted(r).await?;
            search_in(o.id, &o.state, &words, &mut hits, &mut total, LIST_CAP);
            searched = 1;
        }
        None => {
            let mine = ctx
                .store()
                .schedules_of(ctx.caller.user_id)
                .await
                .map_err(|e| ctx.db_error(e))?;
            for info in mine
                .iter()
                .filter(|i| ctx.caller.only_schedule.is_none_or(|only| only == i.id))
            {
                // Names and labels only: nothing private is searched nor shown, so the
                // stored state is read as is.
                let stored = ctx
                    .store()
                    .load(info.id)
                    .await
                    .map_err(|e| ctx.db_error(e))?;
                search_in(
                    info.id,
                    &stored.state,
                    &words,
                    &mut hits,
                    &mut total,
                    LIST_CAP,
                );
                searched += 1;
            }
        }
    }
    let across = p.schedule.is_none();
    let q = quoted(lang, p.query.trim());
    let mut text = if total == 0 {
        ctx.tr(
            format!(
                "Aucun résultat pour {q} dans {}. Essayez moins de mots ou une partie de mot.",
                count(Lang::Fr, searched, "planning", "plannings")
            ),
            format!(
                "No result for {q} in {}. Try fewer words or part of a word.",
                count(Lang::En, searched, "schedule", "schedules")
            ),
        )
    } else {
        ctx.tr(
            format!(
                "{} pour {q}\u{a0}:",
                count(Lang::Fr, total, "résultat", "résultats")
            ),
            format!("{} for {q}:", count(Lang::En, total, "result", "results")),
        )
    };
    for h in &hits {
        text.push_str("\n- ");
        if across {
            text.push_str(&format!(
                "{} ({}) · ",
                quoted(lang, &h.schedule),
                h.schedule_id
            ));
        }
        text.push_str(&format!(
            "{} {} {}",
            kind_word(&ctx, h.kind),
            h.id,
            quoted(lang, &h.name)
        ));
        match (h.kind, &h.detail) {
            ("row", Some(g)) => text.push_str(&ctx.tr(
                format!(", groupe {}", quoted(lang, g)),
                format!(", group {}", quoted(lang, g)),
            )),
            (_, Some(d)) => text.push_str(&format!(", {d}")),
            _ => {}
        }
    }
    if total > hits.len() {
        text.push('\n');
        text.push_str(&more_line(&ctx, total - hits.len()));
    }
    let results: Vec<_> = hits
        .iter()
        .map(|h| FoundItem {
            schedule_id: h.schedule_id,
            kind: h.kind,
            id: h.id,
            name: h.name.clone(),
        })
        .collect();
    Ok(Reply::ok(
        text,
        json!(Found {
            query: p.query,
            count: total,
            results,
        }),
    ))
}

/// The bars a Filter panel query selects (`list_periods` with a filter).
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct Selected {
    schedule_id: i64,
    rank: i64,
    /// How many bars match.
    count: usize,
    /// How many bars the schedule has.
    total: usize,
    /// The matching bars' ids (the first 200).
    bars: Vec<BarId>,
}

/// How many bar ids the structured answer lists.
const IDS_CAP: usize = 200;

/// `list_periods` with a filter: the bars a Filter panel query selects.
pub(super) async fn filter_periods(
    ctx: Ctx,
    schedule: &ScheduleRef,
    query: &str,
) -> Result<Reply, Refusal> {
    let lang = ctx.lang();
    // The query is checked before the schedule is read: a typo costs nothing.
    let f = filter::parse(query).map_err(|e| {
        Refusal::new(
            Code::InvalidFilter,
            ctx.tr(
                format!("Filtre invalide\u{a0}:\n{}", e.render(query, lang)),
                format!("Invalid filter:\n{}", e.render(query, lang)),
            ),
        )
        .with(json!({ "position": e.position, "len": e.len }))
    })?;
    let o = ctx.open_redacted(schedule).await?;
    let s = &o.state;
    // A cycle leaves no critical path: `is:critical` then matches nothing, and the
    // answer says why.
    let (critical, cycle): (IdSet<BarId>, bool) = match cpm::critical_path(s) {
        Ok(cp) => (cp.critical_bars().collect(), false),
        Err(_) => (IdSet::default(), true),
    };
    // Late and overdue bars at the schedule's today, for `is:late`, `is:overdue`
    // and `is:at-risk`.
    let risks = risk::risks_at(s, super::zones::today_of(&ctx, s));
    let at_risk = risks.bars_at_risk();
    let mut fc = FilterContext::new(s, &critical, &at_risk)
        .with_lateness(risks.late.iter().chain(&risks.overdue));
    // Floats cost a critical path of their own: computed only for a query that
    // compares them (`float<=2`), and none on a cycle, so float terms match nothing.
    if f.uses_floats() {
        fc = fc.with_floats(&filter::floats_of(s));
    }
    let selected = f.select(&fc, s);
    let q = quoted(lang, query.trim());
    let mut text = if selected.is_empty() {
        ctx.tr(
            format!(
                "Aucun des {} de «\u{a0}{}\u{a0}» ne correspond à {q}.",
                count(Lang::Fr, s.bars.len(), "bloc", "blocs"),
                s.name
            ),
            format!(
                "None of the {} of “{}” matches {q}.",
                count(Lang::En, s.bars.len(), "bar", "bars"),
                s.name
            ),
        )
    } else {
        ctx.tr(
            format!(
                "{} sur {} de «\u{a0}{}\u{a0}» {} à {q}\u{a0}:",
                count(Lang::Fr, selected.len(), "bloc", "blocs"),
                s.bars.len(),
                s.name,
                plural(Lang::Fr, selected.len(), "correspond", "correspondent")
            ),
            format!(
                "{} of the {} of “{}” {} {q}:",
                selected.len(),
                count(Lang::En, s.bars.len(), "bar", "bars"),
                s.name,
                plural(Lang::En, selected.len(), "matches", "match")
            ),
        )
    };
    for id in selected.iter().take(LIST_CAP) {
        let Some(b) = s.bar(*id) else { continue };
        let row = s.row(b.row).map_or("?", |r| r.name.as_str());
        text.push_str(&format!(
            "\n- {} {} — {} {}, {}",
            b.id,
            quoted(lang, &b.label),
            ctx.tr("ligne", "row"),
            quoted(lang, row),
            span_text(b.start, b.end)
        ));
    }
    if selected.len() > LIST_CAP {
        text.push('\n');
        text.push_str(&more_line(&ctx, selected.len() - LIST_CAP));
    }
    if cycle {
        text.push('\n');
        text.push_str(&ctx.tr(
            "Les liens forment un cycle\u{a0}: aucun bloc n'est critique tant qu'il n'est pas rompu (schedule_floats avec path: true le nomme).",
            "The links form a cycle: no bar is critical until it is broken (schedule_floats with path: true names it).",
        ));
    }
    Ok(Reply::ok(
        text,
        json!(Selected {
            schedule_id: o.id,
            rank: o.rank,
            count: selected.len(),
            total: s.bars.len(),
            bars: selected.iter().take(IDS_CAP).copied().collect(),
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::people_testkit::{Kit, en};
    use serde_json::json;

    #[tokio::test]
    async fn search_ignores_case_and_accents_and_never_private_fields() {
        let k = Kit::new("search").await;
        let r = k
            .ok(&k.viewer, "search", json!({ "query": "SYSTEME audit" }))
            .await;
        assert_eq!(r.structured["count"], 2, "{}", r.text);
        assert!(
            r.text.contains("- «\u{a0}S/4HANA Migration\u{a0}» (1) · bloc 13 «\u{a0}Audit du système\u{a0}», 2026-11-02 → 2026-11-13"),
            "{}",
            r.text
        );
        let r = k
            .ok(
                &en(&k.viewer),
                "search",
                json!({ "schedule": k.schedule, "query": "lefevre" }),
            )
            .await;
        assert_eq!(
            r.text,
            "1 result for “lefevre”:\n- member 3 “Sophie Lefèvre”"
        );
        let r = k
            .ok(&k.owner, "search", json!({ "query": "example.org" }))
            .await;
        assert_eq!(r.structured["count"], 0, "{}", r.text);
        assert!(
            r.text
                .starts_with("Aucun résultat pour «\u{a0}example.org\u{a0}» dans 1 planning."),
            "{}",
            r.text
        );
        let r = k
            .ok(&k.owner, "search", json!({ "query": "médical" }))
            .await;
        assert_eq!(r.structured["count"], 0, "{}", r.text);
        k.refused(&k.viewer, "search", json!({ "query": "  " }))
            .await;

        // Across schedules: only the caller's, and only the token's one if restricted.
        k.ok(
            &k.stranger,
            "create_schedule",
            json!({ "name": "Copie", "demo": true }),
        )
        .await;
        let r = k
            .ok(&k.stranger, "search", json!({ "query": "bascule" }))
            .await;
        assert_eq!(r.structured["count"], 2, "{}", r.text);
        assert!(
            r.text.contains("«\u{a0}Copie\u{a0}» (2)") && !r.text.contains("(1) ·"),
            "{}",
            r.text
        );
        let mut viewer = k.viewer.clone();
        viewer.only_schedule = Some(99);
        let r = k.ok(&viewer, "search", json!({ "query": "bascule" })).await;
        assert_eq!(r.structured["count"], 0, "{}", r.text);
    }

    #[tokio::test]
    async fn filter_periods_selects_and_explains_errors_in_both_languages() {
        let k = Kit::new("filter").await;
        let s = k.schedule;
        let r = k
            .ok(
                &k.viewer,
                "list_periods",
                json!({ "schedule": s, "filter": "membre:thomas est:à-risque" }),
            )
            .await;
        assert_eq!(r.structured["bars"], json!([15]), "{}", r.text);
        assert!(
            r.text.contains("- 15 «\u{a0}Adaptation du code ABAP\u{a0}» — ligne «\u{a0}Adaptation du code spécifique\u{a0}», 2026-11-16 → 2026-12-04"),
            "{}",
            r.text
        );
        let r = k
            .ok(
                &k.viewer,
                "list_periods",
                json!({ "schedule": s, "filter": "is:critical -member:karim" }),
            )
            .await;
        assert_eq!(r.structured["bars"], json!([14, 15, 16, 17]), "{}", r.text);
        let r = k
            .ok(
                &k.viewer,
                "list_periods",
                json!({ "schedule": s, "filter": "" }),
            )
            .await;
        assert_eq!(r.structured["count"], 6);

        let r = k
            .refused(
                &k.viewer,
                "list_periods",
                json!({ "schedule": s, "filter": "statut:fini" }),
            )
            .await;
        assert_eq!(r.structured["error"], "invalid_filter");
        assert_eq!(
            (
                r.structured["position"].as_u64(),
                r.structured["len"].as_u64()
            ),
            (Some(7), Some(4))
        );
        assert!(
            r.text.starts_with("Filtre invalide\u{a0}:\nstatut:fini\n       ^^^^\n«\u{a0}fini\u{a0}» n'est pas une valeur possible pour statut:."),
            "{}",
            r.text
        );
        let r = k
            .refused(
                &en(&k.viewer),
                "list_periods",
                json!({ "schedule": s, "filter": "colour:red" }),
            )
            .await;
        assert!(
            r.text.starts_with("Invalid filter:\ncolour:red\n^^^^^^\n\"colour\" is not a filter key. Valid keys: member,"),
            "{}",
            r.text
        );
        let r = k
            .refused(
                &en(&k.viewer),
                "list_periods",
                json!({ "schedule": s, "filter": "(is:critical" }),
            )
            .await;
        assert!(
            r.text.starts_with("Invalid filter:\n(is:critical\n^"),
            "{}",
            r.text
        );
    }
}
