//! The person's words for a refused command list: what stopped a gesture in the view,
//! its items named by their labels, with none of the ids, command numbers, fields or
//! tools the model's message ([`ApplyError::message`]) acts with.
//!
//! A person dragged a bar or renamed one; "Commande 1 (move_periods) : … (lock avec
//! unlock: true)" tells them nothing they can do. Problems a gesture cannot cause
//! (imports, explicit ids, bad colours) have no words here: the view then shows the
//! model's message, which at least says what is wrong.

use super::error::{
    ApplyError, Problem, capitalise, lock_target_name, lock_target_named, loop_chain, reason, when,
};
use crate::schedule::{Constraint, ItemId, LockTarget, Schedule};
use crate::{Lang, text};

impl ApplyError {
    /// What stopped the write, for the person, as it reads against `s` (the state the
    /// commands were applied to), ending with what was not done; `None` for a problem
    /// only a hand-written command list can cause.
    pub fn person_message(&self, s: &Schedule, lang: Lang) -> Option<String> {
        self.problem.person_message(s, lang)
    }
}

impl Problem {
    /// [`ApplyError::person_message`] of one problem.
    pub fn person_message(&self, s: &Schedule, lang: Lang) -> Option<String> {
        let fr = lang == Lang::Fr;
        let label = |id: u64| s.item_label(ItemId(id)).map(|l| quoted(lang, l));
        let (fr_text, en_text) = match self {
            Problem::Locked { item, lock } => {
                // By its name; gone from `s` (deleted in between), "this bar", never its id.
                let name = lock_target_name(s, lock.target);
                let target = match name {
                    Some(name) => lock_target_named(lock.target, Some(name), lang),
                    None => this(lock.target, lang),
                };
                // What the write touched, when the lock holds it through its row, its
                // group or the whole schedule.
                let inside = (*item != 0 && *item != lock.target.id())
                    .then(|| label(*item))
                    .flatten();
                let row = matches!(lock.target, LockTarget::Row(_));
                let by = &lock.by_name;
                let (since_fr, since_en) = (when(lock.since_ms, Lang::Fr), when(lock.since_ms, Lang::En));
                let why = reason(&lock.reason, lang);
                // "bar “Pose”" reads "the bar “Pose”" in a sentence.
                let the_en = if name.is_some() { "the " } else { "" };
                let e = if row { "e" } else { "" };
                let it = if row { "la" } else { "le" };
                match inside {
                    Some(i) => (
                        format!("{i} est dans {target}, verrouillé{e} par {by} depuis le {since_fr}{why}\u{a0}: rien n'a été modifié. Demandez à {by} de {it} déverrouiller."),
                        format!("{i} is in {the_en}{target}, locked by {by} since {since_en}{why}: nothing was changed. Ask {by} to unlock it."),
                    ),
                    None => (
                        format!("{} est verrouillé{e} par {by} depuis le {since_fr}{why}\u{a0}: rien n'a été modifié. Demandez à {by} de {it} déverrouiller.", capitalise(&target)),
                        format!("{} has been locked by {by} since {since_en}{why}: nothing was changed. Ask {by} to unlock it.", capitalise(&format!("{the_en}{target}"))),
                    ),
                }
            }
            Problem::Cascade { item, inner } => {
                let what = label(item.0)?;
                let inner = lower_first(&inner.person_message(s, lang)?);
                (
                    format!("Le décalage en cascade devrait déplacer {what}, mais {inner}"),
                    format!("The cascade would have to move {what}, but {inner}"),
                )
            }
            Problem::CascadeConstraint {
                label,
                kind,
                date,
                by_days,
                ..
            } => {
                let c = Constraint {
                    kind: *kind,
                    date: *date,
                };
                (
                    format!(
                        "Le décalage en cascade ferait {} «\u{a0}{label}\u{a0}» {} trop tard pour sa contrainte ({})\u{a0}: rien n'a été modifié. Déplacez ou retirez cette contrainte d'abord.",
                        if kind.on_finish() { "finir" } else { "commencer" },
                        text::working_days(*by_days, Lang::Fr),
                        text::constraint_phrase(c, Lang::Fr),
                    ),
                    format!(
                        "The cascade would make “{label}” {} {} too late for its constraint ({}): nothing was changed. Move or remove that constraint first.",
                        if kind.on_finish() { "finish" } else { "start" },
                        text::working_days(*by_days, Lang::En),
                        text::constraint_phrase(c, Lang::En),
                    ),
                )
            }
            Problem::Cycle { items } => {
                // Cut as the model's message cuts it, by labels only.
                let chain = loop_chain(items, lang, |(_, l)| quoted(lang, l));
                (
                    format!("Ce lien fermerait une boucle de dépendances ({chain})\u{a0}: rien n'a été modifié."),
                    format!("This link would close a loop of dependencies ({chain}): nothing was changed."),
                )
            }
            Problem::SelfLink { .. } => (
                "Un élément ne peut pas dépendre de lui-même\u{a0}: rien n'a été modifié.".into(),
                "An item cannot depend on itself: nothing was changed.".into(),
            ),
            Problem::DuplicateLink { .. } => (
                "Ces deux éléments sont déjà liés ainsi\u{a0}: rien n'a été modifié.".into(),
                "These two items are already linked this way: nothing was changed.".into(),
            ),
            Problem::Empty => (
                "Un nom ne peut pas être vide\u{a0}: rien n'a été modifié.".into(),
                "A name cannot be empty: nothing was changed.".into(),
            ),
            Problem::TooLong { len, max } => (
                format!("Ce texte est trop long ({len}\u{a0}caractères, {max} au plus)\u{a0}: rien n'a été modifié."),
                format!("This text is too long ({len} characters, {max} at most): nothing was changed."),
            ),
            Problem::EndBeforeStart { start, end } => (
                format!("La fin ({end}) tomberait avant le début ({start})\u{a0}: rien n'a été modifié."),
                format!("The end ({end}) would fall before the start ({start}): nothing was changed."),
            ),
            Problem::DateOutOfRange { date } => (
                format!("Le {date} est hors des années que le planning prend en charge\u{a0}: rien n'a été modifié."),
                format!("{date} is outside the years the schedule supports: nothing was changed."),
            ),
            Problem::NotFound { .. } => (
                "Cet élément n'est plus dans le planning (quelqu'un l'a peut-être supprimé entre-temps)\u{a0}: rien n'a été modifié.".into(),
                "This item is no longer in the schedule (someone may have deleted it in the meantime): nothing was changed.".into(),
            ),
            Problem::FinishedBelow100 { .. } => (
                "Ce bloc a une fin réelle, il est donc terminé (100\u{202f}%)\u{a0}: retirez sa fin réelle pour un avancement plus bas. Rien n'a été modifié.".into(),
                "This bar has an actual finish, so it is complete (100%): clear its actual finish for a lower progress. Nothing was changed.".into(),
            ),
            _ => return None,
        };
        Some(if fr { fr_text } else { en_text })
    }
}

