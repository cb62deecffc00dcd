#!/bin/bash
# heartbeat: while rocprofv3 (the fake, running a workload that sleeps) or a
# run step is busy, capture / counters live / run print the step and its
# elapsed time on stderr every FLYPROF_HEARTBEAT_S seconds (10 by default;
# 0.2 here to keep the test short), then a final timing line per step; -q
# silences all of it and stdout stays one envelope.
. "$(dirname "$0")/lib/capture_env.sh"
export FLYPROF_HEARTBEAT_S=0.2
export FAKE_ROCPROF_KERNELS="softmax_kernel_0:12:30000:96"

# capture: the workload sleeps 0.7 s in every pass (discovery, ATT)
"$FLYPROF" capture softmax_kernel_0 --invocation "sleep 0.7" --bundle "$T/b" -f json > "$T/out.json" 2> "$T/err.txt"
[ $? = 0 ] || { cat "$T/out.json" "$T/err.txt"; fail "capture exit"; }
"$PY" - "$T/err.txt" capture discovery "att" <<'PY' || { cat "$T/err.txt"; fail "capture heartbeat"; }
import re, sys
err = open(sys.argv[1]).read().splitlines()
cmd, steps = sys.argv[2], sys.argv[3:]
for step in steps:
    beats = [l for l in err if re.match(rf"flyprof: {cmd}: {step}.*: running, \d+\.\d s elapsed$", l)]
    final = [l for l in err if re.match(rf"flyprof: {cmd}: {step}.*: done in \d+\.\d s$", l)]
    assert len(beats) >= 2, (step, "beats", beats)
    assert final, (step, "no final timing line")
    # elapsed grows and the final time covers the 0.7 s sleep
    secs = [float(re.search(r"running, ([\d.]+) s", l).group(1)) for l in beats]
    assert secs == sorted(secs) and secs[0] >= 0.2, secs
    assert float(re.search(r"done in ([\d.]+) s", final[0]).group(1)) >= 0.7, final
PY
"$PY" -c "import json,sys; json.load(open(sys.argv[1]))" "$T/out.json" || fail "stdout is not one envelope"

# -q: no heartbeat, no progress at all
"$FLYPROF" capture softmax_kernel_0 --invocation "sleep 0.5" --bundle "$T/q" -q -f json > "$T/out.json" 2> "$T/err.txt"
[ $? = 0 ] || fail "capture -q exit"
if grep -q "running\|done in" "$T/err.txt"; then fail "-q printed a heartbeat: $(cat "$T/err.txt")"; fi

# counters live: one pass per group, each with its beats and final line
"$FLYPROF" counters --bundle "$T/c" --kernel softmax --gpu-name MI350X -f json -- sleep 0.5 > "$T/out.json" 2> "$T/err.txt"
[ $? = 0 ] || { cat "$T/out.json" "$T/err.txt"; fail "counters exit"; }
"$PY" - "$T/err.txt" counters "pass 1/" <<'PY' || { cat "$T/err.txt"; fail "counters heartbeat"; }
import re, sys
err = open(sys.argv[1]).read().splitlines()
assert [l for l in err if re.match(r"flyprof: counters: pass 1/\d+: running, \d+\.\d s elapsed$", l)], "beats"
assert [l for l in err if re.match(r"flyprof: counters: pass 1/\d+: done in \d+\.\d s$", l)], "final"
PY

# run: its own beats while a step (capture, here) runs, and a timing line per step
mkdir -p "$T/bin" "$T/dec"
: > "$T/dec/librocprof-trace-decoder.so"
printf '#!/bin/sh\nprintf "Agent 2\\n  Name: gfx950\\n  Marketing Name: AMD Instinct MI350X\\n  Device Type: GPU\\n  Compute Unit: 256\\n"\n' \
  > "$T/bin/rocminfo"
chmod +x "$T/bin/rocminfo"
PATH="$T/bin:$PATH" ROCPROF_ATT_LIBRARY_PATH="$T/dec" FAKE_ROCPROF_GEN_SPEC=$FP_SRC/tests/data/gen/synthetic_gemm.json \
  "$FLYPROF" run softmax_kernel_0 --invocation "sleep 0.5" --bundle "$T/r" --skip-bundle --no-pmc -f json \
  > "$T/out.json" 2> "$T/err.txt"
[ $? = 0 ] || { cat "$T/out.json" "$T/err.txt"; fail "run exit"; }
grep -Eq "^flyprof: run: \[[0-9]+\] capture: running, [0-9]+\.[0-9] s elapsed$" "$T/err.txt" ||
  { cat "$T/err.txt"; fail "run heartbeat"; }
for s in doctor capture bubbles map report; do
  grep -Eq "^flyprof: run: \[[0-9]+\] $s +ok \([0-9.]+s, total [0-9.]+s\)$" "$T/err.txt" || fail "run timing line of $s"
done
echo ok
