//! The tables an until-proved census carries over a stop (`--out FILE --until-proved`): each
//! code in flight keeps g(0..=N) at its last doubling point in `FILE.tables/CODE.table` (the
//! table file format, [`crate::run::longrun::tablefile`]) and the seconds it has used in
//! `CODE.seconds`, so `--resume` goes on from that N with that much of its budget spent,
//! instead of from `--limit`.
//!
//! A table is written when the code has used [`EVERY`] seconds since its last one (the
//! variable [`EVERY_VARIABLE`] sets another interval), and always when a signal stops the
//! code: a code that finishes within the interval never touches the disk, so a census of
//! thousands of short codes pays nothing for it, and a kill loses at most the interval of
//! each code in flight. A code's files are removed when its row is kept, the folder when
//! the census is complete.
//!
//! Invariant: a table file holds a prefix of the code's values, checked (checksums and a
//! spot check of the rules) before use; the prefix of an octal game does not depend on N, so
//! any prefix is a correct start, and [`crate::census::until::next_point`] puts the resumed
//! code back on the doubling points of an uninterrupted run. The seconds file is written
//! before the table, so a kill between the two over-counts the seconds by one interval at
//! most, never the values.

use crate::base::error::{Error, Result};
use crate::base::fault;
use crate::census::until::Carried;
use crate::octal::Rules;
use crate::run::longrun::tablefile;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The seconds a code runs between two of its tables: a table of N = 10^7 is 20 MB, written
/// and synced in well under a second, so 10 s keeps the writing a few percent at most.
pub const EVERY: f64 = 10.0;

/// Overrides [`EVERY`] (seconds, 0 for a table at every doubling point): for the tests.
pub const EVERY_VARIABLE: &str = "NIMSQUARE_CENSUS_TABLE_EVERY";

/// The folder of carried tables of the rows file `out`.
pub fn folder_of(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_os_string();
    name.push(".tables");
    PathBuf::from(name)
}

/// The carried tables of one census.
pub struct Carry {
    folder: PathBuf,
    every: f64,
    /// The seconds of each code at its last table.
    saved: Mutex<BTreeMap<String, f64>>,
}

impl Carry {
    /// The tables kept in `folder`.
    pub fn new(folder: PathBuf) -> Carry {
        let every = std::env::var(EVERY_VARIABLE)
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|e| *e >= 0.0)
            .unwrap_or(EVERY);
        Carry {
            folder,
            every,
            saved: Mutex::new(BTreeMap::new()),
        }
    }

    /// The folder of the tables.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    fn files(&self, code: &str) -> (PathBuf, PathBuf) {
        (
            self.folder.join(format!("{code}.table")),
            self.folder.join(format!("{code}.seconds")),
        )
    }

    /// True when `code` has a table to go on from.
    pub fn has(&self, code: &str) -> bool {
        self.files(code).0.is_file()
    }

    /// The table `rules` carries, if it has a usable one (a damaged or foreign file is
    /// ignored: the code then starts again from `--limit`).
    pub fn carried(&self, rules: &Rules) -> Option<Carried> {
        let (table, seconds) = self.files(rules.label());
        let file = tablefile::read_checkpoint(&table).ok()?;
        file.check_usable(rules).ok()?;
        if file.values.is_empty() {
            return None;
        }
        let seconds = std::fs::read_to_string(seconds)
            .ok()
            .and_then(|t| t.trim().parse::<f64>().ok())
            .unwrap_or(0.0);
        self.saved
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(rules.label().to_string(), seconds);
        Some(Carried {
            values: file.values,
            seconds,
        })
    }

    /// Keeps g(0..values.len()) of `rules` and its `seconds`, if the interval has passed
    /// since its last table or `now` (a signal is stopping it).
    pub fn keep(&self, rules: &Rules, values: &[u16], seconds: f64, now: bool) -> Result<()> {
        {
            let mut saved = self.saved.lock().unwrap_or_else(|e| e.into_inner());
            let last = saved.get(rules.label()).copied().unwrap_or(0.0);
            if !now && seconds - last < self.every {
                return Ok(());
            }
            saved.insert(rules.label().to_string(), seconds);
        }
        let failed = |e: std::io::Error| {
            Error::Invalid(format!(
                "--out: cannot keep the table of {} in {} ({e})",
                rules.label(),
                self.folder.display()
            ))
        };
        std::fs::create_dir_all(&self.folder).map_err(failed)?;
        let (table, secs) = self.files(rules.label());
        fault::write(&secs, format!("{seconds}\n")).map_err(failed)?;
        let max = values.iter().copied().max().unwrap_or(0);
        let limit = values.len().saturating_sub(1) as u64;
        tablefile::write_atomic(&table, rules, limit, values, max)
    }

    /// Forgets `code`'s table: its row is kept.
    pub fn drop_code(&self, code: &str) {
        let (table, seconds) = self.files(code);
        let _ = std::fs::remove_file(table);
        let _ = std::fs::remove_file(seconds);
    }

    /// Removes the folder and every table in it: the census is complete, or starts again.
    pub fn clear(&self) -> Result<()> {
        match std::fs::remove_dir_all(&self.folder) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::Invalid(format!(
                "--out: cannot remove the carried tables {} ({e})",
                self.folder.display()
            ))),
            _ => Ok(()),
        }
    }
}
