//! Why a command or an imported schedule is refused: [`ApplyError`] and
//! [`ScheduleError`] locate the fault, [`Problem`] says what is wrong in typed form,
//! and the messages (French by default, English on request) say what would be valid,
//! so that an assistant can correct its call without guessing. A lock's phrase is here
//! too, by ids for the assistant (`lock_summary`) and by names for a person reading the
//! view (`lock_summary_named`).

use std::fmt;

use serde::Serialize;

use crate::date::{Date, MAX_YEAR, MIN_YEAR};
use crate::schedule::{
    BarId, Constraint, ConstraintKind, GroupId, ItemId, LinkId, Lock, LockTarget, Schedule,
};
use crate::{Lang, text};

use super::check::MAX_ID;

/// The kinds of items a command refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Group,
    Row,
    Bar,
    Milestone,
    /// A bar or a milestone: what a link joins.
    Item,
    Link,
    Action,
    Member,
    Absence,
}

impl Kind {
    /// French: (definite "le bloc", indefinite "un bloc").
    fn fr(self) -> (&'static str, &'static str) {
        match self {
            Kind::Group => ("le groupe", "un groupe"),
            Kind::Row => ("la ligne", "une ligne"),
            Kind::Bar => ("le bloc", "un bloc"),
            Kind::Milestone => ("le jalon", "un jalon"),
            Kind::Item => ("l'élément", "un bloc ou un jalon"),
            Kind::Link => ("le lien", "un lien"),
            Kind::Action => ("l'action", "une action"),
            Kind::Member => ("le membre", "un membre"),
            Kind::Absence => ("l'absence", "une absence"),
        }
    }

    fn en(self) -> &'static str {
        match self {
            Kind::Group => "group",
            Kind::Row => "row",
            Kind::Bar => "bar",
            Kind::Milestone => "milestone",
            Kind::Item => "bar or milestone",
            Kind::Link => "link",
            Kind::Action => "action",
            Kind::Member => "member",
            Kind::Absence => "absence",
        }
    }

    /// "un bloc", "a bar": the indefinite, in a language.
    pub fn indefinite(self, lang: crate::Lang) -> &'static str {
        match lang {
            crate::Lang::Fr => self.fr().1,
            crate::Lang::En => self.en_a(),
        }
    }

    /// Whether an item of kind `found` is what this kind asks for (a link's end is a
    /// bar or a milestone).
    pub fn admits(self, found: Kind) -> bool {
        self == found || self == Kind::Item && matches!(found, Kind::Bar | Kind::Milestone)
    }

    /// "a bar", "an action": the English indefinite.
    fn en_a(self) -> &'static str {
        match self {
            Kind::Group => "a group",
            Kind::Row => "a row",
            Kind::Bar => "a bar",
            Kind::Milestone => "a milestone",
            Kind::Item => "a bar or a milestone",
            Kind::Link => "a link",
            Kind::Action => "an action",
            Kind::Member => "a member",
            Kind::Absence => "an absence",
        }
    }

    /// "d'un bloc", "d'une ligne": the French indefinite after "de".
    fn fr_of(self) -> String {
        match self {
            Kind::Item => "d'un bloc ou d'un jalon".to_owned(),
            _ => format!("d'{}", self.fr().1),
        }
    }
}

