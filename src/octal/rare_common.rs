//! The rare/common split of the sparse-space method (Gangolli and Plambeck), shared by the
//! back-ends that use it (`octal-sparse` and `octal-sparse-parallel`): the mask, the rare
//! positions, the value histogram, and the mex of one heap decided in two halves.
//!
//! A mask M splits the values in two: v is *rare* when popcount(v & M) is even, *common*
//! otherwise. The rare values are a subgroup under xor (they contain 0), the common ones its
//! coset, so rare ^ rare and common ^ common are rare and rare ^ common is common. For a heap
//! of n tokens, the common values its splits attain therefore come only from (rare heap,
//! common heap) pairs: they are enumerated exactly over the ascending list of rare
//! positions, together with the non-split options ([`RareCommon::mark_options`]). Let c be
//! the least common value not attained. Every common value below c is attained, so the mex
//! is the least rare x < c that no option attains, else c: the rare values below c not yet
//! attained are found by one sweep over all the pairs, stopping as soon as none is left
//! ([`RareCommon::settle`]). With M = 0 (no split) each candidate from 0 up is searched
//! among the pairs, stopping at the first hit. The method is exact for any M; a good M only
//! keeps the rare list short.
//!
//! Known prefix: every method takes `known`, the number of final values g[..known] it may
//! read (`known` = n for a heap decided in order). A back-end that decides n before g(n - 1)
//! is final passes `known` = n - 1, then [`RareCommon::mark_late`] the options that read
//! g(n - 1) once it is, and settles again: the marks only grow, and [`Search`] remembers
//! what the first settle proved, so the second one does not repeat it.
//!
//! Invariant: the rare list holds exactly the positions 1 <= r < recorded whose value is
//! rare under the current mask, and the histogram counts the values of those same
//! positions; `stamp[v] == n + 1` exactly when an option of value v of the heap n being
//! decided has been marked.

use super::{value_overflow, Rules};
use crate::base::error::Result;
use crate::cost::{Demand, Primitive, Workload};

/// A mask is taken only when at most 1/`SPARSE_FRACTION` of the positions so far are rare
/// under it; otherwise the values have no sparse space (a periodic game with small values,
/// 0.137: 41% rare at best) and the candidate search of M = 0 is faster than enumerating
/// that many rare positions for every n.
pub const SPARSE_FRACTION: usize = 4;

/// The mask is chosen over at most this many low bits of the values (4096 masks).
pub const MASK_BITS: u32 = 12;

/// The values both sparse back-ends build with M = 0 before the mask is first chosen: too
/// few values before it to tell which class is rare.
pub const PREFIX: usize = 1 << 12;

/// The cost model both sparse back-ends state: per position g(n) + 1 word ops for the
/// candidate walk, and one stamp store (a scattered store, its index read from the table)
/// per rare pair step ([`Workload::rare_steps`]: the enumeration of the common values over
/// the rare positions, or without a split the full search for the mex). A lower bound: the
/// early-stopping sweeps for the rare values are left out.
pub fn candidate_walk_and_rare_pairs(w: &Workload) -> Demand {
    Demand::default()
        .with(Primitive::OrScan, w.positions() * (w.mean_value + 1.0))
        .with(Primitive::Scatter, w.rare_steps)
}

/// True when `v` is rare under `mask`.
#[inline]
pub fn rare(v: u32, mask: u16) -> bool {
    (v & mask as u32).count_ones().is_multiple_of(2)
}

/// The positions 1 <= r < g.len() whose value is rare under `mask`.
pub fn rare_positions(g: &[u16], mask: u16) -> Vec<usize> {
    (1..g.len()).filter(|&r| rare(g[r] as u32, mask)).collect()
}

/// The number of positions rare under `mask`, read from the histogram of values.
pub fn rare_count(histogram: &[usize], mask: u16) -> usize {
    histogram
        .iter()
        .enumerate()
        .filter(|&(v, _)| rare(v as u32, mask))
        .map(|(_, &c)| c)
        .sum()
}

/// The nonzero mask over the bits of the largest value (at most [`MASK_BITS`]) with the
/// fewest rare positions, ties to the smaller mask, and its count.
pub fn best_mask(histogram: &[usize]) -> (u16, usize) {
    let top = histogram.len().saturating_sub(1).max(1);
    let bits = (usize::BITS - top.leading_zeros()).min(MASK_BITS);
    (1..1u32 << bits)
        .map(|m| (m as u16, rare_count(histogram, m as u16)))
        .min_by_key(|&(m, count)| (count, m))
        .expect("at least the mask 1")
}

