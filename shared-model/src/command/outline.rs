//! Groups and rows: the outline of the Gantt chart. Both are kept in display order, and
//! the rows of each group are contiguous and in group order, so that a position ("the
//! third row of group 4") is a plain offset and an undo puts a row back exactly where
//! it was. Deleting a group or a row hands its bars and milestones to `cascade`.

use std::ops::Range;

use crate::schedule::*;

use super::ctx::{At, Ctx, Res};
use super::{Command, cascade, check};

/// The rows of the group at position `gpos` in `s.groups`: a contiguous range of
/// `s.rows`, found by walking the rows of the groups before it. For a group without
/// rows, the empty range where its rows would go.
pub(super) fn block(s: &Schedule, gpos: usize) -> Range<usize> {
    let mut i = 0;
    for g in &s.groups[..gpos] {
        while i < s.rows.len() && s.rows[i].group == g.id {
            i += 1;
        }
    }
    let start = i;
    let id = s.groups[gpos].id;
    while i < s.rows.len() && s.rows[i].group == id {
        i += 1;
    }
    start..i
}

pub(super) fn add_group(
    cx: &mut Ctx<'_>,
    id: Option<GroupId>,
    name: &str,
    index: Option<usize>,
) -> Res<Command> {
    let id = GroupId(cx.new_id(id.map(|g| g.0))?);
    check::name(name).at("name")?;
    let index = check::position(index, cx.s.groups.len()).at("index")?;
    cx.claim(id.0);
    // A new group has no rows, so the rows stay contiguous in group order.
    cx.s.groups.insert(
        index,
        Group {
            id,
            name: name.to_owned(),
        },
    );
    cx.undo_with(Command::DeleteGroup { group: id });
    Ok(Command::AddGroup {
        id: Some(id),
        name: name.to_owned(),
        index: Some(index),
    })
}

pub(super) fn rename_group(cx: &mut Ctx<'_>, group: GroupId, name: &str) -> Res<Command> {
    let pos = cx.group_pos("group", group)?;
    check::name(name).at("name")?;
    let old = std::mem::replace(&mut cx.s.groups[pos].name, name.to_owned());
    cx.undo_with(Command::RenameGroup { group, name: old });
    Ok(Command::RenameGroup {
        group,
        name: name.to_owned(),
    })
}

pub(super) fn move_group(cx: &mut Ctx<'_>, group: GroupId, index: usize) -> Res<Command> {
    let pos = cx.group_pos("group", group)?;
    let last = cx.s.groups.len() - 1;
    check::within(index as i64, 0, last as i64).at("index")?;
    let s = &mut *cx.s;
    let own = block(s, pos);
    let rows: Vec<Row> = s.rows.drain(own).collect();
    let g = s.groups.remove(pos);
    s.groups.insert(index, g);
    // The group has no rows at this point: its empty block is where they go back.
    let at = block(s, index).start;
    s.rows.splice(at..at, rows);
    cx.undo_with(Command::MoveGroup { group, index: pos });
    Ok(Command::MoveGroup { group, index })
}

pub(super) fn delete_group(cx: &mut Ctx<'_>, group: GroupId) -> Res<Command> {
    let pos = cx.group_pos("group", group)?;
    let s = &mut *cx.s;
    let own = block(s, pos);
    let rows: Vec<Row> = s.rows.drain(own).collect();
    let g = s.groups.remove(pos);
    cx.rows_deleted();
    cx.undo_with(Command::AddGroup {
        id: Some(g.id),
        name: g.name,
        index: Some(pos),
    });
    let mut ids: Vec<RowId> = rows.iter().map(|r| r.id).collect();
    for (i, r) in rows.into_iter().enumerate() {
        cx.undo_with(readd_row(r, i));
    }
    ids.sort_unstable();
    cascade::remove_on_rows(cx, &ids);
    Ok(Command::DeleteGroup { group })
}

