#!/bin/bash
# Every error code capture can give, end to end through the real binary and
# the fake rocprofv3, with the exit code bound to it.
. "$(dirname "$0")/lib/capture_env.sh"

# USAGE 64: no KERNEL; a --tag that is not a choice
fp capture; expect_error USAGE 64
fp capture softmax --tag medium; expect_error USAGE 64

# ROCPROFV3_MISSING 69: not installed
fp capture softmax --bundle "$T/b0" --rocprofv3 "$T/no/rocprofv3"; expect_error ROCPROFV3_MISSING 69
[ ! -e "$T/b0" ] || fail "bundle created before the gates"

# BUILD_TREE_MISSING 78: worktree without build-fly/python_packages, or none at all
mkdir -p "$T/bare"
fp capture softmax --worktree "$T/bare"; expect_error BUILD_TREE_MISSING 78
FLYPROF_WORKTREE= fp capture softmax; expect_error BUILD_TREE_MISSING 78

# KERNEL_NOT_FOUND 66: neither a recipe nor a tracked test; "available" lists what exists
fp capture nosuchkernel --bundle "$T/b1"; expect_error KERNEL_NOT_FOUND 66
[ "$(jget $T/out.json '"softmax" in d["error"]["available"]')" = True ] || fail available
# a shipped recipe whose test file is not in this worktree
fp capture rmsnorm --bundle "$T/b1"; expect_error KERNEL_NOT_FOUND 66

# BAD_ARGS 78: small needs a shape; bad iteration syntax; bad gpu; shape with no way in
fp capture softmax --tag both --bundle "$T/b2"; expect_error BAD_ARGS 78
fp capture softmax --iter-range 'x' --bundle "$T/b2"; expect_error USAGE 64   # malformed: not a number
fp capture softmax --gpu -1 --bundle "$T/b2"; expect_error USAGE 64   # a bad number on the command line
fp capture softmax --timeout 0 --bundle "$T/b2"; expect_error BAD_ARGS 78
fp capture layernorm --shape 8,8 --bundle "$T/b2"; expect_error BAD_ARGS 78
fp capture softmax --invocation "FOO='unterminated" --bundle "$T/b2"; expect_error USAGE 64

# BAD_INPUT 65: a malformed recipes registry
printf 'recipes:\n  - name: x\n    test_file: ../../etc/passwd\n' > "$T/bad.yaml"
fp capture softmax --recipes "$T/bad.yaml" --bundle "$T/b3"; expect_error BAD_INPUT 65

# NO_GPU 69: no dispatch and no KFD device node (this machine: no /dev/kfd) - not NO_KERNEL_DISCOVERED
FLYPROF_KFD_DEVICE=$T/no-kfd FAKE_ROCPROF_KERNELS=none fp capture softmax --bundle "$T/b4g"; expect_error NO_GPU 69
[ "$(jget $T/out.json '"no-kfd absent" in d["error"]["message"]')" = True ] || fail "NO_GPU names the node"
# NO_KERNEL_DISCOVERED 66 (a GPU is visible): no dispatch at all; only library kernels; the workload crashed
touch "$T/kfd"; export FLYPROF_KFD_DEVICE=$T/kfd
FAKE_ROCPROF_KERNELS=none fp capture softmax --bundle "$T/b4"; expect_error NO_KERNEL_DISCOVERED 66
[ "$(jget $T/b4/capture.json 'd["status"]')" = failed ] || fail "capture.json status after failure"
FAKE_ROCPROF_KERNELS="rocprim::sort_kernel:5,Cijk_Ailk_Bljk:3" fp capture foo --invocation true --bundle "$T/b5"
expect_error NO_KERNEL_DISCOVERED 66
[ "$(jget $T/out.json 'len(d["error"]["candidates"])')" = 2 ] || fail candidates
fp capture softmax --invocation "sh -c 'exit 3'" --bundle "$T/b6"
FAKE_ROCPROF_KERNELS=none fp capture softmax --invocation "sh -c 'exit 3'" --bundle "$T/b6"
expect_error NO_KERNEL_DISCOVERED 66
[ "$(jget $T/out.json 'd["error"]["exit_code"]')" = 3 ] || fail "exit code in error"
unset FLYPROF_KFD_DEVICE

# DISPATCH_OUT_OF_RANGE 66: softmax ran 12 times
fp capture softmax --iter-range 50 --bundle "$T/b7"; expect_error DISPATCH_OUT_OF_RANGE 66

# TRACE_DECODER_MISSING 69: the real fatal text on stderr
FAKE_ROCPROF_MODE=decoder-missing fp capture softmax --bundle "$T/b8"; expect_error TRACE_DECODER_MISSING 69
grep -q "rocprof-trace-decoder library path not found" "$T/b8/rocprof/big/rocprofv3.stderr.txt" || fail "stderr kept"

# EMPTY_ATT 66: every dispatch an empty shell; the inventory comes with the error
FAKE_ROCPROF_MODE=empty-shells fp capture softmax --bundle "$T/b9"; expect_error EMPTY_ATT 66
[ "$(jget $T/out.json '[e["empty"] for e in d["error"]["inventory"]["big"]]')" = "[True, True]" ] || fail inventory
[ "$(jget $T/b9/capture.json 'd["tags"]["big"]["status"]')" = empty ] || fail "tag status empty"
# a regex that matches nothing in the ATT pass (the kernel is renamed between runs) -> no dir at all
FAKE_ROCPROF_KERNELS="softmax_kernel_0:12" fp capture softmax --iter-range 13-20,12 --bundle "$T/b10"
[ "$RC" = 0 ] || fail "iteration 12 exists: $RC"

# CAPTURE_TIMEOUT 75: a hang in discovery, then in the ATT pass; the group is killed
start=$(date +%s)
FAKE_ROCPROF_HANG=discovery fp capture softmax --timeout 1 --bundle "$T/b11"; expect_error CAPTURE_TIMEOUT 75
FAKE_ROCPROF_HANG=att fp capture softmax --timeout 3 --bundle "$T/b12"; expect_error CAPTURE_TIMEOUT 75
[ $(( $(date +%s) - start )) -lt 25 ] || fail "timeouts took too long"
[ "$(jget $T/b12/capture.json 'd["status"]')" = failed ] || fail "status after timeout"
[ "$(jget $T/b12/capture.json 'd["commands"][-1]["timed_out"]')" = True ] || fail "timed_out recorded"
pgrep -f "rocprofv3 -i $T/b12" >/dev/null && fail "fake rocprofv3 survived the timeout"

# INTERRUPTED 130: SIGINT to flyprof while rocprofv3 hangs; envelope + consistent bundle
FAKE_ROCPROF_HANG=att "$FLYPROF" capture softmax --bundle "$T/b13" -f json > "$T/out.json" 2>/dev/null &
pid=$!
for i in $(seq 1 100); do grep -q '"att:big"' "$T/b13/capture.json" 2>/dev/null && break; \
  [ -f "$T/b13/rocprof/big/input_att.json" ] && break; sleep 0.1; done
sleep 0.5
kill -INT $pid
wait $pid; RC=$?
expect_error INTERRUPTED 130
[ "$(jget $T/b13/capture.json 'd["status"]')" = interrupted ] || fail "status interrupted"
sleep 0.3
pgrep -f "rocprofv3 -i $T/b13" >/dev/null && fail "fake rocprofv3 survived Ctrl-C"
echo ok