/// The rare/common split of a finished table, as published octal runs report it: the mask
/// with the fewest rare positions (as [`best_mask`] chooses it on g(1..=N)), taken only
/// when at most 1/[`SPARSE_FRACTION`] of the positions are rare under it, the rare positions
/// counting position 0 (value 0 is rare under every mask), and the last one with its
/// value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitSummary {
    /// The mask, or None when no mask leaves the positions sparse.
    pub mask: Option<u16>,
    /// Rare positions 0 <= n <= N under `mask` (0 when there is none).
    pub rare: usize,
    /// The last rare position and its value.
    pub last_rare: Option<(usize, u16)>,
}

impl SplitSummary {
    /// The summary of g(0..=N).
    pub fn of(g: &[u16]) -> SplitSummary {
        let top = g.iter().copied().max().unwrap_or(0) as usize;
        let mut histogram = vec![0usize; top + 1];
        for &v in g.iter().skip(1) {
            histogram[v as usize] += 1;
        }
        let (mask, count) = best_mask(&histogram);
        if g.len() < 2 || count * SPARSE_FRACTION > g.len() - 1 {
            return SplitSummary {
                mask: None,
                rare: 0,
                last_rare: None,
            };
        }
        let last = (0..g.len()).rev().find(|&n| rare(g[n] as u32, mask));
        SplitSummary {
            mask: Some(mask),
            rare: count + 1,
            last_rare: last.map(|n| (n, g[n])),
        }
    }
}

/// What a settle of heap n has proved, carried to the next settle of the same n.
#[derive(Debug, Clone, Copy, Default)]
pub struct Search {
    /// With a mask: every rare value below this bound that is not marked is attained by no
    /// pair (a sweep ran to the end); 0 before any full sweep.
    exhausted_below: u32,
    /// With M = 0: every candidate below this one is attained.
    next_candidate: u32,
    /// With M = 0: `next_candidate` was searched among the pairs of the earlier settle and
    /// not found, so only the options marked since can still attain it.
    candidate_searched: bool,
}

/// The state of one run of the method: the mask, the rare positions, the histogram and the
/// scratch of one heap (see the module doc).
pub struct RareCommon<'a> {
    rules: &'a Rules,
    mask: u16,
    rare: Vec<usize>,
    histogram: Vec<usize>,
    recorded: usize,
    stamp: Vec<usize>,
    splits: Vec<(usize, usize)>,
}

