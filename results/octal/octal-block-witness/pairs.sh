#!/usr/bin/env bash
# The stop-39 measurements of results/octal/octal.md: octal-block with witness lists for the rare
# values and Grundy's game on the lanes (NEW) against stop 38's final build (OLD, 52928b6),
# whole-process pairs, nothing else running. Both binaries are release builds copied aside so
# a rebuild cannot change them mid-run. Reports go to results/octal/octal-block-witness/.
set -euo pipefail
cd "$(dirname "$0")"
OLD=${OLD:-/tmp/ns-base}
NEW=${NEW:-/tmp/ns-new}
pairs=../../../scripts/speed/pair-commands.sh
# 1. Before and after, 2^22 values, Officers and Grundy's game, on one thread and on two.
for code in 0.6 grundy; do
  for t in 1 2; do
    $pairs 3 "$OLD --threads $t octal $code --limit 4194303 --quiet" "$NEW --threads $t octal $code --limit 4194303 --quiet" \
      > before-vs-after-$code-${t}t-2e22.txt
  done
done
# 2. Officers to 10^8 on two threads: one pair, then one run with the time and the peak memory.
$pairs 1 "$OLD --threads 2 octal 0.6 --limit 100000000 --quiet" "$NEW --threads 2 octal 0.6 --limit 100000000 --quiet" \
  > before-vs-after-0.6-2t-1e8.txt
/usr/bin/time -v "$NEW" --threads 2 octal 0.6 --limit 100000000 --quiet --json \
  > officers-1e8-2t.json 2> officers-1e8-2t.time
