//! `value-bounded`: Eppstein's class-by-class evaluation (D. Eppstein, *Faster Evaluation of
//! Subtraction Games*, FUN 2018, arXiv:1804.06515).
//!
//! Algorithm: keep the set U of positions not yet given a value, as a bitset. For
//! v = 0, 1, 2, … decide the class C_v = {n : g(n) = v}: scanning U upward, n joins C_v
//! exactly when no n - s (s a move) is already in C_v. That is, C_v is the set of cold
//! positions of the subtraction game played on U. Remove C_v from U and go on until U is
//! empty. Each scan runs 64 positions a word: the "hit" word for positions [n0, n0 + 64) is
//! the OR over moves s of the 64-bit window of C_v starting at n0 - s (a sumset test done
//! word-parallel); inside the word, members are taken lowest first and each one adds the
//! moves below 64 shifted to its position to the hit word.
//!
//! Cost: (m + 1) passes, m the largest value, each at most S(N)/64 window reads; a word's
//! scan stops as soon as every unassigned position in it is hit, and words with no
//! unassigned position are skipped, so later passes are far cheaper than the bound. The
//! cost grows with m rather than with the move set; it beats a per-position mex while m is
//! small beside the word width and loses beyond.
//!
//! Invariant (why the class rule is right): when class v is decided, every n in U has
//! options of every value u < v, because n was not taken into C_u; so g(n) = v exactly when
//! no option has value v. The least element of U always joins C_v (its options all have
//! values below v), so every pass assigns at least one position and the loop ends.
//!
//! Paths (`--isa`, read once per `fill`): the kernels are the sumset family
//! ([`crate::kernels::sumset`], which holds the one ISA dispatch): `portable` is the u64
//! word code above; `scalar` is its twin with each window read bit by bit. `avx2` and
//! `avx512` add a group pass: the hit words of G = 4 or 8 consecutive words are OR-ed over
//! the far moves s >= 64·G in lockstep, one vector funnel shift per move. A far move's
//! windows for the G words then read only words below the group, which are decided, so the
//! lockstep is exact; the near moves s < 64·G (which read words of the group itself) and the
//! moves reaching below position 0 are then applied word by word, in order, as before.
//!
//! Its cost model prices word ops only: the writes Callgrind counts (the class bitsets and
//! the table) stand beside a prediction of zero stores.

use super::table_io;
use crate::base::error::Result;
use crate::base::isa;
use crate::base::moves::Moves;
use crate::cost::{Model, Primitive};
use crate::grundy::Builder;
use crate::kernels::sumset::{self, SumsetKernel, WithSumset};
use crate::kernels::Family;
use crate::registry::{Entry, Role};

/// The registry entry of `value-bounded`.
pub const ENTRY: Entry<dyn Builder<Moves>> = Entry {
    name: "value-bounded",
    description: "Eppstein: decide value classes 0, 1, 2, ... by word-parallel sumset tests on bitsets",
    cost: "O((m+1) * S(N) / 64), m = max value",
    role: Role::Fast,
    model: Model {
        summary: "per value class (m+1 passes, m the max value) S(N)/64 windows of 2 word ops (shift pair and OR), plus 2 word ops per word of N/64 (clear, test); the early stop skips windows, so this counts the algorithm's worst case and efficiency can exceed 1",
        parallel: false,
        demand: |w| {
            let passes = w.alphabet as f64;
            let words = (w.positions() / 64.0).ceil();
            table_io(w).with(Primitive::OrScan, passes * (2.0 * w.steps / 64.0 + 2.0 * words))
        },
    },
    kernels: &[Family::Sumset],
    make: || Box::new(ValueBounded),
};

/// Eppstein-style value-bounded table. See the module documentation.
pub struct ValueBounded;

impl Builder<Moves> for ValueBounded {
    /// Decides value classes over all positions, so it ignores `from` (not resumable).
    fn fill(&self, moves: &Moves, g: &mut [u16], _from: usize) -> Result<()> {
        let limit = g.len() - 1;
        sumset::dispatch(
            isa::active(),
            Fill {
                moves: &moves.up_to(limit),
                g,
            },
        );
        Ok(())
    }

    fn resumable(&self) -> bool {
        false
    }

    fn scratch_bytes(&self, moves: &Moves, limit: usize, _threads: usize) -> u64 {
        // Two bitsets of N bits (unassigned positions, current class) and the move list.
        2 * (limit as u64 + 1).div_ceil(64) * 8 + 8 * moves.up_to(limit).len() as u64
    }
}

/// The passes of one `fill`, run by [`sumset::dispatch`] on the kernel of the chosen path.
struct Fill<'a> {
    /// The moves up to N, ascending.
    moves: &'a [usize],
    /// g(0..=N), written class by class.
    g: &'a mut [u16],
}

impl WithSumset for Fill<'_> {
    type Out = ();

    #[inline(always)]
    fn run<K: SumsetKernel>(self) {
        fill_with::<K>(self.moves, self.g)
    }
}

