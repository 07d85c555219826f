//! The refusal codes: why a tool (or an `/embed` call) refused, as a client reads it in
//! `structuredContent.error`. One enum, so a code cannot drift in spelling between two
//! tools (`confirm_needed` once had a twin, `confirmation_needed`); docs/tools.md lists
//! them.

use serde::Serialize;

/// Declares the codes with their wire names (snake case).
macro_rules! codes {
    ($($variant:ident => $name:literal,)*) => {
        /// Why a tool refused.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        pub enum Code {
            $(
                #[serde(rename = $name)]
                $variant,
            )*
        }

        impl Code {
            /// Every code, in the order declared.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The code as clients read it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }
        }
    };
}

codes! {
    AbsenceNotFound => "absence_not_found",
    AmbiguousMember => "ambiguous_member",
    AmbiguousSchedule => "ambiguous_schedule",
    Busy => "busy",
    ConfirmNeeded => "confirm_needed",
    Conflict => "conflict",
    ConstraintBroken => "constraint_broken",
    Cycle => "cycle",
    Forbidden => "forbidden",
    Internal => "internal",
    InvalidArguments => "invalid_arguments",
    InvalidBody => "invalid_body",
    InvalidCommand => "invalid_command",
    InvalidCsv => "invalid_csv",
    InvalidFilter => "invalid_filter",
    InvalidSchedule => "invalid_schedule",
    InvalidTimeZone => "invalid_time_zone",
    LastOwner => "last_owner",
    Locked => "locked",
    MemberNotFound => "member_not_found",
    NoAccess => "no_access",
    NotFound => "not_found",
    NothingToRedo => "nothing_to_redo",
    NothingToUndo => "nothing_to_undo",
    NoLongerApplies => "no_longer_applies",
    Unauthenticated => "unauthenticated",
    OtherSchedule => "other_schedule",
    OutOfDate => "out_of_date",
    OutsideLink => "outside_link",
    PageNotFound => "page_not_found",
    ReadOnlyToken => "read_only_token",
    RowNotFound => "row_not_found",
    ScheduleNotFound => "schedule_not_found",
    Storage => "storage",
    TokenRestricted => "token_restricted",
    TooLarge => "too_large",
    UnknownTool => "unknown_tool",
    UserNotFound => "user_not_found",
    VersionExists => "version_exists",
    VersionNotFound => "version_not_found",
    MissingLinkToken => "missing_link_token",
    MalformedLink => "malformed_link",
    TamperedLink => "tampered_link",
    ExpiredLink => "expired_link",
    WrongSchedule => "wrong_schedule",
    ReadOnlyLink => "read_only_link",
    RevokedLink => "revoked_link",
    LinkKeyUnavailable => "link_key_unavailable",
    Unavailable => "unavailable",
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tool_list_names_every_code() {
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/tools.md"))
            .unwrap();
        for c in Code::ALL {
            assert!(
                doc.contains(&format!("`{c}`")),
                "docs/tools.md does not name `{c}`"
            );
        }
    }

    #[test]
    fn each_code_is_written_as_its_name_and_no_two_alike() {
        let mut seen = std::collections::BTreeSet::new();
        for c in Code::ALL {
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
            assert!(seen.insert(c.as_str()), "{c} twice");
            assert!(
                c.as_str()
                    .chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch == '_')
            );
        }
    }
}
