#!/usr/bin/env bash
# annotate on the top hotspot of every corpus case names the same wait and producers
# as bubbles.json (hotspots[0] and its waits_on), its per-instruction figures are
# code.json's, and the producer counts of decoder evidence are the wave files'
# waitcnt edges counted independently here. annotate writes nothing.
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
status=0
n=0
for case_dir in "$C"/*/; do
    case=$(basename "$case_dir")
    d=$(ls -d "$case_dir"att/*/ | head -1)
    [ -f "$d/code.json" ] || continue
    before=$(ls -la "$d" | md5sum)
    "$FLYPROF" bubbles --bundle "$d" -q --out "$T/$case.bub.json" > /dev/null || { echo "FAIL $case: bubbles"; status=1; continue; }
    "$FLYPROF" annotate --bundle "$d" -q --context 6 > "$T/$case.env"; rc=$?
    [ "$before" = "$(ls -la "$d" | md5sum)" ] || { echo "FAIL $case: annotate wrote into the dispatch dir"; status=1; }
    if [ $rc -ne 0 ]; then echo "FAIL $case: annotate exit $rc"; cat "$T/$case.env"; status=1; continue; fi
    python3 - "$T/$case.bub.json" "$T/$case.env" "$d" "$case" <<'PY' || status=1
import json, sys, glob, os
bub, env, d, case = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["data"], sys.argv[3], sys.argv[4]
h0 = bub["hotspots"][0]
t = env["target"]
assert t["kind"] == "top" and t["code_line"] == h0["code_line"] and t["hotspot_rank"] == 1, (case, t, h0["code_line"])
rows = {r["code_line"]: r for r in env["rows"]}
tr = [r for r in env["rows"] if r["target"]]
assert len(tr) == 1 and tr[0]["code_line"] == h0["code_line"] and tr[0]["isa"] == h0["inst"], (case, tr)
assert tr[0]["class"] == h0["class"] and tr[0]["exposed"] == h0["exposed"], (case, tr[0], h0)
key = lambda w: (w["code_line"], w["inst"], w["count"])
assert [key(w) for w in tr[0]["waits_on"]] == [key(w) for w in h0["waits_on"]], (case, tr[0]["waits_on"], h0["waits_on"])
for w, b in zip(tr[0]["waits_on"], h0["waits_on"]):
    assert w["load_to_use_mean"] == b["load_to_use_cycles"]["mean"] and w["evidence"] == b["evidence"], (case, w, b)
# every hotspot in the window: the same producers as its bubbles.json entry
hs = {h["code_line"]: h for h in bub["hotspots"]}
for cl, r in rows.items():
    assert [key(w) for w in r["waits_on"]] == [key(w) for w in hs[cl]["waits_on"]] if cl in hs else r["waits_on"] == [], (case, cl)
# figures from code.json, window = 13 counted rows around the target (fewer at the ends)
code = [c for c in json.load(open(os.path.join(d, "code.json")))["code"] if not c[0].startswith(";")]
idx = [c[2] for c in code].index(h0["code_line"])
want = code[max(0, idx - 6): idx + 7]
assert [r["code_line"] for r in env["rows"]] == [c[2] for c in want], case
for r, c in zip(env["rows"], want):
    assert (r["isa"], r["hit"], r["latency"], r["stall"]) == (c[0], c[6], c[7], c[8]), (case, r, c)
# decoder evidence: the count is the wave files' waitcnt edges naming that producer
edges = {}
for f in glob.glob(os.path.join(d, "se*_sm*_sl*_wv*.json")):
    for wl, prods in json.load(open(f))["wave"].get("waitcnt", []):
        if wl == h0["code_line"]:
            for p, _ in prods:
                edges[p] = edges.get(p, 0) + 1
for w in tr[0]["waits_on"]:
    if w["evidence"] == "decoder":
        assert edges.get(w["code_line"]) == w["count"], (case, w, edges)
print("ok   %s: pc %d %s <- %s" % (case, h0["code_line"], h0["inst"], [w["code_line"] for w in h0["waits_on"]] or "no producer"))
PY
    n=$((n + 1))
done
[ $n -gt 0 ] || { echo "FAIL no corpus case"; status=1; }
exit $status
