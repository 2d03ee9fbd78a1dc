#!/usr/bin/env bash
# compare-binaries.sh BEFORE AFTER PAIRS -- ARGS...: runs `BEFORE ARGS` and `AFTER ARGS` as whole
# processes in turn (B A B A ..., PAIRS pairs, after one untimed warm-up of each) and prints one
# line: the median wall seconds of each and the median and range of the pair ratios
# after/before. Alternating pairs keep a comparison honest on a machine whose speed drifts.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
before=$1 after=$2 pairs=$3
shift 3
[[ "${1:-}" == "--" ]] && shift
"$before" "$@" >/dev/null 2>&1
"$after" "$@" >/dev/null 2>&1
bs=() as=() rs=()
for ((i = 0; i < pairs; i++)); do
  b=$(time_one "$before" "$@")
  a=$(time_one "$after" "$@")
  bs+=("$b") as+=("$a") rs+=("$(echo "$a / $b" | bc -l)")
done
printf 'args="%s" pairs=%d before_s=%.4f after_s=%.4f ratio_median=%.3f ratio_range=%s\n' \
  "$*" "$pairs" "$(median "${bs[@]}")" "$(median "${as[@]}")" "$(median "${rs[@]}")" "$(range "${rs[@]}")"
