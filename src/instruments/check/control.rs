//! Controls outside the two stages' registries (the registered controls are the table
//! back-end `naive-mex` and the count back-end `brute`):
//!
//! - [`game_tree`]: win/lose for every triple of small heaps from the rules alone, with no
//!   Grundy theory, so that the Sprague–Grundy reduction itself is checked rather than
//!   assumed (as the source on subtraction games checks its rule against a real search).
//! - [`brute_triples`]: the losing triples themselves, listed, for the small facts.

use crate::base::moves::Moves;
use crate::table::Table;

/// Every losing sorted triple (a, b, c), in lexicographic order, by enumeration.
pub fn brute_triples(table: &Table) -> Vec<(usize, usize, usize)> {
    let g = table.values();
    let mut out = Vec::new();
    for a in 0..g.len() {
        for b in a..g.len() {
            for c in b..g.len() {
                if g[a] ^ g[b] ^ g[c] == 0 {
                    out.push((a, b, c));
                }
            }
        }
    }
    out
}

/// Win/lose labels for every ordered triple of heaps with each heap <= `max`, decided from
/// the rules alone: a move takes some s in `moves` (s <= the heap) from one heap; a position
/// is losing when every move leads to a winning position (so a position with no move is
/// losing).
///
/// Positions are visited with a, b, c all ascending, so every follower (one coordinate
/// smaller, the others equal) is labelled before the position itself.
pub struct GameTree {
    max: usize,
    losing: Vec<bool>,
}

impl GameTree {
    fn index(&self, a: usize, b: usize, c: usize) -> usize {
        let side = self.max + 1;
        (a * side + b) * side + c
    }

    /// True when the player to move from (a, b, c) loses against perfect play.
    pub fn is_losing(&self, a: usize, b: usize, c: usize) -> bool {
        self.losing[self.index(a, b, c)]
    }

    /// The largest heap covered.
    pub fn max(&self) -> usize {
        self.max
    }
}

/// Labels every triple with heaps <= `max`. O(max^3 · moves) time and (max+1)^3 bytes.
pub fn game_tree(moves: &Moves, max: usize) -> GameTree {
    let moves = moves.up_to(max);
    let side = max + 1;
    let mut tree = GameTree {
        max,
        losing: vec![false; side * side * side],
    };
    for a in 0..side {
        for b in 0..side {
            for c in 0..side {
                let mut reaches_losing = false;
                for &s in &moves {
                    if (s <= a && tree.is_losing(a - s, b, c))
                        || (s <= b && tree.is_losing(a, b - s, c))
                        || (s <= c && tree.is_losing(a, b, c - s))
                    {
                        reaches_losing = true;
                        break;
                    }
                }
                let i = tree.index(a, b, c);
                tree.losing[i] = !reaches_losing;
            }
        }
    }
    tree
}
