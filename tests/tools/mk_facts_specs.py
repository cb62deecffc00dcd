#!/usr/bin/env python3
# Regenerate with: python3 tests/tools/mk_facts_specs.py (from the source root).
# writes tests/data/gen/facts_*.json: the issue-23 synthetic cases (docs/generator.md,
# tests/cli/facts_launch.sh): a CSV row that is another launch of the kernel vs one that
# matches the trace, an early-exit back-edge, a spin-wait, one heavy wave among many.
import json
SRC = "/synthetic/kernels/facts.py"
def P(isa, line, **kw):
    e = {"isa": isa, "source": f"{SRC}:{line}", "size": 4}
    e.update(kw)
    return e
def spec(symbol, program, path, waves, grid, ns=20000, extra=None):
    s = {"symbol": symbol, "pid": 901, "dispatch": 7, "arch": "gfx950", "layout": "corpus",
         "program": program, "sources": {SRC: [f"# line {i}" for i in range(1, 80)]},
         "model": {"latency": {"FLAT": 800, "VMEM": 800, "SMEM": 200, "LDS": 64}, "start_idle": 32, "jump_gap": 16},
         "path": path, "waves": waves,
         "rocprof": {"vgpr": 32, "accum_vgpr": 0, "sgpr": 32, "lds": 0, "scratch": 0,
                     "workgroup": [256, 1, 1], "grid": [grid, 1, 1],
                     "calls": [{"dispatch": 1, "start": 2000000000000, "end": 2000000000000 + ns}]}}
    s.update(extra or {})
    return s
out = {}
stream = [P("s_load_dwordx4 s[0:3], s[4:5], 0x0", 10), P("s_waitcnt lgkmcnt(0)", 10),
          P("global_load_dwordx4 v[0:3], v10, s[0:1]", 12), P("s_waitcnt vmcnt(0)", 13),
          P("v_add_f32_e32 v4, v0, v4", 13), P("global_store_dwordx4 v10, v[4:7], s[2:3]", 14), P("s_endpgm", 15)]
spath = [1, 2, 3, 4, 5, 6, 7]
# 1. the CSV's launch vs the trace's: one workgroup of 4 waves on CU 1 of SE 0 and of SE 1, each mirrored on
# CU 2 (real occupancy.json covers every CU of a traced SE): the traced XCD (SEs 0-3 of the MI350X's 4 per
# XCD) ran 16 waves = 4 workgroups, so the dispatch has 25..39 workgroups (round-robin over 8 XCDs), 32 by
# scaling. A 16384-workgroup CSV row is another launch; a 32-workgroup one is this dispatch.
wg = [{"se": se, "simd": k, "slot": 0, "id": se * 4 + k, "cu": 1, "begin": 1000} for se in (0, 1) for k in range(4)]
xcd = {"traced_ses": [0, 1, 2, 3], "occupancy_mirror_cus": [2]}
out["facts_csv_other"] = spec("facts_csv_other_0", stream, spath, wg, 16384 * 256, extra=xcd)
out["facts_csv_match"] = spec("facts_csv_match_0", stream, spath, wg, 32 * 256, extra=xcd)
# 2. an early exit: row 7 branches back to the s_endpgm at row 4 (never taken, 0 hits); not a loop
exitprog = [P("s_load_dwordx4 s[0:3], s[4:5], 0x0", 10), P("s_waitcnt lgkmcnt(0)", 10),
            P("s_branch 1", 11),                               # row 3 -> row 5
            P("s_endpgm", 12),                                 # row 4: the exit block
            P("v_add_f32_e32 v4, v0, v4", 13), P("s_cmp_eq_u32 s6, 0", 14),
            P("s_cbranch_scc1 %d" % (4 - 7 - 1), 14),          # row 7 -> row 4
            P("global_store_dwordx4 v10, v[4:7], s[2:3]", 15), P("s_endpgm", 16)]
w4 = [{"se": i % 2, "simd": (i // 2) % 4, "slot": 0, "id": i, "begin": 1000 + 100 * i} for i in range(4)]
out["facts_early_exit"] = spec("facts_early_exit_0", exitprog, [1, 2, 3, 5, 6, 7, 8, 9], w4, 16384 * 256)
# 3. a split-K style spin-wait: rows 3-6 poll a flag (load, wait, compare, branch back to 3); wave 0 polls
# 4 times (3 taken), the others find it set at once
spin = [P("s_load_dwordx4 s[0:3], s[4:5], 0x0", 10), P("s_waitcnt lgkmcnt(0)", 10),
        P("global_load_dword v1, v10, s[0:1] glc", 20), P("s_waitcnt vmcnt(0)", 20),
        P("v_cmp_eq_u32_e32 vcc, 0, v1", 21), P("s_cbranch_vccnz %d" % (3 - 6 - 1), 21),   # row 6 -> row 3
        P("v_add_f32_e32 v4, v0, v4", 30), P("global_store_dwordx4 v10, v[4:7], s[2:3]", 31), P("s_endpgm", 32)]
ws = [dict(w, path=[1, 2] + [3, 4, 5, 6] * (4 if w["id"] == 0 else 1) + [7, 8, 9]) for w in w4]
out["facts_spin_wait"] = spec("facts_spin_wait_0", spin, None, ws, 16384 * 256)
# 4. one heavy wave among many: 16 waves on SE 0 run the loop body (rows 3-8) twice, wave 5 forty times
loop = [P("s_load_dwordx4 s[0:3], s[4:5], 0x0", 10), P("s_waitcnt lgkmcnt(0)", 10),
        P("global_load_dwordx4 v[0:3], v10, s[0:1]", 20), P("s_waitcnt vmcnt(0)", 21),
        P("v_add_f32_e32 v4, v0, v4", 22), P("s_sub_u32 s8, s8, 1", 23), P("s_cmp_lg_u32 s8, 0", 23),
        P("s_cbranch_scc1 %d" % (3 - 8 - 1), 23),                                            # row 8 -> row 3
        P("global_store_dwordx4 v10, v[4:7], s[2:3]", 24), P("s_endpgm", 25)]
wh = [{"se": 0, "simd": i % 4, "slot": i // 4, "id": i, "begin": 1000 + 8 * i,
       "path": [1, 2, {"repeat": 40 if i == 5 else 2, "body": [3, 4, 5, 6, 7, 8]}, 9, 10]} for i in range(16)]
out["facts_heavy_wave"] = spec("facts_heavy_wave_0", loop, None, wh, 16384 * 256)
for k, v in out.items():
    if v["path"] is None:
        del v["path"]
    with open(f"tests/data/gen/{k}.json", "w") as f:
        json.dump(v, f, indent=1)
        f.write("\n")
print(" ".join(out))
