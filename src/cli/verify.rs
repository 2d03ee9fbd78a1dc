//! `nimsquare verify`: every table back-end against every count back-end, through the one
//! checker ([`nimsquare::instruments::check`]), plus known values.
//!
//! Checks, each printed as `ok` or `FAIL` with what it compared against: for the squares and
//! three heaps, Project Euler 310's published checkpoint L(29) = 1160; at a small checkpoint
//! N every back-end against the naive controls (`naive-mex`, `brute`); at the requested N
//! every back-end against the judges the checker names. Back-ends that cannot take the input
//! (a three-heap-only counter asked for K != 3, a control past its size, an answer that
//! overflows `u128`) are listed as skipped, with the reason. Exit status 1 when any check
//! fails.

use super::args::{HeapsArg, JsonArg, LimitArg, MovesArg, QuietArg};
use super::{fmt_seconds, CliResult, EXIT_CHECK_FAILED};
use nimsquare::base::error::Error;
use nimsquare::count::{brute_multisets_affordable, MAX_HEAPS};
use nimsquare::instruments::check::octal_route::octal_route;
use nimsquare::instruments::check::{self, Case, Report};
use serde_json::json;

/// Project Euler 310's checkpoint for the squares and three heaps: L(29) = 1160.
const CHECKPOINT_29: (usize, u128) = (29, 1160);
/// The largest small checkpoint N (lowered until brute force affords it).
const CHECKPOINT_MAX: usize = 40;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    limit: LimitArg,
    #[command(flatten)]
    moves: MovesArg,
    #[command(flatten)]
    heaps: HeapsArg,
    #[command(flatten)]
    json: JsonArg,
    #[command(flatten)]
    quiet: QuietArg,
    /// Check a saved table instead (from `solve --save-table`, complete, same --moves): its
    /// values against a freshly built judge table, its zero set against every cold-set
    /// back-end. --limit is ignored: the file's N is checked. Exit 1 when the values are
    /// wrong; a file that is not a readable table is refused (exit 2).
    #[arg(long, value_name = "FILE")]
    load_table: Option<std::path::PathBuf>,
    /// With --load-table: check only the zero set, against the cold-set back-ends, and build
    /// no judge table (about 20 s at N = 10^9, where the judge would take hours). The values
    /// other than zero are then not checked, and the report says so.
    #[arg(long, requires = "load_table")]
    cold_only: bool,
    /// Test builds only (`--features testing`): also run the deliberately wrong back-end
    /// NAME (`wrong-at-17`, `wrong-drops-last`, `failing-count`), so the tests see this very
    /// binary fail; the shipped binary has no such flag.
    #[cfg(feature = "testing")]
    #[arg(long, value_name = "NAME", hide = true)]
    with_wrong: Vec<String>,
}

/// One named check and whether it held.
pub struct Check {
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

/// Everything `verify` found: the checks and the report at the requested N.
pub struct Verdict {
    pub checks: Vec<Check>,
    pub report: Report,
}

impl Verdict {
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.passed)
    }
}

pub fn run(args: Args) -> CliResult {
    args.quiet.apply();
    if let Some(path) = &args.load_table {
        let values = if args.cold_only {
            Values::Unchecked
        } else {
            Values::Judged
        };
        let report = verify_saved(path, &args.moves.moves, values)?;
        return Ok(render_saved(&report, values, args.json.json));
    }
    let (tables, counts) = backends(&args)?;
    let case = Case {
        moves: args.moves.moves,
        limit: args.limit.limit.get(),
        heaps: args.heaps.heaps,
    };
    let colds: Vec<_> = nimsquare::cold::BACKENDS.iter().collect();
    let verdict = verify_with(&case, |c| check::check(c, &tables, &counts, &colds))?;
    if args.json.json {
        super::print_json(render_json(&verdict));
    } else {
        render_text(&verdict);
    }
    Ok(if verdict.passed() {
        0
    } else {
        EXIT_CHECK_FAILED
    })
}

/// A table back-end's registry entry.
type TableEntry = &'static nimsquare::registry::Entry<dyn nimsquare::table::TableBuilder>;
/// A count back-end's registry entry.
type CountEntry = &'static nimsquare::registry::Entry<dyn nimsquare::count::Counter>;

