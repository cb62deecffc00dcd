#!/bin/bash
# bundle never loses silently and never publishes what is outside the bundle (issue 21
# item 7, issue 22 item 4): a symlink whose target lies inside the bundle is copied by
# content; a symlink out of it (a CSV, a whole pmc/), a dangling one, a cycle and a FIFO
# are not published and each is listed in data.skipped with its reason (+ one warning);
# rocprof/ is listed as copied only for what was; the example still re-reports.
set -u
: "${FLYPROF:?}" "${FP_SRC:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
unset FLYPROF_FORMAT FLYPROF_EXAMPLES_DIR
B=$T/b
cp -r "$FP_SRC/examples/synthetic_gemm" "$B"
D=$(cd "$B" && ls -d att/ui_output_agent_*)
mkdir -p "$T/outside/pmc/pass_1" "$B/raw"
echo "SECRET outside the bundle" > "$T/outside/secret.csv"
echo '"Dispatch_Id","Counter_Name","Counter_Value"' > "$T/outside/pmc/pass_1/pmc_counter_collection.csv"
# inside the bundle: kernel_trace.csv lives in raw/, rocprof/ links to it
mv "$B/rocprof/kernel_trace.csv" "$B/raw/kernel_trace.csv"
ln -s ../raw/kernel_trace.csv "$B/rocprof/kernel_trace.csv"
# outside: a CSV, the whole pmc/, a dangling link, a FIFO, a directory cycle in the dispatch
ln -s "$T/outside/secret.csv" "$B/rocprof/agent_info_extra.csv"
ln -s "$T/outside/pmc" "$B/pmc"
ln -s "$B/rocprof/nowhere.csv" "$B/rocprof/dangling.csv"
mkfifo "$B/rocprof/fifo"
ln -s .. "$B/$D/loop"
"$FLYPROF" report --bundle "$B" -q -f json > /dev/null || fail "report on the bundle"
"$FLYPROF" bundle --bundle "$B" --examples-dir "$T/ex" -q -f json > "$T/env.json" 2> "$T/err.txt"; rc=$?
[ $rc = 0 ] || { cat "$T/env.json" "$T/err.txt"; fail "bundle exit $rc"; }
E=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['data']['example_dir'])" "$T/env.json")
python3 - "$T/env.json" "$T" "$D" <<'PY' || fail "skipped list: $(cat "$T/env.json")"
import json, sys
env = json.load(open(sys.argv[1])); T = sys.argv[2]; D = sys.argv[3]
d = env["data"]
sk = {s["path"]: s["reason"] for s in d["skipped"]}
want = {
    "rocprof/agent_info_extra.csv": "a symlink to %s/outside/secret.csv, outside the bundle (not published)" % T,
    "pmc": "a symlink to %s/outside/pmc, outside the bundle (not published)" % T,
    "rocprof/dangling.csv": "a dangling symlink",
    "rocprof/fifo": "not a regular file or directory",
}
for k, v in want.items():
    assert sk.get(k) == v, (k, sk.get(k), v)
loop = sk.get(D + "/loop", "")
assert loop.startswith("a symlink to ") and loop.endswith("which contains it (a cycle)"), loop
assert len(sk) == 5, sk
assert "pmc" not in d["copied"] and "rocprof" in d["copied"], d["copied"]
assert any("5 file(s) not published" in w for w in env["warnings"]), env["warnings"]
PY
[ -f "$E/rocprof/kernel_trace.csv" ] && [ ! -L "$E/rocprof/kernel_trace.csv" ] || fail "an inside symlink is copied by content"
cmp -s "$E/rocprof/kernel_trace.csv" "$B/raw/kernel_trace.csv" || fail "content of the inside symlink"
[ ! -e "$E/pmc" ] && [ ! -e "$E/rocprof/agent_info_extra.csv" ] && [ ! -e "$E/rocprof/fifo" ] || fail "outside content published"
! grep -rq SECRET "$E" || fail "the outside secret reached the example"
[ -z "$(find "$E" -type l)" ] || fail "the example holds symlinks: $(find "$E" -type l)"
# the table lists them too
"$FLYPROF" bundle --bundle "$B" --examples-dir "$T/ex2" -q -f table > "$T/t.txt" 2> "$T/t.err" || fail "bundle -f table"
grep -q "^not published (5):" "$T/t.txt" && grep -q "^  pmc: a symlink to" "$T/t.txt" || fail "table: $(cat "$T/t.txt")"
grep -q "warning: bundle: 5 file(s) not published" "$T/t.err" || fail "table warning"
# the example re-reports (what was published is complete for the report)
"$FLYPROF" report --bundle "$E" -o "$T/re" -q -f json > /dev/null || fail "report of the example"
# a bundle with no symlinks has an empty list
"$FLYPROF" bundle --bundle "$FP_SRC/examples/synthetic_gemm" --examples-dir "$T/ex3" -q -f json > "$T/env3.json" || fail "plain bundle"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['data']['skipped'] == [] and d['warnings'] == [], d" "$T/env3.json" ||
  fail "plain bundle skipped"
echo "bundle_symlinks: ok"
