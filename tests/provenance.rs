//! Records name the binary that made them: its build revision is compiled in (build.rs), so
//! run from another folder, even inside an unrelated git repository, `--version`, `solve
//! --json` and a study's CSV still give the revision of this source tree.

mod common;

use common::nimsquare;
use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The revision the binary must record: this tree's HEAD, read here with git, or `unknown`
/// when the tree is not a git checkout.
fn expected_prefix() -> String {
    git(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["rev-parse", "--short=12", "HEAD"],
    )
    .unwrap_or_else(|| "unknown".into())
}

#[test]
fn the_recorded_revision_is_the_binarys_not_the_folders() {
    let dir = common::Scratch::new(format!("nimsquare-provenance-{}", std::process::id()));
    // An unrelated repository with a commit of its own, as a data folder might be.
    let other = [
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "-c",
        "commit.gpgsign=false",
    ];
    let made = git(&dir, &["init", "-q"]).is_some()
        && git(
            &dir,
            &[&other[..], &["commit", "-q", "--allow-empty", "-m", "x"]].concat(),
        )
        .is_some();
    let foreign = made
        .then(|| git(&dir, &["rev-parse", "--short=12", "HEAD"]))
        .flatten();
    let want = expected_prefix();

    let run = |args: &[&str]| {
        let out = nimsquare().args(args).current_dir(&dir).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let version = run(&["--version"]);
    assert!(version.contains(&format!("(build {want}")), "{version}");
    let json: serde_json::Value =
        serde_json::from_str(&run(&["solve", "--limit", "100", "--json"])).unwrap();
    let build = json["build"].as_str().unwrap();
    assert!(build.starts_with(&want), "{build}");
    assert_eq!(json["version"], env!("CARGO_PKG_VERSION"));
    // Measurement outputs also record the machine's load around the run.
    assert!(json["load_average_start"].is_number() || json["load_average_start"].is_null());
    run(&[
        "growth",
        "--quantity",
        "cold",
        "--to",
        "1000",
        "--points",
        "2",
        "--out",
        "c.csv",
    ]);
    let csv = std::fs::read_to_string(dir.join("c.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|&h| h == "git_rev").unwrap();
    for line in csv.lines().skip(1) {
        let rev = line.split(',').nth(col).unwrap();
        assert!(rev.starts_with(&want), "{line}");
        if let Some(f) = &foreign {
            assert_ne!(rev, f.as_str(), "the folder's repository, not the binary's");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
