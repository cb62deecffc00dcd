#!/usr/bin/env python3
"""Issue 23's closing-note table: per corpus case the launch and time facts before and after.

usage: tests/tools/launch_facts_table.py FLYPROF CORPUS_DIR

Runs `flyprof report` on every case of CORPUS_DIR/cases.tsv and prints a Markdown table: workgroups
from the trace (scaled) and from the CSV (the old rule: the last row named like the kernel), the
time from the trace (occupancy span on realtime.json's clock) and the CSV (median of the rows that
are the dispatch; the old rule's mean of every named row in brackets), the SIMD fill, the per-wave
and per-CU imbalance, HBM % of peak, and what changed.
"""
import csv, json, os, subprocess, sys, tempfile
csv.field_size_limit(1 << 30)
flyprof, corpus = sys.argv[1:3]
tmp = tempfile.mkdtemp()
print("| case | workgroups trace / CSV (old) | used | time trace / CSV median (old mean), us | time source | "
      "fill CU / SIMD % | imbalance wave / CU | HBM % | what changed |")
print("|---|---|---|---|---|---|---|---|---|")
for row in csv.DictReader(open(os.path.join(corpus, "cases.tsv")), delimiter="\t"):
    case, d = row["id"], os.path.join(corpus, row["id"], "att", row["dispatch"])
    out = os.path.join(tmp, case)
    subprocess.run([flyprof, "report", "--bundle", d, "--out-dir", out, "-q", "-f", "json"], check=True,
                   stdout=subprocess.DEVNULL)
    r = json.load(open(os.path.join(out, "report.json")))
    L, t, w = r["launch"], r["time"], r["workdist"]
    rows = [x for x in csv.DictReader(open(os.path.join(corpus, case, "rocprof", "kernel_trace.csv")))
            if x["Kernel_Name"] == r["kernel"]]
    last = rows[-1]
    old_wgs = 1
    for a in "XYZ":
        old_wgs *= -(-int(last[f"Grid_Size_{a}"] or 1) // int(last[f"Workgroup_Size_{a}"] or 1))
    durs = [int(x["End_Timestamp"]) - int(x["Start_Timestamp"]) for x in rows]
    old_mean = sum(durs) / len(durs)
    med = t["csv"]["median_ns"] if t["csv"] else None
    changed = []
    if L["workgroups"] != old_wgs:
        changed.append(f"workgroups {old_wgs} -> {L['workgroups']} (CSV is another launch)")
    if L["csv"]["rows_used"] != L["csv"]["rows_named"]:
        changed.append(f"{L['csv']['rows_named'] - L['csv']['rows_used']} of {L['csv']['rows_named']} rows refused")
    if abs(t["ns"] - old_mean) > 0.02 * old_mean:
        changed.append(f"time {old_mean / 1e3:.1f} -> {t['ns'] / 1e3:.1f} us")
    print(f"| {case} | {L['trace']['workgroups']} / {old_wgs} | {L['source']} ({L['csv']['rows_used']}/"
          f"{L['csv']['rows_named']} rows) | {t['trace']['span_ns'] / 1e3:.1f} / "
          f"{med / 1e3 if med else float('nan'):.1f} ({old_mean / 1e3:.1f}) | {t['source']} | "
          f"{L['fill_pct']:g} / {L['simd_fill_pct']:g} | {w['wave_imbalance']:.2f} / {w['cu_imbalance']:.2f} | "
          f"{r['sol']['hbm']['pct_of_peak']} | {'; '.join(changed) or '-'} |")
