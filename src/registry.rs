//! A registry entry: what the CLI, the checker, the tests and the benches iterate over.
//!
//! Each stage keeps a static slice of [`Entry`]; adding a back-end is one file that declares
//! its own `ENTRY`, its `mod` line and that entry in the slice. Everything else a caller needs to know (scratch memory,
//! which inputs it supports) is asked of the back-end through its stage's trait, never
//! looked up by name, so the new back-end shows up in `list`, `verify`, the checker, the
//! memory guard and the bench matrix with no further edit.

use crate::base::error::{Error, Result};

pub mod workload;

/// What a back-end is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A back-end that competes on speed: `auto` may choose it, the bench matrix times it.
    Fast,
    /// A fast back-end that also serves as the stage's reference where no control affords
    /// the input (one per stage; the checker finds it by this role, never by position).
    Reference,
    /// A naive control, written straight from the definition to check the others: never
    /// chosen by `auto`, left out of the bench timings, used only on the sizes it affords.
    Control,
}

/// One back-end of a stage: its CLI name, a one-line description, its cost, its role, its
/// cost model and a constructor.
pub struct Entry<T: ?Sized + 'static> {
    /// The name used on the command line (`--table NAME`, `--count NAME`).
    pub name: &'static str,
    /// One line saying what the back-end does.
    pub description: &'static str,
    /// Its cost in time, in the notation of the README's back-end table.
    pub cost: &'static str,
    /// Fast, reference or control.
    pub role: Role,
    /// Its cost model: how many of each measured primitive one run does, from which the
    /// roofline derives the bound its time is held against ([`crate::instruments::roofline`]).
    pub model: crate::cost::Model,
    /// The kernel families it runs: what a judge must not share with what it judges.
    pub kernels: &'static [crate::kernels::Family],
    /// Builds the back-end.
    pub make: fn() -> Box<T>,
}

impl<T: ?Sized> Entry<T> {
    /// True for the naive controls.
    pub fn is_control(&self) -> bool {
        self.role == Role::Control
    }

    /// True when the back-end runs a kernel family with one kernel per `--isa` path, so it
    /// follows [`crate::base::isa::active`] and the bench matrix and the per-path tests run it
    /// once per path the CPU supports. Read from [`Entry::kernels`], the one place a
    /// back-end states its kernels.
    pub fn follows_isa(&self) -> bool {
        self.kernels.iter().any(|f| f.follows_isa())
    }
}

/// A stage's back-ends under the stage's name: what its `find` and `reference` ask, so each
/// stage states its name once instead of repeating the look-up code.
pub struct Stage<T: ?Sized + 'static> {
    /// The stage's name in messages and on the command line (`table`, `count`, `cold`).
    pub name: &'static str,
    /// Every back-end of the stage.
    pub entries: &'static [Entry<T>],
}

impl<T: ?Sized> Stage<T> {
    /// The stage called `name` with back-ends `entries`.
    pub const fn new(name: &'static str, entries: &'static [Entry<T>]) -> Stage<T> {
        Stage { name, entries }
    }

    /// The back-end called `name`, or an error listing the stage's valid names.
    pub fn find(&self, name: &str) -> Result<&'static Entry<T>> {
        find(self.entries, self.name, name)
    }

    /// The stage's reference back-end.
    pub fn reference(&self) -> &'static Entry<T> {
        reference(self.entries)
    }
}

/// Declares a stage's [`Stage`] static `STAGE` (its name in messages and its back-ends)
/// and the stage's `find` (and, with `reference`, `reference`) on it: the look-ups every
/// stage offers, written once. `stage!("table", dyn Builder<Moves>, BACKENDS, reference);`
macro_rules! stage {
    ($name:literal, $backend:ty, $entries:ident $(, $reference:ident)?) => {
        /// The stage: its name in messages and its back-ends.
        pub static STAGE: $crate::registry::Stage<$backend> =
            $crate::registry::Stage::new($name, $entries);

        /// Looks up a back-end of this stage by name, or an error listing the valid names.
        pub fn find(
            name: &str,
        ) -> $crate::base::error::Result<&'static $crate::registry::Entry<$backend>> {
            STAGE.find(name)
        }

        $(
            /// This stage's reference back-end (its entry with
            /// [`Role::Reference`](crate::registry::Role::Reference)).
            pub fn $reference() -> &'static $crate::registry::Entry<$backend> {
                STAGE.reference()
            }
        )?
    };
}
pub(crate) use stage;

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

/// The one entry of `entries` with [`Role::Reference`].
pub fn reference<T: ?Sized>(entries: &'static [Entry<T>]) -> &'static Entry<T> {
    entries
        .iter()
        .find(|e| e.role == Role::Reference)
        .expect("every stage registers exactly one reference back-end")
}

/// The entries that are not controls: what `auto` and the bench matrix choose from.
pub fn fast<T: ?Sized>(entries: &'static [Entry<T>]) -> impl Iterator<Item = &'static Entry<T>> {
    entries.iter().filter(|e| !e.is_control())
}
