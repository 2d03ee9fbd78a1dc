//! The bench matrix's grid, ids and selection, shared by `benches/matrix.rs` and the tests,
//! so that what the tests check is the bench's own list, not a copy of it.
//!
//! The matrix times every fast back-end of the registries: `table/<name>/<N>` at each table
//! N, `count/<name>/<N>` on the table of each count N, `solve/<table>+<count>/<N>` end to
//! end, and `<workload>/<name>/<rules>/<N>` for each other game of the grid ([`Grid::games`]:
//! `octal/octal-sparse/0.6/100000`). Every table group is one loop over a [`Subject`]'s
//! back-ends, so a workload that builds another kind of table enters with its games in the
//! grid, one line each. A back-end with vector kernels is timed on every path the CPU supports: on the
//! active path (`--isa`, by default the widest) under its plain name, on each other path as
//! `<name>@<path>` (so `table/stamped-lanes/100000` is the path a user runs by default, and
//! `table/stamped-lanes@scalar/100000` its scalar twin).
//!
//! The bench reads its own command line ([`BenchArgs`]) the way criterion 0.5 does (which
//! exposes no filter), so it can gate exactly the benchmarks it will time ([`select`]) and
//! nothing for `--help` or `--list`.

use crate::base::error::{Error, Result};
use crate::base::isa::{self, Isa};
use crate::count::{self, Counter};
use crate::instruments::check::{self, Case};
use crate::registry::{self, Entry};
use crate::run::workload::{parse_spec, squares, Backend, Subject};
use crate::table;
use std::time::Duration;

/// A count back-end's registry entry.
pub type CountEntry = &'static Entry<dyn Counter>;

/// The limits of each group and the default measurement budget of one benchmark.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub table: Vec<usize>,
    pub count: Vec<usize>,
    pub solve: Vec<usize>,
    /// The games timed beside the squares, as `workload:rules`
    /// ([`crate::run::workload::parse_spec`]), each with its limits: sizes every fast
    /// back-end of the workload builds in about a second or less on the active path (for the
    /// octal games: `octal-vector` is quadratic, and `octal-sparse` has no sparse space on a
    /// periodic game such as 0.137).
    pub games: Vec<(&'static str, Vec<usize>)>,
    /// Measurement time of a benchmark whose single run is short.
    pub measure: Duration,
    pub warm_up: Duration,
}

impl Grid {
    /// The full matrix: tables at 10^4, 10^5 and 10^6, counts at 10^5 and 10^6, solves at
    /// 10^5, Officers (0.6) and Dawson's chess (0.137) at 10^4 and 10^5, the finite set
    /// {1, 3, 4} at 10^5 and 10^6.
    pub fn full() -> Grid {
        Grid {
            table: vec![10_000, 100_000, 1_000_000],
            count: vec![100_000, 1_000_000],
            solve: vec![100_000],
            games: vec![
                ("octal:0.6", vec![10_000, 100_000]),
                ("octal:0.137", vec![10_000, 100_000]),
                ("finite:1,3,4", vec![100_000, 1_000_000]),
            ],
            measure: Duration::from_secs(3),
            warm_up: Duration::from_secs(1),
        }
    }

    /// The smoke grid of the scripts (`NIMSQUARE_QUICK=1`): N = 10^3 and 10^4, short runs.
    pub fn quick() -> Grid {
        Grid {
            table: vec![1_000, 10_000],
            count: vec![10_000],
            solve: vec![10_000],
            games: vec![
                ("octal:0.6", vec![1_000, 10_000]),
                ("octal:0.137", vec![10_000]),
                ("finite:1,3,4", vec![10_000]),
            ],
            measure: Duration::from_millis(300),
            warm_up: Duration::from_millis(100),
        }
    }

    /// [`Grid::quick`] when `NIMSQUARE_QUICK` is set to anything but `0`, else [`Grid::full`].
    pub fn from_env() -> Grid {
        match std::env::var("NIMSQUARE_QUICK") {
            Ok(v) if !v.is_empty() && v != "0" => Grid::quick(),
            _ => Grid::full(),
        }
    }
}

/// The group a benchmark belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// Tables of one workload alone, named by it (`table`, `octal`).
    Build(&'static str),
    Count,
    Solve,
}

