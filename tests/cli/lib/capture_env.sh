# Shared setup of the capture/run/list/doctor CLI tests (sourced, not a test:
# tests/cli/lib/ is not globbed). Creates a temp dir with a fake FlyDSL
# worktree (a real git repo) and points flyprof at the fake rocprofv3.
set -u
: "${FLYPROF:?}" "${FP_TOOLS:?}" "${FP_SRC:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
WT=$T/wt
mkdir -p "$WT/tests/kernels" "$WT/build-fly/python_packages/flydsl"
cat > "$WT/tests/kernels/test_softmax.py" <<'PY'
import os
print("softmax shapes", os.environ.get("ROCDSL_SOFTMAX_SHAPES"))
PY
echo 'print("layernorm")' > "$WT/tests/kernels/test_layernorm.py"
( cd "$WT" && git init -q && git add tests && git -c user.email=t@t -c user.name=t commit -qm init ) || exit 1
export FLYPROF_WORKTREE=$WT
export FLYPROF_ROCPROFV3=$FP_TOOLS/rocprofv3
# the pyenv shim takes seconds to start; the system python is enough for the
# fake workload and for reading JSON
PY=python3
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; export FLYPROF_PYTHON=/usr/bin/python3; fi
export FAKE_ROCPROF_LOG=$T/fake.log
export FAKE_ROCPROF_KERNELS="at::native::vectorized_elementwise_kernel<4>(int):40:900000,softmax_kernel_0:12:30000:96"
unset HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES FAKE_ROCPROF_GPUS FAKE_ROCPROF_PARTITION FAKE_ROCPROF_CODE_OBJECT
unset FAKE_ROCPROF_MODE FAKE_ROCPROF_HANG FAKE_ROCPROF_EXIT FAKE_ROCPROF_VERSION FAKE_ROCPROF_ATT_NEED_BUFFER \
      FAKE_ROCPROF_GEN_SPEC FLYPROF_RECIPES FLYPROF_CONFIG FLYPROF_GPU FLYPROF_ARCH
export HOME=$T/home
# the real machine's PCI sysfs must not decide a partition's memory mode (cli/capture_agent sets it)
export FLYPROF_SYSFS_PCI=$T/no-pci

fail() { echo "FAIL: $*" >&2; exit 1; }
# jq-like: get FIELD (python expression on d) from the JSON file or stdin
jget() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1]) if sys.argv[1]!='-' else sys.stdin); print(eval(sys.argv[2]))" "$@"; }
# run flyprof, keep envelope in $T/out.json and the exit code in $RC
fp() { "$FLYPROF" "$@" -f json > "$T/out.json" 2> "$T/err.txt"; RC=$?; }
expect_error() { # CODE EXIT
    [ "$RC" = "$2" ] || { cat "$T/out.json" "$T/err.txt" >&2; fail "exit $RC, expected $2 ($1)"; }
    local code; code=$(jget "$T/out.json" 'd["error"]["code"]')
    [ "$code" = "$1" ] || fail "error code $code, expected $1"
}
