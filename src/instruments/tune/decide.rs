//! `tune`'s decisions, apart from its timing: from the times measured (or modelled) at one
//! N to the back-end `auto` should use there. Pure functions of numbers, so the rule is
//! tested with made-up timings.
//!
//! The rule. Candidates are timed in alternating rounds (A B C A B C …), so each round gives
//! a *pair ratio* t(A)/t(B) for every two candidates timed in it, measured within a few
//! seconds of each other; the spread of those ratios (lowest to highest) is the noise of the
//! comparison. The choice moves from the *incumbent* (the choice at the next smaller N, or the
//! built-in choice at the first N) to the fastest candidate only when the fastest is faster
//! in every pair: the lowest pair ratio t(incumbent)/t(fastest) is above 1. Otherwise the two
//! are not distinguishable and the incumbent is kept (`within-noise`). Past the grid a
//! modelled time is the time measured at the largest N timed scaled by the growth of the
//! back-end's roofline bound since then; the modelled ratio's interval is the pair ratios
//! measured there times the lowest and highest ratio of growths (the bounds are priced with
//! primitives measured twice, so the growth has a spread too), and the same rule applies,
//! except that past the grid the built-in choice at that N is held first when the model
//! cannot tell it from the fastest (the built-in crossovers were timed at such N; a model
//! that cannot decide does not overturn them).
//!
//! Invariant: at a timed N the choice differs from the incumbent only when the incumbent was
//! timed beside it and lost in every pair; at a modelled N the choice is the fastest modelled
//! only when every held choice modelled there (built-in, incumbent) is slower than it over
//! the whole interval.

use crate::base::stats::median;
use crate::run::wisdom::Basis;

/// Candidates whose medians are within this factor of the best are near a crossover: they
/// get more alternating rounds, so their ratio to the best has a spread.
pub const NEAR: f64 = 1.10;

/// One candidate's times at one N: seconds per round, None for a round it was not timed in.
#[derive(Debug, Clone, PartialEq)]
pub struct Timed<'a> {
    pub name: &'a str,
    pub rounds: Vec<Option<f64>>,
}

/// The median and range of one candidate's times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// How many rounds timed it.
    pub count: usize,
}

/// The times of `rounds` that were taken: their median, lowest and highest (NaN for none).
pub fn spread(rounds: &[Option<f64>]) -> Spread {
    let xs: Vec<f64> = rounds.iter().flatten().copied().collect();
    if xs.is_empty() {
        return Spread {
            median: f64::NAN,
            min: f64::NAN,
            max: f64::NAN,
            count: 0,
        };
    }
    Spread {
        median: median(&xs),
        min: xs.iter().copied().fold(f64::INFINITY, f64::min),
        max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        count: xs.len(),
    }
}

/// A ratio of two candidates' times, t(A)/t(B): the median and range over the pairs (or,
/// modelled, an interval), and how many pairs it rests on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratio {
    pub median: f64,
    pub low: f64,
    pub high: f64,
    pub pairs: usize,
}

impl Ratio {
    /// A is slower than B beyond the noise: slower in every pair (the whole interval is
    /// above 1).
    pub fn clearly_above_one(&self) -> bool {
        self.pairs > 0 && self.low > 1.0
    }
}

/// t(a)/t(b) over the rounds that timed both; None when no round did.
pub fn pair_ratio(a: &[Option<f64>], b: &[Option<f64>]) -> Option<Ratio> {
    let rs: Vec<f64> = a
        .iter()
        .zip(b)
        .filter_map(|(x, y)| Some((*x)? / (*y)?))
        .collect();
    if rs.is_empty() {
        return None;
    }
    Some(Ratio {
        median: median(&rs),
        low: rs.iter().copied().fold(f64::INFINITY, f64::min),
        high: rs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        pairs: rs.len(),
    })
}

/// Why a back-end was chosen at one N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// The fastest measured (the incumbent lost in every pair, or was the fastest).
    Fastest,
    /// The incumbent, kept: the fastest was not faster in every pair.
    WithinNoise,
    /// The fastest modelled, beyond the noise of the model.
    Modelled,
    /// The incumbent, kept: the fastest modelled was not faster beyond the model's noise.
    ModelledWithinNoise,
    /// The built-in choice, kept past the grid: the fastest modelled was not faster than it
    /// beyond the model's noise.
    BuiltInWithinNoise,
}