impl Group {
    /// The group's name, the first part of an id.
    pub fn name(self) -> &'static str {
        match self {
            Group::Build(workload) => workload,
            Group::Count => "count",
            Group::Solve => "solve",
        }
    }

    /// The group whose benchmarks build the tables of `game` alone.
    pub fn building(game: &Subject) -> Group {
        Group::Build(game.stage())
    }

    /// The groups of `benches`, in the order they first appear (the order they run).
    pub fn of(benches: &[Bench]) -> Vec<Group> {
        let mut out: Vec<Group> = Vec::new();
        for b in benches {
            if !out.contains(&b.group) {
                out.push(b.group);
            }
        }
        out
    }
}

/// One benchmark of the matrix.
#[derive(Clone)]
pub struct Bench {
    pub group: Group,
    /// The game whose table is built (the squares for the table, count and solve groups).
    pub game: Subject,
    /// The back-end that builds the table (table, octal and solve benchmarks).
    pub table: Option<Backend>,
    /// The count back-end (count and solve benchmarks).
    pub count: Option<CountEntry>,
    /// The vector path forced while it runs; `None` runs on the active path.
    pub path: Option<Isa>,
    pub n: usize,
}

impl Bench {
    /// The middle part of the id: `name`, `name@path` or `table+count`.
    pub fn name(&self) -> String {
        let base = match (self.group, self.table, self.count) {
            (Group::Solve, Some(t), Some(c)) => format!("{}+{}", t.name(), c.name),
            (_, Some(t), None) => t.name().to_string(),
            (_, None, Some(c)) => c.name.to_string(),
            _ => unreachable!("every benchmark names its back-ends"),
        };
        match self.path {
            Some(p) => format!("{base}@{p}"),
            None => base,
        }
    }

    /// The function part of criterion's id: [`Bench::name`], then `/<rules>` for a game
    /// other than the squares (so each game's benchmarks are compared among themselves).
    pub fn function(&self) -> String {
        if self.game == squares() {
            self.name()
        } else {
            format!("{}/{}", self.name(), self.game.label())
        }
    }

    /// The whole id criterion shows and filters on: `group/name/N`, or
    /// `workload/name/rules/N` (`octal/octal-sparse/0.6/10000`).
    pub fn id(&self) -> String {
        format!("{}/{}/{}", self.group.name(), self.function(), self.n)
    }
}

/// The paths a back-end is timed on: the active one (`None`), then every other supported
/// one when it has vector kernels.
fn paths(follows_isa: bool) -> Vec<Option<Isa>> {
    let mut out = vec![None];
    if follows_isa {
        let active = isa::active();
        out.extend(
            Isa::supported_all()
                .into_iter()
                .filter(|&p| p != active)
                .map(Some),
        );
    }
    out
}

/// Every benchmark of the matrix on `grid`, in the order they run: the fast back-ends of
/// the registries (controls are checked, never timed).
pub fn benches(grid: &Grid) -> Vec<Bench> {
    let squares = squares();
    let tables: Vec<Backend> = squares.fast();
    let counts: Vec<CountEntry> = registry::fast(count::BACKENDS).collect();
    let mut out = Vec::new();
    let builds = |game: &Subject, limits: &[usize], out: &mut Vec<Bench>| {
        for &n in limits {
            for t in game.fast() {
                for path in paths(t.follows_isa()) {
                    out.push(Bench {
                        group: Group::building(game),
                        game: game.clone(),
                        table: Some(t),
                        count: None,
                        path,
                        n,
                    });
                }
            }
        }
    };
    builds(&squares, &grid.table, &mut out);
    for &n in &grid.count {
        for &c in &counts {
            for path in paths(c.follows_isa()) {
                out.push(Bench {
                    group: Group::Count,
                    game: squares.clone(),
                    table: None,
                    count: Some(c),
                    path,
                    n,
                });
            }
        }
    }
    for &n in &grid.solve {
        for &t in &tables {
            for &c in &counts {
                out.push(Bench {
                    group: Group::Solve,
                    game: squares.clone(),
                    table: Some(t),
                    count: Some(c),
                    path: None,
                    n,
                });
            }
        }
    }
    for (spec, limits) in &grid.games {
        let game = parse_spec(spec).expect("the grid's games parse");
        builds(&game, limits, &mut out);
    }
    out
}

