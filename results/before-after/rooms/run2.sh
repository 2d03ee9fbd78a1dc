#!/usr/bin/env bash
# Second round: more pairs where the first round's interval was wide.
set -u
: "${BEFORE:?the nimsquare binary built at 45edd9e}" "${AFTER:?the nimsquare binary built at d002d85}"
cd "$(dirname "$0")"
echo "start2 $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
for t in stamped bitset stamped-lanes stamped-parallel bitset-parallel value-bounded; do
  "$AFTER" compare "$t" "$t" --a-binary "$BEFORE" --b-binary "$AFTER" \
    --limit 1e6 --pairs 25 --measure wall --quiet --json > "r2-$t-1e6.json" 2> "r2-$t-1e6.err"
  echo "$t 1e6 rc=$? $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
done
for t in bitset-parallel stamped-parallel; do
  "$AFTER" compare "$t" "$t" --a-binary "$BEFORE" --b-binary "$AFTER" \
    --limit 1e7 --pairs 9 --measure wall --quiet --json > "r2-$t-1e7.json" 2> "r2-$t-1e7.err"
  echo "$t 1e7 rc=$? $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
done
echo "end2 $(date -u +%FT%TZ)"
