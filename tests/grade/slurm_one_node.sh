#!/usr/bin/env bash
# slurm_one_node: a Slurm cluster of one machine (munged, slurmctld, slurmd), each of its GPUs a
# gres named gpu, so that ./memlab grade --slurm and bench_batch.sh's slurm runs can be tried on
# a GPU host that has no cluster. For a test machine you own: it runs as root and writes
# /etc/munge, /etc/slurm, /var/spool/slurm* and /var/log/slurm.
#   tests/grade/slurm_one_node.sh [PREFIX]
# PREFIX: where Debian's packages slurmctld, slurmd, slurm-client and munge are, installed (/,
# the default) or unpacked with dpkg -x (as on a host with no package registry). Then:
#   export PATH=PREFIX/usr/bin:$PATH     (sbatch, squeue, sinfo; for an unpacked tree also
#   LD_LIBRARY_PATH=PREFIX/usr/lib/x86_64-linux-gnu/slurm-wlm:PREFIX/usr/lib/x86_64-linux-gnu)
# The node's name is `hostname -s`, its partition `gpu`; the GPUs are /dev/nvidia0... , one a
# line of `nvidia-smi -L`. Does nothing when sinfo already answers. Exits 1 when a daemon does
# not start (its log's tail is printed), 2 on bad input.
set -uo pipefail
prefix=${1:-/}
prefix=${prefix%/}
sbin=$prefix/usr/sbin
bin=$prefix/usr/bin
lib=$prefix/usr/lib/x86_64-linux-gnu
[[ $(id -u) -eq 0 ]] || { echo "slurm_one_node: run it as root (it starts daemons and writes /etc)" >&2; exit 2; }
if [[ ! -x $sbin/slurmctld && ! -x $sbin/slurmctld-wlm ]]; then
  echo "slurm_one_node: no slurmctld in $sbin: install or unpack Debian's slurmctld, slurmd," \
    "slurm-client and munge" >&2
  exit 2
fi
export LD_LIBRARY_PATH=$lib/slurm-wlm:$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if "$bin/sinfo" -h >/dev/null 2>&1; then
  echo "slurm_one_node: Slurm already answers: nothing started"
  exit 0
fi
gpu_count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
((gpu_count > 0)) || { echo "slurm_one_node: nvidia-smi lists no GPU" >&2; exit 2; }

# Debian names the daemons *-wlm and links the plain names through its alternatives, which an
# unpacked tree lacks. The plain names matter: Slurm reads a node's Gres= only in a process
# called slurmctld or slurmd, and drops it silently in any other.
for daemon in slurmctld slurmd slurmstepd; do
  [[ -e $sbin/$daemon ]] || ln -s "$sbin/$daemon-wlm" "$sbin/$daemon" ||
    { echo "slurm_one_node: cannot link $sbin/$daemon" >&2; exit 1; }
done

tail_of() { # LOG: its last lines, for a daemon that did not start
  echo "slurm_one_node: $1 (last lines):" >&2
  tail -n 15 "$1" >&2 2>/dev/null
}

mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge /etc/slurm /var/spool/slurmctld \
  /var/spool/slurmd /var/log/slurm
[[ -s /etc/munge/munge.key ]] || head -c 1024 /dev/urandom >/etc/munge/munge.key
chmod 700 /etc/munge /var/lib/munge /var/log/munge
chmod 755 /run/munge
chmod 400 /etc/munge/munge.key
# munged refuses root unless told (--force): a test machine's daemons all run as root here.
"$sbin/munged" --force || { tail_of /var/log/munge/munged.log; exit 1; }

node=$(hostname -s)
{
  echo "ClusterName=memlab"
  echo "SlurmctldHost=$node"
  echo "SlurmUser=root"
  echo "AuthType=auth/munge"
  echo "PluginDir=$lib/slurm-wlm"
  echo "StateSaveLocation=/var/spool/slurmctld"
  echo "SlurmdSpoolDir=/var/spool/slurmd"
  echo "SlurmctldPidFile=/run/slurmctld.pid"
  echo "SlurmdPidFile=/run/slurmd.pid"
  echo "SlurmctldLogFile=/var/log/slurm/slurmctld.log"
  echo "SlurmdLogFile=/var/log/slurm/slurmd.log"
  echo "ProctrackType=proctrack/linuxproc"
  echo "TaskPlugin=task/none"
  echo "MpiDefault=none"
  echo "SchedulerType=sched/backfill"
  echo "SelectType=select/cons_tres"
  echo "SelectTypeParameters=CR_Core"
  echo "GresTypes=gpu"
  echo "ReturnToService=2"
  echo "AccountingStorageType=accounting_storage/none"
  echo "JobCompType=jobcomp/none"
  echo "NodeName=$node CPUs=$(nproc) Gres=gpu:$gpu_count State=UNKNOWN"
  echo "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
} >/etc/slurm/slurm.conf
for ((gpu = 0; gpu < gpu_count; gpu++)); do echo "Name=gpu File=/dev/nvidia$gpu"; done \
  >/etc/slurm/gres.conf
# No cgroup is used (proctrack/linuxproc, task/none). Slurm picks cgroup/v2 where the machine
# mounts it, whose plugin needs D-Bus and systemd; v1's loads without touching a cgroup.
echo "CgroupPlugin=cgroup/v1" >/etc/slurm/cgroup.conf

"$sbin/slurmctld" || { tail_of /var/log/slurm/slurmctld.log; exit 1; }
"$sbin/slurmd" -d "$sbin/slurmstepd" || { tail_of /var/log/slurm/slurmd.log; exit 1; }
for ((second = 0; second < 30; second++)); do
  "$bin/sinfo" -h -o '%T' 2>/dev/null | grep -q idle && break
  sleep 1
done
"$bin/sinfo" -N -o '%N %T %G %c'
"$bin/sinfo" -h -o '%T %G' | grep -q "idle gpu:$gpu_count" ||
  { tail_of /var/log/slurm/slurmd.log; exit 1; }
