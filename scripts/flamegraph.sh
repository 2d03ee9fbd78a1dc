#!/usr/bin/env bash
# scripts/flamegraph.sh: one pprof flamegraph per table back-end -> results/table/flamegraphs/.
#
# For every table back-end in `nimsquare list`, samples solves at N = 10^6 (that table, the
# default count back-end) at 997 Hz with `nimsquare profile`, repeated until 1000 samples are
# taken, and writes results/table/flamegraphs/<backend>.svg; the samples taken are in
# results/table/flamegraphs/profile.log.
# NIMSQUARE_QUICK=1: N = 3*10^5 and 200 samples, output to target/quick-results/flamegraphs/.
# NIMSQUARE_RESULTS=DIR overrides the parent folder of flamegraphs/.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

quick="$(quick_mode)"
out_dir="$(results_dir "$quick" table)/flamegraphs"
if [[ -n "$quick" ]]; then limit=300000; samples=200; else limit=1e6; samples=1000; fi
mkdir -p "$out_dir"

cargo build --release
bin=target/release/nimsquare
log="$out_dir/profile.log"
provenance > "$log"
# The table back-ends: the indented lines between the two headings of `nimsquare list`.
backends=$("$bin" list | awk '/^table back-ends/{t=1; next} /^count back-ends/{t=0} t && /^  /{print $1}')
# A back-end too fast to be sampled gets no graph (profile says so and exits 2); the others
# still run, and the script fails at the end.
failed=()
for b in $backends; do
  if ! "$bin" profile --limit "$limit" --samples "$samples" --table "$b" --out "$out_dir/$b.svg" | tee -a "$log"; then
    echo "# $b: no flamegraph (see the error above)" | tee -a "$log"
    failed+=("$b")
  fi
done
echo "wrote $log"
if (( ${#failed[@]} )); then
  echo "error: no flamegraph for: ${failed[*]}" >&2
  exit 1
fi
