#!/usr/bin/env bash
# matrix.sh BEFORE AFTER PAIRS: issue 41's no-slowdown matrix, whole processes in alternating
# pairs (scripts/speed/compare-binaries.sh): every table back-end at 10^6 and 10^7 (naive-mex,
# the control, at its limit 10^5), counted by burnside so the table dominates; every octal
# back-end on Officers (0.6) to 10^5 (octal-naive, the control, at its limit 2*10^4). Both
# binaries take the same arguments (`--table` is kept as an alias of `--backend`). One line a
# case: median seconds before and after, and the median and range of after/before.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
compare=$here/../../../scripts/speed/compare-binaries.sh
before=$1 after=$2 pairs=$3
export NIMSQUARE_NO_WISDOM=1
"$compare" "$before" "$after" "$pairs" -- solve --table naive-mex --count burnside --limit 1e5 --quiet
for table in stamped bitset stamped-lanes stamped-parallel bitset-parallel value-bounded; do
  for limit in 1e6 1e7; do
    "$compare" "$before" "$after" "$pairs" -- solve --table "$table" --count burnside --limit "$limit" --quiet
  done
done
"$compare" "$before" "$after" "$pairs" -- octal 0.6 --backend octal-naive --limit 2e4 --quiet
for backend in octal-sparse octal-sparse-parallel octal-vector octal-vector-parallel; do
  "$compare" "$before" "$after" "$pairs" -- octal 0.6 --backend "$backend" --limit 1e5 --quiet
done
