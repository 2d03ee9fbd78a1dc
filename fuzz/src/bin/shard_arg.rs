//! Fuzz target `shard_arg` (nimsquare::fuzzing::shard_arg).
nimsquare_fuzz::target!("shard_arg");
