//! The bench matrix's own grid and selection (`nimsquare::instruments::matrix`, which
//! `benches/matrix.rs` calls): every fast back-end is in it, `--help` and `--list` gate
//! nothing, and a filter gates exactly the back-ends, paths and N it will time.

use nimsquare::base::isa::Isa;
use nimsquare::base::moves::Moves;
use nimsquare::instruments::matrix::{self, BenchArgs, GateCase, Grid};
use nimsquare::run::workload::{self, Subject};
use nimsquare::{count, octal, registry, table};

fn squares() -> Subject {
    workload::subtraction(Moves::Squares)
}

fn args(a: &[&str]) -> BenchArgs {
    BenchArgs::parse(a.iter().map(|s| s.to_string()))
}

fn cases(filter: &[&str]) -> Vec<GateCase> {
    let all = matrix::benches(&Grid::full());
    matrix::gate_cases(&matrix::select(&all, &args(filter)).unwrap())
}

#[test]
fn every_fast_back_end_is_timed_on_every_path_it_has() {
    let all = matrix::benches(&Grid::full());
    let ids: Vec<String> = all.iter().map(|b| b.id()).collect();
    for e in registry::fast(table::BACKENDS) {
        assert!(
            ids.contains(&format!("table/{}/100000", e.name)),
            "{}",
            e.name
        );
        if e.follows_isa() {
            for p in Isa::supported_all()
                .into_iter()
                .filter(|&p| p != nimsquare::base::isa::active())
            {
                assert!(
                    ids.contains(&format!("table/{}@{p}/100000", e.name)),
                    "{} {p}",
                    e.name
                );
            }
        }
    }
    for e in registry::fast(count::BACKENDS) {
        assert!(
            ids.contains(&format!("count/{}/1000000", e.name)),
            "{}",
            e.name
        );
    }
    // Controls are checked, never timed.
    assert!(!ids
        .iter()
        .any(|i| i.contains("naive-mex") || i.contains("brute")));
    // The ids are unique.
    let mut sorted = ids.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), ids.len());
}

#[test]
fn help_and_list_run_no_gate() {
    for a in [
        &["--help"][..],
        &["--list"],
        &["--list", "table/"],
        &["--bench", "--list"],
    ] {
        assert!(!args(a).runs_benchmarks(), "{a:?}");
    }
    assert!(args(&["--bench"]).runs_benchmarks());
    assert!(args(&["--test"]).runs_benchmarks());
}

#[test]
fn a_filter_gates_exactly_what_it_times() {
    // A filter is a regular expression, as in criterion: 100000 also matches 1000000.
    let both = cases(&["table/stamped-lanes/100000"]);
    assert_eq!(
        both.iter().map(|c| c.n).collect::<Vec<_>>(),
        [100_000, 1_000_000]
    );
    assert_eq!(
        cases(&["table/stamped-lanes/100000$"]),
        [GateCase {
            game: squares(),
            n: 100_000,
            path: None,
            tables: vec!["stamped-lanes"],
            counts: vec![]
        }]
    );
    assert_eq!(
        cases(&["--exact", "count/wht/1000000"]),
        [GateCase {
            game: squares(),
            n: 1_000_000,
            path: None,
            tables: vec![],
            counts: vec!["wht"]
        }]
    );
    // The scalar twin of a vector back-end is gated on that path only.
    assert_eq!(
        cases(&["table/stamped-lanes@scalar/10000$"]),
        [GateCase {
            game: squares(),
            n: 10_000,
            path: Some(Isa::Scalar),
            tables: vec!["stamped-lanes"],
            counts: vec![]
        }]
    );
    // A solve gates its table with its count.
    assert_eq!(
        cases(&["solve/stamped\\+wht/"]),
        [GateCase {
            game: squares(),
            n: 100_000,
            path: None,
            tables: vec!["stamped"],
            counts: vec!["wht"]
        }]
    );
    // MEASURING.md's filter for the paths a user runs: every back-end, no `@path` twin.
    let plain = cases(&["^(table|count|solve)/[a-z+-]+/"]);
    assert!(plain.iter().all(|c| c.path.is_none()));
    assert_eq!(plain.len(), 3, "N = 10^4, 10^5, 10^6 on the active path");
    assert!(plain.iter().any(|c| c.tables.contains(&"value-bounded")));
    assert!(cases(&["no-such-benchmark"]).is_empty());
    assert!(cases(&["--ignored"]).is_empty());
}

