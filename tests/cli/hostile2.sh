#!/bin/bash
# Issue 22 (hostile inputs II), one block per defect: each block failed before its fix.
#  (items 1-11 of the issue and the occupancy stream; each block names its defect)
#  - mcp: history/check/bundle defaults resolve under --root, never the user's global history
#    or $FLYPROF_EXAMPLES_DIR outside it
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
unset XDG_DATA_HOME FLYPROF_TABLE_FD
export HOME="$T/home"
mkdir -p "$HOME"
# a sanitizer build reserves terabytes of shadow address space: no `ulimit -v` cap can hold
# it, and it runs several times slower, so the memory caps and time bounds do not apply there
SAN=
grep -qa -e __asan_init -e __ubsan_handle "$FLYPROF" && SAN=1

# ---- mcp: defaults confined to the root ----
ROOT=$T/root
mkdir -p "$ROOT"
"$FP_TOOLS/fp_gen_att" "$FP_SRC/tests/data/gen/rep_stream.json" "$ROOT/b" >/dev/null || fail "gen"
printf '{"schema":1,"kernel":"rep_stream_kernel_0","arch":"gfx950","shape":"65536,f32","captured_at":"2026-11-01T10:00:00Z"}\n' > "$ROOT/b/capture.json"
"$FLYPROF" report --bundle "$ROOT/b" -q -f json > /dev/null || fail "report"
FLYPROF_HISTORY="$T/global.db" FLYPROF_EXAMPLES_DIR="$T/examples" python3 - "$FLYPROF" "$ROOT" <<'PY' || fail "mcp confinement"
import json, subprocess, sys
flyprof, root = sys.argv[1:3]
p = subprocess.Popen([flyprof, "mcp", "--root", root], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, cwd="/")
def call(i, method, params):
    p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode())
    p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i:
            return m
call(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}})
r = call(2, "tools/call", {"name": "history", "arguments": {"subcommand": "add", "bundle": "b"}})["result"]
assert not r["isError"], r
env = r["structuredContent"]
assert env["data"]["db"] == root + "/.flyprof/history.db", env["data"]
r = call(3, "tools/call", {"name": "history", "arguments": {"subcommand": "list"}})["result"]
assert not r["isError"] and r["structuredContent"]["data"]["db"] == root + "/.flyprof/history.db", r
r = call(4, "tools/call", {"name": "bundle", "arguments": {"bundle": "b"}})["result"]
s = json.dumps(r["structuredContent"])
assert root + "/runs/examples" in s and "/examples/" not in s.replace(root + "/runs/examples", ""), s
p.stdin.close()
assert p.wait(timeout=30) == 0
PY
[ ! -e "$T/global.db" ] || fail "mcp history wrote the global db"
[ ! -e "$T/examples" ] || fail "mcp bundle wrote \$FLYPROF_EXAMPLES_DIR outside the root"
[ -f "$ROOT/.flyprof/history.db" ] || fail "no db under the root"

