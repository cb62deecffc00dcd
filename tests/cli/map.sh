#!/usr/bin/env bash
# flyprof map: exact FILE:LINE selection, inline call sites, suffix matching, snippets,
# folded stacks, the SVG, artifacts and errors.
set -u
GEN="$FP_TOOLS/fp_gen_att"
[ -x "$GEN" ] || { echo "fp_gen_att not built: skip"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
no() { echo "FAIL $1"; fail=1; }
"$GEN" "$FP_SRC/tests/data/gen/bub_two_waves.json" "$tmp/g" >/dev/null || { echo "FAIL generate"; exit 1; }
d=$(ls -d "$tmp/g"/ui_output_agent_*)
run() { "$FLYPROF" map -q "$@" > "$tmp/env" 2> "$tmp/err"; rc=$?; }
py() { python3 - "$tmp/env" "$@"; }

# the program: line 3 at x.py:19, line 4 at "x.py:190 -> y.py:5", line 5 at x.py:191
run --bundle "$d" --source-line x.py:19
[ $rc -eq 0 ] && py <<'PY' && ok "x.py:19 selects line 3 only (not x.py:190/191), suffix match reported" || { no "x.py:19"; cat "$tmp/env"; }
import json, sys
d = json.load(open(sys.argv[1]))["data"]
assert [m["code_line"] for m in d["mappings"]] == [3], d["mappings"]
s = d["selection"]
assert s["file_match"] == "suffix" and s["matched_file"] == "/synthetic/kernels/x.py" and s["count"] == 1, s
m = d["mappings"][0]
assert m["snippet"]["line"] == 19 and [l["n"] for l in m["snippet"]["lines"]] == [17, 18, 19, 20], m["snippet"]
assert [l["hot"] for l in m["snippet"]["lines"]] == [False, False, True, False]
assert m["snippet"]["lines"][2]["text"] == "wait(b)  # 19" and m["confidence"] == "exact"
assert d["artifact"] is None and d["flamegraph"]["svg"] is None
PY
run --bundle "$d" --source-line /synthetic/kernels/x.py:190 --context 0
[ $rc -eq 0 ] && py <<'PY' && ok "exact path x.py:190 selects line 4 (frame 0)" || { no "x.py:190"; cat "$tmp/env"; }
import json, sys
d = json.load(open(sys.argv[1]))["data"]
assert [m["code_line"] for m in d["mappings"]] == [4] and d["selection"]["file_match"] == "exact", d
m = d["mappings"][0]
assert m["matched_frame"] == 0 and m["frames"] == [{"file": "/synthetic/kernels/x.py", "line": 190}, {"file": "/synthetic/kernels/y.py", "line": 5}], m
assert m["snippet"] is None and m["confidence"] == "source_only"  # x.py has 20 lines only
PY
run --bundle "$d" --source-line kernels/y.py:5 --context 1
[ $rc -eq 0 ] && py <<'PY' && ok "an inline call site selects the inlined instruction (frame 1)" || { no "y.py:5"; cat "$tmp/env"; }
import json, sys
d = json.load(open(sys.argv[1]))["data"]
m = d["mappings"]; assert [x["code_line"] for x in m] == [4] and m[0]["matched_frame"] == 1, m
assert [l["n"] for l in m[0]["snippet"]["lines"]] == [4, 5, 6] and m[0]["snippet"]["file"] == "/synthetic/kernels/y.py"
PY
run --bundle "$d" --source-line x.py:18
[ $rc -eq 66 ] && py <<'PY' && ok "a line without instructions -> NO_ARTIFACT with the file's lines" || { no "x.py:18 ($rc)"; cat "$tmp/env"; }
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["code"] == "NO_ARTIFACT" and e["available"] == [10, 12, 19, 190, 191], e
PY
cp -r "$d" "$tmp/amb"
python3 - "$tmp/amb/code.json" <<'PY'
import json, sys
p = sys.argv[1]; j = json.load(open(p))
j["code"][5][3] = "/other/x.py:191"
open(p, "w").write(json.dumps(j))
PY
run --bundle "$tmp/amb" --source-line x.py:19
[ $rc -eq 78 ] && py <<'PY' && ok "an ambiguous suffix -> BAD_ARGS with candidates" || { no "ambiguous ($rc)"; cat "$tmp/env"; }
import json, sys
e = json.load(open(sys.argv[1]))["error"]
assert e["code"] == "BAD_ARGS" and e["candidates"] == ["/synthetic/kernels/x.py", "/other/x.py"], e
PY
run --bundle "$tmp/amb" --source-line kernels/x.py:19
[ $rc -eq 0 ] && ok "a longer suffix disambiguates" || no "longer suffix ($rc)"
run --bundle "$d" --source-line .py:19
[ $rc -eq 66 ] && ok "'.py' is not a path-component suffix" || no ".py ($rc)"
run --bundle "$d" --source-line ynope.py:5
[ $rc -eq 66 ] && ok "'ynope.py' does not suffix-match y.py" || no "suffix boundary ($rc)"
run --bundle "$d" --source-line x.py
[ $rc -eq 64 ] && ok "--source-line without a line -> USAGE" || no "no line ($rc)"
run --bundle "$d" --code-line 4
[ $rc -eq 0 ] && py <<'PY' && ok "--code-line 4 -> x.py:190 -> y.py:5" || { no "--code-line"; cat "$tmp/env"; }
import json, sys
m = json.load(open(sys.argv[1]))["data"]["mappings"]
assert len(m) == 1 and m[0]["isa"].startswith("v_add_f32") and m[0]["source"] == "/synthetic/kernels/x.py:190 -> /synthetic/kernels/y.py:5", m
PY
run --bundle "$d" --code-line 77
[ $rc -eq 66 ] && py <<'PY' && ok "--code-line unknown -> NO_ARTIFACT with the range" || no "--code-line 77 ($rc)"
import json, sys
e = json.load(open(sys.argv[1]))["error"]; assert e["available"] == {"min": 1, "max": 5}, e
PY
run --bundle "$d" --code-line 3 --source-line x.py:19
[ $rc -eq 78 ] && ok "--code-line with --source-line -> BAD_ARGS" || no "exclusive ($rc)"

# artifacts into a bundle: map.json, flamegraph.folded, flamegraph.svg
b="$tmp/bundle"; mkdir -p "$b/att/big"; cp -r "$d" "$b/att/big/"
run --bundle "$b" --weight latency
if [ $rc -eq 0 ] && [ -f "$b/map.json" ] && [ -f "$b/flamegraph.folded" ] && [ -f "$b/flamegraph.svg" ] && python3 - "$b" <<'PY'
import json, sys, xml.etree.ElementTree as ET
b = sys.argv[1]
lines = open(b + "/flamegraph.folded").read().splitlines()
# latency per row: 1: 8 (2 x 4), 2: 16, 3: 600, 4: 8, 5: 8; the inlined row has its call site first
want = {
    "/synthetic/kernels/x.py:10;smem": 8,
    "/synthetic/kernels/x.py:12;vmem_load": 16,
    "/synthetic/kernels/x.py:19;vmcnt": 600,
    "/synthetic/kernels/y.py:5;/synthetic/kernels/x.py:190;valu": 8,
    "/synthetic/kernels/x.py:191;drain": 8,  # s_endpgm is the drain class (issue 9), was salu
}
got = {l.rsplit(" ", 1)[0]: int(l.rsplit(" ", 1)[1]) for l in lines}
assert got == want, got
assert lines == sorted(lines)
svg = ET.parse(b + "/flamegraph.svg").getroot()
assert svg.tag.endswith("svg")
titles = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}title")]
assert any(t.startswith("all (640 cycles") for t in titles), titles
assert any(t.startswith("vmcnt (600 cycles, 93.75%)") for t in titles), titles
m = json.load(open(b + "/map.json"))
assert m["flamegraph"]["stacks"] == 5 and m["flamegraph"]["weight"] == "latency" and m["src_mapped_pct"] == 100
assert m["selection"]["kind"] == "top" and [x["code_line"] for x in m["mappings"]] == [3]
PY
then ok "bundle gets map.json, flamegraph.folded (call site first) and a parseable SVG"; else no "bundle artifacts"; cat "$tmp/env"; fi

