#!/bin/bash
# report: fixture bundles from the generator with known expected recommendations,
# artifacts, determinism, optional evidence, "already optimal", NO_RECOMMENDATION,
# and typed errors for bad or missing inputs.
set -u
: "${FLYPROF:?}" "${FP_TOOLS:?}" "${FP_SRC:?}"
T=$(mktemp -d)
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
gen() { "$FP_TOOLS/fp_gen_att" "$FP_SRC/tests/data/gen/$1.json" "$T/$2" >/dev/null || fail "generator $1"; }
# py FILE EXPR: evaluate EXPR with j = the JSON document in FILE, print the result
py() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }

gen rep_stream stream
gen rep_spill spill
gen rep_quiet quiet

# ---- memory-bound stream: the load is consumed right after it is issued ----
"$FLYPROF" report --bundle "$T/stream" -f json -q > "$T/env.json"; rc=$?
[ $rc -eq 0 ] || fail "stream exit $rc"
[ "$(py "$T/env.json" "j['ok']")" = True ] || fail "stream not ok"
R="$T/stream/report.json"
for f in report.json headlines.json REPORT.md report.html; do [ -s "$T/stream/$f" ] || fail "missing $f"; done
[ "$(py "$R" "j['arch']")" = gfx950 ] || fail "arch"
[ "$(py "$R" "j['product']")" = "AMD Instinct MI350X" ] || fail "product"
# waits on global memory while even the trace's upper bound on HBM bytes (7.3 MB per dispatch over
# the CSV's 20 us) is 4.6 % of the MI350X's 8 TB/s: latency (too few bytes in flight), not bandwidth
[ "$(py "$R" "j['bound_type']")" = latency ] || fail "bound"
[ "$(py "$R" "j['bound']['rule']")" = vmem_starved_trace ] || fail "bound rule"
[ "$(py "$R" "j['sol']['hbm']['trace']['bytes_per_dispatch']")" = 7340032 ] || fail "sol requested bytes"
# unique bytes (issue 23): the load reads v10 = 0 + a kernel-argument base, the same 1 KiB in every
# workgroup (6 executions x 16 B x 64 lanes per wave, once per 4-wave workgroup = 24 KiB); the store
# (1 KiB per wave x 1024 waves) is the workgroup's own: 1048576 + 24576 = 1073152 B = 0.67 % of peak
[ "$(py "$R" "j['sol']['hbm']['bytes_per_dispatch']")" = 1073152 ] || fail "sol unique bytes"
[ "$(py "$R" "(j['sol']['hbm']['pct_of_peak'], j['sol']['hbm']['trace']['unique_pct_of_peak'], j['sol']['hbm']['clamped'])")" = \
    "(0.67, 0.67, False)" ] || fail "sol unique pct"
[ "$(py "$R" "(j['sol']['hbm']['trace']['shared_load_instructions'], j['sol']['hbm']['trace']['shared_load_bytes_traced'])")" = \
    "(1, 24576)" ] || fail "sol shared loads"
[ "$(py "$R" "j['sol']['hbm']['source']")" = trace ] || fail "sol source"
[ "$(py "$R" "j['launch']['workgroups']")" = 256 ] || fail "launch workgroups"
[ "$(py "$R" "j['launch']['underfilled']")" = False ] || fail "launch underfilled"
[ "$(py "$R" "j['capture_quality']['representative']")" = True ] || fail "representative"
[ "$(py "$R" "j['recommendations'][0]['rule']")" = vmem_prefetch ] || fail "rank 1 should be vmem_prefetch"
[ "$(py "$R" "[r['rule'] for r in j['recommendations']]")" = "['vmem_prefetch', 'load_use_distance']" ] ||
    fail "stream rules: $(py "$R" "[r['rule'] for r in j['recommendations']]")"