# ---- terminal escapes: kernel names, code.json and history records never reach a terminal raw ----
python3 - "$FP_SRC/tests/data/gen/rep_stream.json" "$T/esc.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["symbol"] = "rep\x1b]52;c;SGVsbG8=\x07_k\x1b]0;pwned\x07\x9b2J"
s["program"][2]["isa"] = "v_mov_b32_e32 v10, 0 \x1b[2J\x1b]0;title\x07"
s["program"][2]["source"] = "/synthetic/kernels/rep\x1b[31m_stream.py:11"
json.dump(s, open(sys.argv[2], "w"))
PY
"$FP_TOOLS/fp_gen_att" "$T/esc.json" "$T/esc" >/dev/null || fail "gen esc"
printf '{"schema":1,"kernel":"k\u001b]0;pwned\u0007","arch":"gfx950","shape":"s\u001b[2J","captured_at":"2026-11-01T10:00:00Z"}\n' > "$T/esc/capture.json"
noctl() { # FILE WHAT: no C0 control but \n \t, no DEL, no C1 (U+0080..U+009F)
    python3 - "$1" "$2" <<'PY' || fail "$2 carries a terminal control sequence"
import re, sys
t = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
bad = re.findall(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", t)
sys.exit(1 if bad else 0)
PY
}
"$FLYPROF" report --bundle "$T/esc" -q -f json > /dev/null || fail "report esc"
grep -q $'\x1b' "$T/esc/report.json" && fail "report.json should keep the name escaped as JSON"
noctl "$T/esc/REPORT.md" REPORT.md
grep -q $'\xef\xbf\xbd' "$T/esc/REPORT.md" || fail "REPORT.md: control characters not replaced by U+FFFD"
D=$(ls -d "$T"/esc/att/ui_output_* | head -1)
COLUMNS=100 "$FLYPROF" hotspots "$D" -f table > "$T/hs.txt" 2>&1 || fail "hotspots table"
noctl "$T/hs.txt" "hotspots -f table"
grep -q "pwned" "$T/hs.txt" || fail "hotspots table lost the kernel name"
COLUMNS=100 "$FLYPROF" report --bundle "$T/esc" -f table > "$T/rep.txt" 2>&1 || fail "report table"
noctl "$T/rep.txt" "report -f table"
"$FLYPROF" history add --bundle "$T/esc" --db "$T/esc.db" -q -f json > /dev/null || fail "history add esc"
COLUMNS=100 "$FLYPROF" history list --db "$T/esc.db" -f table > "$T/hl.txt" 2>&1 || fail "history list"
noctl "$T/hl.txt" "history list -f table"
grep -q "pwned" "$T/hl.txt" || fail "history list lost the kernel name"
# an error message naming a hostile path, on stderr
"$FLYPROF" hotspots "$T/no"$'\x1b]0;x\x07'"pe" -f table > /dev/null 2> "$T/err.txt"
noctl "$T/err.txt" "error text"

# ---- wrap_line: a 2 MB kernel name in table mode is linear ----
python3 -c "print('{\"schema\":1,\"kernel\":\"' + 'k'*2000000 + '\",\"arch\":\"gfx950\",\"shape\":\"s\",\"captured_at\":\"2026-11-01T10:00:00Z\"}')" > "$T/esc/capture.json"
s0=$(date +%s%N)
COLUMNS=80 timeout 20 "$FLYPROF" report --bundle "$T/esc" --no-html -f table > "$T/long.txt" 2>&1 || fail "report with a 2 MB kernel name"
ms=$(( ($(date +%s%N) - s0) / 1000000 ))
[ -n "$SAN" ] || [ "$ms" -lt 3000 ] || fail "2 MB kernel name took $ms ms in table mode"
awk 'length($0) > 400 { bad=1 } END { exit bad }' "$T/long.txt" || fail "long line not wrapped"

# ---- kernels --filter: nested bounded repeats are refused before regcomp builds them ----
KT=$ROOT/b/rocprof/kernel_trace.csv
s0=$(date +%s%N)
( [ -n "$SAN" ] || ulimit -v 1000000; exec "$FLYPROF" kernels --csv "$KT" --filter '((((a{1,99}){1,99}){1,99}){1,99})' -f json ) > "$T/re.json" 2>/dev/null
rc=$?; ms=$(( ($(date +%s%N) - s0) / 1000000 ))
[ $rc -eq 64 ] || fail "regex bomb: exit $rc"
grep -q "too complex" "$T/re.json" || fail "regex bomb: $(cat "$T/re.json")"
[ -n "$SAN" ] || [ "$ms" -lt 1000 ] || fail "regex bomb took $ms ms"
# stacked repeats (POSIX: undefined; glibc: a copy per operator, exponential): refused, fast
for bomb in 'rep_+++++++++++++++++++++++++++++++++++++++++++' 'a?++++++++++@++++++' 'x*?' 'k{2}+'; do
    s0=$(date +%s%N)
    "$FLYPROF" kernels --csv "$KT" --filter "$bomb" -f json > "$T/re.json" 2>/dev/null; rc=$?
    ms=$(( ($(date +%s%N) - s0) / 1000000 ))
    [ $rc -eq 64 ] && grep -q "too complex" "$T/re.json" || fail "stacked repeats '$bomb': exit $rc"
    [ -n "$SAN" ] || [ "$ms" -lt 1000 ] || fail "stacked repeats '$bomb' took $ms ms"
done
for ok in '^rep_' 'rep_(stream|x){1,3}_kernel_[0-9]{1,4}' '[[:alpha:]_]+(0|1)$' 'a)|rep'; do
    "$FLYPROF" kernels --csv "$KT" --filter "$ok" -f json > "$T/re.json" 2>/dev/null; rc=$?
    [ $rc -eq 0 ] || fail "filter '$ok' refused: exit $rc $(cat "$T/re.json")"
done
[ "$(py "$T/re.json" "len(j['data']['kernels'])")" = 1 ] || fail "filter 'a)|rep' matched nothing"

# ---- kernels: duration sums saturate (no signed overflow, no negative total_ns) ----
head -1 "$KT" > "$T/ovf.csv"
for i in 1 2 3; do
    echo "\"KERNEL_DISPATCH\",\"Agent 2\",1,0,700,$i,1,\"k_ovf\",$i,0,4000000000000000000,0,0,32,0,32,256,1,1,65536,1,1" >> "$T/ovf.csv"
done
echo "\"KERNEL_DISPATCH\",\"Agent 2\",1,0,700,4,1,\"k_neg\",4,-9223372036854775807,9223372036854775807,0,0,32,0,32,256,1,1,65536,1,1" >> "$T/ovf.csv"
"$FLYPROF" kernels --csv "$T/ovf.csv" -f json > "$T/ovf.json" 2>/dev/null || fail "kernels on huge durations: exit $?"
python3 - "$T/ovf.json" <<'PY' || fail "kernels duration sums wrapped"
import json, sys
d = json.load(open(sys.argv[1]))["data"]
ks = {k["name"]: k for k in d["kernels"]}
assert ks["k_ovf"]["total_ns"] == float(2**63 - 1), ks["k_ovf"]
assert ks["k_neg"]["total_ns"] == float(2**63 - 1), ks["k_neg"]
assert all(0 <= k["pct"] <= 100 for k in d["kernels"]), d["kernels"]
PY

# ---- YAML: 400 KB of nesting is refused in linear time (was ~100 s in libyaml) ----
python3 -c "print('recipes:\n  - ' + '['*200000 + ']'*200000)" > "$T/deep.yaml"
s0=$(date +%s%N)
timeout 20 "$FLYPROF" list --recipes "$T/deep.yaml" -f json > "$T/y.json" 2>/dev/null; rc=$?
ms=$(( ($(date +%s%N) - s0) / 1000000 ))
[ $rc -eq 65 ] || fail "deep recipes: exit $rc"
grep -q "nested more than 64 levels" "$T/y.json" || fail "deep recipes: $(head -c 300 "$T/y.json")"
[ -n "$SAN" ] || [ "$ms" -lt 2000 ] || fail "deep recipes took $ms ms"
python3 -c "print('worktree: ' + '{a: '*100000 + '}'*100000)" > "$T/deep_cfg.yaml"
timeout 20 "$FLYPROF" doctor --config "$T/deep_cfg.yaml" -f json > "$T/y.json" 2>/dev/null; rc=$?
[ $rc -eq 65 ] || fail "deep config: exit $rc"

# ---- a lost envelope is not success: closed stdout, a full disk, a broken pipe; mcp too ----
"$FLYPROF" rules -f json >&- 2> "$T/lost.txt"; rc=$?
[ $rc -eq 74 ] || fail "closed stdout: exit $rc"
grep -q "not delivered" "$T/lost.txt" || fail "closed stdout: no reason on stderr"
"$FLYPROF" rules -f table > /dev/full 2>/dev/null; rc=$?
[ $rc -eq 74 ] || fail "/dev/full: exit $rc"
"$FLYPROF" kernels -f json > /dev/full 2>/dev/null; rc=$?
[ $rc -eq 64 ] || fail "a failing command keeps its own exit status when stdout is lost: $rc"
python3 - "$FLYPROF" "$ROOT" <<'PY' || fail "broken pipe / mcp"
import os, subprocess, sys
flyprof, root = sys.argv[1:3]
r, w = os.pipe()
os.close(r)  # nobody will read: every write is EPIPE (SIGPIPE is ignored by flyprof)
p = subprocess.run([flyprof, "rules", "-f", "json"], stdout=w, stderr=subprocess.DEVNULL)
assert p.returncode == 74, p.returncode
msg = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}\n'
p = subprocess.run([flyprof, "mcp", "--root", root], input=msg, stdout=w, stderr=subprocess.DEVNULL, timeout=30)
assert p.returncode == 74, p.returncode
os.close(w)
PY

