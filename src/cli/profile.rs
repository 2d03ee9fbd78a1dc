//! `nimsquare profile`: samples one solve (table, then count) with pprof and writes a
//! flamegraph SVG.
//!
//! A run too short to be sampled writes nothing: it prints one line on stderr saying so and
//! exits with status 2, so a script never mistakes an empty graph for a profile.

use super::{parse_limit, CliResult};
use crate::error::Error;
use crate::moves::Moves;
use crate::table;
use std::path::PathBuf;
use std::time::Instant;

/// The default limit: large enough that the default back-ends run for about a second.
const DEFAULT_PROFILE_LIMIT: u64 = 1_000_000;
/// `solve`'s default back-ends: the planner's choice (tests/profile.rs checks the two agree).
const DEFAULT_TABLE: &str = crate::planner::AUTO;
const DEFAULT_COUNT: &str = crate::planner::AUTO;

#[derive(clap::Args)]
#[command(
    long_about = "Samples one solve (table, then count) with pprof and writes a flamegraph SVG.\n\n\
    Prints one line: where it wrote the file, how many samples it took, and the answer. A run too \
    short to take a single sample writes no file, says so on stderr and exits with status 2: raise \
    --limit or --frequency."
)]
pub struct Args {
    /// The largest heap size N.
    #[arg(long, short = 'n', value_name = "N", default_value_t = DEFAULT_PROFILE_LIMIT,
          value_parser = parse_limit, allow_hyphen_values = true)]
    limit: u64,
    /// Table back-end (see `nimsquare list`; the same default as `solve`).
    #[arg(long, value_name = "NAME", default_value = DEFAULT_TABLE)]
    table: String,
    /// Count back-end (see `nimsquare list`; the same default as `solve`).
    #[arg(long, value_name = "NAME", default_value = DEFAULT_COUNT)]
    count: String,
    /// Subtraction set: `squares` or a comma-separated list like 1,3,4.
    #[arg(long, value_name = "LIST", default_value = "squares", value_parser = crate::cli::parse_moves,
          allow_hyphen_values = true)]
    moves: Moves,
    /// Where to write the flamegraph.
    #[arg(long, value_name = "FILE.svg", default_value = "flamegraph.svg")]
    out: PathBuf,
    /// Samples per second of CPU time (1 to 10000; a prime avoids beating with loops).
    #[arg(
        long,
        value_name = "HZ",
        default_value_t = 997,
        allow_hyphen_values = true
    )]
    frequency: i64,
}

pub fn run(args: Args) -> CliResult {
    let limit = table::check_limit(args.limit)?;
    let table_entry = crate::planner::resolve_table(&args.table, &args.moves, limit)?;
    let count_entry = crate::planner::resolve_count(&args.count, limit, 3)?;
    table::check_memory(limit, table_entry.name)?;
    if !(1..=10_000).contains(&args.frequency) {
        return Err(Error::Invalid(format!(
            "--frequency must be between 1 and 10000 Hz, got {}",
            args.frequency
        )));
    }
    super::args::check_output_path(&args.out, "--out")?;
    let builder = (table_entry.make)();
    let counter = (count_entry.make)();
    let moves = args.moves;

    let guard = pprof::ProfilerGuardBuilder::default()
        .frequency(args.frequency as i32)
        .blocklist(&["libc", "libgcc", "pthread", "vdso"])
        .build()
        .map_err(|e| Error::Invalid(format!("cannot start the profiler: {e}")))?;
    let start = Instant::now();
    let t = builder.build(&moves, limit);
    let answer = counter.count(&t, 3)?;
    let seconds = start.elapsed().as_secs_f64();
    let report = guard
        .report()
        .build()
        .map_err(|e| Error::Invalid(format!("cannot build the profile: {e}")))?;
    drop(guard);

    let samples: isize = report.data.values().sum();
    if samples <= 0 {
        return Err(Error::Invalid(format!(
            "no samples: the solve took {seconds:.4} s, too short to sample at {} Hz; \
             no file written (raise --limit or --frequency)",
            args.frequency
        )));
    }
    let file = std::fs::File::create(&args.out)
        .map_err(|e| Error::Invalid(format!("{}: {e}", args.out.display())))?;
    report
        .flamegraph(file)
        .map_err(|e| Error::Invalid(format!("cannot write {}: {e}", args.out.display())))?;
    println!(
        "wrote {} samples={samples} frequency_hz={} seconds={seconds:.3} limit={limit} table={} count={} answer={answer}",
        args.out.display(),
        args.frequency,
        table_entry.name,
        count_entry.name
    );
    Ok(0)
}
