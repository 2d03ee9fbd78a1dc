//! What `roofline` answers ([`Roofline`]). Text: the header line and the column header, then
//! one row per back-end (and a `note` beside one whose cost model counts only part of its
//! work); the command prints the header before any work and each row the moment its rounds
//! are done, so a run of an hour shows its progress in its output. `--json`: one object at
//! the end.
//!
//! A row is the fixed columns (medians, and each spread as `min-max`), then `key=value`
//! fields: each primitive the back-end's model uses, `NAME=MEDIAN NAME_range=MIN-MAX` in ns
//! per op over the rounds, and `load=` the one-minute load average when it finished.

use super::study::{Line, Plan};
use super::{Primitive, Spread};
use crate::instruments::roofline;
use crate::run::report::Report;
use serde_json::json;
use std::io::{self, Write};

/// A finished run: the plan, its lines, the load average at its start and end.
pub struct Roofline<'a> {
    pub plan: &'a Plan,
    pub lines: Vec<Line>,
    pub load_start: Option<f64>,
    pub load_end: Option<f64>,
}

/// The header line and the column header, printed before any work.
pub fn header(plan: &Plan, load_start: Option<f64>) -> [String; 2] {
    let rounds = if plan.repeats == 1 { "round" } else { "rounds" };
    [
        format!(
            "roofline N = {}, {}, {} threads, isa {}, {} {rounds} (the back-end, then its primitives; median and min-max over the rounds), build {}, load average {} at start",
            plan.n(),
            plan.game.describe(),
            plan.threads,
            crate::base::isa::active().name(),
            plan.repeats,
            crate::base::provenance::BUILD_REV,
            fmt_load(load_start),
        ),
        "stage  backend            threads  unit      rounds  measured ns  measured range        bound ns  bound range           resource   efficiency  efficiency range  primitives ns/op".into(),
    ]
}

/// The `note ...` line after a back-end of a game without counts whose cost model leaves
/// work out: it bounds nothing tight (the JSON carries every model's summary).
pub fn note(plan: &Plan, l: &Line) -> Option<String> {
    (plan.game.counts().is_none() && l.model.summary.contains("lower bound")).then(|| {
        format!(
            "note backend={}: its cost model counts only part of its work, so its bound is a floor, not a roofline: {}",
            l.name, l.model.summary
        )
    })
}

/// Where the bound is not a bound (the median efficiency above 1): the primitives of the
/// binding resource whose microbenchmark is slower than the back-end's own use of them. Per
/// primitive p of that resource: its ops in the model (the resource's bound seconds over
/// p's ns per op, when p is the resource's only primitive in use) and the back-end's own
/// ns per op, its whole measured time over those ops. `None` at efficiency 1 or below.
pub fn not_a_bound(l: &Line) -> Option<String> {
    let sm = &l.summary;
    // (1e-9: an efficiency of exactly 1 computed through two sums of products.)
    if sm.efficiency.median.is_nan() || sm.efficiency.median <= 1.0 + 1e-9 {
        return None;
    }
    let resource = sm.resource;
    let index = roofline::Resource::ALL
        .iter()
        .position(|&r| r == resource)?;
    let in_use: Vec<Primitive> = l
        .used
        .iter()
        .copied()
        .filter(|p| p.resource() == resource)
        .collect();
    let detail = match in_use.as_slice() {
        [p] => {
            let micro = primitive(l, *p).median;
            let ops = sm.per_resource[index] * 1e9 / micro;
            let own = sm.seconds.median * 1e9 / ops;
            format!(
                "the {} microbenchmark takes {micro:.4} ns an op, where the back-end's whole run takes {own:.4} ns for each of the model's {ops:.3e} ops: the microbenchmark is {:.2}x slower than the back-end's own use of it",
                p.name(),
                micro / own
            )
        }
        several => format!(
            "the microbenchmarks of {} together price the {} resource above the back-end's whole time",
            several
                .iter()
                .map(|p| p.name())
                .collect::<Vec<_>>()
                .join(" and "),
            resource.name()
        ),
    };
    Some(format!(
        "not-a-bound backend={} efficiency={:.3}: {detail}",
        l.name, sm.efficiency.median
    ))
}