# hostile names in frames: ';' and '<' must not break the folded format or the SVG
python3 - "$d/code.json" <<'PY'
import json, sys
p = sys.argv[1]; j = json.load(open(p))
j["code"][3][3] = "/k/a;b<&>.py:7"
open(p, "w").write(json.dumps(j))
PY
run --bundle "$d" --out-dir "$tmp/o" --weight stall
if [ $rc -eq 0 ] && grep -q '^/k/a:b<&>.py:7;vmcnt 600$' "$tmp/o/flamegraph.folded" && python3 -c "import xml.etree.ElementTree as E,sys; E.parse(sys.argv[1])" "$tmp/o/flamegraph.svg"; then
    ok "';' and XML specials in paths are escaped"; else no "escaping"; cat "$tmp/o/flamegraph.folded"; fi
printf '{"code": 7}' > "$d/code.json"
run --bundle "$d"
[ $rc -eq 65 ] && ok "malformed code.json -> BAD_INPUT" || no "malformed ($rc)"

# one taxonomy: the hottest instruction of preshuffle_gemm_v2 is `s_waitcnt vmcnt(0) lgkmcnt(0)`; map
# classes it as bubbles does (by what the waves waited on: vmcnt), not as the static "waitcnt"
C=${FP_CORPUS:-}/preshuffle_gemm_v2-big
if [ -d "$C/att" ]; then
    D=$(ls -d "$C"/att/ui_output_agent_*_dispatch_* | head -1)
    "$FLYPROF" map --bundle "$D" --out-dir "$tmp/pg" --limit 0 -q -f json > "$tmp/m.json"
    "$FLYPROF" bubbles --bundle "$D" --out "$tmp/pg/b.json" --limit 0 -q -f json > /dev/null
    python3 - "$tmp/m.json" "$tmp/pg/b.json" <<'PY' && ok "map and bubbles agree on every class" || no "map vs bubbles classes"
