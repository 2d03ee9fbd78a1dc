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
use nimsquare::base::valgrind::{self, Stage};
use nimsquare::cold::ColdFinder;
use nimsquare::registry::Entry;
use nimsquare::run::longrun::{self, LongRun, Start};
use nimsquare::run::planner::{self, Plan, Request};
use nimsquare::run::report::{self, Report};
use nimsquare::run::session::{self, Files, Unsaved};
use nimsquare::table::Table;
use std::io::{self, Write};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    limit: LimitArg,
    /// Table back-end (see `nimsquare list`); `auto` lets the planner choose by N and threads.
    /// `--table` is the older name of this flag.
    #[arg(long = "backend", visible_alias = "table", value_name = "NAME", default_value = planner::AUTO)]
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

pub fn run(args: Args) -> CliResult {
    let load_start = load_average();
    let plan = Plan::new(&Request {
        moves: args.moves.moves.clone(),
        limit: args.limit.limit,
        heaps: args.heaps.heaps,
        table: args.table.clone(),
        count: args.count.clone(),
        wisdom: Some(super::common::wisdom()),
    })?;
    if let Some(cold) = plan.cold {
        return solve_cold(&plan, cold, &args, load_start);
    }
    let mut files = args.longrun.files();
    let start = check_files(&plan, &mut files)?;
    let seeded = session::seeded(&start, plan.limit);
    session::announce_seed(&start, plan.limit, &files);
    // A run seeded from a file forecasts nothing: its progress bar has the ETA of what is left.
    if !files.quiet && seeded == 0 {
        super::common::forecast(&plan);
    }
    // Files that could not be written: reported after the answer, which is never lost to them.
    let mut unsaved: Vec<Unsaved> = Vec::new();
    let (built, table_seconds) = valgrind::stage(Stage::Table, || {
        build_table(&plan, start, &files, &args, &mut unsaved)
    });
    let t = match built? {
        Ok(t) => t,
        Err(exit_code) => return Ok(exit_code),
    };
    session::save_table(
        &plan.moves,
        plan.limit,
        t.values(),
        t.max_value(),
        &files,
        &mut unsaved,
    );
    let (answer, count_seconds) = valgrind::stage(Stage::Count, || plan.count_exact(&t));
    let answer = answer?;
    let facts = if args.json.json {
        // S(N) < 2^53 for every accepted input (N < 2^32, at most 65 535 moves), so it is a
        // JSON number that every reader takes exactly.
        let steps_total = plan.moves.option_steps(plan.limit) as u64;
        let steps_this_run =
            steps_total - longrun::progress::steps_before(&plan.moves, seeded) as u64;
        serde_json::json!({
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
        })
    } else {
        serde_json::Value::Null
    };
    let report = Solved {
        plan: &plan,
        answer: answer.to_string(),
        facts,
        load_start,
    };
    report::print(&report, args.json.json);
    Ok(session::report_unsaved(&unsaved))
}

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
    let (set, seconds) =
        valgrind::stage(Stage::Cold, || (cold.make)().cold(&plan.moves, plan.limit));
    // The sieve's marks are counted only for the JSON record, which reports them.
    let facts = if args.json.json {
        serde_json::json!({
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
        })
    } else {
        serde_json::Value::Null
    };
    let report = Solved {
        plan,
        answer: set.count().to_string(),
        facts,
        load_start,
    };
    report::print(&report, args.json.json);
    Ok(0)
}

/// What `solve` answers: the answer alone as text; with `--json` one object of the plan's
/// fields, the run's `facts`, the vector path the kernels took (`isa`) and the peak memory.
struct Solved<'a> {
    plan: &'a Plan,
    answer: String,
    facts: serde_json::Value,
    load_start: Option<f64>,
}

impl Report for Solved<'_> {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{}", self.answer)
    }

    fn json(&self) -> serde_json::Value {
        let mut out = self.plan.to_json();
        if let (Some(out), serde_json::Value::Object(facts)) =
            (out.as_object_mut(), self.facts.clone())
        {
            out.extend(facts);
            out.insert("load_average_start".into(), self.load_start.into());
            out.insert("load_average_end".into(), load_average().into());
            out.insert("isa".into(), nimsquare::base::isa::active().name().into());
            out.insert("peak_rss_bytes".into(), memory::peak_rss_bytes().into());
        }
        out
    }
}

/// Checks every file before any work ([`session::check_files`]) and that the back-end can
/// resume when it must, and returns where the table starts.
fn check_files(plan: &Plan, files: &mut Files) -> Result<Start> {
    let start = session::check_files(&plan.moves, plan.limit, files)?;
    let partial = matches!(&start, Start::Seed(f) if f.provides(plan.limit) <= plan.limit);
    if (files.checkpoint.is_some() || partial) && !(plan.table.make)().resumable() {
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
    files: &Files,
    args: &Args,
    unsaved: &mut Vec<Unsaved>,
) -> Result<std::result::Result<Table, i32>> {
    let builder = (plan.table.make)();
    let opts = LongRun {
        checkpoint: files.checkpoint.clone(),
        every: args.longrun.checkpoint_every,
        quiet: files.quiet,
        resumable: builder.resumable(),
        ..LongRun::default()
    };
    let fill = longrun::kept_fill(&*builder, &plan.moves);
    let outcome = longrun::try_run_fill(&plan.moves, plan.limit, start, &fill, &opts)?;
    Ok(session::finish(outcome, plan.limit, files, unsaved)
        .map(Table::from_values)
        .map_err(|signal| signal.map_or(1, super::common::exit_status_for)))
}
