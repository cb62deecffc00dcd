#!/usr/bin/env bash
# bench/bubbles.sh [FLYPROF] [N] [DIR...]   (DIR: a dispatch dir, or a corpus case dir: its att/*/)
# `flyprof bubbles` against two baselines run IN THE SAME RUN, round-robin (bench/paired.c; each
# ratio is taken within one round, then the median): `cat` of the same wave files and the floor,
# a scalar read-and-sum of the same bytes (bench/floor.c). Also the median wall times, the peak RSS
# of each (ru_maxrss of the child) and flyprof's instructions per input byte (valgrind callgrind,
# one run; FP_BENCH_IR=0 skips it, it is slow on 1 GB).
# Last line: the host's steal during the run (bench/steal.sh): above ~5 % wall ratios are noisy.
#
# Cases: the given dispatch dirs, else moe_reduce-big (4,112 files) and flash_attn_func-big (32).
# FP_BENCH_BIG=DIR adds a row: a replayed real-format trace, e.g.
#   bench/replay_trace.py <corpus>/flash_attn_func-big/att/ui_output_* /tmp/rp --bytes 1G
# FP_BENCH_JOBS=N passes --jobs N. FP_BENCH_BASE=FLYPROF2 runs that binary too, in the same rounds
# (a before/after pair: its time and RSS, and base/flyprof per round, in the last columns). Goals (issue 22): <= 1.5x cat on many-file and 1 GB traces,
# <= 3x on flash_attn_func-big, <= 12 instructions per input byte, peak RSS < 32 MiB at 1 and 4 GB.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
FLYPROF=$(realpath "${1:-$here/build/flyprof}")
N=${2:-5}
shift $(( $# > 2 ? 2 : $# ))
dirs=()
for d in "$@"; do
    # a corpus case dir (with att/ui_output_*/) stands for its dispatch dir; anything else
    # must hold wave files, or there would be no row to print
    if [ -d "$d/att" ]; then
        d=$(ls -d "$d"/att/*/ 2>/dev/null | head -1) && d=${d%/}
    fi
    ls "$d" 2>/dev/null | grep -qE '^se[0-9]+_sm[0-9]+_sl[0-9]+_wv[0-9]+\.json$' ||
        { echo "no wave files in ${d:-$1} (pass a dispatch dir or a corpus case dir)" >&2; exit 2; }
    dirs+=("$d")
done
if [ ${#dirs[@]} -eq 0 ]; then
    for c in moe_reduce-big flash_attn_func-big; do
        d=$(ls -d "${FP_CORPUS:-$here/../shared/corpus}"/$c/att/*/ 2>/dev/null | head -1) && dirs+=("${d%/}")
    done
fi
[ -n "${FP_BENCH_BIG:-}" ] && dirs+=("$FP_BENCH_BIG")
[ -x "$FLYPROF" ] || { echo "no flyprof binary at $FLYPROF" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/paired" "$here/bench/paired.c"
cc -O2 -o "$tmp/floor" "$here/bench/floor.c"
ir=${FP_BENCH_IR:-1}
command -v valgrind > /dev/null || ir=0
printf 'round-robin runs, %s rounds, medians; ratio = median of the per-round flyprof/baseline; RSS = peak of the child\n' "$N"
uptime
. "$here/bench/steal.sh"
steal_mark
printf '%-40s %6s %8s | %9s %8s %8s | %7s %7s | %7s %7s %7s | %6s%s\n' case files MB bubbles_ms cat_ms floor_ms /cat /floor fp_MiB cat_MiB flr_MiB Ir/B \
    "${FP_BENCH_BASE:+ | base_ms base_MiB base/fp}"
base=()
[ -n "${FP_BENCH_BASE:-}" ] && base=(-- "$(realpath "$FP_BENCH_BASE")" bubbles --bundle . -q ${FP_BENCH_JOBS:+--jobs "$FP_BENCH_JOBS"} --out "$tmp/b0.json")
for d in "${dirs[@]}"; do
    (
        cd "$d"
        ls | grep -E '^se[0-9]+_sm[0-9]+_sl[0-9]+_wv[0-9]+\.json$' > "$tmp/files"
        nf=$(wc -l < "$tmp/files")
        bytes=$(xargs cat < "$tmp/files" | wc -c)
        mapfile -t files < "$tmp/files"
        out=$("$tmp/paired" "$N" "$FLYPROF" bubbles --bundle . -q ${FP_BENCH_JOBS:+--jobs "$FP_BENCH_JOBS"} --out "$tmp/b.json" \
              -- cat "${files[@]}" -- "$tmp/floor" "${files[@]}" "${base[@]}")
        read -r _ bms _ brss _ <<< "$(sed -n 1p <<< "$out")"
        read -r _ cms _ crss cr <<< "$(sed -n 2p <<< "$out")"
        read -r _ fms _ frss fr <<< "$(sed -n 3p <<< "$out")"
        extra=""
        if [ ${#base[@]} -gt 0 ]; then
            read -r _ xms _ xrss xr <<< "$(sed -n 4p <<< "$out")"
            extra=$(awk -v m="$xms" -v r="$xrss" -v x="$xr" 'BEGIN { printf " | %7.1f %8.1f %6.2fx", m, r / 1024, x }')
        fi
        irb=-
        if [ "$ir" = 1 ]; then
            irn=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$FLYPROF" bubbles --bundle . -q \
                  ${FP_BENCH_JOBS:+--jobs "$FP_BENCH_JOBS"} --out "$tmp/b.json" 2>&1 >/dev/null | awk '/Collected/ { print $NF }')
            irb=$(awk -v i="$irn" -v b="$bytes" 'BEGIN { printf "%.1f", i / b }')
        fi
        awk -v c="$(basename "$d")" -v nf="$nf" -v b="$bytes" -v bms="$bms" -v cms="$cms" -v fms="$fms" -v cr="$cr" -v fr="$fr" \
            -v brss="$brss" -v crss="$crss" -v frss="$frss" -v irb="$irb" -v extra="$extra" 'BEGIN {
            printf "%-40s %6d %8.1f | %9.1f %8.1f %8.1f | %6.2fx %6.2fx | %7.1f %7.1f %7.1f | %6s%s\n", c, nf, b / 1e6, bms, cms, fms,
                   1 / cr, 1 / fr, brss / 1024, crss / 1024, frss / 1024, irb, extra }'
    )
done
steal_report
