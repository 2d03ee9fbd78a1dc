//! Layer 1, the kernels: the inner loops the back-ends are made of.
//!
//! Each family has a scalar twin that its vector paths are tested against, and its dispatch
//! on the instruction-set path ([`crate::base::isa`]) is written once, in the family's
//! `mod.rs`, and taken once per build, outside the hot loops.

pub mod hadamard;
pub mod sumset;
pub mod xor_dot;

/// A kernel family a back-end uses: what its registry entry declares, so that an instrument
/// can choose a judge that shares no inner loop with what it judges, by property rather than
/// by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Byte-stamp lanes: 32 positions at a time, a stamp store per option.
    Lanes,
    /// Bit masks: the far-move OR into a mask per position and the lowest-zero-bit mex.
    Masks,
    /// The pipelined super-blocks: the thread split and the super-block schedule.
    SuperBlocks,
    /// Word-parallel sumset tests, one value class at a time.
    Sumset,
    /// The count sweep's vectorised xor dot product.
    XorDot,
    /// The Walsh-Hadamard transform of a value histogram.
    Hadamard,
    /// The win/lose sieve's windowed marking.
    Sieve,
}
