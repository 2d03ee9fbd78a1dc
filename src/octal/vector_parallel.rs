//! `octal-vector-parallel`: `octal-vector` with each long candidate search split over the
//! rayon threads.
//!
//! Algorithm: as `octal-vector` (candidates x = 0, 1, 2, ... per position, each searched
//! among the split pairs of every splitting digit with the xor-pair kernel against the
//! mirrored g, mex = first x not attained). A search first scans the first `serial` pairs on
//! the calling thread, where an attained candidate usually stops; when that finds nothing
//! and more pairs remain, the rest is cut into chunks of `chunk` pairs searched in parallel
//! (`any`, which stops the other chunks once one hits). So the long passes (the mex's full
//! pass, n/2 pairs, at every position) are shared by the threads, and the short ones stay
//! on one thread, with no task overhead.
//!
//! Cost: as `octal-vector` in lane steps; the passes past `serial` pairs are divided over
//! the threads, plus one rayon fork-join per long pass.
//!
//! Invariant: the answer of a search does not depend on how the pairs are cut (it is
//! "some pair has value x"), so the table equals `octal-vector`'s. Positions are decided in
//! order; only the search inside one position is parallel.
//!
//! Paths (`--isa`, read once per `fill`): the fill is handed to
//! [`crate::kernels::xor_pairs::dispatch`] (through the candidate search's visitor, with
//! this back-end as its pair search); the chunks searched on the other threads call the same
//! path's kernel.

use super::method::candidate_search::{
    fill_on_active, mirror_bytes, one_pass_over_the_pairs, PairSearch,
};
use super::{Builder, Rules};
use crate::base::error::Result;
use crate::cost::Model;
use crate::kernels::xor_pairs::PairKernel;
use crate::kernels::Family;
use crate::registry::{Entry, Role};
use rayon::prelude::*;

/// The registry entry of `octal-vector-parallel`.
pub const ENTRY: Entry<dyn Builder<Rules>> = Entry {
    name: "octal-vector-parallel",
    description: "octal-vector with each candidate search past its first 2^17 pairs split into chunks of 2^18 searched on the rayon threads",
    cost: "O(S(N) / (W * threads)) lane steps for the mex passes plus one fork-join per long pass and the early-stopping searches",
    role: Role::Fast,
    model: Model {
        summary: "on all threads: per split option at least 4 bytes read in order (the mex's full pass over g and its mirror), counted as stream bytes (a lower bound: the early stops are left out)",
        parallel: true,
        demand: one_pass_over_the_pairs,
    },
    kernels: &[Family::XorPairs],
    make: || Box::new(OctalVectorParallel::default()),
};

/// The parallel candidate search (see the module doc).
#[derive(Debug, Clone, Copy)]
pub struct OctalVectorParallel {
    /// Pairs a search scans on the calling thread before it forks.
    pub serial: usize,
    /// Pairs per parallel chunk.
    pub chunk: usize,
}

impl Default for OctalVectorParallel {
    fn default() -> Self {
        OctalVectorParallel {
            // A chunk of 2^18 pairs is some microseconds of AVX2/AVX-512 compares, more than
            // a rayon fork costs; shorter searches stay on the calling thread (at 2^12 and
            // 2^14 Officers at N = 10^5 ran about 10 times slower than octal-vector).
            serial: 1 << 17,
            chunk: 1 << 18,
        }
    }
}

impl Builder<Rules> for OctalVectorParallel {
    fn fill(&self, rules: &Rules, g: &mut [u16], from: usize) -> Result<()> {
        fill_on_active(rules, g, from, *self)
    }

    fn scratch_bytes(&self, _rules: &Rules, limit: usize, _threads: usize) -> u64 {
        mirror_bytes(limit)
    }
}

impl PairSearch for OctalVectorParallel {
    /// True when some i has `lo[i] ^ hi[i] == x`: the head on this thread, the rest in chunks
    /// on the pool.
    #[inline(always)]
    fn some_pair<K: PairKernel>(self, lo: &[u16], hi: &[u16], x: u16) -> bool {
        let head = lo.len().min(self.serial);
        if K::first_match(&lo[..head], &hi[..head], x).is_some() {
            return true;
        }
        if lo.len() <= head {
            return false;
        }
        lo[head..]
            .par_chunks(self.chunk.max(1))
            .zip(hi[head..].par_chunks(self.chunk.max(1)))
            .any(|(a, b)| K::first_match(a, b, x).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::isa::{self, Isa};

    #[test]
    fn small_cuts_fork_every_long_search_and_give_the_controls_table_on_every_path() {
        // serial 16 and chunk 24: every search past 16 pairs forks into many chunks, so
        // the parallel part decides most positions of a table the control affords.
        let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        let cut = OctalVectorParallel {
            serial: 16,
            chunk: 24,
        };
        for code in ["0.6", "0.137", "grundy", "4.07"] {
            let rules = Rules::parse(code).unwrap();
            let want = crate::octal::build("octal-naive", &rules, 2500).unwrap();
            for path in Isa::supported_all() {
                let got = isa::with(path, || cut.build(&rules, 2500).unwrap()).unwrap();
                assert_eq!(got.values(), want.values(), "{code} on {path}");
            }
        }
    }
}
