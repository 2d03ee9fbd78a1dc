//! Arguments shared by several subcommands, declared once and `#[command(flatten)]`-ed in.
//!
//! Each struct is one concept (the limit, the subtraction set, the number of heaps, the output
//! format), so its help text, parser and refusals are the same in every subcommand.

use super::{parse_heaps, parse_limit, parse_moves, DEFAULT_LIMIT};
use crate::moves::Moves;

/// `--limit N` with the default of `solve` and `verify` (Project Euler 310's bound).
#[derive(clap::Args, Debug, Clone)]
pub struct LimitArg {
    /// The largest heap size N (e.g. 100000, 1_000_000 or 1e6; at most 4294967295).
    #[arg(long, short = 'n', value_name = "N", default_value_t = DEFAULT_LIMIT,
          value_parser = parse_limit, allow_hyphen_values = true)]
    pub limit: u64,
}

/// `--moves LIST`: the subtraction set.
#[derive(clap::Args, Debug, Clone)]
pub struct MovesArg {
    /// Subtraction set: `squares` (any case) or a comma-separated list like 1,3,4. Order,
    /// spaces and repeats do not matter (`3,1, 3` is {1,3}); `--json` reports the set that ran.
    #[arg(long, value_name = "LIST", default_value = "squares", value_parser = parse_moves,
          allow_hyphen_values = true)]
    pub moves: Moves,
}

/// `--heaps K`: how many heaps a position has.
#[derive(clap::Args, Debug, Clone)]
pub struct HeapsArg {
    /// Number of heaps K (1 to 16): count sorted K-tuples whose values xor to zero.
    #[arg(long, value_name = "K", default_value_t = 3, value_parser = parse_heaps,
          allow_hyphen_values = true)]
    pub heaps: usize,
}

/// `--json`: one JSON object on stdout instead of text.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct JsonArg {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}
