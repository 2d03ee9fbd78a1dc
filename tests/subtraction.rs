//! Subtraction games (subtraction games with a period): known periods of small sets, the period
//! detection checked against a slow search for periods, the Grundy xor checked against a
//! game-tree search from the rules alone, and `nimsquare games subtraction`.

mod common;

use common::{json_of, nimsquare, stdout_of};
use nimsquare::base::moves::Moves;
use nimsquare::games::subtraction::{
    analyse, find_period, PeriodSearch, Periodicity, DEFAULT_PERIOD_SEARCH,
};
use nimsquare::instruments::check::control::game_tree;
use nimsquare::table;

fn found(moves: &str) -> Periodicity {
    match find_period(&Moves::parse(moves).unwrap(), DEFAULT_PERIOD_SEARCH).unwrap() {
        PeriodSearch::Found(p) => p,
        other => panic!("{moves}: {other:?}"),
    }
}

#[test]
fn one_two_three_is_n_mod_four() {
    let a = analyse(&Moves::parse("1,2,3").unwrap(), 1000, DEFAULT_PERIOD_SEARCH).unwrap();
    let want: Vec<u16> = (0..64).map(|n| (n % 4) as u16).collect();
    assert_eq!(a.values, want);
    assert_eq!(a.cold, (0..=1000).step_by(4).collect::<Vec<_>>());
    let p = found("1,2,3");
    assert_eq!((p.preperiod, p.period, p.window), (0, 4, 3));
}

#[test]
fn one_three_four_has_period_seven() {
    let a = analyse(&Moves::parse("1,3,4").unwrap(), 20, DEFAULT_PERIOD_SEARCH).unwrap();
    let block = [0u16, 1, 0, 1, 2, 3, 2];
    let want: Vec<u16> = (0..=20).map(|n| block[n % 7]).collect(); // up to --limit 20
    assert_eq!(a.values, want);
    assert_eq!(a.cold, vec![0, 2, 7, 9, 14, 16]);
    assert_eq!(a.max_value, 3);
    let p = found("1,3,4");
    assert_eq!((p.preperiod, p.period, p.window), (0, 7, 4));
}

#[test]
fn a_preperiod_is_found_when_there_is_one() {
    // {2,4,7}: g = 0 0 1 1 2 2 0 3 | 1 0 2 | 1 0 2 | ... (worked out by hand from the mex
    // rule: g(7) = 3 but g(10) = 2, so the repetition starts at 8).
    let a = analyse(&Moves::parse("2,4,7").unwrap(), 20, DEFAULT_PERIOD_SEARCH).unwrap();
    assert_eq!(&a.values[..14], &[0, 0, 1, 1, 2, 2, 0, 3, 1, 0, 2, 1, 0, 2]);
    let p = found("2,4,7");
    assert_eq!((p.preperiod, p.period, p.window), (8, 3, 7));
}

/// Every subset of 1..=max with at most 3 elements.
fn all_small_sets(max: u64) -> Vec<Moves> {
    let mut out = Vec::new();
    for a in 1..=max {
        out.push(Moves::list(vec![a]).unwrap());
        for b in a + 1..=max {
            out.push(Moves::list(vec![a, b]).unwrap());
            for c in b + 1..=max {
                out.push(Moves::list(vec![a, b, c]).unwrap());
            }
        }
    }
    out
}

/// The slow search: the least period p (then the least preperiod for it) such that
/// g(n) = g(n + p) for every n in the computed range from the preperiod on. Trusted only
/// when the range is much longer than preperiod + period.
fn slow_period(values: &[u16]) -> Option<(usize, usize)> {
    let len = values.len();
    for p in 1..len / 4 {
        // The least pre with g(n) = g(n+p) for all pre <= n < len - p.
        let mut pre = len - p;
        while pre > 0 && values[pre - 1] == values[pre - 1 + p] {
            pre -= 1;
        }
        if pre + p <= len / 4 {
            return Some((pre, p));
        }
    }
    None
}

#[test]
fn window_detection_equals_slow_search_on_many_sets() {
    let mut rng = common::SplitMix64(0xD1B5_4A32_D192_ED03);
    let mut sets = all_small_sets(9);
    for _ in 0..60 {
        let len = rng.range(1, 5) as usize;
        sets.push(Moves::list((0..len).map(|_| rng.range(1, 20)).collect()).unwrap());
    }
    for moves in sets {
        let p = match find_period(&moves, DEFAULT_PERIOD_SEARCH).unwrap() {
            PeriodSearch::Found(p) => p,
            other => panic!("{}: {other:?}", moves.label()),
        };
        let length = 4 * (p.preperiod + p.period + p.window) + 400;
        let t = table::build("bitset", &moves, length as u64).unwrap();
        assert_eq!(
            slow_period(t.values()),
            Some((p.preperiod, p.period)),
            "moves {}",
            moves.label()
        );
    }
}

#[test]
fn squares_are_not_searched_for_a_period() {
    assert_eq!(
        find_period(&Moves::Squares, DEFAULT_PERIOD_SEARCH).unwrap(),
        PeriodSearch::InfiniteSet
    );
    let a = analyse(&Moves::Squares, 99, DEFAULT_PERIOD_SEARCH).unwrap();
    assert_eq!(
        a.cold,
        vec![0, 2, 5, 7, 10, 12, 15, 17, 20, 22, 34, 39, 44, 52, 57, 62, 65, 67, 72, 85, 95]
    );
    assert_eq!(&a.values[..10], &[0, 1, 0, 1, 2, 0, 1, 0, 1, 2]);
}

