#!/bin/bash
# flyprof sweep on the local backend, through the fake rocprofv3: a 2-kernel x
# 2-shape matrix plus an unknown kernel (one failed task, TASKS_FAILED 2), the
# summary files, a re-run that skips the ok tasks, the history filled once per ok
# task, and the spec's typed errors.
. "$(dirname "$0")/lib/capture_env.sh"
. "$(dirname "$0")/lib/fake_rocm.sh"
unset ROCR_VISIBLE_DEVICES

cat > "$T/spec.yaml" <<'Y'
# two kernels x two shapes, and one kernel flyprof does not know
kernels:
  - name: softmax
    shapes: ["4096,8192,bf16", "8192,8192,bf16"]
  - name: rmsnorm
    shapes:
      - "4096,8192,bf16"
      - 8192,8192,bf16
  - name: no_such_kernel
    shapes: ["1,1,bf16"]
Y
S=$T/sw
fp sweep --spec "$T/spec.yaml" --out "$S" --no-pmc --skip-bundle --history "$T/h.db" --parallel 2
expect_error TASKS_FAILED 2
d() { jget "$T/out.json" "$1"; }
[ "$(d 'd["data"]["tasks_total"], d["data"]["ok"], d["data"]["failed"], d["data"]["state"]')" = "(5, 4, 1, 'done')" ] ||
  fail "counts: $(cat "$T/out.json")"
[ "$(d '[t["status"] for t in d["data"]["tasks"]]')" = "['ok', 'ok', 'ok', 'ok', 'failed']" ] || fail statuses
[ "$(d 'd["data"]["tasks"][4]["error"]')" = KERNEL_NOT_FOUND ] || fail "unknown kernel: $(d 'd["data"]["tasks"][4]')"
[ "$(d '[t["shape"] for t in d["data"]["tasks"]][:4]')" = "['4096,8192,bf16', '8192,8192,bf16', '4096,8192,bf16', '8192,8192,bf16']" ] ||
  fail "a plain YAML scalar with commas is a string shape"
# each ok task: its bundle is a complete run (report.json), its figures from it
for i in 0 1 2 3; do
  b=$(d "d['data']['tasks'][$i]['bundle']")
  [ -f "$b/report.json" ] && [ -f "$b/run.json" ] || fail "task $i bundle $b"
  [ "$(jget "$b/run.json" 'd["status"]')" = ok ] || fail "task $i run.json"
  [ "$(d "d['data']['tasks'][$i]['bound']")" = "$(jget "$b/report.json" 'd["bound"]["bound"]')" ] || fail "task $i bound"
  [ "$(d "d['data']['tasks'][$i]['first_rule']")" = "$(jget "$b/report.json" 'd["recommendations"][0]["rule"] if d["recommendations"] else None')" ] ||
    fail "task $i first rule"
  [ "$(d "d['data']['tasks'][$i]['history_entry']")" = "$((i + 1))" ] || fail "task $i history entry"
  [ "$(d "(d['data']['tasks'][$i]['duration_us'], d['data']['tasks'][$i]['time_source'])")" = \
    "$(jget "$b/report.json" '(round(d["time"]["ns"] / 1000, 3), d["time"]["source"])')" ] || fail "task $i time and its source"
done
[ "$(basename "$(d 'd["data"]["tasks"][0]["bundle"]')")" = "softmax--4096_8192_bf16" ] || fail "task dir name"
# each task is exactly `flyprof run KERNEL --shape S --bundle ...` with the sweep's run options
b0=$(d 'd["data"]["tasks"][0]["bundle"]')
grep -q -- '--no-pmc' "$S/tasks.json" && grep -q -- '--skip-bundle' "$S/tasks.json" || fail "run options in tasks.json"
[ ! -e "$S/.partial/softmax--4096_8192_bf16.$$" ] || fail "partial dir left"
[ -z "$(ls -A "$S/.partial" 2>/dev/null)" ] || fail "partial dirs left: $(ls "$S/.partial")"
# the summary files
cmp -s <(jget "$S/sweep.json" 'd["tasks"]') <(d 'd["data"]["tasks"]') || fail "sweep.json = envelope data"
grep -q 'softmax' "$S/sweep.txt" && grep -q 'KERNEL_NOT_FOUND' "$S/sweep.txt" || fail "sweep.txt"
python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$S/sweep.svg" || fail "sweep.svg is not XML"
grep -q '>softmax<' "$S/sweep.svg" && grep -q '>8192,8192,bf16<' "$S/sweep.svg" || fail "svg labels"
"$FLYPROF" history list --db "$T/h.db" -q -f json > "$T/hl.json" || fail "history list"
[ "$(jget "$T/hl.json" 'len(d["data"]["entries"])')" = 4 ] || fail "history: one entry per ok task"

