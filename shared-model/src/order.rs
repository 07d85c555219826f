//! Sorting with one copy of the sort's code for the whole program.
//!
//! The standard library's sorts are generic: every item type and every comparison
//! closure gets its own copy of quicksort, heapsort and the small sorts, ~3 KB of wasm
//! each (more once the view is translated to JavaScript). The view linked sixteen of
//! them, ~43 KB, a tenth of its module. Here only two sorts are instantiated, both on
//! plain data: `(u64 key, position)` pairs, and positions under a comparison behind a
//! `dyn`. The items then move to their place in one pass of swaps.
//!
//! The command engine (`command/`), which the view does not link, keeps the standard
//! sorts.
//!
//! Every sort here is stable (ties keep their order), so any of them can replace the
//! standard `sort_by_key` as well as `sort_unstable`.

use std::cmp::Ordering;

/// Sorts stably by an integer key. The sort runs on `(key, position)` pairs (keys read
/// once each there, after a check that reads them to see whether the items are already
/// in order), which is also faster than moving large items around.
pub fn sort_by_u64<T>(items: &mut [T], key: impl Fn(&T) -> u64) {
    if items.windows(2).all(|w| key(&w[0]) <= key(&w[1])) {
        return;
    }
    let pairs = items.iter().enumerate().map(|(i, t)| (key(t), position(i)));
    if items.len() <= SMALL {
        let mut buf = [(0, 0); SMALL];
        let pairs = fill(&mut buf, pairs);
        sort_pairs(pairs);
        let mut order = [0; SMALL];
        let order = fill(&mut order, pairs.iter().map(|p| p.1));
        permute(items, order);
    } else {
        let mut pairs: Vec<(u64, u32)> = pairs.collect();
        sort_pairs(&mut pairs);
        let mut order: Vec<u32> = pairs.into_iter().map(|(_, i)| i).collect();
        permute(items, &mut order);
    }
}

/// Sorts stably by a comparison.
pub fn sort_by<T>(items: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    if items
        .windows(2)
        .all(|w| cmp(&w[0], &w[1]) != Ordering::Greater)
    {
        return;
    }
    let by_position = |a: usize, b: usize| cmp(&items[a], &items[b]);
    if items.len() <= SMALL {
        let mut buf = [0; SMALL];
        let order = fill(&mut buf, 0..position(items.len()));
        sort_positions(order, &by_position);
        permute(items, order);
    } else {
        let mut order: Vec<u32> = (0..position(items.len())).collect();
        sort_positions(&mut order, &by_position);
        permute(items, &mut order);
    }
}

/// Sorts stably by a key of any ordered type (tuples included).
pub fn sort_by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts in the items' own order.
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// Up to this many items, the positions are sorted in a buffer on the stack: the layout
/// sorts many short rows, and one allocation each would cost more than the sort.
const SMALL: usize = 16;

/// The start of `buf`, filled from `items` (at most `buf.len()` of them).
fn fill<X: Copy>(buf: &mut [X], items: impl Iterator<Item = X>) -> &mut [X] {
    let mut n = 0;
    for (slot, x) in buf.iter_mut().zip(items) {
        *slot = x;
        n += 1;
    }
    &mut buf[..n]
}

fn position(i: usize) -> u32 {
    u32::try_from(i).expect("fewer than 2^32 items to sort")
}

/// Sorts `(key, position)` pairs in place (not stable by itself: the positions make
/// every pair distinct). For callers whose items already are such pairs.
// This and `sort_positions` are kept out of line, so that every caller shares the two
// instantiations.
#[inline(never)]
pub fn sort_pairs(v: &mut [(u64, u32)]) {
    if v.len() < RADIX_FROM {
        v.sort_unstable();
    } else {
        radix_sort_pairs(v);
    }
}

/// From this many pairs, `sort_pairs` counts instead of comparing. A comparison sort
/// of n pairs compares two 64-bit keys ~n·log2(n) times; the view's JavaScript
/// translation has no 64-bit integers, so each comparison is several operations on
/// halves. Counting reads each pair twice per 11 bits of the keys' range: at 100,000
/// links (200,000 link ends, ids under 2^22) two passes instead of ~3.5 million
/// comparisons. Below this size the comparison sort wins (the counting tables are
/// 2,048 entries).
const RADIX_FROM: usize = 512;

/// Bits of a key sorted per pass.
const DIGIT: u32 = 11;

/// Least significant digit first radix sort of `(key, position)` pairs, by the whole
/// pair. Each pass is stable, so sorting by position and then by key orders the pairs
/// as tuples; when the positions are already in order (every caller builds its pairs
/// so) the passes over the positions are skipped. Keys are sorted relative to the
/// smallest, so ids that start high cost no more passes than ids from 0.
fn radix_sort_pairs(v: &mut [(u64, u32)]) {
    let positions_in_order = v.windows(2).all(|w| w[0].1 <= w[1].1);
    let min = v.iter().map(|p| p.0).min().unwrap_or(0);
    let max = v.iter().map(|p| p.0).max().unwrap_or(0);
    let key_bits = u64::BITS - (max - min).leading_zeros();
    let max_pos = v.iter().map(|p| p.1).max().unwrap_or(0);
    let pos_bits = if positions_in_order {
        0
    } else {
        u32::BITS - max_pos.leading_zeros()
    };
    let mut scratch = v.to_vec();
    // Which buffer holds the pairs: `v` (false) or `scratch` (true).
    let mut in_scratch = false;
    let passes = (0..pos_bits.div_ceil(DIGIT))
        .map(|d| (false, d * DIGIT))
        .chain((0..key_bits.div_ceil(DIGIT)).map(|d| (true, d * DIGIT)));
    for (by_key, shift) in passes {
        let digit = |p: &(u64, u32)| {
            let k = if by_key { p.0 - min } else { u64::from(p.1) };
            // Masked to DIGIT bits: fits a usize.
            ((k >> shift) & ((1 << DIGIT) - 1)) as usize
        };
        let (src, dst) = if in_scratch {
            (&scratch[..], &mut v[..])
        } else {
            (&v[..], &mut scratch[..])
        };
        if counting_pass(src, dst, digit) {
            in_scratch = !in_scratch;
        }
    }
    if in_scratch {
        v.copy_from_slice(&scratch);
    }
}

