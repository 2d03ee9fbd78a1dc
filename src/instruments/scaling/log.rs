//! The CSV file of a study: created with its header, appended to and flushed one row at a
//! time (an interrupted run keeps every finished point), and resumed only under the settings
//! it was measured with, so one file never mixes two experiments.
//!
//! The file is plain CSV with one header line; every row carries its settings (`moves`,
//! `threads`, `repeats`), so `pandas.read_csv(path)` or Python's `csv.DictReader` read it as
//! is, and a study can be filtered by setting.

use super::row::{Row, CSV_HEADER};
use crate::base::error::{Error, Result};
use crate::base::fault;
use crate::base::paths::Output;
use serde::{de::DeserializeOwned, Serialize};
use std::collections::HashSet;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The settings every row of one study shares; `--resume` refuses a run whose settings
/// differ from the rows already in the file. The back-end list may differ: each
/// (back-end, N) point is resumed on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The subtraction set, as in the `moves` column.
    pub moves: String,
    /// Worker threads.
    pub threads: usize,
    /// Timed runs per point.
    pub repeats: usize,
}

/// One row of a study CSV: what [`CsvLog`] needs to write, resume and check a study, so that
/// every study (`scale`, `growth`) shares one file format discipline rather than a copy of it.
pub trait StudyRow: Serialize + DeserializeOwned + Clone {
    /// The header line, the field names in order, comma-separated.
    const HEADER: &'static str;
    /// The study's name in a refusal ("not a {STUDY} CSV").
    const STUDY: &'static str;
    /// The settings every row of one file shares.
    type Settings;
    /// The point a row measures (series name, N): a resumed study skips these.
    fn key(&self) -> (String, u64);
    /// The first setting in which `row` differs from `settings`, as (flag, the file's value,
    /// this run's value).
    fn difference(settings: &Self::Settings, row: &Self) -> Option<(&'static str, String, String)>;
}

impl StudyRow for Row {
    const HEADER: &'static str = CSV_HEADER;
    const STUDY: &'static str = "scaling";
    type Settings = Settings;

    fn key(&self) -> (String, u64) {
        (self.backend.clone(), self.n)
    }

    fn difference(settings: &Settings, row: &Row) -> Option<(&'static str, String, String)> {
        settings.difference(row)
    }
}

impl Settings {
    /// The first setting in which `row` differs from these, as (flag, the file's value, this
    /// run's value).
    fn difference(&self, row: &Row) -> Option<(&'static str, String, String)> {
        let p = &row.provenance;
        if p.moves != self.moves {
            return Some(("--moves", p.moves.clone(), self.moves.clone()));
        }
        if p.threads != self.threads {
            let t = |v: usize| v.to_string();
            return Some(("--threads", t(p.threads), t(self.threads)));
        }
        if row.repeats != self.repeats {
            let t = |v: usize| v.to_string();
            return Some(("--repeat", t(row.repeats), t(self.repeats)));
        }
        None
    }
}

/// The CSV file of a study: rows are appended and flushed one at a time.
pub struct CsvLog<R: StudyRow = Row> {
    /// A file, a FIFO or a device, or stdout: boxed, since [`CsvLog::start`] writes to
    /// whichever the study's `--out` was decided to be.
    sink: Box<dyn Write>,
    /// The path named in errors (`-` for stdout).
    path: PathBuf,
    rows: Vec<R>,
}

impl<R: StudyRow> CsvLog<R> {
    /// Starts a fresh CSV at `path` (replacing any file there, or writing through a symlink
    /// to its target) with the header line.
    pub fn create(path: &Path) -> Result<CsvLog<R>> {
        let file = fault::create(path).map_err(|e| io_error(path, e))?;
        CsvLog::with_header(Box::new(fault::Writer(file)), path)
    }