fn readd_row(r: Row, index: usize) -> Command {
    Command::AddRow {
        id: Some(r.id),
        group: r.group,
        name: r.name,
        member: r.member,
        index: Some(index),
    }
}

pub(super) fn add_row(
    cx: &mut Ctx<'_>,
    id: Option<RowId>,
    group: GroupId,
    name: &str,
    member: Option<MemberId>,
    index: Option<usize>,
) -> Res<Command> {
    let id = RowId(cx.new_id(id.map(|r| r.0))?);
    let gpos = cx.group_pos("group", group)?;
    check::name(name).at("name")?;
    cx.member_ref("member", member)?;
    let b = block(cx.s, gpos);
    let index = check::position(index, b.len()).at("index")?;
    cx.claim(id.0);
    cx.s.rows.insert(
        b.start + index,
        Row {
            id,
            group,
            name: name.to_owned(),
            member,
        },
    );
    cx.row_added(id);
    cx.undo_with(Command::DeleteRow { row: id });
    Ok(Command::AddRow {
        id: Some(id),
        group,
        name: name.to_owned(),
        member,
        index: Some(index),
    })
}

pub(super) fn rename_row(cx: &mut Ctx<'_>, row: RowId, name: &str) -> Res<Command> {
    let pos = cx.row_pos("row", row)?;
    check::name(name).at("name")?;
    let old = std::mem::replace(&mut cx.s.rows[pos].name, name.to_owned());
    cx.undo_with(Command::RenameRow { row, name: old });
    Ok(Command::RenameRow {
        row,
        name: name.to_owned(),
    })
}

/// The position of a row's group and the row's position among that group's rows.
fn place(cx: &Ctx<'_>, field: &'static str, rpos: usize) -> Res<(usize, usize)> {
    let gpos = cx.group_pos(field, cx.s.rows[rpos].group)?;
    Ok((gpos, rpos - block(cx.s, gpos).start))
}

pub(super) fn move_row(
    cx: &mut Ctx<'_>,
    row: RowId,
    group: Option<GroupId>,
    index: usize,
) -> Res<Command> {
    let rpos = cx.row_pos("row", row)?;
    let from = cx.s.rows[rpos].group;
    let (_, old_index) = place(cx, "row", rpos)?;
    let target = group.unwrap_or(from);
    let tpos = cx.group_pos("group", target)?;
    // The index is the row's final position: among the target's other rows.
    let others = block(cx.s, tpos).len() - usize::from(target == from);
    check::within(index as i64, 0, others as i64).at("index")?;
    let s = &mut *cx.s;
    let mut r = s.rows.remove(rpos);
    r.group = target;
    let at = block(s, tpos).start + index;
    s.rows.insert(at, r);
    cx.undo_with(Command::MoveRow {
        row,
        group: Some(from),
        index: old_index,
    });
    Ok(Command::MoveRow {
        row,
        group: Some(target),
        index,
    })
}

pub(super) fn set_row_member(
    cx: &mut Ctx<'_>,
    row: RowId,
    member: Option<MemberId>,
) -> Res<Command> {
    let pos = cx.row_pos("row", row)?;
    cx.member_ref("member", member)?;
    let old = std::mem::replace(&mut cx.s.rows[pos].member, member);
    cx.undo_with(Command::SetRowMember { row, member: old });
    Ok(Command::SetRowMember { row, member })
}

