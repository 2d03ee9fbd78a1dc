//! Exhaustive checkers for the other seed games: each file searches one game from its rules
//! and compares the result with the seed's claimed rule or census.

pub mod amalgamation;
pub mod moore;
pub mod subtraction;
