//! Stage 1, the table: the Grundy value g(n) of one heap for every n <= N.
//!
//! Every back-end implements [`TableBuilder`] and returns the same [`Table`]; the registry
//! [`BACKENDS`] lists them. The naive control for this stage is [`crate::control::game_tree`],
//! which decides positions from the rules alone, and the back-ends are checked against each
//! other (`tests/agreement.rs`).

mod bitset;
mod lanes;
mod stamped;
mod stamped_lanes;
mod stamped_parallel;
mod value_bounded;

pub use bitset::Bitset;
pub use stamped::Stamped;
pub use stamped_lanes::StampedLanes;
pub use stamped_parallel::StampedParallel;
pub use value_bounded::ValueBounded;

use crate::error::{Error, Result};
use crate::moves::Moves;
use crate::registry::{self, Entry};

/// The largest supported limit N. Values are stored as `u16`, and for the squares
/// g(n) <= floor(sqrt n), which stays below 65 536 exactly for n < 2^32.
pub const MAX_LIMIT: u64 = u32::MAX as u64;

/// Refuses a limit above [`MAX_LIMIT`] (or one that does not fit `usize`).
pub fn check_limit(limit: u64) -> Result<usize> {
    if limit > MAX_LIMIT || usize::try_from(limit).is_err() {
        return Err(Error::LimitTooLarge {
            limit,
            max: MAX_LIMIT,
            why: "values are stored as u16 and for the squares g(n) <= floor(sqrt n) < 65536 only while n < 2^32".into(),
        });
    }
    Ok(limit as usize)
}

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
}

/// A table back-end: turns (moves, N) into a [`Table`].
pub trait TableBuilder: Send + Sync {
    /// Computes g(0..=limit). The caller has checked `limit` with [`check_limit`].
    fn build(&self, moves: &Moves, limit: usize) -> Table;
}

/// Every table back-end, in the order `list`, `verify` and the benches show them.
pub static BACKENDS: &[Entry<dyn TableBuilder>] = &[
    Entry {
        name: "stamped",
        description: "the seed's mex: stamp n into seen[g(n-s)] for every move s, walk up from 0",
        cost: "O(S(N)), S(N) = option steps ~ (2/3) N^1.5",
        make: || Box::new(Stamped),
    },
    Entry {
        name: "bitset",
        description: "OR option values into a bit mask per position, 64 positions per block; mex = lowest zero bit",
        cost: "O(S(N) * ceil(G/64)) word ops",
        make: || Box::new(Bitset),
    },
    Entry {
        name: "stamped-lanes",
        description: "stamped mex 32 positions at a time, one byte array each: a load and a byte store per option",
        cost: "O(S(N)) byte stores, 32*G bytes of scratch",
        make: || Box::new(StampedLanes),
    },
    Entry {
        name: "stamped-parallel",
        description: "stamped-lanes in super-blocks of 512: options before the block in parallel (rayon), the rest in order",
        cost: "O(S(N) / threads + N * sqrt(512))",
        make: || Box::new(StampedParallel),
    },
    Entry {
        name: "value-bounded",
        description: "Eppstein: decide value classes 0, 1, 2, ... by word-parallel sumset tests on bitsets",
        cost: "O((m+1) * S(N) / 64), m = max value",
        make: || Box::new(ValueBounded),
    },
];

/// Looks up a table back-end by name.
pub fn find(name: &str) -> Result<&'static Entry<dyn TableBuilder>> {
    registry::find(BACKENDS, "table", name)
}

/// Refuses, before anything is allocated, a table for N = `limit` with the named back-end
/// that would not fit the memory the system reports available (`MemAvailable`); the message
/// says how much it would need.
pub fn check_memory(limit: usize, backend: &str) -> Result<()> {
    let needed = crate::memory::table_bytes(limit, backend);
    crate::memory::check_fits(
        needed,
        crate::memory::available_bytes(),
        &format!("the '{backend}' table for N = {limit}"),
    )
}

/// Checks `limit` (range and memory) and builds the table with the named back-end.
pub fn build(name: &str, moves: &Moves, limit: u64) -> Result<Table> {
    let entry = find(name)?;
    let limit = check_limit(limit)?;
    check_memory(limit, entry.name)?;
    Ok((entry.make)().build(moves, limit))
}
