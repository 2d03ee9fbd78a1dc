//! One table of any workload, decided before any work and built whole or, for an octal code
//! that asks it or whose whole table would not fit in memory, in window mode: what `build`
//! runs, so that the command only parses and prints.
//!
//! Algorithm: an octal subject goes through the octal window plan ([`plan::decide`]), which
//! takes the whole table when it fits and nothing asks otherwise; every other subject, and
//! an octal one whose whole table was taken, gets the shared [`BuildPlan`] with its memory
//! guard. A window-mode build streams its values past a [`Stream`](super::stream::Stream)
//! and reports what the whole table's summary would: the largest value and where it first
//! occurs, the cold count (the last histogram row's count of 0) and the digest.
//!
//! Cost: the build's (see [`super`] for window mode's). Invariant: both modes report the same
//! fields of the same table, so a digest says the same thing whichever mode ran.

use super::plan::{self, Ask, Mode, WindowPlan};
use super::{build_octal, WindowOutcome};
use crate::base::error::{Error, Result};
use crate::base::valgrind::{self, Stage};
use crate::octal::summary::Summary;
use crate::octal::{OctalPlan, Rules};
use crate::run::longrun::signals::Signal;
use crate::run::plot::{Drawing, ValuePlot};
use crate::run::workload::{BuildPlan, Subject};
use std::time::Duration;

/// A build decided: the whole table, or an octal code in window mode.
pub enum TablePlan {
    Whole(BuildPlan),
    Window {
        plan: Box<OctalPlan>,
        window: WindowPlan,
    },
}

/// What a finished build reports of its table, whichever mode ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableFacts {
    pub max_value: u16,
    pub max_value_first_at: usize,
    /// The positions with g = 0.
    pub cold_count: u64,
    /// FNV-1a 64 of g(0..=N) as little-endian u16, 16 hex digits.
    pub digest: String,
}

/// How a build ended.
pub enum TableOutcome {
    /// The table's facts, the build's seconds and, when asked, its picture and how to draw
    /// it.
    Done {
        facts: TableFacts,
        seconds: f64,
        plot: Option<Box<(ValuePlot, Drawing)>>,
    },
    /// A window-mode build stopped by a signal after g(0..done) (it keeps no checkpoint).
    Stopped { signal: Signal, done: usize },
}

impl TablePlan {
    /// Decides how to build `subject` to N = `limit` with the back-end named `backend` (its
    /// workload's default when `None`), every refusal before any work: a misspelt back-end
    /// (naming `--backend`), a limit out of range, a table that does not fit and cannot run in
    /// window mode, window mode asked of a subject or back-end that has none.
    pub fn decide(
        subject: Subject,
        backend: Option<&str>,
        limit: u64,
        ask: &Ask,
    ) -> Result<TablePlan> {
        let asked = ask.window || ask.file.is_some();
        let Some(rules) = subject.rules_as::<Rules>().cloned() else {
            if asked {
                return Err(Error::Invalid(format!(
                    "--window: window mode builds octal codes only; {} is built whole",
                    subject.describe()
                )));
            }
            return whole(subject, backend, limit);
        };
        // the back-end named is checked against the octal registry first, so a misspelt one
        // is refused naming --backend as for any workload
        if let Some(name) = backend {
            subject
                .find(name.trim())
                .map_err(|e| Error::Invalid(format!("--backend: {e}")))?;
        }
        match plan::decide(rules, backend.map(str::trim), limit, ask)? {
            (_, Mode::Full) => whole(subject, backend, limit),
            (plan, Mode::Window(window)) => Ok(TablePlan::Window {
                plan: Box::new(plan),
                window,
            }),
        }
    }

