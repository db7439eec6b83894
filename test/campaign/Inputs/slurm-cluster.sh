#!/bin/bash
# Runs COMMAND... with a one-node Slurm cluster of its own (munged,
# slurmctld, slurmd from Debian's slurm-wlm packages) in DIR: private
# ports, socket, key and state; SLURM_CONF set for the command. Every
# daemon it started is stopped by its process id on the way out.
#   slurm-cluster.sh DIR COMMAND...
set -u
D=$1; shift
mkdir -p "$D/state" "$D/spool"
cleanup() {
  for p in slurmd slurmctld munged; do
    [ -s "$D/$p.pid" ] && kill "$(cat "$D/$p.pid")" 2>/dev/null
  done
}
trap cleanup EXIT
head -c 1024 /dev/urandom > "$D/munge.key" && chmod 400 "$D/munge.key"
munged --force --socket="$D/munge.sock" --key-file="$D/munge.key" \
  --pid-file="$D/munged.pid" --log-file="$D/munged.log" \
  --seed-file="$D/munge.seed" || { echo "munged did not start"; exit 1; }
read -r P1 P2 < <(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
H=$(hostname -s)
cat > "$D/slurm.conf" <<CONF
ClusterName=incant-test
SlurmctldHost=$H
AuthType=auth/munge
AuthInfo=socket=$D/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$P1
SlurmdPort=$P2
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$H CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$D/slurm.conf
slurmctld -f "$SLURM_CONF" && slurmd -f "$SLURM_CONF" ||
  { echo "slurm did not start"; exit 1; }
# Every Slurm command under a deadline: a controller that does not answer
# makes a client retry for minutes, and CI must not wait for it.
idle() { timeout 5 sinfo -h -o %t 2>/dev/null | grep -q idle; }
T=$((SECONDS + 30))
until idle || ((SECONDS > T)); do sleep 0.5; done
idle || { echo "the node never came up"; cat "$D"/*.log; exit 1; }
timeout 120 "$@"
rc=$?
# Until every job has ended (at most 3 minutes).
queued() { timeout 5 squeue -h 2>/dev/null || echo "squeue failed"; }
T=$((SECONDS + 180))
while [ -n "$(queued)" ] && ((SECONDS <= T)); do sleep 0.5; done
[ -z "$(queued)" ] || { echo "jobs still queued:"; queued; cat "$D"/*.log; exit 1; }
exit $rc
