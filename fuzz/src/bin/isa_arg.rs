//! Fuzz target `isa_arg` (nimsquare::fuzzing::isa_arg).
nimsquare_fuzz::target!("isa_arg");
