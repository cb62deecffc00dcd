#!/bin/bash
# Issue 9 rules on synthetic traces: every rule and verdict has a positive and a negative
# generator spec (tests/data/gen/diag_*.json, written by tests/tools/mk_diag_specs.py) and
# `report` must tell them apart:
#   grid_fill / parallelism      diag_grid_under  vs diag_grid_full (occupancy advice only where the grid can use it)
#   representativeness           diag_prologue    vs diag_loop_ran
#   lgkmcnt producer attribution diag_smem_wait   vs diag_lds_wait
#   s_nop toward MFMA            diag_nop_mfma    vs diag_nop_valu
#   drain class                  diag_drain       vs diag_no_drain
#   HBM roof verdict             diag_roof        vs diag_below_roof
# and issue 17's:
#   kernel-argument wait          diag_smem_wait (entry, unavoidable) vs diag_smem_mid (hoistable)
#   cross-lane shuffles           diag_xlane       vs diag_lds_wait
#   VALU-hazard s_nop             diag_nop_valu    vs diag_nop_mfma
#   vectorize_global              diag_narrow      vs diag_wide
#   debug-info gate               diag_entry_line  vs diag_plain_line
#   no latency hiding AT the ceiling diag_at_ceiling vs diag_roof (below it: capped by the distance to it)
#   hbm_ceiling (same bytes faster) diag_roof     vs diag_at_ceiling / diag_below_roof
#   hbm_roof_bytes (a rate)       diag_roof, diag_at_ceiling vs diag_below_roof
#   priority = gain x confidence  every recommendation of every case
#   null gain when not representative diag_not_repr vs diag_plain_line
#   wave_quantization             diag_quant_tail  vs diag_quant_even
#   grid_fill under the HBM floor diag_grid_hbm    vs diag_grid_under
#   work_imbalance                diag_imbalance   vs diag_balanced (the critical CU's busy time vs the mean CU's)
set -u
: "${FLYPROF:?}"
: "${FP_TOOLS:?}"
: "${FP_SRC:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# run SPEC [RC]: report must exit RC (0 by default; 66 = no rule fired)
run() {
    "$FP_TOOLS/fp_gen_att" "$FP_SRC/tests/data/gen/$1.json" "$T/$1" || fail "$1: generator"
    "$FLYPROF" report --bundle "$T/$1"/att/ui_output_agent_900_dispatch_5 --out-dir "$T/$1/out" -q -f json > /dev/null
    rc=$?
    [ $rc -eq "${2:-0}" ] || fail "$1: report exit $rc, want ${2:-0}"
}
for s in diag_grid_under diag_grid_full diag_loop_ran diag_lds_wait diag_nop_mfma \
         diag_nop_valu diag_drain diag_no_drain diag_roof diag_below_roof diag_smem_mid diag_xlane diag_narrow \
         diag_wide diag_entry_line diag_plain_line diag_not_repr diag_quant_tail diag_quant_even diag_grid_hbm \
         diag_imbalance diag_balanced diag_at_ceiling; do
    run "$s"
done
run diag_quant_even
# only waits on the kernel-argument prologue: nothing to recommend
run diag_prologue 66
run diag_smem_wait 66
# the shipped example's back-branch offset does not land on its loop head (the generator lays
# out 8-byte encodings as 4): the loop still ran, as the branch ran 56 times and its
# fall-through row 8 times
"$FLYPROF" report --bundle "$FP_SRC/examples/synthetic_gemm" --out-dir "$T/example" -q -f json > /dev/null ||
    fail "example: report exit $?"
python3 - "$T" <<'PY' || fail "diagnosis"
import json, sys
T = sys.argv[1]
R = {}
def rep(n):
    if n not in R:
        R[n] = json.load(open(f"{T}/{n}/out/report.json"))
    return R[n]
# the rules that fired: the ranked plan, then those below the noise floor ("also seen", never ranked)
def rules(n): return [x["rule"] for x in rep(n)["recommendations"]] + [x["rule"] for x in rep(n).get("also_seen", [])]
def conf(n, rule): return {x["rule"]: x["confidence_label"] for x in rep(n)["recommendations"]}[rule]
errs = []
def check(c, m):
    if not c: errs.append(m)

