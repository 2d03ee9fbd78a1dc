//! The roofline: how far each back-end is from what this machine can do.
//!
//! Hardware counters are not available inside the development VMs (no PMU), so the bound a
//! back-end's time is held against comes from measuring the primitives it is made of
//! ([`primitives`]) in the same process, on the same data sizes and on as many threads as
//! the back-end uses, and from a cost model declared beside each back-end in its registry
//! entry ([`crate::registry::Entry::model`]): how many of each [`Primitive`] one run does.
//!
//! The bound, roofline style: each primitive loads one [`Resource`]; the time a resource
//! needs is the sum over its primitives of (count × measured seconds per op), and the bound
//! is the LARGEST of these times, the resource that takes it the *binding* one. A back-end
//! can overlap work on different resources but not go faster than its busiest resource, so
//! when the model counts only work the algorithm cannot avoid, bound ≤ measured and
//! efficiency = bound / measured ≤ 1 (up to measurement noise, and as far as the
//! microbenchmark of a primitive is as fast as the back-end's own use of it).
//!
//! ```
//! use nimsquare::instruments::roofline::{bound, Demand, Primitive, Rates, Resource};
//! let demand = Demand::default().with(Primitive::Scatter, 1000.0).with(Primitive::OrScan, 10.0);
//! let rates = Rates::new(1, [0.5, 2.0, 0.05, 0.3, 0.25]); // ns per op, Primitive::ALL order
//! let b = bound(&demand, &rates);
//! assert_eq!(b.resource, Resource::Store); // 1000 x 0.5 ns beats 10 x 0.3 ns
//! assert!((b.seconds - 500e-9).abs() < 1e-15);
//! ```

pub mod primitives;
pub mod render;
pub mod rounds;
pub mod study;

use crate::base::moves::Moves;
pub use crate::cost::{Demand, Model, Primitive, Resource, Workload};
use crate::run::workload::Subject;
use crate::table::Table;
pub use rounds::{Round, Spread, Summary};

/// Measured rates of the primitives on `threads` threads at once: wall nanoseconds per op of
/// the whole machine (T copies ran concurrently; ops are summed over the copies).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rates {
    /// How many copies ran at once.
    pub threads: usize,
    /// Nanoseconds per op, in [`Primitive::ALL`] order (per byte for [`Primitive::Stream`]).
    pub ns_per_op: [f64; 5],
}

impl Rates {
    /// Rates measured on `threads` threads.
    pub fn new(threads: usize, ns_per_op: [f64; 5]) -> Rates {
        Rates { threads, ns_per_op }
    }

    /// Nanoseconds per op of `p`.
    pub fn ns(&self, p: Primitive) -> f64 {
        self.ns_per_op[p.index()]
    }
}

/// The roofline bound of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// The largest of [`Bound::per_resource`].
    pub seconds: f64,
    /// The resource that takes it (the first in [`Resource::ALL`] order on a tie).
    pub resource: Resource,
    /// Seconds each resource needs, in [`Resource::ALL`] order.
    pub per_resource: [f64; 4],
}

/// The bound of `demand` at `rates`: per resource the sum of count × seconds per op of its
/// primitives, and the largest of those, naming its resource. A primitive `demand` does not
/// use adds nothing, whatever its rate (NaN when it was not measured, [`primitives::measure_only`]).
pub fn bound(demand: &Demand, rates: &Rates) -> Bound {
    let mut per_resource = [0.0f64; 4];
    for p in Primitive::ALL.into_iter().filter(|&p| demand.of(p) != 0.0) {
        let r = Resource::ALL
            .iter()
            .position(|&r| r == p.resource())
            .expect("every resource is listed");
        per_resource[r] += demand.of(p) * rates.ns(p) * 1e-9;
    }
    let mut best = 0;
    for (i, &s) in per_resource.iter().enumerate() {
        if s > per_resource[best] {
            best = i;
        }
    }
    Bound {
        seconds: per_resource[best],
        resource: Resource::ALL[best],
        per_resource,
    }
}

/// The threads a back-end with `model` runs on when the pool has `pool` threads: all of
/// them for a parallel back-end, one otherwise. Its primitives are measured on as many.
pub fn threads_for(model: &Model, pool: usize) -> usize {
    if model.parallel {
        pool.max(1)
    } else {
        1
    }
}

/// Primitive rates for one [`primitives::Shape`], measured per thread count on demand and
/// measured again once older than [`RateBook::MAX_AGE`], so a back-end is held against rates
/// taken in the same minute as its own timing.
pub struct RateBook {
    shape: primitives::Shape,
    budget: primitives::Budget,
    kept: Vec<(std::time::Instant, Rates)>,
}

impl RateBook {
    /// How long measured rates are used before they are measured again.
    pub const MAX_AGE: std::time::Duration = std::time::Duration::from_secs(60);

