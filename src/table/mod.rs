//! Stage 1, the table: the Grundy value g(n) of one heap for every n <= N.
//!
//! Every back-end implements [`TableBuilder`] and returns the same [`Table`]; the registry
//! [`BACKENDS`] lists them. The naive control `naive-mex` ([`NaiveMex`]) computes the mex
//! straight from the definition; the checker ([`crate::instruments::check`]) compares every back-end with
//! it where it affords N, and with the reference back-end (`stamped`) beyond.

mod bits;
mod bitset;
mod bitset_parallel;
#[cfg(target_arch = "x86_64")]
mod bitset_simd;
mod huge_pages;
mod lanes;
mod naive_mex;
mod pipeline;
mod stamped;
mod stamped_lanes;
mod stamped_parallel;
mod value_bounded;

/// `bitset`'s block kernels on a chosen path, for the roofline's primitives.
pub(crate) use bits::lowest_zero_bit_on;
pub use bitset::Bitset;
pub(crate) use bitset::{far_or_on as bitset_far_or_on, LANES as BITSET_LANES};
pub use bitset_parallel::BitsetParallel;
pub use huge_pages::{advise as advise_huge_pages, zeroed as zeroed_table, HUGE_PAGES_FROM_BYTES};
/// The lane kernels' span prefetch, which the roofline's `span_load` primitive uses too.
pub(crate) use lanes::{prefetch_span, PREFETCH_AHEAD};
pub use naive_mex::NaiveMex;
pub use pipeline::Schedule;
pub use stamped::Stamped;
pub use stamped_lanes::StampedLanes;
pub use stamped_parallel::StampedParallel;
pub use value_bounded::ValueBounded;

use crate::base::error::Result;
use crate::base::moves::Moves;
use crate::cost::{Demand, Model, Primitive, Workload};
use crate::kernels::Family;
use crate::registry::{Entry, Role, Stage};

/// The table stage: its name in messages and its back-ends, [`BACKENDS`].
pub static STAGE: Stage<dyn TableBuilder> = Stage::new("table", BACKENDS);

/// Looks up a table back-end by name.
pub fn find(name: &str) -> Result<&'static Entry<dyn TableBuilder>> {
    STAGE.find(name)
}

/// The reference table back-end (the one with [`Role::Reference`]).
pub fn reference() -> &'static Entry<dyn TableBuilder> {
    STAGE.reference()
}

pub use crate::base::limit::{Limit, MAX_LIMIT};

/// The Grundy values g(0..=N) of one heap, with the summary every stage needs.
///
/// Invariant: `histogram[v]` counts the n <= N with g(n) = v, its length is
/// `max_value + 1`, and `max_value_first_at` is the least n with g(n) = max_value.
/// Counts are `u64` (N < 2^32, so they cannot overflow).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    values: Vec<u16>,
    histogram: Vec<u64>,
    max_value: u16,
    max_value_first_at: usize,
}

impl Table {
    /// Wraps finished values and computes the summary. `values` must be non-empty (it always
    /// holds g(0)).
    pub fn from_values(values: Vec<u16>) -> Table {
        assert!(!values.is_empty(), "a table holds at least g(0)");
        let mut max_value = 0u16;
        let mut max_value_first_at = 0usize;
        for (n, &v) in values.iter().enumerate() {
            if v > max_value {
                max_value = v;
                max_value_first_at = n;
            }
        }
        let mut histogram = vec![0u64; max_value as usize + 1];
        for &v in &values {
            histogram[v as usize] += 1;
        }
        Table {
            values,
            histogram,
            max_value,
            max_value_first_at,
        }
    }

    /// N, the largest heap size in the table.
    pub fn limit(&self) -> usize {
        self.values.len() - 1
    }

    /// g(0..=N).
    pub fn values(&self) -> &[u16] {
        &self.values
    }

    /// `histogram()[v]` = number of n <= N with g(n) = v.
    pub fn histogram(&self) -> &[u64] {
        &self.histogram
    }

    /// The largest value in the table.
    pub fn max_value(&self) -> u16 {
        self.max_value
    }

    /// The first n at which the largest value occurs.
    pub fn max_value_first_at(&self) -> usize {
        self.max_value_first_at
    }

    /// The number of cold positions (g = 0).
    pub fn cold_count(&self) -> u64 {
        self.histogram[0]
    }

