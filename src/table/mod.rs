//! Stage 1, the table: the Grundy value g(n) of one heap for every n <= N.
//!
//! Every back-end implements [`Builder`] of [`Moves`] and returns the same [`Table`]; the registry
//! [`BACKENDS`] lists them. The naive control `naive-mex` ([`NaiveMex`]) computes the mex
//! straight from the definition; the checker ([`crate::instruments::check`]) compares every back-end with
//! it where it affords N, and with the reference back-end (`stamped`) beyond.
//!
//! Each back-end is a leaf file: it imports this module (the stage: [`Builder`],
//! [`Table`], the shared cost-model pieces), the kernels ([`crate::kernels`]), [`crate::base`],
//! [`crate::cost`] and [`crate::registry`], never another back-end, and declares its own
//! registry entry (`ENTRY`), which [`BACKENDS`] lists.

pub mod bitset;
pub mod bitset_parallel;
/// A correct back-end registered only in test builds (the contract test's fixture).
#[cfg(any(test, feature = "testing"))]
pub mod fixture_mex;
pub mod naive_mex;
pub mod spot_check;
pub mod stamped;
pub mod stamped_lanes;
pub mod stamped_parallel;
pub mod value_bounded;

/// The parallel back-ends' super-block sizes ([`crate::kernels::pipeline`]).
pub use crate::kernels::pipeline::Schedule;
pub use bitset::Bitset;
pub use bitset_parallel::BitsetParallel;
pub use naive_mex::NaiveMex;
pub use stamped::Stamped;
pub use stamped_lanes::StampedLanes;
pub use stamped_parallel::StampedParallel;
pub use value_bounded::ValueBounded;

use crate::base::error::Result;
use crate::base::moves::Moves;
use crate::cost::{Demand, Primitive, Workload};
use crate::grundy::{Builder, Kept, Rulebook};
use crate::kernels::pipeline::Job;
use crate::registry::Entry;

/// The table every workload's back-ends return (defined beside the shared traits).
pub use crate::grundy::Table;

pub use crate::base::limit::{Limit, MAX_LIMIT};

/// The largest value of the finished prefix g[..upto], what a table back-end whose mask
/// width grows with the values leaves in [`Kept`] between the chunks of a long run
/// ([`Builder::fill_kept`]), so a resumed fill starts from it without rescanning the prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrefixMax {
    /// The length of the prefix it is the max of.
    pub upto: usize,
    /// max(g[..upto]) (0 for an empty prefix).
    pub max: u16,
}

/// The [`Builder::fill_kept`] of the table back-ends that start their masks from the
/// prefix's largest value: runs `fill(moves, g, max_before)`, which computes g[from..] for
/// the moves up to N given max(g[..from]) = `max_before`. The max comes from `kept` when the
/// last chunk left it for exactly this prefix, else from a scan of g[..from]; afterwards
/// `kept` holds the max of the whole filled table (a scan of the new values only).
pub(crate) fn fill_from_prefix_max(
    moves: &Moves,
    g: &mut [u16],
    from: usize,
    kept: &mut Kept,
    fill: impl FnOnce(&[usize], &mut [u16], usize),
) -> Result<()> {
    let known = kept
        .as_ref()
        .and_then(|k| k.downcast_ref::<PrefixMax>())
        .filter(|m| m.upto == from)
        .map(|m| m.max);
    let max_before = known.unwrap_or_else(|| g[..from].iter().copied().max().unwrap_or(0));
    let moves = moves.up_to(g.len().saturating_sub(1));
    fill(&moves, g, max_before as usize);
    let max = g[from..].iter().copied().fold(max_before, u16::max);
    *kept = Some(Box::new(PrefixMax { upto: g.len(), max }));
    Ok(())
}

