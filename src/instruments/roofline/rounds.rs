//! Rounds: a back-end's time and its bound taken in pairs, so the bound carries the noise
//! of the minute it was measured in, and what is reported is a median with its range.
//!
//! A single bound measured once is as noisy as the run it judges (two readings of the same
//! primitive a minute apart differed by 40% on a shared EPYC, issue 26): `roofline` times a
//! back-end and then its primitives, R times in alternation, prices the model with each
//! round's own rates, and takes efficiency per round (bound of the round over the time of
//! the round). [`Summary::of`] turns the rounds into medians and ranges; it is arithmetic
//! only, O(R log R).

use super::{efficiency, Bound, Resource};
use crate::base::stats::median;

/// The median of a sample and its range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    /// The median, smallest and largest of `xs` (NaN for all three when `xs` is empty or
    /// holds a NaN, so a missing figure never passes for a measured one).
    pub fn of(xs: &[f64]) -> Spread {
        if xs.is_empty() || xs.iter().any(|x| x.is_nan()) {
            return Spread {
                median: f64::NAN,
                min: f64::NAN,
                max: f64::NAN,
            };
        }
        Spread {
            median: median(xs),
            min: xs.iter().copied().fold(f64::INFINITY, f64::min),
            max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }

    /// The spread scaled by `factor` (seconds to ns per unit, say); a positive factor keeps
    /// the order.
    pub fn scaled(self, factor: f64) -> Spread {
        Spread {
            median: self.median * factor,
            min: self.min * factor,
            max: self.max * factor,
        }
    }

    /// The largest distance from the median to an end of the range, relative to the median
    /// (0.1 means every round within ±10% of the median).
    pub fn relative_half_range(&self) -> f64 {
        (self.max - self.median).max(self.median - self.min) / self.median
    }
}

/// One round: the back-end's measured seconds and the bound of the primitives measured next
/// to it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Round {
    pub seconds: f64,
    pub bound: Bound,
}

/// What the rounds of one back-end say.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Measured seconds over the rounds.
    pub seconds: Spread,
    /// Bound seconds over the rounds.
    pub bound: Spread,
    /// Efficiency over the rounds, each round's bound over the same round's time (not the
    /// median bound over the median time).
    pub efficiency: Spread,
    /// Median seconds each resource needs, in [`Resource::ALL`] order.
    pub per_resource: [f64; 4],
    /// The resource with the largest median time (the first in [`Resource::ALL`] on a tie):
    /// the one that binds in a typical round.
    pub resource: Resource,
    /// Each round's efficiency, in order.
    pub efficiency_per_round: Vec<f64>,
}

impl Summary {
    /// The summary of `rounds` (at least one).
    pub fn of(rounds: &[Round]) -> Summary {
        assert!(!rounds.is_empty(), "at least one round");
        let seconds: Vec<f64> = rounds.iter().map(|r| r.seconds).collect();
        let bounds: Vec<f64> = rounds.iter().map(|r| r.bound.seconds).collect();
        let efficiency_per_round: Vec<f64> = rounds
            .iter()
            .map(|r| efficiency(r.bound.seconds, r.seconds))
            .collect();
        let mut per_resource = [0.0f64; 4];
        for (i, slot) in per_resource.iter_mut().enumerate() {
            let xs: Vec<f64> = rounds.iter().map(|r| r.bound.per_resource[i]).collect();
            *slot = median(&xs);
        }
        let mut best = 0;
        for (i, &s) in per_resource.iter().enumerate() {
            if s > per_resource[best] {
                best = i;
            }
        }
        Summary {
            seconds: Spread::of(&seconds),
            bound: Spread::of(&bounds),
            efficiency: Spread::of(&efficiency_per_round),
            per_resource,
            resource: Resource::ALL[best],
            efficiency_per_round,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(seconds: f64, per_resource: [f64; 4]) -> Round {
        let mut best = 0;
        for i in 0..4 {
            if per_resource[i] > per_resource[best] {
                best = i;
            }
        }
        Round {
            seconds,
            bound: Bound {
                seconds: per_resource[best],
                resource: Resource::ALL[best],
                per_resource,
            },
        }
    }

    #[test]
    fn spread_is_median_min_max() {
        let s = Spread::of(&[3.0, 1.0, 2.0, 10.0]);
        assert_eq!((s.median, s.min, s.max), (2.5, 1.0, 10.0));
        assert_eq!(Spread::of(&[4.0]).relative_half_range(), 0.0);
        // Median 2, range 1.8-2.4: the far end is 0.2 below, 10%.
        let s = Spread::of(&[2.0, 1.8, 2.4]);
        assert!((s.relative_half_range() - 0.2).abs() < 1e-12);
        assert!(Spread::of(&[]).median.is_nan());
        assert!(Spread::of(&[1.0, f64::NAN]).max.is_nan());
        let s = Spread::of(&[1.0, 3.0]).scaled(1e9);
        assert_eq!((s.median, s.min, s.max), (2e9, 1e9, 3e9));
    }

    #[test]
    fn efficiency_is_taken_per_round_then_summarised() {
        // Round 1: bound 1 over 2 s = 0.5; round 2: bound 3 over 4 s = 0.75; round 3: bound
        // 2 over 2 s = 1. The median bound over the median time would be 2/2 = 1, not 0.75.
        let rounds = [
            round(2.0, [1.0, 0.5, 0.0, 0.0]),
            round(4.0, [3.0, 0.5, 0.0, 0.0]),
            round(2.0, [2.0, 0.5, 0.0, 0.0]),
        ];
        let s = Summary::of(&rounds);
        assert_eq!(s.efficiency_per_round, vec![0.5, 0.75, 1.0]);
        assert_eq!(
            (s.efficiency.median, s.efficiency.min, s.efficiency.max),
            (0.75, 0.5, 1.0)
        );
        assert_eq!(
            (s.seconds.median, s.seconds.min, s.seconds.max),
            (2.0, 2.0, 4.0)
        );
        assert_eq!((s.bound.median, s.bound.min, s.bound.max), (2.0, 1.0, 3.0));
        assert_eq!(s.per_resource, [2.0, 0.5, 0.0, 0.0]);
        assert_eq!(s.resource, Resource::Store);
    }

    #[test]
    fn the_binding_resource_is_the_largest_median_not_the_most_rounds() {
        // Loads bind in rounds 1 and 2 by a hair, stores in round 3 by far; medians: store
        // 1.0, load 1.1.
        let rounds = [
            round(1.0, [1.0, 1.1, 0.0, 0.0]),
            round(1.0, [0.9, 1.0, 0.0, 0.0]),
            round(1.0, [5.0, 1.1, 0.0, 0.0]),
        ];
        let s = Summary::of(&rounds);
        assert_eq!(s.resource, Resource::Load);
        assert_eq!(s.per_resource[1], 1.1);
    }
}