/// What is wrong with a field.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Problem {
    /// No item of this kind has this id; `actual` is the kind that does, if any.
    NotFound {
        kind: Kind,
        id: u64,
        actual: Option<Kind>,
    },
    /// An explicit id already names an item.
    IdInUse {
        id: u64,
        kind: Kind,
    },
    /// An id outside 1..=MAX_ID.
    BadId {
        id: u64,
    },
    /// An imported item's id is not below the schedule's `next_id`.
    IdNotBelowNextId {
        id: u64,
        next_id: u64,
    },
    /// A name or label is blank.
    Empty,
    /// A list of ids is empty.
    EmptyList,
    /// An id appears twice in a list.
    Repeated {
        id: u64,
    },
    TooLong {
        len: usize,
        max: usize,
    },
    EndBeforeStart {
        start: Date,
        end: Date,
    },
    OutOfRange {
        value: i64,
        min: i64,
        max: i64,
    },
    /// A date given, or reached by a move, outside the supported years.
    DateOutOfRange {
        date: Date,
    },
    BadColor {
        value: String,
    },
    BadEmail {
        value: String,
    },
    BadTimeZone {
        value: String,
    },
    NoWorkingWeekday,
    SelfLink {
        item: ItemId,
    },
    /// Another link already joins the same items with the same kind.
    DuplicateLink {
        existing: LinkId,
    },
    /// The links would form (or form) a cycle: its items in order, each with its label
    /// (cut to 60 characters); the last one leads back to the first.
    Cycle {
        items: Vec<(ItemId, String)>,
    },
    /// An imported collection is not in increasing order without duplicates.
    Unsorted,
    /// An imported schedule's rows are not grouped by group in group order.
    RowsNotContiguous {
        group: GroupId,
    },
    /// A whole schedule given to `replace_schedule` breaks an invariant at `path`.
    InvalidSchedule {
        path: String,
        inner: Box<Problem>,
    },
    /// The command would change (or add to, or link to) `item`, which `lock` holds
    /// (`item` 0: the schedule's own fields, or everything).
    Locked {
        item: u64,
        lock: Box<Lock>,
    },
    /// The target already has a lock.
    AlreadyLocked {
        lock: Box<Lock>,
    },
    /// The target has no lock to remove.
    NotLocked {
        target: LockTarget,
    },
    /// The cascade that follows the commands cannot move `item` (a lock holds it, or
    /// its new dates leave the supported years).
    Cascade {
        item: ItemId,
        inner: Box<Problem>,
    },
    /// The cascade that follows the commands would move `item` past one of its upper
    /// bounds (start no later than, must start on, finish no later than) by `by_days`
    /// working days; `label` is the item's, cut to 60 characters.
    CascadeConstraint {
        item: ItemId,
        label: String,
        kind: ConstraintKind,
        date: Date,
        by_days: i64,
    },
    /// A bar's `constraint` holds a "start no earlier than": that is its `pin`.
    PinAsConstraint,
    /// A bar with an actual finish is complete: its percent cannot be below 100.
    FinishedBelow100 {
        bar: BarId,
        percent: u8,
    },
}

/// How many items of a cycle a message lists before eliding the rest.
const CYCLE_SHOWN: usize = 12;

impl Problem {
    /// What is wrong, then what would be valid, as one or two sentences.
    pub fn message(&self, lang: Lang) -> String {
        match lang {
            Lang::Fr => self.fr(),
            Lang::En => self.en(),
        }
    }

