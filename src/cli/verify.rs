//! `nimsquare verify`: every table back-end against every count back-end, plus the controls.

use super::{fmt_seconds, parse_limit, CliResult, DEFAULT_LIMIT, EXIT_CHECK_FAILED};
use crate::agree;
use crate::control;
use crate::count;
use crate::moves::Moves;
use crate::table;
use serde_json::json;

/// Project Euler 310's checkpoint, quoted in seed `000_242f32a778847c70.txt`: L(29) = 1160.
const CHECKPOINT_29: u128 = 1160;
/// Brute force runs whenever N is at most this (it is O(N^3)).
const BRUTE_MAX: usize = 100;

#[derive(clap::Args)]
pub struct Args {
    /// The largest heap size N.
    #[arg(long, short = 'n', value_name = "N", default_value_t = DEFAULT_LIMIT,
          value_parser = parse_limit, allow_hyphen_values = true)]
    limit: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// One named check and whether it held.
struct Check {
    name: String,
    passed: bool,
    detail: String,
}

fn default_answer(limit: u64) -> crate::Result<u128> {
    let t = table::build(table::BACKENDS[0].name, &Moves::Squares, limit)?;
    (count::BACKENDS[0].make)().count(&t, 3)
}

pub fn run(args: Args) -> CliResult {
    let moves = Moves::Squares;
    let mut checks = Vec::new();

    let at_29 = default_answer(29)?;
    checks.push(Check {
        name: "checkpoint N = 29 gives 1160".into(),
        passed: at_29 == CHECKPOINT_29,
        detail: format!("got {at_29}"),
    });
    let t40 = table::build(table::BACKENDS[0].name, &moves, 40)?;
    let (at_40, brute_40) = (default_answer(40)?, control::brute(&t40));
    checks.push(Check {
        name: "checkpoint N = 40 equals brute force".into(),
        passed: at_40 == brute_40,
        detail: format!("got {at_40}, brute force {brute_40}"),
    });

    let (reference, rows, disagreement) = match agree::run_all(&moves, args.limit, 3) {
        Ok((t, rows)) => (Some(t), rows, None),
        Err(e) => (None, Vec::new(), Some(e.to_string())),
    };
    checks.push(Check {
        name: format!("all back-end pairs agree at N = {}", args.limit),
        passed: disagreement.is_none(),
        detail: disagreement.unwrap_or_else(|| format!("{} pairs", rows.len())),
    });
    if let (Some(t), Some(first)) = (&reference, rows.first()) {
        if t.limit() <= BRUTE_MAX {
            let brute = control::brute(t);
            checks.push(Check {
                name: format!("brute force at N = {}", args.limit),
                passed: brute == first.answer,
                detail: format!("brute force {brute}, back-ends {}", first.answer),
            });
        }
    }
    let passed = checks.iter().all(|c| c.passed);

    if args.json {
        let out = json!({
            "limit": args.limit,
            "passed": passed,
            "pairs": rows.iter().map(|r| json!({
                "table": r.table, "count": r.count, "answer": r.answer.to_string(),
                "table_seconds": r.table_seconds, "count_seconds": r.count_seconds,
            })).collect::<Vec<_>>(),
            "checks": checks.iter().map(|c| json!({
                "name": c.name, "passed": c.passed, "detail": c.detail,
            })).collect::<Vec<_>>(),
        });
        println!("{out}");
    } else {
        println!(
            "{:<14} {:<12} {:>24} {:>12} {:>12}",
            "table", "count", "answer", "table time", "count time"
        );
        for r in &rows {
            println!(
                "{:<14} {:<12} {:>24} {:>12} {:>12}",
                r.table,
                r.count,
                r.answer,
                fmt_seconds(r.table_seconds),
                fmt_seconds(r.count_seconds)
            );
        }
        for c in &checks {
            let mark = if c.passed { "ok  " } else { "FAIL" };
            println!("{mark} {} ({})", c.name, c.detail);
        }
        println!(
            "{}",
            if passed {
                "verify: all checks passed"
            } else {
                "verify: FAILED"
            }
        );
    }
    Ok(if passed { 0 } else { EXIT_CHECK_FAILED })
}