impl Report for Roofline<'_> {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        for line in header(self.plan, self.load_start) {
            writeln!(out, "{line}")?;
        }
        for l in &self.lines {
            writeln!(out, "{}", row(l))?;
            if let Some(n) = note(self.plan, l) {
                writeln!(out, "{n}")?;
            }
            if let Some(n) = not_a_bound(l) {
                writeln!(out, "{n}")?;
            }
        }
        Ok(())
    }

    fn json(&self) -> serde_json::Value {
        let plan = self.plan;
        let mut json = json!({
            "load_average_start": self.load_start,
            "limit": plan.n(),
            "moves": plan.game.label(),
            "threads": plan.threads,
            "repeats": plan.repeats,
            "rounds": plan.repeats,
            "isa": crate::base::isa::active().name(),
            "load_average_end": self.load_end,
            "backends": self.lines.iter().map(line_json).collect::<Vec<_>>(),
        });
        // A game of a workload without the counts capability is named under its
        // workload's name too (`"octal": "0.6"`).
        if plan.game.counts().is_none() {
            json[plan.game.stage()] = json!(plan.game.label());
        }
        json
    }
}

/// A load average as printed (`unknown` where the system reports none).
fn fmt_load(load: Option<f64>) -> String {
    load.map_or_else(|| "unknown".into(), |l| format!("{l:.2}"))
}

/// `min-max` at `places` decimals.
fn range(s: Spread, places: usize) -> String {
    format!("{:.places$}-{:.places$}", s.min, s.max)
}

/// The text row of one back-end.
pub fn row(l: &Line) -> String {
    let measured = l.summary.seconds.scaled(1e9 / l.units);
    let bound = l.summary.bound.scaled(1e9 / l.units);
    let eff = l.summary.efficiency;
    let mut s = format!(
        "{:<6} {:<18} {:>7}  {:<8} {:>7}  {:>11.4}  {:<20} {:>9.4}  {:<20} {:<10} {:>10.3}  {:<16}",
        l.stage,
        l.name,
        l.threads,
        unit(l.stage),
        l.rounds.len(),
        measured.median,
        range(measured, 4),
        bound.median,
        range(bound, 4),
        l.summary.resource.name(),
        eff.median,
        range(eff, 3),
    );
    for &p in &l.used {
        let ns = primitive(l, p);
        s.push_str(&format!(
            "  {}={:.4} {0}_range={}",
            p.name(),
            ns.median,
            range(ns, 4)
        ));
    }
    s.push_str(&format!("  load={}", fmt_load(l.load)));
    s
}

/// The ns per op of `p` over the rounds of `l`.
fn primitive(l: &Line, p: Primitive) -> Spread {
    let xs: Vec<f64> = l.rates.iter().map(|r| r.ns(p)).collect();
    Spread::of(&xs)
}

/// The unit a stage's times are divided by.
fn unit(stage: &str) -> &'static str {
    if stage != "count" {
        "step"
    } else {
        "position"
    }
}

/// `{"median", "min", "max"}` of a spread.
fn spread_json(s: Spread) -> serde_json::Value {
    json!({"median": s.median, "min": s.min, "max": s.max})
}