    fn fr(&self) -> String {
        match self {
            Problem::NotFound { kind, id, actual } => {
                let what = match kind {
                    Kind::Item => format!("aucun bloc ni jalon n'a l'id {id}"),
                    _ => format!("{} {id} n'existe pas", kind.fr().0),
                };
                let actual = match actual {
                    Some(k) => format!(" ({id} est {})", k.fr().1),
                    None => String::new(),
                };
                format!(
                    "{what}{actual}. Indiquez l'id {} du planning.",
                    kind.fr_of()
                )
            }
            Problem::IdInUse { id, kind } => format!(
                "l'id {id} est déjà pris par {}. Omettez id pour en obtenir un neuf.",
                kind.fr().1
            ),
            Problem::BadId { id } => format!(
                "l'id {id} n'est pas valable. Un id va de 1 à {MAX_ID}\u{202f}; omettez id pour en obtenir un."
            ),
            Problem::IdNotBelowNextId { id, next_id } => format!(
                "l'id {id} n'est pas inférieur à next_id ({next_id}). Donnez à next_id une valeur supérieure à tous les ids."
            ),
            Problem::Empty => {
                "le texte est vide. Donnez un texte avec au moins un caractère visible.".into()
            }
            Problem::EmptyList => "la liste est vide. Indiquez au moins un id.".into(),
            Problem::Repeated { id } => {
                format!("l'id {id} figure deux fois. Citez chaque id une seule fois.")
            }
            Problem::TooLong { len, max } => format!(
                "le texte fait {len} caractères. Raccourcissez-le à {max} caractères au plus."
            ),
            Problem::EndBeforeStart { start, end } => format!(
                "la fin ({end}) précède le début ({start}). Donnez une fin le jour du début ou après (une période d'un jour a début = fin)."
            ),
            Problem::OutOfRange { value, min, max } => {
                format!("{value} est hors limites. Donnez un nombre entre {min} et {max}.")
            }
            Problem::DateOutOfRange { date } => format!(
                "la date {date} sort des années acceptées. Restez entre le {MIN_YEAR}-01-01 et le {MAX_YEAR}-12-31."
            ),
            Problem::BadColor { value } => format!(
                "«\u{a0}{value}\u{a0}» n'est pas une couleur. Donnez «\u{a0}#rgb\u{a0}» ou «\u{a0}#rrggbb\u{a0}» en hexadécimal, par exemple «\u{a0}#2f6fdf\u{a0}»."
            ),
            Problem::BadEmail { value } => format!(
                "«\u{a0}{value}\u{a0}» n'est pas une adresse e-mail. Donnez une adresse avec un seul @, du texte de chaque côté et sans espace, par exemple «\u{a0}alice@example.org\u{a0}»."
            ),
            Problem::BadTimeZone { value } => format!(
                "«\u{a0}{value}\u{a0}» n'est pas un fuseau horaire IANA. Donnez un nom «\u{a0}Région/Ville\u{a0}» comme «\u{a0}Europe/Paris\u{a0}», ou «\u{a0}UTC\u{a0}»."
            ),
            Problem::NoWorkingWeekday => "la semaine n'a aucun jour ouvré. Indiquez au moins un jour, par exemple [\"mon\", \"tue\", \"wed\", \"thu\", \"fri\"].".into(),
            Problem::SelfLink { item } => format!(
                "un lien ne peut pas relier l'élément {item} à lui-même. Choisissez deux éléments différents."
            ),
            Problem::DuplicateLink { existing } => format!(
                "le lien {existing} relie déjà ces deux éléments avec ce type. Modifiez-le avec update_link au lieu d'en créer un second."
            ),
            Problem::Cycle { items } => format!(
                "cycle de liens\u{a0}: {}. Un élément ne peut pas dépendre de lui-même\u{a0}: retirez un lien de ce cycle ou reliez d'autres éléments.",
                cycle_text(items, Lang::Fr)
            ),
            Problem::Unsorted => "les éléments ne sont pas rangés par ordre croissant sans doublon. Triez-les et retirez les doublons.".into(),
            Problem::RowsNotContiguous { group } => format!(
                "les lignes du groupe {group} ne se suivent pas dans l'ordre des groupes. Rangez les lignes groupe par groupe, dans l'ordre des groupes."
            ),
            Problem::InvalidSchedule { path, inner } => {
                format!("le planning donné est invalide, {path}\u{a0}: {}", inner.fr())
            }
            Problem::Locked { item, lock } => {
                let what = if *item == 0 || *item == lock.target.id() {
                    String::new()
                } else {
                    format!("l'élément {item}, que tient ")
                };
                format!(
                    "cette commande toucherait {what}{}\u{a0}: verrouillé par {} le {}{}. Déverrouillez-le (lock avec unlock: true), ou demandez-le à {}.",
                    target_fr(lock.target),
                    lock.by_name,
                    when(lock.since_ms, Lang::Fr),
                    reason(&lock.reason, Lang::Fr),
                    lock.by_name
                )
            }
            Problem::AlreadyLocked { lock } => format!(
                "{} est déjà verrouillé par {} depuis le {}{}. Rien à faire, ou déverrouillez d'abord.",
                capitalise(&target_fr(lock.target)),
                lock.by_name,
                when(lock.since_ms, Lang::Fr),
                reason(&lock.reason, Lang::Fr)
            ),
            Problem::NotLocked { target } => format!(
                "{} n'a pas de verrou. Les verrous du planning sont listés par get_schedule.",
                capitalise(&target_fr(*target))
            ),
            Problem::Cascade { item, inner } => format!(
                "le décalage en cascade des successeurs doit déplacer l'élément {item}, mais {} Rien n'a été écrit\u{202f}; pour écrire ces changements sans décaler les successeurs, passez cascade: false.",
                inner.fr()
            ),
            Problem::CascadeConstraint {
                item,
                label,
                kind,
                date,
                by_days,
            } => format!(
                "le décalage en cascade des successeurs ferait {} l'élément {item} «\u{a0}{label}\u{a0}» {} trop tard pour sa contrainte «\u{a0}{}\u{a0}». Rien n'a été écrit\u{202f}; déplacez ou retirez cette contrainte (set_constraint, une date null la retire), ou passez cascade: false pour écrire ces changements sans décaler les successeurs.",
                if kind.on_finish() { "finir" } else { "commencer" },
                text::working_days(*by_days, Lang::Fr),
                text::constraint_phrase(Constraint { kind: *kind, date: *date }, Lang::Fr)
            ),
            Problem::PinAsConstraint => "un bloc garde sa contrainte «\u{a0}début au plus tôt le\u{a0}» dans pin, pas dans constraint. Mettez cette date dans pin, ou donnez à constraint un autre type.".into(),
            Problem::FinishedBelow100 { bar, percent } => format!(
                "une fin réelle veut dire que le bloc {bar} est terminé (100\u{202f}%)\u{a0}: {percent}\u{202f}% ne convient pas. Omettez percent (il passe à 100), ou effacez actual_finish (null) pour un avancement plus bas."
            ),
        }
    }

