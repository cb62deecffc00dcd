#!/bin/bash
# table_width.sh - every `-f table` rendering fits 100 columns by default: on
# the shipped example, through the fake rocprofv3 (doctor, list, tile,
# capture, counters, run, bundle, kernels), on every corpus case (bubbles, map,
# report, kernels, diff; skipped when ../shared/corpus is absent), help of every
# command and error details. `--wide` lifts the limit, $COLUMNS counts only on
# a terminal, source paths are shortened in tables but stay full in JSON.
# Exception: `hotspots -f table` is the reference analyzer's text byte for
# byte (tests/conformance/hotspots.sh), whose own lines reach ~137 columns.
. "$(dirname "$0")/lib/capture_env.sh"
mkdir -p "$T/bin" "$T/dec" "$T/out"
: > "$T/dec/librocprof-trace-decoder.so"
printf '#!/bin/sh\nprintf "Agent 2\\n  Name: gfx950\\n  Marketing Name: AMD Instinct MI350X\\n  Device Type: GPU\\n  Compute Unit: 256\\n"\n' \
  > "$T/bin/rocminfo"
chmod +x "$T/bin/rocminfo"
export PATH="$T/bin:$PATH" ROCPROF_ATT_LIBRARY_PATH="$T/dec"
export FAKE_ROCPROF_GEN_SPEC=$FP_SRC/tests/data/gen/synthetic_gemm.json
unset COLUMNS

n=0
# tw NAME CMD... : run with -f table (stdout to a file, as in CI), keep stdout+stderr
tw() {
  local name=$1; shift
  "$FLYPROF" -f table "$@" > "$T/out/$name.txt" 2> "$T/out/$name.err"
  echo $? > "$T/out/$name.rc"
  n=$((n + 1))
}
EX=$FP_SRC/examples/synthetic_gemm
D=$(ls -d "$EX"/att/ui_output_agent_*)

tw doctor doctor
tw list list
tw tile tile --shape 4096,4096,4096 --dtype bf16 --gpu-name MI350X
tw capture capture softmax --bundle "$T/b" --shape 4096,8192,bf16
tw counters counters --bundle "$T/b" --kernel softmax -- true
tw run run softmax --bundle "$T/r" --shape 4096,8192,bf16 --skip-bundle --no-pmc
tw ex_kernels kernels --bundle "$EX"
tw kernels_capture kernels --bundle "$T/b"
tw ex_bubbles bubbles --bundle "$D" --out "$T/ex.bubbles.json"
tw ex_map map --bundle "$D" --out-dir "$T/ex"
tw ex_report report --bundle "$D" --out-dir "$T/ex"
tw ex_bundle bundle --bundle "$T/r" --examples-dir "$T/examples"
tw ex_diff diff --before "$T/ex" --after "$T/r" --no-write
tw rules rules
for c in $("$FLYPROF" help -f json | jget - '" ".join(c["name"] for c in d["data"]["commands"])'); do
  tw "help_$c" help "$c"
done
tw help help
# error details: the dispatches that exist, in table mode too
tw err_dispatch report --bundle "$EX" --dispatch 999 --out-dir "$T/nope"
[ "$(cat "$T/out/err_dispatch.rc")" = 66 ] || fail "dispatch out of range: exit $(cat "$T/out/err_dispatch.rc")"
grep -q "available" "$T/out/err_dispatch.err" || fail "table-mode error lacks the available dispatches: $(cat "$T/out/err_dispatch.err")"
grep -q "dispatch_3" "$T/out/err_dispatch.err" || fail "table-mode error lacks dispatch_3: $(cat "$T/out/err_dispatch.err")"

C=${FP_CORPUS:-}
if [ -n "$C" ] && [ -f "$C/cases.tsv" ]; then
  prev=
  while IFS=$'\t' read -r id _set _kernel _variant dispatch _rest; do
    [ "$id" = id ] && continue
    CD="$C/$id/att/$dispatch"
    tw "$id.kernels" kernels --csv "$C/$id/rocprof/kernel_trace.csv" --limit 0
    tw "$id.bubbles" bubbles --bundle "$CD" --out "$T/$id.bubbles.json"
    tw "$id.map" map --bundle "$CD" --out-dir "$T/$id"
    tw "$id.report" report --bundle "$CD" --out-dir "$T/$id"
    [ -n "$prev" ] && tw "$id.diff" diff --before "$T/$prev" --after "$T/$id" --no-write
    prev=$id
  done < "$C/cases.tsv"
else
  echo "corpus not found at '$C': corpus cases skipped (the synthetic ones ran)"
