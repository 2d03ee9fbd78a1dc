//! `nimsquare census`: every octal code of up to D digits (or those `--codes` names, or one
//! `--shard` of them), its period or "open", with the provenance of the run; and `census
//! merge`, which joins the rows files of a job array's shards; and `census report`, which
//! writes the atlas of a rows file ([`nimsquare::run::atlas`]).
//!
//! [`nimsquare::census::plan::CensusPlan`] decides the census from the flags before any
//! work, [`nimsquare::run::census::run`] runs it (the rows file, the progress, the signals,
//! MPI); this file parses, calls them, and prints the rows when no file keeps them.

use super::args::{count_usize, limit_parser};
use super::common::{exit_status_for, CliResult};
#[cfg(not(feature = "mpi"))]
use nimsquare::base::error::Error;
use nimsquare::base::error::Result;
use nimsquare::base::limit::Limit;
use nimsquare::base::paths::{decide_output, write_output, Output};
use nimsquare::census::plan::{CensusPlan, UntilFlags};
use nimsquare::census::{self, Row, MAX_DIGITS};
use nimsquare::run;
use nimsquare::run::census::report::Census;
use nimsquare::run::census::{Keep, Outcome};
use nimsquare::run::longrun::censusfile;
use nimsquare::run::report::{self, Report};
use std::io::Write;
use std::path::PathBuf;

/// N when --limit is not given: about a minute for D = 3 with the quadratic control.
pub const DEFAULT_CENSUS_LIMIT: &str = "1000";

