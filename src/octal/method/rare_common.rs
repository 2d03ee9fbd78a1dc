//! The rare/common split of the sparse-space method (Gangolli and Plambeck; Flammenkamp),
//! shared by the back-ends that use it (`octal-sparse`, `octal-sparse-parallel`, and the
//! mask choice of `octal-block`): the mask, the rare positions, the value histogram, and
//! the mex of one heap decided in two halves.
//!
//! A [`Mask`] M (a set of value bits) splits the positions in two, *rare* and *common*.
//! Write P(v) for the parity of popcount(v & M). Of the *first kind* (Gangolli and
//! Plambeck), position n is rare when P(g(n)) = 0. Of the *second kind* (Flammenkamp), for
//! a code whose splitting digits all have the parity ρ of one index t (one digit above 3,
//! at t: ρ = t mod 2), n is rare
//! when P(g(n)) = parity(n - t), that is P(g(n)) ⊕ (n mod 2) = ρ. Both read as
//! σ(n) = P(g(n)) ⊕ s·(n mod 2) = ρ, with s = 0, ρ = 0 for the first kind and s = 1 for the
//! second; a candidate value x of heap n is *rare for n* when P(x) ⊕ s·(n mod 2) = ρ,
//! *common for n* otherwise.
//!
//! The argument: a split of heap n leaves heaps a and b with a + b = n - k, k a splitting
//! digit, and P is additive under xor, so the option's value x = g(a) ^ g(b) has
//! P(x) ⊕ s·n = σ(a) ⊕ σ(b) ⊕ s·k (mod 2). Since s·k ≡ ρ (the first kind: both 0; the
//! second: every splitting k ≡ t), x is rare for n exactly when σ(a) ⊕ σ(b) = 0, when the
//! two heaps are in the same class. **Invariant of the method: a split's value is common
//! for n if and only if exactly one of its two heaps is rare** (a rare ⊕ common pair); a
//! rare value for n comes from two rare heaps or two common ones. (A digit of the other
//! parity would swap the roles, common values from same-class pairs, so the second kind is
//! offered only when [`Rules::split_parity`] exists; of the first kind, ρ = 1 would swap
//! them too, so value 0 is always rare.) For the second kind the classes of values
//! alternate with n: the values rare for n are those of P = 0 when n ≡ ρ and those of
//! P = 1 otherwise (0 is then common).
//!
//! For heap n, the common values its splits attain are therefore enumerated exactly over
//! the ascending list of rare positions (each r with a common partner), together with the
//! non-split options ([`RareCommon::mark_options`]). Let c be the least value common for n
//! not attained. Every common value below c is attained, so the mex is the least value rare
//! for n below c that no option attains, else c: the rare values below c not yet attained
//! are found by one sweep over all the pairs, stopping as soon as none is left
//! ([`RareCommon::settle`]). Without a mask (M = 0) each candidate from 0 up is searched
//! among the pairs, stopping at the first hit. The method is exact for any M of either kind
//! that the code admits; a good M only keeps the rare list short.
//!
//! The mask is chosen from the data ([`Histogram::best_mask`]): the histogram of
//! (value, parity of n) over the positions so far, folded to the low [`MASK_BITS`] bits of
//! the value, is a function on 2^(b+1) points; its Walsh–Hadamard transform F gives every
//! mask of both kinds its rare count at once, (T + F(M))/2 for the first kind and
//! (T ± F(M + 2^b))/2 for the second (T the positions, + when ρ = 0), in O(b·2^b).
//!
//! Known prefix: every method takes `known`, the number of final values g[..known] it may
//! read (`known` = n for a heap decided in order). A back-end that decides n before g(n - 1)
//! is final passes `known` = n - 1, then [`RareCommon::mark_late`] the options that read
//! g(n - 1) once it is, and settles again: the marks only grow, and [`Search`] remembers
//! what the first settle proved, so the second one does not repeat it.
//!
//! Invariant of the state: the rare list holds exactly the positions 1 <= r < recorded
//! that are rare under the current mask, and the histogram counts the values and parities
//! of those positions 1 <= r < recorded; `stamp[v] == n + 1` exactly when an option of value v
//! of the heap n being decided has been marked.

use crate::base::error::Result;
use crate::cost::{Demand, Primitive, Workload};
use crate::octal::Rules;

