//! Arguments shared by several subcommands, declared once and `#[command(flatten)]`-ed in.
//!
//! Each struct is one concept (the limit, the subtraction set, the number of heaps, the output
//! format), so its help text, parser and refusals are the same in every subcommand.

use clap::builder::TypedValueParser;
use nimsquare::base::limit::Limit;
use nimsquare::base::moves::Moves;
use nimsquare::base::paths::{decide_output, Output};

/// `--limit N` with the default of `solve` and `verify` (Project Euler 310's bound).
#[derive(clap::Args, Debug, Clone)]
pub struct LimitArg {
    /// The largest heap size N (e.g. 100000, 1_000_000 or 1e6; at most 4294967295).
    #[arg(long, short = 'n', value_name = "N", default_value = DEFAULT_LIMIT,
          value_parser = limit_parser(), allow_hyphen_values = true)]
    pub limit: Limit,
}

/// The most timed runs per measurement `--repeat` accepts: the median is settled long before.
pub const MAX_REPEAT: usize = 1000;

/// `--repeat R`: timed runs per measurement, of which the median is kept (`scale`,
/// `roofline`).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct RepeatArg {
    /// Timed runs per measurement (1 to 1000); the median is reported.
    #[arg(long, value_name = "R", default_value_t = 3, value_parser = count_usize(1, MAX_REPEAT),
          allow_hyphen_values = true)]
    pub repeat: usize,
}

/// `--moves LIST`: the subtraction set.
#[derive(clap::Args, Debug, Clone)]
pub struct MovesArg {
    /// Subtraction set: `squares` (any case) or a comma-separated list like 1,3,4. Order,
    /// spaces and repeats do not matter (`3,1, 3` is {1,3}).
    #[arg(long, value_name = "LIST", default_value = "squares", value_parser = parse_moves,
          allow_hyphen_values = true)]
    pub moves: Moves,
}

/// `--moves`, `--octal CODE`, `--workload KIND[:RULES]`: the game whose tables a measuring
/// command builds (`scale`, `roofline`, `profile`, `compare`), read by [`GameArgs::subject`].
#[derive(clap::Args, Debug, Clone)]
pub struct GameArgs {
    #[command(flatten)]
    pub moves: MovesArg,
    /// An octal game instead of a subtraction game: its code (0.07, .6, 4.07) or `grundy`;
    /// the back-ends named are then octal back-ends. Refused with --moves.
    #[arg(long, value_name = "CODE", conflicts_with = "moves")]
    pub octal: Option<String>,
    #[arg(long, value_name = "KIND[:RULES]", help = super::common::WORKLOAD_HELP,
          conflicts_with_all = ["moves", "octal"])]
    pub workload: Option<String>,
}

impl GameArgs {
    /// The game the flags name ([`super::common::subject`]); each refusal names its flag.
    pub fn subject(&self) -> nimsquare::base::error::Result<nimsquare::run::workload::Subject> {
        super::common::subject(
            &self.moves.moves,
            self.octal.as_deref(),
            self.workload.as_deref(),
        )
    }
}

/// `--table NAMES`, comma-separated or repeated: the table back-ends a study times.
#[derive(clap::Args, Debug, Clone)]
pub struct TablesArg {
    /// Table back-ends to time, comma-separated or repeated (default: every one in `nimsquare
    /// list` but the naive controls, which are there to check, not to race). With --octal or
    /// --workload, that workload's back-ends.
    #[arg(
        long,
        visible_alias = "backend",
        value_name = "NAMES",
        value_delimiter = ','
    )]
    pub table: Vec<String>,
}

/// `--limit`, `--moves`, `--heaps`: the solve a command runs (`verify`, `compare`).
#[derive(clap::Args, Debug, Clone)]
pub struct SolveArgs {
    #[command(flatten)]
    pub limit: LimitArg,
    #[command(flatten)]
    pub moves: MovesArg,
    #[command(flatten)]
    pub heaps: HeapsArg,
}

/// `--heaps K`: how many heaps a position has.
#[derive(clap::Args, Debug, Clone)]
pub struct HeapsArg {
    /// Number of heaps K (1 to 16): count sorted K-tuples whose values xor to zero.
    #[arg(long, value_name = "K", default_value_t = 3, value_parser = count_usize(1, nimsquare::count::MAX_HEAPS),
          allow_hyphen_values = true)]
    pub heaps: usize,
}

