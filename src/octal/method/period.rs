//! The period of an octal game, proved from finitely many values by the periodicity theorem
//! of Guy and Smith.
//!
//! Theorem: let t be the largest number of tokens a move removes (the number of digits after
//! the point). If g(n + p) = g(n) for every n with e <= n < 2e + p + t, and e >= 1, then
//! g(n + p) = g(n) for every n >= e.
//!
//! Why (by induction on n >= 2e + p + t; every smaller n is checked): an option of n + p
//! removes k <= t tokens and leaves either one heap n + p - k, or two non-empty heaps a <= b
//! with a + b = n + p - k. One heap: n - k >= e, so g(n + p - k) = g(n - k) (by the
//! induction, as n + p - k < n + p), and n - k is an option of n by the same digit. Two
//! heaps: b >= (n + p - k) / 2 >= e + p, so b - p >= e >= 1 is a non-empty heap with
//! g(b - p) = g(b), and (a, b - p) is a split of n - k by the same digit, of the same value.
//! Removing a whole heap of k needs n + p = k, impossible as n > t. So every option value of
//! n + p is one of n; the same maps read backwards ((a, c) to (a, c + p), n - k to
//! n + p - k) give the converse, so the two mexes agree. Nothing in this uses k >= 1: a
//! code with d0 = 4 (a heap split without removing anything, k = 0) is covered. It needs
//! e >= 1 (b - p must be a heap, not the empty one), so a period observed from e = 0 is
//! proved from 1 (the check at n = 0 then extends it to 0). It fails for Grundy's game,
//! whose splits must be unequal: (a, b) unequal may map to (a, b - p) with a = b - p, which
//! is not an option, so the theorem is not applied there ([`Verdict::NotApplicable`]).
//!
//! Algorithm, given g(0..=N): for p = 1, 2, ...: scan n down from N - p while
//! g(n + p) = g(n); the least e for p is one past the first mismatch met (0 if none). The
//! proof of p from e' = max(e, 1) needs the checked range [e', 2e' + p + t), i.e.
//! 2e' + 2p + t - 1 <= N, so the scan stops, and p fails, as soon as it passes below the
//! largest e' the range leaves room for. The first p proved is the least one (a proved
//! period is a true eventual period, and every eventual period is a multiple of the least,
//! so no smaller p can be proved at any N). p stops once even e' = 1 leaves no room.
//!
//! Cost: a wrong p costs at most the N - p - room(p) + 1 <= N/2 + 1 comparisons above its
//! room, and usually a handful (the first mismatch from the top); the p proved adds its
//! whole scan, N - p. So O(N p) comparisons at worst for the p found (or for the last p
//! tried when none is), far less in practice; no memory beyond g.
//!
//! The bad case is a table that ends a little short of a period's proof: every multiple of
//! the period then scans down to the preperiod, about N/2p scans of N - e each. A caller that
//! checks often ([`super::proved_copy`]) caps the comparisons with [`find_within`] instead;
//! a capped search that runs out says [`Verdict::Open`], never a wrong period.
//!
//! Invariant: a [`Period`] is returned only when every n of its [`Period::proof`] range has
//! been compared, g(n + p) = g(n), inside the table.

use crate::octal::Rules;
use serde::{Deserialize, Serialize};

/// A period proved by the theorem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Period {
    /// The least e with g(n + p) = g(n) for every n >= e: the number of values before the
    /// periodic part.
    pub preperiod: usize,
    /// The least period p.
    pub period: usize,
    /// The range [from, to) of n on which g(n + p) = g(n) was checked to prove it.
    pub proof: (usize, usize),
}

/// What the values up to N say about the period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// Periodic, proved within the table.
    Periodic(Period),
    /// No period proved up to N (the game may still be periodic, with a longer period or
    /// preperiod than N reaches).
    Open,
    /// The theorem does not hold for these rules (Grundy's game).
    NotApplicable,
}

/// The least period proved from `g` = g(0..=N) for `rules` (see the module doc).
pub fn find(rules: &Rules, g: &[u16]) -> Verdict {
    find_within(rules, g, usize::MAX)
}

