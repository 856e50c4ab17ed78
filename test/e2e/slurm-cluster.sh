#!/usr/bin/env bash
# A throwaway one-node Slurm cluster for test/e2e/slurm.test.ts, on Debian's
# slurm-wlm and munge, entirely inside one folder:
#   slurm-cluster.sh start <dir> <slurmctld port> <slurmd port>
#   slurm-cluster.sh stop <dir>
# start writes a munge key, starts munged (as user munge) on its own socket,
# writes <dir>/slurm.conf for this host (slurmd -C's CPUs and memory,
# proctrack/linuxproc, no accounting), starts slurmctld and slurmd in the
# foreground in the background, and waits until the node is idle. Everything
# talks over 127.0.0.1, so the host name need not resolve. Clients use it
# with SLURM_CONF=<dir>/slurm.conf. stop ends exactly the processes start
# recorded in <dir>/pids, by pid. Needs root (munged runs as munge, the Slurm
# daemons as root).
set -euo pipefail

cmd=${1:?start|stop}
dir=${2:?folder}

stop() {
  [ -f "$dir/pids" ] || return 0
  # Reverse start order: slurmd, slurmctld, then munged.
  for pid in $(tac "$dir/pids"); do
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -f "$dir/pids"
}

if [ "$cmd" = stop ]; then
  stop
  exit 0
fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop <dir> ..." >&2; exit 2; }
ctld_port=${3:?slurmctld port}
d_port=${4:?slurmd port}

mkdir -p "$dir"
chmod 755 "$dir"
mkdir -p "$dir/munge" "$dir/munge-run" "$dir/state" "$dir/spool" "$dir/log"
: > "$dir/pids"

# munge: a fresh key, owner munge, mode 400, in a folder only munge can read.
head -c 1024 /dev/urandom > "$dir/munge/munge.key"
chown -R munge:munge "$dir/munge" "$dir/munge-run"
chmod 700 "$dir/munge"
chmod 400 "$dir/munge/munge.key"
# Clients (every Slurm daemon and command) must reach the socket: its folder is world-executable.
chmod 755 "$dir/munge-run"
socket="$dir/munge-run/munge.socket"
if ! setpriv --reuid=munge --regid=munge --clear-groups test -x "$dir/munge-run"; then
  echo "user munge cannot reach $dir: every folder above it must be traversable by others (chmod o+x)" >&2
  exit 1
fi
setpriv --reuid=munge --regid=munge --init-groups \
  munged --foreground --force --key-file="$dir/munge/munge.key" --socket="$socket" \
  --pid-file="$dir/munge-run/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" > "$dir/log/munged.out" 2>&1 &
echo $! >> "$dir/pids"
for _ in $(seq 1 100); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || { echo "munged did not start" >&2; cat "$dir/log/munged.out" >&2 || true; exit 1; }

host=$(hostname -s)
node=$(slurmd -C | sed -n 1p)
cat > "$dir/slurm.conf" <<CONF
ClusterName=fidelitytest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SlurmctldTimeout=30
SlurmdTimeout=30
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=fidelity Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"

slurmctld -D -i -f "$SLURM_CONF" > "$dir/log/slurmctld.out" 2>&1 &
echo $! >> "$dir/pids"
slurmd -D -f "$SLURM_CONF" > "$dir/log/slurmd.out" 2>&1 &
echo $! >> "$dir/pids"

for _ in $(seq 1 120); do
  state=$(sinfo -h -o %T 2>/dev/null | sed -n 1p || true)
  [ "$state" = idle ] && { echo "slurm ready: $host"; exit 0; }
  sleep 0.5
done
echo "the node did not become idle (last state: ${state:-none})" >&2
tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" "$dir/log/slurmctld.out" "$dir/log/slurmd.out" >&2 || true
exit 1
