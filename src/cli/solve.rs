//! `nimsquare solve`: one plan, one table, one count, one answer.

use super::args::{HeapsArg, JsonArg, LimitArg, MovesArg};
use super::CliResult;
use crate::memory;
use crate::planner::{self, Plan, Request};
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
}

pub fn run(args: Args) -> CliResult {
    let plan = Plan::new(&Request {
        moves: args.moves.moves,
        limit: args.limit.limit,
        heaps: args.heaps.heaps,
        table: args.table,
        count: args.count,
    })?;
    let start = Instant::now();
    let t = plan.build_table();
    let table_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let answer = plan.count(&t)?;
    let count_seconds = start.elapsed().as_secs_f64();
    if args.json.json {
        let mut out = plan.to_json();
        let facts = serde_json::json!({
            "answer": answer.to_string(),
            "max_value": t.max_value(),
            "max_value_first_at": t.max_value_first_at(),
            "cold_positions": t.cold_count(),
            "option_steps": plan.moves.option_steps(plan.limit).to_string(),
            "table_seconds": table_seconds,
            "count_seconds": count_seconds,
            "peak_rss_bytes": memory::peak_rss_bytes(),
        });
        out.as_object_mut()
            .expect("a plan is a JSON object")
            .extend(facts.as_object().expect("an object").clone());
        println!("{out}");
    } else {
        println!("{answer}");
    }
    Ok(0)
}
