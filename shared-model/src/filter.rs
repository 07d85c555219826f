//! The Filter panel language: a query typed in a box or written by an assistant,
//! parsed into an AST with byte positions, explained in French or English when it is
//! wrong, and evaluated over bars.
//!
//! ```text
//! member:Alice group:"Finance team" migration status:in_progress from:2026-11-01
//! (is:critical or is:at-risk) -status:done float<=2
//! ```
//!
//! Terms side by side must all hold (AND); `or` joins alternatives and binds loosest;
//! `-term` or `not term` negates; parentheses group. A bare word or a quoted phrase
//! searches bar labels. Text comparisons ignore case (every script's) and accents, so
//! "equipe" finds "Équipe" and "dvorak" finds "Dvořák". `float<=2` (`<`, `<=`, `=`, `>=`, `>`; French `marge`)
//! compares a bar's total float in working days. `docs/filter.md` is the reference
//! for users.
//!
//! Design choices, and why:
//! - Lexing, term checking and parsing happen in one left-to-right pass (the parser
//!   pulls each token as it needs it), so the error reported is the first one met from
//!   the left: people fix a query from the left.
//! - A query nests at most [`MAX_DEPTH`] parentheses and negations, and is at most
//!   [`MAX_LEN`] characters long. The parser recurses once per level of nesting, and
//!   any viewer (or assistant) can send a query: without the bound, `((((…` a few
//!   thousand deep overflowed the stack and aborted the server. The nesting limit is met
//!   at its 65th level, long before the length limit, so a deep query is told about its
//!   nesting, the first problem from the left.
//! - Keys have English names and French aliases (`membre:`, `statut:`...), and `ou`,
//!   `non` and `et` work like `or`, `not` and `and`: French users type French, and an
//!   assistant may write either.
//! - Curly quotes and « guillemets » quote like `"`: phones and word processors replace
//!   straight quotes, and a query pasted from them must still parse.
//! - A comparison is one word, `float<=2`, read only when the text before its operator
//!   is the key `float` or `marge`: any other word holding `<`, `=` or `>` stays label
//!   text, as it was before comparisons existed. `float:2` reads as `float=2`, as every
//!   key takes `key:value`; `float <= 2` is refused with what to write, since read word
//!   by word it would search labels and silently find nothing.
//! - Evaluation reads a [`FilterContext`] built once per schedule (folded names, each
//!   row's group and member, each bar's action statuses, flags and total float), so
//!   filtering 100,000 bars is a linear pass with no allocation per bar.
//! - Floats are given to the context apart ([`FilterContext::with_floats`]), and
//!   [`Filter::uses_floats`] tells whether a query needs them: a critical path costs
//!   ~20 ms for 100,000 bars, which most queries should not pay. A bar whose float is
//!   unknown (none given, or links in a cycle) matches no float term.
//!
//! Left to others: the critical and at-risk sets and the total floats come from `cpm`
//! and `risk` (the caller computes them and passes them in; [`floats_of`] runs `cpm`
//! for it); the rows to show for the bars selected are `layout::RowFilter`'s business.

use std::borrow::Cow;
use std::fmt;

use crate::Lang;
use crate::calendar::Calendar;
use crate::date::Date;
use crate::idset::IdSet;
use crate::risk;
use crate::schedule::*;

// ---------------------------------------------------------------------------------
// The AST

/// A part of the input, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub len: usize,
}

impl Span {
    fn new(start: usize, end: usize) -> Span {
        Span {
            start,
            len: end.saturating_sub(start),
        }
    }

    pub fn end(self) -> usize {
        self.start + self.len
    }

    /// From the start of `self` to the end of `other`.
    fn to(self, other: Span) -> Span {
        Span::new(self.start, other.end())
    }
}

/// A key of a `key:value` term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    Member,
    Group,
    Row,
    Label,
    Status,
    From,
    To,
    Is,
    Id,
    /// Total float in working days, compared to a number: `float<=2`, `marge>5`.
    Float,
    /// Percent complete, compared to a number: `progress<50`, `avancement>=100`.
    Progress,
}

impl Key {
    pub const ALL: [Key; 11] = [
        Key::Member,
        Key::Group,
        Key::Row,
        Key::Label,
        Key::Status,
        Key::From,
        Key::To,
        Key::Is,
        Key::Id,
        Key::Float,
        Key::Progress,
    ];

    /// The key's name in a language; both names are accepted whatever the language.
    pub fn name(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Key::Member, Lang::En) => "member",
            (Key::Member, Lang::Fr) => "membre",
            (Key::Group, Lang::En) => "group",
            (Key::Group, Lang::Fr) => "groupe",
            (Key::Row, Lang::En) => "row",
            (Key::Row, Lang::Fr) => "ligne",
            (Key::Label, Lang::En) => "label",
            (Key::Label, Lang::Fr) => "libellé",
            (Key::Status, Lang::En) => "status",
            (Key::Status, Lang::Fr) => "statut",
            (Key::From, Lang::En) => "from",
            (Key::From, Lang::Fr) => "du",
            (Key::To, Lang::En) => "to",
            (Key::To, Lang::Fr) => "au",
            (Key::Is, Lang::En) => "is",
            (Key::Is, Lang::Fr) => "est",
            (Key::Id, _) => "id",
            (Key::Float, Lang::En) => "float",
            (Key::Float, Lang::Fr) => "marge",
            (Key::Progress, Lang::En) => "progress",
            (Key::Progress, Lang::Fr) => "avancement",
        }
    }

    /// The key named by a folded word, in either language.
    fn parse(folded: &str) -> Option<Key> {
        Key::ALL
            .into_iter()
            .find(|k| folded == k.name(Lang::En) || folded == fold(k.name(Lang::Fr)).as_str())
    }

    /// A term using this key, to show in a message.
    fn example(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Key::Member, Lang::En) => "member:Alice",
            (Key::Member, Lang::Fr) => "membre:Alice",
            (Key::Group, Lang::En) => "group:\"Finance team\"",
            (Key::Group, Lang::Fr) => "groupe:\"Équipe finance\"",
            (Key::Row, Lang::En) => "row:Backend",
            (Key::Row, Lang::Fr) => "ligne:Backend",
            (Key::Label, Lang::En) => "label:migration",
            (Key::Label, Lang::Fr) => "libellé:migration",
            (Key::Status, Lang::En) => "status:in_progress",
            (Key::Status, Lang::Fr) => "statut:en-cours",
            (Key::From, Lang::En) => "from:2026-11-01",
            (Key::From, Lang::Fr) => "du:2026-11-01",
            (Key::To, Lang::En) => "to:2026-12-31",
            (Key::To, Lang::Fr) => "au:2026-12-31",
            (Key::Is, Lang::En) => "is:critical",
            (Key::Is, Lang::Fr) => "est:critique",
            (Key::Id, _) => "id:42",
            (Key::Float, Lang::En) => "float<=2",
            (Key::Float, Lang::Fr) => "marge<=2",
            (Key::Progress, Lang::En) => "progress<50",
            (Key::Progress, Lang::Fr) => "avancement<50",
        }
    }
}

/// A fact about a bar that other modules compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flag {
    /// On the critical path (total float <= 0), from `cpm`.
    Critical,
    /// At risk of absence or late because of a link, from `risk`.
    AtRisk,
    /// An end (predecessor or successor) of a link its dates break.
    Violated,
    /// Behind its planned progress at the status date, from `tracking`.
    Late,
    /// Past its last day and not complete at the status date, from `tracking`.
    Overdue,
}

/// How a number term compares the bar's value (left) to the number written (right).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compare {
    /// `<`
    Lt,
    /// `<=` (or `≤`)
    Le,
    /// `=` (or `:`, as in `float:0`)
    Eq,
    /// `>=` (or `≥`)
    Ge,
    /// `>`
    Gt,
}

impl Compare {
    /// Whether `value` (the bar's) compares to `number` (the query's) this way.
    pub fn holds(self, value: i64, number: i64) -> bool {
        match self {
            Compare::Lt => value < number,
            Compare::Le => value <= number,
            Compare::Eq => value == number,
            Compare::Ge => value >= number,
            Compare::Gt => value > number,
        }
    }
}

/// What one term checks. Texts are stored folded (see [`fold`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Test {
    /// The bar's label contains the text.
    Label(String),
    /// The name of the member of the bar's row contains the text.
    Member(String),
    /// The name of the bar's group contains the text.
    Group(String),
    /// The name of the bar's row contains the text.
    Row(String),
    /// The bar has an action with this status.
    Status(ActionStatus),
    /// The bar ends on or after this day.
    From(Date),
    /// The bar starts on or before this day.
    To(Date),
    Is(Flag),
    Id(BarId),
    /// The bar's total float, in working days, compares to the number. A bar whose
    /// float the context does not know matches no such term.
    Float(Compare, i64),
    /// The bar's percent complete compares to the number.
    Progress(Compare, i64),
}

/// A parsed query. Each node carries the span of the input it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// At least one holds (two or more operands).
    Or(Span, Vec<Expr>),
    /// All hold (two or more operands).
    And(Span, Vec<Expr>),
    Not(Span, Box<Expr>),
    Term(Span, Test),
}

impl Expr {
    pub fn span(&self) -> Span {
        match self {
            Expr::Or(s, _) | Expr::And(s, _) | Expr::Not(s, _) | Expr::Term(s, _) => *s,
        }
    }

    /// Whether a term reads total floats, so that the caller computes them (the
    /// critical path of 100,000 bars costs ~20 ms) only for a query that needs them.
    pub fn uses_floats(&self) -> bool {
        // A stack rather than recursion: anyone can build an `Expr`, deeper than
        // `parse` would allow.
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            match e {
                Expr::Or(_, items) | Expr::And(_, items) => stack.extend(items),
                Expr::Not(_, inner) => stack.push(inner),
                Expr::Term(_, Test::Float(..)) => return true,
                Expr::Term(..) => {}
            }
        }
        false
    }
}

/// A query, ready to evaluate. The empty query matches every bar.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    expr: Option<Expr>,
}

// ---------------------------------------------------------------------------------
// Limits

/// The deepest nesting of parentheses and negations (`-`, `not`, `non`) a query may
/// have: in `-(a or not (b c))` the term `b` sits 4 levels deep.
///
/// Why a bound: the parser recurses once per level, and a query comes from anyone who
/// can view a schedule; `((((…` a few thousand levels deep overflowed the server's stack
/// and aborted the whole process. Why 64: people nest two or three levels, generated
/// queries rarely ten, and 64 levels of parentheses take under 64 KB of stack in a
/// release build (under 384 KB in a debug one, whose frames are larger), well within
/// the 1 MB of the view's wasm stack and the 2 MB of a server or test thread.
pub const MAX_DEPTH: usize = 64;

/// The longest query, in characters (not bytes: accented French must not be held to a
/// shorter limit than English, and characters are what the message can tell people).
///
/// Why 4,096: a typed query is a few dozen characters and an assistant's a few hundred
/// (some 350 `id:` terms joined by `or` fit); the bound caps what one query costs, the
/// tokens it keeps and the terms evaluated on every bar of the schedule, whatever is
/// sent.
pub const MAX_LEN: usize = 4_096;

// ---------------------------------------------------------------------------------
// Errors

/// Why a query does not parse, and where: `position` and `len` are bytes of the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterError {
    pub position: usize,
    pub len: usize,
    pub kind: FilterErrorKind,
}

/// Which side of an operator lacks a condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Before,
    After,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FilterErrorKind {
    /// `word:value` where `word` is no key.
    UnknownKey {
        key: String,
    },
    /// `:value` with nothing before the colon.
    MissingKey,
    /// `key:` with nothing after the colon.
    MissingValue {
        key: Key,
    },
    /// `""`: a quoted phrase with no text.
    EmptyQuote,
    /// A value outside the list a key accepts (`status:`, `is:`).
    BadValue {
        key: Key,
        value: String,
    },
    BadDate {
        key: Key,
        value: String,
    },
    BadId {
        value: String,
    },
    /// `float<>2`: after a comparison key, an operator that is none of `<`, `<=`,
    /// `=`, `>=`, `>`; the span is the operator.
    BadOperator {
        key: Key,
        operator: String,
    },
    /// `float<=` or `float:` with no number after it; `operator` is what follows the
    /// key, as typed (`<=`, `:`).
    MissingNumber {
        key: Key,
        operator: String,
    },
    /// `float<=2.5`: the number is not a whole one (or does not fit in 64 bits).
    BadNumber {
        key: Key,
        value: String,
    },
    /// `float <= 2`: a comparison key alone, then an operator after a space (which
    /// would otherwise search labels for "float", "<=" and "2" and find nothing); the
    /// span runs to the number, and `fix` is the span without its spaces (`float<=2`).
    SpacedComparison {
        key: Key,
        fix: String,
    },
    /// A quote opened and not closed; `close` is the character that closes it.
    UnclosedQuote {
        close: char,
    },
    UnclosedParen,
    UnmatchedCloseParen,
    EmptyParens,
    /// `or`, `and`, `not` or `-` without a condition on one side; `operator` is the
    /// word as typed.
    MissingOperand {
        operator: String,
        side: Side,
    },
    /// Parentheses and negations nested deeper than `max` (see [`MAX_DEPTH`]); the
    /// span is the `(` or negation that goes one level too deep.
    TooDeep {
        max: usize,
    },
    /// A query longer than `max` characters (see [`MAX_LEN`]); `chars` is its length
    /// and the span the part past the limit.
    TooLong {
        chars: usize,
        max: usize,
    },
}

impl FilterError {
    fn at(span: Span, kind: FilterErrorKind) -> FilterError {
        FilterError {
            position: span.start,
            len: span.len,
            kind,
        }
    }

