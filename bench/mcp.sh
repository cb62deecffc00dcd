#!/usr/bin/env bash
# bench/mcp.sh [FLYPROF] [CALLS]
# Cost of going through `flyprof mcp`: CALLS hotspots calls on the shipped example
# through one server session (JSON-RPC, child process per call, envelope + table)
# against the same number of direct `flyprof hotspots -f json` runs; plus
# initialize and tools/list latency. Prints figures, asserts nothing.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
FLYPROF=${1:-$here/build/flyprof}
CALLS=${2:-50}
[ -x "$FLYPROF" ] || { echo "no flyprof binary at $FLYPROF" >&2; exit 2; }
python3 - "$FLYPROF" "$here" "$CALLS" <<'PY'
import json, subprocess, sys, time
flyprof, root, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = "examples/synthetic_gemm/att/ui_output_agent_4242_dispatch_3"
t = time.perf_counter()
for _ in range(calls):
    subprocess.run([flyprof, "hotspots", d, "--topk", "5", "-f", "json"], cwd=root, check=True,
                   stdout=subprocess.DEVNULL)
direct = (time.perf_counter() - t) / calls
p = subprocess.Popen([flyprof, "mcp", "--root", root], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL)
def rpc(i, method, params):
    p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode())
    p.stdin.flush()
    line = p.stdout.readline()
    return line
t = time.perf_counter()
rpc(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": "0"}})
init = time.perf_counter() - t
t = time.perf_counter()
lst = rpc(1, "tools/list", {})
listt = time.perf_counter() - t
t = time.perf_counter()
size = 0
for i in range(calls):
    r = rpc(10 + i, "tools/call", {"name": "hotspots", "arguments": {"dir": d, "topk": 5}})
    assert b'"isError":false' in r, r[:200]
    size += len(r)
via = (time.perf_counter() - t) / calls
p.stdin.close(); p.wait()
print(f"initialize          {init*1e3:7.2f} ms")
print(f"tools/list          {listt*1e3:7.2f} ms ({len(lst)} bytes, {lst.count(b'inputSchema')} tools)")
print(f"hotspots direct     {direct*1e3:7.2f} ms/call (flyprof hotspots -f json, {calls} runs)")
print(f"hotspots via mcp    {via*1e3:7.2f} ms/call ({size // calls} bytes/result: envelope + table)")
print(f"mcp overhead        {(via-direct)*1e3:7.2f} ms/call")
PY
