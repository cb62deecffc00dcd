#!/bin/bash
# flyprof mcp at the JSON-RPC level: raw lines in (malformed JSON, wrong
# version, batches, unknown methods, bad params, an oversized message, a path
# outside the root, a symlink out of it), the server keeps serving and stdout
# carries only protocol messages; a hotspots/report call on the shipped example
# returns the envelope + table; a hung capture (fake rocprofv3) sends progress
# and is cancelled with its whole process tree.
. "$(dirname "$0")/lib/capture_env.sh"
ROOT=$T/root
mkdir -p "$ROOT"
cp -r "$FP_SRC/examples/synthetic_gemm" "$ROOT/example"
ln -s /etc "$ROOT/escape"
export FAKE_ROCPROF_HANG=discovery
"$PY" - "$FLYPROF" "$ROOT" "$T" <<'PY'
import json, os, queue, subprocess, sys, threading, time

flyprof, root, tmp = sys.argv[1:4]
DISPATCH = "example/att/ui_output_agent_4242_dispatch_3"

class Server:
    def __init__(self, *args):
        self.err = open(os.path.join(tmp, "mcp-stderr-%d.txt" % len(args)), "w")
        self.p = subprocess.Popen([flyprof, "mcp", "--root", root, *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.err, cwd="/")
        self.q = queue.Queue()
        self.lines = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.append(line)
            self.q.put(json.loads(line))  # every stdout line must be JSON: raises otherwise
        self.q.put(None)

    def raw(self, data):
        self.p.stdin.write(data if isinstance(data, bytes) else data.encode())
        self.p.stdin.flush()

    def send(self, obj):
        self.raw(json.dumps(obj) + "\n")

    def recv(self, timeout=20):
        m = self.q.get(timeout=timeout)
        assert m is not None, "server closed stdout"
        assert m.get("jsonrpc") == "2.0", m
        return m

    def call(self, id, method, params=None):
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        while True:
            m = self.recv()
            if m.get("id") == id:
                return m
            assert m.get("method") == "notifications/progress", m

    def close(self):
        self.p.stdin.close()
        rc = self.p.wait(timeout=30)
        assert rc == 0, rc
        # everything on stdout was a protocol message (each line parsed in _read)
        assert all(l.endswith(b"\n") for l in self.lines)

def err_code(m):
    assert "error" in m and "result" not in m, m
    return m["error"]["code"]

def init(s, version="2025-06-18"):
    r = s.call(1, "initialize", {"protocolVersion": version, "capabilities": {},
                                 "clientInfo": {"name": "raw", "version": "0"}})
    s.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return r["result"]

s = Server()
# before initialize: only initialize and ping
assert err_code(s.call(0, "tools/list")) == -32600
assert s.call("p0", "ping") == {"jsonrpc": "2.0", "id": "p0", "result": {}}
# malformed input, one answer each, id null when unknown
s.raw("{not json\n")
m = s.recv(); assert err_code(m) == -32700 and m["id"] is None, m
s.raw('{"jsonrpc":"1.0","id":7,"method":"ping"}\n')
m = s.recv(); assert err_code(m) == -32600 and m["id"] == 7, m
s.raw(b'{"jsonrpc":"2.0","id":77,"method":"p\xffng"}\n')  # JSON text is UTF-8
m = s.recv(); assert err_code(m) == -32700 and "UTF-8" in m["error"]["message"], m
s.raw('[{"jsonrpc":"2.0","id":8,"method":"ping"}]\n')
m = s.recv(); assert err_code(m) == -32600 and m["id"] is None, m
s.raw('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}\n')
m = s.recv(); assert err_code(m) == -32600 and m["id"] is None, m
s.raw('42\n')
assert err_code(s.recv()) == -32600
s.raw('{"jsonrpc":"2.0","id":9}\n')
assert err_code(s.recv()) == -32600
s.raw("\n   \n")  # blank lines are ignored
# a notification never gets an answer, even a malformed or unknown one
s.send({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {}})
s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 12345}})
# oversized message (5 MiB, bound 4 MiB): dropped, answered once, then still serving
s.raw('{"jsonrpc":"2.0","id":10,"method":"ping","params":{"x":"' + "a" * (5 << 20) + '"}}\n')
m = s.recv(); assert err_code(m) == -32600 and "larger than" in m["error"]["message"], m
assert s.call(11, "ping")["result"] == {}

r = init(s, "1999-01-01")  # unknown revision: the server answers with its own
assert r["protocolVersion"] == "2025-06-18", r
assert r["capabilities"]["tools"] == {"listChanged": False}, r
assert r["serverInfo"]["name"] == "flyprof"
assert err_code(s.call(2, "initialize", {"protocolVersion": "2025-06-18"})) == -32600  # twice
assert err_code(s.call(3, "resources/list")) == -32601
assert err_code(s.call(4, "tools/list", ["not", "an", "object"])) == -32602
assert err_code(s.call(5, "tools/list", {"cursor": "bogus"})) == -32602

