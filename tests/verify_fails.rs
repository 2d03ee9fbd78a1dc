//! The failure branch of `verify` through the binary: with each deliberately wrong back-end
//! of the `testing` feature added (`--with-wrong NAME`, a flag only test builds have), the
//! run exits 1 and every failed check names the wrong back-end, the judge and the N; without
//! one, the same checks pass. The expected values are the seeds' (L(29) = 1160, L(40) = 2632,
//! L(60) = 7160; g(17) = 0), not the code's.

mod common;

use common::{assert_refused, nimsquare};
use nimsquare::instruments::check::testing;

/// `verify --limit 60 --json` with `extra`: exit status and the parsed report.
fn verify(extra: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out = nimsquare()
        .args(["verify", "--limit", "60", "--json"])
        .args(extra)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{extra:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), json)
}

/// The details of the failed checks, by check name.
fn failed(json: &serde_json::Value) -> Vec<(String, String)> {
    json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["passed"] == false)
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["detail"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn each_wrong_back_end_makes_verify_exit_1_naming_it() {
    let (code, json) = verify(&[]);
    assert_eq!(code, Some(0), "{json}");
    assert!(failed(&json).is_empty(), "{json}");

    // The table off by one at 17: every check reaches position 17.
    let (code, json) = verify(&["--with-wrong", "wrong-at-17"]);
    assert_eq!(code, Some(1), "{json}");
    let f = failed(&json);
    assert_eq!(f.len(), 3, "{f:?}");
    for (name, detail) in &f {
        assert!(
            detail.contains("table: 'naive-mex' gives g(17) = 0 but 'wrong-at-17' gives 1"),
            "{name}: {detail}"
        );
    }

    // The counter that drops position N: wrong at 29, 40 and 60, named with its table and
    // the judges' answers.
    let (code, json) = verify(&["--with-wrong", "wrong-drops-last"]);
    assert_eq!(code, Some(1), "{json}");
    let f = failed(&json);
    let names: Vec<&str> = f.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "N = 29 gives 1160",
            "every back-end agrees with 'naive-mex' and 'brute' at N = 40",
            "every back-end agrees with 'naive-mex' and 'brute' at N = 60",
        ]
    );
    assert!(
        f[0].1.starts_with(
            "Project Euler 310's checkpoint is 1160, but 'naive-mex+wrong-drops-last' gives "
        ),
        "{}",
        f[0].1
    );
    assert!(
        f[1].1.starts_with(
            "count: 'naive-mex+brute' gives 2632 but 'naive-mex+wrong-drops-last' gives "
        ),
        "{}",
        f[1].1
    );
    assert!(
        f[2].1.starts_with(
            "count: 'naive-mex+brute' gives 7160 but 'naive-mex+wrong-drops-last' gives "
        ),
        "{}",
        f[2].1
    );
    // One disagreement per table back-end that answered (each is counted wrong).
    let tables = nimsquare::table::BACKENDS.len();
    assert!(
        f[2].1.ends_with(&format!("({tables} disagreements)")),
        "{}",
        f[2].1
    );

    // The counter that fails: reported as failed, with its error, at every N.
    let (code, json) = verify(&["--with-wrong", "failing-count"]);
    assert_eq!(code, Some(1), "{json}");
    let f = failed(&json);
    assert_eq!(f.len(), 3, "{f:?}");
    for (name, detail) in &f {
        assert!(
            detail.contains("'naive-mex+failing-count' failed: a deliberate failure"),
            "{name}: {detail}"
        );
    }
    // Every wrong back-end of the feature was run above.
    assert_eq!(testing::all().len(), 3);
}

#[test]
fn the_text_report_says_fail_and_failed() {
    let out = nimsquare()
        .args([
            "verify",
            "--limit",
            "40",
            "--with-wrong",
            "wrong-drops-last",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines().any(|l| l.starts_with("FAIL every back-end agrees with 'naive-mex' and 'brute' at N = 40 (count: 'naive-mex+brute' gives 2632 but 'naive-mex+wrong-drops-last' gives ")),
        "{text}"
    );
    assert!(text.ends_with("verify: FAILED\n"), "{text}");
}

#[test]
fn wrong_back_ends_are_reachable_only_through_the_test_flag() {
    let err = assert_refused(&["verify", "--with-wrong", "stamped"]);
    assert!(
        err.contains("--with-wrong") && err.contains("wrong-at-17"),
        "{err}"
    );
    // Not registered: solve does not know them.
    for name in ["wrong-at-17", "wrong-drops-last"] {
        let flag = if name.starts_with("wrong-at") {
            "--table"
        } else {
            "--count"
        };
        let err = assert_refused(&["solve", "--limit", "10", flag, name]);
        assert!(err.contains(name), "{err}");
    }
}
