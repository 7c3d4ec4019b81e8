#!/usr/bin/env bash
# up.sh: install and start a Slurm cluster on loopback (this host is both
# controller and compute node), for the Slurm executor of lib/experiment
# and its test. One node by default; TAILSCOPE_SLURM_NODES=N defines N
# nodes on this host, one slurmd each (Debian's Slurm allows several per
# host), that share its CPUs and memory: a small cluster whose tasks go to
# separate worker daemons. Idempotent: it installs what is missing,
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
nodes=${TAILSCOPE_SLURM_NODES:-1}
if ! [[ "$nodes" =~ ^[1-9][0-9]*$ ]]; then
  echo "slurm/up.sh: TAILSCOPE_SLURM_NODES=$nodes: want a node count >= 1" >&2
  exit 1
fi
# The node lines: this host as it is, or N nodes named <host>-1..N, each
# with its own slurmd port (6818 + i) and its share of the CPUs and memory.
names=$node
node_lines="NodeName=$node NodeAddr=127.0.0.1 $hw State=UNKNOWN"
slurmd_files="SlurmdSpoolDir=/var/spool/slurmd
SlurmdPidFile=/run/slurmd.pid
SlurmdLogFile=/var/log/slurm/slurmd.log"
if [ "$nodes" -gt 1 ]; then
  cpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$hw")
  names="" node_lines=""
  for i in $(seq "$nodes"); do
    names="$names${names:+,}$node-$i"
    node_lines="$node_lines${node_lines:+
}NodeName=$node-$i NodeHostname=$node NodeAddr=127.0.0.1 Port=$((6818 + i)) CPUs=$(( cpus / nodes > 0 ? cpus / nodes : 1 )) RealMemory=$((mem * 9 / 10 / nodes)) State=UNKNOWN"
  done
  slurmd_files="SlurmdSpoolDir=/var/spool/slurmd-%n
SlurmdPidFile=/run/slurmd-%n.pid
SlurmdLogFile=/var/log/slurm/slurmd-%n.log"
fi

conf=$(cat <<CONF
# Written by scripts/slurm/up.sh: $nodes node(s) on loopback.
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
SlurmctldPidFile=/run/slurmctld.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
$slurmd_files
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
$node_lines
PartitionName=main Nodes=$names Default=YES MaxTime=INFINITE State=UP
CONF
)
install -d -m 0755 /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
for n in ${names//,/ }; do
  [ "$nodes" -gt 1 ] && install -d -m 0755 "/var/spool/slurmd-$n"
done
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
  # Every slurmd of an earlier configuration, one node or several.
  for pid in /run/slurmd.pid /run/slurmd-*.pid; do
    [ -e "$pid" ] && stop "$pid"
  done
  stop /run/slurmctld.pid
fi
running /run/slurmctld.pid || slurmctld
if [ "$nodes" -gt 1 ]; then
  for n in ${names//,/ }; do
    running "/run/slurmd-$n.pid" || slurmd -N "$n"
  done
else
  running /run/slurmd.pid || slurmd
fi

# Wait until every node takes jobs; a node left down or drained by an
# earlier run is resumed.
for n in ${names//,/ }; do
  for i in $(seq 60); do
    state=$(sinfo --noheader --nodes="$n" --format=%T 2>/dev/null || true)
    case "$state" in
      idle*|mixed*|allocated*|completing*) echo "slurm/up.sh: node $n is $state"; continue 2 ;;
      down*|drain*) scontrol update NodeName="$n" State=RESUME 2>/dev/null || true ;;
    esac
    sleep 1
  done
  echo "slurm/up.sh: node $n not ready (state '${state:-none}'); see /var/log/slurm/*.log" >&2
  exit 1
done
