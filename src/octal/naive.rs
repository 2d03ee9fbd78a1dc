//! `octal-naive`: the octal games' control, the mex straight from the definition.
//!
//! Algorithm: for each n in increasing order, collect into a fresh set the value of every
//! option of a heap of n tokens: 0 for removing the whole heap (bit 1 of digit n), g(n - k)
//! for leaving one heap (bit 2 of dk, n > k), g(a) xor g(n - k - a) for each split into two
//! non-empty heaps (bit 4 of dk; unequal parts only in Grundy's game); then take the least
//! value not in the set. No bit tricks: it exists to check the fast back-ends.
//!
//! Cost: O(N^2) set insertions for a game with a splitting digit (n/2 pairs per position
//! and digit), O(N) otherwise; it affords N up to [`AFFORDABLE`].
//!
//! Invariant: when n is decided, g(0..n) are final, so the set holds exactly the option
//! values of n.

use super::{Builder, Rules};
use crate::base::error::Result;
use crate::cost::{Demand, Model, Primitive, Workload};
use crate::registry::{Entry, Role};
use std::collections::BTreeSet;

/// The registry entry of `octal-naive`.
pub const ENTRY: Entry<dyn Builder<Rules>> = Entry {
    name: "octal-naive",
    description: "control: each mex straight from the definition, a fresh set of option values per position",
    cost: "O(N^2) set insertions with a splitting digit; affords N <= 2*10^4",
    role: Role::Control,
    model: Model {
        summary: "per option 1 set insertion (counted as 1 scattered store, a lower bound); per position g(n)+1 word ops for the mex",
        parallel: false,
        demand: one_insertion_an_option,
    },
    kernels: &[],
    make: || Box::new(OctalNaive),
};

/// The largest N the control is run at (N^2/4 set insertions per splitting digit).
pub const AFFORDABLE: usize = 20_000;

fn one_insertion_an_option(w: &Workload) -> Demand {
    Demand::default()
        .with(Primitive::Scatter, w.steps)
        .with(Primitive::OrScan, w.positions() * (w.mean_value + 1.0))
}

/// The control (see the module doc).
pub struct OctalNaive;

impl Builder<Rules> for OctalNaive {
    fn fill(&self, rules: &Rules, g: &mut [u16], from: usize) -> Result<()> {
        for n in from..g.len() {
            let mut seen = BTreeSet::new();
            rules.each_option(g, n, |v| {
                seen.insert(v as u32);
            });
            let mex = (0u32..).find(|v| !seen.contains(v)).unwrap();
            g[n] = u16::try_from(mex).map_err(|_| rules.value_overflow(n))?;
        }
        Ok(())
    }

    fn scratch_bytes(&self, _rules: &Rules, limit: usize, _threads: usize) -> u64 {
        // the set holds at most the options of one position, n/2 + 2 per digit
        64 * (limit as u64 / 2 + 2)
    }

    fn affordable_limit(&self) -> Option<usize> {
        Some(AFFORDABLE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(code: &str, limit: usize) -> Vec<u16> {
        OctalNaive
            .build(&Rules::parse(code).unwrap(), limit)
            .unwrap()
            .values()
            .to_vec()
    }

    #[test]
    fn dawsons_kayles_and_officers_match_the_published_start() {
        assert_eq!(
            values("0.07", 19),
            [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3]
        );
        assert_eq!(
            values("0.6", 19),
            [0, 0, 1, 2, 0, 1, 2, 3, 1, 2, 3, 4, 0, 3, 4, 2, 1, 3, 2, 1]
        );
    }

    #[test]
    fn subtract_one_two_or_three_is_n_mod_4() {
        let v = values("0.333", 200);
        assert!(v.iter().enumerate().all(|(n, &x)| x as usize == n % 4));
    }

    #[test]
    fn grundys_game_starts_as_published() {
        // OEIS A002188: 0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3, 0
        assert_eq!(
            values("grundy", 20),
            [0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3, 0]
        );
    }
}
