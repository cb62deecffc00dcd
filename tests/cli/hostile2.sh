#!/bin/bash
# Issue 22 (hostile inputs II), one block per defect: each block failed before its fix.
#  - mcp: history/check/bundle defaults resolve under --root, never the user's global history
#    or $FLYPROF_EXAMPLES_DIR outside it
set -u
: "${FLYPROF:?}" "${FP_TOOLS:?}" "${FP_SRC:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
py() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }
unset XDG_DATA_HOME FLYPROF_TABLE_FD
export HOME="$T/home"
mkdir -p "$HOME"

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

echo ok
