//! Fuzz target `census_fields` (nimsquare::fuzzing::census_fields).
nimsquare_fuzz::target!("census_fields");
