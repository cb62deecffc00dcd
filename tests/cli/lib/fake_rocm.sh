# A machine that looks like ROCm to `flyprof run` (sourced after capture_env.sh):
# a decoder library where ROCPROF_ATT_LIBRARY_PATH points, a scripted rocminfo
# (one MI350X), the fake rocprofv3's ATT from the synthetic GEMM spec, and a
# tests/kernels/test_rmsnorm.py in the fake worktree.
mkdir -p "$T/bin" "$T/dec"
: > "$T/dec/librocprof-trace-decoder.so"
printf '#!/bin/sh\nprintf "Agent 2\\n  Name: gfx950\\n  Marketing Name: AMD Instinct MI350X\\n  Device Type: GPU\\n  Compute Unit: 256\\n"\n' \
  > "$T/bin/rocminfo"
chmod +x "$T/bin/rocminfo"
echo 'print("rmsnorm")' > "$WT/tests/kernels/test_rmsnorm.py"
export PATH="$T/bin:$PATH" ROCPROF_ATT_LIBRARY_PATH="$T/dec"
export FAKE_ROCPROF_GEN_SPEC=$FP_SRC/tests/data/gen/synthetic_gemm.json
export FAKE_ROCPROF_KERNELS="softmax_kernel_0:12:30000:96,rmsnorm_kernel_0:12:20000:96"
