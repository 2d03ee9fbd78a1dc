//! nimsquare: a performance-research harness for impartial games.
//!
//! The central workload is Nim Square (Project Euler 310): three heaps, a move removes a
//! positive square from one heap; count the losing positions 0 <= a <= b <= c <= N. The
//! computation runs in two stages, each with several back-ends behind one trait:
//!
//! 1. [`table`]: the Grundy value g(n) of one heap for every n <= N ([`grundy::Builder`]).
//! 2. [`count`]: the sorted tuples whose values xor to zero ([`count::Counter`]).
//!
//! The modules form layers, and every import points down (a test reads the `use crate::`
//! lines and fails on one that points up):
//!
//! | layer | modules | what it holds |
//! |---|---|---|
//! | 0 | [`base`] | errors, moves, ISA paths, memory, statistics, provenance |
//! | 1 | [`kernels`] | the inner loops, each family with its scalar twin and one ISA dispatch |
//! | 2 | [`cost`], [`grundy`], then [`registry`] | cost-model types; the [`grundy::Table`], the rules of a workload and its one builder trait; a back-end's registry entry and the workloads erased |
//! | 3 | [`table`], then [`count`], [`cold`], [`octal`] and [`finite`] | the stages: trait, registry list, back-ends as leaves ([`octal`]: the octal games, the second workload; [`finite`]: finite subtraction games, the third) |
//! | 4 | [`games`], [`census`] | exhaustive checkers for the other games of the source documents; the census of the octal codes |
//! | 5 | [`run`] | what every computing command goes through: long runs and table files, wisdom, the planner |
//! | 6 | [`instruments`] | what measures: checker, sequences, comparisons, the bench grid and its reports, roofline, tune, scaling studies |
//! | 7 | `fuzzing` (feature `testing`) | one fuzz target per reader and parser, for `fuzz/` and tests/fuzz_corpora.rs |
//!
//! The command line sits on top, in the binary (`src/cli/`), outside the library.
//!
//! ```
//! use nimsquare::{base::moves::Moves, count, table};
//! let t = table::build("stamped", &Moves::Squares, 29).unwrap();
//! let answer = (count::find("sweep").unwrap().make)().count(&t, 3).unwrap();
//! assert_eq!(answer, 1160); // the checkpoint of Project Euler 310
//! ```

pub mod base;
pub mod census;
pub mod cold;
pub mod cost;
pub mod count;
pub mod finite;
#[cfg(feature = "testing")]
pub mod fuzzing;
pub mod games;
pub mod grundy;
pub mod instruments;
pub mod kernels;
pub mod octal;
pub mod registry;
pub mod run;
pub mod table;

pub use base::error::{Error, Result};
