# tests/cli/lib/common.sh - the preamble the generator-based CLI tests share (sourced, not a
# test: tests/cli/lib/ is not globbed): ctest's FLYPROF / FP_TOOLS / FP_SRC must be set (a script
# run by hand without them stops at once), T is a temp dir removed at exit, fail() stops with a
# message on stderr, py FILE EXPR prints EXPR evaluated with j = the JSON document in FILE.
set -u
: "${FLYPROF:?}" "${FP_TOOLS:?}" "${FP_SRC:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
py() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }
