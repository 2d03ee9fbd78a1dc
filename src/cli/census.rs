//! `nimsquare census`: every octal code of up to D digits (or those `--codes` names, or one
//! `--shard` of them), its period or "open", with the provenance of the run; and `census
//! merge`, which joins the rows files of a job array's shards.
//!
//! [`nimsquare::census`] builds the rows, [`nimsquare::census::plan`] chooses
//! the codes and the shards, [`nimsquare::run::longrun::censusfile`] keeps the rows file;
//! this file decides everything from the flags before any work, shows the progress and prints.
//!
//! Invariant: with `--out FILE` (a regular file) every row is in FILE, synced, before the
//! progress counts it; nothing is written over an existing FILE without `--force`, and
//! `--resume` only ever appends to a file of the same census.

use super::args::{count_usize, limit_parser};
use super::common::{exit_status_for, fmt_seconds, CliResult};
use nimsquare::base::error::{Error, Result};
use nimsquare::base::limit::Limit;
use nimsquare::base::paths::{decide_output, decide_replaced_file, write_output, Output};
use nimsquare::base::provenance::{cpu_model, git_rev, utc_date_today};
use nimsquare::census::plan::{self, estimated_cost, shares, Selection, Shard};
use nimsquare::census::{self, order_key, Row, Watcher, MAX_DIGITS};
use nimsquare::octal::method::period::Verdict;
use nimsquare::octal::OctalPlan;
use nimsquare::octal::Rules;
use nimsquare::run::longrun::censusfile::{self, Format, Header, Made, Rows, RowsFile};
use nimsquare::run::longrun::signals::{interrupted, SignalGuard};
use nimsquare::run::report::{self, Report};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// N when --limit is not given: about a minute for D = 3 with the quadratic control.
pub const DEFAULT_CENSUS_LIMIT: &str = "1000";

/// D when neither --digits nor --codes is given.
pub const DEFAULT_DIGITS: usize = 3;

/// The interval between two progress lines when stderr is not a terminal (a batch job's
/// log), unless `NIMSQUARE_PROGRESS_EVERY` says otherwise: a census is many short jobs, so
/// a line every few seconds shows it alive without flooding a day-long log (17 000 lines).
pub const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// The interval between two redraws of the progress line on a terminal.
const REDRAW_EVERY: Duration = Duration::from_millis(500);

/// The long help of `census`.
pub const LONG_ABOUT: &str = "Builds every octal game 0.d1..dk and 4.d1..dk for k = 1..=D \
    with dk != 0 (each code once; 1022 codes for D = 3, 65534 for D = 5) up to N and reports \
    for each the period and preperiod proved by the theorem of Guy and Smith (see `nimsquare \
    octal --help`), or 'open' when none is proved up to N, the largest value and the rare \
    positions of the rare/common split (empty or '-' when there is none). Every row names the \
    back-end, the build, the CPU and the date, and what the code cost: the seconds of its \
    table and period check, and positions (N + 1) a second.\n\n\
    Output: a text table (default), --csv (header code,limit,status,preperiod,period,max_value,\
    rare,backend,build,cpu,date,seconds,positions_per_second) or --json (one object with a \
    `rows` array) on stdout.\n\n\
    --out FILE (a regular file) keeps the rows durably: each row is appended to FILE and synced \
    the moment its code finishes (CSV, or JSON Lines with --json), so a kill loses only the \
    codes in flight. The first line names the census (`# census {...}` in CSV, \
    `{\"census\": {...}}` in JSON Lines). An existing FILE is refused unless --force (start \
    again) or --resume (skip the codes FILE holds and finish the rest; refused if FILE is of \
    another limit, digit range, code selection, back-end, shard or format). When the census \
    is complete FILE is rewritten with its rows in code order: the same file one uninterrupted \
    run writes. Ctrl-C or SIGTERM stops it after the codes in flight (a second one at once). \
    --out - (stdout), a FIFO or a device gets the text, CSV or JSON at the end instead.\n\n\
    Job arrays: --shard I/K (0 <= I < K) takes a fixed share of the codes, balanced by each \
    code's estimated cost (its option steps: every split pair counted once), the same for \
    every I; `census merge SHARD_FILES... --out FILE` joins the shards' rows files into the \
    whole census, refusing files of different censuses, a shard twice or missing, or a shard \
    not finished. With Slurm: `sbatch --array=0-3` running `nimsquare census --shard \
    $SLURM_ARRAY_TASK_ID/4 --out part-$SLURM_ARRAY_TASK_ID.csv --resume`.\n\n\
    MPI (a build with --features mpi): `mpirun -n P nimsquare census ...` makes rank 0 the \
    coordinator: it plans and refuses exactly as above, hands the codes out to the other \
    ranks most expensive first, writes each row to --out as it arrives and prints what one \
    process prints; the rows' cpu column names the workers' CPUs. Each other rank builds as \
    many codes at once as it has threads: start one rank per node, plus rank 0, which mostly \
    sleeps, with `mpirun --bind-to none` (Open MPI binds each rank to one core or socket \
    otherwise, and a rank bound to one core builds on one thread). A rank that dies ends the whole \
    job (MPI's default); the rows received are in --out, and the same command with \
    --resume (under mpirun or not) finishes the census. Without a launcher, or with -n 1, \
    it is the census above. scripts/census-slurm.sh runs both ways under Slurm.\n\n\
    Progress on stderr (hidden by --quiet): on a terminal one line redrawn, elsewhere one line \
    every 5 seconds (NIMSQUARE_PROGRESS_EVERY seconds when set): codes done of the total, \
    positions a second, an ETA from the estimated costs, and the slowest code in flight.\n\n\
    Examples: nimsquare census --digits 2 --limit 1000 --csv\n\
    nimsquare census --digits 4 --codes 0.6,0.137,4.1..4.17 --limit 1e5 --out open.csv";

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("format").args(["csv", "json"])))]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    command: Option<Sub>,
    /// The most digits after the point, D (1 to 5; default 3, or 5 with --codes).
    #[arg(long, value_name = "D", value_parser = count_usize(1, MAX_DIGITS),
          allow_hyphen_values = true)]
    digits: Option<usize>,
    /// Only these codes: a list (0.07,0.6), an inclusive range in census order (4.1..4.17),
    /// or @FILE (a file of codes or ranges, `#` comments), mixed by commas.
    #[arg(long, value_name = "LIST")]
    codes: Option<String>,
    /// The largest heap size N of every table (default 1000).
    #[arg(long, short = 'n', value_name = "N", default_value = DEFAULT_CENSUS_LIMIT,
          value_parser = limit_parser(), allow_hyphen_values = true)]
    limit: Limit,
    /// The octal back-end (default: `octal-block`).
    #[arg(long, value_name = "NAME")]
    backend: Option<String>,
    /// Only shard I of K (0 <= I < K), a fixed share balanced by estimated cost: for job
    /// arrays; join the shards' --out files with `census merge`.
    #[arg(long, value_name = "I/K", allow_hyphen_values = true)]
    shard: Option<String>,
    /// Write CSV rows.
    #[arg(long)]
    csv: bool,
    /// Write one JSON object (JSON Lines in an --out file).
    #[arg(long)]
    json: bool,
    /// Append each row to FILE as its code finishes, synced (refused if FILE exists, unless
    /// --force or --resume).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Replace an existing --out.
    #[arg(long, conflicts_with = "resume")]
    force: bool,
    /// Finish the census in --out FILE: skip the codes it holds, append the rest.
    #[arg(long, requires = "out")]
    resume: bool,
    /// No progress line on stderr.
    #[arg(long)]
    quiet: bool,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// Join the --out files of the shards of one census (`--shard I/K`) into the whole
    /// census, in code order; refuses files of different censuses, overlaps and gaps.
    Merge(MergeArgs),
}

#[derive(clap::Args)]
struct MergeArgs {
    /// The shards' rows files, one per shard, in any order.
    #[arg(required = true, value_name = "FILES")]
    files: Vec<PathBuf>,
    /// Write the whole census to FILE (default: stdout); refused if FILE exists, unless
    /// --force.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Replace an existing --out.
    #[arg(long)]
    force: bool,
}

/// Where the rows go.
enum Sink {
    /// Kept in memory and printed at the end (stdout, a FIFO, a device).
    Memory(Output, Mutex<Vec<Row>>),
    /// Appended to a rows file as they come.
    File {
        path: PathBuf,
        file: RowsFile,
        rows: Mutex<Rows>,
    },
}

pub fn run(args: Args) -> CliResult {
    if let Some(Sub::Merge(m)) = args.command {
        return merge(m);
    }
    // Started by an MPI launcher (the `mpi` feature): the other ranks only build rows for
    // rank 0, which goes on below as the census and hands the codes out (census_mpi.rs).
    #[cfg(feature = "mpi")]
    let mut mpi = super::census_mpi::Mpi::start()?;
    #[cfg(feature = "mpi")]
    if let Some(worker) = mpi.as_mut().filter(|m| m.rank() > 0) {
        return worker.work();
    }
    #[cfg(not(feature = "mpi"))]
    refuse_launcher()?;
    // Everything decided before any work: the back-end, the shard, the codes, the output.
    let limit = args.limit.get();
    let entry = nimsquare::octal::plan::choose_backend(args.backend.as_deref(), limit)?;
    let shard = match &args.shard {
        Some(text) => Shard::parse(text)?,
        None => Shard::WHOLE,
    };
    let digits = args.digits.unwrap_or(if args.codes.is_some() {
        MAX_DIGITS
    } else {
        DEFAULT_DIGITS
    });
    let selection = plan::select(digits, args.codes.as_deref(), &|file| {
        std::fs::read_to_string(file)
    })?;
    let costs: Vec<u128> = selection
        .codes
        .iter()
        .map(|r| estimated_cost(r, limit))
        .collect();
    let owner = shares(&costs, shard.count);
    let share: Vec<usize> = (0..costs.len())
        .filter(|&i| owner[i] == shard.index)
        .collect();
    // The memory of one table and its scratch, checked once on the largest code of the share.
    let largest = share
        .iter()
        .max_by_key(|&&i| costs[i])
        .map(|&i| &selection.codes[i]);
    if let Some(big) = largest {
        OctalPlan::named(big.clone(), Some(entry.name), limit as u64)?;
    }
    // Under MPI the workers check it too, on their own nodes; the rows name their CPUs.
    #[cfg(feature = "mpi")]
    let cpu = match mpi.as_mut().filter(|m| m.size() > 1) {
        Some(coordinator) => coordinator.handshake(entry.name, limit, largest)?,
        None => cpu_model(),
    };
    #[cfg(not(feature = "mpi"))]
    let cpu = cpu_model();
    let made = Made {
        backend: entry.name.to_string(),
        build: git_rev(),
        cpu,
        date: utc_date_today(),
    };
    let format = if args.json {
        Format::JsonLines
    } else {
        Format::Csv
    };
    let header = Header {
        version: censusfile::VERSION,
        limit,
        digits,
        codes: selection.filter.clone().unwrap_or_else(|| "all".into()),
        selection: selection.fingerprint(),
        total: selection.codes.len(),
        backend: entry.name.to_string(),
        shard: shard.to_string(),
        share: share.len(),
    };
    let (sink, done) = decide_sink(&args, format, &header)?;
    // The codes still to do, most expensive first, so the longest never starts last.
    let in_share: BTreeMap<&str, usize> = share
        .iter()
        .map(|&i| (selection.codes[i].label(), i))
        .collect();
    if let Some(stray) = done
        .values()
        .find(|(code, _)| !in_share.contains_key(code.as_str()))
    {
        return Err(Error::Invalid(format!(
            "--resume: the file holds the code {}, which is not in this census; name another --out",
            stray.0
        )));
    }
    let mut todo: Vec<usize> = share
        .iter()
        .copied()
        .filter(|&i| {
            let key = order_key(selection.codes[i].label()).expect("a census code");
            !done.contains_key(&key)
        })
        .collect();
    todo.sort_by(|&a, &b| costs[b].cmp(&costs[a]).then(a.cmp(&b)));
    let list: Vec<Rules> = todo.iter().map(|&i| selection.codes[i].clone()).collect();
    let todo_costs: Vec<f64> = todo.iter().map(|&i| costs[i] as f64).collect();
    if let Sink::File { rows, .. } = &sink {
        *rows.lock().unwrap_or_else(|e| e.into_inner()) = done;
    }
    let tracker = Tracker::new(
        &args,
        share.len(),
        share.len() - list.len(),
        limit,
        todo_costs,
    );
    let watch = Watch {
        list: &list,
        tracker: &tracker,
        sink: &sink,
        format,
        made: &made,
    };
    // A signal stops a durable census between codes; without a file there is nothing to keep.
    let _guard = match sink {
        Sink::File { .. } => Some(SignalGuard::install()?),
        Sink::Memory(..) => None,
    };
    let result = std::thread::scope(|s| {
        s.spawn(|| tracker.tick_until_done());
        #[cfg(feature = "mpi")]
        let r = match mpi.as_mut().filter(|m| m.size() > 1) {
            Some(coordinator) => coordinator.run_each(&list, &watch),
            None => census::run_each(entry, &list, limit, &watch),
        };
        #[cfg(not(feature = "mpi"))]
        let r = census::run_each(entry, &list, limit, &watch);
        tracker.finish();
        r
    });
    result?;
    match sink {
        Sink::File { path, rows, .. } => {
            let rows = rows.into_inner().unwrap_or_else(|e| e.into_inner());
            if let Some(signal) = interrupted().filter(|_| rows.len() < share.len()) {
                eprintln!(
                    "census: stopped by {}: {} of {} codes in {}; the same command with --resume finishes it",
                    signal.name(),
                    rows.len(),
                    share.len(),
                    path.display()
                );
                return Ok(exit_status_for(signal));
            }
            censusfile::finish(&path, format, &header, &rows)?;
            Ok(0)
        }
        Sink::Memory(out, rows) => {
            let mut rows = rows.into_inner().unwrap_or_else(|e| e.into_inner());
            rows.sort_by_key(|r| order_key(&r.code));
            let report = Census {
                rows: &rows,
                made: &made,
                selection: &selection,
                shard,
                limit,
                csv: args.csv,
            };
            print(&out, &report, args.json)?;
            Ok(0)
        }
    }
}

