//! `octal-sparse`: the rare/common (sparse space) method of Gangolli and Plambeck, the
//! octal stage's reference.
//!
//! Algorithm: the rare/common split of [`super::method::rare_common`], one heap after another:
//! every option of n is marked, the common values enumerated over the rare positions, and
//! the rare candidates below the least missing common value found by one early-stopping
//! sweep. With M = 0 (no split) each candidate from 0 up is searched among the pairs.
//!
//! M is found from the data: the first min(N, [`PREFIX`]) values are built with M = 0,
//! then M is the nonzero mask over the bits of their largest value (at most
//! [`MASK_BITS`] bits) with the fewest rare positions, of the first kind or, when the
//! code's splitting digits share a parity, of the second (the position's parity counts,
//! Flammenkamp; .127 has its sparse space only so), ties to the first kind and the smaller
//! mask, counted from the histogram of (value, parity of n) by one Walsh–Hadamard
//! transform ([`super::method::rare_common::Histogram::best_mask`]). At every doubling of n the choice is made again on the
//! histogram so far and taken when it has strictly fewer rare positions (the rare list is
//! then rebuilt); a mask is taken only while at most 1/[`SPARSE_FRACTION`] of the positions
//! are rare under it. Any choice is exact; this only keeps the list short.
//!
//! Cost: per position, R(n) steps over the rare positions below n per splitting digit, plus
//! one early-stopping sweep, which runs to the end (n/2 pairs) only when the mex itself is
//! rare, which happens R(N) times in a run. So about N·R + R·N/2·digits plus
//! the early stops, against the N^2/4 of the definition; the prefix costs a full search.
//!
//! Invariant: when n is decided, g(0..n) are final and recorded in the split's state.
//!
//! Its scans are plain scalar loops and it declares no kernel family, so at sizes the
//! control cannot afford it judges `octal-vector` without sharing an inner loop with it.
//!
//! Its cost model against counted writes (`cargo bench --bench counts -- --model`): the rare
//! pair steps include the full searches of the first heaps, which compare and store nothing,
//! so the model predicts more stores than the back-end makes; on a code without a sparse
//! space it counts every split pair of the candidate search as a store, while that search
//! compares and stops early.

use super::method::rare_common::{rare_positions, Mask, RareCommon};
pub use super::method::rare_common::{MASK_BITS, PREFIX, SPARSE_FRACTION};
use super::{Builder, Rules};
use crate::base::error::Result;
use crate::cost::Model;
use crate::registry::{Entry, Role};

/// The registry entry of `octal-sparse`.
pub const ENTRY: Entry<dyn Builder<Rules>> = Entry {
    name: "octal-sparse",
    description: "reference: rare/common values split by a mask (Gangolli-Plambeck), or by a mask and the position's parity (Flammenkamp): the common values enumerated over the few rare positions, the rare candidates below the least missing common value searched among all pairs",
    cost: "O(N * R + R * N) pair steps (R = rare positions) plus early-stopping searches; a full search on the first 4096 values",
    role: Role::Reference,
    model: Model {
        summary: "per position g(n)+1 word ops for the candidate walk, per rare pair step 1 scattered store (a lower bound: the early-stopping sweeps are left out)",
        parallel: false,
        demand: super::method::rare_common::candidate_walk_and_rare_pairs,
    },
    kernels: &[],
    make: || Box::new(OctalSparse),
};

/// What a run of `octal-sparse` chose and met, for the census and the reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SparseStats {
    /// The final mask ([`Mask::NONE`]: every value rare).
    pub mask: Mask,
    /// Positions 1 <= n <= N that are rare under `mask`.
    pub rare_positions: usize,
    /// Positions 1 <= n <= N in all (what `rare_positions` is a fraction of).
    pub positions: usize,
    /// Times a mask was taken: the first choice after the prefix and each better re-choice.
    pub choices: usize,
}

/// The sparse-space method (see the module doc).
pub struct OctalSparse;

impl Builder<Rules> for OctalSparse {
    fn fill(&self, rules: &Rules, g: &mut [u16], from: usize) -> Result<()> {
        run_with_stats(rules, g, from).map(|_| ())
    }

    fn scratch_bytes(&self, _rules: &Rules, limit: usize, _threads: usize) -> u64 {
        // the rare list (at most every position), the histogram (two rows) and the stamps
        // (one entry per value, at most 2^16 each), the split list
        8 * (limit as u64 + 1) + 3 * 8 * (1 << 16) + 1024
    }
}