# evidence: hottest wait at the .py line, its snippet, its producer with a measured load-to-use
H="j['recommendations'][0]['evidence']['hottest']"
[ "$(py "$R" "$H['source']")" = /synthetic/kernels/rep_stream.py:14 ] || fail "hottest source"
[ "$(py "$R" "$H['inst']")" = "s_waitcnt vmcnt(0)" ] || fail "hottest inst"
[ "$(py "$R" "$H['snippet']")" = "acc = acc + x   # used right after the load" ] || fail "snippet"
[ "$(py "$R" "$H['waits_on'][0]['code_line']")" = 4 ] || fail "producer line"
[ "$(py "$R" "$H['waits_on'][0]['load_to_use_cycles'] > 700")" = True ] || fail "load-to-use cycles"
[ "$(py "$R" "j['recommendations'][0]['acceptance']['kind']")" = line_stall_drop ] || fail "acceptance kind"
# issue 17: the traced-time gain (> 50 %) scaled to the kernel by traced wave span / kernel duration
[ "$(py "$R" "j['recommendations'][0]['evidence']['class_gain_pct'] > 50")" = True ] || fail "class gain"
[ "$(py "$R" "abs(j['recommendations'][0]['est_gain_pct'] - round(j['recommendations'][0]['evidence']['class_gain_pct'] * round(j['time']['trace']['span_ns'] / j['time']['ns'], 3), 2)) <= 0.02")" = True ] ||
    fail "gain: $(py "$R" "(j['recommendations'][0]['est_gain_pct'], j['time'])")"
[ "$(py "$R" "j['recommendations'][0]['confidence_label']")" = high ] || fail "confidence"
# ranks 1..n, gains non-increasing
[ "$(py "$R" "all(r['rank']==i+1 for i,r in enumerate(j['recommendations']))")" = True ] || fail "ranks"
[ "$(py "$R" "all(a['est_gain_pct']>=b['est_gain_pct'] for a,b in zip(j['recommendations'],j['recommendations'][1:]))")" = True ] || fail "order"
# occupancy from the kernel_trace.csv row (gfx950 under-count doubled: 32 -> 64 VGPRs -> 8 waves/SIMD)
[ "$(py "$R" "j['occupancy']['waves_per_simd']")" = 8 ] || fail "occupancy"
# missing evidence is said
[ "$(py "$R" "sorted(m['artifact'] for m in j['evidence']['missing'])")" = "['bubbles.json', 'capture.json', 'counters.json', 'map.json', 'tile.json']" ] ||
    fail "missing evidence: $(py "$R" "[m['artifact'] for m in j['evidence']['missing']]")"
grep -q '^# rep_stream_kernel_0 - gfx950 / AMD Instinct MI350X profiling report' "$T/stream/REPORT.md" || fail "md title"
grep -q '^## 6. Ranked Optimization Opportunities' "$T/stream/REPORT.md" || fail "md section 6"
grep -q '^### Priority order' "$T/stream/REPORT.md" || fail "md priority order"
grep -q '<svg\|No flamegraph' "$T/stream/report.html" || fail "html flamegraph section"
grep -q '<script' "$T/stream/report.html" && fail "html must not carry scripts"
[ "$(py "$T/stream/headlines.json" "j['top_recommendation']['rule']")" = vmem_prefetch ] || fail "headlines"

# deterministic: re-running gives the same report.json bytes
cp "$R" "$T/first.json"
"$FLYPROF" report --bundle "$T/stream" -f json -q > /dev/null || fail "second run"
cmp -s "$R" "$T/first.json" || fail "report.json not deterministic"

# -f table: headline + ranked plan
"$FLYPROF" report --bundle "$T/stream" -f table -q > "$T/table.txt" || fail "table"
grep -q '^1 .*vmem_prefetch' "$T/table.txt" || fail "table rank 1"