/// `--json`: one JSON object on stdout instead of text.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct JsonArg {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `--quiet` for a subcommand whose only stderr output is the progress bar of its table builds.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct QuietArg {
    /// No progress bar (one is only ever drawn on a terminal, for a table build that lasts
    /// over a second: positions done, option steps per second and an ETA).
    #[arg(long)]
    pub quiet: bool,
}

impl QuietArg {
    /// Applies the flag to every bar of the process.
    pub fn apply(self) {
        nimsquare::run::longrun::progress::set_quiet(self.quiet);
    }
}

/// `--checkpoint`, `--checkpoint-every`, `--save-table`, `--load-table`, `--quiet`: a table run
/// that survives Ctrl-C and leaves its table behind (see [`nimsquare::run::longrun`]).
#[derive(clap::Args, Debug, Clone)]
pub struct LongRunArgs {
    /// Keep the table's progress in FILE: written every --checkpoint-every seconds and on
    /// Ctrl-C/SIGTERM, resumed from when the same command runs again, and holding the complete
    /// table at the end. Each write is a new temporary file beside FILE renamed over FILE, so
    /// FILE must be a regular file (or not exist yet) in an existing, writable folder; a
    /// symlink is written through to its target and stays a symlink. Refused, before any work, if FILE is a
    /// folder, a FIFO, a device, a symlink to nothing or not a table file for the same rules
    /// (moves or octal code), and with a back-end that does not build its table in position
    /// order.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<std::path::PathBuf>,
    /// Seconds between two checkpoint writes (0: after every chunk of work, about half a second
    /// for a subtraction game and 4 s for an octal game).
    #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = parse_seconds,
          allow_hyphen_values = true)]
    pub checkpoint_every: std::time::Duration,
    /// Write the finished table g(0..=N) to FILE: a header whose length H is the u32 at byte 12
    /// (4096 unless the rules' label is very long), then g as little-endian u16 (the format of
    /// `nimsquare::run::longrun::tablefile`), as a temporary file beside FILE renamed to FILE at
    /// the end. Refused, before any work, if FILE exists (an existing file is never replaced, also through a
    /// symlink), is a FIFO, a device or a symlink to nothing, or its folder is missing or not
    /// writable.
    #[arg(long, value_name = "FILE")]
    pub save_table: Option<std::path::PathBuf>,
    /// Start from the table or checkpoint in FILE (same rules, moves or octal code; any N: a
    /// table for a smaller N supplies its prefix).
    #[arg(long, value_name = "FILE")]
    pub load_table: Option<std::path::PathBuf>,
    /// No progress bar (it is only ever drawn on a terminal, after the first second).
    #[arg(long)]
    pub quiet: bool,
}

impl LongRunArgs {
    /// The files and `--quiet`, as the long-run session reads them.
    pub fn files(&self) -> nimsquare::run::session::Files {
        nimsquare::run::session::Files {
            checkpoint: self.checkpoint.clone(),
            save_table: self.save_table.clone(),
            load_table: self.load_table.clone(),
            quiet: self.quiet,
        }
    }
}

/// Parses `--checkpoint-every` ([`nimsquare::base::numbers::parse_seconds`]).
fn parse_seconds(text: &str) -> std::result::Result<std::time::Duration, String> {
    nimsquare::base::numbers::parse_seconds("--checkpoint-every", text)
}

/// `--from A --to B --points K`: a geometric grid of N for a study (`scale`, `growth`).
#[derive(clap::Args, Debug, Clone)]
pub struct GridArgs {
    /// The smallest N of the grid.
    #[arg(long, value_name = "A", default_value = "1000", value_parser = limit_parser(),
          allow_hyphen_values = true)]
    pub from: Limit,
    /// The largest N of the grid (at most 4294967295).
    #[arg(long, value_name = "B", default_value = "1000000", value_parser = limit_parser(),
          allow_hyphen_values = true)]
    pub to: Limit,
    /// How many values of N, equally spaced in log N from A to B (2 to 1000).
    #[arg(long, value_name = "K", default_value_t = 7,
          value_parser = count(2, MAX_POINTS as u64).why_max("a finer grid only repeats N").usize(),
          allow_hyphen_values = true)]
    pub points: usize,
}

