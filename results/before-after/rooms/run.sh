#!/usr/bin/env bash
# Issue 27's before/after: every table back-end at 10^6 and 10^7, 45edd9e (A) against d002d85 (B).
set -u
: "${BEFORE:?the nimsquare binary built at 45edd9e}" "${AFTER:?the nimsquare binary built at d002d85}"
cd "$(dirname "$0")"
echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in 1e6 1e7; do
  pairs=9; [[ $n == 1e7 ]] && pairs=5
  for t in stamped bitset stamped-lanes stamped-parallel bitset-parallel value-bounded; do
    "$AFTER" compare "$t" "$t" --a-binary "$BEFORE" --b-binary "$AFTER" \
      --limit $n --pairs $pairs --measure wall --quiet --json > "$t-$n.json" 2> "$t-$n.err"
    echo "$t $n rc=$? $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
echo "end $(date -u +%FT%TZ)"
