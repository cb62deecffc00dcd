#!/usr/bin/env bash
# issue 22, outside bubbles: `flyprof timeline` and report.html read a wave past the
# chunked limit in chunks (src/analysis/timeline.c, html_data.c; fp_wave_chunked and
# fp_wave_spans_chunked in src/att/wave.c), so one huge wave file no longer sits in memory
# with all its rows. Their bytes must be those of the whole read. FLYPROF_WAVE_CHUNK_ROWS=N
# lowers the limit (and the chunk) to N rows, so every wave of a small trace goes the
# chunked way; this compares timeline.json (every detail), report.html, the envelopes and
# the exit codes with and without it:
#  - every synthetic spec of tests/data/gen, at 64 and 100 rows per chunk;
#  - hostile waves, at 64: "begin" written after "timeline" (the states need the header
#    first: the third pass), "waitcnt" before "instructions", no waitcnt key, a file cut
#    short, a file the window's scanner declines (read whole), unknown lines;
#  - one 40 MB wave: peak RSS under a cap that does not grow with the file (the whole read
#    took ~2x the file) and the same bytes as the whole read (a limit of 1e9);
#  - every corpus case (when ../shared/corpus is there).
. "$FP_SRC/tests/cli/lib/common.sh"
tmp=$T
GEN="$FP_TOOLS/fp_gen_att"
SPECS="$FP_SRC/tests/data/gen"
[ -x "$GEN" ] || { echo "fp_gen_att not built: skip"; exit 77; }
fail=0
ok() { echo "ok   $1"; }
no() { echo "FAIL $1"; fail=1; }

# run ROWS DIR TAG: timeline at every detail and report (html) with FLYPROF_WAVE_CHUNK_ROWS=ROWS
# ("" = unset); the outputs land in $tmp/o$TAG (paths in the envelopes made relative)
run() {
    local o=$tmp/o$3 det
    rm -rf "$o" && mkdir -p "$o"
    for det in states lines insts; do
        env ${1:+FLYPROF_WAVE_CHUNK_ROWS=$1} "$FLYPROF" timeline --bundle "$2" --detail "$det" --out "$o/t-$det.json" \
            -f json -q > "$o/te-$det" 2> /dev/null
        echo "$?" >> "$o/te-$det"
    done
    env ${1:+FLYPROF_WAVE_CHUNK_ROWS=$1} "$FLYPROF" report --bundle "$2" --out-dir "$o/r" -f json -q > "$o/re" 2> /dev/null
    echo "$?" >> "$o/re"
    sed -i "s#$o#OUT#g" "$o"/te-* "$o/re"
}

# same NAME DIR [ROWS...]: whole vs chunked agree byte for byte
same() {
    local name=$1 d=$2 r
    shift 2
    run "" "$d" 0
    for r in "${@:-64}"; do
        run "$r" "$d" "$r"
        if ! diff -r -q "$tmp/o0" "$tmp/o$r" > /dev/null; then
            no "$name: differs in chunks of $r: $(diff -r -q "$tmp/o0" "$tmp/o$r" | head -3 | tr '\n' ' ')"
            return
        fi
    done
    ok "$name: identical whole and in chunks of ${*:-64} rows (exits $(tail -qn1 "$tmp"/o0/te-* "$tmp/o0/re" | tr '\n' ' '))"
}

