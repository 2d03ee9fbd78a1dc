//! What a command answers, in one place: a report renders itself as text and as one JSON
//! object, and [`print()`] writes the one the run asked for. Every command builds one report
//! and prints it through here, so the text and the `--json` record of a run come from the
//! same values and cannot drift apart.
//!
//! A closed pipe ends the printing quietly: the binary restores SIGPIPE's default, so a
//! write to a closed stdout ends the process as `ls | head` does; where the signal is
//! ignored (a test harness), the broken-pipe error is swallowed here instead. Any other
//! failure to write (a full disk) is one line on stderr and a non-zero exit, never a panic.

use std::io::{self, Write};

/// A command's result: its text lines and its `--json` object.
pub trait Report {
    /// The text form, every line ended by a newline.
    fn text(&self, out: &mut dyn Write) -> io::Result<()>;
    /// The `--json` form: one object ([`print()`] adds `version` and `build`).
    fn json(&self) -> serde_json::Value;
}

/// A report made of a value and its two renderers: for a command whose result is a
/// library type (which the binary cannot implement [`Report`] for).
pub struct Rendered<'a, T> {
    pub value: &'a T,
    pub text: fn(&T, &mut dyn Write) -> io::Result<()>,
    pub json: fn(&T) -> serde_json::Value,
}

impl<T> Report for Rendered<'_, T> {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        (self.text)(self.value, out)
    }

    fn json(&self) -> serde_json::Value {
        (self.json)(self.value)
    }
}

/// `value` with the binary's `version` and `build` (its git revision), so every JSON record
/// names what made it.
pub fn stamped(mut value: serde_json::Value) -> serde_json::Value {
    if let Some(object) = value.as_object_mut() {
        object.insert("version".into(), env!("CARGO_PKG_VERSION").into());
        object.insert("build".into(), crate::base::provenance::BUILD_REV.into());
    }
    value
}

/// Exit status of a run whose report could not be written to stdout (a full disk, a
/// device that refuses writes): the answer is lost, so the run did not succeed.
pub const EXIT_UNWRITTEN: i32 = 1;

/// Prints `report` on stdout: its JSON object on one line when `json`, else its text. When
/// stdout refuses the writing (other than a closed pipe), says so in one line on stderr and
/// ends the process with [`EXIT_UNWRITTEN`].
pub fn print(report: &dyn Report, json: bool) {
    let written = write(report, json, &mut io::stdout().lock());
    if let Err(e) = written {
        eprintln!("error: cannot write the report to stdout: {e}");
        std::process::exit(EXIT_UNWRITTEN);
    }
}

/// Writes `report` to `out` (its JSON object on one line when `json`, else its text) and
/// flushes it; a closed pipe is no error (the reader has all it wanted).
pub fn write(report: &dyn Report, json: bool, out: &mut dyn Write) -> io::Result<()> {
    let written = if json {
        writeln!(out, "{}", stamped(report.json()))
    } else {
        report.text(out)
    };
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// What `build --json` prints of one table built by one back-end, and what `compare` reads
/// back from each side's run ([`Record`] takes its fields by these names).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct Built {
    /// The workload's name (`table`, `octal`, `finite`).
    pub workload: String,
    /// The rules as the workload writes them (`squares`, `0.6`).
    pub rules: String,
    /// The game in words (`octal game 0.6`).
    pub game: String,
    pub limit: u64,
    pub backend: String,
    /// The back-end again, under the name `solve --json` gives it.
    pub table: String,
    /// `full` (the whole table in memory) or `window` (an octal build in window mode).
    pub mode: String,
    /// The build's seconds (the table only: no start-up, no checks).
    pub seconds: f64,
    pub max_value: u16,
    pub max_value_first_at: usize,
    pub cold_count: u64,
    /// FNV-1a of the values as little-endian u16, 16 hex digits: equal tables, equal digests.
    pub table_digest: String,
    pub memory_needed: u64,
    pub threads: usize,
    pub isa: String,
    /// The picture `--plot` wrote, if any.
    pub plot: Option<String>,
}

impl Report for Built {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "build N = {}, {}: back-end {} took {} for g(0..={}){}",
            self.limit,
            self.game,
            self.backend,
            crate::base::units::human_seconds(self.seconds),
            self.limit,
            if self.mode == "window" {
                " in window mode"
            } else {
                ""
            }
        )?;
        writeln!(
            out,
            "largest value: {}, first at n = {}; cold positions: {}; digest {}",
            self.max_value, self.max_value_first_at, self.cold_count, self.table_digest
        )?;
        if let Some(plot) = &self.plot {
            writeln!(out, "plot: {plot}")?;
        }
        Ok(())
    }

    fn json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a build record serialises")
    }
}

/// What `compare` reads of one side's run: the fields a `solve --json` or a [`Built`]
/// record has (an older binary's too), each absent when the run did not report it.
#[derive(serde::Deserialize, Clone, Debug, Default)]
pub struct Record {
    /// A solve's answer, as a decimal string.
    pub answer: Option<String>,
    /// A build's table digest ([`Built::table_digest`]).
    pub table_digest: Option<String>,
    pub table_seconds: Option<f64>,
    pub count_seconds: Option<f64>,
    /// A build's seconds ([`Built::seconds`]).
    pub seconds: Option<f64>,
    pub table: Option<String>,
    pub count: Option<String>,
    pub isa: Option<String>,
    /// The binary's git revision ([`stamped`]).
    pub build: Option<String>,
}

impl Record {
    /// What both sides of a comparison must agree on: a solve's answer, else a build's
    /// table digest.
    pub fn answer(&self) -> Option<&str> {
        self.answer.as_deref().or(self.table_digest.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report of one line.
    struct Line;

    impl Report for Line {
        fn text(&self, out: &mut dyn Write) -> io::Result<()> {
            writeln!(out, "a line")
        }

        fn json(&self) -> serde_json::Value {
            serde_json::json!({ "line": "a line" })
        }
    }

    /// A writer that fails every write with `kind`.
    struct Failing(io::ErrorKind);

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::new(self.0, "refused"))
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_refused_write_is_an_error_and_a_closed_pipe_is_not() {
        for json in [false, true] {
            let full = write(&Line, json, &mut Failing(io::ErrorKind::StorageFull));
            assert_eq!(full.unwrap_err().kind(), io::ErrorKind::StorageFull);
            assert!(write(&Line, json, &mut Failing(io::ErrorKind::BrokenPipe)).is_ok());
        }
        let mut out = Vec::new();
        write(&Line, false, &mut out).unwrap();
        assert_eq!(out, b"a line\n");
        let mut out = Vec::new();
        write(&Line, true, &mut out).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(value["line"], "a line");
        assert!(value["version"].is_string() && value["build"].is_string());
    }
}
