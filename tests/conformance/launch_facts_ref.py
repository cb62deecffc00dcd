#!/usr/bin/env python3
"""Independent reference for issue 23's launch facts (tests/conformance/launch_facts.sh).

usage: launch_facts_ref.py CASE_DIR DISPATCH_DIR REPORT_JSON EXPECT_JSON [--print]

Written from the file formats (rocprof-formats.md §3.2, §5.5, §5.6, §5.8) and the definitions in
docs/launch.md / docs/workdist.md, not from flyprof's code. The MI350X facts used: 256 CUs, 32 SEs
in 8 XCDs (4 SEs, 32 CUs each), 4 SIMDs per CU, wave64.
"""
import csv, glob, json, math, os, sys

CUS, SES, XCDS, SIMDS_PER_CU = 256, 32, 8, 4
csv.field_size_limit(1 << 30)

def nearest_rank(v, p):
    v = sorted(v)
    return v[max(1, math.ceil(p / 100 * len(v))) - 1]

def occupancy(d):
    occ = json.load(open(os.path.join(d, "occupancy.json")))
    ses = sorted(int(k) for k in occ if k.isdigit())
    per_se, waves, cus, simds = {}, [], set(), set()
    for se in ses:
        ev = occ[str(se)]
        per_se[se] = sum(1 for e in ev if e[4] == 1)
        begun = {}
        for t, cu, simd, slot, start, _k in ev:
            key = (se, cu, simd, slot)
            if start:
                begun[key] = t
                cus.add((se, cu))
                simds.add((se, cu, simd))
            elif key in begun:
                b = begun.pop(key)
                waves.append(key + (b, t - b))
    return occ, ses, per_se, waves, cus, simds

def span_ns(d, occ, ses):
    rt = json.load(open(os.path.join(d, "realtime.json")))
    f = rt["metadata"]["frequency"]
    lo = hi = None
    for se in ses:
        ev = occ[str(se)]
        if not ev:
            continue
        (g0, r0), (g1, r1) = rt[f"SE{se}"][0], rt[f"SE{se}"][-1]
        mhz = (g1 - g0) / ((r1 - r0) / f) / 1e6
        ns = lambda c: r0 * 1e9 / f + (c - g0) * 1e3 / mhz
        a, z = ns(min(e[0] for e in ev)), ns(max(e[0] for e in ev))
        lo, hi = (a, z) if lo is None else (min(lo, a), max(hi, z))
    return hi - lo

def uses_lds(d):
    code = json.load(open(os.path.join(d, "code.json")))["code"]
    for r in code[1:]:
        isa = r[0]
        if isa.startswith("ds_") and not isa.startswith(("ds_bpermute", "ds_permute", "ds_swizzle")):
            return True
        if isa.startswith(("buffer_load", "global_load")) and " lds" in isa:
            return True
    return False

