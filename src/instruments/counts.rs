//! The counting bench and CI's count gate: every benchmark of a small grid counted under
//! Valgrind's Callgrind (instructions, and with `--cache` the simulated data accesses and
//! misses), compared with a saved baseline the way criterion compares times.
//!
//! The benchmarks are the bench matrix's own ([`matrix::benches`] on [`counted_grid`]), so
//! nothing is counted that the matrix does not time and the tests do not check. Each is
//! counted in a child process, the bench binary itself run under Callgrind with
//! `--counted-child ID`: the child runs the benchmark once ([`run_marked`]) with its stage
//! marked ([`crate::base::valgrind::stage`]), on one thread (the main thread itself), on the
//! path the id names, and prints its answer, which must equal the answer of every other
//! back-end of its group, game and N.
//!
//! Counts move only with the code, the compiler and the path: the same binary counts the same
//! to the instruction on every run and machine kind (no back-end reads the machine's cache
//! sizes; the chunks of a long run are sized by a fixed rate when counted). So a baseline
//! names the compiler and the path; [`gate`] holds a run against one only when both match,
//! and otherwise says it was recounted instead of failing.
//!
//! Cost: Callgrind runs a program 30 to 100 times slower; the grid is sized so each count
//! takes seconds.

use crate::base::error::{Error, Result};
use crate::base::fault;
use crate::base::isa::{self, Isa};
use crate::base::valgrind::{self, Stage};
use crate::cost::Primitive;
use crate::instruments::matrix::{self, Bench, Grid, Group};
use crate::run::counted::{Counting, Counts, Valgrind};
use std::path::Path;
use std::time::Duration;

/// The grid counted: tables and counts at N = 10^5 (the project's headline N, in cache),
/// Officers (0.6) and Dawson's chess (0.137) at 10^4, the finite set {1, 3, 4} at 10^5; no
/// solve group (a solve is a table and a count, each counted alone).
pub fn counted_grid() -> Grid {
    Grid {
        table: vec![100_000],
        count: vec![100_000],
        solve: vec![],
        games: vec![
            ("octal:0.6", vec![10_000]),
            ("octal:0.137", vec![10_000]),
            ("finite:1,3,4", vec![100_000]),
        ],
        measure: Duration::ZERO,
        warm_up: Duration::ZERO,
    }
}

/// The widest path Valgrind 3.19 runs; the bench caps the paths at it
/// ([`crate::base::isa::CAP_ENV`]) before anything reads them, so that the grid holds no
/// AVX-512 benchmark and the plain names run on AVX2 wherever the CPU has it.
pub const COUNTED_CAP: Isa = Isa::Avx2;

/// The benchmarks counted: the matrix's benches of [`counted_grid`] (under [`COUNTED_CAP`]).
pub fn benches() -> Vec<Bench> {
    matrix::benches(&counted_grid())
}

/// The back-ends of the CI gate's panel, beside each workload's default: the hot kernels
/// (the lane-blocked stamped mex and its parallel schedule, the bitset mex, Eppstein's
/// classes, the middle-heap sweep, the octal block and sparse methods).
pub const PANEL_HOT: &[&str] = &[
    "stamped-lanes",
    "stamped-parallel",
    "bitset",
    "value-bounded",
    "sweep",
    "octal-block",
    "octal-sparse",
];

/// The CI gate's panel: each workload's default back-end at its N and the [`PANEL_HOT`]
/// back-ends, on the active path only (the plain names).
pub fn panel(all: &[Bench]) -> Vec<Bench> {
    all.iter()
        .filter(|b| b.path.is_none())
        .filter(|b| {
            let name = b.name();
            let default = match (b.group, b.table) {
                (Group::Build(_), Some(t)) => b.game.default_backend(b.n).name() == t.name(),
                _ => false,
            };
            default || PANEL_HOT.contains(&name.as_str())
        })
        .cloned()
        .collect()
}

/// The stage a benchmark's run marks.
pub fn stage_of(bench: &Bench) -> Stage {
    match bench.group {
        Group::Count => Stage::Count,
        _ => Stage::Build,
    }
}

