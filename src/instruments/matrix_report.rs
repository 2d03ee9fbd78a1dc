//! The bench matrix's results as numbers, not console lines: each benchmark's median and its
//! confidence interval read back from criterion's `estimates.json`, each back-end's ratio to
//! a reference in its group and N, a summary table, and the `matrix.csv` / `matrix.json`
//! files that `benches/matrix.rs` writes at the end of a run and `bench-check` compares.
//!
//! Criterion times the benchmarks one after another and keeps them apart: it prints each
//! interval on its own and never a ratio. The ratio here is a post-processing step over what
//! it saved, so it costs one directory walk and no timing.
//!
//! **What the ratio interval is.** For a back-end `a` and the reference `b` at the same N,
//! `ratio = median_a / median_b` and `[ratio_lo, ratio_hi] = [lo_a / hi_b, hi_a / lo_b]`: the
//! range of the ratio over the two medians' intervals. It is not a confidence interval of
//! its own (the runs are not paired, so criterion has nothing to resample jointly); it
//! contains the true ratio whenever both intervals contain their medians, which for two
//! independent 95% intervals happens at least 0.95² ≈ 90% of the time, and it is wider than
//! a paired interval would be. The reference's own ratio is exactly 1.

use crate::base::error::{Error, Result};
use crate::base::provenance;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What the files say the ratio interval is (the `ratio_interval` field of `matrix.json`).
pub const RATIO_INTERVAL_NOTE: &str = "ratio = median / the reference's median at the same group and N; ratio_lo..ratio_hi = lo / reference hi .. hi / reference lo, the ratio's range over the two medians' confidence intervals: conservative, not a confidence interval of its own (the back-ends were timed one after another, not paired); it holds the true ratio whenever both intervals hold their medians, at least 90% of the time for two independent 95% intervals";

/// One benchmark: criterion's median with its confidence interval and, once
/// [`add_ratios`] has run, its ratio to the reference of its group and N. A row of
/// `matrix.csv` and an element of `matrix.json`'s `benchmarks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// `table`, `count` or `solve`.
    pub group: String,
    /// The middle part of the id (`stamped-lanes`, `stamped-lanes@scalar`, `stamped+wht`).
    pub backend: String,
    pub n: u64,
    /// Criterion's point estimate of the median time of one run, in nanoseconds.
    pub median_ns: f64,
    /// The median's bootstrap confidence interval (criterion's `confidence_interval`).
    pub median_lo_ns: f64,
    pub median_hi_ns: f64,
    /// The interval's level (criterion's default 0.95, `--confidence-level` changes it).
    pub confidence_level: f64,
    /// Throughput elements per run (S(N) option steps for `table` and `solve`), if any.
    pub elements: Option<u64>,
    /// `elements` per second at the median.
    pub steps_per_second: Option<f64>,
    /// The back-end this row's ratio is to (the fastest of its group and N, or the named one).
    pub ratio_to: Option<String>,
    pub ratio: Option<f64>,
    pub ratio_lo: Option<f64>,
    pub ratio_hi: Option<f64>,
}

impl Row {
    /// The game a row's back-end built, for the groups that time several (`octal`: the code
    /// after the back-end, `octal-sparse/0.6`); empty for the others. Rows are compared
    /// (ratios, summary blocks) only within one group, game and N.
    pub fn game(&self) -> &str {
        self.backend.split_once('/').map_or("", |(_, game)| game)
    }

    /// The back-end's name without the game (`octal-sparse` of `octal-sparse/0.6`).
    pub fn backend_name(&self) -> &str {
        self.backend
            .split_once('/')
            .map_or(&self.backend, |(b, _)| b)
    }

    /// The benchmark's id, `group/backend/N`, as criterion prints and filters it.
    pub fn id(&self) -> String {
        format!("{}/{}/{}", self.group, self.backend, self.n)
    }