/// Fills g[from..] as [`Builder::fill`] does, returning the split chosen and the rare
/// positions met.
pub fn run_with_stats(rules: &Rules, g: &mut [u16], from: usize) -> Result<SparseStats> {
    run_with_prefix(rules, g, from, PREFIX, false)
}

/// [`run_with_stats`] with the mask first chosen after `prefix` values (not [`PREFIX`]),
/// and with `always_mask` taken even when it leaves more than 1/[`SPARSE_FRACTION`] of the
/// positions rare: what the tests use to run the split on small tables.
pub fn run_with_prefix(
    rules: &Rules,
    g: &mut [u16],
    from: usize,
    prefix: usize,
    always_mask: bool,
) -> Result<SparseStats> {
    let prefix = prefix.max(1);
    let mut s = RareCommon::new(rules, Mask::NONE);
    let mut choices = 0;
    // A resumed fill (each chunk of a long run) records the finished values again; the mask
    // is chosen once the prefix is in, so the rare list never holds every position of a
    // long table (under M = 0 every value is rare).
    for &v in &g[..from] {
        if s.recorded() == prefix {
            choices += s.rechoose_mask(g, always_mask) as usize;
        }
        s.record(v);
    }
    // The next position at which the mask is (re)chosen: the end of the prefix, then each
    // doubling.
    let mut next_choice = prefix.min(g.len()).max(from);
    for n in from..g.len() {
        if n == next_choice {
            choices += s.rechoose_mask(g, always_mask) as usize;
            next_choice = 2 * n.max(1);
        }
        let v = s.decide(g, n)?;
        g[n] = v;
        s.record(v);
    }
    let positions = g.len().saturating_sub(1);
    Ok(SparseStats {
        mask: s.mask(),
        rare_positions: rare_positions(g, s.mask()).len(),
        positions,
        choices,
    })
}