/// The back-ends every check runs: every registered one, and in a test build those named by
/// `--with-wrong` (refused, before any work, when no such wrong back-end exists).
fn backends(args: &Args) -> nimsquare::base::error::Result<(Vec<TableEntry>, Vec<CountEntry>)> {
    let tables: Vec<TableEntry> = nimsquare::table::BACKENDS.iter().collect();
    let counts: Vec<CountEntry> = nimsquare::count::BACKENDS.iter().collect();
    #[cfg(feature = "testing")]
    let (tables, counts) = with_wrong(tables, counts, &args.with_wrong)?;
    #[cfg(not(feature = "testing"))]
    let _ = args;
    Ok((tables, counts))
}

/// `tables` and `counts` with the deliberately wrong back-ends called `names` added.
#[cfg(feature = "testing")]
fn with_wrong(
    mut tables: Vec<TableEntry>,
    mut counts: Vec<CountEntry>,
    names: &[String],
) -> nimsquare::base::error::Result<(Vec<TableEntry>, Vec<CountEntry>)> {
    use check::testing::{find, Wrong};
    for name in names {
        match find(name)? {
            Wrong::Table(e) => tables.push(e),
            Wrong::Count(e) => counts.push(e),
        }
    }
    Ok((tables, counts))
}

/// Runs every check of `verify` on `case` with the checker call given (`run` passes one over
/// every registered back-end; a test one that includes a wrong back-end).
pub fn verify_with(
    case: &Case,
    run_check: impl Fn(&Case) -> nimsquare::base::error::Result<Report>,
) -> nimsquare::base::error::Result<Verdict> {
    let mut checks = Vec::new();
    if case.moves.is_squares() && case.heaps == 3 {
        let at = Case {
            limit: CHECKPOINT_29.0,
            ..case.clone()
        };
        checks.push(known_value(&run_check(&at)?, CHECKPOINT_29.1));
    }
    let small = (0..=CHECKPOINT_MAX.min(case.limit))
        .rev()
        .find(|&n| brute_multisets_affordable(n, case.heaps))
        .unwrap_or(0);
    if small < case.limit {
        checks.push(agreement(&run_check(&Case {
            limit: small,
            ..case.clone()
        })?));
    }
    let report = run_check(case)?;
    if report.pairs.is_empty() && report.disagreements.is_empty() {
        let reasons: Vec<String> = report.skipped.iter().map(|s| s.reason.clone()).collect();
        return Err(Error::Invalid(format!(
            "no count back-end answers for {} heaps at N = {} (1 to {MAX_HEAPS} heaps are counted): {}",
            case.heaps,
            case.limit,
            reasons.join("; ")
        )));
    }
    checks.push(agreement(&report));
    if let Some(route) = octal_route(&report.case, report.table_judge, &report.table) {
        checks.push(octal_agreement(&route));
    }
    Ok(Verdict { checks, report })
}

/// The judge's table equals the octal stage's table of the subtraction code (digit 3 at
/// each move): a second route through code the table stage does not share.
fn octal_agreement(route: &Report) -> Check {
    let moves = route.case.moves.up_to(usize::MAX);
    let code = nimsquare::octal::Rules::subtraction(&moves).map_or_else(
        |_| "with digit 3 at each move".to_string(),
        |r| r.label().to_string(),
    );
    let name = format!(
        "the octal code {code} gives the table of '{}' at N = {}",
        route.table_judge, route.case.limit
    );
    match (route.disagreements.first(), route.skipped.first()) {
        (Some(d), _) => Check {
            name,
            passed: false,
            detail: d.to_string(),
        },
        (None, Some(s)) => Check {
            name,
            passed: true,
            detail: format!("skipped: {}", s.reason),
        },
        (None, None) => Check {
            name,
            passed: true,
            detail: format!(
                "built by '{}'",
                nimsquare::octal::default_backend(route.case.limit).name
            ),
        },
    }
}

use nimsquare::run::planner::{saved_table_judge, SAVED_REFERENCE_MAX};

/// Whether [`verify_saved`] checks a saved table's values or only its zero set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    /// Against a table built now by the judge.
    Judged,
    /// Not at all (`--cold-only`): only the zero set is checked, and no table is built.
    Unchecked,
}

