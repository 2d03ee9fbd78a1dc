//! The octal games' stage: the Grundy value g(n) of one heap for every n <= N, for any
//! octal code ([`Rules`]), the harness's second workload.
//!
//! Every back-end implements [`Builder`] of [`Rules`] and returns the same [`Table`] the Nim Square
//! table stage returns (so `sequence`, the table files and the summaries serve both); the
//! registry [`BACKENDS`] lists them. The control `octal-naive` computes each mex straight
//! from the definition.
//!
//! Each back-end is a leaf file: it imports this module, the kernels, [`crate::base`],
//! [`crate::cost`] and [`crate::registry`], never another back-end.

pub mod block;
pub mod candidate_search;
pub mod census;
pub mod census_plan;
pub mod histogram;
pub mod naive;
pub mod period;
pub mod published;
pub mod rare_common;
pub mod rules;
pub mod sparse;
pub mod sparse_parallel;
pub mod vector;
pub mod vector_parallel;

pub use rules::Rules;

use crate::base::error::{Error, Result};
use crate::base::limit::Limit;
use crate::cost::Workload;
use crate::grundy::Table;
pub use crate::grundy::{Builder, Kept};
use crate::registry::Entry;

/// Every octal back-end, in the order `list` and `verify` show them.
pub static BACKENDS: &[Entry<dyn Builder<Rules>>] = &[
    naive::ENTRY,
    sparse::ENTRY,
    sparse_parallel::ENTRY,
    vector::ENTRY,
    vector_parallel::ENTRY,
    block::ENTRY,
];

crate::registry::stage!("octal", dyn Builder<Rules>, BACKENDS);

/// The octal workload: an octal game's table, built by the back-ends of [`BACKENDS`].
pub static WORKLOAD: crate::registry::workload::WorkloadKind<dyn Builder<Rules>> =
    crate::registry::workload::WorkloadKind {
        about: "the Grundy table of an octal game",
        heading: "octal-game back-ends (`octal` and `census`, --backend NAME; elsewhere --octal CODE or --workload octal:CODE):",
        syntax: "an octal code like 0.6, .137 or 4.07, or grundy",
        example: "0.6",
        parse: Rules::parse,
        default: default_backend,
        stage: &STAGE,
    };

/// The back-end used where none is named: `octal-block`, exact for every code, and on
/// Officers far ahead of the others (results/octal/octal.md, stop 37). Without a sparse split it
/// runs `octal-vector`'s candidate search itself; a split of the second kind (the position's
/// parity, as .127 needs, [`rare_common`]) it runs as one of the first (results/octal/octal.md,
/// stop 39). So it chooses by code itself, as the table goes (the rare/common passes while
/// a mask leaves the positions sparse, the candidate search otherwise): on the codes timed
/// at stop 39 it was the fastest back-end, or within 4% of `octal-vector` where no mask
/// leaves the positions sparse. `limit` is the N it is for (every N: it affords any).
pub fn default_backend(limit: usize) -> &'static Entry<dyn Builder<Rules>> {
    let _ = limit;
    &block::ENTRY
}

/// The stage's reference (`octal-sparse`: plain scalar loops, no kernel family): what the
/// checker's octal route builds, so that route shares no code with the fast back-ends.
pub fn reference() -> &'static Entry<dyn Builder<Rules>> {
    crate::registry::reference(BACKENDS)
}

/// The rules of an octal game as every workload states them (the definition of its options
/// is written here once; the back-ends search them faster, each its own way).
impl crate::grundy::Rulebook for Rules {
    fn label(&self) -> String {
        Rules::label(self).to_string()
    }

    fn describe(&self) -> String {
        format!("octal game {self}")
    }

    fn options(&self, g: &[u16], n: usize, into: &mut Vec<u16>) {
        single_heap_options(self, g, n, into);
        for &k in self.split() {
            if n >= k + 2 {
                let m = n - k;
                into.extend((1..=self.split_pairs(m)).map(|a| g[a] ^ g[m - a]));
            }
        }
    }