    /// The cold positions (g = 0), ascending.
    pub fn cold_positions(&self) -> Vec<usize> {
        (0..self.values.len())
            .filter(|&n| self.values[n] == 0)
            .collect()
    }

    /// G = max value + 1: the size of the value alphabet.
    pub fn alphabet(&self) -> usize {
        self.histogram.len()
    }

    /// The shape of building this table for `moves` on `threads` threads, what a cost model
    /// counts its primitives from.
    pub fn workload(&self, moves: &Moves, threads: usize) -> Workload {
        Workload::of_histogram(moves, &self.histogram, threads)
    }
}

/// A table back-end: turns (moves, N) into g(0..=N).
///
/// The one required method is [`TableBuilder::fill`], which extends a finished prefix, so
/// every back-end that builds in position order can be checkpointed, resumed and seeded from
/// a smaller table; [`TableBuilder::build`] is `fill` from scratch.
pub trait TableBuilder: Send + Sync {
    /// Computes g[from..g.len()] for the subtraction set `moves`, given that g[..from] is
    /// finished and `max_before` is its largest value (0 when `from` = 0). A back-end that
    /// is not [`resumable`](TableBuilder::resumable) recomputes g[..from] as well (with the
    /// same values). `g.len() - 1` is the N of the table and at most [`MAX_LIMIT`].
    fn fill(&self, moves: &Moves, g: &mut [u16], from: usize, max_before: u16);

    /// True when [`fill`](TableBuilder::fill) really starts at `from` (the back-end builds in
    /// position order), so a run can be checkpointed and resumed.
    fn resumable(&self) -> bool {
        true
    }

    /// Bytes of memory the back-end needs beside the u16 table itself, for N = `limit` on
    /// `threads` threads: what the memory guard adds up before anything is allocated. An
    /// upper estimate.
    fn scratch_bytes(&self, moves: &Moves, limit: usize, threads: usize) -> u64;

    /// The largest N this back-end affords, if it is limited (the naive control is
    /// quadratic); callers skip it beyond, saying so.
    fn affordable_limit(&self) -> Option<usize> {
        None
    }

    /// True when the back-end runs vector kernels that follow [`crate::base::isa::active`], so the
    /// bench matrix times it once per instruction-set path the CPU supports.
    fn vector_kernels(&self) -> bool {
        false
    }

    /// g(0..=limit) from scratch. `limit` comes from a [`Limit`].
    fn build(&self, moves: &Moves, limit: usize) -> Table {
        let mut g = zeroed_table(limit + 1);
        self.fill(moves, &mut g, 0, 0);
        Table::from_values(g)
    }
}