    /// What is wrong and what would be valid, in a language.
    pub fn message(&self, lang: Lang) -> String {
        use FilterErrorKind as K;
        let q = |text: &str| match lang {
            Lang::Fr => format!("«\u{a0}{text}\u{a0}»"),
            Lang::En => format!("\"{text}\""),
        };
        let keys = match lang {
            Lang::Fr => format!(
                "Clés valides\u{a0}: {} (ou en anglais\u{a0}: {}).",
                key_list(Lang::Fr),
                key_list(Lang::En)
            ),
            Lang::En => format!("Valid keys: {}.", key_list(Lang::En)),
        };
        match (&self.kind, lang) {
            (K::UnknownKey { key }, Lang::Fr) => format!(
                "{} n'est pas une clé de filtre. {keys} Pour chercher un texte qui contient \
                 «\u{a0}:\u{a0}», mettez-le entre guillemets.",
                q(key)
            ),
            (K::UnknownKey { key }, Lang::En) => format!(
                "{} is not a filter key. {keys} To search for text that contains \":\", put \
                 it in quotes.",
                q(key)
            ),
            (K::MissingKey, Lang::Fr) => {
                format!("«\u{a0}:\u{a0}» doit suivre une clé, comme dans membre:Alice. {keys}")
            }
            (K::MissingKey, Lang::En) => {
                format!("\":\" must follow a key, as in member:Alice. {keys}")
            }
            (K::MissingValue { key }, Lang::Fr) => format!(
                "{}: attend une valeur, par exemple {}\u{202f}; une valeur de plusieurs mots se met \
                 entre guillemets.",
                key.name(lang),
                key.example(lang)
            ),
            (K::MissingValue { key }, Lang::En) => format!(
                "{}: needs a value, e.g. {}; put a value of several words in quotes.",
                key.name(lang),
                key.example(lang)
            ),
            (K::EmptyQuote, Lang::Fr) => {
                "Ces guillemets sont vides\u{a0}: écrivez un texte entre eux ou retirez-les.".into()
            }
            (K::EmptyQuote, Lang::En) => {
                "These quotes hold no text: write something between them or remove them.".into()
            }
            (K::BadValue { key, value }, Lang::Fr) => format!(
                "{} n'est pas une valeur possible pour {}:. Valeurs valides\u{a0}: {}.",
                q(value),
                key.name(lang),
                valid_values(*key, lang)
            ),
            (K::BadValue { key, value }, Lang::En) => format!(
                "{} is not a valid value for {}:. Valid values: {}.",
                q(value),
                key.name(lang),
                valid_values(*key, lang)
            ),
            (K::BadDate { key, value }, Lang::Fr) => format!(
                "{} n'est pas une date. Format attendu\u{a0}: AAAA-MM-JJ ou AAAA-MM, par exemple \
                 {}:2026-11-30 ou {}:2026-11.",
                q(value),
                key.name(lang),
                key.name(lang)
            ),
            (K::BadDate { key, value }, Lang::En) => format!(
                "{} is not a date. Expected YYYY-MM-DD or YYYY-MM, e.g. {}:2026-11-30 or \
                 {}:2026-11.",
                q(value),
                key.name(lang),
                key.name(lang)
            ),
            (K::BadId { value }, Lang::Fr) => format!(
                "{} n'est pas un identifiant de barre. Attendu\u{a0}: un nombre, par exemple id:42.",
                q(value)
            ),
            (K::BadId { value }, Lang::En) => format!(
                "{} is not a bar id. Expected a number, e.g. id:42.",
                q(value)
            ),
            (K::BadOperator { key, operator }, _) => bad_operator(*key, operator, lang),
            (K::MissingNumber { key, operator }, Lang::Fr) => format!(
                "{k}{operator} attend juste après lui un nombre entier de jours ouvrés, par \
                 exemple {k}{operator}2.",
                k = key.name(lang)
            ),
            (K::MissingNumber { key, operator }, Lang::En) => format!(
                "{k}{operator} needs a whole number of working days right after it, e.g. \
                 {k}{operator}2.",
                k = key.name(lang)
            ),
            (K::BadNumber { key, value }, Lang::Fr) => format!(
                "{} n'est pas un nombre de jours ouvrés. Attendu\u{a0}: un nombre entier, par \
                 exemple {}.",
                q(value),
                key.example(lang)
            ),
            (K::BadNumber { key, value }, Lang::En) => format!(
                "{} is not a number of working days. Expected a whole number, e.g. {}.",
                q(value),
                key.example(lang)
            ),
            // Without a number after the operator, the fix would be no term either.
            (K::SpacedComparison { key, fix }, Lang::Fr) if fix.ends_with(is_compare_char) => {
                format!(
                    "Une comparaison s'écrit sans espace, par exemple {}.",
                    key.example(lang)
                )
            }
            (K::SpacedComparison { key, fix }, Lang::En) if fix.ends_with(is_compare_char) => {
                format!(
                    "Write a comparison without spaces, e.g. {}.",
                    key.example(lang)
                )
            }
            (K::SpacedComparison { fix, .. }, Lang::Fr) => {
                format!("Une comparaison s'écrit sans espace\u{a0}: {}.", q(fix))
            }
            (K::SpacedComparison { fix, .. }, Lang::En) => {
                format!("Write a comparison without spaces: {}.", q(fix))
            }
            (K::UnclosedQuote { close }, Lang::Fr) => format!(
                "Ces guillemets ne sont jamais fermés\u{a0}: ajoutez {} après le texte.",
                q(&close.to_string())
            ),
            (K::UnclosedQuote { close }, Lang::En) => format!(
                "This quote is never closed: add {} after the text.",
                q(&close.to_string())
            ),
            (K::UnclosedParen, Lang::Fr) => {
                "Cette parenthèse n'est jamais fermée\u{a0}: ajoutez «\u{a0})\u{a0}» à la fin du groupe.".into()
            }
            (K::UnclosedParen, Lang::En) => {
                "This parenthesis is never closed: add \")\" at the end of the group.".into()
            }
            (K::UnmatchedCloseParen, Lang::Fr) => {
                "Cette «\u{a0})\u{a0}» ne ferme rien\u{a0}: retirez-la, ou ajoutez «\u{a0}(\u{a0}» au début du groupe."
                    .into()
            }
            (K::UnmatchedCloseParen, Lang::En) => {
                "This \")\" closes nothing: remove it, or add \"(\" where the group starts.".into()
            }
            (K::EmptyParens, Lang::Fr) => {
                "Ces parenthèses ne contiennent aucune condition\u{a0}: mettez-en une, par exemple \
                 (membre:Alice ou membre:Bob), ou retirez-les."
                    .into()
            }
            (K::EmptyParens, Lang::En) => {
                "These parentheses hold no condition: put one inside, e.g. (member:Alice or \
                 member:Bob), or remove them."
                    .into()
            }
            (K::MissingOperand { operator, side }, _) => missing_operand(operator, *side, lang),
            (K::TooDeep { max }, Lang::Fr) => format!(
                "Ce filtre imbrique parenthèses et négations (-, non) sur plus de {} \
                 niveaux\u{a0}: simplifiez-le, par exemple en retirant des parenthèses en trop \
                 ou des doubles négations.",
                thousands(*max, lang)
            ),
            (K::TooDeep { max }, Lang::En) => format!(
                "This filter nests parentheses and negations (-, not) more than {} levels \
                 deep: simplify it, e.g. remove extra parentheses or double negations.",
                thousands(*max, lang)
            ),
            (K::TooLong { chars, max }, Lang::Fr) => format!(
                "Ce filtre fait {} caractères\u{202f}; un filtre en compte au plus {}\u{a0}: \
                 raccourcissez-le (la partie en trop est marquée).",
                thousands(*chars, lang),
                thousands(*max, lang)
            ),
            (K::TooLong { chars, max }, Lang::En) => format!(
                "This filter is {} characters long; a filter holds at most {}: shorten it \
                 (the part past the limit is marked).",
                thousands(*chars, lang),
                thousands(*max, lang)
            ),
        }
    }

    /// The input, a caret line under the faulty part, and the message: what the Filter
    /// panel shows under its box, and what a tool answers an assistant.
    pub fn render(&self, input: &str, lang: Lang) -> String {
        // One line of input: a tab or a newline would break the caret's alignment.
        let line: String = input
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let column = input.get(..self.position).map_or(0, |s| s.chars().count());
        let width = input
            .get(self.position..self.position + self.len)
            .map_or(1, |s| s.chars().count().max(1));
        format!(
            "{line}\n{}{}\n{}",
            " ".repeat(column),
            "^".repeat(width),
            self.message(lang)
        )
    }
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Lang::default()))
    }
}

impl std::error::Error for FilterError {}

fn key_list(lang: Lang) -> String {
    Key::ALL
        .iter()
        .map(|k| k.name(lang))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A count with its thousands grouped as each language writes them: `4,096`, and in
/// French `4 096` with a narrow no-break space (U+202F), so that a line break never splits the number.
fn thousands(n: usize, lang: Lang) -> String {
    let sep = match lang {
        Lang::Fr => '\u{202f}',
        Lang::En => ',',
    };
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() * 2);
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

fn valid_values(key: Key, lang: Lang) -> &'static str {
    match (key, lang) {
        (Key::Status, Lang::Fr) => "à-faire, en-cours, terminée (ou todo, in_progress, done)",
        (Key::Status, Lang::En) => "todo, in_progress, done",
        (Key::Is, Lang::Fr) => {
            "critique, à-risque, violé, en-retard, hors-délai (ou critical, at-risk, violated, \
             late, overdue)"
        }
        (Key::Is, Lang::En) => "critical, at-risk, violated, late, overdue",
        _ => "",
    }
}

/// The message for an unknown comparison operator: the fix when the intent is clear
/// (`=<` for `<=`, `!=` for a negated `=`), else the operators there are.
fn bad_operator(key: Key, operator: &str, lang: Lang) -> String {
    let k = key.name(lang);
    let fix = match operator {
        "=<" => Some("<="),
        "=>" => Some(">="),
        "==" => Some("="),
        _ => None,
    };
    let not_equal = operator.contains(['!', '≠']) || operator == "<>";
    match (lang, fix, not_equal) {
        (Lang::Fr, Some(fix), _) => format!(
            "«\u{a0}{operator}\u{a0}» n'est pas une comparaison\u{a0}: écrivez «\u{a0}{fix}\u{a0}», par exemple \
             {k}{fix}2."
        ),
        (Lang::En, Some(fix), _) => {
            format!("\"{operator}\" is not a comparison: write \"{fix}\", e.g. {k}{fix}2.")
        }
        (Lang::Fr, None, true) => format!(
            "«\u{a0}{operator}\u{a0}» n'est pas une comparaison\u{a0}: pour les barres dont {} n'est \
             pas 2, niez l'égalité\u{a0}: -{k}=2.",
            if key == Key::Progress {
                "l'avancement"
            } else {
                "la marge"
            }
        ),
        (Lang::En, None, true) => format!(
            "\"{operator}\" is not a comparison: for the bars whose {} is not 2, negate \
             the equality: -{k}=2.",
            if key == Key::Progress {
                "progress"
            } else {
                "float"
            }
        ),
        (Lang::Fr, None, false) => format!(
            "«\u{a0}{operator}\u{a0}» n'est pas une comparaison. Écrivez <, <=, =, >= ou > entre {k} \
             et le nombre, par exemple {k}<=2."
        ),
        (Lang::En, None, false) => format!(
            "\"{operator}\" is not a comparison. Write <, <=, =, >= or > between {k} and \
             the number, e.g. {k}<=2."
        ),
    }
}

fn missing_operand(operator: &str, side: Side, lang: Lang) -> String {
    let negation =
        operator == "-" || matches!(operator.to_ascii_lowercase().as_str(), "not" | "non");
    match (lang, negation, side) {
        (Lang::Fr, true, _) => format!(
            "«\u{a0}{operator}\u{a0}» attend une condition juste après, par exemple -statut:terminée ou \
             non statut:terminée."
        ),
        (Lang::En, true, _) => format!(
            "\"{operator}\" needs a condition right after it, e.g. -status:done or not \
             status:done."
        ),
        (Lang::Fr, false, side) => format!(
            "«\u{a0}{operator}\u{a0}» attend une condition {}, par exemple libellé:audit {operator} \
             libellé:migration.",
            if side == Side::Before {
                "avant lui"
            } else {
                "après lui"
            }
        ),
        (Lang::En, false, side) => format!(
            "\"{operator}\" needs a condition {} it, e.g. label:audit {operator} \
             label:migration.",
            if side == Side::Before {
                "before"
            } else {
                "after"
            }
        ),
    }
}

// ---------------------------------------------------------------------------------
// Folding

/// Text as the filter compares it: every script's full lower case (the standard
/// library's `char::to_lowercase`), accents and other diacritics removed (each char's
/// canonical decomposition, without its combining marks), the letters that carry a
/// stroke or are ligatures made plain, curly apostrophes and non-breaking spaces made
/// plain. Both the query and the schedule's names go through it, so "dvorak" finds
/// "Dvořák", "ete" finds "ÉTÉ", "strasse" finds "Straße", "l'equipe" finds "L’Équipe".
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        // Most names are ASCII: their fold is their ASCII lower case.
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
            continue;
        }
        // A Hangul syllable decomposes into its letters, but it is one syllable to the
        // person: kept whole, "하" does not find "한".
        if ('\u{ac00}'..='\u{d7a3}').contains(&c) {
            out.push(c);
            continue;
        }
        for l in c.to_lowercase() {
            unicode_normalization::char::decompose_canonical(l, |d| push_folded(d, &mut out));
        }
    }
    out
}

/// Appends one char of a lower-cased, canonically decomposed text as the filter
/// compares it.
fn push_folded(c: char, out: &mut String) {
    // The base letter of most decompositions: no mark, nothing to map.
    if c.is_ascii() {
        out.push(c);
        return;
    }
    // The combining marks a decomposition splits off (accents, cedillas, Greek tonos,
    // Hebrew and Arabic vowel points) have a non-zero combining class; the kana voicing
    // marks too, but "が" and "か" are two syllables, not one with an accent.
    if unicode_normalization::char::canonical_combining_class(c) != 0
        && !matches!(c, '\u{3099}' | '\u{309a}')
    {
        return;
    }
    match c {
        // No decomposition, but read as accented letters where they are used: Polish,
        // Nordic, Croatian and Vietnamese, Maltese, Turkish.
        'ł' => out.push('l'),
        'ø' => out.push('o'),
        'đ' => out.push('d'),
        'ħ' => out.push('h'),
        'ı' => out.push('i'),
        // Ligatures, written out as a keyboard without them types them. Case folding
        // itself maps "ß" to "ss"; its capital "ẞ" lowers to "ß".
        'ß' => out.push_str("ss"),
        'œ' => out.push_str("oe"),
        'æ' => out.push_str("ae"),
        // Case folding's own: the final sigma is a sigma, so "ΟΔΟΣ" finds "οδός".
        'ς' => out.push('σ'),
        '\u{2019}' | '\u{2018}' => out.push('\''),
        '\u{a0}' | '\u{202f}' => out.push(' '),
        other => out.push(other),
    }
}

