//! Sets of a schedule's ids: a hash set with a cheap hasher (`IdSet`), and a compact
//! wire form.
//!
//! `IdSet` exists for the view, which runs as JavaScript translated from wasm: there,
//! the standard hasher's 64-bit rounds are emulated with 32-bit halves, and filling the
//! sets of a 100,000-bar schedule's critical and at-risk bars took ~50 ms. Ids are
//! never chosen by an adversary hashing them (they come from the schedule's own
//! counter), so flooding resistance buys nothing here.
//!
//! The wire form is the shorter of a JSON array of ids and a bit string over the items
//! both sides hold, so that tens of thousands of highlighted bars still fit in one
//! answer. The server writes them
//! (`risk::Highlights::to_wire`) and the view reads them (`Highlights::from_wire`) once
//! its copy of the schedule is whole; this module only knows ids as `u64`.
//!
//! The bit string is `"<n>.<fingerprint>:<bits>"`: `n` is how many items the universe has
//! (the schedule's bars, or its links), `fingerprint` 16 hexadecimal digits that hash its
//! ids in order (`fingerprint`), and each character of `bits` carries six of them, in
//! id order, in the URL-safe base64 alphabet (`A`–`Z`, `a`–`z`, `0`–`9`, `-`, `_`):
//! character `j`'s bit `k` (least significant first) stands for item `6j + k`. Half the
//! bars of a 100,000-bar schedule then take ~17,000 characters instead of ~350,000 as
//! numbers; a few scattered ids stay an array, which is shorter then. Ids themselves
//! would not do as bit positions: every item of a schedule draws from one counter, so a
//! schedule's bar ids are spread over several times as many numbers.
//!
//! A reader whose universe has another size or fingerprint gets None rather than the
//! wrong items: its copy is not the state the writer described (a view's copy can lag
//! behind, or hold one bar deleted and another added where the writer's has not).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use serde_json::Value;

/// A set of ids (`BarId`, `u64`...) hashed by `IdHasher`.
pub type IdSet<T> = HashSet<T, BuildHasherDefault<IdHasher>>;

/// A map keyed by ids, hashed by `IdHasher`.
pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// Hashes one id with a multiplication: ids are consecutive numbers, and the product's
/// upper half, folded into the lower, spreads them over the table's buckets and its
/// control bytes alike.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        let h = (self.0 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }

    // Dates hash as one `i32`; the default would go through `write`, byte by byte.
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
}

/// The URL-safe base64 alphabet (RFC 4648 §5), also that of the server's `/embed` tokens.
pub const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// `ids`, a subset of `universe`, both in increasing order, as the shorter of the two
/// forms. Ids missing from the universe are dropped from the bit form only, which the
/// caller's own invariant excludes (the highlights are ids of the schedule's items).
pub fn to_wire(ids: &[u64], universe: &[u64]) -> Value {
    debug_assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "ids sorted, no repeats"
    );
    let as_array: usize =
        2 + ids.iter().map(|&i| digits(i)).sum::<usize>() + ids.len().saturating_sub(1);
    // Two quotes, the size, the dot, the fingerprint, the colon, a character per six items.
    let as_bits = 20 + digits(universe.len() as u64) + universe.len().div_ceil(6);
    if as_array <= as_bits {
        return Value::Array(ids.iter().map(|&i| Value::from(i)).collect());
    }
    let mut cells = vec![0u8; universe.len().div_ceil(6)];
    let mut wanted = ids.iter().peekable();
    for (at, &id) in universe.iter().enumerate() {
        while wanted.next_if(|&&w| w < id).is_some() {}
        if wanted.next_if_eq(&&id).is_some() {
            cells[at / 6] |= 1 << (at % 6);
        }
    }
    let mut text = format!("{}.{:016x}:", universe.len(), fingerprint(universe));
    text.extend(
        cells
            .into_iter()
            .map(|c| char::from(ALPHABET[usize::from(c)])),
    );
    Value::String(text)
}

