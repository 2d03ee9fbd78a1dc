//! `octal-sparse`: the rare/common (sparse space) method of Gangolli and Plambeck, the
//! octal stage's reference.
//!
//! Algorithm: a mask M splits the values in two: v is *rare* when popcount(v & M) is even,
//! *common* otherwise. The rare values are a subgroup under xor (they contain 0), the
//! common ones its coset, so rare ^ rare and common ^ common are rare and rare ^ common is
//! common. For a heap of n tokens, the common values its splits attain therefore come only
//! from (rare heap, common heap) pairs: they are enumerated exactly, over the ascending list
//! of rare positions (few, for a well chosen M), together with the non-split options. Let c
//! be the least common value not attained. Every common value below c is attained, so the
//! mex is the least rare x < c that no option attains, else c. The rare values below c not
//! yet attained are found by one sweep over all the pairs in order, marking each such value
//! it meets and stopping as soon as none is left (a coupon collector over the rare values
//! below c: a few hundred pairs, unless the mex is itself rare, when the sweep runs to the
//! end). The method is exact for any M. With M = 0 (no split) each candidate from 0 up is searched
//! among the pairs, stopping at the first hit: the definition's search, fast when values
//! are small.
//!
//! M is found from the data: the first min(N, [`PREFIX`]) values are built with M = 0,
//! then M is the nonzero mask over the bits of their largest value (at most
//! [`MASK_BITS`] bits) with the fewest rare positions, ties to the smaller mask, counted
//! from the histogram of values. At every doubling of n the choice is made again on the
//! histogram so far and taken when it has strictly fewer rare positions (the rare list is
//! then rebuilt); a mask is taken only while at most 1/[`SPARSE_FRACTION`] of the positions
//! are rare under it. Any choice is exact; this only keeps the list short.
//!
//! Cost: per position, R(n) steps over the rare positions below n per splitting digit, plus
//! one early-stopping sweep, which runs to the end (n/2 pairs) only when the mex itself is
//! rare, which happens R(N) times in a run. So about N·R + R·N/2·digits plus
//! the early stops, against the N^2/4 of the definition; the prefix costs a full search.
//!
//! Invariant: when n is decided, g(0..n) are final, the rare list holds exactly the
//! positions 1 <= r < n whose value is rare under the current M, and the histogram counts
//! the values of those same positions 1..n.
//!
//! Its scans are plain scalar loops and it declares no kernel family, so at sizes the
//! control cannot afford it judges `octal-vector` without sharing an inner loop with it.

use super::{value_overflow, OctalBuilder, Rules};
use crate::base::error::Result;
use crate::cost::{Demand, Model, Primitive, Workload};
use crate::registry::{Entry, Role};

/// The registry entry of `octal-sparse`.
pub const ENTRY: Entry<dyn OctalBuilder> = Entry {
    name: "octal-sparse",
    description: "reference: rare/common values split by a mask (Gangolli-Plambeck): the common values enumerated over the few rare positions, the rare candidates below the least missing common value searched among all pairs",
    cost: "O(N * R + R * N) pair steps (R = rare positions) plus early-stopping searches; a full search on the first 4096 values",
    role: Role::Reference,
    model: Model {
        summary: "per position g(n)+1 word ops for the candidate walk (a lower bound: the rare-position enumeration and the searches are left out)",
        parallel: false,
        demand: a_candidate_walk_per_position,
    },
    kernels: &[],
    make: || Box::new(OctalSparse),
};

fn a_candidate_walk_per_position(w: &Workload) -> Demand {
    Demand::default().with(Primitive::OrScan, w.positions() * (w.mean_value + 1.0))
}

/// The values built with M = 0 before the mask is first chosen.
pub const PREFIX: usize = 1 << 12;

/// The mask is chosen over at most this many low bits of the values (4096 masks).
pub const MASK_BITS: u32 = 12;

/// A mask is taken only when at most 1/`SPARSE_FRACTION` of the positions so far are rare
/// under it; otherwise the values have no sparse space (a periodic game with small values,
/// 0.137: 41% rare at best) and the candidate search of M = 0 is faster than enumerating
/// that many rare positions for every n.
pub const SPARSE_FRACTION: usize = 4;

/// What a run of `octal-sparse` chose and met, for the census and the reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SparseStats {
    /// The final mask M: v is rare when popcount(v & M) is even (0: every value rare).
    pub mask: u16,
    /// Positions 1 <= n <= N whose value is rare under `mask`.
    pub rare_positions: usize,
    /// Positions 1 <= n <= N in all (what `rare_positions` is a fraction of).
    pub positions: usize,
    /// Times a mask was taken: the first choice after the prefix and each better re-choice.
    pub choices: usize,
}

/// The sparse-space method (see the module doc).
pub struct OctalSparse;

impl OctalBuilder for OctalSparse {
    fn fill(&self, rules: &Rules, g: &mut [u16], from: usize) -> Result<()> {
        run_with_stats(rules, g, from).map(|_| ())
    }

