//! Fuzz target `finite_set` (nimsquare::fuzzing::finite_set).
nimsquare_fuzz::target!("finite_set");
