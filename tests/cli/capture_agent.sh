#!/bin/bash
# issue 18 item 5: the traced agent's own agent_info row (CU / XCD / clock, partition
# mode) matched by the kernel trace's Agent_Id, and --gpu relative to the device
# masks the shell already set (Slurm's ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES).
. "$(dirname "$0")/lib/capture_env.sh"

# 1. Done when: a CPX-partitioned MI300X (8 agents of 38 CUs / 1 XCD); --gpu 3 runs on Agent 5,
#    while the first GPU row is Agent 2 (agent_info lists every agent)
FAKE_ROCPROF_ARCH=gfx942 FAKE_ROCPROF_PARTITION=cpx fp capture softmax --gpu 3 --bundle "$T/b1"
[ "$RC" = 0 ] || { cat "$T/out.json"; fail "cpx exit $RC"; }
A=$T/b1/rocprof/big/agent_info.csv
[ "$(grep -c '"GPU"' "$A")" = 8 ] || fail "8 GPU agents listed"
sed -n 4p "$A" | grep -q '^2,2,"GPU"' || fail "first GPU row is node 2"
"$PY" - "$T/b1/capture.json" "$A" <<'PY' || fail "cpx agent"
import csv, json, sys
g = json.load(open(sys.argv[1]))["gpu"]
rows = {r["Logical_Node_Id"]: r for r in csv.DictReader(open(sys.argv[2])) if r["Agent_Type"] == "GPU"}
assert g["agent_id"] == "Agent 5", g          # HIP_VISIBLE_DEVICES=3 -> node 2 + 3
r = rows["5"]
assert g["cu_count"] == int(r["Cu_Count"]) == 38 and g["num_xcc"] == int(r["Num_Xcc"]) == 1, g
assert g["max_engine_clk_mhz"] == int(r["Max_Engine_Clk_Fcompute"]) == 2100, g
assert g["partition"] == "CPX" and g["product"] == "AMD Instinct MI300X", g
PY
[ "$(jget $T/out.json 'any("CPX partition (38 CUs, 1 XCDs)" in w for w in d["warnings"])')" = True ] || fail "cpx warning"
# DPX: 152 CUs, 4 XCDs
FAKE_ROCPROF_ARCH=gfx942 FAKE_ROCPROF_PARTITION=dpx fp capture softmax --bundle "$T/b2"
[ "$(jget $T/b2/capture.json '(d["gpu"]["cu_count"], d["gpu"]["num_xcc"], d["gpu"]["partition"])')" = "(152, 4, 'DPX')" ] \
  || fail "dpx $(jget $T/b2/capture.json 'd["gpu"]')"
# the full device (SPX) is what the product table says; no warning
fp capture softmax --bundle "$T/b3"
[ "$(jget $T/b3/capture.json '(d["gpu"]["cu_count"], d["gpu"]["num_xcc"], d["gpu"]["partition"])')" = "(256, 8, 'SPX')" ] \
  || fail "spx MI350X"
[ "$(jget $T/out.json 'any("partition" in w for w in d["warnings"])')" = False ] || fail "spx warned"

# 1b. the report's launch model takes the agent's CUs from capture.json (38, not the product's 304)
mkdir -p "$T/bin" "$T/dec"; : > "$T/dec/librocprof-trace-decoder.so"
printf '#!/bin/sh\nprintf "Agent 2\\n  Name: gfx942\\n  Marketing Name: AMD Instinct MI300X\\n  Device Type: GPU\\n  Compute Unit: 38\\n"\n' \
  > "$T/bin/rocminfo"; chmod +x "$T/bin/rocminfo"
PATH="$T/bin:$PATH" ROCPROF_ATT_LIBRARY_PATH="$T/dec" FAKE_ROCPROF_GEN_SPEC=$FP_SRC/tests/data/gen/synthetic_gemm.json \
  FAKE_ROCPROF_ARCH=gfx942 FAKE_ROCPROF_PARTITION=cpx fp run softmax --bundle "$T/r1" --shape 4096,8192,bf16 --examples-dir "$T/ex"
[ "$RC" = 0 ] || { cat "$T/out.json"; fail "cpx run exit $RC"; }
[ "$(jget $T/r1/report.json 'd["launch"]["cus"]')" = 38 ] || fail "report launch.cus $(jget $T/r1/report.json 'd["launch"]["cus"]')"
# 1c. the HBM peak of the CPX agent: its memory partition mode is unknown here (no sysfs file), so the
#     device's 5300 GB/s with NPS1 assumed and NPS4's quarter as the low end, said in sol.hbm.peak_source
# the peak checks of 1c and 1d (report.json, counters.json, device GB/s, NPS mode or '')
cat > "$T/peak.py" <<'PY'
import json, sys
r, c = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
dev, nps = float(sys.argv[3]), sys.argv[4]
want = dev / {"": 1, "NPS1": 1, "NPS4": 4}[nps]
h = r["sol"]["hbm"]
assert h["peak_gbs"] == want, h
src = h["peak_source"]
assert ("NPS1 assumed" in src and "NPS4 would give %.0f GB/s" % (dev / 4) in src) if not nps else ("/ 4: NPS4" in src), src
assert c["peak_hbm_gbs"] == want and c["peak_hbm_source"] == src, (c["peak_hbm_gbs"], c["peak_hbm_source"])
# the report's counters block shows the peak its percentage was divided by
assert r["counters"]["peak_hbm_gbs"] == want, r["counters"]
m = c["metrics"]["hbm_pct_of_peak"]
assert abs(m["value"] - round(100 * c["metrics"]["hbm_gbs"]["value"] / want, 1)) <= 0.1, (m, want)
if h["gbs"] is not None and h["source"] == "trace" and not h.get("clamped"):
    assert abs(h["pct_of_peak"] - 100 * h["gbs"] / want) < 0.01, h