/// [`find`] with at most about `comparisons` value comparisons: [`Verdict::Open`] when they
/// run out before a period is proved (the least period found within them is still the least
/// of all, as smaller p were all refuted).
pub fn find_within(rules: &Rules, g: &[u16], comparisons: usize) -> Verdict {
    if rules.unequal() {
        return Verdict::NotApplicable;
    }
    let t = rules.largest_removal();
    let Some(top) = g.len().checked_sub(1) else {
        return Verdict::Open;
    };
    // p is proved from e' = max(e, 1) only if 2e' + 2p + t - 1 <= N: e' <= room(p).
    let room = |p: usize| (top + 1).saturating_sub(2 * p + t) / 2;
    let mut p = 1;
    let mut left = comparisons;
    // Periods seen from the top but not provable here, (p0, e0): see `refuted_by_a_divisor`.
    let mut eventual: Vec<(usize, usize)> = Vec::new();
    while room(p) >= 1 {
        let room = room(p);
        if refuted_by_a_divisor(&eventual, p, top) {
            p += 1;
            continue;
        }
        // A mismatch at n >= room means e > room: p is not proved. Scanning from the top
        // finds one within a few steps for most wrong p.
        let agree = (room..=top - p)
            .rev()
            .take_while(|&n| g[n + p] == g[n])
            .count();
        let scanned = top - p + 1 - room;
        left = left.saturating_sub(agree + 1);
        if agree == scanned {
            let e = least_e(g, p, room - 1);
            let from = e.max(1);
            return Verdict::Periodic(Period {
                preperiod: e,
                period: p,
                proof: (from, 2 * from + p + t),
            });
        }
        if left == 0 {
            return Verdict::Open;
        }
        if agree >= LONG_RUN {
            // g(n + p) = g(n) for e0 <= n <= top - p, and not at e0 - 1
            eventual.push((p, top - p + 1 - agree));
        }
        p += 1;
    }
    Verdict::Open
}

/// A scan that agreed this far from the top is remembered, so that its multiples are not
/// scanned (shorter runs cost less than the test of every later p against them).
const LONG_RUN: usize = 64;

/// True when p is a multiple k·p0 of a period p0 of `eventual` that agreed from the top down
/// to e0 and not at e0 - 1, with e0 - 1 + p <= top: then g(n + p) = g(n) for every n >= e0
/// (a chain of k steps of p0, each inside the run) and not at e0 - 1, since
/// g(e0 - 1 + p) = g(e0 - 1 + p0) (the chain again, from e0 - 1 + p0 >= e0) differs from
/// g(e0 - 1). So p's least e is e0 too, above its room (room(p) <= room(p0) < e0), and p
/// fails: its scan, N - e0 comparisons, is skipped. Without this a table a little short of
/// a proof paid that scan for each of the N/2p0 multiples.
fn refuted_by_a_divisor(eventual: &[(usize, usize)], p: usize, top: usize) -> bool {
    eventual
        .iter()
        .any(|&(p0, e0)| p.is_multiple_of(p0) && e0 >= 1 && e0 - 1 + p <= top)
}