/// The long help of `census`.
pub const LONG_ABOUT: &str = "Builds every octal game 0.d1..dk and 4.d1..dk for k = 1..=D \
    with dk != 0 (each code once; 1022 codes for D = 3, 65534 for D = 5) up to N and reports \
    for each the period and preperiod proved by the theorem of Guy and Smith (see `nimsquare \
    octal --help`), or 'open' when none is proved up to N, the largest value and the rare \
    positions of the rare/common split (empty or '-' when there is none). Every row names the \
    back-end, the build, the CPU and the date, and what the code cost: the seconds of its \
    table and period check, and positions (N + 1) a second.\n\n\
    --until-proved --max-limit M [--budget S]: each code starts at N = --limit and doubles N, \
    its table carried forward (never built again from 0), until its period is proved, N \
    reaches M, or it has used S seconds (checked between eighths of a doubling, so a code may \
    pass S by one eighth). Each row's limit is the N it reached, and its stop column says why \
    it stopped there: proved, limit or budget.\n\n\
    Output: a text table (default), --csv (header code,limit,status,preperiod,period,max_value,\
    rare,backend,build,cpu,date,seconds,positions_per_second; until proved, stop after status) \
    or --json (one object with a `rows` array) on stdout.\n\n\
    --out FILE (a regular file) keeps the rows durably: each row is appended to FILE and synced \
    the moment its code finishes (CSV, or JSON Lines with --json), so a kill loses only the \
    codes in flight; until proved, each code in flight also keeps its table in FILE.tables/ \
    every 10 seconds and when a signal stops it. The first line names the census; each row \
    ends in its check column (FNV-1a of the row before it). An existing \
    FILE is refused unless --force (start again) or --resume (skip the codes FILE holds, go on \
    with the tables kept, finish the rest; refused if FILE is of another census: limit, \
    max limit, budget, digits, codes, back-end, shard or format, or of format version 2, \
    whose rows carry no check, or holds a row whose check fails or of a code outside the \
    census, named by its line and code, or a row another build wrote, unless --mixed-builds). \
    When the census is complete \
    FILE is rewritten with its rows in code order: the file one uninterrupted run writes. \
    Ctrl-C or SIGTERM stops it after the codes in flight (until proved, at once, their tables \
    kept). --out - (stdout), a FIFO or a device gets the text, CSV or JSON at the end instead.\n\n\
    A code whose build fails (or panics) is reported as its error row on stderr (status \
    `error` in the output) and the census goes on; it is not written to FILE, so --resume \
    builds it again. The census then exits 1.\n\n\
    Job arrays: --shard I/K (0 <= I < K) takes a fixed share of the codes, balanced by each \
    code's estimated cost (its option steps), the same for every I; `census merge \
    SHARD_FILES... --out FILE` joins the shards' rows files, refusing files of different \
    censuses, a shard twice or missing, or a shard not finished. With Slurm: `sbatch \
    --array=0-3` running `nimsquare census --shard $SLURM_ARRAY_TASK_ID/4 --out \
    part-$SLURM_ARRAY_TASK_ID.csv --resume`.\n\n\
    MPI (a build with --features mpi): `mpirun -n P nimsquare census ...` makes rank 0 the \
    coordinator: it plans and refuses exactly as above, hands the codes out to the other \
    ranks one at a time, most expensive first, writes each row to --out as it arrives and \
    prints what one process prints; the rows' cpu column names the workers' CPUs. Each other \
    rank builds as many codes at once as it has threads: start one rank per node, plus rank \
    0, which mostly sleeps, with `mpirun --bind-to none` (Open MPI binds each rank to one \
    core otherwise, and a rank bound to one core builds on one thread). A rank that \
    dies ends the whole job; the same command with --resume finishes the census (an \
    until-proved code goes on from its table when FILE.tables/ is on a file system every \
    node shares, else starts again from --limit). Without a launcher, or with \
    -n 1, it is the census above. scripts/census-slurm.sh runs both ways under Slurm.\n\n\
    Progress on stderr (hidden by --quiet): codes done of the total, positions a second, an \
    ETA from the estimated costs, and the slowest code in flight; a line every 5 seconds when \
    stderr is no terminal (NIMSQUARE_PROGRESS_EVERY seconds when set).\n\n\
    Examples: nimsquare census --digits 2 --limit 1000 --csv\n\
    nimsquare census --digits 4 --codes 0.6,0.137,4.1..4.17 --limit 1e5 --out open.csv\n\
    nimsquare census --digits 3 --limit 1e4 --until-proved --max-limit 1e7 --budget 30";

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
    /// The largest heap size N of every table (default 1000); until proved, the first N.
    #[arg(long, short = 'n', value_name = "N", default_value = DEFAULT_CENSUS_LIMIT,
          value_parser = limit_parser(), allow_hyphen_values = true)]
    limit: Limit,
    /// Double each code's N, its table carried forward, until its period is proved (or
    /// --max-limit, or --budget).
    #[arg(long)]
    until_proved: bool,
    /// With --until-proved: the largest N a code reaches.
    #[arg(long, value_name = "N", value_parser = limit_parser(), allow_hyphen_values = true)]
    max_limit: Option<Limit>,
    /// With --until-proved: the seconds a code may use.
    #[arg(long, value_name = "SECONDS", allow_hyphen_values = true)]
    budget: Option<f64>,
    /// The octal back-end (default: `auto`, chosen per code).
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
    /// With --resume: keep the rows another build of nimsquare wrote (refused otherwise;
    /// each row names its build).
    #[arg(long, requires = "resume")]
    mixed_builds: bool,
    /// No progress line on stderr.
    #[arg(long)]
    quiet: bool,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// Join the --out files of the shards of one census (`--shard I/K`) into the whole
    /// census, in code order; refuses files of different censuses, overlaps and gaps.
    Merge(MergeArgs),
    /// Write the census atlas: a static web site of a rows file that opens from the file
    /// system (no network).
    #[command(long_about = REPORT_ABOUT)]
    Report(ReportArgs),
}

/// The long help of `census report`.
const REPORT_ABOUT: &str = "Writes the census atlas of ROWS (a rows file `census --out` \
    wrote, until-proved or not) to the folder DIR: a static web site that opens from the file \
    system, with no network (no CDN, no fonts; its CSS and script are inside the pages).\n\n\
    DIR/index.html: every row in one table. Click a column header to sort by it (again for \
    the other order); choose a status (proved = periodic, open), a stop (until proved: \
    proved, limit, budget) or an agreement with the published periods (agrees, disagrees, \
    new = proved with no published period, published but open here, not published and \
    open). The published periods are the OEIS's and tczajka/octal-games' tables the \
    repository keeps in tests/data, reached directly, through the reduction of a dead heap \
    of 1 and through tczajka's classes of equivalent games. The choice is kept in the \
    address after #, so a link opens the same view: \
    index.html#status=periodic&published=agrees&sort=period&order=desc.\n\n\
    DIR/code/CODE.html (0.354 as 0-354.html): a page for every proved code, every code a \
    table publishes a period for, and the open codes with the largest values: the row's \
    columns, the published readings and whether each agrees, the equivalent games, the \
    command that reproduces the row, and a plot of g(n) with the period marked. Each page \
    builds its code's values again (at most the row's N, 2048 for an open code).\n\n\
    Refused before any work, in one line: ROWS missing or damaged; DIR existing and not \
    empty (unless --force, which replaces index.html and code/ and leaves the rest).\n\n\
    Example: nimsquare census report results/census/census-d4-n20000.csv --html atlas";

