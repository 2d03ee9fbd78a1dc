//! Bounded Moore's Nim with m = 1 (a move takes one counter from each of 1..K heaps): the
//! published census facts, the fast census against the slow rules-only control, the caps on
//! the work, and the CLI.

mod common;

use common::{assert_refused, json_of, nimsquare, stdout_of};
use nimsquare::games::moore::{census, slow_losing, solve, Census, MooreParams};
use std::collections::HashMap;

fn census_of(h: usize, m: u32, k: usize) -> Census {
    census(&solve(MooreParams::new(h, m, k).unwrap()))
}

fn binomial(n: u64, k: u64) -> u64 {
    (1..=k).fold(1, |acc, i| acc * (n + 1 - i) / i)
}

#[test]
fn five_heaps_up_to_nine_width_two() {
    let c = census_of(5, 9, 2);
    assert_eq!(c.positions, 2002);
    assert_eq!(c.losing, 364);
    let class = |odd: usize| c.classes.iter().find(|x| x.odd == odd).unwrap();
    assert_eq!((class(3).losing, class(3).positions), (182, 525));
    assert_eq!((class(4).losing, class(4).positions), (56, 350));
    let settled: Vec<_> = c.classes.iter().filter(|x| x.settled).collect();
    assert_eq!(settled.len(), 4);
    assert_eq!(settled.iter().map(|x| x.positions).sum::<u64>(), 1127);
    // The class sizes: 0..=9 holds 5 odd and 5 even values, so c odd heaps out of 5 can be
    // chosen in C(5 + c - 1, c) * C(5 + (5 - c) - 1, 5 - c) ways (126, 350, 525, ...).
    let sizes: Vec<u64> = c.classes.iter().map(|x| x.positions).collect();
    assert_eq!(sizes, vec![126, 350, 525, 525, 350, 126]);
}

#[test]
fn five_heaps_up_to_nine_width_three() {
    let c = census_of(5, 9, 3);
    let settled: Vec<_> = c.classes.iter().filter(|x| x.settled).collect();
    assert_eq!(c.classes.len(), 6);
    assert_eq!(settled.len(), 5);
    assert_eq!(settled.iter().map(|x| x.positions).sum::<u64>(), 1652);
}

#[test]
fn width_one_lost_exactly_when_odd_count_even() {
    for (h, m) in [(5, 9), (3, 7), (6, 4)] {
        let s = solve(MooreParams::new(h, m, 1).unwrap());
        for (x, lost) in s.positions() {
            let odd = x.iter().filter(|&&v| v % 2 == 1).count();
            assert_eq!(lost, odd % 2 == 0, "{x:?}");
        }
    }
}

#[test]
fn width_four_of_five_lost_exactly_when_parities_agree() {
    let s = solve(MooreParams::new(5, 9, 4).unwrap());
    for (x, lost) in s.positions() {
        let agree = x.iter().all(|&v| v % 2 == x[0] % 2);
        assert_eq!(lost, agree, "{x:?}");
    }
}

#[test]
fn all_even_positions_lost_at_every_width() {
    for (h, m) in [(5, 9), (4, 8), (7, 5)] {
        for k in 1..=h {
            let s = solve(MooreParams::new(h, m, k).unwrap());
            let mut all_even = 0;
            for (x, lost) in s.positions() {
                if x.iter().all(|&v| v % 2 == 0) {
                    assert!(lost, "H={h} M={m} K={k} {x:?}");
                    all_even += 1;
                }
            }
            // Multisets of H values from the even numbers 0..=M.
            let evens = (m / 2 + 1) as u64;
            assert_eq!(all_even, binomial(evens + h as u64 - 1, h as u64));
        }
    }
}

#[test]
fn same_parities_different_outcomes() {
    let s = solve(MooreParams::new(5, 9, 2).unwrap());
    assert_eq!(s.is_losing(&[0, 0, 1, 1, 1]), Some(true));
    assert_eq!(s.is_losing(&[0, 1, 1, 1, 2]), Some(false));
    assert_eq!(s.is_losing(&[0, 1, 1, 1, 10]), None);
}

#[test]
fn position_count_is_the_multiset_count() {
    for (h, m) in [(1, 0), (1, 15), (3, 4), (8, 15)] {
        let s = solve(MooreParams::new(h, m, 1).unwrap());
        assert_eq!(
            s.len() as u64,
            binomial(m as u64 + h as u64, h as u64),
            "H={h} M={m}"
        );
    }
}

