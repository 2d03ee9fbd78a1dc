//! The check of a saved table (`verify --load-table`): its zero set against every cold-set
//! back-end, and its values against a table built now by a judge.
//!
//! Algorithm: read the complete table file (made for the same moves); compare its zero set
//! with the cold set of every cold-set back-end that affords its N (the win/lose sieve
//! shares no kernel with the tables); with [`Values::Judged`], build the judge's table and
//! compare it value by value. The judge is the checker's table judge up to
//! [`SAVED_REFERENCE_MAX`], past it [`saved_table_judge`].
//!
//! Cost: one read of the file, one sieve per cold-set back-end (O(N sqrt N) for the
//! squares), and with [`Values::Judged`] one judge build.
//!
//! Invariant: the judge of a big saved table runs alone and uses no super-block kernel, so
//! it shares neither the thread split nor the schedule of the back-ends `auto` makes big
//! tables with on several threads.

use super::{table_judge, Case, Checker, Report};
use crate::base::error::Result;
use crate::base::isa::Isa;
use crate::base::moves::Moves;
use crate::grundy::Builder;
use crate::kernels::Family;
use crate::registry::Entry;
use crate::run::planner::choose_table_on;
use crate::table::{self, Table};

/// Above this N a saved table is judged by [`saved_table_judge`] rather than by the reference
/// (`stamped` would take many minutes).
pub const SAVED_REFERENCE_MAX: usize = 10_000_000;

/// The judge of a saved table for N past [`SAVED_REFERENCE_MAX`]: the back-end `auto` picks
/// for N on one thread on `isa`, provided its entry declares what a judge needs (it runs
/// alone and uses no [`Family::SuperBlocks`] kernel, so it shares neither the thread split
/// nor the super-block schedule of the parallel back-ends `auto` makes big tables with on
/// several threads); otherwise the first fast entry in registry order that does. It may
/// share a lane or mask kernel with the table's maker; those kernels are checked against
/// their scalar twins, and the zero set against the sieve, which shares none.
pub fn saved_table_judge(isa: Isa, limit: usize) -> &'static Entry<dyn Builder<Moves>> {
    let pick = choose_table_on(isa, limit, 1);
    if judges_alone(pick) {
        return pick;
    }
    crate::registry::fast(table::BACKENDS)
        .find(|e| judges_alone(e))
        .expect("a one-thread fast table back-end is registered")
}

/// Whether `e` may judge a saved table: it runs on one thread and uses no
/// [`Family::SuperBlocks`] kernel; both are asked, since an entry may have one without
/// the other (today's registry pairs them).
fn judges_alone(e: &Entry<dyn Builder<Moves>>) -> bool {
    !e.model.parallel && !e.kernels.contains(&Family::SuperBlocks)
}

/// Whether [`verify_saved`] checks a saved table's values or only its zero set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    /// Against a table built now by the judge.
    Judged,
    /// Not at all (`--cold-only`): only the zero set is checked, and no table is built.
    Unchecked,
}

/// Checks the complete saved table in `path` (made for `moves`): its zero set against every
/// cold-set back-end that affords its N, and with [`Values::Judged`] its values against a
/// table built now by the judge (the naive control, the reference, or past
/// [`SAVED_REFERENCE_MAX`] [`saved_table_judge`]). With [`Values::Unchecked`] the report's
/// `table_judge` is "saved table" itself.
pub fn verify_saved(path: &std::path::Path, moves: &Moves, values: Values) -> Result<Report> {
    let file = crate::run::longrun::tablefile::read_complete(path, moves, "--load-table")?;
    // The file's own limit: checked here, where it enters.
    let limit = crate::base::limit::Limit::new(file.limit)?.get();
    let judge = if limit <= SAVED_REFERENCE_MAX {
        table_judge(limit)
    } else {
        saved_table_judge(crate::base::isa::active(), limit)
    };
    let case = Case {
        moves: moves.clone(),
        limit,
        heaps: 3,
    };
    let saved = Table::from_values(file.values);
    // The saved zero set against every cold-set back-end (no table kernel involved) ...
    let mut colds = Checker::new(case.clone(), "saved table", saved);
    for entry in crate::cold::BACKENDS {
        let finder = (entry.make)();
        if finder.affordable_limit().is_none_or(|max| limit <= max) {
            colds.cold(entry.name, &finder.cold(moves, limit));
        }
    }
    let colds = colds.finish();
    if values == Values::Unchecked {
        return Ok(colds);
    }
    // ... and the saved values against the judge's.
    let judge_table = crate::run::longrun::build_shown(&*(judge.make)(), judge.name, moves, limit)?;
    let mut checker = Checker::new(case, judge.name, judge_table);
    checker.table("saved table", &colds.table);
    let mut report = checker.finish();
    report.disagreements.extend(colds.disagreements);
    report.cold_sets = colds.cold_sets;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_judge_must_run_alone_and_without_the_super_block_pipeline() {
        let stamped = table::find("stamped").unwrap();
        assert!(judges_alone(stamped));
        let model = |parallel| crate::cost::Model {
            parallel,
            ..crate::cost::Model::NOT_MODELLED
        };
        let threaded = Entry {
            model: model(true),
            ..*stamped
        };
        let pipelined = Entry {
            kernels: &[Family::SuperBlocks],
            ..*stamped
        };
        assert!(
            !judges_alone(&threaded),
            "a parallel entry without the pipeline"
        );
        assert!(
            !judges_alone(&pipelined),
            "a one-thread entry with the pipeline"
        );
    }

    #[test]
    fn the_saved_judge_is_not_what_auto_makes_big_tables_with_on_two_threads() {
        for isa in Isa::ALL {
            let judge = saved_table_judge(isa, SAVED_REFERENCE_MAX + 1);
            assert!(
                !judge.is_control() && !judge.model.parallel,
                "{isa}: {}",
                judge.name
            );
            // Not the parallel pipeline (its schedule and thread split) ...
            assert!(!judge.kernels.contains(&Family::SuperBlocks), "{isa}");
            for threads in [2, 8] {
                let made = choose_table_on(isa, SAVED_REFERENCE_MAX + 1, threads);
                // ... and not what auto makes big tables with on several threads.
                assert_ne!(made.name, judge.name, "{isa}, {threads} threads");
                assert!(made.kernels.contains(&Family::SuperBlocks), "{isa}");
            }
        }
    }
}
