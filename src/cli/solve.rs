//! `nimsquare solve`: one table back-end, one count back-end, one answer.

use super::args::{HeapsArg, JsonArg, LimitArg, MovesArg};
use super::CliResult;
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
}

pub fn run(args: Args) -> CliResult {
    let limit = table::check_limit(args.limit.limit)?;
    let table_entry = planner::resolve_table(&args.table, &args.moves.moves, limit)?;
    let count_entry = planner::resolve_count(&args.count, limit, args.heaps.heaps)?;
    table::check_memory(limit, table_entry.name)?;
    let counter = (count_entry.make)();
    // A back-end that cannot do K heaps says so on a one-position table, before the real
    // table is built (which can take minutes at large N).
    counter.count(&table::Table::from_values(vec![0]), args.heaps.heaps)?;
    let start = Instant::now();
    let t = (table_entry.make)().build(&args.moves.moves, limit);
    let table_seconds = start.elapsed().as_secs_f64();
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