/// Refuses a build without the `mpi` feature that an MPI launcher started as one of several
/// processes: each would run the whole census, and all but one would then be refused the
/// locked --out file, which makes the launcher end the job.
#[cfg(not(feature = "mpi"))]
fn refuse_launcher() -> Result<()> {
    let size = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse::<usize>().ok());
    match size {
        Some(p) if p > 1 => Err(Error::Invalid(format!(
            "started by an MPI launcher as one of {p} processes, but this nimsquare was built without MPI, so each would run the whole census; build it with `cargo build --release --features mpi`, or run it without the launcher"
        ))),
        _ => Ok(()),
    }
}

/// Decides where the rows go, before any work, and returns the rows already done (those of
/// the file `--resume` names).
fn decide_sink(args: &Args, format: Format, header: &Header) -> Result<(Sink, Rows)> {
    let memory = |out| (Sink::Memory(out, Mutex::new(Vec::new())), Rows::new());
    let Some(path) = &args.out else {
        return Ok(memory(Output::Stdout));
    };
    let file = |path: PathBuf, file: RowsFile, done: Rows| {
        (
            Sink::File {
                path,
                file,
                rows: Mutex::new(Rows::new()),
            },
            done,
        )
    };
    if args.resume {
        if path.as_os_str() == "-" {
            return Err(Error::Invalid(
                "--resume needs --out FILE, a regular file, not stdout".into(),
            ));
        }
        let target = decide_replaced_file(path, "--out", "census rows")?;
        if target.exists() {
            let (rows_file, done) = censusfile::resume(&target, format, header)?;
            return Ok(file(target, rows_file, done));
        }
        // Nothing to resume yet (the first run of a job that always passes --resume).
        let rows_file = censusfile::create(&target, format, header)?;
        return Ok(file(target, rows_file, Rows::new()));
    }
    if !args.force && path.as_os_str() != "-" && path.is_file() {
        return Err(Error::Invalid(format!(
            "--out {}: already exists; pass --resume to finish the census in it, --force to start again, or choose another name",
            path.display()
        )));
    }
    match decide_output(path, "--out", Some(args.force))? {
        Output::File(target) => {
            let rows_file = censusfile::create(&target, format, header)?;
            Ok(file(target, rows_file, Rows::new()))
        }
        other => Ok(memory(other)),
    }
}

