//! `nimsquare games subtraction`: the Grundy sequence of one subtraction set, its cold
//! positions, and its preperiod and period with the evidence (library:
//! [`nimsquare::games::subtraction`]).

use crate::cli::args::{limit_parser, parse_moves};
use crate::cli::common::CliResult;
use nimsquare::base::error::Error;
use nimsquare::base::limit::Limit;
use nimsquare::base::moves::Moves;
use nimsquare::games::subtraction::{self, Analysis, PeriodSearch, MAX_PERIOD_SEARCH};
use nimsquare::run::report::{self, Rendered};
use serde_json::json;
use std::io::{self, Write};

/// The largest N accepted (the table is 2 bytes per position).
const MAX_GAMES_LIMIT: u64 = 100_000_000;

/// `--period-search`'s default, [`subtraction::DEFAULT_PERIOD_SEARCH`] (2^20) as clap reads it.
const DEFAULT_PERIOD_SEARCH_TEXT: &str = "1048576";
/// The most option steps one run may spend (moves tried, summed over positions), so that a
/// large set times a large limit is refused rather than run for hours.
const MAX_GAMES_STEPS: u128 = 50_000_000_000;
/// The text output lists at most this many cold positions (JSON lists all).
const COLD_SHOWN: usize = 200;

#[derive(clap::Args)]
#[command(
    long_about = "One subtraction game: a heap of n stones, a move removes s stones for some s in \
    the set (never more than the heap holds); the player who cannot move loses. Prints the \
    Grundy values up to --limit (at most g(0..=63)), the cold positions (g = 0, a loss for the player to move) up to \
    --limit, and for a finite set the preperiod and period (\"subtraction games with a \
    period\": g is eventually periodic) with the evidence: the first window of s_max \
    consecutive values that repeats, s_max being the largest move.\n\n\
    Work is capped by the option steps (moves tried, summed over positions) of the listing and \
    of the period search; a refusal names the flag to lower."
)]
pub struct Args {
    /// Subtraction set: a comma-separated list like 1,3,4 (or `squares`, whose periodicity
    /// is not searched: the set is infinite).
    #[arg(long, value_name = "LIST", value_parser = parse_moves, allow_hyphen_values = true)]
    moves: Moves,
    /// List the cold positions up to N.
    #[arg(long, short = 'n', value_name = "N", default_value = "100",
          value_parser = limit_parser(), allow_hyphen_values = true)]
    limit: Limit,
    /// Compute g at most this far (at most 10^7) while looking for a repeated window.
    #[arg(long, value_name = "N", default_value = DEFAULT_PERIOD_SEARCH_TEXT,
          value_parser = limit_parser(), allow_hyphen_values = true)]
    period_search: Limit,
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

/// Refuses, before any work, a run whose table or search would be too large: the memory of
/// the listed table, and the option steps (moves tried, summed over positions) of the table
/// and of the period search, whose doubling computes at most twice the final length.
fn check_work(args: &Args) -> nimsquare::base::error::Result<()> {
    let label = args.moves.label();
    if args.limit.as_u64() > MAX_GAMES_LIMIT {
        return Err(Error::Invalid(format!(
            "--limit {} needs a table of {} MB, above the cap of {} MB ({MAX_GAMES_LIMIT} positions); lower --limit",
            args.limit,
            2 * args.limit.as_u64() / 1_000_000,
            2 * MAX_GAMES_LIMIT / 1_000_000
        )));
    }
    if args.period_search.get() > MAX_PERIOD_SEARCH {
        return Err(Error::Invalid(format!(
            "--period-search {} is above the maximum {MAX_PERIOD_SEARCH} (the window index needs about 32 bytes per position)",
            args.period_search
        )));
    }
    let listing = args.moves.option_steps(args.limit.get());
    if listing > MAX_GAMES_STEPS {
        return Err(Error::Invalid(format!(
            "--limit {} with --moves {label} takes {listing} option steps, above the cap of \
             {MAX_GAMES_STEPS}; lower --limit",
            args.limit
        )));
    }
    let search = match args.moves {
        Moves::Squares => 0,
        Moves::List(_) => 2 * args.moves.option_steps(args.period_search.get()),
    };
    if search > MAX_GAMES_STEPS {
        return Err(Error::Invalid(format!(
            "--period-search {} with --moves {label} may take {search} option steps, above the \
             cap of {MAX_GAMES_STEPS}; lower --period-search",
            args.period_search
        )));
    }
    Ok(())
}

pub fn run(args: Args) -> CliResult {
    check_work(&args)?;
    let a = subtraction::analyse(&args.moves, args.limit.get(), args.period_search.get())?;
    let report = Rendered {
        value: &a,
        text: print_text,
        json: to_json,
    };
    report::print(&report, args.json);
    Ok(0)
}

fn to_json(a: &Analysis) -> serde_json::Value {
    let (preperiod, period, window, computed) = match &a.period {
        PeriodSearch::Found(p) => (
            Some(p.preperiod),
            Some(p.period),
            Some(p.window),
            Some(p.computed_up_to),
        ),
        PeriodSearch::NotFound {
            window,
            searched_up_to,
        } => (None, None, Some(*window), Some(*searched_up_to)),
        PeriodSearch::InfiniteSet => (None, None, None, None),
    };
    json!({
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
    })
}

fn print_text(a: &Analysis, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "moves: {}", a.moves.label())?;
    writeln!(out, "g(0..={}): {}", a.values.len() - 1, join(&a.values))?;
    let shown = &a.cold[..a.cold.len().min(COLD_SHOWN)];
    let more = if a.cold.len() > shown.len() {
        format!(" … ({} more; --json lists all)", a.cold.len() - shown.len())
    } else {
        String::new()
    };
    writeln!(
        out,
        "cold positions up to {} ({}): {}{more}",
        a.limit,
        a.cold.len(),
        join(shown)
    )?;
    writeln!(out, "max value up to {}: {}", a.limit, a.max_value)?;
    match &a.period {
        PeriodSearch::Found(p) => writeln!(out, "preperiod {}, period {}", p.preperiod, p.period)?,
        PeriodSearch::NotFound { .. } => writeln!(out, "preperiod and period: not found")?,
        PeriodSearch::InfiniteSet => {
            writeln!(out, "preperiod and period: not searched (infinite set)")?
        }
    }
    writeln!(out, "evidence: {}", evidence(&a.period))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_period_search_default_as_text_is_the_library_default() {
        assert_eq!(
            DEFAULT_PERIOD_SEARCH_TEXT.parse::<usize>().unwrap(),
            subtraction::DEFAULT_PERIOD_SEARCH
        );
    }
}
