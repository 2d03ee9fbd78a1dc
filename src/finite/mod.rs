//! The third workload: the Grundy table of a finite subtraction game (a move takes s tokens
//! from the heap, for s in a finite set S), the games of "subtraction games with a period"
//! (seed 003): {1, 2, 3} gives g(n) = n mod 4, {1, 3, 4} the period 7 nobody would have
//! guessed.
//!
//! Its rules are a [`Set`]; every back-end implements [`Builder`] of them and returns the
//! same [`Table`] the other workloads return; the registry [`BACKENDS`] lists them and
//! [`WORKLOAD`] enters them into `run::workload::KINDS`. The control `finite-naive` takes
//! each mex straight from the definition ([`Rulebook::options`]); the reference
//! `finite-period` computes until the sequence of windows of s_max values repeats, which
//! proves a period, and copies the rest.
//!
//! The squares' table stage also builds finite sets (`--moves 1,3,4`), with back-ends made
//! for the squares' growing move count; this workload is the finite game's own, with the
//! algorithm only a finite set admits. Its tables equal the table stage's on every set (a
//! test holds them together).
//!
//! Each back-end is a leaf file: it imports this module, [`crate::base`], [`crate::cost`],
//! [`crate::grundy`] and [`crate::registry`], never another back-end.

pub mod naive;
pub mod period;

use crate::base::error::{Error, Result};
use crate::base::moves::Moves;
use crate::cost::{Demand, Primitive, Workload};
use crate::grundy::{Builder, Rulebook, Table};
use crate::registry::workload::WorkloadKind;
use crate::registry::Entry;

/// The moves of a finite subtraction game: remove s tokens for some s in the set, never
/// more than the heap holds.
///
/// Invariant: ascending, no zero, no repeats, non-empty, at most
/// [`crate::base::moves::MAX_LIST_LEN`] moves (so every value, at most the number of moves,
/// fits `u16`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Set {
    moves: Vec<usize>,
}

impl Set {
    /// The set of `moves` (any order, repeats dropped), or the refusal of an empty set, a
    /// zero or too many moves.
    pub fn new(moves: &[usize]) -> Result<Set> {
        let list = Moves::list(moves.iter().map(|&s| s as u64).collect())?;
        Set::from_moves(&list)
    }

    /// Parses a comma-separated list such as `1,3,4`; the squares are refused (they are the
    /// table workload's, an infinite set).
    pub fn parse(text: &str) -> Result<Set> {
        Set::from_moves(&Moves::parse(text)?)
    }

    fn from_moves(moves: &Moves) -> Result<Set> {
        match moves {
            Moves::List(list) => Ok(Set {
                moves: list
                    .iter()
                    .map(|&s| usize::try_from(s).unwrap_or(usize::MAX))
                    .collect(),
            }),
            Moves::Squares => Err(Error::BadMoves(
                "the finite workload takes a finite move list like 1,3,4 (the squares are the table workload's)".into(),
            )),
        }
    }

    /// The moves, ascending.
    pub fn moves(&self) -> &[usize] {
        &self.moves
    }

    /// The largest move, s_max: the length of the window that decides the next value.
    pub fn largest(&self) -> usize {
        *self.moves.last().expect("a set is non-empty")
    }

    /// The moves up to `limit`.
    fn up_to(&self, limit: usize) -> &[usize] {
        &self.moves[..self.moves.partition_point(|&s| s <= limit)]
    }
}

impl Rulebook for Set {
    fn label(&self) -> String {
        self.moves
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(",")
    }

    fn describe(&self) -> String {
        format!("subtraction set {{{}}}", self.label())
    }

    fn options(&self, g: &[u16], n: usize, into: &mut Vec<u16>) {
        into.clear();
        into.extend(self.up_to(n).iter().map(|&s| g[n - s]));
    }

    fn option_steps(&self, limit: usize) -> u128 {
        self.up_to(limit)
            .iter()
            .map(|&s| (limit - s + 1) as u128)
            .sum()
    }

    fn removals(&self, limit: usize) -> Vec<usize> {
        self.up_to(limit).to_vec()
    }

    fn cost_workload(&self, table: &Table, threads: usize) -> Workload {
        let positions = (table.limit() + 1) as f64;
        let sum: f64 = table
            .histogram()
            .iter()
            .enumerate()
            .map(|(v, &c)| v as f64 * c as f64)
            .sum();
        Workload {
            limit: table.limit(),
            steps: self.option_steps(table.limit()) as f64,
            alphabet: table.alphabet(),
            mean_value: sum / positions,
            threads,
            rare_steps: 0.0,
        }
    }

    fn histogram_bytes(&self, limit: usize) -> u64 {
        // values are at most the number of moves up to N
        8 * (self.up_to(limit).len() as u64 + 1)
    }
}

/// Every back-end of the finite workload, in the order `list` shows them.
pub static BACKENDS: &[Entry<dyn Builder<Set>>] = &[naive::ENTRY, period::ENTRY];

crate::registry::stage!("finite", dyn Builder<Set>, BACKENDS, reference);

/// The finite workload: a finite subtraction game's table.
pub static WORKLOAD: WorkloadKind<dyn Builder<Set>> = WorkloadKind {
    about: "the Grundy table of a finite subtraction game",
    heading: "finite subtraction game back-ends (--workload finite:1,3,4, then --table NAME; `build --backend NAME`):",
    syntax: "a move list like 1,3,4",
    example: "1,3,4",
    parse: Set::parse,
    default: |_| reference(),
    stage: &STAGE,
};

/// The model of a mex per position over a mask of the set's values: per option step one
/// shift-and-OR into the mask and 1/32 span load, per position the mask cleared and scanned
/// (g(n)/64 + 1 words), and the table's traffic, 4 bytes a position.
pub(crate) fn mask_mex_demand(w: &Workload) -> Demand {
    let words = w.alphabet.div_ceil(64) as f64;
    Demand::default()
        .with(Primitive::Stream, 4.0 * w.positions())
        .with(Primitive::OrScan, w.steps)
        .with(Primitive::Span, w.steps / 32.0)
        .with(
            Primitive::OrScan,
            w.positions() * (words + w.mean_value / 64.0 + 1.0),
        )
}

/// The control's values g(0..=limit) of `moves`: what the back-ends' unit tests hold their
/// tables against.
#[cfg(test)]
pub(crate) fn control_values(moves: &[usize], limit: usize) -> Vec<u16> {
    naive::FiniteNaive
        .build(&Set::new(moves).unwrap(), limit)
        .unwrap()
        .values()
        .to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_parse_sorted_and_refuse_the_squares_and_nonsense() {
        let s = Set::parse("4, 1,3,3").unwrap();
        assert_eq!(s.moves(), [1, 3, 4]);
        assert_eq!(s.label(), "1,3,4");
        assert_eq!(s.describe(), "subtraction set {1,3,4}");
        assert_eq!(s.largest(), 4);
        assert!(Set::parse("squares").is_err());
        assert!(Set::parse("0,1").is_err());
        assert!(Set::parse("").is_err());
        assert!(Set::parse("x").is_err());
    }

    #[test]
    fn option_steps_count_the_moves_each_position_has() {
        // {1,3,4} up to 5: n = 1, 2 have 1 move, n = 3 two, n = 4, 5 three: 1+1+2+3+3 = 10
        let s = Set::parse("1,3,4").unwrap();
        assert_eq!(s.option_steps(5), 10);
        assert_eq!(s.removals(3), [1, 3]);
        let mut into = vec![9];
        s.options(&[0, 1, 0, 1, 2], 4, &mut into);
        assert_eq!(into, [1, 1, 0]);
    }
}
