#!/bin/bash
# issue 18: what a real user's environment does to rocprofv3, through the fake
# (docs/fake-rocprofv3.md): a python without PyYAML, stale ROCPROF_OUTPUT_*
# exported by the shell, ROCPROF_ATT_LIBRARY_PATH (the 7.0 filesystem walk),
# the decoder's three info strings, ROCm 7.0's unprefixed fatal line.
. "$(dirname "$0")/lib/capture_env.sh"
R=$FP_TOOLS/rocprofv3

# 0. the fake really models them (so the checks below can fail)
printf 'jobs:\n  - kernel_trace: true\n' > "$T/in.yaml"
FAKE_ROCPROF_MODE=no-pyyaml "$R" -i "$T/in.yaml" -- true 2> "$T/e0.txt"; rc=$?
[ "$rc" = 1 ] && grep -q "Fatal error: YAML package is not installed" "$T/e0.txt" || fail "fake no-pyyaml ($rc)"
printf '{"jobs": [{"kernel_trace": true, "output_directory": "%s/x"}]}\n' "$T" > "$T/in.json"
FAKE_ROCPROF_MODE=no-pyyaml ROCPROF_OUTPUT_PATH=/stale "$R" -i "$T/in.json" -- true 2> "$T/e1.txt"; rc=$?
[ "$rc" = 1 ] && grep -q "RuntimeError: conflicting value for output_directory : /stale vs $T/x" "$T/e1.txt" \
  || fail "fake env conflict ($rc): $(cat "$T/e1.txt")"
FAKE_ROCPROF_MODE=no-pyyaml "$R" -i "$T/in.json" -- true 2> /dev/null || fail "fake json input without PyYAML"
FAKE_ROCPROF_VERSION=1.0.0 "$R" -- 2> "$T/e2.txt"
grep -q "^Fatal error: no application" "$T/e2.txt" || fail "fake 7.0 fatal prefix: $(cat "$T/e2.txt")"

# 1. Done when: capture and counters succeed with no PyYAML and a stale shell
rm -f "$FAKE_ROCPROF_LOG"
export FAKE_ROCPROF_MODE=no-pyyaml ROCPROF_OUTPUT_PATH=/stale/dir ROCPROF_OUTPUT_FILE_NAME=stale \
       ROCPROF_KERNEL_FILTER_INCLUDE_REGEX=other ROCPROF_ATT_LIBRARY_PATH="$T/dec:$T/dec2"
fp capture softmax --bundle "$T/b1"
[ "$RC" = 0 ] || { cat "$T/out.json"; fail "capture without PyYAML exit $RC"; }
C=$T/b1/capture.json
[ -f "$T/b1/rocprof/big/input_att.json" ] || fail "json input"
[ "$(jget $C 'd["rocprofv3"]["env_dropped"]')" = "['ROCPROF_ATT_LIBRARY_PATH', 'ROCPROF_KERNEL_FILTER_INCLUDE_REGEX', 'ROCPROF_OUTPUT_FILE_NAME', 'ROCPROF_OUTPUT_PATH']" ] \
  || fail "env_dropped $(jget $C 'd["rocprofv3"].get("env_dropped")')"
[ "$(jget $T/out.json 'sum("ROCPROF_OUTPUT_PATH is set in the environment" in w for w in d["warnings"])')" = 1 ] \
  || fail "one warning per variable"
