//! The progress bar of a long table run: positions done out of N + 1, option steps per second,
//! and an ETA.
//!
//! The ETA is computed from option steps, not positions: the work up to position p is
//! S(p - 1), which for the squares grows like p^1.5, so the last half of the positions costs
//! about 65% of the work and an ETA from positions would promise too early a finish. A run
//! whose back-end spends about the same on every position (the octal rare/common ones, whose
//! option steps would grow quadratically) counts positions instead: its rate is in values a
//! second and its ETA from positions.
//!
//! The bar is drawn on stderr only when stderr is a terminal and the run is not `quiet`, and
//! only once the run has lasted [`SHOW_AFTER`]. When stderr is not a terminal (a background
//! job, a batch system's log) a run that is not `quiet` prints instead one plain line every
//! [`plain_every`] (a minute unless `NIMSQUARE_PROGRESS_EVERY` says otherwise), so an hour's
//! run does not go silent between its forecast and its answer; a run shorter than that
//! prints nothing.

use super::ruleset::Ruleset;
use crate::base::moves::Moves;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Set by a subcommand's `--quiet`: no bar anywhere in the process.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Turns every progress bar of the process off (`--quiet` on `verify` and `profile`, whose
/// table builds happen deep in the checker).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// True when a bar could be drawn: stderr is a terminal and neither `quiet` nor
/// [`set_quiet`] turned bars off.
pub fn may_show(quiet: bool) -> bool {
    !quiet && !QUIET.load(Ordering::Relaxed) && std::io::stderr().is_terminal()
}

/// True when plain progress lines are due instead of a bar: stderr is not a terminal and
/// neither `quiet` nor [`set_quiet`] turned progress off.
pub fn plain_lines(quiet: bool) -> bool {
    !quiet && !QUIET.load(Ordering::Relaxed) && !std::io::stderr().is_terminal()
}

/// The interval between two plain progress lines: `NIMSQUARE_PROGRESS_EVERY` seconds when
/// set to a positive number (tests use a fraction of a second), else [`PLAIN_EVERY`].
pub fn plain_every() -> Duration {
    std::env::var("NIMSQUARE_PROGRESS_EVERY")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(PLAIN_EVERY, Duration::from_secs_f64)
}

/// The default interval between plain progress lines: often enough that a log shows a run
/// alive, rarely enough that an hour's run writes 60 lines.
pub const PLAIN_EVERY: Duration = Duration::from_secs(60);

/// How long a run goes before the bar appears.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);

/// The option steps spent computing g(0..p): S(p - 1), 0 for p = 0.
pub fn steps_before(moves: &Moves, p: usize) -> u128 {
    Ruleset::steps_before(moves, p)
}

/// Seconds left, from the steps done in `elapsed_seconds` and the steps still to do, assuming
/// the rate so far holds. `None` until there is a rate to go by (nothing done yet, or no time
/// measured).
pub fn eta_seconds(steps_done: u128, steps_total: u128, elapsed_seconds: f64) -> Option<f64> {
    if steps_done == 0 || elapsed_seconds <= 0.0 || !elapsed_seconds.is_finite() {
        return None;
    }
    let left = steps_total.saturating_sub(steps_done) as f64;
    Some(left * elapsed_seconds / steps_done as f64)
}

