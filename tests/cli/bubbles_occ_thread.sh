#!/usr/bin/env bash
# With --jobs 2 and more, occupancy.json and realtime.json are read and the launch facts
# that need only them computed on a thread of their own while the waves are walked
# (src/analysis/bubbles.c occ_main); their warnings are kept and said after the walk's,
# as the one-thread path (--jobs 1, everything after the walk as before) says them.
# Each case byte-compares the exit code, the envelope and bubbles.json of --jobs 1 and 2
# and checks the warnings' order by hand: a wave file cut short (skipped, a walk
# warning) together with a broken occupancy.json, with a broken realtime.json, with no
# occupancy.json, and a misdated wave (the pass is redone unbounded: the thread runs
# twice) with a broken realtime.json.
set -u
GEN="$FP_TOOLS/fp_gen_att"
[ -x "$GEN" ] || { echo "fp_gen_att not built: skip"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
no() { echo "FAIL $1"; fail=1; }

# case NAME DIR ORDER...: --jobs 1 and 2 agree; the warnings starting with each ORDER
# prefix come in that order (each present)
case_of() {
    local name=$1 d=$2 j
    shift 2
    for j in 1 2; do
        rm -f "$tmp/b.json"
        "$FLYPROF" bubbles --bundle "$d" -q --jobs $j --out "$tmp/b.json" > "$tmp/e$j.json" 2> /dev/null
        echo "$?" > "$tmp/rc$j"
        [ -f "$tmp/b.json" ] && mv "$tmp/b.json" "$tmp/b$j.json"
    done
    cmp -s "$tmp/rc1" "$tmp/rc2" || { no "$name: exit codes differ"; return; }
    cmp -s "$tmp/e1.json" "$tmp/e2.json" || { no "$name: envelopes differ"; return; }
    cmp -s "$tmp/b1.json" "$tmp/b2.json" || { no "$name: bubbles.json differs"; return; }
    if python3 - "$tmp/e2.json" "$@" <<'PY'; then ok "$name: --jobs 1 and 2 identical, warnings in order"; else no "$name: warnings"; fi
import json, sys
w = json.load(open(sys.argv[1]))["warnings"]
at = []
for p in sys.argv[2:]:
    hits = [i for i, x in enumerate(w) if x.startswith(p)]
    if p.startswith("!"):
        assert not [x for x in w if x.startswith(p[1:])], (p, w)
        continue
    assert hits, (p, w)
    at.append(hits[0])
assert at == sorted(at), (at, w)
PY
}

rm -rf "$tmp/g"
"$GEN" "$FP_SRC/tests/data/gen/bub_two_waves.json" "$tmp/g" > /dev/null || { echo "FAIL generate"; exit 1; }
src=$(ls -d "$tmp"/g/ui_output_agent_*)
fresh() { rm -rf "$tmp/d"; cp -r "$src" "$tmp/d"; head -c 40 "$src/se0_sm0_sl1_wv0.json" > "$tmp/d/se0_sm0_sl1_wv0.json"; }

fresh
case_of "cut wave" "$tmp/d" "skipped wave file" "!occupancy ignored" "!realtime.json ignored"
fresh
echo '{"0":[[1,2,3]]}' > "$tmp/d/occupancy.json"
case_of "cut wave + broken occupancy.json" "$tmp/d" "skipped wave file" "occupancy ignored" "!realtime.json ignored"
fresh
echo '{"SE0":' > "$tmp/d/realtime.json"
case_of "cut wave + broken realtime.json" "$tmp/d" "skipped wave file" "realtime.json ignored"
fresh
echo '{"0":[[1,2,3]]}' > "$tmp/d/occupancy.json"
echo '{"SE0":' > "$tmp/d/realtime.json"
case_of "cut wave + both broken (realtime.json not read)" "$tmp/d" "skipped wave file" "occupancy ignored" "!realtime.json ignored"
fresh
rm "$tmp/d/occupancy.json"
case_of "cut wave + no occupancy.json" "$tmp/d" "skipped wave file" "!occupancy ignored"
fresh
echo '{"SE0":' > "$tmp/d/realtime.json"
python3 - "$tmp/d/filenames.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
e = j["wave_filenames"]["0"]["0"]["0"]["0"]
e[1] += 1000000  # dated after its own events: the walk stops and is redone unbounded
json.dump(j, open(sys.argv[1], "w"))
PY
case_of "misdated wave (two passes) + broken realtime.json" "$tmp/d" "skipped wave file" "realtime.json ignored"
"$FLYPROF" bubbles --bundle "$src" -q --jobs 2 --out "$tmp/ok.json" > /dev/null 2>&1
python3 - "$tmp/ok.json" <<'PY' && ok "intact trace: launch facts present" || no "intact trace: launch facts"
import json, sys
a = json.load(open(sys.argv[1]))
assert a["launch_trace"] and a["workdist"] and a["occupancy"]["available"], a.get("launch_trace")
PY
exit $fail
