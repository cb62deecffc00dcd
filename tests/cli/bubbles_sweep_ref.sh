#!/bin/bash
# The exposed-stall sweep (src/analysis/exposed.c, docs/exposed-stall.md) against an independent
# brute-force reference (tests/tools/sweep_ref.py) on 80 generated hostile dispatch dirs: 1-7
# waves per (SE, SIMD) spread over up to 3 CUs (seeds 40-47: 18-40 waves on two SIMDs of one CU,
# more resident at once than the sweep keeps in a sorted array; seeds 48-63: each wave begins
# while the one before is still in flight past its last item; seeds 64-79: 4-8 waves at once
# whose stalls close and open in one item on rows sharing a line or class (pass_stall); seeds
# 48-79 are read in chunks of 64 rows as well), records out of time order, stalls that overlap
# each other and their own wave's issue windows, drains, filenames.json absent or misdating a
# wave. Every figure must agree exactly: per SIMD issue / stall / exposed / lost, the totals,
# per instruction and class the exposed cycles, per instruction, line and class the lost ones.
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
REF="$FP_SRC/tests/tools/sweep_ref.py"
n=0
for seed in $(seq 0 79); do
    python3 "$REF" gen "$seed" "$T/d$seed" || fail "seed $seed: generator"
    "$FLYPROF" bubbles --bundle "$T/d$seed" -q --limit 0 --out "$T/b$seed.json" > "$T/e$seed.json" ||
        fail "seed $seed: bubbles exit $? ($(head -c 300 "$T/e$seed.json"))"
    python3 "$REF" check "$T/d$seed" "$T/b$seed.json" > "$T/r$seed" || fail "seed $seed: $(head -5 "$T/r$seed")"
    n=$((n + 1))
    [ "$seed" -ge 48 ] || continue
    # the "tails" seeds again with every wave read in chunks of 64 rows: its runs, one per chunk
    FLYPROF_WAVE_CHUNK_ROWS=64 "$FLYPROF" bubbles --bundle "$T/d$seed" -q --limit 0 --out "$T/c$seed.json" > "$T/e$seed.json" ||
        fail "seed $seed, chunks: bubbles exit $? ($(head -c 300 "$T/e$seed.json"))"
    python3 "$REF" check "$T/d$seed" "$T/c$seed.json" > "$T/r$seed" || fail "seed $seed, chunks: $(head -5 "$T/r$seed")"
    n=$((n + 1))
done
# the comparison can fail: another case's artifact is refused
python3 "$REF" check "$T/d1" "$T/b0.json" > /dev/null && fail "the reference accepted seed 0's artifact for seed 1"
echo "ok: $n hostile cases agree with the reference exactly"
