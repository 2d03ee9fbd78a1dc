//! One census run from its plan ([`crate::census::plan::CensusPlan`]): where the rows go
//! (a rows file kept durably, or memory for the caller to print), the codes still to do after
//! a resume, the progress line, the signals, and the MPI coordinator when one started it.
//!
//! Invariant: with a rows file every row is in it, synced, before the progress counts it;
//! nothing is written over an existing file without `force`, and `resume` only ever appends
//! to a file of the same census. A signal stops the run between codes (an until-proved code
//! between two chunks, its table kept, [`carry`]) and leaves the file to a resume; a complete
//! run rewrites the file in code order. An error row (a build that failed or panicked) is
//! reported, never written: the file then lacks that code, and a resume builds it again.

pub mod carry;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod progress;
pub mod report;

use crate::base::error::{Error, Result};
use crate::base::paths::{decide_output, decide_replaced_file, Output};
use crate::base::provenance::{cpu_model, git_rev, utc_date_today};
use crate::census::plan::CensusPlan;
use crate::census::until::{Carried, Hooks};
use crate::census::{self, order_key, Build, Row, Watcher};
use crate::octal::Rules;
use crate::run::longrun::censusfile::{self, Format, Header, Made, Rows, RowsFile};
use crate::run::longrun::signals::{interrupted, Signal, SignalGuard};
use carry::Carry;
use progress::Tracker;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where a census keeps its rows, as the flags say: `--out` (`None`: stdout), `--force`,
/// `--resume`, and `--json` (JSON Lines in a rows file, else CSV).
#[derive(Clone, Copy)]
pub struct Keep<'a> {
    pub out: Option<&'a Path>,
    pub force: bool,
    pub resume: bool,
    /// Keep, on `resume`, rows that another build of nimsquare wrote (else refused).
    pub mixed_builds: bool,
    pub json: bool,
}

