# tests/conformance/lib/common.sh - the preamble every conformance script shares; sourced,
# never run as a test (tests/CMakeLists.txt globs conformance/*.sh, not lib/):
#   . "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# ctest gives every script FLYPROF (the binary) and FP_SRC (the source tree): a script run by hand
# without them stops at once instead of testing something else. Without the corpus (FP_CORPUS with
# its cases.tsv) the script is skipped: exit 77, ctest's SKIP_RETURN_CODE. Sets C (the corpus),
# T (a temp dir removed at exit) and fail() (message to stderr, exit 1).
set -u
: "${FLYPROF:?}"
: "${FP_SRC:?}"
C="${FP_CORPUS:-}"
if [ -z "$C" ] || [ ! -f "$C/cases.tsv" ]; then
    echo "corpus not found at '$C': skipped"
    exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