/// A mask is taken only when at most 1/`SPARSE_FRACTION` of the positions so far are rare
/// under it; otherwise the values have no sparse space (a periodic game with small values,
/// 0.137: 41% rare at best) and the candidate search of M = 0 is faster than enumerating
/// that many rare positions for every n.
pub const SPARSE_FRACTION: usize = 4;

/// The mask is chosen over at most this many low bits of the values (4096 masks a kind).
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

/// A rare/common split of the positions: the value bits M and the kind (see the module
/// doc). `bits == 0` is no split (every value rare).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Mask {
    /// M, the value bits whose parity splits.
    pub bits: u16,
    /// The kind: None for the first (v rare when popcount(v & M) is even); Some(ρ) for the
    /// second (v at position n rare when the parity of popcount(v & M) is that of n + ρ,
    /// ρ = t mod 2).
    pub position: Option<u8>,
}

impl Mask {
    /// No split: every value rare, the candidate search.
    pub const NONE: Mask = Mask {
        bits: 0,
        position: None,
    };

    /// The first kind with value bits `bits`.
    pub const fn value(bits: u16) -> Mask {
        Mask {
            bits,
            position: None,
        }
    }

    /// The second kind with value bits `bits` and ρ = `rho` (0 or 1).
    pub const fn position(bits: u16, rho: u8) -> Mask {
        Mask {
            bits,
            position: Some(rho & 1),
        }
    }

    /// True when the mask splits (M nonzero).
    #[inline]
    pub fn splits(self) -> bool {
        self.bits != 0
    }

    /// True when value `v` at position `n` is rare (equally: when `v` is rare for heap n,
    /// as a candidate for g(n)).
    #[inline(always)]
    pub fn rare(self, v: u32, n: usize) -> bool {
        self.at(n).rare(v)
    }

    /// [`Mask::rare`] with the kind fixed at compile time (`BY_POSITION`: whether
    /// [`Mask::position`] is set, which the caller has matched on): a loop over positions of
    /// many parities compiles once per kind, the first kind's test a 16-bit parity alone.
    #[inline(always)]
    pub fn rare_of_kind<const BY_POSITION: bool>(self, v: u16, n: usize) -> bool {
        let even = (v & self.bits).count_ones().is_multiple_of(2);
        if BY_POSITION {
            let rho = self.position.unwrap_or(0) as usize;
            even == (n ^ rho).is_multiple_of(2)
        } else {
            even
        }
    }

    /// The rare test of the values at one position `n`, with n's part of it folded in once:
    /// what a loop over many values for one heap uses, so that its inner test is the first
    /// kind's (a parity and a compare) whatever the kind.
    #[inline(always)]
    pub fn at(self, n: usize) -> RareAt {
        let parity = match self.position {
            None => 0,
            Some(rho) => (n as u32 ^ rho as u32) & 1,
        };
        RareAt {
            bits: self.bits as u32,
            parity,
        }
    }
}

/// [`Mask::rare`] at one position: v is rare when the parity of popcount(v & bits) is
/// `parity`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RareAt {
    bits: u32,
    parity: u32,
}

impl RareAt {
    /// True when value `v` is rare at this position.
    #[inline(always)]
    pub fn rare(self, v: u32) -> bool {
        (v & self.bits).count_ones() & 1 == self.parity
    }
}

impl std::fmt::Display for Mask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.position {
            None => write!(f, "{:#x}", self.bits),
            Some(_) => write!(f, "{:#x} with the position's parity", self.bits),
        }
    }
}

/// The positions 1 <= r < g.len() that are rare under `mask`.
pub fn rare_positions(g: &[u16], mask: Mask) -> Vec<usize> {
    (1..g.len())
        .filter(|&r| mask.rare(g[r] as u32, r))
        .collect()
}

/// The positions n >= 1 counted by value and by the parity of n: what the mask is chosen
/// from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Histogram {
    /// `by_parity[p][v]`: the positions n with n mod 2 = p and g(n) = v.
    by_parity: [Vec<usize>; 2],
}

impl Histogram {
    /// The empty histogram.
    pub fn new() -> Histogram {
        Histogram::default()
    }

    /// The histogram of g(1..g.len()).
    pub fn of(g: &[u16]) -> Histogram {
        let mut h = Histogram::new();
        for (n, &v) in g.iter().enumerate().skip(1) {
            h.add(n, v);
        }
        h
    }