/// The ids of either form, in the order written (increasing); None when the value is
/// neither a list of ids nor a bit string over `universe` (its size and fingerprint).
pub fn from_wire(v: &Value, universe: &[u64]) -> Option<Vec<u64>> {
    if let Some(items) = v.as_array() {
        return items.iter().map(Value::as_u64).collect();
    }
    let (head, bits) = v.as_str()?.split_once(':')?;
    let (n, print) = head.split_once('.')?;
    if n.parse::<usize>().ok()? != universe.len()
        || bits.len() != universe.len().div_ceil(6)
        || u64::from_str_radix(print, 16).ok()? != fingerprint(universe)
    {
        return None;
    }
    let mut ids = Vec::new();
    for (j, c) in bits.bytes().enumerate() {
        let cell = sextet(c)?;
        for k in 0..6 {
            if cell & (1 << k) != 0 {
                ids.push(*universe.get(6 * j + k)?);
            }
        }
    }
    Some(ids)
}

/// A hash of the ids in order: two universes of the same size but other ids (a bar
/// deleted and another added) differ in it.
pub fn fingerprint(universe: &[u64]) -> u64 {
    let mut h = IdHasher::default();
    for &id in universe {
        h.write_u64(id);
    }
    h.finish()
}

/// The value of one character of `ALPHABET`, None for any other.
pub fn sextet(c: u8) -> Option<u8> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'-' => 62,
        b'_' => 63,
        _ => return None,
    })
}

