#!/bin/bash
# Issue 23 (items 1, 5, 8) on the real corpus: the dispatch's own facts, recomputed here from the
# raw files by an independent Python reference -- occupancy.json (every CU of the traced SEs),
# realtime.json, the wave files, kernel_trace.csv and code.json -- and compared with report.json:
# waves, workgroups (trace and CSV), which CSV rows are the traced dispatch, the median time and
# its spread, the wave span and its time, SIMD fill, per-wave / per-CU imbalance and the critical
# wave. tests/conformance/launch_facts/<case>.json holds what an engineer reading the trace
# concluded, with the reasoning; every corpus case must have one.
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
SPEC="$FP_SRC/tests/conformance/launch_facts"
n=0
while IFS=$'\t' read -r id _set _kernel _variant dispatch _rest; do
    [ "$id" = id ] && continue
    [ -f "$SPEC/$id.json" ] || fail "$id: no expectation file $SPEC/$id.json"
    "$FLYPROF" report --bundle "$C/$id/att/$dispatch" --out-dir "$T/$id" -q -f json > /dev/null || fail "$id: report exit $?"
    python3 "$FP_SRC/tests/conformance/launch_facts_ref.py" "$C/$id" "$C/$id/att/$dispatch" "$T/$id/report.json" \
        "$SPEC/$id.json" || fail "$id: launch facts"
    n=$((n + 1))
done < "$C/cases.tsv"
[ $n -gt 0 ] || fail "no case checked"
echo "ok: $n cases"
