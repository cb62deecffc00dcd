#!/bin/bash
# flyprof sweep --backend slurm against a real one-node Slurm (slurmctld + slurmd
# from Debian, lib/slurm_env.sh) and the fake rocprofv3: the 2x2 matrix + an unknown
# kernel as one sbatch array and a dependent aggregation job (--wait), the GPU each
# array task gets, the history filled once per ok task by the aggregation, a resume
# after the aggregation job was killed, --status, --cancel, and a task over its time
# limit (Slurm's shortest limit is one minute: that part takes ~1.5 min).
. "$(dirname "$0")/lib/capture_env.sh"
. "$(dirname "$0")/lib/slurm_env.sh"
# sbatch passes this environment (FAKE_ROCPROF_*, FLYPROF_*) on to the array tasks (--export=ALL)
. "$(dirname "$0")/lib/fake_rocm.sh"
unset ROCR_VISIBLE_DEVICES
d() { jget "$T/out.json" "$1"; }

# the time-limit sweep first: it needs a minute of Slurm's clock, the rest runs meanwhile
cat > "$T/slow.yaml" <<'Y'
kernels: [{name: softmax, shapes: ["4096,8192,bf16"]}]
slurm: {partition: gpu, time: "00:01:00"}
Y
FAKE_ROCPROF_HANG=all fp sweep --spec "$T/slow.yaml" --out "$T/slow" --backend slurm --no-pmc --skip-bundle
[ "$RC" = 0 ] || { cat "$T/out.json"; fail "slow submit exit $RC"; }
[ "$(d 'd["data"]["state"]')" = running ] || fail "a submitted sweep is running: $(d 'd["data"]["state"]')"

cat > "$T/spec.yaml" <<'Y'
kernels:
  - name: softmax
    shapes: ["4096,8192,bf16", "8192,8192,bf16"]
  - name: rmsnorm
    shapes: ["4096,8192,bf16", "8192,8192,bf16"]
  - name: no_such_kernel
    shapes: ["1,1,bf16"]
gpus_per_task: 1
slurm: {partition: gpu, time: "00:10:00", extra: ["--job-name=fp-sweep-test"]}
Y
S=$T/sw
t0=$(date +%s.%N)
fp sweep --spec "$T/spec.yaml" --out "$S" --backend slurm --wait --no-pmc --skip-bundle --history "$T/h.db"
t1=$(date +%s.%N)
expect_error TASKS_FAILED 2
echo "submit to summary: $(python3 -c "print(round($t1 - $t0, 1))") s for $(d 'd["data"]["tasks_total"]') tasks"
[ "$(d '[t["status"] for t in d["data"]["tasks"]]')" = "['ok', 'ok', 'ok', 'ok', 'failed']" ] ||
  fail "statuses: $(cat "$T/out.json")"
[ "$(d 'd["data"]["tasks"][4]["error"]')" = KERNEL_NOT_FOUND ] || fail "unknown kernel"
A=$(d 'd["data"]["jobs"][0]')
[ "$(d '[t["job_id"] for t in d["data"]["tasks"]]')" = "['${A}_0', '${A}_1', '${A}_2', '${A}_3', '${A}_4']" ] ||
  fail "job ids: $(d '[t["job_id"] for t in d["data"]["tasks"]]')"
[ -s "$S/aggregate.out" ] || fail "the dependent aggregation job did not run"
[ "$(jget "$S/sweep.json" "[t.get('history_entry') for t in d['tasks']][:4]")" = "[1, 2, 3, 4]" ] || { cat "$S/aggregate.out"; fail "history by the aggregation"; }
"$FLYPROF" history list --db "$T/h.db" -q -f json > "$T/hl.json"
[ "$(jget "$T/hl.json" 'len(d["data"]["entries"])')" = 4 ] || fail "history: one entry per ok task"
# every array task ran on a GPU Slurm gave it (the fake logs the variable)
[ "$(python3 -c "
import json,sys
n=[json.loads(l).get('env',{}).get('ROCR_VISIBLE_DEVICES') for l in open(sys.argv[1]) if l.strip()]
print(all(v in ('0','1','2','3') for v in n), len(n) > 0)" "$FAKE_ROCPROF_LOG")" = "True True" ] ||
  fail "array tasks without ROCR_VISIBLE_DEVICES"
