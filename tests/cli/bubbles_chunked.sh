#!/usr/bin/env bash
# issue 22: a wave past 2^20 rows is read in chunks, twice through the window
# (src/analysis/bubbles.c, fp_wave_chunked in src/att/wave.c), so one huge wave
# file no longer sits in memory with all its rows. The result must be the one of
# reading it whole, byte for byte. FLYPROF_WAVE_CHUNK_ROWS=N lowers the limit
# (and the chunk) to N rows, so every wave of a small trace goes the chunked way;
# this compares bubbles.json, the envelope and the exit code with and without it:
#  - every synthetic spec of tests/data/gen, at 64 and 100 rows per chunk (chunk
#    ends fall everywhere: inside loops, between a load and its wait);
#  - hostile waves, at 64: a bad cycle value in the LAST record (pass 1 must skip
#    the wave whole, before any sum), a timeline duration out of range, a timeline
#    running out of range, "begin" written after "timeline" (read whole instead),
#    "waitcnt" written before "instructions", a file cut short, no waitcnt key,
#    records naming a line absent from code.json;
#  - every corpus case (when ../shared/corpus is there).
set -u
GEN="$FP_TOOLS/fp_gen_att"
SPECS="$FP_SRC/tests/data/gen"
[ -x "$GEN" ] || { echo "fp_gen_att not built: skip"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
no() { echo "FAIL $1"; fail=1; }

# run ENV_ROWS DIR TAG: bubbles with FLYPROF_WAVE_CHUNK_ROWS=ENV_ROWS ("" = unset)
run() {
    rm -f "$tmp/b.json"
    if [ -n "$1" ]; then
        FLYPROF_WAVE_CHUNK_ROWS=$1 "$FLYPROF" bubbles --bundle "$2" -q --limit 0 --out "$tmp/b.json" > "$tmp/e$3.json" 2> /dev/null
    else
        "$FLYPROF" bubbles --bundle "$2" -q --limit 0 --out "$tmp/b.json" > "$tmp/e$3.json" 2> /dev/null
    fi
    echo "$?" > "$tmp/rc$3"
    rm -f "$tmp/b$3.json"
    [ -f "$tmp/b.json" ] && mv "$tmp/b.json" "$tmp/b$3.json"
    return 0
}

# same NAME DIR [ROWS...]: whole vs chunked agree byte for byte
same() {
    local name=$1 d=$2 r
    shift 2
    run "" "$d" 0
    for r in "${@:-64}"; do
        run "$r" "$d" "$r"
        if ! cmp -s "$tmp/rc0" "$tmp/rc$r"; then no "$name: exit code differs in chunks of $r"; return; fi
        if ! cmp -s "$tmp/e0.json" "$tmp/e$r.json"; then no "$name: envelope differs in chunks of $r"; return; fi
        if [ -f "$tmp/b0.json" ] && ! cmp -s "$tmp/b0.json" "$tmp/b$r.json"; then
            no "$name: bubbles.json differs in chunks of $r"; return
        fi
    done
    ok "$name: identical whole and in chunks of ${*:-64} rows (exit $(cat "$tmp/rc0"))"
}

# same_report NAME DIR: report.json (its `work` block is workid.c's own walk, which reads a
# wave too big to hold in chunks too) and the envelope, whole vs chunks of 64
same_report() {
    local r
    for r in 0 64; do
        rm -rf "$tmp/r" "$tmp/r$r"
        if [ "$r" != 0 ]; then
            FLYPROF_WAVE_CHUNK_ROWS=$r "$FLYPROF" report --bundle "$2" -q --no-html --out-dir "$tmp/r" > "$tmp/re$r.json" 2> /dev/null
        else
            "$FLYPROF" report --bundle "$2" -q --no-html --out-dir "$tmp/r" > "$tmp/re$r.json" 2> /dev/null
        fi
        echo "$?" >> "$tmp/re$r.json"
        mv "$tmp/r" "$tmp/r$r" 2> /dev/null
    done
    if cmp -s "$tmp/re0.json" "$tmp/re64.json" && cmp -s "$tmp/r0/report.json" "$tmp/r64/report.json" && [ -s "$tmp/r0/report.json" ]; then
        ok "$1: report.json and envelope identical whole and in chunks of 64"
    else
        no "$1: report differs in chunks of 64 (or no report.json)"
    fi
}

# 1. the synthetic specs
n=0
for spec in "$SPECS"/*.json; do
    name=$(basename "$spec" .json)
    rm -rf "$tmp/g"
    "$GEN" "$spec" "$tmp/g" > /dev/null 2>&1 || continue
    for d in "$tmp"/g/ui_output_agent_*; do
        [ -f "$d/code.json" ] || continue
        same "$name" "$d" 64 100
        n=$((n + 1))
    done
done
[ "$n" -ge 12 ] && ok "$n synthetic traces compared" || no "only $n synthetic traces"

# 1b. a hostile FLYPROF_WAVE_CHUNK_ROWS (not a count of 64..2^30: the defaults are kept)
#     never changes a result, exit code included
run "" "$d" 0
for bad in abc -64 10 63 1e6 99999999999999999999999 " 64" "64x" ""; do
    rm -f "$tmp/b.json"
    FLYPROF_WAVE_CHUNK_ROWS="$bad" "$FLYPROF" bubbles --bundle "$d" -q --limit 0 --out "$tmp/b.json" > "$tmp/ebad.json" 2> /dev/null
    rc=$?
    if [ "$rc" = "$(cat "$tmp/rc0")" ] && cmp -s "$tmp/e0.json" "$tmp/ebad.json" && cmp -s "$tmp/b0.json" "$tmp/b.json"; then
        ok "FLYPROF_WAVE_CHUNK_ROWS='$bad': same bytes and exit code ($rc)"
    else
        no "FLYPROF_WAVE_CHUNK_ROWS='$bad' changed the result (exit $rc)"
    fi
done

# 2. hostile waves, one change each to a copy of a generated trace
python3 "$FP_SRC/tests/tools/gen_scale_spec.py" 64 "$tmp/scale.json"
rm -rf "$tmp/s"
"$GEN" "$tmp/scale.json" "$tmp/s" > /dev/null || { echo "FAIL generate"; exit 1; }
base=$(ls -d "$tmp"/s/ui_output_agent_*)
f=$(ls "$base" | grep -E '^se[0-9]+_sm[0-9]+_sl[0-9]+_wv[0-9]+\.json$' | head -1)
rows=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["wave"]["instructions"]))' "$base/$f")
[ "$rows" -gt 128 ] && ok "hostile base: $f has $rows rows (> 2 chunks of 64)" || no "hostile base wave has $rows rows"
hostile() { # NAME SKIPPED PYTHON-EDIT (j = the wave document, written back compact, keys in the given order)
    rm -rf "$tmp/h" && cp -r "$base" "$tmp/h"
    python3 - "$tmp/h/$f" "$3" <<'PY'
import json, sys
path, edit = sys.argv[1], sys.argv[2]
j = json.load(open(path))
w = j["wave"]
exec(edit)
open(path, "w").write(json.dumps(j, separators=(",", ":")))
PY
    same "hostile: $1" "$tmp/h"
    local got
    got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["quality"]["waves_skipped"])' "$tmp/b0.json")
    [ "$got" = "$2" ] && ok "hostile: $1: $got wave(s) skipped" || no "hostile: $1: $got waves skipped, expected $2"
}
hostile "bad time in the last record" 1 'w["instructions"][-1][0] = 1 << 60'
hostile "bad stall in the last record" 1 'w["instructions"][-1][2] = -5'
hostile "timeline duration out of range" 1 'w.setdefault("timeline", [[2, 4]]); w["timeline"][-1][1] = 1 << 55'
hostile "timeline runs out of range" 1 'w["timeline"] = [[2, 1 << 49]] * 4'
hostile "begin after the timeline" 0 'j["wave"] = {k: w[k] for k in sorted(w, key=lambda k: k == "begin")}'
hostile "waitcnt before the instructions" 0 'j["wave"] = {k: w[k] for k in sorted(w, key=lambda k: k != "waitcnt")}'
hostile "no waitcnt key" 0 'w.pop("waitcnt", None)'
hostile "waitcnt null" 0 'w["waitcnt"] = None'
hostile "unknown lines" 0 'w["instructions"][100][4] = 999999; w["instructions"][-3][4] = 999998'
rm -rf "$tmp/h" && cp -r "$base" "$tmp/h" && head -c 2000 "$base/$f" > "$tmp/h/$f"
same "hostile: file cut short" "$tmp/h"

# 3. one 40 MB wave (bench/replay_trace.py --single-wave of a generated trace): read in
#    chunks by default, its peak RSS under a cap that does not grow with the file (the
#    whole read took ~7x the file), and the same bytes as the whole read (a limit of 1e9)
if grep -qa -e __asan_init -e __ubsan_handle "$FLYPROF"; then
    echo "sanitizer build: the RSS cap is skipped"
elif [ -x /usr/bin/time ]; then
    python3 "$FP_SRC/bench/replay_trace.py" "$base" "$tmp/big" --bytes 40M --single-wave > /dev/null
    bd=$(ls -d "$tmp"/big/ui_output_agent_*)
    /usr/bin/time -f '%x %M' -o "$tmp/time" "$FLYPROF" bubbles --bundle "$bd" -q --limit 0 --out "$tmp/big1.json" > "$tmp/bige1" 2> /dev/null
    read -r rc kib < "$tmp/time"
    mb=$(du -m "$bd"/se*.json | cut -f1)
    [ "$rc" = 0 ] && [ "$kib" -lt 32768 ] && ok "one ${mb} MB wave: peak RSS $((kib / 1024)) MiB (< 32 MiB)" ||
        no "one ${mb} MB wave: exit $rc, peak RSS $kib KiB"
    FLYPROF_WAVE_CHUNK_ROWS=1000000000 "$FLYPROF" bubbles --bundle "$bd" -q --limit 0 --out "$tmp/big2.json" > "$tmp/bige2" 2> /dev/null
    sed -i "s#big2.json#big1.json#g" "$tmp/bige2"
    cmp -s "$tmp/big1.json" "$tmp/big2.json" && cmp -s "$tmp/bige1" "$tmp/bige2" &&
        ok "one ${mb} MB wave: the same bytes as the whole read" || no "one ${mb} MB wave: differs from the whole read"
fi

# 4. the corpus
if [ -d "${FP_CORPUS:-}" ]; then
    for case_dir in "$FP_CORPUS"/*/; do
        [ -d "$case_dir/att" ] || continue
        d=$(ls -d "$case_dir"att/*/ | head -1)
        same "corpus $(basename "$case_dir")" "$d" 64 1000
        same_report "corpus $(basename "$case_dir")" "$case_dir"
    done
else
    echo "corpus absent: corpus cases skipped"
fi
exit $fail