    fn option_steps(&self, limit: usize) -> u128 {
        Rules::option_steps(self, limit)
    }

    fn removals(&self, limit: usize) -> Vec<usize> {
        let mut all: Vec<usize> = self
            .whole()
            .iter()
            .chain(self.one())
            .chain(self.split())
            .copied()
            .filter(|&k| k <= limit)
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    fn cost_workload(&self, table: &Table, threads: usize) -> Workload {
        workload(self, table, threads)
    }

    fn histogram_bytes(&self, limit: usize) -> u64 {
        // a u64 per value, and values are u16
        8 * (u16::MAX as u64 + 1).min(limit as u64 + 1)
    }

    /// `octal ` and the code (`octal 0.6`): what the octal table files carry.
    fn file_label(&self) -> String {
        format!("octal {}", Rules::label(self))
    }
}

/// The error for a mex past `u16::MAX` at heap `n`.
pub fn value_overflow(rules: &Rules, n: usize) -> Error {
    Error::Overflow(format!(
        "octal game {rules}: g({n}) exceeds {} (values are stored as u16); use a smaller --limit",
        u16::MAX
    ))
}

/// The values of the options of heap `n` that leave at most one heap (the whole heap
/// removed, one heap of n - k left), into `into` (cleared first): what the back-ends that
/// search the split pairs separately look at first.
pub fn single_heap_options(rules: &Rules, g: &[u16], n: usize, into: &mut Vec<u16>) {
    into.clear();
    if rules.whole().contains(&n) {
        into.push(0);
    }
    for &k in rules.one() {
        if n > k {
            into.push(g[n - k]);
        }
    }
}

/// The shape of building `table` for `rules` on `threads` threads, for the cost models.
pub fn workload(rules: &Rules, table: &Table, threads: usize) -> Workload {
    let positions = (table.limit() + 1) as f64;
    let mean_value = table
        .histogram()
        .iter()
        .enumerate()
        .map(|(v, &c)| v as f64 * c as f64)
        .sum::<f64>()
        / positions;
    Workload {
        limit: table.limit(),
        steps: rules.option_steps(table.limit()) as f64,
        alphabet: table.alphabet(),
        mean_value,
        threads,
        rare_steps: rare_steps(rules, table.values()),
    }
}

/// The pair steps the rare/common method takes on the table `g` of `rules`, besides its
/// early-stopping sweeps. The heaps below [`rare_common::PREFIX`], and every heap when the
/// final histogram has no sparse split ([`rare_common::Histogram::best_mask`] of the kinds
/// the code admits, and the sparse rule), run
/// under no mask: per splitting digit k, the full scan of the n - k split pairs that proves
/// the mex missing. The heaps from the prefix on run under the mask the final histogram
/// chooses (the mask a run ends with when it keeps one): one step per splitting digit k and
/// rare position r < n - k (the enumeration of the common values). Sums, per rare r, the
/// heaps that meet it: O(R) per splitting digit, plus O(PREFIX).
pub fn rare_steps(rules: &Rules, g: &[u16]) -> f64 {
    let limit = g.len().saturating_sub(1);
    let (mask, count) = rare_common::Histogram::of(g).best_mask(rules.split_parity());
    let masked = g.len() > rare_common::PREFIX && count * rare_common::SPARSE_FRACTION <= limit;
    let unmasked_end = if masked { rare_common::PREFIX } else { g.len() };
    let rare = if masked {
        rare_common::rare_positions(g, mask)
    } else {
        Vec::new()
    };
    let mut steps = 0.0;
    for &k in rules.split() {
        for n in k + 2..unmasked_end {
            steps += rules.split_pairs(n - k) as f64;
        }
        // the masked heaps PREFIX <= n <= N with n - k > r
        for &r in &rare {
            let first = rare_common::PREFIX.max(k + r + 1);
            steps += (limit + 1).saturating_sub(first) as f64;
        }
    }
    steps
}

/// Checks `limit` (range, the back-end's affordable size, memory) and builds the table of
/// `rules` with the named back-end.
pub fn build(name: &str, rules: &Rules, limit: u64) -> Result<Table> {
    let (builder, limit) = prepare(name, rules, limit)?;
    builder.build(rules, limit)
}

/// The named back-end, made, once `limit` is checked (range, the back-end's affordable size,
/// the table and its scratch memory against what is available), with the checked limit:
/// what a caller that drives `fill` itself (the long-run driver) refuses before any work.
pub fn prepare(name: &str, rules: &Rules, limit: u64) -> Result<(Box<dyn Builder<Rules>>, usize)> {
    let entry = find(name)?;
    let limit = Limit::new(limit)?.get();
    let builder = (entry.make)();
    crate::grundy::check_affords(
        entry.name,
        builder.affordable_limit(),
        "--limit",
        limit,
        "choose a faster back-end",
    )?;
    let needed = crate::grundy::bytes_needed(&*builder, rules, limit, rayon::current_num_threads());
    crate::base::memory::check_fits(
        needed,
        crate::base::memory::available_bytes(),
        &format!(
            "the '{}' octal table of {rules} for N = {limit}",
            entry.name
        ),
    )?;
    Ok((builder, limit))
}

/// The control's values g(0..=limit) of `code`: what the octal back-ends' unit tests hold
/// their tables against.
#[cfg(test)]
pub(crate) fn control_values(code: &str, limit: usize) -> Vec<u16> {
    build("octal-naive", &Rules::parse(code).unwrap(), limit as u64)
        .unwrap()
        .values()
        .to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rare pair steps by direct loops: per heap n and splitting digit k, one step for
    /// each rare r < n - k (under the chosen mask, from heap 4096 on), else the split pairs
    /// of n - k.
    fn rare_steps_by_loops(rules: &Rules, g: &[u16]) -> f64 {
        let histogram = rare_common::Histogram::of(g);
        let (mask, count) = histogram.best_mask(rules.split_parity());
        let masked = g.len() > 4096 && 4 * count < g.len();
        let mut steps = 0u64;
        for n in 1..g.len() {
            for &k in rules.split() {
                if n < k + 2 {
                    continue;
                }
                let m = n - k;
                steps += if masked && n >= 4096 {
                    (1..m).filter(|&r| mask.rare(g[r] as u32, r)).count() as u64
                } else {
                    rules.split_pairs(m) as u64
                };
            }
        }
        steps as f64
    }

    #[test]
    fn rare_steps_sum_the_rare_positions_each_heap_meets() {
        // Officers has a sparse space (about 1.6% of the first 10^5 positions rare), Dawson's
        // chess none (every mask leaves about 40% rare), Grundy's game splits without removing.
        for (code, n) in [
            ("0.6", 20_000),
            ("0.6", 3000),
            ("0.137", 5000),
            ("grundy", 5000),
            ("4.07", 1500),
        ] {
            let rules = Rules::parse(code).unwrap();
            let t = build("octal-vector", &rules, n).unwrap();
            let want = rare_steps_by_loops(&rules, t.values());
            assert_eq!(rare_steps(&rules, t.values()), want, "{code}");
            assert!(want > 0.0, "{code}");
        }
        // Officers' split is sparse: at N = 20 000 (1 582 rare positions) far fewer steps than
        // the full search of every pair.
        let officers = Rules::parse("0.6").unwrap();
        let t = build("octal-vector", &officers, 20_000).unwrap();
        assert!(rare_steps(&officers, t.values()) * 3.0 < officers.option_steps(20_000) as f64);
        // A game without splits takes none.
        let t = build("octal-naive", &Rules::parse("0.333").unwrap(), 100).unwrap();
        assert_eq!(rare_steps(&Rules::parse("0.333").unwrap(), t.values()), 0.0);
    }
}