pub(super) fn delete_row(cx: &mut Ctx<'_>, row: RowId) -> Res<Command> {
    let rpos = cx.row_pos("row", row)?;
    let (_, index) = place(cx, "row", rpos)?;
    let r = cx.s.rows.remove(rpos);
    cx.rows_deleted();
    cx.undo_with(readd_row(r, index));
    cascade::remove_on_rows(cx, &[row]);
    Ok(Command::DeleteRow { row })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::testkit::{round_trip, sample};
    use crate::command::{Kind, Problem, apply};

    fn row_order(s: &Schedule) -> Vec<(u64, u64)> {
        s.rows.iter().map(|r| (r.group.0, r.id.0)).collect()
    }

    #[test]
    fn groups_add_move_rename_with_their_rows() {
        let s = sample();
        // sample(): group 3 has rows 5, 6; group 4 has row 7.
        assert_eq!(row_order(&s), [(3, 5), (3, 6), (4, 7)]);
        let after = round_trip(
            &s,
            &[
                Command::AddGroup {
                    id: None,
                    name: "Études".into(),
                    index: Some(0),
                },
                Command::MoveGroup {
                    group: GroupId(3),
                    index: 2,
                },
                Command::RenameGroup {
                    group: GroupId(4),
                    name: "Second œuvre".into(),
                },
            ],
        );
        let order: Vec<u64> = after.groups.iter().map(|g| g.id.0).collect();
        assert_eq!(order, [60, 4, 3]);
        assert_eq!(row_order(&after), [(4, 7), (3, 5), (3, 6)]);
        assert_eq!(after.groups[1].name, "Second œuvre");
    }

    #[test]
    fn deleting_a_group_takes_everything_below_and_comes_back() {
        let s = sample();
        let after = round_trip(&s, &[Command::DeleteGroup { group: GroupId(3) }]);
        assert_eq!(row_order(&after), [(4, 7)]);
        let bars: Vec<u64> = after.bars.iter().map(|b| b.id.0).collect();
        assert_eq!(bars, [13], "bars on rows 5 and 6 are gone");
        assert!(
            after.links.is_empty(),
            "every link touched a bar of group 3"
        );
        assert!(after.actions.is_empty());
        assert_eq!(after.milestones.len(), 1, "the milestone is on row 7");
    }

    #[test]
    fn rows_move_within_and_across_groups() {
        let s = sample();
        let after = round_trip(
            &s,
            &[
                Command::MoveRow {
                    row: RowId(6),
                    group: None,
                    index: 0,
                },
                Command::MoveRow {
                    row: RowId(5),
                    group: Some(GroupId(4)),
                    index: 1,
                },
                Command::AddRow {
                    id: None,
                    group: GroupId(4),
                    name: "Plomberie".into(),
                    member: Some(MemberId(2)),
                    index: Some(0),
                },
            ],
        );
        assert_eq!(row_order(&after), [(3, 6), (4, 60), (4, 7), (4, 5)]);
    }

    #[test]
    fn deleting_a_row_and_clearing_its_member() {
        let s = sample();
        let after = round_trip(
            &s,
            &[
                Command::SetRowMember {
                    row: RowId(5),
                    member: None,
                },
                Command::DeleteRow { row: RowId(6) },
            ],
        );
        assert_eq!(after.rows[0].member, None);
        assert_eq!(row_order(&after), [(3, 5), (4, 7)]);
        assert!(after.bar(BarId(12)).is_none());
        assert!(after.action(ActionId(41)).is_none(), "action on bar 12");
        assert!(after.link(LinkId(31)).is_none() && after.link(LinkId(32)).is_none());
    }

    #[test]
    fn positions_are_checked() {
        let s = sample();
        let err = apply(
            &s,
            &[Command::MoveRow {
                row: RowId(5),
                group: None,
                index: 2,
            }],
        )
        .unwrap_err();
        assert_eq!(
            (err.field.as_str(), err.problem),
            (
                "index",
                Problem::OutOfRange {
                    value: 2,
                    min: 0,
                    max: 1
                }
            )
        );
        let err = apply(
            &s,
            &[Command::AddRow {
                id: None,
                group: GroupId(5),
                name: "X".into(),
                member: None,
                index: None,
            }],
        )
        .unwrap_err();
        assert_eq!(
            err.problem,
            Problem::NotFound {
                kind: Kind::Group,
                id: 5,
                actual: Some(Kind::Row)
            }
        );
    }
}
