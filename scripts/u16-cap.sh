#!/usr/bin/env bash
# scripts/u16-cap.sh [NAME_PART ...]: the u16-cap tests of tests/edges.rs (moves 1..=65535,
# g(n) = n up to 65535, then 0), every table back-end at the largest value a u16 holds, one
# test at a time with its wall time, then a table of them.
#
# Most of them are #[ignore]d because they are too slow for CI (the mask back-ends about 45
# minutes on 2 cores, the control about 2, value-bounded about 7); this script is how they are
# run on purpose. It runs every test of the edges binary whose name contains `u16_cap`,
# ignored or not (the stamped ones are not ignored and take seconds), in the order listed; with
# arguments, only the tests whose names contain one of them (e.g. `control value_bounded`).
# The tests build with the `tests` profile (release speed; target/tests/). Each test runs on
# the widest vector path this CPU has (tests/edges.rs, assert_u16_cap).
#
# Prints one `u16-cap TEST seconds=S result=ok|FAILED` line per test as it ends and the table
# at the end; exits 1 if a test failed. The times are wall times of one run each: indicative
# only, and only on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

# The test binary is run directly, not through cargo, so a wall time is the test's alone
# (cargo may wait minutes for a lock held by another build before starting it).
binary=$(cargo test --profile tests --features testing --test edges --no-run 2>&1 |
  sed -n 's/^ *Executable tests\/edges.rs (\(.*\))$/\1/p')
if [[ ! -x "$binary" ]]; then
  echo "error: cannot find the edges test binary (cargo test --no-run said no Executable)" >&2
  exit 2
fi
mapfile -t all < <("$binary" --list --include-ignored 2>/dev/null |
  sed -n 's/^\(.*u16_cap[^:]*\): test$/\1/p')
tests=()
for t in "${all[@]}"; do
  if [[ $# -eq 0 ]]; then tests+=("$t"); continue; fi
  for part in "$@"; do
    if [[ "$t" == *"$part"* ]]; then tests+=("$t"); break; fi
  done
done
if [[ ${#tests[@]} -eq 0 ]]; then
  echo "error: no u16-cap test of tests/edges.rs matches: $*; they are: ${all[*]}" >&2
  exit 2
fi

provenance
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rows=()
failed=0
for t in "${tests[@]}"; do
  start=$(date +%s.%N)
  if "$binary" --exact "$t" --include-ignored >"$log" 2>&1; then
    result=ok
  else
    result=FAILED
    failed=1
    tail -n 20 "$log" >&2
  fi
  seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  echo "u16-cap $t seconds=$seconds result=$result"
  rows+=("| \`$t\` | $seconds | $result |")
done
echo
echo "| test | wall seconds | result |"
echo "|---|---:|---|"
printf '%s\n' "${rows[@]}"
exit "$failed"
