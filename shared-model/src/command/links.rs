//! Dependency links: adding, updating and deleting them. A link joins two different
//! items (bars or milestones), at most once per kind, and the links never form a
//! cycle; `graph` does the searching, this module decides when (now, or once at the
//! end of a long list, see `ctx::Mode`).

use crate::schedule::*;

use super::ctx::{At, Ctx, Mode, Res, fault};
use super::error::Problem;
use super::{Command, cascade, check, graph};

/// Refuses a link that would duplicate another (same ends, same kind); `except` is the
/// link being changed, which does not count.
fn no_duplicate(
    cx: &Ctx<'_>,
    from: ItemId,
    to: ItemId,
    kind: LinkKind,
    except: Option<LinkId>,
) -> Res<()> {
    let twin =
        cx.s.links
            .iter()
            .find(|l| l.from == from && l.to == to && l.kind == kind && Some(l.id) != except);
    match twin {
        Some(l) => fault("kind", Problem::DuplicateLink { existing: l.id }),
        None => Ok(()),
    }
}

pub(super) fn add_link(
    cx: &mut Ctx<'_>,
    id: Option<LinkId>,
    from: ItemId,
    to: ItemId,
    kind: Option<LinkKind>,
    lag: Option<i32>,
) -> Res<Command> {
    let id = LinkId(cx.new_id(id.map(|l| l.0))?);
    cx.item_exists("from", from)?;
    cx.item_exists("to", to)?;
    if from == to {
        return fault("to", Problem::SelfLink { item: to });
    }
    let (kind, lag) = (kind.unwrap_or_default(), lag.unwrap_or(0));
    check::lag(lag).at("lag")?;
    if cx.checks_links_now() {
        // Links added earlier in this list may still wait to be merged.
        cx.flush_links();
        no_duplicate(cx, from, to, kind, None)?;
        if let Some(chain) = graph::path(cx.s, to, from) {
            // The chain runs to ... from; the new link closes it from -> to.
            let mut items = vec![from];
            items.extend(&chain[..chain.len() - 1]);
            let items = graph::labelled(cx.s, items);
            return fault("to", Problem::Cycle { items });
        }
    } else {
        cx.defer_link_check();
    }
    cx.claim(id.0);
    cx.insert_link(Link {
        id,
        from,
        to,
        kind,
        lag,
    });
    cx.undo_with(Command::DeleteLink { link: id });
    Ok(Command::AddLink {
        id: Some(id),
        from,
        to,
        kind: Some(kind),
        lag: Some(lag),
    })
}

pub(super) fn update_link(
    cx: &mut Ctx<'_>,
    link: LinkId,
    kind: Option<LinkKind>,
    lag: Option<i32>,
) -> Res<Command> {
    let pos = cx.link_pos("link", link)?;
    if let Some(l) = lag {
        check::lag(l).at("lag")?;
    }
    // A change of kind is checked at once in every mode: it is one scan, and lists
    // rarely change many kinds.
    if let Some(k) = kind
        && cx.mode != Mode::Rollback
    {
        let l = &cx.s.links[pos];
        no_duplicate(cx, l.from, l.to, k, Some(link))?;
    }
    let l = &mut cx.s.links[pos];
    let undo = Command::UpdateLink {
        link,
        kind: kind.map(|k| std::mem::replace(&mut l.kind, k)),
        lag: lag.map(|v| std::mem::replace(&mut l.lag, v)),
    };
    cx.undo_with(undo);
    Ok(Command::UpdateLink { link, kind, lag })
}