    fn scratch_bytes(&self, _rules: &Rules, limit: usize, _threads: usize) -> u64 {
        // the rare list (at most every position), the histogram and the stamps (one entry
        // per value, at most 2^16 each), the split list
        8 * (limit as u64 + 1) + 2 * 8 * (1 << 16) + 1024
    }
}

/// True when `v` is rare under `mask`.
#[inline]
fn rare(v: u32, mask: u16) -> bool {
    (v & mask as u32).count_ones().is_multiple_of(2)
}

/// The positions 1 <= r < g.len() whose value is rare under `mask`.
fn rare_positions(g: &[u16], mask: u16) -> Vec<usize> {
    (1..g.len()).filter(|&r| rare(g[r] as u32, mask)).collect()
}

/// The number of positions rare under `mask`, read from the histogram of values.
fn rare_count(histogram: &[usize], mask: u16) -> usize {
    histogram
        .iter()
        .enumerate()
        .filter(|&(v, _)| rare(v as u32, mask))
        .map(|(_, &c)| c)
        .sum()
}

/// The nonzero mask over the bits of the largest value (at most [`MASK_BITS`]) with the
/// fewest rare positions, ties to the smaller mask, and its count.
fn best_mask(histogram: &[usize]) -> (u16, usize) {
    let top = histogram.len().saturating_sub(1).max(1);
    let bits = (usize::BITS - top.leading_zeros()).min(MASK_BITS);
    (1..1u32 << bits)
        .map(|m| (m as u16, rare_count(histogram, m as u16)))
        .min_by_key(|&(m, count)| (count, m))
        .expect("at least the mask 1")
}

/// The state of one run: the mask, the rare positions below n, the value histogram of the
/// positions 1..n, and the scratch of one position.
struct Sparse<'a> {
    rules: &'a Rules,
    mask: u16,
    rare: Vec<usize>,
    histogram: Vec<usize>,
    /// `stamp[v] == n + 1` when n has an option of value v found so far.
    stamp: Vec<usize>,
    splits: Vec<(usize, usize)>,
}

impl Sparse<'_> {
    fn mark(&mut self, v: u16, n: usize) {
        let v = v as usize;
        if v >= self.stamp.len() {
            self.stamp.resize(v + 1, 0);
        }
        self.stamp[v] = n + 1;
    }

    fn seen(&self, v: u32, n: usize) -> bool {
        self.stamp.get(v as usize) == Some(&(n + 1))
    }

    /// Takes `mask` and rebuilds the rare list for the values g[..n].
    fn take_mask(&mut self, mask: u16, g: &[u16]) {
        self.mask = mask;
        self.rare = rare_positions(g, mask);
    }

    /// Decides g(n), given g(0..n) final.
    fn decide(&mut self, g: &[u16], n: usize) -> Result<u16> {
        let rules = self.rules;
        if rules.whole().contains(&n) {
            self.mark(0, n);
        }
        for &k in rules.one() {
            if n > k {
                self.mark(g[n - k], n);
            }
        }
        self.splits.clear();
        for &k in rules.split() {
            if n >= k + 2 {
                let m = n - k;
                self.splits.push((m, rules.split_pairs(m)));
            }
        }
        // The common values of the splits: (rare r, common m - r), r < m. Such a pair is
        // always a legal split: its heaps differ in class, so they are unequal.
        let mask = self.mask;
        if mask != 0 {
            for i in 0..self.splits.len() {
                let m = self.splits[i].0;
                for j in 0..self.rare.len() {
                    let r = self.rare[j];
                    if r >= m {
                        break;
                    }
                    let partner = g[m - r];
                    if !rare(partner as u32, mask) {
                        self.mark(g[r] ^ partner, n);
                    }
                }
            }
        }
        // With no split (M = 0) there is no sparse space: each candidate from 0 up is
        // searched among the pairs, stopping at the first hit, and the first one missing is
        // the mex.
        if mask == 0 {
            let mut x = 0u32;
            while self.seen(x, n) || self.some_pair_xors_to(g, x) {
                x += 1;
            }
            return u16::try_from(x).map_err(|_| value_overflow(rules, n));
        }
        // c: the least common value not attained.
        let c = (0u32..)
            .find(|&v| !rare(v, mask) && !self.seen(v, n))
            .expect("a value is missing");
        // The rare values below c not attained yet: one sweep over all the pairs marks the
        // rare values below c it meets and stops once none is left (it usually stops after a
        // few hundred pairs); the mex is then the least value below c still unmarked, else c.
        let mut need = (0..c)
            .filter(|&x| rare(x, mask) && !self.seen(x, n))
            .count();
        if need > 0 {
            'sweep: for i in 0..self.splits.len() {
                let (m, p) = self.splits[i];
                for a in 1..=p {
                    let v = (g[a] ^ g[m - a]) as u32;
                    if v < c && rare(v, mask) && !self.seen(v, n) {
                        self.mark(v as u16, n);
                        need -= 1;
                        if need == 0 {
                            break 'sweep;
                        }
                    }
                }
            }
        }
        let x = (0..c).find(|&x| !self.seen(x, n)).unwrap_or(c);
        u16::try_from(x).map_err(|_| value_overflow(rules, n))
    }

    /// True when some split of n has value `x` (a plain scan, stopping at the first hit).
    fn some_pair_xors_to(&self, g: &[u16], x: u32) -> bool {
        self.splits
            .iter()
            .any(|&(m, p)| (1..=p).any(|a| (g[a] ^ g[m - a]) as u32 == x))
    }

    /// Records g(n) = v in the rare list and the histogram.
    fn record(&mut self, n: usize, v: u16) {
        if n == 0 {
            return;
        }
        if rare(v as u32, self.mask) {
            self.rare.push(n);
        }
        let v = v as usize;
        if v >= self.histogram.len() {
            self.histogram.resize(v + 1, 0);
        }
        self.histogram[v] += 1;
    }
}

