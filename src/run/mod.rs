//! Layer 5, the run: what every command that computes goes through, between the stages
//! below and the instruments above, which only measure. Each imports the stages and the
//! ones listed before it:
//!
//! - [`counted`]: one command under Valgrind's Callgrind, its counts read back;
//! - [`longrun`]: chunked table runs with progress, signals and checkpoints, and the
//!   saved-table format with its spot check;
//! - [`wisdom`]: the back-end choices `tune` measured on this machine, read and checked;
//! - [`planner`]: a request resolved once into a plan, `auto` made concrete;
//! - [`workload`]: the game an instrument times (a subtraction game or an octal game) and
//!   the stage whose back-ends build it, what the instruments iterate instead of a stage;
//! - [`report`]: what a command answers, rendered as text or `--json` in one place;
//! - [`plot`]: the picture of a table, g(n) against n as an SVG, drawn from the stream of
//!   values with its rare positions and period marked;
//! - [`profile`]: the profiler session, repeated solves or builds sampled by pprof into a
//!   flamegraph;
//! - [`census`]: one census run from its plan: the rows file, the codes left after a resume,
//!   the progress line, the signals, and the MPI coordinator and workers (feature `mpi`);
//! - [`session`]: the session around one long table run (its files checked before any
//!   work, a seeded start announced, an interruption ended with how to resume);
//! - [`window`]: window mode, an octal run that keeps a window of its table, its report
//!   computed as the values stream past;
//! - [`atlas`]: the census atlas (`census report`), a static site made from a rows file.

pub mod atlas;
pub mod census;
pub mod counted;
pub mod longrun;
pub mod planner;
pub mod plot;
pub mod profile;
pub mod report;
pub mod session;
pub mod window;
pub mod wisdom;
pub mod workload;