PY
"$PY" "$T/peak.py" "$T/r1/report.json" "$T/r1/counters.json" 5300 '' || fail "cpx peak, NPS unknown"
# NPS4 read from the device's sysfs (the agent row's Domain:Location_Id = 0000:75:00.0): a quarter
mkdir -p "$T/pci/0000:75:00.0"; echo NPS4 > "$T/pci/0000:75:00.0/current_memory_partition"
PATH="$T/bin:$PATH" ROCPROF_ATT_LIBRARY_PATH="$T/dec" FAKE_ROCPROF_GEN_SPEC=$FP_SRC/tests/data/gen/synthetic_gemm.json \
  FLYPROF_SYSFS_PCI="$T/pci" FAKE_ROCPROF_ARCH=gfx942 FAKE_ROCPROF_PARTITION=cpx \
  fp run softmax --bundle "$T/r3" --shape 4096,8192,bf16 --examples-dir "$T/ex3"
[ "$RC" = 0 ] || { cat "$T/out.json"; fail "cpx nps4 run exit $RC"; }
[ "$(jget $T/r3/capture.json 'd["gpu"]["memory_partition"]')" = NPS4 ] || fail "capture memory_partition"
"$PY" "$T/peak.py" "$T/r3/report.json" "$T/r3/counters.json" 5300 NPS4 || fail "cpx peak, NPS4"
# the decoder's "Data Lost" (bandwidth) lowers the report's capture quality with its reason
PATH="$T/bin:$PATH" ROCPROF_ATT_LIBRARY_PATH="$T/dec" FAKE_ROCPROF_GEN_SPEC=$FP_SRC/tests/data/gen/synthetic_gemm.json \
  FAKE_ROCPROF_ARCH=gfx942 FAKE_ROCPROF_MODE=data-lost fp run softmax --bundle "$T/r2" --shape 4096,8192,bf16 --examples-dir "$T/ex2"
[ "$RC" = 0 ] || fail "data-lost run exit $RC"
grep -q "reported Data Lost (packets dropped for bandwidth" "$T/r2/report.json" || fail "report quality reason"
# an SPX device keeps the product's peak and no peak_source (outputs of unpartitioned devices do not move)
[ "$(jget $T/r2/report.json '("peak_source" in d["sol"]["hbm"], d["sol"]["hbm"]["peak_gbs"])')" = "(False, 5300)" ] \
  || fail "spx peak $(jget $T/r2/report.json 'd["sol"]["hbm"]')"

# 2. --gpu under Slurm: ROCR_VISIBLE_DEVICES filters below HIP, so HIP_VISIBLE_DEVICES=1 = its 2nd entry
ROCR_VISIBLE_DEVICES=4,5,6,7 fp capture softmax --gpu 1 --bundle "$T/b4"
[ "$RC" = 0 ] || fail "rocr exit $RC"
[ "$(jget $T/b4/capture.json '(d["gpu"]["index"], d["gpu"]["physical_index"], d["gpu"]["visible_devices"])')" = "(1, 5, 'ROCR_VISIBLE_DEVICES=4,5,6,7')" ] \
  || fail "rocr mapping $(jget $T/b4/capture.json 'd["gpu"]')"
# an inherited HIP_VISIBLE_DEVICES: --gpu 1 is its 2nd entry, not device 1
rm -f "$FAKE_ROCPROF_LOG"
HIP_VISIBLE_DEVICES=2,3 fp capture softmax --gpu 1 --bundle "$T/b5"
[ "$RC" = 0 ] || fail "hip exit $RC"
"$PY" -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; assert r and all(x['env']['HIP_VISIBLE_DEVICES']=='3' for x in r), r" \
  "$FAKE_ROCPROF_LOG" || fail "HIP_VISIBLE_DEVICES passed"
[ "$(jget $T/b5/capture.json 'd["gpu"]["physical_index"]')" = 3 ] || fail "hip physical"
# out of range: a typed error before anything runs
ROCR_VISIBLE_DEVICES=4,5 fp capture softmax --gpu 2 --bundle "$T/b6"
expect_error BAD_ARGS 78
[ ! -e "$T/b6" ] || fail "bundle created for a bad --gpu"
HIP_VISIBLE_DEVICES=0 fp capture softmax --gpu 1 --bundle "$T/b7"
expect_error BAD_ARGS 78
echo ok
