//! Fuzz target `table_file` (nimsquare::fuzzing::table_file).
nimsquare_fuzz::target!("table_file");
