//! `brute`: the count control, the definition itself.
//!
//! Algorithm: enumerate every sorted K-tuple 0 <= a_1 <= … <= a_K <= N and test whether the
//! values xor to 0 (for three heaps, the two outer loops and a scan of the third heap). It
//! exists only to check the fast back-ends, is never chosen by `auto` nor timed by the bench
//! matrix, and is run only where it affords the input.
//!
//! Cost: C(N+K, K) tuples (O(N^3) for three heaps).
//!
//! Invariant: each multiset is visited once, as its sorted tuple.

use super::Counter;
use crate::base::error::Result;
use crate::cost::{Demand, Model, Primitive};
use crate::registry::{Entry, Role};
use crate::table::Table;
use std::ops::RangeInclusive;

/// Three heaps: brute force runs up to this N.
pub const AFFORDABLE_TRIPLES: usize = 100;
/// Other K: brute force runs while it enumerates at most this many multisets.
pub const AFFORDABLE_MULTISETS: u128 = 5_000_000;

/// The registry entry of `brute`.
pub const ENTRY: Entry<dyn Counter> = Entry {
    name: "brute",
    description: "control: enumerate every sorted tuple and test its nim-sum",
    cost: "O(C(N+K, K)); affords N <= 100 for three heaps",
    role: Role::Control,
    model: Model {
        summary: "three heaps: one xor-and-compare word op per sorted triple, C(N+3, 3) of them",
        parallel: false,
        demand: |w| {
            let p = w.positions();
            Demand::default().with(Primitive::OrScan, p * (p + 1.0) * (p + 2.0) / 6.0)
        },
    },
    kernels: &[],
    make: || Box::new(Brute),
};

/// Brute-force enumeration. See the module documentation.
pub struct Brute;

impl Counter for Brute {
    fn count(&self, table: &Table, heaps: usize) -> Result<u128> {
        Ok(if heaps == 3 {
            triples(table.values())
        } else {
            extend(table.values(), 0, heaps, 0)
        })
    }

    fn heaps(&self) -> RangeInclusive<usize> {
        1..=super::MAX_HEAPS
    }

    fn affordable(&self, limit: usize, heaps: usize) -> bool {
        affordable(limit, heaps)
    }

    fn scratch_bytes(&self, _alphabet: usize, _threads: usize) -> u64 {
        0
    }
}

/// True when brute force affords (N, K).
pub fn affordable(limit: usize, heaps: usize) -> bool {
    if heaps == 3 {
        return limit <= AFFORDABLE_TRIPLES;
    }
    multisets(limit, heaps).is_some_and(|m| m <= AFFORDABLE_MULTISETS)
}

/// C(N+K, K), the number of sorted K-tuples in [0, N], or `None` past `u128`.
pub fn multisets(limit: usize, heaps: usize) -> Option<u128> {
    let mut c = 1u128;
    for i in 1..=heaps as u128 {
        c = c.checked_mul(limit as u128 + i)? / i;
    }
    Some(c)
}

/// Sorted triples with nim-sum 0: for each a <= b, the c >= b with g(c) = g(a) xor g(b).
fn triples(g: &[u16]) -> u128 {
    let mut count = 0u128;
    for a in 0..g.len() {
        for b in a..g.len() {
            let ab = g[a] ^ g[b];
            count += g[b..].iter().filter(|&&gc| gc == ab).count() as u128;
        }
    }
    count
}

/// The completions of a sorted prefix whose values xor to `xor`, choosing `left` more heaps,
/// each at least `from` (K = 0 counts the one empty multiset).
fn extend(g: &[u16], from: usize, left: usize, xor: u16) -> u128 {
    if left == 0 {
        return u128::from(xor == 0);
    }
    (from..g.len())
        .map(|a| extend(g, a, left - 1, xor ^ g[a]))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multisets_is_the_binomial() {
        assert_eq!(multisets(4, 3), Some(35)); // C(7, 3)
        assert_eq!(multisets(10, 0), Some(1));
        assert_eq!(multisets(usize::MAX, 16), None);
    }

    #[test]
    fn all_zero_values_count_every_multiset() {
        let t = Table::from_values(vec![0; 6]);
        for k in 1..=4 {
            assert_eq!(Brute.count(&t, k).unwrap(), multisets(5, k).unwrap());
        }
    }
}