# 1. the synthetic specs
n=0
for spec in "$SPECS"/*.json; do
    name=$(basename "$spec" .json)
    rm -rf "$tmp/g"
    "$GEN" "$spec" "$tmp/g" > /dev/null 2>&1 || continue
    for d in $(find "$tmp/g" -name code.json -exec dirname {} \; | sort); do
        same "$name" "$d" 64 100
        n=$((n + 1))
    done
done
[ "$n" -ge 30 ] && ok "$n synthetic traces compared" || no "only $n synthetic traces"

# 2. hostile waves, one change each to a copy of a generated trace
python3 "$FP_SRC/tests/tools/gen_scale_spec.py" 64 "$tmp/scale.json"
rm -rf "$tmp/s"
"$GEN" "$tmp/scale.json" "$tmp/s" > /dev/null || { echo "FAIL generate"; exit 1; }
base=$(ls -d "$tmp"/s/ui_output_agent_*)
f=$(ls "$base" | grep -E '^se[0-9]+_sm[0-9]+_sl[0-9]+_wv[0-9]+\.json$' | head -1)
hostile() { # NAME PYTHON-EDIT (j = the wave document, written back compact, keys in the given order)
    rm -rf "$tmp/h" && cp -r "$base" "$tmp/h"
    python3 - "$tmp/h/$f" "$2" <<'PY'
import json, sys
path, edit = sys.argv[1], sys.argv[2]
j = json.load(open(path))
w = j["wave"]
exec(edit)
open(path, "w").write(json.dumps(j, separators=(",", ":")))
PY
    same "hostile: $1" "$tmp/h"
}
hostile "begin after the timeline" 'j["wave"] = {k: w[k] for k in sorted(w, key=lambda k: k in ("begin", "cu", "end"))}'
hostile "waitcnt before the instructions" 'j["wave"] = {k: w[k] for k in sorted(w, key=lambda k: k != "waitcnt")}'
hostile "timeline before the instructions" 'j["wave"] = {k: w[k] for k in sorted(w, key=lambda k: k != "timeline")}'
hostile "no waitcnt key" 'w.pop("waitcnt", None)'
hostile "empty timeline" 'w["timeline"] = []'
hostile "negative and unknown states" 'w["timeline"][0] = [9, 40]; w["timeline"][1] = [3, -7]'
hostile "unknown lines" 'w["instructions"][100][4] = 999999; w["instructions"][-3][4] = 999998'
hostile "declined by the window scanner" 'j["z\u00e9"] = 1'
rm -rf "$tmp/h" && cp -r "$base" "$tmp/h" && head -c 2000 "$base/$f" > "$tmp/h/$f"
same "hostile: file cut short" "$tmp/h"

# 3. one 40 MB wave (bench/replay_trace.py --single-wave of the generated trace): read in
#    chunks by default, its peak RSS under a cap that does not grow with the file, and the
#    same bytes as the whole read (a limit of 1e9)
if grep -qa -e __asan_init -e __ubsan_handle "$FLYPROF"; then
    echo "sanitizer build: the RSS cap is skipped"
elif [ -x /usr/bin/time ]; then
    python3 "$FP_SRC/bench/replay_trace.py" "$base" "$tmp/big" --bytes 40M --single-wave > /dev/null
    bd=$(ls -d "$tmp"/big/ui_output_agent_*)
    mb=$(du -m "$bd"/se*.json | cut -f1)
    cap() { # NAME EXTRA_KIB CMD...: exit 0 and peak RSS < 32 MiB + EXTRA_KIB
        local name=$1 extra=$2 rc kib
        shift 2
        /usr/bin/time -f '%x %M' -o "$tmp/time" "$@" > /dev/null 2>&1
        read -r rc kib < "$tmp/time"
        [ "$rc" = 0 ] && [ "$kib" -lt $((32768 + extra)) ] &&
            ok "one ${mb} MB wave: $name peak RSS $((kib / 1024)) MiB (< 32 MiB + $((extra / 1024)) MiB)" ||
            no "one ${mb} MB wave: $name exit $rc, peak RSS $kib KiB (cap 32 MiB + $extra KiB)"
    }
    cap "timeline --detail lines" 0 "$FLYPROF" timeline --bundle "$bd" --detail lines --out "$tmp/big.json" -q
    cap "timeline --detail states" 0 "$FLYPROF" timeline --bundle "$bd" --detail states --out "$tmp/big.json" -q
    # report.html is built in memory whole (a tick per stalled execution of a top hotspot:
    # ~27 MB here), so its cap is 32 MiB beyond the page it writes (the whole read: ~125 MiB)
    "$FLYPROF" report --bundle "$bd" --out-dir "$tmp/bigr" -q > /dev/null 2>&1
    page=$(( $(stat -c %s "$tmp/bigr/report.html" 2> /dev/null || echo 0) / 1024 ))
    cap "report (html)" "$page" "$FLYPROF" report --bundle "$bd" --out-dir "$tmp/bigr" -q
    rm -f "$tmp/big.json" && rm -rf "$tmp/bigr"
    run "" "$bd" B0
    run 1000000000 "$bd" B1
    diff -r -q "$tmp/oB0" "$tmp/oB1" > /dev/null && ok "one ${mb} MB wave: the same bytes as the whole read" ||
        no "one ${mb} MB wave: differs from the whole read"
    rm -rf "$tmp/oB0" "$tmp/oB1" "$tmp/big"
fi

# 4. the corpus
if [ -d "${FP_CORPUS:-}" ]; then
    for case_dir in "$FP_CORPUS"/*/; do
        [ -d "$case_dir/att" ] || continue
        d=$(ls -d "$case_dir"att/*/ | head -1)
        same "corpus $(basename "$case_dir")" "$d" 64 1000
    done
else
    echo "corpus absent: corpus cases skipped"
fi
exit $fail