    /// A row with no ratio yet, its throughput worked out from `elements`.
    pub fn new(
        group: &str,
        backend: &str,
        n: u64,
        (median_ns, lo, hi): (f64, f64, f64),
        confidence_level: f64,
        elements: Option<u64>,
    ) -> Row {
        Row {
            group: group.to_string(),
            backend: backend.to_string(),
            n,
            median_ns,
            median_lo_ns: lo,
            median_hi_ns: hi,
            confidence_level,
            elements,
            steps_per_second: elements
                .filter(|_| median_ns > 0.0)
                .map(|e| e as f64 / (median_ns * 1e-9)),
            ratio_to: None,
            ratio: None,
            ratio_lo: None,
            ratio_hi: None,
        }
    }
}

/// Criterion's output folder as criterion 0.5 finds it, short of asking `cargo metadata`:
/// `$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`, else `target/criterion`.
pub fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        PathBuf::from(home)
    } else if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        PathBuf::from(target).join("criterion")
    } else {
        PathBuf::from("target/criterion")
    }
}

/// Every benchmark saved under `dir` (criterion's output folder) in the folder named `which`:
/// `new` for the latest run, or a baseline's name (`--save-baseline NAME`). With `since`, only
/// estimates written at or after it (a run's own, not an earlier run's left-overs). A
/// benchmark without a numeric parameter (not one of the matrix's) is left out. Sorted by
/// group (table, count, solve, then others), N, back-end. Cost: one walk of `dir`.
pub fn read_criterion(dir: &Path, which: &str, since: Option<SystemTime>) -> Result<Vec<Row>> {
    let mut found = Vec::new();
    walk(dir, which, &mut found).map_err(|e| {
        Error::Invalid(format!(
            "cannot read criterion's folder {}: {e}",
            dir.display()
        ))
    })?;
    let mut rows = Vec::new();
    for folder in found {
        let estimates = folder.join("estimates.json");
        if let Some(since) = since {
            let written = std::fs::metadata(&estimates)
                .and_then(|m| m.modified())
                .map_err(|e| Error::Invalid(format!("{}: {e}", estimates.display())))?;
            if written < since {
                continue;
            }
        }
        if let Some(row) = read_one(&folder)? {
            rows.push(row);
        }
    }
    sort(&mut rows);
    Ok(rows)
}

/// The folders named `which` under `dir` that hold both `estimates.json` and `benchmark.json`.
fn walk(dir: &Path, which: &str, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if !path.is_dir() {
            continue;
        }
        if path.file_name().is_some_and(|f| f == which)
            && path.join("estimates.json").is_file()
            && path.join("benchmark.json").is_file()
        {
            found.push(path);
        } else {
            walk(&path, which, found)?;
        }
    }
    Ok(())
}

/// One benchmark's row from its folder's `benchmark.json` and `estimates.json`.
fn read_one(folder: &Path) -> Result<Option<Row>> {
    let load = |name: &str| -> Result<serde_json::Value> {
        let path = folder.join(name);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
        serde_json::from_str(&text)
            .map_err(|e| Error::Invalid(format!("{}: not JSON: {e}", path.display())))
    };
    let meta = load("benchmark.json")?;
    let est = load("estimates.json")?;
    let Some(n) = meta["value_str"]
        .as_str()
        .and_then(|v| v.parse::<u64>().ok())
    else {
        return Ok(None);
    };
    let (Some(group), Some(backend)) = (meta["group_id"].as_str(), meta["function_id"].as_str())
    else {
        return Ok(None);
    };
    let median = &est["median"];
    let ci = &median["confidence_interval"];
    let (Some(point), Some(lo), Some(hi), Some(level)) = (
        median["point_estimate"].as_f64(),
        ci["lower_bound"].as_f64(),
        ci["upper_bound"].as_f64(),
        ci["confidence_level"].as_f64(),
    ) else {
        return Err(Error::Invalid(format!(
            "{}: no median with a confidence interval (not criterion 0.5's estimates?)",
            folder.join("estimates.json").display()
        )));
    };
    let elements = meta["throughput"]["Elements"].as_u64();
    Ok(Some(Row::new(
        group,
        backend,
        n,
        (point, lo, hi),
        level,
        elements,
    )))
}

