#!/usr/bin/env bash
# scripts/scale.sh: the standard scaling study -> results/scaling/scaling.csv, scaling.svg, scaling.log.
#
# Times every table back-end on 13 values of N from 10^3 to 10^7 (3 per decade), 3 repeats
# each (median kept), and fits the exponent of log(seconds) on log(N) over N >= 10^4 (the
# `fit ...` lines at the end of the log). A back-end whose next point is predicted to take
# over 120 s for one run is skipped from there on; each skip is a `skip ...` line in the log.
# All back-ends at one N are measured back to back, so their ratios share the machine's state.
#
# MEASURING.md says how long it takes; results/scaling/scaling.log records the runs.
# NIMSQUARE_QUICK=1: 10^3..10^5, 5 points, 1 repeat, output to target/quick-results/.
# NIMSQUARE_RESULTS=DIR overrides the output folder; NIMSQUARE_RESUME=1 continues an
# interrupted study (keeps the rows already in the CSV). Extra arguments go to `nimsquare scale`
# (e.g. --threads 1).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

quick="$(quick_mode)"
out_dir="$(results_dir "$quick" scaling)"
if [[ -n "$quick" ]]; then
  grid=(--from 1e3 --to 1e5 --points 5 --repeat 1 --skip-over 120)
else
  grid=(--from 1e3 --to 1e7 --points 13 --repeat 3 --skip-over 120)
fi
# A new study replaces the previous one in $out_dir (--force: scale refuses to overwrite a CSV
# otherwise); NIMSQUARE_RESUME=1 continues it instead (refused if the settings differ).
resume=(--force)
[[ -n "${NIMSQUARE_RESUME:-}" && "${NIMSQUARE_RESUME}" != "0" ]] && resume=(--resume)
mkdir -p "$out_dir"

cargo build --release
bin=target/release/nimsquare
log="$out_dir/scaling.log"
{
  echo "# command: $bin scale ${grid[*]} ${resume[*]} $* --out $out_dir/scaling.csv --plot $out_dir/scaling.svg"
  provenance
} > "$log"
"$bin" scale "${grid[@]}" "${resume[@]}" "$@" \
  --out "$out_dir/scaling.csv" --plot "$out_dir/scaling.svg" | tee -a "$log"
echo "wrote $out_dir/scaling.csv"
echo "wrote $out_dir/scaling.svg"
echo "wrote $log"
