//! `nimsquare solve`: one table back-end, one count back-end, one answer.
//!
//! The table stage runs through [`crate::longrun`]'s driver, so a long run shows progress,
//! can keep a checkpoint, stops cleanly on Ctrl-C/SIGTERM (exit 130/143 with a line saying how
//! to resume) and can save its table or start from a saved one.

use super::args::{HeapsArg, JsonArg, LimitArg, LongRunArgs, MovesArg};
use super::CliResult;
use crate::error::Error;
use crate::longrun::{self, tablefile, LongRun, Outcome, Start};
use crate::{memory, planner, table};
use serde_json::json;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    limit: LimitArg,
    /// Table back-end (see `nimsquare list`); `auto` lets the planner choose by N and threads.
    #[arg(long, value_name = "NAME", default_value = planner::AUTO)]
    table: String,
    /// Count back-end (see `nimsquare list`); `auto` lets the planner choose.
    #[arg(long, value_name = "NAME", default_value = planner::AUTO)]
    count: String,
    #[command(flatten)]
    heaps: HeapsArg,
    #[command(flatten)]
    moves: MovesArg,
    #[command(flatten)]
    json: JsonArg,
    #[command(flatten)]
    longrun: LongRunArgs,
}

/// The table back-ends whose fill honours `from` on this branch: only `stamped`, through
/// [`longrun::fill::stamped_fill`]. The table trait's `resumable()`/`fill` replace this (and
/// the closure in [`run`]) once the back-ends expose them.
fn resumable(name: &str) -> bool {
    name == "stamped"
}

/// The command line as typed, for the "run the same command again" hint.
fn same_command() -> String {
    std::env::args()
        .map(|a| {
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'') {
                format!("'{}'", a.replace('\'', r"'\''"))
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn run(args: Args) -> CliResult {
    let limit = table::check_limit(args.limit.limit)?;
    let moves = &args.moves.moves;
    let lr = &args.longrun;
    let mut table_entry = planner::resolve_table(&args.table, moves, limit)?;
    let count_entry = planner::resolve_count(&args.count, limit, args.heaps.heaps)?;
    // Every file is checked before any work: a table is never written over an existing file,
    // and a damaged or foreign table/checkpoint is refused up front.
    if let Some(path) = &lr.save_table {
        tablefile::check_absent(path, "--save-table")?;
        tablefile::check_writable(path, "--save-table")?;
    }
    if let Some(path) = &lr.checkpoint {
        tablefile::check_overwritable(path, moves, limit)
            .map_err(|e| Error::Invalid(format!("--checkpoint: {e}")))?;
    }
    let start = longrun::start_from_files(
        moves,
        limit,
        lr.checkpoint.as_deref(),
        lr.load_table.as_deref(),
    )?;
    let seeded = match &start {
        Start::Fresh => 0,
        Start::Seed(file) => file.provides(limit),
    };
    let needs_resume = lr.checkpoint.is_some() || (seeded > 0 && seeded <= limit);
    if needs_resume && !resumable(table_entry.name) {
        if args.table == planner::AUTO {
            table_entry = table::find("stamped")?;
        } else {
            return Err(Error::Invalid(format!(
                "--table {} cannot resume from a checkpoint or a partial table yet; use --table stamped (or drop --checkpoint/--load-table)",
                table_entry.name
            )));
        }
    }
    table::check_memory(limit, table_entry.name)?;
    let counter = (count_entry.make)();
    // A back-end that cannot do K heaps says so on a one-position table, before the real
    // table is built (which can take minutes at large N).
    counter.count(&table::Table::from_values(vec![0]), args.heaps.heaps)?;
    let opts = LongRun {
        checkpoint: lr.checkpoint.clone(),
        every: lr.checkpoint_every,
        quiet: lr.quiet,
        resumable: resumable(table_entry.name),
        ..LongRun::default()
    };
    let builder = (table_entry.make)();
    // Until the table trait has `fill`: `stamped` resumes through the driver's own stamped
    // fill; every other back-end builds the whole table in one call from 0 (the driver never
    // asks it for anything else, since `resumable` is false).
    let fill = |g: &mut [u16], from: usize, max_before: u16| {
        if resumable(table_entry.name) {
            longrun::fill::stamped_fill(moves, g, from, max_before);
        } else {
            assert_eq!(from, 0, "not yet resumable");
            g.copy_from_slice(builder.build(moves, g.len() - 1).values());
        }
    };
    let start_time = Instant::now();
    let t = match longrun::run_fill(moves, limit, start, &fill, &opts)? {
        Outcome::Finished(values) => table::Table::from_values(values),
        Outcome::Interrupted {
            signal,
            done,
            checkpoint,
        } => {
            let by = signal.map_or("a stop request", |s| s.name());
            match checkpoint {
                Some(path) => eprintln!(
                    "interrupted by {by} after g(0..{done}) of {} positions, kept in {}; to resume run the same command: {}",
                    limit as u64 + 1,
                    path.display(),
                    same_command()
                ),
                None => eprintln!(
                    "interrupted by {by} after g(0..{done}) of {} positions; nothing was kept (add --checkpoint FILE to keep progress)",
                    limit as u64 + 1
                ),
            }
            return Ok(signal.map_or(1, |s| s.exit_code()));
        }
    };
    let table_seconds = start_time.elapsed().as_secs_f64();
    if let Some(path) = &lr.save_table {
        tablefile::write_atomic(path, moves, limit as u64, t.values(), t.max_value())
            .map_err(|e| Error::Invalid(format!("--save-table: {e}")))?;
    }
    let start = Instant::now();
    let answer = counter.count(&t, args.heaps.heaps)?;
    let count_seconds = start.elapsed().as_secs_f64();
    if args.json.json {
        let out = json!({
            "limit": limit,
            "moves": args.moves.moves.label(),
            "heaps": args.heaps.heaps,
            "table": table_entry.name,
            "count": count_entry.name,
            "table_requested": args.table,
            "count_requested": args.count,
            "answer": answer.to_string(),
            "max_value": t.max_value(),
            "max_value_first_at": t.max_value_first_at(),
            "cold_positions": t.cold_count(),
            "option_steps": args.moves.moves.option_steps(limit).to_string(),
            "seeded_positions": seeded,
            "threads": rayon::current_num_threads(),
            "table_seconds": table_seconds,
            "count_seconds": count_seconds,
            "peak_rss_bytes": memory::peak_rss_bytes(),
        });
        println!("{out}");
    } else {
        println!("{answer}");
    }
    Ok(0)
}
