//! Stage 2, the count: the number of sorted heap tuples whose Grundy values xor to zero.
//!
//! Every back-end implements [`Counter`] on a finished [`Table`]; the registry [`BACKENDS`]
//! lists them. The naive control `brute` ([`Brute`]) enumerates the tuples themselves; the
//! checker ([`crate::instruments::check`]) compares every back-end with it where it affords the input.
//!
//! Counts are `u128`. For three heaps the count never exceeds C(N+3, 3) < 2^94 for
//! N < 2^32, so `u128` cannot overflow (a `u64` would once N passes about 3.8 million).
//! Other numbers of heaps are computed exactly in big integers and refused with
//! [`crate::base::error::Error::Overflow`] when the answer does not fit `u128`.

pub mod brute;
pub mod burnside;
pub mod cycle_index;
pub mod rayon_sweep;
pub mod sweep;
pub mod wht;

pub use brute::{affordable as brute_multisets_affordable, Brute};
pub use burnside::{burnside_count_big, Burnside};
pub use cycle_index::{check_heaps, MAX_HEAPS};
pub use rayon_sweep::RayonSweep;
pub use sweep::Sweep;
pub use wht::{wht_count_big, Wht};

use crate::base::error::{Error, Result};
use crate::cost::{Demand, Primitive, Workload};
use crate::kernels::xor_dot::{self, xor_dot_scalar, DotKernel, WithXorDot, XorSweep};
use crate::registry::{self, Entry};
use crate::table::Table;
use std::ops::RangeInclusive;

/// A count back-end: turns a [`Table`] into the number of losing positions
/// 0 <= a_1 <= … <= a_K <= N (K = `heaps`) whose values xor to zero.
pub trait Counter: Send + Sync {
    /// The count. The caller asks only for a K in [`Counter::heaps`]; an answer that does not
    /// fit `u128` is [`Error::Overflow`].
    fn count(&self, table: &Table, heaps: usize) -> Result<u128>;

    /// The count as an exact big integer, for the (N, K) whose answer passes `u128` (up to
    /// C(N+16, 16), about 2^468). Back-ends whose arithmetic is big-integer already (`burnside`,
    /// `wht`) override it; the others, whose sums are `u128`, pass on [`Counter::count`]'s
    /// answer or its [`Error::Overflow`].
    fn count_exact(&self, table: &Table, heaps: usize) -> Result<num_bigint::BigUint> {
        self.count(table, heaps).map(num_bigint::BigUint::from)
    }

    /// The numbers of heaps K the back-end can count.
    fn heaps(&self) -> RangeInclusive<usize>;

    /// True when the back-end affords (N, K) (the brute-force control is polynomial of
    /// degree K); callers skip it otherwise, saying so.
    fn affordable(&self, _limit: usize, _heaps: usize) -> bool {
        true
    }

    /// Bytes the back-end allocates beside the table for an alphabet of G values on
    /// `threads` threads (an upper estimate; the count stage is O(G), small beside a table).
    fn scratch_bytes(&self, alphabet: usize, threads: usize) -> u64;
}

/// Every count back-end (each file declares its own entry), in the order `list`, `verify`
/// and the benches show them.
pub static BACKENDS: &[Entry<dyn Counter>] = &[
    brute::ENTRY,
    sweep::ENTRY,
    rayon_sweep::ENTRY,
    burnside::ENTRY,
    wht::ENTRY,
];

crate::registry::stage!("count", dyn Counter, BACKENDS, reference);

/// The sweep's cost model, shared by `sweep` and `rayon-sweep`: G multiply-adds per middle
/// heap b (G rounded up to the vector block of 4), and the table's values read once (2 bytes
/// a position).
fn sweep_demand(w: &Workload) -> Demand {
    let len = w.alphabet.max(1).next_multiple_of(4) as f64;
    Demand::default()
        .with(Primitive::MulAdd, w.positions() * len)
        .with(Primitive::Stream, 2.0 * w.positions())
}

/// Ok when the back-end of `entry` counts K = `heaps` heaps; otherwise the refusal, naming
/// the back-ends that do.
pub fn check_supports(entry: &Entry<dyn Counter>, heaps: usize) -> Result<()> {
    let counter = (entry.make)();
    if counter.heaps().contains(&heaps) {
        return Ok(());
    }
    let others: Vec<&str> = registry::fast(BACKENDS)
        .filter(|e| (e.make)().heaps().contains(&heaps))
        .map(|e| e.name)
        .collect();
    let range = counter.heaps();
    Err(Error::Unsupported {
        backend: entry.name,
        what: format!(
            "{heaps} heaps (it counts {} heaps only); use --count {}",
            if range.start() == range.end() {
                range.start().to_string()
            } else {
                format!("{} to {}", range.start(), range.end())
            },
            others.join(" or --count ")
        ),
    })
}