    fn en(&self) -> String {
        match self {
            Problem::NotFound { kind, id, actual } => {
                let what = match kind {
                    Kind::Item => format!("no bar or milestone has id {id}"),
                    _ => format!("{} {id} does not exist", kind.en()),
                };
                let actual = match actual {
                    Some(k) => format!(" ({id} is {})", k.en_a()),
                    None => String::new(),
                };
                format!(
                    "{what}{actual}. Give the id of {} of the schedule.",
                    kind.en_a()
                )
            }
            Problem::IdInUse { id, kind } => format!(
                "id {id} is already taken by {}. Leave id out to get a fresh one.",
                kind.en_a()
            ),
            Problem::BadId { id } => format!(
                "id {id} is not valid. Ids go from 1 to {MAX_ID}; leave id out to get one."
            ),
            Problem::IdNotBelowNextId { id, next_id } => format!(
                "id {id} is not below next_id ({next_id}). Set next_id above every id."
            ),
            Problem::Empty => "the text is blank. Give a text with at least one visible character.".into(),
            Problem::EmptyList => "the list is empty. Give at least one id.".into(),
            Problem::Repeated { id } => {
                format!("id {id} appears twice. Give each id once.")
            }
            Problem::TooLong { len, max } => format!(
                "the text has {len} characters. Shorten it to at most {max} characters."
            ),
            Problem::EndBeforeStart { start, end } => format!(
                "the end ({end}) is before the start ({start}). Give an end on or after the start (a one-day period has start = end)."
            ),
            Problem::OutOfRange { value, min, max } => {
                format!("{value} is out of range. Give a number from {min} to {max}.")
            }
            Problem::DateOutOfRange { date } => format!(
                "the date {date} is outside the supported years. Stay between {MIN_YEAR}-01-01 and {MAX_YEAR}-12-31."
            ),
            Problem::BadColor { value } => format!(
                "\"{value}\" is not a colour. Give \"#rgb\" or \"#rrggbb\" in hexadecimal, e.g. \"#2f6fdf\"."
            ),
            Problem::BadEmail { value } => format!(
                "\"{value}\" is not an e-mail address. Give an address with one @, text on both sides and no blank, e.g. \"alice@example.org\"."
            ),
            Problem::BadTimeZone { value } => format!(
                "\"{value}\" is not an IANA time zone. Give an \"Area/City\" name such as \"Europe/Paris\", or \"UTC\"."
            ),
            Problem::NoWorkingWeekday => "the week has no working day. Give at least one, e.g. [\"mon\", \"tue\", \"wed\", \"thu\", \"fri\"].".into(),
            Problem::SelfLink { item } => format!(
                "a link cannot join item {item} to itself. Choose two different items."
            ),
            Problem::DuplicateLink { existing } => format!(
                "link {existing} already joins these two items with this kind. Change it with update_link instead of adding another."
            ),
            Problem::Cycle { items } => format!(
                "link cycle: {}. An item cannot depend on itself: remove a link of this cycle or join other items.",
                cycle_text(items, Lang::En)
            ),
            Problem::Unsorted => "the entries are not in increasing order without duplicates. Sort them and remove duplicates.".into(),
            Problem::RowsNotContiguous { group } => format!(
                "the rows of group {group} do not follow each other in group order. List the rows group by group, in the order of the groups."
            ),
            Problem::InvalidSchedule { path, inner } => {
                format!("the schedule given is invalid, {path}: {}", inner.en())
            }
            Problem::Locked { item, lock } => {
                let what = if *item == 0 || *item == lock.target.id() {
                    String::new()
                } else {
                    format!("item {item}, held by ")
                };
                format!(
                    "this command would touch {what}{}: locked by {} on {}{}. Unlock it (lock with unlock: true), or ask {}.",
                    target_en(lock.target),
                    lock.by_name,
                    when(lock.since_ms, Lang::En),
                    reason(&lock.reason, Lang::En),
                    lock.by_name
                )
            }
            Problem::AlreadyLocked { lock } => format!(
                "{} is already locked by {} since {}{}. Nothing to do, or unlock first.",
                capitalise(&target_en(lock.target)),
                lock.by_name,
                when(lock.since_ms, Lang::En),
                reason(&lock.reason, Lang::En)
            ),
            Problem::NotLocked { target } => format!(
                "{} has no lock. get_schedule lists the schedule's locks.",
                capitalise(&target_en(*target))
            ),
            Problem::Cascade { item, inner } => format!(
                "the cascade that moves the successors must move item {item}, but {} Nothing was written; to write these changes without moving the successors, pass cascade: false.",
                inner.en()
            ),
            Problem::CascadeConstraint {
                item,
                label,
                kind,
                date,
                by_days,
            } => format!(
                "the cascade that moves the successors would make item {item} “{label}” {} {} too late for its constraint “{}”. Nothing was written; move or remove that constraint (set_constraint; a null date removes it), or pass cascade: false to write these changes without moving the successors.",
                if kind.on_finish() { "finish" } else { "start" },
                text::working_days(*by_days, Lang::En),
                text::constraint_phrase(Constraint { kind: *kind, date: *date }, Lang::En)
            ),
            Problem::PinAsConstraint => "a bar keeps its “start no earlier than” constraint in pin, not in constraint. Put that date in pin, or give constraint another kind.".into(),
            Problem::FinishedBelow100 { bar, percent } => format!(
                "an actual finish means bar {bar} is complete (100%): {percent}% does not fit. Leave percent out (it becomes 100), or clear actual_finish (null) for a lower progress."
            ),
        }
    }
}

