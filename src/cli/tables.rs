//! The long-run session ([`nimsquare::run::session`]) for a command that holds its files in
//! [`LongRunArgs`] (`octal`): each function hands the flags to the session's function of the
//! same name, and turns an interrupted run into its exit status.

use super::args::LongRunArgs;
use nimsquare::base::error::Result;
use nimsquare::run::longrun::{Outcome, Ruleset, Start};
use nimsquare::run::session;
pub use session::{report_unsaved, seeded, Unsaved};

/// [`session::check_files`], the symlinked files replaced by their targets in `lr`.
pub fn check_files(rules: &dyn Ruleset, limit: usize, lr: &mut LongRunArgs) -> Result<Start> {
    let mut files = lr.files();
    let start = session::check_files(rules, limit, &mut files)?;
    (lr.save_table, lr.checkpoint) = (files.save_table, files.checkpoint);
    Ok(start)
}

/// [`session::announce_seed`].
pub fn announce_seed(start: &Start, limit: usize, lr: &LongRunArgs) {
    session::announce_seed(start, limit, &lr.files());
}

/// [`session::finish`], an interruption as its exit status.
pub fn finish(
    outcome: Outcome,
    limit: usize,
    lr: &LongRunArgs,
    unsaved: &mut Vec<Unsaved>,
) -> std::result::Result<Vec<u16>, i32> {
    session::finish(outcome, limit, &lr.files(), unsaved)
        .map_err(|signal| signal.map_or(1, super::common::exit_status_for))
}

/// [`session::save_table`].
pub fn save_table(
    rules: &dyn Ruleset,
    limit: usize,
    values: &[u16],
    max: u16,
    lr: &LongRunArgs,
    unsaved: &mut Vec<Unsaved>,
) {
    session::save_table(rules, limit, values, max, &lr.files(), unsaved);
}
