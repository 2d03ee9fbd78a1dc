#!/usr/bin/env bash
# pair-commands.sh PAIRS 'COMMAND A' 'COMMAND B': runs two whole commands in turn (A B, B A,
# A B, ..., PAIRS pairs, after one untimed warm-up of each; neither is given a shell, the
# strings are split on spaces) and prints each run's wall seconds, then one line: the median
# wall seconds of each and the median and range of the pair ratios B/A. For commands whose
# arguments differ (this project's binary against another program); compare-binaries.sh
# does the same for two builds with the same arguments.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
pairs=$1
read -r -a a <<<"$2"
read -r -a b <<<"$3"
"${a[@]}" >/dev/null 2>&1
"${b[@]}" >/dev/null 2>&1
as=() bs=() rs=()
for ((i = 0; i < pairs; i++)); do
  if ((i % 2 == 0)); then
    ta=$(time_one "${a[@]}")
    tb=$(time_one "${b[@]}")
  else
    tb=$(time_one "${b[@]}")
    ta=$(time_one "${a[@]}")
  fi
  as+=("$ta") bs+=("$tb") rs+=("$(echo "$tb / $ta" | bc -l)")
  printf 'pair %d: A %.3f s, B %.3f s, B/A %.3f\n' "$((i + 1))" "$ta" "$tb" "${rs[-1]}"
done
printf 'pairs=%d A_median_s=%.3f B_median_s=%.3f ratio_B_over_A_median=%.3f ratio_range=%s\nA: %s\nB: %s\n' \
  "$pairs" "$(median "${as[@]}")" "$(median "${bs[@]}")" "$(median "${rs[@]}")" "$(range "${rs[@]}")" "$2" "$3"