/// Sorts rows by group (table, count, solve, octal, then others by name), game, N,
/// back-end.
pub fn sort(rows: &mut [Row]) {
    let rank = |g: &str| match g {
        "table" => 0,
        "count" => 1,
        "solve" => 2,
        "octal" => 3,
        _ => 4,
    };
    rows.sort_by(|a, b| {
        (rank(&a.group), &a.group, a.game(), a.n, &a.backend).cmp(&(
            rank(&b.group),
            &b.group,
            b.game(),
            b.n,
            &b.backend,
        ))
    });
}

/// Sets every row's ratio to the reference of its group, game and N: the back-end named `to`
/// (with or without its game) where it is among them, else the fastest (smallest median). The reference's own ratio is exactly
/// 1; the others' interval is the conservative range of the module doc. Cost: O(rows²).
pub fn add_ratios(rows: &mut [Row], to: Option<&str>) {
    let keys: Vec<(String, String, u64)> = rows
        .iter()
        .map(|r| (r.group.clone(), r.game().to_string(), r.n))
        .collect();
    for (i, key) in keys.iter().enumerate() {
        let peers = || {
            rows.iter()
                .zip(&keys)
                .filter(|(_, k)| *k == key)
                .map(|(r, _)| r)
        };
        let reference = to
            .and_then(|name| peers().find(|r| r.backend == name || r.backend_name() == name))
            .or_else(|| peers().min_by(|a, b| a.median_ns.total_cmp(&b.median_ns)))
            .cloned()
            .expect("a row is its own peer");
        let row = &mut rows[i];
        if row.backend == reference.backend {
            (row.ratio, row.ratio_lo, row.ratio_hi) = (Some(1.0), Some(1.0), Some(1.0));
        } else {
            row.ratio = Some(row.median_ns / reference.median_ns);
            row.ratio_lo = Some(row.median_lo_ns / reference.median_hi_ns);
            row.ratio_hi = Some(row.median_hi_ns / reference.median_lo_ns);
        }
        row.ratio_to = Some(reference.backend);
    }
}

/// A time in nanoseconds in the unit that keeps it between 1 and 1000, to four significant
/// digits (`812.3 µs`, `1.406 ms`).
pub fn human_ns(ns: f64) -> String {
    let (v, unit) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    let decimals = if v >= 100.0 {
        1
    } else if v >= 10.0 {
        2
    } else {
        3
    };
    format!("{v:.decimals$} {unit}")
}

/// The summary printed at the end of a run: one block per group and N, each back-end's median
/// with its interval and its ratio to the reference with the ratio's interval, fastest
/// first. Rows need [`add_ratios`] first.
pub fn summary_table(rows: &[Row]) -> String {
    let mut out = String::new();
    let level = rows.first().map_or(0.95, |r| r.confidence_level);
    out.push_str(&format!(
        "summary: each back-end's median ({:.0}% interval) and its ratio to the reference of its group and N (ratio interval: the range over both intervals, conservative; runs are not paired)\n",
        level * 100.0
    ));
    let mut keys: Vec<(&str, &str, u64)> = rows
        .iter()
        .map(|r| (r.group.as_str(), r.game(), r.n))
        .collect();
    keys.dedup();
    let width = rows
        .iter()
        .map(|r| r.backend.len())
        .max()
        .unwrap_or(0)
        .max(7);
    for (group, game, n) in keys {
        let mut block: Vec<&Row> = rows
            .iter()
            .filter(|r| r.group == group && r.game() == game && r.n == n)
            .collect();
        block.sort_by(|a, b| a.median_ns.total_cmp(&b.median_ns));
        let to = block[0].ratio_to.as_deref().unwrap_or("?");
        let game = if game.is_empty() {
            String::new()
        } else {
            format!(" {game}")
        };
        out.push_str(&format!("{group}{game} N = {n} (ratio to {to})\n"));
        for r in block {
            out.push_str(&format!(
                "  {:<width$}  {:>12}  [{:>12}, {:>12}]  ratio {:>7}  [{}, {}]\n",
                r.backend,
                human_ns(r.median_ns),
                human_ns(r.median_lo_ns),
                human_ns(r.median_hi_ns),
                fmt_ratio(r.ratio),
                fmt_ratio(r.ratio_lo),
                fmt_ratio(r.ratio_hi),
            ));
        }
    }
    out
}