[ "$(jget $C 'd["tags"]["big"]["status"]')" = ok ] || fail "tag ok"
"$PY" - "$FAKE_ROCPROF_LOG" "$T" <<'PY' || fail "what rocprofv3 saw"
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
assert len(runs) == 2, len(runs)
assert all(r["rocprof_env"] == [] for r in runs), [r["rocprof_env"] for r in runs]
att = runs[1]["jobs"][0]
# the decoder dirs the user exported arrive as the flag form, not the env (7.0 walk bug)
assert att["att_library_path"] == [sys.argv[2] + "/dec", sys.argv[2] + "/dec2"], att
PY
rm -f "$FAKE_ROCPROF_LOG"
"$FLYPROF" counters -q --bundle "$T/b1" --kernel softmax_kernel_0 --gpu-name MI350X -f json -- true > "$T/c.json" 2> "$T/c.err"
[ $? = 0 ] || { cat "$T/c.json"; fail "counters without PyYAML"; }
[ "$(jget $T/b1/counters.json 'd["live"]["env_dropped"][-1]')" = ROCPROF_OUTPUT_PATH ] || fail "counters env_dropped"
[ "$(jget $T/b1/counters.json 'all(g["input_yaml"].endswith(".json") for g in d["live"]["groups"])')" = True ] || fail "counters json"
"$PY" -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; assert r and all(x['rocprof_env']==[] for x in r), r" \
  "$FAKE_ROCPROF_LOG" || fail "counters passed ROCPROF_*"
unset FAKE_ROCPROF_MODE ROCPROF_OUTPUT_PATH ROCPROF_OUTPUT_FILE_NAME ROCPROF_KERNEL_FILTER_INCLUDE_REGEX ROCPROF_ATT_LIBRARY_PATH

# 2. decoder messages: "Data Lost" = bandwidth (warning, quality, no retry)
FAKE_ROCPROF_MODE=data-lost fp capture softmax --bundle "$T/b2"
[ "$RC" = 0 ] || fail "data-lost exit $RC"
[ "$(jget $T/b2/capture.json 'len(d["tags"]["big"]["attempts"])')" = 1 ] || fail "bandwidth loss retried"
[ "$(jget $T/b2/capture.json 'd["tags"]["big"]["quality"]')" = packets_dropped ] || fail quality
[ "$(jget $T/out.json 'any("Data Lost" in w and "bandwidth" in w for w in d["warnings"])')" = True ] || fail "dl warning"
# "Wave incomplete" = cut off: retried with twice rocprofv3's default
FAKE_ROCPROF_MODE=truncated fp capture softmax --bundle "$T/b3"
[ "$(jget $T/b3/capture.json '[a["att_buffer_size"] for a in d["tags"]["big"]["attempts"]]')" = "['0x10000000', '0x20000000']" ] \
  || fail "wave incomplete retry"
[ "$(jget $T/b3/capture.json 'd["tags"]["big"].get("quality")')" = None ] || fail "no quality on cut-off"
# SDK 1.3.0's default is 384 MiB
FAKE_ROCPROF_VERSION=1.3.0 FAKE_ROCPROF_ATT_NEED_BUFFER=0x20000000 fp capture softmax --bundle "$T/b4"
[ "$(jget $T/b4/capture.json '[a["att_buffer_size"] for a in d["tags"]["big"]["attempts"]]')" = "['0x18000000', '0x30000000']" ] \
  || fail "1.3.0 buffers"
# "Stitch Incomplete" = code object / decoder skew: a typed error
FAKE_ROCPROF_MODE=stitch-incomplete fp capture softmax --bundle "$T/b5"
expect_error TRACE_STITCH_FAILED 69
[ "$(jget $T/b5/capture.json 'd["status"]')" = failed ] || fail "stitch status"

# 3. ROCm 7.0's fatal line has no [rocprofv3] prefix: still captured
FAKE_ROCPROF_VERSION=1.0.0 FAKE_ROCPROF_MODE=decoder-missing fp capture softmax --bundle "$T/b6"
expect_error TRACE_DECODER_MISSING 69
[ "$(jget $T/out.json '"Fatal error: rocprof-trace-decoder" in d["error"]["message"]')" = True ] || fail "7.0 fatal text"

# 4. the 7.0 walk: a fake run given ROCPROF_ATT_LIBRARY_PATH never reaches the app
ROCPROF_ATT_LIBRARY_PATH=/opt/x timeout 2 "$R" --att -d "$T/w" -o out -- true 2> "$T/e4.txt"; rc=$?
[ "$rc" = 124 ] && grep -q "walking '/'" "$T/e4.txt" || fail "fake 7.0 walk ($rc)"
# 5. the kernel regex is anchored: softmax_kernel_0 does not also select softmax_kernel_0_bwd
rm -f "$FAKE_ROCPROF_LOG"
FAKE_ROCPROF_KERNELS="softmax_kernel_0:12:30000:96,softmax_kernel_0_bwd:12:40000:96" fp capture softmax_kernel_0 \
  --invocation true --bundle "$T/b7"
