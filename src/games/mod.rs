//! Exhaustive checkers for three other impartial games: each file searches one game from its
//! rules and compares the result with a published closed formula or census.

pub mod amalgamation;
pub mod moore;
pub mod subtraction;
