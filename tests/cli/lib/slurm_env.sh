# A real one-node Slurm cluster for the sweep tests (sourced after capture_env.sh,
# which made $T): Debian's slurmctld + slurmd (22.05 in Debian 12) with no munge
# (auth/none, cred/none), state and spool under $T/slurm, 4 fake GPUs (character
# devices, the only gres files Slurm accepts), started in the background and ended
# by pid on exit. Exits 77 (skipped) when Slurm is not installed.
command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null || {
    echo "Slurm (slurm-wlm) is not installed: skipped"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "a one-node Slurm needs root here (SlurmUser=root, mknod): skipped"; exit 77; }
SD=$T/slurm
mkdir -p "$SD/state" "$SD/spool" "$SD/log"
NODE=$(hostname -s)
# ports of our own so a test never talks to another cluster on this machine
PBASE=$((20000 + ($$ % 20000)))
for i in 0 1 2 3; do mknod "$SD/gpu$i" c 1 3 || exit 1; done
cat > "$SD/slurm.conf" <<CONF
ClusterName=flyprof-test
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$PBASE
SlurmdPort=$((PBASE + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$SD/jobcomp.txt
StateSaveLocation=$SD/state
SlurmdSpoolDir=$SD/spool
SlurmctldPidFile=$SD/slurmctld.pid
SlurmdPidFile=$SD/slurmd.pid
SlurmctldLogFile=$SD/log/slurmctld.log
SlurmdLogFile=$SD/log/slurmd.log
SchedulerParameters=batch_sched_delay=0,bf_interval=1
MinJobAge=600
KillWait=2
ReturnToService=2
MpiDefault=none
GresTypes=gpu
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$(nproc) Gres=gpu:4 State=UNKNOWN
PartitionName=gpu Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
CONF
cat > "$SD/gres.conf" <<CONF
AutoDetect=off
Name=gpu File=$SD/gpu[0-3]
CONF
export SLURM_CONF=$SD/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" > "$SD/log/ctld.out" 2>&1 &
CTLD=$!
slurmd -D -N "$NODE" -f "$SLURM_CONF" > "$SD/log/d.out" 2>&1 &
SLURMD=$!
slurm_down() {
    scancel -u root >/dev/null 2>&1
    for i in $(seq 50); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.1; done
    kill "$SLURMD" "$CTLD" 2>/dev/null; wait "$SLURMD" "$CTLD" 2>/dev/null
    rm -rf "$T"
}
trap slurm_down EXIT
for i in $(seq 100); do
    sinfo -h -o %t 2>/dev/null | grep -q idle && break
    sleep 0.1
done
sinfo -h -o %t 2>/dev/null | grep -q idle || { echo "FAIL: slurm did not come up"; tail -20 "$SD/log/"*; exit 1; }