[ "$RC" = 0 ] || fail "anchored exit $RC"
[ "$(jget $T/b7/capture.json 'd["kernel_regex"]')" = '^softmax_kernel_0$' ] || fail "anchored regex"
# dispatches 11 and 15 = iterations 6 and 8 of softmax_kernel_0 (1st kernel of each round); bwd's would add 12, 16
[ "$(jget $T/b7/capture.json '[e["dispatch"] for e in d["tags"]["big"]["inventory"]]')" = "[11, 15]" ] \
  || fail "traced dispatches $(jget $T/b7/capture.json '[e["dispatch"] for e in d["tags"]["big"]["inventory"]]')"
# 6. a rocpd schema other than 3.x (4.1.0 is in the rocm-systems tree) is a clear BAD_INPUT
FAKE_ROCPROF_VERSION=1.3.0 FAKE_ROCPROF_ROCPD_SCHEMA=4.1.0 fp capture softmax --bundle "$T/b8"
expect_error BAD_INPUT 65
[ "$(jget $T/out.json '"schema_version 4.1.0 is not supported" in d["error"]["message"]')" = True ] || fail "schema msg"
FAKE_ROCPROF_ROCPD_SCHEMA=4.1.0 "$FLYPROF" counters -q --bundle "$T/b1" --kernel softmax_kernel_0 --gpu-name MI350X \
  --output-format rocpd -f json -- true > "$T/c4.json"
[ $? = 65 ] && jget "$T/c4.json" 'd["error"]["code"]' | grep -qx BAD_INPUT || fail "counters schema 4"
FAKE_ROCPROF_VERSION=1.3.0 FAKE_ROCPROF_ROCPD_SCHEMA=3.0.2 fp capture softmax --bundle "$T/b9"
[ "$RC" = 0 ] || { cat "$T/out.json" "$T/err.txt" >&2; fail "schema 3.0.2 accepted"; }
# 7. a workload whose kernels run in 2 processes: -o discover_%pid% / out_%pid% keep one set each
#    (a fixed -o name is clobbered: the fake writes both processes into the same files)
FAKE_ROCPROF_PROCS=2 "$R" --kernel-trace --stats -f csv -d "$T/fixed" -o discover -- true 2>/dev/null
[ "$(ls "$T/fixed" | grep -c kernel_stats.csv)" = 1 ] || fail "fixed name: one (clobbered) set"
FAKE_ROCPROF_PROCS=2 fp capture softmax --bundle "$T/b10"
[ "$RC" = 0 ] || fail "2 processes exit $RC"
[ "$(ls "$T/b10/rocprof/discovery" | grep -c '^discover_[0-9]*_kernel_stats.csv$')" = 2 ] || fail "2 discovery sets"
[ "$(jget $T/b10/capture.json 'd["calls"]')" = 24 ] || fail "merged calls $(jget $T/b10/capture.json 'd["calls"]') (12 per process)"
[ "$(jget $T/out.json 'any("2 processes wrote kernel traces" in w for w in d["warnings"])')" = True ] || fail "merge warning"
[ "$(ls "$T/b10/att/big" | grep -c '^out_[0-9]*_kernel_trace.csv$')" = 2 ] || fail "2 ATT sets"
[ -f "$T/b10/rocprof/big/kernel_trace.csv" ] || fail "tag kernel trace copied"
"$FLYPROF" kernels --bundle "$T/b10" -f json > "$T/k.json" && [ "$(jget $T/k.json 'd["data"]["kernels"][1]["calls"]')" = 24 ] \
  || fail "kernels merges the sets: $(head -c 300 $T/k.json)"
echo ok
