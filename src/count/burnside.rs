//! `burnside`: the count from the value histogram alone, by Burnside's lemma (seed
//! `000_242f32a778847c70.txt`, "Complexity and Verification").
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
//! a remainder would mean a wrong histogram, and is reported rather than rounded away.
//! |X| <= (N+1)^3 < 2^97 for N < 2^32, so `u128` holds every term.

use super::{only_three_heaps, Counter};
use crate::error::{Error, Result};
use crate::table::Table;

/// Burnside's lemma over the value histogram. See the module documentation.
pub struct Burnside;

impl Counter for Burnside {
    fn count(&self, table: &Table, heaps: usize) -> Result<u128> {
        only_three_heaps("burnside", heaps)?;
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
        let z = f[0];
        let n1 = table.limit() as u128 + 1;
        let numerator = ordered + 3 * n1 * z + 2 * z;
        if numerator % 6 != 0 {
            return Err(Error::Disagreement(format!(
                "Burnside numerator {numerator} is not a multiple of 6"
            )));
        }
        Ok(numerator / 6)
    }
}