#[test]
fn fast_census_agrees_with_slow_control() {
    for (h, m) in [(1, 6), (2, 6), (3, 5), (4, 4), (5, 3), (6, 3), (7, 2)] {
        for k in 1..=h {
            let s = solve(MooreParams::new(h, m, k).unwrap());
            let mut memo = HashMap::new();
            let mut checked = 0;
            for (x, lost) in s.positions() {
                // The control sees the heaps in another order (ascending).
                let mut ordered = x.to_vec();
                ordered.reverse();
                assert_eq!(
                    slow_losing(&ordered, k, &mut memo),
                    lost,
                    "H={h} M={m} K={k} {x:?}"
                );
                checked += 1;
            }
            assert_eq!(checked as u64, binomial(m as u64 + h as u64, h as u64));
        }
    }
}

#[test]
fn sorted_parity_census_is_consistent() {
    // At H = 5, M = 9 the sorted-parity word is known to decide every width and the lost
    // words form a subspace; the census computes both from the positions.
    for k in 1..=5 {
        let c = census_of(5, 9, k);
        assert!(c.sorted_parity_decides, "K={k}: mixed {:?}", c.mixed_words);
        assert!(c.subspace, "K={k}: {:?}", c.losing_words);
        assert!(c.losing_words.contains(&0));
    }
    // K = 1 on five heaps: the lost words are the 16 of even weight.
    let c = census_of(5, 9, 1);
    assert_eq!(c.losing_words.len(), 16);
    assert!(c.losing_words.iter().all(|w| w.count_ones() % 2 == 0));
}

#[test]
fn small_box_words_are_a_subspace_only_among_occurring_words() {
    // K = 1, M = 3: lost iff the odd count is even, so the word decides; but 01010 (heaps
    // even >= odd >= even >= odd >= even) needs a heap of 4 and does not occur, while
    // 01100 (2,1,1,0,0) and 00110 (2,2,1,1,0) do and are lost: not closed under xor.
    let c = census_of(5, 3, 1);
    assert!(c.sorted_parity_decides);
    assert!(c.losing_words.contains(&0b01100) && c.losing_words.contains(&0b00110));
    assert!(!c.losing_words.contains(&0b01010));
    assert!(!c.subspace);
    assert!(c.subspace_within_occurring);
    assert!(c.words_occurring < 32);
}

#[test]
fn sorted_parity_does_not_decide_six_heaps_width_two() {
    // Beyond five heaps: at H = 6, M = 3, K = 2 some sorted-parity word holds a
    // won and a lost position. Both outcomes are confirmed by the slow control.
    let (h, m, k) = (6, 3, 2);
    let c = census_of(h, m, k);
    assert!(!c.sorted_parity_decides);
    assert!(!c.mixed_words.is_empty());
    let s = solve(MooreParams::new(h, m, k).unwrap());
    let word = c.mixed_words[0];
    let parity_word = |x: &[u32]| x.iter().fold(0u32, |w, &v| (w << 1) | (v & 1));
    let with_word: Vec<_> = s
        .positions()
        .filter(|(x, _)| parity_word(x) == word)
        .collect();
    let lost = with_word.iter().find(|(_, l)| *l).unwrap().0;
    let won = with_word.iter().find(|(_, l)| !*l).unwrap().0;
    let mut memo = HashMap::new();
    assert!(slow_losing(lost, k, &mut memo), "{lost:?}");
    assert!(!slow_losing(won, k, &mut memo), "{won:?}");
    // One such pair, also found by an independent search: all six heaps odd.
    assert_eq!(s.is_losing(&[1, 1, 1, 1, 1, 1]), Some(true));
    assert_eq!(s.is_losing(&[3, 1, 1, 1, 1, 1]), Some(false));
}

#[test]
fn limits_are_refused() {
    for (h, m, k, needle) in [
        (0, 3, 1, "--heaps"),
        (17, 1, 1, "--heaps 17"),
        (
            16,
            20,
            1,
            "--max 20 with --heaps 16 has more than 10000000 positions",
        ),
        (1, 4_000_000_000, 1, "--max 4000000000 with --heaps 1"),
        (3, 3, 0, "--width"),
        (3, 3, 4, "--width 4"),
    ] {
        let err = MooreParams::new(h, m, k).unwrap_err().to_string();
        assert!(err.contains(needle), "{err}");
    }
    assert!(MooreParams::new(8, 15, 8).is_ok());
    // The caps follow the work C(M + H, H), not H or M alone.
    assert!(MooreParams::new(16, 2, 16).is_ok());
    assert!(MooreParams::new(1, 9_999_999, 1).is_ok());
}

