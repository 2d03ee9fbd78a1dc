//! Fuzz target `counts_baseline` (nimsquare::fuzzing::counts_baseline).
nimsquare_fuzz::target!("counts_baseline");
