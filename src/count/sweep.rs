//! `sweep`: the middle-heap sweep, each sorted triple counted at its middle heap; the
//! stage's reference.
//!
//! Algorithm: every sorted triple a <= b <= c is counted once, at its middle entry b. With
//! P_b(x) = #{a <= b : g(a) = x} and S_b(y) = #{c >= b : g(c) = y}, the triples with middle
//! b number sum over x of P_b(x)·S_b(x xor g(b)). Sweeping b upward adds one entry to P and
//! removes one from S.
//!
//! Cost: O(N·G) for G = max value + 1 (7 500 075 inner steps at N = 10^5), O(G) memory.
//!
//! Invariant: g(b) is in the prefix table and still in the suffix table while b is counted;
//! the suffix table is padded to a power of two so x xor g(b) is always a valid index (the
//! padding holds zeros, since those values never occur).
//!
//! Its cost model prices multiply-adds only: the prefix and suffix table updates Callgrind
//! counts as writes (a few a position) stand beside a prediction of zero stores.

use super::{sweep_demand, sweep_range, Counter};
use crate::base::error::Result;
use crate::cost::Model;
use crate::kernels::Family;
use crate::registry::{Entry, Role};
use crate::table::Table;
use std::ops::RangeInclusive;

/// The registry entry of `sweep`.
pub const ENTRY: Entry<dyn Counter> = Entry {
    name: "sweep",
    description: "the middle-heap sweep with prefix and suffix value tables (the reference)",
    cost: "O(N * G), G = max value + 1",
    role: Role::Reference,
    model: Model {
        summary: "per position b (the middle heap) G multiply-adds P(x)*S(x xor g(b)) (G rounded up to 4); the table read once",
        parallel: false,
        demand: sweep_demand,
    },
    kernels: &[Family::XorDot],
    make: || Box::new(Sweep),
};

/// The scalar middle-heap sweep. See the module documentation.
pub struct Sweep;

impl Counter for Sweep {
    fn count(&self, table: &Table, _heaps: usize) -> Result<u128> {
        let hist = table.histogram();
        let mut prefix = vec![0u64; hist.len()];
        let mut suffix = vec![0u64; hist.len().next_power_of_two()];
        suffix[..hist.len()].copy_from_slice(hist);
        Ok(sweep_range(table.values(), &mut prefix, &mut suffix))
    }

    fn heaps(&self) -> RangeInclusive<usize> {
        3..=3
    }

    fn scratch_bytes(&self, alphabet: usize, _threads: usize) -> u64 {
        // Prefix and padded suffix tables, and the vector path's four permuted u32 copies.
        (8 * 3 + 4 * 5) * alphabet.next_power_of_two() as u64
    }
}
