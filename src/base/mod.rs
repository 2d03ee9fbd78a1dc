//! Layer 0, the base: small types and helpers every layer above uses, importing nothing of
//! the crate but one another's [`error`].
//!
//! - [`error`]: the library's one error type; the binary maps it to exit statuses.
//! - [`moves`]: a subtraction set; [`limit`]: the limit N, validated once.
//! - [`isa`]: the instruction-set paths and which one this run's kernels take.
//! - [`memory`], [`paths`]: what a run may allocate and write, checked before any work.
//! - [`fault`]: the point every file write of the run layer goes through, which a test build
//!   (`testing`) can make fail (`NIMSQUARE_FAULT`); nothing without the feature.
//! - [`rng`]: a small seeded generator for repeatable random cases.
//! - [`stats`]: the median of repeats; [`units`]: seconds as a person reads them;
//!   [`numbers`]: counts (`1e6`) and seconds as a person types them.
//! - [`provenance`]: where a measurement was made (build revision, CPU).
//! - [`csvrecords`]: the records of a CSV text, without building a parser for each.
//! - [`wire`]: a back-end's state as bytes, for a checkpoint, read back checked.
//! - [`valgrind`]: the stage a run under Callgrind counts, marked by client requests.

pub mod csvrecords;
pub mod error;
pub mod fault;
pub mod isa;
pub mod limit;
pub mod memory;
pub mod moves;
pub mod numbers;
pub mod paths;
pub mod provenance;
pub mod rng;
pub mod stats;
pub mod units;
pub mod valgrind;
pub mod wire;
