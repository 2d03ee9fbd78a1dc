#!/usr/bin/env bash
# Quiet-window measurements for issue 9 target 4 (after the small-N fixes). Run from /work/runs/quiet3.
set -uo pipefail
cd /work/runs/quiet3
NEW=./nimsquare-new
OLD=/work/baseline/nimsquare-0c16a74
PID=$(pgrep -f "nimsquare solve --limit 1e9" | tail -1)
[ -n "$PID" ] && kill -STOP $PID
log() { echo "$(date -u +%H:%M:%S) $*" | tee -a times.log; }
log "start; load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2; do
  log "scale before $i"
  rm -f before$i.csv
  $OLD scale --from 1e3 --to 1e7 --points 13 --repeat 3 --skip-over 60 --out before$i.csv > before$i.log 2>&1
  log "scale after $i"
  $NEW scale --from 1e3 --to 1e7 --points 13 --repeat 3 --skip-over 60 --out after$i.csv --force > after$i.log 2>&1
done
log "first-n"
./firstn.sh firstn.txt $NEW
log "done"
[ -n "$PID" ] && kill -CONT $PID
