//! `rayon-sweep`: the middle-heap sweep split into chunks of b that run in parallel.
//!
//! Algorithm: cut 0..=N into chunks; build each chunk's value histogram in parallel; an
//! exclusive prefix sum over the chunk histograms gives, for each chunk starting at b0, the
//! counts of values at positions < b0 (its starting prefix table) and, subtracted from the
//! whole histogram, at positions >= b0 (its starting suffix table). Each chunk then runs
//! the sequential sweep from those tables, in parallel, and the partial sums are added.
//!
//! Cost: O(N·G / threads) for the sweeps, O(N / threads) for the histograms, and
//! O(chunks·G) for the prefix sums.
//!
//! Invariant: a chunk starting at b0 starts with exactly the tables the sequential sweep
//! holds on reaching b0, so each b's term, and therefore the sum, is the same.

use super::{sweep_demand, sweep_range, Counter};
use crate::base::error::Result;
use crate::cost::{Model, Primitive};
use crate::kernels::Family;
use crate::registry::{Entry, Role};
use crate::table::Table;
use rayon::prelude::*;
use std::ops::RangeInclusive;

/// The registry entry of `rayon-sweep`.
pub const ENTRY: Entry<dyn Counter> = Entry {
    name: "rayon-sweep",
    description:
        "the sweep in parallel chunks, started from prefix sums of per-chunk histograms",
    cost: "O(N * G / threads + chunks * G)",
    role: Role::Fast,
    model: Model {
        summary: "on all threads: the sweep's G multiply-adds per position, plus one histogram increment per position; the table read twice",
        parallel: true,
        demand: |w| {
            sweep_demand(w)
                .with(Primitive::OrScan, w.positions())
                .with(Primitive::Stream, 2.0 * w.positions())
        },
    },
    kernels: &[Family::XorDot],
    make: || Box::new(RayonSweep),
};

/// The chunked parallel sweep. See the module documentation.
pub struct RayonSweep;

/// Smallest chunk worth a task of its own.
const MIN_CHUNK: usize = 1 << 14;

/// The chunk length for `positions` positions on `threads` threads: four chunks a thread, so
/// that a slow chunk leaves the other threads work to steal, but never below [`MIN_CHUNK`].
/// Any length gives the same count; this one only decides how the work spreads.
fn chunk_len(positions: usize, threads: usize) -> usize {
    (positions / (4 * threads)).max(MIN_CHUNK)
}

impl Counter for RayonSweep {
    fn count(&self, table: &Table, _heaps: usize) -> Result<u128> {
        let values = table.values();
        let alphabet = table.alphabet();
        let padded = alphabet.next_power_of_two();
        let chunk = chunk_len(values.len(), rayon::current_num_threads());
        let chunk_histograms: Vec<Vec<u64>> = values
            .par_chunks(chunk)
            .map(|c| {
                let mut h = vec![0u64; alphabet];
                c.iter().for_each(|&v| h[v as usize] += 1);
                h
            })
            .collect();
        // Exclusive prefix sums: the value counts before each chunk.
        let mut before = vec![0u64; alphabet];
        let starts: Vec<Vec<u64>> = chunk_histograms
            .iter()
            .map(|h| {
                let start = before.clone();
                before.iter_mut().zip(h).for_each(|(b, &c)| *b += c);
                start
            })
            .collect();
        let total = table.histogram();
        Ok(values
            .par_chunks(chunk)
            .zip(starts.into_par_iter())
            .map(|(c, mut prefix)| {
                let mut suffix = vec![0u64; padded];
                for v in 0..alphabet {
                    suffix[v] = total[v] - prefix[v];
                }
                sweep_range(c, &mut prefix, &mut suffix)
            })
            .sum())
    }

    fn heaps(&self) -> RangeInclusive<usize> {
        3..=3
    }

    fn scratch_bytes(&self, alphabet: usize, threads: usize) -> u64 {
        // A histogram and a starting prefix per chunk (4 chunks per thread at most when the
        // table is large), and each running chunk's sweep tables.
        // Each chunk's vectors also have a header, and rayon's collect keeps a list node per
        // piece: 128 bytes a chunk.
        let w = alphabet.next_power_of_two() as u64;
        let chunks = 4 * threads as u64 + 1;
        chunks * (16 * w + 128) + 8 * w + threads as u64 * (8 * 3 + 4 * 5) * w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four chunks a thread once the table is large (10^6 positions on 2 threads: 8 chunks
    /// of 125 000), never below 2^14 positions (10^5 on 2 threads would give 12 500).
    #[test]
    fn chunks_are_a_quarter_of_a_threads_share_and_never_below_the_minimum() {
        assert_eq!(chunk_len(1_000_000, 2), 125_000);
        assert_eq!(chunk_len(1_000_000, 1), 250_000);
        assert_eq!(chunk_len(100_000, 2), 1 << 14);
        assert_eq!(chunk_len(1 << 17, 2), 1 << 14);
    }
}
