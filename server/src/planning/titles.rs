//! What a host shows of each tool beside its name: a title for people, and the hints
//! (MCP tool annotations) it uses to decide what to confirm. With no `destructiveHint`
//! a host must assume the worst and may ask before every `add_*`; so every tool says,
//! in one table: its title, whether it may destroy data (deletes, restores, and the
//! writes that may remove something: a patch, a settings change, undo and redo; every
//! write is journalled and undone by `undo`, but a host cannot know that), and whether
//! calling it twice does no more than once. All tools work on
//! PalmaPlan's own schedules only (`openWorldHint: false`).

/// A tool's presentation: its title and two hints (`readOnlyHint` comes from its
/// declared access).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Presentation {
    pub(crate) title: &'static str,
    pub(crate) destructive: bool,
    pub(crate) idempotent: bool,
}

/// Destroys data: a delete, a restore over the current state, an import over bars.
const D: (bool, bool) = (true, true);
/// Sets something to a given value: twice is once.
const S: (bool, bool) = (false, true);
/// Adds or moves by an amount: twice is twice.
const A: (bool, bool) = (false, false);
/// May remove data, and twice is not once: a patch (which may hold deletes), a
/// settings change (an empty holiday list clears them all), undo and redo (undoing an
/// addition removes it).
const W: (bool, bool) = (true, false);

const TABLE: &[(&str, &str, (bool, bool))] = &[
    ("list_schedules", "List schedules", S),
    ("get_schedule", "Schedule summary", S),
    ("create_schedule", "Create a schedule", A),
    ("duplicate_schedule", "Duplicate a schedule", A),
    ("delete_schedule", "Delete a schedule", D),
    ("share_schedule", "Share a schedule", D),
    ("list_access", "Who has access", S),
    ("update_settings", "Rename or change settings", W),
    ("add_group", "Add a group", A),
    ("update_group", "Rename or move a group", S),
    ("delete", "Delete an item", D),
    ("list_rows", "List groups and rows", S),
    ("add_row", "Add a row", A),
    ("update_row", "Edit a row", S),
    ("add_period", "Add a bar", A),
    ("move_periods", "Move bars", A),
    ("resize_period", "Resize a bar", A),
    ("update_period", "Edit a bar or its dates", S),
    ("delete_periods", "Delete bars", D),
    ("list_periods", "List bars and milestones", S),
    ("search", "Search", S),
    ("add_milestone", "Add a milestone", A),
    ("update_milestone", "Edit or move a milestone", S),
    ("add_link", "Add a dependency", A),
    ("update_link", "Edit a dependency", S),
    ("set_constraint", "Set or remove a date constraint", D),
    ("reschedule", "Reschedule", S),
    ("schedule_floats", "Floats", S),
    ("schedule_risks", "Risks", S),
    ("set_progress", "Record progress", S),
    ("schedule_lateness", "Late work and slippage", S),
    ("add_action", "Add an action", A),
    ("set_action_status", "Set an action's status", S),
    ("update_action", "Edit an action", S),
    ("list_actions", "List actions", S),
    ("add_member", "Add a member", A),
    ("update_member", "Edit a member", S),
    ("list_members", "Members and their workload", S),
    ("add_absence", "Add an absence", A),
    ("update_absence", "Edit an absence", S),
    ("list_absences", "List absences", S),
    ("lock", "Lock", S),
    ("apply_patch", "Apply a patch", W),
    ("describe_patch", "Patch language", S),
    ("what_if", "What if (before/after)", S),
    ("undo", "Undo", W),
    ("redo", "Redo", W),
    ("history", "History", S),
    ("save_version", "Save a version", A),
    ("list_versions", "List versions", S),
    ("restore_version", "Restore a version", D),
    ("delete_version", "Delete a version", D),
    ("diff_versions", "Compare versions", S),
    ("export_schedule", "Export", S),
    ("import_schedule", "Import a schedule", A),
    ("import_csv_periods", "Import bars from CSV", A),
    ("show_schedule", "Show the Gantt chart", S),
    ("get_schedule_page", "Schedule page (view)", S),
    ("get_changes_since", "Changes since (view)", S),
    ("get_schedule_absences", "Absences (view)", S),
    ("get_view_code", "View code (view)", S),
    ("panic_for_test", "Panic (tests only)", S),
];

/// The presentation of the tool named `name`, if it has one (every tool does: a test
/// checks it).
pub(crate) fn of(name: &str) -> Option<Presentation> {
    TABLE
        .iter()
        .find(|(n, ..)| *n == name)
        .map(|&(_, title, (destructive, idempotent))| Presentation {
            title,
            destructive,
            idempotent,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_one_presentation_and_no_other_is_kept() {
        let names: Vec<&str> = super::super::specs().iter().map(|s| s.name).collect();
        for name in &names {
            assert!(of(name).is_some(), "{name} has no title");
        }
        for (n, ..) in TABLE {
            assert!(names.contains(n), "{n} is in the table but is no tool");
        }
        assert_eq!(TABLE.len(), names.len());
        let delete = of("delete_periods").unwrap();
        assert!(delete.destructive && delete.idempotent);
        assert!(!of("add_period").unwrap().destructive);
    }
}