import json, sys
m = json.load(open(sys.argv[1]))["data"]["mappings"]
b = json.load(open(sys.argv[2]))
top = m[0]
assert top["isa"].startswith("s_waitcnt vmcnt(0) lgkmcnt(0)") and top["class"] == "vmcnt", top
bcls = {h["code_line"]: h["class"] for h in b["hotspots"]}
diff = [(x["code_line"], x["class"], bcls[x["code_line"]]) for x in m if x["code_line"] in bcls and bcls[x["code_line"]] != x["class"]]
assert not diff and len(bcls) > 0, diff[:5]
PY
else
    echo "skip map/bubbles taxonomy on the corpus (no $C)"
fi
# issue 20: exposed stall is the default weight (= bubbles.json's hotspots[].exposed per stack), the
# SVG is interactive (one inline script, no network) with labels relative to the source root, and a
# query (--code-line / --source-line) writes nothing even in a bundle
"$GEN" "$FP_SRC/tests/data/gen/bub_two_waves.json" "$tmp/e" >/dev/null
de=$(ls -d "$tmp/e"/ui_output_agent_*)
mkdir -p "$tmp/eb/att/big" && cp -r "$de" "$tmp/eb/att/big/"
"$FLYPROF" map -q --bundle "$tmp/eb" > "$tmp/env"; rc=$?
"$FLYPROF" bubbles -q --bundle "$tmp/eb" --out "$tmp/eb.bub.json" > /dev/null
[ $rc -eq 0 ] && python3 - "$tmp/eb" "$tmp/eb.bub.json" <<'PY' && ok "default weight exposed = bubbles.json exposed; interactive SVG, short labels" || { no "exposed weight / svg"; cat "$tmp/env"; }
import json, sys, re
import xml.etree.ElementTree as ET
b, bub = sys.argv[1], json.load(open(sys.argv[2]))
m = json.load(open(b + "/map.json"))
assert m["flamegraph"]["weight"] == "exposed", m["flamegraph"]
got = {}
for l in open(b + "/flamegraph.folded").read().splitlines():
    st, n = l.rsplit(" ", 1)
    got[st] = int(n)
