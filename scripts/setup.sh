#!/usr/bin/env bash
# setup.sh - the two set-up commands of the README, for a fresh Debian machine.
#
#   scripts/setup.sh demo   install what is missing, build, run flyprof on the shipped example
#   scripts/setup.sh test   install what is missing, build, run the whole suite, then again
#                           under AddressSanitizer + UndefinedBehaviorSanitizer
#
# Packages come from Debian (no vendored libraries); the test mode also installs the MCP SDK
# from the npm registry into tests/mcp/node_modules and Microsoft's SARIF validator into
# tests/sarif/node_modules (versions pinned by their package-lock.json).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-demo}
case "$mode" in demo|test) ;; *) echo "usage: scripts/setup.sh demo|test" >&2; exit 64 ;; esac

PKGS="gcc make cmake pkg-config git python3 libcjson-dev libyaml-dev libsqlite3-dev libgit2-dev libcmocka-dev"
# the MCP test drives `flyprof mcp` with the official MCP TypeScript SDK (tests/mcp/)
# (by command, not by package: a NodeSource nodejs ships its own npm and conflicts with Debian's)
if [ "$mode" = test ]; then
  command -v node >/dev/null 2>&1 || PKGS="$PKGS nodejs"
  command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm"
fi
# CI also builds with clang (warning-free with both compilers is part of the contract) and
# fuzzes (tests/fuzz/run.sh): clang and its libFuzzer/sanitizer runtimes
[ "$mode" = test ] && PKGS="$PKGS clang libclang-rt-dev"
# the sweep test brings up a real one-node Slurm (slurmctld + slurmd, tests/cli/lib/slurm_env.sh)
[ "$mode" = test ] && PKGS="$PKGS slurm-wlm"
PKGS="$PKGS libelf-dev libmsgpack-dev clang-19 lld-19 llvm-19"  # code object reader (libelf, msgpack-c); its tests compile real AMDGPU objects (clang-19, ld.lld-19, llvm-readelf-19)
[ "$mode" = test ] && PKGS="$PKGS chromium"  # tests/cli/views_chromium.sh opens report.html and flamegraph.svg headless
[ "$mode" = test ] && PKGS="$PKGS libicu72"  # tests/sarif: Microsoft's SARIF validator is a .NET tool, it needs ICU
[ "$mode" = test ] && PKGS="$PKGS dpkg-dev"  # tests/cli/deb.sh: cpack's DEB generator runs dpkg-shlibdeps
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing:$missing" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

jobs=$(nproc 2>/dev/null || echo 2)
werror=OFF
[ "$mode" = test ] && werror=ON   # CI: a new warning fails the build
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLYPROF_WERROR=$werror >/dev/null
cmake --build build -j "$jobs"

if [ "$mode" = demo ]; then
  # The main job on the shipped synthetic example: the ranked diagnosis (report), whose
  # artifacts (report.json, REPORT.md, report.html) go to a temp dir, not into examples/.
  out=$(mktemp -d "${TMPDIR:-/tmp}/flyprof-demo.XXXXXX")
  ./build/flyprof report --bundle examples/synthetic_gemm -o "$out" -f table
  echo
  echo "demo: artifacts in $out (REPORT.md, report.html, report.json)"
  echo "demo: the seed analyzer's view: ./build/flyprof hotspots examples/synthetic_gemm/att/ui_output_agent_4242_dispatch_3 --detail -f table"
  exit 0
fi

# The SDK version is pinned by tests/mcp/package-lock.json; installed once.
if [ ! -d tests/mcp/node_modules/@modelcontextprotocol/sdk ]; then
  (cd tests/mcp && npm ci --no-audit --no-fund)
fi
# The SARIF validator (sarif-multitool validate, tests/sarif/validate.sh), pinned the same way.
if [ ! -x tests/sarif/node_modules/.bin/sarif-multitool ]; then
  (cd tests/sarif && npm ci --no-audit --no-fund)
fi

# CI (as root): tests/cli/deb.sh installs the .deb into the system with dpkg -i (and removes it)
[ "${CI:-}" = true ] && [ "$(id -u)" -eq 0 ] && export FLYPROF_TEST_DPKG_SYSTEM=1
ctest --test-dir build --output-on-failure -j "$jobs"

echo "setup: Release build with clang, installed into a temporary prefix" >&2
prefix=$(mktemp -d "${TMPDIR:-/tmp}/flyprof-prefix.XXXXXX")
CC=clang cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=Release -DFLYPROF_WERROR=ON >/dev/null
cmake --build build-clang -j "$jobs" --target flyprof
cmake --install build-clang --prefix "$prefix" >/dev/null
# the installed binary must find its registry relative to its own prefix
# (not the source tree's, which a build also falls back to)
env -u FLYPROF_RECIPES -u FLYPROF_CONFIG "$prefix/bin/flyprof" list -f json -q |
  python3 -c 'import json,sys; d=json.load(sys.stdin)["data"]; p=sys.argv[1]
assert d["count"] > 0 and d["registry"] == p + "/share/flyprof/recipes.yaml", d' "$(realpath "$prefix")" ||
  { echo "setup: the installed flyprof does not list the kernels of its own registry" >&2; exit 1; }
rm -rf "$prefix"

echo "setup: the suite again under ASan + UBSan" >&2
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DFLYPROF_SANITIZE=ON -DFLYPROF_WERROR=ON >/dev/null
cmake --build build-asan -j "$jobs"
# LeakSanitizer stays on (the default); ASAN_OPTIONS must not force detect_leaks, or it would
# override the fake rocprofv3's own default (a test double that exits with its options allocated).
ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs"

echo "setup: fuzzing every parser for a bounded time (tests/fuzz/README.md)" >&2
FUZZ_JOBS="$jobs" tests/fuzz/run.sh