/// The census's callbacks: rows to the sink, counts to the progress.
struct Watch<'a> {
    list: &'a [Rules],
    tracker: &'a Tracker,
    sink: &'a Sink,
    format: Format,
    made: &'a Made,
}

impl Watcher for Watch<'_> {
    fn started(&self, index: usize) {
        self.tracker.started(index, self.list[index].label());
    }

    fn finished(&self, index: usize, row: Row) -> Result<()> {
        match self.sink {
            Sink::Memory(_, rows) => rows.lock().unwrap_or_else(|e| e.into_inner()).push(row),
            Sink::File { file, rows, .. } => {
                let line = censusfile::encode(self.format, &row, self.made);
                file.append(&line)?;
                let key = order_key(&row.code).expect("a census code");
                rows.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(key, (row.code.clone(), line));
            }
        }
        self.tracker.finished(index);
        Ok(())
    }

    fn stop(&self) -> bool {
        matches!(self.sink, Sink::File { .. }) && interrupted().is_some()
    }
}

/// The progress of a census: what the progress line reports, updated from the workers and
/// read by one ticking thread.
struct Tracker {
    shown: bool,
    terminal: bool,
    every: Duration,
    started: Instant,
    limit: usize,
    total: usize,
    done: AtomicUsize,
    /// Positions of the codes finished by this run.
    positions: AtomicU64,
    /// The estimated cost of each code of the run's list, and the sum of those finished.
    costs: Vec<f64>,
    cost_done: Mutex<f64>,
    in_flight: Mutex<BTreeMap<usize, (String, Instant)>>,
    /// Set when the run is over: the ticking thread stops.
    over: (Mutex<bool>, std::sync::Condvar),
}

impl Tracker {
    fn new(args: &Args, total: usize, done: usize, limit: usize, costs: Vec<f64>) -> Tracker {
        let terminal = std::io::stderr().is_terminal();
        let every = if terminal {
            REDRAW_EVERY
        } else if std::env::var_os("NIMSQUARE_PROGRESS_EVERY").is_some() {
            nimsquare::run::longrun::progress::plain_every()
        } else {
            PLAIN_EVERY
        };
        Tracker {
            shown: !args.quiet,
            terminal,
            every,
            started: Instant::now(),
            limit,
            total,
            done: AtomicUsize::new(done),
            positions: AtomicU64::new(0),
            costs,
            cost_done: Mutex::new(0.0),
            in_flight: Mutex::new(BTreeMap::new()),
            over: (Mutex::new(false), std::sync::Condvar::new()),
        }
    }

