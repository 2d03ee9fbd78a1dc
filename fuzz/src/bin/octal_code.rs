//! Fuzz target `octal_code` (nimsquare::fuzzing::octal_code).
nimsquare_fuzz::target!("octal_code");