# grid_fill: 16 workgroups on 256 CUs -> parallelism, grid_fill first with gain 1 - 16/256
u, f = rep("diag_grid_under"), rep("diag_grid_full")
check(u["launch"]["workgroups"] == 16 and u["launch"]["underfilled"] is True, u["launch"])
check(u["launch"]["fill_pct"] == 6.25, u["launch"]["fill_pct"])
check(u["bound_type"] == "parallelism" and u["bound"]["rule"] == "launch_underfilled", u["bound"])
gu = {x["rule"]: x for x in u["recommendations"]}.get("grid_fill")
check(gu is not None, rules("diag_grid_under"))
# issue 17: (100 - SIMD fill) x (1 - fixed per-wave overhead): the kernel-argument wait (all of lgkmcnt
# here: the s_load precedes the first s_waitcnt) and the drain do not shrink with more, smaller waves;
# x traced span / kernel time: the launch ramp and writeback outside the waves do not either
lg = {c["class"]: c["cycles"] for c in u["classes"]}.get("lgkmcnt", 0)
ov = lg / u["totals"]["latency"]
sp = min(1, u["time"]["trace"]["span_ns"] / u["time"]["ns"])
check(gu and abs(gu["est_gain_pct"] - round(93.75 * (1 - ov) * round(sp, 3), 2)) <= 0.05, (gu and gu["est_gain_pct"], ov, sp))
check(gu and gu["evidence"]["launch"]["simd_fill_pct"] == 6.25 and "traced wave span" in gu["gain_model"], gu)
# the ranking follows the gain: no rule is pinned first
g = [x["est_gain_pct"] for x in u["recommendations"]]
check(g == sorted(g, reverse=True), g)
# and never below the HBM floor: 55 % of peak at an 84 % ceiling leaves 1 - 55/84
gh = rep("diag_grid_hbm")
hb = gh["sol"]["hbm"]["pct_of_peak"]
check(rules("diag_grid_hbm")[0] == "grid_fill" and abs(gh["recommendations"][0]["est_gain_pct"] - round(100 * (1 - hb / 84), 2)) <= 0.02,
      (hb, gh["recommendations"][0]["est_gain_pct"]))
# wave quantization: 320 workgroups on 256 slots run as 2 rounds; the idle share is 1 - 320/512
qt, qe = rep("diag_quant_tail"), rep("diag_quant_even")
wq = {x["rule"]: x for x in qt["recommendations"]}.get("wave_quantization")
sq = qt["time"]["trace"]["span_ns"] / qt["time"]["ns"]
check(wq is not None and abs(wq["est_gain_pct"] - round(37.5 * round(sq, 3), 2)) <= 0.05 and wq["evidence"]["launch"]["rounds"] == 2
      and wq["evidence"]["launch"]["slots"] == 256, (wq, sq))
check(wq and wq["acceptance"]["kind"] == "signal_above" and wq["acceptance"]["target"] == 85, wq and wq["acceptance"])
check("wave_quantization" not in rules("diag_quant_even") and qe["launch"]["tail_efficiency_pct"] == 100, rules("diag_quant_even"))
check("wave_quantization" not in rules("diag_grid_under"), "one round is fill, not a tail")
# work imbalance: one round, one wave ran the loop 24 times, the 15 others twice: the kernel waits for
# the CU that holds it. Independent reference: each CU's busy time is the union of its waves'
# residencies in occupancy.json (start closed by the next end of its CU/SIMD/slot), the gain
# 100 x (1 - mean / max) x traced span / kernel time
def cu_busy(name):
    occ = json.load(open(f"{T}/{name}/att/ui_output_agent_900_dispatch_5/occupancy.json"))
    per = {}
    for se, evs in occ.items():
        if not se.isdigit():
            continue
        opened = {}
        for t, cu, simd, slot, start, *_ in sorted(evs, key=lambda e: e[0]):
            if start:
                opened.setdefault((cu, simd, slot), []).append(t)
            elif opened.get((cu, simd, slot)):
                per.setdefault((se, cu), []).append((opened[(cu, simd, slot)].pop(0), t))
    busy = {}
    for k, iv in per.items():
        tot, cb, ce = 0, None, None
        for b, e in sorted(iv):
            if cb is None or b > ce:
                tot += 0 if cb is None else ce - cb
                cb, ce = b, e
            else:
                ce = max(ce, e)
        busy[k] = tot + ce - cb
    return busy