fn fmt_ratio(r: Option<f64>) -> String {
    r.map_or("NA".to_string(), |r| format!("{r:.3}"))
}

/// `matrix.json`: where and when (the build's git revision, the CPU, the date, the load
/// average at the time of writing), what the ratio interval is, and the rows.
pub fn to_json(rows: &[Row]) -> serde_json::Value {
    serde_json::json!({
        "build": provenance::BUILD_REV,
        "cpu": provenance::cpu_model(),
        "date": provenance::utc_date_today(),
        "load_average_end": provenance::load_average(),
        "ratio_interval": RATIO_INTERVAL_NOTE,
        "benchmarks": rows,
    })
}

/// Writes `matrix.csv` and `matrix.json` into `dir` (created if missing) and returns their
/// paths.
pub fn write_files(dir: &Path, rows: &[Row]) -> Result<(PathBuf, PathBuf)> {
    let io = |p: &Path, e: &dyn std::fmt::Display| {
        Error::Invalid(format!("cannot write {}: {e}", p.display()))
    };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, &e))?;
    let csv_path = dir.join("matrix.csv");
    let mut w = csv::Writer::from_path(&csv_path).map_err(|e| io(&csv_path, &e))?;
    for r in rows {
        w.serialize(r).map_err(|e| io(&csv_path, &e))?;
    }
    w.flush().map_err(|e| io(&csv_path, &e))?;
    let json_path = dir.join("matrix.json");
    let text = serde_json::to_string_pretty(&to_json(rows)).expect("rows serialize");
    std::fs::write(&json_path, text + "\n").map_err(|e| io(&json_path, &e))?;
    Ok((csv_path, json_path))
}

