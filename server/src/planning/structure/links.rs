//! Tools on dependency links between bars and milestones (add, update, delete; the
//! links the dates break are among `schedule_risks`). A link is checked against the planned dates right after it
//! is written, with the model's risk arithmetic, so the answer says at once when the
//! dates break it and by how many working days.

use palmaplan_model::command::Command;

use palmaplan_model::wire::CascadeSummary;
use palmaplan_model::{ItemId, Lang, LinkId, LinkKind, Schedule, text};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Watch, inverse_of, item, nothing_to_change, push_risks, rank, risk_lines};
use crate::planning::args::CascadeArg;
use crate::planning::scheduling::with_cascade;
use crate::planning::{Access, Ctx, Refusal, Reply, ScheduleRef, ToolSpec, Wrote, tool};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "add_link",
            "Add a dependency: \"to\" depends on \"from\". No cycles or repeats. Says if current dates break it.",
            Access::Write,
            add_link,
        )
        .returns::<LinkWritten>(),
        tool(
            "update_link",
            "Change a link's kind or lag. Says if the current dates break it.",
            Access::Write,
            update_link,
        )
        .returns::<LinkWritten>(),
    ]
}

/// Link type.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
enum Kind {
    /// Finish-to-start: "to" starts after "from" finishes.
    FS,
    /// Start-to-start: "to" starts after "from" starts.
    SS,
    /// Finish-to-finish: "to" finishes after "from" finishes.
    FF,
    /// Start-to-finish: "to" finishes after "from" starts.
    SF,
}

impl From<Kind> for LinkKind {
    fn from(k: Kind) -> LinkKind {
        match k {
            Kind::FS => LinkKind::FS,
            Kind::SS => LinkKind::SS,
            Kind::FF => LinkKind::FF,
            Kind::SF => LinkKind::SF,
        }
    }
}

fn kind_words(lang: Lang, k: LinkKind) -> &'static str {
    match (lang, k) {
        (Lang::Fr, LinkKind::FS) => "FS (fin → début)",
        (Lang::Fr, LinkKind::SS) => "SS (début → début)",
        (Lang::Fr, LinkKind::FF) => "FF (fin → fin)",
        (Lang::Fr, LinkKind::SF) => "SF (début → fin)",
        (Lang::En, LinkKind::FS) => "FS (finish-to-start)",
        (Lang::En, LinkKind::SS) => "SS (start-to-start)",
        (Lang::En, LinkKind::FF) => "FF (finish-to-finish)",
        (Lang::En, LinkKind::SF) => "SF (start-to-finish)",
    }
}

/// "« A » (13) → « B » (14), FS (fin → début), décalage de 2 jours ouvrés" (a
/// negative lag is a lead: « avance de 1 jour ouvré »).
fn describe(ctx: &Ctx, s: &Schedule, l: LinkId) -> String {
    let Some(link) = s.link(l) else {
        return l.to_string();
    };
    let lag = if link.lag == 0 {
        ctx.tr("sans décalage", "no lag")
    } else {
        let unit = s.settings.time_unit;
        let size = i64::from(link.lag).abs();
        match (link.lag > 0, ctx.lang()) {
            (true, Lang::Fr) => format!("décalage de {}", text::time_units(size, unit, Lang::Fr)),
            (false, Lang::Fr) => format!("avance de {}", text::time_units(size, unit, Lang::Fr)),
            (true, Lang::En) => format!("lag of {}", text::time_units(size, unit, Lang::En)),
            (false, Lang::En) => format!("lead of {}", text::time_units(size, unit, Lang::En)),
        }
    };
    format!(
        "{} → {}, {}, {lag}",
        item(ctx, s, link.from),
        item(ctx, s, link.to),
        kind_words(ctx.lang(), link.kind)
    )
}

/// Appends whether the planned dates break this link.
fn push_link_check(ctx: &Ctx, text: &mut String, wrote: &Wrote, l: LinkId) {
    let lines = risk_lines(ctx, &wrote.state, Watch::Links(&|v| v.link == l));
    if lines.is_empty() {
        text.push_str(&ctx.tr(
            " Les dates prévues le respectent.",
            " The planned dates meet it.",
        ));
    }
    push_risks(ctx, text, &lines);
}

