//! `auto`: the octal back-end chosen per code, from what the rules say and what the first
//! values show; the default wherever an octal back-end is chosen.
//!
//! Algorithm: the rules give the [`Kind`] (no splitting digit, one, several of one parity,
//! several of both parities: [`Rules::split`], [`Rules::split_parity`]). A code without a
//! splitting digit is decided at once. Any other is built by [`PREFIX_BACKEND`] up to
//! [`PREFIX`] values; there the best mask of the value histogram
//! ([`Histogram::best_mask`]) says whether a sparse space exists (at most 1/[`SPARSE_FRACTION`]
//! of the positions rare, the test the sparse back-ends take a mask by) and how many rare
//! positions it has. [`rule`] maps (kind, sparse) to a back-end name, one match arm each, and
//! the chosen back-end's [`Builder::fill_kept`] continues from g(PREFIX) on: the prefix is
//! never built twice. Without a sparse space the largest value of the prefix decides between
//! the candidate search (narrow values, [`NARROW_VALUES`]) and marking every pair. The chosen
//! back-end fills in chunks to powers of two, and once the values so far prove a period (the
//! theorem of Guy and Smith) the rest is copied ([`fill_until_proved`]): a periodic code
//! costs its fill up to the first power of two past the proof. A `--backend` by name
//! bypasses all of this and computes every value.
//!
//! Cost: the prefix (about PREFIX²/2 pair steps of a vector candidate search, a few
//! milliseconds), one histogram of the prefix and the chosen back-end's own cost beyond it.
//!
//! Invariant: the choice is a function of the rules and g(0..min(PREFIX, N + 1)) alone
//! ([`Choice::of`]), so the report re-derives it from the finished table, a resumed or
//! chunked run continues with the back-end it began with, and every table is the one the
//! control builds (each candidate is exact for every code).
//!
//! Its cost model is a lower bound of what it may choose: counted (`cargo bench --bench
//! counts -- --model`), it stores what the chosen back-end stores (`octal-block`'s two a
//! rare step on Officers), and next to nothing where it copies a proved period.

use super::method::period::Period;
#[cfg(test)]
use super::method::proved_copy::FIRST_CHECK;
use super::method::proved_copy::{fill_until_proved, replay, Proved};
use super::method::rare_common::{Histogram, SPARSE_FRACTION};
use super::{Builder, Kept, Rules};
use crate::base::error::Result;
use crate::base::wire::{Reader, Writer};
use crate::cost::{Demand, Model, Primitive, Workload};
use crate::kernels::Family;
use crate::registry::{Entry, Role};

/// The name `auto` goes by on the command line and in `list`.
pub const NAME: &str = "auto";

/// Values built before the choice: the sparse back-ends' own first mask choice waits as long
/// ([`super::method::rare_common::PREFIX`]); fewer values do not yet tell a rare class.
pub const PREFIX: usize = super::method::rare_common::PREFIX;

/// Builds the prefix: the candidate search needs no mask, and on 4 096 values a one-thread
/// vector search costs milliseconds (no thread start-up, no spinning worker).
pub const PREFIX_BACKEND: &str = "octal-vector";

/// (d) No splitting digit: no pair to search, every back-end costs O(N·moves), so the least
/// overhead wins: `octal-vector` ran the fewest instructions at 10^5 on .33, .123 and .0313
/// (callgrind, Xeon-167: 25.6·10^6 against 29.3·10^6 for `octal-block`, 36.3·10^6 for
/// `octal-sparse`; results/octal/block-several-splits.md).
pub const NO_SPLIT: &str = "octal-vector";

/// (a) One splitting digit and a sparse space: `octal-block`'s lanes and far pass on every
/// thread (Officers, results/octal/octal.md).
pub const ONE_SPLIT: &str = "octal-block";

/// (b) Several splitting digits of one parity and a sparse space: `octal-block`, whose sweeps
/// take turns between digits (.404 at 3·10^4: 0.65·10^9 instructions against 2.61·10^9 for
/// `octal-sparse`, results/octal/block-several-splits.md).
pub const SPLITS_ONE_PARITY: &str = "octal-block";

