//! `wht`: the count in the Walsh–Hadamard domain of the value histogram, for any number of
//! heaps K (1 <= K <= 16).
//!
//! Algorithm: pad the histogram f (f(x) = #{n <= N : g(n) = x}) with zeros to W, the next
//! power of two >= G (G = max value + 1), and transform it:
//! F(k) = sum over x of (-1)^popcount(x & k) · f(x). The transform turns xor convolution into
//! pointwise products, and (1/W)·sum_k of a transform is the value at 0, so the ordered
//! o-tuples of heaps whose values xor to 0 number
//!
//!   T(o) = (1/W) · sum_k F(k)^o.
//!
//! The cycle index of S_K ([`super::cycle_index`]) turns these into the sorted count.
//! For K = 3 that is `burnside`'s formula, L = (T(3) + 3(N+1)z + 2z)/6 with z = f(0),
//! and it runs in `i128` without allocation beyond the transform; every other K runs in big
//! integers (see below).
//!
//! Cost: O(N) for the histogram (already in the [`Table`]), O(W log W) for the transform,
//! then O(W) for K = 3 and O(W·K) big-integer products otherwise; W < 2G.
//!
//! Invariant and exactness. Every partial butterfly value is a signed sum of a subset of the
//! histogram, so |F(k)| <= sum f = N+1 <= 2^32 (N < 2^32, [`crate::table::MAX_LIMIT`]) and
//! `i64` holds the transform. For K = 3: |F(k)^3| <= 2^96 and W <= 2^16 (values are `u16`,
//! so G <= 2^16), hence |sum_k F(k)^3| <= 2^16 · 2^96 = 2^112 < 2^127: the sum of cubes
//! cannot overflow `i128`. W·T(3) = sum_k F(k)^3 must be an exact multiple of W, and the
//! Burnside numerator a multiple of 6; a remainder in either is reported as an error, not
//! rounded. For K != 3, F(k)^K reaches 2^512 and the count C(N+K, K) about 2^468, so the
//! power sums and the cycle index are computed in [`BigUint`]/[`BigInt`], and the final
//! answer is returned as `u128` when it fits and as an [`Error::Overflow`] saying it
//! overflows `u128` otherwise ([`wht_count_big`] returns the exact value whatever its size).
//! The `Counter` signature stays `u128` because every other back-end and the CLI use it,
//! and every count of three heaps (the project's workload) fits it.

use super::cycle_index::{self, check_heaps, MAX_HEAPS};
use super::Counter;
use crate::base::error::{Error, Result};
use crate::cost::{Demand, Model, Primitive};
use crate::kernels::hadamard::walsh_hadamard;
use crate::kernels::Family;
use crate::registry::{Entry, Role};
use crate::table::Table;
use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{One, Zero};
use std::ops::RangeInclusive;

/// The registry entry of `wht`.
pub const ENTRY: Entry<dyn Counter> = Entry {
    name: "wht",
    description: "Walsh-Hadamard transform of the value histogram: ordered xor-0 tuples = (1/W) sum F(k)^K; any K by the cycle index",
    cost: "O(N + G log G); K != 3: O(N + G log G + K * G) big-integer products",
    role: Role::Fast,
    model: Model {
        summary: "three heaps: W*log2(W) butterfly adds and W cubes, W = G rounded up to a power of two (each counted as one multiply-add)",
        parallel: false,
        demand: |w| {
            let width = w.alphabet.next_power_of_two() as f64;
            Demand::default().with(Primitive::MulAdd, width * width.log2() + width)
        },
    },
    kernels: &[Family::Hadamard],
    make: || Box::new(Wht),
};

/// The Walsh–Hadamard counter. See the module documentation.
pub struct Wht;

impl Counter for Wht {
    fn count(&self, table: &Table, heaps: usize) -> Result<u128> {
        if heaps == 3 {
            return three_heaps(table);
        }
        let answer = wht_count_big(table, heaps)?;
        cycle_index::to_u128(heaps, table.limit(), &answer)
    }

    fn count_exact(&self, table: &Table, heaps: usize) -> Result<num_bigint::BigUint> {
        wht_count_big(table, heaps)
    }

    fn heaps(&self) -> RangeInclusive<usize> {
        1..=MAX_HEAPS
    }

    fn scratch_bytes(&self, alphabet: usize, _threads: usize) -> u64 {
        // The transform (i64) and, for K != 3, K + 1 big-integer power sums (below 2^640:
        // 80 bytes of digits and a 24-byte header each) and the cycle-index sum.
        8 * alphabet.next_power_of_two() as u64
            + 104 * (MAX_HEAPS as u64 + 1)
            + cycle_index::CYCLE_INDEX_BYTES
    }
}

/// The transform F of the table's histogram padded to the next power of two.
fn transformed_histogram(table: &Table) -> Vec<i64> {
    let hist = table.histogram();
    let mut f = vec![0i64; hist.len().next_power_of_two()];
    for (slot, &count) in f.iter_mut().zip(hist) {
        *slot = count as i64;
    }
    walsh_hadamard(&mut f);
    f
}

