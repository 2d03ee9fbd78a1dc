//! The fill both vector back-ends share (`octal-vector`, `octal-vector-parallel`): the mex
//! as the first candidate value that no option attains, each candidate searched among the
//! split pairs by the search the back-end supplies (one kernel pass, or passes forked over
//! the pool).
//!
//! Algorithm: for each n in increasing order, the values of the non-split options go into a
//! small list; the candidates x = 0, 1, 2, ... are tried in turn, x attained when the list
//! holds it or, for some splitting digit k with m = n - k, the search finds a split
//! (a, m - a), 1 <= a <= [`Rules::split_pairs`]`(m)`, with g(a) xor g(m - a) = x. A
//! [`Mirror`] (g in reverse) makes the partners g(m - 1), ..., g(m - p) one contiguous slice
//! beside g[1..=p], which is what the search is handed.
//!
//! Cost: the mex itself is a full pass over every splitting digit's pairs; an attained
//! candidate stops where the search stops (usually early).
//!
//! Invariant: when n is decided, g(0..n) and the mirror's copy of them are final, so each
//! search sees exactly the split values of n.

use crate::base::error::Result;
use crate::base::isa;
use crate::cost::{Demand, Primitive, Workload};
use crate::kernels::xor_pairs::{self, Mirror, PairKernel, WithXorPairs};
use crate::octal::Rules;

/// How a candidate search tests one splitting digit's pairs with the path's kernel `K`:
/// whether some i has `lo[i] ^ hi[i] == x`. What tells the vector back-ends apart: each
/// is one.
pub trait PairSearch: Copy {
    fn some_pair<K: PairKernel>(self, lo: &[u16], hi: &[u16], x: u16) -> bool;
}

/// The candidate-search fill of g[from..] with `search` on the active path: the whole fill
/// is one visitor of [`xor_pairs::dispatch`], so it is compiled per path with its kernel.
pub fn fill_on_active<S: PairSearch>(
    rules: &Rules,
    g: &mut [u16],
    from: usize,
    search: S,
) -> Result<()> {
    xor_pairs::dispatch(
        isa::active(),
        Fill {
            rules,
            g,
            from,
            search,
        },
    )
}

/// The fill as a visitor of [`xor_pairs::dispatch`].
struct Fill<'a, S> {
    rules: &'a Rules,
    g: &'a mut [u16],
    from: usize,
    search: S,
}

impl<S: PairSearch> WithXorPairs for Fill<'_, S> {
    type Out = Result<()>;

    /// The fill loop, generic over the path's kernel: each candidate one search.
    #[inline(always)]
    fn run<K: PairKernel>(self) -> Result<()> {
        let search = self.search;
        fill_by_candidates(self.rules, self.g, self.from, |lo, hi, x| {
            search.some_pair::<K>(lo, hi, x)
        })
    }
}

/// Fills g[from..] for `rules`, given g[..from] final, deciding each candidate x by
/// `some_pair(lo, hi, x)`: true when some i has `lo[i] ^ hi[i] == x`. Inlined into the
/// caller, so a search compiled for one `--isa` path keeps its target features.
#[inline(always)]
pub fn fill_by_candidates(
    rules: &Rules,
    g: &mut [u16],
    from: usize,
    some_pair: impl Fn(&[u16], &[u16], u16) -> bool,
) -> Result<()> {
    let mut mirror = Mirror::new(g.len(), &g[..from]);
    let mut single = Vec::new();
    let mut splits: Vec<(usize, usize)> = Vec::new();
    for n in from..g.len() {
        rules.single_heap_options(g, n, &mut single);
        splits.clear();
        splits.extend(rules.splits_of(n));
        let attained = |x: u16| {
            single.contains(&x)
                || splits
                    .iter()
                    .any(|&(m, p)| some_pair(&g[1..=p], mirror.partners(m, p), x))
        };
        let mut x = 0u32;
        loop {
            let Ok(candidate) = u16::try_from(x) else {
                return Err(rules.value_overflow(n));
            };
            if !attained(candidate) {
                break;
            }
            x += 1;
        }
        g[n] = x as u16;
        mirror.set(n, x as u16);
    }
    Ok(())
}

/// Bytes beside the table for N = `limit`: the mirror, one u16 per position.
pub fn mirror_bytes(limit: usize) -> u64 {
    2 * (limit as u64 + 1) + 1024
}

/// The cost model both vector back-ends state: per split option at least 4 bytes read in
/// order (the mex's full pass over g and its mirror), counted as stream bytes.
pub fn one_pass_over_the_pairs(w: &Workload) -> Demand {
    Demand::default().with(Primitive::Stream, 4.0 * w.steps)
}
