//! Amalgamation Nim with restriction: the exhaustive search against hand-computed values and
//! a slow control, the closed formula G = x1 xor x2 xor x3 xor delta(X) (eq. (4) of the paper
//! "Amalgamation Nim with restriction") against the search, a wrong formula caught with a
//! failure status, and the CLI.

mod common;

use common::{assert_refused, nimsquare, stdout_of};
use nimsquare::games::amalgamation::{
    self, check_max_heap, compare, delta, edge_count, formula_4, nim_sum, solve, MAX_HEAP,
};
use std::collections::HashMap;

/// Values worked out by hand from the rules (reduce one heap, or merge two heaps
/// each >= 2 into their sum and 0). Each line lists the followers' values.
const HAND: &[((u32, u32, u32), u32)] = &[
    // (0,0,n) = n: only reductions, to every (0,0,n') with n' < n.
    ((0, 0, 0), 0),
    ((0, 0, 5), 5),
    // (0,1,1): {(0,0,1)=1} -> 0.
    ((0, 1, 1), 0),
    // (0,1,2): {(0,0,2)=2, (0,0,1)=1, (0,1,1)=0}, no merge (1 < 2) -> 3.
    ((0, 1, 2), 3),
    // (0,2,2): {(0,1,2)=3, (0,0,2)=2, merge (0,0,4)=4} -> 0.
    ((0, 2, 2), 0),
    // (0,1,3): {(0,0,3)=3, (0,0,1)=1, (0,1,1)=0, (0,1,2)=3} -> 2.
    ((0, 1, 3), 2),
    // (0,2,3): {(0,0,3)=3, (0,1,3)=2, (0,0,2)=2, (0,1,2)=3, (0,2,2)=0, merge (0,0,5)=5} -> 1.
    ((0, 2, 3), 1),
    // (0,1,4): {(0,0,4)=4, (0,0,1)=1, (0,1,1)=0, (0,1,2)=3, (0,1,3)=2} -> 5.
    ((0, 1, 4), 5),
    // (0,2,4): {(0,0,4)=4, (0,1,4)=5, (0,0,2)=2, (0,1,2)=3, (0,2,2)=0, (0,2,3)=1,
    //           merge (0,0,6)=6} -> 7, not the nim-sum 6: the merge fills the gap.
    ((0, 2, 4), 7),
    // (1,1,1): {(0,1,1)=0} -> 1.
    ((1, 1, 1), 1),
    // (1,1,2): {(0,1,2)=3, (0,1,1)=0, (1,1,1)=1} -> 2.
    ((1, 1, 2), 2),
    // (1,2,2): {(0,2,2)=0, (1,1,2)=2, (0,1,2)=3, merge (0,1,4)=5} -> 1.
    ((1, 2, 2), 1),
    // (2,2,2): {(1,2,2)=1, (0,2,2)=0, merge (0,2,4)=7} -> 2. Needs the heap of 4 outside
    // the box B = 2.
    ((2, 2, 2), 2),
];

#[test]
fn search_matches_hand_computed_values() {
    let table = solve(2).unwrap();
    for &((a, b, c), v) in HAND {
        assert_eq!(table.value(a, b, c), Some(v), "({a},{b},{c})");
        // The game is symmetric: any order of the heaps reads the same value.
        assert_eq!(table.value(c, a, b), Some(v), "({c},{a},{b})");
    }
}

#[test]
fn single_heap_is_its_size_over_the_whole_search() {
    let table = solve(7).unwrap();
    for n in 0..=21 {
        assert_eq!(table.value(0, 0, n), Some(n));
    }
    assert_eq!(
        table.value(0, 0, 22),
        None,
        "total above 3B is not searched"
    );
}

#[test]
fn search_covers_every_total_up_to_3b() {
    // Sorted triples with total s are the partitions of s into at most 3 parts,
    // round((s + 3)^2 / 12); summed over s <= 3B.
    for b in [0u32, 1, 5, 12] {
        let expected: u64 = (0..=3 * b as u64)
            .map(|s| ((s + 3) * (s + 3) + 6) / 12)
            .sum();
        let table = solve(b).unwrap();
        assert_eq!(table.len() as u64, expected, "B = {b}");
        assert_eq!(table.positions().count() as u64, expected);
    }
}

