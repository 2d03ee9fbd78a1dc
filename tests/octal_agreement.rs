//! The octal back-ends agree: every non-control back-end builds the table of the control
//! `octal-naive` (the definition) on every code with up to two digits after the point (d0 0
//! and 4) and Grundy's game up to N = 400, and on random codes of up to four digits (a
//! proptest, shrunk to a minimal failing code and N), on every instruction-set path this
//! CPU has; the published starts of Officers and Dawson's Kayles; and, at sizes the control
//! cannot afford, the reference `octal-sparse` (plain scalar loops, no kernel family) and
//! `octal-vector` (the xor-pair kernel) build the same tables. .127, whose sparse space
//! needs the position's parity (Flammenkamp's second kind), is held against the control
//! past the prefix where the masks are chosen, and its published period is proved from the
//! sparse back-end's table.

use nimsquare::base::isa::{self, Isa};
use nimsquare::octal::method::period::{self, Verdict};
use nimsquare::octal::method::rare_common::{Histogram, Mask};
use nimsquare::octal::{self, Rules};
use nimsquare::registry::{self, Role};
use nimsquare::table::Table;
use proptest::prelude::*;

/// The control's table.
fn control(rules: &Rules, limit: usize) -> Table {
    octal::build("octal-naive", rules, limit as u64).unwrap()
}

/// The first n where two tables differ, if any (different lengths differ at the shorter).
fn first_difference(a: &Table, b: &Table) -> Option<usize> {
    let (a, b) = (a.values(), b.values());
    (0..a.len().max(b.len())).find(|&n| a.get(n) != b.get(n))
}

/// The paths a back-end is run on: every supported path when it follows `--isa`, else the
/// active one.
fn paths_of(e: &registry::Entry<dyn octal::Builder<octal::Rules>>) -> Vec<Isa> {
    if e.follows_isa() {
        Isa::supported_all()
    } else {
        vec![isa::active()]
    }
}

/// Every non-control back-end's table of `rules` up to `limit`, on each of its paths, with
/// its name and path. The caller holds the test lock.
fn every_fast_table(rules: &Rules, limit: usize) -> Vec<(String, Table)> {
    let mut out = Vec::new();
    for e in registry::fast(octal::BACKENDS) {
        for path in paths_of(e) {
            let table = isa::with(path, || (e.make)().build(rules, limit))
                .unwrap()
                .unwrap_or_else(|err| panic!("{} on {rules}: {err}", e.name));
            out.push((format!("{} on {path}", e.name), table));
        }
    }
    out
}

fn lock() -> std::sync::MutexGuard<'static, ()> {
    isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

#[test]
fn the_stage_has_a_fast_back_end_that_follows_isa_and_a_reference_without_kernels() {
    let reference = registry::reference(octal::BACKENDS);
    assert_eq!(reference.name, "octal-sparse");
    assert!(reference.kernels.is_empty());
    let fast: Vec<_> = registry::fast(octal::BACKENDS).collect();
    assert!(fast.iter().any(|e| e.follows_isa()));
    // The judge shares no kernel family with what it judges.
    for e in &fast {
        assert!(e.kernels.iter().all(|f| !reference.kernels.contains(f)));
    }
    assert!(octal::BACKENDS.iter().any(|e| e.role == Role::Control));
}

#[test]
fn officers_and_dawsons_kayles_match_the_published_start_everywhere() {
    let _guard = lock();
    for (code, want) in [
        // Officers, OEIS A046695
        (
            "0.6",
            [0, 0, 1, 2, 0, 1, 2, 3, 1, 2, 3, 4, 0, 3, 4, 2, 1, 3, 2, 1],
        ),
        // Dawson's Kayles, OEIS A002187
        (
            "0.07",
            [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3],
        ),
    ] {
        let rules = Rules::parse(code).unwrap();
        assert_eq!(control(&rules, 19).values(), want, "octal-naive, {code}");
        for (name, table) in every_fast_table(&rules, 19) {
            assert_eq!(table.values(), want, "{name}, {code}");
        }
    }
}

#[test]
fn every_code_of_two_digits_and_grundys_game_agree_with_the_control_up_to_400() {
    let _guard = lock();
    let mut codes: Vec<String> = Vec::new();
    for d0 in [0, 4] {
        for d1 in 0..8 {
            codes.push(format!("{d0}.{d1}"));
            for d2 in 0..8 {
                codes.push(format!("{d0}.{d1}{d2}"));
            }
        }
    }
    codes.push("grundy".into());
    for code in &codes {
        let rules = Rules::parse(code).unwrap();
        // One table up to 400 holds every N <= 400: g(n) does not depend on N.
        let want = control(&rules, 400);
        for (name, table) in every_fast_table(&rules, 400) {
            assert_eq!(
                first_difference(&table, &want),
                None,
                "{name} differs from octal-naive on {code}"
            );
        }
    }
}

