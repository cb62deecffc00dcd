#!/bin/bash
# Speed-of-light facts of issue 23 (items 3, 4) on every corpus case, computed here independently
# of flyprof from code.json and the wave files: the requested HBM bytes, the unique bytes (loads whose
# address does not depend on the workgroup id counted once per dispatch), their ratio in the printed %
# of peak, and the MFMA pipe busy % from the measured per-opcode issue cycles (docs/sol.md).
#
# Reasoning per case (which loads are shared, read off the ISA by hand):
#  layernorm-big  rows 251 253 255 256 377 378 390 391: buffer_load_dwordx4 of gamma / beta, vaddr
#                 from v0 (the lane id: v68 = v0 << 4, v34 = v0 << 3) and srsrc s[8:11] / s[12:15]
#                 built from kernel arguments (s_load ... s[0:1], 0x18 / 0x28); the x loads (rows
#                 10-17) add s3 = s2 * row stride, s2 = workgroup id x.
#  moe_gemm-big   row 8: buffer_load_dword v1, off, s[12:15], 0 - the token count, at a kernel-argument
#                 address (s_load s[12:13], s[0:1], 0xa8) with no vaddr.
#  all others     every load's address involves the workgroup id (GEMM/attention tiles, row offsets,
#                 page tables), so unique = requested.
# MFMA cycles (gfx950, measured issue spacing, tests/conformance/opcost.sh): 16x16x32 bf16 16,
# 32x32x16 bf16 32, CDNA3-encoded 16x16x32 fp8 16, scaled 16x16x128 f8f6f4 16 with fp4 on both sides
# (cbsz/blgp 4) and 32 with fp8.
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
n=0
while IFS=$'\t' read -r id _set _kernel _variant dispatch _rest; do
    [ "$id" = id ] && continue
    d="$C/$id/att/$dispatch"
    "$FLYPROF" report --bundle "$d" --out-dir "$T/$id" -q -f json > /dev/null || fail "$id: report exit $?"
    python3 - "$id" "$d" "$T/$id/report.json" <<'PY' || fail "$id: sol facts"
import glob, json, os, re, sys
case, d, rep = sys.argv[1:4]
SHARED = {"layernorm-big": {251, 253, 255, 256, 377, 378, 390, 391}, "moe_gemm-big": {8}}
MFMA = {"v_mfma_f32_16x16x32_bf16": 16, "v_mfma_f32_32x32x16_bf16": 32, "v_mfma_f32_16x16x32_fp8_fp8": 16}
WIDTH = [("dwordx4", 16), ("dwordx3", 12), ("dwordx2", 8), ("dword", 4), ("short", 2), ("byte", 1)]
code = json.load(open(os.path.join(d, "code.json")))["code"]
waves = [json.load(open(f))["wave"] for f in glob.glob(os.path.join(d, "se*_sm*_sl*_wv*.json"))]
req = shared = mfma = 0.0
for isa, _, line, _, _, _, hit, *_ in code:
    op = isa.split()[0] if isa.split() else ""
    if op.startswith(("buffer_", "global_", "flat_")) and ("load" in op or "store" in op or "atomic" in op):
        w = next(b for t, b in WIDTH if t in op)
        req += w * 64 * hit
        if line in SHARED.get(case, ()):
            assert "load" in op, (line, isa)
            shared += w * 64 * hit
    if op.startswith("v_mfma"):
        if op == "v_mfma_scale_f32_16x16x128_f8f6f4":
            cyc = 16 if ("cbsz:4" in isa and "blgp:4" in isa) else 32
        else:
            cyc = MFMA[op]
        mfma += cyc * hit
span = {}
for f, w in zip(glob.glob(os.path.join(d, "se*_sm*_sl*_wv*.json")), waves):
    k = (re.match(r"se(\d+)_", os.path.basename(f)).group(1), w["cu"], w["simd"])
    b, e = span.get(k, (w["begin"], w["end"]))
    span[k] = (min(b, w["begin"]), max(e, w["end"]))
span_total = sum(e - b for b, e in span.values())
r = json.load(open(rep))
L, S = r["launch"], r["sol"]
errs = []
busy = round(100 * mfma / span_total, 2)
if abs(S["mfma"]["busy_pct"] - busy) > 0.011:
    errs.append(f"MFMA busy {S['mfma']['busy_pct']} != {busy}")
traced = len(waves)
h = S["hbm"]["trace"]
want_req = round(req * L["grid_waves"] / traced)
want_uni = round((req - shared) * L["grid_waves"] / traced + shared * L["wg_waves"] / traced)
if abs(h["bytes_per_dispatch"] - want_req) > 1:
    errs.append(f"requested {h['bytes_per_dispatch']} != {want_req}")
if abs(h["unique_bytes_per_dispatch"] - want_uni) > 1:
    errs.append(f"unique {h['unique_bytes_per_dispatch']} != {want_uni}")
# the printed % of peak is the unique one, the requested % the bound; the time cancels in their ratio
ratio = want_uni / want_req
if abs(S["hbm"]["pct_of_peak"] - min(100.0, h["pct_of_peak"] * ratio)) > 0.02:
    errs.append(f"pct_of_peak {S['hbm']['pct_of_peak']} != {h['pct_of_peak']} x {ratio:.4f}")
if S["hbm"]["pct_of_peak"] > 100 or S["hbm"]["clamped"] != (h["pct_of_peak"] * ratio > 100):
    errs.append("pct_of_peak above 100 or clamped flag wrong")
print(f"{case}: requested {h['pct_of_peak']} % unique {S['hbm']['pct_of_peak']} % mfma busy {busy} %")
if errs:
    print("\n".join(errs), file=sys.stderr)
    sys.exit(1)
PY
    n=$((n + 1))
done < "$C/cases.tsv"
[ "$n" -ge 13 ] || fail "only $n corpus cases checked"
echo "ok: $n cases"