/// (b) Splitting digits of both parities and a sparse space (.354, .644, .44): `octal-block`
/// since its sweeps take turns (.354 at 3·10^4: 0.24·10^9 instructions against 0.70·10^9
/// for `octal-sparse`; .44 0.14·10^9 against 1.57·10^9; before the fix .354 took 28 times
/// more, results/octal/block-several-splits.md).
pub const SPLITS_BOTH_PARITIES: &str = "octal-block";

/// (c) No sparse space: every pair is read, so the back-end built for it, every split pair's
/// xor marked in a byte row.
pub const NOT_SPARSE: &str = "octal-pairs";

/// (c') No sparse space and values that stay narrow (the largest in the prefix below
/// [`NARROW_VALUES`]): the vector candidate search, whose attained candidates stop within a
/// few pairs, so a heap costs about its one full pass for the mex, n/lanes steps, against
/// `octal-pairs`' n stores (.07, .4, .17, .137: largest value 9 or less at 4096, `octal-vector`
/// 0.12 s at 10^5 against `octal-pairs`' 0.55 s on 2 threads; results/octal/auto-panel/).
pub const NOT_SPARSE_NARROW: &str = "octal-vector";

/// Values below this in the prefix are narrow (see [`NOT_SPARSE_NARROW`]): the panel's codes
/// without a sparse space had at most 9 (periodic, tiny values) or at least 130 (.04, .06,
/// .76, .346, whose values keep growing), so any bound between serves; 32 is a candidate
/// search of a few dozen candidates a heap.
pub const NARROW_VALUES: u16 = 32;

/// (c) while [`NOT_SPARSE`] is not registered: the vector candidate search on every thread,
/// the fastest of the others on .346 at 10^5 (issue 50).
pub const NOT_SPARSE_FALLBACK: &str = "octal-vector-parallel";

/// The registry entry of `auto`.
pub const ENTRY: Entry<dyn Builder<Rules>> = Entry {
    name: NAME,
    description: "chooses per code: the rules' splitting digits, then whether the first 4096 values have a sparse space (see `auto` in README)",
    cost: "the chosen back-end's, plus a prefix of 4096 values",
    role: Role::Fast,
    model: Model {
        summary: "per rare pair step 1 scattered byte store (a lower bound of every back-end it may choose on a sparse code)",
        parallel: true,
        demand: rare_pair_store,
    },
    kernels: &[Family::XorPairs],
    make: || Box::new(Auto),
};

/// The cost model: one scattered store per rare pair step ([`Workload::rare_steps`]).
pub fn rare_pair_store(w: &Workload) -> Demand {
    Demand::default().with(Primitive::Scatter, w.rare_steps)
}

/// What the rules say of a code's splits: what the choice reads first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// No move splits a heap (only digits 1, 2, 3): a subtraction game.
    NoSplit,
    /// One splitting digit (Officers 0.6, Dawson's Kayles 0.07).
    OneSplit,
    /// Several splitting digits, all of one parity (.404: 1 and 3).
    SplitsOneParity,
    /// Splitting digits of both parities (.354: 2 and 3; .44: 1 and 2).
    SplitsBothParities,
}

impl Kind {
    /// The kind of `rules`.
    pub fn of(rules: &Rules) -> Kind {
        match (rules.split().len(), rules.split_parity()) {
            (0, _) => Kind::NoSplit,
            (1, _) => Kind::OneSplit,
            (_, Some(_)) => Kind::SplitsOneParity,
            (_, None) => Kind::SplitsBothParities,
        }
    }

    /// In words, for the report.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::NoSplit => "no splitting digit",
            Kind::OneSplit => "one splitting digit",
            Kind::SplitsOneParity => "several splitting digits of one parity",
            Kind::SplitsBothParities => "splitting digits of both parities",
        }
    }
}

