//! The binary itself: answers, JSON fields, and refusals of bad input.

mod common;

use common::{json_of, nimsquare, stdout_of};

/// Runs the binary, expecting failure; returns stderr, after checking it is one line with
/// no panic and no backtrace.
fn refused(args: &[&str]) -> String {
    let out = nimsquare().args(args).output().unwrap();
    assert!(!out.status.success(), "{args:?} succeeded");
    assert_ne!(out.status.code(), Some(101), "{args:?} panicked");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
    stderr
}

#[test]
fn solve_prints_the_answer_alone() {
    nimsquare()
        .arg("solve")
        .assert()
        .success()
        .stdout("2586528661783\n");
}

#[test]
fn every_pair_prints_the_same_answer() {
    let list = nimsquare().args(["list", "--json"]).output().unwrap();
    let list: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    // Every back-end but the naive controls, which are refused at this size (below).
    let names = |stage: &str| -> Vec<String> {
        list[stage]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["role"] != "control")
            .map(|e| e["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        (names("table").len(), names("count").len()),
        (
            nimsquare::registry::fast(nimsquare::table::BACKENDS).count(),
            nimsquare::registry::fast(nimsquare::count::BACKENDS).count()
        )
    );
    for t in names("table") {
        for c in names("count") {
            nimsquare()
                .args(["solve", "--table", &t, "--count", &c])
                .assert()
                .success()
                .stdout("2586528661783\n");
        }
    }
}

#[test]
fn the_controls_answer_small_inputs_and_refuse_large_ones() {
    nimsquare()
        .args([
            "solve",
            "--limit",
            "29",
            "--table",
            "naive-mex",
            "--count",
            "brute",
        ])
        .assert()
        .success()
        .stdout("1160\n");
    let err = refused(&["solve", "--count", "brute"]);
    assert!(
        err.contains("'brute'") && err.contains("naive control"),
        "{err}"
    );
    let err = refused(&["solve", "--limit", "1e6", "--table", "naive-mex"]);
    assert!(err.contains("'naive-mex'"), "{err}");
}

#[test]
fn solve_json_has_the_documented_fields() {
    let v = json_of([
        "solve", "--json", "--table", "stamped", "--count", "burnside",
    ]);
    assert_eq!(v["limit"], 100_000);
    assert_eq!(v["table"], "stamped");
    assert_eq!(v["count"], "burnside");
    assert_eq!(v["answer"], "2586528661783");
    assert_eq!(v["max_value"], 74);
    assert_eq!(v["max_value_first_at"], 99_078);
    assert_eq!(v["cold_positions"], 2781);
    assert!(v["table_seconds"].as_f64().unwrap() >= 0.0);
    assert!(v["count_seconds"].as_f64().unwrap() >= 0.0);
    assert_eq!(v["unsaved"], serde_json::json!([]));
}

#[test]
fn solve_accepts_other_moves_and_threads() {
    // {1,2,3}: g(n) = n mod 4, so at N = 3 the values are 0,1,2,3 and the losing triples
    // are (0,0,0), (0,1,1), (0,2,2), (0,3,3) and (1,2,3).
    nimsquare()
        .args([
            "--threads",
            "1",
            "solve",
            "--limit",
            "3",
            "--moves",
            "1,2,3",
        ])
        .assert()
        .success()
        .stdout("5\n");
}

#[test]
fn verify_passes_at_60_and_shows_every_pair() {
    let text = stdout_of(["verify", "--limit", "60"]);
    let pairs = nimsquare::table::BACKENDS.len() * nimsquare::count::BACKENDS.len();
    assert_eq!(text.matches(" 7160 ").count(), pairs, "{text}");
    assert!(
        text.contains("agrees with 'naive-mex' and 'brute' at N = 60"),
        "{text}"
    );
    assert!(text.contains("all checks passed"));
    let out = nimsquare()
        .args(["verify", "--limit", "60", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["passed"], true);
    let pairs = v["pairs"].as_array().unwrap();
    assert_eq!(
        pairs.len(),
        nimsquare::table::BACKENDS.len() * nimsquare::count::BACKENDS.len()
    );
    assert!(pairs.iter().all(|p| p["answer"] == "7160"));
}

#[test]
fn list_names_every_back_end_with_its_role() {
    let out = nimsquare().arg("list").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for e in nimsquare::table::BACKENDS
        .iter()
        .map(|e| (e.name, e.role))
        .chain(nimsquare::count::BACKENDS.iter().map(|e| (e.name, e.role)))
    {
        let line = lines
            .iter()
            .find(|l| l.split_whitespace().next() == Some(e.0));
        let line = line.unwrap_or_else(|| panic!("{} missing from list:\n{text}", e.0));
        let role = format!("{:?}", e.1).to_lowercase();
        assert_eq!(
            line.split_whitespace().nth(1),
            Some(role.as_str()),
            "{line}"
        );
    }
    // The columns line up: in each stage the role column starts at one offset, however
    // long the names (`stamped-parallel` was once wider than the column).
    for stage in text.split("back-ends (").skip(1) {
        let offsets: Vec<usize> = stage
            .lines()
            .filter(|l| l.starts_with("  "))
            .map(|l| {
                let name_end = 2 + l[2..].find(' ').unwrap();
                name_end + l[name_end..].find(|c: char| c != ' ').unwrap()
            })
            .collect();
        assert!(
            offsets.len() >= 2 && offsets.iter().all(|&o| o == offsets[0]),
            "{offsets:?}"
        );
    }
}

#[test]
fn bad_limits_are_refused() {
    assert!(refused(&["solve", "--limit", "-5"]).contains("non-negative"));
    assert!(refused(&["solve", "--limit", "abc"]).contains("non-negative integer"));
    assert!(refused(&["solve", "--limit", "1.5"]).contains("non-negative integer"));
    let too_big = refused(&["solve", "--limit", "5000000000"]);
    assert!(
        too_big.contains("4294967295") && too_big.contains("u16"),
        "{too_big}"
    );
    assert!(refused(&["solve", "--limit", "99999999999999999999999"]).contains("maximum"));
    assert!(refused(&["verify", "--limit", "-1"]).contains("non-negative"));
}

#[test]
fn unknown_back_ends_list_the_valid_names() {
    let err = refused(&["solve", "--table", "quantum"]);
    assert!(err.contains("quantum") && err.contains("stamped") && err.contains("bitset"));
    let err = refused(&["solve", "--count", "abacus"]);
    assert!(err.contains("abacus") && err.contains("sweep") && err.contains("burnside"));
}

#[test]
fn bad_threads_and_moves_are_refused() {
    assert!(refused(&["--threads", "0", "solve"]).contains("--threads must be between 1 and"));
    assert!(
        refused(&["solve", "--threads", "x"]).contains("--threads takes a non-negative integer")
    );
    assert!(refused(&["solve", "--moves", ""]).contains("empty"));
    assert!(refused(&["solve", "--moves", "1,0,4"]).contains("0 is not a move"));
    assert!(refused(&["solve", "--moves", "1,-4"]).contains("positive integer"));
}

#[test]
fn unknown_subcommand_is_one_line() {
    refused(&["frobnicate"]);
}

/// A report stdout refuses (a full device) is one line on stderr and status 1, not a panic.
#[cfg(target_os = "linux")]
#[test]
fn a_report_that_cannot_be_written_is_one_line_and_a_failure() {
    for args in [&["list"][..], &["solve", "--limit", "100", "--json"][..]] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = common::nimsquare_process()
            .args(args)
            .stdout(full)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: cannot write the report to stdout: "),
            "{args:?}: {stderr}"
        );
    }
}