/// Runs `bench` once in this process, its stage marked for counting, and returns its answer
/// (a table's FNV-1a digest, or a count). What the child of a counted run does.
pub fn run_marked(bench: &Bench) -> Result<String> {
    let body = || -> Result<String> {
        match (bench.group, bench.table, bench.count) {
            (Group::Count, _, Some(c)) => {
                // The table is not counted: the judge of the squares builds it.
                let table = bench.game.build(bench.game.reference(), bench.n)?;
                let counter = (c.make)();
                let (count, _) = valgrind::stage(Stage::Count, || counter.count(&table, 3));
                Ok(count?.to_string())
            }
            (_, Some(t), _) => {
                let (table, _) = valgrind::stage(Stage::Build, || bench.game.build(t, bench.n));
                let table = table?;
                Ok(format!(
                    "{:016x}",
                    crate::run::longrun::tablefile::values_fnv1a64(table.values())
                ))
            }
            _ => Err(Error::Invalid(format!(
                "{}: nothing to count in this benchmark",
                bench.id()
            ))),
        }
    };
    match bench.path {
        Some(path) => isa::with(path, body)?,
        None => body(),
    }
}

/// What a benchmark's cost model predicts of the data accesses Callgrind counts: its byte
/// stores into stamp arrays ([`Primitive::Scatter`]) and the values its span loads read
/// ([`Primitive::Span`], 32 values each, since the kernels load each value on its own).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Predicted {
    pub stores: f64,
    pub loads: f64,
}

/// The model's prediction for `bench` on one thread, from the judge's table of its game and
/// N (the workload a model counts from).
pub fn predicted(bench: &Bench) -> Result<Predicted> {
    let table = bench.game.build(bench.game.reference(), bench.n)?;
    let workload = bench.game.workload(&table, 1);
    let model = match (bench.table, bench.count) {
        (_, Some(c)) => c.model,
        (Some(t), None) => t.model(),
        (None, None) => return Err(Error::Invalid(format!("{}: no back-end", bench.id()))),
    };
    let demand = (model.demand)(&workload);
    Ok(Predicted {
        stores: demand.of(Primitive::Scatter),
        loads: demand.of(Primitive::Span) * 32.0,
    })
}

/// Counted over predicted, or None when the model predicts none of them.
pub fn model_ratio(counted: u64, predicted: f64) -> Option<f64> {
    (predicted > 0.0).then(|| counted as f64 / predicted)
}

/// How far a model may be from the counts before the bench flags it: 10%.
pub const MODEL_TOLERANCE: f64 = 0.10;

/// One benchmark's counts.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Row {
    pub id: String,
    /// The answer the child printed (a digest or a count).
    pub answer: String,
    pub counts: Counts,
}

/// Counts `bench` by running `exe --counted-child ID` under Callgrind.
pub fn count_one(valgrind: &Valgrind, exe: &Path, bench: &Bench, cache: bool) -> Result<Row> {
    let how = Counting {
        stage: Some(stage_of(bench)),
        cache_sim: cache,
    };
    let run = valgrind.run(&how, exe, &["--counted-child".to_string(), bench.id()])?;
    let answer = String::from_utf8_lossy(&run.output.stdout)
        .trim()
        .to_string();
    Ok(Row {
        id: bench.id(),
        answer,
        counts: run.counts,
    })
}

/// The answer every benchmark of one group, game and N must share: the id without its
/// back-end (`table/100000`, `octal/0.6/10000`).
pub fn agreement_key(bench: &Bench) -> String {
    let rules = if bench.game == crate::run::workload::squares() {
        String::new()
    } else {
        format!("{}/", bench.game.label())
    };
    format!("{}/{rules}{}", bench.group.name(), bench.n)
}

/// Refuses rows whose answers differ within one [`agreement_key`], naming both.
pub fn check_agreement(benches: &[Bench], rows: &[Row]) -> Result<()> {
    let mut seen: Vec<(String, &Row)> = Vec::new();
    for (b, r) in benches.iter().zip(rows) {
        let key = agreement_key(b);
        match seen.iter().find(|(k, _)| *k == key) {
            Some((_, first)) if first.answer != r.answer => {
                return Err(Error::Disagreement(format!(
                    "{} answered {} where {} answered {}: not counted",
                    r.id, r.answer, first.id, first.answer
                )))
            }
            Some(_) => {}
            None => seen.push((key, r)),
        }
    }
    Ok(())
}

/// A saved set of counts and what they depend on.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Baseline {
    /// `rustc --version` of the build counted.
    pub rustc: String,
    /// `valgrind --version`.
    pub valgrind: String,
    /// The path the plain names ran on (`avx2`).
    pub path: String,
    /// The build's git revision.
    pub build: String,
    /// The date counted (UTC, `YYYY-MM-DD`).
    pub date: String,
    pub rows: Vec<Row>,
}

