#!/usr/bin/env bash
# scripts/bench-check.sh OLD NEW [--fail-above R] [--criterion DIR] [--json]: the bench
# matrix's regression check (src/bin/bench-check.rs). Exits 1 when a benchmark of NEW is
# slower than OLD by more than R (default 1.10) even at the favourable ends of both medians'
# intervals, 2 on bad input, 0 otherwise. OLD and NEW are matrix.csv / matrix.json files of
# scripts/bench.sh, or criterion baseline names (`cargo bench --bench matrix -- --save-baseline
# main`, then `new` is the latest run):
#   scripts/bench-check.sh main new --fail-above 1.10
# Paths are read from the current folder (criterion's default: ./target/criterion).
set -euo pipefail
exec cargo run --release --quiet --manifest-path "$(dirname "$0")/../Cargo.toml" --bin bench-check -- "$@"
