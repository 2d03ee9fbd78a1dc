#!/bin/bash
# firstn.sh OUT NEWBIN [backends] : each (backend, N) as the first point of its own study, alternating old/new, 5 processes each
OUT=$1; NEW=$2; BS=${3:-stamped bitset stamped-lanes stamped-parallel value-bounded}; OLD=/work/baseline/nimsquare-0c16a74
cd /work/runs/quiet3; rm -rf fn; mkdir fn

echo "backend n old_median_s new_median_s ratio old_runs new_runs" > $OUT
for b in $BS; do
 for n in 1000 2154 4642 10000 21544 46416 100000; do
  o=(); w=()
  for i in 1 2 3 4 5; do
   $OLD scale --table $b --from $n --to $((n+1)) --points 2 --repeat 9 --out fn/o-$b-$n-$i.csv >/dev/null 2>&1
   $NEW scale --table $b --from $n --to $((n+1)) --points 2 --repeat 9 --out fn/n-$b-$n-$i.csv --force >/dev/null 2>&1
   o+=($(sed -n 2p fn/o-$b-$n-$i.csv | cut -d, -f3)); w+=($(sed -n 2p fn/n-$b-$n-$i.csv | cut -d, -f3))
  done
  python3 -c "
import statistics as s,sys
o=[float(x) for x in '${o[*]}'.split()]; w=[float(x) for x in '${w[*]}'.split()]
print('$b', $n, '%.7f'%s.median(o), '%.7f'%s.median(w), '%.3f'%(s.median(w)/s.median(o)), ','.join('%.7f'%x for x in o), ','.join('%.7f'%x for x in w))" >> $OUT
 done
done

