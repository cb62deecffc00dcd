#!/bin/bash
# capture's handling of what real rocprofv3 runs do: truncated traces (retry
# with a bigger buffer), rocpd discovery on a newer SDK, a kernel called once,
# a warm cache without line info, a first empty shell, a non-zero exit.
. "$(dirname "$0")/lib/capture_env.sh"

# waves cut off at rocprofv3's 7.1 default 0x10000000, fine at twice that: one retry, recorded
FAKE_ROCPROF_ATT_NEED_BUFFER=0x18000000 fp capture softmax --bundle "$T/r1"
[ "$RC" = 0 ] || fail "retry run exit $RC"
C=$T/r1/capture.json
[ "$(jget $C 'len(d["tags"]["big"]["attempts"])')" = 2 ] || fail attempts
[ "$(jget $C 'd["tags"]["big"]["attempts"][0]["data_lost"]')" = True ] || fail "first lost"
[ "$(jget $C 'd["tags"]["big"]["attempts"][0]["att_buffer_size"]')" = 0x10000000 ] || fail "first buffer"
[ "$(jget $C 'd["tags"]["big"]["att_buffer_size"]')" = 0x20000000 ] || fail "retry buffer"
[ "$(jget $C 'd["tags"]["big"]["truncated"]')" = False ] || fail "retry fixed it"
[ "$(jget "$T/r1/rocprof/big/input_att_retry.json" 'd["jobs"][0]["att_buffer_size"]')" = 0x20000000 ] || fail "retry json"

# still lost after the retry: ok with a warning and truncated=true
FAKE_ROCPROF_MODE=truncated fp capture softmax --bundle "$T/r2"
[ "$RC" = 0 ] || fail "truncated exit $RC"
[ "$(jget $T/r2/capture.json 'd["tags"]["big"]["truncated"]')" = True ] || fail truncated
[ "$(jget $T/out.json 'any("still truncated" in w for w in d["warnings"])')" = True ] || fail "truncation warning"

# SDK 1.3.0: discovery through rocpd results.db, registers not doubled
FAKE_ROCPROF_VERSION=1.3.0 fp capture softmax --bundle "$T/r3"
[ "$RC" = 0 ] || fail "rocpd exit $RC"
[ "$(jget $T/r3/capture.json 'd["discovery"]["format"]')" = rocpd ] || fail "rocpd format"
ls "$T"/r3/rocprof/discovery/discover_*_results.db >/dev/null 2>&1 || fail "results.db (one per process: -o discover_%pid%)"
[ "$(jget $T/r3/capture.json 'd["calls"]')" = 12 ] || fail "rocpd calls"
[ "$(jget $T/r3/capture.json 'd["tags"]["big"]["registers"]["gfx950_undercount_corrected"]')" = False ] || fail fixed-sdk
[ "$(jget $T/r3/capture.json 'd["tags"]["big"]["registers"]["total_vgpr"]')" = 96 ] || fail "total 96"

# a kernel called once: iteration 1, which exists (the prototype asked for 2)
FAKE_ROCPROF_KERNELS="softmax_kernel_0:1" fp capture softmax --bundle "$T/r4"
[ "$RC" = 0 ] || fail "once exit $RC"
[ "$(jget $T/r4/capture.json 'd["iter_range"]')" = "[1]" ] || fail "iter [1]"
[ "$(jget $T/r4/capture.json 'd["tags"]["big"]["dispatch"]')" = 1 ] || fail "dispatch 1"

# explicit set with one iteration beyond the calls: warning, the existing one traced
fp capture softmax --iter-range "[3, 40]" --bundle "$T/r5"
[ "$RC" = 0 ] || fail "partial range exit $RC"
[ "$(jget $T/r5/capture.json 'd["iter_range"]')" = "[3, 40]" ] || fail "range kept"
[ "$(jget $T/out.json 'any("exceed" in w for w in d["warnings"])')" = True ] || fail "exceed warning"

# no line info: captured, but the warning says why map will be empty
FAKE_ROCPROF_MODE=no-line-info fp capture softmax --bundle "$T/r6"
[ "$(jget $T/r6/capture.json 'd["tags"]["big"]["mapped_pct"]')" = 0 ] || fail "mapped 0"
[ "$(jget $T/out.json 'any("source line" in w for w in d["warnings"])')" = True ] || fail "mapping warning"

# first dispatch an empty shell: the second is kept, the shell stays in the inventory
FAKE_ROCPROF_MODE=first-empty fp capture softmax --bundle "$T/r7"
[ "$(jget $T/r7/capture.json 'd["tags"]["big"]["kept_dispatch"]')" = ui_output_agent_38430_dispatch_16 ] || fail kept
[ "$(jget $T/r7/capture.json '[e["empty"] for e in d["tags"]["big"]["inventory"]]')" = "[True, False]" ] || fail inv

# rocprofv3 exits non-zero after writing everything: captured, with warnings and the code recorded
FAKE_ROCPROF_EXIT=2 fp capture softmax --bundle "$T/r8"
[ "$RC" = 0 ] || fail "exit-2 run $RC"
[ "$(jget $T/r8/capture.json 'd["tags"]["big"]["exit_code"]')" = 2 ] || fail "exit code kept"
[ "$(jget $T/out.json 'sum("exited 2" in w for w in d["warnings"])')" = 2 ] || fail "exit warnings"

