#!/bin/bash
# The real client: the official MCP TypeScript SDK (tests/mcp/package-lock.json)
# run by Node drives `flyprof mcp` (tests/mcp/client.mjs) and prints the session
# transcript. `scripts/setup.sh test` installs it (npm ci); without Node or the
# installed SDK the test is skipped (77), never silently passed.
. "$(dirname "$0")/../cli/lib/capture_env.sh"
HERE=$FP_SRC/tests/mcp
command -v node >/dev/null || { echo "skip: node not installed (apt-get install nodejs npm)"; exit 77; }
[ -d "$HERE/node_modules/@modelcontextprotocol/sdk" ] ||
  { echo "skip: run 'npm ci' in tests/mcp (scripts/setup.sh test does)"; exit 77; }
ROOT=$T/root
mkdir -p "$ROOT"
cp -r "$FP_SRC/examples/synthetic_gemm" "$ROOT/example"
# the long call: capture hangs in the fake rocprofv3's discovery pass until cancelled
export FAKE_ROCPROF_HANG=discovery
MCP_ROOT=$ROOT node "$HERE/client.mjs" || fail "SDK client"
# the cancelled capture left no fake rocprofv3 behind
! ps -eo args | grep -v grep | grep -q "$ROOT/cap.*rocprofv3\|rocprofv3.*$ROOT/cap" || fail "rocprofv3 survived the cancel"
