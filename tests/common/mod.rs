//! Shared test helpers: a seeded generator, so random cases are the same on every run.
#![allow(dead_code)]

pub use nimsquare::base::rng::SplitMix64;

/// A random subtraction set: 1 to 8 distinct moves drawn from 1..=max_move.
pub fn random_moves(rng: &mut SplitMix64, max_move: u64) -> nimsquare::base::moves::Moves {
    let count = rng.range(1, 8);
    let list = (0..count).map(|_| rng.range(1, max_move)).collect();
    nimsquare::base::moves::Moves::list(list).expect("non-empty, no zero")
}

/// Runs every registered back-end on (moves, N, K) through the one checker and panics with
/// the first disagreement, naming the back-ends and where they differ. Returns the report.
pub fn assert_agree(
    moves: &nimsquare::base::moves::Moves,
    limit: usize,
    heaps: usize,
) -> nimsquare::instruments::check::Report {
    let case = nimsquare::instruments::check::Case {
        moves: moves.clone(),
        limit,
        heaps,
    };
    let report = nimsquare::instruments::check::everything(&case).unwrap();
    assert!(!report.pairs.is_empty(), "nothing answered for {case:?}");
    report.into_result().unwrap()
}

/// A proptest strategy for subtraction sets: 1 to 8 moves from 1..=max_move (shrinks
/// towards fewer and smaller moves).
pub fn moves_strategy(
    max_move: u64,
) -> impl proptest::strategy::Strategy<Value = nimsquare::base::moves::Moves> {
    use proptest::prelude::*;
    proptest::collection::vec(1..=max_move, 1..=8)
        .prop_map(|list| nimsquare::base::moves::Moves::list(list).expect("non-empty, no zero"))
}

/// The table back-ends the per-path tests (`tests/isa.rs`) run on every vector path: every
/// registered one but the naive controls, with vector kernels or not, so a back-end that
/// follows `--isa` without saying so is checked too (`tests/contract.rs` shows a registered
/// fixture among them).
pub fn per_path_tables(
) -> Vec<&'static nimsquare::registry::Entry<dyn nimsquare::table::TableBuilder>> {
    nimsquare::registry::fast(nimsquare::table::BACKENDS).collect()
}

/// The built `nimsquare` binary, for CLI tests, with wisdom turned off
/// (`NIMSQUARE_NO_WISDOM`), so a developer's cached `tune` results never change a test.
pub fn nimsquare() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("nimsquare").unwrap();
    cmd.env(nimsquare::instruments::wisdom::OFF_VARIABLE, "1");
    cmd
}

/// [`nimsquare`] as a `std::process::Command`, for tests that spawn and signal the process;
/// wisdom is turned off the same way.
pub fn nimsquare_process() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_nimsquare"));
    cmd.env(nimsquare::instruments::wisdom::OFF_VARIABLE, "1");
    cmd
}

/// Runs the binary with `args`, asserts it succeeded and returns its stdout.
pub fn stdout_of<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let out = nimsquare().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs the binary with `args`, asserts it succeeded and parses its stdout as JSON.
pub fn json_of<I, S>(args: I) -> serde_json::Value
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    serde_json::from_str(&stdout_of(args)).unwrap()
}

/// Runs the binary with `args`, asserts it exited with status 2 (a refusal) and returns its
/// stderr. [`assert_refused`] checks the refusal's form as well.
pub fn refusal_stderr<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let out = nimsquare().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs the binary with `args` and checks it was refused: status 2, one line on stderr
/// starting `error:`, nothing on stdout, no panic. Returns stderr.
pub fn assert_refused(args: &[&str]) -> String {
    let out = nimsquare().args(args).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    stderr
}

/// Asserts that every registered count back-end that affords the table gives `expected` on
/// `table` for 3 heaps (the brute-force control only runs on small N); `what` names the case.
pub fn assert_every_count(table: &nimsquare::table::Table, expected: u128, what: &str) {
    for c in nimsquare::count::BACKENDS {
        let counter = (c.make)();
        if counter.affordable(table.limit(), 3) {
            assert_eq!(
                counter.count(table, 3).unwrap(),
                expected,
                "{} {what}",
                c.name
            );
        }
    }
}