#[test]
fn command_line_times_are_seen_so_the_grid_leaves_them_alone() {
    let a = args(&[
        "--warm-up-time",
        "1",
        "--measurement-time",
        "2",
        "--sample-size",
        "10",
    ]);
    assert!(a.warm_up_time && a.measurement_time && a.sample_size);
    assert_eq!(a.filter, None);
    let b = args(&["table/bitset"]);
    assert!(!b.warm_up_time && !b.measurement_time && !b.sample_size);
}

#[test]
fn a_filter_that_matches_nothing_is_refused_and_help_or_ignored_are_not() {
    let all = matrix::benches(&Grid::full());
    let refusal = |a: &[&str]| {
        let a = args(a);
        matrix::refuse_empty(&a, &matrix::select(&all, &a).unwrap())
    };
    for a in [
        &["no-such-benchmark"][..],
        &["--list", "no-such-benchmark"],
        &["--test", "table/nope/"],
        &["--exact", "table/stamped"],
    ] {
        let e = refusal(a).unwrap_or_else(|| panic!("{a:?} was not refused"));
        assert!(
            e.contains("no benchmark matches the filter") && !e.contains('\n'),
            "{e}"
        );
    }
    assert!(refusal(&["no-such-benchmark"])
        .unwrap()
        .contains("'no-such-benchmark'"));
    for a in [
        &["--help"][..],
        &["--ignored"],
        &["table/stamped/"],
        &["--list"],
    ] {
        assert_eq!(refusal(a), None, "{a:?}");
    }
}

#[test]
fn the_ratio_reference_must_be_a_selected_back_end() {
    let all = matrix::benches(&Grid::full());
    let table = matrix::select(&all, &args(&["^table/"])).unwrap();
    assert_eq!(matrix::ratio_to(None, &table), Ok(None));
    assert_eq!(matrix::ratio_to(Some(""), &table), Ok(None));
    assert_eq!(
        matrix::ratio_to(Some("stamped"), &table),
        Ok(Some("stamped".to_string()))
    );
    // A count back-end is not among the table benchmarks; the refusal lists what is.
    let e = matrix::ratio_to(Some("wht"), &table).unwrap_err();
    assert!(
        e.contains("NIMSQUARE_RATIO_TO='wht'") && e.contains("stamped-lanes"),
        "{e}"
    );
}

#[test]
fn every_fast_octal_back_end_is_timed_on_each_octal_game_of_the_grid_with_stable_ids() {
    let all = matrix::benches(&Grid::full());
    let ids: Vec<String> = all.iter().map(|b| b.id()).collect();
    for e in registry::fast(octal::BACKENDS) {
        for code in ["0.6", "0.137"] {
            for n in [10_000, 100_000] {
                let id = format!("octal/{}/{code}/{n}", e.name);
                assert!(ids.contains(&id), "{id}");
            }
        }
    }
    // The control is checked, never timed; the vector back-end has its scalar twin.
    assert!(!ids.iter().any(|i| i.contains("octal-naive")));
    if nimsquare::base::isa::active() != Isa::Scalar {
        assert!(ids.contains(&"octal/octal-vector@scalar/0.6/10000".to_string()));
    }
    // A filter selects an octal game's benchmarks the same way, and gates them per game.
    let gated = cases(&["^octal/octal-vector/0.6/"]);
    assert_eq!(
        gated,
        [10_000, 100_000].map(|n| GateCase {
            game: workload::parse("octal", "0.6").unwrap(),
            n,
            path: None,
            tables: vec!["octal-vector"],
            counts: vec![],
        })
    );
    // The Nim Square filters of MEASURING.md select no octal benchmark.
    assert!(cases(&["^(table|count|solve)/"])
        .iter()
        .all(|c| c.game == squares()));
}