/// One past the last n <= `below` with g(n + p) != g(n), scanning down from `below` (0 when
/// there is none): the rest of the least-e scan once the proof is certain.
fn least_e(g: &[u16], p: usize, below: usize) -> usize {
    (0..=below)
        .rev()
        .find(|&n| g[n + p] != g[n])
        .map_or(0, |n| n + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(code: &str, g: &[u16]) -> Verdict {
        find(&Rules::parse(code).unwrap(), g)
    }

    #[test]
    fn a_sequence_periodic_from_the_start_is_proved_from_one() {
        // 0.333 (t = 3): g(n) = n mod 4; proof from e' = 1 needs 2 + 4 + 3 - 1 + 4 = 12 <= N.
        let g: Vec<u16> = (0..=12).map(|n| (n % 4) as u16).collect();
        assert_eq!(
            verdict("0.333", &g),
            Verdict::Periodic(Period {
                preperiod: 0,
                period: 4,
                proof: (1, 9)
            })
        );
        assert_eq!(verdict("0.333", &g[..12]), Verdict::Open);
    }

    #[test]
    fn the_preperiod_is_one_past_the_last_mismatch() {
        // A hand-made table for a code with t = 1: 5 exceptional values, then period 3.
        let mut g = vec![7u16, 9, 9, 8, 6];
        while g.len() < 40 {
            g.push([1, 2, 3][(g.len() - 5) % 3]);
        }
        // g(4) = 6 != g(7) = 3, so e = 5; the proof needs 2*5 + 2*3 + 1 - 1 = 16 <= N.
        let Verdict::Periodic(p) = verdict("0.1", &g) else {
            panic!()
        };
        assert_eq!((p.preperiod, p.period, p.proof), (5, 3, (5, 14)));
        assert_eq!(verdict("0.1", &g[..16]), Verdict::Open);
        assert!(matches!(verdict("0.1", &g[..17]), Verdict::Periodic(_)));
    }

    #[test]
    fn a_multiple_of_the_period_is_not_reported() {
        let g: Vec<u16> = (0..200).map(|n| [0, 1, 1, 2, 2, 0][n % 6]).collect();
        let Verdict::Periodic(p) = verdict("0.07", &g) else {
            panic!()
        };
        assert_eq!((p.preperiod, p.period), (0, 6));
    }

    #[test]
    fn a_capped_search_says_open_or_the_uncapped_answer() {
        // 30 exceptional values, then period 7: proved at N = 2*30 + 2*7 + 2 - 1 = 75.
        let mut g: Vec<u16> = (0..30).map(|n| 100 + n as u16).collect();
        while g.len() < 400 {
            g.push([0, 1, 2, 3, 0, 1, 5][(g.len() - 30) % 7]);
        }
        let rules = Rules::parse("0.07").unwrap();
        let whole = find(&rules, &g);
        assert!(matches!(whole, Verdict::Periodic(p) if p.period == 7 && p.preperiod == 30));
        for cap in [0, 1, 10, 100, 1000, 10_000] {
            let capped = find_within(&rules, &g, cap);
            assert!(
                capped == whole || capped == Verdict::Open,
                "cap {cap}: {capped:?}"
            );
        }
        // a cap of one comparison per value is enough here: the 6 wrong p stop at once
        assert_eq!(find_within(&rules, &g, g.len()), whole);
        assert_eq!(find_within(&rules, &g, 3), Verdict::Open);
    }

    /// The definition, slowly: for p = 1, 2, ..., the least e by a full scan, proved when
    /// the theorem's range [max(e, 1), 2 max(e, 1) + p + t) fits in the table.
    fn by_definition(g: &[u16], t: usize) -> Verdict {
        let top = g.len() as isize - 1;
        for p in 1..g.len() {
            let e = (0..g.len() - p)
                .rev()
                .find(|&n| g[n + p] != g[n])
                .map_or(0, |n| n + 1);
            let from = e.max(1);
            if (2 * from + p + t) as isize - 1 + p as isize <= top {
                return Verdict::Periodic(Period {
                    preperiod: e,
                    period: p,
                    proof: (from, 2 * from + p + t),
                });
            }
        }
        Verdict::Open
    }

    #[test]
    fn the_search_equals_the_definition_on_tables_short_of_and_past_a_proof() {
        // random preperiods and periods, and every length around the proof point, where the
        // multiples of the period are skipped
        crate::base::rng::for_each_case(31, 300, |case, rng| {
            let e = rng.below(300) as usize;
            let p = 1 + rng.below(20) as usize;
            let alphabet = 2 + rng.below(3);
            let cycle: Vec<u16> = (0..p).map(|_| rng.below(alphabet) as u16).collect();
            let mut g: Vec<u16> = (0..e).map(|_| rng.below(alphabet) as u16).collect();
            while g.len() < 2 * e + 3 * p + 40 {
                g.push(cycle[(g.len() - e) % p]);
            }
            let rules = Rules::parse("0.07").unwrap(); // t = 2
            let proof_point = 2 * e.max(1) + 2 * p + 1;
            for len in [
                proof_point.saturating_sub(30),
                proof_point - 1,
                proof_point,
                proof_point + 1,
                g.len(),
            ] {
                let len = len.clamp(1, g.len());
                assert_eq!(
                    find(&rules, &g[..len]),
                    by_definition(&g[..len], 2),
                    "case {case}, e {e}, p {p}, len {len}"
                );
            }
        });
    }

    #[test]
    fn grundys_game_is_not_covered_and_tiny_tables_are_open() {
        assert_eq!(verdict("grundy", &[0; 100]), Verdict::NotApplicable);
        assert_eq!(verdict("0.07", &[]), Verdict::Open);
        assert_eq!(verdict("0.07", &[0, 0, 1]), Verdict::Open);
    }

    #[test]
    fn t_is_the_last_digit() {
        assert_eq!(Rules::parse("0.07").unwrap().largest_removal(), 2);
        assert_eq!(Rules::parse("4.0").unwrap().largest_removal(), 0);
        assert_eq!(Rules::parse("0.0004").unwrap().largest_removal(), 4);
    }
}