impl Why {
    /// The word the `choose` lines print (`basis=`).
    pub fn name(self) -> &'static str {
        match self {
            Why::Fastest => "measured",
            Why::WithinNoise => "within-noise",
            Why::Modelled => "modelled",
            Why::ModelledWithinNoise => "modelled-within-noise",
            Why::BuiltInWithinNoise => "built-in-within-noise",
        }
    }

    /// The reason named `name` (as [`Why::name`] prints it), if any.
    pub fn parse(name: &str) -> Option<Why> {
        [
            Why::Fastest,
            Why::WithinNoise,
            Why::Modelled,
            Why::ModelledWithinNoise,
            Why::BuiltInWithinNoise,
        ]
        .into_iter()
        .find(|w| w.name() == name)
    }

    /// What the wisdom file records: measured at a timed N, modelled past the grid.
    pub fn basis(self) -> Basis {
        match self {
            Why::Fastest | Why::WithinNoise => Basis::Measured,
            Why::Modelled | Why::ModelledWithinNoise | Why::BuiltInWithinNoise => Basis::Modelled,
        }
    }
}

/// The choice at one N.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice<'a> {
    pub table: &'a str,
    pub why: Why,
    /// The candidate with the smallest median (or modelled time).
    pub fastest: &'a str,
    /// t(held)/t(fastest) when a held choice (incumbent, or built-in past the grid) was
    /// weighed against a faster one: pairs measured, or the model's interval.
    pub ratio: Option<Ratio>,
}

/// The fastest of `cands` by median; `cands` must be non-empty.
fn fastest<'a>(cands: &[Timed<'a>]) -> &'a str {
    cands
        .iter()
        .min_by(|a, b| {
            spread(&a.rounds)
                .median
                .total_cmp(&spread(&b.rounds).median)
        })
        .expect("one candidate at least")
        .name
}

/// The choice at a measured N: the fastest by median, unless `incumbent` was timed here
/// and is not slower than it in every pair (then the incumbent is kept, within noise).
/// `cands` must be non-empty.
pub fn choose_measured<'a>(cands: &[Timed<'a>], incumbent: Option<&str>) -> Choice<'a> {
    let best = fastest(cands);
    let kept = incumbent.and_then(|i| cands.iter().find(|c| c.name == i && c.name != best));
    let Some(kept) = kept else {
        return Choice {
            table: best,
            why: Why::Fastest,
            fastest: best,
            ratio: None,
        };
    };
    let best_rounds = &cands.iter().find(|c| c.name == best).expect("best").rounds;
    let ratio = pair_ratio(&kept.rounds, best_rounds);
    let clear = ratio.is_none_or(|r| r.clearly_above_one());
    Choice {
        table: if clear { best } else { kept.name },
        why: if clear {
            Why::Fastest
        } else {
            Why::WithinNoise
        },
        fastest: best,
        ratio,
    }
}

/// One candidate priced past the grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Priced<'a> {
    pub name: &'a str,
    /// Its modelled time at this N.
    pub seconds: f64,
    /// Its rounds at the largest N timed (for the pair ratios there).
    pub top: Vec<Option<f64>>,
    /// Its bound here over its bound at the largest N timed: lowest and highest over the
    /// measurements of the primitives.
    pub growth: (f64, f64),
}

/// t(a)/t(b) modelled: the pair ratios at the largest N timed times the ratio of growths,
/// the interval widened by the growths' spreads; the median is the modelled times' ratio.
pub fn modelled_ratio(a: &Priced, b: &Priced) -> Ratio {
    let top = pair_ratio(&a.top, &b.top).unwrap_or_else(|| {
        let r = spread(&a.top).median / spread(&b.top).median;
        Ratio {
            median: r,
            low: r,
            high: r,
            pairs: 1,
        }
    });
    Ratio {
        median: a.seconds / b.seconds,
        low: top.low * a.growth.0 / b.growth.1,
        high: top.high * a.growth.1 / b.growth.0,
        pairs: top.pairs,
    }
}