/// What the bench's command line asks, read the way criterion 0.5 reads it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BenchArgs {
    /// The FILTER: a regular expression an id must match (or, with `--exact`, equal).
    pub filter: Option<String>,
    pub exact: bool,
    /// `--list`: criterion lists the ids and times nothing.
    pub list: bool,
    /// `--help` or `--version`: criterion prints and exits.
    pub help: bool,
    /// `--ignored`: criterion runs nothing.
    pub ignored: bool,
    /// `--test`: every benchmark runs once.
    pub test: bool,
    /// `--profile-time`: benchmarks run under the profiler, nothing is analysed.
    pub profile: bool,
    /// `--load-baseline` or `--discard-baseline`: criterion saves no new estimates.
    pub saves_nothing: bool,
    /// Times given on the command line, which win over the grid's own.
    pub warm_up_time: bool,
    pub measurement_time: bool,
    pub sample_size: bool,
}

/// Criterion 0.5's options that take a value (the next argument is not a filter).
const TAKES_VALUE: &[&str] = &[
    "--color",
    "-c",
    "--save-baseline",
    "-s",
    "--baseline",
    "-b",
    "--baseline-lenient",
    "--format",
    "--profile-time",
    "--load-baseline",
    "--sample-size",
    "--warm-up-time",
    "--measurement-time",
    "--nresamples",
    "--noise-threshold",
    "--confidence-level",
    "--significance-level",
    "--plotting-backend",
    "--output-format",
];

impl BenchArgs {
    /// Reads the arguments after the program name.
    pub fn parse(args: impl IntoIterator<Item = String>) -> BenchArgs {
        let mut out = BenchArgs::default();
        let mut args = args.into_iter();
        while let Some(a) = args.next() {
            let (flag, inline_value) = match a.split_once('=') {
                Some((f, _)) if f.starts_with("--") => (f.to_string(), true),
                _ => (a.clone(), false),
            };
            match flag.as_str() {
                "--list" => out.list = true,
                "--help" | "-h" | "--version" | "-V" => out.help = true,
                "--exact" => out.exact = true,
                "--ignored" => out.ignored = true,
                "--test" => out.test = true,
                "--profile-time" => out.profile = true,
                "--load-baseline" | "--discard-baseline" => out.saves_nothing = true,
                "--warm-up-time" => out.warm_up_time = true,
                "--measurement-time" => out.measurement_time = true,
                "--sample-size" => out.sample_size = true,
                _ => {}
            }
            if TAKES_VALUE.contains(&flag.as_str()) && !inline_value {
                args.next();
            } else if !a.starts_with('-') && out.filter.is_none() {
                out.filter = Some(a);
            }
        }
        out
    }

    /// True when criterion will time (or, with `--test`, run) benchmarks: what needs the
    /// agreement gate first.
    pub fn runs_benchmarks(&self) -> bool {
        !(self.help || self.list || self.ignored)
    }

    /// True when criterion will measure and save estimates (`new/estimates.json`) that the
    /// summary at the end of a run reads back: not for `--test`, `--profile-time`,
    /// `--load-baseline` or `--discard-baseline`.
    pub fn saves_estimates(&self) -> bool {
        self.runs_benchmarks() && !self.test && !self.profile && !self.saves_nothing
    }

    /// True when `id` passes the filter as criterion applies it; an invalid regular
    /// expression is reported as an error (criterion would panic on it).
    pub fn matches(&self, id: &str) -> std::result::Result<bool, String> {
        match &self.filter {
            None => Ok(true),
            Some(f) if self.exact => Ok(id == f),
            Some(f) => regex::Regex::new(f)
                .map(|r| r.is_match(id))
                .map_err(|e| format!("the filter '{f}' is not a regular expression: {e}")),
        }
    }
}

