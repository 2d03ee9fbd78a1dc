//! What a command answers, in one place: a report renders itself as text and as one JSON
//! object, and [`print()`] writes the one the run asked for. Every command builds one report
//! and prints it through here, so the text and the `--json` record of a run come from the
//! same values and cannot drift apart.
//!
//! A closed pipe ends the printing quietly: the binary restores SIGPIPE's default, so a
//! write to a closed stdout ends the process as `ls | head` does; where the signal is
//! ignored (a test harness), the broken-pipe error is swallowed here instead.

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

/// Prints `report` on stdout: its JSON object on one line when `json`, else its text.
pub fn print(report: &dyn Report, json: bool) {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let written = if json {
        writeln!(out, "{}", stamped(report.json()))
    } else {
        report.text(&mut out)
    };
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            panic!("failed printing to stdout: {e}")
        }
        _ => {}
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
}

impl Report for Built {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "build N = {}, {}: back-end {} took {} for g(0..={})",
            self.limit,
            self.game,
            self.backend,
            crate::base::units::human_seconds(self.seconds),
            self.limit
        )?;
        writeln!(
            out,
            "largest value: {}, first at n = {}; cold positions: {}; digest {}",
            self.max_value, self.max_value_first_at, self.cold_count, self.table_digest
        )
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
