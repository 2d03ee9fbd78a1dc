//! Fuzz target `study_rows` (nimsquare::fuzzing::study_rows).
nimsquare_fuzz::target!("study_rows");
