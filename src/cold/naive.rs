//! `naive-cold`: the cold positions straight from the definition, with no tricks.
//!
//! It exists only to check the fast back-end against (as RustFFT keeps its `Dft`): n is cold
//! exactly when no n - s (s a move, s <= n) is cold, decided for n = 0, 1, 2, … in one plain
//! loop. Cost O(N · #moves): fine to about 10^6 on the squares.

use super::{ColdFinder, ColdSet};
use crate::base::moves::Moves;
use crate::cost::Model;
use crate::registry::{Entry, Role};

/// The registry entry of `naive-cold`, the stage's control.
pub const ENTRY: Entry<dyn ColdFinder> = Entry {
    name: "naive-cold",
    description: "the control: n is cold iff no n - s is cold, one plain loop",
    cost: "O(N * #moves)",
    role: Role::Control,
    model: Model::NOT_MODELLED,
    kernels: &[],
    make: || Box::new(Naive),
};

/// The definition as a loop. See the module documentation.
pub struct Naive;

impl ColdFinder for Naive {
    fn cold(&self, moves: &Moves, limit: usize) -> ColdSet {
        let moves = moves.up_to(limit);
        let mut set = ColdSet::empty(limit);
        for n in 0..=limit {
            let reaches_cold = moves
                .iter()
                .take_while(|&&s| s <= n)
                .any(|&s| set.contains(n - s));
            if !reaches_cold {
                set.insert(n);
            }
        }
        set
    }

    fn scratch_bytes(&self, moves: &Moves, limit: usize, _threads: usize) -> u64 {
        (moves.up_to(limit).len() * std::mem::size_of::<usize>()) as u64
    }

    /// A hot position usually finds a cold option among its first moves, so the scan is
    /// cheap there; a cold one reads every move. The checker runs it up to 10^7.
    fn affordable_limit(&self) -> Option<usize> {
        Some(10_000_000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_facts() {
        let squares = Naive.cold(&Moves::Squares, 22);
        let expected = [0, 2, 5, 7, 10, 12, 15, 17, 20, 22];
        assert_eq!(squares.positions().collect::<Vec<_>>(), expected);
        let one_three_four = Naive.cold(&Moves::List(vec![1, 3, 4]), 20);
        let expected = [0, 2, 7, 9, 14, 16];
        assert_eq!(one_three_four.positions().collect::<Vec<_>>(), expected);
    }
}
