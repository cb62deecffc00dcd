// client.mjs - flyprof mcp driven by the official MCP TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in package-lock.json). Spawns
// `flyprof mcp --root ROOT --allow-gpu`, lists tools, calls hotspots and report
// on the shipped example, sends bad arguments, a path outside the root and an
// unknown tool, cancels a hung capture (the fake rocprofv3), and prints the
// whole JSON-RPC transcript (long messages shortened).
//
// env: FLYPROF (binary), MCP_ROOT (server root holding example/), plus the
// fake rocprofv3 set-up of tests/cli/lib/capture_env.sh.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError, ErrorCode, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";

const FLYPROF = process.env.FLYPROF;
const ROOT = process.env.MCP_ROOT;
const DISPATCH = "example/att/ui_output_agent_4242_dispatch_3";
assert.ok(FLYPROF && ROOT, "FLYPROF and MCP_ROOT must be set");

const transcript = [];
const received = [];
const MAX = 400;
function log(dir, msg) {
  if (dir === "<-") received.push(msg);
  let s = JSON.stringify(msg);
  if (s.length > MAX) s = s.slice(0, MAX) + ` ... (${s.length} bytes)`;
  transcript.push(`${dir} ${s}`);
}

const transport = new StdioClientTransport({
  command: FLYPROF,
  args: ["mcp", "--root", ROOT, "--allow-gpu"],
  env: { ...process.env },
  stderr: "pipe",
});
let serverStderr = "";
transport.stderr?.on("data", (d) => (serverStderr += d.toString()));
// Record both directions: wrap send, and the handler the Client installs.
const send = transport.send.bind(transport);
transport.send = async (m) => {
  log("->", m);
  return send(m);
};
let handler;
Object.defineProperty(transport, "onmessage", {
  set(fn) { handler = fn; },
  get() { return handler && ((m) => { log("<-", m); handler(m); }); },
});

const client = new Client({ name: "flyprof-sdk-test", version: "1.0.0" });
let ok = false;
try {
  await client.connect(transport);
  const init = received.find((m) => m.id === 0 && m.result);
  assert.equal(init.result.protocolVersion, LATEST_PROTOCOL_VERSION);
  assert.equal(LATEST_PROTOCOL_VERSION, "2025-06-18");
  assert.equal(client.getServerVersion().name, "flyprof");
  assert.ok(client.getServerCapabilities().tools);

  // tools/list: one tool per command (capture included: --allow-gpu), schemas from the option tables
  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  for (const n of ["hotspots", "report", "capture", "counters", "diff", "rules"]) assert.ok(byName[n], n);
  assert.ok(!byName.mcp);
  const hs = byName.hotspots.inputSchema;
  assert.deepEqual(hs.required, ["dir"]);
  assert.deepEqual(hs.properties.mode.enum, ["both", "asm", "src"]);
  assert.equal(hs.properties.topk.type, "integer");
  assert.equal(hs.properties.topk.default, 15);
  assert.equal(byName.counters.inputSchema.properties.app.type, "array");

  // hotspots on the shipped example
  let r = await client.callTool({ name: "hotspots", arguments: { dir: DISPATCH, topk: 3 } });
  assert.equal(r.isError, false);
  assert.equal(r.structuredContent.ok, true);
  assert.equal(r.structuredContent.data.instructions, 84);
  assert.equal(r.structuredContent.data.total_stall, 64688);
  assert.match(r.content[0].text, /Total stalls:\s+64\.7K/);

  // report on the shipped example (artifacts into the root)
  r = await client.callTool({ name: "report", arguments: { bundle: "example", "out-dir": "sdk-report", "no-html": true } });
  assert.equal(r.isError, false);
  assert.equal(r.structuredContent.data.kernel, "gemm_kernel_0");
  // the same diagnosis as the CLI run directly
  const direct = JSON.parse(execFileSync(FLYPROF, ["report", "--bundle", "example", "-o", "sdk-direct", "--no-html",
    "-f", "json", "-q"], { cwd: ROOT }).toString());
  assert.equal(r.structuredContent.data.bound_type, direct.data.bound_type);
  assert.equal(r.structuredContent.data.headline, direct.data.headline);
  assert.deepEqual(r.structuredContent.data.recommendations, direct.data.recommendations);
  assert.match(r.content[0].text, /gemm_kernel_0/); // the table rendering

  // bad arguments: a tool error with the envelope's code and help
  r = await client.callTool({ name: "hotspots", arguments: { dir: DISPATCH, topk: "many", colour: "red" } });
  assert.equal(r.isError, true);
  assert.equal(r.structuredContent.error.code, "USAGE");
  assert.equal(r.structuredContent.error.exitCode, 64);
  assert.ok(r.structuredContent.error.help.length > 0);

  // a path outside the root is refused
  r = await client.callTool({ name: "report", arguments: { bundle: "/etc" } });
  assert.equal(r.isError, true);
  assert.equal(r.structuredContent.error.code, "BAD_ARGS");
  assert.match(r.structuredContent.error.message, /outside the server root/);
  r = await client.callTool({ name: "hotspots", arguments: { dir: "example/../../.." } });
  assert.equal(r.structuredContent.error.code, "BAD_ARGS");

  // an unknown tool is a protocol error (invalid params)
  await assert.rejects(client.callTool({ name: "no-such-tool", arguments: {} }),
    (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams);

  // cancel a long call: capture hangs in the fake rocprofv3's discovery pass
  const ac = new AbortController();
  const progress = [];
  const t0 = Date.now();
  const pending = client.callTool(
    { name: "capture", arguments: { kernel: "softmax", bundle: "cap" } },
    undefined,
    {
      signal: ac.signal,
      onprogress: (p) => {
        progress.push(p);
        if (progress.length === 2) ac.abort("the test cancels");
      },
    },
  );
  await assert.rejects(pending);
  assert.ok(progress.length >= 2 && progress[1].progress > progress[0].progress, JSON.stringify(progress));
  assert.match(progress[0].message, /^capture: /);
  // the server keeps serving, and it killed the call's process tree
  await client.ping();
  for (let i = 0; !/capture cancelled/.test(serverStderr); i++) {
    assert.ok(i < 100, "no cancel in the server log:\n" + serverStderr);
    await new Promise((res) => setTimeout(res, 100));
  }
  const cancelS = (Date.now() - t0) / 1000;
  r = await client.callTool({ name: "rules", arguments: {} });
  assert.equal(r.isError, false);
  assert.ok(r.structuredContent.data.count > 0);
  transcript.push(`# capture: ${progress.length} progress notifications, cancelled after ${cancelS.toFixed(1)} s`);
  ok = true;
} finally {
  await client.close();
  console.log("---- transcript (-> client to server, <- server to client) ----");
  console.log(transcript.join("\n"));
  if (!ok) console.log("---- server stderr ----\n" + serverStderr);
}
console.log("ok");
