//! Long table runs: progress, checkpoints, resumption and saved tables.
//!
//! At N = 10^9 the table stage runs for hours; this module keeps such a run visible (a
//! progress bar with an ETA from option steps), recoverable (a checkpoint written atomically
//! every minute, and on Ctrl-C or SIGTERM) and reusable (a finished table saved in one
//! documented binary format that numpy reads in one line).
//!
//! - [`tablefile`]: the file format of a table or checkpoint, read and write.
//! - [`ruleset`]: what the machinery needs of a game's rules ([`Ruleset`]), read from every
//!   workload's [`crate::grundy::Rulebook`] (its label, its option steps, its spot check of a
//!   loaded table, [`crate::grundy::spot_check`]).
//! - [`signals`]: SIGINT/SIGTERM set a flag while a run is active.
//! - [`progress`]: the bar and its ETA.
//! - [`driver`]: the chunked run over a fill closure (a table back-end's `fill`).
//! - [`censusfile`]: the census's rows file, appended and synced a row at a time, resumed,
//!   and merged from the shards of a job array.

pub mod censusfile;
pub mod driver;
pub mod progress;
pub mod ruleset;
pub mod signals;
pub mod tablefile;

pub use driver::{
    build_shown, kept_fill, start_from_files, try_run_fill, LongRun, Outcome, Start, TryFill,
};
pub use ruleset::Ruleset;
pub use signals::{interrupted, Signal, SignalGuard};
pub use tablefile::{read, read_checkpoint, read_header, write_atomic, Damage, Header, TableFile};
