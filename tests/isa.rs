//! The vector paths (`--isa`): every fast table back-end and every count back-end with
//! vector kernels gives, on every path this CPU supports, the tables and counts of the
//! scalar-free references (`stamped`, `naive-mex`, `wht`, `brute`), and the CLI refuses a
//! bogus path and reports the one taken.

mod common;

use common::{assert_refused, json_of, stdout_of};
use nimsquare::base::isa::{self, Isa};
use nimsquare::base::moves::Moves;
use nimsquare::count::{self, Counter};
use nimsquare::grundy::Builder;
use nimsquare::registry::Entry;
use nimsquare::table::{self, Table};

/// The table back-ends run on every path: those that follow `--isa` and the others
/// ([`common::per_path_tables`]).
fn vector_tables() -> Vec<&'static Entry<dyn Builder<Moves>>> {
    let v = common::per_path_tables();
    let names: Vec<&str> = v.iter().map(|e| e.name).collect();
    assert!(
        names.contains(&"stamped-lanes") && names.contains(&"stamped-parallel"),
        "{names:?}"
    );
    v
}

/// The count back-ends that follow `--isa`.
fn vector_counts() -> Vec<&'static Entry<dyn Counter>> {
    let v: Vec<_> = count::BACKENDS.iter().filter(|e| e.follows_isa()).collect();
    let names: Vec<&str> = v.iter().map(|e| e.name).collect();
    assert!(
        names.contains(&"sweep") && names.contains(&"rayon-sweep"),
        "{names:?}"
    );
    v
}

/// Runs `body` once on every path this CPU supports, that path forced (the choice is
/// process-wide, so the tests of this file take turns).
fn on_every_path(mut body: impl FnMut(Isa)) {
    let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    for path in Isa::supported_all() {
        isa::with(path, || body(path)).expect("a supported path");
    }
}

fn build(name: &str, moves: &Moves, n: usize) -> Table {
    (table::find(name).unwrap().make)().build(moves, n).unwrap()
}

#[test]
fn small_tables_match_the_controls_at_every_n_on_every_path() {
    let moves = Moves::Squares;
    // The naive control at N = 300 gives every smaller table as a prefix.
    let judge = build("naive-mex", &moves, 300);
    let tables = vector_tables();
    on_every_path(|path| {
        for n in 0..=300 {
            for e in &tables {
                let t = (e.make)().build(&moves, n).unwrap();
                assert_eq!(
                    t.values(),
                    &judge.values()[..=n],
                    "{} on {path} at N = {n}",
                    e.name
                );
            }
        }
    });
}

#[test]
fn tables_up_to_1e5_match_stamped_on_every_path() {
    // Squares (max 74 at 10^5, a known value: lane strides 64 and 128), a 7-move set (its
    // values are at most 7, the number of moves: stride 64 throughout), and 1..=300 with three
    // far moves (g(300) = 300, so strides 64 to 512). tests/regimes.rs goes past 1024.
    let mut dense: Vec<u64> = (1..=300).collect();
    dense.extend([1000, 4321, 9999]);
    let sets = [
        (Moves::Squares, 100_000),
        (Moves::list(vec![1, 2, 3, 5, 8, 13, 21]).unwrap(), 100_000),
        (Moves::list(dense).unwrap(), 20_000),
    ];
    for (i, (moves, limit)) in sets.iter().enumerate() {
        let judge = build("stamped", moves, *limit);
        let max = judge.max_value();
        assert!([max == 74, max <= 7, max >= 300][i], "set {i}: max {max}");
        let tables = vector_tables();
        on_every_path(|path| {
            for e in &tables {
                let t = (e.make)().build(moves, *limit).unwrap();
                assert!(
                    t.values() == judge.values(),
                    "{} on {path} differs from stamped for max {max}",
                    e.name
                );
            }
        });
    }
}

