//! `nimsquare solve`: one plan, one table, one count, one answer.
//!
//! The table stage runs through [`nimsquare::run::longrun`]'s driver, so a long run shows progress,
//! can keep a checkpoint, stops cleanly on Ctrl-C/SIGTERM (exit 130/143 with a line saying how
//! to resume) and can save its table or start from a saved one.

use super::args::{HeapsArg, JsonArg, LimitArg, LongRunArgs, MovesArg};
use super::common::CliResult;
use nimsquare::base::error::{Error, Result};
use nimsquare::base::memory;
use nimsquare::base::provenance::load_average;
use nimsquare::cold::ColdFinder;
use nimsquare::registry::Entry;
use nimsquare::run::longrun::{self, tablefile, LongRun, Outcome, Start};
use nimsquare::run::planner::{self, Plan, Request};
use nimsquare::table::Table;
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
    let load_start = load_average();
    let plan = Plan::new(&Request {
        moves: args.moves.moves.clone(),
        limit: args.limit.limit,
        heaps: args.heaps.heaps,
        table: args.table.clone(),
        count: args.count.clone(),
        wisdom: Some(super::wisdom()),
    })?;
    if let Some(cold) = plan.cold {
        return solve_cold(&plan, cold, &args, load_start);
    }
    let start = check_files(&plan, &args.longrun)?;
    let seeded = match &start {
        Start::Fresh => 0,
        Start::Seed(file) => file.provides(plan.limit),
    };
    if let (Start::Seed(file), false) = (&start, args.longrun.quiet) {
        let from = if args.longrun.checkpoint.as_deref() == Some(file.path.as_path()) {
            "resuming from the checkpoint"
        } else {
            "starting from the table"
        };
        eprintln!(
            "{from} {}: g(0..{seeded}) of {} positions are done, {} to go",
            file.path.display(),
            plan.limit as u64 + 1,
            plan.limit as u64 + 1 - seeded as u64
        );
    }
    // A run seeded from a file forecasts nothing: its progress bar has the ETA of what is left.
    if !args.longrun.quiet && seeded == 0 {
        super::forecast(&plan);
    }
    let started = Instant::now();
    // Files that could not be written: reported after the answer, which is never lost to them.
    let mut unsaved: Vec<Unsaved> = Vec::new();
    let t = match build_table(&plan, start, &args.longrun, &mut unsaved)? {
        Ok(t) => t,
        Err(exit_code) => return Ok(exit_code),
    };
    let table_seconds = started.elapsed().as_secs_f64();
    if let Some(path) = &args.longrun.save_table {
        if let Err(e) = tablefile::write_atomic(
            path,
            &plan.moves,
            plan.limit as u64,
            t.values(),
            t.max_value(),
        ) {
            unsaved.push(Unsaved {
                flag: "--save-table",
                file: path.clone(),
                error: e,
            });
        }
    }
    let started = Instant::now();
    let answer = plan.count_exact(&t)?;
    let count_seconds = started.elapsed().as_secs_f64();
    if args.json.json {
        // S(N) < 2^53 for every accepted input (N < 2^32, at most 65 535 moves), so it is a
        // JSON number that every reader takes exactly.
        let steps_total = plan.moves.option_steps(plan.limit) as u64;
        let steps_this_run =
            steps_total - longrun::progress::steps_before(&plan.moves, seeded) as u64;
        let facts = serde_json::json!({
            "answer": answer.to_string(),
            "max_value": t.max_value(),
            "max_value_first_at": t.max_value_first_at(),
            "cold_positions": t.cold_count(),
            "option_steps": steps_total,
            "seeded_positions": seeded,
            "positions_this_run": plan.limit as u64 + 1 - seeded as u64,
            "option_steps_this_run": steps_this_run,
            "table_seconds": table_seconds,
            "ns_per_step": if steps_this_run > 0 {
                serde_json::json!(table_seconds * 1e9 / steps_this_run as f64)
            } else {
                serde_json::Value::Null
            },
            "count_seconds": count_seconds,
            "unsaved": unsaved.iter().map(Unsaved::to_json).collect::<Vec<_>>(),
        });
        print_json(&plan, facts, load_start);
    } else {
        println!("{answer}");
    }
    if unsaved.is_empty() {
        return Ok(0);
    }
    for u in &unsaved {
        eprintln!(
            "error: the answer above is complete, but a file was not written: {}: {}",
            u.flag, u.error
        );
    }
    Ok(EXIT_UNSAVED)
}

/// A file the run was asked to write and could not (the answer is printed all the same).
struct Unsaved {
    /// The flag that asked for it: `--save-table` or `--checkpoint`.
    flag: &'static str,
    /// The file as given.
    file: std::path::PathBuf,
    /// Why it was not written, one line.
    error: Error,
}

impl Unsaved {
    /// `{"flag": ..., "file": ..., "reason": ...}`, an element of `--json`'s `unsaved`.
    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "flag": self.flag,
            "file": self.file.display().to_string(),
            "reason": self.error.to_string(),
        })
    }
}

/// Exit status of a run that printed its answer but could not write a file it was asked to
/// (`--save-table`, the final `--checkpoint`): distinct from a refusal (2), which does no work.
pub const EXIT_UNSAVED: i32 = 4;

