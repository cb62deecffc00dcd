#!/usr/bin/env bash
# bench/gen_big.sh OUTDIR [WAVES] - write the synthetic scaling trace of issue 10
# (default 54,000 wave files of ~19 KB: ~1.1 GB, plus ~100 MB of wstates) with the
# project's generator, and print the dispatch dir. Needs ~1.3 GB of disk and
# ~3 GB of memory for about 2-3 minutes. Delete OUTDIR afterwards.
#   FP_BENCH_BIG=$(bench/gen_big.sh /tmp/big) bench/bubbles.sh build/flyprof 5
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: bench/gen_big.sh OUTDIR [WAVES]}
waves=${2:-54000}
gen=${FP_GEN:-$here/build/tests/fp_gen_att}
[ -x "$gen" ] || { echo "no generator at $gen (build first)" >&2; exit 2; }
[ ! -e "$out" ] || { echo "$out exists" >&2; exit 2; }
mkdir -p "$out"
avail=$(df -Pk "$out" | awk 'NR == 2 { print $4 }')
[ "$avail" -gt $((waves * 26)) ] || { echo "not enough space in $out" >&2; exit 2; }
python3 "$here/tests/tools/gen_scale_spec.py" "$waves" "$out/spec.json"
"$gen" "$out/spec.json" "$out/trace" > /dev/null
ls -d "$out"/trace/ui_output_agent_*