/// The slow control: memoised recursion over ordered triples straight from the rules.
fn slow_grundy(x: [u32; 3], memo: &mut HashMap<[u32; 3], u32>) -> u32 {
    if let Some(&v) = memo.get(&x) {
        return v;
    }
    let mut followers = Vec::new();
    for i in 0..3 {
        for smaller in 0..x[i] {
            let mut y = x;
            y[i] = smaller;
            followers.push(slow_grundy(y, memo));
        }
        for j in 0..3 {
            if i != j && x[i] >= 2 && x[j] >= 2 {
                let mut y = x;
                y[i] = x[i] + x[j];
                y[j] = 0;
                followers.push(slow_grundy(y, memo));
            }
        }
    }
    let v = (0..).find(|v| !followers.contains(v)).unwrap();
    memo.insert(x, v);
    v
}

#[test]
fn search_agrees_with_slow_control_on_every_ordered_triple() {
    let b = 7;
    let table = solve(b).unwrap();
    let mut memo = HashMap::new();
    for x in 0..=b {
        for y in 0..=b {
            for z in 0..=b {
                let slow = slow_grundy([x, y, z], &mut memo);
                assert_eq!(table.value(x, y, z), Some(slow), "({x},{y},{z})");
            }
        }
    }
}

#[test]
fn formula_4_on_the_papers_cases() {
    // Eq. (2)-(3): u = (1, 2, 0) has the one edge {1, 2}: delta = 1, so G = 6 xor 1.
    assert_eq!(edge_count(2, 4, 0), 1);
    assert_eq!(formula_4(2, 4, 0), 7);
    // u = (1, 2, 4): three edges, delta = 0, G is the nim-sum.
    assert_eq!(edge_count(2, 4, 8), 3);
    assert_eq!(formula_4(2, 4, 8), 14);
    // u = (1, 2, 6): edges {1,2} and {1,3}, 2 & 6 != 0: two edges, delta = 1.
    assert_eq!(edge_count(2, 4, 12), 2);
    assert_eq!(formula_4(2, 4, 12), 11);
    // u = (1, 1, 1): no edges.
    assert_eq!(formula_4(2, 2, 2), 2);
    // Eq. (18): merging the edge {1, 2} of (2, 4, 8) (e = 3) preserves q and leaves e = 1.
    assert_eq!(edge_count(0, 6, 8), 1);
    assert_eq!(delta(0, 6, 8), delta(2, 4, 8) ^ 1);
    // Eq. (21): G and the nim-sum lie in the same even-odd pair.
    for x in 0..40 {
        for y in 0..40 {
            for z in 0..40 {
                assert_eq!(formula_4(x, y, z) / 2, nim_sum(x, y, z) / 2);
            }
        }
    }
}

#[test]
fn formula_4_matches_the_search_everywhere() {
    let table = solve(20).unwrap();
    let cmp = compare(&table, formula_4, 5);
    assert_eq!(cmp.checked, table.len() as u64);
    assert_eq!(cmp.mismatch_count, 0, "{:?}", cmp.first_mismatches);
    assert!(cmp.first_mismatches.is_empty());
}

#[test]
fn dropping_delta_is_reported_as_mismatches() {
    let table = solve(10).unwrap();
    let cmp = compare(&table, nim_sum, 3);
    assert_eq!(cmp.checked, table.len() as u64);
    // Every position with delta = 1 differs from the nim-sum, and only those.
    let with_delta = table
        .positions()
        .filter(|&((a, b, c), _)| delta(a, b, c) == 1)
        .count() as u64;
    assert!(with_delta > 0);
    assert_eq!(cmp.mismatch_count, with_delta);
    assert_eq!(cmp.first_mismatches.len(), 3);
    // The first in table order (total, then a, then b) is the hand-computed (0, 2, 4).
    let first = cmp.first_mismatches[0];
    assert_eq!(first.position, (0, 2, 4));
    assert_eq!((first.searched, first.formula), (7, 6));
}

