//! Fuzz target `census_file` (nimsquare::fuzzing::census_file).
nimsquare_fuzz::target!("census_file");