tools = {t["name"]: t for t in s.call(6, "tools/list")["result"]["tools"]}
assert "capture" not in tools and "run" not in tools and "mcp" not in tools, sorted(tools)
assert {"hotspots", "report", "counters", "diff", "rules"} <= set(tools), sorted(tools)
hs = tools["hotspots"]["inputSchema"]
assert hs["required"] == ["dir"] and hs["additionalProperties"] is False, hs
assert hs["properties"]["mode"]["enum"] == ["both", "asm", "src"], hs["properties"]["mode"]
assert "app" not in tools["counters"]["inputSchema"]["properties"]

def tool(id, name, args, **extra):
    p = {"name": name, "arguments": args}
    p.update(extra)
    return s.call(id, "tools/call", p)

# protocol-level errors: unknown tool, gated tool, arguments not an object
assert err_code(tool(20, "nope", {})) == -32602
m = tool(21, "capture", {"kernel": "softmax"}); assert "--allow-gpu" in m["error"]["message"], m
assert err_code(tool(22, "hotspots", [1])) == -32602
assert err_code(s.call(23, "tools/call", {"arguments": {}})) == -32602

def tool_error(id, name, args, code):
    r = tool(id, name, args)["result"]
    assert r["isError"] is True, r
    env = r["structuredContent"]
    assert env["ok"] is False and env["error"]["code"] == code, env
    assert r["content"][0]["type"] == "text" and code in r["content"][0]["text"], r
    return env["error"]

e = tool_error(30, "hotspots", {"dir": DISPATCH, "topk": "many"}, "USAGE")
assert "integer" in e["message"] and e["exitCode"] == 64, e
e = tool_error(31, "hotspots", {"dir": DISPATCH, "--topk": 3}, "USAGE")
assert "unknown argument '--topk'" in e["message"] and "accepts: dir, topk" in e["help"], e
e = tool_error(32, "hotspots", {"dir": "/etc"}, "BAD_ARGS")
assert "outside the server root" in e["message"] and e["root"] == root, e
tool_error(33, "hotspots", {"dir": "example/../.."}, "BAD_ARGS")
tool_error(34, "hotspots", {"dir": "escape"}, "BAD_ARGS")  # symlink out of the root
tool_error(35, "doctor", {"rocprofv3": "/bin/sh"}, "BAD_ARGS")
tool_error(36, "report", {"bundle": "example", "out-dir": "/tmp/elsewhere"}, "BAD_ARGS")
# a command's own error arrives the same way (exit code + help of the envelope)
e = tool_error(37, "hotspots", {"dir": "example"}, "NO_ARTIFACT")
assert e["exitCode"] == 66 and e["help"], e

# a real call: the envelope as structuredContent, the table rendering as text
r = tool(40, "hotspots", {"dir": DISPATCH, "topk": 3})["result"]
assert r["isError"] is False, r
d = r["structuredContent"]["data"]
assert r["structuredContent"]["ok"] is True and r["structuredContent"]["command"] == "hotspots"
assert d["instructions"] == 84 and d["total_cycles"] == 76440 and d["total_stall"] == 64688, d
assert "Total cycles:  76.4K" in r["content"][0]["text"], r["content"][0]["text"][:400]
# relative paths resolve against the root, whatever the server's cwd (/ here)
assert d["dispatch_dir"] == os.path.join(root, DISPATCH), d["dispatch_dir"]
r = tool(41, "report", {"bundle": "example", "out-dir": "out/report", "no-html": True})["result"]
assert r["isError"] is False, r
# the same answer as the CLI run directly
direct = json.loads(subprocess.run([flyprof, "report", "--bundle", "example", "-o", "out/direct", "--no-html",
                                    "-f", "json", "-q"], cwd=root, capture_output=True, check=True).stdout)
got = r["structuredContent"]["data"]
assert got["kernel"] == direct["data"]["kernel"] == "gemm_kernel_0", got["kernel"]
for k in ("bound_type", "headline", "recommendations"):
    assert got[k] == direct["data"][k], (k, got[k], direct["data"][k])
assert os.path.isfile(os.path.join(root, "out/report/report.json"))
assert "gemm_kernel_0" in r["content"][0]["text"], r["content"][0]["text"][:600]  # the table rendering

# hostile input (seeded): mutated messages and arguments of every JSON type; the
# server answers what it must and is still serving afterwards
import random
rnd = random.Random(12)
values = [None, True, False, 0, -1, 1.5, 1e300, "", "x" * 5000, "../../..", "/etc", [], [1, "a"], {},
          {"a": {"b": []}}, "\u0000", "\udcff".encode("utf-8", "surrogatepass").decode("latin-1")]
seeds = [{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
          "params": {"name": "hotspots", "arguments": {"dir": DISPATCH}}},
         {"jsonrpc": "2.0", "id": "x", "method": "tools/list", "params": {}},
         {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}]