# ---- SIGTERM is acted on during the walk: exit 130 at once, the old bubbles.json kept; mcp cancel is prompt ----
if [ -n "${FP_CORPUS:-}" ] && [ -d "$FP_CORPUS/flash_attn_func-big" ]; then
    S=$(ls -d "$FP_CORPUS"/flash_attn_func-big/att/ui_output_*)
    SIG=$ROOT/sig
    mkdir -p "$SIG"
    cp "$S/code.json" "$S/occupancy.json" "$SIG/"
    # 1,600 links to the real wave files (page-cache reads): a walk of a few seconds
    for se in $(seq 0 199); do for sm in 0 1 2 3; do for sl in 0 1; do
        ln -s "$S/se0_sm${sm}_sl${sl}_wv0.json" "$SIG/se${se}_sm${sm}_sl${sl}_wv0.json"
    done; done; done
    echo '{"previous": true}' > "$T/keep.json"
    "$FLYPROF" bubbles --bundle "$SIG" --out "$T/keep.json" --jobs 1 -q -f json > "$T/sig.json" 2>/dev/null &
    pid=$!
    sleep 0.3
    kill -TERM $pid
    t0=$(date +%s%N)
    wait $pid; rc=$?
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    [ $rc -eq 130 ] || fail "SIGTERM: exit $rc (the walk finished before the signal? $(head -c 200 "$T/sig.json"))"
    [ "$(cat "$T/keep.json")" = '{"previous": true}' ] || fail "SIGTERM: bubbles.json was replaced"
    [ "$(py "$T/sig.json" "j['error']['code']")" = INTERRUPTED ] || fail "SIGTERM: no INTERRUPTED envelope"
    [ "$ms" -lt 1500 ] || fail "SIGTERM acted on $ms ms after the signal"
    ls "$T" | grep -q 'keep.json.tmp' && fail "SIGTERM left a temp file"
    python3 - "$FLYPROF" "$ROOT" <<'PY' || fail "mcp cancel"
