# scripts/lib.sh: shared by the scripts in this folder (source it, do not run it).

# provenance: one line saying when, where and from what a result was made, for the top of
# every log: date (UTC), CPU model, cores, rustc version and git revision.
provenance() {
  local cpu
  cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //')
  echo "# date: $(date -u +%FT%TZ)  cpu: ${cpu:-unknown}  cores: $(nproc)  rustc: $(rustc --version)  git: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
}

# quick_mode: the value of NIMSQUARE_QUICK, or nothing when it is unset or 0 (a full run).
quick_mode() {
  local q="${NIMSQUARE_QUICK:-}"
  if [[ "$q" == "0" ]]; then q=""; fi
  echo "$q"
}

# results_dir QUICK TOPIC: where a script writes: NIMSQUARE_RESULTS if set, else
# target/quick-results for a quick run (QUICK not empty), else results/TOPIC (the topic folder
# of results/README.md).
results_dir() {
  if [[ -n "$1" ]]; then echo "${NIMSQUARE_RESULTS:-target/quick-results}"
  else echo "${NIMSQUARE_RESULTS:-results/$2}"; fi
}

# Wall seconds of one run of a command, its output thrown away (the speed scripts' pairs).
time_one() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}

# The median and the range (lo-hi, three decimals) of the numbers given.
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
range() { printf '%s\n' "$@" | sort -g | awk 'NR==1{lo=$1} {hi=$1} END {printf "%.3f-%.3f", lo, hi}'; }
