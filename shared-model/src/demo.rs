//! The demo schedule every new server starts with: "S/4HANA Migration".
//!
//! It is small enough to read in one screen and rich enough to show every feature on
//! first contact: two groups, six rows with members, bars joined by finish-to-start
//! links and one start-to-start link with a lag, a go-live milestone, French national
//! holidays, actions in the three statuses, and one absence that puts exactly one bar
//! at risk, so that the risk panel has something to say from the start. The texts'
//! snapshot tests and the view's fixtures build on it, so its content is fixed: change
//! it and those snapshots change too. Creating it in storage is the server's business.

use crate::date::Date;
use crate::schedule::*;

/// The demo schedule, with ids from 1 and every collection sorted by id.
pub fn s4hana_migration() -> Schedule {
    let mut s = Schedule::new("S/4HANA Migration");
    s.settings.holidays = vec![day("2026-11-11"), day("2026-12-25")];
    s.notes = "Démonstration\u{a0}: migration d'un ERP SAP ECC vers S/4HANA avant la fin \
               d'année. Modifiez-le librement."
        .to_owned();

    let people = [
        ("Camille Martin", "camille.martin@example.org"),
        ("Karim Benali", "karim.benali@example.org"),
        ("Sophie Lefèvre", "sophie.lefevre@example.org"),
        ("Thomas Dubois", "thomas.dubois@example.org"),
    ];
    for (i, (name, email)) in people.iter().enumerate() {
        s.members.push(Member {
            id: MemberId(i as u64 + 1),
            name: (*name).to_owned(),
            email: Some((*email).to_owned()),
        });
    }
    let [camille, karim, sophie, thomas] = [1, 2, 3, 4].map(MemberId);

    // Each group is followed by its rows, so ids read in display order.
    let layout = [
        (
            5,
            "Préparation",
            [
                (6, "Audit du système", karim),
                (7, "Nettoyage des données", sophie),
                (8, "Adaptation du code spécifique", thomas),
            ],
        ),
        (
            9,
            "Bascule",
            [
                (10, "Migration à blanc", sophie),
                (11, "Recette utilisateurs", camille),
                (12, "Mise en production", karim),
            ],
        ),
    ];
    for (gid, gname, rows) in layout {
        s.groups.push(Group {
            id: GroupId(gid),
            name: gname.to_owned(),
        });
        for (rid, rname, member) in rows {
            s.rows.push(Row {
                id: RowId(rid),
                group: GroupId(gid),
                name: rname.to_owned(),
                member: Some(member),
            });
        }
    }

    const PREPARATION: &str = "#2f6fdf";
    const CUTOVER: &str = "#d9822b";
    let bars = [
        (
            13,
            6,
            "Audit du système",
            "2026-11-02",
            "2026-11-13",
            PREPARATION,
        ),
        (
            14,
            7,
            "Nettoyage des données",
            "2026-11-09",
            "2026-11-20",
            PREPARATION,
        ),
        (
            15,
            8,
            "Adaptation du code ABAP",
            "2026-11-16",
            "2026-12-04",
            PREPARATION,
        ),
        (
            16,
            10,
            "Migration à blanc",
            "2026-11-23",
            "2026-12-04",
            CUTOVER,
        ),
        (
            17,
            11,
            "Recette utilisateurs",
            "2026-12-07",
            "2026-12-11",
            CUTOVER,
        ),
        (
            18,
            12,
            "Bascule en production",
            "2026-12-14",
            "2026-12-17",
            CUTOVER,
        ),
    ];
    for (id, row, label, start, end, color) in bars {
        s.bars.push(Bar {
            id: BarId(id),
            row: RowId(row),
            label: label.to_owned(),
            start: day(start),
            end: day(end),
            color: Some(color.to_owned()),
            notes: String::new(),
            pin: None,
            constraint: None,
            deadline: None,
            progress: 0,
            actual_start: None,
            actual_finish: None,
        });
    }
    s.bars[0].notes = "Rapport de simplification SAP et inventaire des programmes \
                       spécifiques."
        .to_owned();
    s.milestones.push(Milestone {
        id: MilestoneId(19),
        row: RowId(12),
        label: "Go-live S/4HANA".to_owned(),
        date: day("2026-12-18"),
        color: None,
        notes: String::new(),
        constraint: None,
        deadline: None,
    });

    // The clean-up may start one week into the audit (SS with a lag of five working
    // days); the go-live comes the working day after the cutover (FS with a lag of
    // one); everything else waits for its predecessor to finish. Every link is met,
    // with no slack along the chain: it is the critical path.
    let links = [
        (20, 13, 14, LinkKind::SS, 5),
        (21, 13, 15, LinkKind::FS, 0),
        (22, 14, 16, LinkKind::FS, 0),
        (23, 15, 17, LinkKind::FS, 0),
        (24, 16, 17, LinkKind::FS, 0),
        (25, 17, 18, LinkKind::FS, 0),
        (26, 18, 19, LinkKind::FS, 1),
    ];
    for (id, from, to, kind, lag) in links {
        s.links.push(Link {
            id: LinkId(id),
            from: ItemId(from),
            to: ItemId(to),
            kind,
            lag,
        });
    }

    let actions = [
        (
            27,
            13,
            "Inventorier les programmes spécifiques",
            ActionStatus::Done,
            karim,
        ),
        (
            28,
            14,
            "Archiver les commandes soldées",
            ActionStatus::InProgress,
            sophie,
        ),
        (
            29,
            15,
            "Corriger les accès aux tables obsolètes",
            ActionStatus::Todo,
            thomas,
        ),
        (
            30,
            17,
            "Rédiger les cas de test",
            ActionStatus::Todo,
            camille,
        ),
    ];
    for (id, bar, label, status, assignee) in actions {
        s.actions.push(Action {
            id: ActionId(id),
            bar: BarId(bar),
            label: label.to_owned(),
            status,
            assignee: Some(assignee),
        });
    }

    // Thomas is away on a Thursday and a Friday in the middle of the ABAP work: the
    // one bar at risk of absence. Nobody else is away.
    s.absences.push(Absence {
        id: AbsenceId(31),
        member: thomas,
        start: day("2026-11-26"),
        end: day("2026-11-27"),
        reason: "Rendez-vous médical".to_owned(),
    });
    s.next_id = 32;
    s
}

