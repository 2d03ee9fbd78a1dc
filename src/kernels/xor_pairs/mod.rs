//! The xor-pair kernels, the octal games' inner loops: the least i with `lo[i] xor hi[i] == x`
//! (the search), and every `lo[i] xor hi[i]` marked in a byte row (the marking).
//!
//! Algorithm: a heap of m tokens split into (a, m - a) has the value g(a) xor g(m - a).
//! With a reversed copy of g beside g, the partners g(m - 1), g(m - 2), ... are one
//! contiguous slice, so "does some split of m have value x" is one pass over two slices,
//! `lo` = g[1..] and `hi` = the reversed partners, looking for the first lane where
//! lo ^ hi == x. The vector paths xor and compare a whole register of u16 lanes at a time
//! and turn the compare into a bit mask whose lowest set bit is the answer.
//!
//! The marking ([`PairKernel::mark`]) is the mex's other route: when the values are wide, a
//! search per candidate costs about as many pairs as there are values, so instead every
//! pair's value is stored as a 1 in a byte row indexed by value, and the mex is the row's
//! first 0. The vector paths xor and mask a register of pairs at once and write the indices
//! to a small buffer; the stores stay one byte store per pair (a scatter has no faster form
//! on these CPUs), which is the bound.
//!
//! Cost: the search, min(len, answer + one vector) lane steps: 1 (scalar), 8 (portable
//! `wide::u16x8`), 16 (AVX2) or 32 (AVX-512 BW) u16 lanes a step; the marking, len byte
//! stores plus len/lanes vector steps.
//!
//! Invariant: every path returns exactly what the scalar twin [`first_match_scalar`]
//! returns, the least such i or `None`, and marks exactly what [`mark_scalar`] marks (the
//! tests compare them on random inputs); each reads only `lo[..len]` and `hi[..len]`,
//! len = min(lo.len(), hi.len()), and writes only inside the row, whose length is a power of
//! two: an index is the xor masked to the row.
//!
//! Paths ([`crate::base::isa`]): the one ISA dispatch of this family is [`dispatch`], taken
//! once around a caller's whole loop with a [`WithXorPairs`] visitor (the x86 code is in
//! `x86.rs`); [`first_match_on`] wraps it for one call.

use crate::base::isa::Isa;
use wide::u16x8;

/// One path's kernels over the pairs i < min(lo.len(), hi.len()).
pub trait PairKernel {
    /// The least i with `lo[i] ^ hi[i] == x`.
    fn first_match(lo: &[u16], hi: &[u16], x: u16) -> Option<usize>;

    /// Sets `row[(lo[i] ^ hi[i]) & (row.len() - 1)] = 1` for every i; `row.len()` is a
    /// power of two (so the index is the xor itself when both values are below it).
    fn mark(lo: &[u16], hi: &[u16], row: &mut [u8]);
}

isa_family!(WithXorPairs: PairKernel, "avx2", "avx512f,avx512bw,avx2");

/// One marking on the path `isa` (the tests and one-off callers).
pub fn mark_on(isa: Isa, lo: &[u16], hi: &[u16], row: &mut [u8]) {
    struct One<'a>(&'a [u16], &'a [u16], &'a mut [u8]);
    impl WithXorPairs for One<'_> {
        type Out = ();
        #[inline(always)]
        fn run<K: PairKernel>(self) {
            K::mark(self.0, self.1, self.2)
        }
    }
    dispatch(isa, One(lo, hi, row))
}

/// One search on the path `isa` (the tests and one-off callers; a back-end dispatches once
/// around its loop instead).
pub fn first_match_on(isa: Isa, lo: &[u16], hi: &[u16], x: u16) -> Option<usize> {
    struct One<'a>(&'a [u16], &'a [u16], u16);
    impl WithXorPairs for One<'_> {
        type Out = Option<usize>;
        #[inline(always)]
        fn run<K: PairKernel>(self) -> Option<usize> {
            K::first_match(self.0, self.1, self.2)
        }
    }
    dispatch(isa, One(lo, hi, x))
}

/// The scalar path and twin.
pub struct Scalar;

impl PairKernel for Scalar {
    #[inline]
    fn first_match(lo: &[u16], hi: &[u16], x: u16) -> Option<usize> {
        first_match_scalar(lo, hi, x)
    }

    #[inline]
    fn mark(lo: &[u16], hi: &[u16], row: &mut [u8]) {
        mark_scalar(lo, hi, row)
    }
}

/// The portable path (`wide`).
pub struct Portable;

impl PairKernel for Portable {
    #[inline]
    fn first_match(lo: &[u16], hi: &[u16], x: u16) -> Option<usize> {
        first_match_portable(lo, hi, x)
    }

