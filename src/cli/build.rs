//! `nimsquare build`: one table of any workload, built once by one back-end and summarised
//! (seconds, largest value, digest). What `compare` runs on each side for a workload other
//! than the squares' solve, and the plainest way to time one back-end of any workload.
//!
//! The run is planned before any work (`TablePlan`: the limit, a control past what it
//! affords, the memory, whole table or window mode), so a refusal is one line naming N
//! and nothing is built.

use super::args::{window_limit_parser, JsonArg, PlotArgs, QuietArg};
use super::common::CliResult;
use nimsquare::base::error::Error;
use nimsquare::run::report::{self, Built};
use nimsquare::run::session::{self, Unsaved};
use nimsquare::run::window::plan::Ask;
use nimsquare::run::window::table::{TableOutcome, TablePlan};
use nimsquare::run::workload;
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(
    long_about = "Builds one table of any workload (`nimsquare list` names them) with one \
    back-end and prints the seconds it took, the largest value and where it first occurs, the \
    cold positions counted, and the table's digest (FNV-1a of the values as little-endian \
    u16: equal tables have equal digests). An octal table that would not fit in memory, or \
    with --window, is built in window mode (see `nimsquare octal --help`): only a window of \
    it stays in memory, the same facts are reported, and `mode` says which ran. Refused \
    before any work: a limit out of range, a naive control past the N it affords, a table \
    that does not fit in memory and cannot run in window mode."
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
    /// The largest heap size N (e.g. 100000 or 1e6; at most 4294967295, and for an octal
    /// table in window mode 2^40 - 1).
    #[arg(long, short = 'n', value_name = "N", default_value = super::args::DEFAULT_LIMIT,
          value_parser = window_limit_parser(), allow_hyphen_values = true)]
    limit: u64,
    /// Octal only: build in window mode even when the whole table would fit.
    #[arg(long)]
    window: bool,
    /// Octal only: window mode, keeping the values in FILE (new; never overwritten).
    #[arg(long, value_name = "FILE")]
    window_file: Option<PathBuf>,
    #[command(flatten)]
    json: JsonArg,
    #[command(flatten)]
    plot: PlotArgs,
    #[command(flatten)]
    quiet: QuietArg,
}

pub fn run(args: Args) -> CliResult {
    let subject = workload::parse_spec(&args.workload)
        .map_err(|e| Error::Invalid(format!("--workload: {e}")))?;
    let ask = Ask {
        window: args.window,
        file: args.window_file.clone(),
        ..Ask::default()
    };
    let plan = TablePlan::decide(subject.clone(), args.backend.as_deref(), args.limit, &ask)?;
    let plot = args.plot.decide()?;
    args.quiet.apply();
    let log_x = plot.as_ref().map(|(_, log_x)| *log_x);
    let (facts, seconds, picture) = match plan.build(args.quiet.quiet, log_x)? {
        TableOutcome::Done {
            facts,
            seconds,
            plot,
        } => (facts, seconds, plot),
        TableOutcome::Stopped { signal, done } => {
            eprintln!(
                "build: stopped by {} after g(0..{done}); nothing is kept",
                signal.name()
            );
            return Ok(signal.exit_status());
        }
    };
    let mut unsaved = Vec::new();
    if let (Some((out, _)), Some(drawn)) = (&plot, &picture) {
        let (picture, drawing) = &**drawn;
        if let Err(error) = picture.write(drawing, out, "--plot") {
            unsaved.push(Unsaved {
                flag: "--plot",
                file: args.plot.plot.clone().unwrap_or_default(),
                error,
            });
        }
    }
    let report = Built {
        workload: subject.stage().into(),
        rules: subject.label(),
        game: subject.describe(),
        limit: plan.limit() as u64,
        backend: plan.backend().into(),
        table: plan.backend().into(),
        mode: if plan.window().is_some() {
            "window"
        } else {
            "full"
        }
        .into(),
        seconds,
        max_value: facts.max_value,
        max_value_first_at: facts.max_value_first_at,
        cold_count: facts.cold_count,
        table_digest: facts.digest,
        memory_needed: plan.memory_needed(),
        threads: rayon::current_num_threads(),
        isa: nimsquare::base::isa::active().name().into(),
        plot: args.plot.shown().filter(|_| unsaved.is_empty()),
    };
    report::print(&report, args.json.json);
    Ok(session::report_unsaved(&unsaved))
}
