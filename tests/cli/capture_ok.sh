#!/bin/bash
# capture end to end through the fake rocprofv3: discovery, match, auto
# iteration set, both tags, registers (gfx950 under-count), env of the runs.
. "$(dirname "$0")/lib/capture_env.sh"
B=$T/b
fp capture softmax --bundle "$B" --shape 4096,8192,bf16 --tag both --gpu 3
[ "$RC" = 0 ] || { cat "$T/out.json" "$T/err.txt"; fail "capture exit $RC"; }
C=$B/capture.json
[ "$(jget $C 'd["status"]')" = ok ] || fail status
[ "$(jget $C 'd["kernel"]')" = softmax_kernel_0 ] || fail kernel
# the library kernel is heavier but the name matches softmax_kernel_0
[ "$(jget $C 'd["match_confidence"]')" = name ] || fail confidence
[ "$(jget $C 'd["discovery"]["candidates"][0]["library"]')" = True ] || fail "library flag"
# 12 calls -> warm iterations {6, 8}, written as an explicit set
[ "$(jget $C 'd["iter_range"]')" = "[6, 8]" ] || fail iter_range
# the ATT input is JSON (rocprofv3 needs PyYAML for .yaml, the standard library for .json)
[ ! -e "$B/rocprof/big/input_att.yaml" ] || fail "yaml input written"
[ "$(jget "$B/rocprof/big/input_att.json" 'd["jobs"][0]["kernel_iteration_range"]')" = "[6, 8]" ] || fail "json range"
[ "$(jget "$B/rocprof/big/input_att.json" 'd["jobs"][0]["kernel_include_regex"]')" = '^softmax_kernel_0$' ] || fail "json regex (anchored)"
for tag in small big; do
  [ "$(jget $C "d['tags']['$tag']['status']")" = ok ] || fail "$tag status"
  kept=$(jget $C "d['tags']['$tag']['kept_dispatch']")
  [ -f "$B/att/$tag/$kept/code.json" ] || fail "$tag kept dir $kept"
  # dispatches 12 and 16 = iterations 6 and 8 of softmax (2nd kernel of each round)
  [ "$(jget $C "[e['dispatch'] for e in d['tags']['$tag']['inventory']]")" = "[12, 16]" ] || fail "$tag inventory"
  [ "$(jget $C "d['tags']['$tag']['mapped_pct']")" = 100 ] || fail "$tag mapped"
  [ -f "$B/rocprof/$tag/kernel_trace.csv" ] || fail "$tag kernel_trace.csv"
done
[ "$(jget $C 'd["tags"]["small"]["shape"]')" = "512,8192,bf16" ] || fail "small shape"
# VGPR_Count 48 with SDK 1.1.0 on gfx950 is half of the real 96
[ "$(jget $C 'd["tags"]["big"]["registers"]["total_vgpr"]')" = 96 ] || fail total_vgpr
[ "$(jget $C 'd["tags"]["big"]["registers"]["gfx950_undercount_corrected"]')" = True ] || fail corrected
[ "$(jget $C 'd["worktree"]["commit"] is not None and len(d["worktree"]["commit"])')" = 40 ] || fail commit
[ "$(jget $C 'd["worktree"]["dirty"]')" = False ] || fail dirty
[ "$(jget $C 'd["rocprofv3"]["version"]')" = 1.1.0 ] || fail version
[ "$(jget $C 'len(d["commands"])')" = 3 ] || fail "3 runs"
[ "$(jget $C 'd["invocation"]')" = "ROCDSL_SOFTMAX_SHAPES=4096,8192,bf16 $FLYPROF_PYTHON tests/kernels/test_softmax.py" ] \
  || [ -z "${FLYPROF_PYTHON:-}" ] || fail "invocation $(jget $C 'd["invocation"]')"
[ "$(jget $C 'd["invocation_detail"]["argv"][1]')" = tests/kernels/test_softmax.py ] || fail "invocation argv"
[ "$(jget $C 'd["recipe_kernel"]')" = softmax ] || fail recipe_kernel
[ "$(jget $C 'd["product"]')" = "AMD Instinct MI350X" ] || fail product
[ "$(jget $C 'd["tags"]["big"]["arch_vgpr"]')" = 96 ] || fail "arch_vgpr = combined on corrected gfx950"
# the workload saw the shape; every run had the debug info, the GPU and a per-pass cache
grep -q "softmax shapes 4096,8192,bf16" "$B/rocprof/big/rocprofv3.stdout.txt" || fail "shape env"
grep -q "softmax shapes 512,8192,bf16" "$B/rocprof/small/rocprofv3.stdout.txt" || fail "small shape env"
"$PY" - "$FAKE_ROCPROF_LOG" "$B" <<'PY' || exit 1
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
assert len(runs) == 3, runs
for r in runs:
    e = r["env"]
    assert e["FLYDSL_DEBUG_ENABLE_DEBUG_INFO"] == "1", e
    assert e["HIP_VISIBLE_DEVICES"] == "3", e
    assert e["FLYDSL_RUNTIME_CACHE_DIR"].startswith(sys.argv[2] + "/.cache/"), e
assert runs[0]["argv"][1:5] == ["--stats", "--kernel-trace", "-f", "csv"], runs[0]["argv"]
assert runs[1]["jobs"][0]["att"] and runs[1]["jobs"][0]["att_buffer_size"] == 0x10000000
PY
# the envelope carries the same document
[ "$(jget $T/out.json 'd["data"]["kernel"]')" = softmax_kernel_0 ] || fail envelope
[ "$(jget $T/out.json 'd["bundle"]')" = "$B" ] || fail "envelope bundle"
echo ok
