#!/usr/bin/env bash
# flyprof timeline: the Chrome trace event JSON Perfetto's importer reads, checked
# structurally (traceEvents, ph, ts, dur, pid, tid, no overlap and monotonic per
# track, one track per traced wave) and against an independent reading of the
# corpus wave files, realtime.json and occupancy.json in Python.
set -u
[ -d "${FP_CORPUS:-}" ] || { echo "corpus absent: skip"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
no() { echo "FAIL $1"; fail=1; }

check() { # dispatch-dir timeline.json envelope detail
python3 - "$@" <<'PY'
import json, os, re, sys, glob
d, tl, envf, detail = sys.argv[1:5]
doc = json.load(open(tl))
env = json.load(open(envf))["data"]
assert set(doc) == {"traceEvents", "displayTimeUnit", "otherData"}, doc.keys()
ev = doc["traceEvents"]
assert doc["otherData"]["detail"] == detail and doc["otherData"]["timebase"] == "realtime.json"
for e in ev:
    assert e["ph"] in ("X", "M", "C") and isinstance(e["pid"], int) and isinstance(e["tid"], int), e
    assert isinstance(e["name"], str) and e["name"], e
    if e["ph"] in "XC":
        assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
    if e["ph"] == "X":
        assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0, e
# per track: slices in time order and never overlapping (Perfetto nests by time)
tracks = {}
for e in ev:
    if e["ph"] == "X":
        tracks.setdefault((e["pid"], e["tid"]), []).append(e)
for k, v in tracks.items():
    for a, b in zip(v, v[1:]):
        assert b["ts"] >= a["ts"] and b["ts"] + 1e-9 >= a["ts"] + a["dur"] - 1e-9, (k, a, b)
# an independent reading of the inputs
rt = json.load(open(os.path.join(d, "realtime.json")))
freq = rt["metadata"]["frequency"]
maps, origin = {}, None
for k, v in rt.items():
    if k.startswith("SE"):
        (g0, r0), (g1, r1) = v[0], v[-1]
        tpc = (r1 - r0) / (g1 - g0)
        maps[int(k[2:])] = (g0, r0, tpc)
        at0 = r0 - g0 * tpc
        origin = at0 if origin is None else min(origin, at0)
def us(se, g):
    g0, r0, tpc = maps[se]
    return ((r0 - origin) + (g - g0) * tpc) * 1e6 / freq
code = {r[2]: r for r in json.load(open(os.path.join(d, "code.json")))["code"]}
names = {}
for e in ev:
    if e["ph"] == "M" and e["name"] == "thread_name":
        names[(e["pid"], e["tid"])] = e["args"]["name"]
files = sorted(glob.glob(os.path.join(d, "se*_sm*_sl*_wv*.json")),
               key=lambda p: tuple(map(int, re.findall(r"\d+", os.path.basename(p)))))
state_tracks = [k for k in tracks if not names[k].endswith(" isa")]
isa_tracks = [k for k in tracks if names[k].endswith(" isa")]
assert len(state_tracks) == len(files) == env["waves"] == env["waves_listed"], (len(state_tracks), len(files))
assert len(isa_tracks) == (0 if detail == "states" else len(files)), len(isa_tracks)
SN = {1: "IDLE", 2: "EXEC", 3: "WAIT", 4: "STALL"}
for pos, f in enumerate(files):
    w = json.load(open(f))["wave"]
    se, simd, slot, wid = map(int, re.findall(r"\d+", os.path.basename(f)))
    pid, tid = 1000 * (se + 1) + 1 + w["cu"], 2 * pos + 1
    assert names[(pid, tid)] == "simd %d slot %d wave %d" % (simd, slot, wid), names[(pid, tid)]
    sl = tracks[(pid, tid)]
    want = [s for s in w["timeline"] if s[0] in SN and s[1] > 0]
    assert [e["name"] for e in sl] == [SN[s[0]] for s in want], f
    assert abs(sl[0]["ts"] - us(se, w["begin"] + sum(s[1] for s in w["timeline"][:w["timeline"].index(want[0])]))) < 0.0011, (f, sl[0])
    end = us(se, w["begin"] + sum(s[1] for s in w["timeline"]))
    assert abs(sl[-1]["ts"] + sl[-1]["dur"] - end) < 0.0011, (f, sl[-1], end)
    if detail == "insts":
        isl = tracks[(pid, tid + 1)]
        assert len(isl) == len(w["instructions"]), f
        for e, r in zip(isl, w["instructions"]):
            row = code[r[4]]
            src = row[3].split(" -> ")[0]
            lab = row[0].split()[0] + ((" " + os.path.basename(src.rsplit(":", 1)[0]) + ":" + src.rsplit(":", 1)[1]) if src else "")
            assert e["name"] == lab and e["args"] == {"pc": r[4], "stall": r[2], "cycles": r[3]}, (e, r, lab)
            assert abs(e["ts"] - us(se, r[0])) < 0.0011 or e["ts"] > us(se, r[0]), (e, r)
# the occupancy counter: the running sum of start/end events, one value per time
occ = json.load(open(os.path.join(d, "occupancy.json")))
for k, v in occ.items():
    if not k.isdigit():
        continue
    se = int(k)
    got = [e for e in ev if e["ph"] == "C" and e["pid"] == 1000 * (se + 1)]
    lvl, want = 0, []
    v = sorted(v, key=lambda x: x[0])
    for i, x in enumerate(v):
        lvl += 1 if x[4] else -1
        if i + 1 == len(v) or v[i + 1][0] != x[0]:
            want.append((us(se, x[0]), lvl))
    assert len(got) == len(want) and all(g["args"]["waves"] == w[1] and abs(g["ts"] - w[0]) < 0.0011 for g, w in zip(got, want)), (se, got[:3], want[:3])
assert env["slices"] == sum(len(v) for v in tracks.values()) and env["bytes"] == os.path.getsize(tl)
PY
}

for c in pa-big layernorm-big; do
  d=$(ls -d "$FP_CORPUS/$c"/att/ui_output_agent_*)
  for det in states lines insts; do
    "$FLYPROF" timeline -q --bundle "$d" --detail $det --out "$tmp/t.json" > "$tmp/env" 2> "$tmp/err"; rc=$?
    [ $rc -eq 0 ] && check "$d" "$tmp/t.json" "$tmp/env" $det && ok "$c --detail $det: structure, one state track per wave, times from realtime.json, occupancy" || { no "$c $det ($rc)"; head -c 600 "$tmp/env"; cat "$tmp/err"; }
  done
done

# a bundle: timeline.json lands in it; the envelope says so
c=pa-big; d=$(ls -d "$FP_CORPUS/$c"/att/ui_output_agent_*)
mkdir -p "$tmp/b/att/big" && ln -s "$d" "$tmp/b/att/big/$(basename "$d")"
"$FLYPROF" timeline -q --bundle "$tmp/b" > "$tmp/env"; rc=$?
[ $rc -eq 0 ] && python3 - "$tmp" <<'PY' && ok "bundle: timeline.json written into it" || { no "bundle ($rc)"; cat "$tmp/env"; }
import json, os, sys
t = sys.argv[1]
e = json.load(open(t + "/env"))["data"]
assert e["artifact"] == os.path.realpath(t + "/b/timeline.json") and os.path.getsize(e["artifact"]) == e["bytes"], e
assert e["detail"] == "lines" and e["shader_mhz"]["min"] > 1000 and e["dispatch"]["symbol"] == "pa_decode_ps_kernel_0", e
PY

# no realtime.json: cycles (1 ns each) or --clock-mhz; a malformed one is a warning, not a failure
cp -r "$d" "$tmp/nrt"; rm "$tmp/nrt/realtime.json"
"$FLYPROF" timeline -q --bundle "$tmp/nrt" --detail states --out "$tmp/c.json" > "$tmp/env"; rc1=$?
"$FLYPROF" timeline -q --bundle "$tmp/nrt" --detail states --clock-mhz 2000 --out "$tmp/k.json" > "$tmp/env2"; rc2=$?
echo '{"SE0": [[5, 1]], "metadata": {"frequency": 100000000}}' > "$tmp/nrt/realtime.json"
"$FLYPROF" timeline -q --bundle "$tmp/nrt" --detail states --out "$tmp/m.json" > "$tmp/env3"; rc3=$?
[ $rc1$rc2$rc3 = 000 ] && python3 - "$tmp" "$d" <<'PY' && ok "no realtime.json: cycles or --clock-mhz; a malformed one warns and falls back" || { no "timebases ($rc1 $rc2 $rc3)"; cat "$tmp/env3"; }
import json, sys, glob, os
t, d = sys.argv[1:3]
f = sorted(glob.glob(d + "/se0_sm0_sl0_wv0.json"))[0]
w = json.load(open(f))["wave"]
first_state = w["begin"] + sum(s[1] for s in w["timeline"][:1] if s[0] == 0)
def first(p):
    return [e for e in json.load(open(p))["traceEvents"] if e["ph"] == "X" and e["tid"] == 1][0]
c, k = first(t + "/c.json"), first(t + "/k.json")
assert abs(c["ts"] - first_state / 1000) < 0.0011 and abs(k["ts"] - first_state / 2000) < 0.0011, (c, k, first_state)
e1, e2, e3 = (json.load(open(t + x)) for x in ("/env", "/env2", "/env3"))
assert e1["data"]["timebase"] == "cycles" and any("1 ns" in x for x in e1["warnings"]), e1
assert e2["data"]["timebase"] == "clock" and e2["data"]["shader_mhz"]["min"] is None, e2
assert e3["data"]["timebase"] == "cycles" and any("realtime.json unusable" in x for x in e3["warnings"]), e3
assert json.load(open(t + "/c.json"))["otherData"]["time_unit"].startswith("1 cycle = 1 ns")
PY

# --max-waves: an evenly spaced subset, tids kept
c=moe_reduce-big; d=$(ls -d "$FP_CORPUS/$c"/att/ui_output_agent_*)
"$FLYPROF" timeline -q --bundle "$d" --detail states --max-waves 10 --out "$tmp/s.json" > "$tmp/env"; rc=$?
[ $rc -eq 0 ] && python3 - "$tmp" <<'PY' && ok "--max-waves 10 of 4112: 10 tracks, evenly spaced" || { no "max-waves ($rc)"; cat "$tmp/env"; }
import json, sys
t = sys.argv[1]
e = json.load(open(t + "/env"))["data"]
ev = json.load(open(t + "/s.json"))["traceEvents"]
tids = sorted({x["tid"] for x in ev if x["ph"] == "X"})
assert e["waves_listed"] == 4112 and e["waves"] == 10 and len(tids) == 10, (e, tids)
pos = [(x - 1) // 2 for x in tids]
assert pos[0] == 0 and all(400 <= b - a <= 420 for a, b in zip(pos, pos[1:])), pos
PY

# SIGTERM while the waves are streamed: INTERRUPTED (130), nothing left behind (no artifact, no temp file)
mkdir -p "$tmp/sig"
"$FLYPROF" timeline -q --bundle "$d" --detail insts --out "$tmp/sig/t.json" > "$tmp/env" & p=$!
for _ in $(seq 200); do [ -n "$(ls "$tmp/sig")" ] && break; sleep 0.02; done
kill -TERM $p; wait $p; rc=$?
[ $rc -eq 130 ] && [ -z "$(ls "$tmp/sig")" ] && grep -q '"INTERRUPTED"' "$tmp/env" && ok "SIGTERM mid-stream -> INTERRUPTED, no artifact or temp file" || { no "sigterm ($rc)"; ls -la "$tmp/sig"; cat "$tmp/env"; }

# errors: an empty shell, an unwritable --out
mkdir -p "$tmp/shell"; echo '{"code": null, "header": "", "version": "3.0.0"}' > "$tmp/shell/code.json"
"$FLYPROF" timeline -q --bundle "$tmp/shell" --out "$tmp/x.json" > "$tmp/env"; rc=$?
[ $rc -eq 66 ] && grep -q '"EMPTY_ATT"' "$tmp/env" && [ ! -e "$tmp/x.json" ] && ok "an empty shell -> EMPTY_ATT, nothing written" || { no "shell ($rc)"; cat "$tmp/env"; }
"$FLYPROF" timeline -q --bundle "$d" --out /proc/no/t.json > "$tmp/env"; rc=$?
[ $rc -ne 0 ] && python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["error"]; assert e["code"] in ("IO_ERROR","BAD_ARGS","NO_ARTIFACT"), e' "$tmp/env" && ok "an unwritable --out -> a typed error" || { no "unwritable ($rc)"; cat "$tmp/env"; }
exit $fail