#[derive(clap::Args)]
struct ReportArgs {
    /// The census rows file (what `census --out` wrote).
    #[arg(value_name = "ROWS")]
    rows: PathBuf,
    /// The folder to write the site to (created; refused if it exists and is not empty,
    /// unless --force).
    #[arg(long, value_name = "DIR", required = true)]
    html: PathBuf,
    /// Write over a folder that is not empty (its index.html and code/ are replaced).
    #[arg(long)]
    force: bool,
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

pub fn run(args: Args) -> CliResult {
    match args.command {
        Some(Sub::Merge(m)) => return merge(m),
        Some(Sub::Report(r)) => return report_atlas(r),
        None => {}
    }
    // Started by an MPI launcher (the `mpi` feature): the other ranks only build rows for
    // rank 0, which goes on below as the census and hands the codes out
    // (nimsquare::run::census::mpi).
    #[cfg(feature = "mpi")]
    let mut mpi = nimsquare::run::census::mpi::Mpi::start()?;
    #[cfg(feature = "mpi")]
    if let Some(worker) = mpi.as_mut().filter(|m| m.rank() > 0) {
        return worker.work();
    }
    #[cfg(not(feature = "mpi"))]
    refuse_launcher()?;
    // Everything decided before any work: the back-end, the shard, the codes, the output.
    let plan = CensusPlan::decide(
        args.backend.as_deref(),
        args.limit.get(),
        args.digits,
        args.codes.as_deref(),
        args.shard.as_deref(),
        UntilFlags {
            until_proved: args.until_proved,
            max_limit: args.max_limit.map(|m| m.get()),
            budget: args.budget,
        },
        &|file| std::fs::read_to_string(file),
    )?;
    let keep = Keep {
        out: args.out.as_deref(),
        force: args.force,
        resume: args.resume,
        mixed_builds: args.mixed_builds,
        json: args.json,
    };
    let outcome = run::census::run(
        &plan,
        keep,
        args.quiet,
        #[cfg(feature = "mpi")]
        mpi.as_mut().filter(|m| m.size() > 1),
    )?;
    match outcome {
        Outcome::Kept => Ok(0),
        Outcome::Stopped {
            signal,
            done,
            total,
            path,
        } => {
            eprintln!(
                "census: stopped by {}: {done} of {total} codes in {}; the same command with --resume finishes it",
                signal.name(),
                path.display()
            );
            Ok(exit_status_for(signal))
        }
        Outcome::Failed {
            failed,
            done,
            total,
            path,
        } => {
            tell_failed(&failed);
            eprintln!(
                "census: {done} of {total} codes in {}; the same command with --resume builds the failed again",
                path.display()
            );
            Ok(1)
        }
        Outcome::Rows { out, rows, made } => {
            print(&out, &Census::of(&plan, &rows, &made, args.csv), args.json)?;
            let failed: Vec<Row> = rows.into_iter().filter(|r| r.error.is_some()).collect();
            tell_failed(&failed);
            Ok(if failed.is_empty() { 0 } else { 1 })
        }
    }
}

/// One line on stderr for each error row.
fn tell_failed(failed: &[Row]) {
    for row in failed {
        let error = row.error.as_deref().unwrap_or("");
        eprintln!("census: {} failed: {error}", row.code);
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

/// `census report`: the atlas written, one line saying where.
fn report_atlas(args: ReportArgs) -> CliResult {
    let made = nimsquare::run::atlas::report(&args.rows, &args.html, args.force)?;
    println!(
        "census report: {} rows, {} code pages, {} ({:.2} s)",
        made.rows,
        made.pages,
        made.index.display(),
        made.seconds
    );
    Ok(0)
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
