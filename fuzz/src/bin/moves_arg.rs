//! Fuzz target `moves_arg` (nimsquare::fuzzing::moves_arg).
nimsquare_fuzz::target!("moves_arg");