/// Every table back-end, in the order `list`, `verify` and the benches show them.
pub static BACKENDS: &[Entry<dyn TableBuilder>] = &[
    Entry {
        name: "naive-mex",
        description: "control: the mex straight from the definition, a fresh set of option values per position",
        cost: "O(S(N)) with a set per position; affords N <= 10^5",
        role: Role::Control,
        model: Model {
            summary: "per option step 1 set insertion (counted as 1 scattered store, a lower bound) and 1/32 span load; per position g(n)+1 word ops for the mex",
            parallel: false,
            demand: one_store_a_step_and_a_mex_walk,
        },
        kernels: &[],
        make: || Box::new(NaiveMex),
    },
    Entry {
        name: "stamped",
        description: "stamp n into seen[g(n-s)] for every move s, walk up from 0 (the reference)",
        cost: "O(S(N)), S(N) = option steps ~ (2/3) N^1.5",
        role: Role::Reference,
        model: Model {
            summary: "per option step 1 stamp store into seen[g(n-s)] and 1/32 span load (a move's options of 32 consecutive n share one 64-byte line); per position g(n)+1 compares for the mex walk",
            parallel: false,
            demand: one_store_a_step_and_a_mex_walk,
        },
        kernels: &[],
        make: || Box::new(Stamped),
    },
    Entry {
        name: "bitset",
        description: "OR option values into a bit mask per position, 64 positions per block; mex = lowest zero bit",
        cost: "O(S(N) * ceil(G/64)) word ops",
        role: Role::Fast,
        model: Model {
            summary: "per option step 1 shift-and-OR into a mask word and 1/32 span load; per position ceil(G/64) words cleared and g(n)/64+1 words scanned for the mex",
            parallel: false,
            demand: |w| {
                let words = w.alphabet.div_ceil(64) as f64;
                table_io(w)
                    .with(Primitive::OrScan, w.steps)
                    .with(Primitive::Span, w.steps / 32.0)
                    .with(Primitive::OrScan, w.positions() * (words + w.mean_value / 64.0 + 1.0))
            },
        },
        kernels: &[Family::Masks],
        make: || Box::new(Bitset),
    },
    Entry {
        name: "stamped-lanes",
        description: "stamped mex 32 positions at a time, one byte array each: a load and a byte store per option",
        cost: "O(S(N)) byte stores, 32*G bytes of scratch",
        role: Role::Fast,
        model: Model {
            summary: "per option step 1 byte store into a lane's stamp array and 1/32 span load; per position g(n)/8+1 word compares for the mex",
            parallel: false,
            demand: |w| {
                table_io(w)
                    .with(Primitive::Scatter, w.steps)
                    .with(Primitive::Span, w.steps / 32.0)
                    .with(Primitive::OrScan, w.positions() * (w.mean_value / 8.0 + 1.0))
            },
        },
        kernels: &[Family::Lanes],
        make: || Box::new(StampedLanes),
    },
    Entry {
        name: "stamped-parallel",
        description: "stamped-lanes in pipelined super-blocks: options before the previous super-block in parallel (rayon), the rest in order",
        cost: "O(S(N) / threads + N * sqrt(B)), B = super-block",
        role: Role::Fast,
        model: Model {
            summary: "on all threads: per option step 1 byte store and 1/32 span load; per position G'/16 16-byte compares packing the stamps to bits (G' the lane stride) and g(n)/64+1 words scanned",
            parallel: true,
            demand: |w| {
                let stride = (w.alphabet + 32).next_power_of_two().max(64) as f64;
                table_io(w)
                    .with(Primitive::Scatter, w.steps)
                    .with(Primitive::Span, w.steps / 32.0)
                    .with(Primitive::OrScan, w.positions() * (stride / 16.0 + w.mean_value / 64.0 + 1.0))
            },
        },
        kernels: &[Family::Lanes, Family::Masks, Family::SuperBlocks],
        make: || Box::new(StampedParallel::default()),
    },
    Entry {
        name: "bitset-parallel",
        description: "bitset's far-move OR in stamped-parallel's pipelined super-blocks: options before the previous super-block ORed into the masks in parallel (rayon), the rest in order",
        cost: "O(S(N) * ceil(G/64) / threads + N * sqrt(B)) word ops, B = super-block",
        role: Role::Fast,
        model: Model {
            summary: "on all threads: per option step 1 shift-and-OR into a mask word and 1/32 span load; per position ceil(G/64) words cleared and g(n)/64+1 words scanned for the mex",
            parallel: true,
            demand: |w| {
                let words = w.alphabet.div_ceil(64) as f64;
                table_io(w)
                    .with(Primitive::OrScan, w.steps)
                    .with(Primitive::Span, w.steps / 32.0)
                    .with(Primitive::OrScan, w.positions() * (words + w.mean_value / 64.0 + 1.0))
            },
        },
        kernels: &[Family::Masks, Family::SuperBlocks],
        make: || Box::new(BitsetParallel::default()),
    },
    value_bounded::ENTRY,
];

/// The model of the per-position mex (`stamped`, and `naive-mex` counted as generously): per
/// option step one store and 1/32 span load, per position g(n) + 1 word ops for the mex walk.
fn one_store_a_step_and_a_mex_walk(w: &Workload) -> Demand {
    table_io(w)
        .with(Primitive::Scatter, w.steps)
        .with(Primitive::Span, w.steps / 32.0)
        .with(Primitive::OrScan, w.positions() * (w.mean_value + 1.0))
}

/// The table traffic every back-end has, in [`crate::instruments::roofline`] terms: g(0..=N) written once
/// and read at least once, 4 bytes a position of sequential bandwidth.
fn table_io(w: &Workload) -> Demand {
    Demand::default().with(Primitive::Stream, 4.0 * w.positions())
}

/// Bytes a table for N = `limit` needs with `builder` on `threads` threads: the u16 values
/// and the back-end's own scratch.
pub fn bytes_needed(
    builder: &dyn TableBuilder,
    moves: &Moves,
    limit: usize,
    threads: usize,
) -> u64 {
    2 * (limit as u64 + 1) + builder.scratch_bytes(moves, limit, threads)
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
    Ok(builder.build(moves, limit))
}
