//! Layer 1, the kernels: the inner loops the back-ends are made of.
//!
//! Each family has a scalar twin that its vector paths are tested against, and its dispatch
//! on the instruction-set path ([`crate::base::isa`]) is taken once per build, outside the
//! hot loops. The dispatch is written once for every family (`isa_dispatch.rs`): the
//! family's `mod.rs` names its kernel trait and the features of its two x86 paths in one
//! `isa_family!`, which declares its visitor trait, its `dispatch` and each path's
//! `#[target_feature]` entry; its `x86.rs` holds the path types `Avx2` and `Avx512`.
//! [`Family::ALL`] lists the families.
//!
//! Layout (as memchr's `arch/` and hashbrown's group selection): one folder per family with
//! vector paths, the x86-64 code in the folder's `x86.rs`:
//!
//! - [`masks`]: multi-word bit masks of option values, the far-move OR and the
//!   lowest-zero-bit mex (dispatch: [`masks::dispatch`] on a [`masks::WithMasks`] visitor);
//! - [`lanes`]: byte-stamp lanes, 32 positions at a time, their mex scan and their packing
//!   into bits (dispatch: [`lanes::dispatch`] on a [`lanes::WithLanes`] visitor), which span
//!   to prefetch and the const lane stride (`with_stride!` in [`lanes`]);
//! - [`prefetch`]: the software prefetch of a span of table values, and the lines it names;
//! - [`pipeline`]: the pipelined super-blocks the parallel back-ends share, and their
//!   [`pipeline::Schedule`];
//! - [`xor_pairs`]: the octal games' search for the first split pair whose values xor to
//!   a given value (dispatch: [`xor_pairs::dispatch`] on a [`xor_pairs::WithXorPairs`]
//!   visitor);
//! - [`huge_pages`]: big tables on 2 MiB pages;
//! - [`spin_pool`]: a join whose workers spin rather than sleep, for pipelines that meet
//!   thousands of times a second (`octal-block`);
//! - [`sumset`]: the word-parallel sumset tests of `value-bounded` (dispatch:
//!   [`sumset::dispatch`] on a [`sumset::WithSumset`] visitor);
//! - [`xor_dot`]: the count sweep's xor dot product (dispatch: [`xor_dot::dispatch`] on a
//!   [`xor_dot::WithXorDot`] visitor);
//! - [`hadamard`]: the Walsh-Hadamard transform of a value histogram.
//!
//! Every vector path is tested against its family's scalar twin with
//! [`for_each_path_against_scalar`].

use crate::base::isa::Isa;

// First, so that every family below sees its macros.
#[macro_use]
mod isa_dispatch;

pub mod huge_pages;
pub mod lanes;
pub mod masks;
pub mod pipeline;
pub mod prefetch;
pub mod spin_pool;

pub mod hadamard;
pub mod sumset;
pub mod xor_dot;
pub mod xor_pairs;