import json, subprocess, sys, time
flyprof, root = sys.argv[1:3]
p = subprocess.Popen([flyprof, "mcp", "--root", root], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, cwd="/")
def send(m):
    p.stdin.write((json.dumps(m) + "\n").encode()); p.stdin.flush()
def until(i):
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i:
            return m
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
until(1)
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "bubbles", "arguments": {"bundle": "sig", "out": "sig.json", "jobs": 1}}})
time.sleep(0.3)
t0 = time.time()
send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}})
send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "rules", "arguments": {}}})
m = until(3)
dt = time.time() - t0
assert "result" in m, m
assert dt < 2.0, "the cancelled call held the server %.2f s" % dt
p.stdin.close()
p.wait(timeout=30)
PY
fi

# ---- history: readers open read-only; import refuses what it would drop or what breaks the tables ----
HDB=$T/hdb
mkdir -p "$HDB"
"$FLYPROF" history add --bundle "$ROOT/b" --db "$HDB/h.db" -q -f json > /dev/null || fail "history add"
"$FLYPROF" history export --db "$HDB/h.db" --out "$T/exp.jsonl" -q -f json > /dev/null || fail "history export"
sum0=$(sha256sum "$HDB/h.db" | cut -c1-64)
if unshare -m true 2>/dev/null; then
    # a read-only mount (the db in WAL mode, no -shm can be created): every reader still reads
    unshare -m bash -c "mount --bind '$HDB' '$HDB' && mount -o remount,bind,ro '$HDB' &&
        '$FLYPROF' history list --db '$HDB/h.db' -f json > '$T/ro1.json' 2>/dev/null; echo \$? > '$T/ro1.rc';
        '$FLYPROF' history show latest --db '$HDB/h.db' -f json > '$T/ro2.json' 2>/dev/null; echo \$? > '$T/ro2.rc';
        '$FLYPROF' history export --db '$HDB/h.db' --out '$T/ro.jsonl' -f json > /dev/null 2>&1; echo \$? > '$T/ro3.rc'" ||
        fail "read-only mount set-up"
    [ "$(cat "$T/ro1.rc")" = 0 ] || fail "history list on a read-only mount: exit $(cat "$T/ro1.rc") $(head -c 300 "$T/ro1.json")"
    [ "$(py "$T/ro1.json" "j['data']['count']")" = 1 ] || fail "history list on a read-only mount: count"
    [ "$(cat "$T/ro2.rc")" = 0 ] || fail "history show on a read-only mount: exit $(cat "$T/ro2.rc")"
    [ "$(cat "$T/ro3.rc")" = 0 ] || fail "history export on a read-only mount: exit $(cat "$T/ro3.rc")"
    cmp -s "$T/exp.jsonl" "$T/ro.jsonl" || fail "export from a read-only mount differs"
