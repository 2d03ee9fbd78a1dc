//! `nimsquare games subtraction`: the Grundy sequence of one subtraction set, its cold
//! positions, and its preperiod and period with the evidence (library:
//! [`crate::games::subtraction`]).

use crate::cli::{parse_limit, parse_moves, CliResult};
use crate::error::Error;
use crate::games::subtraction::{
    self, PeriodSearch, DEFAULT_PERIOD_SEARCH, MAX_PERIOD_SEARCH, VALUES_SHOWN,
};
use crate::moves::Moves;
use serde_json::json;

/// The largest N accepted (the table is 2 bytes per position).
const MAX_GAMES_LIMIT: u64 = 100_000_000;
/// The text output lists at most this many cold positions (JSON lists all).
const COLD_SHOWN: usize = 200;

#[derive(clap::Args)]
pub struct Args {
    /// Subtraction set: a comma-separated list like 1,3,4 (or `squares`, whose periodicity
    /// is not searched: the set is infinite).
    #[arg(long, value_name = "LIST", value_parser = parse_moves, allow_hyphen_values = true)]
    moves: Moves,
    /// List the cold positions up to N.
    #[arg(long, short = 'n', value_name = "N", default_value_t = 100,
          value_parser = parse_limit, allow_hyphen_values = true)]
    limit: u64,
    /// Compute g at most this far (at most 10^7) while looking for a repeated window.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_PERIOD_SEARCH as u64,
          value_parser = parse_limit, allow_hyphen_values = true)]
    period_search: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// One sentence saying what proves the period, or why there is none.
fn evidence(found: &PeriodSearch) -> String {
    match found {
        PeriodSearch::Found(p) => format!(
            "the {w} values g({a}..={b}) recur as g({c}..={d}); for n >= {w} (the largest move) \
             g(n) depends only on the {w} values before it, so g(n + {per}) = g(n) for all n >= {a}; \
             this is the first repeated window of {w} consecutive values, with g computed up to n = {up}",
            w = p.window,
            a = p.preperiod,
            b = p.preperiod + p.window - 1,
            c = p.preperiod + p.period,
            d = p.preperiod + p.period + p.window - 1,
            per = p.period,
            up = p.computed_up_to,
        ),
        PeriodSearch::NotFound {
            window,
            searched_up_to,
        } => format!(
            "no window of {window} consecutive values (the largest move) repeats with g computed up to \
             n = {searched_up_to}; raise --period-search to look further"
        ),
        PeriodSearch::InfiniteSet => "the squares are an infinite subtraction set; periodicity detection \
             (a repeated window of s_max values) applies to finite sets only"
            .into(),
    }
}

fn join<T: ToString>(items: &[T]) -> String {
    items.iter().map(T::to_string).collect::<Vec<_>>().join(" ")
}

pub fn run(args: Args) -> CliResult {
    if args.limit > MAX_GAMES_LIMIT {
        return Err(Error::Invalid(format!(
            "--limit {} is above the maximum {MAX_GAMES_LIMIT} for games subtraction",
            args.limit
        )));
    }
    if args.period_search > MAX_PERIOD_SEARCH as u64 {
        return Err(Error::Invalid(format!(
            "--period-search {} is above the maximum {MAX_PERIOD_SEARCH} (the window index needs about 32 bytes per position)",
            args.period_search
        )));
    }
    let a = subtraction::analyse(
        &args.moves,
        args.limit as usize,
        args.period_search as usize,
    )?;
    let (preperiod, period) = match &a.period {
        PeriodSearch::Found(p) => (Some(p.preperiod), Some(p.period)),
        _ => (None, None),
    };
    if args.json {
        let (window, computed) = match &a.period {
            PeriodSearch::Found(p) => (Some(p.window), Some(p.computed_up_to)),
            PeriodSearch::NotFound {
                window,
                searched_up_to,
            } => (Some(*window), Some(*searched_up_to)),
            PeriodSearch::InfiniteSet => (None, None),
        };
        let out = json!({
            "moves": a.moves.label(),
            "finite": !a.moves.is_squares(),
            "limit": a.limit,
            "values": a.values,
            "cold": a.cold,
            "max_value": a.max_value,
            "preperiod": preperiod,
            "period": period,
            "window": window,
            "computed_up_to": computed,
            "evidence": evidence(&a.period),
        });
        println!("{out}");
        return Ok(0);
    }
    println!("moves: {}", a.moves.label());
    println!("g(0..={}): {}", VALUES_SHOWN - 1, join(&a.values));
    let shown = &a.cold[..a.cold.len().min(COLD_SHOWN)];
    let more = if a.cold.len() > shown.len() {
        format!(" … ({} more; --json lists all)", a.cold.len() - shown.len())
    } else {
        String::new()
    };
    println!(
        "cold positions up to {} ({}): {}{more}",
        a.limit,
        a.cold.len(),
        join(shown)
    );
    println!("max value up to {}: {}", a.limit, a.max_value);
    match &a.period {
        PeriodSearch::Found(p) => println!("preperiod {}, period {}", p.preperiod, p.period),
        PeriodSearch::NotFound { .. } => println!("preperiod and period: not found"),
        PeriodSearch::InfiniteSet => println!("preperiod and period: not searched (infinite set)"),
    }
    println!("evidence: {}", evidence(&a.period));
    Ok(0)
}
