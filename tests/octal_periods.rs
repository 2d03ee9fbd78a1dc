//! The periods the theorem proves from the control's values, against published facts.
//!
//! Sources (by title): Berlekamp, Conway and Guy, "Winning Ways for your Mathematical
//! Plays", chapter 4 (Dawson's Kayles .07 and Kayles .77, period 34 and 12); the OEIS
//! entries "Sprague-Grundy values for octal game .1377" (A071434), ".177" (A071435) and
//! ".117" (A071453).
//!
//! Offsets. The theorem's preperiod e is the least e with g(n + p) = g(n) for every n >= e
//! (heap sizes n from 0). The OEIS lines have offset 1 and a(n) = g(n), the value of a heap
//! of n tokens (checked below against the first terms); their "last exception at n = x"
//! is the last heap n whose value breaks the period, g(x) != g(x + p), so e = x + 1 (an
//! exception is a value off the periodic pattern, and the pattern's earliest start is one
//! past the last one). "The only exceptions are n = 2, ..., 46" likewise gives e = 47.

use nimsquare::octal::method::period::{self, Period, Verdict};
use nimsquare::octal::{self, Rules};

/// The proved period of `code` from the control's values up to `limit`.
fn proved(code: &str, limit: u64) -> Verdict {
    let rules = Rules::parse(code).unwrap();
    let table = octal::build("octal-naive", &rules, limit).unwrap();
    period::find(&rules, table.values())
}

fn assert_period(code: &str, limit: u64, preperiod: usize, p: usize) {
    match proved(code, limit) {
        Verdict::Periodic(Period {
            preperiod: e,
            period,
            proof,
        }) => {
            assert_eq!((e, period), (preperiod, p), "{code}");
            let t = Rules::parse(code).unwrap().largest_removal();
            let from = e.max(1);
            assert_eq!(proof, (from, 2 * from + p + t), "{code}");
        }
        other => panic!("{code}: {other:?}"),
    }
}

#[test]
fn winning_ways_periods() {
    assert_period("0.07", 2000, 53, 34); // Dawson's Kayles
    assert_period("0.137", 2000, 52, 34); // Dawson's Chess: .07 shifted by one heap
    assert_period("0.77", 2000, 71, 12); // Kayles
    assert_period("0.4", 2000, 54, 34); // .07 shifted by one more
    assert_period("0.333", 500, 0, 4); // g(n) = n mod 4
    assert_period("0.15", 500, 1, 10);
}

#[test]
fn oeis_last_exceptions() {
    // a(n) = g(n) from n = 1: A071434 starts 1, 1, 2, 2, 3, 3; A071435 1, 1, 2, 2, 3, 1;
    // A071453 1, 1, 1, 0, 2, 2.
    for (code, start) in [
        ("0.1377", [1, 1, 2, 2, 3, 3]),
        ("0.177", [1, 1, 2, 2, 3, 1]),
        ("0.117", [1, 1, 1, 0, 2, 2]),
    ] {
        let table = octal::build("octal-naive", &Rules::parse(code).unwrap(), 6).unwrap();
        assert_eq!(table.values()[1..], start, "{code}");
    }
    assert_period("0.1377", 3000, 141, 24); // last exception at n = 140
    assert_period("0.177", 3000, 497, 20); // last exception at n = 496
    assert_period("0.117", 3000, 47, 48); // exceptions up to n = 46
}

#[test]
fn too_short_a_table_proves_nothing() {
    // Kayles' period needs 2*71 + 2*12 + 2 - 1 = 167 values past 0.
    assert_eq!(proved("0.77", 166), Verdict::Open);
    assert!(matches!(proved("0.77", 167), Verdict::Periodic(_)));
    assert_eq!(proved("grundy", 100), Verdict::NotApplicable);
}
