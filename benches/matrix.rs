//! The bench matrix: every registered back-end, timed with criterion.
//!
//! - `table/<backend>/<N>`: every table back-end at N = 10^4, 10^5, 10^6, with throughput
//!   S(N) option steps, so criterion reports steps per second;
//! - `count/<backend>/<N>`: every count back-end on the N = 10^5 and 10^6 tables;
//! - `solve/<table>+<count>/<N>`: every table × count pair end to end at N = 10^5, with
//!   throughput S(N).
//!
//! Before anything is timed, every back-end's answer for every input of the matrix is
//! checked by the one checker (`check::check`); a disagreement panics with the names, so
//! nothing wrong is ever timed. The back-ends come from `table::BACKENDS` and
//! `count::BACKENDS`, controls left out: a new registry entry enters the matrix with no edit
//! here.
//!
//! Run: `cargo bench --bench matrix` (MEASURING.md says how long it takes), `-- --test` to run each
//! benchmark once, `-- --profile-time 10 table/bitset` for pprof flamegraphs under
//! `target/criterion/<id>/profile/flamegraph.svg`. `NIMSQUARE_QUICK=1` shrinks the grid
//! (N = 10^3 and 10^4, short measurement) for a smoke run of the scripts.

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use nimsquare::check::{self, Case};
use nimsquare::count::Counter;
use nimsquare::moves::Moves;
use nimsquare::registry::{self, Entry};
use nimsquare::table::{Table, TableBuilder};
use nimsquare::{count, table};
use pprof::criterion::{Output, PProfProfiler};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The limits of each group.
struct Grid {
    table: Vec<usize>,
    count: Vec<usize>,
    solve: Vec<usize>,
    /// Measurement time for a benchmark whose single run is short.
    measure: Duration,
    warm_up: Duration,
}

fn grid() -> Grid {
    if std::env::var("NIMSQUARE_QUICK").is_ok_and(|v| !v.is_empty() && v != "0") {
        Grid {
            table: vec![1_000, 10_000],
            count: vec![10_000],
            solve: vec![10_000],
            measure: Duration::from_millis(300),
            warm_up: Duration::from_millis(100),
        }
    } else {
        Grid {
            table: vec![10_000, 100_000, 1_000_000],
            count: vec![100_000, 1_000_000],
            solve: vec![100_000],
            measure: Duration::from_secs(3),
            warm_up: Duration::from_secs(1),
        }
    }
}

