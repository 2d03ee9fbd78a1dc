#!/usr/bin/env bash
# Target 4 at the study's two points whose tables are advised onto huge pages (>= 8 MiB).
set -uo pipefail
cd /work/runs/t4huge
NEW=./nimsquare-new
OLD=/work/baseline/nimsquare-0c16a74
log() { echo "$(date -u +%H:%M:%S) $*" | tee -a times.log; }
log "start; load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2; do
  log "before $i"; rm -f before$i.csv
  $OLD scale --from 4641589 --to 10000000 --points 2 --repeat 3 --skip-over 60 --out before$i.csv > before$i.log 2>&1
  log "after $i"
  $NEW scale --from 4641589 --to 10000000 --points 2 --repeat 3 --skip-over 60 --out after$i.csv --force > after$i.log 2>&1
done
log done