/// `add_link`'s and `update_link`'s result.
#[derive(Debug, Serialize, JsonSchema)]
struct LinkWritten {
    schedule_id: i64,
    /// The rank the write made.
    rank: i64,
    link: LinkId,
    /// Added when the cascade moved something.
    #[serde(skip_serializing_if = "Option::is_none")]
    cascade: Option<CascadeSummary>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddLink {
    schedule: ScheduleRef,
    from: u64,
    /// Depends on "from".
    to: u64,
    #[serde(default)]
    kind: Option<Kind>,
    /// Default 0; negative: a lead.
    #[serde(default)]
    lag: Option<i32>,
    /// "pull": also earlier.
    #[serde(default)]
    cascade: Option<CascadeArg>,
}

async fn add_link(ctx: Ctx, p: AddLink) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let cmd = Command::AddLink {
        id: None,
        from: ItemId(p.from),
        to: ItemId(p.to),
        kind: p.kind.map(LinkKind::from),
        lag: p.lag,
    };
    let wrote = ctx
        .apply_cascading(id, &[cmd], None, CascadeArg::choice(p.cascade))
        .await?;
    let l = match wrote.applied.first() {
        Some(Command::AddLink { id: Some(l), .. }) => *l,
        _ => LinkId(0),
    };
    let mut text = ctx.tr(
        format!(
            "Lien {l} ajouté\u{a0}: {}\u{202f}; {}.",
            describe(&ctx, &wrote.state, l),
            rank(&ctx, wrote.rank)
        ),
        format!(
            "Link {l} added: {}; {}.",
            describe(&ctx, &wrote.state, l),
            rank(&ctx, wrote.rank)
        ),
    );
    push_link_check(&ctx, &mut text, &wrote, l);
    let reply = Reply::ok(
        text,
        json!(LinkWritten {
            schedule_id: id,
            rank: wrote.rank,
            link: l,
            cascade: None,
        }),
    );
    Ok(with_cascade(&ctx, &wrote, reply))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UpdateLink {
    schedule: ScheduleRef,
    link: u64,
    #[serde(default)]
    kind: Option<Kind>,
    /// Negative: a lead.
    #[serde(default)]
    lag: Option<i32>,
    /// "pull": also earlier.
    #[serde(default)]
    cascade: Option<CascadeArg>,
}

async fn update_link(ctx: Ctx, p: UpdateLink) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    if p.kind.is_none() && p.lag.is_none() {
        return Err(nothing_to_change(&ctx, "kind, lag"));
    }
    let l = LinkId(p.link);
    let cmd = Command::UpdateLink {
        link: l,
        kind: p.kind.map(LinkKind::from),
        lag: p.lag,
    };
    let wrote = ctx
        .apply_cascading(id, &[cmd], None, CascadeArg::choice(p.cascade))
        .await?;
    let mut text = ctx.tr(
        format!(
            "Lien {l} modifié\u{a0}: {}\u{202f}; {}.",
            describe(&ctx, &wrote.state, l),
            rank(&ctx, wrote.rank)
        ),
        format!(
            "Link {l} updated: {}; {}.",
            describe(&ctx, &wrote.state, l),
            rank(&ctx, wrote.rank)
        ),
    );
    push_link_check(&ctx, &mut text, &wrote, l);
    let reply = Reply::ok(
        text,
        json!(LinkWritten {
            schedule_id: id,
            rank: wrote.rank,
            link: l,
            cascade: None,
        }),
    );
    Ok(with_cascade(&ctx, &wrote, reply))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct DeleteLink {
    pub(super) schedule: ScheduleRef,
    pub(super) link: u64,
}

/// `delete_link`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct LinkDeleted {
    schedule_id: i64,
    /// The rank the write made.
    rank: i64,
    link: LinkId,
}

