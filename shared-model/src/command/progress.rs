//! `set_progress`: a bar's percent complete and its actual start and finish, for many
//! bars in one command (a weekly status update is one write, one journal entry, one
//! undo).
//!
//! Owns the rules of a bar's progress (also checked by `validate_schedule`): a percent
//! from 0 to 100; an actual finish means the bar is complete, so it sets 100 when no
//! percent is given and refuses an explicit lower one; an actual finish is not before
//! the actual start. The inverse names every field's old value explicitly, so undo
//! restores exactly what was there whatever the command left unchanged.

use crate::date::Date;
use crate::schedule::*;

use super::ctx::{At, Ctx, Res, fault};
use super::error::Problem;
use super::{Command, ProgressEntry, check};

/// The checks of one bar's progress as it would be: shared with `validate_schedule`.
pub(super) fn check_progress(
    bar: BarId,
    percent: u8,
    actual_start: Option<Date>,
    actual_finish: Option<Date>,
) -> Res<()> {
    check::within(i64::from(percent), 0, 100).at("percent")?;
    if let Some(d) = actual_start {
        check::date(d).at("actual_start")?;
    }
    if let Some(f) = actual_finish {
        check::date(f).at("actual_finish")?;
        if percent < 100 {
            return fault("percent", Problem::FinishedBelow100 { bar, percent });
        }
        if let Some(s) = actual_start {
            check::span(s, f).at("actual_finish")?;
        }
    }
    Ok(())
}

