#!/usr/bin/env bash
# A grid over a Slurm cluster: N shards as a job array, then the merge and reports once they have
# all ended (afterany). Run from the project's folder on a file system every node sees:
#   scripts/slurm/submit.sh GRID N RUNS [SBATCH-OPTIONS...]
# The two commands it types:
#   sbatch --parsable --array=0-$((N-1)) scripts/slurm/sweep.sbatch GRID RUNS
#   sbatch --dependency=afterany:<that job> scripts/slurm/merge.sbatch RUNS
# Prints the two job ids; RUNS/merged holds the run and its reports at the end.
set -euo pipefail
grid=${1:?usage: scripts/slurm/submit.sh GRID N RUNS [SBATCH-OPTIONS...]}
n=${2:?usage: scripts/slurm/submit.sh GRID N RUNS [SBATCH-OPTIONS...]}
runs=${3:?usage: scripts/slurm/submit.sh GRID N RUNS [SBATCH-OPTIONS...]}
shift 3
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "N must be a positive number, not $n" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
array=$(sbatch --parsable --array=0-$((n - 1)) "$@" "$here/sweep.sbatch" "$grid" "$runs")
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterany:"$array" "$@" "$here/merge.sbatch" "$runs")
echo "shards: job $array ($n tasks); merge: job ${merge%%;*}; results: $runs/merged"
