#!/usr/bin/env bash
# Targets 1 and 2 with huge-page tables: the same command as big-n.md's, the new binary.
set -uo pipefail
cd /work/runs/thp
log() { echo "$(date -u +%H:%M:%S) $*" | tee -a times.log; }
log "t12 start; load $(cut -d' ' -f1-3 /proc/loadavg)"
./ns-huge scale --table stamped-lanes,stamped-parallel --from 1e7 --to 1e8 --points 2 --repeat 1 --out big-huge.csv --force > big-huge.log 2>&1
log "t12 done"