fi
"$FLYPROF" history list --db "$HDB/h.db" -q -f json > /dev/null || fail "history list"
[ "$(sha256sum "$HDB/h.db" | cut -c1-64)" = "$sum0" ] || fail "a reader changed the database file"
python3 - "$FP_SRC/tests/tools" "$T/exp.jsonl" "$T" <<'PY' || fail "crafting import cases"
import copy, json, sys
sys.path.insert(0, sys.argv[1])
from history_hash import record_hash
base = json.loads(open(sys.argv[2]).readline()); base.pop("id", None)
assert record_hash(base) == base["hash"], "the Python reference hash disagrees with flyprof's"
t = sys.argv[3]
def H(r):
    r = copy.deepcopy(r); r["hash"] = record_hash(r); return r
def w(name, data):
    open("%s/imp_%s.jsonl" % (t, name), "wb").write(data)
line = json.dumps(H(base)).encode()
other = copy.deepcopy(base); other["shape"] = "1,f32"
w("nul", line + b"\n\x00" + json.dumps(H(other)).encode() + b"\n")
w("two", line + b" " + json.dumps(H(other)).encode() + b"\n")
d = copy.deepcopy(base); d["classes"].append(dict(d["classes"][0])); w("dupclass", json.dumps(H(d)).encode() + b"\n")
d = copy.deepcopy(base); d["rules"].append(dict(d["rules"][0])); w("duprank", json.dumps(H(d)).encode() + b"\n")
d = copy.deepcopy(base); d["rules"][0]["rank"] = 2**40; w("bigrank", json.dumps(H(d)).encode() + b"\n")
d = copy.deepcopy(base); d["rules"][0]["rank"] = -3; w("negrank", json.dumps(H(d)).encode() + b"\n")
d = copy.deepcopy(base); d["rules"][0]["rank"] = 1.5; w("fracrank", json.dumps(H(d)).encode() + b"\n")
d = copy.deepcopy(base); d["metrics"] = [1, 2]; w("metrics_arr", json.dumps(H(d)).encode() + b"\n")
PY
for c in nul two dupclass duprank bigrank negrank fracrank metrics_arr; do
    "$FLYPROF" history import "$T/imp_$c.jsonl" --db "$T/imp_$c.db" -f json > "$T/imp.json" 2>/dev/null; rc=$?
    [ $rc -eq 65 ] || fail "import $c: exit $rc $(head -c 300 "$T/imp.json")"
    [ ! -e "$T/imp_$c.db" ] || fail "import $c created the database"
