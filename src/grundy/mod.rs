//! The shared shape of every workload: its [`Table`] of Grundy values, the rules of a game
//! stated once ([`Rulebook`]), and the one builder trait generic over them ([`Builder`]).
//!
//! A workload is a kind of game whose one-heap Grundy table the harness builds: the squares'
//! subtraction games ([`crate::table`]), octal games ([`crate::octal`]), finite subtraction
//! games ([`crate::finite`]). Each states its rules as a [`Rulebook`] and its back-ends as
//! [`Builder`]s of those rules; the registry ([`crate::registry::workload`]) erases the type
//! of the rules so that the instruments are written once over every workload.
//!
//! Invariant: a [`Builder`] of rules `R` fills g(n) with the minimum excludant of the values
//! [`Rulebook::options`] gives for n, for every n it fills; every back-end's table is the same.

pub mod plan;
pub mod spot_check;

use crate::base::error::{Error, Result};
use crate::base::moves::Moves;
use crate::cost::Workload;

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

/// What a back-end keeps from one chunk of a long run to the next ([`Builder::fill_kept`]);
/// each back-end reads back only its own kind.
pub type Kept = Option<Box<dyn std::any::Any + Send>>;

/// The rules of one workload's game, stated once: what a position's options are, and what
/// the instruments need to know of a table of them (its label, its cost unit, its memory).
///
/// Invariant: two rule sets with the same [`Rulebook::label`] are the same game (the label
/// is canonical), so labels key files, settings and bench ids.
pub trait Rulebook: std::fmt::Debug + Clone + PartialEq + Send + Sync + 'static {
    /// Its label in files and settings (`squares`, `1,3,4`, `0.6`).
    fn label(&self) -> String;

    /// The game in words, for messages (`moves squares`, `octal game 0.6`).
    fn describe(&self) -> String;

    /// The values of the options of heap `n`, given that g[..n] is final, into `into`
    /// (cleared first): the definition, which the naive controls take the mex of.
    fn options(&self, g: &[u16], n: usize, into: &mut Vec<u16>);

    /// The option steps of a table up to `limit`: the unit of ns per step and of the bench
    /// throughput.
    fn option_steps(&self, limit: usize) -> u128;

    /// The removal sizes up to `limit`, ascending: the offsets at which the roofline's span
    /// primitive reads the table.
    fn removals(&self, limit: usize) -> Vec<usize>;

    /// The shape of building `table` on `threads` threads: what a cost model counts its
    /// primitives from.
    fn cost_workload(&self, table: &Table, threads: usize) -> Workload;

    /// Bytes of the [`Table`]'s value histogram for N = `limit` (an upper estimate: a u64
    /// per value the table can hold).
    fn histogram_bytes(&self, limit: usize) -> u64;

    /// The label in a table file's header (what a long run's checkpoint and a saved table
    /// carry): equal file labels mean equal rules across every workload, so it names the
    /// workload as well as the game. By default the game in words ([`Rulebook::describe`]).
    fn file_label(&self) -> String {
        self.describe()
    }

    /// The first sampled position whose value in `values` (g(0..values.len())) is not the mex
    /// of its options computed from `values`: `(n, found, mex)`; `None` when every sampled
    /// position agrees. What a loaded table file is checked with before use. By default the
    /// sampled check by the definition ([`spot_check::first_wrong`]), whose cost stays a
    /// small fraction of building the table.
    fn first_wrong(&self, values: &[u16]) -> Option<(usize, u16, u16)> {
        spot_check::first_wrong(self, values)
    }

    /// The capability of a workload whose tables feed the count stage: the subtraction set
    /// that the counts, the planner, the forecasts and the roofline's cost model read
    /// (several heaps of one subtraction game). None, the default, for a workload that
    /// builds tables only; the instruments ask this, never which workload they hold.
    fn counts(&self) -> Option<&crate::base::moves::Moves> {
        None
    }
}

/// A back-end of a workload with rules `R`: turns (rules, N) into g(0..=N).
///
/// The one required method is [`Builder::fill`], which extends a finished prefix, so a
/// back-end that builds in position order can be checkpointed, resumed and seeded from a
/// smaller table; [`Builder::build`] is `fill` from scratch. The hot loops are inside
/// `fill`: a caller makes one dynamic call per build, never one per position.
pub trait Builder<R: ?Sized>: Send + Sync {
    /// Computes g[from..g.len()] for `rules`, given that g[..from] is final. A value above
    /// `u16::MAX` is refused with [`crate::base::error::Error::Overflow`] naming the heap. A
    /// back-end that is not [`resumable`](Builder::resumable) recomputes g[..from] as well
    /// (with the same values).
    fn fill(&self, rules: &R, g: &mut [u16], from: usize) -> Result<()>;

