//! Fuzz target `window_stream` (nimsquare::fuzzing::window_stream).
nimsquare_fuzz::target!("window_stream");