/// The middle-heap sweep over the middle heaps `values` (consecutive positions b), starting
/// from `prefix` (the value counts of the positions before the first b) and `suffix` (the
/// value counts of the positions from the first b to N, padded with zeros to a power of two
/// at least the alphabet size, so `x ^ g(b)` never leaves it).
///
/// Invariant: when b is counted, g(b) is already in `prefix` and still in `suffix`; it is
/// added to the first before and removed from the second after. Each b's term is at most
/// (b+1)(N-b+1) < 2^63 for N < 2^32, so it is summed in `u64` and the total in `u128`.
///
/// The inner sum runs four or eight values at a time ([`XorSweep`], the xor-dot kernel, on the
/// vector path of `--isa`, chosen once around the loop) whenever every count fits `u32`
/// (always, unless N + 1 = 2^32 positions share one value); otherwise the scalar loop below,
/// which is also the vector path's reference.
pub(crate) fn sweep_range(values: &[u16], prefix: &mut [u64], suffix: &mut [u64]) -> u128 {
    debug_assert!(suffix.len().is_power_of_two() && suffix.len() >= prefix.len());
    if XorSweep::fits(prefix, suffix, values.len()) {
        /// The sweep's loop, run by the kernel's dispatch on one path.
        struct Loop<'a> {
            tables: &'a mut XorSweep,
            values: &'a [u16],
        }
        impl WithXorDot for Loop<'_> {
            type Out = u128;
            #[inline(always)]
            fn run<K: DotKernel>(self) -> u128 {
                let mut total = 0u128;
                for &gb in self.values {
                    let gb = gb as usize;
                    self.tables.add_prefix(gb);
                    total += self.tables.dot_with::<K>(gb) as u128;
                    self.tables.remove_suffix(gb);
                }
                total
            }
        }
        let mut tables = XorSweep::new(prefix, suffix);
        let path = tables.path();
        let total = xor_dot::dispatch(
            path,
            Loop {
                tables: &mut tables,
                values,
            },
        );
        tables.store(prefix, suffix);
        return total;
    }
    let mut total = 0u128;
    for &gb in values {
        let gb = gb as usize;
        prefix[gb] += 1;
        total += xor_dot_scalar(prefix, suffix, gb) as u128;
        suffix[gb] -= 1;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sweep's state for the middle heaps `values`: the value counts of the positions
    /// before them (`before`, plus `dp` more zeros) and of them and the positions after
    /// (`after` plus `values`' own, plus `ds` more zeros), the suffix padded to a power of two.
    fn state(
        values: &[u16],
        before: &[u64],
        after: &[u64],
        dp: u64,
        ds: u64,
    ) -> (Vec<u64>, Vec<u64>) {
        let mut prefix = before.to_vec();
        let mut suffix = after.to_vec();
        suffix.resize(after.len().next_power_of_two(), 0);
        for &v in values {
            suffix[v as usize] += 1;
        }
        prefix[0] += dp;
        suffix[0] += ds;
        (prefix, suffix)
    }

    /// The count's fallback at N + 1 = 2^32 positions, the largest table (N = MAX_LIMIT): once
    /// a value's count passes u32 the sweep leaves the u32 xor-dot kernels for its u64 loop.
    /// A synthetic histogram puts 2^32 - 12 zeros before 12 swept middle heaps (N + 1 = 2^32,
    /// so no other value has room). The expected total comes from the same heaps without the
    /// zeros (the vector path) by expanding the bilinear sum: with Dp more zeros in P each
    /// middle heap b adds Dp·S_b(g(b)) (the x = 0 term).
    #[test]
    fn the_sweep_falls_back_to_u64_counts_at_n_2_to_the_32() {
        let values: Vec<u16> = vec![0, 3, 1, 2, 3, 0, 5, 4, 0, 7, 6, 1];
        let (before, after) = ([0u64; 8], [0u64; 8]);
        let (dp, ds) = ((1u64 << 32) - values.len() as u64, 0u64);
        assert_eq!(dp + values.len() as u64, crate::table::MAX_LIMIT + 1);

        let (mut p0, mut s0) = state(&values, &before, &after, 0, 0);
        assert!(XorSweep::fits(&p0, &s0, values.len()));
        // The linear terms, from the small state step by step.
        let (mut p, mut s) = (p0.clone(), s0.clone());
        let (mut s_at_g, mut p_at_g, mut zeros) = (0u128, 0u128, 0u128);
        for &v in &values {
            let v = v as usize;
            p[v] += 1;
            s_at_g += s[v] as u128;
            p_at_g += p[v] as u128;
            zeros += (v == 0) as u128;
            s[v] -= 1;
        }
        let small = sweep_range(&values, &mut p0, &mut s0);
        let want =
            small + dp as u128 * s_at_g + ds as u128 * p_at_g + dp as u128 * ds as u128 * zeros;

        let (mut pb, mut sb) = state(&values, &before, &after, dp, ds);
        assert!(
            !XorSweep::fits(&pb, &sb, values.len()),
            "the fallback must run"
        );
        assert_eq!(sweep_range(&values, &mut pb, &mut sb), want);
        // The tables end as the sweep's invariant says: every value moved from S to P.
        let (pe, se) = state(&[], &before, &after, dp, ds);
        let mut pe = pe;
        for &v in &values {
            pe[v as usize] += 1;
        }
        assert_eq!((pb, sb), (pe, se));
    }
}