# with the project's ATT generator: a realistic dispatch dir, source mapped
FAKE_ROCPROF_GEN_SPEC=$FP_SRC/tests/data/gen/synthetic_gemm.json fp capture softmax --bundle "$T/r9"
[ "$RC" = 0 ] || fail "generator run $RC"
K=$(jget $T/r9/capture.json 'd["tags"]["big"]["kept_dispatch"]')
[ -f "$T/r9/att/big/$K/snapshots.json" ] || fail "generator snapshots"
[ "$(jget $T/r9/capture.json 'd["tags"]["big"]["mapped_pct"] > 90')" = True ] || fail "generator mapping"

# --invocation with an inline env assignment and an exact JIT kernel name
fp capture softmax_kernel_0 --invocation "MYVAR=1 sh -c 'echo \$MYVAR'" --bundle "$T/r10"
[ "$RC" = 0 ] || fail "invocation run $RC"
[ "$(jget $T/r10/capture.json 'd["match_confidence"]')" = exact ] || fail exact
[ "$(jget $T/r10/capture.json 'd["invocation_detail"]["env"]')" = "['MYVAR=1']" ] || fail "inline env"
[ "$(jget $T/r10/capture.json 'd["invocation"]')" = "MYVAR=1 sh -c 'echo \$MYVAR'" ] || fail "invocation string"
grep -qx 1 "$T/r10/rocprof/big/rocprofv3.stdout.txt" || fail "inline env reached the workload"
# --with-pmc: counters runs live on the same workload; its failure would only warn
fp capture softmax --with-pmc --bundle "$T/r11"
[ "$RC" = 0 ] || fail "with-pmc run $RC"
[ "$(jget $T/r11/capture.json 'd["pmc"]["status"]')" = ok ] || { cat "$T/r11/pmc/counters.envelope.json"; fail "pmc status"; }
[ -f "$T/r11/counters.json" ] || fail "counters.json"
ls "$T"/r11/pmc/group_1/pass_1/*counter_collection.csv "$T"/r11/pmc/group_1/pass_1/*results.db >/dev/null 2>&1 \
  || ls -R "$T/r11/pmc" | grep -q -e counter_collection -e results.db || fail "pmc outputs"
grep -q -- "--kernel softmax_kernel_0 --iterations 6,8" <<<"$(jget $T/r11/capture.json 'd["pmc"]["command"]')" || fail "pmc command"
# the counters child reads this capture's capture.json (written "running" before it starts): its
# duration is the median of THIS capture's kernel trace rows, not the serialised counter passes'
# timestamps, and a previous capture's capture.json in the same bundle is never what it reads
median_kt() { "$PY" - "$1" <<'PY2'
import csv, sys
d = sorted(int(r["End_Timestamp"]) - int(r["Start_Timestamp"]) for r in csv.DictReader(open(sys.argv[1]))
           if r["Kernel_Name"] == "softmax_kernel_0")
print(d[(len(d) - 1) // 2])
PY2
}
[ "$(jget $T/r11/counters.json 'd["duration_source"]')" = "kernel trace (capture.json)" ] || fail "pmc duration source"
[ "$(jget $T/r11/counters.json 'd["duration_ns"]')" = "$(median_kt "$T/r11/$(jget $T/r11/capture.json 'd["tags"]["big"]["kernel_trace_csv"]')")" ] ||
  fail "pmc duration is not the capture's kernel trace median"
mkdir -p "$T/r13/stale"
"$PY" - "$T/r11/capture.json" "$T/r13/capture.json" "$T/r11/rocprof/big/kernel_trace.csv" "$T/r13/stale/kernel_trace.csv" <<'PY2'
import csv, json, sys
c = json.load(open(sys.argv[1]))
c["tags"]["big"]["kernel_trace_csv"] = "stale/kernel_trace.csv"
json.dump(c, open(sys.argv[2], "w"))
rows = list(csv.DictReader(open(sys.argv[3])))
w = csv.DictWriter(open(sys.argv[4], "w"), fieldnames=list(rows[0]))
w.writeheader()
for r in rows:
    r["End_Timestamp"] = str(int(r["Start_Timestamp"]) + 10**9)  # a 1 s kernel: the stale figure
    w.writerow(r)
PY2
fp capture softmax --with-pmc --bundle "$T/r13"
[ "$RC" = 0 ] || fail "with-pmc over a stale capture.json: $RC"
[ "$(jget $T/r13/counters.json 'd["duration_ns"]')" = "$(median_kt "$T/r13/$(jget $T/r13/capture.json 'd["tags"]["big"]["kernel_trace_csv"]')")" ] ||
  fail "pmc duration from the previous capture: $(jget $T/r13/counters.json 'd["duration_ns"]')"
[ "$(jget $T/r13/capture.json 'd["status"]')" = ok ] || fail "final capture.json status"
FAKE_ROCPROF_HANG=pmc fp capture softmax --with-pmc --timeout 4 --bundle "$T/r12"
[ "$RC" = 0 ] || fail "pmc timeout must only warn: $RC"
[ "$(jget $T/r12/capture.json 'd["pmc"]["status"]')" = failed ] || fail "pmc failed status"
[ "$(jget $T/out.json 'any(w.startswith("pmc pass failed") for w in d["warnings"])')" = True ] || fail "pmc warning"
echo ok