    /// Starts a fresh CSV on the output decided before any work ([`decide_output`]): a
    /// regular file is created (or emptied) at its path, a FIFO or a device is opened and
    /// written in place, never replaced by a file, and `-` is stdout. Each row is still
    /// flushed as it comes, so a reader of a FIFO sees the study as it runs.
    ///
    /// [`decide_output`]: crate::base::paths::decide_output
    pub fn start(out: &Output) -> Result<CsvLog<R>> {
        match out {
            Output::File(path) => CsvLog::create(path),
            Output::Stream(path) => {
                let file = fault::open(OpenOptions::new().write(true), path)
                    .map_err(|e| io_error(path, e))?;
                CsvLog::with_header(Box::new(fault::Writer(file)), path)
            }
            Output::Stdout => CsvLog::with_header(Box::new(std::io::stdout()), Path::new("-")),
        }
    }

    /// A log writing to `sink` (named `path` in errors), its header line written and flushed.
    fn with_header(sink: Box<dyn Write>, path: &Path) -> Result<CsvLog<R>> {
        // The header is written here, not by serde, so that it is there before any row.
        let mut line = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        line.write_record(R::HEADER.split(','))
            .expect("a record is written into memory");
        let bytes = line.into_inner().expect("a flush into memory");
        let mut log = CsvLog {
            sink,
            path: path.to_path_buf(),
            rows: Vec::new(),
        };
        log.put(&bytes)?;
        Ok(log)
    }

    /// Writes `bytes` (whole lines) to the sink in one write and flushes them. They are
    /// never kept in a buffer past a failure, so a failed write cannot be written again
    /// later after its first part (the file ends in a cut line, which a resume drops).
    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.sink
            .write_all(bytes)
            .and_then(|()| self.sink.flush())
            .map_err(|e| io_error(&self.path, e))
    }

    /// Reopens the CSV at `path` to append, keeping its rows; a missing or empty file starts
    /// fresh. Refuses, before changing the file, when a row was measured under settings
    /// other than `settings`. A last line cut short by an interruption (no newline at the
    /// end) is dropped from the file, since its point will be measured again; that rewrite
    /// is atomic (`PATH.tmp`, then a rename), so if it fails the file is left as it was.
    pub fn resume(path: &Path, settings: &R::Settings) -> Result<CsvLog<R>> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return CsvLog::create(path),
            Err(e) => return Err(read_error(path, e)),
        };
        let complete = match text.rfind('\n') {
            Some(i) => &text[..=i],
            None => "",
        };
        if complete.trim().is_empty() {
            return CsvLog::create(path);
        }
        let rows = parse_study_rows::<R>(complete, path)?;
        if let Some((flag, was, now)) = rows.iter().find_map(|r| R::difference(settings, r)) {
            return Err(Error::Invalid(format!(
                "--resume: {} was measured with {flag} {was}, this run has {flag} {now}; \
                 use the same setting, or write a new study with another --out",
                path.display()
            )));
        }
        if complete.len() != text.len() {
            // Through a sibling file and a rename: a crash or a full disk mid-rewrite leaves
            // the study as it was, never a file cut at an arbitrary byte.
            crate::base::paths::replace_atomically(path, |tmp| {
                fault::create(tmp)
                    .and_then(|mut f| {
                        fault::write_all(&mut f, complete.as_bytes())
                            .and_then(|()| fault::sync_all(&f))
                    })
                    .map_err(|e| io_error(tmp, e))
            })?;
        }
        let file =
            fault::open(OpenOptions::new().append(true), path).map_err(|e| io_error(path, e))?;
        Ok(CsvLog {
            sink: Box::new(fault::Writer(file)),
            path: path.to_path_buf(),
            rows,
        })
    }

    /// Appends one row and flushes it to the file: one line, written whole or, on a
    /// failure, cut (never a line made of two attempts); the error names the file.
    pub fn append(&mut self, row: R) -> Result<()> {
        let mut line = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        line.serialize(&row).map_err(|e| {
            Error::Invalid(format!("{}: cannot write a row: {e}", self.path.display()))
        })?;
        let bytes = line.into_inner().expect("a flush into memory");
        self.put(&bytes)?;
        self.rows.push(row);
        Ok(())
    }

    /// Every row in the file, the resumed ones first.
    pub fn rows(&self) -> &[R] {
        &self.rows
    }

    /// The (series, N) points already in the file.
    pub fn done(&self) -> HashSet<(String, u64)> {
        self.rows.iter().map(StudyRow::key).collect()
    }
}

