#!/usr/bin/env bash
# bench/hotspots.sh [FLYPROF] [N] - `flyprof hotspots` on every corpus case against two
# baselines run IN THE SAME RUN, round-robin (bench/paired.c; ratios taken within a round):
#   ref  the reference analyzer's computation under the system python3 (/usr/bin/python3):
#        bench/ref_hotspots.py, or the original script when FP_REF_ANALYZER names it
#   cat  `cat` of the bytes hotspots reads (code.json + kernel_trace.csv + agent_info.csv):
#        ref/cat is what a process that only reads those bytes, and computes nothing, reaches
#   exec `flyprof --version`: the start of any flyprof process; ref/exec is the highest ref/fp
#        any flyprof command could reach on this machine (the ceiling of the goal)
#   empty an empty C program (`int main(void){return 0;}`, cc -O2, dynamically linked against libc):
#        ref/empty is the highest ratio ANY C program could reach here (the ceiling of the ceiling)
# Prints per case: wall ms (median of N), peak RSS, ref/fp (goal >= 15 every case, >= 25 median),
# fp/cat, and instructions per input byte of flyprof (valgrind callgrind, one run; FP_BENCH_IR=0
# skips it). No hard-coded baseline: every figure comes from this run.
# Last line: the host's steal during the run (bench/steal.sh): above ~5 % wall ratios are noisy.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
FLYPROF=$(realpath "${1:-$here/build/flyprof}")
N=${2:-11}
CORPUS=${FP_CORPUS:-$here/../shared/corpus}
PY=${FP_PYTHON:-/usr/bin/python3}
REF=${FP_REF_ANALYZER:-$here/bench/ref_hotspots.py}
[ -x "$FLYPROF" ] || { echo "flyprof binary not found: $FLYPROF (pass it as \$1)" >&2; exit 2; }
[ -f "$CORPUS/cases.tsv" ] || { echo "corpus not found at $CORPUS" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/paired" "$here/bench/paired.c"
printf 'int main(void) { return 0; }\n' > "$tmp/empty.c"
cc -O2 -o "$tmp/empty" "$tmp/empty.c"
ir=${FP_BENCH_IR:-1}
command -v valgrind > /dev/null || ir=0

printf 'flyprof hotspots -f table vs %s %s and cat, round-robin, median of %s rounds\n' "$PY" "${REF#$here/}" "$N"
uptime
. "$here/bench/steal.sh"
steal_mark
printf '%-36s %9s %8s %8s %8s %7s %7s %7s %8s %9s %8s\n' case bytes fp_ms ref_ms cat_ms fp_MiB ref_MiB ref/fp fp/cat ref/exec ref/empty fp_Ir/B
ratios=""
ceil=""
ceil0=""
rcat=""
while IFS=$'\t' read -r id _set _kernel _variant dispatch _rest; do
    [ "$id" = id ] && continue
    att="$CORPUS/$id/att"
    files=("$att/$dispatch/code.json")
    for f in kernel_trace.csv agent_info.csv; do
        [ -f "$CORPUS/$id/rocprof/$f" ] && files+=("$CORPUS/$id/rocprof/$f")
    done
    bytes=$(cat "${files[@]}" | wc -c)
    out=$(cd "$att" && "$tmp/paired" "$N" "$FLYPROF" hotspots "$dispatch" -f table -q -- "$PY" "$REF" "$dispatch" -- cat "${files[@]}" -- "$FLYPROF" --version -- "$tmp/empty")
    read -r _ fms _ fkb _ <<< "$(sed -n 1p <<< "$out")"
    read -r _ rms _ rkb rr <<< "$(sed -n 2p <<< "$out")"
    read -r _ cms _ _ cr <<< "$(sed -n 3p <<< "$out")"
    read -r _ _ _ _ er <<< "$(sed -n 4p <<< "$out")"
    read -r _ _ _ _ zr <<< "$(sed -n 5p <<< "$out")"
    ceil="$ceil $(awk -v r="$rr" -v e="$er" 'BEGIN { printf "%.2f", r / e }')"
    ceil0="$ceil0 $(awk -v r="$rr" -v e="$zr" 'BEGIN { printf "%.2f", r / e }')"
    rcat="$rcat $(awk -v r="$rr" -v c="$cr" 'BEGIN { printf "%.2f", r / c }')"
    irb=-
    if [ "$ir" = 1 ]; then
        irn=$(cd "$att" && valgrind --tool=callgrind --callgrind-out-file=/dev/null "$FLYPROF" hotspots "$dispatch" -f table -q 2>&1 >/dev/null |
              awk '/Collected/ { print $NF }')
        irb=$(awk -v i="$irn" -v b="$bytes" 'BEGIN { printf "%.1f", i / b }')
    fi
    ratios="$ratios $rr"
    awk -v id="$id" -v b="$bytes" -v f="$fms" -v r="$rms" -v c="$cms" -v fk="$fkb" -v rk="$rkb" -v rr="$rr" -v cr="$cr" -v er="$er" -v zr="$zr" -v irb="$irb" 'BEGIN {
        printf "%-36s %9d %8.2f %8.2f %8.2f %7.2f %7.2f %6.1fx %7.2fx %7.1fx %8.1fx %8s\n", id, b, f, r, c, fk/1024, rk/1024, rr, 1/cr, rr/er, rr/zr, irb }'
done < "$CORPUS/cases.tsv"
# min and median of a list of ratios, unrounded (the goal is judged on these): "<min> <median>"
minmed() {
    tr ' ' '\n' <<< "$1" | awk 'NF' | sort -g | awk '{ v[++n] = $1 } END {
        printf "%.6f %.6f\n", v[1], n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'
}
read -r lo med <<< "$(minmed "$ratios")"
met=$(awk -v l="$lo" -v m="$med" 'BEGIN { print (l >= 15 && m >= 25) ? "met" : "NOT met" }')
printf 'ref/fp over %d cases: min %.1fx, median %.1fx (goal: >= 15x every case, >= 25x median: %s)\n' \
    "$(wc -w <<< "$ratios")" "$lo" "$med" "$met"
read -r lo med <<< "$(minmed "$ceil")"
printf 'ref/exec (the ceiling: ref over a bare flyprof process start): min %.1fx, median %.1fx\n' "$lo" "$med"
read -r lo med <<< "$(minmed "$rcat")"
printf 'ref/cat (ref over a `cat` of the bytes hotspots reads): min %.1fx, median %.1fx\n' "$lo" "$med"
read -r lo med <<< "$(minmed "$ceil0")"
printf 'ref/empty (ref over an empty C program, what no program can beat here): min %.1fx, median %.1fx\n' "$lo" "$med"
steal_report
