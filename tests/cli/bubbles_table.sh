#!/usr/bin/env bash
# bubbles -f table carries the producer of each wait (issue 20 item 5): --by inst shows, under each
# hotspot, the producers bubbles.json names (pc, opcode, line, load-to-use, executions); --by line
# one row per source line with its waits' producers merged over the line's hotspots (executions
# summed), recomputed here from bubbles.json.
set -u
: "${FLYPROF:?}" "${FP_TOOLS:?}" "${FP_SRC:?}"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "ok   $1"; }
no() { echo "FAIL $1"; fail=1; }
dirs=()
"$FP_TOOLS/fp_gen_att" "$FP_SRC/tests/data/gen/bub_two_waves.json" "$T/g" >/dev/null && dirs+=("$(ls -d "$T/g"/ui_output_agent_*)")
[ -d "${FP_CORPUS:-}/pa-big/att" ] && dirs+=("$(ls -d "$FP_CORPUS"/pa-big/att/ui_output_agent_*)")
for d in "${dirs[@]}"; do
    n=$(basename "$d")
    "$FLYPROF" bubbles -q --bundle "$d" --out "$T/b.json" --limit 0 > /dev/null || { no "$n bubbles"; continue; }
    "$FLYPROF" bubbles -q --bundle "$d" --limit 5 -f table --wide > "$T/inst.txt"; r1=$?
    "$FLYPROF" bubbles -q --bundle "$d" --limit 5 -f table --wide --by line > "$T/line.txt"; r2=$?
    [ $r1$r2 = 00 ] && python3 - "$T/b.json" "$T/inst.txt" "$T/line.txt" <<'PY' && ok "$n: producers next to each wait (--by inst) and merged per line (--by line)" || { no "$n table"; cat "$T/inst.txt" "$T/line.txt"; }
import json, sys, re, os
b = json.load(open(sys.argv[1]))
inst, line = open(sys.argv[2]).read(), open(sys.argv[3]).read()
def fmt(w):
    src = (w["source"] or "<unmapped>").split(" -> ")[0]
    return "<- pc %d %s @ %s  l2u %.0f/%d cyc  %dx" % (w["code_line"], w["inst"].split()[0], os.path.basename(src),
                                                       w["load_to_use_cycles"]["mean"], w["load_to_use_cycles"]["max"], w["count"])
shown = 0
for h in b["hotspots"][:5]:
    for w in h["waits_on"][:3]:
        assert fmt(w) in inst, (fmt(w), inst)
        shown += 1
assert shown > 0, "no producer in the top hotspots"
rows = [l for l in line.splitlines() if re.match(r"^  \d+ ", l)]
assert len(rows) == min(5, len(b["lines"])), rows
for l, r in zip(b["lines"][:5], rows):
    assert r.split()[1:3] == [str(l["exposed"]), str(l["stall"])] and os.path.basename(l["source"].split(" -> ")[0]) in r, (l, r)
    merged = {}
    for h in b["hotspots"]:
        if h["source"] == l["source"]:
            for w in h["waits_on"]:
                m = merged.setdefault(w["code_line"], [w, 0])
                m[1] += w["count"]
    top = sorted(merged.values(), key=lambda m: (-m[1], m[0]["code_line"]))[:3]
    after = line.split(r, 1)[1].splitlines()[1:]
    block = "\n".join(x for x in __import__("itertools").takewhile(lambda x: x.startswith("        <-"), after))
    for w, c in top:
        assert ("<- pc %d %s @" % (w["code_line"], w["inst"].split()[0])) in block and (" %dx" % c) in block, (w, c, block)
PY
done
exit $fail