names = ["hotspots", "report", "diff", "counters", "tile", "map", "bubbles", "rules", "bundle", "list", "doctor"]
for i in range(400):
    kind = rnd.randrange(4)
    if kind == 0:  # byte mutation of a valid message
        b = bytearray(json.dumps(rnd.choice(seeds)).encode())
        for _ in range(rnd.randrange(1, 6)):
            b[rnd.randrange(len(b))] = rnd.randrange(1, 256) if rnd.random() < 0.9 else 10
        s.raw(bytes(b).replace(b"\n", b" ") + b"\n")
    elif kind == 1:  # random argument values for a random tool
        args = {rnd.choice(["dir", "topk", "mode", "bundle", "out-dir", "before", "csv", "shape", "bm", "x"]):
                rnd.choice(values) for _ in range(rnd.randrange(4))}
        s.send({"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call",
                "params": {"name": rnd.choice(names), "arguments": args}})
    elif kind == 2:  # random shapes of the envelope fields
        m = {"jsonrpc": rnd.choice(["2.0", 2, None]), "id": rnd.choice(values),
             "method": rnd.choice(["tools/call", "ping", "initialize", 7, None]), "params": rnd.choice(values)}
        s.send({k: v for k, v in m.items() if rnd.random() < 0.8})
    else:  # deep nesting
        d = rnd.randrange(1, 3000)
        s.raw("[" * d + "]" * d + "\n")
s.send({"jsonrpc": "2.0", "id": "alive", "method": "ping"})
answers = 0
while True:
    m = s.recv(60)  # each one parsed as JSON-RPC 2.0 (valid UTF-8 JSON)
    if m.get("id") == "alive":
        break
    assert "result" in m or m["error"]["code"] in (-32700, -32600, -32601, -32602), m
    answers += 1
assert m["result"] == {} and answers > 200, (m, answers)
s.close()
assert "stopped: " in open(os.path.join(tmp, "mcp-stderr-0.txt")).read()

# --allow-gpu: capture is a tool; a hung capture reports progress and is cancelled
s = Server("--allow-gpu")
assert init(s, "2025-03-26")["protocolVersion"] == "2025-03-26"  # a supported older revision is kept
tools = {t["name"]: t for t in s.call(6, "tools/list")["result"]["tools"]}
assert "capture" in tools and "app" in tools["counters"]["inputSchema"]["properties"]
# older revision: no structuredContent, the text only
r = s.call(7, "tools/call", {"name": "rules", "arguments": {}})["result"]
assert "structuredContent" not in r and r["isError"] is False and "vmem_prefetch" in r["content"][0]["text"], r
s.send({"jsonrpc": "2.0", "id": "cap", "method": "tools/call",
        "params": {"name": "capture", "arguments": {"kernel": "softmax", "bundle": "cap"},
                   "_meta": {"progressToken": "tok"}}})
progress = []
t0 = time.time()
while len(progress) < 2:
    m = s.recv(10)
    assert m.get("method") == "notifications/progress", m
    assert m["params"]["progressToken"] == "tok", m
    progress.append(m["params"]["progress"])
assert progress[1] > progress[0], progress
# the server answers while the call runs
assert s.call(8, "ping")["result"] == {}
s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "cap", "reason": "test"}})
# no answer for the cancelled request; the next one is served
deadline = time.time() + 15
while True:
    m = s.call(9, "ping")
    assert m.get("id") != "cap", m
    log = open(os.path.join(tmp, "mcp-stderr-1.txt")).read()
    if "capture cancelled" in log:
        break
    assert time.time() < deadline, log
    time.sleep(0.2)
# the hung fake rocprofv3 (a grandchild in its own group) is gone too
def survivors(tag):
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [l for l in out.splitlines() if os.path.join(root, tag) in l and "rocprofv3" in l]
assert not survivors("cap"), survivors("cap")

# a command that dies (SIGKILL to the flyprof child: no chance to clean up)
# is an INTERNAL tool error; the server keeps serving and its rocprofv3 is reaped
s.send({"jsonrpc": "2.0", "id": "crash", "method": "tools/call",
        "params": {"name": "capture", "arguments": {"kernel": "softmax", "bundle": "crash"},
                   "_meta": {"progressToken": 5}}})
assert s.recv(10)["method"] == "notifications/progress"
deadline = time.time() + 10
while not survivors("crash"):  # wait for the fake rocprofv3 to be running
    assert time.time() < deadline
    time.sleep(0.1)
out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
child = [int(l.split()[0]) for l in out.splitlines()
         if " capture -f json " in l and os.path.join(root, "crash") in l and "rocprofv3" not in l]
assert len(child) == 1, out
os.kill(child[0], 9)
while True:
    m = s.recv(20)
    if m.get("id") == "crash":
        break
r = m["result"]
# (this session speaks 2025-03-26: the text only)
assert r["isError"] is True and "structuredContent" not in r, r
assert r["content"][0]["text"].startswith("error INTERNAL (exit 70): 'capture' died with signal 9"), r
assert s.call(10, "ping")["result"] == {}
assert not survivors("crash"), survivors("crash")
s.close()
print("ok")
PY
