//! The cycle index of the symmetric group S_K, specialised to xor-zero multisets: how the
//! count for K heaps follows from the numbers of *ordered* xor-zero tuples.
//!
//! Algorithm (Burnside's lemma / Pólya): S_K permutes the ordered K-tuples (a_1, …, a_K) in
//! [0, N]^K whose Grundy values xor to 0, and the multisets we count are its orbits, so
//!
//!   L_K(N) = (1/K!) · sum over permutations σ of #{tuples fixed by σ}.
//!
//! A tuple is fixed by σ exactly when it is constant on each cycle of σ. A cycle of length
//! j holding a heap of value x contributes x xored j times: x when j is odd, 0 when j is
//! even. So a permutation with o odd cycles and e even cycles fixes
//!
//!   (N+1)^e · T(o),   T(o) = #{ordered o-tuples in [0, N]^o whose values xor to 0},
//!
//! the even cycles choosing any of the N+1 heap sizes freely (T(0) = 1: the empty xor is 0).
//! Only (o, e) matters, so the permutations are grouped by it: [`odd_even_classes`] lists
//! every pair with the number of permutations of S_K having that many odd and even cycles
//! (the sum over partitions λ of K of K!/z_λ). The back-ends supply T(o) their own way
//! (`wht`: (1/W)·sum_k F(k)^o; `burnside`: the o-fold xor convolution of the histogram at 0).
//!
//! Cost: p(K) partitions (231 for K = 16), each O(K); negligible beside T.
//!
//! Invariant: the sum over σ is K! times a whole number of orbits; [`multisets_from_ordered`]
//! checks the division is exact and reports a remainder as an error instead of rounding.
//!
//! Arithmetic is exact in [`BigUint`]: the answer reaches C(N+K, K), about 2^468 for K = 16
//! and N near 2^32, far beyond `u128`. [`to_u128`] converts the final answer, or refuses
//! with an error saying it overflows `u128`; a wrong (wrapped) answer is never returned.

use crate::base::error::{Error, Result};
use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};

/// The largest number of heaps any back-end accepts (the CLI's `--heaps` limit).
pub const MAX_HEAPS: usize = 16;

/// An upper bound on the bytes the cycle-index sum allocates for K <= [`MAX_HEAPS`] (what a
/// big-integer counter adds to its `scratch_bytes`): at most 231 partitions of K (p(16)),
/// each with two big integers below 2^640 (80 bytes of digits and a 24-byte header), is
/// 48 048 bytes; counted as 64 KiB.
pub const CYCLE_INDEX_BYTES: u64 = 64 << 10;

/// Refuses K = 0 and K > [`MAX_HEAPS`] with a one-line message.
pub fn check_heaps(heaps: usize) -> Result<()> {
    if (1..=MAX_HEAPS).contains(&heaps) {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "--heaps must be between 1 and {MAX_HEAPS}, got {heaps}"
        )))
    }
}

/// One class of permutations of S_K: `count` permutations have `odd` cycles of odd length
/// and `even` cycles of even length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OddEvenClass {
    pub odd: usize,
    pub even: usize,
    pub count: BigUint,
}

/// Every (odd cycles, even cycles) class of S_K with its number of permutations, sorted by
/// (odd, even). The counts add up to K!.
///
/// Enumerates the partitions λ of K (parts in non-increasing order); the permutations of
/// cycle type λ = 1^{m_1} 2^{m_2} … number K!/z_λ with z_λ = prod_j j^{m_j} · m_j!.
pub fn odd_even_classes(heaps: usize) -> Vec<OddEvenClass> {
    let factorial_k = factorial(heaps);
    let mut classes: Vec<OddEvenClass> = Vec::new();
    let mut parts = Vec::new();
    partitions(heaps, heaps, &mut parts, &mut |parts: &[usize]| {
        let mut z = BigUint::one();
        let (mut odd, mut even) = (0, 0);
        let mut i = 0;
        while i < parts.len() {
            let j = parts[i];
            let multiplicity = parts[i..].iter().take_while(|&&p| p == j).count();
            z *= BigUint::from(j).pow(multiplicity as u32) * factorial(multiplicity);
            if j % 2 == 1 {
                odd += multiplicity;
            } else {
                even += multiplicity;
            }
            i += multiplicity;
        }
        let count = &factorial_k / z;
        match classes.iter_mut().find(|c| c.odd == odd && c.even == even) {
            Some(c) => c.count += count,
            None => classes.push(OddEvenClass { odd, even, count }),
        }
    });
    classes.sort_by_key(|c| (c.odd, c.even));
    classes
}

/// Calls `visit` with every partition of `remaining` into parts of at most `largest`,
/// appended to `parts` in non-increasing order.
fn partitions(
    remaining: usize,
    largest: usize,
    parts: &mut Vec<usize>,
    visit: &mut dyn FnMut(&[usize]),
) {
    if remaining == 0 {
        visit(parts);
        return;
    }
    for part in (1..=largest.min(remaining)).rev() {
        parts.push(part);
        partitions(remaining - part, part, parts, visit);
        parts.pop();
    }
}