def csv_rows(case, symbol, xcd_waves, lds):
    """The kernel's rows, and which of them can be this dispatch: W workgroups dealt round-robin over
    8 XCDs put floor(W/8) or ceil(W/8) on the traced XCD, a whole number of workgroups; a listing that
    uses LDS cannot run with LDS_Block_Size 0."""
    rows = [r for r in csv.DictReader(open(os.path.join(case, "rocprof", "kernel_trace.csv")))
            if r["Kernel_Name"] == symbol]
    used = []
    for r in rows:
        wgs = 1
        items = 1
        for a in "XYZ":
            g, w = int(r[f"Grid_Size_{a}"] or 1), int(r[f"Workgroup_Size_{a}"] or 1)
            wgs *= -(-g // w)
            items *= w
        wgw = -(-items // 64)
        if lds and int(r["LDS_Block_Size"]) == 0:
            continue
        if xcd_waves is not None:
            if xcd_waves % wgw:
                continue
            k = xcd_waves // wgw
            if not (wgs // XCDS <= k <= -(-wgs // XCDS)):
                continue
        used.append((r, wgs, wgw))
    return rows, used

def reference(case, d):
    occ, ses, per_se, waves, cus, simds = occupancy(d)
    symbol = json.load(open(os.path.join(d, "code.json")))["code"][0][0][2:]
    full_xcd = len(ses) == SES // XCDS and max(sum(1 for c in cus if c[0] == se) for se in ses) > 1
    xcd_waves = sum(per_se.values()) if full_xcd else None
    rows, used = csv_rows(case, symbol, xcd_waves, uses_lds(d))
    durs = sorted(int(r["End_Timestamp"]) - int(r["Start_Timestamp"]) for r, _w, _g in used)
    out = {"waves": sum(per_se.values()), "rows_named": len(rows), "rows_used": len(used),
           "span_ns": span_ns(d, occ, ses)}
    if used:
        out["workgroups"], out["wg_waves"] = used[-1][1], used[-1][2]
        out["source"] = "csv"
        out["median_ns"] = durs[(len(durs) - 1) // 2]
        out["min_ns"], out["max_ns"] = durs[0], durs[-1]
        out["outliers"] = sum(1 for x in durs if x > 2 * out["median_ns"] or x < out["median_ns"] / 2)
        out["time_ns"] = out["median_ns"]
    else:
        # the trace itself: waves scaled by 8 XCDs / 1, in workgroups of the burst size (4 in every case)
        out["wg_waves"] = 4
        out["workgroups"] = round(out["waves"] * XCDS / 4)
        out["source"] = "trace"
        out["time_ns"] = out["span_ns"]
    grid_waves = out["workgroups"] * out["wg_waves"]
    out["fill_pct"] = 100 * min(out["workgroups"], CUS) / CUS
    out["simd_fill_pct"] = 100 * min(grid_waves, CUS * SIMDS_PER_CU) / (CUS * SIMDS_PER_CU)
    out["trace_simd_fill_pct"] = 100 * len(simds) / (len(ses) * CUS / SES * SIMDS_PER_CU)
    dur = [w[5] for w in waves]
    percu = {}
    for w in waves:
        percu[w[:2]] = percu.get(w[:2], 0) + w[5]
    med = nearest_rank(dur, 50)
    cmed = nearest_rank(list(percu.values()), 50)
    out["wave_p50"], out["wave_max"], out["wave_p90"] = med, max(dur), nearest_rank(dur, 90)
    out["cu_p50"], out["cu_max"] = cmed, max(percu.values())
    out["wave_imbalance"], out["cu_imbalance"] = max(dur) / med, max(percu.values()) / cmed
    out["heavy_waves"] = sum(1 for x in dur if x > 2 * med)
    out["heavy_cus"] = len({w[:2] for w in waves if w[5] > 2 * med})
    crit = max(waves, key=lambda w: w[5])
    out["critical"] = {"se": crit[0], "cu": crit[1], "simd": crit[2], "slot": crit[3], "cycles": crit[5]}
    # issue 17 follow-up: a CU's busy time is the length of the union of its waves' [begin, end)
    # (resident waves overlap once); work_imbalance compares the busiest CU with the mean CU
    iv = {}
    for w in waves:
        iv.setdefault(w[:2], []).append((w[4], w[4] + w[5]))
    busy = {}
    for k, spans in iv.items():
        tot, cb, ce = 0, None, None
        for b, e in sorted(spans):
            if cb is not None and b <= ce:
                ce = max(ce, e)
                continue
            if cb is not None:
                tot += ce - cb
            cb, ce = b, e
        busy[k] = tot + ce - cb
    mx = max(busy.values())
    out["cu_busy_max"], out["cu_busy_p50"] = mx, nearest_rank(list(busy.values()), 50)
    out["cu_busy_mean"] = sum(busy.values()) / len(busy)
    out["cu_busy_excess_pct"] = 100 * (1 - out["cu_busy_mean"] / mx)
    out["critical_cu"] = min(k for k, v in busy.items() if v == mx)
    return out

def main():
    case, d, rep, exp = sys.argv[1:5]
    ref = reference(case, d)
    if "--print" in sys.argv:
        print(json.dumps(ref))
        return 0
    r, e = json.load(open(rep)), json.load(open(exp))
    assert e.get("reasoning"), "an expectation without its reasoning is not reviewed"
    errs = []
    def check(c, m):
        if not c:
            errs.append(m)
    def near(a, b, tol, what):
        check(a is not None and abs(a - b) <= tol, f"{what}: report {a} vs reference {b}")
    L, tm, w = r["launch"], r["time"], r["workdist"]
    check(L["source"] == ref["source"] == e["source"], f"launch.source {L['source']} / ref {ref['source']} / {e['source']}")
    check(L["workgroups"] == ref["workgroups"] == e["workgroups"], f"workgroups {L['workgroups']} / {ref['workgroups']} / {e['workgroups']}")
    check(L["wg_waves"] == ref["wg_waves"], f"wg_waves {L['wg_waves']} / {ref['wg_waves']}")
    check(L["trace"]["waves"] == ref["waves"], f"trace waves {L['trace']['waves']} / {ref['waves']}")
    check(L["csv"]["rows_named"] == ref["rows_named"] and L["csv"]["rows_used"] == ref["rows_used"] == e["rows_used"],
          f"csv rows {L['csv']} / ref {ref['rows_named']} {ref['rows_used']} / {e['rows_used']}")
    near(L["fill_pct"], ref["fill_pct"], 0.005, "fill_pct")
    near(L["simd_fill_pct"], ref["simd_fill_pct"], 0.005, "simd_fill_pct")
    near(L["trace"]["simd_fill_pct"], ref["trace_simd_fill_pct"], 0.005, "trace simd_fill_pct")
    near(tm["trace"]["span_ns"], ref["span_ns"], 0.06, "time.trace.span_ns")
    check(tm["source"] == ("csv" if ref["source"] == "csv" else "trace"), f"time.source {tm['source']}")
    near(tm["ns"], ref["time_ns"], 0.06, "time.ns")
    if ref["source"] == "csv":
        c = tm["csv"]
        check((c["median_ns"], c["min_ns"], c["max_ns"], c["outliers"]) ==
              (ref["median_ns"], ref["min_ns"], ref["max_ns"], ref["outliers"]), f"time.csv {c} / {ref}")
    check(w["wave_cycles"]["p50"] == ref["wave_p50"] and w["wave_cycles"]["max"] == ref["wave_max"] and
          w["wave_cycles"]["p90"] == ref["wave_p90"], f"wave_cycles {w['wave_cycles']} / {ref}")
    check(w["cu_cycles"]["p50"] == ref["cu_p50"] and w["cu_cycles"]["max"] == ref["cu_max"], f"cu_cycles {w['cu_cycles']}")
    near(w["wave_imbalance"], round(ref["wave_imbalance"], 2), 0.0051, "wave_imbalance")
    near(w["cu_imbalance"], round(ref["cu_imbalance"], 2), 0.0051, "cu_imbalance")
    check((w["heavy_waves"], w["heavy_cus"]) == (ref["heavy_waves"], ref["heavy_cus"]), f"heavy {w['heavy_waves']} {w['heavy_cus']}")
    cw = w["critical_wave"]
    check({k: cw[k] for k in ref["critical"]} == ref["critical"], f"critical {cw} / {ref['critical']}")
    cb = w["cu_busy_cycles"]
    check(cb["max"] == ref["cu_busy_max"] and cb["p50"] == ref["cu_busy_p50"], f"cu_busy_cycles {cb} / {ref['cu_busy_max']}")
    near(w["cu_busy_mean"], round(ref["cu_busy_mean"], 1), 0.051, "cu_busy_mean")
    near(w["cu_busy_excess_pct"], round(ref["cu_busy_excess_pct"], 2), 0.0051, "cu_busy_excess_pct")
    cc = w["critical_cu"]
    check((cc["se"], cc["cu"], cc["busy_cycles"]) == ref["critical_cu"] + (ref["cu_busy_max"],), f"critical_cu {cc} / {ref['critical_cu']}")
    if "heavy_waves" in e:
        check(w["heavy_waves"] == e["heavy_waves"], f"heavy_waves {w['heavy_waves']} != expected {e['heavy_waves']}")
    if "cu_imbalance_min" in e:
        check(w["cu_imbalance"] >= e["cu_imbalance_min"], f"cu_imbalance {w['cu_imbalance']} < {e['cu_imbalance_min']}")
    if errs:
        print(os.path.basename(case) + ":\n  " + "\n  ".join(errs))
        return 1
    return 0

sys.exit(main())