done
"$FLYPROF" history import "$T/exp.jsonl" --db "$T/imp_ok.db" -q -f json > /dev/null || fail "a clean import"

# ---- mcp: JSON-RPC ids are echoed exactly (no double rounding, no cut at \u0000) ----
printf '%s\n' '{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}' \
    '{"jsonrpc":"2.0","id" : "a\u0000b" ,"method":"ping"}' '{"id":-12345678901234567890123,"jsonrpc":"2.0","method":"ping"}' \
    '{"jsonrpc":"2.0","id":"x","method":"nope"}' | "$FLYPROF" mcp --root "$ROOT" 2>/dev/null > "$T/ids.txt"
python3 - "$T/ids.txt" <<'PY' || fail "mcp ids not kept exactly: $(cat "$T/ids.txt")"
import sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0] == '{"jsonrpc":"2.0","id":9223372036854775807,"result":{}}', lines[0]
assert lines[1] == '{"jsonrpc":"2.0","id":"a\\u0000b","result":{}}', lines[1]
assert lines[2] == '{"jsonrpc":"2.0","id":-12345678901234567890123,"result":{}}', lines[2]
assert lines[3].startswith('{"jsonrpc":"2.0","id":"x","error":{"code":-32601'), lines[3]
PY

# ---- numbers: stall past latency is BAD_INPUT (no stall_pct 1e18, no negative issue); 1e300 workgroups ----
"$FP_TOOLS/fp_gen_att" "$FP_SRC/tests/data/gen/rep_stream.json" "$T/num" >/dev/null || fail "gen num"
ND=$(ls -d "$T"/num/att/ui_output_*)
cp -r "$T/num" "$T/wg"
python3 - "$ND/code.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
rows = [r for r in j["code"] if isinstance(r[2], int) and not r[0].startswith(";")]
for r in rows[:3]:
    r[8] = 2**62   # stall only: sums saturate while latency stays small
json.dump(j, open(sys.argv[1], "w"))
PY
for c in "bubbles --bundle $T/num" "hotspots $ND" "map --bundle $T/num" "report --bundle $T/num"; do
    "$FLYPROF" $c -q -f json > "$T/n.json" 2>/dev/null; rc=$?
    [ $rc -eq 65 ] || fail "$c with stall > latency: exit $rc $(head -c 300 "$T/n.json")"
done
python3 - "$T/wg/rocprof/kernel_trace.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[0]
for r in rows[1:]:
    r[h.index("Workgroup_Size_Y")] = r[h.index("Workgroup_Size_Z")] = "1e300"
csv.writer(open(sys.argv[1], "w")).writerows(rows)
PY
"$FLYPROF" report --bundle "$T/wg" -q -f json > /dev/null 2>&1 || fail "report with 1e300 workgroup sizes"
python3 - "$T/wg/report.json" <<'PY' || fail "1e300 workgroup sizes gave impossible numbers in report.json"
import json, sys
r = json.load(open(sys.argv[1]))
bad = []
def walk(o, p=""):
    if isinstance(o, dict):
        for k, v in o.items(): walk(v, p + "." + k)
    elif isinstance(o, list):
        for i, v in enumerate(o): walk(v, "%s[%d]" % (p, i))
    elif isinstance(o, (int, float)) and not isinstance(o, bool) and o < 0 and "delta" not in p:
        bad.append((p, o))
walk(r)
assert not bad, bad
assert r.get("launch") is None or (r["launch"].get("wg_waves") or 0) >= 0, r.get("launch")
PY