    /// A book for `shape`, timing each primitive within `budget`.
    pub fn new(shape: primitives::Shape, budget: primitives::Budget) -> RateBook {
        RateBook {
            shape,
            budget,
            kept: Vec::new(),
        }
    }

    /// The shape the rates are measured for.
    pub fn shape(&self) -> &primitives::Shape {
        &self.shape
    }

    /// The rates on `threads` threads, measured now unless measured less than a minute ago.
    pub fn rates(&mut self, threads: usize) -> Rates {
        self.kept
            .retain(|(at, r)| r.threads != threads || at.elapsed() < Self::MAX_AGE);
        if let Some((_, r)) = self.kept.iter().find(|(_, r)| r.threads == threads) {
            return *r;
        }
        let r = primitives::measure(&self.shape, threads, self.budget);
        self.kept.push((std::time::Instant::now(), r));
        r
    }

    /// Every rate measured so far (the latest per thread count), fewest threads first.
    pub fn measured(&self) -> Vec<Rates> {
        let mut all: Vec<Rates> = self.kept.iter().map(|(_, r)| *r).collect();
        all.sort_by_key(|r| r.threads);
        all
    }
}

impl primitives::Shape {
    /// The shape of `table`, built for `moves`.
    pub fn of_table(moves: &Moves, table: &Table) -> primitives::Shape {
        primitives::Shape {
            limit: table.limit(),
            alphabet: table.alphabet(),
            moves: moves.up_to(table.limit()),
        }
    }

    /// The shape of `table`, built for `game`: its removal sizes are the offsets the span
    /// primitive reads ([`Subject::removals`]; a subtraction game's moves, as [`Self::of_table`]).
    pub fn of_game(game: &Subject, table: &Table) -> primitives::Shape {
        primitives::Shape {
            limit: table.limit(),
            alphabet: table.alphabet(),
            moves: game.removals(table.limit()),
        }
    }
}

/// Efficiency = bound / measured: 1 when the back-end runs at the speed of its binding
/// resource, smaller the further it is; NaN when the measured time is not positive.
pub fn efficiency(bound_seconds: f64, measured_seconds: f64) -> f64 {
    if measured_seconds > 0.0 {
        bound_seconds / measured_seconds
    } else {
        f64::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_primitive_has_a_distinct_name_and_the_all_order_is_the_index() {
        for (i, p) in Primitive::ALL.iter().enumerate() {
            assert_eq!(p.index(), i);
        }
        let names: std::collections::HashSet<_> = Primitive::ALL.iter().map(|p| p.name()).collect();
        assert_eq!(names.len(), 5);
    }

    #[test]
    fn demand_adds_up_per_primitive() {
        let d = Demand::default()
            .with(Primitive::Span, 2.0)
            .with(Primitive::Span, 3.0)
            .with(Primitive::MulAdd, 1.0);
        assert_eq!(d.of(Primitive::Span), 5.0);
        assert_eq!(d.of(Primitive::MulAdd), 1.0);
        assert_eq!(d.of(Primitive::Scatter), 0.0);
    }

    #[test]
    fn workload_of_a_table_has_its_mean_and_alphabet() {
        // g = 0 1 0 1 2 for 1,3,4 at N = 4: mean 4/5, G = 3, S(4) = 4 + 2 + 1.
        let moves = Moves::parse("1,3,4").unwrap();
        let t = Table::from_values(vec![0, 1, 0, 1, 2]);
        let w = t.workload(&moves, 2);
        assert_eq!((w.limit, w.alphabet, w.threads), (4, 3, 2));
        assert_eq!(w.steps, 7.0);
        assert!((w.mean_value - 0.8).abs() < 1e-12);
    }

    #[test]
    fn a_primitive_not_demanded_adds_nothing_even_unmeasured() {
        let d = Demand::default().with(Primitive::Scatter, 10.0);
        let rates = Rates::new(1, [2.0, f64::NAN, f64::NAN, f64::NAN, f64::NAN]);
        let b = bound(&d, &rates);
        assert_eq!(b.per_resource, [20e-9, 0.0, 0.0, 0.0]);
        assert_eq!(b.resource, Resource::Store);
        // A demanded primitive that was not measured is no bound at all.
        assert!(bound(&d.with(Primitive::Span, 1.0), &rates).per_resource[1].is_nan());
    }

    #[test]
    fn parallel_models_take_the_pool_and_others_one_thread() {
        let parallel = Model {
            parallel: true,
            ..Model::NOT_MODELLED
        };
        assert_eq!(threads_for(&parallel, 4), 4);
        assert_eq!(threads_for(&Model::NOT_MODELLED, 4), 1);
    }

    #[test]
    fn not_modelled_counts_nothing() {
        let w = Workload {
            limit: 100,
            steps: 1000.0,
            alphabet: 10,
            mean_value: 3.0,
            threads: 1,
            rare_steps: 0.0,
        };
        assert!(Model::NOT_MODELLED.counts_nothing(&w));
        assert!(efficiency(1.0, 0.0).is_nan());
    }
}
