//! Octal games through the long-run machinery the Nim Square tables use: a run stopped and
//! resumed from its checkpoint gives the control's table, a saved table answers `octal`
//! again without a build, a damaged checkpoint resumes from its good blocks, a table made
//! for other rules (a subtraction set, another code) or holding a wrong value is refused,
//! the octal b-files agree with the control, and bad flags are refused before any work.

mod common;

use common::{assert_refused, nimsquare, stdout_of};
use nimsquare::base::moves::Moves;
use nimsquare::octal::{self, Rules};
use nimsquare::run::longrun::{self, tablefile, LongRun, Outcome, Start};
use std::path::Path;

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> common::Scratch {
    let dir = common::Scratch::new(format!(
        "nimsquare-octal-longrun-{}-{name}",
        std::process::id()
    ));
    dir
}

/// g(0..=limit) of `code` by the control (the definition, independent of the fast back-ends).
fn control(code: &str, limit: usize) -> Vec<u16> {
    let rules = Rules::parse(code).unwrap();
    octal::build("octal-naive", &rules, limit as u64)
        .unwrap()
        .values()
        .to_vec()
}

fn quiet() -> LongRun {
    LongRun {
        quiet: true,
        ..LongRun::default()
    }
}

fn max_of(v: &[u16]) -> u16 {
    v.iter().copied().max().unwrap_or(0)
}

fn finished(outcome: Outcome) -> Vec<u16> {
    match outcome {
        Outcome::Finished(g) => g,
        other => panic!("expected a finished run, got {other:?}"),
    }
}

/// Runs `backend` on `rules` up to `k` positions with a checkpoint, then resumes from it.
fn stop_and_resume(backend: &str, rules: &Rules, limit: usize, k: usize, dir: &Path) -> Vec<u16> {
    let path = dir.join(format!("ck-{backend}-{k}.tbl"));
    let builder = (octal::find(backend).unwrap().make)();
    let fill = |g: &mut [u16], from: usize, _max: u16| builder.fill(rules, g, from);
    let opts = LongRun {
        checkpoint: Some(path.clone()),
        stop_after_positions: Some(k),
        ..quiet()
    };
    let first = longrun::try_run_fill(rules, limit, Start::Fresh, &fill, &opts).unwrap();
    assert_eq!(
        first,
        Outcome::Interrupted {
            signal: None,
            done: k,
            checkpoint: Some(path.clone())
        }
    );
    let ck = tablefile::read(&path).unwrap();
    assert_eq!((ck.done, ck.moves_label.as_str()), (k as u64, "octal 0.6"));
    let opts = LongRun {
        checkpoint: Some(path.clone()),
        ..quiet()
    };
    let start = longrun::start_from_files(rules, limit, Some(&path), None).unwrap();
    let g = finished(longrun::try_run_fill(rules, limit, start, &fill, &opts).unwrap());
    let done = tablefile::read(&path).unwrap();
    assert!(done.is_complete());
    assert_eq!(done.values, g);
    g
}

#[test]
fn every_octal_back_end_stopped_and_resumed_gives_the_controls_table() {
    let dir = scratch("resume");
    let limit = 6000;
    let officers = Rules::parse("0.6").unwrap();
    let want = control("0.6", limit);
    for entry in octal::BACKENDS {
        // Inside the sparse back-end's full-search prefix, past it, and past a chunk's end.
        for k in [1, 700, 4097, 5999] {
            let g = stop_and_resume(entry.name, &officers, limit, k, &dir);
            assert!(g == want, "{} stopped at {k}", entry.name);
        }
    }
}

#[test]
fn a_checkpoint_damaged_in_its_second_block_resumes_from_the_first() {
    // 0.333 (subtract 1, 2 or 3) has g(n) = n mod 4 (the facts), so the table past
    // one block of 2^20 values is known without building it.
    let dir = scratch("damaged");
    let rules = Rules::parse("0.333").unwrap();
    let limit = tablefile::BLOCK_VALUES + 5000;
    let known: Vec<u16> = (0..=limit).map(|n| (n % 4) as u16).collect();
    let done = tablefile::BLOCK_VALUES + 1000;
    let path = dir.join("ck.tbl");
    tablefile::write_atomic(&path, &rules, limit as u64, &known[..done], 3).unwrap();
    let header = tablefile::read_header(&path).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    let at = header.header_bytes + 2 * (tablefile::BLOCK_VALUES + 10);
    bytes[at] ^= 1;
    std::fs::write(&path, &bytes).unwrap();

    let start = longrun::start_from_files(&rules, limit, Some(&path), None).unwrap();
    match &start {
        Start::Seed(f) => assert_eq!(f.provides(limit), tablefile::BLOCK_VALUES),
        Start::Fresh => panic!("the first block should be kept"),
    }
    let builder = (octal::find("octal-sparse").unwrap().make)();
    let fill = |g: &mut [u16], from: usize, _max: u16| {
        // The kept prefix is never computed again.
        assert!(from >= tablefile::BLOCK_VALUES);
        builder.fill(&rules, g, from)
    };
    let opts = LongRun {
        checkpoint: Some(path.clone()),
        ..quiet()
    };
    let g = finished(longrun::try_run_fill(&rules, limit, start, &fill, &opts).unwrap());
    assert!(g == known);
    assert!(tablefile::read(&path).unwrap().values == known);
}