// ---------------------------------------------------------------------------------
// Lexing

#[derive(Clone, Debug)]
enum Tok {
    Open(Span),
    Close(Span),
    /// `-`, `not` or `non`, as typed.
    Not(Span, String),
    /// `or` or `ou`, as typed.
    Or(Span, String),
    /// `and` or `et`, as typed: the same as a space.
    And(Span, String),
    Term(Span, Test),
}

impl Tok {
    fn span(&self) -> Span {
        match self {
            Tok::Open(s)
            | Tok::Close(s)
            | Tok::Not(s, _)
            | Tok::Or(s, _)
            | Tok::And(s, _)
            | Tok::Term(s, _) => *s,
        }
    }
}

/// The characters a quoted text may end with, if `c` opens one. Curly quotes are
/// accepted in either orientation, and closed by a straight quote too, because
/// keyboards that "smarten" quotes do not always choose the right one.
fn closers(c: char) -> Option<&'static [char]> {
    match c {
        '"' => Some(&['"']),
        '\u{201c}' | '\u{201d}' => Some(&['\u{201d}', '\u{201c}', '"']),
        '«' => Some(&['»']),
        _ => None,
    }
}

/// The text of the quote opening at `at` (escapes resolved, trimmed) and the byte
/// just after its closing quote. Inside quotes, `\` makes the next character literal.
fn read_quoted(input: &str, at: usize) -> Result<(String, usize), FilterError> {
    let open = input[at..].chars().next().unwrap_or('"');
    let ends = closers(open).unwrap_or(&['"']);
    let mut text = String::new();
    let mut chars = input[at + open.len_utf8()..].char_indices();
    while let Some((k, c)) = chars.next() {
        if c == '\\' {
            if let Some((_, escaped)) = chars.next() {
                text.push(escaped);
            }
        } else if ends.contains(&c) {
            let end = at + open.len_utf8() + k + c.len_utf8();
            return Ok((text.trim().to_owned(), end));
        } else {
            text.push(c);
        }
    }
    Err(FilterError::at(
        Span::new(at, at + open.len_utf8()),
        FilterErrorKind::UnclosedQuote { close: ends[0] },
    ))
}

/// The end of the word starting at `at`: the next space, parenthesis or opening quote.
fn word_end(input: &str, at: usize) -> usize {
    input[at..]
        .char_indices()
        .find(|(_, c)| c.is_whitespace() || *c == '(' || *c == ')' || closers(*c).is_some())
        .map_or(input.len(), |(k, _)| at + k)
}

/// Hands the parser one token at a time, so that an error early in the query is found
/// without reading the rest, and refuses to read past the length limit.
struct Lexer<'a> {
    input: &'a str,
    at: usize,
    /// The byte at which the input passes the length limit, if it does: reading on
    /// from there is an error.
    cut: Option<usize>,
    max_len: usize,
}

impl<'a> Lexer<'a> {
    fn new(input: &'a str, max_len: usize) -> Lexer<'a> {
        // More bytes than the limit is the only way to have more characters than it.
        let cut = if input.len() > max_len {
            input.char_indices().nth(max_len).map(|(at, _)| at)
        } else {
            None
        };
        Lexer {
            input,
            at: 0,
            cut,
            max_len,
        }
    }

    /// The error for a query past the length limit: the part past it is marked.
    fn too_long(&self, cut: usize) -> FilterError {
        FilterError::at(
            Span::new(cut, self.input.len()),
            FilterErrorKind::TooLong {
                chars: self.input.chars().count(),
                max: self.max_len,
            },
        )
    }

    /// The next token, None at the end of the input.
    fn next(&mut self) -> Result<Option<Tok>, FilterError> {
        let input = self.input;
        let mut i = self.at;
        while let Some(c) = input[i..].chars().next().filter(|c| c.is_whitespace()) {
            i += c.len_utf8();
        }
        self.at = i;
        if let Some(cut) = self.cut.filter(|&cut| i >= cut) {
            return Err(self.too_long(cut));
        }
        let Some(c) = input[i..].chars().next() else {
            return Ok(None);
        };
        let here = Span::new(i, i + c.len_utf8());
        let (tok, end) = if c == '(' {
            (Tok::Open(here), here.end())
        } else if c == ')' {
            (Tok::Close(here), here.end())
        } else if c == '-' {
            // A dash negates only when a condition is glued to it; "a - b" is a mistake
            // worth pointing at rather than a search for "-".
            match input[i + 1..].chars().next() {
                Some(n) if !n.is_whitespace() && n != ')' => {
                    (Tok::Not(here, "-".into()), here.end())
                }
                _ => {
                    return Err(FilterError::at(
                        here,
                        FilterErrorKind::MissingOperand {
                            operator: "-".into(),
                            side: Side::After,
                        },
                    ));
                }
            }
        } else if closers(c).is_some() {
            let (text, end) = read_quoted(input, i)?;
            let span = Span::new(i, end);
            if text.is_empty() {
                return Err(FilterError::at(span, FilterErrorKind::EmptyQuote));
            }
            (Tok::Term(span, Test::Label(fold(&text))), end)
        } else {
            let end = word_end(input, i);
            let word = &input[i..end];
            if let Some((key, op_at)) = compared_key(word) {
                let test = comparison(input, key, i, i + op_at, i + op_at, end)?;
                (Tok::Term(Span::new(i, end), test), end)
            } else if let Some(colon) = word.find(':') {
                key_term(input, i, end, colon)?
            } else {
                let span = Span::new(i, end);
                // Operators are matched on case only, not accents: "où" is a word.
                // ASCII case is enough: no other capital lowers to these letters alone.
                let tok = match word.to_ascii_lowercase().as_str() {
                    "or" | "ou" => Tok::Or(span, word.into()),
                    "not" | "non" => Tok::Not(span, word.into()),
                    "and" | "et" => Tok::And(span, word.into()),
                    _ => {
                        self.spaced_comparison(span)?;
                        Tok::Term(span, Test::Label(fold(word)))
                    }
                };
                (tok, end)
            }
        };
        // A token that runs past the limit is refused like one that starts past it.
        if let Some(cut) = self.cut.filter(|&cut| end > cut) {
            return Err(self.too_long(cut));
        }
        self.at = end;
        Ok(Some(tok))
    }
}

impl Lexer<'_> {
    /// Refuses `float <= 2` at the bare word `word`: read as it is written, it would
    /// search labels for "float", "<=" and "2" and quietly find nothing. A comparison
    /// key followed by a space and no operator (`marge brute`) stays label text.
    fn spaced_comparison(&self, word: Span) -> Result<(), FilterError> {
        let input = self.input;
        let Some(key) = Key::parse(&fold(&input[word.start..word.end()])).filter(|k| k.compares())
        else {
            return Ok(());
        };
        let rest = &input[word.end()..];
        let next = rest.trim_start();
        if next.len() == rest.len() || !next.starts_with(is_compare_char) {
            return Ok(());
        }
        let op_at = input.len() - next.len();
        let mut end = word_end(input, op_at);
        // `float <= 2`: the number is the next word (`float <=2` holds it already).
        if input[op_at..end].chars().all(is_compare_char) {
            let rest = &input[end..];
            let number_at = input.len() - rest.trim_start().len();
            end = end.max(word_end(input, number_at));
        }
        // What lies past the length limit is not read: the limit's error comes first,
        // when the lexer gets there.
        if self.cut.is_some_and(|cut| end > cut) {
            return Ok(());
        }
        let fix = input[word.start..end]
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        Err(FilterError::at(
            Span::new(word.start, end),
            FilterErrorKind::SpacedComparison { key, fix },
        ))
    }
}

/// The characters an operator of a comparison term is made of, the unknown ones
/// (`!`, `≠`) included so that `float!=2` is told what to write rather than read as
/// a number `!=2`.
fn is_compare_char(c: char) -> bool {
    matches!(c, '<' | '>' | '=' | '!' | '≤' | '≥' | '≠')
}

/// Where the operator starts, if a bare word is a comparison term (`float<=2`): the
/// text before its first operator character names a comparison key. Any other word
/// with `<`, `=` or `>` stays label text (or a `key:value` term) as it always was,
/// so that searches for "a=b" keep working.
fn compared_key(word: &str) -> Option<(Key, usize)> {
    let at = word.find(|c| c == ':' || is_compare_char(c))?;
    if word[at..].starts_with(':') {
        return None;
    }
    Key::parse(&fold(&word[..at]))
        .filter(|k| k.compares())
        .map(|k| (k, at))
}

impl Key {
    /// Whether the key compares a number (`float<=2`, `progress<50`) rather than
    /// taking a `key:value`.
    fn compares(self) -> bool {
        matches!(self, Key::Float | Key::Progress)
    }
}

/// The comparison term spanning [start, end): the key ends at `key_end`, its operator
/// and number start at `rest_at` (after the colon of `float:2` or `float:<=2`, else
/// at `key_end`).
fn comparison(
    input: &str,
    key: Key,
    start: usize,
    key_end: usize,
    rest_at: usize,
    end: usize,
) -> Result<Test, FilterError> {
    let rest = &input[rest_at..end];
    let op_end = rest_at + rest.find(|c| !is_compare_char(c)).unwrap_or(rest.len());
    let op = match &input[rest_at..op_end] {
        // Only after a colon (a bare word gets here at an operator character):
        // `float:0` reads as `=`, as every other key reads its value.
        "" => Compare::Eq,
        "<" => Compare::Lt,
        // `≤` and `≥`: phones, word processors and assistants write them.
        "<=" | "≤" => Compare::Le,
        "=" => Compare::Eq,
        ">=" | "≥" => Compare::Ge,
        ">" => Compare::Gt,
        other => {
            return Err(FilterError::at(
                Span::new(rest_at, op_end),
                FilterErrorKind::BadOperator {
                    key,
                    operator: other.to_owned(),
                },
            ));
        }
    };
    let number = &input[op_end..end];
    if number.is_empty() {
        return Err(FilterError::at(
            Span::new(start, end),
            FilterErrorKind::MissingNumber {
                key,
                operator: input[key_end..op_end].to_owned(),
            },
        ));
    }
    // `i64`'s parser takes ASCII digits only, with an optional sign: floats are never
    // negative (see `cpm`), but `float>-1` has a meaning and no reason to be refused.
    match number.parse::<i64>() {
        Ok(n) if key == Key::Progress => Ok(Test::Progress(op, n)),
        Ok(n) => Ok(Test::Float(op, n)),
        Err(_) => Err(FilterError::at(
            Span::new(op_end, end),
            FilterErrorKind::BadNumber {
                key,
                value: number.to_owned(),
            },
        )),
    }
}

/// The `key:value` term whose word spans [start, end) with its first colon at
/// `start + colon`, and the byte after it (after a quoted value, if any).
fn key_term(
    input: &str,
    start: usize,
    end: usize,
    colon: usize,
) -> Result<(Tok, usize), FilterError> {
    let key_text = &input[start..start + colon];
    let colon_at = start + colon;
    if key_text.is_empty() {
        return Err(FilterError::at(
            Span::new(colon_at, colon_at + 1),
            FilterErrorKind::MissingKey,
        ));
    }
    let Some(key) = Key::parse(&fold(key_text)) else {
        return Err(FilterError::at(
            Span::new(start, colon_at),
            FilterErrorKind::UnknownKey {
                key: key_text.to_owned(),
            },
        ));
    };
    if key.compares() {
        // No quoted value here: a number needs no quotes, and `float:"2"` gets the
        // missing number's message, which says what to write.
        let test = comparison(input, key, start, colon_at, colon_at + 1, end)?;
        return Ok((Tok::Term(Span::new(start, end), test), end));
    }
    let value_at = colon_at + 1;
    let quoted = value_at == end
        && input[end..]
            .chars()
            .next()
            .is_some_and(|c| closers(c).is_some());
    let (value, value_span) = if quoted {
        let (text, after) = read_quoted(input, end)?;
        (text, Span::new(end, after))
    } else {
        (input[value_at..end].to_owned(), Span::new(value_at, end))
    };
    if value.is_empty() {
        return Err(FilterError::at(
            Span::new(start, value_span.end()),
            FilterErrorKind::MissingValue { key },
        ));
    }
    let test = key_test(key, &value, value_span)?;
    Ok((
        Tok::Term(Span::new(start, value_span.end()), test),
        value_span.end(),
    ))
}

