//! `nimsquare build`: one table of any workload, built once by one back-end and summarised
//! (seconds, largest value, digest). What `compare` runs on each side for a workload other
//! than the squares' solve, and the plainest way to time one back-end of any workload.
//!
//! The run is planned before any work ([`BuildPlan`]: the limit, a control past what it
//! affords, the memory), so a refusal is one line naming N and nothing is built.

use super::args::{JsonArg, LimitArg, QuietArg};
use super::common::CliResult;
use nimsquare::base::error::{Error, Result};
use nimsquare::run::report::{self, Built};
use nimsquare::run::workload::{self, BuildPlan};
use std::time::Instant;

#[derive(clap::Args)]
#[command(
    long_about = "Builds one table of any workload (`nimsquare list` names them) with one \
    back-end and prints the seconds it took, the largest value and where it first occurs, the \
    cold positions counted, and the table's digest (FNV-1a of the values as little-endian \
    u16: equal tables have equal digests). Refused before any work: a limit out of range, a \
    naive control past the N it affords, a table that does not fit in memory."
)]
pub struct Args {
    /// The workload and its rules, `KIND:RULES` (`table:squares`, `octal:0.6`,
    /// `finite:1,3,4`), or a workload's name alone for its example rules.
    #[arg(long, value_name = "KIND[:RULES]", default_value = "table:squares")]
    workload: String,
    /// The back-end (default: the workload's default back-end for N). `--table` is the
    /// same flag.
    #[arg(long, alias = "table", value_name = "NAME")]
    backend: Option<String>,
    #[command(flatten)]
    limit: LimitArg,
    #[command(flatten)]
    json: JsonArg,
    #[command(flatten)]
    quiet: QuietArg,
}

/// The plan of the arguments, every refusal before any work.
fn plan(args: &Args) -> Result<BuildPlan> {
    let subject = workload::parse_spec(&args.workload)
        .map_err(|e| Error::Invalid(format!("--workload: {e}")))?;
    let limit = args.limit.limit.as_u64();
    let backend = match args.backend.as_deref() {
        Some(name) => subject
            .find(name.trim())
            .map_err(|e| Error::Invalid(format!("--backend: {e}")))?,
        None => subject.default_backend(limit as usize),
    };
    BuildPlan::new(subject, backend, limit)
}

pub fn run(args: Args) -> CliResult {
    let plan = plan(&args)?;
    args.quiet.apply();
    let started = Instant::now();
    let table = plan.build()?;
    let seconds = started.elapsed().as_secs_f64();
    let report = Built {
        workload: plan.subject.stage().into(),
        rules: plan.subject.label(),
        game: plan.subject.describe(),
        limit: plan.limit as u64,
        backend: plan.backend.name().into(),
        table: plan.backend.name().into(),
        seconds,
        max_value: table.max_value(),
        max_value_first_at: table.max_value_first_at(),
        cold_count: table.cold_count(),
        table_digest: super::octal::table_digest(table.values()),
        memory_needed: plan.memory_needed,
        threads: rayon::current_num_threads(),
        isa: nimsquare::base::isa::active().name().into(),
    };
    report::print(&report, args.json.json);
    Ok(0)
}
