//! The promise of the registry: a back-end is its file, its `mod` line and one entry, and
//! everything else reaches it through the contract alone. The proof is a fixture: test builds
//! register one more table back-end, `fixture-mex` (`src/table/fixture_mex.rs`, listed in
//! `table::BACKENDS` only under the `testing` feature), and these tests find it in `list`,
//! `verify`, the bench matrix's own grid and gate (`instruments::matrix`, which
//! `benches/matrix.rs` calls), `scale`, `roofline`, the per-path tests' list and the memory
//! guard, none of which names it. A consumer that kept its own list of back-ends would miss
//! it. For every registered entry, of every stage: `list` shows it with its role, the checker
//! runs it (or skips it saying why), its entry declares the per-path kernel families its file
//! calls (what says whether it follows `--isa`), and the memory guard refuses it one byte short of the memory the run says it
//! needs (that estimate is held against measured allocations in `tests/memory_estimates.rs`).

mod common;

use common::nimsquare;
use nimsquare::base::memory::AVAILABLE_OVERRIDE;
use nimsquare::base::moves::Moves;
use nimsquare::instruments::check::{self, Case};
use nimsquare::instruments::matrix::{self, BenchArgs, Grid};
use nimsquare::{cold, count, registry, table};

/// The fixture registered only in test builds.
const FIXTURE: &str = "fixture-mex";

#[test]
fn the_fixture_is_registered_in_test_builds() {
    let e = table::find(FIXTURE).unwrap();
    assert_eq!(e.role, registry::Role::Fast);
    // It is right: the naive control's table at N = 2000, for the squares and a list.
    for moves in [Moves::Squares, Moves::list(vec![1, 3, 4, 9, 10]).unwrap()] {
        let want = table::build("naive-mex", &moves, 2000).unwrap();
        assert_eq!((e.make)().build(&moves, 2000).unwrap(), want, "{moves:?}");
    }
}

fn list_json() -> serde_json::Value {
    let out = nimsquare().args(["list", "--json"]).output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

fn listed(list: &serde_json::Value, stage: &str, name: &str, role: registry::Role) {
    let entry = list[stage]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["name"] == name))
        .unwrap_or_else(|| panic!("{stage} back-end '{name}' missing from list --json"));
    assert_eq!(entry["role"], format!("{role:?}").to_lowercase(), "{name}");
}

#[test]
fn every_entry_is_listed_with_its_role() {
    let list = list_json();
    listed(&list, "table", FIXTURE, registry::Role::Fast);
    table::BACKENDS
        .iter()
        .for_each(|e| listed(&list, "table", e.name, e.role));
    count::BACKENDS
        .iter()
        .for_each(|e| listed(&list, "count", e.name, e.role));
    cold::BACKENDS
        .iter()
        .for_each(|e| listed(&list, "cold", e.name, e.role));
}

#[test]
fn every_entry_is_checked_or_skipped_with_a_reason() {
    for heaps in [3, 5] {
        let case = Case {
            moves: Moves::Squares,
            limit: 30,
            heaps,
        };
        let report = check::everything(&case).unwrap().into_result().unwrap();
        let skipped = |name: &str| {
            report
                .skipped
                .iter()
                .any(|s| s.backend == name && !s.reason.is_empty())
        };
        assert!(report.pairs.iter().any(|p| p.table == FIXTURE));
        for e in table::BACKENDS {
            assert!(
                report.pairs.iter().any(|p| p.table == e.name) || skipped(e.name),
                "{}",
                e.name
            );
        }
        for e in count::BACKENDS {
            assert!(
                report.pairs.iter().any(|p| p.count == e.name) || skipped(e.name),
                "{}",
                e.name
            );
        }
        for e in cold::BACKENDS {
            assert!(
                report.cold_sets.contains(&e.name) || skipped(e.name),
                "{}",
                e.name
            );
        }
    }
}

