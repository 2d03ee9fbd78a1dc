#!/usr/bin/env bash
# The stop-38 measurements of results/octal/octal.md: octal-block with its far groups claimed from a
# counter and joined on the spin pool (NEW, the build of aaad81b) against the same back-end
# joined with rayon (OLD, the build of c3f0724), Officers (0.6), whole-process pairs, nothing
# else running. Both binaries are release builds copied aside so a rebuild cannot change them
# mid-run. Reports go to results/octal/octal-block-spin/.
set -euo pipefail
cd "$(dirname "$0")"
OLD=${OLD:-/tmp/ns-old}
NEW=${NEW:-/tmp/ns-new2}
pairs=../../../scripts/speed/pair-commands.sh
# 1. 10^8 on two and on one thread, single runs with the time and the peak memory.
for t in 2 1; do
  /usr/bin/time -v "$NEW" --threads $t octal 0.6 --limit 100000000 --quiet --json \
    > officers-1e8-${t}t.json 2> officers-1e8-${t}t.time
done
# 2. Before and after, 2^22 values, on two threads and on one.
for t in 2 1; do
  $pairs 3 "$OLD --threads $t octal 0.6 --limit 4194303 --quiet" "$NEW --threads $t octal 0.6 --limit 4194303 --quiet" \
    > before-vs-after-${t}t-2e22.txt
done
# 3. One thread against two, the new build.
for n in 1000000 10000000; do
  $pairs 3 "$NEW --threads 1 octal 0.6 --limit $n --quiet" "$NEW --threads 2 octal 0.6 --limit $n --quiet" \
    > block-1t-vs-2t-$n.txt
done