/// Random codes: d0 0 or 4, then one to four octal digits.
fn code_strategy() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just(0u8), Just(4u8)],
        prop::collection::vec(0u8..8, 1..=4),
    )
        .prop_map(|(d0, digits)| {
            let after: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
            format!("{d0}.{after}")
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn random_codes_agree_with_the_control(code in code_strategy(), limit in 0usize..=600) {
        let _guard = lock();
        let rules = Rules::parse(&code).unwrap();
        let want = control(&rules, limit);
        for (name, table) in every_fast_table(&rules, limit) {
            prop_assert_eq!(first_difference(&table, &want), None, "{} on {} N = {}", name, code, limit);
        }
    }
}

/// `octal-sparse` and `octal-sparse-parallel` on two threads against `octal-vector` on its
/// default path at `limit`, and `octal-block` on one and two threads against `octal-sparse`.
fn reference_and_vector_agree(code: &str, limit: usize) {
    let rules = Rules::parse(code).unwrap();
    let sparse = octal::build("octal-sparse", &rules, limit as u64).unwrap();
    let vector = octal::build("octal-vector", &rules, limit as u64).unwrap();
    assert_eq!(
        first_difference(&sparse, &vector),
        None,
        "{code} at N = {limit}"
    );
    // The two-thread split of the sparse method, against the vector kernel too (it shares
    // the reference's split code but none of the vector back-end's).
    let two_threads = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
        .install(|| octal::build("octal-sparse-parallel", &rules, limit as u64).unwrap());
    assert_eq!(
        first_difference(&two_threads, &vector),
        None,
        "octal-sparse-parallel: {code} at N = {limit}"
    );
    // The block back-end, on one thread and on two (its far pass splits each block over
    // the pool), against the reference, with which it shares no kernel.
    for threads in [1, 2] {
        let block = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| octal::build("octal-block", &rules, limit as u64).unwrap());
        assert_eq!(
            first_difference(&block, &sparse),
            None,
            "octal-block on {threads} threads: {code} at N = {limit}"
        );
    }
    // A real workload: values well past the first few.
    assert!(
        sparse.max_value() >= 8,
        "{code}: max {}",
        sparse.max_value()
    );
}

#[test]
fn officers_sparse_and_vector_agree_at_scale() {
    reference_and_vector_agree("0.6", 200_000);
}

#[test]
fn game_0_137_sparse_and_vector_agree_at_scale() {
    reference_and_vector_agree("0.137", 150_000);
}

#[test]
fn game_0_127_agrees_with_the_control_under_its_position_parity_split() {
    // Past PREFIX = 4096 values the sparse back-ends choose a mask; on .127 the second kind
    // wins (mask 1: n rare when g(n) & 1 = (n - 3) & 1), the definition's count of rare
    // positions says so independently, and every back-end builds the control's table.
    let _guard = lock();
    let limit = 16_000;
    let rules = Rules::parse("0.127").unwrap();
    let want = control(&rules, limit);
    let rare_by_definition = (1..=limit)
        .filter(|&n| (want.values()[n] as usize & 1) == (n + 1) % 2)
        .count();
    assert!(rare_by_definition * 20 < limit, "{rare_by_definition}");
    assert_eq!(
        Histogram::of(want.values()).best_mask(rules.split_parity()),
        (Mask::position(1, 1), rare_by_definition)
    );
    let mut g = vec![0u16; limit + 1];
    let stats = octal::sparse::run_with_stats(&rules, &mut g, 0).unwrap();
    assert_eq!(stats.mask, Mask::position(1, 1));
    assert_eq!(stats.rare_positions, rare_by_definition);
    assert_eq!(g, want.values());
    for (name, table) in every_fast_table(&rules, limit) {
        assert_eq!(first_difference(&table, &want), None, "{name} on .127");
    }
}

#[test]
fn game_0_127_is_periodic_with_period_4_from_46_578() {
    // Gangolli and Plambeck: period 4, last exception at 46 577, so the theorem needs the
    // values up to 2·46 578 + 4 + 3; the sparse back-ends and the block one agree with the
    // vector kernel (no mask) that far.
    reference_and_vector_agree("0.127", 100_000);
    let rules = Rules::parse("0.127").unwrap();
    let table = octal::build("octal-sparse", &rules, 100_000).unwrap();
    match period::find(&rules, table.values()) {
        Verdict::Periodic(p) => assert_eq!((p.preperiod, p.period), (46_578, 4)),
        other => panic!(".127: {other:?}"),
    }
}
