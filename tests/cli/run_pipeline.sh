#!/bin/bash
# run end to end with the fake rocprofv3 (ATT dirs from the project's
# generator), a scripted rocminfo and a decoder library: every step runs by
# re-running the binary, run.json records them; then the failure paths.
. "$(dirname "$0")/lib/capture_env.sh"
mkdir -p "$T/bin" "$T/dec"
: > "$T/dec/librocprof-trace-decoder.so"
printf '#!/bin/sh\nprintf "Agent 2\\n  Name: gfx950\\n  Marketing Name: AMD Instinct MI350X\\n  Device Type: GPU\\n  Compute Unit: 256\\n"\n' \
  > "$T/bin/rocminfo"
chmod +x "$T/bin/rocminfo"
export PATH="$T/bin:$PATH" ROCPROF_ATT_LIBRARY_PATH="$T/dec"
export FAKE_ROCPROF_GEN_SPEC=$FP_SRC/tests/data/gen/synthetic_gemm.json
export FAKE_ROCPROF_KERNELS="softmax_kernel_0:12:30000:96"

B=$T/run1
fp run softmax --bundle "$B" --shape 4096,8192,bf16 --examples-dir "$T/ex"
[ "$RC" = 0 ] || { cat "$T/out.json"; fail "run exit $RC"; }
R=$B/run.json
st() { jget $R "[s['status'] for s in d['steps'] if s['name']=='$1'][0]"; }
[ "$(jget $R 'd["status"]')" = ok ] || fail status
[ "$(jget $R '[s["name"] for s in d["steps"]]')" = \
  "['doctor', 'tile', 'capture', 'counters', 'bubbles', 'map', 'report', 'bundle']" ] || fail "step order"
for s in doctor capture counters bubbles map report bundle; do [ "$(st $s)" = ok ] || fail "step $s: $(st $s)"; done
[ "$(st tile)" = skipped ] || fail "tile skipped for a 2-d shape"
for f in capture.json counters.json bubbles.json map.json report.json REPORT.md; do
  [ -f "$B/$f" ] || fail "missing $f"
  [ "$(jget $R "d['artifacts']['$f']")" = "$f" ] || fail "artifact $f not listed"
done
[ -f "$B/run/capture.json" ] && [ -f "$B/run/report.stderr.txt" ] || fail "step envelopes kept"
[ -d "$T/ex/softmax" ] || [ -n "$(ls "$T/ex")" ] || fail "bundle step published nothing"
[ "$(jget $T/out.json 'd["data"]["kernel"]')" = softmax ] || fail envelope
grep -q '"report"' "$B/run.json" || fail "run.json"
# the envelope answers (issue 21 item 1): the plan of report.json, top 5, under 32 KB
[ "$(wc -c < "$T/out.json")" -lt 32768 ] || fail "run envelope over 32 KB: $(wc -c < "$T/out.json")"
"$PY" - "$T/out.json" "$B/report.json" "$FLYPROF" <<'PY' || fail "run answer != report.json's plan"
import json, subprocess, sys
env = json.load(open(sys.argv[1])); rep = json.load(open(sys.argv[2]))
rules = {r["id"]: r for r in json.loads(subprocess.run([sys.argv[3], "rules", "-f", "json"], capture_output=True).stdout)["data"]["rules"]}
a = env["data"]["answer"]
assert a["bound"] == rep["bound"]["bound"] and a["bound_confidence"] == rep["bound"]["confidence"], a
assert a["headline"] == rep["headline"] and a["optimal"] == rep["optimal"]
assert a["launch"] == [l for l in rep["summary"] if l.startswith("Launch:")][0]
sol = [l for l in rep["summary"] if l.startswith("Speed of light:")]
assert a["speed_of_light"] == (sol[0] if sol else None)
recs = rep["recommendations"]
assert len(recs) > 0 and len(a["recommendations"]) == min(5, len(recs)), (len(recs), a)
assert a["more_recommendations"] == len(recs) - len(a["recommendations"]) and a["report"] == "report.json"
for x, r in zip(a["recommendations"], recs):
    h = r["evidence"]["hottest"]
    want = {"rank": r["rank"], "rule": r["rule"], "knob": r["knob"], "est_gain_pct": r["est_gain_pct"],
            "gain_model": rules[r["rule"]]["gain_model"], "confidence": r["confidence"], "confidence_label": r["confidence_label"],
            "evidence": h["source"] if h else None, "acceptance": r["acceptance"]["text"]}
    assert x == want, (x, want)