# the envelope of a task and the sbatch files are in DIR
[ -f "$S/tasks/softmax--4096_8192_bf16.json" ] && [ -x "$S/sweep-task.sh" ] || fail "task files"

# resume after a killed aggregation: a re-run resubmits only the failed task
b0=$S/softmax--4096_8192_bf16
stamp=$(stat -c %Y.%i "$b0/report.json")
rm -f "$S/sweep.json"
fp sweep --spec "$T/spec.yaml" --out "$S" --backend slurm --no-pmc --skip-bundle
[ "$RC" = 0 ] || fail "resubmit exit $RC"
AGG=$(jget "$S/tasks.json" 'd["aggregate_job"]')
scancel "$AGG"
A2=$(jget "$S/tasks.json" 'd["jobs"][-1]')
[ "$A2" != "$A" ] || fail "no new array job"
for i in $(seq 300); do [ -z "$(squeue -h -j "$A2,$AGG" 2>/dev/null)" ] && break; sleep 0.2; done
[ ! -f "$S/sweep.json" ] || fail "the cancelled aggregation wrote sweep.json"
fp sweep --out "$S" --status
expect_error TASKS_FAILED 2
[ "$(d '[t["job_id"] for t in d["data"]["tasks"]][4]')" = "${A2}_4" ] || fail "task 4 ran again in the new array"
[ "$(d 'd["data"]["ok"]')" = 4 ] || fail "status after resume"
[ "$(stat -c %Y.%i "$b0/report.json")" = "$stamp" ] || fail "an ok task's bundle was touched by the resume"
# and the sweep is folded by running it again: nothing left to run but the failed task
fp sweep --spec "$T/spec.yaml" --out "$S" --backend slurm --wait --no-pmc --skip-bundle
expect_error TASKS_FAILED 2
[ -f "$S/sweep.json" ] || fail "sweep.json after the re-run"

# --cancel: hanging tasks are cancelled
FAKE_ROCPROF_HANG=all fp sweep --spec "$T/spec.yaml" --out "$T/hang" --backend slurm --no-pmc --skip-bundle
[ "$RC" = 0 ] || fail "hang submit"
for i in $(seq 100); do squeue -h -t R 2>/dev/null | grep -q . && break; sleep 0.2; done
fp sweep --out "$T/hang" --cancel
expect_error TASKS_FAILED 2
[ "$(d 'd["data"]["cancelled"]')" = 5 ] || fail "cancelled: $(d '[(t["status"], t["reason"]) for t in d["data"]["tasks"]]')"

# the time limit: Slurm's word decides (TIMEOUT), not the task's SIGTERM
for i in $(seq 900); do [ -z "$(squeue -h -j "$(jget "$T/slow/tasks.json" 'd["jobs"][0]')" 2>/dev/null)" ] && break; sleep 0.2; done
fp sweep --out "$T/slow" --status
expect_error TASKS_FAILED 2
[ "$(d 'd["data"]["tasks"][0]["status"]')" = timeout ] || fail "time limit: $(d 'd["data"]["tasks"][0]')"
grep -q "TIMEOUT" <<< "$(d 'd["data"]["tasks"][0]["reason"]')" || fail "timeout reason"

# a spec Slurm refuses (a partition that does not exist): sbatch's message, BAD_ARGS
printf 'kernels: [{name: softmax, shapes: [x]}]\nslurm: {partition: nope}\n' > "$T/badp.yaml"
fp sweep --spec "$T/badp.yaml" --out "$T/badp" --backend slurm
expect_error BAD_ARGS 78
grep -qi "partition" "$T/out.json" || fail "sbatch's message"
echo ok
