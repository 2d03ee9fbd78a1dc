//! The session around one long table run that `solve` and `octal` share: the file checks
//! made before any work, the line on a seeded start, the ending of an interrupted run (how
//! to resume), and the files a finished run could not write (the answer is printed all the
//! same, then exit [`EXIT_UNSAVED`]).

use crate::base::error::{Error, Result};
use crate::base::paths::decide_replaced_file;
use crate::base::valgrind::{self, Stage};
use crate::run::longrun::{self, tablefile, LongRun, Outcome, Ruleset, Signal, Start, TryFill};
use crate::table::Table;
use std::path::PathBuf;

/// Exit status of a run that printed its answer but could not write a file it was asked to
/// (`--save-table`, the final `--checkpoint`): distinct from a refusal (2), which does no work.
pub const EXIT_UNSAVED: i32 = 4;

/// The files of a long run, as the command line names them (`--checkpoint`, `--save-table`,
/// `--load-table`) and whether its progress is hidden (`--quiet`).
#[derive(Debug, Clone, Default)]
pub struct Files {
    pub checkpoint: Option<PathBuf>,
    pub save_table: Option<PathBuf>,
    pub load_table: Option<PathBuf>,
    pub quiet: bool,
}

/// The command line as typed, for the "run the same command again" hint.
pub fn same_command() -> String {
    std::env::args()
        .map(|a| {
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'') {
                format!("'{}'", a.replace('\'', r"'\''"))
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A file the run was asked to write and could not (the answer is printed all the same).
pub struct Unsaved {
    /// The flag that asked for it: `--save-table` or `--checkpoint`.
    pub flag: &'static str,
    /// The file as given.
    pub file: PathBuf,
    /// Why it was not written, one line.
    pub error: Error,
}

impl Unsaved {
    /// `{"flag": ..., "file": ..., "reason": ...}`, an element of `--json`'s `unsaved`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "flag": self.flag,
            "file": self.file.display().to_string(),
            "reason": self.error.to_string(),
        })
    }
}

/// After the answer: one line per file not written, and the exit status (0 when none).
pub fn report_unsaved(unsaved: &[Unsaved]) -> i32 {
    for u in unsaved {
        eprintln!(
            "error: the answer above is complete, but a file was not written: {}: {}",
            u.flag, u.error
        );
    }
    if unsaved.is_empty() {
        0
    } else {
        EXIT_UNSAVED
    }
}

/// Checks every file before any work and returns where the table starts: from scratch or
/// from the longest prefix a file provides. Both files are written whole, as a new file
/// renamed over the old ([`tablefile::write_atomic`]), so each must be a regular file in a
/// folder where that can be done ([`decide_replaced_file`]: a FIFO or a device is refused, a
/// symlink is written through to its target); `--save-table` never replaces an existing file;
/// an existing `--checkpoint` must be a checkpoint of these rules (it is resumed, then
/// replaced); both must fit on their disks. A symlinked file is replaced by its target in
/// `files`, so every later write goes through the link rather than replacing it.
pub fn check_files(rules: &dyn Ruleset, limit: usize, files: &mut Files) -> Result<Start> {
    if let Some(path) = &files.save_table {
        let target = decide_replaced_file(path, "--save-table", "a table file")?;
        tablefile::check_absent(path, "--save-table")?;
        files.save_table = Some(target);
    }
    if let Some(path) = &files.checkpoint {
        let target = decide_replaced_file(path, "--checkpoint", "a checkpoint")?;
        tablefile::check_overwritable(&target, rules, limit)
            .map_err(|e| Error::Invalid(format!("--checkpoint: {e}")))?;
        files.checkpoint = Some(target);
    }
    // Both files must fit, together where they share a disk: refused now, not after hours.
    let bytes = tablefile::file_bytes(rules, limit as u64);
    let mut room = Vec::new();
    if let Some(path) = &files.save_table {
        room.push((path.as_path(), bytes, "--save-table"));
    }
    if let Some(path) = &files.checkpoint {
        room.push((path.as_path(), bytes, "--checkpoint"));
    }
    tablefile::check_room(&room)?;
    longrun::start_from_files(
        rules,
        limit,
        files.checkpoint.as_deref(),
        files.load_table.as_deref(),
    )
}

/// The positions a start provides for N = `limit` (0 from scratch).
pub fn seeded(start: &Start, limit: usize) -> usize {
    match start {
        Start::Fresh => 0,
        Start::Seed(file) => file.provides(limit),
    }
}

/// Says on stderr, unless `--quiet`, where a seeded run starts and how much is left.
pub fn announce_seed(start: &Start, limit: usize, files: &Files) {
    let Start::Seed(file) = start else {
        return;
    };
    if files.quiet {
        return;
    }
    let seeded = file.provides(limit);
    let from = if files.checkpoint.as_deref() == Some(file.path.as_path()) {
        "resuming from the checkpoint"
    } else {
        "starting from the table"
    };
    eprintln!(
        "{from} {}: g(0..{seeded}) of {} positions are done, {} to go",
        file.path.display(),
        limit as u64 + 1,
        limit as u64 + 1 - seeded as u64
    );
}

