//! Tests written for the mutants `cargo mutants` found missed (results/quality/mutants.md lists
//! each mutant, the command that ran it and the test here that now catches it). Each test asserts
//! a fact known independently of the code it guards: positions of subtract-a-square from the
//! seeds' facts, the naive control's table, or arithmetic done here by hand.

use nimsquare::base::moves::Moves;
use nimsquare::cold::{self, ColdFinder, ColdSet};
use nimsquare::instruments::check::control::game_tree;
use nimsquare::instruments::check::{self, Case, Checker, Disagreement, Pair};
use nimsquare::registry::{Entry, Role};
use nimsquare::table::{self, Table};
use std::sync::{Mutex, MutexGuard};

/// Every test holds this lock: one of them sets the memory override (a process-wide
/// environment variable read by every table build and check), which the others must not see.
static MEMORY_ENV: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    MEMORY_ENV.lock().unwrap_or_else(|e| e.into_inner())
}

fn squares(limit: usize) -> Case {
    Case {
        moves: Moves::Squares,
        limit,
        heaps: 3,
    }
}

/// The naive control's table of subtract-a-square up to `limit`.
fn naive_table(limit: usize) -> Table {
    table::build("naive-mex", &Moves::Squares, limit as u64).unwrap()
}

fn pair(count: &'static str, answer: u128) -> Pair {
    Pair {
        table: "stamped",
        count,
        answer,
        table_seconds: 0.0,
        count_seconds: 0.0,
    }
}

// ---- the checker (src/instruments/check/mod.rs) ----

#[test]
fn a_wrong_count_is_a_named_count_disagreement_and_a_right_one_is_not() {
    let _serial = serial();
    // L(40) = 2632 (the seeds' fact); a counter answering 2633 must be named.
    let mut checker = Checker::new(squares(40), "naive-mex", naive_table(40));
    checker.count_judge("brute", 2632);
    checker.pair(Ok(pair("wht", 2632)));
    assert!(checker.disagreements().is_empty());
    checker.pair(Ok(pair("wrong-count", 2633)));
    assert_eq!(
        checker.disagreements(),
        &[Disagreement::Count {
            judge: "naive-mex+brute".into(),
            backend: "stamped+wrong-count".into(),
            judge_answer: 2632,
            answer: 2633,
        }]
    );
    let report = checker.finish();
    assert_eq!(report.pairs.len(), 2);
    assert!(!report.passed(), "a report with a disagreement passed");
}

#[test]
fn a_report_passes_only_with_an_answer_and_no_disagreement() {
    let _serial = serial();
    let mut empty = Checker::new(squares(40), "naive-mex", naive_table(40));
    empty.count_judge("brute", 2632);
    assert!(!empty.finish().passed(), "a report with no pair passed");
    let mut one = Checker::new(squares(40), "naive-mex", naive_table(40));
    one.count_judge("brute", 2632);
    one.pair(Ok(pair("wht", 2632)));
    assert!(one.finish().passed());
}

#[test]
fn a_shorter_table_differs_just_past_its_end() {
    let _serial = serial();
    // The judge covers 0..=40, the other table 0..=39 with the same values: they first
    // differ at 40, where the short table has no value (shown as u16::MAX).
    let judge = naive_table(40);
    let short = Table::from_values(judge.values()[..40].to_vec());
    let mut checker = Checker::new(squares(40), "naive-mex", judge.clone());
    assert!(!checker.table("short", &short));
    assert_eq!(
        checker.disagreements(),
        &[Disagreement::Table {
            judge: "naive-mex",
            backend: "short",
            at: 40,
            judge_value: judge.values()[40],
            value: u16::MAX,
        }]
    );
}

#[test]
fn a_cold_disagreement_says_which_side_calls_the_position_cold() {
    let _serial = serial();
    // 39 is cold and 40 hot for subtract-a-square (the seeds' cold sizes below 100:
    // ... 34 39 44 ...).
    let judge = naive_table(40);
    let mut missing = judge.values().to_vec();
    missing[39] = 1; // the wrong set loses the cold 39
    let mut extra = judge.values().to_vec();
    extra[40] = 0; // the wrong set calls 40 cold
    let mut checker = Checker::new(squares(40), "naive-mex", judge);
    assert!(!checker.cold(
        "missing",
        &ColdSet::from_table(&Table::from_values(missing))
    ));
    assert!(!checker.cold("extra", &ColdSet::from_table(&Table::from_values(extra))));
    let d = checker.finish().disagreements;
    assert_eq!(
        d,
        vec![
            Disagreement::Cold {
                judge: "naive-mex",
                backend: "missing",
                at: 39,
                judge_says_cold: true,
            },
            Disagreement::Cold {
                judge: "naive-mex",
                backend: "extra",
                at: 40,
                judge_says_cold: false,
            },
        ]
    );
    assert!(d[1]
        .to_string()
        .contains("makes 40 hot but 'extra' makes it cold"));
}