/// Every table of the matrix, as the judge built it after the gate checked that every
/// back-end agrees with it; and one run's seconds per (back-end, N), used to size the
/// measurement of slow benchmarks.
struct Checked {
    tables: Vec<(usize, Table)>,
    table_seconds: Vec<(&'static str, usize, f64)>,
    count_seconds: Vec<(&'static str, usize, f64)>,
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
    fn table_seconds(&self, name: &str, n: usize) -> f64 {
        lookup(&self.table_seconds, name, n)
    }
    fn count_seconds(&self, name: &str, n: usize) -> f64 {
        lookup(&self.count_seconds, name, n)
    }
}

fn lookup(times: &[(&str, usize, f64)], name: &str, n: usize) -> f64 {
    times
        .iter()
        .find(|(b, m, _)| *b == name && *m == n)
        .map_or(0.0, |t| t.2)
}

/// The agreement gate: the one checker ([`check::check`]) runs every timed back-end on every
/// N of the matrix against its judges, and the bench panics, naming the back-ends and the
/// first difference, at the first disagreement: nothing wrong is ever timed.
fn gate(grid: &Grid) -> Checked {
    let mut limits: Vec<usize> = grid
        .table
        .iter()
        .chain(&grid.count)
        .chain(&grid.solve)
        .copied()
        .collect();
    limits.sort_unstable();
    limits.dedup();
    let (tables, counts) = timed();
    let mut checked = Checked {
        tables: Vec::new(),
        table_seconds: Vec::new(),
        count_seconds: Vec::new(),
    };
    let start = Instant::now();
    for &n in &limits {
        let case = Case {
            moves: Moves::Squares,
            limit: n,
            heaps: 3,
        };
        let report = check::check(&case, &tables, &counts, &[])
            .and_then(|r| r.into_result())
            .unwrap_or_else(|e| panic!("bench matrix refused to time: {e}"));
        for p in &report.pairs {
            if !checked
                .table_seconds
                .iter()
                .any(|t| t.0 == p.table && t.1 == n)
            {
                checked.table_seconds.push((p.table, n, p.table_seconds));
            }
            checked.count_seconds.push((p.count, n, p.count_seconds));
        }
        checked.tables.push((n, report.table));
    }
    eprintln!(
        "agreement gate: {} table and {} count back-ends agree with the judges at N = {limits:?} ({:.1} s)",
        tables.len(),
        counts.len(),
        start.elapsed().as_secs_f64()
    );
    checked
}

/// The back-ends the matrix times: every registered one except the naive controls.
type Timed = (
    Vec<&'static Entry<dyn TableBuilder>>,
    Vec<&'static Entry<dyn Counter>>,
);

fn timed() -> Timed {
    (
        registry::fast(table::BACKENDS).collect(),
        registry::fast(count::BACKENDS).collect(),
    )
}

/// Fits a benchmark whose one run takes `seconds` (as the gate measured it) into the budget.
/// Fast ones get criterion's default linear sampling, 100 samples in `grid.measure` (that
/// needs 5050 runs); slower ones flat sampling with as many samples as fit in
/// `grid.measure`, but never fewer than 10 (criterion's minimum), stretching the measurement
/// time to hold those 10 runs.
fn size(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    grid: &Grid,
    seconds: f64,
) {
    let budget = grid.measure.as_secs_f64();
    if seconds * 5050.0 <= budget {
        group.sampling_mode(SamplingMode::Auto);
        group.sample_size(100);
        group.warm_up_time(grid.warm_up);
        group.measurement_time(grid.measure);
    } else {
        let samples = ((budget / seconds.max(1e-9)) as usize).clamp(10, 100);
        group.sampling_mode(SamplingMode::Flat);
        group.sample_size(samples);
        group.warm_up_time(Duration::from_secs_f64(
            seconds.min(grid.warm_up.as_secs_f64()),
        ));
        group.measurement_time(
            Duration::from_secs_f64(seconds * samples as f64 * 1.1).max(grid.measure),
        );
    }
}

fn bench_table(c: &mut Criterion, grid: &Grid, checked: &Checked) {
    let moves = Moves::Squares;
    let mut group = c.benchmark_group("table");
    for &n in &grid.table {
        group.throughput(Throughput::Elements(moves.option_steps(n) as u64));
        for e in timed().0 {
            size(&mut group, grid, checked.table_seconds(e.name, n));
            let builder = (e.make)();
            group.bench_with_input(BenchmarkId::new(e.name, n), &n, |b, &n| {
                b.iter(|| builder.build(black_box(&moves), black_box(n)))
            });
        }
    }
    group.finish();
}

fn bench_count(c: &mut Criterion, grid: &Grid, checked: &Checked) {
    let mut group = c.benchmark_group("count");
    for &n in &grid.count {
        let t = checked.table(n);
        for e in timed().1 {
            let counter = (e.make)();
            size(&mut group, grid, checked.count_seconds(e.name, n));
            group.bench_with_input(BenchmarkId::new(e.name, n), t, |b, t| {
                b.iter(|| counter.count(black_box(t), 3).expect("gated"))
            });
        }
    }
    group.finish();
}

fn bench_solve(c: &mut Criterion, grid: &Grid, checked: &Checked) {
    let moves = Moves::Squares;
    let mut group = c.benchmark_group("solve");
    for &n in &grid.solve {
        group.throughput(Throughput::Elements(moves.option_steps(n) as u64));
        let (tables, counts) = timed();
        for te in &tables {
            for ce in &counts {
                let builder = (te.make)();
                let counter = (ce.make)();
                let seconds = checked.table_seconds(te.name, n) + checked.count_seconds(ce.name, n);
                size(&mut group, grid, seconds);
                let id = BenchmarkId::new(format!("{}+{}", te.name, ce.name), n);
                group.bench_with_input(id, &n, |b, &n| {
                    b.iter(|| {
                        let t = builder.build(black_box(&moves), black_box(n));
                        counter.count(&t, 3).expect("gated")
                    })
                });
            }
        }
    }
    group.finish();
}

fn main() {
    let grid = grid();
    let checked = gate(&grid);
    let mut c = Criterion::default()
        .with_profiler(PProfProfiler::new(100, Output::Flamegraph(None)))
        .configure_from_args();
    bench_table(&mut c, &grid, &checked);
    bench_count(&mut c, &grid, &checked);
    bench_solve(&mut c, &grid, &checked);
    c.final_summary();
}