/// How a census run ended.
pub enum Outcome {
    /// Every row of the share is in the rows file, rewritten in code order.
    Kept,
    /// A signal stopped it: the rows file holds `done` of the share's `total` rows.
    Stopped {
        signal: Signal,
        done: usize,
        total: usize,
        path: PathBuf,
    },
    /// Every code was built, but the builds of `failed` failed (their error rows): the rows
    /// file holds the `done` others of `total`, and a resume builds the failed again.
    Failed {
        failed: Vec<Row>,
        done: usize,
        total: usize,
        path: PathBuf,
    },
    /// No rows file: the rows in code order (error rows among them), for the caller to
    /// print to `out`.
    Rows {
        out: Output,
        rows: Vec<Row>,
        made: Made,
    },
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

/// Runs the census `plan` with its rows kept as `keep` says, a progress line on stderr
/// unless `quiet`, and the codes handed to the other ranks when `mpi` holds a coordinator.
/// Everything that can be refused (the rows file, a resume of another census, the workers'
/// memory) is refused before the first code is built.
pub fn run(
    plan: &CensusPlan,
    keep: Keep,
    quiet: bool,
    #[cfg(feature = "mpi")] mut mpi: Option<&mut mpi::Mpi>,
) -> Result<Outcome> {
    let limit = plan.limit;
    // Where an until-proved census keeps its tables: beside its rows file, named absolutely
    // so that every MPI rank names the same folder.
    let tables = match (plan.until, keep.out) {
        (Some(_), Some(out)) if out.as_os_str() != "-" && (!out.exists() || out.is_file()) => {
            std::path::absolute(out)
                .ok()
                .map(|out| carry::folder_of(&out))
        }
        _ => None,
    };
    // Under MPI the workers check the plan too, on their own nodes; the rows name their CPUs.
    #[cfg(feature = "mpi")]
    let cpu = match mpi.as_deref_mut() {
        Some(coordinator) => coordinator.handshake(plan, plan.largest(), tables.clone())?,
        None => cpu_model(),
    };
    #[cfg(not(feature = "mpi"))]
    let cpu = cpu_model();
    let made = Made {
        backend: plan.entry.name.to_string(),
        build: git_rev(),
        cpu,
        date: utc_date_today(),
    };
    let format = if keep.json {
        Format::JsonLines
    } else {
        Format::Csv
    };
    let selection = &plan.selection;
    let header = Header {
        version: censusfile::VERSION,
        limit,
        max_limit: plan.until.map(|u| u.max_limit),
        budget: plan.until.and_then(|u| u.budget),
        digits: selection.digits,
        codes: selection.filter.clone().unwrap_or_else(|| "all".into()),
        selection: selection.fingerprint(),
        total: selection.codes.len(),
        backend: plan.entry.name.to_string(),
        shard: plan.shard.to_string(),
        share: plan.share.len(),
    };
    let share: std::collections::BTreeSet<&str> = plan
        .share
        .iter()
        .map(|&i| selection.codes[i].label())
        .collect();
    let (sink, done) = decide_sink(keep, format, &header, &made.build, &|code| {
        share.contains(code)
    })?;
    let (list, todo_costs) = plan.todo(done.values().map(|(code, _)| code.as_str()))?;
    let total = plan.share.len();
    if let Sink::File { rows, .. } = &sink {
        *rows.lock().unwrap_or_else(|e| e.into_inner()) = done;
    }
    // An until-proved census with a rows file carries its codes' tables over a stop.
    let carry = match (&sink, tables) {
        (Sink::File { .. }, Some(folder)) => Some(Carry::new(folder)),
        _ => None,
    };
    if let Some(carry) = &carry {
        if !keep.resume {
            carry.clear()?;
        }
        let going_on = list.iter().filter(|r| carry.has(r.label())).count();
        if going_on > 0 && !quiet {
            eprintln!(
                "census: {going_on} codes go on from their tables in {}",
                carry.folder().display()
            );
        }
    }
    let reach = match plan.until {
        None => format!("up to N = {limit}"),
        Some(u) => format!("from N = {limit} until proved (at most {})", u.max_limit),
    };
    let tracker = Tracker::new(quiet, total, total - list.len(), reach, todo_costs);
    let watch = Watch {
        list: &list,
        tracker: &tracker,
        sink: &sink,
        format,
        made: &made,
        until: plan.until.is_some(),
        carry: carry.as_ref(),
        failed: Mutex::new(Vec::new()),
    };
    let build = Build {
        entry: plan.entry,
        limit,
        until: plan.until,
    };
    // A signal stops a durable census between codes; without a file there is nothing to keep.
    let _guard = match sink {
        Sink::File { .. } => Some(SignalGuard::install()?),
        Sink::Memory(..) => None,
    };
    let result = std::thread::scope(|s| {
        s.spawn(|| tracker.tick_until_done());
        #[cfg(feature = "mpi")]
        let r = match mpi {
            Some(coordinator) => coordinator.run_each(&list, &watch),
            None => census::run_each(build, &list, &watch),
        };
        #[cfg(not(feature = "mpi"))]
        let r = census::run_each(build, &list, &watch);
        tracker.finish();
        r
    });
    result?;
    let mut failed = watch.failed.into_inner().unwrap_or_else(|e| e.into_inner());
    failed.sort_by_key(|r| order_key(&r.code));
    match sink {
        Sink::File { path, rows, .. } => {
            let rows = rows.into_inner().unwrap_or_else(|e| e.into_inner());
            if let Some(signal) = interrupted().filter(|_| rows.len() < total) {
                return Ok(Outcome::Stopped {
                    signal,
                    done: rows.len(),
                    total,
                    path,
                });
            }
            if !failed.is_empty() {
                return Ok(Outcome::Failed {
                    failed,
                    done: rows.len(),
                    total,
                    path,
                });
            }
            censusfile::finish(&path, format, &header, &rows)?;
            if let Some(carry) = &carry {
                carry.clear()?;
            }
            Ok(Outcome::Kept)
        }
        Sink::Memory(out, rows) => {
            let mut rows = rows.into_inner().unwrap_or_else(|e| e.into_inner());
            rows.sort_by_key(|r| order_key(&r.code));
            Ok(Outcome::Rows { out, rows, made })
        }
    }
}

/// Decides where the rows go, before any work, and returns the rows already done (those of
/// the file `--resume` names, each a code `in_share` and, unless `keep.mixed_builds`, written
/// by this `build`).
fn decide_sink(
    keep: Keep,
    format: Format,
    header: &Header,
    build: &str,
    in_share: &dyn Fn(&str) -> bool,
) -> Result<(Sink, Rows)> {
    let memory = |out| (Sink::Memory(out, Mutex::new(Vec::new())), Rows::new());
    let Some(path) = keep.out else {
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
    if keep.resume {
        if path.as_os_str() == "-" {
            return Err(Error::Invalid(
                "--resume needs --out FILE, a regular file, not stdout".into(),
            ));
        }
        let target = decide_replaced_file(path, "--out", "census rows")?;
        if target.exists() {
            let (rows_file, done) = censusfile::resume(
                &target,
                format,
                header,
                (!keep.mixed_builds).then_some(build),
                in_share,
            )?;
            return Ok(file(target, rows_file, done));
        }
        // Nothing to resume yet (the first run of a job that always passes --resume).
        let rows_file = censusfile::create(&target, format, header)?;
        return Ok(file(target, rows_file, Rows::new()));
    }
    if !keep.force && path.as_os_str() != "-" && path.is_file() {
        return Err(Error::Invalid(format!(
            "--out {}: already exists; pass --resume to finish the census in it, --force to start again, or choose another name",
            path.display()
        )));
    }
    match decide_output(path, "--out", Some(keep.force))? {
        Output::File(target) => {
            let rows_file = censusfile::create(&target, format, header)?;
            Ok(file(target, rows_file, Rows::new()))
        }
        other => Ok(memory(other)),
    }
}

/// The census's callbacks: rows to the sink, counts to the progress, error rows aside,
/// an until-proved code's table to its carried file.
struct Watch<'a> {
    list: &'a [Rules],
    tracker: &'a Tracker,
    sink: &'a Sink,
    format: Format,
    made: &'a Made,
    /// An until-proved census: its rows have the `stop` column.
    until: bool,
    carry: Option<&'a Carry>,
    failed: Mutex<Vec<Row>>,
}

impl Hooks for Watch<'_> {
    fn stop(&self) -> bool {
        matches!(self.sink, Sink::File { .. }) && interrupted().is_some()
    }

