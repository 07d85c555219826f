//! The critical path against PSPLIB, an independently produced oracle.
//!
//! PSPLIB (R. Kolisch and A. Sprecher, "PSPLIB - A project scheduling problem library",
//! European Journal of Operational Research 96(1):205-216, 1997) gives, for each of its
//! single-mode instances, the length of the critical path of the precedence graph
//! (`MPM-Time`: finish-to-start links with no lag, durations in whole days). Each
//! instance becomes a schedule on a calendar where every day works, with a bar per job
//! that lasts, a milestone per job that does not (the super-source and super-sink), all
//! planned on the same day, and the critical path must be exactly `MPM-Time` long.
//!
//! The data is in the repository, compressed, in `tests/data/psplib` (its README says
//! where it comes from): `j30.tar.gz`, the 480 j30 instances in the original `.sm`
//! format, and `j60-j120.json.gz`, the 1,560 j60, j90 and j120 instances compacted into
//! one JSON file. The test reads the archives in memory (flate2, tar), so a plain clone
//! runs it and nothing is read outside the checkout. The data is required: a missing
//! archive fails the test rather than skip it.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;

use palmaplan_model::cpm::critical_path;
use palmaplan_model::*;

/// One instance: job durations and 1-based successor lists, and the expected length.
#[derive(Debug, serde::Deserialize)]
struct Instance {
    #[serde(rename = "mpm")]
    mpm_time: i64,
    #[serde(rename = "d")]
    durations: Vec<i64>,
    #[serde(rename = "s")]
    successors: Vec<Vec<usize>>,
}

#[derive(Debug, serde::Deserialize)]
struct Sets {
    sets: BTreeMap<String, BTreeMap<String, Instance>>,
}

fn data_file(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/psplib")
        .join(name);
    assert!(
        path.is_file(),
        "PSPLIB data missing: expected {} (in the repository)",
        path.display()
    );
    path
}

/// The gzip-compressed file `name`, opened for reading its uncompressed bytes.
fn gunzip(name: &str) -> GzDecoder<std::fs::File> {
    let path = data_file(name);
    let file = std::fs::File::open(&path)
        .unwrap_or_else(|e| panic!("{} is readable: {e}", path.display()));
    GzDecoder::new(file)
}

/// The lines of the section that follows the line starting with `title`, from the line
/// after its column header up to the next row of stars.
fn section<'a>(text: &'a str, title: &str, skip: usize) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| !l.starts_with(title))
        .skip(1 + skip)
        .take_while(|l| !l.starts_with("****"))
        .collect()
}

fn numbers(line: &str, file: &str) -> Vec<i64> {
    line.split_whitespace()
        .map(|w| {
            w.parse()
                .unwrap_or_else(|_| panic!("{file}: « {w} » is not a number in « {line} »"))
        })
        .collect()
}

/// Reads a `.sm` file: the PROJECT INFORMATION line ends with MPM-Time; PRECEDENCE
/// RELATIONS rows are (job, modes, successor count, successors...); REQUESTS/DURATIONS
/// rows (after a row of dashes) are (job, mode, duration, resources...).
fn parse_sm(text: &str, file: &str) -> Instance {
    let info = section(text, "PROJECT INFORMATION:", 1);
    let mpm_time = *numbers(info[0], file).last().expect("a project line");
    let mut successors = Vec::new();
    for line in section(text, "PRECEDENCE RELATIONS:", 1) {
        let row = numbers(line, file);
        assert_eq!(
            row[0] as usize,
            successors.len() + 1,
            "{file}: jobs in order"
        );
        assert_eq!(row.len(), 3 + row[2] as usize, "{file}: successor count");
        successors.push(row[3..].iter().map(|&j| j as usize).collect());
    }
    let durations: Vec<i64> = section(text, "REQUESTS/DURATIONS:", 2)
        .iter()
        .map(|line| numbers(line, file)[2])
        .collect();
    assert_eq!(
        durations.len(),
        successors.len(),
        "{file}: one duration per job"
    );
    Instance {
        mpm_time,
        durations,
        successors,
    }
}

