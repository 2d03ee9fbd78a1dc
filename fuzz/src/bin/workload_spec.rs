//! Fuzz target `workload_spec` (nimsquare::fuzzing::workload_spec).
nimsquare_fuzz::target!("workload_spec");