fn key_test(key: Key, value: &str, span: Span) -> Result<Test, FilterError> {
    let bad = |kind| FilterError::at(span, kind);
    let folded = fold(value);
    // "in_progress", "in-progress" and "en cours" name the same status; "fait" is an
    // older word for « terminée », the status's name in every text.
    let word = folded.replace(['_', ' '], "-");
    Ok(match key {
        Key::Member => Test::Member(folded),
        Key::Group => Test::Group(folded),
        Key::Row => Test::Row(folded),
        Key::Label => Test::Label(folded),
        Key::Status => Test::Status(match word.as_str() {
            "todo" | "to-do" | "a-faire" => ActionStatus::Todo,
            "in-progress" | "doing" | "en-cours" => ActionStatus::InProgress,
            "done" | "fait" | "termine" | "terminee" => ActionStatus::Done,
            _ => {
                return Err(bad(FilterErrorKind::BadValue {
                    key,
                    value: value.to_owned(),
                }));
            }
        }),
        Key::Is => Test::Is(match word.as_str() {
            "critical" | "critique" => Flag::Critical,
            "at-risk" | "risk" | "a-risque" | "risque" => Flag::AtRisk,
            "violated" | "viole" => Flag::Violated,
            "late" | "en-retard" | "retard" => Flag::Late,
            "overdue" | "hors-delai" | "echu" => Flag::Overdue,
            _ => {
                return Err(bad(FilterErrorKind::BadValue {
                    key,
                    value: value.to_owned(),
                }));
            }
        }),
        Key::From | Key::To => match parse_day(value, key == Key::To) {
            Some(d) if key == Key::From => Test::From(d),
            Some(d) => Test::To(d),
            None => {
                return Err(bad(FilterErrorKind::BadDate {
                    key,
                    value: value.to_owned(),
                }));
            }
        },
        // `key_term` hands float terms to `comparison` instead, which knows where the
        // operator is; this arm reads `float:2` the same way, rather than panic, should
        // a new caller reach it.
        Key::Float | Key::Progress => match value.parse::<i64>() {
            Ok(n) if key == Key::Progress => Test::Progress(Compare::Eq, n),
            Ok(n) => Test::Float(Compare::Eq, n),
            Err(_) => {
                return Err(bad(FilterErrorKind::BadNumber {
                    key,
                    value: value.to_owned(),
                }));
            }
        },
        Key::Id => {
            let digits = value.strip_prefix(['b', 'B']).unwrap_or(value);
            match digits.parse::<u64>() {
                Ok(n) if digits.bytes().all(|b| b.is_ascii_digit()) => Test::Id(BarId(n)),
                _ => {
                    return Err(bad(FilterErrorKind::BadId {
                        value: value.to_owned(),
                    }));
                }
            }
        }
    })
}

/// A day written YYYY-MM-DD, or a month written YYYY-MM: its first day, or its last
/// when `end_of_month` (so `to:2026-11` keeps bars starting on November 30th).
fn parse_day(value: &str, end_of_month: bool) -> Option<Date> {
    if let Ok(d) = value.parse::<Date>() {
        return Some(d);
    }
    let b = value.as_bytes();
    if b.len() != 7
        || b[4] != b'-'
        || !value
            .bytes()
            .enumerate()
            .all(|(k, c)| k == 4 || c.is_ascii_digit())
    {
        return None;
    }
    let (y, m) = (value[..4].parse().ok()?, value[5..].parse().ok()?);
    let first = Date::from_ymd(y, m, 1)?;
    Some(if end_of_month {
        first.add_months_to_first(1).add_days(-1)
    } else {
        first
    })
}

// ---------------------------------------------------------------------------------
// Parsing
//
//   query   := or?
//   or      := and (("or" | "ou") and)*
//   and     := unary (("and" | "et")? unary)*
//   unary   := ("-" | "not" | "non") unary | primary
//   primary := "(" or ")" | term

struct Parser<'a> {
    lexer: Lexer<'a>,
    /// The tokens read so far; `no_condition` looks back at the one before `pos`.
    toks: Vec<Tok>,
    pos: usize,
    /// Parentheses and negations open around the token at `pos`.
    depth: usize,
    max_depth: usize,
}

impl Parser<'_> {
    /// Reads the token at `pos` if it is not read yet; call before `peek`.
    fn fill(&mut self) -> Result<(), FilterError> {
        if self.pos == self.toks.len()
            && let Some(tok) = self.lexer.next()?
        {
            self.toks.push(tok);
        }
        Ok(())
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn or(&mut self) -> Result<Expr, FilterError> {
        let mut items = vec![self.and()?];
        loop {
            self.fill()?;
            let Some(Tok::Or(..)) = self.peek() else {
                break;
            };
            self.pos += 1;
            items.push(self.and()?);
        }
        Ok(join(items, Expr::Or))
    }

    fn and(&mut self) -> Result<Expr, FilterError> {
        let mut items = vec![self.unary()?];
        loop {
            self.fill()?;
            match self.peek() {
                None | Some(Tok::Close(_)) | Some(Tok::Or(..)) => break,
                Some(Tok::And(..)) => {
                    self.pos += 1;
                    items.push(self.unary()?);
                }
                Some(_) => items.push(self.unary()?),
            }
        }
        Ok(join(items, Expr::And))
    }

    /// One level deeper, at the `(` or negation `span`: refused past the limit, before
    /// recursing, so the stack never holds more than `max_depth` levels.
    fn enter(&mut self, span: Span) -> Result<(), FilterError> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(FilterError::at(
                span,
                FilterErrorKind::TooDeep {
                    max: self.max_depth,
                },
            ));
        }
        Ok(())
    }

    fn unary(&mut self) -> Result<Expr, FilterError> {
        self.fill()?;
        match self.peek().cloned() {
            Some(Tok::Not(span, _)) => {
                self.pos += 1;
                self.enter(span)?;
                let inner = self.unary()?;
                self.depth -= 1;
                Ok(Expr::Not(span.to(inner.span()), Box::new(inner)))
            }
            Some(Tok::Open(open)) => {
                self.pos += 1;
                self.enter(open)?;
                let inner = self.or()?;
                self.fill()?;
                if let Some(Tok::Close(_)) = self.peek() {
                    self.pos += 1;
                    self.depth -= 1;
                    Ok(inner)
                } else {
                    Err(FilterError::at(open, FilterErrorKind::UnclosedParen))
                }
            }
            Some(Tok::Term(span, test)) => {
                self.pos += 1;
                Ok(Expr::Term(span, test))
            }
            _ => Err(self.no_condition()),
        }
    }

    /// The error for a place where a condition should start and none does, blaming
    /// what asked for it: the operator before, the operator found instead, or the
    /// parentheses around nothing.
    fn no_condition(&self) -> FilterError {
        let before = self.pos.checked_sub(1).and_then(|p| self.toks.get(p));
        let missing = |span: Span, word: &str, side| {
            FilterError::at(
                span,
                FilterErrorKind::MissingOperand {
                    operator: word.to_owned(),
                    side,
                },
            )
        };
        match (before, self.peek()) {
            (Some(Tok::Open(open)), Some(Tok::Close(close))) => {
                FilterError::at(open.to(*close), FilterErrorKind::EmptyParens)
            }
            (Some(Tok::Not(span, word) | Tok::Or(span, word) | Tok::And(span, word)), _) => {
                missing(*span, word, Side::After)
            }
            (_, Some(Tok::Or(span, word) | Tok::And(span, word))) => {
                missing(*span, word, Side::Before)
            }
            (_, Some(tok)) => FilterError::at(tok.span(), FilterErrorKind::UnmatchedCloseParen),
            // Only an opening parenthesis can leave nothing after it here: a term or a
            // ")" before the end would have ended the query.
            (open, None) => FilterError::at(
                open.map_or(Span::new(0, 0), Tok::span),
                FilterErrorKind::UnclosedParen,
            ),
        }
    }
}

/// One operand stands alone; several make a node spanning them all.
fn join(mut items: Vec<Expr>, node: fn(Span, Vec<Expr>) -> Expr) -> Expr {
    if items.len() == 1 {
        return items.pop().expect("one item");
    }
    let span = items[0].span().to(items[items.len() - 1].span());
    node(span, items)
}

/// Parses a query. Empty (or blank) input is the query that matches every bar.
/// Nesting deeper than [`MAX_DEPTH`] or input longer than [`MAX_LEN`] is refused.
pub fn parse(input: &str) -> Result<Filter, FilterError> {
    parse_within(input, MAX_DEPTH, MAX_LEN)
}

/// `parse` with other limits: the fuzz tests lift them to show that their harness finds
/// the crash the limits prevent.
pub(crate) fn parse_within(
    input: &str,
    max_depth: usize,
    max_len: usize,
) -> Result<Filter, FilterError> {
    let mut p = Parser {
        lexer: Lexer::new(input, max_len),
        toks: Vec::new(),
        pos: 0,
        depth: 0,
        max_depth,
    };
    p.fill()?;
    if p.peek().is_none() {
        return Ok(Filter::default());
    }
    let expr = p.or()?;
    p.fill()?;
    if let Some(tok) = p.peek() {
        // `or` stops only at the end or at a ")" it did not open.
        return Err(FilterError::at(
            tok.span(),
            FilterErrorKind::UnmatchedCloseParen,
        ));
    }
    Ok(Filter { expr: Some(expr) })
}

impl std::str::FromStr for Filter {
    type Err = FilterError;

    fn from_str(s: &str) -> Result<Filter, FilterError> {
        parse(s)
    }
}

// ---------------------------------------------------------------------------------
// Evaluation

const TODO: u8 = 1;
const IN_PROGRESS: u8 = 1 << 1;
const DONE: u8 = 1 << 2;
const CRITICAL: u8 = 1 << 3;
const AT_RISK: u8 = 1 << 4;
const VIOLATED: u8 = 1 << 5;
const LATE: u8 = 1 << 6;
const OVERDUE: u8 = 1 << 7;
const NONE: u32 = u32::MAX;

fn status_bit(s: ActionStatus) -> u8 {
    match s {
        ActionStatus::Todo => TODO,
        ActionStatus::InProgress => IN_PROGRESS,
        ActionStatus::Done => DONE,
    }
}

fn flag_bit(f: Flag) -> u8 {
    match f {
        Flag::Critical => CRITICAL,
        Flag::AtRisk => AT_RISK,
        Flag::Violated => VIOLATED,
        Flag::Late => LATE,
        Flag::Overdue => OVERDUE,
    }
}

/// What a filter needs to know about a schedule, computed once: folded labels and
/// names, each row's group and member, each bar's action statuses and flags, and its
/// total float when the caller gives them ([`FilterContext::with_floats`]). Rebuild
/// it when the schedule changes: a stale context is never unsafe, only out of date
/// (a bar's dates, row and id are always read from the bar itself).
#[derive(Clone, Debug)]
pub struct FilterContext {
    /// In `Schedule::bars` order (by id); the vectors below follow it.
    bars: Vec<BarId>,
    labels: Vec<String>,
    flags: Vec<u8>,
    /// Each bar's total float in working days, None where unknown; empty when the
    /// caller gave none, so that a context for a query without float terms costs
    /// nothing more.
    floats: Vec<Option<i64>>,
    /// (row id, row position), sorted by id.
    row_ids: Vec<(RowId, u32)>,
    /// By row position.
    row_names: Vec<String>,
    row_groups: Vec<u32>,
    row_members: Vec<u32>,
    group_names: Vec<String>,
    member_names: Vec<String>,
}

impl FilterContext {
    /// The context of a schedule, with the bars on the critical path and at risk as
    /// `cpm` and `risk` found them. Violated links are found here (`risk`'s check), as
    /// `is:violated` needs nothing else.
    pub fn new(s: &Schedule, critical: &IdSet<BarId>, at_risk: &IdSet<BarId>) -> FilterContext {
        let bars: Vec<BarId> = s.bars.iter().map(|b| b.id).collect();
        let labels = s.bars.iter().map(|b| fold(&b.label)).collect();
        let mut flags: Vec<u8> = s
            .bars
            .iter()
            .map(|b| {
                let mut f = 0;
                if critical.contains(&b.id) {
                    f |= CRITICAL;
                }
                if at_risk.contains(&b.id) {
                    f |= AT_RISK;
                }
                f
            })
            .collect();
        let bar_pos = |id: BarId| bars.binary_search(&id).ok();
        for a in &s.actions {
            if let Some(i) = bar_pos(a.bar) {
                flags[i] |= status_bit(a.status);
            }
        }
        for i in violated_bars(s, &bars) {
            flags[i] |= VIOLATED;
        }

        let mut group_ids: Vec<(GroupId, u32)> = s
            .groups
            .iter()
            .enumerate()
            .map(|(i, g)| (g.id, i as u32))
            .collect();
        crate::order::sort_by_u64(&mut group_ids, |p| p.0.0);
        let mut row_ids: Vec<(RowId, u32)> = s
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id, i as u32))
            .collect();
        crate::order::sort_by_u64(&mut row_ids, |p| p.0.0);
        FilterContext {
            bars,
            labels,
            flags,
            floats: Vec::new(),
            row_ids,
            row_names: s.rows.iter().map(|r| fold(&r.name)).collect(),
            row_groups: s
                .rows
                .iter()
                .map(|r| {
                    group_ids
                        .binary_search_by(|(g, _)| g.cmp(&r.group))
                        .map_or(NONE, |k| group_ids[k].1)
                })
                .collect(),
            row_members: s
                .rows
                .iter()
                .map(|r| {
                    r.member
                        .and_then(|m| find_by(&s.members, m, |x| x.id))
                        .map_or(NONE, |k| k as u32)
                })
                .collect(),
            group_names: s.groups.iter().map(|g| fold(&g.name)).collect(),
            member_names: s.members.iter().map(|m| fold(&m.name)).collect(),
        }
    }

    /// The context with the bars' total floats, in working days, for `float<=2`
    /// terms: what [`floats_of`] returns, or floats the caller already has from
    /// `cpm::critical_path`. Ids of no bar of the schedule are ignored; a bar left
    /// out (or every bar, when the links form a cycle and `floats` is empty) matches
    /// no float term. Replaces floats given before.
    #[must_use]
    pub fn with_floats(mut self, floats: &[(BarId, i64)]) -> FilterContext {
        let mut known = vec![None; self.bars.len()];
        for &(id, float) in floats {
            if let Ok(i) = self.bars.binary_search(&id) {
                known[i] = Some(float);
            }
        }
        self.floats = known;
        self
    }

    /// The context with the bars late or overdue at a status date, for `is:late` and
    /// `is:overdue`: what `tracking::lateness` (or `risk::risks_at`) found. Without
    /// them no bar is late nor overdue. Adds to lateness given before.
    #[must_use]
    pub fn with_lateness<'a>(
        mut self,
        lateness: impl IntoIterator<Item = &'a crate::tracking::Lateness>,
    ) -> FilterContext {
        for l in lateness {
            if let Ok(i) = self.bars.binary_search(&l.bar) {
                self.flags[i] |= match l.kind {
                    crate::tracking::LateKind::Late => LATE,
                    crate::tracking::LateKind::Overdue => OVERDUE,
                };
            }
        }
        self
    }

    fn row_pos(&self, row: RowId) -> Option<usize> {
        self.row_ids
            .binary_search_by(|(r, _)| r.cmp(&row))
            .ok()
            .map(|k| self.row_ids[k].1 as usize)
    }

    /// The facts of a bar; `hint` is its likely position (its index in the schedule).
    /// A bar the context does not know (a preview's new bar) is folded on the spot
    /// and has no flags.
    fn facts<'a>(&'a self, bar: &Bar, hint: Option<usize>) -> Facts<'a> {
        let at = hint
            .filter(|&i| self.bars.get(i) == Some(&bar.id))
            .or_else(|| self.bars.binary_search(&bar.id).ok());
        let (label, flags) = match at {
            Some(i) => (Cow::Borrowed(self.labels[i].as_str()), self.flags[i]),
            None => (Cow::Owned(fold(&bar.label)), 0),
        };
        Facts {
            label,
            flags,
            float: at.and_then(|i| self.floats.get(i).copied().flatten()),
            row: self.row_pos(bar.row),
        }
    }
}