/// Checks the complete saved table in `path` (made for `moves`): its zero set against every
/// cold-set back-end that affords its N (the win/lose sieve shares no kernel with the
/// tables), and with [`Values::Judged`] its values against a table built now by the judge
/// (the naive control, the reference, or past [`SAVED_REFERENCE_MAX`] [`saved_table_judge`]).
/// With [`Values::Unchecked`] the report's `table_judge` is "saved table" itself.
pub fn verify_saved(
    path: &std::path::Path,
    moves: &nimsquare::base::moves::Moves,
    values: Values,
) -> nimsquare::base::error::Result<Report> {
    let file = nimsquare::run::longrun::tablefile::read_complete(path, moves, "--load-table")?;
    // The file's own limit: checked here, where it enters.
    let limit = nimsquare::base::limit::Limit::new(file.limit)?.get();
    let judge = if limit <= SAVED_REFERENCE_MAX {
        check::table_judge(limit)
    } else {
        saved_table_judge(nimsquare::base::isa::active(), limit)
    };
    let case = Case {
        moves: moves.clone(),
        limit,
        heaps: 3,
    };
    let saved = nimsquare::table::Table::from_values(file.values);
    // The saved zero set against every cold-set back-end (no table kernel involved) ...
    let mut colds = check::Checker::new(case.clone(), "saved table", saved);
    for entry in nimsquare::cold::BACKENDS {
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
    let judge_table =
        nimsquare::run::longrun::build_shown(&*(judge.make)(), judge.name, moves, limit);
    let mut checker = check::Checker::new(case, judge.name, judge_table);
    checker.table("saved table", &colds.table);
    let mut report = checker.finish();
    report.disagreements.extend(colds.disagreements);
    report.cold_sets = colds.cold_sets;
    Ok(report)
}

/// Prints the check of a saved table; the exit status (1 when anything differs).
fn render_saved(r: &Report, values: Values, json: bool) -> i32 {
    let passed = r.disagreements.is_empty();
    let judge = (values == Values::Judged).then_some(r.table_judge);
    if json {
        let out = json!({
            "limit": r.case.limit,
            "moves": r.case.moves.label(),
            "passed": passed,
            "values_checked": judge.is_some(),
            "table_judge": judge,
            "cold_sets": r.cold_sets,
            "disagreements": r.disagreements.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
        });
        super::print_json(out);
    } else {
        println!(
            "saved table, moves {}, N = {}",
            r.case.moves.label(),
            r.case.limit
        );
        for d in &r.disagreements {
            println!("FAIL {d}");
        }
        let colds = r.cold_sets.join(", ");
        let verdict = if passed {
            "all checks passed"
        } else {
            "FAILED"
        };
        match judge {
            Some(judge) => {
                println!("against '{judge}' and the cold sets of {colds}: {verdict}")
            }
            None => println!(
                "zero set against the cold sets of {colds} (values not checked: --cold-only): {verdict}"
            ),
        }
    }
    if passed {
        0
    } else {
        EXIT_CHECK_FAILED
    }
}

/// Every pair of `report` gives the published `want`.
fn known_value(report: &Report, want: u128) -> Check {
    let wrong: Vec<String> = report
        .pairs
        .iter()
        .filter(|p| p.answer != want)
        .map(|p| format!("'{}+{}' gives {}", p.table, p.count, p.answer))
        .collect();
    let disagreement = report.disagreements.first();
    Check {
        name: format!("N = {} gives {want}", report.case.limit),
        passed: wrong.is_empty() && !report.pairs.is_empty() && disagreement.is_none(),
        detail: match (wrong.is_empty(), disagreement) {
            (false, _) => format!(
                "Project Euler 310's checkpoint is {want}, but {}",
                wrong.join(", ")
            ),
            (true, Some(d)) => format!("{} pairs give {want}, but {d}", report.pairs.len()),
            (true, None) => format!(
                "{} pairs, Project Euler 310's checkpoint",
                report.pairs.len()
            ),
        },
    }
}

/// Every answering pair of `report` agrees with the judges it names.
fn agreement(report: &Report) -> Check {
    let judges = match report.count_judge {
        Some((count, _)) => format!("'{}' and '{count}'", report.table_judge),
        None => format!("'{}'", report.table_judge),
    };
    Check {
        name: format!(
            "every back-end agrees with {judges} at N = {}",
            report.case.limit
        ),
        passed: report.passed(),
        detail: match report.disagreements.first() {
            Some(d) => format!("{d} ({} disagreements)", report.disagreements.len()),
            None => format!(
                "{} pairs, {} cold set(s), {} back-end(s) skipped",
                report.pairs.len(),
                report.cold_sets.len(),
                report.skipped.len()
            ),
        },
    }
}

fn render_text(v: &Verdict) {
    let r = &v.report;
    println!(
        "moves {}, {} heaps, N = {}",
        r.case.moves.label(),
        r.case.heaps,
        r.case.limit
    );
    // Columns as wide as the longest name (and their headers).
    let width = |len: fn(&check::Pair) -> usize| r.pairs.iter().map(len).fold(5, usize::max);
    let names = width(|p| p.table.len());
    let counts = width(|p| p.count.len());
    println!(
        "{:<names$} {:<counts$} {:>24} {:>12} {:>12}",
        "table", "count", "answer", "table time", "count time"
    );
    for p in &r.pairs {
        println!(
            "{:<names$} {:<counts$} {:>24} {:>12} {:>12}",
            p.table,
            p.count,
            p.answer,
            fmt_seconds(p.table_seconds),
            fmt_seconds(p.count_seconds)
        );
    }
    for s in &r.skipped {
        println!("skip {}: {}", s.backend, s.reason);
    }
    for c in &v.checks {
        let mark = if c.passed { "ok  " } else { "FAIL" };
        println!("{mark} {} ({})", c.name, c.detail);
    }
    let verdict = if v.passed() {
        "all checks passed"
    } else {
        "FAILED"
    };
    println!("verify: {verdict}");
}

fn render_json(v: &Verdict) -> serde_json::Value {
    let r = &v.report;
    json!({
        "limit": r.case.limit,
        "moves": r.case.moves.label(),
        "heaps": r.case.heaps,
        "passed": v.passed(),
        "table_judge": r.table_judge,
        "count_judge": r.count_judge.map(|(name, _)| name),
        "pairs": r.pairs.iter().map(|p| json!({
            "table": p.table, "count": p.count, "answer": p.answer.to_string(),
            "table_seconds": p.table_seconds, "count_seconds": p.count_seconds,
        })).collect::<Vec<_>>(),
        "skipped": r.skipped.iter().map(|s| json!({
            "backend": s.backend, "reason": s.reason,
        })).collect::<Vec<_>>(),
        "cold_sets": r.cold_sets,
        "disagreements": r.disagreements.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
        "checks": v.checks.iter().map(|c| json!({
            "name": c.name, "passed": c.passed, "detail": c.detail,
        })).collect::<Vec<_>>(),
    })
}

#[cfg(all(test, feature = "testing"))]
mod tests {
    use super::*;
    use nimsquare::base::moves::Moves;
    use nimsquare::instruments::check::testing::WRONG_AT_17;
    use nimsquare::{count, table};

    #[test]
    fn a_wrong_back_end_fails_verify_and_is_named() {
        let case = Case {
            moves: Moves::Squares,
            limit: 60,
            heaps: 3,
        };
        let with_wrong = |c: &Case| {
            let tables = [table::find("stamped").unwrap(), &WRONG_AT_17];
            check::check(c, &tables, &[count::find("wht").unwrap()], &[])
        };
        let verdict = verify_with(&case, with_wrong).unwrap();
        assert!(!verdict.passed());
        let failed: Vec<&Check> = verdict.checks.iter().filter(|c| !c.passed).collect();
        // Every check reaching position 17 fails: L(29), the N = 40 control check and N = 60.
        assert_eq!(failed.len(), 3);
        assert!(
            failed.iter().all(|c| c.detail.contains("wrong-at-17")),
            "{:?}",
            failed[0].detail
        );
        assert!(verify_with(&case, check::everything).unwrap().passed());
    }

    #[test]
    fn the_saved_judge_is_not_what_auto_makes_big_tables_with_on_two_threads() {
        use nimsquare::base::isa::Isa;
        use nimsquare::kernels::Family;
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
                let made =
                    nimsquare::run::planner::choose_table_on(isa, SAVED_REFERENCE_MAX + 1, threads);
                // ... and not what auto makes big tables with on several threads.
                assert_ne!(made.name, judge.name, "{isa}, {threads} threads");
                assert!(made.kernels.contains(&Family::SuperBlocks), "{isa}");
            }
        }
    }
}