/// The benchmarks of `all` that `args` will run: none for `--ignored`, the filter's matches
/// otherwise (also for `--list`, which lists exactly those).
pub fn select(all: &[Bench], args: &BenchArgs) -> std::result::Result<Vec<Bench>, String> {
    if args.ignored {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for b in all {
        if args.matches(&b.id())? {
            out.push(b.clone());
        }
    }
    Ok(out)
}

/// The one-line refusal of a command line whose filter selects nothing (`--help` and
/// `--ignored` select nothing by design), for the bench to print before exiting with status
/// 2: a filter that matches nothing must not pass for a run.
pub fn refuse_empty(args: &BenchArgs, selected: &[Bench]) -> Option<String> {
    (selected.is_empty() && !args.help && !args.ignored).then(|| {
        format!(
            "no benchmark matches the filter '{}' (ids look like table/stamped-lanes/100000 or table/stamped-lanes@scalar/100000; `cargo bench --bench matrix -- --list` lists them)",
            args.filter.as_deref().unwrap_or("")
        )
    })
}

/// The environment variable naming the back-end the end-of-run summary takes ratios to
/// (default: the fastest of each group and N).
pub const RATIO_TO_VARIABLE: &str = "NIMSQUARE_RATIO_TO";

/// The back-end of `value` (the [`RATIO_TO_VARIABLE`]), checked against `selected`: `None`
/// when unset or empty, an error naming the back-ends when no selected benchmark has it.
pub fn ratio_to(
    value: Option<&str>,
    selected: &[Bench],
) -> std::result::Result<Option<String>, String> {
    let Some(name) = value.filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let mut names: Vec<String> = selected.iter().map(Bench::name).collect();
    names.sort();
    names.dedup();
    if names.iter().any(|n| n == name) {
        Ok(Some(name.to_string()))
    } else {
        Err(format!(
            "{RATIO_TO_VARIABLE}='{name}' is not among the selected back-ends; use one of: {}",
            names.join(", ")
        ))
    }
}

/// Criterion's noise threshold for its "change within noise" verdict against the previous
/// run (its default is 1%). On the shared 2-core development machines the same build moves
/// by up to ±17% between runs, so at 1% nearly every benchmark reads as a significant change.
/// 10% keeps drift of a few percent quiet but not the largest (no threshold below 17% can),
/// and a threshold above that would hide real slowdowns worth seeing; so the verdict stays a
/// hint. It never changes the exit status: the gate is `bench-check` (`matrix_check`), with
/// both intervals and a threshold chosen from an A/A run on the machine at hand.
pub const NOISE_THRESHOLD: f64 = 0.10;

/// Criterion's significance level for the same verdict (its default is 0.05): with 100
/// benchmarks in a run, 0.05 flags about five unchanged ones by chance alone.
pub const SIGNIFICANCE_LEVEL: f64 = 0.01;

/// What the agreement gate checks for a selection: at each N, on each path (`None`: the
/// active one), the table and count back-ends to run against the judges. Solve benchmarks
/// add their table and count on the active path; a count alone adds nothing to the tables
/// (the judge's table is counted).
#[derive(Debug, Clone, PartialEq)]
pub struct GateCase {
    /// The game whose tables are built (the squares for the table, count and solve groups).
    pub game: Subject,
    pub n: usize,
    pub path: Option<Isa>,
    pub tables: Vec<&'static str>,
    pub counts: Vec<&'static str>,
}

/// The gate of `selected`, one case per (game, N, path): the squares' first, then each
/// other game in the grid's order, each in ascending N with the active path first; exactly
/// the back-ends, paths and N that will be timed.
pub fn gate_cases(selected: &[Bench]) -> Vec<GateCase> {
    let mut cases: Vec<GateCase> = Vec::new();
    let mut games: Vec<Subject> = Vec::new();
    for b in selected {
        if !games.contains(&b.game) {
            games.push(b.game.clone());
        }
        let i = match cases
            .iter()
            .position(|c| c.game == b.game && c.n == b.n && c.path == b.path)
        {
            Some(i) => i,
            None => {
                cases.push(GateCase {
                    game: b.game.clone(),
                    n: b.n,
                    path: b.path,
                    tables: Vec::new(),
                    counts: Vec::new(),
                });
                cases.len() - 1
            }
        };
        let case = &mut cases[i];
        if let Some(t) = b.table {
            if !case.tables.contains(&t.name()) {
                case.tables.push(t.name());
            }
        }
        if let Some(c) = b.count {
            if !case.counts.contains(&c.name) {
                case.counts.push(c.name);
            }
        }
    }
    let rank = |p: Option<Isa>| p.map_or(0, |p| 1 + p as usize);
    let game_rank = |g: &Subject| {
        let i = games
            .iter()
            .position(|x| x == g)
            .expect("a game of the selection");
        (*g != squares(), i)
    };
    cases.sort_by_key(|c| (game_rank(&c.game), c.n, rank(c.path)));
    cases
}

/// The agreement gate's check of one case: the squares at the case's N, on its path (`None`:
/// the active one, nothing forced), the judge's table and the case's tables against the
/// judges, each case's counters on every table; disagreements are in the report
/// ([`check::Report::into_result`]). The judge's table is always among the tables, so a count
/// selected alone is run on it. What `benches/matrix.rs` runs before timing anything, and
/// what the tests call.
pub fn check_gate_case(case: &GateCase) -> Result<check::Report> {
    let Some(moves) = case.game.counts() else {
        return Err(Error::Invalid(format!(
            "the gate case of {} builds tables only: check it with check_gate_tables",
            case.game.describe()
        )));
    };
    let c = Case {
        moves: moves.clone(),
        limit: case.n,
        heaps: 3,
    };
    let judge = check::table_judge(case.n);
    let mut tables = vec![judge];
    for name in &case.tables {
        let e = table::find(name)?;
        if e.name != judge.name {
            tables.push(e);
        }
    }
    let counts = case
        .counts
        .iter()
        .map(|n| count::find(n))
        .collect::<Result<Vec<_>>>()?;
    let run = || check::check(&c, &tables, &counts, &[]);
    match case.path {
        Some(path) => isa::with(path, run)?,
        None => run(),
    }
}

/// The agreement gate's check of a case's tables alone, for any game: the judge's table
/// ([`Subject::judge`]: the stage's control where it affords N, else its reference) and each
/// of the case's table back-ends built on its path and compared with it
/// ([`check::against_judge`]); disagreements are in the result
/// ([`check::Tables::into_result`]). What the bench runs for the octal group.
pub fn check_gate_tables(case: &GateCase) -> Result<check::Tables> {
    let backends = case
        .tables
        .iter()
        .map(|name| case.game.find(name))
        .collect::<Result<Vec<_>>>()?;
    gate_tables(&case.game, case.n, case.path, &backends)
}

/// [`check_gate_tables`] on back-ends given directly (a test's deliberately wrong one).
pub fn gate_tables(
    game: &Subject,
    n: usize,
    path: Option<Isa>,
    backends: &[Backend],
) -> Result<check::Tables> {
    let run = || check::against_judge(game, n, backends);
    match path {
        Some(path) => isa::with(path, run)?,
        None => run(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> BenchArgs {
        BenchArgs::parse(a.iter().map(|s| s.to_string()))
    }

    #[test]
    fn the_filter_is_the_first_free_argument_not_an_options_value() {
        let a = args(&[
            "--bench",
            "--warm-up-time",
            "1",
            "table/stamped",
            "--measurement-time=2",
        ]);
        assert_eq!(a.filter.as_deref(), Some("table/stamped"));
        assert!(a.warm_up_time && a.measurement_time && !a.sample_size);
        assert!(a.runs_benchmarks());
        assert!(!args(&["--list"]).runs_benchmarks());
        assert!(!args(&["--help"]).runs_benchmarks());
        assert_eq!(args(&["--save-baseline", "x"]).filter, None);
        assert!(args(&["--bench", "x"]).saves_estimates());
        for a in [
            &["--test"][..],
            &["--profile-time", "5"],
            &["--list"],
            &["--load-baseline", "b"],
            &["--discard-baseline"],
        ] {
            assert!(!args(a).saves_estimates(), "{a:?}");
        }
    }

    #[test]
    fn exact_and_regex_filters_match_like_criterion() {
        let a = args(&["table/stamped-lanes/100000"]);
        assert!(a.matches("table/stamped-lanes/100000").unwrap());
        assert!(!a.matches("table/stamped-lanes@scalar/100000").unwrap());
        let e = args(&["--exact", "table/stamped"]);
        assert!(!e.matches("table/stamped-lanes/100000").unwrap());
        assert!(args(&["("]).matches("x").is_err());
    }
}
