//! Counted verdicts: `compare --metric instructions` (and the cache metrics) under Valgrind's
//! Callgrind. One build against itself counts the same to within 0.01% for a table, a count
//! and an octal back-end; two back-ends that do different work are told apart; only the
//! compared stage is counted; what cannot be counted is refused in one line before any run.
//!
//! The tests that run Valgrind skip (saying so) where it is not installed, unless
//! `NIMSQUARE_REQUIRE_VALGRIND=1`, which `.ci/run` sets after installing it: there a missing
//! Valgrind fails them instead.

mod common;

use common::{assert_refused, nimsquare};
use std::os::unix::fs::PermissionsExt;

/// True when Valgrind runs here; false (with a note) when it does not and the environment
/// does not require it; a failure when it is required.
fn valgrind_here() -> bool {
    let found = std::process::Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let required = std::env::var("NIMSQUARE_REQUIRE_VALGRIND").is_ok_and(|v| v == "1");
    assert!(
        found || !required,
        "NIMSQUARE_REQUIRE_VALGRIND=1 but valgrind does not run (apt-get install valgrind)"
    );
    if !found {
        eprintln!("note: valgrind is not installed: counted-run test skipped");
    }
    found
}

/// `compare` with `args` and `--json --quiet`, its JSON report.
fn compare_json(args: &[&str]) -> serde_json::Value {
    let out = nimsquare()
        .arg("compare")
        .args(args)
        .args(["--json", "--quiet"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn counts(v: &serde_json::Value, side: &str) -> Vec<u64> {
    v[side]["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["instructions"].as_u64().unwrap())
        .collect()
}

#[test]
fn one_build_against_itself_counts_the_same_for_a_table_a_count_and_an_octal_back_end() {
    if !valgrind_here() {
        return;
    }
    for (args, stage) in [
        (vec!["stamped", "stamped", "--limit", "1e4"], "table"),
        (vec!["sweep", "sweep", "--limit", "1e4"], "count"),
        (
            vec![
                "octal-block",
                "octal-block",
                "--octal",
                "0.6",
                "--limit",
                "5000",
            ],
            "build",
        ),
    ] {
        let mut args = args.clone();
        args.extend(["--metric", "instructions"]);
        let v = compare_json(&args);
        assert_eq!(v["metric"], "instructions");
        assert_eq!(v["counted_stage"], stage, "{args:?}");
        assert_eq!(v["pairs"], 3, "three pairs by default when counted");
        assert_eq!(v["verdict"], "same_within_noise", "{args:?}: {v}");
        let (lo, hi) = (
            v["ratio"]["lo"].as_f64().unwrap(),
            v["ratio"]["hi"].as_f64().unwrap(),
        );
        assert!(lo >= 0.9999 && hi <= 1.0001, "{args:?}: {lo}-{hi}");
        // Each side ran on one thread, on a path Valgrind runs.
        assert!(v["a"]["isa"] != "avx512", "{v}");
        assert!(counts(&v, "a").iter().all(|&c| c > 0));
    }
}

#[test]
fn only_the_compared_stage_is_counted() {
    if !valgrind_here() {
        return;
    }
    // stamped does at least one instruction per option step: S(10^4) = sum of floor(sqrt n)
    // for n <= 10^4, computed here.
    let steps: u64 = (1..=10_000u64).map(|n| (n as f64).sqrt() as u64).sum();
    let once = [
        "stamped",
        "stamped",
        "--limit",
        "1e4",
        "--metric",
        "instructions",
        "--pairs",
        "1",
    ];
    let stage = compare_json(&once);
    let whole = compare_json(&[&once[..], &["--measure", "wall"]].concat());
    assert_eq!(whole["counted_stage"], "whole process");
    let (stage, whole) = (counts(&stage, "a")[0], counts(&whole, "a")[0]);
    assert!(
        stage >= steps,
        "{stage} instructions for {steps} option steps"
    );
    // The whole process adds start-up, planning, the count and exit: at least a million
    // instructions (the dynamic loader alone runs about that many).
    assert!(whole > stage + 1_000_000, "whole {whole}, stage {stage}");
    // The count stage of the same solve is not the table's.
    let count = compare_json(&[
        "sweep",
        "sweep",
        "--limit",
        "1e4",
        "--metric",
        "instructions",
        "--pairs",
        "1",
    ]);
    assert_eq!(count["counted_stage"], "count");
    assert!(counts(&count, "a")[0] < stage, "{count}");
}

#[test]
fn back_ends_that_do_different_work_are_told_apart_and_the_cache_metric_counts_writes() {
    if !valgrind_here() {
        return;
    }
    // Two back-ends of one stage: the same answer, other work.
    let (a, b) = ("stamped", "bitset");
    let v = compare_json(&[a, b, "--limit", "1e4", "--metric", "instructions"]);
    let verdict = v["verdict"].as_str().unwrap();
    assert!(
        verdict == "a_faster" || verdict == "b_faster",
        "{a} and {b} counted alike: {v}"
    );
    assert!(
        v["sentence"]
            .as_str()
            .unwrap()
            .contains("x the instructions of"),
        "{v}"
    );
    // Every position's value is stored at least once: writes >= N + 1.
    let v = compare_json(&[
        "stamped", "stamped", "--limit", "1e4", "--metric", "writes", "--pairs", "1",
    ]);
    assert_eq!(v["metric"], "writes");
    let cache = &v["a"]["counts"][0]["cache"];
    assert!(cache["writes"].as_u64().unwrap() > 10_000, "{v}");
    assert!(
        v["cache_geometry"].as_str().unwrap().contains("D1 32 KiB"),
        "{v}"
    );
}

#[test]
fn a_program_that_marks_no_stage_is_refused_not_counted_as_zero() {
    if !valgrind_here() {
        return;
    }
    let dir = common::Scratch::new(format!("nimsquare-counted-{}", std::process::id()));
    let path = dir.join("old-build");
    std::fs::write(
        &path,
        "#!/bin/sh\necho '{\"answer\":\"1\",\"table_seconds\":1,\"isa\":\"scalar\",\"table\":\"x\"}'\n",
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = nimsquare()
        .args([
            "compare",
            "stamped",
            "stamped",
            "--limit",
            "100",
            "--metric",
            "instructions",
        ])
        .arg("--a-binary")
        .arg(&path)
        .args(["--quiet"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("marks no such stage") && stderr.contains("--measure wall"),
        "{stderr}"
    );
}

#[test]
fn a_missing_valgrind_and_more_than_one_thread_are_refused_before_any_run() {
    let out = nimsquare()
        .env("NIMSQUARE_VALGRIND", "/nonexistent/valgrind")
        .args([
            "compare",
            "stamped",
            "stamped",
            "--limit",
            "1e9",
            "--metric",
            "instructions",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("apt-get install valgrind"), "{stderr}");
    assert!(out.stdout.is_empty());
    let e = assert_refused(&[
        "--threads",
        "2",
        "compare",
        "stamped",
        "stamped",
        "--metric",
        "instructions",
    ]);
    assert!(e.contains("--threads 2"), "{e}");
    let e = assert_refused(&["compare", "stamped", "stamped", "--metric", "seconds"]);
    assert!(e.contains("--metric"), "{e}");
}
