#!/usr/bin/env bash
# The octal-block measurements of results/octal/octal.md ("Stop 37"): whole-process pairs on
# Officers (0.6), nothing else running. NSQ is the release binary (`cargo build --release`,
# copied aside so a rebuild cannot change it mid-run); TCZAJKA is the public C++ solver
# (tczajka/octal-games, old/src/analyze_exec.cc built with its Makefile and given N as a
# second argument), optional. Reports go to results/octal/octal-block/.
set -euo pipefail
cd "$(dirname "$0")"
NSQ=${NSQ:-/tmp/nsq}
pairs=../../../scripts/speed/pair-commands.sh
# 1. One thread: the old default octal-sparse against octal-block (the project's compare).
for n in 1e5 1e6; do
  "$NSQ" --threads 1 compare octal-sparse octal-block --octal 0.6 --limit $n --pairs 6 --quiet --json \
    > sparse-vs-block-1t-$n.json
done
# 2. octal-block on one thread against two, and the old two-thread octal-sparse-parallel.
for n in 1000000 10000000; do
  $pairs 5 "$NSQ --threads 1 octal 0.6 --limit $n --quiet" "$NSQ --threads 2 octal 0.6 --limit $n --quiet" \
    > block-1t-vs-2t-$n.txt
done
"$NSQ" --threads 2 compare octal-sparse-parallel octal-block --octal 0.6 --limit 1e6 --pairs 6 --quiet --json \
  > sparse-parallel-vs-block-2t-1e6.json
# 3. Against the public C++ solver of the same rare/common method, one thread, 2^20 values.
if [[ -n "${TCZAJKA:-}" ]]; then
  $pairs 5 "$TCZAJKA 0.6 1048576" "$NSQ --threads 1 octal 0.6 --limit 1048575 --quiet" > tczajka-vs-block-1t-2e20.txt
  $pairs 5 "$TCZAJKA 0.6 1048576" "$NSQ --threads 2 octal 0.6 --limit 1048575 --quiet" > tczajka-vs-block-2t-2e20.txt
fi
# 4. 10^8 on one and on two threads, single runs with the time and the peak memory.
for t in 2 1; do
  /usr/bin/time -v "$NSQ" --threads $t octal 0.6 --limit 100000000 --quiet --json \
    > officers-1e8-${t}t.json 2> officers-1e8-${t}t.time
done
