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

pub mod auto;
pub mod block;
pub mod method;
pub mod naive;
pub mod pairs;
pub mod plan;
pub mod rules;
pub mod sparse;
pub mod sparse_parallel;
pub mod summary;
pub mod vector;
pub mod vector_parallel;

use method::rare_common;
pub use plan::OctalPlan;
pub use rules::Rules;

use crate::base::error::Result;
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
    pairs::ENTRY,
    auto::ENTRY,
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
        // the octal default affords every N, so N does not choose it
        default: |_limit| default_backend(),
        stage: &STAGE,
    };

/// The back-end used where none is named: [`auto`], which chooses per code from the rules
/// and the first values (no back-end is fastest on every code: issue 50). It affords every
/// N, so no N chooses another.
pub fn default_backend() -> &'static Entry<dyn Builder<Rules>> {
    &auto::ENTRY
}

/// The stage's reference (`octal-sparse`: plain scalar loops, no kernel family): what the
/// checker's octal route builds, so that route shares no code with the fast back-ends.
pub fn reference() -> &'static Entry<dyn Builder<Rules>> {
    crate::registry::reference(BACKENDS)
}

/// The rules of an octal game as every workload states them: each method reads the one
/// statement in [`rules`] ([`Rules::options`], [`Rules::removals`], [`Rules::option_steps`]).
impl crate::grundy::Rulebook for Rules {
    fn label(&self) -> String {
        Rules::label(self).to_string()
    }

    fn describe(&self) -> String {
        format!("octal game {self}")
    }

    fn options(&self, g: &[u16], n: usize, into: &mut Vec<u16>) {
        Rules::options(self, g, n, into);
    }

    fn option_steps(&self, limit: usize) -> u128 {
        Rules::option_steps(self, limit)
    }

    fn removals(&self, limit: usize) -> Vec<usize> {
        Rules::removals(self, limit)
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

/// The shape of building `table` for `rules` on `threads` threads, for the cost models: the
/// option steps of the definition and the pair steps of the rare/common method
/// ([`rare_common::rare_steps`]).
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
        rare_steps: rare_common::rare_steps(rules, table.values()),
    }
}

/// Checks `limit` (range, the back-end's affordable size, memory: an [`OctalPlan`]) and
/// builds the table of `rules` with the named back-end.
pub fn build(name: &str, rules: &Rules, limit: u64) -> Result<Table> {
    OctalPlan::named(rules.clone(), Some(name), limit)?.build()
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

/// Random codes: d0 0 or 4, then one to four octal digits: what the octal back-ends' property
/// tests draw.
#[cfg(test)]
pub(crate) fn code_strategy() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    (
        prop_oneof![Just(0u8), Just(4u8)],
        prop::collection::vec(0u8..8, 1..=4),
    )
        .prop_map(|(d0, digits)| {
            let after: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
            format!("{d0}.{after}")
        })
}
