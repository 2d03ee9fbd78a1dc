#!/usr/bin/env bash
# After the 10^8 run: 0.56 by the vector back-end (no kernel shared with octal-sparse), the
# other codes of A071436, and the rare/common cost against the rare positions.
set -u
B=${B:?the nimsquare binary to time}
cd "$(dirname "$0")"
/usr/bin/time -v $B --threads 1 octal 0.56 --limit 660000 --backend octal-vector --quiet --json > proof-0.56-vector.json 2> proof-0.56-vector.time
echo "0.56 vector rc=$? $(date -u +%T)"
for c in 0.561 0.562 0.563; do
  $B --threads 1 octal $c --limit 660000 --backend octal-sparse --quiet --json > proof-$c.json 2>&1
  echo "$c rc=$? $(date -u +%T)"
done
for c in "0.6 100000" "0.6 1000000" "0.56 100000" "0.56 1000000" "0.16 100000" "0.16 1000000" "0.127 100000" "0.127 1000000" "0.376 100000" "0.376 1000000" "0.137 100000"; do
  set -- $c
  ../../../target/release/examples/octal_stats $1 $2
done > rare-cost.txt 2>&1
echo "rare-cost $(date -u +%T)"
