//! A comparison resolved once, before any run: what each side is (a back-end, its vector
//! path, its program), which stage both belong to, what is measured (seconds or a count under
//! Valgrind), and the command line each side runs. Every refusal is made here, in one line,
//! before the first run.

use super::{How, Measure, Side};
use crate::base::error::{Error, Result};
use crate::base::isa::Isa;
use crate::base::limit::Limit;
use crate::base::moves::Moves;
use crate::run::counted::{self, Counting, Metric, Stage as CountedStage, Valgrind};
use crate::run::workload::{self, BuildPlan, Subject};
use std::path::PathBuf;

/// What a comparison compares: the table or the count stage of a subtraction game's solve, or
/// the table of a workload's game built alone (`nimsquare build`, for `--workload` and
/// `--octal`).
#[derive(Clone, PartialEq, Debug)]
pub enum Stage {
    Table,
    Count,
    Build(Subject),
}

impl Stage {
    /// The stage's name in reports: `table`, `count`, or the workload's (`octal`).
    pub fn name(&self) -> &'static str {
        match self {
            Stage::Table => "table",
            Stage::Count => "count",
            Stage::Build(subject) => subject.stage(),
        }
    }

    /// The stage a counted run counts: the one this comparison times.
    fn counted(&self) -> CountedStage {
        match self {
            Stage::Table => CountedStage::Table,
            Stage::Count => CountedStage::Count,
            Stage::Build(_) => CountedStage::Build,
        }
    }
}

/// A side as typed: a back-end name and an optional vector path.
#[derive(Clone, Debug)]
pub struct Spec {
    /// As typed (`bitset@avx2`).
    pub text: String,
    /// The back-end's name (`bitset`, or `auto`).
    pub name: String,
    /// The vector path after `@`, if any.
    pub isa: Option<Isa>,
    /// The stage its back-end belongs to (None for `auto`, which fits either).
    pub stage: Option<Stage>,
}

/// What a comparison was asked, as the command line gave it.
#[derive(Clone, Debug)]
pub struct Request {
    pub a: String,
    pub b: String,
    /// The game of `--workload`/`--octal`, or None for the subtraction game of `moves`.
    pub subject: Option<Subject>,
    pub moves: Moves,
    pub heaps: usize,
    pub limit: Limit,
    /// `--threads`, when given.
    pub threads: Option<usize>,
    /// `--isa`, when given: the path of a side that names none.
    pub isa: Option<Isa>,
    /// `--measure wall`: the whole process instead of the stage.
    pub whole_process: bool,
    /// `--metric`: None for seconds, else a count under Valgrind.
    pub metric: Option<Metric>,
    pub a_binary: Option<PathBuf>,
    pub b_binary: Option<PathBuf>,
}

/// A comparison ready to run.
#[derive(Debug)]
pub struct Plan {
    pub a: (Spec, Side),
    pub b: (Spec, Side),
    pub stage: Stage,
    /// What each run contributes to the ratio.
    pub how: How,
    /// The game in words: `moves squares, 3 heaps` or `octal game 0.6`.
    pub game: String,
}

/// The threads a counted run uses: one, so a pool's idle workers (which spin before they
/// sleep) add no instructions that depend on how Valgrind schedules its threads. The count
/// is the work of the algorithm on one thread (a parallel back-end's split included).
pub const COUNTED_THREADS: usize = 1;

impl Plan {
    /// Resolves `request`, or refuses it in one line before any run: an unknown back-end, a
    /// path this CPU (or Valgrind) lacks, sides of two stages, a naive control past the N it
    /// affords, a table that does not fit, a missing binary, a counted metric without
    /// Valgrind or with more than one thread.
    pub fn new(request: &Request) -> Result<Plan> {
        let subject = request.subject.as_ref();
        let a = parse_spec(&request.a, "A", subject)?;
        let b = parse_spec(&request.b, "B", subject)?;
        let stage = match (a.stage.clone(), b.stage.clone()) {
            (Some(x), Some(y)) if x != y => {
                return Err(Error::Invalid(format!(
                    "A ('{}') and B ('{}') belong to different stages; compare two table back-ends or two count back-ends",
                    a.name, b.name
                )))
            }
            (x, y) => x.or(y).unwrap_or(Stage::Table),
        };
        check_affords(request, &stage, [&a, &b])?;
        let measure = match (request.whole_process, &stage) {
            (true, _) => Measure::Wall,
            (_, Stage::Table) => Measure::Table,
            (_, Stage::Count) => Measure::Count,
            (_, Stage::Build(_)) => Measure::Build,
        };
        let counted = match request.metric {
            None => None,
            Some(metric) => {
                if let Some(t) = request.threads.filter(|&t| t != COUNTED_THREADS) {
                    return Err(Error::Invalid(format!(
                        "--threads {t}: --metric {} counts one thread's work (idle pool threads spin for as long as Valgrind's scheduling lets them); drop --threads",
                        metric.name()
                    )));
                }
                let valgrind = Valgrind::find()?;
                let counting = Counting {
                    stage: (!request.whole_process).then(|| stage.counted()),
                    cache_sim: metric.needs_cache_sim(),
                };
                Some((valgrind, counting, metric))
            }
        };
        let game = match subject {
            Some(s) => s.describe(),
            None => format!("moves {}, {} heaps", request.moves.label(), request.heaps),
        };
        let side = |spec: &Spec, which: &str, flag: &str, binary: &Option<PathBuf>| {
            let mut argv: Vec<String> = Vec::new();
            let threads = if counted.is_some() {
                Some(COUNTED_THREADS)
            } else {
                request.threads
            };
            if let Some(t) = threads {
                argv.extend(["--threads".into(), t.to_string()]);
            }
            let path = match &counted {
                Some(_) => Some(
                    counted::path_under_valgrind(spec.isa.or(request.isa))
                        .map_err(|e| Error::Invalid(format!("side {which}: {e}")))?,
                ),
                None => spec.isa.or(request.isa),
            };
            if let Some(path) = path {
                argv.extend(["--isa".into(), path.name().into()]);
            }
            argv.extend(stage_args(request, &stage, &spec.name));
            Ok::<Side, Error>(Side {
                label: spec.text.clone(),
                program: program(flag, binary)?,
                args: argv,
            })
        };
        let side_a = side(&a, "A", "--a-binary", &request.a_binary)?;
        let side_b = side(&b, "B", "--b-binary", &request.b_binary)?;
        Ok(Plan {
            a: (a, side_a),
            b: (b, side_b),
            stage,
            how: How { measure, counted },
            game,
        })
    }
}

