#!/usr/bin/env bash
# scripts/bench.sh: the criterion bench matrix (benches/matrix.rs) -> matrix.csv, matrix.json
# and matrix.log in target/bench-results/ (not the tracked results/ unless told).
#
# Measures every table back-end at N = 10^4, 10^5, 10^6, every count back-end on the 10^5
# and 10^6 tables, and every table x count pair end to end at 10^5, after an agreement gate
# that refuses to time back-ends that disagree. At the end the bench itself reads back this
# run's estimates (target/criterion/<group>/<id>/<N>/new/estimates.json), prints a summary of
# each back-end's ratio to the fastest of its group and N, and writes one row per benchmark:
#   group,backend,n,median_ns,median_lo_ns,median_hi_ns,confidence_level,elements,
#   steps_per_second,ratio_to,ratio,ratio_lo,ratio_hi
# (matrix.json: the same rows, and what the ratio interval is; MEASURING.md).
#
# MEASURING.md gives the duration of a full run; the log records each run.
# NIMSQUARE_RESULTS=DIR writes into DIR instead (NIMSQUARE_RESULTS=results/scaling for the
# tracked folder, on a quiet machine). NIMSQUARE_RATIO_TO=NAME takes the ratios to back-end NAME.
# NIMSQUARE_QUICK=1: N = 10^3 and 10^4 only, short measurement, output to target/quick-results/.
# Extra arguments go to criterion (a filter like table/, --save-baseline NAME, ...); compare
# two runs with scripts/bench-check.sh OLD/matrix.csv NEW/matrix.csv.
# Leaves criterion's HTML report in target/criterion/report/index.html.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

quick="$(quick_mode)"
# Not results_dir's default: a run on a busy machine must not overwrite the tracked figures.
if [[ -n "$quick" ]]; then out_dir="${NIMSQUARE_RESULTS:-target/quick-results}"
else out_dir="${NIMSQUARE_RESULTS:-target/bench-results}"; fi
mkdir -p "$out_dir"
log="$out_dir/matrix.log"

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
  echo "# command: NIMSQUARE_QUICK=$quick NIMSQUARE_RATIO_TO=${NIMSQUARE_RATIO_TO:-} cargo bench --bench matrix -- ${extra[*]} $*"
  provenance
} > "$log"
NIMSQUARE_QUICK="$quick" NIMSQUARE_MATRIX_OUT="$out_dir" \
  cargo bench --bench matrix -- "${extra[@]}" "$@" 2>&1 | tee -a "$log"
t1=$(date +%s)
[[ -s "$out_dir/matrix.csv" ]] && [[ "$out_dir/matrix.csv" -nt "$stamp" ]] \
  || { echo "error: the bench wrote no $out_dir/matrix.csv (did it measure anything? --test and --list do not)" >&2; exit 1; }
echo "matrix: started $started, wall $((t1 - t0)) s"
echo "wrote $out_dir/matrix.csv"
echo "wrote $out_dir/matrix.json"
echo "wrote $log"
