//! `octal-pairs`: the mex of every heap from all its options at once, each split pair's value
//! marked in a byte row, a block of heaps on every thread: for the codes whose values admit
//! no sparse space, where every method reads every pair.
//!
//! Algorithm: heap n's row has one byte per value below W, the power of two above the
//! largest value so far (an xor of two values below W is below W too). Each option stores a
//! 1 at its value: 0 for the whole heap removed, g(n - k) for one heap left, and for each
//! splitting digit k (m = n - k) the pairs (a, m - a), 1 <= a <= p, through the xor-pair
//! kernel's marking ([`PairKernel::mark`]) over g[1..=p] and the mirrored partners
//! g(m - 1), ..., g(m - p) (a [`Mirror`]), two contiguous runs. g(n) is the row's first 0.
//! The heaps of a block [n0, n0 + B) are done in two passes:
//!
//! 1. *far*, the heaps of the block on every thread at once: the pairs whose larger heap
//!    m - a is below n0 (a >= m - n0 + 1), which read only final values;
//! 2. *near*, heap after heap in order: the pairs with m - a in the block (a <= m - n0, at
//!    most B per digit), the one-heap options, then the mex.
//!
//! A heap whose value reaches W ends its block there (the rest of the block is done again,
//! with rows twice as wide), so every row is wide enough for the values it holds.
//!
//! Cost: one byte store per option, S(N) in all (about n pairs a heap per splitting digit,
//! N²/2 over the table for one), divided over the threads but for the near pass's B pairs a
//! heap and digit; plus W bytes cleared and scanned a heap. No early stop: the mex needs
//! every option, so this suits codes whose values are wide (hundreds and more), where the
//! candidate search of `octal-vector` tries about as many pairs per candidate as there are
//! values.
//!
//! Invariant: when heap n's mex is taken, g[..n] and the mirror's copy of it are final, its
//! row holds 1 exactly at the values of its options (every pair is in the far or the near
//! pass, never both), and every value so far is below W.

use super::{Builder, Rules};
use crate::base::error::Result;
use crate::base::isa;
use crate::cost::{Demand, Model, Primitive, Workload};
use crate::kernels::xor_pairs::{self, Mirror, PairKernel, WithXorPairs};
use crate::kernels::Family;
use crate::registry::{Entry, Role};
use rayon::prelude::*;

/// The registry entry of `octal-pairs`.
pub const ENTRY: Entry<dyn Builder<Rules>> = Entry {
    name: "octal-pairs",
    description: "every option's value marked in a byte row, the split pairs as two contiguous runs (g forward, g mirrored) a vector at a time, a block of heaps on every thread; fast where no sparse space exists",
    cost: "O(S(N) / threads) byte stores, S(N) the options (about N²/2 pairs per splitting digit), plus O(N * W) for the rows",
    role: Role::Fast,
    model: Model {
        summary: "on all threads: one scattered byte store per option (each split pair's value into its heap's row)",
        parallel: true,
        demand: one_store_per_option,
    },
    kernels: &[Family::XorPairs],
    make: || Box::new(OctalPairs::DEFAULT),
};

/// The cost model: one byte store per option ([`Workload::steps`]).
pub fn one_store_per_option(w: &Workload) -> Demand {
    Demand::default().with(Primitive::Scatter, w.steps)
}

/// The bytes of the rows of one block: a block's rows stay in the second-level cache while
/// the near pass reads them back.
pub const BLOCK_ROW_BYTES: usize = 1 << 18;

/// Most heaps in a block: the near pass does up to this many pairs per heap and digit in
/// order, on one thread.
pub const MAX_BLOCK: usize = 256;

/// Fewest heaps in a block, however wide the rows.
pub const MIN_BLOCK: usize = 4;

/// A block whose far pairs are fewer than this runs on the calling thread: a rayon fork
/// costs some microseconds, about as long as this many byte stores.
pub const PARALLEL_PAIRS: usize = 1 << 14;

/// The narrowest row: a heap with fewer option values still clears and scans one word-sized
/// run of bytes.
pub const MIN_WIDTH: usize = 64;

