//! Tidy checks of the repository itself, as ordinary tests: every Rust file says what it
//! owns in a `//!` header, and the model crate's manifest names no crate beyond serde
//! (and schemars, optional, which only describes types).
//! (`.ci/test.sh` also checks the model's real dependency tree with `cargo tree`.)

use std::fs;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if p.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "node_modules" {
                rust_files(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_rust_file_starts_with_a_header_saying_what_it_owns() {
    let root = repo_root();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(
        files.len() > 5,
        "found only {} Rust files under {}",
        files.len(),
        root.display()
    );
    let missing: Vec<String> = files
        .iter()
        .filter(|p| {
            let text = fs::read_to_string(p).unwrap_or_default();
            !text.trim_start().starts_with("//!")
        })
        .map(|p| p.strip_prefix(&root).unwrap_or(p).display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "these files have no `//!` header saying what they own: {missing:?}"
    );
}

#[test]
fn the_model_manifest_depends_on_serde_schemars_and_unicode_tables_only() {
    let manifest = fs::read_to_string(repo_root().join("shared-model/Cargo.toml")).unwrap();
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .expect("shared-model/Cargo.toml has a [dependencies] table")
        .split("\n[")
        .next()
        .unwrap_or_default();
    let names: Vec<&str> = deps
        .lines()
        .filter_map(|l| l.split(['=', '.']).next())
        .map(str::trim)
        .filter(|n| !n.is_empty() && !n.starts_with('#'))
        .collect();
    for n in &names {
        // schemars derives the JSON Schema of the patch language and of the tools'
        // results (the server's `schema` feature): a description of types, pure too;
        // unicode-normalization gives the filter's fold Unicode's decompositions, tables.
        assert!(
            ["serde", "serde_json", "schemars", "unicode-normalization"].contains(n),
            "palmaplan-model must stay pure (no IO, clock, randomness, async): it depends on `{n}`"
        );
    }
    assert!(
        names.contains(&"serde"),
        "could not read the model's dependencies: {names:?}"
    );
}

#[test]
fn only_the_storage_module_speaks_sql() {
    let root = repo_root();
    let mut files = Vec::new();
    rust_files(&root.join("server/src"), &mut files);
    rust_files(&root.join("shared-model/src"), &mut files);
    assert!(!files.is_empty());
    let sql = [
        "SELECT ",
        "INSERT INTO",
        "UPDATE ",
        "DELETE FROM",
        "CREATE TABLE",
    ];
    let offenders: Vec<String> = files
        .iter()
        // The storage module: its file and its submodules' folder (`storage/oauth.rs`).
        .filter(|p| {
            !p.ends_with("server/src/storage.rs") && !p.starts_with(root.join("server/src/storage"))
        })
        .filter(|p| {
            let text = fs::read_to_string(p).unwrap_or_default();
            text.lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .any(|l| sql.iter().any(|k| l.contains(&format!("\"{k}"))))
        })
        .map(|p| p.strip_prefix(&root).unwrap_or(p).display().to_string())
        .collect();
    assert!(
        offenders.is_empty(),
        "SQL belongs in the storage module (server/src/storage.rs, server/src/storage/) only; found in {offenders:?}"
    );
}