/// A lock's target in French: « le bloc 14 », « le planning ».
fn target_fr(target: LockTarget) -> String {
    match target {
        LockTarget::Schedule => "le planning".into(),
        LockTarget::Group(g) => format!("le groupe {g}"),
        LockTarget::Row(r) => format!("la ligne {r}"),
        LockTarget::Bar(b) => format!("le bloc {b}"),
    }
}

/// A lock's target in English: "bar 14", "the schedule".
fn target_en(target: LockTarget) -> String {
    match target {
        LockTarget::Schedule => "the schedule".into(),
        LockTarget::Group(g) => format!("group {g}"),
        LockTarget::Row(r) => format!("row {r}"),
        LockTarget::Bar(b) => format!("bar {b}"),
    }
}

/// A lock's target in a language: « le bloc 14 », "the schedule".
pub fn lock_target(target: LockTarget, lang: Lang) -> String {
    match lang {
        Lang::Fr => target_fr(target),
        Lang::En => target_en(target),
    }
}

/// A lock in one phrase: « le bloc 14, par Alice le 2026-12-01 à 09:14 UTC (« revue ») ».
pub fn lock_summary(lock: &Lock, lang: Lang) -> String {
    lock_held_by(lock_target(lock.target, lang), lock, lang)
}

/// [`lock_summary`] for a person: the locked item named by its label, where the model's
/// phrase gives its id (« le bloc « Pose », par Alice le … »); by its id still if `s`
/// does not hold it.
pub fn lock_summary_named(lock: &Lock, s: &Schedule, lang: Lang) -> String {
    let name = lock_target_name(s, lock.target);
    lock_held_by(lock_target_named(lock.target, name, lang), lock, lang)
}

