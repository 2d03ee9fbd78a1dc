//! The shared body of every fuzz target: the counting allocator, and the AFL loop that runs
//! one target of `nimsquare::fuzzing` under its allocation bound.

pub use nimsquare::fuzzing::alloc::Counting;

/// The body of target `name`'s binary: AFL feeds inputs, each runs under
/// `nimsquare::fuzzing::alloc::run_bounded` (a panic is a crash AFL saves).
#[macro_export]
macro_rules! target {
    ($name:literal) => {
        #[global_allocator]
        static ALLOC: $crate::Counting = $crate::Counting;

        fn main() {
            let target = nimsquare::fuzzing::find($name).expect("a target").run;
            afl::fuzz!(|data: &[u8]| {
                nimsquare::fuzzing::alloc::run_bounded(target, data);
            });
        }
    };
}
