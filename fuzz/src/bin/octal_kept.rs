//! Fuzz target `octal_kept` (nimsquare::fuzzing::octal_kept).
nimsquare_fuzz::target!("octal_kept");
