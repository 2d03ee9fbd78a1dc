//! Wisdom: the table back-end choices `nimsquare tune` measured on this machine, kept in a
//! JSON file so that `auto` picks by what was timed here rather than by crossovers measured
//! elsewhere (the idea of FFTW's wisdom).
//!
//! A file holds, for one CPU model, one vector path, one build of the binary and one
//! subtraction set, a [`ThreadPlan`] per thread count: steps `from N on, use back-end X`, each
//! marked [`Basis::Measured`] (timed by `tune` at that N) or [`Basis::Modelled`] (past the
//! largest N timed, priced by the roofline's cost models with the primitives measured there).
//!
//! Where it is read from, first match wins: `--wisdom FILE`; the file named by
//! [`PATH_VARIABLE`]; the default [`default_path`] in the user's cache folder. Setting
//! [`OFF_VARIABLE`] to anything but empty or `0` turns wisdom off (the tests and `.ci/run` do,
//! so a developer's cached wisdom never changes a test).
//!
//! Key invariant: `auto` uses a file only when it matches the run — the CPU model, the
//! active path, the thread count, the binary's version and build, and the moves — and every
//! back-end it names is a registered fast table back-end; otherwise the built-in crossovers
//! of the planner decide. A missing file is normal and silent; a damaged, foreign (another
//! CPU) or stale (another build) one is ignored with a one-line note, never a crash.

use crate::base::error::{one_line, Error, Result};
use crate::base::isa::Isa;
use crate::base::moves::Moves;
use crate::base::paths::{write_output, Output};
use crate::grundy::Builder;
use crate::registry::Entry;
use crate::table::{self};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The environment variable naming a wisdom file (overridden by `--wisdom FILE`).
pub const PATH_VARIABLE: &str = "NIMSQUARE_WISDOM";

/// The environment variable that turns wisdom off when set to anything but empty or `0`.
pub const OFF_VARIABLE: &str = "NIMSQUARE_NO_WISDOM";

/// The `format` field every wisdom file carries.
pub const FORMAT: &str = "nimsquare-wisdom/1";

/// How a step's choice was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Basis {
    /// Timed by `tune` at grid points on both sides of the step (or at the last one).
    Measured,
    /// Past the largest N timed: the cost models priced with primitives measured at that N,
    /// scaled by each back-end's efficiency at the largest N timed.
    Modelled,
}

impl Basis {
    /// The word the outputs print.
    pub fn name(self) -> &'static str {
        match self {
            Basis::Measured => "measured",
            Basis::Modelled => "modelled",
        }
    }
}

/// From `from` on (up to the next step), `auto` builds tables with `table`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub from: u64,
    pub table: String,
    pub basis: Basis,
}

/// One median time `tune` measured (or modelled): what the steps were read from, kept for
/// the record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub n: u64,
    pub table: String,
    pub seconds: f64,
    /// The fastest and slowest round, and how many rounds timed it (measured N only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<usize>,
}

/// The choice `tune` made at one N (timed or modelled), and why: the record behind the
/// steps, and what its `choose` lines print.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub n: u64,
    pub table: String,
    /// `measured`, `within-noise` (the choice at the N before kept: the fastest was not
    /// faster in every pair), `modelled` or `modelled-within-noise`.
    pub basis: String,
    /// The fastest there by median (or modelled time).
    pub fastest: String,
    /// t(the choice at the N before)/t(fastest), lowest and highest over the pairs (or the
    /// model's interval), when the two differ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_low: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_high: Option<f64>,
    /// The built-in choice there ([`crate::run::planner::choose_table_on`]).
    pub built_in: String,
}

/// The choices for one thread count, ascending by `from`, the first from 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadPlan {
    pub threads: usize,
    pub steps: Vec<Step>,
    /// Medians per (N, back-end) measured (and predicted, for modelled N) by `tune`.
    #[serde(default)]
    pub timings: Vec<Timing>,
    /// The choice at each N, in order.
    #[serde(default)]
    pub choices: Vec<Decision>,
}

impl ThreadPlan {
    /// The step that covers `limit`.
    pub fn step_for(&self, limit: u64) -> &Step {
        step_at(&self.steps, |s| s.from, limit)
    }
}

/// The step of `steps` (ascending by `from`, non-empty) that covers N: the last whose
/// `from` is at most N (the first when none is). The one reader of `auto`'s choices, for
/// the planner's built-in crossovers and for a wisdom file's plan alike.
pub fn step_at<T>(steps: &[T], from: impl Fn(&T) -> u64, n: u64) -> &T {
    steps
        .iter()
        .rev()
        .find(|s| from(s) <= n)
        .unwrap_or(&steps[0])
}