assert any(x["evidence"] and x["evidence"].split(":")[0].endswith(".py") for x in a["recommendations"]), a
PY

# --limit caps the answer; run.json is the envelope's data
fp run softmax --bundle "$T/run1l" --shape 4096,8192,bf16 --skip-bundle --no-pmc --limit 2
[ "$RC" = 0 ] || fail "run --limit exit $RC"
[ "$(jget $T/out.json "(len(d['data']['answer']['recommendations']), d['data']['answer']['recommendations'][1]['rank'])")" = "(2, 2)" ] ||
  fail "run --limit 2"
[ "$(jget $T/run1l/run.json "d['answer'] == json.load(open('$T/out.json'))['data']['answer']")" = True ] || fail "run.json answer"
# the table form shows the plan under the headline, then the steps
"$FLYPROF" run softmax --bundle "$T/run1t" --shape 4096,8192,bf16 --skip-bundle --no-pmc --limit 1 -f table > "$T/out.txt" 2>/dev/null ||
  fail "run -f table"
tr -s '\n ' '  ' < "$T/out.txt" | grep -q " 1\. .*(est\. gain <= [0-9.]*%, [a-z]*)" || fail "table plan: $(cat "$T/out.txt")"
grep -q "^     accept: [a-z]" "$T/out.txt" || fail "table acceptance: $(cat "$T/out.txt")"
! grep -q "^  2\. " "$T/out.txt" || fail "table: --limit 1"
grep -q "more in report.json" "$T/out.txt" || fail "table: more recommendations"
fp run softmax --bundle "$T/run1z" --limit 0
expect_error USAGE 64

# the MCP run tool answers the same: structuredContent is run's envelope with the plan, the text its table
mkdir -p "$T/mroot"
"$PY" - "$FLYPROF" "$T/mroot" <<'PY' || fail "mcp run tool answer"
import json, subprocess, sys
flyprof, root = sys.argv[1:3]
msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "run", "arguments": {"kernel": "softmax", "bundle": "b", "shape": "4096,8192,bf16",
                                                 "skip-bundle": True, "no-pmc": True, "limit": 3}}}]
p = subprocess.run([flyprof, "mcp", "--root", root, "--allow-gpu"], input="".join(json.dumps(m) + "\n" for m in msgs),
                   capture_output=True, text=True, timeout=120)
res = [json.loads(l) for l in p.stdout.splitlines() if json.loads(l).get("id") == 2][0]["result"]
assert not res["isError"], res
a = res["structuredContent"]["data"]["answer"]
rep = json.load(open(root + "/b/report.json"))
assert [x["rule"] for x in a["recommendations"]] == [r["rule"] for r in rep["recommendations"][:3]], a
assert a["headline"] == rep["headline"] and a["headline"] in res["content"][0]["text"].replace("\n  ", " "), res
assert "  1. " in res["content"][0]["text"], res
PY

# a GEMM-like shape: tile runs (its failure would only warn)
fp run softmax --bundle "$T/run2" --shape 4096,4096,4096,bf16 --skip-bundle --no-pmc --jobs 1
[ "$RC" = 0 ] || fail "run2 exit $RC"
# --jobs reaches the steps that run the bubbles analysis, not map
[ "$(jget $T/run2/run.json "[('--jobs 1' in ' '.join(s['command']) if isinstance(s['command'], list) else '--jobs 1' in s['command']) for s in d['steps'] if s['name'] in ('bubbles', 'map', 'report')]")" = "[True, False, True]" ] || fail "run --jobs passed to bubbles and report"
[ "$(jget $T/run2/run.json "[s['status'] for s in d['steps'] if s['name']=='tile'][0]")" != skipped ] || fail "tile ran"
[ "$(jget $T/run2/run.json "[s['status'] for s in d['steps'] if s['name']=='counters'][0]")" = skipped ] || fail no-pmc
[ "$(jget $T/run2/run.json "[s['status'] for s in d['steps'] if s['name']=='bundle'][0]")" = skipped ] || fail skip-bundle
[ ! -f "$T/run2/counters.json" ] || fail "no-pmc wrote counters"