/// The back-end for a code of `kind` whose prefix has a sparse space (`sparse`) and values
/// below `largest` + 1, before the fallback of an unregistered name: the decision rules, one
/// arm each.
pub fn rule(kind: Kind, sparse: bool, largest: u16) -> &'static str {
    match (kind, sparse) {
        (Kind::NoSplit, _) => NO_SPLIT,
        (_, false) if largest < NARROW_VALUES => NOT_SPARSE_NARROW,
        (_, false) => NOT_SPARSE,
        (Kind::OneSplit, true) => ONE_SPLIT,
        (Kind::SplitsOneParity, true) => SPLITS_ONE_PARITY,
        (Kind::SplitsBothParities, true) => SPLITS_BOTH_PARITIES,
    }
}

/// A registered back-end by name: [`NOT_SPARSE`] falls back to [`NOT_SPARSE_FALLBACK`]
/// while it is not registered; every other name `auto` uses is (a test holds it).
pub fn entry(name: &str) -> &'static Entry<dyn Builder<Rules>> {
    super::find(name)
        .or_else(|e| {
            if name == NOT_SPARSE {
                super::find(NOT_SPARSE_FALLBACK)
            } else {
                Err(e)
            }
        })
        .unwrap_or_else(|e| panic!("auto names an unregistered back-end: {e}"))
}

/// What `auto` chose for one code and why (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The back-end that builds past the prefix ([`PREFIX_BACKEND`] for a table of at most
    /// [`PREFIX`] values, all of it prefix).
    pub backend: &'static str,
    /// What the rules say.
    pub kind: Kind,
    /// Values the choice read (0 for a code without a splitting digit, fewer than
    /// [`PREFIX`] when the table is shorter: then the prefix back-end built all of it).
    pub prefix: usize,
    /// The best mask of the prefix and its rare positions (counting 0), when it leaves the
    /// positions sparse.
    pub sparse: Option<(super::method::rare_common::Mask, usize)>,
    /// The table had at most [`PREFIX`] values, all built by [`PREFIX_BACKEND`].
    pub all_prefix: bool,
    /// Where the fill stopped computing because a period was proved, the rest copied
    /// ([`fill_until_proved`]); known only of a finished table ([`Choice::of_table`]).
    pub copied: Option<Proved>,
}

impl Choice {
    /// The choice for `rules` given g(0..g.len()), of which it reads the first [`PREFIX`].
    pub fn of(rules: &Rules, g: &[u16]) -> Choice {
        let kind = Kind::of(rules);
        if kind == Kind::NoSplit {
            return Choice {
                backend: entry(rule(kind, false, 0)).name,
                kind,
                prefix: 0,
                sparse: None,
                all_prefix: false,
                copied: None,
            };
        }
        let prefix = &g[..g.len().min(PREFIX)];
        let (mask, count) = Histogram::of(prefix).best_mask(rules.split_parity());
        let positions = prefix.len().saturating_sub(1);
        let sparse = (positions > 0 && count * SPARSE_FRACTION <= positions)
            .then(|| (mask, count + mask.rare(0, 0) as usize));
        // a table within the prefix is the prefix back-end's alone
        let all_prefix = g.len() <= PREFIX;
        let largest = prefix.iter().copied().max().unwrap_or(0);
        let backend = if all_prefix {
            PREFIX_BACKEND
        } else {
            entry(rule(kind, sparse.is_some(), largest)).name
        };
        Choice {
            backend,
            kind,
            prefix: prefix.len(),
            sparse,
            all_prefix,
            copied: None,
        }
    }

    /// The choice for the finished table g(0..=N) of `rules`, with where its fill stopped
    /// computing ([`replay`]: the fill's checks made again on the values they read).
    pub fn of_table(rules: &Rules, g: &[u16]) -> Choice {
        Choice {
            copied: replay(rules, g),
            ..Choice::of(rules, g)
        }
    }

    /// Why, in one line: `one splitting digit; sparse space in g(0..4096): mask 0x1ee, 96 rare`.
    pub fn reason(&self) -> String {
        let space = match (self.prefix, self.sparse) {
            (0, _) => String::new(),
            (p, Some((mask, rare))) => {
                format!("; sparse space in g(0..{p}): mask {mask}, {rare} rare")
            }
            (p, None) => format!("; no sparse space in g(0..{p})"),
        };
        let short = if self.all_prefix {
            format!(" (N + 1 <= {PREFIX}: the table is all prefix)")
        } else {
            String::new()
        };
        let copied = match self.copied {
            Some(p) => format!(
                "; period {} from n = {} proved on g(0..={}), the values past it copied",
                p.period.period, p.period.preperiod, p.computed_to
            ),
            None => String::new(),
        };
        format!("{}{space}{short}{copied}", self.kind.describe())
    }
}

