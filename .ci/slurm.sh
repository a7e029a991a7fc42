#!/usr/bin/env bash
# A one-host Slurm on loopback for the farm tests (crates/kiln-cli/tests/farm.rs), from
# Debian's slurmctld, slurmd and munge: `.ci/slurm.sh start DIR` installs what is missing,
# starts munged, slurmctld and slurmd with their state under DIR and waits for the node to
# be idle, printing the SLURM_CONF to export; `.ci/slurm.sh stop DIR` stops them by the
# pids they wrote. Exits non-zero (and starts nothing) where it cannot.
set -euo pipefail
action="$1"
dir="$(mkdir -p "$2" && cd "$2" && pwd)"
conf="$dir/slurm.conf"
case "$action" in
start)
  if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        slurmctld slurmd slurm-client munge; } >/dev/null 2>&1 || exit 1
  fi
  mkdir -p "$dir/state" "$dir/spool" /run/munge
  chown munge:munge /run/munge 2>/dev/null || true
  # munge needs a key; Debian's package makes one, make one if it did not.
  if [ ! -s /etc/munge/munge.key ]; then
    mkdir -p /etc/munge
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
    chown munge:munge /etc/munge/munge.key 2>/dev/null || true
    chmod 400 /etc/munge/munge.key
  fi
  su -s /bin/sh munge -c "/usr/sbin/munged --force --pid-file=/run/munge/munged.pid" \
    || /usr/sbin/munged --force
  cat > "$conf" <<CONF
ClusterName=kilnci
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=sched_min_interval=1000,batch_sched_delay=0,default_queue_depth=1000
MinJobAge=5
JobCompType=jobcomp/none
SlurmctldDebug=error
SlurmdDebug=error
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ReturnToService=2
SlurmdParameters=config_overrides
MaxArraySize=100001
MaxJobCount=200000
NodeName=localhost NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=3 RealMemory=2000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
  SLURM_CONF="$conf" slurmctld -i
  SLURM_CONF="$conf" slurmd
  for _ in $(seq 1 60); do
    if [ "$(SLURM_CONF="$conf" sinfo -h -o %T 2>/dev/null | head -1)" = "idle" ]; then
      echo "$conf"
      exit 0
    fi
    sleep 0.5
  done
  echo "slurm did not come up" >&2
  exit 1
  ;;
stop)
  for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" /run/munge/munged.pid; do
    if [ -s "$f" ]; then kill "$(cat "$f")" 2>/dev/null || true; fi
  done
  ;;
esac
