//! `nimsquare games ...`: exhaustive checkers for three other impartial games, one
//! subcommand per game, each in its own file under `games/`.

mod amalgamation;
mod moore;
mod subtraction;

use super::common::CliResult;

/// The games subcommands.
#[derive(clap::Subcommand)]
pub enum Games {
    /// Amalgamation Nim with restriction: exhaustive Grundy values of three heaps against
    /// the closed formula G = x1 xor x2 xor x3 xor delta(X).
    Amalgamation(amalgamation::Args),
    /// Bounded Moore's Nim (a move takes one counter from each of 1..K heaps): win/lose
    /// census and parity tests.
    Moore(moore::Args),
    /// One subtraction game: Grundy values, cold positions, and the period the values
    /// eventually repeat with (and where it starts).
    Subtraction(subtraction::Args),
}

pub fn run(game: Games) -> CliResult {
    match game {
        Games::Amalgamation(args) => amalgamation::run(args),
        Games::Moore(args) => moore::run(args),
        Games::Subtraction(args) => subtraction::run(args),
    }
}