fi

# every run succeeded (but the error on purpose) and no line is over 100 columns
"$PY" - "$T/out" <<'PY' || fail "table width"
import os, sys
out = sys.argv[1]
bad = []
for f in sorted(os.listdir(out)):
    if not f.endswith(".txt"):
        continue
    name = f[:-4]
    rc = open(os.path.join(out, name + ".rc")).read().strip()
    if rc != "0" and not name.startswith("err_"):
        bad.append(f"{name}: exit {rc}: {open(os.path.join(out, name + '.err')).read()[:300]}")
        continue
    # stdout is the table; stderr is progress (a log), except for the error cases
    for stream in (".txt", ".err") if name.startswith("err_") else (".txt",):
        for i, line in enumerate(open(os.path.join(out, name + stream), encoding="utf-8").read().split("\n")):
            if len(line) > 100:
                bad.append(f"{name}{stream}:{i + 1}: {len(line)} columns: {line[:120]}")
if bad:
    print("\n".join(bad[:40]))
    sys.exit(1)
PY

# run's table starts with the report's headline
h=$(jget "$T/r/run.json" '[s["summary"] for s in d["steps"] if s["name"]=="report"][0]')
[ -n "$h" ] || fail "run.json has no report headline"
head -1 "$T/out/run.txt" | grep -qF "${h:0:50}" || fail "run table does not start with the headline: $(head -3 "$T/out/run.txt")"
grep -Eq "^  capture +ok +[0-9.]+ s  softmax" "$T/out/run.txt" || fail "run table lacks the capture timing"

# the one-line answer first: doctor's verdict, list's count
head -1 "$T/out/doctor.txt" | grep -Eq "^flyprof doctor: (ready|not-ready)" || fail "doctor headline: $(head -1 "$T/out/doctor.txt")"
head -1 "$T/out/list.txt" | grep -Eq "^[0-9]+ kernel\(s\): " || fail "list headline: $(head -1 "$T/out/list.txt")"

# source paths: short in the table, full in JSON
grep -q "gemm_kernel.py:65" "$T/out/ex_report.txt" || fail "report table lacks the source line"
if grep -q "/gemm_kernel.py" "$T/out/ex_report.txt"; then fail "report table still shows a full source path"; fi
"$FLYPROF" report --bundle "$D" --out-dir "$T/ex" -f json -q > "$T/rep.json" || fail "report json"
grep -q '/[^"]*gemm_kernel.py:65' "$T/rep.json" || fail "report json lost the full source path"

# --wide: nothing is wrapped (the long rules lines come back); $COLUMNS needs a terminal
"$FLYPROF" rules -f table --wide > "$T/wide.txt" || fail "rules --wide"
"$PY" -c "import sys; sys.exit(0 if max(map(len, open(sys.argv[1]).read().split(chr(10)))) > 100 else 1)" \
  "$T/wide.txt" || fail "--wide did not lift the width"
COLUMNS=60 "$FLYPROF" rules -f table > "$T/cols.txt" || fail "rules COLUMNS"
cmp -s "$T/cols.txt" "$T/out/rules.txt" || fail "\$COLUMNS applied although stdout is not a terminal"
if command -v script > /dev/null; then
  COLUMNS=60 script -qec "\"$FLYPROF\" rules -f table" /dev/null > "$T/tty.txt" 2>&1
  "$PY" -c "
import sys
import re
# visible width: the colour a terminal gets (SGR escapes) takes no column
ls = re.sub('\x1b\\[[0-9;]*m', '', open(sys.argv[1], encoding='utf-8').read()).replace('\r', '').split('\n')
sys.exit(0 if ls and max(map(len, ls)) <= 60 else 1)" "$T/tty.txt" || fail "\$COLUMNS=60 on a terminal not respected"
  # without $COLUMNS (bash does not export it), a 60-column terminal narrows the default
  env -u COLUMNS script -qec "stty cols 60; \"$FLYPROF\" rules -f table" /dev/null > "$T/tty2.txt" 2>&1
  "$PY" -c "
import sys
import re
# visible width: the colour a terminal gets (SGR escapes) takes no column
ls = re.sub('\x1b\\[[0-9;]*m', '', open(sys.argv[1], encoding='utf-8').read()).replace('\r', '').split('\n')
sys.exit(0 if len(ls) > 20 and max(map(len, ls)) <= 60 else 1)" "$T/tty2.txt" || fail "a 60-column terminal not respected"
fi
echo "ok: $n table renderings within 100 columns"