im, ba = rep("diag_imbalance"), rep("diag_balanced")
wi = {x["rule"]: x for x in im["recommendations"]}.get("work_imbalance")
bz = cu_busy("diag_imbalance")
mx, mean = max(bz.values()), sum(bz.values()) / len(bz)
excess = 100 * (1 - mean / mx)
wd = im["workdist"]
check(abs(wd["cu_busy_excess_pct"] - round(excess, 2)) <= 0.01 and wd["cu_busy_cycles"]["max"] == mx, (wd, bz))
check(wd["critical_cu"]["busy_cycles"] == mx and wd["critical_cu"]["se"] == 1, wd["critical_cu"])
check(wi is not None and wi["evidence"]["imbalance"]["unit"] == "cu_busy" and wi["evidence"]["imbalance"]["critical_cycles"] == mx, wi)
span = im["time"]["trace"]["span_ns"] / im["time"]["ns"]
check(wi and abs(wi["est_gain_pct"] - round(excess * round(span, 3), 2)) <= 0.05, (wi and wi["est_gain_pct"], excess, span))
check(wi and "critical CU busy" in wi["gain_model"] and "traced wave span" in wi["gain_model"] and wi["acceptance"]["target"] == 5, wi)
bb = cu_busy("diag_balanced")
check("work_imbalance" not in rules("diag_balanced") and ba["workdist"]["cu_busy_excess_pct"] < 10
      and abs(ba["workdist"]["cu_busy_excess_pct"] - round(100 * (1 - sum(bb.values()) / len(bb) / max(bb.values())), 2)) <= 0.01,
      (rules("diag_balanced"), ba["workdist"]))
# stall gains are scaled to the kernel: x traced wave span / kernel duration
vp = {x["rule"]: x for x in im["recommendations"]}["vmem_prefetch"]
check("x 0.889 = traced wave span" in vp["gain_model"], vp["gain_model"])
check("occupancy_vgpr" not in rules("diag_grid_under"), "occupancy advice on a grid that cannot fill the slots")
check(u["summary"][0].startswith("Launch: 16 workgroups of 4 waves on 256 CUs: 6% of CUs busy"), u["summary"])
check(f["launch"]["underfilled"] is False and f["bound_type"] != "parallelism", f["bound"])
check("grid_fill" not in rules("diag_grid_full"), rules("diag_grid_full"))
check("occupancy_vgpr" in rules("diag_grid_full"), rules("diag_grid_full"))

# representativeness: 5 of 40 instructions, the loop never entered
p, l = rep("diag_prologue"), rep("diag_loop_ran")
qp, ql = p["capture_quality"], l["capture_quality"]
check(qp["representative"] is False and qp["coverage_pct"] == 12.5 and qp["has_loop"] and qp["loop_executed"] is False, qp)
check(all(x["confidence_label"] == "low" for x in p["recommendations"]), [x["confidence_label"] for x in p["recommendations"]])
check(p["headline"].startswith("[trace not representative"), p["headline"])
check(p["summary"][0].startswith("TRACE NOT REPRESENTATIVE"), p["summary"])
check(qp.get("recapture", "").find("--att-target-cu") >= 0, qp)
check(ql["representative"] is True and ql["loop_executed"] is True and ql["coverage_pct"] == 100, ql)
qe = json.load(open(f"{T}/example/report.json"))["capture_quality"]
check(qe["loop_executed"] is True and qe["representative"] is True, qe)

