#!/usr/bin/env bash
# Times back-ends with `nimsquare solve --json` (the table's and count's own timers, so process
# start-up is excluded), interleaving back-ends and thread counts repeat by repeat so that a
# burst of load on a shared machine hits all of them alike, and prints one CSV row per
# (stage, back-end, N, threads) with the median and min of the repeats.
# Usage: time-backends.sh STAGE "N1 N2 ..." "T1 T2 ..." REPEATS NAME...
#   STAGE is table (count fixed to burnside) or count (table fixed to stamped-lanes).
# Takes roughly REPEATS x the sum of the runs. The provenance line (scripts/lib.sh) goes to
# stderr, so stdout stays a plain CSV.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
provenance >&2
cargo build --release --quiet
bin=target/release/nimsquare
stage=$1; sizes=$2; threads=$3; repeats=$4; shift 4
tmp=$(mktemp)
for r in $(seq "$repeats"); do
  for n in $sizes; do
    for t in $threads; do
      for name in "$@"; do
        if [ "$stage" = table ]; then args=(--table "$name" --count burnside)
        else args=(--table stamped-lanes --count "$name"); fi
        echo "$name $n $t $($bin --threads "$t" solve --limit "$n" "${args[@]}" --json)" >> "$tmp"
      done
    done
  done
done
python3 - "$stage" "$tmp" <<'PY'
import json, statistics, sys
stage, path = sys.argv[1], sys.argv[2]
rows = {}
for line in open(path):
    name, n, t, js = line.split(" ", 3)
    d = json.loads(js)
    rows.setdefault((name, int(n), int(t)), []).append(d)
print("stage,backend,n,threads,repeats,seconds_median,seconds_min,ns_per_step,answer,max_value")
for (name, n, t), ds in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0])):
    key = "table_seconds" if stage == "table" else "count_seconds"
    xs = [d[key] for d in ds]
    med = statistics.median(xs)
    steps = int(ds[0]["option_steps"])
    answers = {d["answer"] for d in ds}
    assert len(answers) == 1, (name, n, answers)
    print(f"{stage},{name},{n},{t},{len(xs)},{med:.6g},{min(xs):.6g},"
          f"{med * 1e9 / max(steps, 1):.4f},{ds[0]['answer']},{ds[0]['max_value']}")
PY
rm -f "$tmp"
