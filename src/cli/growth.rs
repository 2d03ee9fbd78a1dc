//! `nimsquare growth`: the growth study. Reads c(N) (cold positions in 0..=N) or m(N) (the
//! largest Grundy value up to N) on a geometric grid of N, writes one CSV row per N, prints
//! the fitted exponent of the quantity against N, and optionally draws a log-log SVG. The
//! study is [`nimsquare::instruments::scaling::growth_study`]; this file is parse (every
//! refusal before any work), the spinner and the printed lines.

use super::args::{limit_parser, GridArgs, MovesArg, StudyFileArgs, StudyOutputs};
use super::common::{forecast, wisdom, CliResult};
use nimsquare::base::error::{Error, Result};
use nimsquare::base::limit::Limit;
use nimsquare::instruments::scaling::growth::{GrowthSettings, COLD_HEADER, MAX_HEADER};
use nimsquare::instruments::scaling::growth_study::{self, Event, Files, Study};
use nimsquare::run::report;
use std::io::IsTerminal;
use std::path::PathBuf;

/// The quantity a growth study reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Quantity {
    /// c(N): the number of cold positions (g = 0) in 0..=N, from the `sieve` cold set.
    Cold,
    /// m(N): the largest Grundy value in 0..=N, from a full table.
    Max,
}

impl From<Quantity> for growth_study::Quantity {
    fn from(q: Quantity) -> Self {
        match q {
            Quantity::Cold => growth_study::Quantity::Cold,
            Quantity::Max => growth_study::Quantity::Max,
        }
    }
}

/// The long help. Set on the subcommand in `cli/mod.rs`: clap takes the variant's doc
/// comment over an attribute on this struct.
pub const LONG_ABOUT: &str =
    "Reads how a quantity of one heap grows with N (the growth study).\n\n\
    --quantity cold: c(N), the number of cold positions (g = 0) in 0..=N, from the `sieve` \
    cold-set back-end (N up to 4294967295). --quantity max: m(N), the largest Grundy value in \
    0..=N and where it first occurs, with the count of each value, from a full table (the \
    planner's choice of back-end; 2 bytes per position).\n\n\
    The grid is --points values of N from --from to --to, equally spaced in log N. Since g(n) \
    does not depend on the limit a table is built to, one cold set or table is built at the \
    largest N not yet in --out and every grid point is read from it as a prefix; `seconds` in \
    each row is that one build's time, `built_to` its N. One CSV row per N is appended to --out \
    and flushed at once. An existing --out is never replaced silently: pass --force to replace \
    it, or --resume to skip the N already there (refused when the file holds the other \
    quantity or other --moves). Stdout gets one `row ...` line per N and at the end one \
    `fit ...` line: the least-squares slope of log(quantity) on log(N) over the rows with \
    N >= --fit-from (default 10000, for both quantities), its R^2 and the number of such \
    rows. A fit over a finite range is a description of that range, not an asymptotic law. \
    --plot draws the quantity against N on log-log axes with the fitted line dashed. A spinner \
    is drawn on stderr only when stderr is a terminal.";

#[derive(clap::Args)]
pub struct Args {
    /// The quantity to read: cold (the cold count c(N)) or max (the largest value m(N)).
    #[arg(long, value_enum, value_name = "cold|max")]
    quantity: Quantity,
    #[command(flatten)]
    grid: GridArgs,
    /// The CSV file to write, row by row (an existing one needs --force or --resume; a FIFO
    /// or a device is written in place, a symlink through to its target).
    #[arg(long, value_name = "FILE.csv", default_value = "growth.csv")]
    out: PathBuf,
    #[command(flatten)]
    files: StudyFileArgs,
    /// Fit only the rows with N >= this (default 10000: below it both quantities are small
    /// integers whose steps bend the line).
    #[arg(long, value_name = "N", default_value = "10000", value_parser = limit_parser(),
          allow_hyphen_values = true)]
    fit_from: Limit,
    #[command(flatten)]
    moves: MovesArg,
}

pub fn run(args: Args) -> CliResult {
    let files = check_outputs(&args)?;
    let study = Study {
        quantity: args.quantity.into(),
        grid: args.grid.grid()?,
        settings: GrowthSettings {
            moves: args.moves.moves.label(),
        },
        moves: args.moves.moves.clone(),
        fit_from: args.fit_from.as_u64(),
        wisdom: Some(wisdom()),
    };
    study.check_memory(args.grid.to.as_u64())?;
    let files = Files {
        out: (&args.out, &files.out),
        plot: args.files.plot.as_deref().zip(files.plot.as_ref()),
        resume: args.files.resume,
    };
    let mut bar = indicatif::ProgressBar::hidden();
    let grown = study.run(files, |event| match event {
        Event::Resumed { rows } => {
            println!("resume: {rows} rows already in {}", args.out.display())
        }
        // The one build at the largest pending N, as `solve` forecasts it.
        Event::Planned { top } if study.quantity == growth_study::Quantity::Max => {
            if let Ok(planned) = plan_at(&study, top) {
                forecast(&planned);
            }
        }
        Event::Planned { .. } => {}
        Event::Building(what) => bar = spinner(what),
        Event::Built => bar.finish_and_clear(),
        Event::Row(line) => println!("{line}"),
    })?;
    report::print(&grown, false);
    Ok(0)
}

/// The solve plan of the one table build at N = `top`, for its forecast.
fn plan_at(study: &Study, top: u64) -> Result<nimsquare::run::planner::Plan> {
    nimsquare::run::planner::Plan::new(&nimsquare::run::planner::Request {
        moves: study.moves.clone(),
        limit: Limit::new(top)?,
        heaps: 3,
        table: nimsquare::run::planner::AUTO.into(),
        count: nimsquare::run::planner::AUTO.into(),
        wisdom: Some(wisdom()),
    })
}

/// An earlier study is never replaced without --force; both files must be writable; a
/// resumed file must hold the same quantity.
fn check_outputs(args: &Args) -> Result<StudyOutputs> {
    let files = args.files.check(&args.out)?;
    if files.occupied && args.files.resume {
        let first = std::fs::read_to_string(&args.out)
            .map_err(|e| Error::Invalid(format!("--out {}: {e}", args.out.display())))?;
        let first = first.lines().next().unwrap_or("");
        let other = match args.quantity {
            Quantity::Cold => (first == MAX_HEADER).then_some("max"),
            Quantity::Max => (first == COLD_HEADER).then_some("cold"),
        };
        if let Some(other) = other {
            return Err(Error::Invalid(format!(
                "--resume: {} holds --quantity {other}, this run has --quantity {}; use the \
                 same quantity, or write a new study with another --out",
                args.out.display(),
                growth_study::Quantity::from(args.quantity).name()
            )));
        }
    }
    Ok(files)
}

/// A spinner on stderr while the one build runs (hidden unless stderr is a terminal).
fn spinner(message: String) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} {spinner} {msg}")
            .expect("a valid template"),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar.set_message(message);
    bar
}
