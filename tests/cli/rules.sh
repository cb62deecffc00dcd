#!/bin/bash
# rules: the table as data (the prototype's ten rules and the new ones), and
# skills/references/bubble-knob-table.md is exactly `flyprof rules -f table --markdown`
# (regenerate with: flyprof rules -f table --markdown > skills/references/bubble-knob-table.md).
set -u
: "${FLYPROF:?}" "${FP_SRC:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$FLYPROF" rules -f table --markdown > "$T/table.md" || fail "rules -f table --markdown"
diff -u "$FP_SRC/skills/references/bubble-knob-table.md" "$T/table.md" > "$T/drift.txt" ||
    { cat "$T/drift.txt" >&2; fail "bubble-knob-table.md drifted from the rules table: regenerate it"; }

"$FLYPROF" rules -f json > "$T/env.json"; rc=$?
[ $rc -eq 0 ] || fail "rules exit $rc"
python3 - "$T/env.json" <<'PY' || fail "rules data"
import json, sys
d = json.load(open(sys.argv[1]))["data"]
ids = [r["id"] for r in d["rules"]]
need = ["grid_fill", "hbm_roof_bytes", "hbm_ceiling", "smem_wait", "vmem_prefetch", "vmem_queue_depth", "lds_write_read_distance", "lds_bank_conflict", "mfma_raw",
        "barrier_relax", "occupancy_vgpr", "vectorize_copy", "mma_select", "layout_l2",
        "scratch_spill", "mfma_hazard_nop", "valu_hazard_nop", "load_use_distance", "wave_quantization", "work_imbalance", "crosslane_shuffle",
        "vectorize_global"]
assert ids == need, ids
assert d["count"] == len(ids)
for r in d["rules"]:
    for k in ("bubble_class", "fires_when", "bound_gate", "knob", "api", "change", "expected", "acceptance"):
        assert r[k], (r["id"], k)
gate = {r["id"]: r["bound_gate"] for r in d["rules"]}
assert gate["vmem_prefetch"] == "memory|latency" and gate["mma_select"] == "compute" and gate["barrier_relax"] == "any"
assert gate["grid_fill"] == "any" and gate["hbm_roof_bytes"] == "memory" and gate["hbm_ceiling"] == "memory"
sig = {r["id"]: r["signal"] for r in d["rules"]}
# issue 9: class rules read the waits attributed to their producer kind, not the whole counter
assert sig["lds_write_read_distance"] == "waits.lgkmcnt_on_lds_pct", sig
assert sig["vmem_prefetch"] == "waits.vmcnt_on_global_pct", sig
assert sig["smem_wait"] == "waits.lgkmcnt_on_smem_pct", sig
assert sig["grid_fill"] == "launch.simd_fill_pct", sig  # issue 17: the SIMDs, not the CUs
assert sig["wave_quantization"] == "launch.tail_efficiency_pct", sig
# issue 17: shuffles, VALU-hazard s_nop and narrow accesses are their own signals
assert sig["crosslane_shuffle"] == "waits.lgkmcnt_on_crosslane_pct", sig
assert sig["valu_hazard_nop"] == "trace.valu_nop_pct", sig
assert sig["vectorize_global"] == "isa.narrow_global_per_wave", sig
prod = {r["id"]: r["producers"] for r in d["rules"]}
assert prod["crosslane_shuffle"] == "crosslane" and prod["smem_wait"] == "smem", prod
PY
"$FLYPROF" rules extra -f json > /dev/null; rc=$?
[ $rc -eq 64 ] || fail "positional exit $rc"
echo ok