/// The marking method (see the module doc), with its parameters (the tests shrink them).
#[derive(Debug, Clone, Copy)]
pub struct OctalPairs {
    /// Bytes of rows per block ([`BLOCK_ROW_BYTES`]).
    pub row_bytes: usize,
    /// Most heaps in a block ([`MAX_BLOCK`]).
    pub max_block: usize,
    /// Far pairs from which a block forks onto the threads ([`PARALLEL_PAIRS`]).
    pub parallel_pairs: usize,
}

impl OctalPairs {
    /// The registry's parameters.
    pub const DEFAULT: OctalPairs = OctalPairs {
        row_bytes: BLOCK_ROW_BYTES,
        max_block: MAX_BLOCK,
        parallel_pairs: PARALLEL_PAIRS,
    };

    /// Heaps in the block whose rows are `width` bytes.
    fn block_len(&self, width: usize) -> usize {
        (self.row_bytes / width).clamp(MIN_BLOCK, self.max_block.max(MIN_BLOCK))
    }
}

impl Builder<Rules> for OctalPairs {
    fn fill(&self, rules: &Rules, g: &mut [u16], from: usize) -> Result<()> {
        xor_pairs::dispatch(
            isa::active(),
            Fill {
                method: *self,
                rules,
                g,
                from,
            },
        )
    }

    fn scratch_bytes(&self, _rules: &Rules, limit: usize, threads: usize) -> u64 {
        // the mirror, and one block of rows (at most the widest rows' minimum block)
        let rows = self.row_bytes.max(MIN_BLOCK << 16) as u64;
        2 * (limit as u64 + 1) + rows + 4096 * threads as u64
    }
}

/// The fill as a visitor of [`xor_pairs::dispatch`]: compiled per path with its kernel.
struct Fill<'a> {
    method: OctalPairs,
    rules: &'a Rules,
    g: &'a mut [u16],
    from: usize,
}

impl WithXorPairs for Fill<'_> {
    type Out = Result<()>;

    #[inline(always)]
    fn run<K: PairKernel>(self) -> Result<()> {
        let Fill {
            method,
            rules,
            g,
            from,
        } = self;
        let mut mirror = Mirror::new(g.len(), &g[..from]);
        let largest = g[..from].iter().copied().max().unwrap_or(0);
        let mut width = row_width(largest);
        let mut rows: Vec<u8> = Vec::new();
        let mut single = Vec::new();
        let mut n0 = from;
        while n0 < g.len() {
            let end = (n0 + method.block_len(width)).min(g.len());
            rows.clear();
            rows.resize((end - n0) * width, 0);
            far_pass::<K>(&method, rules, &g[..n0], &mirror, n0, width, &mut rows);
            // near pass, in order
            let mut next = end;
            for n in n0..end {
                let row = &mut rows[(n - n0) * width..(n - n0 + 1) * width];
                rules.single_heap_options(g, n, &mut single);
                for &v in &single {
                    row[usize::from(v)] = 1;
                }
                for (m, p) in rules.splits_of(n) {
                    let near = p.min(m.saturating_sub(n0));
                    if near > 0 {
                        K::mark(&g[1..=near], mirror.partners(m, near), row);
                    }
                }
                let mex = first_zero(row);
                let Ok(value) = u16::try_from(mex) else {
                    return Err(rules.value_overflow(n));
                };
                g[n] = value;
                mirror.set(n, value);
                if mex == width {
                    // every value below W is an option: the heaps after n need wider rows
                    width *= 2;
                    next = n + 1;
                    break;
                }
            }
            n0 = next;
        }
        Ok(())
    }
}

/// The far pass of the block [n0, n0 + rows.len() / width): each heap's pairs whose larger
/// heap is below n0, into its row, on the threads when there are enough of them.
#[inline(always)]
fn far_pass<K: PairKernel>(
    method: &OctalPairs,
    rules: &Rules,
    done: &[u16],
    mirror: &Mirror,
    n0: usize,
    width: usize,
    rows: &mut [u8],
) {
    let one = |j: usize, row: &mut [u8]| {
        for (m, p) in rules.splits_of(n0 + j) {
            // pairs a in first..=p have m - a < n0
            let first = (m + 1).saturating_sub(n0).max(1);
            if first <= p {
                K::mark(&done[first..=p], &mirror.partners(m, p)[first - 1..], row);
            }
        }
    };
    let heaps = rows.len() / width;
    let pairs: usize = rules.splits_of(n0).map(|(_, p)| p).sum::<usize>() * heaps;
    if pairs >= method.parallel_pairs && rayon::current_num_threads() > 1 {
        rows.par_chunks_mut(width)
            .enumerate()
            .for_each(|(j, row)| one(j, row));
    } else {
        for (j, row) in rows.chunks_mut(width).enumerate() {
            one(j, row);
        }
    }
}

