//! The command line for `--heaps`, `verify --moves`, and refusals of bad input.

mod common;

use common::nimsquare;

fn stdout_of(args: &[&str]) -> String {
    let out = nimsquare().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {:?}", out);
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `args`, expects failure with exit code `code` and exactly one line on stderr
/// containing `needle`.
fn refused(args: &[&str], code: i32, needle: &str) {
    let out = nimsquare().args(args).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
}

#[test]
fn solve_heaps_three_is_the_default_and_matches_nim_square() {
    assert_eq!(stdout_of(&["solve", "--limit", "29"]).trim(), "1160");
    assert_eq!(
        stdout_of(&["solve", "--limit", "29", "--heaps", "3", "--count", "wht"]).trim(),
        "1160"
    );
}

#[test]
fn solve_any_heaps_equals_brute_force() {
    // Every heap count from 1 to 5 at N = 12 for {1,3,4}, against the brute-force control.
    let moves = nimsquare::base::moves::Moves::parse("1,3,4").unwrap();
    let t = nimsquare::table::build("stamped", &moves, 12).unwrap();
    for heaps in 1..=5 {
        let want = (nimsquare::count::find("brute").unwrap().make)()
            .count(&t, heaps)
            .unwrap()
            .to_string();
        let k = heaps.to_string();
        let got = stdout_of(&["solve", "--limit", "12", "--moves", "1,3,4", "--heaps", &k]);
        assert_eq!(got.trim(), want, "K = {heaps}");
    }
    // One heap: the cold positions of subtract-a-square up to 10^5 (2781; OEIS A030193 lists
    // them).
    assert_eq!(stdout_of(&["solve", "--heaps", "1"]).trim(), "2781");
}

#[test]
fn solve_json_reports_heaps_and_back_end() {
    let out = stdout_of(&["solve", "--limit", "20", "--heaps", "5", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["heaps"], 5);
    assert_eq!(v["count"], "wht");
}

#[test]
fn solve_refuses_bad_heaps_and_three_heap_only_back_ends() {
    refused(&["solve", "--heaps", "0"], 2, "between 1 and 16");
    refused(&["solve", "--heaps", "17"], 2, "between 1 and 16");
    refused(&["solve", "--heaps", "-1"], 2, "--heaps");
    refused(&["solve", "--heaps", "two"], 2, "--heaps");
    refused(
        &["solve", "--heaps", "4", "--count", "sweep"],
        2,
        "does not support 4 heaps",
    );
    refused(
        &["solve", "--heaps", "2", "--count", "rayon-sweep"],
        2,
        "does not support 2 heaps",
    );
    refused(&["verify", "--heaps", "0"], 2, "between 1 and 16");
    refused(&["verify", "--heaps", "17"], 2, "between 1 and 16");
}

#[test]
fn a_count_past_u128_is_printed_exactly_by_both_big_integer_routes() {
    // Sixteen heaps at N = 10^5: a count of about 2^215 (C(100016, 16) is about 2^221). The
    // Walsh-Hadamard power sums and the repeated xor convolution are independent routes.
    let run = |count: &str| {
        let out = common::nimsquare()
            .args([
                "solve", "--heaps", "16", "--limit", "1e5", "--count", count, "--json",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["answer"].as_str().unwrap().to_string()
    };
    let (wht, burnside) = (run("wht"), run("burnside"));
    assert_eq!(wht, burnside);
    let exact: num_bigint::BigUint = wht.parse().unwrap();
    assert!(exact.bits() > 128, "{wht}");
    // The plain answer is the same decimal, on one line.
    let text = common::stdout_of(["solve", "--heaps", "16", "--limit", "1e5"]);
    assert_eq!(text.trim_end(), wht);
}

#[test]
fn bad_moves_are_refused_everywhere() {
    for sub in ["solve", "verify"] {
        refused(&[sub, "--moves", ""], 2, "empty");
        refused(&[sub, "--moves", "0"], 2, "0 is not a move");
        refused(&[sub, "--moves", "1,0,3"], 2, "0 is not a move");
        refused(&[sub, "--moves", "1,-3"], 2, "not a positive integer");
        refused(&[sub, "--moves", "a,b"], 2, "not a positive integer");
    }
}

#[test]
fn verify_skips_three_heap_only_back_ends_and_checks_the_rest() {
    let out = stdout_of(&[
        "verify", "--limit", "25", "--heaps", "4", "--moves", "2,5,7", "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["passed"], true);
    assert_eq!(v["heaps"], 4);
    assert_eq!(v["moves"], "2,5,7");
    let skipped: Vec<&str> = v["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["backend"].as_str().unwrap())
        .collect();
    assert_eq!(skipped, ["sweep", "rayon-sweep"]);
    let counts: std::collections::BTreeSet<&str> = v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["count"].as_str().unwrap())
        .collect();
    assert_eq!(
        counts.into_iter().collect::<Vec<_>>(),
        ["brute", "burnside", "wht"]
    );
    // The requested N is small, so brute force judged it and everything passed.
    assert_eq!(v["count_judge"], "brute");
    let checks = v["checks"].as_array().unwrap();
    assert!(checks.iter().any(|c| c["name"]
        == "every back-end agrees with 'naive-mex' and 'brute' at N = 25"
        && c["passed"] == true));
    let moves = nimsquare::base::moves::Moves::parse("2,5,7").unwrap();
    let t = nimsquare::table::build("stamped", &moves, 25).unwrap();
    let want = (nimsquare::count::find("brute").unwrap().make)()
        .count(&t, 4)
        .unwrap()
        .to_string();
    assert!(v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["answer"] == want.as_str()));
}

#[test]
fn verify_keeps_the_nim_square_checkpoints() {
    let out = stdout_of(&["verify", "--limit", "60"]);
    assert!(out.contains("ok   N = 29 gives 1160"), "{out}");
    assert!(
        out.contains("ok   every back-end agrees with 'naive-mex' and 'brute' at N = 40"),
        "{out}"
    );
    assert!(out.contains("verify: all checks passed"), "{out}");
    // Three heaps: every count back-end answers, so none is skipped.
    assert!(!out.contains("skip "), "{out}");
}

#[test]
fn verify_with_nothing_answering_is_an_error_not_a_pass() {
    refused(
        &["verify", "--heaps", "16"],
        2,
        "no count back-end answers for 16 heaps",
    );
}

#[test]
fn one_heap_goes_through_the_sieve_and_says_what_it_cannot_know() {
    // 2 781 cold positions up to 100 000 (a fact of subtract-a-square), and Eppstein's
    // published 2 821 up to 102 517.
    assert_eq!(stdout_of(&["solve", "--heaps", "1"]), "2781\n");
    assert_eq!(
        stdout_of(&["solve", "--heaps", "1", "-n", "102517"]),
        "2821\n"
    );
    let v: serde_json::Value =
        serde_json::from_str(&stdout_of(&["solve", "--heaps", "1", "--json"])).unwrap();
    assert_eq!(v["cold"], "sieve");
    assert_eq!(v["answer"], "2781");
    for field in [
        "table",
        "count",
        "max_value",
        "max_value_first_at",
        "option_steps",
    ] {
        assert!(v[field].is_null(), "{field}: {}", v[field]);
    }
    // Marks: one per cold c and square s with c + s <= N, counted independently here.
    let t = nimsquare::table::build("stamped", &nimsquare::base::moves::Moves::Squares, 100_000)
        .unwrap();
    let marks: u64 = t
        .cold_positions()
        .iter()
        .map(|&c| {
            (1u64..)
                .take_while(|k| k * k <= (100_000 - c) as u64)
                .count() as u64
        })
        .sum();
    assert_eq!(v["sieve_marks"], marks.to_string());
    // A named table builds the whole table, which knows its max.
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&[
        "solve", "--heaps", "1", "--table", "stamped", "--json",
    ]))
    .unwrap();
    assert_eq!(
        (v["answer"].as_str(), v["max_value"].as_u64()),
        (Some("2781"), Some(74))
    );
    refused(
        &["solve", "--heaps", "1", "--save-table", "x.tbl"],
        2,
        "sieve",
    );
}

#[test]
fn a_run_forecast_to_take_long_says_so_before_it_starts() {
    let line = first_stderr_line(&["solve", "--limit", "4294967295"], &std::env::temp_dir());
    assert!(
        line.starts_with("note: N = 4294967295 needs about"),
        "{line}"
    );
    assert!(
        line.contains("GiB") && line.contains("option steps") && line.contains("h "),
        "{line}"
    );
    // --quiet: no note (a small run, so nothing else is on stderr either).
    let out = nimsquare()
        .args(["solve", "--limit", "1e6", "--quiet"])
        .output()
        .unwrap();
    assert!(out.stderr.is_empty());
}

/// The first line `args` prints on stderr, the process killed right after (the runs here
/// would take hours).
fn first_stderr_line(args: &[&str], dir: &std::path::Path) -> String {
    use std::io::{BufRead, BufReader};
    let mut child = common::nimsquare_process()
        .args(args)
        .current_dir(dir)
        .env(nimsquare::base::memory::AVAILABLE_OVERRIDE, "100000000000")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    line
}

#[test]
fn studies_forecast_to_take_long_say_so_before_they_start() {
    let dir = common::Scratch::new(format!("nimsquare-forecast-{}", std::process::id()));
    let line = first_stderr_line(
        &[
            "scale",
            "--table",
            "stamped",
            "--from",
            "1e9",
            "--to",
            "4294967295",
            "--points",
            "2",
            "--repeat",
            "1",
        ],
        &dir,
    );
    assert!(line.starts_with("note: this study builds "), "{line}");
    assert!(
        line.contains("needs at least") && line.contains("h "),
        "{line}"
    );
    let line = first_stderr_line(
        &[
            "growth",
            "--quantity",
            "max",
            "--to",
            "4e9",
            "--points",
            "2",
        ],
        &dir,
    );
    assert!(
        line.starts_with("note: N = 4000000000 needs about"),
        "{line}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The names of the checks `verify --json` ran, in order.
fn verify_checks(args: &[&str]) -> Vec<String> {
    let mut all = vec!["verify", "--json"];
    all.extend_from_slice(args);
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&all)).unwrap();
    assert_eq!(v["passed"], true, "{v}");
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn verify_checks_the_published_value_only_for_three_heaps_of_squares_and_each_n_once() {
    let agree = |n: u32| format!("every back-end agrees with 'naive-mex' and 'brute' at N = {n}");
    // Project Euler 310's N = 29 is a fact about three heaps and the squares alone.
    assert_eq!(
        verify_checks(&["--limit", "25", "--heaps", "2"]),
        [agree(25)]
    );
    let three_heaps_of_1_3_4 = verify_checks(&["--limit", "25", "--moves", "1,3,4"]);
    assert_eq!(
        three_heaps_of_1_3_4[0],
        agree(25),
        "{three_heaps_of_1_3_4:?}"
    );
    assert!(
        !three_heaps_of_1_3_4.iter().any(|c| c.starts_with("N = 29")),
        "{three_heaps_of_1_3_4:?}"
    );
    // At an N brute force affords, the case itself is the small agreement: run once.
    let squares = verify_checks(&["--limit", "35"]);
    assert_eq!(squares[..2], ["N = 29 gives 1160".to_string(), agree(35)]);
    assert_eq!(
        squares.iter().filter(|c| **c == agree(35)).count(),
        1,
        "{squares:?}"
    );
}
