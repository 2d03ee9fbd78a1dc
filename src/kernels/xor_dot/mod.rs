//! The xor dot product, the count sweep's inner loop vectorised: sum over x of
//! P(x)·S(x xor g) four x at a time.
//!
//! Algorithm: the xor with g scrambles the order in which S is read, which is what keeps a
//! compiler from vectorising the loop. Split g = h + c with c = g mod 4. For x a multiple of
//! 4 and 0 <= j < 4, (x + (j xor c)) xor g = (x xor h) + j, so over one aligned block of four
//! the sum is the plain dot product of P_c[x .. x+4] and S[(x xor h) .. +4], where
//! P_c(y) = P(y xor c). [`XorSweep`] keeps the four permuted copies P_0..P_3 (adding a value
//! to P touches one entry in each), so every block is two contiguous loads of `wide::u32x4`,
//! one widening multiply to `u64x4`, and one add.
//!
//! Cost: per middle heap b, G/4 vector steps instead of G scalar multiply-adds, plus four
//! scalar updates of P.
//!
//! Type limits: counts are held as `u32`, so a table may use this path only while every
//! count stays below 2^32 ([`XorSweep::fits`]); products are exact in `u64` and each b's term
//! is below (b+1)(N-b+1) < 2^64.
//!
//! Paths ([`crate::base::isa`]): the block sum runs on the path active when the [`XorSweep`]
//! was made (read once, not per middle heap); the one ISA dispatch of this family is
//! [`dispatch`] on that stored path, taken around a caller's whole loop (the x86 code is in
//! `x86.rs`): scalar (one x a step), portable (`wide::u32x4`
//! widened to `u64x4`), AVX2 (`_mm256_mul_epu32` on four zero-extended u32, four u64
//! accumulators) or AVX-512 (`_mm512_mul_epu32`, eight: two blocks of four a step). The u32
//! invariant is what makes the 32x32 -> 64-bit multiplies exact on every path.
//!
//! [`xor_dot_scalar`] is the scalar twin, and the tests compare every path with it on random
//! inputs.

use crate::base::isa::{self, Isa};
use wide::{u32x4, u64x4};

/// Prefix tables in four xor-permuted copies and a suffix table, as `u32` counts.
pub struct XorSweep {
    /// Block length: the alphabet rounded up to a multiple of 4.
    len: usize,
    /// `prefix[c * len + y]` = P(y xor c), for c in 0..4.
    prefix: Vec<u32>,
    /// S, zero-padded to a power of two >= max(len, 4), so (x xor h) + 4 never leaves it.
    suffix: Vec<u32>,
    /// The path of [`XorSweep::dot`], [`crate::base::isa::active`] when the tables were made.
    path: Isa,
}

impl XorSweep {
    /// True when counts starting from `prefix`/`suffix` and growing by `steps` stay in `u32`.
    pub fn fits(prefix: &[u64], suffix: &[u64], steps: usize) -> bool {
        let top = |t: &[u64]| t.iter().copied().max().unwrap_or(0);
        top(prefix).saturating_add(steps as u64) <= u32::MAX as u64
            && top(suffix) <= u32::MAX as u64
    }

    /// Copies the tables in (the caller checked [`XorSweep::fits`]).
    pub fn new(prefix: &[u64], suffix: &[u64]) -> XorSweep {
        let len = prefix.len().max(1).next_multiple_of(4);
        let padded = suffix.len().max(len).next_power_of_two();
        let mut p = vec![0u32; 4 * len];
        for c in 0..4 {
            for (y, &count) in prefix.iter().enumerate() {
                p[c * len + (y ^ c)] = count as u32;
            }
        }
        let mut s = vec![0u32; padded];
        for (y, &count) in suffix.iter().enumerate() {
            s[y] = count as u32;
        }
        XorSweep {
            len,
            prefix: p,
            suffix: s,
            path: isa::active(),
        }
    }

    /// P(v) += 1.
    #[inline]
    pub fn add_prefix(&mut self, v: usize) {
        for c in 0..4 {
            self.prefix[c * self.len + (v ^ c)] += 1;
        }
    }