/// A wisdom file's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Wisdom {
    pub format: String,
    /// `CARGO_PKG_VERSION` of the binary that tuned.
    pub version: String,
    /// Its build revision ([`crate::base::provenance::BUILD_REV`]).
    pub build: String,
    /// [`crate::base::provenance::cpu_model`] where it was tuned.
    pub cpu: String,
    /// The vector path (`--isa`) it was tuned on.
    pub isa: String,
    /// The moves label (`squares` or `1,3,4`).
    pub moves: String,
    /// The UTC date of the tuning, `YYYY-MM-DD`.
    pub date: String,
    /// The largest N timed (at any thread count); steps marked modelled lie past the largest
    /// N timed at their thread count.
    pub measured_up_to: u64,
    /// Timings per point (medians of this many alternating rounds).
    pub repeats: usize,
    pub plans: Vec<ThreadPlan>,
}

impl Wisdom {
    /// Checks what a file must hold to be used at all: the format, at least one plan, each
    /// with steps ascending from 0, and every back-end named a registered fast table
    /// back-end.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.format != FORMAT {
            // Text from the file, escaped: the message stays one line.
            return Err(format!(
                "format is '{}', not '{FORMAT}'",
                self.format.escape_debug()
            ));
        }
        if self.plans.is_empty() {
            return Err("it holds no plan".into());
        }
        for plan in &self.plans {
            if plan.threads == 0 {
                return Err("a plan for 0 threads".into());
            }
            if plan.steps.first().map(|s| s.from) != Some(0) {
                return Err(format!(
                    "the plan for {} threads does not start at N = 0",
                    plan.threads
                ));
            }
            if plan.steps.windows(2).any(|w| w[0].from >= w[1].from) {
                return Err(format!(
                    "the steps for {} threads are not ascending",
                    plan.threads
                ));
            }
            for s in &plan.steps {
                match table::find(&s.table) {
                    Ok(e) if !e.is_control() => {}
                    _ => {
                        return Err(format!(
                            "'{}' is not a fast table back-end of this build",
                            s.table.escape_debug()
                        ))
                    }
                }
            }
        }
        Ok(())
    }

    /// Why this wisdom does not belong to this machine and build, if it does not: another
    /// CPU model (foreign) or another version or build of the binary (stale).
    pub fn mismatch_with_here(&self) -> Option<String> {
        let cpu = crate::base::provenance::cpu_model();
        if self.cpu != cpu {
            return Some(format!(
                "tuned on '{}', this CPU is '{cpu}'",
                self.cpu.escape_debug()
            ));
        }
        let build = crate::base::provenance::BUILD_REV;
        let version = env!("CARGO_PKG_VERSION");
        if self.build != build || self.version != version {
            return Some(format!(
                "tuned by build {} {}, this is {version} {build}; run `nimsquare tune` again",
                self.version.escape_debug(),
                self.build.escape_debug()
            ));
        }
        None
    }

    /// The plan for a run on `isa` with `threads` threads for `moves`, or why there is none.
    pub fn plan_for(
        &self,
        isa: Isa,
        threads: usize,
        moves: &Moves,
    ) -> std::result::Result<&ThreadPlan, String> {
        if self.isa != isa.name() {
            return Err(format!("tuned on --isa {}, not {isa}", self.isa));
        }
        if self.moves != moves.label() {
            return Err(format!("tuned for --moves {}", self.moves));
        }
        self.plans
            .iter()
            .find(|p| p.threads == threads)
            .ok_or_else(|| {
                let had: Vec<String> = self.plans.iter().map(|p| p.threads.to_string()).collect();
                format!("tuned for {} threads, not {threads}", had.join(" and "))
            })
    }
}

/// Wisdom read for a run, with where it came from.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub path: PathBuf,
    pub wisdom: Wisdom,
}

/// What a run's `auto` chooses from: wisdom that belongs to this machine and build, or none
/// (the built-in crossovers), with the note to print, if any, on why a file was not used.
#[derive(Debug, Clone, Default)]
pub struct Source {
    pub loaded: Option<Loaded>,
    /// One line for stderr when a file was there but not usable (damaged, foreign, stale).
    pub note: Option<String>,
}

/// Where wisdom is read from when neither `--wisdom` nor [`PATH_VARIABLE`] says:
/// `$XDG_CACHE_HOME/nimsquare/wisdom.json`, else `$HOME/.cache/nimsquare/wisdom.json`; None
/// when neither variable is set.
pub fn default_path() -> Option<PathBuf> {
    let non_empty = |v: &str| std::env::var_os(v).filter(|s| !s.is_empty());
    non_empty("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| non_empty("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|cache| cache.join("nimsquare").join("wisdom.json"))
}