    #[inline]
    fn mark(lo: &[u16], hi: &[u16], row: &mut [u8]) {
        mark_portable(lo, hi, row)
    }
}

/// The scalar twin: the least i with `lo[i] ^ hi[i] == x`, one pair a step.
pub fn first_match_scalar(lo: &[u16], hi: &[u16], x: u16) -> Option<usize> {
    lo.iter().zip(hi).position(|(&a, &b)| a ^ b == x)
}

/// The scalar twin of the marking: one pair a step, its xor masked to the row (a row of
/// length 0 is refused: it has no index to mask to).
#[inline]
pub fn mark_scalar(lo: &[u16], hi: &[u16], row: &mut [u8]) {
    assert!(
        row.len().is_power_of_two(),
        "a row's length is a power of two"
    );
    let last = row.len() - 1;
    for (&a, &b) in lo.iter().zip(hi) {
        // `& last` keeps the index inside the row, so the store needs no bounds check.
        row[usize::from(a ^ b) & last] = 1;
    }
}

/// The portable marking: eight xors a step (`wide::u16x8`) written to a buffer, then one
/// byte store each; the last len mod 8 pairs on the twin.
fn mark_portable(lo: &[u16], hi: &[u16], row: &mut [u8]) {
    assert!(
        row.len().is_power_of_two(),
        "a row's length is a power of two"
    );
    let len = lo.len().min(hi.len());
    let last = row.len() - 1;
    let whole = len / 8 * 8;
    for (a, b) in lo[..whole].chunks_exact(8).zip(hi[..whole].chunks_exact(8)) {
        let a = u16x8::new(a.try_into().expect("8 lanes"));
        let b = u16x8::new(b.try_into().expect("8 lanes"));
        for v in (a ^ b).to_array() {
            row[usize::from(v) & last] = 1;
        }
    }
    mark_scalar(&lo[whole..len], &hi[whole..len], row);
}

/// The portable path: eight lanes a step (`wide::u16x8` xor and compare, the compare's
/// bit mask's lowest bit), the last len mod 8 pairs on the twin.
fn first_match_portable(lo: &[u16], hi: &[u16], x: u16) -> Option<usize> {
    let len = lo.len().min(hi.len());
    let (lo, hi) = (&lo[..len], &hi[..len]);
    let want = u16x8::splat(x);
    let whole = len / 8 * 8;
    for (i, (a, b)) in lo[..whole]
        .chunks_exact(8)
        .zip(hi[..whole].chunks_exact(8))
        .enumerate()
    {
        let a = u16x8::new(a.try_into().expect("8 lanes"));
        let b = u16x8::new(b.try_into().expect("8 lanes"));
        let hits = (a ^ b).simd_eq(want).to_bitmask();
        if hits != 0 {
            return Some(8 * i + hits.trailing_zeros() as usize);
        }
    }
    first_match_scalar(&lo[whole..], &hi[whole..], x).map(|i| whole + i)
}

/// g in reverse, beside g: the partners g(m - 1), g(m - 2), ..., g(m - p) of the splits
/// (1, m - 1), ..., (p, m - p) as one contiguous slice, what [`PairKernel::first_match`]
/// compares with g[1..=p].
///
/// Layout: a buffer of the table's full length `cap`, g(i) at `cap - 1 - i`, filled from
/// the end as g grows, so a partner slice never moves and never needs copying.
pub struct Mirror {
    rev: Vec<u16>,
}

impl Mirror {
    /// A mirror for a table of `cap` values holding `prefix` (the values known so far).
    pub fn new(cap: usize, prefix: &[u16]) -> Mirror {
        assert!(prefix.len() <= cap);
        let mut rev = vec![0u16; cap];
        for (i, &v) in prefix.iter().enumerate() {
            rev[cap - 1 - i] = v;
        }
        Mirror { rev }
    }

    /// Records g(i) = v.
    #[inline]
    pub fn set(&mut self, i: usize, v: u16) {
        let cap = self.rev.len();
        self.rev[cap - 1 - i] = v;
    }

    /// [g(m - 1), g(m - 2), ..., g(m - p)], for 1 <= m <= cap and p < m.
    #[inline]
    pub fn partners(&self, m: usize, p: usize) -> &[u16] {
        debug_assert!(p < m && m <= self.rev.len());
        let start = self.rev.len() - m;
        &self.rev[start..start + p]
    }
}