// ---- CLI ----

#[test]
fn cli_help() {
    let text = stdout_of(["games", "moore", "--help"]);
    assert!(
        text.contains("--heaps") && text.contains("--width"),
        "{text}"
    );
}

#[test]
fn cli_text_output() {
    let text = stdout_of([
        "games", "moore", "--heaps", "5", "--max", "9", "--width", "2",
    ]);
    assert!(text.contains("positions: 2002"), "{text}");
    assert!(text.contains("losing:    364"), "{text}");
    assert!(
        text.contains("settled:   4 of 6 classes, 1127 positions"),
        "{text}"
    );
}

#[test]
fn cli_json_output() {
    let v = json_of([
        "games", "moore", "--heaps", "5", "--max", "9", "--width", "3", "--json",
    ]);
    let c = census_of(5, 9, 3);
    assert_eq!(v["positions"], 2002);
    assert_eq!(v["losing"], c.losing);
    let classes = v["classes"].as_array().unwrap();
    assert_eq!(classes.len(), 6);
    let settled: u64 = classes
        .iter()
        .filter(|x| x["settled"] == true)
        .map(|x| x["positions"].as_u64().unwrap())
        .sum();
    assert_eq!(settled, 1652);
    for (x, ours) in classes.iter().zip(&c.classes) {
        assert_eq!(x["odd"], ours.odd);
        assert_eq!(x["losing"], ours.losing);
    }
    assert_eq!(v["sorted_parity_decides"], c.sorted_parity_decides);
    assert_eq!(v["subspace"], c.subspace);
    let words: Vec<&str> = v["losing_words"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(words.len(), c.losing_words.len());
    assert!(words.contains(&"00000"));
    assert!(words.iter().all(|w| w.len() == 5));
}

#[test]
fn cli_bad_input_refused() {
    let base = ["games", "moore"];
    for extra in [
        &["--heaps", "0", "--max", "3", "--width", "1"][..],
        &["--heaps", "17", "--max", "3", "--width", "1"][..],
        &["--heaps", "16", "--max", "20", "--width", "1"][..],
        &["--heaps", "3", "--max", "3", "--width", "0"][..],
        &["--heaps", "3", "--max", "3", "--width", "4"][..],
        &["--heaps", "-3", "--max", "3", "--width", "1"][..],
        &["--heaps", "x", "--max", "3", "--width", "1"][..],
        &["--heaps", "3", "--max", "3"][..],
    ] {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        assert_refused(&args);
    }
}

/// Checks every position of (H, M, K) against the slow control; returns the positions.
fn agrees_with_control(h: usize, m: u32, k: usize) -> u64 {
    let s = solve(MooreParams::new(h, m, k).unwrap());
    let mut memo = HashMap::new();
    let mut checked = 0;
    for (x, lost) in s.positions() {
        assert_eq!(
            slow_losing(x, k, &mut memo),
            lost,
            "H={h} M={m} K={k} {x:?}"
        );
        checked += 1;
    }
    checked
}

#[test]
fn caps_follow_the_work_not_the_parameters() {
    // Both were refused before (M capped at 15, H at 8) though each is a small census.
    assert_eq!(agrees_with_control(3, 20, 2), 1771); // C(23, 3)
    assert_eq!(agrees_with_control(9, 2, 3), 55); // C(11, 9)
    for (args, positions) in [
        (["--heaps", "3", "--max", "20", "--width", "2"], 1771),
        (["--heaps", "9", "--max", "2", "--width", "3"], 55),
    ] {
        let out = nimsquare()
            .args(["games", "moore", "--json"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["positions"], positions, "{args:?}");
    }
}

#[test]
fn sixteen_heaps_census_runs() {
    // 16 heaps of at most 1: C(17, 16) = 17 positions, lost exactly when the number of
    // non-empty heaps is 0 mod (K + 1) (a move takes 1..K counters from the heaps of 1).
    let s = solve(MooreParams::new(16, 1, 3).unwrap());
    assert_eq!(s.len(), 17);
    for (x, lost) in s.positions() {
        let ones = x.iter().filter(|&&v| v == 1).count();
        assert_eq!(lost, ones % 4 == 0, "{x:?}");
    }
    let c = census(&s);
    assert_eq!(c.positions, 17);
    assert_eq!(c.losing, 5); // 0, 4, 8, 12, 16 ones
}