/// How many characters `n` takes in decimal.
fn digits(n: u64) -> usize {
    n.checked_ilog10().unwrap_or(0) as usize + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    // Build and drop 100,000-level values without recursing: serde_json's `Drop` would
    // overflow the test thread's stack.
    use crate::fuzz::{drop_flat, nested};
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn an_id_set_holds_what_was_put_in() {
        let ids: IdSet<u64> = (0..10_000).map(|i| 3 * i).collect();
        assert_eq!(ids.len(), 10_000);
        assert!((0..30_000).all(|i| ids.contains(&i) == (i % 3 == 0)));
        // Consecutive ids land in distinct low and high halves.
        let hash = |n: u64| {
            let mut h = IdHasher::default();
            h.write_u64(n);
            h.finish()
        };
        let low: HashSet<u64> = (0..1_024).map(|n| hash(n) & 0x3ff).collect();
        let high: HashSet<u64> = (0..1_024).map(|n| hash(n) >> 57).collect();
        assert!(
            low.len() > 600 && high.len() == 128,
            "{} {}",
            low.len(),
            high.len()
        );
        // On wasm32 the table's control bytes come from bits 25 to 31.
        let control: HashSet<u64> = (0..1_024).map(|n| (hash(n) >> 25) & 0x7f).collect();
        assert_eq!(control.len(), 128);
    }

    #[test]
    fn the_alphabet_reads_back() {
        for (i, &c) in ALPHABET.iter().enumerate() {
            assert_eq!(sextet(c), Some(i as u8));
        }
    }

    #[test]
    fn few_ids_stay_numbers_and_many_become_bits() {
        let universe: Vec<u64> = (0..12).map(|i| 100 + 3 * i).collect();
        assert_eq!(to_wire(&[], &universe), json!([]));
        assert_eq!(to_wire(&[103], &universe), json!([103]));
        // Every other item from the first: bits 0, 2, 4 of two characters, 0b010101 = 'V'.
        let every_other: Vec<u64> = universe.iter().copied().step_by(2).collect();
        let print = format!("{:016x}", fingerprint(&universe));
        let wire = json!(format!("12.{print}:VV"));
        assert_eq!(to_wire(&every_other, &universe), wire);
        assert_eq!(from_wire(&wire, &universe), Some(every_other));
        // Half of 100,000 bars whose ids are spread over 340,000 numbers: one character
        // per six bars.
        let bars: Vec<u64> = (0..100_000).map(|i| 7 + i * 17 / 5).collect();
        let half: Vec<u64> = bars.iter().copied().filter(|i| i % 2 == 0).collect();
        let wire = to_wire(&half, &bars);
        assert!(
            wire.to_string().len() < 17_000,
            "{}",
            wire.to_string().len()
        );
        assert_eq!(from_wire(&wire, &bars), Some(half));
    }

    #[test]
    fn malformed_values_and_other_universes_read_as_none() {
        let universe: Vec<u64> = (1..=12).collect();
        let head = |u: &[u64]| format!("{}.{:016x}", u.len(), fingerprint(u));
        let h = head(&universe);
        // The same size, one id other: a bar deleted and another added.
        let mut swapped = universe.clone();
        swapped[11] = 99;
        for bad in [
            json!("12"),
            json!("12:AA"),
            json!(format!("x.{}:AA", &h[3..])),
            json!(format!("{h}:A*")),
            json!(format!("{h}:A")),
            json!(format!("{h}:AAA")),
            json!(format!("11{}:AA", &h[2..])),
            json!(format!("13{}:AA", &h[2..])),
            json!(format!("{}:AA", head(&swapped))),
            json!(format!("12.{:016x}:AA", fingerprint(&universe) ^ 1)),
            json!([1, "2"]),
            json!({"ids": [1]}),
        ] {
            assert_eq!(from_wire(&bad, &universe), None, "{bad}");
        }
        // Bits past the last item: the writer's universe was not this one.
        let eleven = &universe[..11];
        assert_eq!(
            from_wire(&json!(format!("{}:A-", head(eleven))), eleven),
            None
        );
        assert_eq!(
            from_wire(&json!(format!("{}:AF", head(eleven))), eleven),
            Some(vec![7, 9])
        );
    }

    /// `from_wire` neither recurses nor allocates past its input: deep values, huge
    /// bit strings and huge numbers read as None (or, for a long list of ids, as those
    /// ids) at once.
    #[test]
    fn hostile_values_read_as_none_without_recursing_or_blowing_up() {
        let universe: Vec<u64> = (1..=12).collect();
        for object in [false, true] {
            let deep = nested(100_000, object);
            assert_eq!(from_wire(&deep, &universe), None);
            let wrapped = Value::Array(vec![deep]);
            assert_eq!(from_wire(&wrapped, &universe), None);
            drop_flat(wrapped);
        }
        let head = format!("12.{:016x}:", fingerprint(&universe));
        for bad in [
            format!("{head}{}", "A".repeat(10_000_000)),
            format!("{head}{}", "_".repeat(3)),
            format!("{}.{:016x}:AA", "9".repeat(100_000), fingerprint(&universe)),
            format!("12.{}:AA", "f".repeat(100_000)),
            format!("12.{}", ":".repeat(100_000)),
            ".".repeat(1_000_000),
        ] {
            assert_eq!(from_wire(&json!(bad), &universe), None, "{}", &bad[..20]);
        }
        // A long list is read as it is: its length is the caller's, already in memory.
        let many = Value::Array((0..1_000_000u64).map(Value::from).collect());
        assert_eq!(
            from_wire(&many, &universe).map(|v| v.len()),
            Some(1_000_000)
        );
        assert_eq!(from_wire(&json!([1, [2]]), &universe), None);
        assert_eq!(from_wire(&json!([1, -2]), &universe), None);
        assert_eq!(from_wire(&json!([1, 2.5]), &universe), None);
    }

    proptest! {
        #[test]
        fn either_form_reads_back_and_is_the_shorter(
            universe in proptest::collection::btree_set(0u64..1 << 40, 0..400),
            picks in proptest::collection::vec(any::<bool>(), 400),
        ) {
            let universe: Vec<u64> = universe.into_iter().collect();
            let ids: Vec<u64> = universe
                .iter()
                .zip(&picks)
                .filter(|(_, p)| **p)
                .map(|(&i, _)| i)
                .collect();
            let wire = to_wire(&ids, &universe);
            prop_assert_eq!(from_wire(&wire, &universe), Some(ids.clone()));
            let numbers = serde_json::to_string(&ids).unwrap().len();
            prop_assert!(wire.to_string().len() <= numbers);
        }
    }
}
