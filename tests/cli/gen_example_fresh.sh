#!/usr/bin/env bash
# gen_example_fresh.sh - examples/synthetic_gemm is exactly what the generator
# makes from tests/data/gen/synthetic_gemm.json today: regenerate it into a temp
# dir and diff, so the shipped example never drifts from the generator.
set -u
: "${FP_TOOLS:?FP_TOOLS must point to the built test tools}"
: "${FP_SRC:?FP_SRC must point to the source root}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$FP_TOOLS/fp_gen_att" "$FP_SRC/tests/data/gen/synthetic_gemm.json" "$T/out" || { echo "FAIL: generator"; exit 1; }
ex="$FP_SRC/examples/synthetic_gemm"
[ -d "$ex/att/ui_output_agent_4242_dispatch_3" ] || { echo "FAIL: example dispatch dir missing"; exit 1; }
# everything generated must be in the example, byte for byte ...
if ! diff -r "$T/out/att" "$ex/att"; then
    echo "FAIL: examples/synthetic_gemm/att differs from the generator output (regenerate it, see its README)"
    exit 1
fi
if ! diff -r "$T/out/rocprof" "$ex/rocprof"; then
    echo "FAIL: examples/synthetic_gemm/rocprof differs from the generator output"
    exit 1
fi
# ... and the example holds nothing else but its README.
extra=$(cd "$ex" && ls -A | grep -v -x -e att -e rocprof -e README.md)
[ -z "$extra" ] || { echo "FAIL: unexpected files in the example: $extra"; exit 1; }
grep -q "SYNTHETIC" "$ex/README.md" || { echo "FAIL: README must say the data is synthetic"; exit 1; }
echo "ok: example is fresh"