impl Baseline {
    /// Reads a baseline file, or refuses it in one line naming the file.
    pub fn read(path: &Path) -> Result<Baseline> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::Invalid(format!("{}: cannot read the baseline: {e}", path.display()))
        })?;
        Baseline::parse(&text, path)
    }

    /// [`Baseline::read`] of a file's text `text` (`path` only names it in messages).
    pub fn parse(text: &str, path: &Path) -> Result<Baseline> {
        serde_json::from_str(text).map_err(|e| {
            Error::Invalid(format!(
                "{}: not a counts baseline ({e}); write one with --save-gate",
                path.display()
            ))
        })
    }

    /// Writes the baseline to `path` whole (a temporary file renamed over it).
    pub fn write(&self, path: &Path) -> Result<()> {
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Invalid(format!("{}: {e}", dir.display())))?;
        let text = serde_json::to_string_pretty(self).expect("a baseline serializes") + "\n";
        fault::before_create().map_err(|e| Error::Invalid(format!("{}: {e}", dir.display())))?;
        let tmp = tempfile::NamedTempFile::new_in(dir)
            .map_err(|e| Error::Invalid(format!("{}: {e}", dir.display())))?;
        fault::write(tmp.path(), text)
            .map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
        // Readable by all, as a file written by hand would be (the temporary file is 0600).
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))
            .map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
        fault::persist(tmp, path)
            .map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
        Ok(())
    }

    /// What differs between this baseline's setting and `other`'s (compiler, Valgrind,
    /// path), in words; empty when the counts are comparable.
    pub fn differences(&self, other: &Baseline) -> Vec<String> {
        let mut out = Vec::new();
        for (what, a, b) in [
            ("compiler", &self.rustc, &other.rustc),
            ("valgrind", &self.valgrind, &other.valgrind),
            ("path", &self.path, &other.path),
        ] {
            if a != b {
                out.push(format!("{what} '{a}' where the baseline has '{b}'"));
            }
        }
        out
    }
}

/// One benchmark's change against the baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub id: String,
    pub before: u64,
    pub after: u64,
}

impl Change {
    /// after / before - 1.
    pub fn relative(&self) -> f64 {
        self.after as f64 / self.before.max(1) as f64 - 1.0
    }
}

/// The instruction counts of `rows` against `baseline`'s, for the ids both have; ids only
/// one has are listed apart (new, gone).
pub fn changes(rows: &[Row], baseline: &[Row]) -> (Vec<Change>, Vec<String>, Vec<String>) {
    let mut changed = Vec::new();
    let mut new = Vec::new();
    for r in rows {
        match baseline.iter().find(|b| b.id == r.id) {
            Some(b) => changed.push(Change {
                id: r.id.clone(),
                before: b.counts.instructions,
                after: r.counts.instructions,
            }),
            None => new.push(r.id.clone()),
        }
    }
    let gone = baseline
        .iter()
        .filter(|b| !rows.iter().any(|r| r.id == b.id))
        .map(|b| b.id.clone())
        .collect();
    (changed, new, gone)
}

/// What the gate says of a run against a committed baseline.
#[derive(Debug, Clone, PartialEq)]
pub enum Gate {
    /// Every count within the threshold (the largest growth given).
    Passed { largest: f64 },
    /// These grew past the threshold.
    Failed(Vec<Change>),
    /// The baseline was counted with another compiler, Valgrind or path: the counts are
    /// printed, the gate not applied.
    Recounted(Vec<String>),
    /// An id of the baseline was not counted (the panel changed): re-save the baseline.
    Missing(Vec<String>),
}