pub(super) fn delete_link(cx: &mut Ctx<'_>, link: LinkId) -> Res<Command> {
    let pos = cx.link_pos("link", link)?;
    let l = cx.s.links.remove(pos);
    cx.undo_with(cascade::readd_link(l));
    Ok(Command::DeleteLink { link })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lang;
    use crate::command::testkit::{fails, round_trip, sample};
    use crate::command::{Kind, MAX_LAG};

    fn add(from: u64, to: u64, kind: Option<LinkKind>) -> Command {
        Command::AddLink {
            id: None,
            from: ItemId(from),
            to: ItemId(to),
            kind,
            lag: None,
        }
    }

    #[test]
    fn links_are_added_with_defaults_updated_and_deleted() {
        let s = sample();
        let after = round_trip(
            &s,
            &[
                add(10, 13, None),
                add(20, 13, Some(LinkKind::FF)),
                Command::UpdateLink {
                    link: LinkId(30),
                    kind: Some(LinkKind::SS),
                    lag: Some(-2),
                },
                Command::DeleteLink { link: LinkId(31) },
            ],
        );
        let l = after.link(LinkId(60)).unwrap();
        assert_eq!((l.kind, l.lag), (LinkKind::FS, 0));
        assert_eq!(after.link(LinkId(61)).unwrap().kind, LinkKind::FF);
        let l = after.link(LinkId(30)).unwrap();
        assert_eq!((l.kind, l.lag), (LinkKind::SS, -2));
        assert!(after.link(LinkId(31)).is_none());
    }

    #[test]
    fn bad_links_are_refused() {
        let s = sample();
        let e = fails(&s, &[add(10, 5, None)]);
        assert_eq!(
            (e.field.as_str(), e.problem),
            (
                "to",
                Problem::NotFound {
                    kind: Kind::Item,
                    id: 5,
                    actual: Some(Kind::Row)
                }
            )
        );
        let e = fails(&s, &[add(10, 10, None)]);
        assert_eq!(e.problem, Problem::SelfLink { item: ItemId(10) });
        let e = fails(&s, &[add(10, 11, None)]);
        assert_eq!(
            e.problem,
            Problem::DuplicateLink {
                existing: LinkId(30)
            }
        );
        // Another kind between the same items is fine, until it is turned into FS.
        let e = fails(
            &s,
            &[
                add(10, 11, Some(LinkKind::SS)),
                Command::UpdateLink {
                    link: LinkId(60),
                    kind: Some(LinkKind::FS),
                    lag: None,
                },
            ],
        );
        assert_eq!((e.command, e.field.as_str()), (1, "kind"));
        let e = fails(
            &s,
            &[Command::AddLink {
                id: None,
                from: ItemId(10),
                to: ItemId(13),
                kind: None,
                lag: Some(MAX_LAG + 1),
            }],
        );
        assert_eq!(e.field, "lag");
    }

    #[test]
    fn a_cycle_is_refused_and_named() {
        let s = sample();
        let e = fails(&s, &[add(20, 10, None)]);
        assert_eq!(e.field, "to");
        expect_test::expect![[r#"Command 1 (add_link), field to: link cycle: 20 "Livraison" → 10 "Fondations" → 11 "Murs" → 12 "Toiture" → 20 "Livraison". An item cannot depend on itself: remove a link of this cycle or join other items."#]]
            .assert_eq(&e.to_string());
        // The reverse of an SS link closes a cycle too: every kind orders the items.
        let e = fails(&s, &[add(11, 10, Some(LinkKind::SS))]);
        assert!(matches!(e.problem, Problem::Cycle { .. }), "{e}");
        let long = "x".repeat(500);
        let mut s2 = s.clone();
        s2.bars[0].label = long;
        let e = fails(&s2, &[add(11, 10, None)]);
        let Problem::Cycle { items } = &e.problem else {
            panic!("{e}")
        };
        assert_eq!(items[1].1.chars().count(), 61, "labels are cut in errors");
        assert!(e.message(Lang::Fr).contains("cycle de liens"));
    }

    #[test]
    fn long_lists_check_links_once_and_still_name_the_culprit() {
        let s = sample();
        // Twelve additions: more than are checked one by one.
        let mut cmds: Vec<Command> = (0..12)
            .map(|k| Command::AddMilestone {
                id: None,
                row: RowId(7),
                label: format!("M{k}"),
                date: crate::command::testkit::d("2026-12-01"),
                color: None,
                notes: None,
            })
            .collect();
        cmds.extend((0..12).map(|k| add(13, 60 + k, None)));
        let after = round_trip(&s, &cmds);
        assert_eq!(after.links.len(), 15);

        let mut bad = cmds.clone();
        bad.push(add(60, 13, None));
        bad.push(Command::DeleteLink { link: LinkId(72) });
        let e = fails(&s, &bad);
        assert_eq!((e.command, e.op), (24, "add_link"));
        assert!(matches!(e.problem, Problem::Cycle { .. }), "{e}");

        let mut dup = cmds;
        dup.insert(20, add(13, 61, None));
        let e = fails(&s, &dup);
        assert_eq!(e.command, 20);
        assert!(matches!(e.problem, Problem::DuplicateLink { .. }), "{e}");
    }
}
