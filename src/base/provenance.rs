//! Where a row was measured, recorded in every row so that rows from different machines or
//! builds are never mistaken for one study.

/// The git revision of the source this binary was built from (`build.rs`): the short hash,
/// with `-dirty` when tracked files had uncommitted changes, or `unknown` when built outside a
/// git checkout. It is fixed at compile time, so a record names the code that made it
/// wherever the binary runs, never the revision of the folder it runs in.
pub fn git_rev() -> String {
    BUILD_REV.to_string()
}

/// [`git_rev`] as a constant.
pub const BUILD_REV: &str = env!("NIMSQUARE_BUILD_REV");

/// `rustc --version` of the compiler that built this binary (`build.rs`), or `unknown`.
pub const RUSTC_VERSION: &str = env!("NIMSQUARE_RUSTC_VERSION");

/// The load average over the last minute (`/proc/loadavg`), if the system reports one: what
/// a measurement records at its start and end, so a reader can tell a busy machine.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The CPU's "model name" from /proc/cpuinfo, or "unknown".
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// The columns every study row shares, in this order: `threads`, `moves`, `git_rev`, `cpu`.
///
/// A row holds it as one field where these columns sit; the csv crate writes a nested
/// struct's fields in place (flat), and reads them back positionally, so the CSV format is
/// that of the flat rows. It is never `#[serde(flatten)]`ed: the csv crate cannot write a
/// flattened struct, and reads its numbers mis-typed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Provenance {
    /// Worker threads.
    pub threads: usize,
    /// The subtraction set, as `--moves` takes it (`squares` or `1,3,4`).
    pub moves: String,
    /// [`git_rev`], read once per study, before its first build.
    pub git_rev: String,
    /// [`cpu_model`].
    pub cpu: String,
}

impl Provenance {
    /// The provenance of a study run here under the subtraction set `moves` (its label, as
    /// `--moves` takes it) and `threads`: the binary's build revision and the CPU model, read
    /// once; every row clones it.
    pub fn here(moves: String, threads: usize) -> Provenance {
        Provenance {
            threads,
            moves,
            git_rev: git_rev(),
            cpu: cpu_model(),
        }
    }
}

/// Today's date in UTC as `YYYY-MM-DD`, from the system clock.
pub fn utc_date_today() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((seconds / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian (year, month, day) of `days` since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`: 400-year eras of 146 097 days, years starting in March so the leap
/// day falls at a year's end).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn days_become_dates() {
        // Checked with GNU date: `date -u -d @$((D*86400)) +%F`.
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_788), (2026, 12, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }
}
