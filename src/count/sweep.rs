//! `sweep`: the seed's middle-heap sweep (seed `000_242f32a778847c70.txt` §7-9).
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

use super::{only_three_heaps, sweep_range, Counter};
use crate::error::Result;
use crate::table::Table;

/// The scalar middle-heap sweep. See the module documentation.
pub struct Sweep;

impl Counter for Sweep {
    fn count(&self, table: &Table, heaps: usize) -> Result<u128> {
        only_three_heaps("sweep", heaps)?;
        let hist = table.histogram();
        let mut prefix = vec![0u64; hist.len()];
        let mut suffix = vec![0u64; hist.len().next_power_of_two()];
        suffix[..hist.len()].copy_from_slice(hist);
        Ok(sweep_range(table.values(), &mut prefix, &mut suffix))
    }
}