#[test]
fn verify_through_the_binary_runs_the_fixture_with_every_counter() {
    let out = nimsquare()
        .args(["verify", "--limit", "60", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pairs = json["pairs"].as_array().unwrap();
    for c in count::BACKENDS {
        let pair = pairs
            .iter()
            .find(|p| p["table"] == FIXTURE && p["count"] == c.name)
            .unwrap_or_else(|| panic!("{FIXTURE}+{} missing: {json}", c.name));
        // L(60) = 7160 (the seeds' facts).
        assert_eq!(pair["answer"], "7160", "{}", c.name);
    }
}

#[test]
fn the_bench_matrix_times_and_gates_every_fast_entry_the_fixture_included() {
    // The bench's own grid and selection, as its `main` calls them (no filter).
    let all = matrix::benches(&Grid::full());
    let ids: Vec<String> = all.iter().map(|b| b.id()).collect();
    for e in registry::fast(table::BACKENDS) {
        assert!(
            ids.contains(&format!("table/{}/100000", e.name)),
            "{}",
            e.name
        );
    }
    assert!(ids.contains(&format!("table/{FIXTURE}/1000000")));
    assert!(ids.contains(&format!("solve/{FIXTURE}+wht/100000")));
    // The gate the bench runs before timing, on the smoke grid: every case agrees, and every
    // fast table and count back-end answered in it.
    let quick = matrix::benches(&Grid::quick());
    let selected = matrix::select(&quick, &BenchArgs::parse(Vec::<String>::new())).unwrap();
    assert_eq!(selected.len(), quick.len());
    let mut answered: Vec<(&str, &str)> = Vec::new();
    // The gate forces paths and reads the active one: not beside the per-path test below,
    // which counts the reads.
    let _lock = nimsquare::base::isa::TEST_LOCK
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    for case in matrix::gate_cases(&selected) {
        if case.game.counts().is_none() {
            // An octal game's case: its tables against the octal judge (tests/matrix.rs).
            matrix::check_gate_tables(&case)
                .unwrap()
                .into_result()
                .unwrap_or_else(|e| panic!("{case:?}: {e}"));
            continue;
        }
        let report = matrix::check_gate_case(&case)
            .unwrap()
            .into_result()
            .unwrap_or_else(|e| panic!("{case:?}: {e}"));
        answered.extend(report.pairs.iter().map(|p| (p.table, p.count)));
    }
    for t in registry::fast(table::BACKENDS) {
        for c in registry::fast(count::BACKENDS) {
            assert!(
                answered.contains(&(t.name, c.name)),
                "{}+{}",
                t.name,
                c.name
            );
        }
    }
}

#[test]
fn scale_and_roofline_take_every_fast_entry_by_default() {
    let dir = common::Scratch::new(format!("nimsquare-contract-{}", std::process::id()));
    let out = nimsquare()
        .current_dir(&dir)
        .args(["scale", "--from", "1000", "--to", "2000", "--points", "2"])
        .args(["--repeat", "1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for e in registry::fast(table::BACKENDS) {
        for n in [1000, 2000] {
            let row = format!("row backend={} n={n} ", e.name);
            assert!(text.lines().any(|l| l.starts_with(&row)), "{row}: {text}");
        }
    }
    let csv = std::fs::read_to_string(dir.join("scaling.csv")).unwrap();
    assert_eq!(
        csv.lines().filter(|l| l.contains(FIXTURE)).count(),
        2,
        "{csv}"
    );
    let text = common::stdout_of([
        "roofline", "--limit", "3000", "--count", "wht", "--repeat", "1",
    ]);
    for e in registry::fast(table::BACKENDS) {
        let line = format!("table  {} ", e.name);
        assert!(text.lines().any(|l| l.starts_with(&line)), "{line}: {text}");
    }
}

#[test]
fn the_per_path_tests_run_the_fixture_and_each_entry_declares_the_kernels_its_file_uses() {
    let names: Vec<&str> = common::per_path_tables().iter().map(|e| e.name).collect();
    assert!(names.contains(&FIXTURE), "{names:?}");
    // Whether a back-end follows --isa is read from its entry's kernel families (the bench
    // times it on every path, and the per-path tests run it, by that answer), so a run of it
    // must read the active path exactly when the entry declares a per-path family.
    use nimsquare::base::isa;
    use std::sync::atomic::Ordering;
    let _lock = isa::TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let moves = nimsquare::base::moves::Moves::Squares;
    let reads = |run: &dyn Fn()| {
        isa::ACTIVE_READS.store(0, Ordering::SeqCst);
        run();
        isa::ACTIVE_READS.load(Ordering::SeqCst) > 0
    };
    for e in table::BACKENDS {
        let read = reads(&|| {
            (e.make)().build(&moves, 3000).unwrap();
        });
        assert_eq!(read, e.follows_isa(), "{}: reads the path: {read}", e.name);
    }
    let t = table::build("stamped", &moves, 3000).unwrap();
    for e in count::BACKENDS {
        let read = reads(&|| {
            (e.make)().count(&t, 3).unwrap();
        });
        assert_eq!(read, e.follows_isa(), "{}: reads the path: {read}", e.name);
    }
    let officers = nimsquare::octal::Rules::parse("0.6").unwrap();
    for e in nimsquare::octal::BACKENDS {
        let read = reads(&|| {
            (e.make)().build(&officers, 500).unwrap();
        });
        assert_eq!(read, e.follows_isa(), "{}: reads the path: {read}", e.name);
    }
}

/// `--threads 2 solve --limit 10000 --table NAME`, the run the memory tests make.
fn solve_10000(name: &str) -> [&str; 7] {
    [
        "--threads",
        "2",
        "solve",
        "--limit",
        "10000",
        "--table",
        name,
    ]
}

/// `solve --table NAME -n 10000 --json`'s `memory_needed_bytes`.
fn memory_needed(name: &str) -> u64 {
    let out = nimsquare()
        .args(solve_10000(name))
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{name}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    json["memory_needed_bytes"].as_u64().unwrap()
}

/// `solve --table NAME -n 10000` with `available` bytes of memory: its status and stderr.
fn solve_with_memory(name: &str, available: u64) -> (Option<i32>, String) {
    let out = nimsquare()
        .env(AVAILABLE_OVERRIDE, available.to_string())
        .args(solve_10000(name))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), stderr)
}

#[test]
fn every_table_entry_is_memory_guarded_by_the_memory_its_run_needs() {
    assert!(table::BACKENDS.iter().any(|e| e.name == FIXTURE));
    for e in table::BACKENDS {
        let needed = memory_needed(e.name);
        // The run's estimate holds the table and the back-end's own scratch (at least).
        let own = table::bytes_needed(&*(e.make)(), &Moves::Squares, 10_000, 2);
        assert!(own > 2 * 10_001, "{}: no scratch counted", e.name);
        assert!(needed >= own, "{}: {needed} < {own}", e.name);
        // Exactly that much memory is enough; one byte less is refused, naming the back-end.
        let (code, stderr) = solve_with_memory(e.name, needed);
        assert_eq!(code, Some(0), "{}: {stderr}", e.name);
        let (code, stderr) = solve_with_memory(e.name, needed - 1);
        assert_eq!(code, Some(2), "{}: {stderr}", e.name);
        assert!(
            stderr.contains(e.name) && stderr.contains("would need about"),
            "{}: {stderr}",
            e.name
        );
    }
}
