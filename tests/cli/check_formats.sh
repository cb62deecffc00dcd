#!/bin/bash
# check -f junit / -f sarif and diff -f sarif (issue 21 item 2): two bundles of one kernel,
# the second 30 % slower per call. The JUnit report parses as XML with the JUnit shape
# (testsuites > testsuite > testcase), one testcase per gated metric, and its failures
# agree with check's exit status and envelope; the SARIF logs hold one result per class /
# line whose share grew, at .py lines relative to --source-root.
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
unset FLYPROF_HISTORY XDG_DATA_HOME FLYPROF_FORMAT
export HOME="$T/home"
DB="$T/h.db"
python3 - "$FP_SRC/tests/data/gen/rep_stream.json" "$T/slow.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for c in s["rocprof"]["calls"]:
    c["end"] = c["start"] + 26000
s["model"]["latency"]["SMEM"] = 2000   # lgkmcnt's share of the stall grows: a class and a line regress
s["program"][5]["isa"] = "v_mul_f32_e32 v4, v0, v4"  # and the code changed (diff calls no share change of the same code a change)
json.dump(s, open(sys.argv[2], "w"))
PY
"$FP_TOOLS/fp_gen_att" "$FP_SRC/tests/data/gen/rep_stream.json" "$T/fast" >/dev/null || fail "gen fast"
"$FP_TOOLS/fp_gen_att" "$T/slow.json" "$T/slow" >/dev/null || fail "gen slow"
for b in fast slow; do
  printf '{"schema":1,"kernel":"rep_stream_kernel_0","arch":"gfx950","shape":"65536,f32","captured_at":"2026-11-0%sT10:00:00Z"}\n' \
    "$([ $b = fast ] && echo 1 || echo 2)" > "$T/$b/capture.json"
  "$FLYPROF" report --bundle "$T/$b" -q -f json > /dev/null || fail "report $b"
done
"$FLYPROF" history add --bundle "$T/fast" --db "$DB" -q -f json > /dev/null || fail "add fast"

junit() { # FILE EXPECT_FAILED(0/1) ENVELOPE
python3 - "$@" <<'PY'
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
env = json.load(open(sys.argv[3]))
data = env["data"]
assert root.tag == "testsuites", root.tag
suites = root.findall("testsuite")
assert len(suites) == 1
s = suites[0]
cases = s.findall("testcase")
names = [(c.get("classname"), c.get("name")) for c in cases]
want = [("flyprof.check.totals", k) for k in ("time_ns_per_call", "stall_pct", "exposed_pct", "latency_per_wave")]
want += [("flyprof.check.classes", c["class"]) for c in data["classes"]]
assert names == want, (names, want)
assert sys.argv[2] == "0" or any(c["significant"] and c["delta"]["pct"] > 0 for c in data["classes"]), "a class grew"
failed = [c.get("name") for c in cases if c.find("failure") is not None]
skipped = [c.get("name") for c in cases if c.find("skipped") is not None]
for el in (root, s):
    assert int(el.get("tests")) == len(cases) and int(el.get("failures")) == len(failed), el.attrib
    assert int(el.get("skipped")) == len(skipped) and el.get("errors") == "0", el.attrib
tripped = data["gate"]["tripped"]
assert tripped == (sys.argv[2] == "1") == (not env["ok"]), (tripped, env["ok"])
# a failure exactly where the gate tripped: the basis metric, and the classes that grew
want_failed = []
if tripped:
    want_failed = [data["verdict"]["basis"]] + [c["class"] for c in data["classes"] if c["significant"] and c["delta"]["pct"] > 0]
assert failed == want_failed, (failed, want_failed)
t = data["totals"]["time_ns_per_call"]
out = [c for c in cases if c.get("name") == "time_ns_per_call"][0].find("system-out").text
assert out == "time_ns_per_call: %g -> %g (%+g)" % (t["before"], t["after"], t["delta"]), out
props = {p.get("name"): p.get("value") for p in s.find("properties")}
assert props["verdict"] == data["verdict"]["overall"] and props["fail_on"] == data["gate"]["fail_on"], props
PY
}
"$FLYPROF" check --bundle "$T/slow" --db "$DB" -q -f json > "$T/slow.json"; [ $? = 1 ] || fail "check slow json exit"
"$FLYPROF" check --bundle "$T/slow" --db "$DB" -q -f junit > "$T/slow.xml"; rc=$?
[ $rc = 1 ] || fail "check -f junit on a regression: exit $rc"
junit "$T/slow.xml" 1 "$T/slow.json" || fail "junit (regressed): $(cat "$T/slow.xml")"
"$FLYPROF" check --bundle "$T/slow" --db "$DB" --fail-on never -q -f json > "$T/never.json" || fail "never json"
"$FLYPROF" check --bundle "$T/slow" --db "$DB" --fail-on never -q -f junit > "$T/never.xml" || fail "check -f junit --fail-on never exit"
junit "$T/never.xml" 0 "$T/never.json" || fail "junit (gate off)"