/// The positions of the bars at either end of a link its dates break
/// (`risk::violated_links`, so the filter and the risk list always agree).
fn violated_bars(s: &Schedule, bars: &[BarId]) -> Vec<usize> {
    let cal = Calendar::for_schedule(s);
    risk::violated_links(s, &cal)
        .iter()
        .flat_map(|v| [v.from, v.to])
        .filter_map(|id| bars.binary_search(&BarId(id.0)).ok())
        .collect()
}

/// Each bar's total float in working days, from `cpm::critical_path` (bars only, not
/// milestones), for [`FilterContext::with_floats`]; empty when the links form a cycle,
/// which leaves no critical path, so float terms then match no bar. Costs a critical
/// path (~20 ms for 100,000 bars): call it when [`Filter::uses_floats`] says so.
pub fn floats_of(s: &Schedule) -> Vec<(BarId, i64)> {
    match crate::cpm::critical_path(s) {
        Ok(cp) => cp
            .items
            .iter()
            .filter(|t| t.kind == crate::cpm::ItemKind::Bar)
            .map(|t| (BarId(t.item.0), t.total_float))
            .collect(),
        Err(_) => Vec::new(),
    }
}

struct Facts<'a> {
    label: Cow<'a, str>,
    flags: u8,
    float: Option<i64>,
    row: Option<usize>,
}

impl Filter {
    /// The query that matches every bar.
    pub fn all() -> Filter {
        Filter::default()
    }

    /// The AST, or `None` for the empty query.
    pub fn expr(&self) -> Option<&Expr> {
        self.expr.as_ref()
    }

    /// Whether this is the empty query, which matches every bar.
    pub fn is_all(&self) -> bool {
        self.expr.is_none()
    }

    /// Whether a term reads total floats ([`Expr::uses_floats`]): only then need the
    /// caller compute them for [`FilterContext::with_floats`].
    pub fn uses_floats(&self) -> bool {
        self.expr.as_ref().is_some_and(Expr::uses_floats)
    }

    /// Whether a bar matches. The bar's dates, row and id are read from `bar` itself,
    /// so a bar being dragged is judged where it is about to land.
    pub fn matches(&self, ctx: &FilterContext, bar: &Bar) -> bool {
        self.matches_at(ctx, bar, None)
    }

    fn matches_at(&self, ctx: &FilterContext, bar: &Bar, hint: Option<usize>) -> bool {
        match &self.expr {
            None => true,
            Some(e) => eval(e, ctx, bar, &ctx.facts(bar, hint)),
        }
    }

    /// The ids of the schedule's bars that match, in id order.
    pub fn select(&self, ctx: &FilterContext, s: &Schedule) -> Vec<BarId> {
        s.bars
            .iter()
            .enumerate()
            .filter(|(i, b)| self.matches_at(ctx, b, Some(*i)))
            .map(|(_, b)| b.id)
            .collect()
    }
}

