//! `burnside`: the count from the value histogram alone, by Burnside's lemma (the sorted
//! triples are the orbits of the ordered ones under the permutations of the three heaps).
//!
//! Algorithm: with f(x) the number of n <= N of value x, the ordered triples of nim-sum 0
//! number |X| = sum over x, y of f(x)·f(y)·f(x xor y). The six permutations of the three
//! coordinates act on X; a transposition fixes the (N+1)·z triples (a, a, c) with g(c) = 0,
//! a three-cycle the z triples (a, a, a) with g(a) = 0, where z = f(0). Averaging,
//! L = (|X| + 3(N+1)z + 2z) / 6.
//!
//! Cost: O(G^2) for G = max value + 1, after the O(N) histogram the table already holds.
//!
//! Invariant: the numerator is a multiple of 6 (it is six times the number of orbits);
//! a remainder would mean a wrong histogram, and is reported rather than rounded away
//! ([`cycle_index::three_heaps_from_ordered`]).
//! |X| <= (N+1)^3 < 2^97 for N < 2^32, so `u128` holds every term.
//!
//! Any number of heaps K != 3 (1 <= K <= 16) goes through the cycle index of S_K
//! ([`super::cycle_index`]), which needs T(o), the number of ordered o-tuples of nim-sum 0,
//! for o = 0..=K. Here T(o) is computed directly in the value domain, with no transform:
//! T(o) = f^{*o}(0), the o-fold xor convolution of the histogram evaluated at 0, built one
//! convolution at a time (h_0 = [1, 0, …], h_o(y) = sum_x h_{o-1}(x)·f(x xor y)) over the
//! alphabet padded to a power of two W. Cost O(K·W^2) big-integer products; the values
//! reach (N+1)^K, so they are [`BigUint`], and the answer is returned as `u128` or refused
//! with an error when it overflows. This is deliberately a different route from `wht`, so
//! the two check each other for every K.

use super::cycle_index::{self, check_heaps, MAX_HEAPS};
use super::Counter;
use crate::base::error::Result;
use crate::cost::{Demand, Model, Primitive};
use crate::registry::{Entry, Role};
use crate::table::Table;
use num_bigint::BigUint;
use num_traits::{One, Zero};
use std::ops::RangeInclusive;

/// The registry entry of `burnside`.
pub const ENTRY: Entry<dyn Counter> = Entry {
    name: "burnside",
    description: "Burnside's lemma on the value histogram: (|X| + 3(N+1)z + 2z) / 6; any K by the cycle index and xor convolution",
    cost: "O(N + G^2); K != 3: O(N + K * G^2) big-integer products",
    role: Role::Fast,
    model: Model {
        summary: "three heaps: 2 multiply-adds f(x)*f(y)*f(x xor y) per pair of values, 2*G^2 (the histogram comes with the table)",
        parallel: false,
        demand: |w| {
            let g = w.alphabet as f64;
            Demand::default().with(Primitive::MulAdd, 2.0 * g * g)
        },
    },
    kernels: &[],
    make: || Box::new(Burnside),
};

/// Burnside's lemma over the value histogram. See the module documentation.
pub struct Burnside;

impl Counter for Burnside {
    fn count(&self, table: &Table, heaps: usize) -> Result<u128> {
        if heaps != 3 {
            let answer = burnside_count_big(table, heaps)?;
            return cycle_index::to_u128(heaps, table.limit(), &answer);
        }
        let f: Vec<u128> = table.histogram().iter().map(|&c| c as u128).collect();
        let g = f.len();
        let mut ordered = 0u128;
        for x in 0..g {
            for y in 0..g {
                if let Some(&fz) = f.get(x ^ y) {
                    ordered += f[x] * f[y] * fz;
                }
            }
        }
        cycle_index::three_heaps_from_ordered(ordered, table.limit(), table.cold_count())
    }

    fn count_exact(&self, table: &Table, heaps: usize) -> Result<BigUint> {
        burnside_count_big(table, heaps)
    }

    fn heaps(&self) -> RangeInclusive<usize> {
        1..=MAX_HEAPS
    }

    fn scratch_bytes(&self, alphabet: usize, _threads: usize) -> u64 {
        // Three big-integer vectors of W entries (the histogram, the running convolution and
        // the next one), each below 2^640 (80 bytes of digits and a 24-byte header), and the
        // cycle-index sum.
        3 * 104 * alphabet.next_power_of_two() as u64 + super::cycle_index::CYCLE_INDEX_BYTES
    }
}

/// The exact count of sorted K-tuples with xor 0 for 1 <= K <= 16, through repeated xor
/// convolution of the histogram (see the module documentation).
pub fn burnside_count_big(table: &Table, heaps: usize) -> Result<BigUint> {
    check_heaps(heaps)?;
    let hist = table.histogram();
    let w = hist.len().next_power_of_two();
    let f: Vec<BigUint> = (0..w)
        .map(|x| BigUint::from(hist.get(x).copied().unwrap_or(0)))
        .collect();
    let mut h = vec![BigUint::zero(); w];
    h[0] = BigUint::one();
    let mut ordered = vec![h[0].clone()];
    for _ in 1..=heaps {
        let next: Vec<BigUint> = (0..w)
            .map(|y| {
                (0..w)
                    .filter(|&x| !h[x].is_zero() && !f[x ^ y].is_zero())
                    .map(|x| &h[x] * &f[x ^ y])
                    .sum()
            })
            .collect();
        h = next;
        ordered.push(h[0].clone());
    }
    cycle_index::multisets_from_ordered(heaps, table.limit(), &ordered)
}
