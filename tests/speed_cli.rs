//! The CLI side of the speed work: `auto` defaults and what `solve --json` reports about
//! them, peak memory, and the refusal of a table that would not fit in memory.

mod common;

use common::{json_of, nimsquare, refusal_stderr};
use nimsquare::base::isa::Isa;

/// `solve --json` at `limit` on the vector path `isa` and `threads` threads.
fn solve_on(isa: &str, threads: &str, limit: &str) -> serde_json::Value {
    json_of([
        "--isa",
        isa,
        "--threads",
        threads,
        "solve",
        "--limit",
        limit,
        "--json",
    ])
}

#[test]
fn solve_defaults_to_auto_and_reports_the_choice() {
    let v = json_of(["solve", "--json"]);
    assert_eq!(v["answer"], "2586528661783");
    assert_eq!(v["table_requested"], "auto");
    assert_eq!(v["count_requested"], "auto");
    let (table, count) = (v["table"].as_str().unwrap(), v["count"].as_str().unwrap());
    assert!(nimsquare::table::find(table).is_ok(), "{table}");
    assert!(nimsquare::count::find(count).is_ok(), "{count}");
    assert!(v["peak_rss_bytes"].as_u64().unwrap() > 100_000);
}

#[test]
fn auto_follows_the_thread_count() {
    let solve = |isa, threads| solve_on(isa, threads, "1e6");
    let (one, two) = (solve("portable", "1"), solve("portable", "2"));
    assert_eq!(one["answer"], two["answer"]);
    // The documented thresholds off AVX-512: lanes on one thread, the parallel table from
    // 3 * 10^5 on two.
    assert_eq!(one["table"], "stamped-lanes");
    assert_eq!(two["table"], "stamped-parallel");
}

/// On an AVX-512 CPU auto takes the bitset tables past their crossovers; on any other CPU the
/// same command is refused (so the test checks something on every machine, and `.ci/run`
/// prints which paths this CPU lacks; `tests/isa_cap.rs` tests auto's fallback everywhere).
#[test]
fn auto_on_avx512_takes_the_bitset_tables() {
    if !Isa::Avx512.supported() {
        let err = refusal_stderr(["--isa", "avx512", "solve", "--limit", "3e6"]);
        assert!(
            err.contains("--isa avx512") && err.contains("does not support it"),
            "{err}"
        );
        return;
    }
    // 3 * 10^6: past both AVX-512 crossovers (3 * 10^4 and 2 * 10^6).
    let solve = |isa, threads| solve_on(isa, threads, "3e6");
    let (one, two) = (solve("avx512", "1"), solve("avx512", "2"));
    let want = solve("portable", "1");
    assert_eq!(want["table"], "stamped-lanes");
    assert_eq!(one["answer"], want["answer"]);
    assert_eq!(two["answer"], want["answer"]);
    assert_eq!(one["table"], "bitset");
    assert_eq!(two["table"], "bitset-parallel");
}

#[test]
fn an_explicit_backend_is_reported_as_requested() {
    let v = json_of([
        "solve", "--limit", "1000", "--table", "bitset", "--count", "sweep", "--json",
    ]);
    assert_eq!(v["table"], "bitset");
    assert_eq!(v["table_requested"], "bitset");
    assert_eq!(v["count"], "sweep");
}

#[test]
fn a_table_that_does_not_fit_is_refused_with_the_memory_it_needs() {
    let out = nimsquare()
        .env(nimsquare::base::memory::AVAILABLE_OVERRIDE, "1000000")
        .args(["solve", "--limit", "1e7"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("would need about") && err.contains("MiB"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn unknown_backend_lists_auto() {
    let err = refusal_stderr(["solve", "--table", "fast"]);
    assert!(err.contains("valid names: auto,"), "{err}");
}
