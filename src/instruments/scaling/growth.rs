//! The growth study behind `nimsquare growth`: how a quantity of one heap's Grundy sequence
//! grows with N, read on the same geometric grid, CSV log and fits as the scaling study.
//!
//! - `cold`: c(N), the number of cold positions (g = 0) in 0..=N;
//! - `max`: m(N), the largest Grundy value in 0..=N, where it first occurs, and the counts of
//!   every value.
//!
//! Both quantities at n only look at positions 0..=n, and g(n) does not depend on the limit a
//! table is built to, so one cold set or table built at the largest N of the grid answers every
//! smaller grid point as a prefix ([`cold_prefix_counts`], [`max_prefix_stats`]): one build
//! instead of one per point.

use super::log::StudyRow;
use crate::base::provenance::Provenance;
use crate::cold::ColdSet;
use serde::{Deserialize, Serialize};

/// The header of a `growth --quantity cold` CSV (the field order of [`ColdRow`], its
/// [`Build`] and [`Provenance`] in place).
pub const COLD_HEADER: &str =
    "n,cold,cold_share,built_to,seconds,backend,load_start,load_end,threads,moves,git_rev,cpu";

/// The header of a `growth --quantity max` CSV (the field order of [`MaxRow`], its
/// [`Build`] and [`Provenance`] in place).
pub const MAX_HEADER: &str = "n,max_value,max_first_at,cold,cold_share,mode,mode_count,counts,built_to,seconds,backend,load_start,load_end,threads,moves,git_rev,cpu";

/// The settings every row of one growth CSV shares: the subtraction set. The thread count
/// only changes `seconds`, not the quantity, so it is recorded but not enforced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrowthSettings {
    /// The subtraction set, as in the `moves` column.
    pub moves: String,
}

fn moves_difference(
    settings: &GrowthSettings,
    moves: &str,
) -> Option<(&'static str, String, String)> {
    (moves != settings.moves).then(|| ("--moves", moves.to_string(), settings.moves.clone()))
}

/// The one build every row of a growth study is read from, as a prefix: the columns
/// `built_to`, `seconds`, `backend`, written in place (like [`Provenance`], never flattened).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Build {
    /// The N the cold set or table was built to (each row is its prefix up to n).
    pub built_to: u64,
    /// Seconds of that one build (shared by every row read from it).
    pub seconds: f64,
    /// The cold-set or table back-end.
    pub backend: String,
    /// The one-minute load average before and after the build (NaN where unknown).
    pub load_start: f64,
    pub load_end: f64,
}

/// One grid point of c(N).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColdRow {
    pub n: u64,
    /// c(n): cold positions in 0..=n.
    pub cold: u64,
    /// c(n) / (n + 1).
    pub cold_share: f64,
    /// The sieve cold set this row counts from.
    pub build: Build,
    pub provenance: Provenance,
}

impl StudyRow for ColdRow {
    const HEADER: &'static str = COLD_HEADER;
    const STUDY: &'static str = "growth --quantity cold";
    type Settings = GrowthSettings;

    fn key(&self) -> (String, u64) {
        ("cold".into(), self.n)
    }

    fn difference(s: &GrowthSettings, row: &ColdRow) -> Option<(&'static str, String, String)> {
        moves_difference(s, &row.provenance.moves)
    }
}

/// One grid point of m(N) and the value distribution up to N.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MaxRow {
    pub n: u64,
    /// m(n): the largest Grundy value in 0..=n.
    pub max_value: u16,
    /// The least position with that value.
    pub max_first_at: u64,
    /// The positions with value 0 in 0..=n.
    pub cold: u64,
    /// cold / (n + 1).
    pub cold_share: f64,
    /// The most frequent value in 0..=n (the smallest one on a tie).
    pub mode: u16,
    /// How many positions have the mode.
    pub mode_count: u64,
    /// The counts of the values 0..=max_value, `;`-separated.
    pub counts: String,
    /// The table this row reads.
    pub build: Build,
    pub provenance: Provenance,
}

impl StudyRow for MaxRow {
    const HEADER: &'static str = MAX_HEADER;
    const STUDY: &'static str = "growth --quantity max";
    type Settings = GrowthSettings;

    fn key(&self) -> (String, u64) {
        ("max".into(), self.n)
    }

    fn difference(s: &GrowthSettings, row: &MaxRow) -> Option<(&'static str, String, String)> {
        moves_difference(s, &row.provenance.moves)
    }
}

/// c(n) for every n in `grid` (ascending, each at most the set's limit), counted from one
/// cold set.
pub fn cold_prefix_counts(set: &ColdSet, grid: &[u64]) -> Vec<u64> {
    debug_assert!(grid.windows(2).all(|w| w[0] < w[1]));
    let mut counts = Vec::with_capacity(grid.len());
    let mut positions = set.positions().peekable();
    let mut seen = 0u64;
    for &n in grid {
        while positions.next_if(|&p| p as u64 <= n).is_some() {
            seen += 1;
        }
        counts.push(seen);
    }
    counts
}

/// The value statistics of a prefix g(0..=n) of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefixStats {
    pub n: u64,
    pub max_value: u16,
    pub max_first_at: u64,
    /// `histogram[v]`: positions in 0..=n with value v, for v in 0..=max_value.
    pub histogram: Vec<u64>,
}