/// n! as a big integer.
pub fn factorial(n: usize) -> BigUint {
    (1..=n).fold(BigUint::one(), |acc, i| acc * BigUint::from(i))
}

/// The number of multisets {a_1 <= … <= a_K} in [0, N] whose values xor to 0, from
/// `ordered[o]` = T(o), the number of ordered o-tuples with xor 0, for o = 0..=K.
/// An inexact division (a wrong T) is an error, never rounded away.
pub fn multisets_from_ordered(heaps: usize, limit: usize, ordered: &[BigUint]) -> Result<BigUint> {
    check_heaps(heaps)?;
    assert_eq!(ordered.len(), heaps + 1, "T(o) is needed for o = 0..=K");
    let positions = BigUint::from(limit) + 1u32;
    let mut total = BigUint::zero();
    for class in odd_even_classes(heaps) {
        total += &class.count * positions.pow(class.even as u32) * &ordered[class.odd];
    }
    let factorial_k = factorial(heaps);
    if !(&total % &factorial_k).is_zero() {
        return Err(Error::Disagreement(format!(
            "the cycle-index sum {total} for {heaps} heaps is not a multiple of {heaps}!"
        )));
    }
    Ok(total / factorial_k)
}

/// The three-heap count from T(3), the number of ordered triples of nim-sum 0, by
/// Burnside's lemma: a transposition fixes the (N+1)·z triples (a, a, c) with g(c) = 0 and
/// a three-cycle the z triples (a, a, a) with g(a) = 0, where z = f(0), so
/// L = (T(3) + 3(N+1)z + 2z) / 6. The numerator is six times a number of orbits; a remainder
/// means a wrong T(3) or histogram and is an error, never rounded away. Every term is below
/// 2^98 for N < 2^32, so `u128` holds it.
pub fn three_heaps_from_ordered(ordered: u128, limit: usize, zeros: u64) -> Result<u128> {
    let (z, n1) = (zeros as u128, limit as u128 + 1);
    let numerator = ordered + 3 * n1 * z + 2 * z;
    if !numerator.is_multiple_of(6) {
        return Err(Error::Disagreement(format!(
            "the Burnside numerator {numerator} is not a multiple of 6"
        )));
    }
    Ok(numerator / 6)
}

/// The answer as `u128`, or an error saying it overflows (never a wrapped value).
pub fn to_u128(heaps: usize, limit: usize, answer: &BigUint) -> Result<u128> {
    answer.to_u128().ok_or_else(|| {
        Error::Overflow(format!(
            "the count for {heaps} heaps at N = {limit} is {answer}, which overflows u128 (it has {} bits); choose fewer heaps or a smaller N",
            answer.bits()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_add_up_to_k_factorial() {
        for k in 1..=MAX_HEAPS {
            let sum: BigUint = odd_even_classes(k).iter().map(|c| c.count.clone()).sum();
            assert_eq!(sum, factorial(k), "K = {k}");
        }
    }

    #[test]
    fn classes_of_s3_and_s4() {
        // S_3: identity (3 odd), three transpositions (1 odd + 1 even), two 3-cycles (1 odd).
        let s3 = odd_even_classes(3);
        let as_tuples: Vec<(usize, usize, u32)> = s3
            .iter()
            .map(|c| (c.odd, c.even, c.count.to_u32().unwrap()))
            .collect();
        assert_eq!(as_tuples, vec![(1, 0, 2), (1, 1, 3), (3, 0, 1)]);
        // S_4: 1^4 (1), 2 1^2 (6), 2^2 (3), 3 1 (8), 4 (6).
        let s4: Vec<(usize, usize, u32)> = odd_even_classes(4)
            .iter()
            .map(|c| (c.odd, c.even, c.count.to_u32().unwrap()))
            .collect();
        assert_eq!(
            s4,
            vec![(0, 1, 6), (0, 2, 3), (2, 0, 8), (2, 1, 6), (4, 0, 1)]
        );
    }

    #[test]
    fn all_values_zero_gives_all_multisets() {
        // With every value 0, every multiset counts: C(N+K, K). Here T(o) = (N+1)^o.
        for k in 1..=6usize {
            for n in 0..=7usize {
                let t: Vec<BigUint> = (0..=k)
                    .map(|o| BigUint::from(n + 1).pow(o as u32))
                    .collect();
                let got = multisets_from_ordered(k, n, &t).unwrap();
                let want = factorial(n + k) / (factorial(n) * factorial(k));
                assert_eq!(got, want, "K = {k}, N = {n}");
            }
        }
    }

    #[test]
    fn refuses_bad_heaps_and_overflow() {
        assert!(check_heaps(0).is_err());
        assert!(check_heaps(17).is_err());
        assert!(check_heaps(16).is_ok());
        let big = BigUint::one() << 128u32;
        let err = to_u128(16, 5, &big).unwrap_err().to_string();
        assert!(err.contains("overflows u128"), "{err}");
        assert_eq!(to_u128(3, 5, &(big - 1u32)).unwrap(), u128::MAX);
    }
}
