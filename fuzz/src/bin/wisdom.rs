//! Fuzz target `wisdom` (nimsquare::fuzzing::wisdom).
nimsquare_fuzz::target!("wisdom");
