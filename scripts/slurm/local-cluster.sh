#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for tests: munge, slurmctld and slurmd on localhost,
# no cgroups (ProctrackType=proctrack/linuxproc, TaskPlugin=task/none), SlurmUser=root.
#   scripts/slurm/local-cluster.sh up     install slurm-wlm and munge if missing (Debian; root),
#                                         start the daemons, wait until the node is idle; prints
#                                         the SLURM_CONF to export
#   scripts/slurm/local-cluster.sh down   stop them
# State, logs and slurm.conf live in $CROSSOVER_SLURM_DIR (default /tmp/crossover-slurm).
set -euo pipefail
dir=${CROSSOVER_SLURM_DIR:-/tmp/crossover-slurm}
conf=$dir/slurm.conf

down() {
  for pid_file in "$dir"/slurmd.pid "$dir"/slurmctld.pid; do
    [[ -f $pid_file ]] && kill "$(cat "$pid_file")" 2>/dev/null || true
  done
  [[ -f $dir/munged.pid ]] && kill "$(cat "$dir/munged.pid")" 2>/dev/null || true
  rm -f "$dir"/*.pid
}

up() {
  if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    echo "== installing slurm-wlm and munge" >&2
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null
  fi
  down
  mkdir -p "$dir"/{state,spool,log,munge}
  # munge: its own key and socket under $dir, so a machine's own munge is left alone.
  [[ -f $dir/munge/munge.key ]] || dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
  chmod 700 "$dir/munge"
  chmod 400 "$dir/munge/munge.key"
  munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed"
  local host cpus memory
  host=$(hostname -s)
  cpus=$(nproc)
  memory=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024))
  cat > "$conf" <<CONF
ClusterName=crossover-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=${CROSSOVER_SLURMCTLD_PORT:-16817}
SlurmdPort=${CROSSOVER_SLURMD_PORT:-16818}
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
  export SLURM_CONF=$conf
  slurmctld -f "$conf"
  slurmd -f "$conf"
  for _ in $(seq 60); do
    if sinfo -h -o %T 2>/dev/null | grep -q idle; then
      echo "SLURM_CONF=$conf"
      return 0
    fi
    sleep 1
  done
  echo "the one-node cluster did not come up; logs in $dir/log" >&2
  tail -n 20 "$dir"/log/*.log >&2 || true
  return 1
}

case ${1:-} in
  up) up ;;
  down) down ;;
  *) echo "usage: scripts/slurm/local-cluster.sh up|down" >&2; exit 2 ;;
esac
