//! Fuzz target `window_values` (nimsquare::fuzzing::window_values).
nimsquare_fuzz::target!("window_values");