/// The sieve, declared affordable only up to N = 40 (so the checker's skip of a capped
/// cold back-end can be tested at small N; the registered control's cap is 10^7).
struct CappedSieve;

impl ColdFinder for CappedSieve {
    fn cold(&self, moves: &Moves, limit: usize) -> ColdSet {
        cold::Sieve::default().cold(moves, limit)
    }
    fn scratch_bytes(&self, _: &Moves, _: usize, _: usize) -> u64 {
        0
    }
    fn affordable_limit(&self) -> Option<usize> {
        Some(40)
    }
}

static CAPPED_SIEVE: Entry<dyn ColdFinder> = Entry {
    name: "capped-sieve",
    description: "test only",
    cost: "",
    role: Role::Control,
    model: nimsquare::cost::Model::NOT_MODELLED,
    kernels: &[],
    make: || Box::new(CappedSieve),
};

#[test]
fn cold_back_ends_are_compared_up_to_their_cap_and_skipped_past_it() {
    let _serial = serial();
    let stamped = [table::find("stamped").unwrap()];
    let sieve = cold::find("sieve").unwrap();
    let at_cap = check::check(&squares(40), &stamped, &[], &[&CAPPED_SIEVE, sieve]).unwrap();
    assert_eq!(at_cap.cold_sets, vec!["capped-sieve", "sieve"]);
    assert!(at_cap.skipped.is_empty(), "{:?}", at_cap.skipped);
    assert!(
        at_cap.disagreements.is_empty(),
        "{:?}",
        at_cap.disagreements
    );
    let past = check::check(&squares(41), &stamped, &[], &[&CAPPED_SIEVE, sieve]).unwrap();
    assert_eq!(past.cold_sets, vec!["sieve"]);
    assert_eq!(past.skipped.len(), 1);
    assert_eq!(past.skipped[0].backend, "capped-sieve");
    assert!(
        past.skipped[0].reason.contains("N = 40"),
        "{:?}",
        past.skipped
    );
}

#[test]
fn the_memory_guard_adds_the_judge_and_the_largest_table() {
    let _serial = serial();
    let case = squares(1000);
    let stamped = table::find("stamped").unwrap();
    let threads = rayon::current_num_threads();
    let need = |name: &str| {
        let e = table::find(name).unwrap();
        table::bytes_needed(&*(e.make)(), &case.moves, case.limit, threads)
    };
    // Two tables of 1001 u16 values at least: the sum, not the difference or the product.
    let sum = need("naive-mex") + need("stamped");
    let var = nimsquare::base::memory::AVAILABLE_OVERRIDE;
    std::env::set_var(var, sum.to_string());
    let fits = check::check(&case, &[stamped], &[], &[]);
    std::env::set_var(var, (sum - 1).to_string());
    let refused = check::check(&case, &[stamped], &[], &[]);
    std::env::remove_var(var);
    assert!(fits.is_ok(), "refused with exactly the memory it needs");
    let err = refused
        .expect_err("accepted with one byte too few")
        .to_string();
    assert!(err.contains("would need about"), "{err}");
}

#[test]
fn the_off_by_one_fixture_is_right_where_it_has_no_position_17() {
    // At N = 16 the fixture's table has no g(17) to spoil, so it agrees with the judge.
    let _serial = serial();
    let r = check::check(&squares(16), &[&check::testing::WRONG_AT_17], &[], &[]).unwrap();
    assert!(r.disagreements.is_empty(), "{:?}", r.disagreements);
}

// ---- the controls (src/instruments/check/control.rs) ----

#[test]
fn the_game_tree_reports_the_largest_heap_it_covers() {
    let _serial = serial();
    let tree = game_tree(&Moves::Squares, 7);
    assert_eq!(tree.max(), 7);
    // g(7) = 0 for subtract-a-square (the seeds' first values 0,1,0,1,2,0,1,0), so (7,7,7)
    // xors to 0 and is lost; (7,7,6) is not (g(6) = 1).
    assert!(tree.is_losing(7, 7, 7));
    assert!(!tree.is_losing(7, 7, 6));
}
