//! What a census prints at the end when no rows file keeps its rows ([`Census`]): the rows in
//! code order with the census's provenance, as a text table, as CSV or as one JSON object; an
//! until-proved census adds each row's N reached and why it stopped.

use crate::census::plan::{CensusPlan, Selection, Shard};
use crate::census::until::Until;
use crate::census::Row;
use crate::octal::method::period::Verdict;
use crate::run::longrun::censusfile::{self, Format, Made};
use crate::run::report::Report;
use serde_json::json;
use std::io::Write;

/// A finished census's rows (error rows among them) and how it was made.
pub struct Census<'a> {
    pub rows: &'a [Row],
    pub made: &'a Made,
    pub selection: &'a Selection,
    pub shard: Shard,
    pub limit: usize,
    pub until: Option<Until>,
    /// CSV instead of the text table.
    pub csv: bool,
}

impl<'a> Census<'a> {
    /// The report of `rows` of the census `plan`.
    pub fn of(plan: &'a CensusPlan, rows: &'a [Row], made: &'a Made, csv: bool) -> Census<'a> {
        Census {
            rows,
            made,
            selection: &plan.selection,
            shard: plan.shard,
            limit: plan.limit,
            until: plan.until,
            csv,
        }
    }
}

impl Report for Census<'_> {
    fn text(&self, w: &mut dyn Write) -> std::io::Result<()> {
        // one write a buffer, not a line (a census has up to 65 534 rows)
        let mut w = std::io::BufWriter::new(w);
        if self.csv {
            writeln!(w, "{}", censusfile::csv_columns(self.until.is_some()))?;
            for row in self.rows {
                writeln!(
                    w,
                    "{}",
                    censusfile::encode(Format::Csv, row, self.made, self.until.is_some())
                )?;
            }
        } else {
            write_text(&mut w, self)?;
        }
        w.flush()
    }

    fn json(&self) -> serde_json::Value {
        let made = self.made;
        // A row as its rows-file line in JSON Lines, without what the census states once.
        let rows: Vec<serde_json::Value> = self
            .rows
            .iter()
            .map(|r| {
                let mut v: serde_json::Value =
                    serde_json::from_str(&censusfile::encode(Format::JsonLines, r, made, true))
                        .expect("a row's JSON");
                if let Some(o) = v.as_object_mut() {
                    for once in ["backend", "build", "cpu", "date"] {
                        o.remove(once);
                    }
                }
                v
            })
            .collect();
        json!({
            "digits": self.selection.digits,
            "codes": self.selection.filter.as_deref().unwrap_or("all"),
            "shard": self.shard.to_string(),
            "limit": self.limit,
            "until_proved": self.until.is_some(),
            "max_limit": self.until.map(|u| u.max_limit),
            "budget": self.until.and_then(|u| u.budget),
            "backend": made.backend,
            "build": made.build,
            "cpu": made.cpu,
            "date": made.date,
            "version": env!("CARGO_PKG_VERSION"),
            "rows": rows,
        })
    }
}

/// The text table of [`Census`]: a line naming the census, one line a code, the tally.
fn write_text(w: &mut dyn Write, census: &Census) -> std::io::Result<()> {
    let Census {
        rows,
        made,
        selection,
        shard,
        limit,
        until,
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
    let n = match until {
        None => format!("N = {limit}"),
        Some(u) => {
            let budget = u
                .budget
                .map_or(String::new(), |b| format!(", {b} s a code"));
            format!(
                "N from {limit} doubled until proved, up to {}{budget}",
                u.max_limit
            )
        }
    };
    writeln!(
        w,
        "{which}, {n}, back-end {}; build {}, cpu {}, {}",
        made.backend, made.build, made.cpu, made.date
    )?;
    // The until-proved columns: the N reached and why the code stopped there.
    let reached = |row: &Row| match (until, row.stop) {
        (Some(_), Some(stop)) => format!(" {:>10} {:>7}", row.limit, stop.name()),
        (Some(_), None) => format!(" {:>10} {:>7}", row.limit, "-"),
        (None, _) => String::new(),
    };
    let head = match until {
        Some(_) => format!(" {:>10} {:>7}", "N", "stop"),
        None => String::new(),
    };
    writeln!(
        w,
        "{:<8} {:>10} {:>8} {:>10} {:>8}{head} {:>10}",
        "code", "preperiod", "period", "max value", "rare", "seconds"
    )?;
    let (mut open, mut failed) = (0, 0);
    for row in rows {
        let rare = row.rare.map_or("-".to_string(), |r| r.to_string());
        let seconds = format!("{:.3}", row.seconds);
        let more = reached(row);
        if let Some(error) = &row.error {
            failed += 1;
            writeln!(w, "{:<8} error: {error}", row.code)?;
            continue;
        }
        match row.verdict {
            Verdict::Periodic(p) => writeln!(
                w,
                "{:<8} {:>10} {:>8} {:>10} {rare:>8}{more} {seconds:>10}",
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
                    "{:<8} {:>19} {:>10} {rare:>8}{more} {seconds:>10}",
                    row.code,
                    format!("{status} up to N"),
                    row.max_value
                )?;
            }
        }
    }
    let periodic = rows.len() - open - failed;
    let failed = match failed {
        0 => String::new(),
        f => format!(", {f} failed"),
    };
    match until {
        None => writeln!(
            w,
            "{} codes: {periodic} periodic, {open} open up to N = {limit}{failed}",
            rows.len(),
        ),
        Some(u) => {
            let count =
                |s: crate::census::until::Stop| rows.iter().filter(|r| r.stop == Some(s)).count();
            use crate::census::until::Stop;
            writeln!(
                w,
                "{} codes: {periodic} periodic, {open} open ({} at --max-limit {}, {} out of --budget){failed}",
                rows.len(),
                count(Stop::Limit),
                u.max_limit,
                count(Stop::Budget),
            )
        }
    }
}