# ---- spills: scratch reloads waited on ----
"$FLYPROF" report --bundle "$T/spill" -f json -q > /dev/null || fail "spill"
R2="$T/spill/report.json"
[ "$(py "$R2" "j['recommendations'][0]['rule']")" = scratch_spill ] || fail "spill rank 1"
[ "$(py "$R2" "j['recommendations'][0]['evidence']['selection']")" = "waits mainly on scratch producers" ] || fail "spill selection"
[ "$(py "$R2" "j['signals']['trace.scratch_insts']")" = 48 ] || fail "scratch count"

# ---- capture.json + tile.json + counters.json at the roof -> already optimal ----
cat > "$T/stream/capture.json" <<'EOF'
{"schema": 1, "kernel": "rep_stream_kernel_0", "recipe_kernel": "rep_stream", "arch": "gfx950",
 "shape": "65536,bf16", "invocation": "python tests/kernels/test_rep_stream.py --n 6",
 "tags": {"big": {"status": "ok", "att_dir": "att", "kept_dispatch": "ui_output_agent_700_dispatch_3"}}}
EOF
cat > "$T/stream/tile.json" <<'EOF'
{"evaluated": {"tile": {"BM": 128, "BN": 64, "BK": 32}}}
EOF
cat > "$T/stream/counters.json" <<'EOF'
{"schema": 1, "kernel": "rep_stream_kernel_0", "duration_ns": 20000,
 "metrics": {"hbm_pct_of_peak": {"value": 91.0, "unit": "%"}, "hbm_gbs": {"value": 7280.0, "unit": "GB/s"},
             "l2_hit_pct": {"value": 3.0, "unit": "%"}, "partial_32b_pct": {"value": 0.0, "unit": "%"}}}
EOF
"$FLYPROF" report --bundle "$T/stream" -f json -q > "$T/env.json"; rc=$?
[ $rc -eq 0 ] || fail "optimal exit $rc"
[ "$(py "$R" "j['optimal']")" = True ] || fail "optimal not reached"
[ "$(py "$R" "j['bound']['optimal_rule']")" = near_roof ] || fail "roof rule"
[ "$(py "$R" "len(j['recommendations'])")" = 0 ] || fail "optimal must not recommend"
[ "$(py "$R" "j['workload']['tile']")" = "BM=128 BN=64 BK=32" ] || fail "real tile"
[ "$(py "$R" "j['repro']")" = "flyprof run rep_stream --shape 65536,bf16 --invocation 'python tests/kernels/test_rep_stream.py --n 6'" ] ||
    fail "repro: $(py "$R" "j['repro']")"
grep -q 'Already optimal' "$T/stream/REPORT.md" || fail "md optimal"
# counters replace the trace estimate in sol.hbm, and both are shown (issue 9)
[ "$(py "$R" "j['sol']['hbm']['source']")" = counters ] || fail "sol source with counters"
[ "$(py "$R" "j['sol']['hbm']['pct_of_peak']")" = 91 ] || fail "sol pct from counters"
[ "$(py "$R" "j['sol']['hbm']['bytes_per_dispatch']")" = 145600000 ] || fail "sol bytes = 7280 GB/s x 20000 ns"
[ "$(py "$R" "j['sol']['hbm']['trace']['pct_of_peak']")" = 4.59 ] || fail "trace estimate kept beside counters"
[ "$(py "$R" "j['bound']['at_roof'] and j['bound']['roof_source'] == 'counters'")" = True ] || fail "roof from counters"
grep -q 'Speed of light: HBM 7280 GB/s = 91.0% of 8000 GB/s peak (counters) \[trace estimate 4.6%\]' "$T/stream/REPORT.md" ||
    fail "md: counters and trace side by side"
[ "$(py "$R" "'the counters measure 91.0% of peak HBM but the trace' in j['capture_quality']['representative_reasons'][0]")" = True ] ||
    fail "counters above the trace's upper bound must be flagged"

