#!/bin/bash
# usage: DIGITS=3 LIMIT=1e4 ROUNDS=3 results/census/processes.sh
# rotates 1, 2, 3 processes of the same census, ROUNDS times; prints P and wall seconds
bin=${NIMSQUARE:-target/release/nimsquare}  # built with --features mpi
args="census --digits ${DIGITS:-3} --limit ${LIMIT:-1e4} --csv --quiet"
run() {
  local p=$1 s e
  s=$(date +%s.%N)
  if [ "$p" = 1 ]; then NIMSQUARE_NO_WISDOM=1 $bin $args > /tmp/procs-out-$p.csv
  else NIMSQUARE_NO_WISDOM=1 mpirun --allow-run-as-root --oversubscribe --bind-to none -x NIMSQUARE_NO_WISDOM -n $p $bin $args > /tmp/procs-out-$p.csv; fi
  e=$(date +%s.%N)
  echo "P=$p wall_s=$(echo "$e - $s" | bc -l | cut -c1-7)"
}
for r in $(seq 1 ${ROUNDS:-3}); do
  case $((r % 3)) in
    1) order="1 2 3";; 2) order="2 3 1";; 0) order="3 1 2";;
  esac
  for p in $order; do run $p; done
done
