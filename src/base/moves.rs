//! Subtraction sets: which amounts a move may remove from one heap.

use crate::base::error::{Error, Result};

/// The moves of a subtraction game: a move removes `s` stones from one heap for some `s` in
/// the set, never more than the heap holds.
///
/// `Squares` (1, 4, 9, …, unbounded) is Nim Square's set and the default. `List` is any
/// finite set of positive integers, stored sorted and without repeats.
///
/// The Grundy value of a heap of `n` is at most the number of moves `<= n` (a mex of `m`
/// values is at most `m`), so values fit `u16` when that count is at most 65 535: for the
/// squares that is every `n < 65 536^2`, for a list every list of at most 65 535 entries.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Moves {
    /// 1, 4, 9, 16, …: every positive square.
    #[default]
    Squares,
    /// An explicit finite set, sorted ascending, no zero, no repeats, non-empty.
    List(Vec<u64>),
}

/// The largest number of moves a list may hold, so that every Grundy value fits `u16`.
pub const MAX_LIST_LEN: usize = u16::MAX as usize;

impl Moves {
    /// An explicit subtraction set. Refuses an empty set, a zero, and more than
    /// [`MAX_LIST_LEN`] distinct moves. Order and repeats in the input do not matter.
    pub fn list(mut moves: Vec<u64>) -> Result<Moves> {
        if moves.is_empty() {
            return Err(Error::BadMoves(
                "the set is empty; give at least one positive integer, e.g. --moves 1,3,4".into(),
            ));
        }
        if moves.contains(&0) {
            return Err(Error::BadMoves(
                "0 is not a move (a move must remove at least one stone)".into(),
            ));
        }
        moves.sort_unstable();
        moves.dedup();
        if moves.len() > MAX_LIST_LEN {
            return Err(Error::BadMoves(format!(
                "{} distinct moves; at most {MAX_LIST_LEN} are supported so that Grundy values fit u16",
                moves.len()
            )));
        }
        Ok(Moves::List(moves))
    }

    /// Parses `squares` or a comma-separated list such as `1,3,4`.
    pub fn parse(text: &str) -> Result<Moves> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("squares") {
            return Ok(Moves::Squares);
        }
        if text.is_empty() {
            return Moves::list(Vec::new());
        }
        let mut moves = Vec::new();
        for part in text.split(',') {
            let part = part.trim();
            let value: u64 = part.parse().map_err(|e: std::num::ParseIntError| {
                Error::BadMoves(match e.kind() {
                    std::num::IntErrorKind::PosOverflow => format!(
                        "'{}' is too large for a move (at most {}); a move larger than N never applies, so leave it out",
                        part.escape_debug(),
                        u64::MAX
                    ),
                    _ => format!(
                        "'{}' is not a positive integer; write the moves as a comma-separated list like 1,3,4",
                        part.escape_debug()
                    ),
                })
            })?;
            moves.push(value);
        }
        Moves::list(moves)
    }

    /// The moves `<= limit`, ascending, as `usize` offsets, in a vector of exactly that
    /// capacity (the back-ends' `scratch_bytes` count 8 bytes a move, and a vector grown by
    /// doubling could hold twice that: `tests/memory_estimates.rs`).
    pub fn up_to(&self, limit: usize) -> Vec<usize> {
        match self {
            Moves::Squares => {
                let count = (1usize..).take_while(|&k| k * k <= limit).count();
                (1..=count).map(|k| k * k).collect()
            }
            Moves::List(list) => {
                let count = list.iter().take_while(|&&s| s <= limit as u64).count();
                list[..count].iter().map(|&s| s as usize).collect()
            }
        }
    }

    /// True for the squares.
    pub fn is_squares(&self) -> bool {
        matches!(self, Moves::Squares)
    }

    /// A short label: `squares` or the list joined by commas.
    pub fn label(&self) -> String {
        match self {
            Moves::Squares => "squares".into(),
            Moves::List(list) => list
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(","),
        }
    }

    /// The number of option steps a mex-per-position table spends up to `limit`: the sum over
    /// `n <= limit` of the number of moves `<= n`. For the squares this is
    /// S(N) = sum of floor(sqrt n), about (2/3)·N^1.5.
    pub fn option_steps(&self, limit: usize) -> u128 {
        self.up_to(limit)
            .iter()
            .map(|&s| (limit - s + 1) as u128)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_up_to() {
        assert_eq!(Moves::Squares.up_to(30), vec![1, 4, 9, 16, 25]);
        assert!(Moves::Squares.up_to(0).is_empty());
    }

    #[test]
    fn parse_and_refuse() {
        assert_eq!(Moves::parse("4,1,3,3").unwrap(), Moves::List(vec![1, 3, 4]));
        assert_eq!(Moves::parse("squares").unwrap(), Moves::Squares);
        assert!(Moves::parse("").is_err());
        assert!(Moves::parse("1,0,2").is_err());
        assert!(Moves::parse("1,-2").is_err());
        assert!(Moves::parse("a").is_err());
    }

    #[test]
    fn option_steps_match_an_independent_sum() {
        // sum of floor(sqrt n) for n <= 100 000, computed outside the crate
        // (Python: sum(math.isqrt(n) for n in range(100001))) is 21 032 170.
        assert_eq!(Moves::Squares.option_steps(100_000), 21_032_170);
    }
}