/// The passes over values 0, 1, 2, …, generic over the path; inlined into each path's
/// entry so it is compiled with that path's target features.
#[inline(always)]
fn fill_with<K: SumsetKernel>(moves: &[usize], g: &mut [u16]) {
    let limit = g.len() - 1;
    let words = (limit + 1).div_ceil(64);
    let mut state = Passes {
        moves,
        near_mask: moves
            .iter()
            .take_while(|&&s| s < 64)
            .fold(0u64, |m, &s| m | (1u64 << s)),
        far_from: moves.partition_point(|&s| s < 64 * K::GROUP),
        unassigned: vec![u64::MAX; words],
        class: vec![0u64; words],
    };
    let tail = (limit + 1) % 64;
    if tail != 0 {
        state.unassigned[words - 1] = (1u64 << tail) - 1;
    }
    let mut remaining = limit + 1;
    let mut value = 0u16;
    while remaining > 0 {
        // The least unassigned position always joins the class (module doc), so a pass
        // that assigns nothing is a bug that would loop here forever: fail instead.
        let assigned = state.pass::<K>(g, value);
        assert!(
            assigned > 0,
            "value-bounded: class {value} is empty with {remaining} positions left"
        );
        remaining -= assigned;
        value += 1;
    }
}

/// The state the passes share.
struct Passes<'a> {
    /// The moves up to N, ascending.
    moves: &'a [usize],
    /// Bit s set for every move s < 64.
    near_mask: u64,
    /// Index of the first move >= 64·GROUP (the group pass's moves start there).
    far_from: usize,
    /// Positions not yet given a value.
    unassigned: Vec<u64>,
    /// The class being decided.
    class: Vec<u64>,
}

impl Passes<'_> {
    /// Decides class `value` (writing it into `g`) and returns its size.
    #[inline(always)]
    fn pass<K: SumsetKernel>(&mut self, g: &mut [u16], value: u16) -> usize {
        let words = self.class.len();
        self.class.iter_mut().for_each(|w| *w = 0);
        let mut assigned = 0;
        let mut w = 0;
        while w < words {
            let group = if K::GROUP > 1 && w + K::GROUP <= words {
                K::GROUP
            } else {
                1
            };
            if self.unassigned[w..w + group].iter().all(|&f| f == 0) {
                w += group;
                continue;
            }
            // Moves s <= 64·w reach no lower than position 0 from any word of the group.
            let (a, b) = (self.far_from, self.moves.partition_point(|&s| s <= 64 * w));
            let (a, b) = if group == 1 { (0, 0) } else { (a, b.max(a)) };
            let mut hits = [0u64; 8];
            if group > 1 {
                let free = &self.unassigned[w..w + group];
                K::far_hits(&self.class, w, &self.moves[a..b], free, &mut hits[..group]);
            }
            for (i, &hit) in hits.iter().enumerate().take(group) {
                let rest = [&self.moves[..a], &self.moves[b..]];
                assigned += self.decide_word::<K>(w + i, hit, rest, g, value);
            }
            w += group;
        }
        assigned
    }

    /// Decides the members of class `value` in word `w`, given the hits of some moves
    /// already (`hit`) and the others in `rest` (each ascending); returns how many.
    #[inline(always)]
    fn decide_word<K: SumsetKernel>(
        &mut self,
        w: usize,
        mut hit: u64,
        rest: [&[usize]; 2],
        g: &mut [u16],
        value: u16,
    ) -> usize {
        let free = self.unassigned[w];
        if free == 0 {
            return 0;
        }
        let n0 = w * 64;
        for list in rest {
            for &s in list {
                if s > n0 + 63 || free & !hit == 0 {
                    break;
                }
                hit |= K::window(&self.class, n0 as isize - s as isize);
            }
        }
        let mut members = 0u64;
        let mut open = free & !hit;
        while open != 0 {
            let j = open.trailing_zeros();
            members |= 1u64 << j;
            hit |= self.near_mask << j;
            open &= open - 1;
            open &= !hit;
        }
        self.class[w] = members;
        self.unassigned[w] &= !members;
        let mut bits = members;
        while bits != 0 {
            g[n0 + bits.trailing_zeros() as usize] = value;
            bits &= bits - 1;
        }
        members.count_ones() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The passes to N = `.1` on the moves `.0` (ascending), on whichever kernel runs it.
    #[derive(Clone)]
    struct Build(Vec<usize>, usize);

    impl WithSumset for Build {
        type Out = Vec<u16>;

        fn run<K: SumsetKernel>(self) -> Vec<u16> {
            let mut g = vec![0u16; self.1 + 1];
            fill_with::<K>(&self.0, &mut g);
            g
        }
    }

    #[test]
    fn every_path_builds_the_same_table_as_the_scalar_twin() {
        // {1..=150}: g(n) = n mod 151, 151 passes; the squares reach far moves > 512.
        for moves in [Moves::Squares, Moves::list((1..=150).collect()).unwrap()] {
            let kernels = sumset::each_kernel(Build(moves.up_to(3000), 3000));
            let (_, want) = &kernels[0];
            assert!(want.iter().max() >= Some(&10));
            for (path, got) in &kernels {
                assert_eq!(got, want, "{path} on {moves:?}");
            }
            // And the back-end itself, on the active path.
            assert_eq!(
                ValueBounded.build(&moves, 3000).unwrap().values(),
                &want[..]
            );
        }
    }
}