/// Declares [`Family`], [`Family::ALL`] and [`Family::follows_isa`] from one list, so they
/// cannot drift apart: a family marked `per_isa` has one kernel per `--isa` path.
macro_rules! families {
    (@per_isa per_isa) => { true };
    (@per_isa) => { false };
    ($(#[$doc:meta])* pub enum Family {
        $($(#[$vdoc:meta])* $name:ident $(: $per_isa:ident)?,)*
    }) => {
        $(#[$doc])*
        pub enum Family { $($(#[$vdoc])* $name,)* }

        impl Family {
            /// Every family, in declaration order.
            pub const ALL: &'static [Family] = &[$(Family::$name),*];

            /// True for the families with one kernel per `--isa` path (a scalar twin and
            /// x86 kernels in the family's folder, marked `per_isa` in the list): a
            /// back-end that runs one follows `--isa`
            /// ([`crate::registry::Entry::follows_isa`]; `tests/contract.rs` checks that a
            /// run of each back-end reads the path exactly when it declares one), and the
            /// bench matrix times it on every path by that answer.
            pub fn follows_isa(self) -> bool {
                match self {
                    $(Family::$name => families!(@per_isa $($per_isa)?),)*
                }
            }
        }
    };
}

families! {
    /// A kernel family a back-end uses: what its registry entry declares, so that an
    /// instrument can choose a judge that shares no inner loop with what it judges, by
    /// property rather than by name.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Family {
        /// Byte-stamp lanes: 32 positions at a time, a stamp store per option.
        Lanes: per_isa,
        /// Bit masks: the far-move OR into a mask per position and the lowest-zero-bit mex.
        Masks: per_isa,
        /// The pipelined super-blocks: the thread split and the super-block schedule.
        SuperBlocks,
        /// Word-parallel sumset tests, one value class at a time.
        Sumset: per_isa,
        /// The count sweep's vectorised xor dot product.
        XorDot: per_isa,
        /// The Walsh-Hadamard transform of a value histogram.
        Hadamard,
        /// The win/lose sieve's windowed marking.
        Sieve,
        /// The octal games' xor-pair search: the first split whose two heaps xor to a value.
        XorPairs: per_isa,
    }
}

/// Splits ascending `moves` into the moves below `block` (whose options may lie inside a
/// block of that many positions, so they are applied in position order) and the rest
/// (whose options all lie in finished blocks, so they may be applied in any order).
pub fn split_moves(moves: &[usize], block: usize) -> (&[usize], &[usize]) {
    moves.split_at(moves.partition_point(|&s| s < block))
}

/// Runs `run` on the scalar twin ([`Isa::Scalar`]) and then on every other path this CPU
/// supports, asserts that each path's result equals the twin's (naming `what` and the path
/// when one differs), and returns the twin's result. The one helper every "every path
/// matches the scalar twin" test calls; `run` chooses the path for its kernel (a family's
/// `*_on` function or `dispatch`, or [`crate::base::isa::with`] under
/// [`crate::base::isa::TEST_LOCK`] for a whole back-end).
pub fn for_each_path_against_scalar<T: PartialEq + std::fmt::Debug>(
    what: &str,
    mut run: impl FnMut(Isa) -> T,
) -> T {
    let want = run(Isa::Scalar);
    for isa in Isa::supported_all()
        .into_iter()
        .filter(|&i| i != Isa::Scalar)
    {
        assert_eq!(run(isa), want, "{what}: {isa} differs from the scalar twin");
    }
    want
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_moves_at_the_block_length() {
        assert_eq!(split_moves(&[1, 4, 9, 16], 9), (&[1, 4][..], &[9, 16][..]));
        assert_eq!(split_moves(&[], 9), (&[][..], &[][..]));
    }

    #[test]
    fn the_families_that_follow_isa_are_those_with_x86_kernels() {
        // The families with one kernel per path are the folders that hold an `x86.rs`
        // (read from the source tree here, not from `follows_isa`), each folder named as its
        // variant in snake case (XorPairs: xor_pairs); the others have none.
        let folder = |f: Family| {
            let mut name = String::new();
            for (i, c) in format!("{f:?}").chars().enumerate() {
                if c.is_ascii_uppercase() && i > 0 {
                    name.push('_');
                }
                name.push(c.to_ascii_lowercase());
            }
            name
        };
        assert_eq!(folder(Family::XorPairs), "xor_pairs");
        let all = Family::ALL;
        for &f in all {
            let has_x86 = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("src/kernels")
                .join(folder(f))
                .join("x86.rs")
                .is_file();
            assert_eq!(f.follows_isa(), has_x86, "{f:?}");
        }
        // Both answers occur, so neither constant passes.
        assert!(all.iter().any(|f| f.follows_isa()) && all.iter().any(|f| !f.follows_isa()));
    }

    #[test]
    #[should_panic(expected = "differs from the scalar twin")]
    fn a_path_that_differs_from_the_twin_fails() {
        // Portable is supported everywhere, so this always has a second path to fail on.
        for_each_path_against_scalar("the test", |isa| isa == Isa::Scalar);
    }
}