    fn checkpoint(&self, rules: &Rules, values: &[u16], seconds: f64) -> Result<()> {
        match self.carry {
            Some(carry) => carry.keep(rules, values, seconds, self.stop()),
            None => Ok(()),
        }
    }

    fn carried(&self, rules: &Rules) -> Option<Carried> {
        self.carry?.carried(rules)
    }
}

impl Watcher for Watch<'_> {
    fn started(&self, index: usize) {
        self.tracker.started(index, self.list[index].label());
    }

    fn finished(&self, index: usize, row: Row) -> Result<()> {
        let row_positions = row.limit as u64 + 1;
        if row.error.is_some() {
            self.failed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(row.clone());
        }
        match self.sink {
            Sink::Memory(_, rows) => rows.lock().unwrap_or_else(|e| e.into_inner()).push(row),
            // An error row is no row of the file: a resume builds the code again.
            Sink::File { .. } if row.error.is_some() => {}
            Sink::File { file, rows, .. } => {
                let line = censusfile::seal(
                    self.format,
                    &censusfile::encode(self.format, &row, self.made, self.until),
                );
                file.append(&line)?;
                let key = order_key(&row.code).expect("a census code");
                rows.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(key, (row.code.clone(), line));
                if let Some(carry) = self.carry {
                    carry.drop_code(&row.code);
                }
            }
        }
        self.tracker.finished(index, row_positions);
        Ok(())
    }
}
