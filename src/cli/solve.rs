//! `nimsquare solve`: one plan, one table, one count, one answer.
//!
//! The table stage runs through [`nimsquare::run::longrun`]'s driver, so a long run shows progress,
//! can keep a checkpoint, stops cleanly on Ctrl-C/SIGTERM (exit 130/143 with a line saying how
//! to resume) and can save its table or start from a saved one.

use super::args::{HeapsArg, JsonArg, LimitArg, LongRunArgs, MovesArg, PlotArgs};
use super::common::CliResult;
use nimsquare::base::error::Error;
use nimsquare::base::memory;
use nimsquare::base::provenance::load_average;
use nimsquare::base::valgrind::{self, Stage};
use nimsquare::cold::ColdFinder;
use nimsquare::registry::Entry;
use nimsquare::run::longrun::ruleset::describe;
use nimsquare::run::longrun::{self, LongRun};
use nimsquare::run::planner::{self, Plan, Request};
use nimsquare::run::plot::{Drawing, ValuePlot};
use nimsquare::run::report::{self, Report};
use nimsquare::run::session::{self, Ended, Finished, Unsaved};
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
    plot: PlotArgs,
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
    let plot = args.plot.decide()?;
    let mut files = args.longrun.files();
    let builder = (plan.table.make)();
    let opts = LongRun {
        every: args.longrun.checkpoint_every,
        resumable: builder.resumable(),
        ..LongRun::default()
    };
    let fill = longrun::kept_fill(&*builder, &plan.moves);
    // A run seeded from a file forecasts nothing: its progress bar has the ETA of what is left.
    let quiet = files.quiet;
    let ended = session::run_table(
        &plan.moves,
        plan.limit,
        &mut files,
        plan.table.name,
        &fill,
        opts,
        Stage::Table,
        &mut |seeded| {
            if !quiet && seeded == 0 {
                super::common::forecast(&plan);
            }
        },
    )?;
    let Finished {
        table: t,
        seconds: table_seconds,
        seeded,
        mut unsaved,
        ..
    } = match ended {
        Ended::Finished(done) => done,
        Ended::Interrupted(signal) => return Ok(signal.map_or(1, super::common::exit_status_for)),
    };
    if let Some((out, log_x)) = &plot {
        let game = describe(&plan.moves.label());
        let drawing = Drawing::plain(&game, plan.limit, *log_x);
        if let Err(error) = ValuePlot::of(t.values()).write(&drawing, out, "--plot") {
            unsaved.push(Unsaved {
                flag: "--plot",
                file: args.plot.plot.clone().unwrap_or_default(),
                error,
            });
        }
    }
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
            "plot": args.plot.shown().filter(|_| !unsaved.iter().any(|u| u.flag == "--plot")),
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
    if lr.checkpoint.is_some()
        || lr.save_table.is_some()
        || lr.load_table.is_some()
        || args.plot.plot.is_some()
    {
        return Err(Error::Invalid(
            "--heaps 1 goes through the win/lose sieve, which builds no table to checkpoint, save, load or plot; add --table NAME (e.g. --table stamped-parallel) to build the full table".into(),
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