#[test]
fn a_wrong_formula_fails_with_status_one_through_the_commands_path() {
    // The command runs amalgamation::check with formula_4 and exits 1 when it fails; the
    // same function with the nim-sum (delta dropped) must report mismatches.
    let wrong = amalgamation::check(10, nim_sum, 5).unwrap();
    assert!(!wrong.passed());
    assert!(wrong.comparison.mismatch_count > 0);
    assert_eq!(wrong.comparison.first_mismatches.len(), 5);
    let right = amalgamation::check(10, formula_4, 5).unwrap();
    assert!(right.passed());
    // And the shipped command, on the right formula, exits with that status.
    nimsquare()
        .args(["games", "amalgamation", "--max", "10"])
        .assert()
        .code(0);
}

#[test]
fn box_summary_counts_the_box() {
    let table = solve(4).unwrap();
    let s = amalgamation::summarize(&table);
    // Sorted triples with every heap <= 4: C(4 + 3, 3).
    assert_eq!(s.box_positions, 35);
    let brute_box_max = table
        .positions()
        .filter(|&((_, _, c), _)| c <= 4)
        .map(|(_, v)| v)
        .max()
        .unwrap();
    assert_eq!(s.box_max_value, brute_box_max);
    assert_eq!(
        table.value(s.max_at.0, s.max_at.1, s.max_at.2),
        Some(s.max_value)
    );
}

#[test]
fn bound_above_the_limit_is_refused() {
    assert!(check_max_heap(MAX_HEAP).is_ok());
    let err = solve(MAX_HEAP + 1).unwrap_err().to_string();
    assert!(err.contains("257") && err.contains("256"), "{err}");
}

// ---- CLI ----

#[test]
fn cli_help() {
    for args in [
        &["games", "--help"][..],
        &["games", "amalgamation", "--help"][..],
    ] {
        let out = nimsquare().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("amalgamation") || text.contains("--max"),
            "{text}"
        );
    }
}

#[test]
fn cli_text_output() {
    let text = stdout_of(["games", "amalgamation", "--max", "12"]);
    let expected_len = solve(12).unwrap().len();
    assert!(
        text.contains(&format!("checked:       {expected_len} positions")),
        "{text}"
    );
    assert!(text.contains("mismatches:    0"), "{text}");
    assert!(text.contains("the closed formula holds"), "{text}");
}

#[test]
fn cli_json_output() {
    let out = nimsquare()
        .args([
            "--threads",
            "1",
            "games",
            "amalgamation",
            "--max",
            "9",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let table = solve(9).unwrap();
    let s = amalgamation::summarize(&table);
    assert_eq!(v["max_heap"], 9);
    assert_eq!(v["max_total"], 27);
    assert_eq!(v["positions_checked"], table.len() as u64);
    assert_eq!(v["box_positions"], 220); // C(9 + 3, 3)
    assert_eq!(v["mismatches"], 0);
    assert_eq!(v["passed"], true);
    assert_eq!(v["max_value"], s.max_value);
    assert_eq!(v["box_max_value"], s.box_max_value);
    assert_eq!(v["threads"], 1);
}

#[test]
fn cli_bad_input_refused() {
    let err = assert_refused(&["games", "amalgamation", "--max", "257"]);
    assert!(err.contains("256"), "{err}");
    assert_refused(&["games", "amalgamation", "--max", "-1"]);
    assert_refused(&["games", "amalgamation", "--max", "ten"]);
    assert_refused(&["games", "amalgamation", "--max", "99999999999"]);
    assert_refused(&["games", "amalgamation"]);
    let err = assert_refused(&["games"]);
    assert!(err.contains("subcommand is required"), "{err}");
    assert_refused(&["games", "nosuchgame"]);
    assert_refused(&["--threads", "0", "games", "amalgamation", "--max", "3"]);
}
