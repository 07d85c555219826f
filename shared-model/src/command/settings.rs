//! The schedule's own fields: its name, its notes and its settings (time zone, working
//! weekdays, holidays, time unit). Weekdays and holidays are stored sorted and without
//! duplicates, so two lists that mean the same calendar are stored the same way.
//!
//! And `replace_schedule`, which swaps the whole state (restoring a saved version).
//! Why one command rather than the list of edits between the two states: a restore
//! must bring back exactly the saved state, positions, cascades and all, and a computed
//! edit list would have to order deletes, re-adds with old ids, row moves and link
//! changes so that every step stays valid — a second, subtle apply. Swapping the state
//! is exact by construction, its inverse (the old state) is exact too, and it goes
//! through the journal, undo and `validate_schedule` like any command. The cost is a
//! journal entry holding two whole states, paid only by the rare restore.

use crate::date::{Date, Weekday};
use crate::schedule::*;

use super::ctx::{At, Ctx, Fault, Res, fault};
use super::error::Problem;
use super::{Command, check, validate_schedule};

pub(super) fn rename_schedule(cx: &mut Ctx<'_>, name: &str) -> Res<Command> {
    check::name(name).at("name")?;
    let old = std::mem::replace(&mut cx.s.name, name.to_owned());
    cx.undo_with(Command::RenameSchedule { name: old });
    Ok(Command::RenameSchedule {
        name: name.to_owned(),
    })
}

pub(super) fn set_schedule_notes(cx: &mut Ctx<'_>, notes: &str) -> Res<Command> {
    check::text(notes).at("notes")?;
    let old = std::mem::replace(&mut cx.s.notes, notes.to_owned());
    cx.undo_with(Command::SetScheduleNotes { notes: old });
    Ok(Command::SetScheduleNotes {
        notes: notes.to_owned(),
    })
}

pub(super) fn set_settings(
    cx: &mut Ctx<'_>,
    time_zone: Option<&str>,
    working_weekdays: Option<&[Weekday]>,
    holidays: Option<&[Date]>,
    time_unit: Option<TimeUnit>,
    scheduling: Option<Scheduling>,
) -> Res<Command> {
    if let Some(tz) = time_zone {
        check::time_zone(tz).at("time_zone")?;
    }
    let working_weekdays = working_weekdays.map(|w| {
        let mut w = w.to_vec();
        w.sort_unstable();
        w.dedup();
        w
    });
    if working_weekdays.as_ref().is_some_and(Vec::is_empty) {
        return fault("working_weekdays", Problem::NoWorkingWeekday);
    }
    let holidays = holidays.map(|h| {
        let mut h = h.to_vec();
        h.sort_unstable();
        h.dedup();
        h
    });
    for d in holidays.iter().flatten() {
        check::date(*d).at("holidays")?;
    }
    let st = &mut cx.s.settings;
    let undo = Command::SetSettings {
        time_zone: time_zone.map(|tz| std::mem::replace(&mut st.time_zone, tz.to_owned())),
        working_weekdays: working_weekdays
            .clone()
            .map(|w| std::mem::replace(&mut st.working_weekdays, w)),
        holidays: holidays
            .clone()
            .map(|h| std::mem::replace(&mut st.holidays, h)),
        time_unit: time_unit.map(|u| std::mem::replace(&mut st.time_unit, u)),
        scheduling: scheduling.map(|m| std::mem::replace(&mut st.scheduling, m)),
    };
    cx.undo_with(undo);
    Ok(Command::SetSettings {
        time_zone: time_zone.map(str::to_owned),
        working_weekdays,
        holidays,
        time_unit,
        scheduling,
    })
}

