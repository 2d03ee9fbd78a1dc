#!/usr/bin/env bash
# scripts/bench.sh: the criterion bench matrix (benches/matrix.rs) -> results/matrix.csv.
#
# Measures every table back-end at N = 10^4, 10^5, 10^6, every count back-end on the 10^5
# and 10^6 tables, and every table x count pair end to end at 10^5, after an agreement gate
# that refuses to time back-ends that disagree. Collects criterion's point estimates
# (target/criterion/<group>/<id>/<N>/new/estimates.json) of this run into one CSV:
#   group,backend,n,median_ns,steps_per_second
# steps_per_second is S(N) option steps per second (table and solve groups; empty for count).
#
# MEASURING.md gives the duration of a full run; the log records each run.
# NIMSQUARE_QUICK=1: N = 10^3 and 10^4 only, short measurement, output to target/quick-results/.
# Leaves criterion's HTML report in target/criterion/report/index.html.
# NIMSQUARE_RESULTS=DIR overrides the output folder; extra arguments go to criterion (e.g. a
# filter like table/). Needs python3 to read criterion's JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

quick="$(quick_mode)"
out_dir="$(results_dir "$quick")"
mkdir -p "$out_dir"
csv="$out_dir/matrix.csv"
log="$out_dir/matrix.log"
command -v python3 >/dev/null || { echo "error: bench.sh needs python3 to read criterion's JSON" >&2; exit 2; }

cargo build --release --benches
stamp="$(mktemp)"
trap 'rm -f "$stamp"' EXIT
started="$(date -u +%FT%TZ)"
t0=$(date +%s)
extra=()
# Quick: no per-benchmark HTML plots and fewer bootstrap resamples (criterion's analysis
# dominates when each benchmark is measured for a fraction of a second).
[[ -n "$quick" ]] && extra=(--noplot --nresamples 5000)
{
  echo "# command: NIMSQUARE_QUICK=$quick cargo bench --bench matrix -- ${extra[*]} $*"
  provenance
} > "$log"
NIMSQUARE_QUICK="$quick" cargo bench --bench matrix -- "${extra[@]}" "$@" 2>&1 | tee -a "$log"
t1=$(date +%s)

python3 - "$stamp" "$csv" <<'PY'
import json, os, sys
stamp, out = sys.argv[1], sys.argv[2]
since = os.path.getmtime(stamp)
rows = []
for group in ("table", "count", "solve"):
    base = os.path.join("target", "criterion", group)
    for root, dirs, files in os.walk(base):
        if os.path.basename(root) != "new" or "estimates.json" not in files:
            continue
        est = os.path.join(root, "estimates.json")
        if os.path.getmtime(est) < since:
            continue  # left over from an earlier run
        with open(est) as f:
            median_ns = json.load(f)["median"]["point_estimate"]
        with open(os.path.join(root, "benchmark.json")) as f:
            meta = json.load(f)
        n = int(meta["value_str"])
        tp = meta.get("throughput") or {}
        elements = tp.get("Elements")
        sps = "" if elements is None else "%.6g" % (elements / (median_ns * 1e-9))
        rows.append((group, meta["function_id"], n, median_ns, sps))
order = {"table": 0, "count": 1, "solve": 2}
rows.sort(key=lambda r: (order[r[0]], r[2], r[1]))
with open(out, "w") as f:
    f.write("group,backend,n,median_ns,steps_per_second\n")
    for g, b, n, ns, sps in rows:
        f.write("%s,%s,%d,%.1f,%s\n" % (g, b, n, ns, sps))
print("collected %d benchmarks" % len(rows))
if not rows:
    sys.exit("error: no criterion estimates from this run (did the bench run?)")
PY
echo "matrix: started $started, wall $((t1 - t0)) s"
echo "wrote $csv"
echo "wrote $log"