/// The `auto` back-end (see the module doc).
#[derive(Debug, Clone, Copy, Default)]
pub struct Auto;

/// The version of `auto`'s saved state ([`Builder::save_kept`]).
const STATE_VERSION: u8 = 1;

/// What `auto` keeps between the chunks of a long run: the chosen back-end, what it keeps,
/// and the period once one is proved (the later chunks are then copies).
struct State {
    /// The chosen back-end's name: what the tests read to hold the fill to the report.
    #[cfg_attr(not(test), allow(dead_code))]
    name: &'static str,
    builder: Box<dyn Builder<Rules>>,
    kept: Kept,
    proved: Option<Proved>,
}

impl Builder<Rules> for Auto {
    fn fill(&self, rules: &Rules, g: &mut [u16], from: usize) -> Result<()> {
        self.fill_kept(rules, g, from, &mut None)
    }

    fn fill_kept(&self, rules: &Rules, g: &mut [u16], from: usize, kept: &mut Kept) -> Result<()> {
        let mut state = kept.take().and_then(|k| k.downcast::<State>().ok());
        let mut from = from;
        if state.is_none() {
            let splits = rules.splits();
            // the prefix, by the prefix back-end, until it is whole (a chunk may end before)
            let end = if splits { g.len().min(PREFIX) } else { 0 };
            if from < end {
                (entry(PREFIX_BACKEND).make)().fill(rules, &mut g[..end], from)?;
                from = end;
            }
            if splits && g.len() <= PREFIX {
                return Ok(());
            }
            // g.len() > PREFIX here (or no prefix): the choice of the finished table's report
            let chosen = entry(Choice::of(rules, g).backend);
            state = Some(Box::new(State {
                name: chosen.name,
                builder: (chosen.make)(),
                kept: None,
                proved: None,
            }));
        }
        let mut state = state.expect("chosen above");
        if from < g.len() {
            if let Some(proved) = state.proved {
                // a period proved in an earlier chunk: every value from here is a copy
                let p = proved.period.period;
                for m in from..g.len() {
                    g[m] = g[m - p];
                }
            } else {
                let State { builder, kept, .. } = &mut *state;
                state.proved = fill_until_proved(rules, g, from, |g, start| {
                    builder.fill_kept(rules, g, start, kept)
                })?;
            }
        }
        *kept = Some(state);
        Ok(())
    }

    fn save_kept(&self, kept: &Kept) -> Option<Vec<u8>> {
        let Some(k) = kept else {
            // nothing chosen yet: the next chunk chooses from the prefix
            return Some(Vec::new());
        };
        let state = k.downcast_ref::<State>()?;
        let chosen = state.builder.save_kept(&state.kept)?;
        let mut w = Writer::new();
        w.u8(STATE_VERSION).bytes(state.name.as_bytes());
        match state.proved {
            None => w.u8(0),
            Some(p) => w
                .u8(1)
                .u64(p.period.preperiod as u64)
                .u64(p.period.period as u64)
                .u64(p.period.proof.0 as u64)
                .u64(p.period.proof.1 as u64)
                .u64(p.computed_to as u64),
        };
        w.bytes(&chosen);
        Some(w.finish())
    }

    fn load_kept(&self, rules: &Rules, bytes: &[u8]) -> Result<Kept> {
        if bytes.is_empty() {
            return Ok(None);
        }
        let mut r = Reader::new(bytes, "auto state");
        if r.u8()? != STATE_VERSION {
            return Err(r.damaged());
        }
        let name = std::str::from_utf8(r.bytes()?).map_err(|_| r.damaged())?;
        let chosen = super::find(name)?;
        let proved = match r.u8()? {
            0 => None,
            1 => Some(Proved {
                period: Period {
                    preperiod: r.usize()?,
                    period: r.usize()?,
                    proof: (r.usize()?, r.usize()?),
                },
                computed_to: r.usize()?,
            }),
            _ => return Err(r.damaged()),
        };
        let builder = (chosen.make)();
        let kept = builder.load_kept(rules, r.bytes()?)?;
        r.end()?;
        Ok(Some(Box::new(State {
            name: chosen.name,
            builder,
            kept,
            proved,
        })))
    }

