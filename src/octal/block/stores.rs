//! The byte stores of `octal-block`, counted by an instrumented build (feature
//! `count-stores`; without it every count compiles to nothing): what bounds the back-end
//! (about one store a cycle a core), so a change that cuts stores is measured by their
//! count as well as by time.
//!
//! Counted where the stores are made, by kind: the lanes' rare pairs and their shared sweep
//! (each entry stores once per lane), the rare pairs of the heaps decided one at a time and
//! of the near pass, the sweeps of a heap alone (far and near), and the heaps the block
//! passes decide. Cost in an instrumented build: one atomic add per kernel call, shared by
//! the threads (its times are not the back-end's).
//!
//! Invariant: with the feature, [`counted`] is the sum over every fill since the process
//! began (or the last [`reset`]). They depend on the thread count through the pipeline
//! (with a worker, each far pass reads one block less and leaves more to the near pass),
//! and on where a long run's chunks end, which follows the measured rate (a chunk's first
//! far pass is not pipelined): two runs of one command differ by about 0.1%.

use serde::Serialize;

/// The stores counted, by kind (see the module doc).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Stores {
    /// The lanes' rare pairs: entries times lanes.
    pub lane_rare: u64,
    /// The lanes' shared sweep: entries times lanes.
    pub lane_sweep: u64,
    /// Of `lane_sweep`, the stores of lanes still missing a rare value when the chunk began
    /// (entries times open lanes): what storing for the open lanes only would keep.
    pub lane_sweep_open: u64,
    /// The rare pairs of heaps decided one at a time (the far pass outside the lanes, the
    /// near pass).
    pub rare_pairs: u64,
    /// The pairs swept by a heap alone (far and near).
    pub sweep: u64,
    /// The heaps the block passes decided.
    pub heaps: u64,
}

/// The kinds, as indices into the counters.
#[derive(Debug, Clone, Copy)]
pub(super) enum Kind {
    LaneRare,
    LaneSweep,
    LaneSweepOpen,
    RarePairs,
    Sweep,
    Heaps,
}

#[cfg(feature = "count-stores")]
static COUNTS: [std::sync::atomic::AtomicU64; 6] =
    [const { std::sync::atomic::AtomicU64::new(0) }; 6];

/// Counts `n` stores (or heaps) of `kind`; nothing without the feature.
#[inline(always)]
pub(super) fn add(kind: Kind, n: usize) {
    #[cfg(feature = "count-stores")]
    COUNTS[kind as usize].fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
    #[cfg(not(feature = "count-stores"))]
    let _ = (kind, n);
}

/// The counts so far, in an instrumented build; `None` otherwise.
pub fn counted() -> Option<Stores> {
    #[cfg(feature = "count-stores")]
    {
        let c = |k: Kind| COUNTS[k as usize].load(std::sync::atomic::Ordering::Relaxed);
        Some(Stores {
            lane_rare: c(Kind::LaneRare),
            lane_sweep: c(Kind::LaneSweep),
            lane_sweep_open: c(Kind::LaneSweepOpen),
            rare_pairs: c(Kind::RarePairs),
            sweep: c(Kind::Sweep),
            heaps: c(Kind::Heaps),
        })
    }
    #[cfg(not(feature = "count-stores"))]
    None
}

/// Sets every count to 0 (an instrumented build's tests).
pub fn reset() {
    #[cfg(feature = "count-stores")]
    for c in &COUNTS {
        c.store(0, std::sync::atomic::Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instrumented_build_counts_every_heap_the_block_passes_decide() {
        // Officers to 20 000 by one fill on one thread: the block passes decide every heap
        // past the candidate search's prefix of 4096. The counters are the process's: with
        // the feature this test runs alone (.ci/run names it), no other build beside it.
        let rules = crate::octal::Rules::parse("0.6").unwrap();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        reset();
        let limit = 20_000;
        one.install(|| crate::octal::build("octal-block", &rules, limit).unwrap());
        let counts = counted();
        assert_eq!(counts.is_some(), cfg!(feature = "count-stores"));
        if let Some(s) = counts {
            assert_eq!(s.heaps, limit + 1 - 4096, "{s:?}");
            assert!(s.lane_rare > 0 && s.lane_sweep > 0, "{s:?}");
            assert!(s.lane_sweep_open <= s.lane_sweep, "{s:?}");
        }
    }
}
