//! `nimsquare list`: the back-ends of each stage.

use super::CliResult;
use crate::{count, table};
use serde_json::json;

#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> CliResult {
    if args.json {
        let stage = |entries: Vec<(&str, &str, &str)>| {
            entries
                .into_iter()
                .map(|(n, d, c)| json!({"name": n, "description": d, "cost": c}))
                .collect::<Vec<_>>()
        };
        let t = table::BACKENDS
            .iter()
            .map(|e| (e.name, e.description, e.cost))
            .collect();
        let c = count::BACKENDS
            .iter()
            .map(|e| (e.name, e.description, e.cost))
            .collect();
        println!("{}", json!({"table": stage(t), "count": stage(c)}));
        return Ok(0);
    }
    println!("table back-ends (--table NAME):");
    for e in table::BACKENDS {
        println!("  {:<14} {}  [{}]", e.name, e.description, e.cost);
    }
    println!("count back-ends (--count NAME):");
    for e in count::BACKENDS {
        println!("  {:<14} {}  [{}]", e.name, e.description, e.cost);
    }
    Ok(0)
}