# --history: the reported bundle becomes an entry of the history (capture's shape and provenance)
fp run softmax --bundle "$T/run2h" --shape 4096,8192,bf16 --skip-bundle --no-pmc --history --history-db "$T/h.db"
[ "$RC" = 0 ] || { cat "$T/out.json"; fail "run --history exit $RC"; }
[ "$(jget $T/run2h/run.json "[(s['status'], s['entry'], s['added']) for s in d['steps'] if s['name']=='history'][0]")" = \
  "('ok', 1, True)" ] || fail "history step"
"$FLYPROF" history list --db "$T/h.db" -q -f json > "$T/hl.json" || fail "history list after run"
[ "$(jget $T/hl.json "[(e['shape'], e['kernel'] is not None) for e in d['data']['entries']]")" = "[('4096,8192,bf16', True)]" ] ||
  fail "run --history entry: $(cat "$T/hl.json")"
[ "$(jget $T/hl.json "d['data']['entries'][0]['captured_at']")" = "$(jget $T/run2h/capture.json "d['captured_at']")" ] ||
  fail "entry capture time = capture.json captured_at"

# doctor not ready -> the first blocker is the run's error, nothing else runs
ROCPROF_ATT_LIBRARY_PATH="$T/none" LD_LIBRARY_PATH= fp run softmax --bundle "$T/run3"
expect_error TRACE_DECODER_MISSING 69
[ "$(jget $T/run3/run.json 'd["status"]')" = failed ] || fail "run3 status"
[ "$(jget $T/run3/run.json "[s['status'] for s in d['steps'] if s['name']=='capture'][0]")" = not-run ] || fail not-run

# capture fails -> its code, earlier steps ok, later not run
FAKE_ROCPROF_MODE=empty-shells fp run softmax --bundle "$T/run4" --skip-bundle
expect_error EMPTY_ATT 66
[ "$(jget $T/run4/run.json "[s['status'] for s in d['steps'] if s['name']=='doctor'][0]")" = ok ] || fail "doctor ok"
[ "$(jget $T/run4/run.json "[s['status'] for s in d['steps'] if s['name']=='bubbles'][0]")" = not-run ] || fail "bubbles not run"
[ "$(jget $T/out.json 'd["error"]["run_json"]')" = run.json ] || fail "error points at run.json"

# timeout inside capture -> CAPTURE_TIMEOUT for the run
FAKE_ROCPROF_HANG=att fp run softmax --bundle "$T/run5" --timeout 3 --skip-bundle
expect_error CAPTURE_TIMEOUT 75

# Ctrl-C during capture -> INTERRUPTED envelope, run.json says so, no fake left
FAKE_ROCPROF_HANG=att "$FLYPROF" run softmax --bundle "$T/run6" -f json > "$T/out.json" 2>/dev/null &
pid=$!
for i in $(seq 1 100); do [ -f "$T/run6/rocprof/big/input_att.json" ] && break; sleep 0.1; done
sleep 0.5
kill -INT $pid
wait $pid; RC=$?
expect_error INTERRUPTED 130
[ "$(jget $T/run6/run.json 'd["status"]')" = interrupted ] || fail "run6 status"
[ "$(jget $T/run6/capture.json 'd["status"]')" = interrupted ] || fail "capture interrupted"
sleep 0.3
pgrep -f "rocprofv3 -i $T/run6" >/dev/null && fail "fake rocprofv3 survived"
# usage
fp run; expect_error USAGE 64
echo ok