#[test]
fn counts_match_the_judges_on_every_path() {
    let moves = Moves::Squares;
    let counts = vector_counts();
    let brute = count::find("brute").unwrap();
    let wht = count::find("wht").unwrap();
    let mut cases: Vec<(Table, u128)> = (0..=60)
        .map(|n| {
            let t = build("stamped", &moves, n);
            let want = (brute.make)().count(&t, 3).unwrap();
            (t, want)
        })
        .collect();
    let big = build("stamped", &moves, 100_000);
    let want = (wht.make)().count(&big, 3).unwrap();
    assert_eq!(want, 2_586_528_661_783, "Project Euler 310's answer");
    cases.push((big, want));
    on_every_path(|path| {
        for (t, want) in &cases {
            for e in &counts {
                let got = (e.make)().count(t, 3).unwrap();
                assert_eq!(got, *want, "{} on {path} at N = {}", e.name, t.limit());
            }
        }
    });
}

#[test]
fn a_bogus_isa_is_refused_naming_the_flag() {
    let stderr = assert_refused(&["--isa", "sse9", "solve", "--limit", "10"]);
    assert!(
        stderr.contains("--isa") && stderr.contains("sse9"),
        "{stderr}"
    );
}

#[test]
fn solve_json_reports_the_path_taken() {
    // Without --isa the widest path runs.
    let json = json_of(["solve", "--limit", "1000", "--json"]);
    assert_eq!(json["isa"], Isa::best().name(), "{json}");
    let t = build("stamped", &Moves::Squares, 1000);
    let want = (count::find("wht").unwrap().make)().count(&t, 3).unwrap();
    for path in Isa::supported_all() {
        let json = json_of([
            "--isa",
            path.name(),
            "solve",
            "--limit",
            "1000",
            "--table",
            "stamped-lanes",
            "--count",
            "sweep",
            "--json",
        ]);
        assert_eq!(json["isa"], path.name(), "{json}");
        assert_eq!(json["answer"], want.to_string(), "{path}: {json}");
    }
}

#[test]
fn list_shows_the_supported_paths_and_the_active_one() {
    let text = stdout_of(["--isa", "scalar", "list"]);
    let line = text
        .lines()
        .find(|l| l.starts_with("vector paths (--isa PATH): "))
        .unwrap_or_else(|| panic!("no vector paths line:\n{text}"));
    let names: Vec<&str> = Isa::supported_all().iter().map(|i| i.name()).collect();
    assert!(line.contains(&names.join(", ")), "{line}");
    // The paths this CPU cannot run are named, so a skipped path is never silent.
    let missing: Vec<&str> = Isa::ALL
        .into_iter()
        .filter(|i| !i.supported())
        .map(|i| i.name())
        .collect();
    if missing.is_empty() {
        assert!(line.ends_with("active: scalar"), "{line}");
    } else {
        let tail = format!("active: scalar; unavailable: {}", missing.join(", "));
        assert!(line.ends_with(&tail), "{line}");
    }
    let json = json_of(["list", "--json"]);
    assert_eq!(json["isa"]["supported"], serde_json::json!(names));
    assert_eq!(json["isa"]["unavailable"], serde_json::json!(missing));
    assert_eq!(json["isa"]["active"], Isa::best().name());
}

/// `NIMSQUARE_REQUIRE_ISA=avx512,avx2` (`.ci/run` sets it from /proc/cpuinfo, which does not
/// go through the crate's detection): every named path must be one this binary detects and
/// runs, so the per-path tests above cannot skip a path the machine has and still pass.
#[test]
fn every_required_path_is_detected_and_runs() {
    let Ok(required) = std::env::var("NIMSQUARE_REQUIRE_ISA") else {
        return;
    };
    let have = Isa::supported_all();
    for name in required.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let path = Isa::parse(name)
            .unwrap_or_else(|e| panic!("NIMSQUARE_REQUIRE_ISA names '{name}': {e}"));
        assert!(
            have.contains(&path),
            "NIMSQUARE_REQUIRE_ISA requires the {name} path, but this build detects only {have:?} \
             (a detection bug, a cap in {}, or a machine without it)",
            isa::CAP_ENV
        );
    }
}