/// Fills g[from..] with the mask fixed at `mask` (never chosen from the data): what the tests
/// use to show that every mask gives the same table.
#[cfg(test)]
fn run_with_mask(rules: &Rules, g: &mut [u16], from: usize, mask: Mask) -> Result<()> {
    let mut s = RareCommon::new(rules, mask);
    for &v in &g[..from] {
        s.record(v);
    }
    for n in from..g.len() {
        let v = s.decide(g, n)?;
        g[n] = v;
        s.record(v);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::octal::method::rare_common::Histogram;
    use crate::octal::{code_strategy, control_values as control};

    #[test]
    fn officers_and_dawsons_kayles_match_the_published_start() {
        for (code, want) in [
            // OEIS A046695
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
            let got = OctalSparse.build(&Rules::parse(code).unwrap(), 19).unwrap();
            assert_eq!(got.values(), want, "{code}");
        }
    }

    #[test]
    fn every_fixed_mask_gives_the_controls_table() {
        // Both kinds where the code admits the second (its splitting digits share a
        // parity): all of these but 0.77, which splits at 1 and 2.
        for code in ["0.6", "0.137", "4.07", "grundy", "0.4", "0.127", "0.77"] {
            let want = control(code, 600);
            let rules = Rules::parse(code).unwrap();
            for bits in [0u16, 1, 2, 3, 5, 8, 15, 0xffff] {
                let mut masks = vec![Mask::value(bits)];
                if let Some(rho) = rules.split_parity() {
                    masks.push(Mask::position(bits, rho));
                }
                for mask in masks {
                    let mut g = vec![0u16; 601];
                    run_with_mask(&rules, &mut g, 0, mask).unwrap();
                    assert_eq!(g, want, "{code}, mask {mask}");
                }
            }
        }
    }

    #[test]
    fn the_wrong_parity_of_the_second_kind_breaks_the_method() {
        // The invariant needs ρ = the splitting digits' parity; with the other ρ a common
        // value comes from two heaps of one class, which the rare list does not enumerate,
        // so some mex comes out wrong: what makes the test above a test. (.127: ρ = 1.)
        let rules = Rules::parse("0.127").unwrap();
        let want = control("0.127", 600);
        let wrong = (1u16..16).any(|bits| {
            let mut g = vec![0u16; 601];
            let mut s = RareCommon::new(&rules, Mask::NONE);
            s.take_mask(Mask::position(bits, 0), &g);
            for n in 0..g.len() {
                g[n] = s.decide(&g, n).unwrap();
                s.record(g[n]);
            }
            g != want
        });
        assert!(wrong);
    }

    #[test]
    fn a_game_without_sparse_space_keeps_no_mask_and_the_controls_table() {
        // 0.137 (Dawson's chess): values 0..9 spread so that every mask leaves about 40% of
        // the positions rare, more than 1/SPARSE_FRACTION, so M stays 0.
        let rules = Rules::parse("0.137").unwrap();
        let want = control("0.137", 9000);
        let mut g = vec![0u16; 9001];
        let stats = run_with_stats(&rules, &mut g, 0).unwrap();
        assert_eq!(g, want);
        assert_eq!((stats.mask, stats.choices), (Mask::NONE, 0), "{stats:?}");
        let (_, best) = Histogram::of(&want).best_mask(rules.split_parity());
        assert!(
            best * SPARSE_FRACTION > 9000,
            "best mask leaves {best} rare"
        );
    }

    #[test]
    fn the_chosen_mask_past_the_prefix_gives_the_controls_table() {
        // N above PREFIX so the mask is chosen (and re-checked at the first doubling).
        let rules = Rules::parse("0.6").unwrap();
        let want = control("0.6", 9000);
        let mut g = vec![0u16; 9001];
        let stats = run_with_stats(&rules, &mut g, 0).unwrap();
        assert_eq!(g, want);
        let mask = stats.mask;
        assert!(mask.splits() && mask.position.is_none(), "{stats:?}");
        assert!(stats.choices >= 1, "{stats:?}");
        // The stats describe the table: the rare positions counted from the values.
        let counted = (1..=9000)
            .filter(|&n| (want[n] & mask.bits).count_ones().is_multiple_of(2))
            .count();
        assert_eq!(stats.rare_positions, counted);
        assert_eq!(stats.positions, 9000);
    }

    #[test]
    fn the_best_mask_has_the_fewest_rare_positions() {
        // Values 1, 2, 3 once each: masks 1, 2 and 3 leave 2, 1 and 3 rare, one position
        // each; ties go to the smaller mask.
        let best = |even: Vec<usize>| Histogram::from_counts([even, vec![]]).best_mask(None);
        assert_eq!(best(vec![0, 1, 1, 1]), (Mask::value(1), 1));
        // 0 seven times, 1 five times, 2 twelve times: mask 1 leaves 0 and 2 rare (19),
        // mask 2 leaves 0 and 1 (12), mask 3 only 0 (7).
        assert_eq!(best(vec![7, 5, 12]), (Mask::value(3), 7));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]
        #[test]
        fn random_codes_with_a_small_prefix_give_the_controls_table(
            code in code_strategy(),
            limit in 0usize..=600,
            prefix in 1usize..=64,
        ) {
            // The mask chosen (of whichever kind wins) after a few values and taken however
            // many it leaves rare, so that the split runs on small tables.
            let want = control(&code, limit);
            let mut g = vec![0u16; limit + 1];
            run_with_prefix(&Rules::parse(&code).unwrap(), &mut g, 0, prefix, true).unwrap();
            proptest::prop_assert_eq!(g, want);
        }
    }

    #[test]
    fn game_0_127_takes_the_positions_parity_past_the_prefix() {
        // .127 past the prefix: the mask of the second kind (mask 1, ρ = 1), a few hundred
        // positions rare, and the control's table.
        let rules = Rules::parse("0.127").unwrap();
        let want = control("0.127", 12_000);
        let mut g = vec![0u16; 12_001];
        let stats = run_with_stats(&rules, &mut g, 0).unwrap();
        assert_eq!(g, want);
        assert_eq!(stats.mask.position, Some(1), "{stats:?}");
        assert!(stats.rare_positions * 10 < stats.positions, "{stats:?}");
    }

    #[test]
    fn a_fill_from_the_middle_finishes_the_same_table() {
        let rules = Rules::parse("0.6").unwrap();
        let want = control("0.6", 6000);
        let mut g = want.clone();
        g[5000..].fill(0);
        run_with_stats(&rules, &mut g, 5000).unwrap();
        assert_eq!(g, want);
    }
}
