//! Fuzz target `count_arg` (nimsquare::fuzzing::count_arg).
nimsquare_fuzz::target!("count_arg");