/// The choice at a modelled N: the fastest modelled, unless a candidate the model cannot
/// tell from it (t(candidate)/t(fastest) by [`modelled_ratio`] not above 1 over its whole
/// interval) is held: first `built_in`, the built-in choice at this N (its crossovers were
/// timed at such N on the project's machines, which a model that cannot decide does not
/// overturn), then `incumbent`, the choice at the N before. `cands` must be non-empty.
pub fn choose_modelled<'a>(cands: &[Priced<'a>], built_in: &str, incumbent: &str) -> Choice<'a> {
    let best = cands
        .iter()
        .min_by(|a, b| a.seconds.total_cmp(&b.seconds))
        .expect("one candidate at least");
    let mut ratio = None;
    for (held, why) in [
        (built_in, Why::BuiltInWithinNoise),
        (incumbent, Why::ModelledWithinNoise),
    ] {
        if held == best.name {
            break;
        }
        let Some(kept) = cands.iter().find(|c| c.name == held) else {
            continue;
        };
        let r = modelled_ratio(kept, best);
        if !r.clearly_above_one() {
            return Choice {
                table: kept.name,
                why,
                fastest: best.name,
                ratio: Some(r),
            };
        }
        ratio = ratio.or(Some(r));
    }
    Choice {
        table: best.name,
        why: Why::Modelled,
        fastest: best.name,
        ratio,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed<'a>(name: &'a str, xs: &[f64]) -> Timed<'a> {
        Timed {
            name,
            rounds: xs.iter().map(|&x| Some(x)).collect(),
        }
    }

    #[test]
    fn spreads_and_pair_ratios_skip_untimed_rounds() {
        let s = spread(&[Some(3.0), None, Some(1.0), Some(2.0)]);
        assert_eq!((s.median, s.min, s.max, s.count), (2.0, 1.0, 3.0, 3));
        let r = pair_ratio(
            &[Some(2.0), Some(3.0), None],
            &[Some(1.0), Some(2.0), Some(9.0)],
        )
        .unwrap();
        assert_eq!((r.low, r.high, r.pairs), (1.5, 2.0, 2));
        assert!(pair_ratio(&[None, Some(1.0)], &[Some(1.0), None]).is_none());
        assert!(spread(&[None]).median.is_nan());
    }

    #[test]
    fn a_clear_difference_moves_the_choice() {
        // B is faster than the incumbent A in every pair (A/B from 1.15 to 1.25).
        let cands = [
            timed("a", &[1.15, 1.20, 1.25]),
            timed("b", &[1.0, 1.0, 1.0]),
        ];
        let c = choose_measured(&cands, Some("a"));
        assert_eq!((c.table, c.why, c.fastest), ("b", Why::Fastest, "b"));
        let r = c.ratio.unwrap();
        assert!((r.low - 1.15).abs() < 1e-12 && (r.high - 1.25).abs() < 1e-12);
        // No incumbent (or one not timed here): the fastest.
        assert_eq!(choose_measured(&cands, None).table, "b");
        assert_eq!(choose_measured(&cands, Some("gone")).table, "b");
        // The incumbent is the fastest: kept, as measured.
        let c = choose_measured(&cands, Some("b"));
        assert_eq!((c.table, c.why, c.ratio), ("b", Why::Fastest, None));
    }

    #[test]
    fn a_difference_within_the_noise_keeps_the_incumbent() {
        // B's median is 4% lower, but A won one of the three pairs: not distinguishable.
        let cands = [
            timed("a", &[1.04, 0.97, 1.05]),
            timed("b", &[1.0, 1.0, 1.0]),
        ];
        let c = choose_measured(&cands, Some("a"));
        assert_eq!((c.table, c.why, c.fastest), ("a", Why::WithinNoise, "b"));
        assert!(!c.ratio.unwrap().clearly_above_one());
        // The machine slowed down during the rounds (B's own times spread 1.0 to 1.5 and
        // its median is 1.2, A's 1.3): the pairs still agree, so B is clearly faster.
        let drifting = [timed("a", &[1.08, 1.3, 1.62]), timed("b", &[1.0, 1.2, 1.5])];
        assert_eq!(choose_measured(&drifting, Some("a")).table, "b");
        // One round only and B 3% faster in it: no spread is measured, the one pair decides.
        let once = [timed("a", &[1.03]), timed("b", &[1.0])];
        assert_eq!(choose_measured(&once, Some("a")).why, Why::Fastest);
    }

    fn priced<'a>(name: &'a str, seconds: f64, top: &[f64], growth: (f64, f64)) -> Priced<'a> {
        Priced {
            name,
            seconds,
            top: top.iter().map(|&x| Some(x)).collect(),
            growth,
        }
    }

    #[test]
    fn a_model_moves_the_choice_only_beyond_its_noise() {
        // At the largest N timed `par` beat `lanes` in every pair (0.55 to 0.6 of its
        // time). Past it `par`'s bound grows 1.6 to 1.9 times as fast as `lanes`'s, which
        // puts its modelled median 2% above: the interval straddles 1, `par` is kept.
        let lanes = priced("lanes", 95.0, &[1.0, 1.0, 1.0], (90.0, 100.0));
        let par = priced("par", 97.0, &[0.55, 0.58, 0.6], (160.0, 175.0));
        let c = choose_modelled(&[lanes.clone(), par.clone()], "none", "par");
        assert_eq!(
            (c.table, c.why, c.fastest),
            ("par", Why::ModelledWithinNoise, "lanes")
        );
        // The built-in choice, when the model cannot tell it from the fastest either, comes
        // first; the fastest when it is the built-in one.
        let c = choose_modelled(&[lanes.clone(), par.clone()], "par", "lanes");
        assert_eq!((c.table, c.why), ("par", Why::BuiltInWithinNoise));
        let r = c.ratio.unwrap();
        assert!(r.low < 1.0 && r.high > 1.0, "{r:?}");
        let c = choose_modelled(&[lanes.clone(), par], "lanes", "par");
        assert_eq!((c.table, c.why), ("lanes", Why::Modelled));
        // Growing 3 times as fast, beyond the spread of the pairs and of the growths: moved.
        let par = priced("par", 171.0, &[0.55, 0.58, 0.6], (290.0, 300.0));
        let c = choose_modelled(&[lanes, par], "par", "par");
        assert_eq!((c.table, c.why), ("lanes", Why::Modelled));
        assert!(c.ratio.unwrap().low > 1.0);
    }

    #[test]
    fn the_model_carries_the_ratio_measured_at_the_top_of_the_grid() {
        // `lanes` beat `par` in every pair at the largest N timed (a busy second core), and
        // the bounds grow alike: the model keeps `lanes` at every larger N. That is the
        // 10^8 difference from the built-in `stamped-parallel`, and `modelled_ratio` says
        // it: `par` at 1.28 to 1.39 times `lanes`'s time.
        let lanes = priced("lanes", 500.0, &[0.70, 0.71, 0.69], (700.0, 720.0));
        let par = priced("par", 660.0, &[0.92, 0.95, 0.93], (700.0, 720.0));
        let c = choose_modelled(&[lanes.clone(), par.clone()], "par", "lanes");
        assert_eq!((c.table, c.why), ("lanes", Why::Modelled));
        assert_eq!(c.ratio, Some(modelled_ratio(&par, &lanes)));
        let r = modelled_ratio(&par, &lanes);
        assert!(
            r.low > 1.27 && r.high < 1.39 && (r.median - 1.32).abs() < 1e-12,
            "{r:?}"
        );
    }

    #[test]
    fn basis_words() {
        assert_eq!(Why::WithinNoise.basis(), Basis::Measured);
        assert_eq!(Why::ModelledWithinNoise.basis(), Basis::Modelled);
        assert_eq!(Why::ModelledWithinNoise.name(), "modelled-within-noise");
        assert_eq!(Why::BuiltInWithinNoise.basis(), Basis::Modelled);
        assert_eq!(
            Why::parse("built-in-within-noise"),
            Some(Why::BuiltInWithinNoise)
        );
        assert_eq!(Why::parse("measured"), Some(Why::Fastest));
        assert_eq!(Why::parse("guessed"), None);
    }
}