    /// The histogram with `counts[p][v]` positions of parity p and value v.
    pub fn from_counts(counts: [Vec<usize>; 2]) -> Histogram {
        Histogram { by_parity: counts }
    }

    /// `counts()[p][v]`: the positions counted with parity p and value v (what
    /// [`Histogram::from_counts`] takes back).
    pub fn counts(&self) -> &[Vec<usize>; 2] {
        &self.by_parity
    }

    /// Counts position `n` with value `v`.
    #[inline]
    pub fn add(&mut self, n: usize, v: u16) {
        let row = &mut self.by_parity[n & 1];
        let v = v as usize;
        if v >= row.len() {
            row.resize(v + 1, 0);
        }
        row[v] += 1;
    }

    /// One more than the largest value counted (0 when empty).
    pub fn values(&self) -> usize {
        let [even, odd] = &self.by_parity;
        let top = |row: &Vec<usize>| row.iter().rposition(|&c| c > 0).map_or(0, |v| v + 1);
        top(even).max(top(odd))
    }

    /// The positions counted with value `v`, of either parity.
    pub fn count(&self, v: usize) -> usize {
        self.by_parity
            .iter()
            .map(|row| row.get(v).copied().unwrap_or(0))
            .sum()
    }

    /// The positions counted.
    pub fn total(&self) -> usize {
        self.by_parity.iter().flatten().sum()
    }

    /// [`Histogram::total`], or None when it would overflow a `usize` (counts read back from a
    /// file, which may claim anything).
    pub fn checked_total(&self) -> Option<usize> {
        self.by_parity
            .iter()
            .flatten()
            .try_fold(0usize, |sum, &c| sum.checked_add(c))
    }

    /// The positions counted that are rare under `mask`.
    pub fn rare_count(&self, mask: Mask) -> usize {
        (0..2)
            .map(|p| {
                self.by_parity[p]
                    .iter()
                    .enumerate()
                    .filter(|&(v, _)| mask.rare(v as u32, p))
                    .map(|(_, &c)| c)
                    .sum::<usize>()
            })
            .sum()
    }

    /// The value bits the masks range over: those of the largest value, at least 1 and at
    /// most [`MASK_BITS`].
    fn mask_bits(&self) -> u32 {
        let top = self.values().saturating_sub(1).max(1);
        (usize::BITS - top.leading_zeros()).min(MASK_BITS)
    }

    /// The rare count of every nonzero mask over the value bits of the largest value (at
    /// least 1, at most [`MASK_BITS`]),
    /// of the first kind and, when `split_parity` is Some(ρ) (the code admits it,
    /// [`Rules::split_parity`]), of the second kind with that ρ: one Walsh–Hadamard
    /// transform of the (value, parity) histogram (see the module doc), O(b·2^b) for b bits.
    pub fn rare_counts(&self, split_parity: Option<u8>) -> Vec<(Mask, usize)> {
        let bits = self.mask_bits();
        let low = (1usize << bits) - 1;
        let size = 2usize << bits;
        // f(x) for x = (v mod 2^b) + 2^b·p: the masks only see the low b bits of v.
        let mut f = vec![0i64; size];
        for (p, row) in self.by_parity.iter().enumerate() {
            for (v, &c) in row.iter().enumerate() {
                f[(v & low) | p << bits] += c as i64;
            }
        }
        // F(u) = sum over x of f(x)·(-1)^popcount(x & u), by butterflies.
        let mut h = 1;
        while h < size {
            for block in f.chunks_exact_mut(2 * h) {
                let (lo, hi) = block.split_at_mut(h);
                for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
                    (*x, *y) = (*x + *y, *x - *y);
                }
            }
            h *= 2;
        }
        // F(u) = (positions with even parity under u) - (odd ones), and the total is F(0).
        let total = f[0];
        let even = |u: usize| ((total + f[u]) / 2) as usize;
        let odd = |u: usize| ((total - f[u]) / 2) as usize;
        let mut out = Vec::with_capacity(2 * low);
        for m in 1..=low {
            out.push((Mask::value(m as u16), even(m)));
        }
        if let Some(rho) = split_parity {
            // σ = P(v) ⊕ p is the parity under u = m + 2^b; rare when σ = ρ
            for m in 1..=low {
                let u = m | 1 << bits;
                let count = if rho & 1 == 0 { even(u) } else { odd(u) };
                out.push((Mask::position(m as u16, rho), count));
            }
        }
        out
    }

    /// The mask with the fewest rare positions among [`Histogram::rare_counts`], ties to the
    /// first kind, then to the smaller bits, and its count.
    pub fn best_mask(&self, split_parity: Option<u8>) -> (Mask, usize) {
        self.rare_counts(split_parity)
            .into_iter()
            .min_by_key(|&(m, count)| (count, m.position.is_some(), m.bits))
            .expect("at least the mask 1")
    }
}