/// True when [`OFF_VARIABLE`] turns wisdom off.
pub fn turned_off() -> bool {
    std::env::var_os(OFF_VARIABLE).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The file a run reads: `flag` (`--wisdom FILE`), else [`PATH_VARIABLE`], else
/// [`default_path`]; None when wisdom is off or no location is known. A file named by the
/// flag is read even when [`OFF_VARIABLE`] is set: what is asked on the command line wins.
pub fn location(flag: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = flag {
        return Some(p.to_path_buf());
    }
    if turned_off() {
        return None;
    }
    std::env::var_os(PATH_VARIABLE)
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .or_else(default_path)
}

/// Reads the wisdom at `path` for a run here: a missing file gives no wisdom and no note; a
/// damaged, foreign or stale one gives no wisdom and a one-line note.
pub fn load(path: &Path) -> Source {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Source::default(),
        Err(e) => return ignored(path, &format!("cannot be read ({e})")),
    };
    parse(&text, path)
}

/// [`load`] of a file's text `text` (`path` only names it in the note).
pub fn parse(text: &str, path: &Path) -> Source {
    let wisdom: Wisdom = match serde_json::from_str(text) {
        Ok(w) => w,
        Err(e) => return ignored(path, &format!("is damaged ({e})")),
    };
    if let Err(why) = wisdom.validate() {
        return ignored(path, &format!("is damaged ({why})"));
    }
    if let Some(why) = wisdom.mismatch_with_here() {
        return ignored(path, &format!("does not fit this machine or build ({why})"));
    }
    Source {
        loaded: Some(Loaded {
            path: path.to_path_buf(),
            wisdom,
        }),
        note: None,
    }
}

/// No wisdom, and the note saying why. The file's text can reach `why` as it is (the JSON
/// parser quotes an unknown name), so both are shown escaped: the note stays one line.
fn ignored(path: &Path, why: &str) -> Source {
    Source {
        loaded: None,
        note: Some(format!(
            "note: wisdom {} {}; auto uses its built-in choices",
            one_line(&path.display().to_string()),
            one_line(why)
        )),
    }
}

/// What `auto` picks from a source for one run, and a phrase saying where the pick came
/// from (`wisdom FILE, measured DATE`, or `built-in` with the reason a file did not apply).
pub struct Choice {
    pub table: Option<&'static Entry<dyn Builder<Moves>>>,
    pub basis: Option<Basis>,
    pub source: String,
}

impl Source {
    /// The back-end the wisdom names for (isa, moves, N, threads), or None with the reason
    /// in `source` when the built-in choices decide.
    pub fn choose(&self, isa: Isa, moves: &Moves, limit: u64, threads: usize) -> Choice {
        let Some(loaded) = &self.loaded else {
            return Choice {
                table: None,
                basis: None,
                source: "built-in".into(),
            };
        };
        match loaded.wisdom.plan_for(isa, threads, moves) {
            Ok(plan) => {
                let step = plan.step_for(limit);
                Choice {
                    table: table::find(&step.table).ok(),
                    basis: Some(step.basis),
                    source: format!(
                        "wisdom {}, {} {}",
                        loaded.path.display(),
                        step.basis.name(),
                        loaded.wisdom.date
                    ),
                }
            }
            Err(why) => Choice {
                table: None,
                basis: None,
                source: format!("built-in (wisdom {} {why})", loaded.path.display()),
            },
        }
    }

    /// One phrase for `list`: which wisdom is in force, or `built-in`.
    pub fn describe(&self) -> String {
        match &self.loaded {
            Some(l) => format!(
                "wisdom {}, measured {} (up to N = {}, {} on {})",
                l.path.display(),
                l.wisdom.date,
                l.wisdom.measured_up_to,
                l.wisdom.moves,
                l.wisdom.isa
            ),
            None => "built-in".into(),
        }
    }
}

/// Creates the folder of the wisdom file `path` if it is missing: the one place it is made.
/// `tune` calls it before any timing, and only for the default location in the user's cache
/// ([`default_path`]), which nobody is expected to make by hand; a folder named with `--wisdom`
/// or [`PATH_VARIABLE`] must exist, so a mistyped path is refused rather than made.
pub fn create_folder(path: &Path) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::Invalid(format!(
                "--wisdom {}: cannot create its folder ({e}); choose another file",
                path.display()
            ))
        })?;
    }
    Ok(())
}

