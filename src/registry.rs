//! A registry entry: what the CLI, the tests and the benches iterate over.
//!
//! Each stage keeps a static slice of [`Entry`]; adding a back-end is one file and one line in
//! that slice, and it then shows up in `nimsquare list`, `verify`, the agreement tests and the
//! bench matrix without further edits.

use crate::error::{Error, Result};

/// One back-end of a stage: its CLI name, a one-line description, its cost, and a constructor.
pub struct Entry<T: ?Sized + 'static> {
    /// The name used on the command line (`--table NAME`, `--count NAME`).
    pub name: &'static str,
    /// One line saying what the back-end does.
    pub description: &'static str,
    /// Its cost in time, in the notation of the README's back-end table.
    pub cost: &'static str,
    /// Builds the back-end.
    pub make: fn() -> Box<T>,
}

/// Finds `name` in `entries`, or an error listing the valid names of `stage`.
pub fn find<T: ?Sized>(
    entries: &'static [Entry<T>],
    stage: &'static str,
    name: &str,
) -> Result<&'static Entry<T>> {
    entries
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(|| Error::UnknownBackend {
            stage,
            name: name.to_string(),
            valid: entries.iter().map(|e| e.name).collect(),
        })
}