/// Reads a `matrix.csv` or `matrix.json` written by [`write_files`] (by its extension).
pub fn read_file(path: &Path) -> Result<Vec<Row>> {
    let bad = |e: &dyn std::fmt::Display| Error::Invalid(format!("{}: {e}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| bad(&e))?;
    let mut rows: Vec<Row> = match path.extension().and_then(|e| e.to_str()) {
        Some("json") => {
            let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(&e))?;
            serde_json::from_value(v["benchmarks"].clone()).map_err(|e| {
                bad(&format!(
                    "not a bench matrix summary (a 'benchmarks' list of rows): {e}"
                ))
            })?
        }
        Some("csv") => csv::Reader::from_reader(text.as_bytes())
            .deserialize()
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| {
                bad(&format!(
                    "not a bench matrix summary with intervals (median_lo_ns, median_hi_ns): {e}"
                ))
            })?,
        _ => return Err(bad(&"give a matrix.csv or matrix.json (by its extension)")),
    };
    sort(&mut rows);
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(group: &str, backend: &str, n: u64, m: (f64, f64, f64)) -> Row {
        Row::new(group, backend, n, m, 0.95, None)
    }

    #[test]
    fn ratios_are_to_the_fastest_or_the_named_back_end_per_group_and_n() {
        let mut rows = vec![
            row("table", "a", 10, (200.0, 190.0, 220.0)),
            row("table", "b", 10, (100.0, 95.0, 110.0)),
            row("table", "a", 20, (300.0, 300.0, 300.0)),
            row("count", "c", 10, (50.0, 50.0, 50.0)),
        ];
        add_ratios(&mut rows, None);
        assert_eq!(rows[0].ratio_to.as_deref(), Some("b"));
        assert_eq!(rows[0].ratio, Some(2.0));
        assert_eq!(rows[0].ratio_lo, Some(190.0 / 110.0));
        assert_eq!(rows[0].ratio_hi, Some(220.0 / 95.0));
        assert_eq!((rows[1].ratio, rows[1].ratio_lo), (Some(1.0), Some(1.0)));
        // Alone at its N and in its group: its own reference.
        assert_eq!(rows[2].ratio_to.as_deref(), Some("a"));
        assert_eq!(rows[3].ratio_to.as_deref(), Some("c"));
        add_ratios(&mut rows, Some("a"));
        assert_eq!(rows[1].ratio, Some(0.5));
        assert_eq!(rows[1].ratio_lo, Some(95.0 / 220.0));
        // A name missing from a group and N falls back to the fastest there.
        assert_eq!(rows[3].ratio_to.as_deref(), Some("c"));
    }

    #[test]
    fn octal_rows_are_compared_within_their_game() {
        // Two games at one N: each back-end's ratio is to the fastest of its own game.
        let mut rows = vec![
            row("octal", "octal-vector/0.6", 10, (100.0, 100.0, 100.0)),
            row("octal", "octal-sparse/0.6", 10, (300.0, 300.0, 300.0)),
            row("octal", "octal-sparse/0.137", 10, (50.0, 50.0, 50.0)),
            row("octal", "octal-vector/0.137", 10, (10.0, 10.0, 10.0)),
        ];
        sort(&mut rows);
        add_ratios(&mut rows, None);
        fn of<'a>(rows: &'a [Row], b: &str) -> &'a Row {
            rows.iter().find(|r| r.backend == b).unwrap()
        }
        assert_eq!(of(&rows, "octal-sparse/0.6").ratio, Some(3.0));
        assert_eq!(of(&rows, "octal-sparse/0.137").ratio, Some(5.0));
        assert_eq!(
            of(&rows, "octal-sparse/0.6").ratio_to.as_deref(),
            Some("octal-vector/0.6")
        );
        // The named reference is found without its game.
        add_ratios(&mut rows, Some("octal-sparse"));
        assert_eq!(of(&rows, "octal-vector/0.6").ratio, Some(100.0 / 300.0));
        assert_eq!(of(&rows, "octal-vector/0.137").ratio, Some(0.2));
        let text = summary_table(&rows);
        assert!(
            text.contains("octal 0.137 N = 10 (ratio to octal-sparse/0.137)")
                && text.contains("octal 0.6 N = 10 (ratio to octal-sparse/0.6)"),
            "{text}"
        );
        assert_eq!(text.matches(" N = 10 ").count(), 2, "{text}");
    }

    #[test]
    fn times_are_printed_to_four_significant_digits() {
        assert_eq!(human_ns(812.34), "812.3 ns");
        assert_eq!(human_ns(1_405_775.0), "1.406 ms");
        assert_eq!(human_ns(88_939.6), "88.94 µs");
        assert_eq!(human_ns(2.5e9), "2.500 s");
    }

    #[test]
    fn the_files_round_trip_and_old_csv_files_are_refused() {
        let dir = std::env::temp_dir().join(format!("nimsquare-report-{}", std::process::id()));
        let mut rows = vec![
            row("table", "b", 10, (100.0, 95.0, 110.0)),
            Row::new("table", "a", 10, (200.0, 190.0, 220.0), 0.95, Some(1000)),
        ];
        add_ratios(&mut rows, None);
        sort(&mut rows);
        let (csv, json) = write_files(&dir, &rows).unwrap();
        assert_eq!(read_file(&csv).unwrap(), rows);
        assert_eq!(read_file(&json).unwrap(), rows);
        assert_eq!(rows[0].steps_per_second, Some(1000.0 / 200e-9));
        let text = std::fs::read_to_string(&json).unwrap();
        assert!(
            text.contains("\"ratio_interval\": \"ratio = median /"),
            "{text}"
        );
        let old = dir.join("old.csv");
        std::fs::write(
            &old,
            "group,backend,n,median_ns,steps_per_second\ntable,a,10,1.0,\n",
        )
        .unwrap();
        let e = read_file(&old).unwrap_err().to_string();
        assert!(e.contains("median_lo_ns"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
