#!/usr/bin/env bash
# bubbles on every corpus case: invariants and agreement with the reference numbers.
#   Σ class cycles = total stall; Σ hit = wave records; exposed <= stall for every
#   hotspot, line and class; totals and per-line stall sums = expected/hotspots.numbers.json;
#   wave-state sums = ∫ wstates*.json; the artifact is complete (no truncation) and the
#   envelope is bounded by --limit.
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
status=0
for case_dir in "$C"/*/; do
    case=$(basename "$case_dir")
    [ -f "$case_dir/expected/hotspots.numbers.json" ] || continue
    d=$(ls -d "$case_dir"att/*/ | head -1)
    "$FLYPROF" bubbles --bundle "$d" -q --limit 3 --out "$T/$case.json" > "$T/$case.env"
    rc=$?
    if [ $rc -ne 0 ]; then echo "FAIL $case: exit $rc"; cat "$T/$case.env"; status=1; continue; fi
    python3 - "$T/$case.json" "$T/$case.env" "$case_dir/expected/hotspots.numbers.json" "$case" <<'PY' || status=1
import json, sys
art = json.load(open(sys.argv[1])); env = json.load(open(sys.argv[2])); ref = json.load(open(sys.argv[3])); case = sys.argv[4]
bad = []
def check(cond, what):
    if not cond: bad.append(what)
t = art["totals"]
check(env["ok"] is True and env["command"] == "bubbles", "envelope ok")
check(t["latency"] == ref["total_cycles"], "total latency %s != %s" % (t["latency"], ref["total_cycles"]))
check(t["stall"] == ref["total_stall"], "total stall %s != %s" % (t["stall"], ref["total_stall"]))
check(t["instructions"] == ref["instructions"], "instructions")
check(sum(c["cycles"] for c in art["classes"]) == t["stall"], "sum class cycles != total stall")
check(t["hit"] == t["wave_records"], "sum hit != wave records")
check(t["exposed"] + t["hidden"] == t["wave_stall"] and t["exposed"] <= t["wave_stall"], "exposed split")
# code.json and the waves agree on every corpus case, so exposed + hidden = stall exactly
# (hidden is clamped at 0 in the artifact: equality proves exposed <= stall)
for h in art["hotspots"]:
    check(0 <= h["exposed"] and h["exposed"] + h["hidden"] == h["stall"], "hotspot split at %s" % h["code_line"])
for c in art["classes"]:
    check(0 <= c["exposed"] and c["exposed"] + c["hidden"] == c["cycles"], "class split %s" % c["class"])
    check(0 <= c["gain_upper_pct"] <= 100, "gain bound")
for l in art["lines"]:
    check(0 <= l["exposed"] and l["exposed"] + l["hidden"] == l["stall"], "line split: %s" % l["source"])
mine = {l["source"]: l["stall"] for l in art["lines"]}
for s in ref["source_lines"]:
    if s["source_loc"] == "<unknown>":
        continue
    check(mine.get(s["source_loc"]) == s["stall"], "line %s stall %s != %s" % (s["source_loc"], mine.get(s["source_loc"]), s["stall"]))
check(len(art["hotspots"]) == ref["stalling_instructions_total"], "hotspots complete (%d vs %d)" % (len(art["hotspots"]), ref["stalling_instructions_total"]))
# exposed ranking is non-increasing
ex = [h["exposed"] for h in art["hotspots"]]
check(ex == sorted(ex, reverse=True), "hotspots ranked by exposed")
ws = art["wave_states"]
check(ws["wstates"]["agrees"] is True, "wave states vs wstates")
q = art["quality"]
check(q["waves_read"] == q["waves_listed"] and q["waves_skipped"] == 0, "all waves read")
check(q["code_vs_waves"]["agree"] is True, "code.json vs waves")
check(art["waitcnt"]["evidence"] == "decoder" and art["waitcnt"]["unmatched_entries"] == 0, "waitcnt matched")
check(len(env["data"]["hotspots"]) == min(3, len(art["hotspots"])), "envelope bounded")
if len(art["hotspots"]) > 3:
    check(env["truncated"]["hotspots"]["total"] == len(art["hotspots"]), "truncated says what was cut")
if bad:
    print("FAIL %s: %s" % (case, "; ".join(bad[:6]))); sys.exit(1)
print("ok   %s" % case)
PY
done
exit $status