/// The instance as a schedule: job k is item k, links get the ids after the jobs.
fn schedule_of(instance: &Instance) -> Schedule {
    let mut s = Schedule::new("PSPLIB");
    s.settings.working_weekdays = Weekday::ALL.to_vec();
    let n = instance.durations.len() as u64;
    s.groups.push(Group {
        id: GroupId(n + 1),
        name: "Jobs".into(),
    });
    s.rows.push(Row {
        id: RowId(n + 2),
        group: GroupId(n + 1),
        name: "Jobs".into(),
        member: None,
    });
    let day = Date::from_ymd(2026, 1, 5).expect("a date");
    for (k, &duration) in instance.durations.iter().enumerate() {
        let id = k as u64 + 1;
        if duration > 0 {
            s.bars.push(Bar {
                id: BarId(id),
                row: RowId(n + 2),
                label: format!("Job {id}"),
                start: day,
                end: day.add_days(duration as i32 - 1),
                color: None,
                notes: String::new(),
                pin: None,
                constraint: None,
                deadline: None,
                progress: 0,
                actual_start: None,
                actual_finish: None,
            });
        } else {
            s.milestones.push(Milestone {
                id: MilestoneId(id),
                row: RowId(n + 2),
                label: format!("Job {id}"),
                date: day,
                color: None,
                notes: String::new(),
                constraint: None,
                deadline: None,
            });
        }
    }
    let mut next = n + 3;
    for (k, successors) in instance.successors.iter().enumerate() {
        for &to in successors {
            assert!(to >= 1 && to as u64 <= n, "successor {to} out of range");
            s.links.push(Link {
                id: LinkId(next),
                from: ItemId(k as u64 + 1),
                to: ItemId(to as u64),
                kind: LinkKind::FS,
                lag: 0,
            });
            next += 1;
        }
    }
    s.next_id = next;
    s
}

/// Checks every instance and returns how many matched; panics listing the mismatches.
fn check_all<'a>(instances: impl Iterator<Item = (String, &'a Instance)>) -> usize {
    let mut matched = 0;
    let mut wrong = Vec::new();
    for (name, instance) in instances {
        let s = schedule_of(instance);
        let cp = critical_path(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
        if cp.length_days == instance.mpm_time {
            matched += 1;
        } else {
            wrong.push(format!(
                "{name}: {} days, MPM-Time {}",
                cp.length_days, instance.mpm_time
            ));
        }
        // The super-sink (the last job) ends the project, so it is always critical.
        let sink = ItemId(instance.durations.len() as u64);
        assert!(cp.timing(sink).is_some_and(|t| t.critical), "{name}: sink");
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    matched
}

#[test]
fn j30_critical_path_lengths_match_mpm_time() {
    let mut archive = tar::Archive::new(gunzip("j30.tar.gz"));
    let mut instances = Vec::new();
    for entry in archive.entries().expect("j30.tar.gz is a tar archive") {
        let mut entry = entry.expect("an archive entry");
        let path = entry.path().expect("an entry's path").into_owned();
        if path.extension().is_some_and(|e| e == "sm") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let mut text = String::new();
            entry
                .read_to_string(&mut text)
                .unwrap_or_else(|e| panic!("{name}: a readable instance: {e}"));
            instances.push((name.clone(), parse_sm(&text, &name)));
        }
    }
    instances.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(instances.len(), 480, "j30 has 480 instances in j30.tar.gz");
    let matched = check_all(instances.iter().map(|(name, i)| (name.clone(), i)));
    assert_eq!(matched, 480);
}

#[test]
fn j60_to_j120_critical_path_lengths_match_mpm_time() {
    let mut text = String::new();
    gunzip("j60-j120.json.gz")
        .read_to_string(&mut text)
        .expect("j60-j120.json.gz is readable");
    let data: Sets = serde_json::from_str(&text).expect("j60-j120.json parses");
    let sizes: Vec<(&str, usize)> = data
        .sets
        .iter()
        .map(|(set, instances)| (set.as_str(), instances.len()))
        .collect();
    assert_eq!(sizes, [("j120", 600), ("j60", 480), ("j90", 480)]);
    let all = data.sets.iter().flat_map(|(set, instances)| {
        instances
            .iter()
            .map(move |(name, i)| (format!("{set}/{name}"), i))
    });
    assert_eq!(check_all(all), 1_560);
}