impl<'a> RareCommon<'a> {
    /// The state before any position is recorded, with mask `mask`.
    pub fn new(rules: &'a Rules, mask: u16) -> RareCommon<'a> {
        RareCommon {
            rules,
            mask,
            rare: Vec::new(),
            histogram: Vec::new(),
            recorded: 0,
            stamp: Vec::new(),
            splits: Vec::new(),
        }
    }

    /// The current mask.
    pub fn mask(&self) -> u16 {
        self.mask
    }

    /// The histogram of the values of the recorded positions 1..recorded.
    pub fn histogram(&self) -> &[usize] {
        &self.histogram
    }

    /// How many positions (from 0) are recorded.
    pub fn recorded(&self) -> usize {
        self.recorded
    }

    /// Takes `mask` and rebuilds the rare list from the recorded values g[..recorded].
    pub fn take_mask(&mut self, mask: u16, g: &[u16]) {
        self.mask = mask;
        self.rare = rare_positions(&g[..self.recorded], mask);
    }

    /// Chooses the mask again from the histogram of the recorded positions: the best one
    /// ([`best_mask`]) is taken when at most 1/[`SPARSE_FRACTION`] of them are rare under it
    /// and it leaves fewer rare than the current mask (which may be 0). `g` holds at least
    /// the recorded values. Returns true when a mask was taken.
    pub fn rechoose_mask(&mut self, g: &[u16]) -> bool {
        let (best, count) = best_mask(&self.histogram);
        let sparse = count * SPARSE_FRACTION <= self.recorded;
        if sparse && (self.mask == 0 || count < rare_count(&self.histogram, self.mask)) {
            self.take_mask(best, g);
            true
        } else {
            false
        }
    }

    /// Records the final value `v` of the next position (`recorded`).
    pub fn record(&mut self, v: u16) {
        let n = self.recorded;
        self.recorded += 1;
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

    /// Marks the options of heap n that read only g[..known]: the non-split options and,
    /// under a mask, every common value of a split (rare heap, common heap). Needs the
    /// positions below `known` recorded, `known <= n` and `g.len() >= known`.
    pub fn mark_options(&mut self, g: &[u16], n: usize, known: usize) {
        debug_assert!(known <= n && self.recorded >= known);
        let rules = self.rules;
        if rules.whole().contains(&n) {
            self.mark(0, n);
        }
        for &k in rules.one() {
            if n > k && n - k < known {
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
        // A rare r pairs with a common m - r: always a legal split, its heaps differ in
        // class so they are unequal. The partner must be known: m - r < known.
        let mask = self.mask;
        if mask != 0 {
            for i in 0..self.splits.len() {
                let m = self.splits[i].0;
                let lowest = m.saturating_sub(known);
                for j in 0..self.rare.len() {
                    let r = self.rare[j];
                    if r >= m {
                        break;
                    }
                    if r <= lowest {
                        continue;
                    }
                    let partner = g[m - r];
                    if !rare(partner as u32, mask) {
                        self.mark(g[r] ^ partner, n);
                    }
                }
            }
        }
    }

    /// Marks the options of heap n that read a value in g[known_before..n]: what
    /// [`RareCommon::mark_options`] with `known_before` left out. Needs g[..n] final.
    pub fn mark_late(&mut self, g: &[u16], n: usize, known_before: usize) {
        for &k in self.rules.one() {
            if n > k && n - k >= known_before {
                self.mark(g[n - k], n);
            }
        }
        for i in 0..self.splits.len() {
            let (m, p) = self.splits[i];
            // the pairs (a, m - a) with m - a >= known_before
            for a in 1..=p.min(m.saturating_sub(known_before)) {
                self.mark(g[a] ^ g[m - a], n);
            }
        }
    }

    /// The mex of heap n over the options marked and the split pairs reading only
    /// g[..known], continuing `search` (a fresh one for a first settle). With every option
    /// marked that reads g[known..n] (none when `known` = n) it is g(n).
    pub fn settle(
        &mut self,
        g: &[u16],
        n: usize,
        known: usize,
        search: &mut Search,
    ) -> Result<u16> {
        let mask = self.mask;
        if mask == 0 {
            let mut x = search.next_candidate;
            if search.candidate_searched && !self.seen(x, n) {
                return u16::try_from(x).map_err(|_| value_overflow(self.rules, n));
            }
            while self.seen(x, n) || self.some_pair_xors_to(g, known, x) {
                x += 1;
            }
            search.next_candidate = x;
            search.candidate_searched = true;
            return u16::try_from(x).map_err(|_| value_overflow(self.rules, n));
        }
        // c: the least common value not attained.
        let c = (0u32..)
            .find(|&v| !rare(v, mask) && !self.seen(v, n))
            .expect("a value is missing");
        // The rare values below c not attained yet (above what an earlier sweep proved
        // missing): one sweep over all the pairs marks those it meets and stops once none is
        // left (usually after a few hundred pairs); the mex is then the least value below c
        // still unmarked, else c.
        let floor = search.exhausted_below;
        let mut need = (floor..c)
            .filter(|&x| rare(x, mask) && !self.seen(x, n))
            .count();
        if need > 0 {
            'sweep: for i in 0..self.splits.len() {
                let (m, p) = self.splits[i];
                let first = (m + 1).saturating_sub(known).max(1);
                for a in first..=p {
                    let v = (g[a] ^ g[m - a]) as u32;
                    if v < c && v >= floor && rare(v, mask) && !self.seen(v, n) {
                        self.mark(v as u16, n);
                        need -= 1;
                        if need == 0 {
                            break 'sweep;
                        }
                    }
                }
            }
            if need > 0 {
                search.exhausted_below = c;
            }
        }
        let x = (0..c).find(|&x| !self.seen(x, n)).unwrap_or(c);
        u16::try_from(x).map_err(|_| value_overflow(self.rules, n))
    }

    /// True when some split pair of n reading only g[..known] has value `x` (a plain scan,
    /// stopping at the first hit).
    fn some_pair_xors_to(&self, g: &[u16], known: usize, x: u32) -> bool {
        self.splits.iter().any(|&(m, p)| {
            let first = (m + 1).saturating_sub(known).max(1);
            (first..=p).any(|a| (g[a] ^ g[m - a]) as u32 == x)
        })
    }

    /// g(n) from the options alone, given g[..n] final and recorded: both halves at once.
    pub fn decide(&mut self, g: &[u16], n: usize) -> Result<u16> {
        self.mark_options(g, n, n);
        self.settle(g, n, n, &mut Search::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn officers_split_matches_the_published_rare_list() {
        // Officers to 2^21: 1 584 rare positions counting 0 under the mask 0x1ee, the last
        // at 20 627 with value 277 (the published rare list; two public solvers agree).
        let g = crate::octal::build("octal-block", &Rules::parse("0.6").unwrap(), 1 << 21).unwrap();
        let s = SplitSummary::of(g.values());
        assert_eq!(s.mask, Some(0x1ee));
        assert_eq!(s.rare, 1584);
        assert_eq!(s.last_rare, Some((20_627, 277)));
        // Dawson's chess has no sparse split.
        let g = crate::octal::build("octal-block", &Rules::parse("0.137").unwrap(), 5000).unwrap();
        assert_eq!(SplitSummary::of(g.values()).mask, None);
    }
}
