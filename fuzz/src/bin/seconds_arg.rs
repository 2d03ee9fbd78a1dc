//! Fuzz target `seconds_arg` (nimsquare::fuzzing::seconds_arg).
nimsquare_fuzz::target!("seconds_arg");
