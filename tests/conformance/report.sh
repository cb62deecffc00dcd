#!/bin/bash
# report on every corpus case: it succeeds, recommends something (or states the roof), and every
# evidence line (hottest instruction of each recommendation and the producers
# it waits on, the evidence hotspots, the hot source lines) points at an
# instruction (code_line + ISA + source) and a source line that exist in that
# trace's code.json and source copies. The corpus is read-only: --bundle is
# the dispatch dir itself and the outputs go to a temp dir.
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

n=0
while IFS=$'\t' read -r id _set _kernel _variant dispatch symbol _rest; do
    [ "$id" = id ] && continue
    D="$C/$id/att/$dispatch"
    [ -d "$D" ] || fail "$id: no dispatch dir $D"
    "$FLYPROF" report --bundle "$D" --out-dir "$T/$id" -q -f json > "$T/$id.env"; rc=$?
    [ $rc -eq 0 ] || fail "$id: report exit $rc"
    python3 - "$T/$id/report.json" "$D" "$symbol" "$id" <<'PY' || fail "$id: evidence check"
import json, os, sys
rep, ddir, symbol, case = sys.argv[1:5]
r = json.load(open(rep))
code = json.load(open(os.path.join(ddir, "code.json")))["code"]
rows = {row[2]: row for row in code if isinstance(row[2], int) and row[2] > 0}
# the source copies: vpath -> number of lines
lines_of = {}
snap = os.path.join(ddir, "snapshots.json")
if os.path.exists(snap):
    def walk(node, prefix):
        for k, v in node.items():
            p = prefix + ("" if k == "/" else "/" + k)
            if isinstance(v, dict):
                walk(v, p)
            else:
                with open(os.path.join(ddir, v), newline="") as f:
                    lines_of[p] = len(f.read().splitlines())
    walk(json.load(open(snap)), "")
sources = {row[3] for row in rows.values()}

def check_source(src, where):
    if not src:  # unmapped instruction (no line table): nothing to point at
        return
    assert src in sources, f"{where}: source {src!r} not in code.json"
    inner = src.split(" -> ")[0]
    path, _, line = inner.rpartition(":")
    assert int(line) > 0, f"{where}: bad line in {src!r}"
    if path in lines_of:
        assert int(line) <= lines_of[path], f"{where}: {src!r} beyond the {lines_of[path]} lines of the copy"

def check_inst(e, where):
    cl = e["code_line"]
    assert cl in rows, f"{where}: code_line {cl} not in code.json"
    row = rows[cl]
    assert e["inst"] == row[0], f"{where}: code_line {cl} is {row[0]!r}, evidence says {e['inst']!r}"
    src = e.get("source")
    assert (src or "") == row[3], f"{where}: code_line {cl} source {row[3]!r}, evidence says {src!r}"
    check_source(src, where)

assert r["kernel"] == symbol, (r["kernel"], symbol)
assert r["arch"] == "gfx950", r["arch"]             # agent_info.csv of the capture, not guessed
assert r["product"] == "AMD Instinct MI350X", r["product"]
assert r["bound_type"] in ("memory", "compute", "latency", "parallelism"), r["bound_type"]
recs = r["recommendations"]
# at the HBM ceiling the verdict is a fact ("only fewer bytes help"), not a ranked rule with gain 0
assert recs or (r["bound"]["at_roof"] and "only fewer bytes help" in r["headline"]), "no recommendation"
n_checked = 0
for rec in recs:
    h = rec["evidence"].get("hottest")
    if h:
        check_inst(h, f"rec {rec['rule']}")
        n_checked += 1
        for p in h["waits_on"]:
            check_inst(p, f"rec {rec['rule']} producer")
            n_checked += 1
    acc = rec["acceptance"]
    if acc["kind"] == "line_stall_drop":
        check_source(acc["source"], f"rec {rec['rule']} acceptance")
for e in r["evidence_hotspots"]:
    check_inst(e, "evidence hotspot")
    n_checked += 1
    for p in e["waits_on"]:
        check_inst(p, "evidence hotspot producer")
for hl in r["hot_lines"]:
    check_source(hl["source"], "hot line")
    if hl.get("text") is not None and hl["source"]:
        path, _, line = hl["source"].split(" -> ")[0].rpartition(":")
        assert path in lines_of, f"hot line text without a source copy: {hl['source']}"
for ins in r["instructions"]:
    check_inst(ins, "instructions[]")
assert n_checked > 0
PY
    n=$((n + 1))
done < "$C/cases.tsv"
[ $n -ge 13 ] || fail "only $n cases"

# the two captures of the same code: a diff within the documented noise floor
A=$(ls -d "$C"/flash_attn_func-small/att/ui_output_*)
B=$(ls -d "$C"/flash_attn_func-small-after_loc_fix/att/ui_output_*)
"$FLYPROF" diff --before "$T/flash_attn_func-small/report.json" \
    --after "$T/flash_attn_func-small-after_loc_fix/report.json" --out "$T/noise.json" -q -f json > /dev/null ||
    fail "noise diff"
python3 - "$T/noise.json" <<'PY' || fail "noise floor"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"]["overall"] == "neutral", d["verdict"]
assert abs(d["totals"]["stall_pct"]["delta"]) < d["noise_floor"]["stall_pct_points"], d["totals"]["stall_pct"]
assert all(abs(c["delta"]["pct"]) < d["noise_floor"]["share_points"] for c in d["classes"]), \
    [(c["class"], c["delta"]["pct"]) for c in d["classes"]]
assert d["instructions"]["matched"] == d["instructions"]["before"] == d["instructions"]["after"]
PY
echo "ok ($n cases)"