# lgkmcnt waits on s_load are SMEM, not LDS; the kernel-argument wait at entry cannot move (no rule),
# a batch of s_load issued after the first wait can be hoisted (smem_wait, evidence = that wait)
check(rules("diag_smem_wait") == [], rules("diag_smem_wait"))
check(rep("diag_smem_wait")["signals"]["waits.lgkmcnt_on_lds_pct"] == 0, rep("diag_smem_wait")["signals"])
check(rep("diag_smem_wait")["signals"]["waits.lgkmcnt_on_smem_pct"] == 0, rep("diag_smem_wait")["signals"])
sm = rep("diag_smem_mid")
check(rules("diag_smem_mid")[0] == "smem_wait" and "lds_write_read_distance" not in rules("diag_smem_mid"), rules("diag_smem_mid"))
check(sm["recommendations"][0]["evidence"]["hottest"]["code_line"] == 7, sm["recommendations"][0]["evidence"]["hottest"])
check([w["code_line"] for w in sm["recommendations"][0]["evidence"]["hottest"]["waits_on"]] == [5, 6], "smem_mid producers")
check(sm["signals"]["waits.lgkmcnt_on_smem_pct"] > 80, sm["signals"])
check(rules("diag_lds_wait")[0] == "lds_write_read_distance" and "smem_wait" not in rules("diag_lds_wait"), rules("diag_lds_wait"))
check(rep("diag_smem_wait")["bound_type"] != "memory", rep("diag_smem_wait")["bound"])  # scalar loads are not LDS-bound
check(rep("diag_lds_wait")["bound"]["rule"] == "trace_lds", rep("diag_lds_wait")["bound"])

# s_nop counts toward MFMA only between MFMAs
nm, nv = rep("diag_nop_mfma"), rep("diag_nop_valu")
check(nm["signals"]["trace.nop_between_mfma_pct"] > 3 and "mfma_hazard_nop" in rules("diag_nop_mfma"), rules("diag_nop_mfma"))
check(nv["signals"]["trace.nop_between_mfma_pct"] == 0 and "mfma_hazard_nop" not in rules("diag_nop_valu"), rules("diag_nop_valu"))
check(nv["bound_type"] != "compute" and nm["bound_type"] != "compute", (nv["bound"], nm["bound"]))
check(nm["bound"]["rule"] == "trace_mfma_dep" and nv["bound"]["rule"] == "trace_default", (nm["bound"]["rule"], nv["bound"]["rule"]))
# 3 x 32x32x16 bf16 = 98304 FLOP per wave at 1024 FLOP/clk/SIMD on gfx950 = 96 MFMA cycles per wave
check(nm["sol"]["mfma"]["flop_traced"] == 4 * 3 * 32768, nm["sol"]["mfma"])

# the s_nop of a VALU hazard is its own signal: not the padding between MFMAs
check(nv["signals"]["trace.valu_nop_pct"] > 5 and "valu_hazard_nop" in rules("diag_nop_valu"), (nv["signals"], rules("diag_nop_valu")))
check(nm["signals"]["trace.valu_nop_pct"] == 0 and "valu_hazard_nop" not in rules("diag_nop_mfma"), (nm["signals"], rules("diag_nop_mfma")))

# cross-lane shuffles: lgkmcnt waits on ds_bpermute are not LDS traffic
x = rep("diag_xlane")
check(rules("diag_xlane")[0] == "crosslane_shuffle" and "lds_write_read_distance" not in rules("diag_xlane"), rules("diag_xlane"))
check(x["signals"]["waits.lgkmcnt_on_crosslane_pct"] == 100 and x["signals"]["waits.lgkmcnt_on_lds_pct"] == 0, x["signals"])
check(x["recommendations"][0]["evidence"]["hottest"]["waits_on"][0]["inst"].startswith("ds_bpermute_b32"), x["recommendations"][0])
check(x["bound"]["rule"] != "trace_lds", x["bound"])  # shuffles are not on-chip memory traffic
check("crosslane_shuffle" not in rules("diag_lds_wait"), rules("diag_lds_wait"))

# narrow global accesses, counted from the ISA: 8 ushort loads + 8 short stores per wave
n, w = rep("diag_narrow"), rep("diag_wide")
check(n["signals"]["isa.narrow_global_per_wave"] == 16 and w["signals"]["isa.narrow_global_per_wave"] == 0, (n["signals"], w["signals"]))
vg = {x["rule"]: x for x in n["recommendations"]}.get("vectorize_global")
check(vg is not None and vg["evidence"]["hottest"]["inst"].startswith("buffer_load_ushort"), vg)
check(vg and vg["acceptance"]["kind"] == "signal_below" and vg["acceptance"]["target"] == 8, vg and vg["acceptance"])
check(vg and vg["gain_model"].startswith("global-memory exposed stall x narrow share") and 0 < vg["est_gain_pct"] <= 100, vg)
check("vectorize_global" not in rules("diag_wide"), rules("diag_wide"))