/// K = 3 in `i128` (bound proved in the module documentation).
fn three_heaps(table: &Table) -> Result<u128> {
    let f = transformed_histogram(table);
    let w = f.len() as i128;
    let sum_of_cubes: i128 = f
        .iter()
        .map(|&v| (v as i128) * (v as i128) * (v as i128))
        .sum();
    if sum_of_cubes % w != 0 || sum_of_cubes < 0 {
        return Err(Error::Disagreement(format!(
            "wht: sum of cubes {sum_of_cubes} is not a non-negative multiple of W = {w}"
        )));
    }
    let ordered = (sum_of_cubes / w) as u128;
    cycle_index::three_heaps_from_ordered(ordered, table.limit(), table.cold_count())
}

/// The exact count of sorted K-tuples with xor 0, whatever its size, for 1 <= K <= 16.
pub fn wht_count_big(table: &Table, heaps: usize) -> Result<BigUint> {
    check_heaps(heaps)?;
    let f = transformed_histogram(table);
    let w = BigInt::from(f.len());
    // power_sums[o] = sum_k F(k)^o, for o = 0..=K.
    let mut power_sums = vec![BigInt::zero(); heaps + 1];
    for &v in &f {
        let v = BigInt::from(v);
        let mut power = BigInt::one();
        power_sums[0] += &power;
        for sum in power_sums.iter_mut().skip(1) {
            power *= &v;
            *sum += &power;
        }
    }
    let mut ordered = Vec::with_capacity(heaps + 1);
    for (o, sum) in power_sums.into_iter().enumerate() {
        let remainder = &sum % &w;
        if !remainder.is_zero() || sum.sign() == Sign::Minus {
            return Err(Error::Disagreement(format!(
                "wht: sum of F(k)^{o} = {sum} is not a non-negative multiple of W = {w}"
            )));
        }
        let (_, magnitude) = (sum / &w).into_parts();
        ordered.push(magnitude);
    }
    cycle_index::multisets_from_ordered(heaps, table.limit(), &ordered)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::base::rng::SplitMix64;

    #[test]
    fn three_heap_path_equals_general_path() {
        let mut rng = SplitMix64(12345);
        for _ in 0..50 {
            let len = rng.range(1, 200) as usize;
            let values: Vec<u16> = (0..len).map(|_| rng.below(13) as u16).collect();
            let table = Table::from_values(values);
            let fast = three_heaps(&table).unwrap();
            let general = wht_count_big(&table, 3).unwrap();
            assert_eq!(BigUint::from(fast), general);
        }
    }

    #[test]
    fn overflow_is_refused_not_wrapped() {
        // All values 0 at N = 10^6: every multiset counts, C(10^6 + 16, 16) > 2^128.
        let table = Table::from_values(vec![0u16; 1_000_001]);
        let err = Wht.count(&table, 16).unwrap_err().to_string();
        assert!(err.contains("overflows u128"), "{err}");
        let exact = wht_count_big(&table, 16).unwrap();
        let rising: BigUint = (1_000_001u32..=1_000_016).map(BigUint::from).product();
        let want = rising / cycle_index::factorial(16);
        assert_eq!(exact, want);
    }

    #[test]
    fn scratch_is_the_transform_and_seventeen_power_sums() {
        // G = 75 (the squares' at 10^5): W = 128 i64 values (1024 bytes), plus 104 bytes for
        // each of the K + 1 <= 17 power sums (80 bytes of digits below 2^640 and a 24-byte
        // header), plus the cycle-index sum's 64 KiB.
        assert_eq!(Wht.scratch_bytes(75, 1), 1024 + 104 * 17 + 65_536);
    }

    #[test]
    fn the_cost_model_counts_w_log_w_butterflies_and_w_cubes() {
        let w = crate::cost::Workload {
            limit: 100_000,
            steps: 0.0,
            alphabet: 75,
            mean_value: 0.0,
            threads: 1,
            rare_steps: 0.0,
        };
        // W = 128: 128 · log2(128) = 896 butterfly adds and 128 cubes.
        let demand = (ENTRY.model.demand)(&w);
        assert_eq!(demand.of(Primitive::MulAdd), 896.0 + 128.0);
    }

    #[test]
    fn a_table_with_no_xor_zero_triple_counts_zero() {
        // Values 1 and 2 only: 1^1^1 = 1, 1^1^2 = 2, 1^2^2 = 1, 2^2^2 = 2, so no sorted
        // triple xors to 0 (the loop below checks every one); the sum of cubes is then
        // exactly 0 and must not be taken for an error.
        let values = [1u16, 2];
        let mut zero = 0;
        for a in 0..2 {
            for b in a..2 {
                for c in b..2 {
                    zero += u32::from(values[a] ^ values[b] ^ values[c] == 0);
                }
            }
        }
        assert_eq!(zero, 0);
        let table = Table::from_values(values.to_vec());
        assert_eq!(Wht.count(&table, 3).unwrap(), 0);
    }
}