want = {}
for h in bub["hotspots"]:
    if h["exposed"] > 0:
        fr = [f for f in h["source"].split(" -> ")][::-1]
        want[";".join(fr + [h["class"]])] = want.get(";".join(fr + [h["class"]]), 0) + h["exposed"]
assert got == want, (got, want)
svg = open(b + "/flamegraph.svg").read()
root = ET.fromstring(svg)
ns = "{http://www.w3.org/2000/svg}"
assert len(list(root.iter(ns + "script"))) == 1 and "http" not in "".join(s.text for s in root.iter(ns + "script"))
labels = [g.get("data-l") for g in root.iter(ns + "g") if g.get("class") == "f"]
assert "x.py:19" in labels and not any(l and l.startswith("/synthetic") for l in labels), labels
assert root.find(ns + "text[@id='fp-search']") is not None and root.find(ns + "text[@id='fp-reset']") is not None
PY
before=$(ls -l --time-style=+%s.%N "$tmp/eb" | md5sum)
"$FLYPROF" map -q --bundle "$tmp/eb" --code-line 3 > "$tmp/env"; rc1=$?
"$FLYPROF" map -q --bundle "$tmp/eb" --source-line x.py:19 --out-dir "$tmp/never" > "$tmp/env2"; rc2=$?
[ $rc1$rc2 = 00 ] && [ "$before" = "$(ls -l --time-style=+%s.%N "$tmp/eb" | md5sum)" ] && [ ! -e "$tmp/never" ] && python3 - "$tmp" <<'PY' && ok "--code-line / --source-line are read-only (artifact null, --out-dir ignored with a warning)" || { no "read-only queries ($rc1 $rc2)"; cat "$tmp/env2"; }
import json, sys
e1, e2 = (json.load(open(sys.argv[1] + f)) for f in ("/env", "/env2"))
assert e1["data"]["artifact"] is None and e1["data"]["mappings"][0]["code_line"] == 3, e1["data"]["artifact"]
assert e2["data"]["artifact"] is None and any("--out-dir ignored" in w for w in e2["warnings"]), e2
PY

# SVG labels are cut on UTF-8 character boundaries: a non-Latin source path still gives valid XML
python3 - "$de/code.json" <<'PY'
import json, sys
p = sys.argv[1]; j = json.load(open(p))
j["code"][3][3] = "/синтетика/ядра/" + "очень_длинное_имя_漢字_你好世界_" * 12 + ".py:19"
open(p, "w", encoding="utf-8").write(json.dumps(j, ensure_ascii=False))
PY
"$FLYPROF" map -q --bundle "$de" --out-dir "$tmp/u" --weight stall > "$tmp/env"; rc=$?
[ $rc -eq 0 ] && python3 - "$tmp/u/flamegraph.svg" <<'PY' && ok "non-Latin paths: labels cut on character boundaries, the SVG parses as XML" || { no "utf-8 cut ($rc)"; cat "$tmp/env"; }
import sys
import xml.etree.ElementTree as ET
raw = open(sys.argv[1], "rb").read()
raw.decode("utf-8")  # strict: a cut inside a sequence raises
root = ET.fromstring(raw)
ns = "{http://www.w3.org/2000/svg}"
texts = [t.text for t in root.iter(ns + "text") if t.text and ".." in t.text]
assert any(any(ord(c) > 0x400 for c in t) for t in texts), texts
PY
exit $fail
