//! Killed at random (issue 58, part 3): `scripts/kills.py --smoke` kills every long-running
//! command a few times and checks the resumed result against an uninterrupted run, so the
//! script cannot rot; and the regressions of what its full runs found
//! (results/reliability/kills.md).

mod common;

use nimsquare::octal::Rules;
use nimsquare::run::window::{self, Window, WindowOutcome, WindowRun};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new(format!("nimsquare-kills-{name}-{}", std::process::id()))
}

/// The script in smoke mode, on the binary cargo built: every command killed 3 times, each
/// trial's end equal to the uninterrupted run, no resume refused, no temporary file left.
#[test]
fn the_kill_script_runs_every_command_in_smoke_mode() {
    let dir = scratch("smoke");
    let summary = dir.join("summary.json");
    let out = std::process::Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/kills.py"))
        .args([
            "--smoke",
            "--seed",
            "58",
            "--bin",
            env!("CARGO_BIN_EXE_nimsquare"),
        ])
        .arg("--work")
        .arg(dir.join("work"))
        .arg("--json")
        .arg(&summary)
        .env(nimsquare::run::wisdom::OFF_VARIABLE, "1")
        .output()
        .expect("python3 runs scripts/kills.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.starts_with("kills-summary {"), "{stdout}");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(s["ok"], true);
    let commands = s["commands"].as_array().unwrap();
    let names: Vec<&str> = commands
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "solve",
            "octal",
            "octal-window",
            "census",
            "census-until",
            "scale",
            "growth"
        ]
    );
    for c in commands {
        assert!(c["kills"].as_u64().unwrap() >= 3, "{c}");
        assert_eq!(c["equal"], c["trials"], "{c}");
        for bad in ["refused", "wrong", "crashed", "hung", "leftovers"] {
            assert_eq!(c[bad], 0, "{bad}: {c}");
        }
    }
}

/// What SIGKILL at any instant after a kept values file exists leaves on disk must let the
/// same command resume. Before the fix, a window-mode run created its `--window-file` first
/// and wrote its first checkpoint only after a chunk, so a kill in between (or during that
/// first checkpoint's write) left the values file without a checkpoint, and the same command
/// then refused the file as someone else's ("exists; name a new file"). Here the disk is
/// copied as it stands after the first chunk (where such a kill lands), and the same command
/// run on the copy must finish with the uninterrupted run's table.
#[test]
fn a_window_run_killed_before_its_first_checkpoint_resumes() {
    let dir = scratch("window-first");
    let (code, limit) = ("0.6", 60_000usize);
    let rules = Rules::parse(code).unwrap();
    let entry = nimsquare::octal::find(window::WINDOW_BACKEND).unwrap();
    let builder = (entry.make)();
    let (ck, file) = (dir.join("ck"), dir.join("values.u16"));
    let opts = WindowRun {
        window: Window::DEFAULT,
        file: file.clone(),
        keep_file: true,
        checkpoint: Some(ck.clone()),
        // no periodic checkpoint: only the one before the values file and the last one
        every: Duration::from_secs(3600),
        quiet: true,
        label: String::new(),
        chunk_target: Duration::from_millis(2),
        stop_after_positions: None,
    };
    let killed = dir.join("killed");
    std::fs::create_dir(&killed).unwrap();
    let mut first = true;
    let out = window::run(&rules, limit, &*builder, entry.name, &opts, &mut |_, _| {
        if std::mem::take(&mut first) {
            // the disk as a kill after the first chunk leaves it: the values file and,
            // since the fix, the checkpoint written before it
            assert!(file.exists());
            assert!(ck.exists(), "a values file without its checkpoint");
            std::fs::copy(&ck, killed.join("ck")).unwrap();
            std::fs::copy(&file, killed.join("values.u16")).unwrap();
        }
        Ok(())
    })
    .unwrap();
    assert!(matches!(out, WindowOutcome::Finished { .. }));
    let run = |folder: &Path| {
        let (ck, file): (PathBuf, PathBuf) = (folder.join("ck"), folder.join("values.u16"));
        common::json_of([
            "octal",
            code,
            "--limit",
            &limit.to_string(),
            "--window",
            "--json",
            "--quiet",
            "--checkpoint",
            ck.to_str().unwrap(),
            "--window-file",
            file.to_str().unwrap(),
        ])
    };
    let whole = common::json_of([
        "octal",
        code,
        "--limit",
        &limit.to_string(),
        "--json",
        "--quiet",
    ]);
    let resumed = run(&killed);
    assert_eq!(resumed["table_digest"], whole["table_digest"]);
    assert_eq!(resumed["max_value"], whole["max_value"]);
}

/// A table file's temporary sibling (`NAME.XXXXXX.tmp`, tempfile's name) left by a kill
/// during a write is removed by the next write of that table: before the fix every such kill
/// left one more file as large as the table, for good (scripts/kills.py found them beside
/// checkpoints). Files of other names are left alone.
#[test]
fn a_temporary_left_by_a_killed_write_is_removed_by_the_next_write() {
    let dir = scratch("stale-tmp");
    let ck = dir.join("ck.tbl");
    let stale = dir.join("ck.tbl.Ab3xZ9.tmp");
    let others = [dir.join("ck.tbl.tmp"), dir.join("other.tbl.Ab3xZ9.tmp")];
    std::fs::write(&stale, vec![0u8; 4096]).unwrap();
    for f in &others {
        std::fs::write(f, b"not ours").unwrap();
    }
    let json = common::json_of([
        "solve",
        "--limit",
        "100000",
        "--json",
        "--quiet",
        "--checkpoint",
        ck.to_str().unwrap(),
    ]);
    assert!(json["answer"].as_str().is_some(), "{json}");
    assert!(!stale.exists(), "the stale temporary is still there");
    for f in &others {
        assert_eq!(std::fs::read(f).unwrap(), b"not ours", "{}", f.display());
    }
    let names: Vec<String> = std::fs::read_dir(&*dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !(n.starts_with("ck.tbl.") && n.len() == "ck.tbl.XXXXXX.tmp".len())),
        "{names:?}"
    );
}
