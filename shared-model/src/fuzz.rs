//! Fuzz harnesses, on stable Rust through proptest's structure-aware generators, for
//! what a hostile viewer or a broken client can send the model: filter queries
//! (`filter::parse`, then evaluation), page texts (`paging::read_records`, serde), id sets on the wire
//! (`idset::from_wire`) and patch command lists (decoded from JSON, then applied). Each
//! property is "never panics, and what comes out is sound"; the generators mix valid
//! structure, junk and deep nesting, since nesting thousands of levels deep is what
//! crashed the server (issue 18: the filter parser recursed without a limit).
//!
//! Budget: each harness runs for `PALMAPLAN_FUZZ_SECONDS` seconds, 2 by default (and at
//! least `MIN_CASES` cases), or for `PROPTEST_CASES` cases when that is set: CI's whole
//! fuzz budget is about a minute across the project. For a long run by hand:
//! `PALMAPLAN_FUZZ_SECONDS=600 cargo test -p palmaplan-model --lib fuzz::`.
//! `PROPTEST_RNG_SEED` replays a run (the seed is random otherwise).
//!
//! `the_filter_harness_finds_the_crash_without_the_limits` checks that the filter
//! harness would have caught issue 18: it runs the same harness, in a child process,
//! against the parser with its limits lifted, and expects the child to die of a stack
//! overflow. A harness that could not fail that way would prove nothing.
//!
//! Also here: `nested` and `drop_flat`, which build and drop a `serde_json::Value`
//! thousands of levels deep without recursing (for the idset tests too).

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use proptest::collection::{btree_map, btree_set, vec};
use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::test_runner::{Config, TestCaseResult, TestRunner};
use serde_json::{Value, json};

use crate::command::proptests::{Pools, build, schedule, template};
use crate::command::{Command, apply_in_place, validate_schedule};
use crate::filter::{self, Filter, FilterContext, FilterError, FilterErrorKind, Key};
use crate::idset::{self, IdSet};
use crate::paging::{paginate, read_records, read_settings};
use crate::schedule::*;
use crate::{Lang, demo, synth};

// ---------------------------------------------------------------------------------
// The budget

/// Seconds per harness when neither variable is set.
const DEFAULT_SECONDS: f64 = 2.0;

/// Cases run whatever the clock says, so that a slow machine still tests something.
const MIN_CASES: u32 = 32;

/// Cases per runner: the clock is read between chunks.
const CHUNK: u32 = 8;

fn env_number<T: std::str::FromStr>(name: &str) -> Option<T> {
    let text = std::env::var(name).ok()?;
    Some(
        text.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={text:?} is not a number")),
    )
}

/// Runs `test` on values of `strategy` within the budget (see the module header),
/// shrinking and reporting the first failure as proptest does.
fn fuzz<S: Strategy>(name: &str, strategy: S, test: impl Fn(S::Value) -> TestCaseResult) {
    let seconds = env_number::<f64>("PALMAPLAN_FUZZ_SECONDS");
    let cases = env_number::<u32>("PROPTEST_CASES");
    let time = match (seconds, cases) {
        (None, None) => Some(Duration::from_secs_f64(DEFAULT_SECONDS)),
        (s, _) => s.map(Duration::from_secs_f64),
    };
    let base = Config {
        // Failures are turned into unit tests by hand; a shrink of a deep input is
        // bounded in time.
        failure_persistence: None,
        max_shrink_time: 30_000,
        ..Config::default()
    };
    let mut seeds = TestRunner::new(base.clone());
    let start = Instant::now();
    let mut ran = 0;
    loop {
        let out_of_cases = cases.is_some_and(|c| ran >= c);
        let out_of_time = time.is_some_and(|t| start.elapsed() >= t) && ran >= MIN_CASES;
        if out_of_cases || out_of_time {
            break;
        }
        let chunk = cases.map_or(CHUNK, |c| CHUNK.min(c - ran));
        let config = Config {
            cases: chunk,
            ..base.clone()
        };
        let mut runner = TestRunner::new_with_rng(config, seeds.new_rng());
        if let Err(e) = runner.run(&strategy, &test) {
            panic!("{name}: {e}");
        }
        ran += chunk;
    }
    eprintln!("{name}: {ran} cases in {:.1?}", start.elapsed());
}

// ---------------------------------------------------------------------------------
// Shared pieces

/// A value `depth` levels deep (arrays, or objects of one field), built in a loop:
/// serde_json's parser refuses more than 128 levels, but a `Value` built by hand has no
/// such bound. Drop it with [`drop_flat`].
pub(crate) fn nested(depth: usize, object: bool) -> Value {
    let mut v = json!(1);
    for _ in 0..depth {
        v = if object {
            let mut fields = serde_json::Map::new();
            fields.insert("ids".into(), v);
            Value::Object(fields)
        } else {
            Value::Array(vec![v])
        };
    }
    v
}