/// The most grid points accepted: more would only repeat values of N (the grid is rounded to
/// integers) while allocating the whole grid first.
pub const MAX_POINTS: usize = 1000;

impl GridArgs {
    /// The grid, or the refusal naming the flag.
    pub fn grid(&self) -> nimsquare::base::error::Result<Vec<u64>> {
        let refuse = |msg: String| Err(nimsquare::base::error::Error::Invalid(msg));
        let (from, to) = (self.from.as_u64(), self.to.as_u64());
        if from < 1 {
            return refuse("--from must be at least 1 (the grid is geometric)".into());
        }
        if from > to {
            return refuse(format!(
                "--from {} is larger than --to {}",
                self.from, self.to
            ));
        }
        Ok(nimsquare::instruments::scaling::geometric_grid(
            from,
            to,
            self.points,
        ))
    }
}

/// `--plot`, `--resume`, `--force`: what a study does with its files.
#[derive(clap::Args, Debug, Clone)]
pub struct StudyFileArgs {
    /// Also draw the study (every row of the CSV) as a log-log SVG here, at the end: a regular
    /// file is replaced as a whole (through a symlink, its target), a FIFO or a device is
    /// written in place.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<std::path::PathBuf>,
    /// Keep the rows already in --out and skip those points; refused when the file was made
    /// with other settings (the refusal names them).
    #[arg(long)]
    pub resume: bool,
    /// Replace an existing --out and --plot (without it, an earlier study or drawing is
    /// never overwritten; with --resume the plot is redrawn from the whole CSV). --out is
    /// emptied when the run starts, so an interrupted run keeps its own rows only.
    #[arg(long)]
    pub force: bool,
}

/// True when `path` holds something a plain rerun must not replace: anything but nothing at
/// all or a study's header line alone (what a study killed before its first row leaves).
fn holds_rows(path: &std::path::Path) -> bool {
    use nimsquare::instruments::scaling::{growth, CSV_HEADER};
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() || meta.len() == 0 {
        return false;
    }
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let header = text.trim_end_matches(['\n', '\r']);
            header.contains('\n')
                || ![CSV_HEADER, growth::COLD_HEADER, growth::MAX_HEADER].contains(&header)
        }
        Err(_) => true,
    }
}

/// Where a study's files go, decided before any work by [`StudyFileArgs::check`].
pub struct StudyOutputs {
    /// `--out`: a regular file (new, replaced or resumed), or a FIFO or device written in place.
    pub out: Output,
    /// `--plot`, if asked.
    pub plot: Option<Output>,
    /// Whether `--out` already holds rows (what `--resume` keeps).
    pub occupied: bool,
}

impl StudyFileArgs {
    /// Decides, before any work, where `out` and `--plot` go ([`decide_output`]): a FIFO or a
    /// device is written in place (nothing is replaced, so no --force is needed), a symlink is
    /// written through to its target, a missing or unwritable folder is refused; an earlier
    /// study in `out` is neither replaced without --force nor mixed without --resume, which
    /// needs a regular file to read the rows from. `-` is refused for `--out`: stdout carries
    /// the study's own lines.
    pub fn check(&self, out: &std::path::Path) -> nimsquare::base::error::Result<StudyOutputs> {
        use nimsquare::base::error::Error;
        if self.resume && self.force {
            return Err(Error::Invalid(
                "--resume and --force contradict each other (keep the rows, or replace them); pass one".into(),
            ));
        }
        if out.as_os_str() == "-" {
            return Err(Error::Invalid(
                "--out -: stdout carries the study's row and fit lines; name a file for the CSV"
                    .into(),
            ));
        }
        let occupied = holds_rows(out);
        if occupied && !self.resume && !self.force {
            return Err(Error::Invalid(format!(
                "--out {} already exists; pass --force to replace it, or --resume to continue the study in it",
                out.display()
            )));
        }
        // A file without rows (empty, or a header alone: a study killed before its first
        // row) is started afresh without --force.
        let decided = decide_output(out, "--out", Some(self.force || self.resume || !occupied))?;
        if self.resume && !matches!(decided, Output::File(_)) {
            return Err(Error::Invalid(format!(
                "--resume: --out {} is not a regular file, so it holds no rows to resume; drop --resume",
                out.display()
            )));
        }
        let plot = match &self.plot {
            Some(p) => {
                if std::fs::metadata(p).is_ok_and(|m| m.is_file()) && !self.force && !self.resume {
                    return Err(Error::Invalid(format!(
                        "--plot {} already exists; pass --force to replace it (or --resume, which redraws it)",
                        p.display()
                    )));
                }
                let plot = decide_output(p, "--plot", Some(true))?;
                if matches!((&plot, &decided), (Output::File(a), Output::File(b)) if a == b) {
                    return Err(Error::Invalid(format!(
                        "--plot {} is the --out file too; give the plot a name of its own",
                        p.display()
                    )));
                }
                Some(plot)
            }
            None => None,
        };
        Ok(StudyOutputs {
            out: decided,
            plot,
            occupied,
        })
    }
}