# debug-info gate: 5 of 7 instructions and all stall on the @flyc.kernel line
e, pl = rep("diag_entry_line"), rep("diag_plain_line")
di = e["capture_quality"]["debug_info"]
check(di["fired"] is True and di["line"].endswith("diag.py:10") and di["instructions_pct"] == 71.4 and di["stall_pct"] == 100, di)
check(e["headline"].startswith("[debug info: 71% of instructions / 100% of stall on the entry line diag.py:10"), e["headline"])
check(any(l.startswith("Debug info: ") and "loc=" in l for l in e["summary"]), e["summary"])
ep = {x["rule"]: x for x in e["recommendations"]}["vmem_prefetch"]
pp = {x["rule"]: x for x in pl["recommendations"]}["vmem_prefetch"]
check(ep["confidence"] == 0.54 and pp["confidence"] == 0.9, (ep["confidence"], pp["confidence"]))
check(ep["evidence"]["hottest"]["entry_line"] is True and ep["evidence"]["hottest"]["explicit_line"].endswith("diag.py:12"), ep["evidence"])
check(ep["acceptance"]["kind"] == "class_exposed_drop" and pp["acceptance"]["kind"] == "line_stall_drop", (ep["acceptance"], pp["acceptance"]))
check("debug_info" not in pl["capture_quality"] and not pl["headline"].startswith("[debug info"), pl["capture_quality"])

# drain: s_endpgm's wait is its own class and never a prefetch target
d, nd = rep("diag_drain"), rep("diag_no_drain")
dc = {c["class"]: c for c in d["classes"]}
check("drain" in dc and dc["drain"]["cycles"] == 4 * 1500, dc.get("drain"))
check(sum(c["cycles"] for c in d["classes"]) == d["totals"]["stall"], "classes must sum to the stall")
check(all(x["bubble_class"] != "drain" for x in d["recommendations"]), rules("diag_drain"))
check(d["drain"]["stall"] == 6000 and d["drain"]["pct_of_latency"] > 50, d["drain"])
check("drain" not in {c["class"] for c in nd["classes"]}, nd["classes"])

# roof: 33.5 MB in 5243 ns = 80 % of 8 TB/s
r, b, a = rep("diag_roof"), rep("diag_below_roof"), rep("diag_at_ceiling")
check(r["sol"]["hbm"]["bytes_per_dispatch"] == 4096 * 4 * 2 * 16 * 64, r["sol"]["hbm"])
check(abs(r["sol"]["hbm"]["pct_of_peak"] - 80.0) < 0.05, r["sol"]["hbm"])
check(r["bound"]["at_roof"] is True and r["bound"]["roof_source"] == "trace", r["bound"])
# round 3: two levers. The same bytes moved faster (hbm_ceiling): at most the distance to the 84 %
# practical ceiling, 1 - 80/84 (independent arithmetic on the bytes and the time)
hbm = 100 * 4096 * 4 * 2 * 16 * 64 / 5243e-9 / 8e12
room = round(100 * (1 - hbm / 84), 2)
rr = {x["rule"]: x for x in r["recommendations"]}
hc = rr.get("hbm_ceiling")
check(hc is not None and abs(hc["est_gain_pct"] - room) <= 0.01, (hc and hc["est_gain_pct"], room))
check(hc and hc["acceptance"]["kind"] == "signal_above" and abs(hc["acceptance"]["target"] - (hbm + (84 - hbm) / 2)) <= 0.01,
      hc and hc["acceptance"])
check(hc and "bandwidth left to the practical ceiling" in hc["gain_model"], hc and hc["gain_model"])
# fewer bytes (hbm_roof_bytes): a rate, ~10 % per 10 % of the bytes removed, not capped by the floor
# (fewer bytes lower it) and never ranked (the trace cannot say how many bytes can go)
seen = {x["rule"]: x for x in r.get("also_seen", [])}
hb = seen.get("hbm_roof_bytes")
check(hb is not None and hb["est_gain_pct"] == 10 and hb["reason"].startswith("a rate") and "hbm_roof_bytes" not in rr,
      (hb, list(rr)))