/// Drops a value without recursing: serde_json's own `Drop` recurses once per level,
/// and a value 100,000 levels deep overflows a test thread's 2 MB stack. Each value's
/// children are moved out before it is dropped, so every drop is shallow.
pub(crate) fn drop_flat(v: Value) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(fields) => stack.extend(fields.into_iter().map(|(_, x)| x)),
            _ => {}
        }
    }
}

/// A change to a text, by byte: the mutations of a dumb fuzzer, on top of the
/// structure the generators give.
#[derive(Clone, Debug)]
enum Edit {
    Flip(Index, u8),
    Insert(Index, u8),
    Delete(Index, u8),
    /// Copies a slice (up to 64 bytes from the first index) to the second index.
    Copy(Index, Index),
    Truncate(Index),
    /// Inserts `unit` this many times: deep nesting.
    Nest(Index, &'static str, usize),
}

/// How many times a unit of nesting repeats: mostly around serde_json's and the
/// readers' bound of 128, sometimes thousands of levels.
fn nest_count() -> impl Strategy<Value = usize> {
    prop_oneof![3 => 100usize..140, 1 => 1_000usize..30_000]
}

fn edit(units: &'static [&'static str], bytes: &'static [u8]) -> BoxedStrategy<Edit> {
    prop_oneof![
        3 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Edit::Flip(i, b)),
        3 => (any::<Index>(), select(bytes)).prop_map(|(i, b)| Edit::Insert(i, b)),
        3 => (any::<Index>(), 1u8..16).prop_map(|(i, n)| Edit::Delete(i, n)),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(i, j)| Edit::Copy(i, j)),
        1 => any::<Index>().prop_map(Edit::Truncate),
        1 => (any::<Index>(), select(units), nest_count())
            .prop_map(|(i, u, n)| Edit::Nest(i, u, n)),
    ]
    .boxed()
}