#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::for_each_case;
    use crate::kernels::for_each_path_against_scalar;

    const LENGTHS: [usize; 11] = [0, 1, 15, 16, 17, 31, 32, 33, 63, 65, 1000];

    #[test]
    fn every_path_matches_the_scalar_twin_on_random_inputs() {
        for_each_case(28, 400, |case, rng| {
            let len = LENGTHS[case % LENGTHS.len()];
            // Small values so matches occur at random places; a few cases with full-width
            // values so a lane compare that dropped high bits would show.
            let bound = if case % 5 == 4 { 1 << 16 } else { 8 };
            let lo: Vec<u16> = (0..len).map(|_| rng.below(bound) as u16).collect();
            let hi: Vec<u16> = (0..len).map(|_| rng.below(bound) as u16).collect();
            let x = rng.below(bound) as u16;
            let want = for_each_path_against_scalar(&format!("case {case}"), |isa| {
                first_match_on(isa, &lo, &hi, x)
            });
            // The twin itself against the definition.
            assert_eq!(want, (0..len).find(|&i| lo[i] ^ hi[i] == x));
        });
    }

    #[test]
    fn every_path_marks_what_the_scalar_twin_marks() {
        for_each_case(29, 300, |case, rng| {
            let len = LENGTHS[case % LENGTHS.len()];
            let width = [1usize, 2, 64, 256, 4096][case % 5];
            // Values up to twice the row: the masked index must wrap, never write outside.
            let lo: Vec<u16> = (0..len)
                .map(|_| rng.below(2 * width as u64) as u16)
                .collect();
            let hi: Vec<u16> = (0..len + case % 3)
                .map(|_| rng.below(2 * width as u64) as u16)
                .collect();
            let want = for_each_path_against_scalar(&format!("case {case}"), |isa| {
                let mut row = vec![0u8; width];
                mark_on(isa, &lo, &hi, &mut row);
                row
            });
            // The twin against the definition: exactly the masked xors are 1.
            let mut by_definition = vec![0u8; width];
            for i in 0..len {
                by_definition[usize::from(lo[i] ^ hi[i]) % width] = 1;
            }
            assert_eq!(want, by_definition, "case {case}");
        });
    }

    #[test]
    fn a_single_match_is_found_at_the_head_at_the_tail_and_anywhere_or_not_at_all() {
        for len in LENGTHS {
            // lo ^ hi == 1 everywhere, x = 3 nowhere but where one lane is planted.
            let lo: Vec<u16> = (0..len).map(|i| (i as u16).wrapping_mul(77)).collect();
            let base: Vec<u16> = lo.iter().map(|v| v ^ 1).collect();
            assert_eq!(
                for_each_path_against_scalar("absent", |isa| first_match_on(isa, &lo, &base, 3)),
                None,
                "len {len}"
            );
            for at in [0, len / 2, len.saturating_sub(1)] {
                if at >= len {
                    continue;
                }
                let mut hi = base.clone();
                hi[at] = lo[at] ^ 3;
                let got =
                    for_each_path_against_scalar(&format!("len {len}, match at {at}"), |isa| {
                        first_match_on(isa, &lo, &hi, 3)
                    });
                assert_eq!(got, Some(at), "len {len}");
                // A second match after the first does not move the answer.
                if at + 1 < len {
                    hi[len - 1] = lo[len - 1] ^ 3;
                    let got = for_each_path_against_scalar("two matches", |isa| {
                        first_match_on(isa, &lo, &hi, 3)
                    });
                    assert_eq!(got, Some(at), "len {len}");
                }
            }
            // Every lane matches: the answer is 0.
            let all: Vec<u16> = lo.iter().map(|v| v ^ 0xabcd).collect();
            let got =
                for_each_path_against_scalar("all", |isa| first_match_on(isa, &lo, &all, 0xabcd));
            assert_eq!(got, (len > 0).then_some(0));
        }
    }

    #[test]
    fn the_mirror_holds_each_split_partner_beside_its_heap() {
        let g: Vec<u16> = (0..50u16).map(|i| i * 3 + 1).collect();
        let mut mirror = Mirror::new(g.len(), &g[..20]);
        for (i, &v) in g.iter().enumerate().skip(20) {
            mirror.set(i, v);
        }
        for m in 1..g.len() {
            for p in 0..m {
                let want: Vec<u16> = (1..=p).map(|a| g[m - a]).collect();
                assert_eq!(mirror.partners(m, p), want, "m = {m}, p = {p}");
            }
        }
    }

    #[test]
    fn unequal_lengths_search_the_shorter() {
        let lo = vec![5u16; 40];
        let mut hi = vec![0u16; 20];
        hi[19] = 5 ^ 9;
        let got = for_each_path_against_scalar("unequal", |isa| first_match_on(isa, &lo, &hi, 9));
        assert_eq!(got, Some(19));
        let got = for_each_path_against_scalar("swapped", |isa| first_match_on(isa, &hi, &lo, 9));
        assert_eq!(got, Some(19));
        // A match only past the shorter slice's end is not found.
        let got =
            for_each_path_against_scalar("beyond", |isa| first_match_on(isa, &lo, &hi[..19], 9));
        assert_eq!(got, None);
    }
}
