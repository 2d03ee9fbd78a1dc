//! Layer 6, the instruments: what checks, compares and times the back-ends, above the run
//! layer ([`crate::run`]). Each imports the stages through their registries, the run layer
//! and the ones listed before it:
//!
//! - [`check`]: every back-end against its control or reference (and [`check::control`],
//!   the game-tree and brute-force controls written from the rules alone);
//! - [`compare`]: two commands in alternating whole runs, the median ratio with its interval,
//!   timed or counted under Valgrind;
//! - [`matrix`]: the bench matrix's grid, ids and selection (`benches/matrix.rs`);
//! - [`matrix_report`]: the matrix's medians and intervals read back from criterion, ratios
//!   between back-ends, `matrix.csv` and `matrix.json`;
//! - [`matrix_check`]: two sets of matrix results compared, the regression verdict;
//! - [`counts`]: the counting bench and CI's count gate: the matrix's benchmarks counted
//!   under Callgrind, against a saved baseline;
//! - [`roofline`]: each back-end's time held against what the machine's primitives allow;
//! - [`tune`]: times the back-ends `auto` can pick here and writes wisdom;
//! - [`scaling`]: the scaling and growth studies, their CSV, fits and plots;
//! - [`sequence`]: OEIS-style sequences read off a table (values, cold positions, first
//!   positions), written as b-files.

pub mod check;
pub mod compare;
pub mod counts;
pub mod matrix;
pub mod matrix_check;
pub mod matrix_report;
pub mod roofline;
pub mod scaling;
pub mod sequence;
pub mod tune;