    /// [`Builder::fill`] for the chunks of a long run, called in order on one table: `kept`
    /// holds what the last call left (`None` at first), so a back-end that would read
    /// g[..from] again at each call keeps what it needs instead. The default keeps nothing.
    fn fill_kept(&self, rules: &R, g: &mut [u16], from: usize, kept: &mut Kept) -> Result<()> {
        let _ = kept;
        self.fill(rules, g, from)
    }

    /// `kept` (what this back-end's [`fill_kept`](Builder::fill_kept) left after a chunk) as
    /// bytes, for a checkpoint that does not hold the whole table (window mode); `None` when
    /// the back-end cannot save it (it then rebuilds its state from g[..from], which such a
    /// checkpoint does not keep). An empty `kept` saves as a state too.
    fn save_kept(&self, kept: &Kept) -> Option<Vec<u8>> {
        let _ = kept;
        None
    }

    /// The state [`save_kept`](Builder::save_kept) wrote, for `rules`: a damaged or foreign
    /// one is refused.
    fn load_kept(&self, rules: &R, bytes: &[u8]) -> Result<Kept> {
        let _ = (rules, bytes);
        Err(crate::base::error::Error::Invalid(
            "this back-end cannot read a saved state".into(),
        ))
    }

    /// True when [`fill`](Builder::fill) really starts at `from` (the back-end builds in
    /// position order), so a run can be checkpointed and resumed.
    fn resumable(&self) -> bool {
        true
    }

    /// Bytes of memory beside the u16 table for N = `limit` on `threads` threads (an upper
    /// estimate, what the memory guard adds up before anything is allocated).
    fn scratch_bytes(&self, rules: &R, limit: usize, threads: usize) -> u64;

    /// The largest N this back-end affords, if it is limited (the naive controls); callers
    /// skip it beyond, saying so.
    fn affordable_limit(&self) -> Option<usize> {
        None
    }

    /// g(0..=limit) from scratch, into a table advised onto huge pages when it is big
    /// ([`crate::kernels::huge_pages`]): far reads of a large table miss the TLB less.
    fn build(&self, rules: &R, limit: usize) -> Result<Table> {
        let mut g = crate::kernels::huge_pages::zeroed(limit + 1);
        self.fill(rules, &mut g, 0)?;
        Ok(Table::from_values(g))
    }
}

/// Bytes a build of N = `limit` by `builder` needs on `threads` threads: the u16 values,
/// the [`Table`]'s value histogram ([`Rulebook::histogram_bytes`]) and the back-end's scratch.
/// An upper estimate, checked before anything is allocated: the one formula of every
/// workload's memory guard.
pub fn bytes_needed<R: Rulebook, B: Builder<R> + ?Sized>(
    builder: &B,
    rules: &R,
    limit: usize,
    threads: usize,
) -> u64 {
    2 * (limit as u64 + 1)
        + rules.histogram_bytes(limit)
        + builder.scratch_bytes(rules, limit, threads)
}

/// Refuses the back-end `name`, which affords N <= `most` when it is limited (a naive
/// control), asked for N = `limit` by the flag `flag`; `instead` ends the message with what
/// to do (the caller knows its flags). The one message of every command that builds a named
/// table.
pub fn check_affords(
    name: &'static str,
    most: Option<usize>,
    flag: &str,
    limit: usize,
    instead: &str,
) -> Result<()> {
    match most {
        Some(most) if limit > most => Err(Error::Unsupported {
            backend: name,
            what: format!(
                "{flag} {limit} (it affords N <= {most}): it is a naive control, run only on small inputs (see `nimsquare list`); {instead}"
            ),
        }),
        _ => Ok(()),
    }
}

/// The minimum excludant of `values`: the least value not among them. `seen` is scratch
/// (cleared here), so a caller filling a table reuses one allocation.
pub fn mex(values: &[u16], seen: &mut Vec<bool>) -> u16 {
    seen.clear();
    seen.resize(values.len() + 1, false);
    for &v in values {
        if (v as usize) < seen.len() {
            seen[v as usize] = true;
        }
    }
    // a mex of m values is at most m, so the search always ends inside `seen`
    seen.iter().position(|&s| !s).unwrap_or(values.len()) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mex_is_the_least_value_missing() {
        let mut seen = Vec::new();
        assert_eq!(mex(&[], &mut seen), 0);
        assert_eq!(mex(&[0, 1, 3], &mut seen), 2);
        assert_eq!(mex(&[2, 1, 0, 1], &mut seen), 3);
        assert_eq!(mex(&[5, 7], &mut seen), 0);
    }
}
