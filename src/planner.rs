//! The planner: what `--table auto` and `--count auto` mean.
//!
//! Like RustFFT's planner choosing an algorithm by length, it picks a back-end from N and the
//! rayon thread count, using crossovers measured on the project's 2-core machine. Every
//! threshold below names the results file its measurement is recorded in.
//!
//! The planner only chooses; it never changes an answer (every back-end it can name is in
//! the registry and gated by the agreement tests).

use crate::count::{self, Counter};
use crate::error::{Error, Result};
use crate::moves::Moves;
use crate::registry::Entry;
use crate::table::{self, TableBuilder};

/// The name that asks the planner to choose.
pub const AUTO: &str = "auto";

/// Below this N the seed's `stamped` mex wins: the lane blocks' set-up (a 32-lane scratch
/// and its stride dispatch) costs more than the few option steps there are.
/// From `results/planner.md` (table crossovers, 1 and 2 threads).
pub const TABLE_LANES_FROM: usize = 100;

/// From this N on, with two or more threads, `stamped-parallel` beats `stamped-lanes`
/// (below it, the per-super-block synchronisation outweighs the split work).
/// From `results/planner.md` (table crossovers, 2 threads).
pub const TABLE_PARALLEL_FROM: usize = 300_000;

/// The table back-end `auto` means for (moves, N, threads).
pub fn choose_table(_moves: &Moves, limit: usize, threads: usize) -> &'static str {
    if limit < TABLE_LANES_FROM {
        "stamped"
    } else if threads >= 2 && limit >= TABLE_PARALLEL_FROM {
        "stamped-parallel"
    } else {
        "stamped-lanes"
    }
}

/// The count back-end `auto` means for N, the number of heaps and the thread count.
///
/// `wht` works on the value histogram the table already holds, O(G log G) per heap count,
/// against O(G^2) for `burnside` and O(N·G) for the sweeps, and it is the only fast route
/// for K != 3 (`sweep` and `rayon-sweep` count triples only). It was the fastest count
/// back-end at both N of the bench matrix's `count` group (`results/matrix.csv`), and the
/// count stage is far below 1% of the table there, so there is no crossover to encode.
pub fn choose_count(_limit: usize, _heaps: usize, _threads: usize) -> &'static str {
    "wht"
}

/// Resolves a `--table` argument: `auto` through the planner, otherwise the registry
/// (an unknown name lists the valid ones, `auto` included).
pub fn resolve_table(
    requested: &str,
    moves: &Moves,
    limit: usize,
) -> Result<&'static Entry<dyn TableBuilder>> {
    let name = if requested == AUTO {
        choose_table(moves, limit, rayon::current_num_threads())
    } else {
        requested
    };
    table::find(name).map_err(with_auto)
}

/// Resolves a `--count` argument: `auto` through the planner, otherwise the registry.
pub fn resolve_count(
    requested: &str,
    limit: usize,
    heaps: usize,
) -> Result<&'static Entry<dyn Counter>> {
    let name = if requested == AUTO {
        choose_count(limit, heaps, rayon::current_num_threads())
    } else {
        requested
    };
    count::find(name).map_err(with_auto)
}

/// Adds `auto` to the valid names of an unknown-back-end error.
fn with_auto(e: Error) -> Error {
    match e {
        Error::UnknownBackend {
            stage,
            name,
            mut valid,
        } => {
            valid.insert(0, AUTO);
            Error::UnknownBackend { stage, name, valid }
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_resolves_and_unknown_names_list_auto() {
        let t = resolve_table(AUTO, &Moves::Squares, 1_000_000).unwrap();
        assert!(t.name.starts_with("stamped"));
        assert_eq!(
            resolve_table("bitset", &Moves::Squares, 10).unwrap().name,
            "bitset"
        );
        let msg = resolve_table("nope", &Moves::Squares, 10)
            .err()
            .unwrap()
            .to_string();
        assert!(msg.contains("auto, stamped"), "{msg}");
        let msg = resolve_count("nope", 10, 3).err().unwrap().to_string();
        assert!(msg.contains("auto, sweep"), "{msg}");
    }

    #[test]
    fn thresholds_order() {
        let m = Moves::Squares;
        assert_eq!(choose_table(&m, TABLE_LANES_FROM - 1, 2), "stamped");
        assert_eq!(choose_table(&m, TABLE_LANES_FROM, 2), "stamped-lanes");
        assert_eq!(choose_table(&m, TABLE_PARALLEL_FROM, 2), "stamped-parallel");
        assert_eq!(choose_table(&m, TABLE_PARALLEL_FROM, 1), "stamped-lanes");
    }
}
