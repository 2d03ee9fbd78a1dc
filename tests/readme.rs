//! README.md cannot go stale: every ```console block in it is run, and its back-end table is
//! compared with the registries.
//!
//! - `readme_examples`: trycmd runs each `$ target/release/nimsquare ...` line of README's
//!   ```console blocks as a user runs it after the set-up (`cargo run --release` builds that
//!   path): the command's first word is that relative path, and the folder the commands run
//!   in holds `target/release/nimsquare`, a link to the binary under test. Each command's
//!   stdout and stderr are compared with the lines below it (`[..]` matches the rest of a
//!   line, `...` any number of lines; `? 2` is an expected exit status). A command that calls
//!   a bare `nimsquare`, which the set-up does not put on the PATH, fails. The folder is
//!   empty otherwise and under the target directory, so the examples that write files
//!   (`scale`, `profile`, `--checkpoint`, `--save-table`) leave nothing in the repository
//!   and find no file of an earlier run.
//!   Blocks fenced ```sh are shown but not run: the set-up commands (`cargo run`,
//!   `cargo test`, which would recurse) and nothing else; the numpy one-liner is inline text
//!   because numpy is not a dependency.
//! - `readme_table_names_only_registered_backends`: every name in README's back-end table is
//!   one that `nimsquare list --json` shows for that stage (a new back-end does not break the
//!   README; a removed or renamed one does).

use std::collections::BTreeSet;
use std::path::PathBuf;

fn readme_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("README.md")
}

#[test]
fn readme_examples() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("readme-examples");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    // trycmd runs a case's commands in the process's current directory when the case has no
    // `README.in/` folder; this is the only test that depends on it (the other one uses
    // absolute paths).
    std::env::set_current_dir(&dir).unwrap();
    // The path the README's set-up builds, relative to the folder the commands run in, as the
    // README's examples call it; only this name is registered.
    let release = std::path::Path::new("target/release/nimsquare");
    std::fs::create_dir_all(release.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_nimsquare"), release).unwrap();
    let text = std::fs::read_to_string(readme_path()).unwrap();
    let commands: Vec<&str> = text.lines().filter(|l| l.starts_with("$ ")).collect();
    assert!(commands.len() >= 4, "{commands:?}");
    for c in &commands {
        assert!(c.starts_with("$ target/release/nimsquare "), "{c}");
    }
    trycmd::TestCases::new()
        .register_bin("target/release/nimsquare", release)
        .env(nimsquare::run::wisdom::OFF_VARIABLE, "1")
        .case(readme_path());
}

/// The back-end names of README's table (`| stage | name | ...`), by stage.
fn readme_table() -> BTreeSet<(String, String)> {
    let text = std::fs::read_to_string(readme_path()).unwrap();
    let section = text
        .split("\n## Back-ends\n")
        .nth(1)
        .expect("README has a '## Back-ends' section")
        .split("\n## ")
        .next()
        .unwrap();
    section
        .lines()
        .filter(|l| l.starts_with('|'))
        .skip(2) // the header and the |---| line
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[1].to_string(), cells[2].trim_matches('`').to_string())
        })
        .collect()
}

#[test]
fn readme_table_names_only_registered_backends() {
    let readme = readme_table();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_nimsquare"))
        .env(nimsquare::run::wisdom::OFF_VARIABLE, "1")
        .args(["list", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut registered = BTreeSet::new();
    for (stage, entries) in list
        .as_object()
        .expect("list --json is an object of stages")
    {
        // `isa` is the vector paths, `version` and `build` the binary: not stages.
        if !entries.is_array() {
            continue;
        }
        for e in entries.as_array().unwrap() {
            registered.insert((stage.clone(), e["name"].as_str().unwrap().to_string()));
        }
    }
    // A new back-end must not break the README (adding one is its file, its `mod` line and
    // its registry entry, nothing else), so only stale rows fail: every row must name a
    // registered back-end of its stage, and the table must not be empty.
    let unknown: Vec<_> = readme.difference(&registered).collect();
    assert!(
        readme.len() >= 8,
        "README.md's back-end table has {} rows",
        readme.len()
    );
    assert!(
        unknown.is_empty(),
        "README.md's back-end table names back-ends that are not registered: {unknown:?} (stage, name)"
    );
}