#[test]
fn a_saved_table_answers_again_without_a_build_and_seeds_a_larger_one() {
    let dir = scratch("roundtrip");
    let t = dir.join("dawson.tbl");
    let t = t.to_str().unwrap();
    let saved = stdout_of([
        "octal",
        "0.137",
        "--limit",
        "3000",
        "--save-table",
        t,
        "--json",
    ]);
    let saved: serde_json::Value = serde_json::from_str(&saved).unwrap();
    let file = tablefile::read(Path::new(t)).unwrap();
    assert_eq!(file.moves_label, "octal 0.137");
    assert!(file.values == control("0.137", 3000));
    // Dawson's chess: period 34 from n = 52 (the facts).
    for limit in ["3000", "2000"] {
        let v: serde_json::Value = serde_json::from_str(&stdout_of([
            "octal",
            "0.137",
            "--limit",
            limit,
            "--load-table",
            t,
            "--json",
        ]))
        .unwrap();
        assert_eq!(v["seeded_positions"], v["limit"].as_u64().unwrap() + 1);
        assert_eq!(v["positions_this_run"], 0);
        assert_eq!(
            (v["period"].as_u64(), v["preperiod"].as_u64()),
            (Some(34), Some(52))
        );
        assert_eq!(v["max_value"], saved["max_value"]);
    }
    // A larger N starts from the table and builds the rest; its values are the control's.
    let out = stdout_of([
        "octal",
        "0.137",
        "--limit",
        "4000",
        "--load-table",
        t,
        "--json",
        "--values",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["seeded_positions"], 3001);
    let values: Vec<u16> = v["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as u16)
        .collect();
    assert!(values == control("0.137", 4000));
}

#[test]
fn the_cli_resumes_a_checkpoint_and_leaves_the_whole_table_in_it() {
    let dir = scratch("cli-resume");
    let ck = dir.join("ck.tbl");
    let rules = Rules::parse("0.6").unwrap();
    let want = control("0.6", 3000);
    tablefile::write_atomic(&ck, &rules, 3000, &want[..1234], max_of(&want[..1234])).unwrap();
    let out = nimsquare()
        .args(["octal", "0.6", "--limit", "3000", "--checkpoint"])
        .arg(&ck)
        .args(["--json", "--values"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("resuming from the checkpoint") && stderr.contains("g(0..1234)"),
        "{stderr}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["seeded_positions"], 1234);
    let full = tablefile::read(&ck).unwrap();
    assert!(full.is_complete() && full.values == want);
}

#[test]
fn tables_of_the_other_family_or_another_code_are_refused_naming_both() {
    let dir = scratch("foreign");
    let squares = dir.join("squares.tbl");
    let g: Vec<u16> = {
        // the squares table from the definition
        let mut g = vec![0u16; 1001];
        for n in 1..=1000usize {
            let opts: Vec<u16> = Moves::Squares.up_to(n).iter().map(|&s| g[n - s]).collect();
            g[n] = (0u16..).find(|v| !opts.contains(v)).unwrap();
        }
        g
    };
    tablefile::write_atomic(&squares, &Moves::Squares, 1000, &g, max_of(&g)).unwrap();
    let s = squares.to_str().unwrap();
    let err = assert_refused(&["octal", "0.6", "--limit", "500", "--load-table", s]);
    assert!(
        err.contains("--load-table")
            && err.contains(s)
            && err.contains("moves squares")
            && err.contains("octal 0.6"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1);

    let officers = dir.join("officers.tbl");
    let o = control("0.6", 1000);
    tablefile::write_atomic(
        &officers,
        &Rules::parse("0.6").unwrap(),
        1000,
        &o,
        max_of(&o),
    )
    .unwrap();
    let o_path = officers.to_str().unwrap();
    for args in [
        vec!["solve", "--limit", "500", "--load-table", o_path],
        vec!["sequence", "values", "--load-table", o_path],
    ] {
        let err = assert_refused(&args);
        assert!(
            err.contains(o_path) && err.contains("was made for octal 0.6, not moves squares"),
            "{err}"
        );
    }
    let err = assert_refused(&["octal", "0.07", "--limit", "500", "--load-table", o_path]);
    assert!(err.contains("octal 0.6, not octal 0.07"), "{err}");
    let err = assert_refused(&["octal", "0.07", "--limit", "500", "--checkpoint", o_path]);
    assert!(
        err.contains("--checkpoint") && err.contains("octal 0.6"),
        "{err}"
    );
    // The subtraction set {1, 2, 3} and the code 0.333 have the same values, different rules.
    let sub = dir.join("sub.tbl");
    let m: Vec<u16> = (0..=100).map(|n| (n % 4) as u16).collect();
    tablefile::write_atomic(&sub, &Moves::list(vec![1, 2, 3]).unwrap(), 100, &m, 3).unwrap();
    let err = assert_refused(&[
        "octal",
        "0.333",
        "--limit",
        "100",
        "--load-table",
        sub.to_str().unwrap(),
    ]);
    assert!(
        err.contains("moves 1,2,3") && err.contains("octal 0.333"),
        "{err}"
    );
}

#[test]
fn a_table_with_a_wrong_value_is_refused_at_its_first_wrong_position() {
    let dir = scratch("wrong");
    let rules = Rules::parse("0.07").unwrap();
    let mut g = control("0.07", 2000);
    // Dawson's Kayles has g(100) <= 9 (its largest value); 12 is wrong however the rest is.
    g[100] = 12;
    let path = dir.join("wrong.tbl");
    tablefile::write_atomic(&path, &rules, 2000, &g, max_of(&g)).unwrap();
    let p = path.to_str().unwrap();
    for args in [
        vec!["octal", "0.07", "--limit", "2000", "--load-table", p],
        vec!["sequence", "values", "--octal", "0.07", "--load-table", p],
    ] {
        let err = assert_refused(&args);
        assert!(
            err.contains("--load-table") && err.contains(p) && err.contains("g(100) is 12"),
            "{err}"
        );
    }
}

#[test]
fn octal_b_files_hold_the_controls_values() {
    let dir = scratch("bfile");
    let out = dir.join("b.txt");
    nimsquare()
        .args([
            "sequence", "values", "--octal", ".6", "--limit", "700", "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).unwrap();
    let want = control("0.6", 700);
    let got: Vec<(usize, u16)> = text
        .lines()
        .map(|l| {
            let (n, v) = l.split_once(' ').unwrap();
            (n.parse().unwrap(), v.parse().unwrap())
        })
        .collect();
    assert_eq!(got.len(), 701);
    assert!(got
        .iter()
        .enumerate()
        .all(|(i, &(n, v))| n == i && v == want[i]));
    // Officers, g(0..19), published (the facts).
    let officers = [0, 0, 1, 2, 0, 1, 2, 3, 1, 2, 3, 4, 0, 3, 4, 2, 1, 3, 2, 1];
    assert!(got[..20].iter().map(|&(_, v)| v).eq(officers));
    // The same --out again is refused, as for the subtraction games.
    let err = assert_refused(&[
        "sequence",
        "values",
        "--octal",
        "0.6",
        "--limit",
        "10",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        err.contains("--out") && err.contains("already exists"),
        "{err}"
    );
}

#[test]
fn bad_octal_long_run_flags_are_refused_before_any_work() {
    let dir = scratch("flags");
    let existing = dir.join("there.tbl");
    std::fs::write(&existing, b"x").unwrap();
    let e = existing.to_str().unwrap();
    let missing = dir.join("nope").join("t.tbl");
    let m = missing.to_str().unwrap();
    let d = dir.to_str().unwrap();
    for (args, says) in [
        (
            vec!["octal", "0.6", "--checkpoint-every", "-1"],
            "--checkpoint-every",
        ),
        (vec!["octal", "0.6", "--save-table", e], "--save-table"),
        (vec!["octal", "0.6", "--save-table", d], "--save-table"),
        (vec!["octal", "0.6", "--save-table", m], "--save-table"),
        (vec!["octal", "0.6", "--load-table", m], "--load-table"),
        (vec!["octal", "0.6", "--checkpoint", e], "--checkpoint"),
        (
            vec![
                "octal",
                "0.6",
                "--limit",
                "5000000",
                "--backend",
                "octal-naive",
                "--checkpoint",
                m,
            ],
            "--limit",
        ),
        (vec!["sequence", "values", "--octal", "0.8"], "--octal"),
        (
            vec!["sequence", "values", "--octal", "0.6", "--moves", "1,2"],
            "--octal",
        ),
    ] {
        let err = assert_refused(&args);
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
    // Nothing was written by the refused runs.
    assert_eq!(std::fs::read(&existing).unwrap(), b"x");
    assert!(!missing.exists());
}