/// The values of a run that ended, or, for one that was interrupted, the signal that stopped
/// it (None: a stop request); the line saying how to resume is printed here. A final
/// checkpoint that could not be written is added to `unsaved`.
pub fn finish(
    outcome: Outcome,
    limit: usize,
    files: &Files,
    unsaved: &mut Vec<Unsaved>,
) -> std::result::Result<Vec<u16>, Option<Signal>> {
    match outcome {
        Outcome::Finished(values) => Ok(values),
        Outcome::FinishedUnsaved { values, error } => {
            if let Some(file) = &files.checkpoint {
                unsaved.push(Unsaved {
                    flag: "--checkpoint",
                    file: file.clone(),
                    error,
                });
            }
            Ok(values)
        }
        Outcome::Interrupted {
            signal,
            done,
            checkpoint,
        } => {
            let by = signal.map_or("a stop request", |s| s.name());
            let positions = limit as u64 + 1;
            match checkpoint {
                Some(path) => eprintln!(
                    "interrupted by {by} after g(0..{done}) of {positions} positions, kept in {}; to resume run the same command: {}",
                    path.display(),
                    same_command()
                ),
                None => eprintln!(
                    "interrupted by {by} after g(0..{done}) of {positions} positions; nothing was kept (add --checkpoint FILE to keep progress)"
                ),
            }
            Err(signal)
        }
    }
}

/// Writes the finished table to `--save-table`, if asked; a failure goes to `unsaved`.
pub fn save_table(
    rules: &dyn Ruleset,
    limit: usize,
    values: &[u16],
    max: u16,
    files: &Files,
    unsaved: &mut Vec<Unsaved>,
) {
    if let Some(path) = &files.save_table {
        if let Err(e) = tablefile::write_atomic(path, rules, limit as u64, values, max) {
            unsaved.push(Unsaved {
                flag: "--save-table",
                file: path.clone(),
                error: e,
            });
        }
    }
}

/// A session that ended with its table (see [`run_table`]).
pub struct Finished {
    /// The table g(0..=N).
    pub table: Table,
    /// Seconds of the build (and the final checkpoint), the stage `run_table` was given.
    pub seconds: f64,
    /// Positions read from a file rather than built.
    pub seeded: usize,
    /// The file they were read from (`--checkpoint` or `--load-table`).
    pub from_file: Option<PathBuf>,
    /// Files asked for and not written: the answer stands, the exit status is
    /// [`EXIT_UNSAVED`] ([`report_unsaved`]).
    pub unsaved: Vec<Unsaved>,
}

/// How a session ended.
pub enum Ended {
    Finished(Finished),
    /// Stopped by a signal (None: a stop request) after the line saying how to resume.
    Interrupted(Option<Signal>),
}

/// One long table run in one call: the files checked before any work ([`check_files`],
/// and, for a back-end that cannot resume (`opts.resumable` false), a checkpoint or a
/// partial table refused naming `backend`), the seeded start announced, `before_work`
/// called with the positions seeded (a command's own line, such as a forecast), the table
/// built by `fill` through the long-run driver in the Callgrind stage `stage`, an
/// interruption ended with how to resume ([`finish`]), and `--save-table` written
/// ([`save_table`]). `opts`' checkpoint and quiet are taken from `files`.
#[allow(clippy::too_many_arguments)]
pub fn run_table(
    rules: &dyn Ruleset,
    limit: usize,
    files: &mut Files,
    backend: &str,
    fill: TryFill<'_>,
    mut opts: LongRun,
    stage: Stage,
    before_work: &mut dyn FnMut(usize),
) -> Result<Ended> {
    let start = check_files(rules, limit, files)?;
    let partial = matches!(&start, Start::Seed(f) if f.provides(limit) <= limit);
    if (files.checkpoint.is_some() || partial) && !opts.resumable {
        return Err(Error::Invalid(format!(
            "--table {backend} decides values class by class, so it cannot keep or resume a checkpoint or start from a partial table; choose a back-end that builds in position order (auto, stamped, stamped-lanes, ...) or drop --checkpoint/--load-table"
        )));
    }
    let seeded = seeded(&start, limit);
    announce_seed(&start, limit, files);
    let from_file = match &start {
        Start::Seed(file) => Some(file.path.clone()),
        Start::Fresh => None,
    };
    before_work(seeded);
    (opts.checkpoint, opts.quiet) = (files.checkpoint.clone(), files.quiet);
    let mut unsaved = Vec::new();
    let (values, seconds) = valgrind::stage(stage, || -> Result<_> {
        let outcome = longrun::try_run_fill(rules, limit, start, fill, &opts)?;
        Ok(finish(outcome, limit, files, &mut unsaved).map(Table::from_values))
    });
    let table = match values? {
        Ok(table) => table,
        Err(signal) => return Ok(Ended::Interrupted(signal)),
    };
    save_table(
        rules,
        limit,
        table.values(),
        table.max_value(),
        files,
        &mut unsaved,
    );
    Ok(Ended::Finished(Finished {
        table,
        seconds,
        seeded,
        from_file,
        unsaved,
    }))
}