/// `1h 02m`, `3m 07s`, `12s`: a duration as a person reads it on a bar.
pub fn fmt_eta(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}h {:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// A rate such as `1.23e9` steps per second.
fn fmt_rate(rate: f64) -> String {
    format!("{rate:.2e}")
}

/// The bar of one run. Every method is cheap and does nothing visible while the bar is hidden.
pub struct Progress {
    bar: ProgressBar,
    visible_possible: bool,
    /// When plain lines are due: the interval and when the last one (or the start) was.
    plain: Option<(Duration, Instant)>,
    label: String,
    positions: u64,
    shown: bool,
    start: Instant,
    /// Steps already done when this run started (a resumed prefix): not part of the rate.
    steps_at_start: u128,
    steps_total: u128,
    /// Positions are the steps (see the module doc).
    per_position: bool,
}

impl Progress {
    /// A bar for g(0..=limit) that starts at `done` positions (a seed), hidden for now;
    /// `label` (may be empty) starts the line, e.g. the back-end being built; with
    /// `per_position` the positions are the steps (values a second, the ETA from positions).
    pub fn new(
        rules: &dyn Ruleset,
        limit: usize,
        done: usize,
        quiet: bool,
        label: &str,
        per_position: bool,
    ) -> Progress {
        let visible_possible = may_show(quiet);
        let bar =
            ProgressBar::with_draw_target(Some(limit as u64 + 1), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix}{elapsed_precise} [{bar:30}] {pos}/{len} positions  {msg}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        if !label.is_empty() {
            bar.set_prefix(format!("{label} "));
        }
        bar.set_position(done as u64);
        let start = Instant::now();
        Progress {
            bar,
            visible_possible,
            plain: plain_lines(quiet).then(|| (plain_every(), start)),
            label: label.to_string(),
            positions: limit as u64 + 1,
            shown: false,
            start,
            steps_at_start: if per_position {
                done as u128
            } else {
                rules.steps_before(done)
            },
            steps_total: if per_position {
                limit as u128 + 1
            } else {
                rules.steps_before(limit + 1)
            },
            per_position,
        }
    }

    /// Records that g(0..done) are finished, `steps_done` = S(done - 1) of them (not read
    /// when the positions are the steps).
    pub fn update(&mut self, done: usize, steps_done: u128) {
        let steps_done = if self.per_position {
            done as u128
        } else {
            steps_done
        };
        let unit = if self.per_position {
            "values/s"
        } else {
            "steps/s"
        };
        let elapsed = self.start.elapsed();
        if self.visible_possible && !self.shown && elapsed >= SHOW_AFTER {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        self.bar.set_position(done as u64);
        let this_run = steps_done.saturating_sub(self.steps_at_start);
        let secs = elapsed.as_secs_f64();
        let left_total = self.steps_total.saturating_sub(self.steps_at_start);
        let eta = eta_seconds(this_run, left_total, secs);
        // The message of a bar that can never show is not formatted: its digits depend on
        // the clock, and a counted run (under Callgrind) must not count them.
        if let Some(eta) = eta.filter(|_| self.visible_possible) {
            self.bar.set_message(format!(
                "{} {unit}  ETA {}",
                fmt_rate(this_run as f64 / secs),
                fmt_eta(eta)
            ));
        }
        if let Some((every, last)) = &mut self.plain {
            if last.elapsed() >= *every {
                *last = Instant::now();
                eprintln!(
                    "{}",
                    plain_line(
                        &self.label,
                        (done as u64, self.positions),
                        (this_run, unit),
                        secs,
                        eta
                    )
                );
            }
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// One plain progress line: `progress: stamped-lanes g(0..123456) of 1000001 positions
/// (12.3%), 1.23e9 steps/s, ETA 3m 07s, 1m 00s so far` (`values/s` as `unit` when the
/// positions are the steps).
fn plain_line(
    label: &str,
    (done, positions): (u64, u64),
    (steps_this_run, unit): (u128, &str),
    secs: f64,
    eta: Option<f64>,
) -> String {
    let label = if label.is_empty() {
        String::new()
    } else {
        format!("{label} ")
    };
    let rate = if secs > 0.0 {
        fmt_rate(steps_this_run as f64 / secs)
    } else {
        "?".into()
    };
    format!(
        "progress: {label}g(0..{done}) of {positions} positions ({:.1}%), {rate} {unit}, ETA {}, {} so far",
        100.0 * done as f64 / positions.max(1) as f64,
        eta.map_or_else(|| "?".into(), fmt_eta),
        fmt_eta(secs)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_from_steps() {
        assert_eq!(eta_seconds(0, 100, 5.0), None);
        assert_eq!(eta_seconds(10, 100, 0.0), None);
        assert_eq!(eta_seconds(25, 100, 10.0), Some(30.0));
        assert_eq!(eta_seconds(100, 100, 7.0), Some(0.0));
        assert_eq!(eta_seconds(120, 100, 7.0), Some(0.0));
    }

    #[test]
    fn eta_from_steps_is_later_than_from_positions_for_squares() {
        // Half the positions of N = 10^6 is about 35% of the steps, so after 10 s at the
        // half-way mark about 18.3 s remain, not 10 s.
        let m = Moves::Squares;
        let n = 1_000_000;
        let half = steps_before(&m, n / 2);
        let total = steps_before(&m, n + 1);
        let eta = eta_seconds(half, total, 10.0).unwrap();
        assert!((eta - 10.0 * (total - half) as f64 / half as f64).abs() < 1e-9);
        assert!(eta > 18.0 && eta < 19.0, "{eta}");
    }

    #[test]
    fn plain_line_reads_as_documented() {
        assert_eq!(
            plain_line(
                "stamped-lanes",
                (123_456, 1_000_001),
                (1_230_000_000, "steps/s"),
                1.0,
                Some(187.0)
            ),
            "progress: stamped-lanes g(0..123456) of 1000001 positions (12.3%), 1.23e9 steps/s, ETA 3m 07s, 1s so far"
        );
        assert_eq!(
            plain_line("", (0, 11), (0, "values/s"), 60.0, None),
            "progress: g(0..0) of 11 positions (0.0%), 0.00e0 values/s, ETA ?, 1m 00s so far"
        );
    }

    #[test]
    fn eta_text() {
        assert_eq!(fmt_eta(12.4), "12s");
        assert_eq!(fmt_eta(187.0), "3m 07s");
        assert_eq!(fmt_eta(3720.0), "1h 02m");
    }

    #[test]
    fn steps_before_counts_options_below_p() {
        let m = Moves::Squares;
        assert_eq!(steps_before(&m, 0), 0);
        assert_eq!(steps_before(&m, 1), 0);
        assert_eq!(steps_before(&m, 2), 1);
        assert_eq!(steps_before(&m, 100_001), 21_032_170);
    }
}