/// The default limit N: Project Euler 310's bound.
pub const DEFAULT_LIMIT: &str = "100000";

/// A count-like flag's value (`--limit`, `--terms`, `--pairs`, `--digits`, `--samples`, ...):
/// the one parser every such flag uses, so each accepts the same forms and refuses in the
/// same words, naming the flag. Accepted: a non-negative integer with optional `_`
/// separators (`1_000_000`), or `MeE` with a decimal mantissa whose value is a whole number
/// (`1e6`, `1.5e3`); then it must lie in `min..=max`. `why_max`, when given, says why the
/// maximum is what it is.
#[derive(Clone, Copy, Debug)]
pub struct Count {
    min: u64,
    max: u64,
    why_max: Option<&'static str>,
}

/// The largest `u32`, the widest range a count flag of a library check (its own range, its
/// own words) is read in.
pub const U32: u64 = u32::MAX as u64;

/// A [`Count`] from `min` to `max`.
pub const fn count(min: u64, max: u64) -> Count {
    Count {
        min,
        max,
        why_max: None,
    }
}

/// A [`Count`] from `min` to `max`, read as `usize`.
pub fn count_usize(min: usize, max: usize) -> impl TypedValueParser<Value = usize> {
    count(min as u64, max as u64).usize()
}

/// The parser of every limit N (`--limit`, `--from`, `--to`, ...): a [`Count`] from 0 to
/// [`nimsquare::base::limit::MAX_LIMIT`], the one place a limit from the command line is
/// checked.
pub fn limit_parser() -> impl TypedValueParser<Value = Limit> {
    count(0, nimsquare::base::limit::MAX_LIMIT)
        .why_max("values are stored as u16")
        .try_map(Limit::new)
}

/// The parser of the limit N of a command that can build an octal table in window mode
/// (`octal`, `build`): a [`Count`] from 0 to [`nimsquare::base::limit::MAX_WINDOW_LIMIT`].
/// Past [`nimsquare::base::limit::MAX_LIMIT`] the build plan takes window mode or refuses,
/// naming `--limit`, before any work.
pub fn window_limit_parser() -> impl TypedValueParser<Value = u64> {
    count(0, nimsquare::base::limit::MAX_WINDOW_LIMIT)
        .why_max("past 4294967295 only an octal build in window mode runs, and it goes to 2^40 - 1")
}

impl Count {
    /// The same range, saying why the maximum is what it is.
    pub const fn why_max(self, why: &'static str) -> Count {
        Count {
            why_max: Some(why),
            ..self
        }
    }

    /// This count as `usize` (its maximum fits: every one given is far below `u32::MAX`).
    pub fn usize(self) -> impl TypedValueParser<Value = usize> {
        self.map(|v| v as usize)
    }

    /// This count as `u32` (its maximum fits).
    pub fn u32(self) -> impl TypedValueParser<Value = u32> {
        self.map(|v| v as u32)
    }

