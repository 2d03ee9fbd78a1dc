//! `nimsquare verify`: every table back-end against every count back-end, plus the controls.
//!
//! Count back-ends that refuse the input (a three-heap-only back-end asked for K != 3, or an
//! answer that overflows `u128`) are reported as skipped, not as failures; all that answer
//! are compared. The controls: for the squares with three heaps, the Project Euler
//! checkpoints (L(29) = 1160, L(40) = brute force); for any set and K, brute-force
//! enumeration of multisets at a small checkpoint N and at the requested N when it is small.

use super::{
    fmt_seconds, parse_heaps, parse_limit, parse_moves, CliResult, DEFAULT_LIMIT, EXIT_CHECK_FAILED,
};
use crate::agree;
use crate::control;
use crate::count;
use crate::error::Error;
use crate::moves::Moves;
use crate::table::{self, Table};
use serde_json::json;

/// Project Euler 310's checkpoint, quoted in seed `000_242f32a778847c70.txt`: L(29) = 1160.
const CHECKPOINT_29: u128 = 1160;
/// Brute force runs whenever N is at most this for three heaps (it is O(N^3)).
const BRUTE_MAX: usize = 100;
/// For other K, brute force runs when it enumerates at most this many multisets.
const BRUTE_MULTISETS_MAX: u128 = 5_000_000;
/// The largest checkpoint N for other sets and heaps (lowered until brute force fits).
const CHECKPOINT_MAX: usize = 40;

#[derive(clap::Args)]
pub struct Args {
    /// The largest heap size N.
    #[arg(long, short = 'n', value_name = "N", default_value_t = DEFAULT_LIMIT,
          value_parser = parse_limit, allow_hyphen_values = true)]
    limit: u64,
    /// Subtraction set: `squares` or a comma-separated list like 1,3,4.
    #[arg(long, value_name = "LIST", default_value = "squares", value_parser = parse_moves,
          allow_hyphen_values = true)]
    moves: Moves,
    /// Number of heaps K (1 to 16).
    #[arg(long, value_name = "K", default_value_t = 3, value_parser = parse_heaps,
          allow_hyphen_values = true)]
    heaps: usize,
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

/// C(N+K, K), the number of sorted K-tuples in [0, N], or `None` past `u128`.
fn multisets(limit: usize, heaps: usize) -> Option<u128> {
    let mut c = 1u128;
    for i in 1..=heaps as u128 {
        c = c.checked_mul(limit as u128 + i)? / i;
    }
    Some(c)
}

/// True when brute force is cheap enough at (N, K).
fn brute_affordable(limit: usize, heaps: usize) -> bool {
    if heaps == 3 {
        return limit <= BRUTE_MAX;
    }
    multisets(limit, heaps).is_some_and(|m| m <= BRUTE_MULTISETS_MAX)
}

/// The brute-force count for any K (the triple loop for K = 3).
fn brute(t: &Table, heaps: usize) -> u128 {
    if heaps == 3 {
        control::brute(t)
    } else {
        control::brute_multisets(t, heaps)
    }
}

/// The answer of every count back-end that answers at (moves, N, K) on the first table
/// back-end's table, or the first non-refusal error.
fn answers(
    moves: &Moves,
    limit: usize,
    heaps: usize,
) -> crate::Result<(Table, Vec<(&'static str, u128)>)> {
    let t = table::build(table::BACKENDS[0].name, moves, limit as u64)?;
    let mut out = Vec::new();
    for entry in count::BACKENDS {
        match (entry.make)().count(&t, heaps) {
            Ok(answer) => out.push((entry.name, answer)),
            Err(Error::Unsupported { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok((t, out))
}

/// A check that every answering back-end gives `want`.
fn all_equal_check(name: String, answers: &[(&str, u128)], want: u128, what: &str) -> Check {
    let wrong: Vec<String> = answers
        .iter()
        .filter(|(_, a)| *a != want)
        .map(|(n, a)| format!("'{n}' gives {a}"))
        .collect();
    Check {
        name,
        passed: wrong.is_empty() && !answers.is_empty(),
        detail: if answers.is_empty() {
            "no count back-end answers".into()
        } else if wrong.is_empty() {
            format!("{} back-end(s) give {want}, {what}", answers.len())
        } else {
            format!("{what} {want}, but {}", wrong.join(", "))
        },
    }
}

pub fn run(args: Args) -> CliResult {
    let (moves, heaps) = (&args.moves, args.heaps);
    let mut checks = Vec::new();

    if moves.is_squares() && heaps == 3 {
        let (_, at_29) = answers(moves, 29, 3)?;
        checks.push(all_equal_check(
            "checkpoint N = 29 gives 1160".into(),
            &at_29,
            CHECKPOINT_29,
            "Project Euler 310",
        ));
        let (t40, at_40) = answers(moves, 40, 3)?;
        checks.push(all_equal_check(
            "checkpoint N = 40 equals brute force".into(),
            &at_40,
            control::brute(&t40),
            "brute force",
        ));
    } else {
        let checkpoint = (0..=CHECKPOINT_MAX)
            .rev()
            .find(|&n| brute_affordable(n, heaps))
            .unwrap_or(0);
        let (t, at) = answers(moves, checkpoint, heaps)?;
        checks.push(all_equal_check(
            format!("checkpoint N = {checkpoint}, {heaps} heaps, equals brute force"),
            &at,
            brute(&t, heaps),
            "brute force",
        ));
    }

    let (reference, rows, refused, disagreement) =
        match agree::run_answering(moves, args.limit, heaps) {
            Ok(all) => (Some(all.table), all.rows, all.refused, None),
            Err(e @ Error::Disagreement(_)) => (None, Vec::new(), Vec::new(), Some(e.to_string())),
            Err(e) => return Err(e),
        };
    if disagreement.is_none() && rows.is_empty() {
        // Nothing answered: say why for every back-end, on one line.
        let reasons: Vec<String> = refused.iter().map(|(_, why)| why.to_string()).collect();
        return Err(Error::Invalid(format!(
            "no count back-end answers for {heaps} heaps at N = {}: {}",
            args.limit,
            reasons.join("; ")
        )));
    }
    checks.push(Check {
        name: format!("all answering back-end pairs agree at N = {}", args.limit),
        passed: disagreement.is_none(),
        detail: disagreement.unwrap_or_else(|| {
            format!(
                "{} pairs, {} count back-end(s) skipped",
                rows.len(),
                refused.len()
            )
        }),
    });
    if let (Some(t), Some(first)) = (&reference, rows.first()) {
        if brute_affordable(t.limit(), heaps) {
            let brute = brute(t, heaps);
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
            "moves": moves.label(),
            "heaps": heaps,
            "passed": passed,
            "pairs": rows.iter().map(|r| json!({
                "table": r.table, "count": r.count, "answer": r.answer.to_string(),
                "table_seconds": r.table_seconds, "count_seconds": r.count_seconds,
            })).collect::<Vec<_>>(),
            "skipped": refused.iter().map(|(name, why)| json!({
                "count": name, "reason": why.to_string(),
            })).collect::<Vec<_>>(),
            "checks": checks.iter().map(|c| json!({
                "name": c.name, "passed": c.passed, "detail": c.detail,
            })).collect::<Vec<_>>(),
        });
        println!("{out}");
    } else {
        println!("moves {}, {heaps} heaps, N = {}", moves.label(), args.limit);
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
        for (name, why) in &refused {
            println!("skip {name}: {why}");
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