/// A date written in this file; every one of them is valid.
fn day(text: &str) -> Date {
    text.parse().expect("the demo's dates are valid")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::risk;

    #[test]
    fn counts_and_dates() {
        let s = s4hana_migration();
        assert_eq!(s.name, "S/4HANA Migration");
        assert_eq!(
            (
                s.groups.len(),
                s.rows.len(),
                s.bars.len(),
                s.milestones.len()
            ),
            (2, 6, 6, 1)
        );
        assert!((3..=4).contains(&s.members.len()));
        assert!(s.members.iter().all(|m| {
            m.email
                .as_deref()
                .is_some_and(|e| e.ends_with("@example.org"))
        }));
        assert_eq!(s.absences.len(), 1);
        assert!(!s.absences[0].reason.is_empty());
        assert_eq!(s.span(), Some((day("2026-11-02"), day("2026-12-18"))));
        assert_eq!(
            s.settings.holidays,
            vec![day("2026-11-11"), day("2026-12-25")]
        );
        let kinds: Vec<LinkKind> = s.links.iter().map(|l| l.kind).collect();
        assert!(kinds.iter().filter(|k| **k == LinkKind::FS).count() > kinds.len() / 2);
        assert!(s.links.iter().any(|l| l.kind == LinkKind::SS && l.lag > 0));
        for status in ActionStatus::ALL {
            assert!(
                s.actions.iter().any(|a| a.status == status),
                "no action is {}",
                status.as_str()
            );
        }
    }

    #[test]
    fn ids_are_unique_sorted_and_below_next_id() {
        let s = s4hana_migration();
        let mut ids: Vec<u64> = Vec::new();
        ids.extend(s.groups.iter().map(|g| g.id.0));
        ids.extend(s.rows.iter().map(|r| r.id.0));
        ids.extend(s.bars.iter().map(|b| b.id.0));
        ids.extend(s.milestones.iter().map(|m| m.id.0));
        ids.extend(s.links.iter().map(|l| l.id.0));
        ids.extend(s.actions.iter().map(|a| a.id.0));
        ids.extend(s.members.iter().map(|m| m.id.0));
        ids.extend(s.absences.iter().map(|a| a.id.0));
        ids.sort_unstable();
        let expected: Vec<u64> = (1..s.next_id).collect();
        assert_eq!(ids, expected, "ids run from 1 to next_id - 1 without gaps");

        assert!(s.bars.windows(2).all(|w| w[0].id < w[1].id));
        assert!(s.milestones.windows(2).all(|w| w[0].id < w[1].id));
        assert!(s.links.windows(2).all(|w| w[0].id < w[1].id));
        assert!(s.actions.windows(2).all(|w| w[0].id < w[1].id));
        assert!(s.members.windows(2).all(|w| w[0].id < w[1].id));
        assert!(s.absences.windows(2).all(|w| w[0].id < w[1].id));

        // Rows of a group are contiguous, groups in display order.
        let order: Vec<GroupId> = s.rows.iter().map(|r| r.group).collect();
        let mut runs = order.clone();
        runs.dedup();
        let groups: Vec<GroupId> = s.groups.iter().map(|g| g.id).collect();
        assert_eq!(runs, groups, "rows contiguous per group: {order:?}");

        // Every reference resolves.
        assert!(s.bars.iter().all(|b| s.row(b.row).is_some()));
        assert!(s.milestones.iter().all(|m| s.row(m.row).is_some()));
        assert!(
            s.links
                .iter()
                .all(|l| s.item_dates(l.from).is_some() && s.item_dates(l.to).is_some())
        );
        assert!(s.actions.iter().all(|a| s.bar(a.bar).is_some()));
        assert!(
            s.rows
                .iter()
                .all(|r| r.member.is_some_and(|m| s.member(m).is_some()))
        );
        assert!(s.bars.iter().all(|b| b.start <= b.end));
    }

    #[test]
    fn exactly_one_bar_at_risk_and_no_violated_link() {
        let s = s4hana_migration();
        let r = risk::risks(&s);
        assert!(r.violated_links.is_empty(), "{:?}", r.violated_links);
        assert_eq!(r.absence_risks.len(), 1, "{:?}", r.absence_risks);
        let at_risk = &r.absence_risks[0];
        assert_eq!(at_risk.bar, BarId(15));
        assert_eq!(at_risk.days, vec![day("2026-11-26"), day("2026-11-27")]);
    }
}
