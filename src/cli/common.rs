//! What every subcommand shares that is not an argument: the exit codes, the result type,
//! the `--json` and seconds formats, the run's wisdom (read once) and the forecast notes
//! printed before a long run. The dispatcher (`cli/mod.rs`) and the subcommands import it;
//! it imports neither.

use nimsquare::base::error::{Error, Result};
use nimsquare::base::moves::Moves;
use nimsquare::run::wisdom;
use nimsquare::run::workload::{self, Subject};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// Exit code for bad input (the same code clap uses for usage errors).
pub const EXIT_USAGE: i32 = 2;
/// Exit code when back-ends disagree or a check fails.
pub const EXIT_CHECK_FAILED: i32 = 1;

/// The exit status of a run a signal stopped: 128 plus its number (130 for SIGINT, 143 for
/// SIGTERM), what a shell reports for a process the signal ended.
pub fn exit_status_for(signal: nimsquare::run::longrun::Signal) -> i32 {
    signal.exit_status()
}

/// Formats seconds for the text tables: three significant digits in their own unit.
pub(crate) fn fmt_seconds(s: f64) -> String {
    nimsquare::base::units::human_seconds(s)
}

/// `n` and `word`, plural unless `n` is 1: `1 pair`, `9 pairs`.
pub(crate) fn count_of(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// What a command that builds tables reads its game from: `--workload KIND[:RULES]` (any
/// workload of `nimsquare list`), else `--octal CODE` (the octal workload's own flag), else
/// `--moves` (the table workload's). Each refusal names its flag.
pub fn subject(moves: &Moves, octal: Option<&str>, spec: Option<&str>) -> Result<Subject> {
    match (spec, octal) {
        (Some(spec), _) => {
            workload::parse_spec(spec).map_err(|e| Error::Invalid(format!("--workload: {e}")))
        }
        (None, Some(code)) => {
            workload::parse("octal", code).map_err(|e| Error::Invalid(format!("--octal: {e}")))
        }
        (None, None) => Ok(workload::subtraction(moves.clone())),
    }
}

/// The help of every `--workload` flag.
pub const WORKLOAD_HELP: &str = "Build the tables of another workload: `KIND:RULES` (`octal:0.6`, `finite:1,3,4`) or a workload's name alone for its example rules; `nimsquare list` names the workloads";

/// Keeps `Result` in scope for the subcommand files.
pub(crate) type CliResult = Result<i32>;

/// Says on stderr what a run of more than [`FORECAST_NOTE_SECONDS`] will take, before it
/// starts: memory and a time estimate from S(N) and a rate measured just now. `solve`,
/// `profile`, `scale` and `growth` give the same note.
pub fn forecast(plan: &nimsquare::run::planner::Plan) {
    let Some(seconds) = plan.forecast_seconds() else {
        return;
    };
    if seconds < FORECAST_NOTE_SECONDS {
        return;
    }
    let steps = plan.moves.option_steps(plan.limit) as f64;
    eprintln!(
        "note: N = {} needs about {} of memory and at least {} ({steps:.2e} option steps at {:.2} ns each, measured just now at N = {}); --quiet hides this note",
        plan.limit,
        nimsquare::base::memory::human(plan.memory_needed),
        nimsquare::run::longrun::progress::fmt_eta(seconds),
        seconds * 1e9 / steps,
        nimsquare::run::planner::CALIBRATION_LIMIT.min(plan.limit),
    );
}

/// Runs forecast to take longer than this get a note on stderr first.
pub const FORECAST_NOTE_SECONDS: f64 = 120.0;

/// The study version of [`forecast`] (`scale`): `builds` are (back-end, N, times built).
/// Past [`nimsquare::run::planner::FORECAST_FROM_STEPS`] option steps in all, each
/// back-end is timed once on a calibration table, and a study forecast to take more than
/// [`FORECAST_NOTE_SECONDS`] gets one note on stderr before it starts.
pub fn forecast_builds(
    moves: &nimsquare::base::moves::Moves,
    builds: &[(
        &'static nimsquare::registry::Entry<
            dyn nimsquare::grundy::Builder<nimsquare::base::moves::Moves>,
        >,
        usize,
        u64,
    )],
) {
    use nimsquare::run::planner::CALIBRATION_LIMIT;
    let (total, Some(seconds)) = nimsquare::run::planner::forecast_builds(moves, builds) else {
        return;
    };
    if seconds >= FORECAST_NOTE_SECONDS {
        eprintln!(
            "note: this study builds {total:.2e} option steps and needs at least {} (each back-end timed just now at N <= {CALIBRATION_LIMIT}); --skip-over SECONDS drops the points predicted to take longer",
            nimsquare::run::longrun::progress::fmt_eta(seconds),
        );
    }
}

/// The `--wisdom` flag, set once by the dispatcher ([`set_wisdom_flag`]).
static WISDOM_FLAG: OnceLock<Option<PathBuf>> = OnceLock::new();

/// Records the `--wisdom` flag (the first call wins; the dispatcher makes the only one).
pub fn set_wisdom_flag(flag: Option<PathBuf>) {
    WISDOM_FLAG.get_or_init(|| flag);
}

/// The `--wisdom` flag as given, None when absent or not yet recorded.
pub fn wisdom_flag() -> Option<PathBuf> {
    WISDOM_FLAG.get().cloned().flatten()
}

/// The wisdom `auto` chooses from in this run, read once on first use (so a command that
/// never resolves `auto` never reads it); the note on a file not used is printed then.
pub fn wisdom() -> Arc<wisdom::Source> {
    static SOURCE: OnceLock<Arc<wisdom::Source>> = OnceLock::new();
    SOURCE
        .get_or_init(|| {
            let flag = wisdom_flag();
            let source = wisdom::location(flag.as_deref())
                .map(|p| wisdom::load(&p))
                .unwrap_or_default();
            if let Some(note) = &source.note {
                eprintln!("{note}");
            }
            Arc::new(source)
        })
        .clone()
}
