#!/bin/bash
# bundle: the canonical examples/<kernel>/ layout, complete enough that the
# example re-reports to the very report.json it ships; --no-clobber; a re-bundle
# replaces the example whole (no stale files); typed errors.
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

"$FP_TOOLS/fp_gen_att" "$FP_SRC/tests/data/gen/rep_stream.json" "$T/b" > /dev/null || fail generator
D=$(basename "$(ls -d "$T"/b/att/ui_output_agent_*)")
cat > "$T/b/capture.json" <<JSON
{"schema": 1, "status": "ok", "requested_kernel": "rep_stream", "kernel": "rep_stream_kernel_0", "arch": "gfx950",
 "shape": "65536,bf16", "recipe": {"name": "rep_stream", "source": "synthesized"},
 "invocation": "python tests/kernels/test_rep_stream.py",
 "gpu": {"index": 0, "arch": "gfx950", "product": "AMD Instinct MI350X"},
 "tags": {"big": {"status": "ok", "att_dir": "att", "kept_dispatch": "$D", "truncated": true,
                  "registers": {"total_vgpr": 256, "lds_bytes": 0, "sgpr_count": 32, "workgroup_size": 256}}}}
JSON
cat > "$T/b/counters.json" <<'JSON'
{"schema": 1, "kernel": "rep_stream_kernel_0", "duration_ns": 20000,
 "metrics": {"l2_hit_pct": {"value": 40.0}, "hbm_pct_of_peak": {"value": 20.0}}}
JSON
mkdir -p "$T/b/pmc/pass_1"
echo '"Dispatch_Id","Counter_Name","Counter_Value"' > "$T/b/pmc/pass_1/pmc_counter_collection.csv"

"$FLYPROF" bundle --bundle "$T/b" --examples-dir "$T/ex" -q -f json > "$T/env.json"; rc=$?
[ $rc -eq 0 ] || fail "bundle exit $rc"
E="$T/ex/rep_stream"
[ "$(py "$T/env.json" "j['data']['kernel']")" = rep_stream ] || fail "example name (recipe kernel)"
for f in README.md REPORT.md report.json headlines.json report.html capture.json counters.json bubbles.json \
         "att/$D/code.json" rocprof/kernel_trace.csv rocprof/agent_info.csv pmc/pass_1/pmc_counter_collection.csv; do
    [ -s "$E/$f" ] || fail "example lacks $f"
done
grep -q 'flyprof report --bundle examples/rep_stream' "$E/README.md" || fail "README usage"
# without --examples-dir (and no FLYPROF_EXAMPLES_DIR) it publishes under ./runs/examples,
# never into a ./examples of the directory it runs in
mkdir -p "$T/cwd/examples"
( cd "$T/cwd" && env -u FLYPROF_EXAMPLES_DIR "$FLYPROF" bundle --bundle "$T/b" -q -f json > /dev/null ) || fail "default root"
[ -s "$T/cwd/runs/examples/rep_stream/report.json" ] || fail "default root is not ./runs/examples"
[ -z "$(ls -A "$T/cwd/examples")" ] || fail "default root wrote into ./examples"
# the example re-reports to the same report.json
"$FLYPROF" report --bundle "$E" --out-dir "$T/re" -q -f json > /dev/null || fail "re-report"
cmp -s "$E/report.json" "$T/re/report.json" || fail "re-report differs"
[ "$(py "$E/report.json" "j['repro']")" = "flyprof run rep_stream --shape 65536,bf16 --invocation 'python tests/kernels/test_rep_stream.py'" ] ||
    fail "example repro"
# capture.json's combined registers drive the occupancy model: 512 / 256 = 2 waves per SIMD
[ "$(py "$E/report.json" "j['occupancy']['waves_per_simd']")" = 2 ] || fail "capture registers"
[ "$(py "$E/report.json" "j['occupancy']['source']")" = "capture.json registers.total_vgpr" ] || fail "register source"
# a truncated trace lowers the confidence of every recommendation
[ "$(py "$E/report.json" "j['capture_quality']['confidence_multiplier']")" = 0.8 ] || fail "truncation lowers confidence"
# counters were used: layout_l2 fires on the 40 % L2 hit rate
[ "$(py "$E/report.json" "'layout_l2' in [r['rule'] for r in j['recommendations']]")" = True ] || fail "counters in example"

# --no-clobber refuses, the example is untouched
touch "$E/stale.txt"
"$FLYPROF" bundle --bundle "$T/b" --examples-dir "$T/ex" --no-clobber -q -f json > "$T/env.json"; rc=$?
[ $rc -eq 78 ] || fail "--no-clobber exit $rc"
[ "$(py "$T/env.json" "j['error']['code']")" = BAD_ARGS ] || fail "--no-clobber code"
[ -e "$E/stale.txt" ] || fail "--no-clobber touched the example"
# without it the example is replaced whole
"$FLYPROF" bundle --bundle "$T/b" --examples-dir "$T/ex" -q -f json > /dev/null || fail "re-bundle"
[ -e "$E/stale.txt" ] && fail "stale file survived a re-bundle"
[ "$(ls -A "$T/ex" | wc -l)" = 1 ] || fail "temp dirs left behind: $(ls -A "$T/ex")"

# errors
"$FLYPROF" bundle --examples-dir "$T/ex" -q -f json > "$T/env.json"; rc=$?
[ $rc -eq 64 ] || fail "no --bundle exit $rc"
mkdir -p "$T/empty"
"$FLYPROF" bundle --bundle "$T/empty" --examples-dir "$T/ex2" -q -f json > "$T/env.json"; rc=$?
[ $rc -eq 66 ] || fail "empty bundle exit $rc"
[ -e "$T/ex2" ] && [ -n "$(ls -A "$T/ex2")" ] && fail "empty bundle left files"
echo ok