/// Reads every row of a scaling CSV (the header line first, as [`CsvLog`] writes it).
pub fn read_rows(path: &Path) -> Result<Vec<Row>> {
    read_study_rows::<Row>(path)
}

/// Reads every row of a study CSV of row type `R`.
pub fn read_study_rows<R: StudyRow>(path: &Path) -> Result<Vec<R>> {
    let text = std::fs::read_to_string(path).map_err(|e| read_error(path, e))?;
    parse_study_rows::<R>(&text, path)
}

/// Parses a whole study CSV, refusing a file whose header is not `R::HEADER`. Once the
/// header is checked, rows are read by position, not by column name: a row's nested structs
/// (its [`crate::base::provenance::Provenance`]) take their columns in place, which reading
/// by name cannot do.
pub fn parse_study_rows<R: StudyRow>(text: &str, path: &Path) -> Result<Vec<R>> {
    let mut records = crate::base::csvrecords::records(text);
    let found: Vec<String> = match records.next() {
        Some((_, header)) => header.iter().map(str::to_string).collect(),
        None => Vec::new(),
    };
    if !found.iter().map(String::as_str).eq(R::HEADER.split(',')) {
        return Err(Error::Invalid(header_refusal::<R>(&found, path)));
    }
    records
        .map(|(line, record)| {
            let refused =
                |why: String| Error::Invalid(format!("{} line {line}: {why}", path.display()));
            if record.len() != found.len() {
                return Err(refused(format!(
                    "expected {} CSV fields, found {}",
                    found.len(),
                    record.len()
                )));
            }
            record.deserialize(None).map_err(|e| refused(e.to_string()))
        })
        .collect()
}

/// Why a file whose header line is `found` is refused: an earlier version's study (its
/// columns a leading part of ours: the missing ones are named, since its rows cannot be
/// completed) or not a study of this kind at all.
fn header_refusal<R: StudyRow>(found: &[String], path: &Path) -> String {
    let ours: Vec<&str> = R::HEADER.split(',').collect();
    let older = !found.is_empty()
        && found.len() < ours.len()
        && found.iter().zip(&ours).all(|(a, b)| a == b);
    if older {
        return format!(
            "{} is a {} CSV of an earlier version, without the columns {}; its rows cannot be \
             resumed or read as this version's: write a new study with another --out, or pass \
             --force to replace it",
            path.display(),
            R::STUDY,
            ours[found.len()..].join(", ")
        );
    }
    format!(
        "{} is not a {} CSV of this version (its first line is not the header '{}')",
        path.display(),
        R::STUDY,
        R::HEADER
    )
}

/// A failed write of the study file `path`: one line naming it (exit status 4).
fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::Unwritten(format!("{}: {e}", path.display()))
}

