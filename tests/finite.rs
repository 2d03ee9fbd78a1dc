//! The third workload, finite subtraction games (`src/finite/`), end to end: its back-ends
//! agree with its control and with the two other workloads' independent routes to the same
//! table, its values are the published ones, and it reaches `list`, `build`, `compare`,
//! `scale`, `profile`, the checker and the bench matrix through its registry lines alone.

mod common;

use common::{assert_refused, nimsquare, stdout_of};
use nimsquare::base::moves::Moves;
use nimsquare::finite::{self, Set};
use nimsquare::instruments::{check, matrix};
use nimsquare::run::workload::{self, Subject};
use proptest::prelude::*;

fn subject(moves: &str) -> Subject {
    workload::parse("finite", moves).unwrap()
}

/// The table of `moves` up to `limit` by every finite back-end: all equal, and returned.
fn every_backend(moves: &[usize], limit: usize) -> Vec<u16> {
    let set = Set::new(moves).unwrap();
    let tables: Vec<Vec<u16>> = finite::BACKENDS
        .iter()
        .map(|e| (e.make)().build(&set, limit).unwrap().values().to_vec())
        .collect();
    for (e, t) in finite::BACKENDS.iter().zip(&tables) {
        assert_eq!(t, &tables[0], "{} on {moves:?} at N = {limit}", e.name);
    }
    tables[0].clone()
}

#[test]
fn published_and_textbook_values() {
    // Seed 003: {1, 2, 3} loses exactly at the multiples of 4, so g(n) = n mod 4 (a move
    // of 1..=k gives n mod (k + 1), the textbook rule: {1, 2} gives n mod 3).
    let v = every_backend(&[1, 2, 3], 10_000);
    assert!(v.iter().enumerate().all(|(n, &g)| g as usize == n % 4));
    let v = every_backend(&[1, 2], 10_000);
    assert!(v.iter().enumerate().all(|(n, &g)| g as usize == n % 3));
    // Seed 003 and the guide: {1, 3, 4} has period 7, 0,1,0,1,2,3,2; cold positions up to 20
    // are 0, 2, 7, 9, 14, 16.
    let v = every_backend(&[1, 3, 4], 100_000);
    let pattern = [0, 1, 0, 1, 2, 3, 2];
    assert!(v.iter().enumerate().all(|(n, &g)| g == pattern[n % 7]));
    let cold: Vec<usize> = (0..=20).filter(|&n| v[n] == 0).collect();
    assert_eq!(cold, [0, 2, 7, 9, 14, 16]);
}

#[test]
fn the_tables_are_the_table_stages_and_the_octal_codes() {
    // Three independent routes to one table: this workload, the table stage's reference on
    // the same move list, and the octal stage on the code with digit 3 at each move.
    for moves in [
        &[1, 3, 4][..],
        &[2, 5, 6, 11],
        &[3, 7, 8, 20, 21],
        &[1, 10, 100],
    ] {
        let limit = 5_000;
        let ours = every_backend(moves, limit);
        let list = Moves::list(moves.iter().map(|&s| s as u64).collect()).unwrap();
        let table = nimsquare::table::build("stamped", &list, limit as u64).unwrap();
        assert_eq!(table.values(), &ours[..], "{moves:?}: table stage");
        let code = nimsquare::octal::Rules::subtraction(moves).unwrap();
        let octal = nimsquare::octal::build("octal-sparse", &code, limit as u64).unwrap();
        assert_eq!(octal.values(), &ours[..], "{moves:?}: octal code {code}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Random sets and N: every back-end agrees with the table stage's control.
    #[test]
    fn random_sets_agree_with_the_table_stage(
        moves in proptest::collection::vec(1usize..60, 1..8),
        limit in 0usize..4000,
    ) {
        let ours = every_backend(&moves, limit);
        let list = Moves::list(moves.iter().map(|&s| s as u64).collect()).unwrap();
        let control = nimsquare::table::build("naive-mex", &list, limit as u64).unwrap();
        prop_assert_eq!(control.values(), &ours[..]);
    }
}

#[test]
fn the_checker_judges_it_by_its_control_and_beyond_by_its_reference() {
    let s = subject("2,5,6,11");
    assert_eq!(s.judge(1000).name(), "finite-naive");
    assert_eq!(s.judge(10_000_000).name(), "finite-period");
    let tables = check::against_judge(&s, 20_000, &s.backends())
        .unwrap()
        .into_result()
        .unwrap();
    assert_eq!(tables.judge, "finite-naive");
    assert_eq!(tables.checked.len(), 1);
    // The other workloads' back-ends are not this workload's.
    assert!(s.find("stamped").is_err());
    assert!(workload::squares().find("finite-period").is_err());
}

#[test]
fn the_bench_matrix_times_and_gates_it() {
    let all = matrix::benches(&matrix::Grid::full());
    let ids: Vec<String> = all.iter().map(|b| b.id()).collect();
    assert!(
        ids.iter()
            .any(|i| i.starts_with("finite/finite-period/1,3,4/")),
        "{ids:?}"
    );
    // The control is checked, never timed.
    assert!(!ids.iter().any(|i| i.contains("finite-naive")));
    let quick = matrix::benches(&matrix::Grid::quick());
    let selected =
        matrix::select(&quick, &matrix::BenchArgs::parse(["^finite/".to_string()])).unwrap();
    let cases = matrix::gate_cases(&selected);
    assert!(!cases.is_empty());
    for case in &cases {
        let t = matrix::check_gate_tables(case)
            .unwrap()
            .into_result()
            .unwrap();
        assert_eq!(t.judge, "finite-naive");
    }
}

#[test]
fn list_shows_the_workload() {
    let text = stdout_of(["list"]);
    assert!(text.contains("finite subtraction game back-ends"), "{text}");
    for e in finite::BACKENDS {
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("  {} ", e.name))),
            "{}: {text}",
            e.name
        );
    }
    let v: serde_json::Value = serde_json::from_str(&stdout_of(["list", "--json"])).unwrap();
    let names: Vec<&str> = v["finite"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["finite-naive", "finite-period"]);
}