/// The name of what a lock holds in `s`: its group's, row's or bar's (`None` for the
/// whole schedule, or an item `s` does not hold).
pub(crate) fn lock_target_name(s: &Schedule, target: LockTarget) -> Option<&str> {
    match target {
        LockTarget::Group(g) => s.group(g).map(|g| g.name.as_str()),
        LockTarget::Row(r) => s.row(r).map(|r| r.name.as_str()),
        LockTarget::Bar(b) => s.bar(b).map(|b| b.label.as_str()),
        LockTarget::Schedule => None,
    }
}

/// [`lock_target`] for a person, by its `name` (« le bloc « Pose » », "row “Pose”");
/// by its id when the name is unknown.
pub(crate) fn lock_target_named(target: LockTarget, name: Option<&str>, lang: Lang) -> String {
    let (Some(name), Some((fr, en))) = (
        name,
        match target {
            LockTarget::Group(_) => Some(("le groupe", "group")),
            LockTarget::Row(_) => Some(("la ligne", "row")),
            LockTarget::Bar(_) => Some(("le bloc", "bar")),
            LockTarget::Schedule => None,
        },
    ) else {
        return lock_target(target, lang);
    };
    match lang {
        Lang::Fr => format!("{fr} «\u{a0}{name}\u{a0}»"),
        Lang::En => format!("{en} “{name}”"),
    }
}

/// A lock's phrase after the words for its `target`: who holds it, since when, and why
/// (« ce bloc, par Alice le … » in the locked bar's own tooltip).
pub fn lock_held_by(target: String, lock: &Lock, lang: Lang) -> String {
    let (by, on) = match lang {
        Lang::Fr => ("par", "le"),
        Lang::En => ("by", "on"),
    };
    format!(
        "{target}, {by} {} {on} {}{}",
        lock.by_name,
        when(lock.since_ms, lang),
        reason(&lock.reason, lang)
    )
}

pub(super) fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// A lock's time, in UTC: « 2026-12-01 à 09:14 UTC », "2026-12-01 at 09:14 UTC".
pub(super) fn when(ms: i64, lang: Lang) -> String {
    const DAY: i64 = 86_400_000;
    let day = Date::from_days(ms.div_euclid(DAY) as i32);
    let minutes = ms.rem_euclid(DAY) / 60_000;
    let (h, m) = (minutes / 60, minutes % 60);
    match lang {
        Lang::Fr => format!("{day} à {h:02}:{m:02} UTC"),
        Lang::En => format!("{day} at {h:02}:{m:02} UTC"),
    }
}

pub(super) fn reason(reason: &str, lang: Lang) -> String {
    match (reason.is_empty(), lang) {
        (true, _) => String::new(),
        (false, Lang::Fr) => format!(" («\u{a0}{reason}\u{a0}»)"),
        (false, Lang::En) => format!(" (“{reason}”)"),
    }
}

/// "4 « Walls » → 5 « Roof » → 4 « Walls »", eliding the middle of a long cycle.
fn cycle_text(items: &[(ItemId, String)], lang: Lang) -> String {
    loop_chain(items, lang, |(id, label)| match lang {
        Lang::Fr => format!("{id} «\u{a0}{label}\u{a0}»"),
        Lang::En => format!("{id} \"{label}\""),
    })
}

/// A loop of items, each as `show` writes it, back to the first: the first
/// `CYCLE_SHOWN`, then how many more.
pub(super) fn loop_chain(
    items: &[(ItemId, String)],
    lang: Lang,
    show: impl Fn(&(ItemId, String)) -> String,
) -> String {
    let mut parts: Vec<String> = items.iter().take(CYCLE_SHOWN).map(&show).collect();
    if items.len() > CYCLE_SHOWN {
        let more = items.len() - CYCLE_SHOWN;
        parts.push(match lang {
            Lang::Fr => format!("… ({more} de plus)"),
            Lang::En => format!("… ({more} more)"),
        });
    }
    parts.extend(items.first().map(show));
    parts.join(" → ")
}