/// A failed read of the study file `path`: one line naming it.
fn read_error(path: &Path, e: std::io::Error) -> Error {
    Error::Invalid(format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::super::row::tests::row;
    use super::*;

    fn settings() -> Settings {
        Settings {
            moves: "squares".into(),
            threads: 2,
            repeats: 3,
        }
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("nimsquare-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn resume_completes_a_partial_csv_without_duplicates() {
        let dir = scratch("scaling-log");
        let path = dir.join("s.csv");

        let mut log: CsvLog = CsvLog::create(&path).unwrap();
        log.append(row("a", 100, 1.0)).unwrap();
        log.append(row("b", 100, 2.0)).unwrap();
        drop(log);
        // An interruption mid-line: the cut line is dropped on resume.
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("a,1000,0.5");
        std::fs::write(&path, text).unwrap();

        let mut log: CsvLog = CsvLog::resume(&path, &settings()).unwrap();
        assert_eq!(log.rows().len(), 2);
        let done = log.done();
        assert!(done.contains(&("a".to_string(), 100)) && done.contains(&("b".to_string(), 100)));
        assert!(!done.contains(&("a".to_string(), 1000)));
        log.append(row("a", 1000, 3.0)).unwrap();
        drop(log);

        let rows = read_rows(&path).unwrap();
        let keys: Vec<(String, u64)> = rows.iter().map(|r| (r.backend.clone(), r.n)).collect();
        assert_eq!(
            keys,
            vec![("a".into(), 100), ("b".into(), 100), ("a".into(), 1000)]
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches(CSV_HEADER).count(), 1);

        // A rewrite that cannot complete (here `s.csv.tmp` is a folder, so it cannot be
        // created even by root) leaves the study exactly as it was, cut line included.
        let before = std::fs::read_to_string(&path).unwrap();
        let cut = format!("{before}b,1000,0.");
        std::fs::write(&path, &cut).unwrap();
        let tmp = dir.join("s.csv.tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        let err = CsvLog::<Row>::resume(&path, &settings())
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("s.csv.tmp"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), cut);
        std::fs::remove_dir(&tmp).unwrap();
        // Once it can, the same rewrite gives the complete lines and leaves no temporary file.
        let log = CsvLog::<Row>::resume(&path, &settings()).unwrap();
        assert_eq!(log.rows().len(), 3);
        drop(log);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
        assert!(!tmp.exists());

        // A file that is not a study CSV is refused, not appended to.
        std::fs::write(&path, "something else\n").unwrap();
        assert!(CsvLog::<Row>::resume(&path, &settings()).is_err());
        // A study of the version before the roofline columns is refused, naming them.
        let old_header = "backend,n,seconds_median,seconds_min,repeats,option_steps,ns_per_step,max_value,threads,moves,git_rev,cpu";
        std::fs::write(
            &path,
            format!("{old_header}\na,100,1,1,3,1,1,1,2,squares,r,c\n"),
        )
        .unwrap();
        let err = CsvLog::<Row>::resume(&path, &settings())
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("earlier version")
                && err.contains("isa, bound_ns_per_step, bound_resource, efficiency")
                && err.contains("--force"),
            "{err}"
        );
        assert!(std::fs::read_to_string(&path)
            .unwrap()
            .starts_with(old_header));
        // A missing file starts fresh.
        std::fs::remove_file(&path).unwrap();
        assert!(CsvLog::<Row>::resume(&path, &settings())
            .unwrap()
            .rows()
            .is_empty());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("{CSV_HEADER}\n")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn resume_refuses_other_settings_and_leaves_the_file_alone() {
        let dir = scratch("scaling-settings");
        let path = dir.join("s.csv");
        let mut log: CsvLog = CsvLog::create(&path).unwrap();
        log.append(row("a", 100, 1.0)).unwrap();
        drop(log);
        let before = std::fs::read_to_string(&path).unwrap();
        for (other, needle) in [
            (
                Settings {
                    moves: "1,3,4".into(),
                    ..settings()
                },
                "--moves squares, this run has --moves 1,3,4",
            ),
            (
                Settings {
                    threads: 1,
                    ..settings()
                },
                "--threads 2, this run has --threads 1",
            ),
            (
                Settings {
                    repeats: 5,
                    ..settings()
                },
                "--repeat 3, this run has --repeat 5",
            ),
        ] {
            let err = CsvLog::<Row>::resume(&path, &other)
                .err()
                .unwrap()
                .to_string();
            assert!(err.contains(needle), "{err}");
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
