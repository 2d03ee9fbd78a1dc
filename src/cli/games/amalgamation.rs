//! `nimsquare games amalgamation`: exhaustive Grundy values of amalgamation Nim with
//! restriction for every three-heap position with heaps <= B (and everything reachable from
//! them), compared with formula (4) of seed `002_38d13a7fea25f149.txt`.

use crate::cli::{fmt_seconds, CliResult, EXIT_CHECK_FAILED};
use crate::games::amalgamation::{self, Mismatch};
use serde_json::json;
use std::time::Instant;

/// How many mismatches are listed in full.
const SHOWN_MISMATCHES: usize = 5;

#[derive(clap::Args)]
pub struct Args {
    /// The box bound B (at most 256): the search covers the positions with every heap <= B and
    /// all they reach, i.e. every position with total <= 3B (merges can exceed B); all of them
    /// are checked.
    #[arg(long = "max", value_name = "B", allow_hyphen_values = true)]
    max_heap: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

fn triple(p: (u32, u32, u32)) -> [u32; 3] {
    [p.0, p.1, p.2]
}

pub fn run(args: Args) -> CliResult {
    let max_heap = amalgamation::check_max_heap(args.max_heap)?;
    let start = Instant::now();
    let table = amalgamation::solve(max_heap)?;
    let search_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let cmp = amalgamation::compare(&table, amalgamation::formula_4, SHOWN_MISMATCHES);
    let compare_seconds = start.elapsed().as_secs_f64();
    let summary = amalgamation::summarize(&table);
    let passed = cmp.mismatch_count == 0;
    if args.json {
        let out = json!({
            "max_heap": max_heap,
            "max_total": table.max_total(),
            "positions_checked": cmp.checked,
            "box_positions": summary.box_positions,
            "mismatches": cmp.mismatch_count,
            "first_mismatches": cmp.first_mismatches.iter().map(|m: &Mismatch| json!({
                "position": triple(m.position), "searched": m.searched, "formula": m.formula,
            })).collect::<Vec<_>>(),
            "max_value": summary.max_value,
            "max_value_at": triple(summary.max_at),
            "box_max_value": summary.box_max_value,
            "box_max_value_at": triple(summary.box_max_at),
            "passed": passed,
            "threads": rayon::current_num_threads(),
            "search_seconds": search_seconds,
            "compare_seconds": compare_seconds,
        });
        println!("{out}");
    } else {
        println!("amalgamation Nim with restriction (seed 002), heaps <= {max_heap}");
        println!(
            "searched:      {} sorted triples with total <= {} ({} with every heap <= {})",
            table.len(),
            table.max_total(),
            summary.box_positions,
            max_heap
        );
        println!(
            "checked:       {} positions against formula (4)",
            cmp.checked
        );
        println!("mismatches:    {}", cmp.mismatch_count);
        for m in &cmp.first_mismatches {
            let (a, b, c) = m.position;
            println!(
                "  ({a}, {b}, {c}): search {}, formula {}",
                m.searched, m.formula
            );
        }
        println!(
            "largest value: {} at {:?} in the box; {} at {:?} over the search",
            summary.box_max_value, summary.box_max_at, summary.max_value, summary.max_at
        );
        println!(
            "time:          search {}, compare {} ({} threads)",
            fmt_seconds(search_seconds),
            fmt_seconds(compare_seconds),
            rayon::current_num_threads()
        );
        if passed {
            println!("amalgamation: formula (4) holds on every searched position");
        } else {
            println!("amalgamation: FAILED, formula (4) differs from the search");
        }
    }
    Ok(if passed { 0 } else { EXIT_CHECK_FAILED })
}