#[test]
fn a_search_bound_too_short_says_not_found() {
    // {1, 100}: windows of 100 values cannot repeat within 150 computed values.
    let moves = Moves::parse("1,100").unwrap();
    assert_eq!(
        find_period(&moves, 150).unwrap(),
        PeriodSearch::NotFound {
            window: 100,
            searched_up_to: 150
        }
    );
}

/// Two heaps by game-tree search from the rules alone: the three-heap search of
/// `control::game_tree` restricted to a third heap of 0, which no move touches, is exactly
/// the two-heap game. Its verdict must equal g(a) xor g(b) != 0.
fn two_heaps_agree(moves: &Moves, max: usize) {
    let tree = game_tree(moves, max);
    let g = table::build("stamped", moves, max as u64).unwrap();
    let g = g.values();
    for a in 0..=max {
        for b in 0..=max {
            assert_eq!(
                tree.is_losing(a, b, 0),
                g[a] ^ g[b] == 0,
                "moves {}, heaps ({a}, {b})",
                moves.label()
            );
        }
    }
}

#[test]
fn two_heap_game_tree_agrees_with_grundy_xor() {
    two_heaps_agree(&Moves::parse("1,3,4").unwrap(), 8);
    two_heaps_agree(&Moves::Squares, 30);
    two_heaps_agree(&Moves::parse("2,5,7").unwrap(), 30);
}

#[test]
fn cli_json_fields() {
    let v = json_of([
        "games",
        "subtraction",
        "--moves",
        "4,3,1",
        "--limit",
        "20",
        "--json",
    ]);
    assert_eq!(v["moves"], "1,3,4");
    // g(0..=20): the values up to --limit (at most the first 64).
    assert_eq!(v["values"].as_array().unwrap().len(), 21);
    assert_eq!(v["values"][5], 3);
    assert_eq!(v["cold"], serde_json::json!([0, 2, 7, 9, 14, 16]));
    assert_eq!(v["preperiod"], 0);
    assert_eq!(v["period"], 7);
    assert_eq!(v["window"], 4);

    let v = json_of(["games", "subtraction", "--moves", "1,2,3", "--json"]);
    assert_eq!(v["period"], 4);
    assert_eq!(v["cold"].as_array().unwrap().len(), 26); // 0, 4, ..., 100
}

#[test]
fn cli_squares_says_detection_is_for_finite_sets() {
    let v = json_of(["games", "subtraction", "--moves", "squares", "--json"]);
    assert!(v["preperiod"].is_null() && v["period"].is_null());
    assert_eq!(v["cold"].as_array().unwrap().len(), 21);
    let text = stdout_of([
        "games",
        "subtraction",
        "--moves",
        "squares",
        "--limit",
        "30",
    ]);
    assert!(text.contains("applies to finite sets"), "{text}");
    assert!(
        text.contains("cold positions up to 30 (10): 0 2 5 7 10 12 15 17 20 22\n"),
        "{text}"
    );
}

#[test]
fn cli_refuses_bad_input_with_one_line() {
    let subtraction = |more: &[&'static str]| [&["games", "subtraction"][..], more].concat();
    for args in [
        subtraction(&[]),
        subtraction(&["--moves", ""]),
        subtraction(&["--moves", "0"]),
        subtraction(&["--moves", "1,,3"]),
        subtraction(&["--moves", "1,3", "--limit", "-5"]),
        subtraction(&["--moves", "1,3", "--limit", "1e9"]),
        subtraction(&["--moves", "1,3", "--period-search", "1e12"]),
        subtraction(&["--moves", "1,3", "--period-search", "2e7"]),
        subtraction(&["--moves", "5000000000"]),
        subtraction(&["--moves", "squares", "--limit", "1e8"]),
        vec!["games"],
    ] {
        let out = nimsquare().args(&args).output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    }
}

#[test]
fn cli_caps_the_work_naming_the_flag_size_and_cap() {
    // The squares up to 10^8: sum of floor(sqrt n) option steps, about (2/3) 10^12.
    let steps: u128 = (1..=100_000_000u64).map(|n| n.isqrt() as u128).sum();
    let err = common::assert_refused(&[
        "games",
        "subtraction",
        "--moves",
        "squares",
        "--limit",
        "1e8",
    ]);
    assert!(
        err.contains("--limit") && err.contains(&steps.to_string()) && err.contains("cap"),
        "{err}"
    );
    // 5000 moves searched up to 10^7: about 2 * 5000 * 10^7 = 10^11 steps at worst.
    let many: Vec<String> = (1..=5000).map(|m| m.to_string()).collect();
    let err = common::assert_refused(&[
        "games",
        "subtraction",
        "--moves",
        &many.join(","),
        "--period-search",
        "1e7",
    ]);
    assert!(
        err.contains("--period-search") && err.contains("cap"),
        "{err}"
    );
    let err = common::assert_refused(&["games", "subtraction", "--moves", "1,3", "--limit", "1e9"]);
    assert!(err.contains("--limit") && err.contains("2000 MB"), "{err}");
}
