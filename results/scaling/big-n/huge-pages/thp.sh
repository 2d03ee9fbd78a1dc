#!/usr/bin/env bash
# Does MADV_HUGEPAGE on the table help at 10^8? stamped-parallel, 2 threads, alternating.
set -uo pipefail
cd /work/runs/thp
BIN=/tmp/sp/ns-thp
log() { echo "$(date -u +%H:%M:%S) $*" | tee -a times.log; }
log "start; load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2; do
  log "plain $i"
  $BIN scale --table stamped-parallel --from 1e7 --to 1e8 --points 2 --repeat 1 --out plain$i.csv --force > plain$i.log 2>&1
  log "thp $i"
  THP=1 $BIN scale --table stamped-parallel --from 1e7 --to 1e8 --points 2 --repeat 1 --out thp$i.csv --force > thp$i.log 2>&1
done
log done
