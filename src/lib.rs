//! nimsquare: a performance-research harness for impartial games.
//!
//! The central workload is Nim Square (as posed in the Nim Square write-up): three heaps, a
//! move removes a positive square from one heap; count the losing positions
//! 0 <= a <= b <= c <= N. The computation runs in two stages, each with several back-ends
//! behind one trait:
//!
//! 1. [`table`]: the Grundy value g(n) of one heap for every n <= N ([`table::TableBuilder`]).
//! 2. [`count`]: the sorted tuples whose values xor to zero ([`count::Counter`]).
//!
//! ```
//! use nimsquare::{count, moves::Moves, table};
//! let t = table::build("stamped", &Moves::Squares, 29).unwrap();
//! let answer = (count::find("sweep").unwrap().make)().count(&t, 3).unwrap();
//! assert_eq!(answer, 1160); // the checkpoint of Project Euler 310
//! ```

pub mod check;
pub mod cli;
pub mod cold;
pub mod control;
pub mod count;
pub mod error;
pub mod games;
pub mod isa;
pub mod longrun;
pub mod memory;
pub mod moves;
pub mod paths;
pub mod planner;
pub mod registry;
pub mod rng;
pub mod roofline;
pub mod scaling;
pub mod table;

pub use error::{Error, Result};