fn line_json(l: &Line) -> serde_json::Value {
    let sm = &l.summary;
    let per: serde_json::Map<String, serde_json::Value> = roofline::Resource::ALL
        .iter()
        .zip(sm.per_resource)
        .map(|(r, s)| (r.name().to_string(), json!(s)))
        .collect();
    let prims: serde_json::Map<String, serde_json::Value> = l
        .used
        .iter()
        .map(|&p| {
            let per_round: Vec<f64> = l.rates.iter().map(|r| r.ns(p)).collect();
            let mut v = spread_json(primitive(l, p));
            v["per_round"] = json!(per_round);
            (p.name().to_string(), v)
        })
        .collect();
    let per_unit = 1e9 / l.units;
    json!({
        "stage": l.stage,
        "backend": l.name,
        "threads": l.threads,
        "unit": unit(l.stage),
        "rounds": l.rounds.len(),
        "measured_seconds": sm.seconds.median,
        "measured_seconds_min": sm.seconds.min,
        "measured_seconds_max": sm.seconds.max,
        "measured_seconds_per_round": l.rounds.iter().map(|r| r.seconds).collect::<Vec<_>>(),
        "measured_ns_per_unit": sm.seconds.median * per_unit,
        "measured_ns_per_unit_min": sm.seconds.min * per_unit,
        "measured_ns_per_unit_max": sm.seconds.max * per_unit,
        "bound_seconds": sm.bound.median,
        "bound_seconds_min": sm.bound.min,
        "bound_seconds_max": sm.bound.max,
        "bound_seconds_per_round": l.rounds.iter().map(|r| r.bound.seconds).collect::<Vec<_>>(),
        "bound_ns_per_unit": sm.bound.median * per_unit,
        "bound_ns_per_unit_min": sm.bound.min * per_unit,
        "bound_ns_per_unit_max": sm.bound.max * per_unit,
        "bound_resource": sm.resource.name(),
        "bound_seconds_per_resource": per,
        "efficiency": sm.efficiency.median,
        "efficiency_min": sm.efficiency.min,
        "efficiency_max": sm.efficiency.max,
        "efficiency_per_round": sm.efficiency_per_round,
        "primitives_ns_per_op": prims,
        "load_average": l.load,
        "model": l.model.summary,
        "not_a_bound": not_a_bound(l),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::{Demand, Model, Workload};
    use crate::instruments::roofline::rounds::{Round, Summary};
    use crate::instruments::roofline::{bound, Rates};

    /// A table back-end whose model is 1000 scatter stores, timed in one round at `seconds`
    /// against a scatter microbenchmark of 2 ns an op (a bound of 2 µs).
    fn line(seconds: f64) -> Line {
        let demand = Demand::default().with(Primitive::Scatter, 1000.0);
        let rates = Rates::new(1, [2.0, f64::NAN, f64::NAN, f64::NAN, f64::NAN]);
        let round = Round {
            seconds,
            bound: bound(&demand, &rates),
        };
        Line {
            stage: "table",
            name: "x",
            model: Model {
                summary: "1000 stores",
                parallel: false,
                demand: |_: &Workload| Demand::default().with(Primitive::Scatter, 1000.0),
            },
            threads: 1,
            units: 1000.0,
            used: vec![Primitive::Scatter],
            rates: vec![rates],
            summary: Summary::of(std::slice::from_ref(&round)),
            rounds: vec![round],
            load: None,
        }
    }

    #[test]
    fn a_bound_above_the_time_names_the_primitive_slower_than_the_back_ends_use_of_it() {
        // 1.6 µs for 1000 stores: 1.6 ns an op against the microbenchmark's 2 ns, efficiency
        // 2/1.6 = 1.25.
        let text = not_a_bound(&line(1.6e-6)).unwrap();
        assert!(text.contains("efficiency=1.250"), "{text}");
        assert!(
            text.contains("scatter_store microbenchmark takes 2.0000 ns"),
            "{text}"
        );
        assert!(
            text.contains("takes 1.6000 ns for each of the model's 1.000e3 ops"),
            "{text}"
        );
        assert!(text.contains("1.25x slower"), "{text}");
        // At or below efficiency 1 the bound is one: nothing to say.
        assert_eq!(not_a_bound(&line(2.0e-6)), None);
        assert_eq!(not_a_bound(&line(4.0e-6)), None);
    }
}
