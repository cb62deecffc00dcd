#!/usr/bin/env bash
# bench/bubbles.sh [FLYPROF] [DISPATCH_DIR] [REPS]
# Times `flyprof bubbles` on the largest corpus case against `cat` of its wave files
# (the quality bar: bubbles <= 3x cat) and reports bubbles' peak RSS. Best of REPS runs.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
FLYPROF=${1:-$here/build/flyprof}
DIR=${2:-$(ls -d "$here"/../shared/corpus/moe_reduce-big/att/*/ 2>/dev/null | head -1)}
REPS=${3:-5}
[ -x "$FLYPROF" ] || { echo "no flyprof binary at $FLYPROF" >&2; exit 2; }
[ -d "$DIR" ] || { echo "no dispatch dir (corpus absent?)" >&2; exit 2; }
out=$(mktemp); trap 'rm -f "$out"' EXIT
nfiles=$(ls "$DIR" | grep -c '^se.*_sm.*_sl.*_wv.*\.json$')
bytes=$(cat "$DIR"/se*_sm*_sl*_wv*.json | wc -c)
best() { # best wall time of REPS runs of "$@"
    local b=""
    for _ in $(seq "$REPS"); do
        local s e t
        s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N)
        t=$(echo "$e - $s" | bc -l)
        if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
    done
    echo "$b"
}
catt=$(best sh -c "cat '$DIR'/se*_sm*_sl*_wv*.json")
bubt=$(best "$FLYPROF" bubbles --bundle "$DIR" -q --out "$out")
rss=$(/usr/bin/time -f "%M" "$FLYPROF" bubbles --bundle "$DIR" -q --out "$out" 2>&1 >/dev/null | tail -1)
biggest=$(ls -S "$DIR"/se*_sm*_sl*_wv*.json | head -1 | xargs stat -c %s)
printf 'dispatch      %s\n' "$(basename "$DIR")"
printf 'wave files    %s (%s bytes, largest %s bytes)\n' "$nfiles" "$bytes" "$biggest"
printf 'cat           %.3f s\n' "$catt"
printf 'bubbles       %.3f s\n' "$bubt"
printf 'ratio         %.2fx (target <= 3x)\n' "$(echo "$bubt / $catt" | bc -l)"
printf 'peak RSS      %s KB\n' "$rss"