/// Writes `wisdom` as pretty JSON to the output `tune` decided before any work
/// ([`crate::base::paths::decide_output`]): a regular file through a temporary file renamed
/// into place (so an interrupted write never leaves a damaged file, and a symlink is written
/// through to its target), a FIFO or a device (`/dev/null`) in place.
pub fn save(wisdom: &Wisdom, out: &Output) -> Result<()> {
    let text = serde_json::to_string_pretty(wisdom).expect("wisdom serialises");
    write_output(out, "--wisdom", |w| {
        w.write_all(text.as_bytes())?;
        w.write_all(b"\n")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder for one test of this module (removed at its end).
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("nimsquare-wisdom-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_missing_file_is_no_wisdom_and_an_unreadable_one_is_said() {
        let dir = scratch("load");
        let missing = load(&dir.join("missing.json"));
        assert!(missing.loaded.is_none() && missing.note.is_none());
        // A folder where the file should be cannot be read: no wisdom, and a note.
        let folder = load(&dir);
        assert!(folder.loaded.is_none());
        let note = folder.note.expect("a note");
        assert!(note.contains("cannot be read"), "{note}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_wisdom_files_folder_is_created_and_one_that_cannot_be_is_refused() {
        let dir = scratch("folder");
        let path = dir.join("new").join("sub").join("wisdom.json");
        create_folder(&path).unwrap();
        assert!(dir.join("new").join("sub").is_dir());
        // Under a plain file no folder can be made.
        std::fs::write(dir.join("file"), b"x").unwrap();
        let err = create_folder(&dir.join("file").join("wisdom.json")).unwrap_err();
        assert!(
            err.to_string().contains("cannot create its folder"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn here(plans: Vec<ThreadPlan>) -> Wisdom {
        Wisdom {
            format: FORMAT.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            build: crate::base::provenance::BUILD_REV.into(),
            cpu: crate::base::provenance::cpu_model(),
            isa: "scalar".into(),
            moves: "squares".into(),
            date: "2026-12-01".into(),
            measured_up_to: 1000,
            repeats: 3,
            plans,
        }
    }

    fn plan(threads: usize, steps: &[(u64, &str, Basis)]) -> ThreadPlan {
        ThreadPlan {
            threads,
            steps: steps
                .iter()
                .map(|&(from, t, basis)| Step {
                    from,
                    table: t.into(),
                    basis,
                })
                .collect(),
            timings: Vec::new(),
            choices: Vec::new(),
        }
    }

    #[test]
    fn a_matching_file_names_the_step_covering_n() {
        let w = here(vec![plan(
            1,
            &[
                (0, "stamped", Basis::Measured),
                (500, "bitset", Basis::Measured),
                (5000, "stamped-lanes", Basis::Modelled),
            ],
        )]);
        assert_eq!(w.validate(), Ok(()));
        let src = Source {
            loaded: Some(Loaded {
                path: "w.json".into(),
                wisdom: w,
            }),
            note: None,
        };
        let pick = |n| src.choose(Isa::Scalar, &Moves::Squares, n, 1);
        assert_eq!(pick(499).table.unwrap().name, "stamped");
        assert_eq!(pick(500).table.unwrap().name, "bitset");
        let far = pick(10_000);
        assert_eq!(far.table.unwrap().name, "stamped-lanes");
        assert_eq!(far.source, "wisdom w.json, modelled 2026-12-01");
        // Another thread count, path or moves: the built-in choices, saying why.
        let other = src.choose(Isa::Scalar, &Moves::Squares, 10_000, 2);
        assert!(other.table.is_none() && other.source.contains("1 threads, not 2"));
        assert!(src
            .choose(Isa::Portable, &Moves::Squares, 1, 1)
            .source
            .contains("--isa scalar"));
        assert!(src
            .choose(Isa::Scalar, &Moves::parse("1,2").unwrap(), 1, 1)
            .table
            .is_none());
    }

    #[test]
    fn bad_steps_and_unknown_or_control_back_ends_are_damage() {
        let bad = |p: ThreadPlan| here(vec![p]).validate().unwrap_err();
        assert!(bad(plan(1, &[(1, "stamped", Basis::Measured)])).contains("N = 0"));
        assert!(bad(plan(
            1,
            &[
                (0, "stamped", Basis::Measured),
                (0, "bitset", Basis::Measured)
            ]
        ))
        .contains("ascending"));
        assert!(bad(plan(1, &[(0, "nope", Basis::Measured)])).contains("'nope'"));
        assert!(bad(plan(1, &[(0, "naive-mex", Basis::Measured)])).contains("'naive-mex'"));
        assert!(here(Vec::new()).validate().is_err());
    }

    #[test]
    fn another_cpu_or_build_is_named() {
        let mut w = here(vec![plan(1, &[(0, "stamped", Basis::Measured)])]);
        assert_eq!(w.mismatch_with_here(), None);
        w.build = "0000000".into();
        assert!(w.mismatch_with_here().unwrap().contains("0000000"));
        w = here(Vec::new());
        w.cpu = "Some Other CPU".into();
        assert!(w.mismatch_with_here().unwrap().contains("Some Other CPU"));
    }
}