    /// S(v) -= 1.
    #[inline]
    pub fn remove_suffix(&mut self, v: usize) {
        self.suffix[v] -= 1;
    }

    /// The path the tables were made on ([`crate::base::isa::active`] then): what a caller
    /// hands to [`dispatch`] once, around its whole loop.
    pub fn path(&self) -> Isa {
        self.path
    }

    /// Sum over x of P(x)·S(x xor g) with the kernel `K` (inside [`dispatch`]'s
    /// [`WithXorDot::run`]). Every path sums the same products, y over one permuted copy
    /// P_c: `P_c[y]·S[y xor h]`.
    #[inline(always)]
    pub fn dot_with<K: DotKernel>(&self, g: usize) -> u64 {
        let (h, c) = (g & !3, g & 3);
        let p = &self.prefix[c * self.len..(c + 1) * self.len];
        // `new` padded S to a power of two >= len, so y xor h < suffix.len() for every y.
        debug_assert!(h < self.suffix.len() && self.suffix.len() >= self.len);
        K::dot(p, &self.suffix, h)
    }

    /// One [`XorSweep::dot_with`] on the tables' path, chosen for this call alone (the
    /// roofline's primitive and the tests; a sweep chooses once around its loop).
    pub fn dot(&self, g: usize) -> u64 {
        struct One<'a>(&'a XorSweep, usize);
        impl WithXorDot for One<'_> {
            type Out = u64;
            #[inline(always)]
            fn run<K: DotKernel>(self) -> u64 {
                self.0.dot_with::<K>(self.1)
            }
        }
        dispatch(self.path, One(self, g))
    }

    /// Writes the tables back as `u64` (P unpermuted).
    pub fn store(&self, prefix: &mut [u64], suffix: &mut [u64]) {
        for (y, p) in prefix.iter_mut().enumerate() {
            *p = self.prefix[y] as u64;
        }
        for (y, s) in suffix.iter_mut().enumerate() {
            *s = self.suffix[y] as u64;
        }
    }
}

/// One path's block sum: sum over y of `p[y]·suffix[y xor h]`, `p.len()` a multiple of 4 and
/// `suffix` covering every y xor h.
pub trait DotKernel {
    fn dot(p: &[u32], suffix: &[u32], h: usize) -> u64;
}

isa_family!(WithXorDot: DotKernel, "avx2", "avx512f,avx2");

/// The scalar path and twin.
pub struct Scalar;

impl DotKernel for Scalar {
    #[inline]
    fn dot(p: &[u32], suffix: &[u32], h: usize) -> u64 {
        dot_scalar(p, suffix, h)
    }
}

/// The portable path (`wide`).
pub struct Portable;

impl DotKernel for Portable {
    #[inline]
    fn dot(p: &[u32], suffix: &[u32], h: usize) -> u64 {
        dot_portable(p, suffix, h)
    }
}

/// The scalar path of [`XorSweep::dot`]: sum over y of P_c[y]·S[y xor h], one y a step.
fn dot_scalar(p: &[u32], suffix: &[u32], h: usize) -> u64 {
    p.iter()
        .enumerate()
        .map(|(y, &pv)| pv as u64 * suffix[y ^ h] as u64)
        .sum()
}

/// The portable path of [`XorSweep::dot`]: one aligned block of four a step, `wide::u32x4`
/// widening-multiplied into `u64x4`.
fn dot_portable(p: &[u32], suffix: &[u32], h: usize) -> u64 {
    let mut acc = u64x4::ZERO;
    for (x, block) in p.chunks_exact(4).enumerate() {
        let base = (4 * x) ^ h;
        let pv = u32x4::new(block.try_into().expect("4 counts"));
        let sv = u32x4::new(suffix[base..base + 4].try_into().expect("4 counts"));
        acc += pv.widening_mul(sv);
    }
    acc.reduce_add()
}

#[cfg(target_arch = "x86_64")]
mod x86;