/// The subcommand and flags one side runs for `backend` (after `--threads` and `--isa`).
fn stage_args(request: &Request, stage: &Stage, backend: &str) -> Vec<String> {
    let limit = request.limit.to_string();
    match stage {
        Stage::Build(subject) => [
            "build",
            "--workload",
            &format!("{}:{}", subject.stage(), subject.label()),
            "--json",
            "--quiet",
            "--limit",
            &limit,
            "--backend",
            backend,
        ]
        .map(String::from)
        .to_vec(),
        _ => {
            let stage_flag = match stage {
                Stage::Count => "--count",
                _ => "--table",
            };
            [
                "solve",
                "--json",
                "--quiet",
                "--limit",
                &limit,
                "--moves",
                &request.moves.label(),
                "--heaps",
                &request.heaps.to_string(),
                stage_flag,
                backend,
            ]
            .map(String::from)
            .to_vec()
        }
    }
}

/// Parses `NAME[@PATH]`; `which` is `A` or `B` for the messages. The name is checked against
/// this binary's registries (the subject's workload when one is given), the path against
/// this CPU.
pub fn parse_spec(text: &str, which: &str, subject: Option<&Subject>) -> Result<Spec> {
    let (name, isa) = match text.split_once('@') {
        Some((name, path)) => {
            let isa = Isa::parse(path)
                .map_err(|e| Error::Invalid(format!("side {which} ('{text}'): {e}")))?;
            if !isa.on_cpu() {
                return Err(Error::Invalid(format!(
                    "side {which} ('{text}'): this CPU has no {} path; `nimsquare list` shows the paths it has",
                    isa.name()
                )));
            }
            (name, Some(isa))
        }
        None => (text, None),
    };
    let stage = if let Some(subject) = subject {
        subject
            .find(name)
            .map_err(|e| Error::Invalid(format!("side {which}: {e}")))?;
        Some(Stage::Build(subject.clone()))
    } else if name == crate::run::planner::AUTO {
        None
    } else if crate::table::find(name).is_ok() {
        Some(Stage::Table)
    } else if crate::count::find(name).is_ok() {
        Some(Stage::Count)
    } else {
        return Err(Error::Invalid(format!(
            "side {which}: '{name}' is neither a table nor a count back-end; `nimsquare list` names them (auto is allowed)"
        )));
    };
    Ok(Spec {
        text: text.to_string(),
        name: name.to_string(),
        isa,
        stage,
    })
}

/// Refuses, before any run, a side that would be refused after its warm-up: a naive control
/// past the N it affords, a table that does not fit in memory (each side is planned as the
/// run it stands for plans it, so the refusal is this one line, naming the limit). `auto`
/// is the planner's, which never chooses a control.
fn check_affords(request: &Request, stage: &Stage, sides: [&Spec; 2]) -> Result<()> {
    let subject = match stage {
        Stage::Build(subject) => subject.clone(),
        Stage::Table => workload::subtraction(request.moves.clone()),
        Stage::Count => return Ok(()),
    };
    for spec in sides {
        if spec.name == crate::run::planner::AUTO {
            continue;
        }
        let backend = subject.find(&spec.name)?;
        BuildPlan::new(subject.clone(), backend, request.limit.as_u64())?;
    }
    Ok(())
}

/// The program for one side: `--a-binary`/`--b-binary`, checked to exist, or this binary.
fn program(flag: &str, path: &Option<PathBuf>) -> Result<PathBuf> {
    match path {
        Some(p) if p.is_file() => Ok(p.clone()),
        Some(p) => Err(Error::Invalid(format!(
            "{flag} {}: no such file; give the path of a nimsquare binary",
            p.display()
        ))),
        None => std::env::current_exe()
            .map_err(|e| Error::Invalid(format!("cannot find this program's own path: {e}"))),
    }
}