    fn started(&self, index: usize, code: &str) {
        self.in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(index, (code.to_string(), Instant::now()));
    }

    fn finished(&self, index: usize) {
        self.in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&index);
        *self.cost_done.lock().unwrap_or_else(|e| e.into_inner()) += self.costs[index];
        self.positions
            .fetch_add(self.limit as u64 + 1, Ordering::Relaxed);
        self.done.fetch_add(1, Ordering::Relaxed);
    }

    /// `census: 312/1022 codes, 2.10e6 positions/s, ETA 3m 10s, slowest in flight 0.6 (41s)`.
    fn line(&self) -> String {
        let elapsed = self.started.elapsed().as_secs_f64();
        let done = self.done.load(Ordering::Relaxed);
        let rate = self.positions.load(Ordering::Relaxed) as f64 / elapsed.max(1e-9);
        let cost_done = *self.cost_done.lock().unwrap_or_else(|e| e.into_inner());
        let cost_all: f64 = self.costs.iter().sum();
        // The rate of estimated cost so far, carried over the cost still to do.
        let eta = if cost_done > 0.0 {
            nimsquare::run::longrun::progress::fmt_eta(
                elapsed * (cost_all - cost_done).max(0.0) / cost_done,
            )
        } else {
            "unknown".into()
        };
        let slowest = self
            .in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .min_by_key(|(_, since)| *since)
            .map(|(code, since)| {
                format!(
                    ", slowest in flight {code} ({})",
                    fmt_seconds(since.elapsed().as_secs_f64())
                )
            })
            .unwrap_or_default();
        format!(
            "census: {done}/{} codes up to N = {}, {rate:.3e} positions/s, ETA {eta}{slowest}",
            self.total, self.limit
        )
    }

    /// Prints the progress line every [`Tracker::every`] until [`Tracker::finish`].
    fn tick_until_done(&self) {
        let (lock, wake) = &self.over;
        let mut over = lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let (guard, _) = wake
                .wait_timeout(over, self.every)
                .unwrap_or_else(|e| e.into_inner());
            over = guard;
            if *over {
                return;
            }
            if self.shown {
                if self.terminal {
                    eprint!("\r{}\x1b[K", self.line());
                } else {
                    eprintln!("{}", self.line());
                }
            }
        }
    }

    /// Stops the ticking thread and prints the last line.
    fn finish(&self) {
        let (lock, wake) = &self.over;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        wake.notify_all();
        if self.shown {
            let lead = if self.terminal { "\r\x1b[K" } else { "" };
            eprintln!(
                "{lead}census: {}/{} codes up to N = {} in {}",
                self.done.load(Ordering::Relaxed),
                self.total,
                self.limit,
                fmt_seconds(self.started.elapsed().as_secs_f64())
            );
        }
    }
}

/// `census merge`: the shards' files joined, in code order, to --out or stdout.
fn merge(args: MergeArgs) -> CliResult {
    let out = match &args.out {
        Some(path) => decide_output(path, "--out", Some(args.force))?,
        None => Output::Stdout,
    };
    let all = |digits: usize| -> Result<Vec<String>> {
        Ok(census::codes(digits)?
            .iter()
            .map(|r| r.label().to_string())
            .collect())
    };
    let (format, header, rows) = censusfile::merge(&args.files, &all)?;
    let text = censusfile::sorted_text(format, &header, &rows);
    write_output(&out, "--out", |w| w.write_all(text.as_bytes()))?;
    Ok(0)
}

/// What a census prints at the end when no rows file keeps its rows: the rows in code order
/// with the census's provenance, as a text table, as CSV (`--csv`) or as one JSON object.
struct Census<'a> {
    rows: &'a [Row],
    made: &'a Made,
    selection: &'a Selection,
    shard: Shard,
    limit: usize,
    csv: bool,
}

