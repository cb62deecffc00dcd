#!/bin/bash
# -f sarif checked by Microsoft's official SARIF validator (`sarif-multitool validate`,
# @microsoft/sarif-multitool pinned by tests/sarif/package-lock.json; `scripts/setup.sh test`
# installs it with npm ci). report's log on the shipped example and on every corpus case,
# check's and diff's (a same-ISA pair accuses nothing; a changed-code pair names the grown
# line and class): no error from the validator, and report's results sit on .py lines
# relative to --source-root. Without Node or the installed validator: skipped (77).
set -u
: "${FLYPROF:?}" "${FP_SRC:?}" "${FP_TOOLS:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
HERE=$FP_SRC/tests/sarif
MT=$HERE/node_modules/.bin/sarif-multitool
command -v node >/dev/null || { echo "skip: node not installed"; exit 77; }
[ -x "$MT" ] || { echo "skip: run 'npm ci' in tests/sarif (scripts/setup.sh test does)"; exit 77; }
unset FLYPROF_FORMAT
export HOME=$T/home DOTNET_CLI_TELEMETRY_OPTOUT=1

# Every log is validated in ONE run of the validator at the end (it takes seconds to start):
# its own SARIF output must hold no error-level result.
validate_all() { # OUT FILES...
  local out=$1; shift
  "$MT" validate "$@" --output "$out" --log ForceOverwrite > "$out.txt" 2>&1 || { cat "$out.txt"; return 1; }
  python3 - "$out" <<'PY' || { grep -i " error " "$out.txt" | head -20; return 1; }
import json, sys
v = json.load(open(sys.argv[1]))
errs = [r for run in v["runs"] for r in run.get("results", []) if r.get("level", "warning") == "error"]
for run in v["runs"]:
    for n in run.get("invocations", [{}])[0].get("toolExecutionNotifications", []):
        if n.get("level") == "error":
            errs.append(n)
assert not errs, json.dumps(errs, indent=1)[:3000]
PY
}
LOGS=()
# report: results on .py lines under the root (ROOT = the directory the trace's kernels/ sit in)
located() { # SARIF REPORT.JSON ROOT
  python3 - "$@" <<'PY'
import json, sys
log = json.load(open(sys.argv[1])); rep = json.load(open(sys.argv[2])); root = sys.argv[3].rstrip("/")
res = log["runs"][0]["results"]
assert [r["ruleId"] for r in res] == [r["rule"] for r in rep["recommendations"]], "one result per recommendation"
n = 0
for r, rec in zip(res, rep["recommendations"]):
    h = rec["evidence"]["hottest"]
    if not h or not h["source"]:
        assert "locations" not in r, r
        continue
    f, line = h["source"].rsplit(":", 1)
    loc = r["locations"][0]["physicalLocation"]
    assert loc["region"]["startLine"] == int(line) and f.endswith(".py"), (loc, h)
    if f.startswith(root + "/"):
        assert loc["artifactLocation"] == {"uri": f[len(root) + 1:], "uriBaseId": "SRCROOT"}, loc
        n += 1
    else:
        assert loc["artifactLocation"]["uri"] == "file://" + f, loc
assert log["runs"][0]["originalUriBaseIds"] == {"SRCROOT": {"uri": "file://" + root + "/"}}
print(sys.argv[2], len(res), "results,", n, "relative to the root")
PY
}
"$FLYPROF" report --bundle "$FP_SRC/examples/synthetic_gemm" -o "$T/ex" -q -f sarif --source-root /workspace/flydsl-demo > "$T/ex.sarif" ||
  fail "report -f sarif on the example"
