//! `nimsquare games ...`: exhaustive checkers for the other seed games, one subcommand per
//! game, each in its own file under `games/`.

mod amalgamation;
mod moore;
mod subtraction;

use super::CliResult;

/// The games subcommands.
#[derive(clap::Subcommand)]
pub enum Games {
    /// Amalgamation Nim with restriction (seed 002): exhaustive Grundy values of three heaps
    /// against the closed formula (4).
    Amalgamation(amalgamation::Args),
    /// Bounded Moore's Nim with m = 1 (seed 004): win/lose census and parity tests.
    Moore(moore::Args),
    /// One subtraction game (seed 003): Grundy values, cold positions, preperiod and period.
    Subtraction(subtraction::Args),
}

pub fn run(game: Games) -> CliResult {
    match game {
        Games::Amalgamation(args) => amalgamation::run(args),
        Games::Moore(args) => moore::run(args),
        Games::Subtraction(args) => subtraction::run(args),
    }
}
