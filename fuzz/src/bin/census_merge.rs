//! Fuzz target `census_merge` (nimsquare::fuzzing::census_merge).
nimsquare_fuzz::target!("census_merge");