/// The text with the edits made, invalid UTF-8 replaced (the readers take `&str`).
fn mutate(text: &str, edits: &[Edit]) -> String {
    let mut b = text.as_bytes().to_vec();
    // An index into `b`, or past its end when `end` (for insertions).
    let at = |i: &Index, len: usize, end: bool| {
        let n = len + usize::from(end);
        if n == 0 { 0 } else { i.index(n) }
    };
    for e in edits {
        match e {
            Edit::Flip(i, x) if !b.is_empty() => {
                let k = at(i, b.len(), false);
                b[k] ^= x | 1;
            }
            Edit::Insert(i, x) => {
                let k = at(i, b.len(), true);
                b.insert(k, *x);
            }
            Edit::Delete(i, n) if !b.is_empty() => {
                let k = at(i, b.len(), false);
                let end = (k + usize::from(*n)).min(b.len());
                b.drain(k..end);
            }
            Edit::Copy(i, j) if !b.is_empty() => {
                let k = at(i, b.len(), false);
                let piece = b[k..(k + 64).min(b.len())].to_vec();
                let to = at(j, b.len(), true);
                b.splice(to..to, piece);
            }
            Edit::Truncate(i) => {
                let k = at(i, b.len(), true);
                b.truncate(k);
            }
            Edit::Nest(i, unit, n) => {
                let k = at(i, b.len(), true);
                b.splice(k..k, unit.repeat(*n).into_bytes());
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

// ---------------------------------------------------------------------------------
// The filter parser

/// The parser's limits: the real ones, or none (to show what they prevent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Limits {
    depth: usize,
    len: usize,
}

impl Limits {
    const REAL: Limits = Limits {
        depth: filter::MAX_DEPTH,
        len: filter::MAX_LEN,
    };
    const NONE: Limits = Limits {
        depth: usize::MAX,
        len: usize::MAX,
    };

    fn parse(self, input: &str) -> Result<Filter, FilterError> {
        if self == Limits::REAL {
            filter::parse(input)
        } else {
            filter::parse_within(input, self.depth, self.len)
        }
    }
}

/// Terms, valid and not, of every kind the lexer knows.
const TERMS: &[&str] = &[
    "label:x",
    "is:critical",
    "is:at-risk",
    "est:violé",
    "is:late",
    "status:todo",
    "statut:en-cours",
    "status:started",
    "from:2026-11-01",
    "du:2026-11",
    "au:2026-13",
    "to:2026-02-30",
    "from:30/11/2026",
    "id:42",
    "id:b7",
    "id:x1",
    "id:+4",
    "id:99999999999999999999",
    "member:alice",
    "membre:Zoé",
    "group:\"Finance team\"",
    "groupe:«\u{a0}Équipe\u{a0}»",
    "libellé:migration",
    "grup:x",
    ":x",
    "member:",
    "label:\"",
    "\"data migration\"",
    "“smart”",
    "\"\"",
    "\"",
    "«",
    "»",
    "“",
    "\\",
    "Révision",
    "l'équipe",
    "İ",
    "ß",
    "a:b:c",
    "é:x",
    "float<=2",
    "marge>-1",
    "float:0",
    "float:<=3",
    "marge≥4",
    "float<>2",
    "float=<1",
    "float!=",
    "float<=",
    "float<=2.5",
    "float<99999999999999999999",
    "float <=",
    "marge <",
    "float",
    "x<y",
];

const OPERATORS: &[&str] = &[
    "(", ")", "-", "not", "non", "NOT", "and", "et", "AND", "or", "ou", "OR", "Ou",
];

const SEPARATORS: &[&str] = &[" ", " ", " ", "", "  ", "\t", "\n", "\u{a0}", "\u{3000}"];

/// What repeats in a deep run of a token soup.
const DEEP_UNITS: &[&str] = &["(", "-", "not ", "-(", "non(", "NON ", "(-", ")"];

/// A `key:value` term with a key of either language and a value of any shape.
fn key_term() -> impl Strategy<Value = String> {
    let value = prop_oneof![
        "[a-zé0-9_:-]{0,8}",
        Just("critical".to_owned()),
        Just("in_progress".to_owned()),
        Just("2026-11-30".to_owned()),
        Just("\"two words\"".to_owned()),
    ];
    (select(Key::ALL.to_vec()), any::<bool>(), value).prop_map(|(k, fr, v)| {
        let lang = if fr { Lang::Fr } else { Lang::En };
        format!("{}:{v}", k.name(lang))
    })
}

fn soup_token() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => select(TERMS).prop_map(str::to_owned),
        4 => select(OPERATORS).prop_map(str::to_owned),
        3 => key_term(),
        2 => "[a-zé0-9:()\"«»“” \\-]{1,6}",
        1 => any::<char>().prop_map(String::from),
    ]
}

/// Tokens side by side in any order, now and then with a run of thousands of
/// parentheses or negations somewhere.
fn soup() -> impl Strategy<Value = String> {
    let deep = prop::option::weighted(
        0.25,
        (select(DEEP_UNITS), 1_000usize..30_000, any::<Index>()),
    );
    (vec((soup_token(), select(SEPARATORS)), 0..40), deep).prop_map(|(tokens, deep)| {
        let mut parts: Vec<String> = tokens.into_iter().map(|(t, s)| t + s).collect();
        if let Some((unit, n, at)) = deep {
            parts.insert(at.index(parts.len() + 1), unit.repeat(n));
        }
        parts.concat()
    })
}

/// A valid query, as a tree, so that its nesting is known.
#[derive(Clone, Debug)]
enum Q {
    Term(String),
    Not(&'static str, Box<Q>),
    Paren(Box<Q>),
    And(Vec<Q>, &'static str),
    Or(Vec<Q>, &'static str),
}

impl Q {
    /// A negation binds to one condition: an `and` or `or` under it takes parentheses,
    /// so that the tree is the one the parser reads.
    fn not(op: &'static str, q: Q) -> Q {
        Q::Not(op, Box::new(q.grouped()))
    }

    /// An `or` inside an `and` takes parentheses to stay one.
    fn and(items: Vec<Q>, sep: &'static str) -> Q {
        let items = items
            .into_iter()
            .map(|q| match q {
                Q::Or(..) => Q::Paren(Box::new(q)),
                q => q,
            })
            .collect();
        Q::And(items, sep)
    }

    fn grouped(self) -> Q {
        match self {
            Q::And(..) | Q::Or(..) => Q::Paren(Box::new(self)),
            q => q,
        }
    }

    /// Parentheses and negations on the deepest path: the parser's nesting.
    fn nesting(&self) -> usize {
        match self {
            Q::Term(_) => 0,
            Q::Not(_, q) | Q::Paren(q) => 1 + q.nesting(),
            Q::And(items, _) | Q::Or(items, _) => items.iter().map(Q::nesting).max().unwrap_or(0),
        }
    }

    fn render(&self, out: &mut String) {
        match self {
            Q::Term(t) => out.push_str(t),
            Q::Not(op, q) => {
                out.push_str(op);
                q.render(out);
            }
            Q::Paren(q) => {
                out.push('(');
                q.render(out);
                out.push(')');
            }
            Q::And(items, sep) | Q::Or(items, sep) => {
                for (k, q) in items.iter().enumerate() {
                    if k > 0 {
                        out.push_str(sep);
                    }
                    q.render(out);
                }
            }
        }
    }
}

const VALID_TERMS: &[&str] = &[
    "is:critical",
    "is:at-risk",
    "est:violé",
    "status:todo",
    "statut:en-cours",
    "status:done",
    "from:2026-11-01",
    "du:2026-11",
    "to:2026-12-31",
    "id:42",
    "id:b10",
    "member:alice",
    "group:\"Finance team\"",
    "libellé:migration",
    "«\u{a0}Équipe\u{a0}»",
    "\"data migration\"",
    "float<=2",
    "marge>-1",
    "float:0",
    "float≥3",
];

/// A valid term: never an operator word, never empty.
fn valid_term() -> impl Strategy<Value = String> {
    let word = "[a-zéÉ0-9]{1,6}".prop_map(|w| {
        let folded = w.to_lowercase();
        if ["or", "ou", "not", "non", "and", "et"].contains(&folded.as_str()) {
            w + "x"
        } else {
            w
        }
    });
    prop_oneof![
        select(VALID_TERMS).prop_map(str::to_owned),
        word.clone(),
        word.prop_map(|w| format!("label:{w}")),
        (0u64..100).prop_map(|n| format!("id:{n}")),
    ]
}

fn query_tree() -> impl Strategy<Value = Q> {
    valid_term()
        .prop_map(Q::Term)
        .prop_recursive(5, 40, 4, |inner| {
            prop_oneof![
                (select(vec!["-", "not ", "non ", "NOT "]), inner.clone())
                    .prop_map(|(op, q)| Q::not(op, q)),
                inner.clone().prop_map(|q| Q::Paren(Box::new(q))),
                (
                    vec(inner.clone(), 2..4),
                    select(vec![" ", " and ", " et ", " AND "])
                )
                    .prop_map(|(items, sep)| Q::and(items, sep)),
                (vec(inner, 2..4), select(vec![" or ", " ou ", " OR "]))
                    .prop_map(|(items, sep)| Q::Or(items, sep)),
            ]
        })
}

/// A query, and its nesting when it is known to be valid.
#[derive(Clone, Debug)]
struct Structured {
    input: String,
    nesting: Option<usize>,
}

/// A valid query wrapped in more levels of parentheses and negations: around the limit
/// (0 to 70 levels) or thousands deep. Now and then a few edits make it invalid, and
/// its nesting unknown.
fn structured() -> impl Strategy<Value = Structured> {
    let wrappers = prop_oneof![3 => vec(0u8..4, 0..70), 1 => vec(0u8..4, 1_000..30_000)];
    let corrupt = prop::option::weighted(0.15, vec(edit(DEEP_UNITS, b"() -\"x:"), 1..3));
    (query_tree(), wrappers, corrupt).prop_map(|(q, wrappers, corrupt)| {
        let q = q.grouped();
        let mut input = String::new();
        for w in &wrappers {
            input.push_str(["(", "-", "not ", "NON "][usize::from(*w)]);
        }
        q.render(&mut input);
        for w in wrappers.iter().rev() {
            if *w == 0 {
                input.push(')');
            }
        }
        let nesting = wrappers.len() + q.nesting();
        match corrupt {
            None => Structured {
                input,
                nesting: Some(nesting),
            },
            Some(edits) => Structured {
                input: mutate(&input, &edits),
                nesting: None,
            },
        }
    })
}

/// A filter case: the query, and a schedule to evaluate it on with some of its bars
/// (and an unknown one) critical or at risk, and some with a known float.
#[derive(Clone, Debug)]
struct FilterCase {
    input: String,
    nesting: Option<usize>,
    schedule: Schedule,
    picks: Vec<u8>,
}

fn filter_case() -> impl Strategy<Value = FilterCase> {
    let input = prop_oneof![
        4 => structured(),
        4 => soup().prop_map(|input| Structured { input, nesting: None }),
        1 => any::<String>().prop_map(|input| Structured { input, nesting: None }),
    ];
    (input, schedule(0..25), vec(any::<u8>(), 0..40)).prop_map(|(q, schedule, picks)| FilterCase {
        input: q.input,
        nesting: q.nesting,
        schedule,
        picks,
    })
}

/// Parses, then checks: spans on character boundaries of the input, what a valid
/// query gets (as its nesting and length say), the limits' errors where they belong,
/// messages in both languages; a query that parses evaluates on the schedule, and
/// `select` agrees with `matches`.
fn check_filter(limits: Limits, case: &FilterCase) -> TestCaseResult {
    let input = case.input.as_str();
    let on_boundary = |at: usize| at <= input.len() && input.is_char_boundary(at);
    let chars = input.chars().count();
    let result = limits.parse(input);
    if let Some(n) = case.nesting {
        let want = if n > limits.depth {
            "too deep"
        } else if chars > limits.len {
            "too long"
        } else {
            "ok"
        };
        let got = match &result {
            Ok(_) => "ok",
            Err(e) if matches!(e.kind, FilterErrorKind::TooDeep { .. }) => "too deep",
            Err(e) if matches!(e.kind, FilterErrorKind::TooLong { .. }) => "too long",
            Err(_) => "another error",
        };
        prop_assert_eq!(
            got,
            want,
            "nesting {}, {} chars: {:?}",
            n,
            chars,
            result.as_ref().err()
        );
    }
    match result {
        Err(e) => {
            let (at, end) = (e.position, e.position.saturating_add(e.len));
            prop_assert!(on_boundary(at) && on_boundary(end) && e.len > 0, "{:?}", e);
            match e.kind {
                FilterErrorKind::TooDeep { max } => {
                    prop_assert_eq!(max, limits.depth);
                    let word = input[at..end].to_ascii_lowercase();
                    prop_assert!(
                        ["(", "-", "not", "non"].contains(&word.as_str()),
                        "{}",
                        word
                    );
                }
                FilterErrorKind::TooLong { chars: n, max } => {
                    prop_assert_eq!((n, max), (chars, limits.len));
                    prop_assert_eq!(input[..at].chars().count(), limits.len);
                    prop_assert_eq!(end, input.len());
                }
                _ => {}
            }
            for lang in [Lang::Fr, Lang::En] {
                prop_assert!(!e.message(lang).is_empty());
            }
            // The caret display of a long input is as long as it: checked on short ones.
            if input.len() < 1_000 {
                let text = e.render(input, Lang::Fr);
                prop_assert!(text.lines().nth(1).is_some_and(|l| l.contains('^')));
            }
        }
        Ok(f) => {
            if let Some(e) = f.expr() {
                let mut stack = vec![e];
                while let Some(e) = stack.pop() {
                    let sp = e.span();
                    prop_assert!(on_boundary(sp.start) && on_boundary(sp.end()) && sp.len > 0);
                    match e {
                        filter::Expr::Or(_, items) | filter::Expr::And(_, items) => {
                            stack.extend(items)
                        }
                        filter::Expr::Not(_, inner) => stack.push(inner),
                        filter::Expr::Term(..) => {}
                    }
                }
            }
            let s = &case.schedule;
            let pick = |bit: u8| -> IdSet<BarId> {
                let mut ids: IdSet<BarId> = s
                    .bars
                    .iter()
                    .zip(&case.picks)
                    .filter(|(_, p)| *p & bit != 0)
                    .map(|(b, _)| b.id)
                    .collect();
                ids.insert(BarId(u64::MAX));
                ids
            };
            // Floats from -2 to 5 for the bars picked, the others' unknown.
            let floats: Vec<(BarId, i64)> = s
                .bars
                .iter()
                .zip(&case.picks)
                .filter(|(_, p)| *p & 4 != 0)
                .map(|(b, p)| (b.id, i64::from(*p >> 5) - 2))
                .chain([(BarId(u64::MAX), 0)])
                .collect();
            let ctx = FilterContext::new(s, &pick(1), &pick(2)).with_floats(&floats);
            let selected = f.select(&ctx, s);
            let one_by_one: Vec<BarId> = s
                .bars
                .iter()
                .filter(|b| f.matches(&ctx, b))
                .map(|b| b.id)
                .collect();
            prop_assert_eq!(selected, one_by_one);
        }
    }
    Ok(())
}

fn filter_harness(limits: Limits) {
    fuzz("filter parser", filter_case(), |case| {
        check_filter(limits, &case)
    });
}

#[test]
fn fuzz_the_filter_parser() {
    filter_harness(Limits::REAL);
}

/// Set in the child process that runs the harness on the parser without its limits.
const UNLIMITED: &str = "PALMAPLAN_FUZZ_UNLIMITED";

/// The filter harness on the parser without its limits: it must crash (a stack
/// overflow aborts the process). Ignored, and a no-op unless `UNLIMITED` is set, so
/// that `cargo test -- --ignored` does not abort; run by the test below.
#[test]
#[ignore = "run in a child process by the_filter_harness_finds_the_crash_without_the_limits"]
fn filter_harness_on_the_parser_without_limits() {
    if std::env::var_os(UNLIMITED).is_some() {
        filter_harness(Limits::NONE);
    }
}

/// The harness finds issue 18's crash once the limits are lifted: the test binary runs
/// itself, only the test above, with `UNLIMITED` set and a bound on its cases, and the
/// child must die of a signal (the stack overflow's abort) and say so, within a
/// minute. An exit code, 0 or 101 (a failed assertion), means the harness missed it.
#[cfg(unix)]
#[test]
fn the_filter_harness_finds_the_crash_without_the_limits() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command as Process, Stdio};

    let test = format!(
        "{}::filter_harness_on_the_parser_without_limits",
        module_path!().split_once("::").map_or("fuzz", |(_, m)| m)
    );
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut child = Process::new(exe)
        .args([test.as_str(), "--exact", "--ignored", "--nocapture"])
        .args(["--test-threads", "1"])
        .env(UNLIMITED, "1")
        // A deep case comes in the first few; the cases bound the run, not the clock.
        .env("PROPTEST_CASES", "2000")
        .env_remove("PALMAPLAN_FUZZ_SECONDS")
        // The test thread's stack is the default 2 MB, whatever the caller's is.
        .env_remove("RUST_MIN_STACK")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the test binary runs");
    let mut pipe = child.stderr.take().expect("a piped stderr");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = pipe.read_to_string(&mut text);
        text
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child's status") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the unlimited harness ran for a minute without crashing");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = reader.join().expect("the reader thread");
    let tail: String = stderr.lines().rev().take(6).collect::<Vec<_>>().join("\n");
    assert!(
        status.code().is_none() && matches!(status.signal(), Some(6 | 7 | 11)),
        "the child should die of SIGABRT/SIGBUS/SIGSEGV, not {status}:\n{tail}"
    );
    assert!(stderr.contains("has overflowed its stack"), "{tail}");
}

// ---------------------------------------------------------------------------------
// Page texts, read by serde

/// Real texts to mutate: the record lists of the pages of the demo and of a generated
/// schedule, and settings as the server writes them.
struct Corpus {
    records: Vec<String>,
    settings: Vec<String>,
}

fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let mut demo = demo::s4hana_migration();
        let synth = synth::generate(synth::Spec::new(120));
        let mut records = Vec::new();
        for s in [&demo, &synth] {
            for page in paginate(s, None, 4_096) {
                let v: Value = serde_json::from_str(&page).expect("a page is JSON");
                records.push(v["records"].to_string());
            }
        }
        let mut settings = vec![serde_json::to_string(&demo.settings).expect("settings")];
        demo.settings.holidays = vec![crate::Date::from_ymd(2026, 12, 25).expect("a day")];
        demo.settings.time_unit = TimeUnit::Week;
        settings.push(serde_json::to_string(&demo.settings).expect("settings"));
        Corpus { records, settings }
    })
}

