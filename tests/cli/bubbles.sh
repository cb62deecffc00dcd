#!/usr/bin/env bash
# flyprof bubbles on synthetic dispatch dirs with hand-computed answers, bundle
# resolution, artifacts and bad input.
set -u
GEN="$FP_TOOLS/fp_gen_att"
SPECS="$FP_SRC/tests/data/gen"
[ -x "$GEN" ] || { echo "fp_gen_att not built: skip"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
no() { echo "FAIL $1"; fail=1; }
gen() { rm -rf "$tmp/$1"; "$GEN" "$SPECS/$1.json" "$tmp/$1" >/dev/null || { no "generate $1"; return 1; }; ls -d "$tmp/$1"/ui_output_agent_*; }
# run: prints envelope to $tmp/env, sets rc
run() { "$FLYPROF" bubbles -q "$@" > "$tmp/env" 2> "$tmp/err"; rc=$?; }
py() { python3 - "$tmp/env" "$@"; }

# 1. two waves on one SIMD: wave A waits [1044,1444), wave B waits [1144,1344);
#    in flight (issue windows, s_waitcnt / s_endpgm occupy no pipe): B [1132,1144) and
#    [1344,1348), A [1032,1044) and [1444,1448); the s_endpgm drains A [1448,1452), B [1348,1352).
#    A: hidden 12+4 = 16, exposed 384; B: exposed 200. Lost SIMD cycles: 400-12-4 = 384,
#    span 1448-1000 = 448 -> gain 100*384/448 = 85.71 %. SIMD busy 12+4+12+4 = 32. Drain:
#    8 cycles, both exposed (nobody else in flight) and lost. Load-to-use: A 1444-1036 = 408
#    (decoder edge), B 1344-1136 = 208 (no edges: counter replay) -> evidence mixed.
d=$(gen bub_two_waves)
run --bundle "$d" --limit 0
if [ $rc -eq 0 ] && py <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["data"]
h = d["hotspots"]; assert len(h) == 1, h
h = h[0]
assert (h["code_line"], h["class"], h["stall"], h["exposed"], h["hidden"]) == (3, "vmcnt", 600, 584, 16), h
assert h["gain_upper_pct"] == 85.71, h["gain_upper_pct"]
w = h["waits_on"]; assert len(w) == 1 and w[0]["code_line"] == 2 and w[0]["count"] == 2, w
assert w[0]["load_to_use_cycles"] == {"mean": 308, "min": 208, "max": 408}, w[0]
assert w[0]["distance_mean"] == 0 and w[0]["stall_share"] == 600 and w[0]["evidence"] == "mixed", w[0]
s = d["simds"]; assert s == [{"se": 0, "cu": 1, "simd": 0, "waves": 2, "span": 448, "issue": 32, "stall": 600, "exposed": 584, "lost": 384}], s
t = d["totals"]; assert (t["stall"], t["exposed"], t["hidden"], t["hit"], t["wave_records"]) == (600, 584, 16, 10, 10), t
assert (t["hidden_by"], t["drain_stall"], t["drain_exposed"], t["drain_hidden"], t["drain_lost"], t["drain_waves"]) == (
    "issue_windows", 8, 8, 0, 8, 2), t
c = d["classes"]; assert [x["class"] for x in c] == ["vmcnt"] and c[0]["cycles"] == 600 and c[0]["is_bubble"], c
assert d["lines"][0]["source"] == "/synthetic/kernels/x.py:19" and d["lines"][0]["line"] == 19
assert d["artifact"] is None  # a dispatch dir gets no artifact next to it
assert d["quality"]["confidence"] == "high", d["quality"]
assert d["wave_states"]["wstates"]["agrees"] is True
PY
then ok "two waves on one SIMD: exposed/hidden/lost/gain/load-to-use"; else no "two waves on one SIMD"; cat "$tmp/env"; fi
[ ! -e "$d/bubbles.json" ] && ok "no artifact written into a dispatch dir" || no "artifact written into a dispatch dir"

# 2. a software-pipelined loop: s_waitcnt vmcnt(1) after this iteration's load waits for the
#    PREVIOUS iteration's load. Recompute every (wait, producer) from the wave file in Python
#    (counter replay: in-order vmcnt) and compare with the decoder-edge run and the replay run.
for spec in bub_loop bub_loop_replay; do
    d=$(gen $spec)
    run --bundle "$d" --limit 0
    if [ $rc -eq 0 ] && py "$d" "$spec" <<'PY'
import json, sys, glob, re
d = json.load(open(sys.argv[1]))["data"]; ddir = sys.argv[2]; spec = sys.argv[3]
code = json.load(open(ddir + "/code.json"))["code"]
w = json.load(open(glob.glob(ddir + "/se*_sm*.json")[0]))["wave"]
ins = w["instructions"]
vq, lq, pairs = [], [], {}
for i, (t, cat, st, du, ln) in enumerate(ins):
    isa = code[ln][0]
    if isa.startswith("s_waitcnt"):
        ret = []
        m = re.search(r"vmcnt\((\d+)\)", isa)
        if m:
            n = int(m.group(1)); ret += vq[:max(0, len(vq) - n)]; vq = vq[max(0, len(vq) - n):]
        m = re.search(r"lgkmcnt\((\d+)\)", isa)
        if m:
            n = int(m.group(1)); ret += lq[:max(0, len(lq) - n)]; lq = lq[max(0, len(lq) - n):]
        for j in ret:
            p = ins[j]
            pairs.setdefault((ln, p[4]), []).append((t + st - (p[0] + p[2]), i - j - 1))
    elif cat in (3, 4): vq.append(i)
    elif cat in (1, 5): lq.append(i)
got = {}
for h in d["hotspots"]:
    for p in h["waits_on"]:
        got[(h["code_line"], p["code_line"])] = p
# every pair with a stalled wait must be reported with the recomputed numbers
for (wl, pl), v in pairs.items():
    if not any(h["code_line"] == wl for h in d["hotspots"]):
        continue
    g = got[(wl, pl)]
    cyc = [x[0] for x in v]; dist = [x[1] for x in v]
    assert g["count"] == len(v), (wl, pl, g, v)
    assert g["load_to_use_cycles"]["min"] == min(cyc) and g["load_to_use_cycles"]["max"] == max(cyc), (g, cyc)
    assert abs(g["distance_mean"] - round(sum(dist) / len(dist), 1)) < 1e-9, (g, dist)
    assert g["evidence"] == ("inferred" if spec.endswith("replay") else "decoder"), g
# the loop wait (line 7) is charged 3 times to the previous iteration's load (line 6), once to the prologue load (4)
assert got[(7, 6)]["count"] == 3 and got[(7, 4)]["count"] == 1, got
assert got[(7, 6)]["distance_mean"] == 8.0, got[(7, 6)]  # 7..12, 5, 6 of the next iteration
assert d["waitcnt"]["evidence"] == ("inferred" if spec.endswith("replay") else "decoder")
PY
    then ok "loop wait depends on the previous iteration's load ($spec)"; else no "loop ($spec)"; cat "$tmp/env"; fi
done

# 3. bundle resolution: numeric order, empty shells skipped, capture.json kept dispatch, --dispatch
b="$tmp/bundle"; mkdir -p "$b/att/big"
src=$(gen bub_two_waves)
cp -r "$src" "$b/att/big/ui_output_agent_700_dispatch_9"
cp -r "$src" "$b/att/big/ui_output_agent_700_dispatch_10"
mkdir "$b/att/big/ui_output_agent_700_dispatch_11"
printf '{"code":null,"header":"x","version":"3.0.0"}' > "$b/att/big/ui_output_agent_700_dispatch_11/code.json"
run --bundle "$b"
if [ $rc -eq 0 ] && py <<'PY'
import json, sys
e = json.load(open(sys.argv[1])); d = e["data"]["dispatch"]
assert d["name"] == "ui_output_agent_700_dispatch_10" and d["dispatch"] == 10 and d["resolved_by"] == "scan", d
assert d["tag"] == "big"
assert [x["dispatch"] for x in d["inventory"]] == [9, 10, 11] and d["inventory"][2]["empty"] is True, d
assert any("dispatch_11" in w for w in e["warnings"]), e["warnings"]
assert e["data"]["quality"]["empty_shells"] == ["ui_output_agent_700_dispatch_11"]
PY
then ok "numeric dispatch order (10 > 9), empty shell skipped and reported"; else no "numeric order"; cat "$tmp/env"; fi
[ -f "$b/bubbles.json" ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['schema']==1 and d['dispatch']['dispatch']==10" "$b/bubbles.json" \
    && ok "bundle gets bubbles.json" || no "bundle artifact"
mkdir -p "$b/rocprof/big"
printf 'W0 x.cpp:1] [rocprofv3] ok\nE0 att.cpp:9] Decoder: data lost on SE0, increase --att-buffer-size\nE0 code_object.cpp:3] Could not fetch some instructions!\n' > "$b/rocprof/big/rocprofv3.stderr.txt"
run --bundle "$b"
[ $rc -eq 0 ] && py <<'PY' && ok "decoder warnings from the bundle's rocprofv3 stderr lower the confidence" || { no "decoder warnings"; cat "$tmp/env"; }
import json, sys
e = json.load(open(sys.argv[1])); q = e["data"]["quality"]
assert len(q["decoder_warnings"]) == 2 and "data lost" in q["decoder_warnings"][0], q
assert q["confidence"] == "low" and any("2 decoder warnings" in r for r in q["reasons"]), q
assert e["data"]["occupancy"]["per_se"][0]["traced_waves"] == 2
PY
rm -r "$b/rocprof"
printf '{"schema":1,"tags":{"big":{"att_dir":"att/big","kept_dispatch":"ui_output_agent_700_dispatch_9"}}}' > "$b/capture.json"
run --bundle "$b"
[ $rc -eq 0 ] && py <<'PY' && ok "capture.json kept_dispatch honoured" || no "kept_dispatch"
import json, sys
d = json.load(open(sys.argv[1]))["data"]["dispatch"]
assert d["dispatch"] == 9 and d["resolved_by"] == "capture.json", d
PY
run --bundle "$b" --dispatch 10
[ $rc -eq 0 ] && py <<'PY' && ok "--dispatch N" || no "--dispatch N"
import json, sys
d = json.load(open(sys.argv[1]))["data"]["dispatch"]
assert d["dispatch"] == 10 and d["resolved_by"] == "--dispatch", d
PY
run --bundle "$b" --dispatch 99
[ $rc -eq 66 ] && py <<'PY' && ok "--dispatch 99 -> DISPATCH_OUT_OF_RANGE with available" || no "--dispatch 99"
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["code"] == "DISPATCH_OUT_OF_RANGE" and e["available"] == [9, 10, 11], e
PY
run --bundle "$b" --dispatch 11
[ $rc -eq 66 ] && grep -q EMPTY_ATT "$tmp/env" && ok "--dispatch of an empty shell -> EMPTY_ATT" || no "--dispatch shell"
printf '{"schema":1,"tags":{"big":{"att_dir":"../../etc","kept_dispatch":"../../etc/passwd"}}}' > "$b/capture.json"
run --bundle "$b"
[ $rc -eq 0 ] && py <<'PY' && ok "hostile capture.json paths ignored with warnings" || no "hostile capture.json"
import json, sys
e = json.load(open(sys.argv[1]))
assert e["data"]["dispatch"]["dispatch"] == 10, e["data"]["dispatch"]
assert sum("ignored" in w for w in e["warnings"]) == 2, e["warnings"]
PY
run --bundle "$b" --tag ../x
[ $rc -eq 78 ] && ok "hostile --tag -> BAD_ARGS" || no "hostile --tag ($rc)"
rm "$b/capture.json"; rm -r "$b/att/big/ui_output_agent_700_dispatch_9" "$b/att/big/ui_output_agent_700_dispatch_10"
run --bundle "$b"
[ $rc -eq 66 ] && py <<'PY' && ok "only shells -> EMPTY_ATT with inventory" || no "only shells ($rc)"
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["code"] == "EMPTY_ATT" and e["inventory"][0]["empty"] is True, e
PY
mkdir -p "$tmp/nothing"
run --bundle "$tmp/nothing"
[ $rc -eq 66 ] && grep -q '"NO_ARTIFACT"' "$tmp/env" && grep -q '"inventory"' "$tmp/env" && ok "no dispatch -> NO_ARTIFACT with inventory" || no "no dispatch ($rc)"
run
[ $rc -eq 64 ] && ok "no --bundle -> USAGE" || no "no --bundle ($rc)"
run --bundle "$tmp/does-not-exist"
[ $rc -eq 66 ] && ok "missing --bundle dir -> NO_ARTIFACT" || no "missing bundle ($rc)"

# 4. artifacts: --out, and an unwritable target -> IO_ERROR, nothing half-written
d=$(gen bub_two_waves)
run --bundle "$d" --out "$tmp/o/b.json"
[ $rc -eq 0 ] && python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/o/b.json" && ok "--out FILE" || no "--out"
mkdir -p "$tmp/ro/bubbles.json"   # a directory where the file must go: the wrong kind of path
run --bundle "$d" --out "$tmp/ro/bubbles.json"
[ $rc -eq 78 ] && grep -q BAD_ARGS "$tmp/env" && [ -z "$(ls "$tmp/ro" | grep -v '^bubbles.json$')" ] \
    && ok "--out names a directory -> BAD_ARGS, no temp file left" || no "unwritable ($rc)"
# the write itself fails (the parent is a file; it runs beside the envelope's build): the
# error envelope alone, no data, no table, exit 74
: > "$tmp/plain"
run --bundle "$d" --out "$tmp/plain/b.json"
[ $rc -eq 74 ] && py <<'PY' && ok "failed artifact write -> IO_ERROR, no data" || { no "failed write ($rc)"; cat "$tmp/env"; }
import json, sys
e = json.load(open(sys.argv[1]))
assert not e["ok"] and e["error"]["code"] == "IO_ERROR" and "data" not in e, e
assert "must be writable" in e["error"]["help"], e
PY
"$FLYPROF" bubbles -q -f table --bundle "$d" --out "$tmp/plain/b.json" > "$tmp/env" 2> "$tmp/err"; rc=$?
[ $rc -eq 74 ] && ! grep -q vmcnt "$tmp/env" && ok "failed artifact write -> no table" || { no "failed write, table ($rc)"; cat "$tmp/env"; }
# "artifact" names the file written: a symlink at --out is replaced (never written through)
# and the path is resolved after the rename, not to the old link's target
echo old > "$tmp/elsewhere.json"
ln -s "$tmp/elsewhere.json" "$tmp/sym.json"
run --bundle "$d" --out "$tmp/sym.json"
[ $rc -eq 0 ] && [ ! -L "$tmp/sym.json" ] && [ "$(cat "$tmp/elsewhere.json")" = old ] && py "$(realpath "$tmp")" <<'PY' \
    && ok "artifact over a symlink: replaced, path of the new file" || { no "artifact over symlink ($rc)"; cat "$tmp/env"; }
import json, sys
e = json.load(open(sys.argv[1]))
assert e["ok"] and e["data"]["artifact"] == sys.argv[2] + "/sym.json", e["data"]["artifact"]
PY

# 5. bad input
d=$(gen bub_two_waves)
printf '{"code": [["s_nop 0", 0, 1' > "$d/code.json"
run --bundle "$d"
[ $rc -eq 65 ] && grep -q BAD_INPUT "$tmp/env" && ok "malformed code.json -> BAD_INPUT" || no "malformed code.json ($rc)"
d=$(gen bub_two_waves)
f="$d/se0_sm0_sl1_wv0.json"; head -c 120 "$f" > "$f.t" && mv "$f.t" "$f"
run --bundle "$d"
[ $rc -eq 0 ] && py <<'PY' && ok "truncated wave file skipped, warned and counted" || no "truncated wave"
import json, sys
e = json.load(open(sys.argv[1])); q = e["data"]["quality"]
assert q["waves_read"] == 1 and q["waves_skipped"] == 1 and q["confidence"] == "low", q
assert any("se0_sm0_sl1_wv0.json" in w for w in e["warnings"]), e["warnings"]
assert e["data"]["totals"]["stall"] == 600  # code.json still counts both waves
PY
d=$(gen bub_two_waves)
python3 - "$d/se0_sm0_sl0_wv0.json" <<'PY'
import json, sys
p = sys.argv[1]; j = json.load(open(p))
j["wave"]["waitcnt"] = [[3, [[2, 0], [999, 0], [-5, 0]]]]
j["wave"]["instructions"].insert(1, [1034, 2, 0, 2, 4242])   # a record whose line is not in code.json
open(p, "w").write(json.dumps(j))
PY
run --bundle "$d"
[ $rc -eq 0 ] && py <<'PY' && ok "producer/record lines absent from code.json ignored with warnings" || no "absent lines"
import json, sys
e = json.load(open(sys.argv[1])); d = e["data"]
assert d["waitcnt"]["producer_missing"] == 2, d["waitcnt"]
assert d["quality"]["unknown_line_records"] == 1 and d["quality"]["confidence"] == "medium", d["quality"]
assert any("999" in w for w in e["warnings"]) and any("4242" in w for w in e["warnings"]), e["warnings"]
assert d["hotspots"][0]["waits_on"][0]["code_line"] == 2
PY
d=$(gen bub_two_waves)
echo '{"wave": {"instructions": [[1, 2, 3]]}}' > "$d/se0_sm1_sl0_wv0.json"
echo 'not json' > "$d/se0_sm1_sl1_wv0.json"
run --bundle "$d"
[ $rc -eq 0 ] && py <<'PY' && ok "malformed wave files skipped" || no "malformed waves"
import json, sys
q = json.load(open(sys.argv[1]))["data"]["quality"]
assert q["waves_skipped"] == 2 and q["waves_read"] == 2 and q["unlisted"] == 2, q
PY
d=$(gen bub_two_waves)
python3 - "$d/se0_sm0_sl1_wv0.json" <<'PY'
import json, sys
p = sys.argv[1]; j = json.load(open(p))
j["wave"]["instructions"][2] = [9223372036854775000, 9, 9223372036854775000, 4, 3]   # would overflow time + stall
open(p, "w").write(json.dumps(j))
PY
run --bundle "$d"
[ $rc -eq 0 ] && py <<'PY' && ok "absurd cycle values: wave skipped as malformed, no overflow" || no "huge numbers"
import json, sys
e = json.load(open(sys.argv[1])); q = e["data"]["quality"]
assert q["waves_skipped"] == 1 and q["waves_read"] == 1 and "out of range" in q["skipped"][0], q
PY
# the generator's edge specs (owned by the generator; read here)
gen empty_shell > /dev/null
run --bundle "$(ls -d "$tmp"/empty_shell/ui_output_agent_* | head -1)"
[ $rc -eq 66 ] && grep -q '"EMPTY_ATT"' "$tmp/env" && ok "a dispatch dir that is an empty shell -> EMPTY_ATT" || no "empty shell dir ($rc)"
run --bundle "$tmp/empty_shell"
[ $rc -eq 66 ] && py <<'PY' && ok "a dir of empty shells -> EMPTY_ATT with the inventory" || { no "dir of shells ($rc)"; cat "$tmp/env"; }
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["code"] == "EMPTY_ATT" and len(e["inventory"]) == 2 and all(x["empty"] for x in e["inventory"]), e
PY
d=$(gen missing_endpgm_no_snapshots)
run --bundle "$d"
[ $rc -eq 0 ] && py <<'PY' && ok "waves without s_endpgm counted as truncation signs" || { no "missing endpgm"; cat "$tmp/env"; }
import json, sys
q = json.load(open(sys.argv[1]))["data"]["quality"]
assert q["waves_truncated"] >= 1 and q["confidence"] == "medium", q
assert any("s_endpgm" in r for r in q["reasons"]), q
PY
# 6. --rank and --limit
d=$(gen bub_loop)
run --bundle "$d" --rank latency --limit 2
[ $rc -eq 0 ] && py <<'PY' && ok "--rank latency, --limit bounds the envelope with truncated" || no "--rank/--limit"
import json, sys
e = json.load(open(sys.argv[1])); h = e["data"]["hotspots"]
assert e["data"]["rank_by"] == "latency" and len(h) == 2 and h[0]["latency"] >= h[1]["latency"], h
assert e["truncated"]["hotspots"]["shown"] == 2 and e["truncated"]["hotspots"]["total"] > 2, e["truncated"]
PY
run --bundle "$d" --rank bogus
[ $rc -eq 64 ] && ok "--rank bogus -> USAGE" || no "--rank bogus ($rc)"
# 7. issue 10 (d): huge code.json cells and a huge wstates file must not wrap int64 sums
#    (a release build printed stall_pct 1e18 and a negative issue): sums saturate, one
#    warning says so, the quality drops and every number stays in range.
d=$(gen bub_two_waves)
python3 - "$d" <<'PY'
import json, sys
p = sys.argv[1] + "/code.json"; j = json.load(open(p))
big = 2**62
rows = [r for r in j["code"] if isinstance(r[2], int) and not r[0].startswith(";")]
for r in rows[:3]:
    r[6], r[7], r[8], r[9] = big, big, big, big   # hit, latency, stall, idle
json.dump(j, open(p, "w"))
json.dump({"state": [big, 0], "time": [0, 8]}, open(sys.argv[1] + "/wstates3.json", "w"))
PY
run --bundle "$d" --limit 0
[ $rc -eq 0 ] && py <<'PY' && ok "bubbles: int64 overflow in totals/lines/wstates saturates with a warning" || { no "bubbles overflow ($rc)"; head -c 600 "$tmp/env"; }
import json, sys
e = json.load(open(sys.argv[1])); d = e["data"]; t = d["totals"]
M = 2**63  # cJSON writes int64 through a double: INT64_MAX prints as 9.223372036854776e18
assert t["latency"] == M and t["stall"] == M and t["hit"] == M and t["idle"] == M, t
assert t["issue"] == 0 and 0 <= t["stall_pct"] <= 100, t
assert all(0 <= c["cycles"] <= M and 0 <= c["pct"] <= 100 for c in d["classes"]), d["classes"]
assert all(0 <= l["stall"] <= M and l["latency"] >= 0 for l in d["lines"]), d["lines"]
assert d["wave_states"]["wstates"]["wait"] == M, d["wave_states"]
assert any("saturated" in w for w in e["warnings"]), e["warnings"]
assert any("saturated" in r for r in d["quality"]["reasons"]) and d["quality"]["confidence"] != "high", d["quality"]
PY
# the same cells through map (file rollup, flamegraph) and report (signals): no wrap, map warns
"$FLYPROF" map -q --bundle "$d" -o "$tmp/ovf-map" > "$tmp/env" 2> "$tmp/err"; rc=$?
[ $rc -eq 0 ] && py <<'PY' && ok "map: int64 overflow in file totals saturates with a warning" || { no "map overflow ($rc)"; head -c 600 "$tmp/err"; }
import json, sys
e = json.load(open(sys.argv[1]))
assert any("saturated" in w for w in e["warnings"]), e["warnings"]
assert all(f["latency"] >= 0 for f in e["data"].get("files", [])), e["data"].get("files")
PY
"$FLYPROF" report -q --bundle "$d" -o "$tmp/ovf-rep" > "$tmp/env" 2> "$tmp/err"; rc=$?
[ $rc -eq 0 ] && py <<'PY' && ok "report: saturated code.json sums give a valid report" || { no "report overflow ($rc)"; head -c 600 "$tmp/err"; }
import json, sys
e = json.load(open(sys.argv[1])); assert e["ok"], e
PY
exit $fail