/// The rare/common split of a finished table, as published octal runs report it: the mask
/// with the fewest rare positions (as [`Histogram::best_mask`] chooses it on g(1..=N) for
/// the kinds `rules` admits), taken only when at most 1/[`SPARSE_FRACTION`] of the
/// positions are rare under it, the rare positions counting position 0 (value 0 at
/// position 0 is rare under every mask of the first kind, and of the second when t is
/// even), and the last one with its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitSummary {
    /// The mask, or None when no mask leaves the positions sparse.
    pub mask: Option<Mask>,
    /// Rare positions 0 <= n <= N under `mask` (0 when there is none).
    pub rare: usize,
    /// The last rare position and its value.
    pub last_rare: Option<(usize, u16)>,
}

impl SplitSummary {
    /// The summary of g(0..=N), the table of `rules`.
    pub fn of(rules: &Rules, g: &[u16]) -> SplitSummary {
        let (mask, count) = Histogram::of(g).best_mask(rules.split_parity());
        if g.len() < 2 || count * SPARSE_FRACTION > g.len() - 1 {
            return SplitSummary {
                mask: None,
                rare: 0,
                last_rare: None,
            };
        }
        let last = (0..g.len()).rev().find(|&n| mask.rare(g[n] as u32, n));
        SplitSummary {
            mask: Some(mask),
            rare: count + mask.rare(0, 0) as usize,
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
    mask: Mask,
    rare: Vec<usize>,
    histogram: Histogram,
    recorded: usize,
    stamp: Vec<usize>,
    /// Scratch of [`RareCommon::settle`]: the rare values below c its sweep still wants.
    wanted: Vec<bool>,
    splits: Vec<(usize, usize)>,
}

impl<'a> RareCommon<'a> {
    /// The state before any position is recorded, with mask `mask` (of a kind `rules`
    /// admits: the second kind needs [`Rules::split_parity`] to be its ρ).
    pub fn new(rules: &'a Rules, mask: Mask) -> RareCommon<'a> {
        debug_assert!(mask.position.is_none() || mask.position == rules.split_parity());
        RareCommon {
            rules,
            mask,
            rare: Vec::new(),
            histogram: Histogram::new(),
            recorded: 0,
            stamp: Vec::new(),
            wanted: Vec::new(),
            splits: Vec::new(),
        }
    }

    /// The current mask.
    pub fn mask(&self) -> Mask {
        self.mask
    }

    /// The histogram of the recorded positions 1..recorded.
    pub fn histogram(&self) -> &Histogram {
        &self.histogram
    }

    /// How many positions (from 0) are recorded.
    pub fn recorded(&self) -> usize {
        self.recorded
    }

    /// Takes `mask` and rebuilds the rare list from the recorded values g[..recorded].
    pub fn take_mask(&mut self, mask: Mask, g: &[u16]) {
        self.mask = mask;
        self.rare = rare_positions(&g[..self.recorded], mask);
    }

    /// Chooses the mask again from the histogram of the recorded positions: the best one
    /// of the kinds the rules admit ([`Histogram::best_mask`]) is taken when at most
    /// 1/[`SPARSE_FRACTION`] of them are rare under it (or always, with `always`: the
    /// tests, so that small tables run the split) and it leaves fewer rare than the current
    /// mask (which may be none). `g` holds at least the recorded values. Returns true when a
    /// mask was taken.
    pub fn rechoose_mask(&mut self, g: &[u16], always: bool) -> bool {
        let (best, count) = self.histogram.best_mask(self.rules.split_parity());
        let sparse = always || count * SPARSE_FRACTION <= self.recorded;
        if sparse && (!self.mask.splits() || count < self.histogram.rare_count(self.mask)) {
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
        if self.mask.rare(v as u32, n) {
            self.rare.push(n);
        }
        self.histogram.add(n, v);
    }

    fn mark(&mut self, v: u16, n: usize) {
        stamp_value(&mut self.stamp, v, n);
    }

    fn seen(&self, v: u32, n: usize) -> bool {
        stamp_holds(&self.stamp, v, n)
    }

    /// Marks the options of heap n that read only g[..known]: the non-split options and,
    /// under a mask, every common value of a split (rare heap, common heap). Needs the
    /// positions below `known` recorded, `known <= n` and `g.len() >= known`. The options
    /// are [`Rules::each_option`]'s, split by what they read (here and in
    /// [`RareCommon::mark_late`]); the tests hold the tables against the control's.
    pub fn mark_options(&mut self, g: &[u16], n: usize, known: usize) {
        debug_assert!(known <= n && self.recorded >= known);
        let rules = self.rules;
        if rules.removes_whole(n) {
            self.mark(0, n);
        }
        for h in rules.one_heap_left(n) {
            if h < known {
                self.mark(g[h], n);
            }
        }
        self.splits.clear();
        self.splits.extend(rules.splits_of(n));
        // The partner's rarity is tested at the partner's own position, so the mask's kind
        // cannot be folded in once per heap (as `settle` does with `Mask::at`); a loop
        // compiled per kind keeps the first kind's test a parity and a branch.
        let (mask, rare, splits) = (self.mask, &self.rare[..], &self.splits[..]);
        match mask.position {
            _ if !mask.splits() => {}
            None => {
                mark_rare_common_pairs::<false>(mask, rare, splits, &mut self.stamp, g, n, known)
            }
            Some(_) => {
                mark_rare_common_pairs::<true>(mask, rare, splits, &mut self.stamp, g, n, known)
            }
        }
    }

    /// Marks the options of heap n that read a value in g[known_before..n]: what
    /// [`RareCommon::mark_options`] with `known_before` left out. Needs g[..n] final.
    pub fn mark_late(&mut self, g: &[u16], n: usize, known_before: usize) {
        for h in self.rules.one_heap_left(n) {
            if h >= known_before {
                self.mark(g[h], n);
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
        if !mask.splits() {
            let mut x = search.next_candidate;
            if search.candidate_searched && !self.seen(x, n) {
                return u16::try_from(x).map_err(|_| self.rules.value_overflow(n));
            }
            while self.seen(x, n) || self.some_pair_xors_to(g, known, x) {
                x += 1;
            }
            search.next_candidate = x;
            search.candidate_searched = true;
            return u16::try_from(x).map_err(|_| self.rules.value_overflow(n));
        }
        let rare_here = mask.at(n);
        // c: the least value common for n not attained.
        let c = (0u32..)
            .find(|&v| !rare_here.rare(v) && !self.seen(v, n))
            .expect("a value is missing");
        // The rare values below c not attained yet (above what an earlier sweep proved
        // missing): one sweep over all the pairs marks those it meets and stops once none is
        // left (usually after a few hundred pairs); the mex is then the least value below c
        // still unmarked, else c.
        let floor = search.exhausted_below;
        let stamp = &self.stamp;
        self.wanted.clear();
        self.wanted
            .extend((0..c).map(|x| x >= floor && rare_here.rare(x) && !stamp_holds(stamp, x, n)));
        let need = self.wanted.iter().filter(|&&w| w).count();
        if need > 0 {
            let left = sweep_for_wanted(
                &self.splits,
                g,
                known,
                &mut self.wanted,
                &mut self.stamp,
                n,
                need,
            );
            if left > 0 {
                search.exhausted_below = c;
            }
        }
        let x = (0..c).find(|&x| !self.seen(x, n)).unwrap_or(c);
        u16::try_from(x).map_err(|_| self.rules.value_overflow(n))
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

/// Marks, in `stamp` with heap n's stamp, the split options (r, m - r) of heap n with r in
/// `rare` and m - r common and known (m - r < `known`), for each split (m, _) in `splits`: a
/// rare r pairs with a common m - r (the common values for n, by the invariant), always a
/// legal split, its heaps differ in class so they are unequal. `rare` is ascending, so the
/// r in (m - known, m) are one run of it, found by two binary searches. `BY_POSITION` is
/// `mask`'s kind (whether [`Mask::position`] is set), fixed at compile time. The state comes
/// in as separate borrows so the loop keeps the lists in registers across its stores.
#[inline(always)]
fn mark_rare_common_pairs<const BY_POSITION: bool>(
    mask: Mask,
    rare: &[usize],
    splits: &[(usize, usize)],
    stamp: &mut Vec<usize>,
    g: &[u16],
    n: usize,
    known: usize,
) {
    debug_assert_eq!(BY_POSITION, mask.position.is_some());
    for &(m, _) in splits {
        let lowest = m.saturating_sub(known);
        let to = rare.partition_point(|&r| r < m);
        let from = rare[..to].partition_point(|&r| r <= lowest);
        for &r in &rare[from..to] {
            let partner = g[m - r];
            if !mask.rare_of_kind::<BY_POSITION>(partner, m - r) {
                stamp_value(stamp, g[r] ^ partner, n);
            }
        }
    }
}

/// The sweep of [`RareCommon::settle`]: over the split pairs (a, m - a) of heap n that read
/// only g[..known], in `splits` order, marks in `stamp` each value v with `wanted[v]` set and
/// clears it there, stopping once `need` (the number set) values are met. Returns how many
/// were not met. The wanted values come as one table (rather than tested for range, rarity
/// and stamp per pair) so the inner test is one load; the state comes as separate borrows so
/// the loop keeps it in registers across its stores.
#[inline(always)]
fn sweep_for_wanted(
    splits: &[(usize, usize)],
    g: &[u16],
    known: usize,
    wanted: &mut [bool],
    stamp: &mut Vec<usize>,
    n: usize,
    mut need: usize,
) -> usize {
    for &(m, p) in splits {
        let first = (m + 1).saturating_sub(known).max(1);
        for a in first..=p {
            let v = g[a] ^ g[m - a];
            if wanted.get(v as usize) == Some(&true) {
                wanted[v as usize] = false;
                stamp_value(stamp, v, n);
                need -= 1;
                if need == 0 {
                    return 0;
                }
            }
        }
    }
    need
}

/// True when `stamp` holds value `v` as an option of heap n.
#[inline(always)]
fn stamp_holds(stamp: &[usize], v: u32, n: usize) -> bool {
    stamp.get(v as usize) == Some(&(n + 1))
}

/// Stamps value `v` as an option of heap n (`stamp[v] = n + 1`), growing `stamp` to hold it.
#[inline(always)]
fn stamp_value(stamp: &mut Vec<usize>, v: u16, n: usize) {
    let v = v as usize;
    if v >= stamp.len() {
        stamp.resize(v + 1, 0);
    }
    stamp[v] = n + 1;
}

/// The pair steps the rare/common method takes on the table `g` of `rules`, besides its
/// early-stopping sweeps. The heaps below [`PREFIX`], and every heap when the
/// final histogram has no sparse split ([`Histogram::best_mask`] of the kinds
/// the code admits, and the sparse rule), run
/// under no mask: per splitting digit k, the full scan of the n - k split pairs that proves
/// the mex missing. The heaps from the prefix on run under the mask the final histogram
/// chooses (the mask a run ends with when it keeps one): one step per splitting digit k and
/// rare position r < n - k (the enumeration of the common values). Sums, per rare r, the
/// heaps that meet it: O(R) per splitting digit, plus O(PREFIX).
pub fn rare_steps(rules: &Rules, g: &[u16]) -> f64 {
    let limit = g.len().saturating_sub(1);
    let (mask, count) = Histogram::of(g).best_mask(rules.split_parity());
    let masked = g.len() > PREFIX && count * SPARSE_FRACTION <= limit;
    let unmasked_end = if masked { PREFIX } else { g.len() };
    let rare = if masked {
        rare_positions(g, mask)
    } else {
        Vec::new()
    };
    let mut steps = 0.0;
    for &k in rules.split() {
        for n in k + 2..unmasked_end {
            steps += rules.split_pairs(n - k) as f64;
        }
        // the masked heaps PREFIX <= n <= N with n - k > r
        for &r in &rare {
            let first = PREFIX.max(k + r + 1);
            steps += (limit + 1).saturating_sub(first) as f64;
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rare_test_at_a_position_is_the_definition() {
        // First kind: v rare when popcount(v & M) is even; second: when its parity is that
        // of n + rho. Written here from the module doc, not through `Mask::at` or `Mask::rare_of_kind`.
        for bits in 0u16..16 {
            for v in 0u32..64 {
                for n in 0usize..6 {
                    let parity = (v & bits as u32).count_ones() % 2;
                    assert_eq!(Mask::value(bits).rare(v, n), parity == 0);
                    assert_eq!(
                        Mask::value(bits).rare_of_kind::<false>(v as u16, n),
                        parity == 0
                    );
                    for rho in 0u8..2 {
                        let want = parity == (n as u32 + rho as u32) % 2;
                        let mask = Mask::position(bits, rho);
                        assert_eq!(mask.rare(v, n), want, "{bits} {v} {n}");
                        assert_eq!(mask.at(n).rare(v), want);
                        assert_eq!(mask.rare_of_kind::<true>(v as u16, n), want);
                    }
                }
            }
        }
    }

    /// The rare count of every mask by its definition, position class by position class:
    /// of the first kind, popcount(v & M) even; of the second, its parity that of n - t,
    /// with t of parity ρ (what the Walsh–Hadamard scoring must reproduce).
    fn brute_counts(counts: &[Vec<usize>; 2], bits: u32, rho: Option<u8>) -> Vec<(Mask, usize)> {
        let count = |rare: &dyn Fn(usize, usize) -> bool| -> usize {
            (0..2)
                .map(|p| {
                    (0..counts[p].len())
                        .filter(|&v| rare(v, p))
                        .map(|v| counts[p][v])
                        .sum::<usize>()
                })
                .sum()
        };
        let parity = |v: usize, m: usize| (v & m).count_ones() as usize % 2;
        let mut out = Vec::new();
        for m in 1..1usize << bits {
            out.push((Mask::value(m as u16), count(&|v, _| parity(v, m) == 0)));
        }
        if let Some(rho) = rho {
            let t = rho as usize; // any t of parity rho: n - t has the parity of p + t
            for m in 1..1usize << bits {
                let c = count(&|v, p| parity(v, m) == (p + t) % 2);
                out.push((Mask::position(m as u16, rho), c));
            }
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        #[test]
        fn the_transform_scores_every_mask_as_the_definition_does(
            even in proptest::collection::vec(0usize..50, 0..70),
            odd in proptest::collection::vec(0usize..50, 0..70),
            rho in proptest::option::of(0u8..2),
        ) {
            let counts = [even, odd];
            let h = Histogram::from_counts(counts.clone());
            let bits = h.mask_bits();
            let want = brute_counts(&counts, bits, rho);
            let got = h.rare_counts(rho);
            proptest::prop_assert_eq!(&got, &want);
            // The best one: the fewest rare, ties to the first kind, then the smaller bits.
            let least = want.iter().map(|&(_, c)| c).min().unwrap();
            let best = want
                .iter()
                .filter(|&&(_, c)| c == least)
                .min_by_key(|(m, _)| (m.position.is_some(), m.bits))
                .copied()
                .unwrap();
            proptest::prop_assert_eq!(h.best_mask(rho), best);
            // And rare_count agrees with the scores, mask by mask.
            for &(m, c) in &want {
                proptest::prop_assert_eq!(h.rare_count(m), c);
            }
        }
    }

    #[test]
    fn values_past_the_mask_bits_fold_into_the_low_bits() {
        // A value of 13 bits (5000): the masks range over the low 12, so the transform
        // counts it at 5000 mod 4096; the brute force reads v & M directly.
        let mut even = vec![0usize; 5001];
        even[5000] = 3;
        even[1] = 2;
        let counts = [even, vec![0, 4, 1]];
        let h = Histogram::from_counts(counts.clone());
        assert_eq!(h.mask_bits(), MASK_BITS);
        assert_eq!(
            h.rare_counts(Some(1)),
            brute_counts(&counts, MASK_BITS, Some(1))
        );
    }

    #[test]
    fn game_0_127_has_its_sparse_space_only_with_the_positions_parity() {
        // .127 (one splitting digit, 7 at t = 3): under mask 1 of the second kind only a few
        // hundred positions are rare (Flammenkamp), against thousands for every mask of the
        // first kind. The table comes from the vector back-end, which uses no mask.
        let rules = Rules::parse("0.127").unwrap();
        let g = crate::octal::build("octal-vector", &rules, 20_000).unwrap();
        let h = Histogram::of(g.values());
        let (best, rare) = h.best_mask(rules.split_parity());
        assert_eq!(best, Mask::position(1, 1));
        assert!(rare * 20 < 20_000, "{rare} rare");
        let (first_kind, first_rare) = h.best_mask(None);
        assert!(first_kind.position.is_none() && first_rare > 2 * rare);
        // The summary counts the positions n with g(n) & 1 = (n - 3) & 1, which position 0
        // (g = 0, n - 3 odd) is not.
        let s = SplitSummary::of(&rules, g.values());
        let by_definition = (0..=20_000usize)
            .filter(|&n| (g.values()[n] as usize & 1) == (n + 1) % 2)
            .count();
        assert_eq!(s.rare, by_definition);
        assert_eq!(s.mask, Some(best));
    }

    #[test]
    fn officers_split_matches_the_published_rare_list() {
        // Officers to 2^21: 1 584 rare positions counting 0 under the mask 0x1ee, the last
        // at 20 627 with value 277 (the published rare list; two public solvers agree).
        let g = crate::octal::build("octal-block", &Rules::parse("0.6").unwrap(), 1 << 21).unwrap();
        let officers = Rules::parse("0.6").unwrap();
        let s = SplitSummary::of(&officers, g.values());
        assert_eq!(s.mask, Some(Mask::value(0x1ee)));
        assert_eq!(s.rare, 1584);
        assert_eq!(s.last_rare, Some((20_627, 277)));
        // Dawson's chess has no sparse split.
        let chess = Rules::parse("0.137").unwrap();
        let g = crate::octal::build("octal-block", &chess, 5000).unwrap();
        assert_eq!(SplitSummary::of(&chess, g.values()).mask, None);
    }

    /// The rare pair steps by direct loops: per heap n and splitting digit k, one step for
    /// each rare r < n - k (under the chosen mask, from heap 4096 on), else the split pairs
    /// of n - k.
    fn rare_steps_by_loops(rules: &Rules, g: &[u16]) -> f64 {
        let histogram = Histogram::of(g);
        let (mask, count) = histogram.best_mask(rules.split_parity());
        let masked = g.len() > 4096 && 4 * count < g.len();
        let mut steps = 0u64;
        for n in 1..g.len() {
            for &k in rules.split() {
                if n < k + 2 {
                    continue;
                }
                let m = n - k;
                steps += if masked && n >= 4096 {
                    (1..m).filter(|&r| mask.rare(g[r] as u32, r)).count() as u64
                } else {
                    rules.split_pairs(m) as u64
                };
            }
        }
        steps as f64
    }

    #[test]
    fn rare_steps_sum_the_rare_positions_each_heap_meets() {
        // Officers has a sparse space (about 1.6% of the first 10^5 positions rare), Dawson's
        // chess none (every mask leaves about 40% rare), Grundy's game splits without removing.
        for (code, n) in [
            ("0.6", 20_000),
            ("0.6", 3000),
            ("0.137", 5000),
            ("grundy", 5000),
            ("4.07", 1500),
        ] {
            let rules = Rules::parse(code).unwrap();
            let t = crate::octal::build("octal-vector", &rules, n).unwrap();
            let want = rare_steps_by_loops(&rules, t.values());
            assert_eq!(rare_steps(&rules, t.values()), want, "{code}");
            assert!(want > 0.0, "{code}");
        }
        // Officers' split is sparse: at N = 20 000 (1 582 rare positions) far fewer steps than
        // the full search of every pair.
        let officers = Rules::parse("0.6").unwrap();
        let t = crate::octal::build("octal-vector", &officers, 20_000).unwrap();
        assert!(rare_steps(&officers, t.values()) * 3.0 < officers.option_steps(20_000) as f64);
        // A game without splits takes none.
        let t = crate::octal::build("octal-naive", &Rules::parse("0.333").unwrap(), 100).unwrap();
        assert_eq!(rare_steps(&Rules::parse("0.333").unwrap(), t.values()), 0.0);
    }
}
