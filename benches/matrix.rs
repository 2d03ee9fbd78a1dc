//! The bench matrix: every registered back-end, timed with criterion.
//!
//! The grid, the ids and the selection are the library's ([`nimsquare::instruments::matrix`],
//! so the tests check this very list): `table/<backend>/<N>` at N = 10^4, 10^5, 10^6 with
//! throughput S(N) option steps; `count/<backend>/<N>` on the N = 10^5 and 10^6 tables;
//! `solve/<table>+<count>/<N>` end to end at N = 10^5. A back-end with vector kernels is timed
//! on the active path under its plain name and on every other supported path as
//! `<backend>@<path>`.
//!
//! Before anything is timed, the agreement gate runs the one checker (`check::check`) on
//! exactly the back-ends, paths and N the command line selects (none for `--help` and
//! `--list`); a disagreement panics with the names, so nothing wrong is ever timed. A filter
//! that matches nothing says so on stderr. `--warm-up-time`, `--measurement-time` and
//! `--sample-size` on the command line win over the grid's own sizing.
//!
//! Run: `cargo bench --bench matrix` (MEASURING.md gives its duration), `-- --list` for the
//! ids, `-- --test` to run each benchmark once, `-- --profile-time 10 table/bitset` for pprof
//! flamegraphs under `target/criterion/<id>/profile/flamegraph.svg`. `NIMSQUARE_QUICK=1`
//! shrinks the grid (N = 10^3 and 10^4, short measurement) for a smoke run of the scripts.

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use nimsquare::base::isa::{self, Isa};
use nimsquare::base::moves::Moves;
use nimsquare::instruments::check;
use nimsquare::instruments::matrix::{self, Bench, BenchArgs, GateCase, Grid, Group};
use nimsquare::table::Table;
use pprof::criterion::{Output, PProfProfiler};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The gated tables (the judge's, one per N) and one run's seconds per benchmark id, used to
/// size the measurement of slow benchmarks.
#[derive(Default)]
struct Checked {
    tables: Vec<(usize, Table)>,
    seconds: Vec<(String, f64)>,
}

impl Checked {
    fn table(&self, n: usize) -> &Table {
        &self
            .tables
            .iter()
            .find(|(m, _)| *m == n)
            .expect("a gated N")
            .1
    }

    fn seconds(&self, b: &Bench) -> f64 {
        let one = |group: Group, name: String| {
            let id = format!("{}/{name}/{}", group.name(), b.n);
            self.seconds
                .iter()
                .find(|(i, _)| *i == id)
                .map_or(0.0, |s| s.1)
        };
        match b.group {
            Group::Solve => {
                let (t, c) = (b.table.expect("a table"), b.count.expect("a count"));
                one(Group::Table, t.name.to_string()) + one(Group::Count, c.name.to_string())
            }
            _ => one(b.group, b.name()),
        }
    }

    /// Keeps each table's and count's first seconds of `report` (a check at `n` on `path`).
    fn record(&mut self, report: &check::Report, path: Option<Isa>, n: usize) {
        let at = |name: &str| match path {
            Some(p) => format!("{name}@{p}"),
            None => name.to_string(),
        };
        for p in &report.pairs {
            for (id, s) in [
                (format!("table/{}/{n}", at(p.table)), p.table_seconds),
                (format!("count/{}/{n}", at(p.count)), p.count_seconds),
            ] {
                if !self.seconds.iter().any(|(i, _)| *i == id) {
                    self.seconds.push((id, s));
                }
            }
        }
    }
}

/// Runs `body` on `path` forced (`None`: the active path, nothing forced).
fn on_path<R>(path: Option<Isa>, body: impl FnOnce() -> R) -> R {
    match path {
        Some(path) => isa::with(path, body).expect("a supported path"),
        None => body(),
    }
}

/// The checker on one gate case ([`matrix::check_gate_case`]), panicking at the first
/// disagreement.
fn check_or_panic(case: &GateCase) -> check::Report {
    matrix::check_gate_case(case)
        .and_then(|r| r.into_result())
        .unwrap_or_else(|e| panic!("bench matrix refused to time: {e}"))
}

/// The agreement gate on the selected benchmarks ([`matrix::gate_cases`]): each case against
/// the judges, and on a forced path every answer also against the active path's count judge
/// (a path's own count judge may be a vector back-end on that very path).
fn gate(selected: &[Bench]) -> Checked {
    let mut checked = Checked::default();
    let cases = matrix::gate_cases(selected);
    if cases.is_empty() {
        return checked;
    }
    let start = Instant::now();
    let mut want: Vec<(usize, u128)> = Vec::new();
    for case in &cases {
        let report = check_or_panic(case);
        let answer = match want.iter().find(|(n, _)| *n == case.n) {
            Some(&(_, a)) => a,
            None => {
                let active = check_or_panic(&GateCase {
                    path: None,
                    tables: vec![],
                    counts: vec![],
                    ..case.clone()
                });
                let a = active.count_judge.expect("a count judge").1;
                want.push((case.n, a));
                checked.tables.push((case.n, active.table));
                a
            }
        };
        for p in &report.pairs {
            assert_eq!(
                p.answer, answer,
                "bench matrix refused to time: {}+{} on {:?} at N = {}",
                p.table, p.count, case.path, case.n
            );
        }
        checked.record(&report, case.path, case.n);
    }
    let names = |f: fn(&GateCase) -> &Vec<&'static str>| {
        let mut all: Vec<&str> = cases.iter().flat_map(|c| f(c).iter().copied()).collect();
        all.sort_unstable();
        all.dedup();
        all.join(", ")
    };
    let mut ns: Vec<usize> = cases.iter().map(|c| c.n).collect();
    ns.dedup();
    eprintln!(
        "agreement gate: {} benchmarks; tables [{}] and counts [{}] agree with the judges at N = {ns:?} on {} path(s) ({:.1} s)",
        selected.len(),
        names(|c| &c.tables),
        names(|c| &c.counts),
        1 + cases.iter().filter_map(|c| c.path).collect::<std::collections::BTreeSet<_>>().len(),
        start.elapsed().as_secs_f64()
    );
    checked
}

