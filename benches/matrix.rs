//! The bench matrix: every registered back-end, timed with criterion.
//!
//! - `table/<backend>/<N>`: every table back-end at N = 10^4, 10^5, 10^6, with throughput
//!   S(N) option steps, so criterion reports steps per second;
//! - `count/<backend>/<N>`: every count back-end on the N = 10^5 and 10^6 tables;
//! - `solve/<table>+<count>/<N>`: every table × count pair end to end at N = 10^5, with
//!   throughput S(N), on the default vector path.
//!
//! A back-end with vector kernels (`vector_kernels()`) is timed once per vector path the CPU
//! supports (`isa::Isa::supported_all`), with the path in its id:
//! `table/stamped-lanes@avx2/100000`, so criterion shows the paths side by side.
//!
//! Before anything is timed, every back-end's answer for every input of the matrix is
//! checked by the one checker (`check::check`), and each vector back-end again under every
//! path; a disagreement panics with the names, so nothing wrong is ever timed. The back-ends come from `table::BACKENDS` and
//! `count::BACKENDS`, controls left out: a new registry entry enters the matrix with no edit
//! here.
//!
//! Run: `cargo bench --bench matrix` (MEASURING.md says how long it takes), `-- --test` to run each
//! benchmark once, `-- --profile-time 10 table/bitset` for pprof flamegraphs under
//! `target/criterion/<id>/profile/flamegraph.svg`. `NIMSQUARE_QUICK=1` shrinks the grid
//! (N = 10^3 and 10^4, short measurement) for a smoke run of the scripts.

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use nimsquare::base::isa::{self, Isa};
use nimsquare::base::moves::Moves;
use nimsquare::count::Counter;
use nimsquare::instruments::check::{self, Case};
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
/// back-end agrees with it; and one run's seconds per (benchmark label, N), used to size the
/// measurement of slow benchmarks.
struct Checked {
    tables: Vec<(usize, Table)>,
    table_seconds: Vec<(String, usize, f64)>,
    count_seconds: Vec<(String, usize, f64)>,
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
    fn table_seconds(&self, label: &str, n: usize) -> f64 {
        lookup(&self.table_seconds, label, n)
    }
    fn count_seconds(&self, label: &str, n: usize) -> f64 {
        lookup(&self.count_seconds, label, n)
    }

    /// Keeps the first seconds of each table and count of `report` (a check at `n`) under
    /// its benchmark label on `path` (`None`: the default path, the plain name).
    fn record(&mut self, report: &check::Report, path: Option<Isa>, n: usize) {
        for p in &report.pairs {
            let (table, count) = (label(p.table, path), label(p.count, path));
            if !self.table_seconds.iter().any(|t| t.0 == table && t.1 == n) {
                self.table_seconds.push((table, n, p.table_seconds));
            }
            if !self.count_seconds.iter().any(|t| t.0 == count && t.1 == n) {
                self.count_seconds.push((count, n, p.count_seconds));
            }
        }
    }
}

fn lookup(times: &[(String, usize, f64)], label: &str, n: usize) -> f64 {
    times
        .iter()
        .find(|(b, m, _)| b == label && *m == n)
        .map_or(0.0, |t| t.2)
}

/// The benchmark label of back-end `name` on vector path `path`: `name@path`, or the plain
/// name for a back-end without vector kernels (`None`).
fn label(name: &str, path: Option<Isa>) -> String {
    match path {
        Some(path) => format!("{name}@{path}"),
        None => name.to_string(),
    }
}

/// The vector paths a back-end is timed on: every supported one when it has vector
/// kernels, else only the default (`None`).
fn paths(vector_kernels: bool) -> Vec<Option<Isa>> {
    if vector_kernels {
        Isa::supported_all().into_iter().map(Some).collect()
    } else {
        vec![None]
    }
}

/// Runs `body` on `path` forced (`None`: the default path, nothing forced).
fn on_path<R>(path: Option<Isa>, body: impl FnOnce() -> R) -> R {
    match path {
        Some(path) => isa::with(path, body).expect("a supported path"),
        None => body(),
    }
}

/// The checker on `case` for these back-ends, panicking at the first disagreement.
fn check_or_panic(case: &Case, tables: &[TableEntry], counts: &[CountEntry]) -> check::Report {
    check::check(case, tables, counts, &[])
        .and_then(|r| r.into_result())
        .unwrap_or_else(|e| panic!("bench matrix refused to time: {e}"))
}

/// The agreement gate: the one checker ([`check::check`]) runs every timed back-end on every
/// N of the matrix against its judges, then the vector back-ends again under every vector
/// path; the bench panics, naming the back-ends and the first difference, at the first
/// disagreement: nothing wrong is ever timed.
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
    let (vtables, vcounts) = vector(&tables, &counts);
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
        let report = check_or_panic(&case, &tables, &counts);
        checked.record(&report, None, n);
        for path in Isa::supported_all() {
            let r = on_path(Some(path), || check_or_panic(&case, &vtables, &vcounts));
            check_path(&report, &r, path);
            checked.record(&r, Some(path), n);
        }
        checked.tables.push((n, report.table));
    }
    eprintln!(
        "agreement gate: {} table and {} count back-ends agree with the judges at N = {limits:?}, the vector ones ({}) on every path ({}) ({:.1} s)",
        tables.len(),
        counts.len(),
        vtables.iter().map(|e| e.name).chain(vcounts.iter().map(|e| e.name)).collect::<Vec<_>>().join(", "),
        Isa::supported_all().iter().map(|i| i.name()).collect::<Vec<_>>().join(", "),
        start.elapsed().as_secs_f64()
    );
    checked
}

/// A path's check judged its tables against the same judge as the default check, but its
/// count judge may be a vector back-end on that very path: so every answer on the path must
/// also equal the default check's, which every counter (vector or not) agreed with.
fn check_path(default: &check::Report, on_path: &check::Report, path: Isa) {
    let want = default.count_judge.expect("a count judge").1;
    assert!(!on_path.pairs.is_empty(), "nothing answered on {path}");
    for p in &on_path.pairs {
        assert_eq!(
            p.answer, want,
            "bench matrix refused to time: {}+{} on {path} at N = {}",
            p.table, p.count, default.case.limit
        );
    }
}

type TableEntry = &'static Entry<dyn TableBuilder>;
type CountEntry = &'static Entry<dyn Counter>;

/// The back-ends of `tables` and `counts` with vector kernels.
fn vector(tables: &[TableEntry], counts: &[CountEntry]) -> (Vec<TableEntry>, Vec<CountEntry>) {
    (
        tables
            .iter()
            .copied()
            .filter(|e| (e.make)().vector_kernels())
            .collect(),
        counts
            .iter()
            .copied()
            .filter(|e| (e.make)().vector_kernels())
            .collect(),
    )
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
            let builder = (e.make)();
            for path in paths(builder.vector_kernels()) {
                let id = label(e.name, path);
                size(&mut group, grid, checked.table_seconds(&id, n));
                on_path(path, || {
                    group.bench_with_input(BenchmarkId::new(id, n), &n, |b, &n| {
                        b.iter(|| builder.build(black_box(&moves), black_box(n)))
                    });
                });
            }
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
            for path in paths(counter.vector_kernels()) {
                let id = label(e.name, path);
                size(&mut group, grid, checked.count_seconds(&id, n));
                on_path(path, || {
                    group.bench_with_input(BenchmarkId::new(id, n), t, |b, t| {
                        b.iter(|| counter.count(black_box(t), 3).expect("gated"))
                    });
                });
            }
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