# SARIF of check: a result per class whose share grew, at its hottest line of the bundle's report
"$FLYPROF" check --bundle "$T/slow" --db "$DB" -q -f sarif --source-root /x > "$T/c.sarif"; [ $? = 1 ] || fail "check -f sarif exit"
python3 - "$T/c.sarif" "$T/slow.json" "$T/slow/report.json" <<'PY' || fail "check sarif"
import json, sys
log = json.load(open(sys.argv[1])); data = json.load(open(sys.argv[2]))["data"]; rep = json.load(open(sys.argv[3]))
assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
run = log["runs"][0]
rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
grew = [c["class"] for c in data["classes"] if c["significant"] and c["delta"]["pct"] > 0]
res = run["results"]
assert grew, "the slow bundle's lgkmcnt share grew"
assert [r["ruleId"] for r in res] == ["regressed_class"] * len(grew), res
for r, cls in zip(res, grew):
    assert rules[r["ruleIndex"]] == "regressed_class" and r["level"] == "error", r
    assert cls in r["message"]["text"], r
    hot = [h["source"] for h in rep["hot_lines"] if h["dom_class"] == cls]
    if hot:
        loc = r["locations"][0]["physicalLocation"]
        f, line = hot[0].rsplit(":", 1)
        assert loc["artifactLocation"]["uri"] == "file://" + f and loc["region"]["startLine"] == int(line), (loc, hot[0])
PY

# SARIF of diff: lines and classes that grew
"$FLYPROF" diff --before "$T/fast" --after "$T/slow" --no-write -q -f json > "$T/d.json" || fail "diff json"
"$FLYPROF" diff --before "$T/fast" --after "$T/slow" --no-write -q -f sarif > "$T/d.sarif" || fail "diff -f sarif"
python3 - "$T/d.sarif" "$T/d.json" <<'PY' || fail "diff sarif"
import json, sys
log = json.load(open(sys.argv[1])); d = json.load(open(sys.argv[2]))["data"]
res = log["runs"][0]["results"]
lines = [r["source"] for r in d["lines"]["rows"] if r["significant"] and r["delta"]["pct"] > 0]
classes = [c["class"] for c in d["classes"] if c["significant"] and c["delta"]["pct"] > 0]
assert lines and classes, (lines, classes)
assert [r["ruleId"] for r in res] == ["regressed_line"] * len(lines) + ["regressed_class"] * len(classes), res
for r, key in zip(res, lines):
    loc = r["locations"][0]["physicalLocation"]
    f, line = key.rsplit(":", 1)
    assert loc["region"]["startLine"] == int(line) and loc["artifactLocation"]["uri"].endswith(f.split("/")[-1]), (loc, key)
PY
# refused where there is no such document
"$FLYPROF" diff --before "$T/fast" --after "$T/slow" --no-write -q -f junit > /dev/null 2> "$T/e.txt"; [ $? = 64 ] || fail "diff -f junit"
"$FLYPROF" report --bundle "$T/fast" -q -f junit > /dev/null 2>&1; [ $? = 64 ] || fail "report -f junit"
echo "check_formats: ok"