/// Fills g[from..] as [`OctalBuilder::fill`] does, returning the split chosen and the rare
/// positions met.
pub fn run_with_stats(rules: &Rules, g: &mut [u16], from: usize) -> Result<SparseStats> {
    let mut s = Sparse {
        rules,
        mask: 0,
        rare: Vec::new(),
        histogram: Vec::new(),
        stamp: Vec::new(),
        splits: Vec::new(),
    };
    for (n, &v) in g[..from].iter().enumerate() {
        s.record(n, v);
    }
    let mut choices = 0;
    // The next position at which the mask is (re)chosen: the end of the prefix, then each
    // doubling.
    let mut next_choice = PREFIX.min(g.len()).max(from);
    for n in from..g.len() {
        if n == next_choice {
            let (best, count) = best_mask(&s.histogram);
            let sparse = count * SPARSE_FRACTION <= n;
            if sparse && (s.mask == 0 || count < rare_count(&s.histogram, s.mask)) {
                s.take_mask(best, &g[..n]);
                choices += 1;
            }
            next_choice = 2 * n.max(1);
        }
        let v = s.decide(g, n)?;
        g[n] = v;
        s.record(n, v);
    }
    let positions = g.len().saturating_sub(1);
    Ok(SparseStats {
        mask: s.mask,
        rare_positions: rare_positions(g, s.mask).len(),
        positions,
        choices,
    })
}

/// Fills g[from..] with the mask fixed at `mask` (never chosen from the data): what the tests
/// use to show that every mask gives the same table.
#[cfg(test)]
fn run_with_mask(rules: &Rules, g: &mut [u16], from: usize, mask: u16) -> Result<()> {
    let mut s = Sparse {
        rules,
        mask,
        rare: Vec::new(),
        histogram: Vec::new(),
        stamp: Vec::new(),
        splits: Vec::new(),
    };
    for (n, &v) in g[..from].iter().enumerate() {
        s.record(n, v);
    }
    for n in from..g.len() {
        let v = s.decide(g, n)?;
        g[n] = v;
        s.record(n, v);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(code: &str, limit: usize) -> Vec<u16> {
        crate::octal::build("octal-naive", &Rules::parse(code).unwrap(), limit as u64)
            .unwrap()
            .values()
            .to_vec()
    }

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
        for code in ["0.6", "0.137", "4.07", "grundy", "0.4"] {
            let want = control(code, 600);
            let rules = Rules::parse(code).unwrap();
            for mask in [0u16, 1, 2, 3, 5, 8, 15, 0xffff] {
                let mut g = vec![0u16; 601];
                run_with_mask(&rules, &mut g, 0, mask).unwrap();
                assert_eq!(g, want, "{code}, mask {mask}");
            }
        }
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
        assert_eq!((stats.mask, stats.choices), (0, 0), "{stats:?}");
        let (_, best) = best_mask(&{
            let mut h = vec![0usize; 16];
            want[1..].iter().for_each(|&v| h[v as usize] += 1);
            h
        });
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
        assert!(stats.mask != 0 && stats.choices >= 1, "{stats:?}");
        // The stats describe the table: the rare positions counted from the values.
        let counted = (1..=9000)
            .filter(|&n| (want[n] & stats.mask).count_ones().is_multiple_of(2))
            .count();
        assert_eq!(stats.rare_positions, counted);
        assert_eq!(stats.positions, 9000);
    }

    #[test]
    fn the_best_mask_has_the_fewest_rare_positions() {
        // Values 1, 2, 3 once each: masks 1, 2 and 3 leave 2, 1 and 3 rare, one position
        // each; ties go to the smaller mask.
        assert_eq!(best_mask(&[0, 1, 1, 1]), (1, 1));
        // 0 seven times, 1 five times, 2 twelve times: mask 1 leaves 0 and 2 rare (19),
        // mask 2 leaves 0 and 1 (12), mask 3 only 0 (7).
        assert_eq!(best_mask(&[7, 5, 12]), (3, 7));
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
