#!/usr/bin/env bash
# Issue 28 item 7: Officers and 0.137 on 1 and 2 threads, in alternating pairs (nimsquare compare --octal).
set -u
B=${B:?the nimsquare binary to time}
cd "$(dirname "$0")"
echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) rev $(git rev-parse --short HEAD)"
cmp() { # name pairs args...
  local name=$1 pairs=$2; shift 2
  $B --threads 2 compare "$@" --pairs $pairs --quiet --json > $name.json 2> $name.err
  echo "$name rc=$? $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
}
cmp off-1e5-sp-spp 9 octal-sparse octal-sparse-parallel --octal 0.6 --limit 1e5
cmp off-1e5-vec-sp 9 octal-vector octal-sparse --octal 0.6 --limit 1e5
cmp off-1e6-sp-spp 5 octal-sparse octal-sparse-parallel --octal 0.6 --limit 1e6
cmp dc-1e5-vec-spp 9 octal-vector octal-sparse-parallel --octal 0.137 --limit 1e5
cmp dc-1e5-vec-vp 9 octal-vector octal-vector-parallel --octal 0.137 --limit 1e5
cmp dc-1e6-vec-vp 3 octal-vector octal-vector-parallel --octal 0.137 --limit 1e6
# the vector fill written once (src/octal/candidate_search.rs): before (d002d85) against after
# (the old binary prints no table digest, so whole processes by the project's script)
cb=../../../scripts/speed/compare-binaries.sh
$cb "${BEFORE:?the nimsquare binary built at d002d85}" $B 9 -- --threads 1 octal 0.6 --limit 100000 --backend octal-vector --quiet > vec-ba-off-1e5.txt 2>&1; echo "vec-ba-off-1e5 $(date -u +%T)"
$cb "${BEFORE:?the nimsquare binary built at d002d85}" $B 9 -- --threads 1 octal 0.137 --limit 100000 --backend octal-vector --quiet > vec-ba-dc-1e5.txt 2>&1; echo "vec-ba-dc-1e5 $(date -u +%T)"
$cb "${BEFORE:?the nimsquare binary built at d002d85}" $B 9 -- --threads 2 octal 0.137 --limit 100000 --backend octal-vector-parallel --quiet > vecpar-ba-dc-1e5.txt 2>&1; echo "vecpar-ba-dc-1e5 $(date -u +%T)"
$cb "${BEFORE:?the nimsquare binary built at d002d85}" $B 9 -- --threads 1 octal 0.6 --limit 100000 --backend octal-sparse --quiet > sp-ba-off-1e5.txt 2>&1; echo "sp-ba-off-1e5 $(date -u +%T)"
echo "end $(date -u +%FT%TZ)"