#[test]
fn the_octal_gate_passes_every_registered_back_end() {
    // The smoke grid's octal cases, as the bench runs them: every table agrees.
    let quick = matrix::benches(&Grid::quick());
    let selected = matrix::select(&quick, &args(&["^octal/"])).unwrap();
    let octal_cases = matrix::gate_cases(&selected);
    assert!(!octal_cases.is_empty());
    for case in &octal_cases {
        let tables = matrix::check_gate_tables(case)
            .unwrap()
            .into_result()
            .unwrap_or_else(|e| panic!("{case:?}: {e}"));
        // Below 2*10^4 the control judges (quick N are 10^3 and 10^4).
        assert_eq!(tables.judge, "octal-naive");
        for name in &case.tables {
            assert!(tables.checked.iter().any(|(t, _)| t == name), "{name}");
        }
        // A gate case of an octal game has no counts: the solve check refuses it.
        assert!(matrix::check_gate_case(case).is_err());
    }
}

/// Needs the `testing` feature's deliberately wrong octal back-end.
#[cfg(feature = "testing")]
#[test]
fn the_octal_gate_refuses_a_wrong_back_end() {
    use nimsquare::instruments::check::testing::OCTAL_WRONG_AT_500;
    // A back-end whose table differs at one position is refused, named with the position,
    // by the control at a small N and by the reference `octal-sparse` beyond it.
    let officers = workload::parse("octal", "0.6").unwrap();
    let wrong = octal::WORKLOAD.backend(&OCTAL_WRONG_AT_500);
    for (n, judge) in [(1_000, "octal-naive"), (30_000, "octal-sparse")] {
        let e = matrix::gate_tables(&officers, n, None, &[wrong])
            .unwrap()
            .into_result()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("'{judge}' gives g(500)"))
                && e.contains("'octal-wrong-at-500'")
                && e.contains("octal game 0.6"),
            "{e}"
        );
        // The wrong value is the judge's with its lowest bit flipped, and nothing else.
        let value_after = |key: &str| -> u16 {
            let rest = &e[e.find(key).unwrap_or_else(|| panic!("{e}")) + key.len()..];
            let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            digits.parse().unwrap_or_else(|_| panic!("{e}"))
        };
        let right = value_after("gives g(500) = ");
        let wrong = value_after("'octal-wrong-at-500' gives ");
        assert_eq!(wrong, right ^ 1, "{e}");
    }
}

/// `cargo bench` builds a package's binaries for its benchmarks, into target/release (the
/// bench profile's folder is the release profile's): a bench of the root package would
/// replace the user's target/release/nimsquare. So the matrix is the bench of a workspace
/// member of its own, the root package has no benchmark, and both are default members
/// (`cargo bench --bench matrix` works from the root). Read from `cargo metadata`, which
/// builds nothing.
#[test]
fn the_bench_matrix_is_a_package_of_its_own_so_cargo_bench_leaves_the_binary_alone() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    let package = |name: &str| {
        packages
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no package {name}"))
    };
    let kinds = |p: &serde_json::Value| -> Vec<(String, String)> {
        p["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["kind"][0].as_str().unwrap().to_string(),
                    t["name"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let root = kinds(package("nimsquare"));
    assert!(
        root.contains(&("bin".into(), "nimsquare".into())),
        "{root:?}"
    );
    assert!(!root.iter().any(|(k, _)| k == "bench"), "{root:?}");
    let bench = kinds(package("nimsquare-bench"));
    assert_eq!(
        bench,
        vec![
            ("bench".to_string(), "matrix".to_string()),
            ("bench".to_string(), "counts".to_string())
        ]
    );
    let defaults = meta["workspace_default_members"].as_array().unwrap();
    assert_eq!(defaults.len(), 2, "{defaults:?}");
}