/// The scalar twin of [`XorSweep::dot`]: sum over x of P(x)·S(x xor g), one x a step.
pub fn xor_dot_scalar(prefix: &[u64], suffix: &[u64], g: usize) -> u64 {
    prefix
        .iter()
        .enumerate()
        .map(|(x, &p)| p * suffix[x ^ g])
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::base::rng::for_each_case;

    /// Runs `check` once on every path this CPU supports, each forced in turn (under the
    /// test lock, since the path is process-wide): an [`XorSweep`] made inside takes it.
    fn on_every_path(mut check: impl FnMut(Isa)) {
        let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        for path in Isa::supported_all() {
            isa::with(path, || check(path)).expect("a supported path");
        }
    }

    #[test]
    fn dot_matches_scalar_twin_on_every_path() {
        on_every_path(random_tables_agree);
    }

    #[test]
    fn full_width_products_in_every_lane_on_every_path() {
        // One count near 2^32 on each side, meeting in one lane of an 8-wide step (alphabet
        // 16: two AVX-512 steps), for every lane and g: a multiply that dropped high bits, or
        // a lane read from the wrong block, gives a different sum.
        let (a, b) = (u32::MAX as u64 - 5, u32::MAX as u64 - 7);
        on_every_path(|path| {
            for x in 0..16 {
                for g in 0..16 {
                    let mut prefix = vec![0u64; 16];
                    let mut suffix = vec![0u64; 16];
                    prefix[x] = a;
                    suffix[x ^ g] = b;
                    let sweep = XorSweep::new(&prefix, &suffix);
                    assert!(XorSweep::fits(&prefix, &suffix, 0));
                    assert_eq!(sweep.dot(g), a * b, "{path}, x = {x}, g = {g}");
                }
            }
        });
    }

    /// Random tables through an [`XorSweep`] made on `path` (forced by the caller), against
    /// the scalar twin on the plain tables.
    fn random_tables_agree(path: Isa) {
        for_each_case(99, 500, |case, rng| {
            // Mostly real-sized tables; every fourth case one value with counts near 2^32, so
            // the unsigned 32x32 -> 64-bit multiply is exercised at full width.
            let huge = case % 4 == 3;
            let alphabet = if huge { 1 } else { 1 + rng.below(300) as usize };
            let padded = alphabet.next_power_of_two();
            let bound = if huge {
                u32::MAX as u64 - 4
            } else {
                [10u64, 100_000, 1 << 26][rng.below(3) as usize]
            };
            let prefix: Vec<u64> = (0..alphabet).map(|_| rng.below(bound)).collect();
            let mut suffix: Vec<u64> = (0..alphabet).map(|_| rng.below(bound)).collect();
            suffix.resize(padded, 0);
            let mut fast = XorSweep::new(&prefix, &suffix);
            assert_eq!(fast.path, path);
            let mut slow = (prefix.clone(), suffix.clone());
            for _ in 0..4 {
                let g = rng.below(alphabet as u64) as usize;
                fast.add_prefix(g);
                slow.0[g] += 1;
                let scalar = xor_dot_scalar(&slow.0, &slow.1, g);
                assert_eq!(
                    fast.dot(g),
                    scalar,
                    "{path}, case {case}, G = {alphabet}, g = {g}"
                );
                if slow.1[g] > 0 {
                    fast.remove_suffix(g);
                    slow.1[g] -= 1;
                }
            }
            let (mut p, mut s) = (vec![0u64; alphabet], vec![0u64; padded]);
            fast.store(&mut p, &mut s);
            assert_eq!((p, s), slow, "case {case}: tables written back");
        });
    }

    #[test]
    fn fits_only_while_every_count_stays_in_u32() {
        let max = u32::MAX as u64;
        // the prefix grows by `steps`; the suffix does not
        assert!(XorSweep::fits(&[3, max - 5], &[max, 0], 5));
        assert!(!XorSweep::fits(&[3, max - 5], &[0], 6));
        assert!(!XorSweep::fits(&[0], &[max + 1], 0));
        assert!(!XorSweep::fits(&[max + 1], &[0], 0));
        assert!(XorSweep::fits(&[], &[], 0));
    }
}
