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

/// The CPU as /proc/cpuinfo names it: its "model name", then the family, model and stepping
/// when the file gives them (`AMD EPYC (family 25 model 1 stepping 1)`), or "unknown".
///
/// The name alone does not tell CPUs apart: virtual machines of three EPYC generations all
/// report "AMD EPYC", and wisdom, a study or a census row must not be taken for another's.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| cpu_model_of(&text))
        .unwrap_or_else(|| "unknown".into())
}

/// [`cpu_model`] read off the text of /proc/cpuinfo (its first processor), or None without a
/// model name.
pub fn cpu_model_of(cpuinfo: &str) -> Option<String> {
    let first = cpuinfo.split("\n\n").next().unwrap_or("");
    let field = |key: &str| {
        first
            .lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim() == key)
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let name = field("model name")?;
    Some(
        match (field("cpu family"), field("model"), field("stepping")) {
            (Some(family), Some(model), Some(stepping)) => {
                format!("{name} (family {family} model {model} stepping {stepping})")
            }
            (Some(family), Some(model), None) => format!("{name} (family {family} model {model})"),
            _ => name,
        },
    )
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
    use super::{civil_from_days, cpu_model_of};

    #[test]
    fn cpus_of_one_name_are_told_apart_by_family_model_and_stepping() {
        let zen3 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: AMD EPYC\nstepping\t: 1\n\nprocessor\t: 1\nmodel name\t: other\n";
        let zen5 = zen3
            .replace("25", "26")
            .replace("model\t\t: 1", "model\t\t: 2");
        assert_eq!(
            cpu_model_of(zen3).as_deref(),
            Some("AMD EPYC (family 25 model 1 stepping 1)")
        );
        assert_eq!(
            cpu_model_of(&zen5).as_deref(),
            Some("AMD EPYC (family 26 model 2 stepping 1)")
        );
        // Without family and model (another architecture), the name alone; none, no name.
        assert_eq!(
            cpu_model_of("model name\t: Some CPU\n").as_deref(),
            Some("Some CPU")
        );
        assert_eq!(cpu_model_of("processor\t: 0\n"), None);
    }

    #[test]
    fn days_become_dates() {
        // Checked with GNU date: `date -u -d @$((D*86400)) +%F`.
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_788), (2026, 12, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }
}
