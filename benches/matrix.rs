//! The bench matrix: every registered back-end, timed with criterion.
//!
//! The grid, the ids and the selection are the library's ([`nimsquare::instruments::matrix`],
//! so the tests check this very list): `table/<backend>/<N>` at N = 10^4, 10^5, 10^6 with
//! throughput S(N) option steps; `count/<backend>/<N>` on the N = 10^5 and 10^6 tables;
//! `solve/<table>+<count>/<N>` end to end at N = 10^5; `octal/<backend>/<code>/<N>` for
//! Officers (0.6) and Dawson's chess (0.137) at N = 10^4 and 10^5, throughput the octal
//! game's option steps (every removal and split pair). A back-end with vector kernels is timed
//! on the active path under its plain name and on every other supported path as
//! `<backend>@<path>`.
//!
//! Before anything is timed, the agreement gate runs the one checker (`check::check`) on
//! exactly the back-ends, paths and N the command line selects (none for `--help` and
//! `--list`); the octal group's tables are held against the octal stage's judge (the control
//! `octal-naive` where it affords N, else the reference `octal-sparse`). A disagreement
//! panics with the names, so nothing wrong is ever timed. A filter
//! that matches nothing is refused (one line on stderr, status 2). `--warm-up-time`,
//! `--measurement-time` and `--sample-size` on the command line win over the grid's own
//! sizing.
//!
//! After a measured run (not `--test`, `--list` or `--profile-time`) it prints a summary:
//! each benchmark's median with its interval and its ratio to the fastest of its group and N
//! (or to `NIMSQUARE_RATIO_TO=NAME`), and writes the same as `matrix.csv` and `matrix.json`
//! into `NIMSQUARE_MATRIX_OUT` (default `target/bench-results`; `nimsquare::instruments::
//! matrix_report`). `bench-check OLD NEW` compares two such files, or two criterion baselines.
//!
//! Run: `cargo bench --bench matrix` (MEASURING.md gives its duration), `-- --list` for the
//! ids, `-- --test` to run each benchmark once, `-- --profile-time 10 table/bitset` for pprof
//! flamegraphs under `target/criterion/<id>/profile/flamegraph.svg`. `NIMSQUARE_QUICK=1`
//! shrinks the grid (N = 10^3 and 10^4, short measurement) for a smoke run of the scripts.

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use nimsquare::base::isa::{self, Isa};
use nimsquare::instruments::check;
use nimsquare::instruments::matrix::{self, Bench, BenchArgs, GateCase, Grid, Group};
use nimsquare::instruments::matrix_report;
use nimsquare::table::Table;
use pprof::criterion::{Output, PProfProfiler};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

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
        let one = |id: String| {
            self.seconds
                .iter()
                .find(|(i, _)| *i == id)
                .map_or(0.0, |s| s.1)
        };
        match b.group {
            Group::Solve => {
                let (t, c) = (b.table.expect("a table"), b.count.expect("a count"));
                one(format!("table/{}/{}", t.name(), b.n))
                    + one(format!("count/{}/{}", c.name, b.n))
            }
            _ => one(b.id()),
        }
    }

    /// Keeps each table's first seconds of a tables-only gate case's `tables` (on `path`).
    fn record_tables(&mut self, tables: &check::Tables, path: Option<Isa>, n: usize) {
        let judge = (tables.judge, tables.judge_seconds);
        for (name, s) in std::iter::once(judge).chain(tables.checked.iter().copied()) {
            let at = match path {
                Some(p) => format!("{name}@{p}"),
                None => name.to_string(),
            };
            let id = format!("{}/{at}/{}/{n}", tables.game.stage(), tables.game.label());
            if !self.seconds.iter().any(|(i, _)| *i == id) {
                self.seconds.push((id, s));
            }
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
        if case.game.counts().is_none() {
            let tables = matrix::check_gate_tables(case)
                .and_then(|t| t.into_result())
                .unwrap_or_else(|e| panic!("bench matrix refused to time: {e}"));
            checked.record_tables(&tables, case.path, case.n);
            continue;
        }
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
    let (squares, others): (Vec<&GateCase>, Vec<&GateCase>) =
        cases.iter().partition(|c| c.game.counts().is_some());
    let names = |of: &[&GateCase], f: fn(&GateCase) -> &Vec<&'static str>| {
        let mut all: Vec<&str> = of.iter().flat_map(|c| f(c).iter().copied()).collect();
        all.sort_unstable();
        all.dedup();
        all.join(", ")
    };
    let paths = |of: &[&GateCase]| {
        1 + of
            .iter()
            .filter_map(|c| c.path)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    };
    if !squares.is_empty() {
        let mut ns: Vec<usize> = squares.iter().map(|c| c.n).collect();
        ns.dedup();
        eprintln!(
            "agreement gate: {} benchmarks; tables [{}] and counts [{}] agree with the judges at N = {ns:?} on {} path(s) ({:.1} s)",
            selected.len(),
            names(&squares, |c| &c.tables),
            names(&squares, |c| &c.counts),
            paths(&squares),
            start.elapsed().as_secs_f64()
        );
    }
    if !others.is_empty() {
        let mut games: Vec<String> = others
            .iter()
            .map(|c| format!("{} at N = {}", c.game.describe(), c.n))
            .collect();
        games.dedup();
        eprintln!(
            "agreement gate: tables [{}] agree with their workloads' judges ({}) on {} path(s) ({:.1} s)",
            names(&others, |c| &c.tables),
            games.join(", "),
            paths(&others),
            start.elapsed().as_secs_f64()
        );
    }
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
    for g in Group::of(selected) {
        let mut group = c.benchmark_group(g.name());
        for b in selected.iter().filter(|b| b.group == g) {
            if g != Group::Count {
                group.throughput(Throughput::Elements(b.game.option_steps(b.n) as u64));
            }
            if args.runs_benchmarks() {
                size(&mut group, grid, args, checked.seconds(b));
            }
            let id = BenchmarkId::new(b.function(), b.n);
            let builder = b.table.map(|t| t.make());
            let counter = b.count.map(|c| (c.make)());
            let game = &b.game;
            on_path(b.path, || match (builder.as_ref(), counter.as_deref()) {
                (Some(builder), None) => {
                    group.bench_with_input(id, &b.n, |bench, &n| {
                        bench.iter(|| builder.build(black_box(game), black_box(n)).expect("gated"))
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
                            let t = builder.build(black_box(game), black_box(n)).expect("gated");
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

/// The end-of-run summary: this run's estimates read back from criterion's folder (only those
/// written since `since`, only the selected ids), each back-end's ratio to the reference of
/// its group and N, printed as a table and written as `matrix.csv` and `matrix.json` into
/// `$NIMSQUARE_MATRIX_OUT` (default `target/bench-results`).
fn summarize(selected: &[Bench], ratio_to: Option<&str>, since: SystemTime) {
    let dir = matrix_report::criterion_dir();
    let ids: Vec<String> = selected.iter().map(Bench::id).collect();
    let mut rows = match matrix_report::read_criterion(&dir, "new", Some(since)) {
        Ok(rows) => rows,
        Err(e) => {
            eprintln!("summary: {e}");
            return;
        }
    };
    rows.retain(|r| ids.contains(&r.id()));
    if rows.is_empty() {
        eprintln!(
            "summary: no estimates of this run under {} (set CRITERION_HOME if criterion writes elsewhere)",
            dir.display()
        );
        return;
    }
    matrix_report::add_ratios(&mut rows, ratio_to);
    print!("\n{}", matrix_report::summary_table(&rows));
    let out = std::env::var_os("NIMSQUARE_MATRIX_OUT")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from("target/bench-results"), PathBuf::from);
    match matrix_report::write_files(&out, &rows) {
        Ok((csv, json)) => println!(
            "wrote {} and {} ({} benchmarks)",
            csv.display(),
            json.display(),
            rows.len()
        ),
        Err(e) => eprintln!("summary: {e}"),
    }
}

fn main() {
    // Cargo runs a bench in its package's folder, here benches/ (a workspace member of its
    // own); the relative paths below (target/criterion, target/bench-results and a relative
    // NIMSQUARE_MATRIX_OUT) are the workspace root's.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if let Err(e) = std::env::set_current_dir(&root) {
        eprintln!(
            "error: cannot enter the workspace folder {}: {e}",
            root.display()
        );
        std::process::exit(2);
    }
    let since = SystemTime::now();
    let args = BenchArgs::parse(std::env::args().skip(1));
    let grid = Grid::from_env();
    let refuse = |e: String| -> ! {
        eprintln!("error: {e}");
        std::process::exit(2)
    };
    let selected = matrix::select(&matrix::benches(&grid), &args).unwrap_or_else(|e| refuse(e));
    if let Some(e) = matrix::refuse_empty(&args, &selected) {
        refuse(e);
    }
    let ratio_to = matrix::ratio_to(
        std::env::var(matrix::RATIO_TO_VARIABLE).ok().as_deref(),
        &selected,
    )
    .unwrap_or_else(|e| refuse(e));
    let checked = if args.runs_benchmarks() {
        gate(&selected)
    } else {
        Checked::default()
    };
    // Set before `configure_from_args`, so `--noise-threshold` and `--significance-level` on
    // the command line still win (the values and why: `matrix::NOISE_THRESHOLD`).
    let mut c = Criterion::default()
        .noise_threshold(matrix::NOISE_THRESHOLD)
        .significance_level(matrix::SIGNIFICANCE_LEVEL)
        .with_profiler(PProfProfiler::new(100, Output::Flamegraph(None)))
        .configure_from_args();
    run(&mut c, &grid, &args, &selected, &checked);
    c.final_summary();
    if args.saves_estimates() {
        summarize(&selected, ratio_to.as_deref(), since);
    }
}