LOGS+=("$T/ex.sarif")
# the check can fail: a log with a line 0 and a rule index past the driver's rules is refused
python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); r = [x for x in d['runs'][0]['results'] if 'locations' in x][0]
r['locations'][0]['physicalLocation']['region']['startLine'] = 0; r['ruleIndex'] = 9999
json.dump(d, open(sys.argv[2], 'w'))" "$T/ex.sarif" "$T/bad.sarif"
validate_all "$T/bad.v.sarif" "$T/bad.sarif" > /dev/null 2>&1 && fail "the validator accepted a broken log"
grep -q "SARIF1009" "$T/bad.v.sarif.txt" || fail "the validator did not name the bad rule index"
located "$T/ex.sarif" "$T/ex/report.json" /workspace/flydsl-demo || fail "example locations"
if [ -d "${FP_CORPUS:-}" ]; then
  for c in "$FP_CORPUS"/*/; do
    c=${c%/}; n=$(basename "$c")
    [ -d "$c/att" ] || continue
    "$FLYPROF" report --bundle "$c" -o "$T/$n" -q -f sarif --source-root /sgl-workspace/FlyDSL-lab > "$T/$n.sarif" 2>/dev/null
    rc=$?
    [ $rc = 0 ] || [ $rc = 66 ] || fail "report -f sarif on $n: exit $rc"
    LOGS+=("$T/$n.sarif")
    located "$T/$n.sarif" "$T/$n/report.json" /sgl-workspace/FlyDSL-lab || fail "$n locations"
  done
  # the loc-fix pair: the same ISA (only the line table moved), so no line or class "regressed"
  "$FLYPROF" diff --before "$FP_CORPUS/flash_attn_func-small" --after "$FP_CORPUS/flash_attn_func-small-after_loc_fix" \
    --no-write -q -f sarif --source-root /sgl-workspace > "$T/diff.sarif" 2>/dev/null || fail "diff -f sarif"
  LOGS+=("$T/diff.sarif")
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]['results']; assert r == [], r" "$T/diff.sarif" ||
    fail "diff of the same ISA accused a line"
fi
# check: a bundle 30 % slower per call with a larger lgkmcnt share than its history baseline
python3 - "$FP_SRC/tests/data/gen/rep_stream.json" "$T/slow.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for c in s["rocprof"]["calls"]:
    c["end"] = c["start"] + 26000
s["model"]["latency"]["SMEM"] = 2000
json.dump(s, open(sys.argv[2], "w"))
PY
"$FP_TOOLS/fp_gen_att" "$FP_SRC/tests/data/gen/rep_stream.json" "$T/fast" >/dev/null || fail "gen fast"
"$FP_TOOLS/fp_gen_att" "$T/slow.json" "$T/slow" >/dev/null || fail "gen slow"
for b in fast slow; do "$FLYPROF" report --bundle "$T/$b" -q -f json > /dev/null || fail "report $b"; done
# diff: the loop gains a scalar load waited at once (line 13), scalar latency 10x: the code
# changed, so the grown line and class are results at .py lines under --source-root
python3 - "$FP_SRC/tests/data/gen/rep_stream.json" "$T/slowc.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
src = "/synthetic/kernels/rep_stream.py:13"
p = s["program"]
p[6:6] = [{"isa": "s_load_dword s9, s[4:5], 0x10", "source": src}, {"isa": "s_waitcnt lgkmcnt(0)", "source": src}]
p[11]["isa"] = "s_cbranch_scc1 -9"
s["path"] = [1, 2, 3, {"repeat": 6, "body": list(range(4, 13))}, 13, 14]
s["model"]["latency"]["SMEM"] = 2000
json.dump(s, open(sys.argv[2], "w"))
PY
"$FP_TOOLS/fp_gen_att" "$T/slowc.json" "$T/slowc" >/dev/null || fail "gen slowc"
"$FLYPROF" diff --before "$T/fast" --after "$T/slowc" --no-write -q -f sarif --source-root /synthetic > "$T/diffc.sarif" 2>/dev/null ||
  fail "diff -f sarif on changed code"
LOGS+=("$T/diffc.sarif")
python3 - "$T/diffc.sarif" <<'PY' || fail "diff results on changed code"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["results"]
lines = [x for x in r if x["ruleId"] == "regressed_line"]
cls = [x for x in r if x["ruleId"] == "regressed_class"]
loc = lambda x: x["locations"][0]["physicalLocation"]
assert lines and cls, r
assert all(x["level"] == "error" and loc(x)["artifactLocation"] == {"uri": "kernels/rep_stream.py", "uriBaseId": "SRCROOT"}
           for x in r), r
assert 13 in [loc(x)["region"]["startLine"] for x in lines], lines
assert "lgkmcnt" in cls[0]["message"]["text"] and loc(cls[0])["region"]["startLine"] == 13, cls
PY
"$FLYPROF" history add --bundle "$T/fast" --db "$T/h.db" -q -f json > /dev/null || fail "history add"
"$FLYPROF" check --bundle "$T/slow" --db "$T/h.db" -q -f sarif --source-root /synthetic > "$T/check.sarif"
[ $? = 1 ] || fail "check -f sarif on a regression: exit"
python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]['results']; assert r and r[0]['level']=='error' and r[0]['locations'][0]['physicalLocation']['artifactLocation']['uriBaseId']=='SRCROOT', r" "$T/check.sarif" ||
  fail "check results"
LOGS+=("$T/check.sarif")
validate_all "$T/all.v.sarif" "${LOGS[@]}" || fail "the validator found errors in the logs of report, diff, check"
[ "$(grep -c "^Done. ${#LOGS[@]} files scanned\|${#LOGS[@]} files scanned" "$T/all.v.sarif.txt")" -ge 1 ] ||
  fail "validator did not scan the ${#LOGS[@]} logs: $(tail -3 "$T/all.v.sarif.txt")"
echo "validate: ok"