const JSON_UNITS: &[&str] = &["[", "{\"a\":", "[{\"bar\":", "{\"x\":[", "{\"bar\":{\"x\":"];
const JSON_BYTES: &[u8] = b"[]{}\",:-0123456789.eE+tfnul\\ \xc3\xa9";

fn page_text() -> impl Strategy<Value = String> {
    let c = corpus();
    let edits = vec(edit(JSON_UNITS, JSON_BYTES), 0..8);
    prop_oneof![
        8 => (select(&c.records[..]), edits.clone()).prop_map(|(t, e)| mutate(&t, &e)),
        3 => (select(&c.settings[..]), edits).prop_map(|(t, e)| mutate(&t, &e)),
        1 => any::<String>(),
        1 => (select(JSON_UNITS), nest_count()).prop_map(|(u, n)| u.repeat(n)),
    ]
}

/// Never a panic (serde_json's reading of mutated pages, records and settings, what the
/// view does with a page's text); and what reads, written again, reads back the same.
fn check_page_text(text: &str) -> TestCaseResult {
    if let Ok(records) = read_records(text) {
        let again = serde_json::to_string(&records).expect("records are written");
        prop_assert_eq!(read_records(&again), Ok(records));
    }
    if let Ok(settings) = read_settings(text) {
        let again = serde_json::to_string(&settings).expect("settings are written");
        prop_assert_eq!(read_settings(&again), Ok(settings));
    }
    Ok(())
}

