//! Fuzz target `window_checkpoint` (nimsquare::fuzzing::window_checkpoint).
nimsquare_fuzz::target!("window_checkpoint");