# ---- trend.csv: text cells a spreadsheet would run as formulas are neutralised ----
cp -r "$ROOT/b" "$T/fb"
printf '{"schema":1,"kernel":"rep_stream_kernel_0","arch":"gfx950","shape":"65536,f32","captured_at":"2026-11-03T10:00:00Z","worktree":{"commit":"=HYPERLINK(\\"http://x/\\",\\"a\\")","dirty":false,"branch":"main"}}\n' > "$T/fb/capture.json"
"$FLYPROF" report --bundle "$T/fb" -q -f json > /dev/null || fail "report fb"
"$FLYPROF" history add --bundle "$T/fb" --db "$T/f.db" -q -f json > "$T/fa.json" || fail "history add fb: $(cat "$T/fa.json")"
"$FLYPROF" history trend --db "$T/f.db" --out "$T/trend" -q -f json > /dev/null || fail "history trend"
python3 - "$T/trend/trend.csv" <<'PY' || fail "trend.csv carries a formula cell: $(cat "$T/trend/trend.csv")"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
cells = [c for r in rows[1:] for c in r]
assert any("HYPERLINK" in c for c in cells), rows
assert not any(c[:1] in ("=", "+", "@", "\t", "\r") for c in cells), rows
assert any(c.startswith("'=HYPERLINK") for c in cells), rows
PY

# ---- bundle: .tmp-/.old- dirs a SIGKILLed bundle left are cleaned (an orphaned .old- is restored) ----
EX=$T/ex
mkdir -p "$EX"
dead=$(python3 -c "
import os
for p in range(4000000, 3000000, -1):
    try: os.kill(p, 0)
    except ProcessLookupError: print(p); break")
mkdir -p "$EX/.rep_stream.tmp-$dead/x" "$EX/.other.old-$dead/att" "$EX/.keep.tmp-$$" "$EX/.rep_stream.old-$dead"
echo kept > "$EX/.other.old-$dead/att/f"
"$FLYPROF" bundle --bundle "$ROOT/b" --examples-dir "$EX" -q -f json > "$T/bu.json" 2>/dev/null || fail "bundle: $(head -c 300 "$T/bu.json")"
[ ! -e "$EX/.rep_stream.tmp-$dead" ] || fail "a dead bundle's .tmp- dir was left"
[ ! -e "$EX/.rep_stream.old-$dead" ] || fail "a dead bundle's .old- dir was left"
[ "$(cat "$EX/other/att/f" 2>/dev/null)" = kept ] || fail "an orphaned .old- example was not restored: $(ls -a "$EX")"
[ -d "$EX/.keep.tmp-$$" ] || fail "the .tmp- dir of a live process was removed"

# ---- a failed allocation is a typed error with an envelope, not SIGABRT ----
if [ -z "$SAN" ] && [ -n "${FP_CORPUS:-}" ] && [ -d "$FP_CORPUS/flash_attn_func-big" ]; then
    S=$(ls -d "$FP_CORPUS"/flash_attn_func-big/att/ui_output_*)
    mkdir -p "$T/oom"
    python3 - "$S/code.json" "$T/oom/code.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); rows = j["code"]; out = [rows[0]]; k = 1
for rep in range(150):              # 46 MB, 310k rows
    for r in rows[1:]:
        r = list(r); r[2] = k; k += 1; out.append(r)
j["code"] = out
json.dump(j, open(sys.argv[2], "w"))
PY
    ( ulimit -v 80000; exec "$FLYPROF" rules -f json ) > /dev/null 2>&1 || fail "rules does not run under an 80 MB limit (calibration)"
    ( ulimit -v 80000; exec "$FLYPROF" hotspots "$T/oom" -f json ) > "$T/oom.json" 2>/dev/null; rc=$?
    [ $rc -eq 74 ] || fail "out of memory: exit $rc (134 = SIGABRT without an envelope)"
    [ "$(py "$T/oom.json" "j['error']['code']")" = IO_ERROR ] || fail "out of memory: $(head -c 300 "$T/oom.json")"
    rm -rf "$T/oom"
fi

echo ok