    /// `text` as the value of `flag`, or the one-line refusal naming the flag
    /// ([`nimsquare::base::numbers::check_count`]).
    pub fn check(&self, flag: &str, text: &str) -> std::result::Result<u64, String> {
        nimsquare::base::numbers::check_count(self.min, self.max, self.why_max, flag, text)
    }
}

impl TypedValueParser for Count {
    type Value = u64;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<u64, clap::Error> {
        let flag = arg
            .and_then(|a| a.get_long())
            .map_or_else(|| "the value".to_string(), |long| format!("--{long}"));
        self.check(&flag, &value.to_string_lossy()).map_err(|msg| {
            clap::Error::raw(clap::error::ErrorKind::ValueValidation, msg).with_cmd(cmd)
        })
    }
}

/// How many threads per reported core `--threads` accepts: some oversubscription is a
/// legitimate experiment, tens of thousands of threads only exhaust the machine.
pub const MAX_THREADS_PER_CORE: usize = 8;

/// The largest `--threads` accepted on this machine: [`MAX_THREADS_PER_CORE`] times the
/// cores `std::thread::available_parallelism` reports (1 core when it cannot tell).
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    MAX_THREADS_PER_CORE * cores
}

/// The parser of `--threads`: a [`Count`] from 1 to [`max_threads`].
pub(super) fn threads_parser() -> impl TypedValueParser<Value = usize> {
    count(1, max_threads() as u64)
        .why_max("more threads than a few per core only add start-up and switching cost")
        .usize()
}

/// Parses `--isa` (whether the CPU has the path is checked after parsing, by
/// [`nimsquare::base::isa::force`]).
pub(super) fn parse_isa(text: &str) -> std::result::Result<nimsquare::base::isa::Isa, String> {
    nimsquare::base::isa::Isa::parse(text).map_err(|e| e.to_string())
}

/// Parses a subtraction set for `--moves`.
pub fn parse_moves(text: &str) -> std::result::Result<nimsquare::base::moves::Moves, String> {
    nimsquare::base::moves::Moves::parse(text).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_the_flag_and_the_range_and_why_only_above_it() {
        let c = count(2, 1000).why_max("a reason");
        assert_eq!(c.check("--points", "1e3"), Ok(1000));
        assert_eq!(
            c.check("--points", "1"),
            Err("--points must be between 2 and 1000, got '1'".into())
        );
        assert_eq!(
            c.check("--points", "1001"),
            Err(
                "--points must be between 2 and 1000, got '1001' (the supported maximum 1000: a reason)"
                    .into()
            )
        );
        assert_eq!(
            c.check("--points", "1e30"),
            Err(
                "--points must be between 2 and 1000, got '1e30' (the supported maximum 1000: a reason)"
                    .into()
            )
        );
        assert_eq!(
            count(0, 9).check("--terms", "x"),
            Err(
                "--terms takes a non-negative integer (a whole number like 20, 1_000 or 1e6), got 'x'"
                    .into()
            )
        );
    }
}

/// `--plot FILE` and `--plot-log`: the picture of the values ([`nimsquare::run::plot`]).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct PlotArgs {
    /// Also draw g(n) against n as an SVG picture in FILE (a new file: an existing one is
    /// never replaced): each column of pixels from its least to its largest value; for an
    /// octal game with a rare/common split the rare positions in red (one dot each, hover
    /// for n and g(n)), and a proved period's start and first repeat as green lines. In window
    /// mode the picture is drawn as the values stream past, in a fixed few hundred kilobytes.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<std::path::PathBuf>,
    /// The picture's n axis logarithmic (n = 0 is then left out).
    #[arg(long, requires = "plot")]
    pub plot_log: bool,
}

impl PlotArgs {
    /// Where the picture goes and whether its axis is logarithmic, decided before any work
    /// (None without `--plot`).
    pub fn decide(
        &self,
    ) -> nimsquare::base::error::Result<Option<(nimsquare::base::paths::Output, bool)>> {
        self.plot
            .as_deref()
            .map(|p| Ok((nimsquare::run::plot::decide_output(p)?, self.plot_log)))
            .transpose()
    }

    /// The file as given, for the report.
    pub fn shown(&self) -> Option<String> {
        self.plot.as_ref().map(|p| p.display().to_string())
    }
}