pub(super) async fn delete_link(ctx: Ctx, p: DeleteLink) -> Result<Reply, Refusal> {
    let (id, _) = ctx.open(&p.schedule).await?;
    let cmd = Command::DeleteLink {
        link: LinkId(p.link),
    };
    let wrote = ctx.apply(id, &[cmd], None).await?;
    let ends = inverse_of(&wrote).and_then(|inv| {
        inv.iter().find_map(|c| match c {
            Command::AddLink { from, to, .. } => Some((*from, *to)),
            _ => None,
        })
    });
    let between = ends.map_or(String::new(), |(from, to)| {
        format!(
            " ({} → {})",
            item(&ctx, &wrote.state, from),
            item(&ctx, &wrote.state, to)
        )
    });
    let at = rank(&ctx, wrote.rank);
    let text = ctx.tr(
        format!(
            "Lien {}{between} supprimé\u{202f}; {at}. Annulable avec undo.",
            p.link
        ),
        format!(
            "Link {}{between} deleted; {at}. Can be undone with undo.",
            p.link
        ),
    );
    Ok(Reply::ok(
        text,
        json!(LinkDeleted {
            schedule_id: id,
            rank: wrote.rank,
            link: LinkId(p.link),
        }),
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::testkit::{Kit, kit, needs_editor, ok, refused};

    #[tokio::test]
    async fn add_update_delete_and_list_violations() {
        let k = kit().await;
        let r = ok(k.call(&k.viewer, "schedule_risks", json!({})).await);
        assert_eq!(r.structured["counts"]["violated_links"], 0, "{}", r.text);
        let r = ok(k
            .call(&k.editor, "add_link", json!({"from": 14, "to": 15}))
            .await);
        assert!(
            r.text.contains("Lien 32 ajouté\u{a0}: «\u{a0}Nettoyage des données\u{a0}» (14) → «\u{a0}Adaptation du code ABAP\u{a0}» (15), FS (fin → début), sans décalage\u{202f}; rang 1.")
                && r.text.contains("Lien 32 (FS) non respecté de 5 jours ouvrés"),
            "{}",
            r.text
        );
        let r = ok(k
            .call(
                &Kit::en(&k.editor),
                "update_link",
                json!({"link": 32, "kind": "SS", "lag": -1}),
            )
            .await);
        assert!(
            r.text.contains(
                "SS (start-to-start), lead of 1 working day; rank 2. The planned dates meet it."
            ),
            "{}",
            r.text
        );
        ok(
            k.call(&k.editor, "update_link", json!({"link": 20, "lag": 8}))
                .await,
        );
        let r = ok(k.call(&k.viewer, "schedule_risks", json!({})).await);
        assert_eq!(r.structured["counts"]["violated_links"], 1);
        assert!(
            r.text
                .contains("Lien 20 (SS) non respecté de 3 jours ouvrés"),
            "{}",
            r.text
        );
        assert_eq!(r.structured["violated_links"][0]["by_days"], 3);
        let r = ok(k.call(&k.editor, "delete", json!({"link": 20})).await);
        assert!(
            r.text.contains("Lien 20 («\u{a0}Audit du système\u{a0}» (13) → «\u{a0}Nettoyage des données\u{a0}» (14)) supprimé\u{202f}; rang 4."),
            "{}",
            r.text
        );
    }

    #[tokio::test]
    async fn refusals() {
        let k = kit().await;
        needs_editor(
            k.call(&k.viewer, "add_link", json!({"from": 14, "to": 15}))
                .await,
        );
        needs_editor(k.call(&k.viewer, "delete", json!({"link": 20})).await);
        let r = refused(
            k.call(&k.editor, "add_link", json!({"from": 18, "to": 13}))
                .await,
            "invalid_command",
        );
        assert!(r.text.contains("cycle"), "{}", r.text);
        // The view shows the person the loop by its labels.
        let person = palmaplan_model::wire::ResultMeta::read(&r.meta)
            .person_text
            .expect("person words");
        assert!(
            person.starts_with("Ce lien fermerait une boucle de dépendances («\u{a0}")
                && person.ends_with("rien n'a été modifié."),
            "{person}"
        );
        let r = refused(
            k.call(&k.editor, "delete", json!({"link": 99})).await,
            "invalid_command",
        );
        assert!(r.text.contains("le lien 99 n'existe pas"), "{}", r.text);
        refused(
            k.call(
                &k.editor,
                "add_link",
                json!({"from": 14, "to": 15, "kind": "XY"}),
            )
            .await,
            "invalid_arguments",
        );
        refused(
            k.call(&k.editor, "update_link", json!({"link": 20})).await,
            "invalid_arguments",
        );
        refused(
            k.call(&k.stranger, "delete", json!({"link": 20})).await,
            "schedule_not_found",
        );
    }
}