    fn scratch_bytes(&self, rules: &Rules, limit: usize, threads: usize) -> u64 {
        // the choice is not known before the prefix: the most any candidate needs
        [
            PREFIX_BACKEND,
            NO_SPLIT,
            ONE_SPLIT,
            SPLITS_ONE_PARITY,
            SPLITS_BOTH_PARITIES,
            NOT_SPARSE,
        ]
        .iter()
        .map(|&name| (entry(name).make)().scratch_bytes(rules, limit, threads))
        .max()
        .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::octal::{code_strategy, control_values};

    fn choice(code: &str, limit: usize) -> Choice {
        let rules = Rules::parse(code).unwrap();
        let table = crate::octal::build(NAME, &rules, limit as u64).unwrap();
        Choice::of(&rules, table.values())
    }

    /// The back-end the fill ran, read from what it keeps: the one the report names.
    fn ran(code: &str, limit: usize) -> (&'static str, Vec<u16>) {
        let rules = Rules::parse(code).unwrap();
        let mut g = vec![0u16; limit + 1];
        let mut kept: Kept = None;
        Auto.fill_kept(&rules, &mut g, 0, &mut kept).unwrap();
        let Ok(state) = kept.expect("auto keeps a state").downcast::<State>() else {
            panic!("auto keeps its own state")
        };
        (state.name, g)
    }

    #[test]
    fn the_fill_runs_the_back_end_the_report_names() {
        // each kind, and narrow and wide values without a sparse space; the fill once chose
        // from exactly PREFIX values, which read as a table all prefix, and so ran the prefix
        // back-end's candidate search past it on every code
        for (code, want) in [
            (".33", NO_SPLIT),
            ("0.6", ONE_SPLIT),
            (".354", SPLITS_BOTH_PARITIES),
            (".346", NOT_SPARSE),
            (".07", NOT_SPARSE_NARROW),
        ] {
            let (name, g) = ran(code, 6000);
            let rules = Rules::parse(code).unwrap();
            assert_eq!(name, want, "{code}");
            assert_eq!(Choice::of_table(&rules, &g).backend, want, "{code}");
        }
    }

    #[test]
    fn a_proved_period_is_copied_and_the_report_says_from_where() {
        // Dawson's Kayles (.07): period 34 from 53, proved within the first 4096 values;
        // Officers (.6): no period, every value computed
        for (code, copied) in [(".07", Some(FIRST_CHECK - 1)), ("0.6", None)] {
            let rules = Rules::parse(code).unwrap();
            let table = crate::octal::build(NAME, &rules, 30_000).unwrap();
            let reference = crate::octal::build("octal-sparse", &rules, 30_000).unwrap();
            assert_eq!(table.values(), reference.values(), "{code}");
            let choice = Choice::of_table(&rules, table.values());
            assert_eq!(choice.copied.map(|p| p.computed_to), copied, "{code}");
            assert_eq!(
                choice.reason().contains("copied"),
                copied.is_some(),
                "{code}"
            );
        }
    }

    #[test]
    fn auto_picks_the_expected_back_end_for_a_code_of_each_kind() {
        // .33: only digits 3, a subtraction game {1, 2}: no pair to search
        assert_eq!(choice(".33", 5000).kind, Kind::NoSplit);
        assert_eq!(choice(".33", 5000).backend, NO_SPLIT);
        // Officers 0.6: one splitting digit, a sparse space (mask 0x1ee's rare list)
        let officers = choice("0.6", 5000);
        assert_eq!(
            (officers.kind, officers.backend),
            (Kind::OneSplit, ONE_SPLIT)
        );
        assert!(officers.sparse.is_some());
        // .404: splits at 1 and 3, one parity (.44, at 1 and 2, has both)
        assert_eq!(
            Kind::of(&Rules::parse(".404").unwrap()),
            Kind::SplitsOneParity
        );
        assert_eq!(
            Kind::of(&Rules::parse(".44").unwrap()),
            Kind::SplitsBothParities
        );
        assert_eq!(rule(Kind::SplitsOneParity, true, 100), SPLITS_ONE_PARITY);
        // .346: no mask leaves its positions sparse (issue 50): the back-end for all pairs,
        // or its stand-in while that is not registered
        let dense = choice(".346", 5000);
        assert!(dense.sparse.is_none(), "{dense:?}");
        assert_eq!(dense.backend, entry(NOT_SPARSE).name);
        assert!([NOT_SPARSE, NOT_SPARSE_FALLBACK].contains(&dense.backend));
        // a table within the prefix is the prefix back-end's, whatever the kind
        let short = choice("0.6", 1000);
        assert!(short.all_prefix && short.backend == PREFIX_BACKEND);
    }

    /// `octal .354 --limit 2e6` through the default takes no longer than with `octal-sparse`:
    /// .354 has splitting digits of both parities and a sparse space (mask 0x3f, 132 rare),
    /// so auto takes SPLITS_BOTH_PARITIES, which must be a back-end no slower than
    /// `octal-sparse` there: `octal-sparse` itself, `octal-sparse-parallel` (the same work
    /// on two threads), or `octal-block` since its sweeps take turns (0.24·10^9
    /// instructions against `octal-sparse`'s 0.70·10^9 at 3·10^4 on Xeon-167;
    /// results/octal/block-several-splits.md). Before that fix `octal-block` took 28 times
    /// the instructions there: the test guards the rule, the results file the fix.
    #[test]
    fn auto_on_354_is_no_slower_a_choice_than_octal_sparse() {
        let c = choice(".354", 5000);
        assert_eq!(c.kind, Kind::SplitsBothParities);
        assert_eq!(c.sparse.map(|(m, r)| (m.bits, r)), Some((0x3f, 132)));
        assert_eq!(c.backend, SPLITS_BOTH_PARITIES);
        assert!(["octal-sparse", "octal-sparse-parallel", "octal-block"].contains(&c.backend));
    }

    #[test]
    fn every_name_auto_uses_is_registered_but_the_one_with_a_stand_in() {
        for name in [
            PREFIX_BACKEND,
            NO_SPLIT,
            ONE_SPLIT,
            SPLITS_ONE_PARITY,
            SPLITS_BOTH_PARITIES,
            NOT_SPARSE_FALLBACK,
        ] {
            let e = crate::octal::find(name).unwrap();
            assert!(!e.is_control() && e.name != NAME, "{name}");
        }
        assert!(entry(NOT_SPARSE).name != NAME);
    }

    #[test]
    fn chunks_across_the_prefix_give_the_controls_table() {
        // chunk ends before, at and after the prefix: the prefix is kept, the choice made once
        for code in ["0.6", ".354", ".33", ".346", "4.07"] {
            let rules = Rules::parse(code).unwrap();
            let want = control_values(code, 6000);
            for step in [1000, PREFIX, PREFIX + 1, 3001, 6001] {
                let mut g = vec![0u16; 6001];
                let mut kept: Kept = None;
                let mut from = 0;
                while from < g.len() {
                    let end = (from + step).min(g.len());
                    Auto.fill_kept(&rules, &mut g[..end], from, &mut kept)
                        .unwrap();
                    from = end;
                }
                assert_eq!(g, want, "{code} in chunks of {step}");
            }
            // resumed past the prefix with nothing kept (a checkpoint): chosen again from it
            let mut g = want.clone();
            g[5000..].fill(0);
            Auto.fill(&rules, &mut g, 5000).unwrap();
            assert_eq!(g, want, "{code} resumed at 5000");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        #[test]
        fn random_codes_give_the_controls_table(code in code_strategy(), limit in 4000usize..4300) {
            // around the prefix boundary (4096), where the choice is made
            let rules = Rules::parse(&code).unwrap();
            let got = crate::octal::build(NAME, &rules, limit as u64).unwrap();
            proptest::prop_assert_eq!(got.values(), &control_values(&code, limit)[..], "{}", code);
        }
    }
}