#[test]
fn fuzz_page_texts() {
    fuzz("page texts", page_text(), |text| check_page_text(&text));
}

// ---------------------------------------------------------------------------------
// idset's wire form

/// Any JSON value, a few levels deep, with strings shaped like bit strings now and
/// then.
fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        "\\PC{0,12}".prop_map(Value::from),
        "[0-9]{1,3}\\.[0-9a-f]{0,17}:[A-Za-z0-9_-]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Value::Array),
            btree_map("[a-z]{0,3}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

#[derive(Clone, Debug)]
enum WireCase {
    /// A universe, the picked ids, and edits to their wire form's text (none: a
    /// roundtrip), or a value put in place of an array element.
    Real {
        universe: Vec<u64>,
        ids: Vec<u64>,
        edits: Vec<Edit>,
        junk: Option<(Index, Value)>,
    },
    Any(Vec<u64>, Value),
    /// A value this deep (built in the test, as its clone and its drop would recurse).
    Deep(usize, bool),
}

fn wire_case() -> impl Strategy<Value = WireCase> {
    let universe = btree_set(0u64..1 << 40, 0..150).prop_map(|u| u.into_iter().collect());
    // Few picks give the array form, many the bit string.
    let picks = prop_oneof![
        vec(any::<bool>(), 150),
        vec(prop::bool::weighted(0.03), 150)
    ];
    let real = (universe, picks).prop_flat_map(|(universe, picks)| {
        let universe: Vec<u64> = universe;
        let ids: Vec<u64> = universe
            .iter()
            .zip(&picks)
            .filter(|(_, p)| **p)
            .map(|(&i, _)| i)
            .collect();
        let edits = prop_oneof![
            2 => Just(Vec::new()),
            3 => vec(edit(&["[", ":", "."], b"AZaz09-_.:[]\"9f"), 1..5),
        ];
        let junk = prop::option::weighted(0.2, (any::<Index>(), any_value()));
        (Just(universe), Just(ids), edits, junk).prop_map(|(universe, ids, edits, junk)| {
            WireCase::Real {
                universe,
                ids,
                edits,
                junk,
            }
        })
    });
    prop_oneof![
        6 => real,
        3 => (vec(any::<u64>(), 0..20), any_value()).prop_map(|(u, v)| WireCase::Any(u, v)),
        1 => (1usize..20_000, any::<bool>()).prop_map(|(d, o)| WireCase::Deep(d, o)),
    ]
}

fn check_wire(case: WireCase) -> TestCaseResult {
    match case {
        WireCase::Real {
            universe,
            ids,
            edits,
            junk,
        } => {
            let wire = idset::to_wire(&ids, &universe);
            let mutated = match (&wire, junk) {
                (Value::Array(items), Some((at, v))) => {
                    let mut items = items.clone();
                    items.insert(at.index(items.len() + 1), v);
                    Value::Array(items)
                }
                (Value::String(text), _) if !edits.is_empty() => {
                    Value::String(mutate(text, &edits))
                }
                (Value::Array(_), _) if !edits.is_empty() => {
                    serde_json::from_str(&mutate(&wire.to_string(), &edits)).unwrap_or(Value::Null)
                }
                _ => wire.clone(),
            };
            let read = idset::from_wire(&mutated, &universe);
            if mutated == wire {
                prop_assert_eq!(read, Some(ids), "a roundtrip is the identity");
            } else if let (Value::String(_), Some(read)) = (&mutated, read) {
                // A bit string read is a set of the universe's items, in order.
                prop_assert!(read.windows(2).all(|w| w[0] < w[1]));
                prop_assert!(read.iter().all(|i| universe.binary_search(i).is_ok()));
            }
        }
        WireCase::Any(universe, v) => {
            let read = idset::from_wire(&v, &universe);
            if let (Some(read), Value::Array(items)) = (read, &v) {
                let numbers: Vec<u64> = items.iter().filter_map(Value::as_u64).collect();
                prop_assert_eq!(read, numbers);
            }
        }
        WireCase::Deep(depth, object) => {
            let v = nested(depth, object);
            let read = idset::from_wire(&v, &[1, 2, 3]);
            drop_flat(v);
            // One level of array is a well-formed list of ids ([1]); anything deeper,
            // or any object, is refused.
            let expected = (depth == 1 && !object).then(|| vec![1]);
            prop_assert_eq!(read, expected);
        }
    }
    Ok(())
}

#[test]
fn fuzz_the_idset_wire_form() {
    fuzz("idset wire form", wire_case(), check_wire);
}

// ---------------------------------------------------------------------------------
// Patch commands

/// A change to a list of commands in their JSON form.
#[derive(Clone, Debug)]
enum Junk {
    /// A field's value replaced (the command's n-th field, by key order).
    Replace(Index, Index, Value),
    Remove(Index, Index),
    /// A field added: unknown, or another command's.
    Add(Index, String, Value),
    /// Two commands' `op` swapped: each names a command its fields do not fit.
    SwapOps(Index, Index),
    Insert(Index, Value),
    Duplicate(Index),
}

/// Values commands refuse or must handle: out of range, of the wrong type, empty,
/// far dates, long texts.
fn junk_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        select(vec![
            json!(null),
            json!(-1),
            json!(0),
            json!(u64::MAX),
            json!(1u64 << 53),
            json!(i64::MIN),
            json!(i32::MAX),
            json!(i32::MIN),
            json!(1.5),
            json!(1e300),
            json!(""),
            json!("  "),
            json!("x"),
            json!("2026-02-30"),
            json!("9999-12-31"),
            json!("0001-01-01"),
            json!("-262144-01-01"),
            json!([]),
            json!({}),
            json!([1, 2]),
            json!(["mon", "sun", "xyz"]),
            json!("a".repeat(5_000)),
            json!({"kind": "must_start_on", "date": "2026-02-30"}),
            json!({"kind": "start_no_earlier_than", "date": "2999-12-31", "x": 1}),
        ]),
        any::<i64>().prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        "\\PC{0,8}".prop_map(Value::from),
        any_value(),
    ]
}