/// Holds `run` against `baseline`: fails when an instruction count grew by more than
/// `threshold` (0.02: 2%); a shrinking count never fails.
pub fn gate(run: &Baseline, baseline: &Baseline, threshold: f64) -> Gate {
    let differences = run.differences(baseline);
    if !differences.is_empty() {
        return Gate::Recounted(differences);
    }
    let (changed, _, gone) = changes(&run.rows, &baseline.rows);
    if !gone.is_empty() {
        return Gate::Missing(gone);
    }
    let failed: Vec<Change> = changed
        .iter()
        .filter(|c| c.relative() > threshold)
        .cloned()
        .collect();
    if failed.is_empty() {
        let largest = changed
            .iter()
            .map(Change::relative)
            .fold(f64::NEG_INFINITY, f64::max);
        Gate::Passed { largest }
    } else {
        Gate::Failed(failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, instructions: u64) -> Row {
        Row {
            id: id.into(),
            answer: "1".into(),
            counts: Counts {
                instructions,
                cache: None,
            },
        }
    }

    fn baseline(rows: Vec<Row>) -> Baseline {
        Baseline {
            rustc: "rustc 1.95.0".into(),
            valgrind: "valgrind-3.19.0".into(),
            path: "avx2".into(),
            build: "x".into(),
            date: "2026-12-07".into(),
            rows,
        }
    }

    #[test]
    fn the_gate_fails_past_the_threshold_and_only_on_growth() {
        let base = baseline(vec![
            row("table/a/100000", 1_000_000),
            row("count/b/100000", 500),
        ]);
        // 2.1% more: fails at 2%; 1.9% more and any shrinking pass.
        let run = baseline(vec![
            row("table/a/100000", 1_021_000),
            row("count/b/100000", 100),
        ]);
        match gate(&run, &base, 0.02) {
            Gate::Failed(c) => {
                assert_eq!(c.len(), 1);
                assert_eq!(c[0].id, "table/a/100000");
                assert!((c[0].relative() - 0.021).abs() < 1e-12);
            }
            other => panic!("{other:?}"),
        }
        let run = baseline(vec![
            row("table/a/100000", 1_019_000),
            row("count/b/100000", 100),
        ]);
        match gate(&run, &base, 0.02) {
            Gate::Passed { largest } => assert!((largest - 0.019).abs() < 1e-12),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn another_compiler_is_recounted_and_a_missing_id_is_named() {
        let base = baseline(vec![row("table/a/100000", 1_000)]);
        let mut run = baseline(vec![row("table/a/100000", 9_000)]);
        run.rustc = "rustc 1.96.0".into();
        match gate(&run, &base, 0.02) {
            Gate::Recounted(why) => assert!(why[0].contains("rustc 1.96.0"), "{why:?}"),
            other => panic!("{other:?}"),
        }
        let run = baseline(vec![row("table/c/100000", 1_000)]);
        assert_eq!(
            gate(&run, &base, 0.02),
            Gate::Missing(vec!["table/a/100000".into()])
        );
    }

    #[test]
    fn the_stamped_model_predicts_one_store_per_option_step() {
        // stamped's model: one stamp store per option step; S(10^4) = sum of floor(sqrt n)
        // for n <= 10^4, computed here.
        let steps: u64 = (1..=10_000u64).map(|n| (n as f64).sqrt() as u64).sum();
        let mut bench = benches()
            .into_iter()
            .find(|b| b.name() == "stamped")
            .unwrap();
        bench.n = 10_000;
        let p = predicted(&bench).unwrap();
        assert_eq!(p.stores, steps as f64);
        assert_eq!(model_ratio(steps * 11 / 10, p.stores), Some(1.1));
        assert_eq!(model_ratio(5, 0.0), None);
    }

    #[test]
    fn answers_must_agree_within_a_group_game_and_n() {
        let all = benches();
        let squares: Vec<Bench> = all
            .iter()
            .filter(|b| b.group == Group::Build("table"))
            .take(2)
            .cloned()
            .collect();
        assert_eq!(squares.len(), 2);
        assert_eq!(agreement_key(&squares[0]), "table/100000");
        let rows = vec![row(&squares[0].id(), 1), row(&squares[1].id(), 1)];
        assert!(check_agreement(&squares, &rows).is_ok());
        let mut rows = rows;
        rows[1].answer = "2".into();
        let e = check_agreement(&squares, &rows).unwrap_err().to_string();
        assert!(e.contains("answered 2 where"), "{e}");
    }

    #[test]
    fn the_panel_holds_each_workloads_default_and_the_hot_kernels_on_the_plain_path() {
        let all = benches();
        let panel = panel(&all);
        assert!(panel.iter().all(|b| b.path.is_none()));
        for hot in ["bitset", "sweep", "octal-block"] {
            assert!(panel.iter().any(|b| b.name() == hot), "{hot}");
        }
        for game in ["octal:0.6", "finite:1,3,4"] {
            let subject = crate::run::workload::parse_spec(game).unwrap();
            assert!(panel.iter().any(|b| b.game == subject), "{game}");
        }
        assert!(panel.len() < all.len());
    }
}