/// A refused command list: the first command at fault, the field, and the problem.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ApplyError {
    /// The position of the command in the list, from 0 (messages count from 1).
    pub command: usize,
    /// The command's `op`.
    pub op: &'static str,
    /// The field at fault, as named on the wire ("bars", "start"...).
    pub field: String,
    pub problem: Problem,
}

impl ApplyError {
    /// The message for a user or an assistant: the command (its number from 1 and its
    /// op), the field, what is wrong and what would be valid.
    pub fn message(&self, lang: Lang) -> String {
        let n = self.command + 1;
        let (op, field, problem) = (self.op, &self.field, self.problem.message(lang));
        match (lang, field.is_empty()) {
            // A problem of the whole command (a lock holds what it touches) has no field.
            (Lang::Fr, true) => format!("Commande {n} ({op})\u{a0}: {problem}"),
            (Lang::En, true) => format!("Command {n} ({op}): {problem}"),
            (Lang::Fr, false) => format!("Commande {n} ({op}), champ {field}\u{a0}: {problem}"),
            (Lang::En, false) => format!("Command {n} ({op}), field {field}: {problem}"),
        }
    }
}

impl ApplyError {
    /// The same without the command's number and op, for a tool that wrote the
    /// commands itself from its own fields: « Champ group : … ».
    pub fn field_message(&self, lang: Lang) -> String {
        let (field, problem) = (&self.field, self.problem.message(lang));
        match (lang, field.is_empty()) {
            (_, true) => {
                let mut c = problem.chars();
                c.next()
                    .map(|f| f.to_uppercase().chain(c).collect())
                    .unwrap_or_default()
            }
            (Lang::Fr, false) => format!("Champ {field}\u{a0}: {problem}"),
            (Lang::En, false) => format!("Field {field}: {problem}"),
        }
    }
}

impl fmt::Display for ApplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for ApplyError {}

/// Why a schedule (typically imported) breaks an invariant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScheduleError {
    /// Where: `bars[12].row`, `settings.holidays`, `links`.
    pub path: String,
    pub problem: Problem,
}

impl ScheduleError {
    pub fn message(&self, lang: Lang) -> String {
        let (path, problem) = (&self.path, self.problem.message(lang));
        match lang {
            Lang::Fr => format!("Planning invalide, {path}\u{a0}: {problem}"),
            Lang::En => format!("Invalid schedule, {path}: {problem}"),
        }
    }
}

impl fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for ScheduleError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::s4hana_migration;
    use crate::schedule::RowId;

    #[test]
    fn a_person_reads_a_lock_by_the_name_of_what_it_holds() {
        let s = s4hana_migration();
        let lock = |target| Lock {
            target,
            by: 1,
            by_name: "Alice".into(),
            // 2026-12-01 09:14 UTC.
            since_ms: 1_796_116_440_000,
            reason: "revue".into(),
        };
        let bar = lock(LockTarget::Bar(BarId(14)));
        assert_eq!(
            lock_summary_named(&bar, &s, Lang::Fr),
            "le bloc «\u{a0}Nettoyage des données\u{a0}», par Alice le 2026-12-01 à 09:14 UTC («\u{a0}revue\u{a0}»)"
        );
        assert_eq!(
            lock_summary(&bar, Lang::En),
            "bar 14, by Alice on 2026-12-01 at 09:14 UTC (“revue”)",
            "the model's phrase keeps the id"
        );
        assert_eq!(
            lock_summary_named(&lock(LockTarget::Row(RowId(8))), &s, Lang::En),
            "row “Adaptation du code spécifique”, by Alice on 2026-12-01 at 09:14 UTC (“revue”)"
        );
        assert_eq!(
            lock_summary_named(&lock(LockTarget::Group(GroupId(5))), &s, Lang::En),
            "group “Préparation”, by Alice on 2026-12-01 at 09:14 UTC (“revue”)"
        );
        assert_eq!(
            lock_summary_named(&lock(LockTarget::Schedule), &s, Lang::Fr),
            "le planning, par Alice le 2026-12-01 à 09:14 UTC («\u{a0}revue\u{a0}»)"
        );
        // Something the schedule no longer holds keeps its id.
        assert!(
            lock_summary_named(&lock(LockTarget::Bar(BarId(999))), &s, Lang::En)
                .starts_with("bar 999,")
        );
    }
}