impl Report for Census<'_> {
    fn text(&self, w: &mut dyn Write) -> std::io::Result<()> {
        // one write a buffer, not a line (a census has up to 65 534 rows)
        let mut w = std::io::BufWriter::new(w);
        if self.csv {
            writeln!(w, "{}", censusfile::CSV_COLUMNS)?;
            for row in self.rows {
                writeln!(w, "{}", censusfile::encode(Format::Csv, row, self.made))?;
            }
        } else {
            write_text(&mut w, self)?;
        }
        w.flush()
    }

    fn json(&self) -> serde_json::Value {
        let made = self.made;
        json!({
            "digits": self.selection.digits,
            "codes": self.selection.filter.as_deref().unwrap_or("all"),
            "shard": self.shard.to_string(),
            "limit": self.limit,
            "backend": made.backend,
            "build": made.build,
            "cpu": made.cpu,
            "date": made.date,
            "version": env!("CARGO_PKG_VERSION"),
            "rows": self.rows.iter().map(|r| {
                let mut v = super::octal::verdict_json(&r.verdict);
                let o = v.as_object_mut().expect("an object");
                o.insert("code".into(), r.code.clone().into());
                o.insert("limit".into(), r.limit.into());
                o.insert("max_value".into(), r.max_value.into());
                o.insert("rare".into(), r.rare.into());
                o.insert("seconds".into(), r.seconds.into());
                o.insert("positions_per_second".into(), r.positions_per_second().into());
                v
            }).collect::<Vec<_>>(),
        })
    }
}

/// Prints `report` where --out was decided to go: stdout through [`report::print`], a FIFO
/// or a device the same way in place.
fn print(out: &Output, census: &Census, json: bool) -> Result<()> {
    if let Output::Stdout = out {
        report::print(census, json);
        return Ok(());
    }
    write_output(out, "--out", |w: &mut dyn Write| {
        if json {
            writeln!(w, "{}", report::stamped(census.json()))
        } else {
            census.text(w)
        }
    })
}

/// The text table of [`Census`]: a line naming the census, one line a code, the tally.
fn write_text(w: &mut dyn Write, census: &Census) -> std::io::Result<()> {
    let Census {
        rows,
        made,
        selection,
        shard,
        limit,
        ..
    } = *census;
    let mut which = match selection.digits {
        1 => "census of the octal codes with 1 digit".to_string(),
        d => format!("census of the octal codes with 1 to {d} digits"),
    };
    if let Some(filter) = &selection.filter {
        which += &format!(" among {filter}");
    }
    if shard != Shard::WHOLE {
        which += &format!(", shard {shard}");
    }
    writeln!(
        w,
        "{which}, N = {limit}, back-end {}; build {}, cpu {}, {}",
        made.backend, made.build, made.cpu, made.date
    )?;
    writeln!(
        w,
        "{:<8} {:>10} {:>8} {:>10} {:>8} {:>10}",
        "code", "preperiod", "period", "max value", "rare", "seconds"
    )?;
    let mut open = 0;
    for row in rows {
        let rare = row.rare.map_or("-".to_string(), |r| r.to_string());
        let seconds = format!("{:.3}", row.seconds);
        match row.verdict {
            Verdict::Periodic(p) => writeln!(
                w,
                "{:<8} {:>10} {:>8} {:>10} {rare:>8} {seconds:>10}",
                row.code, p.preperiod, p.period, row.max_value
            )?,
            other => {
                open += 1;
                let status = if other == Verdict::Open {
                    "open"
                } else {
                    "not applicable"
                };
                writeln!(
                    w,
                    "{:<8} {:>19} {:>10} {rare:>8} {seconds:>10}",
                    row.code,
                    format!("{status} up to N"),
                    row.max_value
                )?;
            }
        }
    }
    writeln!(
        w,
        "{} codes: {} periodic, {open} open up to N = {limit}",
        rows.len(),
        rows.len() - open
    )
}
