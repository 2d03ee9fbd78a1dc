//! Fuzz target `table_checkpoint` (nimsquare::fuzzing::table_checkpoint).
nimsquare_fuzz::target!("table_checkpoint");
