#!/usr/bin/env python3
"""gen_scale_spec.py WAVES [OUT.json] - a fp_gen_att spec for scaling runs.

WAVES simulated waves of one streaming loop (~19 KB of wave file each, like the
1 GB case of issue 10: 54k files, none over 20 KB), spread over 8 SEs x 4 SIMDs
x 4 slots on CU 1; each slot runs its waves back to back, so at any moment at
most 4 waves of an (SE, SIMD) group are resident while a group holds WAVES/32
waves over the whole trace. Used by tests/cli/bubbles_scale.sh and bench/.
"""
import json
import sys

n = int(sys.argv[1])
src = "/synthetic/kernels/scale.py"
program = [
    {"isa": "s_load_dwordx4 s[0:3], s[4:5], 0x0", "source": src + ":10"},
    {"isa": "s_waitcnt lgkmcnt(0)", "source": src + ":10"},
    {"isa": "v_mov_b32_e32 v10, 0", "source": src + ":11"},
    {"isa": "global_load_dwordx4 v[0:3], v10, s[0:1]", "source": src + ":13"},
    {"isa": "v_add_u32_e32 v11, 64, v10", "source": src + ":13"},
    {"isa": "global_load_dwordx4 v[4:7], v11, s[0:1]", "source": src + ":13"},
    {"isa": "s_waitcnt vmcnt(1)", "source": src + ":14"},
    {"isa": "v_add_f32_e32 v20, v0, v20", "source": src + ":14"},
    {"isa": "s_waitcnt vmcnt(0)", "source": src + ":14"},
    {"isa": "v_add_f32_e32 v21, v4, v21", "source": src + ":14"},
    {"isa": "v_add_u32_e32 v10, 128, v10", "source": src + ":12"},
    {"isa": "s_sub_u32 s8, s8, 1", "source": src + ":12"},
    {"isa": "s_cmp_lg_u32 s8, 0", "source": src + ":12"},
    {"isa": "s_cbranch_scc1 -10", "source": src + ":12"},
    {"isa": "global_store_dwordx4 v10, v[20:23], s[2:3]", "source": src + ":15"},
    {"isa": "s_endpgm", "source": src + ":16"},
]
path = [1, 2, 3, {"repeat": 80, "body": list(range(4, 15))}, 15, 16]
waves = []
per_group = {}
SES, SIMDS, SLOTS = 8, 4, 4
PERIOD = 60000  # > one wave's duration: a slot's waves do not overlap
for i in range(n):
    se = i % SES
    simd = (i // SES) % SIMDS
    slot = (i // (SES * SIMDS)) % SLOTS
    k = i // (SES * SIMDS * SLOTS)
    waves.append({"se": se, "simd": simd, "slot": slot, "id": k, "cu": 1,
                  "begin": 1000 + k * PERIOD + slot * 1000 + simd * 8})
spec = {"symbol": "scale_kernel_0", "pid": 900, "dispatch": 1, "arch": "gfx950", "program": program,
        "path": path, "waves": waves, "model": {"jitter": 64},
        "sources": {src: ["# scale"] * 16}}
out = open(sys.argv[2], "w") if len(sys.argv) > 2 else sys.stdout
json.dump(spec, out)
