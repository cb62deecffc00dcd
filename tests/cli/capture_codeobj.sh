#!/bin/bash
# issue 18 item 4: registers and LDS from the code object rocprofv3 writes next to
# the ATT output (a real AMDGPU ELF the build compiled from tests/data/codeobj/regs.cl),
# the kernel trace a cross-check. The expected values come from llvm-readelf-19's
# own reading of the note (independent of flyprof's libelf/msgpack-c reader).
. "$(dirname "$0")/lib/capture_env.sh"
CO=$FP_TOOLS/codeobj
[ -f "$CO/regs_gfx950.co" ] && command -v llvm-readelf-19 >/dev/null || { echo "no clang-19/llvm-19: skipped"; exit 77; }

# llvm-readelf-19's YAML of the note -> {kernel: {key: value}} for the check
notes() { llvm-readelf-19 --notes "$1" | "$PY" -c '
import sys, json, re
ks = []
for l in sys.stdin:
    # a kernel map is "  - .key: v" then "    .key: v"; deeper lines are .args entries
    m = re.match(r"^(  - |    )\.(\w+):\s+(\S+)$", l)
    if not m: continue
    lead, k, v = m.groups()
    if lead == "  - ": ks.append({})
    ks[-1][k] = int(v) if v.isdigit() else v
print(json.dumps({d["name"]: d for d in ks if "name" in d}))'; }
notes "$CO/regs_gfx950.co" > "$T/ref950.json"
jget "$T/ref950.json" 'd["softmax_kernel_0"]["vgpr_count"]' | grep -qx 96 || fail "reference note"

check() { # BUNDLE REF ARCH
  "$PY" - "$1/capture.json" "$2" "$3" <<'PY' || fail "registers of $1"
import json, sys
c = json.load(open(sys.argv[1])); ref = json.load(open(sys.argv[2]))["softmax_kernel_0"]
t = c["tags"]["big"]
r, co = t["registers"], t["registers"]["code_object"]
assert r["source"] == "code object", r["source"]
assert co["arch"] == sys.argv[3] and co["path"].startswith("att/big/out_") and co["path"].endswith("_code_object_id_1.out"), co
for k in ("vgpr_count", "agpr_count", "sgpr_count", "group_segment_fixed_size", "private_segment_fixed_size", "wavefront_size"):
    assert co[k] == ref[k], (k, co[k], ref[k])
assert co["symbol"] == ref["symbol"], co
# what occupancy believes: arch = unified total - AGPRs, AGPRs, the total, LDS from the note
assert r["vgpr_count"] == ref["vgpr_count"] - ref["agpr_count"] and r["accum_vgpr_count"] == ref["agpr_count"], r
assert r["total_vgpr"] == ref["vgpr_count"] and r["sgpr_count"] == ref["sgpr_count"], r
# LDS: the static segment of the note, or the dispatch's LDS_Block_Size when larger (dynamic LDS)
import csv, os
row = next(x for x in csv.DictReader(open(os.path.dirname(sys.argv[1]) + "/rocprof/big/kernel_trace.csv"))
           if x["Kernel_Name"] == "softmax_kernel_0")
assert r["lds_bytes"] == max(ref["group_segment_fixed_size"], int(row["LDS_Block_Size"])), r
assert r["gfx950_undercount_corrected"] is False, r
# occupancy, recomputed here: 512 VGPRs/SIMD lane in granules of 8, LDS per CU 160 KiB (gfx950) / 64 KiB
vgpr_limit = 512 // (-(-ref["vgpr_count"] // 8) * 8)
lds_cu = 160 * 1024 if sys.argv[3] == "gfx950" else 64 * 1024
waves_per_wg = -(-r["workgroup_size"] // 64)
lds_limit = (lds_cu // r["lds_bytes"]) * waves_per_wg // 4
assert r["waves_per_simd"] == min(8, vgpr_limit, lds_limit), (r["waves_per_simd"], vgpr_limit, lds_limit)
assert t["arch_vgpr"] == r["vgpr_count"] and t["accum_vgpr"] == ref["agpr_count"], (t["arch_vgpr"], t["accum_vgpr"])
PY
}

# 1. Done when: the fake's gfx950 7.0-style CSV (VGPR_Count half, accum 0) - the counts come from the code object
FAKE_ROCPROF_VERSION=1.0.0 FAKE_ROCPROF_CODE_OBJECT=$CO/regs_gfx950.co fp capture softmax --bundle "$T/b1"
[ "$RC" = 0 ] || { cat "$T/out.json"; fail "capture exit $RC"; }
check "$T/b1" "$T/ref950.json" gfx950
[ "$(jget $T/b1/capture.json '"under-count" in d["tags"]["big"]["registers"]["cross_check"][0]')" = True ] || fail "cross_check"
[ "$(jget $T/out.json 'any("VGPR_Count 48 / Accum_VGPR_Count 0 in the kernel trace, 88 arch + 8 AGPR" in w for w in d["warnings"])')" = True ] \
  || fail "disagreement warning"

# 2. a release that says SDK 1.3.0 but still under-counts (ROCm 7.2.4): the version switch
#    would believe 48; the code object says 96
FAKE_ROCPROF_VERSION=1.3.0 FAKE_ROCPROF_MODE=undercount FAKE_ROCPROF_CODE_OBJECT=$CO/regs_gfx950.co \
  fp capture softmax --bundle "$T/b2"
[ "$RC" = 0 ] || fail "1.3.0 exit $RC"
check "$T/b2" "$T/ref950.json" gfx950
FAKE_ROCPROF_VERSION=1.3.0 FAKE_ROCPROF_MODE=undercount fp capture softmax --bundle "$T/b2n"
[ "$(jget $T/b2n/capture.json 'd["tags"]["big"]["registers"]["total_vgpr"]')" = 48 ] \
  || fail "without a code object the 7.2.4 CSV is believed (the case the code object fixes)"

# 3. gfx942 (MI300X) and gfx90a objects
notes "$CO/regs_gfx942.co" > "$T/ref942.json"
FAKE_ROCPROF_ARCH=gfx942 FAKE_ROCPROF_CODE_OBJECT=$CO/regs_gfx942.co fp capture softmax --bundle "$T/b3"
check "$T/b3" "$T/ref942.json" gfx942
notes "$CO/regs_gfx90a.co" > "$T/ref90a.json"
[ "$(jget $T/ref90a.json 'd["softmax_kernel_0"]["sgpr_count"] != 47')" = True ] || fail "gfx90a differs from gfx942"
FAKE_ROCPROF_ARCH=gfx942 FAKE_ROCPROF_CODE_OBJECT=$CO/regs_gfx90a.co fp capture softmax --bundle "$T/b4"
check "$T/b4" "$T/ref90a.json" gfx90a

# 4. a hostile code object: skipped with a warning, the kernel trace is used
# (e_shoff pointed past the end: libelf refuses it; the kernel's name is still in the bytes)
"$PY" -c "import sys,struct; b=bytearray(open(sys.argv[1],'rb').read()); struct.pack_into('<Q',b,0x28,1<<40); open(sys.argv[2],'wb').write(b)" \
  "$CO/regs_gfx942.co" "$T/broken.co"
FAKE_ROCPROF_CODE_OBJECT=$T/broken.co fp capture softmax --bundle "$T/b5"
[ "$RC" = 0 ] || fail "broken co exit $RC"
[ "$(jget $T/b5/capture.json 'd["tags"]["big"]["registers"]["source"]')" = "att kernel trace" ] || fail "fallback"
[ "$(jget $T/out.json 'any("not valid AMDGPU code objects" in w for w in d["warnings"])')" = True ] || fail "bad co warning"
# 5. a code object that does not hold the kernel (a library's): not parsed, no warning, the kernel trace used
"$PY" -c "import sys; b=open(sys.argv[1],'rb').read().replace(b'softmax_kernel_0', b'other_kernel_000'); open(sys.argv[2],'wb').write(b)" \
  "$CO/regs_gfx942.co" "$T/other.co"
FAKE_ROCPROF_CODE_OBJECT=$T/other.co fp capture softmax --bundle "$T/b6"
[ "$(jget $T/b6/capture.json 'd["tags"]["big"]["registers"]["source"]')" = "att kernel trace" ] || fail "library co"
[ "$(jget $T/out.json 'any("code object" in w for w in d["warnings"])')" = False ] || fail "library co warned"
echo ok
