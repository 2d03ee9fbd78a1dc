#!/usr/bin/env bash
# The stop-40 measurements of results/octal/octal.md (Xeon-167, 2026-12-04/05 UTC), as they were run:
# release builds copied aside, helpers' processes paused (SIGSTOP, rescanned every second).
# OLD2 = 2b3f5f1 (stop 39's build), MAIN = d778bac (the keep-the-split merge), NEW = ea63daf
# (rows as wide as the power of two above the largest value). Reports go to this folder.
set -euo pipefail
cd "$(dirname "$0")"
OLD2=${OLD2:-/tmp/ns-off32b}
MAIN=${MAIN:-/tmp/ns-main}
NEW=${NEW:-/tmp/ns-final40}
pairs=../../../scripts/speed/pair-commands.sh
export NIMSQUARE_NO_WISDOM=1
# 1. Rows half as wide: MAIN against NEW at 2^22 values on one thread and on two.
for t in 1 2; do
  $pairs 3 "$MAIN --threads $t octal 0.6 --limit 4194304 --quiet" "$NEW --threads $t octal 0.6 --limit 4194304 --quiet" \
    > width-2e22-${t}t.txt
done
# 2. The rates at 10^6 and 10^7 (three runs each, one and two threads alternating), then 10^8.
for N in 1000000 10000000; do for r in 1 2 3; do for t in 1 2; do
  "$NEW" --threads $t octal 0.6 --limit $N --quiet --json | python3 -c \
    "import json,sys; d=json.load(sys.stdin); print($N, $t, round(d['seconds'],3), int(d['values_per_second']), d['table_digest'])"
done; done; done > rates-1e6-1e7.txt
for t in 2 1; do
  /usr/bin/time -v "$NEW" --threads $t octal 0.6 --limit 100000000 --quiet --json \
    > officers-1e8-${t}t.json 2> officers-1e8-${t}t.time.txt
done
# 3. Stop 39's build against NEW in the same hour (the machine ran slower than at stop 39).
$pairs 3 "$OLD2 --threads 2 octal 0.6 --limit 10000000 --quiet" "$NEW --threads 2 octal 0.6 --limit 10000000 --quiet" \
  > pair-1e7-2t-stop39-vs-now.txt
$pairs 1 "$OLD2 --threads 2 octal 0.6 --limit 100000000 --quiet" "$NEW --threads 2 octal 0.6 --limit 100000000 --quiet" \
  > pair-1e8-2t-stop39-vs-now.txt
# Officers to 2^32 (results/octal/officers-2e32/, build MAIN, started 2026-12-04 21:57:58 UTC):
#   /usr/bin/time -v $MAIN --threads 2 octal 0.6 --limit 4294967295 --checkpoint off.ckpt \
#     --checkpoint-every 600 --histogram --json > officers-2e32.json 2> officers-2e32-progress.txt
# 4. At 2^20 (after the rest): NEW against MAIN and against OLD2, one thread and two.
for t in 1 2; do
  $pairs 3 "$MAIN --threads $t octal 0.6 --limit 1048575 --quiet" "$NEW --threads $t octal 0.6 --limit 1048575 --quiet" > width-2e20-${t}t.txt
  $pairs 3 "$OLD2 --threads $t octal 0.6 --limit 1048575 --quiet" "$NEW --threads $t octal 0.6 --limit 1048575 --quiet" > stop39-vs-now-2e20-${t}t.txt
done