# below the ceiling latency hiding is legitimate (80 %: 4.8 % left), capped by the distance to it
for k in ("vmem_prefetch", "load_use_distance"):
    x = rr.get(k)
    check(x is not None and x["est_gain_pct"] == room and f"capped at {room:.2f}% = the distance to the practical ceiling" in x["gain_model"],
          (k, x and x["est_gain_pct"], x and x["gain_model"]))
check(all(x["est_gain_pct"] <= room for x in r["recommendations"]), [x["est_gain_pct"] for x in r["recommendations"]])
# the specific means rank before the generic lever at the same capped gain (priority tie-break)
check([x["rule"] for x in r["recommendations"]][-1] == "hbm_ceiling", rules("diag_roof"))
check(any(l.startswith("Roof:") and "at most the distance to the ceiling" in l for l in r["summary"]), r["summary"])
# AT the ceiling (5000 ns: 83.9 % of peak, 0.13 % left, inside the 2 % noise floor): no latency hiding,
# nothing ranked, the roof is the headline's fact; both hbm rules are also_seen
check(a["bound"]["at_roof"] is True and abs(a["sol"]["hbm"]["pct_of_peak"] - 100 * 4096 * 4 * 2 * 16 * 64 / 5000e-9 / 8e12) < 0.01, a["sol"]["hbm"])
check(a["recommendations"] == [] and "only fewer bytes help" in a["headline"], (rules("diag_at_ceiling"), a["headline"]))
check(rules("diag_at_ceiling") == ["hbm_roof_bytes", "hbm_ceiling"], rules("diag_at_ceiling"))
check("at the practical ceiling the only lever" in a["also_seen"][0]["reason"], a["also_seen"])
check(any(l.startswith("Roof:") and "no latency-hiding advice at the ceiling" in l for l in a["summary"]), a["summary"])
# not memory-bound: neither lever; latency hiding uncapped by any roof
check("load_use_distance" in rules("diag_below_roof"), rules("diag_below_roof"))
check(b["bound"]["at_roof"] is False and b["bound"]["rule"] == "vmem_starved_trace", b["bound"])
check("hbm_roof_bytes" not in rules("diag_below_roof") and "hbm_ceiling" not in rules("diag_below_roof")
      and conf("diag_below_roof", "vmem_prefetch") == "high", rules("diag_below_roof"))
check(all("capped at" not in x["gain_model"] for x in b["recommendations"]), [x["gain_model"] for x in b["recommendations"]])
# priority (docs/rules.md "Priority"): HIGH needs payoff gain x confidence >= 7.5 and a high
# confidence (>= 0.75), MED >= 1.5 and >= 0.5; never above the confidence label
# a trace that is not representative supports no number: the gain is null, the priority LOW
nr = rep("diag_not_repr")
check(nr["capture_quality"]["representative"] is False and nr["recommendations"], nr["capture_quality"])
check(all(x["est_gain_pct"] is None and x["priority_label"] == "LOW" for x in nr["recommendations"]), nr["recommendations"])
check("est. gain n/a" in nr["headline"], nr["headline"])
check(all(x["est_gain_pct"] is not None for x in pl["recommendations"]), pl["recommendations"])
for name, doc in R.items():
    for x in doc["recommendations"]:
        if x["est_gain_pct"] is None:
            continue
        pay, c = x["est_gain_pct"] * x["confidence"], x["confidence"]
        want = "HIGH" if pay >= 7.5 and c >= 0.75 else "MED" if pay >= 1.5 and c >= 0.5 else "LOW"
        check(x["priority_label"] == want, f"{name} {x['rule']}: priority {x['priority_label']} != {want}")
# a medium confidence caps the priority at MED however large the payoff (0.7 x > 10 %)
sw = rep("diag_smem_mid")["recommendations"][0]
check(sw["confidence_label"] == "medium" and sw["est_gain_pct"] * sw["confidence"] >= 7.5 and sw["priority_label"] == "MED", sw)
if errs:
    print("\n".join(map(str, errs)))
    sys.exit(1)
PY
echo ok