/// `fill_kept` of a pipelined back-end ([`crate::kernels::pipeline`]): the fill of
/// g[from..] from the prefix max, as one pipeline [`Job`] on `schedule` that `run` hands to
/// the back-end's dispatch.
pub(crate) fn fill_pipelined(
    schedule: &Schedule,
    (moves, g, from): (&Moves, &mut [u16], usize),
    kept: &mut Kept,
    run: impl FnOnce(Job<'_>),
) -> Result<()> {
    fill_from_prefix_max(moves, g, from, kept, |moves, g, max| {
        run(Job::new(schedule, moves, g, from, max))
    })
}

/// g(0..=limit) of `moves` by a table back-end, which cannot fail (its values are at most the
/// number of moves, so they fit a u16): [`Builder::build`] unwrapped, for the callers that
/// hold a table back-end.
pub fn build_with(builder: &(impl Builder<Moves> + ?Sized), moves: &Moves, limit: usize) -> Table {
    builder
        .build(moves, limit)
        .expect("a table back-end's values fit a u16")
}

/// The rules of a subtraction game as the table stage reads them: a move removes one of
/// the set's sizes from the heap.
impl Rulebook for Moves {
    fn label(&self) -> String {
        Moves::label(self)
    }

    /// The squares' workload is the one the count stage serves.
    fn counts(&self) -> Option<&Moves> {
        Some(self)
    }

    fn describe(&self) -> String {
        format!("moves {}", Moves::label(self))
    }

    fn options(&self, g: &[u16], n: usize, into: &mut Vec<u16>) {
        into.clear();
        into.extend(self.up_to(n).iter().map(|&s| g[n - s]));
    }

    fn option_steps(&self, limit: usize) -> u128 {
        Moves::option_steps(self, limit)
    }

    fn removals(&self, limit: usize) -> Vec<usize> {
        self.up_to(limit)
    }

    fn cost_workload(&self, table: &Table, threads: usize) -> Workload {
        table.workload(self, threads)
    }

    fn histogram_bytes(&self, limit: usize) -> u64 {
        // values are at most the number of moves up to N
        8 * (self.up_to(limit).len() as u64 + 1)
    }

    /// The bare label (`squares`, `1,3,4`): what the table files written before the other
    /// workloads carry, so they stay readable.
    fn file_label(&self) -> String {
        Moves::label(self)
    }

    fn first_wrong(&self, values: &[u16]) -> Option<(usize, u16, u16)> {
        spot_check::first_wrong(self, values)
    }
}

/// Every table back-end, in the order `list`, `verify` and the benches show them.
pub static BACKENDS: &[Entry<dyn Builder<Moves>>] = &[
    naive_mex::ENTRY,
    stamped::ENTRY,
    bitset::ENTRY,
    stamped_lanes::ENTRY,
    stamped_parallel::ENTRY,
    bitset_parallel::ENTRY,
    value_bounded::ENTRY,
    #[cfg(any(test, feature = "testing"))]
    fixture_mex::ENTRY,
];

crate::registry::stage!("table", dyn Builder<Moves>, BACKENDS, reference);

/// The table workload: a subtraction game's table (Nim Square's squares by default), built
/// by the back-ends of [`BACKENDS`].
pub static WORKLOAD: crate::registry::workload::WorkloadKind<dyn Builder<Moves>> =
    crate::registry::workload::WorkloadKind {
        about: "the Grundy table of a subtraction game (the squares: Nim Square)",
        heading: "table back-ends (--table NAME):",
        syntax: "`squares` or a move list like 1,3,4",
        example: "squares",
        parse: Moves::parse,
        // the planner (`auto`) chooses by N, threads and wisdom; what the workload itself
        // offers is its reference
        default: |_| reference(),
        stage: &STAGE,
    };

/// The model of the per-position mex (`stamped`, and `naive-mex` counted as generously): per
/// option step one store and 1/32 span load, per position g(n) + 1 word ops for the mex walk.
pub(crate) fn one_store_a_step_and_a_mex_walk(w: &Workload) -> Demand {
    table_io(w)
        .with(Primitive::Scatter, w.steps)
        .with(Primitive::Span, w.steps / 32.0)
        .with(Primitive::OrScan, w.positions() * (w.mean_value + 1.0))
}

/// The model of the mask mex (`bitset`, `bitset-parallel`): per option step one
/// shift-and-OR into a mask word and 1/32 span load; per position ceil(G/64) words cleared
/// and g(n)/64 + 1 words scanned for the mex.
pub(crate) fn mask_mex_demand(w: &Workload) -> Demand {
    let words = w.alphabet.div_ceil(64) as f64;
    table_io(w)
        .with(Primitive::OrScan, w.steps)
        .with(Primitive::Span, w.steps / 32.0)
        .with(
            Primitive::OrScan,
            w.positions() * (words + w.mean_value / 64.0 + 1.0),
        )
}

/// The table traffic every back-end has, in roofline terms (the cost model's primitives):
/// g(0..=N) written once and read at least once, 4 bytes a position of sequential bandwidth.
pub(crate) fn table_io(w: &Workload) -> Demand {
    Demand::default().with(Primitive::Stream, 4.0 * w.positions())
}

/// Bytes a table for N = `limit` needs with `builder` on `threads` threads: the u16 values,
/// the [`Table`]'s value histogram (a u64 per value, and values are at most the number of
/// moves) and the back-end's own scratch.
pub fn bytes_needed(
    builder: &dyn Builder<Moves>,
    moves: &Moves,
    limit: usize,
    threads: usize,
) -> u64 {
    crate::grundy::bytes_needed(builder, moves, limit, threads)
}

/// Checks `limit` (range and memory) and builds the table with the named back-end: the
/// library's entry for a caller holding a plain number.
pub fn build(name: &str, moves: &Moves, limit: u64) -> Result<Table> {
    let entry = find(name)?;
    let limit = Limit::new(limit)?.get();
    let builder = (entry.make)();
    let needed = bytes_needed(&*builder, moves, limit, rayon::current_num_threads());
    crate::base::memory::check_fits(
        needed,
        crate::base::memory::available_bytes(),
        &format!("the '{}' table for N = {limit}", entry.name),
    )?;
    builder.build(moves, limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary of a table whose largest value occurs twice, counted by hand: g = 0, 2, 1,
    /// 2, 0 has max 2, first at n = 1 (not its last place, 3), and histogram [2, 1, 2].
    #[test]
    fn the_summary_names_the_first_place_of_a_repeated_largest_value() {
        let t = Table::from_values(vec![0, 2, 1, 2, 0]);
        assert_eq!(t.limit(), 4);
        assert_eq!(t.max_value(), 2);
        assert_eq!(t.max_value_first_at(), 1);
        assert_eq!(t.histogram(), &[2, 1, 2]);
        assert_eq!(t.cold_count(), 2);
    }

    /// A workload with numbers easy to follow by hand: N + 1 = 1000 positions, 3200 option
    /// steps, G = 130 values (3 mask words), mean value 2.5.
    fn workload() -> Workload {
        Workload {
            limit: 999,
            steps: 3200.0,
            alphabet: 130,
            mean_value: 2.5,
            threads: 1,
            rare_steps: 0.0,
        }
    }

    /// The shared models, worked by hand: the table's traffic is 4 bytes a position (4000);
    /// the per-position mex adds a store a step (3200), a span load per 32 steps (100) and
    /// g + 1 word ops a position (1000 · 3.5); the mask mex a shift-and-OR a step and
    /// 3 + 2.5/64 + 1 words a position (3200 + 4039.0625).
    #[test]
    fn the_shared_cost_models_count_what_their_documents_say() {
        let w = workload();
        let io = table_io(&w);
        assert_eq!(io.of(Primitive::Stream), 4000.0);
        assert_eq!(io.ops.iter().sum::<f64>(), 4000.0);

        let walk = one_store_a_step_and_a_mex_walk(&w);
        assert_eq!(walk.of(Primitive::Stream), 4000.0);
        assert_eq!(walk.of(Primitive::Scatter), 3200.0);
        assert_eq!(walk.of(Primitive::Span), 100.0);
        assert_eq!(walk.of(Primitive::OrScan), 3500.0);

        let masks = mask_mex_demand(&w);
        assert_eq!(masks.of(Primitive::Stream), 4000.0);
        assert_eq!(masks.of(Primitive::Span), 100.0);
        assert_eq!(masks.of(Primitive::OrScan), 3200.0 + 4039.0625);
        assert_eq!(masks.of(Primitive::Scatter), 0.0);
    }

    /// The memory guard's sum for N = 10^4 on the squares (100 moves): 2 bytes a value
    /// (20 002), a u64 a possible value for the histogram (8 · 101 = 808), and the back-end's
    /// own scratch (`stamped`: 16 · (100 + 2) = 1632).
    #[test]
    fn the_bytes_a_table_needs_are_its_values_its_histogram_and_the_scratch() {
        assert_eq!(
            Builder::scratch_bytes(&Stamped, &Moves::Squares, 10_000, 1),
            1632
        );
        assert_eq!(
            bytes_needed(&Stamped, &Moves::Squares, 10_000, 1),
            20_002 + 808 + 1632
        );
    }
}