/// Fits a benchmark whose one run takes `seconds` (as the gate measured it) into the budget,
/// leaving alone what the command line set. Fast ones get criterion's default linear
/// sampling, 100 samples in `grid.measure` (that needs 5050 runs); slower ones flat sampling
/// with as many samples as fit in `grid.measure`, but never fewer than 10 (criterion's
/// minimum), stretching the measurement time to hold those 10 runs.
fn size(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    grid: &Grid,
    args: &BenchArgs,
    seconds: f64,
) {
    let budget = grid.measure.as_secs_f64();
    let (sample_size, warm_up, measure, mode) = if seconds * 5050.0 <= budget {
        (100, grid.warm_up, grid.measure, SamplingMode::Auto)
    } else {
        let samples = ((budget / seconds.max(1e-9)) as usize).clamp(10, 100);
        (
            samples,
            Duration::from_secs_f64(seconds.min(grid.warm_up.as_secs_f64()).max(1e-6)),
            Duration::from_secs_f64(seconds * samples as f64 * 1.1).max(grid.measure),
            SamplingMode::Flat,
        )
    };
    group.sampling_mode(mode);
    if !args.sample_size {
        group.sample_size(sample_size);
    }
    if !args.warm_up_time {
        group.warm_up_time(warm_up);
    }
    if !args.measurement_time {
        group.measurement_time(measure);
    }
}

/// Times `selected` (already gated), group by group.
fn run(c: &mut Criterion, grid: &Grid, args: &BenchArgs, selected: &[Bench], checked: &Checked) {
    let moves = Moves::Squares;
    for g in [Group::Table, Group::Count, Group::Solve] {
        let mut group = c.benchmark_group(g.name());
        for b in selected.iter().filter(|b| b.group == g) {
            if g != Group::Count {
                group.throughput(Throughput::Elements(moves.option_steps(b.n) as u64));
            }
            if args.runs_benchmarks() {
                size(&mut group, grid, args, checked.seconds(b));
            }
            let id = BenchmarkId::new(b.name(), b.n);
            let builder = b.table.map(|t| (t.make)());
            let counter = b.count.map(|c| (c.make)());
            on_path(b.path, || match (builder.as_deref(), counter.as_deref()) {
                (Some(builder), None) => {
                    group.bench_with_input(id, &b.n, |bench, &n| {
                        bench.iter(|| builder.build(black_box(&moves), black_box(n)))
                    });
                }
                (None, Some(counter)) => {
                    let t = checked
                        .tables
                        .iter()
                        .find(|(m, _)| *m == b.n)
                        .map(|_| checked.table(b.n));
                    group.bench_with_input(id, &b.n, |bench, _| {
                        let t = t.expect("gated before timing");
                        bench.iter(|| counter.count(black_box(t), 3).expect("gated"))
                    });
                }
                (Some(builder), Some(counter)) => {
                    group.bench_with_input(id, &b.n, |bench, &n| {
                        bench.iter(|| {
                            let t = builder.build(black_box(&moves), black_box(n));
                            counter.count(&t, 3).expect("gated")
                        })
                    });
                }
                (None, None) => unreachable!("every benchmark names a back-end"),
            });
        }
        group.finish();
    }
}

fn main() {
    let args = BenchArgs::parse(std::env::args().skip(1));
    let grid = Grid::from_env();
    let selected = matrix::select(&matrix::benches(&grid), &args).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    if selected.is_empty() && !args.help && !args.ignored {
        eprintln!(
            "no benchmark matches the filter '{}' (ids look like table/stamped-lanes/100000 or table/stamped-lanes@scalar/100000; `cargo bench --bench matrix -- --list` lists them)",
            args.filter.as_deref().unwrap_or("")
        );
    }
    let checked = if args.runs_benchmarks() {
        gate(&selected)
    } else {
        Checked::default()
    };
    let mut c = Criterion::default()
        .with_profiler(PProfProfiler::new(100, Output::Flamegraph(None)))
        .configure_from_args();
    run(&mut c, &grid, &args, &selected, &checked);
    c.final_summary();
}
