//! `octal-vector`: the mex as the first candidate value that no option attains, each
//! candidate searched among the split pairs by the vector xor-pair kernel.
//!
//! Algorithm: the candidate search of [`super::method::candidate_search`]: for each n in increasing
//! order, the candidates x = 0, 1, 2, ... are tried in turn, x attained when a non-split
//! option has it or, for some splitting digit k with m = n - k, some split (a, m - a),
//! 1 <= a <= [`Rules::split_pairs`]`(m)`, has g(a) xor g(m - a) = x. The partners
//! g(m - 1), ..., g(m - p) lie in one contiguous slice of the mirror beside g[1..=p], so each
//! test is one [`PairKernel::first_match`] pass. The mex is the first x not attained.
//!
//! Cost: an attained candidate stops at its first pair (usually early); the mex itself is a
//! full pass over every splitting digit's pairs, n/2 u16 lanes each. So about S(N)/W lane
//! steps for a run, W = 1, 8, 16 or 32 lanes by path, plus the early stops; the worst case
//! is O(N^2 · G / W) when candidates are attained only by late pairs.
//!
//! Invariant: when n is decided, g(0..n) and the mirror's copy of them are final, so each
//! pass sees exactly the split values of n.
//!
//! Paths (`--isa`, read once per `fill`): the whole fill is handed to
//! [`crate::kernels::xor_pairs::dispatch`] as a visitor (the candidate search's
//! [`fill_on_active`], with one kernel pass as its pair search), so it is compiled per path
//! with its kernel.

use super::method::candidate_search::{
    fill_on_active, mirror_bytes, one_pass_over_the_pairs, PairSearch,
};
use super::{Builder, Rules};
use crate::base::error::Result;
use crate::cost::Model;
use crate::kernels::xor_pairs::PairKernel;
use crate::kernels::Family;
use crate::registry::{Entry, Role};

/// The registry entry of `octal-vector`.
pub const ENTRY: Entry<dyn Builder<Rules>> = Entry {
    name: "octal-vector",
    description: "candidates 0, 1, 2, ... each searched among the split pairs with a vector xor-compare of g against its reversed copy; mex = first candidate not found",
    cost: "O(S(N) / W) lane steps for the mex passes (W = vector lanes) plus the early-stopping candidate searches",
    role: Role::Fast,
    model: Model {
        summary: "per split option at least 4 bytes read in order (the mex's full pass over g and its mirror), counted as stream bytes (a lower bound: the early stops are left out)",
        parallel: false,
        demand: one_pass_over_the_pairs,
    },
    kernels: &[Family::XorPairs],
    make: || Box::new(OctalVector),
};

/// The vector candidate search (see the module doc).
pub struct OctalVector;

impl Builder<Rules> for OctalVector {
    fn fill(&self, rules: &Rules, g: &mut [u16], from: usize) -> Result<()> {
        fill_on_active(rules, g, from, WholePass)
    }

    fn scratch_bytes(&self, _rules: &Rules, limit: usize, _threads: usize) -> u64 {
        mirror_bytes(limit)
    }
}

/// `octal-vector`'s search: one kernel pass over all the pairs on this thread.
#[derive(Clone, Copy)]
struct WholePass;

impl PairSearch for WholePass {
    #[inline(always)]
    fn some_pair<K: PairKernel>(self, lo: &[u16], hi: &[u16], x: u16) -> bool {
        K::first_match(lo, hi, x).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::isa;
    use crate::kernels::for_each_path_against_scalar;

    #[test]
    fn officers_and_dawsons_kayles_match_the_published_start_on_every_path() {
        let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        for (code, want) in [
            // OEIS A046695
            (
                "0.6",
                [0, 0, 1, 2, 0, 1, 2, 3, 1, 2, 3, 4, 0, 3, 4, 2, 1, 3, 2, 1],
            ),
            // Dawson's Kayles, OEIS A002187
            (
                "0.07",
                [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3],
            ),
        ] {
            let rules = Rules::parse(code).unwrap();
            let got = for_each_path_against_scalar(code, |path| {
                isa::with(path, || OctalVector.build(&rules, 19).unwrap()).unwrap()
            });
            assert_eq!(got.values(), want, "{code}");
        }
    }

    #[test]
    fn a_fill_from_the_middle_finishes_the_same_table() {
        let rules = Rules::parse("0.137").unwrap();
        let whole = OctalVector.build(&rules, 700).unwrap();
        let mut g = whole.values().to_vec();
        g[300..].fill(0);
        OctalVector.fill(&rules, &mut g, 300).unwrap();
        assert_eq!(g, whole.values());
    }
}