# ---- bad artifacts: typed errors, nothing half-written ----
echo '{"metrics": {"hbm_pct_of_peak": {"value": "high"}}}' > "$T/stream/counters.json"
"$FLYPROF" report --bundle "$T/stream" -f json -q > "$T/env.json"; rc=$?
[ $rc -eq 65 ] || fail "wrong-typed counters exit $rc"
[ "$(py "$T/env.json" "j['error']['code']")" = BAD_INPUT ] || fail "wrong-typed counters code"
printf '{"schema": 1, "kernel": ' > "$T/stream/counters.json"
"$FLYPROF" report --bundle "$T/stream" -f json -q > "$T/env.json"; rc=$?
[ $rc -eq 65 ] || fail "truncated counters exit $rc"
rm "$T/stream/counters.json"
echo '[]' > "$T/stream/capture.json"
"$FLYPROF" report --bundle "$T/stream" -f json -q > "$T/env.json"; rc=$?
[ $rc -eq 65 ] || fail "capture.json array exit $rc"
echo '{"totals": 3, "classes": []}' > "$T/stream/bubbles.json"
rm "$T/stream/capture.json"
"$FLYPROF" report --bundle "$T/stream" -f json -q > "$T/env.json"; rc=$?
[ $rc -eq 65 ] || fail "bad bubbles.json exit $rc"
rm "$T/stream/bubbles.json"

"$FLYPROF" report --bundle "$T/nope" -f json -q > "$T/env.json"; rc=$?
[ $rc -eq 66 ] || fail "missing bundle exit $rc"
[ "$(py "$T/env.json" "j['error']['code']")" = NO_ARTIFACT ] || fail "missing bundle code"
mkdir -p "$T/empty"
"$FLYPROF" report --bundle "$T/empty" -f json -q > "$T/env.json"; rc=$?
[ $rc -eq 66 ] || fail "empty bundle exit $rc"
[ "$(py "$T/env.json" "j['error']['code']")" = NO_ARTIFACT ] || fail "empty bundle code"
"$FLYPROF" report --bundle "$T/stream" --tag ../../etc -f json -q > "$T/env.json"; rc=$?
[ $rc -eq 78 ] || fail "hostile tag exit $rc"
"$FLYPROF" report --bundle "$T/stream" --bogus -f json -q > "$T/env.json"; rc=$?
[ $rc -eq 64 ] || fail "unknown flag exit $rc"

# a dispatch dir as --bundle: nothing written next to it unless --out-dir
D=$(ls -d "$T"/stream/att/ui_output_agent_*)
"$FLYPROF" report --bundle "$D" -f json -q > "$T/env.json" || fail "dispatch dir"
[ -e "$D/report.json" ] && fail "wrote into the dispatch dir"
[ "$(py "$T/env.json" "j['data']['recommendations'][0]['rule']")" = vmem_prefetch ] || fail "dispatch dir rank 1"
"$FLYPROF" report --bundle "$D" --out-dir "$T/out" -f json -q > /dev/null || fail "--out-dir"
[ -s "$T/out/report.json" ] || fail "--out-dir report.json"

# read-only bundle -> IO_ERROR, no temp files left
chmod a-w "$T/spill"
if [ "$(id -u)" != 0 ]; then
    "$FLYPROF" report --bundle "$T/spill" -f json -q > "$T/env.json"; rc=$?
    [ $rc -eq 74 ] || fail "read-only exit $rc"
fi
chmod u+w "$T/spill"

# ---- nothing fires -> NO_RECOMMENDATION (66), the files still written ----
"$FLYPROF" report --bundle "$T/quiet" --out-dir "$T/qout" -f json -q > "$T/env.json"; rc=$?
[ $rc -eq 66 ] || fail "quiet exit $rc"
[ "$(py "$T/env.json" "j['error']['code']")" = NO_RECOMMENDATION ] || fail "quiet code"
[ -s "$T/qout/report.json" ] || fail "quiet report.json"
[ "$(py "$T/qout/report.json" "len(j['recommendations'])")" = 0 ] || fail "quiet recs"
echo ok
