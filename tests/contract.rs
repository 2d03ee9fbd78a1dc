//! The promise of the registry: a back-end is its file, its `mod` line and one entry, and
//! everything else reaches it through the contract alone. For every registered entry, of
//! every stage: `list` shows it with its role, the one checker runs it (or skips it saying
//! why), and the memory guard sizes it from its own `scratch_bytes` and refuses it, naming it,
//! when it would not fit. A new entry is covered by these loops with no edit here.

mod common;

use common::nimsquare;
use nimsquare::base::moves::Moves;
use nimsquare::instruments::check::{self, Case};
use nimsquare::{cold, count, registry, table};

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
fn every_timed_entry_passes_the_bench_gate_at_ten_thousand() {
    // The bench matrix's gate is `check` over the non-control entries.
    let tables: Vec<_> = registry::fast(table::BACKENDS).collect();
    let counts: Vec<_> = registry::fast(count::BACKENDS).collect();
    let case = Case {
        moves: Moves::Squares,
        limit: 10_000,
        heaps: 3,
    };
    let report = check::check(&case, &tables, &counts, &[])
        .unwrap()
        .into_result()
        .unwrap();
    assert_eq!(report.pairs.len(), tables.len() * counts.len());
}

#[test]
fn every_table_entry_is_memory_guarded_through_its_own_scratch() {
    for e in table::BACKENDS {
        let scratch = (e.make)().scratch_bytes(&Moves::Squares, 10_000_000, 2);
        let table = 2 * 10_000_001u64;
        // Memory for the table alone, but not for the back-end's scratch: refused, naming it.
        let out = nimsquare()
            .env(
                nimsquare::base::memory::AVAILABLE_OVERRIDE,
                table.to_string(),
            )
            .args([
                "--threads",
                "2",
                "solve",
                "--limit",
                "1e7",
                "--table",
                e.name,
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        if e.is_control() {
            assert!(err.contains("naive control"), "{}: {err}", e.name);
            continue;
        }
        assert!(scratch > 0, "{} says it needs no scratch", e.name);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", e.name);
        assert!(
            err.contains(e.name) && err.contains("would need about"),
            "{}: {err}",
            e.name
        );
    }
}