impl PrefixStats {
    /// The most frequent value and its count (the smallest value on a tie).
    pub fn mode(&self) -> (u16, u64) {
        let mut best = (0u16, 0u64);
        for (v, &c) in self.histogram.iter().enumerate() {
            if c > best.1 {
                best = (v as u16, c);
            }
        }
        best
    }

    /// The counts as one `;`-separated field.
    pub fn counts_field(&self) -> String {
        let parts: Vec<String> = self.histogram.iter().map(u64::to_string).collect();
        parts.join(";")
    }
}

/// The statistics of g(0..=n) for every n in `grid` (ascending, each below `values.len()`),
/// in one pass over the values.
pub fn max_prefix_stats(values: &[u16], grid: &[u64]) -> Vec<PrefixStats> {
    debug_assert!(grid.windows(2).all(|w| w[0] < w[1]));
    let mut out = Vec::with_capacity(grid.len());
    let mut histogram: Vec<u64> = Vec::new();
    let (mut max_value, mut max_first_at) = (0u16, 0u64);
    let mut next = 0usize; // the next position to read
    for &n in grid {
        let end = (n as usize).min(values.len().saturating_sub(1));
        while next <= end {
            let v = values[next];
            if v as usize >= histogram.len() {
                histogram.resize(v as usize + 1, 0);
            }
            histogram[v as usize] += 1;
            if v > max_value || next == 0 {
                max_value = v;
                max_first_at = next as u64;
            }
            next += 1;
        }
        out.push(PrefixStats {
            n,
            max_value,
            max_first_at,
            histogram: histogram.clone(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::moves::Moves;
    use crate::cold;

    #[test]
    fn cold_prefixes_match_separate_builds() {
        let sieve = (cold::reference().make)();
        let set = sieve.cold(&Moves::Squares, 5_000);
        let grid = [0u64, 1, 2, 99, 1_000, 4_999, 5_000];
        let counts = cold_prefix_counts(&set, &grid);
        for (&n, &c) in grid.iter().zip(&counts) {
            assert_eq!(
                c,
                sieve.cold(&Moves::Squares, n as usize).count(),
                "n = {n}"
            );
        }
        // Independent fact: 0, 2, 5, 7, 10, 12, 15, 17, 20, 22, 34, 39, 44, 52, 57, 62, 65,
        // 67, 72, 85, 95 are the cold positions below 100 (the facts tests/facts.rs asserts).
        assert_eq!(counts[3], 21);
    }

    #[test]
    fn rows_keep_the_flat_format_and_read_back() {
        let dir = std::env::temp_dir().join(format!("nimsquare-growth-row-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("g.csv");
        let provenance = Provenance {
            threads: 2,
            moves: "1,3,4".into(),
            git_rev: "abc1234".into(),
            cpu: "cpu, model".into(),
        };
        let build = Build {
            built_to: 1000,
            seconds: 0.5,
            backend: "sieve".into(),
            load_start: 0.5,
            load_end: 0.75,
        };
        let row = ColdRow {
            n: 100,
            cold: 21,
            cold_share: 0.25,
            build: build.clone(),
            provenance: provenance.clone(),
        };
        let mut log: super::super::CsvLog<ColdRow> = super::super::CsvLog::create(&path).unwrap();
        log.append(row.clone()).unwrap();
        drop(log);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!(
                "{COLD_HEADER}\n100,21,0.25,1000,0.5,sieve,0.5,0.75,2,\"1,3,4\",abc1234,\"cpu, model\"\n"
            )
        );
        assert_eq!(
            super::super::read_study_rows::<ColdRow>(&path).unwrap(),
            vec![row]
        );
        let max = MaxRow {
            n: 10,
            max_value: 2,
            max_first_at: 4,
            cold: 5,
            cold_share: 0.5,
            mode: 0,
            mode_count: 5,
            counts: "5;4;2".into(),
            build,
            provenance,
        };
        let mut log: super::super::CsvLog<MaxRow> = super::super::CsvLog::create(&path).unwrap();
        log.append(max.clone()).unwrap();
        drop(log);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("{MAX_HEADER}\n10,2,4,5,0.5,0,5,5;4;2,1000,0.5,sieve,0.5,0.75,2,\"1,3,4\",abc1234,\"cpu, model\"\n")
        );
        assert_eq!(
            super::super::read_study_rows::<MaxRow>(&path).unwrap(),
            vec![max]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn max_prefixes_track_first_occurrence_and_histogram() {
        let values = [0u16, 1, 0, 1, 2, 0, 1, 0, 1, 2, 0];
        let stats = max_prefix_stats(&values, &[0, 3, 4, 10]);
        assert_eq!(stats[0].max_value, 0);
        assert_eq!(stats[0].histogram, vec![1]);
        assert_eq!((stats[1].max_value, stats[1].max_first_at), (1, 1));
        assert_eq!((stats[2].max_value, stats[2].max_first_at), (2, 4));
        assert_eq!(stats[3].histogram, vec![5, 4, 2]);
        assert_eq!(stats[3].mode(), (0, 5));
        assert_eq!(stats[3].counts_field(), "5;4;2");
    }
}