/// Recursive, like the derived `Clone`, `PartialEq` and `Drop` of `Expr`: only trees
/// `parse` built reach here (`Filter::expr` is private), and its nesting limit bounds
/// their depth (an `or` and an `and` node at most per parenthesis, a node per negation;
/// runs of `and` and `or` are flat vectors).
fn eval<'a>(e: &Expr, ctx: &'a FilterContext, bar: &Bar, f: &Facts<'_>) -> bool {
    match e {
        Expr::Or(_, items) => items.iter().any(|x| eval(x, ctx, bar, f)),
        Expr::And(_, items) => items.iter().all(|x| eval(x, ctx, bar, f)),
        Expr::Not(_, inner) => !eval(inner, ctx, bar, f),
        Expr::Term(_, test) => {
            let name_of = |names: &'a [String], of: &[u32]| -> Option<&'a str> {
                f.row
                    .and_then(|r| of.get(r))
                    .and_then(|&at| names.get(at as usize))
                    .map(String::as_str)
            };
            match test {
                Test::Label(text) => f.label.contains(text.as_str()),
                Test::Member(text) => name_of(&ctx.member_names, &ctx.row_members)
                    .is_some_and(|n| n.contains(text.as_str())),
                Test::Group(text) => name_of(&ctx.group_names, &ctx.row_groups)
                    .is_some_and(|n| n.contains(text.as_str())),
                Test::Row(text) => f
                    .row
                    .and_then(|r| ctx.row_names.get(r))
                    .is_some_and(|n| n.contains(text.as_str())),
                Test::Status(st) => f.flags & status_bit(*st) != 0,
                Test::From(d) => bar.end >= *d,
                Test::To(d) => bar.start <= *d,
                Test::Is(flag) => f.flags & flag_bit(*flag) != 0,
                Test::Id(id) => bar.id == *id,
                Test::Float(op, n) => f.float.is_some_and(|x| op.holds(x, *n)),
                Test::Progress(op, n) => op.holds(i64::from(bar.progress), *n),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};

    fn d(s: &str) -> Date {
        s.parse().unwrap()
    }

    /// An s-expression of the AST with each node's byte span, to pin structure and
    /// positions in one line.
    fn sexp(e: &Expr) -> String {
        let s = e.span();
        let at = format!("@{}..{}", s.start, s.end());
        match e {
            Expr::Or(_, items) | Expr::And(_, items) => {
                let op = if matches!(e, Expr::Or(..)) {
                    "or"
                } else {
                    "and"
                };
                let inner: Vec<String> = items.iter().map(sexp).collect();
                format!("({op}{at} {})", inner.join(" "))
            }
            Expr::Not(_, inner) => format!("(not{at} {})", sexp(inner)),
            Expr::Term(_, t) => format!("{t:?}{at}"),
        }
    }

    fn check_ast(input: &str, expect: Expect) {
        let f = parse(input).unwrap_or_else(|e| panic!("{}", e.render(input, Lang::En)));
        expect.assert_eq(&f.expr().map_or("all".into(), sexp));
    }

    fn check_error(input: &str, expect: Expect) {
        let e = parse(input).expect_err("the query must be refused");
        let text = format!(
            "{}\n--\n{}",
            e.render(input, Lang::En),
            e.render(input, Lang::Fr)
        );
        expect.assert_eq(&crate::testkit::visible(&text));
    }

    #[test]
    fn empty_input_matches_everything() {
        assert!(parse("").unwrap().is_all());
        assert!(parse("  \t ").unwrap().is_all());
    }

    #[test]
    fn precedence_and_spans() {
        check_ast(
            "a b or c",
            expect![[r#"(or@0..8 (and@0..3 Label("a")@0..1 Label("b")@2..3) Label("c")@7..8)"#]],
        );
        check_ast(
            "a (b or c)",
            expect![[r#"(and@0..9 Label("a")@0..1 (or@3..9 Label("b")@3..4 Label("c")@8..9))"#]],
        );
        check_ast(
            "-a b or not c",
            expect![[
                r#"(or@0..13 (and@0..4 (not@0..2 Label("a")@1..2) Label("b")@3..4) (not@8..13 Label("c")@12..13))"#
            ]],
        );
        check_ast(
            "not not a",
            expect![[r#"(not@0..9 (not@4..9 Label("a")@8..9))"#]],
        );
        check_ast(
            "-(is:critical OR is:at-risk) and status:todo",
            expect![[
                r#"(and@0..44 (not@0..27 (or@2..27 Is(Critical)@2..13 Is(AtRisk)@17..27)) Status(Todo)@33..44)"#
            ]],
        );
        check_ast(
            "a ou b et c",
            expect![[
                r#"(or@0..11 Label("a")@0..1 (and@5..11 Label("b")@5..6 Label("c")@10..11))"#
            ]],
        );
    }

    #[test]
    fn every_key_and_its_french_alias() {
        check_ast(
            "member:Alice group:\"Finance team\" row:Back label:Migr status:in_progress",
            expect![[
                r#"(and@0..72 Member("alice")@0..12 Group("finance team")@13..33 Row("back")@34..42 Label("migr")@43..53 Status(InProgress)@54..72)"#
            ]],
        );
        check_ast(
            "from:2026-11-01 to:2026-12-31 is:critical is:at_risk is:violated id:b42",
            expect![[
                r#"(and@0..71 From(2026-11-01)@0..15 To(2026-12-31)@16..29 Is(Critical)@30..41 Is(AtRisk)@42..52 Is(Violated)@53..64 Id(b42)@65..71)"#
            ]],
        );
        check_ast(
            "membre:Zoé groupe:«\u{a0}Équipe finance\u{a0}» ligne:x libellé:y statut:à-faire",
            expect![[
                r#"(and@0..77 Member("zoe")@0..11 Group("equipe finance")@12..42 Row("x")@43..50 Label("y")@51..61 Status(Todo)@62..77)"#
            ]],
        );
        check_ast(
            "du:2026-11 au:2026-11 est:critique est:à-risque est:violé STATUT:Fait",
            expect![
                "(and@0..71 From(2026-11-01)@0..10 To(2026-11-30)@11..21 Is(Critical)@22..34 Is(AtRisk)@35..48 Is(Violated)@49..59 Status(Done)@60..71)"
            ],
        );
    }

    #[test]
    fn quoting() {
        check_ast(
            r#""data migration" “smart quotes” label:"say \"hi\"" 'apostrophe'"#,
            expect![[
                r#"(and@0..67 Label("data migration")@0..16 Label("smart quotes")@17..35 Label("say \"hi\"")@36..54 Label("'apostrophe'")@55..67)"#
            ]],
        );
        check_ast(
            r#""or" "-x""#,
            expect![[r#"(and@0..9 Label("or")@0..4 Label("-x")@5..9)"#]],
        );
        check_ast(
            "label:a:b l'équipe",
            expect![[r#"(and@0..19 Label("a:b")@0..9 Label("l'equipe")@10..19)"#]],
        );
    }

    #[test]
    fn float_terms_every_operator_and_the_french_key() {
        check_ast(
            "float<=2 float<3 float=0 float>=5 float>1",
            expect![
                "(and@0..41 Float(Le, 2)@0..8 Float(Lt, 3)@9..16 Float(Eq, 0)@17..24 Float(Ge, 5)@25..33 Float(Gt, 1)@34..41)"
            ],
        );
        check_ast(
            "marge<=2 MARGE>-1 Float:2 float:<=3 marge≥4 float≤1 float=+0",
            expect![
                "(and@0..64 Float(Le, 2)@0..8 Float(Gt, -1)@9..17 Float(Eq, 2)@18..25 Float(Le, 3)@26..35 Float(Ge, 4)@36..45 Float(Le, 1)@46..55 Float(Eq, 0)@56..64)"
            ],
        );
    }

    #[test]
    fn float_terms_combine_with_the_rest() {
        check_ast(
            "float<=2 member:Alice",
            expect![[r#"(and@0..21 Float(Le, 2)@0..8 Member("alice")@9..21)"#]],
        );
        check_ast("-float>10", expect!["(not@0..9 Float(Gt, 10)@1..9)"]);
        check_ast(
            "(is:critical or float<=1)",
            expect!["(or@1..24 Is(Critical)@1..12 Float(Le, 1)@16..24)"],
        );
        check_ast(
            "not marge=0 ou (float<5 -status:done)",
            expect![
                "(or@0..36 (not@0..11 Float(Eq, 0)@4..11) (and@16..36 Float(Lt, 5)@16..23 (not@24..36 Status(Done)@25..36)))"
            ],
        );
    }

    /// Only a comparison key before the operator makes a comparison: other words with
    /// `<`, `=` or `>` search labels as they did, and quoting searches for the text.
    #[test]
    fn other_words_with_operators_stay_label_text() {
        check_ast(
            "a=b x<y id>5 label:float<=2 \"float<=2\" floating float marge brute",
            expect![[
                r#"(and@0..65 Label("a=b")@0..3 Label("x<y")@4..7 Label("id>5")@8..12 Label("float<=2")@13..27 Label("float<=2")@28..38 Label("floating")@39..47 Label("float")@48..53 Label("marge")@54..59 Label("brute")@60..65)"#
            ]],
        );
    }

    #[test]
    fn uses_floats_finds_a_float_term_anywhere() {
        assert!(!parse("").unwrap().uses_floats());
        assert!(!parse("a is:critical -(b or float)").unwrap().uses_floats());
        assert!(parse("float<=2").unwrap().uses_floats());
        assert!(parse("a -(b or (c not marge>3))").unwrap().uses_floats());
        // An `Expr` built by hand may be deeper than `parse` allows.
        let mut deep = Expr::Term(Span::new(0, 1), Test::Float(Compare::Eq, 0));
        for _ in 0..100_000 {
            deep = Expr::Not(Span::new(0, 1), Box::new(deep));
        }
        assert!(deep.uses_floats());
        // Dropped without recursing: the derived `Drop` would overflow the stack.
        let mut next = Some(deep);
        while let Some(Expr::Not(_, inner)) = next.take() {
            next = Some(*inner);
        }
    }

    #[test]
    fn error_float_operator() {
        check_error(
            "float<>2",
            expect![[r#"
                float<>2
                     ^^
                "<>" is not a comparison: for the bars whose float is not 2, negate the equality: -float=2.
                --
                float<>2
                     ^^
                «⟨nbsp⟩<>⟨nbsp⟩» n'est pas une comparaison⟨nbsp⟩: pour les barres dont la marge n'est pas 2, niez l'égalité⟨nbsp⟩: -marge=2."#]],
        );
        check_error(
            "marge=<2",
            expect![[r#"
                marge=<2
                     ^^
                "=<" is not a comparison: write "<=", e.g. float<=2.
                --
                marge=<2
                     ^^
                «⟨nbsp⟩=<⟨nbsp⟩» n'est pas une comparaison⟨nbsp⟩: écrivez «⟨nbsp⟩<=⟨nbsp⟩», par exemple marge<=2."#]],
        );
        check_error(
            "float!=2",
            expect![[r#"
                float!=2
                     ^^
                "!=" is not a comparison: for the bars whose float is not 2, negate the equality: -float=2.
                --
                float!=2
                     ^^
                «⟨nbsp⟩!=⟨nbsp⟩» n'est pas une comparaison⟨nbsp⟩: pour les barres dont la marge n'est pas 2, niez l'égalité⟨nbsp⟩: -marge=2."#]],
        );
        check_error(
            "float<<2",
            expect![[r#"
                float<<2
                     ^^
                "<<" is not a comparison. Write <, <=, =, >= or > between float and the number, e.g. float<=2.
                --
                float<<2
                     ^^
                «⟨nbsp⟩<<⟨nbsp⟩» n'est pas une comparaison. Écrivez <, <=, =, >= ou > entre marge et le nombre, par exemple marge<=2."#]],
        );
        let bad = |operator: &str| FilterErrorKind::BadOperator {
            key: Key::Float,
            operator: operator.into(),
        };
        assert_eq!(refusal("float=>2"), (bad("=>"), 5, 2));
        assert_eq!(refusal("x marge≠2"), (bad("≠"), 7, 3), "bytes, not chars");
        assert_eq!(refusal("float:==2"), (bad("=="), 6, 2));
    }

    #[test]
    fn error_float_number() {
        check_error(
            "float<=",
            expect![[r#"
            float<=
            ^^^^^^^
            float<= needs a whole number of working days right after it, e.g. float<=2.
            --
            float<=
            ^^^^^^^
            marge<= attend juste après lui un nombre entier de jours ouvrés, par exemple marge<=2."#]],
        );
        check_error(
            "marge: x",
            expect![[r#"
            marge: x
            ^^^^^^
            float: needs a whole number of working days right after it, e.g. float:2.
            --
            marge: x
            ^^^^^^
            marge: attend juste après lui un nombre entier de jours ouvrés, par exemple marge:2."#]],
        );
        check_error(
            "float:\"2\"",
            expect![[r#"
            float:"2"
            ^^^^^^
            float: needs a whole number of working days right after it, e.g. float:2.
            --
            float:"2"
            ^^^^^^
            marge: attend juste après lui un nombre entier de jours ouvrés, par exemple marge:2."#]],
        );
        check_error(
            "float<=2.5",
            expect![[r#"
                float<=2.5
                       ^^^
                "2.5" is not a number of working days. Expected a whole number, e.g. float<=2.
                --
                float<=2.5
                       ^^^
                «⟨nbsp⟩2.5⟨nbsp⟩» n'est pas un nombre de jours ouvrés. Attendu⟨nbsp⟩: un nombre entier, par exemple marge<=2."#]],
        );
        check_error(
            "marge>deux",
            expect![[r#"
                marge>deux
                      ^^^^
                "deux" is not a number of working days. Expected a whole number, e.g. float<=2.
                --
                marge>deux
                      ^^^^
                «⟨nbsp⟩deux⟨nbsp⟩» n'est pas un nombre de jours ouvrés. Attendu⟨nbsp⟩: un nombre entier, par exemple marge<=2."#]],
        );
        assert!(matches!(
            refusal("float<99999999999999999999").0,
            FilterErrorKind::BadNumber { .. }
        ));
        assert!(matches!(
            refusal("float<=2d").0,
            FilterErrorKind::BadNumber { .. }
        ));
    }

    #[test]
    fn error_float_with_spaces() {
        check_error(
            "member:bob float <= 2",
            expect![[r#"
                member:bob float <= 2
                           ^^^^^^^^^^
                Write a comparison without spaces: "float<=2".
                --
                member:bob float <= 2
                           ^^^^^^^^^^
                Une comparaison s'écrit sans espace⟨nbsp⟩: «⟨nbsp⟩float<=2⟨nbsp⟩»."#]],
        );
        check_error(
            "marge < 3",
            expect![[r#"
                marge < 3
                ^^^^^^^^^
                Write a comparison without spaces: "marge<3".
                --
                marge < 3
                ^^^^^^^^^
                Une comparaison s'écrit sans espace⟨nbsp⟩: «⟨nbsp⟩marge<3⟨nbsp⟩»."#]],
        );
        let spaced = |fix: &str| FilterErrorKind::SpacedComparison {
            key: Key::Float,
            fix: fix.into(),
        };
        assert_eq!(refusal("float <=2 x"), (spaced("float<=2"), 0, 9));
        assert_eq!(refusal("FLOAT\u{a0}≥ 3)"), (spaced("FLOAT≥3"), 0, 12));
        check_error(
            "(float <=",
            expect![[r#"
            (float <=
             ^^^^^^^^
            Write a comparison without spaces, e.g. float<=2.
            --
            (float <=
             ^^^^^^^^
            Une comparaison s'écrit sans espace, par exemple marge<=2."#]],
        );
        let e = parse("float<= 2").unwrap_err();
        assert!(
            matches!(e.kind, FilterErrorKind::MissingNumber { .. }),
            "{e:?}"
        );
        // What lies past the length limit is not read, so the limit is what is told
        // when the operator or the number is past it, and the spaces when neither is.
        let ending = |tail: &str| "x".repeat(MAX_LEN - tail.len()) + tail;
        let too_long = |chars| FilterErrorKind::TooLong {
            chars,
            max: MAX_LEN,
        };
        assert_eq!(refusal(&ending(" float <= 2")).0, spaced("float<=2"));
        assert_eq!(
            refusal(&(ending(" float <= ") + "2")).0,
            too_long(MAX_LEN + 1),
            "the number is past the limit"
        );
        assert_eq!(
            refusal(&(ending(" float ") + "<=2")).0,
            too_long(MAX_LEN + 3),
            "the operator is past the limit"
        );
    }

    #[test]
    fn error_unknown_key() {
        check_error(
            "member:Alice grup:Finance",
            expect![[r#"
                member:Alice grup:Finance
                             ^^^^
                "grup" is not a filter key. Valid keys: member, group, row, label, status, from, to, is, id, float, progress. To search for text that contains ":", put it in quotes.
                --
                member:Alice grup:Finance
                             ^^^^
                «⟨nbsp⟩grup⟨nbsp⟩» n'est pas une clé de filtre. Clés valides⟨nbsp⟩: membre, groupe, ligne, libellé, statut, du, au, est, id, marge, avancement (ou en anglais⟨nbsp⟩: member, group, row, label, status, from, to, is, id, float, progress). Pour chercher un texte qui contient «⟨nbsp⟩:⟨nbsp⟩», mettez-le entre guillemets."#]],
        );
    }

    #[test]
    fn error_missing_key_and_value() {
        check_error(
            "a :b",
            expect![[r#"
                a :b
                  ^
                ":" must follow a key, as in member:Alice. Valid keys: member, group, row, label, status, from, to, is, id, float, progress.
                --
                a :b
                  ^
                «⟨nbsp⟩:⟨nbsp⟩» doit suivre une clé, comme dans membre:Alice. Clés valides⟨nbsp⟩: membre, groupe, ligne, libellé, statut, du, au, est, id, marge, avancement (ou en anglais⟨nbsp⟩: member, group, row, label, status, from, to, is, id, float, progress)."#]],
        );
        check_error(
            "groupe: x",
            expect![[r#"
                groupe: x
                ^^^^^^^
                group: needs a value, e.g. group:"Finance team"; put a value of several words in quotes.
                --
                groupe: x
                ^^^^^^^
                groupe: attend une valeur, par exemple groupe:"Équipe finance"⟨nnbsp⟩; une valeur de plusieurs mots se met entre guillemets."#]],
        );
        check_error(
            r#"x "  ""#,
            expect![[r#"
                x "  "
                  ^^^^
                These quotes hold no text: write something between them or remove them.
                --
                x "  "
                  ^^^^
                Ces guillemets sont vides⟨nbsp⟩: écrivez un texte entre eux ou retirez-les."#]],
        );
    }

    #[test]
    fn error_bad_values() {
        check_error(
            "status:started",
            expect![[r#"
                status:started
                       ^^^^^^^
                "started" is not a valid value for status:. Valid values: todo, in_progress, done.
                --
                status:started
                       ^^^^^^^
                «⟨nbsp⟩started⟨nbsp⟩» n'est pas une valeur possible pour statut:. Valeurs valides⟨nbsp⟩: à-faire, en-cours, terminée (ou todo, in_progress, done)."#]],
        );
        check_error(
            "is:slow",
            expect![[r#"
                is:slow
                   ^^^^
                "slow" is not a valid value for is:. Valid values: critical, at-risk, violated, late, overdue.
                --
                is:slow
                   ^^^^
                «⟨nbsp⟩slow⟨nbsp⟩» n'est pas une valeur possible pour est:. Valeurs valides⟨nbsp⟩: critique, à-risque, violé, en-retard, hors-délai (ou critical, at-risk, violated, late, overdue)."#]],
        );
        check_error(
            "from:30/11/2026",
            expect![[r#"
                from:30/11/2026
                     ^^^^^^^^^^
                "30/11/2026" is not a date. Expected YYYY-MM-DD or YYYY-MM, e.g. from:2026-11-30 or from:2026-11.
                --
                from:30/11/2026
                     ^^^^^^^^^^
                «⟨nbsp⟩30/11/2026⟨nbsp⟩» n'est pas une date. Format attendu⟨nbsp⟩: AAAA-MM-JJ ou AAAA-MM, par exemple du:2026-11-30 ou du:2026-11."#]],
        );
        check_error(
            "to:2026-02-30",
            expect![[r#"
                to:2026-02-30
                   ^^^^^^^^^^
                "2026-02-30" is not a date. Expected YYYY-MM-DD or YYYY-MM, e.g. to:2026-11-30 or to:2026-11.
                --
                to:2026-02-30
                   ^^^^^^^^^^
                «⟨nbsp⟩2026-02-30⟨nbsp⟩» n'est pas une date. Format attendu⟨nbsp⟩: AAAA-MM-JJ ou AAAA-MM, par exemple au:2026-11-30 ou au:2026-11."#]],
        );
        check_error(
            "id:x1",
            expect![[r#"
                id:x1
                   ^^
                "x1" is not a bar id. Expected a number, e.g. id:42.
                --
                id:x1
                   ^^
                «⟨nbsp⟩x1⟨nbsp⟩» n'est pas un identifiant de barre. Attendu⟨nbsp⟩: un nombre, par exemple id:42."#]],
        );
        assert!(parse("to:2026-13").is_err());
        assert!(parse("id:+4").is_err());
    }

    #[test]
    fn error_quotes_and_parentheses() {
        check_error(
            "group:«Équipe finance",
            expect![[r#"
                group:«Équipe finance
                      ^
                This quote is never closed: add "»" after the text.
                --
                group:«Équipe finance
                      ^
                Ces guillemets ne sont jamais fermés⟨nbsp⟩: ajoutez «⟨nbsp⟩»⟨nbsp⟩» après le texte."#]],
        );
        check_error(
            "(a or b",
            expect![[r#"
                (a or b
                ^
                This parenthesis is never closed: add ")" at the end of the group.
                --
                (a or b
                ^
                Cette parenthèse n'est jamais fermée⟨nbsp⟩: ajoutez «⟨nbsp⟩)⟨nbsp⟩» à la fin du groupe."#]],
        );
        check_error(
            "a) b",
            expect![[r#"
                a) b
                 ^
                This ")" closes nothing: remove it, or add "(" where the group starts.
                --
                a) b
                 ^
                Cette «⟨nbsp⟩)⟨nbsp⟩» ne ferme rien⟨nbsp⟩: retirez-la, ou ajoutez «⟨nbsp⟩(⟨nbsp⟩» au début du groupe."#]],
        );
        check_error(
            "a ( ) b",
            expect![[r#"
                a ( ) b
                  ^^^
                These parentheses hold no condition: put one inside, e.g. (member:Alice or member:Bob), or remove them.
                --
                a ( ) b
                  ^^^
                Ces parenthèses ne contiennent aucune condition⟨nbsp⟩: mettez-en une, par exemple (membre:Alice ou membre:Bob), ou retirez-les."#]],
        );
        assert_eq!(
            parse(")").unwrap_err().kind,
            FilterErrorKind::UnmatchedCloseParen
        );
        assert_eq!(parse("(").unwrap_err().kind, FilterErrorKind::UnclosedParen);
    }

    #[test]
    fn error_missing_operands() {
        check_error(
            "OR a",
            expect![[r#"
                OR a
                ^^
                "OR" needs a condition before it, e.g. label:audit OR label:migration.
                --
                OR a
                ^^
                «⟨nbsp⟩OR⟨nbsp⟩» attend une condition avant lui, par exemple libellé:audit OR libellé:migration."#]],
        );
        check_error(
            "a ou",
            expect![[r#"
                a ou
                  ^^
                "ou" needs a condition after it, e.g. label:audit ou label:migration.
                --
                a ou
                  ^^
                «⟨nbsp⟩ou⟨nbsp⟩» attend une condition après lui, par exemple libellé:audit ou libellé:migration."#]],
        );
        check_error(
            "a - b",
            expect![[r#"
                a - b
                  ^
                "-" needs a condition right after it, e.g. -status:done or not status:done.
                --
                a - b
                  ^
                «⟨nbsp⟩-⟨nbsp⟩» attend une condition juste après, par exemple -statut:terminée ou non statut:terminée."#]],
        );
        let e = parse("a (not)").unwrap_err();
        assert_eq!((e.position, e.len), (3, 3));
        assert!(matches!(
            e.kind,
            FilterErrorKind::MissingOperand {
                side: Side::After,
                ..
            }
        ));
        let e = parse("and a").unwrap_err();
        assert!(matches!(
            e.kind,
            FilterErrorKind::MissingOperand {
                side: Side::Before,
                ..
            }
        ));
        assert!(parse("a or or b").is_err());
        assert!(parse("a and").is_err());
    }

    #[test]
    fn caret_counts_characters_not_bytes() {
        let input = "équipe\tfoo:1";
        let e = parse(input).unwrap_err();
        assert_eq!(e.position, "équipe\t".len());
        assert_eq!(e.render(input, Lang::En).lines().nth(1), Some("       ^^^"));
        assert_eq!(
            e.render(input, Lang::En).lines().next(),
            Some("équipe foo:1")
        );
    }

    /// A schedule with two groups, three rows and bars that differ in every way a
    /// filter can see.
    fn sample() -> Schedule {
        let mut s = Schedule::new("Filter");
        s.groups = vec![
            Group {
                id: GroupId(1),
                name: "Équipe Finance".into(),
            },
            Group {
                id: GroupId(2),
                name: "Build".into(),
            },
        ];
        s.members = vec![
            Member {
                id: MemberId(3),
                name: "Alice Martin".into(),
                email: None,
            },
            Member {
                id: MemberId(4),
                name: "Bob".into(),
                email: None,
            },
        ];
        let row = |id, group, name: &str, member| Row {
            id: RowId(id),
            group: GroupId(group),
            name: name.into(),
            member,
        };
        s.rows = vec![
            row(7, 2, "Backend", Some(MemberId(4))),
            row(5, 1, "Budget", Some(MemberId(3))),
            row(6, 1, "Audit", None),
        ];
        let bar = |id, row, label: &str, start: &str, end: &str| Bar {
            id: BarId(id),
            row: RowId(row),
            label: label.into(),
            start: d(start),
            end: d(end),
            color: None,
            notes: String::new(),
            pin: None,
            constraint: None,
            deadline: None,
            progress: 0,
            actual_start: None,
            actual_finish: None,
        };
        s.bars = vec![
            bar(10, 5, "Budget 2027", "2026-10-05", "2026-10-30"),
            bar(11, 5, "Révision", "2026-11-02", "2026-11-13"),
            bar(12, 6, "Data migration", "2026-11-09", "2026-12-18"),
            bar(13, 7, "API migration", "2026-12-01", "2027-01-15"),
            bar(14, 7, "Go-live", "2027-01-18", "2027-01-18"),
        ];
        s.links = vec![Link {
            id: LinkId(20),
            from: ItemId(12),
            to: ItemId(13),
            kind: LinkKind::FS,
            lag: 0,
        }];
        let action = |id, bar, status| Action {
            id: ActionId(id),
            bar: BarId(bar),
            label: "x".into(),
            status,
            assignee: None,
        };
        s.actions = vec![
            action(30, 10, ActionStatus::Done),
            action(31, 12, ActionStatus::InProgress),
            action(32, 12, ActionStatus::Todo),
            action(33, 13, ActionStatus::Todo),
        ];
        s.next_id = 40;
        s
    }

    fn select(query: &str) -> Vec<u64> {
        let s = sample();
        let ctx = FilterContext::new(
            &s,
            &IdSet::from_iter([BarId(12), BarId(14)]),
            &IdSet::from_iter([BarId(11)]),
        );
        let f = parse(query).unwrap_or_else(|e| panic!("{}", e.render(query, Lang::En)));
        f.select(&ctx, &s).into_iter().map(|b| b.0).collect()
    }

    #[test]
    fn each_key_selects_what_it_says() {
        assert_eq!(select(""), [10, 11, 12, 13, 14]);
        assert_eq!(select("migration"), [12, 13]);
        assert_eq!(select("MIGRATION label:data"), [12]);
        assert_eq!(select("revision"), [11], "accents are ignored");
        assert_eq!(select("member:alice"), [10, 11]);
        assert_eq!(select("member:martin or member:bob"), [10, 11, 13, 14]);
        assert_eq!(select("group:equipe"), [10, 11, 12]);
        assert_eq!(select("group:build"), [13, 14]);
        assert_eq!(select("row:aud"), [12]);
        assert_eq!(select("status:todo"), [12, 13]);
        assert_eq!(select("status:en-cours"), [12]);
        assert_eq!(select("status:done"), [10]);
        assert_eq!(
            select("from:2026-11-13"),
            [11, 12, 13, 14],
            "ends on or after"
        );
        assert_eq!(select("to:2026-11-02"), [10, 11], "starts on or before");
        assert_eq!(select("from:2026-11 to:2026-11"), [11, 12]);
        assert_eq!(select("is:critical"), [12, 14]);
        assert_eq!(select("is:at-risk"), [11]);
        assert_eq!(select("is:violated"), [12, 13]);
        assert_eq!(select("id:13 or id:b10"), [10, 13]);
    }

    #[test]
    fn negation_and_precedence_select() {
        assert_eq!(select("-migration"), [10, 11, 14]);
        assert_eq!(
            select("not member:alice"),
            [12, 13, 14],
            "a row without member is not Alice's"
        );
        assert_eq!(select("member:bob migration or is:at-risk"), [11, 13]);
        assert_eq!(select("member:bob (migration or is:critical)"), [13, 14]);
        assert_eq!(select("-(status:todo or status:done)"), [11, 14]);
        assert_eq!(select("not not is:critical"), [12, 14]);
    }

    /// `sample`'s rows and members, with bars whose total floats are 0, 2 and 5:
    /// 1 → 2 is the longest chain (Nov 2 to 13, 10 working days), 3 lasts 8 working
    /// days beside it, and 4 → 5 lasts 5. Milestone 6 has a float too, but is no bar.
    fn float_sample() -> Schedule {
        let mut s = sample();
        let bar = |id, row, label: &str, start: &str, end: &str| Bar {
            id: BarId(id),
            row: RowId(row),
            label: label.into(),
            start: d(start),
            end: d(end),
            color: None,
            notes: String::new(),
            pin: None,
            constraint: None,
            deadline: None,
            progress: 0,
            actual_start: None,
            actual_finish: None,
        };
        s.bars = vec![
            bar(1, 5, "Spec", "2026-11-02", "2026-11-06"),
            bar(2, 5, "Build", "2026-11-09", "2026-11-13"),
            bar(3, 6, "Review", "2026-11-02", "2026-11-11"),
            bar(4, 7, "Docs", "2026-11-02", "2026-11-03"),
            bar(5, 7, "Training", "2026-11-04", "2026-11-06"),
        ];
        s.milestones = vec![Milestone {
            id: MilestoneId(6),
            row: RowId(7),
            label: "Kick-off".into(),
            date: d("2026-11-02"),
            color: None,
            notes: String::new(),
            constraint: None,
            deadline: None,
        }];
        let link = |id, from, to| Link {
            id: LinkId(id),
            from: ItemId(from),
            to: ItemId(to),
            kind: LinkKind::FS,
            lag: 0,
        };
        s.links = vec![link(7, 1, 2), link(8, 4, 5)];
        s.actions = vec![Action {
            id: ActionId(9),
            bar: BarId(2),
            label: "x".into(),
            status: ActionStatus::Done,
            assignee: None,
        }];
        s.next_id = 10;
        s
    }

    #[test]
    fn floats_of_gives_the_bars_total_floats() {
        let s = float_sample();
        assert_eq!(
            floats_of(&s),
            [
                (BarId(1), 0),
                (BarId(2), 0),
                (BarId(3), 2),
                (BarId(4), 5),
                (BarId(5), 5)
            ],
            "bars only, by id"
        );
        let mut cycle = s.clone();
        cycle.links.push(Link {
            id: LinkId(10),
            from: ItemId(2),
            to: ItemId(1),
            kind: LinkKind::FS,
            lag: 0,
        });
        assert_eq!(floats_of(&cycle), []);
    }

    fn select_floats(s: &Schedule, floats: &[(BarId, i64)], query: &str) -> Vec<u64> {
        let ctx = FilterContext::new(
            s,
            &IdSet::from_iter([BarId(1), BarId(2)]),
            &IdSet::default(),
        )
        .with_floats(floats);
        let f = parse(query).unwrap_or_else(|e| panic!("{}", e.render(query, Lang::En)));
        f.select(&ctx, s).into_iter().map(|b| b.0).collect()
    }

    #[test]
    fn progress_terms_and_lateness_flags_select_bars() {
        let mut s = float_sample();
        for (b, p) in s.bars.iter_mut().zip([100, 40, 0, 60, 10]) {
            b.progress = p;
        }
        let cal = Calendar::for_schedule(&s);
        // At Thursday 2026-11-05: Spec (4 days of 5 due, 100 %) is fine; Review 3 of
        // 7 (0 %) is late; Docs ended on the 3rd at 60 %: overdue; Training 2 of 3
        // due at 10 %: late. Build has not started.
        let lateness = crate::tracking::lateness(&s, &cal, d("2026-11-05"));
        let ctx =
            FilterContext::new(&s, &IdSet::default(), &IdSet::default()).with_lateness(&lateness);
        let select = |query: &str| -> Vec<u64> {
            let f = parse(query).unwrap_or_else(|e| panic!("{}", e.render(query, Lang::En)));
            f.select(&ctx, &s).into_iter().map(|b| b.0).collect()
        };
        assert_eq!(select("progress<50"), [2, 3, 5]);
        assert_eq!(select("avancement>=60"), [1, 4]);
        assert_eq!(select("progress=100"), [1]);
        assert_eq!(select("progress:0"), [3], "a colon reads as =");
        assert_eq!(select("is:late"), [3, 5]);
        assert_eq!(select("est:en-retard"), [3, 5]);
        assert_eq!(select("is:overdue"), [4]);
        assert_eq!(select("est:hors-délai"), [4]);
        assert_eq!(select("is:late or is:overdue progress>0"), [3, 4, 5]);
        assert!(!parse("progress<50").unwrap().uses_floats());
        check_error(
            "progress <= 50",
            expect![[r#"
                progress <= 50
                ^^^^^^^^^^^^^^
                Write a comparison without spaces: "progress<=50".
                --
                progress <= 50
                ^^^^^^^^^^^^^^
                Une comparaison s'écrit sans espace⟨nbsp⟩: «⟨nbsp⟩progress<=50⟨nbsp⟩»."#]],
        );
        // Without the lateness no bar is late.
        let bare = FilterContext::new(&s, &IdSet::default(), &IdSet::default());
        assert!(parse("is:late").unwrap().select(&bare, &s).is_empty());
    }

    #[test]
    fn float_terms_select_by_total_float() {
        let s = float_sample();
        let floats = floats_of(&s);
        let select = |query| select_floats(&s, &floats, query);
        assert_eq!(select("float<=2"), [1, 2, 3]);
        assert_eq!(select("float<3"), [1, 2, 3]);
        assert_eq!(select("float<2"), [1, 2]);
        assert_eq!(select("float=0"), [1, 2]);
        assert_eq!(select("float:2"), [3], "a colon reads as =");
        assert_eq!(select("float>=5"), [4, 5]);
        assert_eq!(select("float>1"), [3, 4, 5]);
        assert_eq!(select("float>5"), [] as [u64; 0]);
        assert_eq!(select("float>-1"), [1, 2, 3, 4, 5]);
        assert_eq!(select("marge<=2"), [1, 2, 3]);
        assert_eq!(select("float≥2 float≤2"), [3]);
        assert_eq!(select("float<=2 member:Alice"), [1, 2]);
        assert_eq!(select("float<=2 -status:done"), [1, 3]);
        assert_eq!(select("-float>2"), [1, 2, 3]);
        assert_eq!(select("(is:critical or float<=2)"), [1, 2, 3]);
        assert_eq!(select("float=5 or review"), [3, 4, 5]);
        // With the critical set from cpm too, `is:critical` is `float<=0`.
        let critical: IdSet<BarId> = crate::cpm::critical_path(&s)
            .unwrap()
            .critical_bars()
            .collect();
        let ctx = FilterContext::new(&s, &critical, &IdSet::default()).with_floats(&floats);
        assert_eq!(
            parse("is:critical").unwrap().select(&ctx, &s),
            parse("float<=0").unwrap().select(&ctx, &s)
        );
    }

    #[test]
    fn a_bar_without_a_known_float_matches_no_float_term() {
        let s = float_sample();
        // Built without floats, or with the empty list a cycle gives.
        let ctx = FilterContext::new(&s, &IdSet::default(), &IdSet::default());
        for query in ["float>=0", "float<0", "float=0"] {
            assert_eq!(parse(query).unwrap().select(&ctx, &s), [], "{query}");
        }
        assert_eq!(select_floats(&s, &[], "float<=100"), [] as [u64; 0]);
        assert_eq!(select_floats(&s, &[], "-float>10"), [1, 2, 3, 4, 5]);
        // Some floats known, an id of no bar ignored, the last float given kept.
        let some = [(BarId(3), 2), (BarId(99), 0), (BarId(4), 1), (BarId(4), 5)];
        assert_eq!(select_floats(&s, &some, "float>=0"), [3, 4]);
        assert_eq!(select_floats(&s, &some, "float=5"), [4]);
        // A bar the context does not know (a preview's new bar) has no float.
        let ctx = ctx.with_floats(&floats_of(&s));
        let mut unknown = s.bars[0].clone();
        unknown.id = BarId(42);
        assert!(!parse("float>=0").unwrap().matches(&ctx, &unknown));
        assert!(parse("float>=0").unwrap().matches(&ctx, &s.bars[0]));
    }

    #[test]
    fn matches_reads_the_bar_as_given() {
        let s = sample();
        let ctx = FilterContext::new(&s, &IdSet::default(), &IdSet::default());
        let f = parse("from:2027-01-01 group:build").unwrap();
        let mut moved = s.bars[0].clone();
        assert!(!f.matches(&ctx, &moved));
        moved.end = d("2027-01-04");
        moved.row = RowId(7);
        assert!(
            f.matches(&ctx, &moved),
            "a dragged bar is judged where it lands"
        );
        let mut unknown = s.bars[0].clone();
        unknown.id = BarId(99);
        unknown.label = "Nouvelle étape".into();
        assert!(parse("etape").unwrap().matches(&ctx, &unknown));
        assert!(!parse("status:done").unwrap().matches(&ctx, &unknown));
    }

    #[test]
    fn select_agrees_with_matches_on_a_large_schedule() {
        let s = crate::synth::generate(crate::synth::Spec::new(5_000));
        let critical: IdSet<BarId> = s.bars.iter().step_by(7).map(|b| b.id).collect();
        let at_risk = risk::risks(&s).bars_at_risk();
        let ctx = FilterContext::new(&s, &critical, &at_risk);
        for query in [
            "task 1.1 or is:critical",
            "member:\"member 1\" -status:done from:2026-03-01 to:2026-04-30",
            "(group:\"group 2\" or row:\"row 3.\") is:at-risk",
            "is:violated",
        ] {
            let f = parse(query).unwrap();
            let selected = f.select(&ctx, &s);
            let by_one: Vec<BarId> = s
                .bars
                .iter()
                .filter(|b| f.matches(&ctx, b))
                .map(|b| b.id)
                .collect();
            assert_eq!(selected, by_one, "{query}");
            assert!(
                !selected.is_empty() && selected.len() < s.bars.len(),
                "{query}: {}",
                selected.len()
            );
        }
    }

    #[test]
    fn violated_bars_agree_with_risk() {
        let s = crate::synth::generate(crate::synth::Spec::new(3_000));
        let ids: Vec<BarId> = s.bars.iter().map(|b| b.id).collect();
        let mut found: Vec<BarId> = violated_bars(&s, &ids)
            .into_iter()
            .map(|i| ids[i])
            .collect();
        found.sort_unstable();
        found.dedup();
        let cal = Calendar::for_schedule(&s);
        let mut expected: Vec<BarId> = risk::violated_links(&s, &cal)
            .iter()
            .flat_map(|v| [v.from, v.to])
            .filter(|i| s.bar(BarId(i.0)).is_some())
            .map(|i| BarId(i.0))
            .collect();
        expected.sort_unstable();
        expected.dedup();
        assert!(!expected.is_empty());
        assert_eq!(found, expected);
    }

    fn spans_in(e: &Expr, out: &mut Vec<Span>) {
        out.push(e.span());
        match e {
            Expr::Or(_, items) | Expr::And(_, items) => items.iter().for_each(|x| spans_in(x, out)),
            Expr::Not(_, inner) => spans_in(inner, out),
            Expr::Term(..) => {}
        }
    }

    proptest::proptest! {
        /// Whatever is typed, parsing never panics, and every position it reports (an
        /// error's or a node's) lies on character boundaries of the input.
        #[test]
        fn any_input_parses_or_points_inside_it(input in "[a-zé0-9:()\"«»“” \\-]{0,24}") {
            let on_boundary = |at: usize| at <= input.len() && input.is_char_boundary(at);
            match parse(&input) {
                Ok(f) => {
                    let mut spans = Vec::new();
                    if let Some(e) = f.expr() {
                        spans_in(e, &mut spans);
                    }
                    for sp in spans {
                        proptest::prop_assert!(on_boundary(sp.start) && on_boundary(sp.end()) && sp.len > 0, "{sp:?}");
                    }
                }
                Err(e) => {
                    proptest::prop_assert!(on_boundary(e.position) && on_boundary(e.position + e.len), "{e:?}");
                    proptest::prop_assert!(e.len > 0, "an error points at something: {e:?}");
                    let text = e.render(&input, Lang::Fr);
                    proptest::prop_assert!(text.lines().nth(1).is_some_and(|l| l.contains('^')));
                }
            }
        }
    }

    /// The kind and span of the error `input` gets.
    fn refusal(input: &str) -> (FilterErrorKind, usize, usize) {
        let e = parse(input).expect_err("the query must be refused");
        (e.kind, e.position, e.len)
    }

    const TOO_DEEP: FilterErrorKind = FilterErrorKind::TooDeep { max: MAX_DEPTH };

    /// Issue 18: these overflowed the stack and aborted the server. They get the
    /// nesting error at the 65th level, without reading the rest (nor hitting the
    /// length limit further right).
    #[test]
    fn a_hundred_thousand_levels_get_the_depth_error_not_a_crash() {
        let n = 100_000;
        assert_eq!(refusal(&"(".repeat(n)), (TOO_DEEP, 64, 1));
        assert_eq!(refusal(&("-".repeat(n) + "x")), (TOO_DEEP, 64, 1));
        let valid = "(".repeat(n) + "a" + &")".repeat(n);
        assert_eq!(refusal(&valid), (TOO_DEEP, 64, 1));
        assert_eq!(refusal(&("not ".repeat(n) + "x")), (TOO_DEEP, 4 * 64, 3));
        assert_eq!(refusal(&("non(".repeat(n) + "x")), (TOO_DEEP, 4 * 32, 3));
    }

    #[test]
    fn sixty_four_levels_parse_and_sixty_five_do_not() {
        let nested = |open: &str, close: &str, depth: usize| {
            open.repeat(depth) + "is:critical" + &close.repeat(depth)
        };
        for (open, close, width) in [("(", ")", 1), ("-", "", 1), ("not ", "", 4), ("-(", ")", 2)] {
            // `width` characters and `levels` levels per repeat.
            let levels = if open == "-(" { 2 } else { 1 };
            let deepest = MAX_DEPTH / levels;
            let f = parse(&nested(open, close, deepest)).unwrap();
            assert!(f.expr().is_some(), "{open}");
            let (kind, at, _) = refusal(&nested(open, close, deepest + 1));
            assert_eq!((kind, at), (TOO_DEEP, deepest * width), "{open}");
        }
        // Nesting is what is open around a term, not how many operators a query has.
        let wide = "(a) -b not c ".repeat(200);
        assert!(parse(&wide).is_ok());
        let s = sample();
        let ctx = FilterContext::new(&s, &IdSet::default(), &IdSet::default());
        let deep = parse(&("not ".repeat(64) + "Budget")).unwrap();
        assert_eq!(deep.select(&ctx, &s), [BarId(10)], "64 negations are none");
        let deep = parse(&nested("-(", ")", 32).replace("is:critical", "revision")).unwrap();
        assert_eq!(
            deep.select(&ctx, &s),
            [BarId(11)],
            "32 pairs of -( are none"
        );
    }

    #[test]
    fn the_length_limit_counts_characters_and_marks_what_is_past_it() {
        assert!(parse(&"a".repeat(MAX_LEN)).is_ok());
        assert!(parse(&"é".repeat(MAX_LEN)).is_ok(), "characters, not bytes");
        let too_long = |chars| FilterErrorKind::TooLong {
            chars,
            max: MAX_LEN,
        };
        assert_eq!(
            refusal(&"é".repeat(MAX_LEN + 1)),
            (too_long(MAX_LEN + 1), 2 * MAX_LEN, 2),
            "a word that runs past the limit is refused, the part past it marked"
        );
        let words = "ab ".repeat(2_000);
        assert_eq!(refusal(&words), (too_long(6_000), 4_096, 6_000 - 4_096));
        let blank_tail = "x".to_owned() + &" ".repeat(MAX_LEN);
        assert_eq!(refusal(&blank_tail), (too_long(MAX_LEN + 1), MAX_LEN, 1));
        // The first problem from the left is the one reported.
        let e = parse(&("grup:x ".to_owned() + &words)).unwrap_err();
        assert!(
            matches!(e.kind, FilterErrorKind::UnknownKey { .. }),
            "{e:?}"
        );
    }

    #[test]
    fn the_limits_say_what_to_fix_in_both_languages() {
        let deep = "-".repeat(65) + "x";
        let e = parse(&deep).unwrap_err();
        assert_eq!(
            e.render(&deep, Lang::En).lines().nth(1),
            Some(format!("{}^", " ".repeat(64)).as_str())
        );
        assert_eq!(
            e.message(Lang::En),
            "This filter nests parentheses and negations (-, not) more than 64 levels deep: \
             simplify it, e.g. remove extra parentheses or double negations."
        );
        assert_eq!(
            e.message(Lang::Fr),
            "Ce filtre imbrique parenthèses et négations (-, non) sur plus de 64 \
             niveaux\u{a0}: simplifiez-le, par exemple en retirant des parenthèses en trop ou \
             des doubles négations."
        );
        let long = "ab ".repeat(2_000);
        let e = parse(&long).unwrap_err();
        assert_eq!(
            e.message(Lang::En),
            "This filter is 6,000 characters long; a filter holds at most 4,096: shorten it \
             (the part past the limit is marked)."
        );
        assert_eq!(
            e.message(Lang::Fr),
            "Ce filtre fait 6\u{202f}000 caractères\u{202f}; un filtre en compte au plus \
             4\u{202f}096\u{a0}: raccourcissez-le (la partie en trop est marquée)."
        );
        let marked = e.render(&long, Lang::En);
        let carets = marked.lines().nth(1).unwrap();
        assert_eq!(carets.trim_start().len(), 6_000 - 4_096);
        assert_eq!(carets.len(), 6_000);
        assert_eq!(thousands(7, Lang::En), "7");
        assert_eq!(thousands(1_234_567, Lang::En), "1,234,567");
        assert_eq!(thousands(100_000, Lang::Fr), "100\u{202f}000");
    }

    #[test]
    fn the_done_status_reads_as_the_texts_write_it() {
        // « terminée » is the status's word in every text; the older « fait » still reads.
        for q in ["statut:terminée", "statut:fait", "status:done"] {
            let f = parse(q).unwrap_or_else(|e| panic!("{q}: {}", e.render(q, Lang::En)));
            assert!(
                f.expr()
                    .map(sexp)
                    .is_some_and(|t| t.starts_with("Status(Done)@")),
                "{q}"
            );
        }
    }

    #[test]
    fn fold_lowers_and_strips_accents() {
        assert_eq!(fold("L’Équipe ŒUVRE Straße"), "l'equipe oeuvre strasse");
        assert_eq!(fold("Çà\u{a0}et là"), "ca et la");
        // Full lower case and any diacritic, in any script and either form (composed,
        // or a letter followed by its combining marks).
        assert_eq!(fold("Dvořák"), "dvorak");
        assert_eq!(fold("ÉTÉ"), fold("été"));
        assert_eq!(fold("e\u{301}te\u{301}"), "ete");
        assert_eq!(fold("STRASSE"), fold("Straße"));
        assert_eq!(fold("GROẞE"), "grosse");
        assert_eq!(
            fold("Łódź Øresund Đà Nẵng İstanbul Diyarbakır"),
            "lodz oresund da nang istanbul diyarbakir"
        );
        assert_eq!(fold("ΟΔΟΣ"), fold("οδός"));
        assert_eq!(fold("ΆΈΉΊΌΎΏ"), "αεηιουω");
        assert_eq!(fold("Ёлка ЙОД"), "елка иод");
        assert_eq!(fold("ǅemal"), "ǆemal");
        // Scripts the old table left alone: Georgian's Mtavruli, Cherokee, Deseret,
        // Adlam, Latin's African letters, fullwidth and the Kelvin sign.
        assert_eq!(fold("ᲛᲐᲠᲢᲘ"), "მარტი");
        assert_eq!(fold("ᏣᎳᎩ"), "ꮳꮃꭹ");
        assert_eq!(fold("𐐔𐐯"), "𐐼𐐯");
        assert_eq!(fold("𞤀"), "𞤢");
        assert_eq!(fold("ƁƊƘ"), "ɓɗƙ");
        assert_eq!(fold("ＡＢＣ \u{212a}"), "ａｂｃ k");
        // Marks that make another letter are kept: kana voicing, Hangul syllables,
        // Devanagari vowel signs.
        assert_eq!(fold("が"), "か\u{3099}");
        assert_ne!(fold("が"), fold("か"));
        assert_eq!(fold("한국"), "한국");
        assert_eq!(fold("कि"), "कि");
        // Hebrew and Arabic vowel points are diacritics.
        assert_eq!(fold("שָׁלוֹם"), "שלום");
        assert_eq!(fold("مُحَمَّد"), "محمد");
    }

    /// The fold is a fold: folding again changes nothing, so a query typed as the filter
    /// shows it finds the same; and a text folds the same whether it came composed or
    /// decomposed (a Mac's file names and some keyboards send "e" and a combining acute),
    /// and whatever its case. Checked on every char.
    #[test]
    fn fold_is_stable_and_ignores_the_normal_form_and_the_case_of_every_char() {
        use unicode_normalization::UnicodeNormalization;
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let text = c.to_string();
            let once = fold(&text);
            assert_eq!(fold(&once), once, "U+{:04X}", c as u32);
            if !('\u{ac00}'..='\u{d7a3}').contains(&c) {
                let nfd: String = text.nfd().collect();
                assert_eq!(fold(&nfd), once, "U+{:04X} decomposed", c as u32);
            }
            let nfc: String = text.nfc().collect();
            assert_eq!(fold(&nfc), once, "U+{:04X} composed", c as u32);
            let upper: String = text.to_uppercase();
            if upper.to_lowercase() == text {
                assert_eq!(fold(&upper), once, "U+{:04X} in capitals", c as u32);
            }
        }
    }

    #[test]
    fn a_word_finds_its_label_whatever_its_case_and_accents() {
        let s = sample();
        let ctx = FilterContext::new(&s, &IdSet::default(), &IdSet::default());
        let mut bar = s.bars[0].clone();
        bar.id = BarId(99);
        for (label, queries) in [
            (
                "Symphonie de Dvořák",
                &["dvorak", "DVOŘÁK", "Dvořák", "\"de dvorak\""][..],
            ),
            ("ÉTÉ 2027", &["été", "ete", "ÉTÉ"][..]),
            ("Straßenbau", &["strassenbau", "STRASSE", "straß"][..]),
            ("ОБУЧЕНИЕ", &["обучение"][..]),
        ] {
            bar.label = label.into();
            for q in queries {
                assert!(parse(q).unwrap().matches(&ctx, &bar), "{q} in {label}");
            }
        }
        bar.label = "Dvorak".into();
        assert!(parse("dvořák").unwrap().matches(&ctx, &bar));
        assert!(!parse("dvorka").unwrap().matches(&ctx, &bar));
    }
}