/// « « label » », "“label”".
fn quoted(lang: Lang, text: &str) -> String {
    match lang {
        Lang::Fr => format!("«\u{a0}{text}\u{a0}»"),
        Lang::En => format!("“{text}”"),
    }
}

/// What a lock holds when `s` no longer has it: « ce bloc », "this bar" (the model's
/// words would give its id).
fn this(target: LockTarget, lang: Lang) -> String {
    let (fr, en) = match target {
        LockTarget::Schedule => ("le planning", "the schedule"),
        LockTarget::Group(_) => ("ce groupe", "this group"),
        LockTarget::Row(_) => ("cette ligne", "this row"),
        LockTarget::Bar(_) => ("ce bloc", "this bar"),
    };
    match lang {
        Lang::Fr => fr.into(),
        Lang::En => en.into(),
    }
}

/// `s` with its first letter in lower case (it goes on a sentence).
fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_lowercase().chain(c).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::{Command, apply};
    use crate::schedule::{BarId, Lock};

    /// Words for the person carry no id: no "bloc 14", no command number, no tool.
    fn for_a_person(text: &str) {
        assert!(text::ids_named(text).is_empty(), "{text}");
        for word in ["Commande", "Command", "unlock:", "cascade:", "_", "(1)"] {
            assert!(!text.contains(word), "{word} in {text}");
        }
    }

    fn fixture() -> Schedule {
        crate::command::testkit::sample()
    }

    fn lock(target: LockTarget, reason: &str) -> Command {
        Command::Lock {
            target,
            reason: (!reason.is_empty()).then(|| reason.into()),
            by: 2,
            by_name: "Bob".into(),
            since_ms: 1_764_580_440_000,
        }
    }

    fn refused(s: &Schedule, cmds: &[Command]) -> ApplyError {
        apply(s, cmds).expect_err("refused")
    }

    /// The fixture's first bar under a lock on `target`, and the refusal of its move.
    fn move_under_lock(
        target: impl Fn(&crate::schedule::Bar) -> LockTarget,
        reason: &str,
    ) -> (Schedule, crate::schedule::Bar, ApplyError) {
        let s = fixture();
        let bar = s.bars[0].clone();
        let (locked, _) = apply(&s, &[lock(target(&bar), reason)]).unwrap();
        let e = refused(
            &locked,
            &[Command::MovePeriods {
                bars: vec![bar.id],
                milestones: vec![],
                by: 1,
            }],
        );
        (locked, bar, e)
    }

    #[test]
    fn a_lock_names_what_it_holds_who_holds_it_and_since_when() {
        let (locked, bar, e) = move_under_lock(|b| LockTarget::Bar(b.id), "Revue");
        let fr = e.person_message(&locked, Lang::Fr).unwrap();
        assert_eq!(
            fr,
            format!(
                "Le bloc «\u{a0}{}\u{a0}» est verrouillé par Bob depuis le 2025-12-01 à 09:14 UTC («\u{a0}Revue\u{a0}»)\u{a0}: rien n'a été modifié. Demandez à Bob de le déverrouiller.",
                bar.label
            )
        );
        for_a_person(&fr);
        let en = e.person_message(&locked, Lang::En).unwrap();
        assert_eq!(
            en,
            format!(
                "The bar “{}” has been locked by Bob since 2025-12-01 at 09:14 UTC (“Revue”): nothing was changed. Ask Bob to unlock it.",
                bar.label
            )
        );
        for_a_person(&en);
    }

    #[test]
    fn a_lock_on_a_row_names_the_item_inside_it() {
        let (locked, bar, e) = move_under_lock(|b| LockTarget::Row(b.row), "");
        let row_name = locked.row(bar.row).unwrap().name.clone();
        let fr = e.person_message(&locked, Lang::Fr).unwrap();
        assert_eq!(
            fr,
            format!(
                "«\u{a0}{}\u{a0}» est dans la ligne «\u{a0}{row_name}\u{a0}», verrouillée par Bob depuis le 2025-12-01 à 09:14 UTC\u{a0}: rien n'a été modifié. Demandez à Bob de la déverrouiller.",
                bar.label
            )
        );
        for_a_person(&fr);
        for_a_person(&e.person_message(&locked, Lang::En).unwrap());
    }

    #[test]
    fn a_loop_of_links_is_named_by_its_labels() {
        let s = fixture();
        let link = s.links[0].clone();
        let e = refused(
            &s,
            &[Command::AddLink {
                id: None,
                from: link.to,
                to: link.from,
                kind: Some(link.kind),
                lag: None,
            }],
        );
        let fr = e.person_message(&s, Lang::Fr).unwrap();
        assert!(
            fr.starts_with("Ce lien fermerait une boucle de dépendances («\u{a0}"),
            "{fr}"
        );
        let from = s.item_label(link.from).unwrap();
        assert!(fr.contains(&format!("«\u{a0}{from}\u{a0}»")), "{fr}");
        for_a_person(&fr);
        for_a_person(&e.person_message(&s, Lang::En).unwrap());
    }

    #[test]
    fn a_problem_no_gesture_causes_has_no_person_words() {
        let s = fixture();
        let e = refused(
            &s,
            &[Command::MovePeriods {
                bars: vec![BarId(s.bars[0].id.0), BarId(s.bars[0].id.0)],
                milestones: vec![],
                by: 1,
            }],
        );
        assert!(matches!(e.problem, Problem::Repeated { .. }), "{e:?}");
        assert_eq!(e.person_message(&s, Lang::Fr), None);
    }

    #[test]
    fn a_lock_on_the_whole_schedule_reads_as_one() {
        let l = Lock {
            target: LockTarget::Schedule,
            reason: String::new(),
            by: 2,
            by_name: "Bob".into(),
            since_ms: 0,
        };
        let p = Problem::Locked {
            item: 0,
            lock: Box::new(l),
        };
        assert_eq!(
            p.person_message(&fixture(), Lang::Fr).unwrap(),
            "Le planning est verrouillé par Bob depuis le 1970-01-01 à 00:00 UTC\u{a0}: rien n'a été modifié. Demandez à Bob de le déverrouiller."
        );
    }

    #[test]
    fn a_lock_on_what_is_gone_says_this_bar_not_its_id() {
        let l = Lock {
            target: LockTarget::Bar(BarId(999)),
            reason: String::new(),
            by: 2,
            by_name: "Bob".into(),
            since_ms: 0,
        };
        let p = Problem::Locked {
            item: 999,
            lock: Box::new(l),
        };
        let s = fixture();
        assert_eq!(
            p.person_message(&s, Lang::Fr).unwrap(),
            "Ce bloc est verrouillé par Bob depuis le 1970-01-01 à 00:00 UTC\u{a0}: rien n'a été modifié. Demandez à Bob de le déverrouiller."
        );
        assert_eq!(
            p.person_message(&s, Lang::En).unwrap(),
            "This bar has been locked by Bob since 1970-01-01 at 00:00 UTC: nothing was changed. Ask Bob to unlock it."
        );
        // Behind a cascade: what it would have to move, then the lock, on one sentence.
        let bar = &s.bars[0];
        let c = Problem::Cascade {
            item: ItemId(bar.id.0),
            inner: Box::new(p),
        };
        let fr = c.person_message(&s, Lang::Fr).unwrap();
        assert_eq!(
            fr,
            format!(
                "Le décalage en cascade devrait déplacer «\u{a0}{}\u{a0}», mais ce bloc est verrouillé par Bob depuis le 1970-01-01 à 00:00 UTC\u{a0}: rien n'a été modifié. Demandez à Bob de le déverrouiller.",
                bar.label
            )
        );
        for_a_person(&fr);
    }

    #[test]
    fn a_cascade_past_a_constraint_names_the_item_the_constraint_and_how_late() {
        let p = Problem::CascadeConstraint {
            item: ItemId(7),
            label: "Recette".into(),
            kind: crate::schedule::ConstraintKind::FinishNoLaterThan,
            date: "2026-12-04".parse().unwrap(),
            by_days: 2,
        };
        let s = fixture();
        let fr = p.person_message(&s, Lang::Fr).unwrap();
        assert!(
            fr.starts_with("Le décalage en cascade ferait finir «\u{a0}Recette\u{a0}» ")
                && fr.contains(
                    "jours ouvrés trop tard pour sa contrainte (fin au plus tard le 2026-12-04)"
                )
                && fr.ends_with(
                    "rien n'a été modifié. Déplacez ou retirez cette contrainte d'abord."
                ),
            "{fr}"
        );
        for_a_person(&fr);
        for_a_person(&p.person_message(&s, Lang::En).unwrap());
    }

    #[test]
    fn a_long_loop_is_cut_as_the_model_s_message_cuts_it() {
        let items: Vec<(ItemId, String)> = (1..=20)
            .map(|i| (ItemId(i), format!("Étape {i}")))
            .collect();
        let p = Problem::Cycle { items };
        let fr = p.person_message(&fixture(), Lang::Fr).unwrap();
        assert!(
            fr.contains("«\u{a0}Étape 12\u{a0}» → … (8 de plus) → «\u{a0}Étape 1\u{a0}»)"),
            "{fr}"
        );
        assert!(!fr.contains("Étape 13"), "{fr}");
    }
}