    /// The back-end's name.
    pub fn backend(&self) -> &'static str {
        match self {
            TablePlan::Whole(p) => p.backend.name(),
            TablePlan::Window { plan, .. } => plan.backend.name,
        }
    }

    /// N.
    pub fn limit(&self) -> usize {
        match self {
            TablePlan::Whole(p) => p.limit,
            TablePlan::Window { plan, .. } => plan.limit,
        }
    }

    /// The resident bytes the build was planned for.
    pub fn memory_needed(&self) -> u64 {
        match self {
            TablePlan::Whole(p) => p.memory_needed,
            TablePlan::Window { window, .. } => window.memory_needed,
        }
    }

    /// The window, when the build runs in window mode.
    pub fn window(&self) -> Option<&WindowPlan> {
        match self {
            TablePlan::Whole(_) => None,
            TablePlan::Window { window, .. } => Some(window),
        }
    }

    /// Builds the table as decided (`quiet`: no progress bar in window mode), and its
    /// picture when `plot` asks (`Some(log_x)`): an octal game's with its rare/common split
    /// and, for a whole table, its proved period ([`Drawing::octal`]); another game's plain.
    /// In window mode the picture is drawn from the stream ([`build_octal`]).
    pub fn build(&self, quiet: bool, plot: Option<bool>) -> Result<TableOutcome> {
        match self {
            TablePlan::Whole(p) => {
                let (table, seconds) = valgrind::stage(Stage::Build, || p.build());
                let table = table?;
                let limit = self.limit();
                let plot = plot.map(|log_x| {
                    let drawing = match p.subject.rules_as::<Rules>() {
                        Some(rules) => Drawing::octal(
                            rules.label(),
                            limit,
                            &Summary::of(rules, &table, false),
                            log_x,
                        ),
                        None => Drawing::plain(&p.subject.describe(), limit, log_x),
                    };
                    Box::new((ValuePlot::of(table.values()), drawing))
                });
                Ok(TableOutcome::Done {
                    plot,
                    facts: TableFacts {
                        max_value: table.max_value(),
                        max_value_first_at: table.max_value_first_at(),
                        cold_count: table.cold_count(),
                        digest: format!(
                            "{:016x}",
                            crate::run::longrun::tablefile::values_fnv1a64(table.values())
                        ),
                    },
                    seconds,
                })
            }
            TablePlan::Window { plan, window } => {
                let never = Duration::MAX;
                let mut picture = plot.map(|_| ValuePlot::new());
                let (built, _) = valgrind::stage(Stage::Build, || {
                    build_octal(
                        plan,
                        window,
                        (quiet, None, never),
                        picture.as_mut(),
                        &mut |_, _| Ok(()),
                    )
                });
                let built = built?;
                match built.outcome {
                    WindowOutcome::Finished { streamed, .. } => Ok(TableOutcome::Done {
                        plot: picture.zip(plot).map(|(picture, log_x)| {
                            let drawing = Drawing::octal(
                                plan.subject.label(),
                                plan.limit,
                                &streamed.summary(),
                                log_x,
                            );
                            Box::new((picture, drawing))
                        }),
                        facts: TableFacts {
                            max_value: streamed.max_value,
                            max_value_first_at: streamed.max_value_first_at,
                            cold_count: streamed
                                .histogram
                                .last()
                                .and_then(|row| row.counts.first().copied())
                                .unwrap_or(0),
                            digest: format!("{:016x}", streamed.digest),
                        },
                        seconds: built.seconds,
                    }),
                    WindowOutcome::Interrupted { signal, done } => Ok(TableOutcome::Stopped {
                        // only a signal stops a run without the test knob
                        signal: signal.unwrap_or(Signal::Term),
                        done,
                    }),
                }
            }
        }
    }
}

/// The whole-table plan of `subject`, the back-end named or the workload's default.
fn whole(subject: Subject, backend: Option<&str>, limit: u64) -> Result<TablePlan> {
    let backend = match backend {
        Some(name) => subject
            .find(name.trim())
            .map_err(|e| Error::Invalid(format!("--backend: {e}")))?,
        None => subject.default_backend(limit as usize),
    };
    let plan = BuildPlan::new(subject, backend, limit).map_err(|e| match e {
        // the command line's parser lets a limit past the whole table's through for window
        // mode, so this refusal names the flag as the parser would
        Error::LimitTooLarge { .. } => Error::Invalid(format!("--limit: {e}")),
        e => e,
    })?;
    Ok(TablePlan::Whole(plan))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::workload;

    fn facts(plan: &TablePlan) -> TableFacts {
        match plan.build(true, None).unwrap() {
            TableOutcome::Done { facts, .. } => facts,
            TableOutcome::Stopped { .. } => panic!("no signal was sent"),
        }
    }

    #[test]
    fn window_mode_reports_the_whole_tables_facts() {
        // the whole table's facts come from Table and octal's digest, the window's from the
        // stream: two routes over the same values
        for code in ["0.6", "0.167", "4.7"] {
            let subject = workload::parse("octal", code).unwrap();
            let whole = TablePlan::decide(subject.clone(), None, 50_000, &Ask::default()).unwrap();
            assert!(whole.window().is_none());
            let ask = Ask {
                window: true,
                ..Ask::default()
            };
            let windowed = TablePlan::decide(subject, None, 50_000, &ask).unwrap();
            assert!(windowed.window().is_some());
            assert_eq!(facts(&whole), facts(&windowed), "{code}");
        }
    }

    #[test]
    fn window_mode_is_refused_where_there_is_none() {
        let ask = Ask {
            window: true,
            ..Ask::default()
        };
        for (spec, backend, says) in [
            ("table:squares", None, "octal codes only"),
            ("finite:1,3,4", None, "octal codes only"),
            ("octal:0.6", Some("octal-vector"), "octal-vector"),
            ("octal:0.6", Some("octal-nonesuch"), "--backend"),
            ("octal:0.346", None, "no sparse space"),
        ] {
            let subject = workload::parse_spec(spec).unwrap();
            let Err(e) = TablePlan::decide(subject, backend, 10_000, &ask) else {
                panic!("{spec} with {backend:?}: window mode was not refused");
            };
            let e = e.to_string();
            assert!(e.contains(says) && !e.contains('\n'), "{spec}: {e}");
        }
    }
}
