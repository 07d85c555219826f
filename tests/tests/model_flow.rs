//! The model's pieces used together the way the server's `what_if` and `apply_patch`
//! and the view's journal replay will use them: commands arrive as JSON, are simulated,
//! diffed and described, then undone; a schedule travels as pages and comes back whole.

use palmaplan_model::command::{Command, apply};
use palmaplan_model::idset::IdSet;
use palmaplan_model::{Lang, demo, diff, filter, paging, risk, text};

fn commands(json: &str) -> Vec<Command> {
    serde_json::from_str(json).expect("valid commands")
}

#[test]
fn a_proposal_is_simulated_described_and_undone() {
    let before = demo::s4hana_migration();
    let bar = before
        .bars
        .iter()
        .find(|b| b.label == "Nettoyage des données")
        .expect("demo bar");
    let cmds = commands(&format!(
        r#"[{{"op":"move_periods","bars":[{}],"by":5}}]"#,
        bar.id
    ));
    let (after, applied) = apply(&before, &cmds).expect("a valid move");

    let d = diff::diff(&before, &after);
    assert_eq!(d.changes.len(), 1, "{:?}", d.changes);
    assert!(d.not_shown.is_empty());
    let fr = text::change_list(&before, &d, Lang::Fr);
    assert!(fr.contains("«\u{a0}Nettoyage des données\u{a0}»"), "{fr}");
    // Five working days, and 2026-11-11 is a holiday in the demo's calendar.
    assert!(fr.contains("2026-11-09 → 2026-11-17"), "{fr}");
    // The move breaks the link to the dry run, and the proposal says so.
    assert_eq!(d.new_risks.violated_links.len(), 1);
    assert!(fr.contains("Nouveaux risques"), "{fr}");
    let en = text::change_list(&before, &d, Lang::En);
    assert!(
        en.contains("“Nettoyage des données”") || en.contains("Nettoyage des données"),
        "{en}"
    );

    // The journal replays `applied` elsewhere (the view) and undoes with `inverse`.
    let (replayed, _) = apply(&before, &applied.applied).expect("replay");
    assert_eq!(replayed, after);
    let (undone, _) = apply(&after, &applied.inverse).expect("undo");
    assert_eq!(undone.bars, before.bars);
    assert_eq!(undone.links, before.links);
}

#[test]
fn a_refused_patch_names_the_command_and_changes_nothing() {
    let before = demo::s4hana_migration();
    let cmds = commands(
        r#"[{"op":"rename_schedule","name":"Nouveau nom"},{"op":"move_periods","bars":[999999],"by":1}]"#,
    );
    let err = apply(&before, &cmds).expect_err("unknown bar");
    assert_eq!(err.command, 1);
    let msg = err.message(Lang::Fr);
    assert!(
        msg.contains("Commande 2") && msg.contains("999999"),
        "{msg}"
    );
    assert!(err.message(Lang::En).contains("999999"));
}

#[test]
fn the_demo_travels_as_pages_and_filters_by_risk() {
    let s = demo::s4hana_migration();
    let pages = paging::paginate(&s, None, paging::MIN_PAGE_CHARS);
    let parsed: Vec<paging::Page> = pages
        .iter()
        .map(|p| serde_json::from_str(p).expect("a page parses"))
        .collect();
    assert_eq!(paging::reassemble(&parsed).expect("reassembles"), s);

    let at_risk = risk::risks(&s).bars_at_risk();
    assert_eq!(at_risk.len(), 1);
    let ctx = filter::FilterContext::new(&s, &IdSet::default(), &at_risk);
    let f = filter::parse("is:at-risk").expect("valid filter");
    let selected = f.select(&ctx, &s);
    assert_eq!(
        selected
            .into_iter()
            .collect::<palmaplan_model::idset::IdSet<_>>(),
        at_risk
    );
}
