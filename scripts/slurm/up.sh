#!/usr/bin/env bash
# up.sh: install and start a single-node Slurm cluster on loopback (this
# host is both controller and compute node), for the Slurm executor of
# lib/experiment and its test. Idempotent: it installs what is missing,
# rewrites slurm.conf only when it changes, starts only daemons that are not
# running, and returns once the node accepts jobs.
#
# Works as root without systemd (containers, sandboxes): the daemons are
# started directly. No cgroups: processes are tracked by /proc and jobs are
# not confined.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"$here/../ensure-debs.sh" slurmctld slurmd slurm-client munge

if [ "$(id -u)" -ne 0 ]; then
  echo "slurm/up.sh: must run as root (it writes /etc/slurm and starts daemons)" >&2
  exit 1
fi

# munge authenticates Slurm's messages; it runs as its own user and its key
# comes with the Debian package.
install -d -o munge -g munge -m 0755 /run/munge
install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom of=/etc/munge/munge.key bs=128 count=1 status=none
  chown munge:munge /etc/munge/munge.key && chmod 0400 /etc/munge/munge.key
fi
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
  munge -n | unmunge >/dev/null || { echo "slurm/up.sh: munged did not start" >&2; exit 1; }
fi

# The node line (CPUs, sockets, memory) as slurmd detects it; memory a
# little below the detected total so that a slightly smaller reading later
# does not drain the node.
node=$(hostname -s)
hw=$(slurmd -C | head -1 | sed -e "s/^NodeName=[^ ]* //")
mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$hw")
hw=$(sed -e "s/RealMemory=[0-9]*/RealMemory=$((mem * 9 / 10))/" <<<"$hw")

conf=$(cat <<CONF
# Written by scripts/slurm/up.sh: one node on loopback.
ClusterName=tailscope
SlurmctldHost=$node(127.0.0.1)
# Listen on the node's address (127.0.0.1) only, not on every interface:
# NoCtldInAddrAny for slurmctld (6817), NoInAddrAny for slurmd (6818) and
# the ports srun and slurmstepd open.
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# Start pending array elements as soon as CPUs free up (the default
# batch_sched_delay of 3 s dominates short tasks).
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
MpiDefault=none
NodeName=$node NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=main Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
)
install -d -m 0755 /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
changed=0
if [ "$(cat /etc/slurm/slurm.conf 2>/dev/null)" != "$conf" ]; then
  printf '%s\n' "$conf" > /etc/slurm/slurm.conf
  changed=1
fi

running() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
# A changed slurm.conf restarts the daemons: "scontrol reconfigure" does not
# rebind their listening sockets (the loopback-only setting above). Jobs in
# flight survive: slurmctld keeps its state in StateSaveLocation and job
# steps are run by slurmstepd, not slurmd.
stop() {
  running "$1" || return 0
  kill "$(cat "$1")"
  for _ in $(seq 100); do running "$1" || return 0; sleep 0.1; done
  echo "slurm/up.sh: daemon of $1 did not stop" >&2
  exit 1
}
if [ $changed -eq 1 ]; then
  stop /run/slurmd.pid
  stop /run/slurmctld.pid
fi
running /run/slurmctld.pid || slurmctld
running /run/slurmd.pid || slurmd

# Wait until the node takes jobs; a node left down or drained by an earlier
# run is resumed.
for i in $(seq 60); do
  state=$(sinfo --noheader --nodes="$node" --format=%T 2>/dev/null || true)
  case "$state" in
    idle*|mixed*|allocated*|completing*) echo "slurm/up.sh: node $node is $state"; exit 0 ;;
    down*|drain*) scontrol update NodeName="$node" State=RESUME 2>/dev/null || true ;;
  esac
  sleep 1
done
echo "slurm/up.sh: node $node not ready (state '${state:-none}'); see /var/log/slurm/*.log" >&2
exit 1
