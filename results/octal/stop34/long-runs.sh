#!/usr/bin/env bash
# Officers at 10^7: two-thread sparse against one-thread sparse, 2 pairs (after the mask fix).
set -u
B=${B:?the nimsquare binary to time}
cd "$(dirname "$0")"
echo "start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
$B --threads 2 compare octal-sparse octal-sparse-parallel --octal 0.6 --limit 1e7 --pairs 2 --warmup 0 --quiet --json > off-1e7-sp-spp.json 2> off-1e7-sp-spp.err
echo "off-1e7 rc=$? $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
# Published periods found again (Gangolli and Plambeck's .56 and .127; OEIS A071436, A071464)
for c in "0.165 14000" "0.356 15000" "4.364 24000" "0.127 100000" "0.56 660000" "0.16 520000" "0.376 4600000"; do
  set -- $c
  timeout 900 /usr/bin/time -v $B --threads 1 octal $1 --limit $2 --backend octal-sparse --quiet --json > proof-$1.json 2> proof-$1.time
  echo "proof $1 rc=$? $(date -u +%T)"
done
# Officers to 10^8 on two threads, with a checkpoint so an interruption keeps the work
/usr/bin/time -v $B --threads 2 octal 0.6 --limit 100000000 --backend octal-sparse-parallel --checkpoint off-1e8.ckpt --quiet --json > off-1e8-2t.json 2> off-1e8-2t.time
echo "off-1e8 rc=$? $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
echo "end $(date -u +%FT%TZ)"
