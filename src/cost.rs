//! Cost models: how many of each measured primitive one run of a back-end does.
//!
//! Each back-end declares its [`Model`] in its registry entry, beside its algorithm; the
//! roofline (an instrument, above both stages) measures the primitives and prices the
//! models. The types live here, below the registry, so that listing a back-end never
//! depends on the instrument that measures it.

use crate::base::moves::Moves;

/// A primitive operation the back-ends are made of, each measured by a microbenchmark in
/// [`primitives`](crate::instruments::roofline::primitives).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Primitive {
    /// One byte store into L1-resident stamp arrays, its index read from a 32-value `u16`
    /// span (the lane kernels' inner step, `SeenLanes::stamp_moves`).
    Scatter,
    /// One 64-byte span load (32 values) from a table of the real size, at the offsets of the
    /// far moves (n0 - s): where the table lives in the memory hierarchy.
    Span,
    /// One byte of sequential reading from a buffer well beyond the last-level cache.
    Stream,
    /// One 64-bit word operation of a bit mask: OR a bit in, clear a word, or scan a word
    /// for its lowest zero (the `bitset` kernel).
    OrScan,
    /// One u32 × u32 → u64 multiply-accumulate (the count sweep's inner step).
    MulAdd,
}

impl Primitive {
    /// Every primitive, in the order of [`Demand::ops`] and [`Rates::ns_per_op`](crate::instruments::roofline::Rates::ns_per_op).
    pub const ALL: [Primitive; 5] = [
        Primitive::Scatter,
        Primitive::Span,
        Primitive::Stream,
        Primitive::OrScan,
        Primitive::MulAdd,
    ];

    /// The name the outputs print.
    pub fn name(self) -> &'static str {
        match self {
            Primitive::Scatter => "scatter_store",
            Primitive::Span => "span_load",
            Primitive::Stream => "stream_byte",
            Primitive::OrScan => "or_scan_word",
            Primitive::MulAdd => "mul_add",
        }
    }

    /// The resource it loads.
    pub fn resource(self) -> Resource {
        match self {
            Primitive::Scatter => Resource::Store,
            Primitive::Span => Resource::Load,
            Primitive::Stream => Resource::Bandwidth,
            Primitive::OrScan | Primitive::MulAdd => Resource::Alu,
        }
    }

    /// Its place in [`Primitive::ALL`], [`Demand::ops`] and the roofline's rates.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// A machine resource a bound can come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Resource {
    /// Stores into L1-resident scratch.
    Store,
    /// Loads from wherever the table lives (L2, L3 or memory at its real size).
    Load,
    /// Sequential memory bandwidth.
    Bandwidth,
    /// Arithmetic and logic on registers and L1.
    Alu,
}

impl Resource {
    /// Every resource, in the order of [`Bound::per_resource`](crate::instruments::roofline::Bound::per_resource).
    pub const ALL: [Resource; 4] = [
        Resource::Store,
        Resource::Load,
        Resource::Bandwidth,
        Resource::Alu,
    ];

    /// The name the outputs print (the `bound_resource` column).
    pub fn name(self) -> &'static str {
        match self {
            Resource::Store => "store",
            Resource::Load => "load",
            Resource::Bandwidth => "bandwidth",
            Resource::Alu => "alu",
        }
    }
}

/// The shape of one run, what a cost model needs to count its primitives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Workload {
    /// N.
    pub limit: usize,
    /// S(N), the option steps (see [`Moves::option_steps`]).
    pub steps: f64,
    /// G, the number of distinct values (max value + 1).
    pub alphabet: usize,
    /// The mean of g(0..=N) (a mex walk costs about g(n) + 1 compares).
    pub mean_value: f64,
    /// Threads of the rayon pool (what a parallel back-end runs on).
    pub threads: usize,
    /// The pair steps of an octal game's rare/common method ([`crate::octal::method::rare_common::rare_steps`]):
    /// per heap and splitting digit, one step for each rare position below the heap left,
    /// or under no split the full search for the mex among the pairs; 0 for a subtraction
    /// game.
    pub rare_steps: f64,
}

impl Workload {
    /// The workload of building a table for `moves` whose value histogram is `histogram`
    /// (`histogram[v]` positions of value v, N + 1 in all) on `threads` threads.
    pub fn of_histogram(moves: &Moves, histogram: &[u64], threads: usize) -> Workload {
        let positions: u64 = histogram.iter().sum();
        let sum: f64 = histogram
            .iter()
            .enumerate()
            .map(|(v, &c)| v as f64 * c as f64)
            .sum();
        let limit = positions.saturating_sub(1) as usize;
        Workload {
            limit,
            steps: moves.option_steps(limit) as f64,
            alphabet: histogram.len(),
            mean_value: sum / positions.max(1) as f64,
            threads,
            rare_steps: 0.0,
        }
    }

    /// N + 1, the positions.
    pub fn positions(&self) -> f64 {
        self.limit as f64 + 1.0
    }
}

/// How many of each primitive one run does (totals, not rates).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Demand {
    /// Ops of each primitive, in [`Primitive::ALL`] order.
    pub ops: [f64; 5],
}

impl Demand {
    /// This demand plus `ops` of `p`.
    pub fn with(mut self, p: Primitive, ops: f64) -> Demand {
        self.ops[p.index()] += ops;
        self
    }

    /// Ops of `p`.
    pub fn of(&self, p: Primitive) -> f64 {
        self.ops[p.index()]
    }
}

/// A back-end's cost model, declared in its registry entry beside its algorithm.
#[derive(Clone, Copy)]
pub struct Model {
    /// One line: which primitives it counts, per option step and per position.
    pub summary: &'static str,
    /// True when the back-end runs on every thread of the pool, so its primitives are
    /// measured on as many threads at once (their aggregate rate).
    pub parallel: bool,
    /// The primitive counts of one run of the given workload (for a count back-end: one count
    /// of three heaps on the table of that workload).
    pub demand: fn(&Workload) -> Demand,
}

impl Model {
    /// For the stages the roofline does not time (the cold sets): counts nothing, and the
    /// tests refuse it for every table and count back-end.
    pub const NOT_MODELLED: Model = Model {
        summary: "not modelled (the roofline times the table and count stages only)",
        parallel: false,
        demand: |_| Demand::default(),
    };

    /// True for [`Model::NOT_MODELLED`] and any model counting nothing at `w`.
    pub fn counts_nothing(&self, w: &Workload) -> bool {
        (self.demand)(w).ops.iter().all(|&o| o <= 0.0)
    }
}