fn junk() -> impl Strategy<Value = Junk> {
    let field = prop_oneof![
        Just("zzz".to_owned()),
        select(vec![
            "id",
            "bars",
            "by",
            "index",
            "start",
            "end",
            "label",
            "name",
            "row",
            "item",
            "constraint",
            "deadline",
        ])
        .prop_map(str::to_owned),
    ];
    prop_oneof![
        4 => (any::<Index>(), any::<Index>(), junk_value())
            .prop_map(|(c, f, v)| Junk::Replace(c, f, v)),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(c, f)| Junk::Remove(c, f)),
        2 => (any::<Index>(), field, junk_value()).prop_map(|(c, k, v)| Junk::Add(c, k, v)),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Junk::SwapOps(a, b)),
        1 => (any::<Index>(), any_value()).prop_map(|(c, v)| Junk::Insert(c, v)),
        1 => any::<Index>().prop_map(Junk::Duplicate),
    ]
}

fn spoil(list: &mut Vec<Value>, j: &Junk) {
    let n = list.len();
    if n == 0 {
        if let Junk::Insert(_, v) = j {
            list.push(v.clone());
        }
        return;
    }
    match j {
        Junk::Replace(c, f, v) => {
            if let Some(fields) = list[c.index(n)].as_object_mut()
                && !fields.is_empty()
            {
                let key = fields.keys().nth(f.index(fields.len())).cloned();
                if let Some(key) = key {
                    fields.insert(key, v.clone());
                }
            }
        }
        Junk::Remove(c, f) => {
            if let Some(fields) = list[c.index(n)].as_object_mut()
                && !fields.is_empty()
            {
                let key = fields.keys().nth(f.index(fields.len())).cloned();
                if let Some(key) = key {
                    fields.remove(&key);
                }
            }
        }
        Junk::Add(c, key, v) => {
            if let Some(fields) = list[c.index(n)].as_object_mut() {
                fields.insert(key.clone(), v.clone());
            }
        }
        Junk::SwapOps(a, b) => {
            let (a, b) = (a.index(n), b.index(n));
            let op_a = list[a].get("op").cloned();
            let op_b = list[b].get("op").cloned();
            if let (Some(x), Some(y)) = (op_a, op_b) {
                list[a]["op"] = y;
                list[b]["op"] = x;
            }
        }
        Junk::Insert(c, v) => list.insert(c.index(n + 1), v.clone()),
        Junk::Duplicate(c) => {
            let k = c.index(n);
            list.insert(k, list[k].clone());
        }
    }
}

