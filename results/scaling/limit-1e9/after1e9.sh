#!/usr/bin/env bash
# Checks of the finished L(10^9) table. Run from /work/runs.
set -uo pipefail
cd /work/runs
NEW=/work/runs/quiet3/nimsquare-new
log() { echo "$(date -u +%H:%M:%S) $*" | tee -a after1e9.log; }
log "verify --cold-only"
/usr/bin/time -v $NEW verify --load-table g1e9.ckpt --cold-only --json > verify-cold.json 2> verify-cold.err
log "rc=$? ; count with rayon-sweep"
/usr/bin/time -v $NEW solve --limit 1e9 --load-table g1e9.ckpt --count rayon-sweep --json --quiet > count-sweep.json 2> count-sweep.err
log "rc=$? ; count with auto"
/usr/bin/time -v $NEW solve --limit 1e9 --load-table g1e9.ckpt --json --quiet > count-auto.json 2> count-auto.err
log "rc=$? ; prefix against the verified 10^8 table"
cmp -n $((2*100000001)) -i 4096:4096 g1e9.ckpt /tmp/g1e8.tbl && log "prefix equal" || log "prefix DIFFERS"
log "done"