/// The row width for values up to `largest`: the power of two above it, at least
/// [`MIN_WIDTH`] (and 2^16 at most, the u16 values' range).
pub fn row_width(largest: u16) -> usize {
    (usize::from(largest) + 1)
        .next_power_of_two()
        .max(MIN_WIDTH)
}

/// The index of the first 0 in a row of 0s and 1s, or its length when it has none: eight
/// bytes at a time (a byte is 0 exactly where the word's complement has its low bit).
pub fn first_zero(row: &[u8]) -> usize {
    const LOW_BITS: u64 = 0x0101_0101_0101_0101;
    let mut words = row.chunks_exact(8);
    for (i, word) in words.by_ref().enumerate() {
        let zeros = !u64::from_le_bytes(word.try_into().expect("8 bytes")) & LOW_BITS;
        if zeros != 0 {
            return 8 * i + zeros.trailing_zeros() as usize / 8;
        }
    }
    let tail = row.len() / 8 * 8;
    words
        .remainder()
        .iter()
        .position(|&b| b == 0)
        .map_or(row.len(), |i| tail + i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::isa::{self, Isa};
    use proptest::prelude::*;

    /// Small blocks, narrow rows and forking from the first pair: every pass and every
    /// widening runs on tables the control affords.
    const SMALL: OctalPairs = OctalPairs {
        row_bytes: 256,
        max_block: 7,
        parallel_pairs: 1,
    };

    #[test]
    fn the_first_zero_is_found_in_words_and_in_the_tail() {
        for len in [0usize, 1, 7, 8, 9, 64, 67] {
            for at in 0..=len {
                let mut row = vec![1u8; len];
                if at < len {
                    row[at] = 0;
                    // a later 0 does not move the answer
                    row[len - 1] = 0;
                }
                assert_eq!(first_zero(&row), at, "len {len}, 0 at {at}");
            }
        }
    }

    #[test]
    fn rows_are_powers_of_two_above_the_largest_value() {
        assert_eq!(row_width(0), MIN_WIDTH);
        assert_eq!(row_width(63), 64);
        assert_eq!(row_width(64), 128);
        assert_eq!(row_width(u16::MAX), 1 << 16);
    }

    #[test]
    fn small_blocks_give_the_controls_table_on_every_path_and_from_any_start() {
        let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        // .346 and .76 have no sparse space and values past 64 by N = 2000 (rows widen);
        // Grundy's game splits unequally; 4.07 splits without removing; .6 is Officers.
        for code in ["0.346", "0.76", "grundy", "4.07", "0.6", "0.354"] {
            let rules = Rules::parse(code).unwrap();
            let want = crate::octal::control_values(code, 2000);
            for path in Isa::supported_all() {
                for method in [SMALL, OctalPairs::DEFAULT] {
                    let got = isa::with(path, || method.build(&rules, 2000).unwrap()).unwrap();
                    assert_eq!(got.values(), &want[..], "{code} on {path}");
                }
            }
            // a fill that starts from a prefix equals the one-call table
            let mut g = want.clone();
            g[700..].iter_mut().for_each(|v| *v = 0);
            SMALL.fill(&rules, &mut g, 700).unwrap();
            assert_eq!(g, want, "{code} from 700");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn random_codes_match_the_control(code in crate::octal::code_strategy(), limit in 0usize..600) {
            let rules = Rules::parse(&code).unwrap();
            let want = crate::octal::control_values(&code, limit);
            let got = SMALL.build(&rules, limit).unwrap();
            prop_assert_eq!(got.values(), &want[..]);
        }
    }
}