#[derive(Clone, Debug)]
struct PatchCase {
    schedule: Schedule,
    text: String,
}

/// Commands over the schedule's own ids (`command::proptests`' generators: mostly
/// existing items of the right kind), spoiled at the JSON level, and now and then at
/// the byte level.
fn patch_case() -> impl Strategy<Value = PatchCase> {
    let bytes = prop::option::weighted(0.15, vec(edit(JSON_UNITS, JSON_BYTES), 1..4));
    (
        schedule(0..40),
        vec(template(), 1..8),
        // A third of the lists left whole, so that many reach `apply`.
        prop_oneof![1 => Just(Vec::new()), 2 => vec(junk(), 1..4)],
        bytes,
    )
        .prop_map(|(schedule, templates, junk, bytes)| {
            let pools = Pools::of(&schedule);
            let mut list: Vec<Value> = templates
                .iter()
                .map(|t| serde_json::to_value(build(&pools, t, false)).expect("a command"))
                .collect();
            for j in &junk {
                spoil(&mut list, j);
            }
            let mut text = Value::Array(list).to_string();
            if let Some(edits) = bytes {
                text = mutate(&text, &edits);
            }
            PatchCase { schedule, text }
        })
}

/// Never a panic; a list that applies leaves a valid schedule, one that fails leaves
/// it exactly as it was.
fn check_patch(case: &PatchCase) -> TestCaseResult {
    let before = &case.schedule;
    prop_assert!(validate_schedule(before).is_ok());
    let Ok(cmds) = serde_json::from_str::<Vec<Command>>(&case.text) else {
        return Ok(());
    };
    let mut s = before.clone();
    match apply_in_place(&mut s, &cmds) {
        Ok(_) => {
            if let Err(e) = validate_schedule(&s) {
                return Err(TestCaseError::fail(format!("invalid after apply: {e}")));
            }
        }
        Err(_) => prop_assert_eq!(&s, before, "a failed patch changed the schedule"),
    }
    Ok(())
}

#[test]
fn fuzz_patch_commands() {
    fuzz("patch commands", patch_case(), |case| check_patch(&case));
}