pub(super) fn set_progress(cx: &mut Ctx<'_>, bars: &[ProgressEntry]) -> Res<Command> {
    if bars.is_empty() {
        return fault("bars", Problem::EmptyList);
    }
    let mut ids: Vec<u64> = bars.iter().map(|e| e.bar.0).collect();
    ids.sort_unstable();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return fault("bars", Problem::Repeated { id: w[0] });
    }
    // Everything is checked before anything changes.
    let mut planned = Vec::with_capacity(bars.len());
    for e in bars {
        let i = cx.bar_pos("bars", e.bar)?;
        let b = &cx.s.bars[i];
        let actual_start = e.actual_start.unwrap_or(b.actual_start);
        let actual_finish = e.actual_finish.unwrap_or(b.actual_finish);
        // A newly given actual finish completes the bar unless a percent says otherwise
        // (which the check then refuses).
        let finishing = matches!(e.actual_finish, Some(Some(_)));
        let percent = match e.percent {
            Some(p) => p,
            None if finishing => 100,
            None => b.progress,
        };
        check_progress(e.bar, percent, actual_start, actual_finish)?;
        planned.push((i, percent, actual_start, actual_finish));
    }
    let mut applied = Vec::with_capacity(bars.len());
    let mut inverse = Vec::with_capacity(bars.len());
    for (e, (i, percent, actual_start, actual_finish)) in bars.iter().zip(planned) {
        let b = &mut cx.s.bars[i];
        let old = b.progress;
        inverse.push(ProgressEntry {
            bar: e.bar,
            percent: Some(old),
            actual_start: Some(b.actual_start),
            actual_finish: Some(b.actual_finish),
        });
        b.progress = percent;
        b.actual_start = actual_start;
        b.actual_finish = actual_finish;
        // As applied, a percent the command changed is explicit (an actual finish's
        // 100), so the journal reads without knowing this rule.
        applied.push(ProgressEntry {
            percent: (e.percent.is_some() || percent != old).then_some(percent),
            ..e.clone()
        });
    }
    cx.undo_with(Command::SetProgress { bars: inverse });
    Ok(Command::SetProgress { bars: applied })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lang;
    use crate::command::testkit::{d, round_trip, sample};
    use crate::command::{apply, validate_schedule};

    fn entry(bar: u64, percent: Option<u8>) -> ProgressEntry {
        ProgressEntry {
            bar: BarId(bar),
            percent,
            actual_start: None,
            actual_finish: None,
        }
    }

    fn state(s: &Schedule, bar: u64) -> (u8, Option<Date>, Option<Date>) {
        let b = s.bar(BarId(bar)).unwrap();
        (b.progress, b.actual_start, b.actual_finish)
    }

    #[test]
    fn progress_of_many_bars_is_one_command_with_an_exact_inverse() {
        let s = sample();
        let (a, b) = (s.bars[0].id.0, s.bars[1].id.0);
        let cmd = Command::SetProgress {
            bars: vec![
                ProgressEntry {
                    actual_start: Some(Some(d("2026-11-02"))),
                    ..entry(a, Some(40))
                },
                ProgressEntry {
                    actual_start: Some(Some(d("2026-11-02"))),
                    actual_finish: Some(Some(d("2026-11-06"))),
                    ..entry(b, None)
                },
            ],
        };
        let after = round_trip(&s, std::slice::from_ref(&cmd));
        let (_, done) = apply(&s, &[cmd]).unwrap();
        assert_eq!(state(&after, a), (40, Some(d("2026-11-02")), None));
        // An actual finish completes the bar, and the journal says so.
        assert_eq!(
            state(&after, b),
            (100, Some(d("2026-11-02")), Some(d("2026-11-06")))
        );
        let Command::SetProgress { bars } = &done.applied[0] else {
            panic!("{:?}", done.applied)
        };
        assert_eq!(bars[1].percent, Some(100));
        assert_eq!(validate_schedule(&after), Ok(()));

        // null clears an actual date; leaving a field out keeps it.
        let clear = Command::SetProgress {
            bars: vec![ProgressEntry {
                actual_finish: Some(None),
                ..entry(b, Some(90))
            }],
        };
        let later = round_trip(&after, &[clear]);
        assert_eq!(state(&later, b), (90, Some(d("2026-11-02")), None));
    }

    #[test]
    fn progress_rules_are_refused_with_what_to_do() {
        let s = sample();
        let a = s.bars[0].id.0;
        let fails = |cmd: ProgressEntry| {
            apply(&s, &[Command::SetProgress { bars: vec![cmd] }]).unwrap_err()
        };
        let e = fails(entry(a, Some(101)));
        assert_eq!(e.field, "percent");
        let e = fails(ProgressEntry {
            actual_finish: Some(Some(d("2026-11-06"))),
            ..entry(a, Some(60))
        });
        expect_test::expect!["Commande 1 (set_progress), champ percent⟨nbsp⟩: une fin réelle veut dire que le bloc 10 est terminé (100⟨nnbsp⟩%)⟨nbsp⟩: 60⟨nnbsp⟩% ne convient pas. Omettez percent (il passe à 100), ou effacez actual_finish (null) pour un avancement plus bas."]
            .assert_eq(&crate::testkit::visible(&e.message(Lang::Fr)));
        expect_test::expect!["Command 1 (set_progress), field percent: an actual finish means bar 10 is complete (100%): 60% does not fit. Leave percent out (it becomes 100), or clear actual_finish (null) for a lower progress."]
            .assert_eq(&e.message(Lang::En));
        let e = fails(ProgressEntry {
            actual_start: Some(Some(d("2026-11-05"))),
            actual_finish: Some(Some(d("2026-11-04"))),
            ..entry(a, None)
        });
        assert_eq!(e.field, "actual_finish");
        let e = fails(entry(999, Some(10)));
        assert_eq!(e.field, "bars");
        let e = apply(
            &s,
            &[Command::SetProgress {
                bars: vec![entry(a, Some(1)), entry(a, Some(2))],
            }],
        )
        .unwrap_err();
        assert_eq!(e.problem, Problem::Repeated { id: a });
        let e = apply(&s, &[Command::SetProgress { bars: vec![] }]).unwrap_err();
        assert_eq!(e.problem, Problem::EmptyList);

        // A complete bar keeps its finish: a lower percent needs the finish cleared.
        let (done, _) = apply(
            &s,
            &[Command::SetProgress {
                bars: vec![ProgressEntry {
                    actual_finish: Some(Some(d("2026-11-06"))),
                    ..entry(a, None)
                }],
            }],
        )
        .unwrap();
        let e = apply(
            &done,
            &[Command::SetProgress {
                bars: vec![entry(a, Some(50))],
            }],
        )
        .unwrap_err();
        assert!(
            matches!(e.problem, Problem::FinishedBelow100 { .. }),
            "{e:?}"
        );
    }

    #[test]
    fn deleting_a_bar_with_progress_undoes_it_too() {
        let mut s = sample();
        s.bars[1].progress = 30;
        s.bars[1].actual_start = Some(s.bars[1].start);
        let id = s.bars[1].id;
        round_trip(&s, &[Command::DeletePeriods { bars: vec![id] }]);
    }

    #[test]
    fn the_wire_form_is_tagged_and_null_clears() {
        let cmd: Command = serde_json::from_str(
            r#"{"op":"set_progress","bars":[{"bar":14,"percent":40},{"bar":15,"actual_start":"2026-11-02","actual_finish":null}]}"#,
        )
        .unwrap();
        let Command::SetProgress { bars } = &cmd else {
            panic!()
        };
        assert_eq!(bars[0].actual_start, None);
        assert_eq!(bars[1].actual_start, Some(Some(d("2026-11-02"))));
        assert_eq!(bars[1].actual_finish, Some(None));
        assert_eq!(
            serde_json::to_string(&cmd).unwrap(),
            r#"{"op":"set_progress","bars":[{"bar":14,"percent":40},{"bar":15,"actual_start":"2026-11-02","actual_finish":null}]}"#
        );
        let e =
            serde_json::from_str::<Command>(r#"{"op":"set_progress","bars":[{"bar":14,"pct":4}]}"#)
                .unwrap_err();
        assert!(e.to_string().contains("unknown field `pct`"), "{e}");
    }
}