/// One heap through the win/lose sieve: the answer is the cold count. Fields a sieve cannot
/// know (the max value and where it occurs, option steps) are null in `--json`, and the work
/// is given in the sieve's own unit, marks.
fn solve_cold(
    plan: &Plan,
    cold: &'static Entry<dyn ColdFinder>,
    args: &Args,
    load_start: Option<f64>,
) -> CliResult {
    let lr = &args.longrun;
    if lr.checkpoint.is_some() || lr.save_table.is_some() || lr.load_table.is_some() {
        return Err(Error::Invalid(
            "--heaps 1 goes through the win/lose sieve, which builds no table to checkpoint, save or load; add --table NAME (e.g. --table stamped-parallel) to build the full table".into(),
        ));
    }
    let started = Instant::now();
    let set = (cold.make)().cold(&plan.moves, plan.limit);
    let seconds = started.elapsed().as_secs_f64();
    if args.json.json {
        let facts = serde_json::json!({
            "answer": set.count().to_string(),
            "max_value": null,
            "max_value_first_at": null,
            "cold_positions": set.count(),
            "option_steps": null,
            "seeded_positions": null,
            "positions_this_run": plan.limit as u64 + 1,
            "option_steps_this_run": null,
            "ns_per_step": null,
            "sieve_marks": set.marks(&plan.moves).to_string(),
            "cold_seconds": seconds,
            "table_seconds": null,
            "count_seconds": null,
            "unsaved": [],
        });
        print_json(plan, facts, load_start);
    } else {
        println!("{}", set.count());
    }
    Ok(0)
}

/// Prints one JSON object: the plan's fields, the run's `facts`, the vector path the
/// kernels took (`isa`) and the peak memory.
fn print_json(plan: &Plan, facts: serde_json::Value, load_start: Option<f64>) {
    let mut out = plan.to_json();
    if let (Some(out), serde_json::Value::Object(facts)) = (out.as_object_mut(), facts) {
        out.extend(facts);
        out.insert("load_average_start".into(), load_start.into());
        out.insert("load_average_end".into(), load_average().into());
        out.insert("isa".into(), nimsquare::base::isa::active().name().into());
        out.insert("peak_rss_bytes".into(), memory::peak_rss_bytes().into());
    }
    println!("{out}");
}

/// Checks every file before any work (a table is never written over an existing file; a
/// damaged or foreign table or checkpoint is refused up front) and returns where the table
/// starts: from scratch or from the longest prefix a file provides.
fn check_files(plan: &Plan, lr: &LongRunArgs) -> Result<Start> {
    if let Some(path) = &lr.save_table {
        tablefile::check_absent(path, "--save-table")?;
        tablefile::check_writable(path, "--save-table")?;
    }
    if let Some(path) = &lr.checkpoint {
        tablefile::check_overwritable(path, &plan.moves, plan.limit)
            .map_err(|e| Error::Invalid(format!("--checkpoint: {e}")))?;
    }
    // Both files must fit, together where they share a disk: refused now, not after hours.
    let bytes = tablefile::file_bytes(&plan.moves, plan.limit as u64);
    let mut files = Vec::new();
    if let Some(path) = &lr.save_table {
        files.push((path.as_path(), bytes, "--save-table"));
    }
    if let Some(path) = &lr.checkpoint {
        files.push((path.as_path(), bytes, "--checkpoint"));
    }
    tablefile::check_room(&files)?;
    let start = longrun::start_from_files(
        &plan.moves,
        plan.limit,
        lr.checkpoint.as_deref(),
        lr.load_table.as_deref(),
    )?;
    let partial = matches!(&start, Start::Seed(f) if f.provides(plan.limit) <= plan.limit);
    if (lr.checkpoint.is_some() || partial) && !(plan.table.make)().resumable() {
        return Err(Error::Invalid(format!(
            "--table {} decides values class by class, so it cannot keep or resume a checkpoint or start from a partial table; choose a back-end that builds in position order (auto, stamped, stamped-lanes, ...) or drop --checkpoint/--load-table",
            plan.table.name
        )));
    }
    Ok(start)
}

/// The table stage through the long-run driver: `Ok(table)`, or `Err(exit code)` after an
/// interruption (the line saying how to resume is printed here).
fn build_table(
    plan: &Plan,
    start: Start,
    lr: &LongRunArgs,
    unsaved: &mut Vec<Unsaved>,
) -> Result<std::result::Result<Table, i32>> {
    let builder = (plan.table.make)();
    let opts = LongRun {
        checkpoint: lr.checkpoint.clone(),
        every: lr.checkpoint_every,
        quiet: lr.quiet,
        resumable: builder.resumable(),
        ..LongRun::default()
    };
    let fill = |g: &mut [u16], from: usize, max: u16| builder.fill(&plan.moves, g, from, max);
    match longrun::run_fill(&plan.moves, plan.limit, start, &fill, &opts)? {
        Outcome::Finished(values) => Ok(Ok(Table::from_values(values))),
        Outcome::FinishedUnsaved { values, error } => {
            if let Some(file) = &lr.checkpoint {
                unsaved.push(Unsaved {
                    flag: "--checkpoint",
                    file: file.clone(),
                    error,
                });
            }
            Ok(Ok(Table::from_values(values)))
        }
        Outcome::Interrupted {
            signal,
            done,
            checkpoint,
        } => {
            let by = signal.map_or("a stop request", |s| s.name());
            let positions = plan.limit as u64 + 1;
            match checkpoint {
                Some(path) => eprintln!(
                    "interrupted by {by} after g(0..{done}) of {positions} positions, kept in {}; to resume run the same command: {}",
                    path.display(),
                    same_command()
                ),
                None => eprintln!(
                    "interrupted by {by} after g(0..{done}) of {positions} positions; nothing was kept (add --checkpoint FILE to keep progress)"
                ),
            }
            Ok(Err(signal.map_or(1, super::exit_status_for)))
        }
    }
}