/// One stable counting pass from `src` to `dst` by `digit` (under 2^DIGIT). Returns
/// false, having written nothing, when every pair has the same digit (the pass would
/// leave the order as it is).
fn counting_pass(
    src: &[(u64, u32)],
    dst: &mut [(u64, u32)],
    digit: impl Fn(&(u64, u32)) -> usize,
) -> bool {
    let mut start = [0usize; 1 << DIGIT];
    for p in src {
        start[digit(p)] += 1;
    }
    if start.contains(&src.len()) {
        return false;
    }
    let mut at = 0;
    for s in &mut start {
        let n = *s;
        *s = at;
        at += n;
    }
    for p in src {
        let d = digit(p);
        dst[start[d]] = *p;
        start[d] += 1;
    }
    true
}

/// Positions ordered by `cmp`, ties in position order (a stable sort).
#[inline(never)]
fn sort_positions(order: &mut [u32], cmp: &dyn Fn(usize, usize) -> Ordering) {
    order.sort_unstable_by(|&a, &b| cmp(a as usize, b as usize).then(a.cmp(&b)));
}

/// Puts `items[order[i]]` at `i` for every `i`, by swaps along the permutation's cycles.
/// `order` is used up: each position is marked done by pointing it at itself.
fn permute<T>(items: &mut [T], order: &mut [u32]) {
    for start in 0..items.len() {
        let mut at = start;
        loop {
            let from = order[at] as usize;
            order[at] = position(at);
            // `from == start` closes the cycle: `at` already holds the item that started it.
            if from == start || from == at {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn sorts_like_the_standard_stable_sort(v in proptest::collection::vec((0u64..8, any::<u16>()), 0..200)) {
            let mut want = v.clone();
            want.sort_by_key(|p| p.0);

            let mut by_u64 = v.clone();
            sort_by_u64(&mut by_u64, |p| p.0);
            prop_assert_eq!(&by_u64, &want);

            let mut by = v.clone();
            sort_by(&mut by, |a, b| a.0.cmp(&b.0));
            prop_assert_eq!(&by, &want);

            let mut by_key = v.clone();
            sort_by_key(&mut by_key, |p| p.0);
            prop_assert_eq!(&by_key, &want);

            let mut whole = v.clone();
            sort(&mut whole);
            let mut std_whole = v;
            std_whole.sort();
            prop_assert_eq!(whole, std_whole);
        }
    }

    /// Pairs of every shape the radix sort sees: keys in a narrow or a wide range (up
    /// to u64::MAX, so the offset from the smallest spans all 64 bits), positions in
    /// order (as callers build them) or not, many or no ties.
    fn pairs() -> impl Strategy<Value = Vec<(u64, u32)>> {
        let key = prop_oneof![0u64..4, 1_000u64..5_000, any::<u64>(), Just(u64::MAX),];
        (
            proptest::collection::vec((key, any::<u32>()), 0..3_000),
            any::<bool>(),
        )
            .prop_map(|(mut v, ordered)| {
                if ordered {
                    for (i, p) in v.iter_mut().enumerate() {
                        p.1 = u32::try_from(i / 2).unwrap();
                    }
                }
                v
            })
    }

    proptest! {
        #[test]
        fn pairs_sort_like_the_standard_sort_at_every_size(v in pairs()) {
            let mut want = v.clone();
            want.sort_unstable();
            let mut got = v;
            sort_pairs(&mut got);
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn counting_sorts_link_ends_and_ids_that_start_high() {
        // Link ends as the view builds them: (item id, link position), two per link.
        let mut ends = Vec::new();
        for i in 0..5_000u32 {
            let from = u64::from(i.wrapping_mul(7_919) % 5_000) + (1 << 40);
            ends.push((from, i));
            ends.push((from + 1, i));
        }
        let mut want = ends.clone();
        want.sort_unstable();
        sort_pairs(&mut ends);
        assert_eq!(ends, want);
        // Every key equal: the key passes change nothing, positions decide.
        let mut same: Vec<(u64, u32)> = (0..1_000).rev().map(|i| (9, i)).collect();
        sort_pairs(&mut same);
        assert!(same.windows(2).all(|w| w[0].1 < w[1].1));
    }

    #[test]
    fn items_that_are_not_copy_move_to_their_place() {
        let mut v: Vec<String> = ["d", "a", "c", "b", "a2"].map(String::from).to_vec();
        sort_by_key(&mut v, |s| s.chars().next());
        assert_eq!(v, ["a", "a2", "b", "c", "d"]);
    }
}
