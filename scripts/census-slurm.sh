#!/usr/bin/env bash
# scripts/census-slurm.sh: the octal census on a Slurm cluster, either of the two ways
# `nimsquare census --help` describes. Submit it from the repository's folder with sbatch
# (Slurm starts a batch script in the folder it was submitted from):
#
#   Job array: K independent jobs, shard I of K each; the default build, no MPI needed.
#     sbatch --array=0-7 --cpus-per-task=32 scripts/census-slurm.sh
#     target/release/nimsquare census merge census-part-*.csv --out census.csv   # at the end
#   MPI: one job; rank 0 hands the codes out, one rank per node builds them on all its
#   cores (built with `cargo build --release --features mpi`).
#     sbatch --nodes=4 --ntasks-per-node=1 --cpus-per-task=32 scripts/census-slurm.sh
#
# Settings, from the environment (sbatch passes it on): CENSUS_ARGS, the census's flags
# (default "--digits 4 --limit 1e5"); CENSUS_OUT, the rows files' stem (default census);
# NIMSQUARE, the binary (default target/release/nimsquare); MPI_LAUNCHER, the command that
# starts the ranks (default srun).
#
# Every row is synced to its file the moment it is built, and every run passes --resume: a
# job that crashed, hit its time limit or was preempted is finished by submitting the same
# command again (the codes already in the file are skipped), under MPI or not.
#SBATCH --job-name=nimsquare-census
set -euo pipefail

nimsquare="${NIMSQUARE:-target/release/nimsquare}"
read -r -a census <<<"${CENSUS_ARGS:---digits 4 --limit 1e5}"
out="${CENSUS_OUT:-census}"
# The rows' threads: as many as Slurm gave each task (the default, every core of the node,
# would crowd the other jobs of a shared node).
threads=()
if [[ -n "${SLURM_CPUS_PER_TASK:-}" ]]; then
  threads=(--threads "$SLURM_CPUS_PER_TASK")
fi

if [[ -n "${SLURM_ARRAY_TASK_ID:-}" ]]; then
  # Job array: K is the array's size, so the array must be numbered 0 to K-1 (a shard I >= K
  # is refused). Every task computes the same partition of the codes, balanced by their
  # estimated cost; `census merge` refuses the shards' files until none is missing or short.
  k="$SLURM_ARRAY_TASK_COUNT"
  exec "$nimsquare" "${threads[@]}" census "${census[@]}" \
    --shard "$SLURM_ARRAY_TASK_ID/$k" --out "$out-part-$SLURM_ARRAY_TASK_ID.csv" --resume
else
  # MPI: the launcher starts one rank per task. Rank 0 writes $out.csv and mostly sleeps;
  # each other rank builds as many codes at once as it has threads. `srun` needs a Slurm
  # that can start this MPI (e.g. `srun --mpi=pmix` for Open MPI with PMIx; `srun
  # --mpi=list` shows what it has); where it cannot, MPI_LAUNCHER="mpirun --bind-to none"
  # starts them with Open MPI's own launcher, which reads the job's nodes from Slurm (without
  # --bind-to none it binds each rank to one socket, leaving the others idle). A rank that dies
  # ends the job; resubmitting finishes it. To give the first node a worker beside rank 0,
  # ask for one task more than nodes with --overcommit and --distribution=cyclic.
  read -r -a launcher <<<"${MPI_LAUNCHER:-srun}"
  exec "${launcher[@]}" "$nimsquare" "${threads[@]}" census "${census[@]}" \
    --out "$out.csv" --resume
fi