#[test]
fn build_and_compare_accept_it_and_refuse_the_control_at_once() {
    let v: serde_json::Value = serde_json::from_str(&stdout_of([
        "build",
        "--workload",
        "finite:1,3,4",
        "--limit",
        "1000",
        "--json",
    ]))
    .unwrap();
    assert_eq!(v["workload"], "finite");
    assert_eq!(v["backend"], "finite-period");
    assert_eq!(v["max_value"], 3);
    let naive: serde_json::Value = serde_json::from_str(&stdout_of([
        "build",
        "--workload",
        "finite:1,3,4",
        "--backend",
        "finite-naive",
        "--limit",
        "1000",
        "--json",
    ]))
    .unwrap();
    assert_eq!(naive["table_digest"], v["table_digest"]);

    let out = nimsquare()
        .args([
            "compare",
            "finite-naive",
            "finite-period",
            "--workload",
            "finite:2,5,6",
        ])
        .args([
            "--limit", "20000", "--pairs", "2", "--warmup", "0", "--quiet", "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["stage"], "finite");
    assert_eq!(v["finite"], "2,5,6");
    assert_eq!(v["ratio"]["per_pair"].as_array().unwrap().len(), 2);

    // A control past what it affords is refused before any run, in one line naming N.
    let started = std::time::Instant::now();
    let e = assert_refused(&[
        "compare",
        "finite-naive",
        "finite-period",
        "--workload",
        "finite:1,3,4",
        "--limit",
        "1e7",
    ]);
    assert!(e.contains("10000000") && e.contains("finite-naive"), "{e}");
    assert!(started.elapsed().as_secs_f64() < 5.0);
    let e = assert_refused(&[
        "compare",
        "stamped",
        "finite-period",
        "--workload",
        "finite:1,3",
    ]);
    assert!(
        e.contains("side A") && e.contains("unknown finite back-end"),
        "{e}"
    );
    let e = assert_refused(&["build", "--workload", "finite:squares"]);
    assert!(e.contains("--workload"), "{e}");
}

#[test]
fn scale_and_profile_accept_it() {
    let dir = common::Scratch::new(format!("nimsquare-finite-{}", std::process::id()));
    let csv = dir.join("finite.csv");
    let out = stdout_of([
        "scale",
        "--workload",
        "finite:3,5,7",
        "--from",
        "1000",
        "--to",
        "10000",
        "--points",
        "2",
        "--repeat",
        "1",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(
        out.contains("fit") && out.contains("finite-period"),
        "{out}"
    );
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(rows.lines().count(), 3, "{rows}");
    assert!(rows.contains("3,5,7"), "{rows}");

    let svg = dir.join("finite.svg");
    let out = stdout_of([
        "profile",
        "--workload",
        "finite:1,3,4",
        "--limit",
        "1e6",
        "--samples",
        "20",
        "--out",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.contains("table=finite-period") && out.contains("count=none"),
        "{out}"
    );
}