pub(super) fn replace_schedule(cx: &mut Ctx<'_>, new: &Schedule) -> Res<Command> {
    // Locks are not part of what a replace brings: they stay as they are (a restore
    // neither revives a lock removed since nor sets one in someone's name). What a lock
    // holds refuses a replace anyway (see `locks`).
    let mut kept = new.clone();
    kept.locks = cx.s.locks.clone();
    if let Some(lock) = super::locks::dangling(&kept) {
        return fault(
            "schedule",
            Problem::Locked {
                item: lock.target.id(),
                lock: Box::new(lock.clone()),
            },
        );
    }
    let new = &kept;
    validate_schedule(new).map_err(|e| Fault {
        field: "schedule",
        problem: Problem::InvalidSchedule {
            path: e.path,
            inner: Box::new(e.problem),
        },
    })?;
    let mut next = new.clone();
    // Ids handed out since the saved state stay burnt (see `schedule`).
    next.next_id = next.next_id.max(cx.s.next_id);
    let old = std::mem::replace(&mut *cx.s, next);
    cx.rows_deleted();
    cx.undo_with(Command::ReplaceSchedule {
        schedule: Box::new(old),
    });
    Ok(Command::ReplaceSchedule {
        schedule: Box::new(new.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::testkit::{d, fails, round_trip, sample};

    fn settings(
        time_zone: Option<&str>,
        weekdays: Option<Vec<Weekday>>,
        holidays: Option<Vec<Date>>,
    ) -> Command {
        Command::SetSettings {
            time_zone: time_zone.map(str::to_owned),
            working_weekdays: weekdays,
            holidays,
            time_unit: None,
            scheduling: None,
        }
    }

    #[test]
    fn settings_are_stored_normalised() {
        let s = sample();
        let after = round_trip(
            &s,
            &[
                settings(
                    Some("America/Argentina/Buenos_Aires"),
                    Some(vec![Weekday::Sat, Weekday::Mon, Weekday::Sat]),
                    Some(vec![d("2026-12-25"), d("2026-11-11"), d("2026-12-25")]),
                ),
                Command::RenameSchedule {
                    name: "Maison Dupont".into(),
                },
                Command::SetScheduleNotes {
                    notes: "Chantier à Lyon".into(),
                },
            ],
        );
        assert_eq!(
            after.settings.working_weekdays,
            [Weekday::Mon, Weekday::Sat]
        );
        assert_eq!(after.settings.holidays, [d("2026-11-11"), d("2026-12-25")]);
        assert_eq!(after.name, "Maison Dupont");
    }

    #[test]
    fn bad_settings_are_refused() {
        let s = sample();
        let e = fails(&s, &[settings(None, Some(vec![]), None)]);
        assert_eq!(
            (e.field.as_str(), e.problem),
            ("working_weekdays", Problem::NoWorkingWeekday)
        );
        let e = fails(&s, &[settings(Some("Paris"), None, None)]);
        assert_eq!(e.field, "time_zone");
        let e = fails(&s, &[Command::RenameSchedule { name: "".into() }]);
        assert_eq!(e.problem, Problem::Empty);
    }

    #[test]
    fn replace_schedule_swaps_the_state_and_keeps_ids_burnt() {
        let s = sample();
        let mut saved = Schedule::new("Ancienne");
        saved.groups = vec![Group {
            id: GroupId(3),
            name: "Seul groupe".into(),
        }];
        saved.next_id = 4;
        let after = round_trip(
            &s,
            &[Command::ReplaceSchedule {
                schedule: Box::new(saved.clone()),
            }],
        );
        assert_eq!(after.groups, saved.groups);
        assert!(after.bars.is_empty());
        assert_eq!(after.next_id, 60, "ids handed out before stay unused");
        // A replace in the middle of a list: the later commands see the new state.
        let after = round_trip(
            &s,
            &[
                Command::ReplaceSchedule {
                    schedule: Box::new(saved.clone()),
                },
                Command::RenameGroup {
                    group: GroupId(3),
                    name: "Renommé".into(),
                },
            ],
        );
        assert_eq!(after.groups[0].name, "Renommé");
    }

    #[test]
    fn replace_schedule_refuses_an_invalid_state() {
        let s = sample();
        let mut bad = sample();
        bad.bars[1].row = RowId(99);
        let e = fails(
            &s,
            &[
                Command::RenameSchedule {
                    name: "Avant".into(),
                },
                Command::ReplaceSchedule {
                    schedule: Box::new(bad),
                },
            ],
        );
        assert_eq!((e.command, e.field.as_str()), (1, "schedule"));
        let msg = e.message(crate::Lang::En);
        assert!(
            msg.contains("the schedule given is invalid, bars[1].row: row 99 does not exist"),
            "{msg}"
        );
    }
}
