//! The naive controls: deliberately simple code that exists only to check the fast back-ends.
//!
//! - [`brute`] and [`brute_triples`]: the definition of the count itself, three nested loops
//!   over a <= b <= c testing the nim-sum (seed `000_242f32a778847c70.txt`, `brute_small`).
//! - [`game_tree`]: win/lose for every triple of small heaps from the rules alone, with no
//!   Grundy theory, so that the Sprague–Grundy reduction is checked rather than assumed
//!   (seed `003_ceee418ff670a86b.txt`, "Checking it against a real search").

use crate::moves::Moves;
use crate::table::Table;

/// The number of sorted triples 0 <= a <= b <= c <= N with g(a) xor g(b) xor g(c) = 0, by
/// enumerating all C(N+3, 3) of them. O(N^3): meant for N <= 100.
pub fn brute(table: &Table) -> u128 {
    let g = table.values();
    let mut count = 0u128;
    for a in 0..g.len() {
        for b in a..g.len() {
            let ab = g[a] ^ g[b];
            count += g[b..].iter().filter(|&&gc| gc == ab).count() as u128;
        }
    }
    count
}

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

/// The number of sorted K-tuples 0 <= a_1 <= … <= a_K <= N (K = `heaps`) whose values xor
/// to 0, by enumerating every one of the C(N+K, K) multisets. The definition itself, for any
/// K (K = 0 counts the one empty multiset); meant for small N, e.g. N <= 30 for K <= 4.
pub fn brute_multisets(table: &Table, heaps: usize) -> u128 {
    /// Counts the completions of a sorted prefix whose values xor to `xor`, choosing
    /// `left` more heaps, each at least `from`.
    fn extend(g: &[u16], from: usize, left: usize, xor: u16) -> u128 {
        if left == 0 {
            return u128::from(xor == 0);
        }
        (from..g.len())
            .map(|a| extend(g, a, left - 1, xor ^ g[a]))
            .sum()
    }
    extend(table.values(), 0, heaps, 0)
}
