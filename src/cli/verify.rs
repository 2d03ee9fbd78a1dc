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

use super::args::{JsonArg, QuietArg, SolveArgs};
use super::common::{fmt_seconds, CliResult, EXIT_CHECK_FAILED};
use nimsquare::instruments::check::saved::{verify_saved, Values};
use nimsquare::instruments::check::verify::{verify_with, Verdict};
use nimsquare::instruments::check::{self, Case, Report};
use nimsquare::run::report;
use serde_json::json;
use std::io::{self, Write};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    solve: SolveArgs,
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

pub fn run(args: Args) -> CliResult {
    args.quiet.apply();
    if let Some(path) = &args.load_table {
        let values = if args.cold_only {
            Values::Unchecked
        } else {
            Values::Judged
        };
        let report = Saved {
            report: verify_saved(path, &args.solve.moves.moves, values)?,
            values,
        };
        report::print(&report, args.json.json);
        return Ok(exit_status(report.report.disagreements.is_empty()));
    }
    let (tables, counts) = backends(&args)?;
    let case = Case {
        moves: args.solve.moves.moves,
        limit: args.solve.limit.limit.get(),
        heaps: args.solve.heaps.heaps,
    };
    let colds: Vec<_> = nimsquare::cold::BACKENDS.iter().collect();
    let verdict = verify_with(&case, |c| check::check(c, &tables, &counts, &colds))?;
    let verdict_passed = verdict.passed();
    report::print(&Checked(verdict), args.json.json);
    Ok(exit_status(verdict_passed))
}

/// The exit status of a check: 0 when it passed, else [`EXIT_CHECK_FAILED`].
fn exit_status(passed: bool) -> i32 {
    if passed {
        0
    } else {
        EXIT_CHECK_FAILED
    }
}

/// A table back-end's registry entry.
type TableEntry = &'static nimsquare::registry::Entry<
    dyn nimsquare::grundy::Builder<nimsquare::base::moves::Moves>,
>;
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

/// The check of a saved table: `verify --load-table`'s report.
struct Saved {
    report: Report,
    values: Values,
}

impl Saved {
    /// The judge the values were checked against (None with `--cold-only`).
    fn judge(&self) -> Option<&'static str> {
        (self.values == Values::Judged).then_some(self.report.table_judge)
    }
}

impl report::Report for Saved {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        let r = &self.report;
        writeln!(
            out,
            "saved table, moves {}, N = {}",
            r.case.moves.label(),
            r.case.limit
        )?;
        for d in &r.disagreements {
            writeln!(out, "FAIL {d}")?;
        }
        let colds = r.cold_sets.join(", ");
        let verdict = if r.disagreements.is_empty() {
            "all checks passed"
        } else {
            "FAILED"
        };
        match self.judge() {
            Some(judge) => writeln!(
                out,
                "against '{judge}' and the cold sets of {colds}: {verdict}"
            ),
            None => writeln!(
                out,
                "zero set against the cold sets of {colds} (values not checked: --cold-only): {verdict}"
            ),
        }
    }

    fn json(&self) -> serde_json::Value {
        let r = &self.report;
        let judge = self.judge();
        json!({
            "limit": r.case.limit,
            "moves": r.case.moves.label(),
            "passed": r.disagreements.is_empty(),
            "values_checked": judge.is_some(),
            "table_judge": judge,
            "cold_sets": r.cold_sets,
            "disagreements": r.disagreements.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
        })
    }
}

/// The checker's verdict: `verify`'s report.
struct Checked(Verdict);

impl report::Report for Checked {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        render_text(&self.0, out)
    }

    fn json(&self) -> serde_json::Value {
        render_json(&self.0)
    }
}

fn render_text(v: &Verdict, out: &mut dyn Write) -> io::Result<()> {
    let r = &v.report;
    writeln!(
        out,
        "moves {}, {} heaps, N = {}",
        r.case.moves.label(),
        r.case.heaps,
        r.case.limit
    )?;
    // Columns as wide as the longest name (and their headers).
    let width = |len: fn(&check::Pair) -> usize| r.pairs.iter().map(len).fold(5, usize::max);
    let names = width(|p| p.table.len());
    let counts = width(|p| p.count.len());
    writeln!(
        out,
        "{:<names$} {:<counts$} {:>24} {:>12} {:>12}",
        "table", "count", "answer", "table time", "count time"
    )?;
    for p in &r.pairs {
        writeln!(
            out,
            "{:<names$} {:<counts$} {:>24} {:>12} {:>12}",
            p.table,
            p.count,
            p.answer,
            fmt_seconds(p.table_seconds),
            fmt_seconds(p.count_seconds)
        )?;
    }
    for s in &r.skipped {
        writeln!(out, "skip {}: {}", s.backend, s.reason)?;
    }
    for c in &v.checks {
        let mark = if c.passed { "ok  " } else { "FAIL" };
        writeln!(out, "{mark} {} ({})", c.name, c.detail)?;
    }
    let verdict = if v.passed() {
        "all checks passed"
    } else {
        "FAILED"
    };
    writeln!(out, "verify: {verdict}")
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
