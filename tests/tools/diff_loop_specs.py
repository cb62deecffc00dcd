#!/usr/bin/env python3
"""diff_loop_specs.py OUTDIR - generator specs (docs/generator.md) of one small loop kernel
in the variants tests/cli/diff_explain.sh compares: the same code recaptured with its
source lines moved and other waves traced (5 -> 3/5 iterations), the same code slower
(memory latency 800 -> 1000), two 2-wave captures with a large jitter whose spread hides
a small change (an operand changed), and the code with one instruction inserted. Every
variant has the same kernel_trace.csv, as the corpus flash_attn pair has."""
import json, sys
def spec(pid, shift=0, waves=((5,1000),)*4, flat=800, jitter=200, imm=64, extra=False):
    L = lambda n, moves=True: "/synthetic/kernels/loopk.py:%d" % (n + (shift if moves else 0))
    prog = [
        ["s_load_dwordx4 s[0:3], s[4:5], 0x0", L(10, False)],
        ["s_waitcnt lgkmcnt(0)", L(10, False)],
        ["v_mov_b32_e32 v10, 0", L(11)],
        ["global_load_dwordx4 v[0:3], v10, s[0:1]", L(13)],
        ["s_waitcnt vmcnt(0)", L(14)],
        ["v_add_f32_e32 v4, v0, v4", L(14)],
        ["v_add_u32_e32 v10, %d, v10" % imm, L(12)],
        ["s_sub_u32 s8, s8, 1", L(12)],
        ["s_cmp_lg_u32 s8, 0", L(12)],
        ["s_cbranch_scc1 -8", L(12)],
        ["global_store_dwordx4 v10, v[4:7], s[2:3]", L(15)],
        ["s_endpgm", L(16)],
    ]
    if extra:
        prog.insert(2, ["v_mov_b32_e32 v11, 0", L(11)])
    prog = [{"isa": i, "source": s} for i, s in prog]
    o = 1 if extra else 0
    ws = []
    for k, (rep, begin) in enumerate(waves):
        path = [1, 2, 3] + ([4] if extra else []) + [{"repeat": rep, "body": [x + o for x in range(4, 11)]}, 11 + o, 12 + o]
        ws.append({"se": k // 4, "simd": k % 4, "slot": 0, "id": 0, "begin": begin, "path": path})
    src = ["# synthetic loop kernel for flyprof diff tests"] + [""] * 8 + ["@fx.kernel", "def loopk(a, out, n):",
           "    off = 0", "    for i in range(n):", "        x = a.load(off)", "        acc = acc + x", "    out.store(off, acc)", "    return", "", ""]
    return {"symbol": "loopk_kernel_0", "pid": pid, "dispatch": 3, "arch": "gfx950", "layout": "corpus",
            "program": prog, "model": {"latency": {"FLAT": flat, "SMEM": 200}, "start_idle": 32, "jump_gap": 16, "jitter": jitter},
            "sources": {"/synthetic/kernels/loopk.py": src}, "waves": ws,
            "rocprof": {"vgpr": 32, "accum_vgpr": 0, "sgpr": 32, "lds": 0, "scratch": 0, "workgroup": [256, 1, 1],
                        "grid": [65536, 1, 1], "thread_id": 4242, "calls": [{"dispatch": 1, "start": 2000000000000, "end": 2000000020000}]}}
four = tuple((5, 1000 + 100 * k) for k in range(4))
cases = {
    "base": spec(800, waves=four),
    "moved": spec(801, shift=1, waves=tuple((3 if k < 4 else 5, 1000 + 100 * k) for k in range(8))),
    "slow": spec(802, waves=four, flat=1000),
    "wide_a": spec(803, waves=((5, 1000), (5, 1100)), jitter=3000),
    "wide_b": spec(804, waves=((5, 1000), (5, 1100)), jitter=3000, imm=128, flat=820),
    "extra": spec(805, waves=four, extra=True),
}
for name, s in cases.items():
    json.dump(s, open(sys.argv[1] + "/" + name + ".json", "w"))
