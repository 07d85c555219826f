//! Deterministic generated schedules, for tests and benchmarks at 1,000 to 100,000 bars.
//!
//! A fixed-seed generator (not randomness: the same spec always gives the same
//! schedule) lays out groups of rows, each row a chain of bars on working days, with
//! about `links_per_bar` links per bar pointing from earlier bars to later ones (so the
//! graph is acyclic), a milestone per group, members on most rows, a few absences and
//! actions. Shapes mirror real plans: long chains within a row, cross-row links within
//! a group, a few links between groups.

use crate::calendar::Calendar;
use crate::date::Date;
use crate::schedule::*;

/// What to generate.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub bars: usize,
    /// Average number of links per bar (links = bars * links_per_bar, rounded down).
    pub links_per_bar: f64,
    pub seed: u64,
    /// The first working day of the schedule.
    pub start: Date,
}

impl Spec {
    /// `bars` bars, two links per bar, seed 1, starting 2026-01-05.
    pub fn new(bars: usize) -> Spec {
        Spec {
            bars,
            links_per_bar: 2.0,
            seed: 1,
            start: Date::from_ymd(2026, 1, 5).expect("a valid date"),
        }
    }
}

/// A small xorshift generator: deterministic, good enough to scatter test data.
#[derive(Debug)]
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
}

const ROWS_PER_GROUP: usize = 20;
const BARS_PER_ROW: usize = 10;

/// Generates a schedule to `spec`.
pub fn generate(spec: Spec) -> Schedule {
    let mut rng = Xorshift(spec.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut s = Schedule::new(format!("Synthetic {} bars", spec.bars));
    let cal = Calendar::for_schedule(&s);
    let mut next = 1u64;
    let mut id = || {
        let v = next;
        next += 1;
        v
    };

    let row_count = spec.bars.div_ceil(BARS_PER_ROW).max(1);
    let group_count = row_count.div_ceil(ROWS_PER_GROUP);
    let member_count = (row_count / 4).clamp(1, 2_000);
    for m in 0..member_count {
        let mid = MemberId(id());
        s.members.push(Member {
            id: mid,
            name: format!("Member {}", m + 1),
            email: Some(format!("member{}@example.org", m + 1)),
        });
    }
    for a in 0..(member_count / 3).max(1) {
        let member = s.members[(rng.below(member_count as u64)) as usize].id;
        let start = cal.add(spec.start, rng.below(200) as i64);
        s.absences.push(Absence {
            id: AbsenceId(id()),
            member,
            start,
            end: start.add_days(rng.below(10) as i32),
            reason: format!("Reason {}", a + 1),
        });
    }

    // Bars, row by row; each row is a chain drifting later in time.
    let mut bar_ids: Vec<BarId> = Vec::with_capacity(spec.bars);
    let mut made = 0;
    for g in 0..group_count {
        let gid = GroupId(id());
        s.groups.push(Group {
            id: gid,
            name: format!("Group {}", g + 1),
        });
        let group_offset = (g as i64 * 7) % 260;
        for r in 0..ROWS_PER_GROUP {
            if made >= spec.bars {
                break;
            }
            let rid = RowId(id());
            let member = (rng.below(5) != 0)
                .then(|| s.members[(rng.below(member_count as u64)) as usize].id);
            s.rows.push(Row {
                id: rid,
                group: gid,
                name: format!("Row {}.{}", g + 1, r + 1),
                member,
            });
            let mut at = group_offset + rng.below(10) as i64;
            for k in 0..BARS_PER_ROW {
                if made >= spec.bars {
                    break;
                }
                let len = 1 + rng.below(8) as i64;
                let start = cal.add(spec.start, at);
                let end = cal.add(start, len - 1);
                let bid = BarId(id());
                s.bars.push(Bar {
                    id: bid,
                    row: rid,
                    label: format!("Task {}.{}.{}", g + 1, r + 1, k + 1),
                    start,
                    end,
                    color: None,
                    notes: String::new(),
                    pin: None,
                    constraint: None,
                    deadline: None,
                    progress: 0,
                    actual_start: None,
                    actual_finish: None,
                });
                if rng.below(4) == 0 {
                    s.actions.push(Action {
                        id: ActionId(id()),
                        bar: bid,
                        label: format!("Check {}", made + 1),
                        status: ActionStatus::ALL[rng.below(3) as usize],
                        assignee: member,
                    });
                }
                bar_ids.push(bid);
                made += 1;
                at += len + rng.below(3) as i64;
            }
        }
        if let Some(last_row) = s.rows.last().map(|r| r.id) {
            s.milestones.push(Milestone {
                id: MilestoneId(id()),
                row: last_row,
                label: format!("Gate {}", g + 1),
                date: cal.add(spec.start, group_offset + 90),
                color: None,
                notes: String::new(),
                constraint: None,
                deadline: None,
            });
        }
    }

    // Links from an earlier bar to a later one: acyclic by construction. Most stay near
    // (the same row or group), a few jump across the schedule.
    let link_count = (spec.bars as f64 * spec.links_per_bar) as usize;
    let n = bar_ids.len();
    let mut seen = std::collections::HashSet::new();
    let mut tries = 0;
    while s.links.len() < link_count && n >= 2 && tries < link_count * 20 {
        tries += 1;
        let to = 1 + rng.below(n as u64 - 1) as usize;
        let from = if rng.below(10) == 0 {
            rng.below(to as u64) as usize
        } else {
            to - 1 - rng.below(to.min(30) as u64) as usize
        };
        let kind = match rng.below(20) {
            0 => LinkKind::SS,
            1 => LinkKind::FF,
            2 => LinkKind::SF,
            _ => LinkKind::FS,
        };
        let lag = rng.below(3) as i32 - 1;
        // Real plans mostly keep their links: one link in twenty is left violated, so
        // risk lists have the size they have in practice, not half the links.
        let bounds = |b: &Bar| (cal.start_boundary(b.start), cal.finish_boundary(b.end));
        let (fb, tb) = (bounds(&s.bars[from]), bounds(&s.bars[to]));
        if crate::risk::link_shortfall(kind, i64::from(lag), fb, tb) > 0 && rng.below(20) != 0 {
            continue;
        }
        if !seen.insert((from, to)) {
            continue;
        }
        s.links.push(Link {
            id: LinkId(0),
            from: bar_ids[from].into(),
            to: bar_ids[to].into(),
            kind,
            lag,
        });
    }
    for l in &mut s.links {
        l.id = LinkId(id());
    }
    s.next_id = next;
    // Members and absences got the first ids and links the last ones, and ids only grow
    // within each collection, so every collection is already sorted by id.
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_sorting() {
        let s = generate(Spec::new(1_000));
        assert_eq!(s.bars.len(), 1_000);
        assert_eq!(s.links.len(), 2_000);
        assert!(s.bars.windows(2).all(|w| w[0].id < w[1].id));
        assert!(s.links.windows(2).all(|w| w[0].id < w[1].id));
        assert!(s.actions.windows(2).all(|w| w[0].id < w[1].id));
        assert!(s.links.iter().all(|l| l.from.0 < l.to.0));
        assert!(s.next_id > s.links.last().unwrap().id.0);
        assert_eq!(generate(Spec::new(1_000)), s, "deterministic");
    }
}