# a re-run skips the ok tasks (their bundles untouched) and retries the failed one
stamp=$(stat -c %Y.%i "$b0/report.json")
fp sweep --spec "$T/spec.yaml" --out "$S" --no-pmc --skip-bundle --history "$T/h.db"
expect_error TASKS_FAILED 2
grep -q "4 of 5 task(s) already ok: skipped" "$T/err.txt" || fail "skip message: $(cat "$T/err.txt")"
[ "$(stat -c %Y.%i "$b0/report.json")" = "$stamp" ] || fail "an ok task's bundle was touched"
"$FLYPROF" history list --db "$T/h.db" -q -f json > "$T/hl.json"
[ "$(jget "$T/hl.json" 'len(d["data"]["entries"])')" = 4 ] || fail "history: no duplicates on re-run"

# --status is read only and answers the same
rm -f "$S/sweep.json"
fp sweep --out "$S" --status
expect_error TASKS_FAILED 2
[ ! -e "$S/sweep.json" ] || fail "--status wrote sweep.json"
[ "$(d 'd["data"]["ok"]')" = 4 ] || fail "status counts"

# an all-ok sweep exits 0; JSON specs work too
printf '{"kernels": [{"name": "softmax", "shapes": ["4096,8192,bf16"]}]}' > "$T/one.json"
fp sweep --spec "$T/one.json" --out "$T/sw1" --no-pmc --skip-bundle
[ "$RC" = 0 ] || { cat "$T/out.json"; fail "all-ok sweep exit $RC"; }
# local: a task gets the GPU given to its slot
ROCR_VISIBLE_DEVICES=5,7 fp sweep --spec "$T/one.json" --out "$T/sw2" --no-pmc --skip-bundle
[ "$RC" = 0 ] || fail "sweep with visible GPUs"
grep -Eq '"ROCR_VISIBLE_DEVICES": ?"5"' "$FAKE_ROCPROF_LOG" || fail "the task did not get GPU 5: $(tail -c 600 "$FAKE_ROCPROF_LOG")"
# more slots asked than GPUs: capped with a warning, both tasks on GPU 5, one after the other
printf '{"kernels": [{"name": "softmax", "shapes": ["4096,8192,bf16", "8192,8192,bf16"]}]}' > "$T/two.json"
: > "$FAKE_ROCPROF_LOG"
ROCR_VISIBLE_DEVICES=5 fp sweep --spec "$T/two.json" --out "$T/sw4" --no-pmc --skip-bundle --parallel 3
[ "$RC" = 0 ] || fail "capped sweep exit $RC: $(cat "$T/out.json")"
grep -q -- '--parallel 3 > 1 GPU set' "$T/out.json" || fail "no cap warning: $(cat "$T/out.json")"
grep -q '2 task(s) on this machine, 1 at a time (1 GPU(s) visible)' "$T/err.txt" || fail "not one at a time: $(cat "$T/err.txt")"
[ "$(grep -Ec '"ROCR_VISIBLE_DEVICES": ?"5"' "$FAKE_ROCPROF_LOG")" -ge 2 ] || fail "both tasks on GPU 5"

# typed errors naming the key
bad() { printf '%s' "$2" > "$T/bad.$1"; fp sweep --spec "$T/bad.$1" --out "$T/swb"; expect_error BAD_INPUT 65
        grep -q -- "$3" "$T/out.json" || fail "message for $2: $(cat "$T/out.json")"; }
bad yaml 'kernels: []' '\$.kernels: empty'
bad yaml 'kernels: [{name: a}]' '\$.kernels\[0\].shapes: missing'
bad yaml 'kernels: [{name: a, shapes: [x]}]
gpus_per_task: 0' '\$.gpus_per_task'
bad yaml 'kernels: [{name: a, shapes: [x], shape: [y]}]' 'shape'
bad yaml 'kernels: [{name: a, shapes: [x, x]}]' 'given twice'
bad yaml 'kernels: [{name: a' 'line 2: did not find expected'
bad json '{"kernels": 3}' '\$.kernels'
bad yaml 'kernels: &a [*a]' 'alias'
python3 -c "print('k: ' + '[' * 200 + ']' * 200)" > "$T/deep.yaml"
fp sweep --spec "$T/deep.yaml" --out "$T/swb"; expect_error BAD_INPUT 65
grep -q 'deeper than' "$T/out.json" || fail "depth limit"
fp sweep --out "$T/swb"; expect_error USAGE 64
fp sweep --spec "$T/one.json"; expect_error USAGE 64
fp sweep --spec "$T/one.json" --out "$T/swb" --gpu 1; expect_error BAD_ARGS 78
fp sweep --spec "$T/nope.yaml" --out "$T/swb"; expect_error NO_ARTIFACT 66
fp sweep --out "$T/nowhere" --status; expect_error NO_ARTIFACT 66
fp sweep --out "$S" --status --cancel; expect_error USAGE 64
fp sweep --out "$S" --cancel; expect_error BAD_ARGS 78   # a local sweep has no Slurm jobs
# slurm backend without sbatch on PATH: a typed error naming the backend
PATH="$T/bin:/usr/bin/nonexistent" fp sweep --spec "$T/one.json" --out "$T/sw3" --backend slurm
[ "$RC" != 0 ] || fail "slurm without sbatch"
echo ok
