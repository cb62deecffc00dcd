#!/usr/bin/env python3
"""bench/ref_hotspots.py DISPATCH_DIR [--topk N] [--mode asm|src|both] [--detail] [--context N]

The baseline of bench/hotspots.sh: an independent Python re-implementation of what the reference
analyzer (hotspot_analyzer.py v0) computes, written from /work/shared/reference/
hotspot-analyzer-algorithm.md (no code of the original): code.json through json.load, the row
filter, the lower-cased substring classification, the per-type and per-source-line sums, the
stable rankings, the register scan with the same four regexes, the snapshot map and the text
tables. It does the reference's work with the same library calls, so its time is the reference's
time on this machine; its text is close to, not byte-identical with, the original's (the benchmark
measures, tests/conformance/hotspots.sh compares). Set FP_REF_ANALYZER to the original script to
time that instead.
"""
import argparse
import json
import os
import re
import sys

RULES = [  # (substrings, type), first match wins; s_waitcnt is refined below
    (("s_barrier", "s_wait_idle"), "barrier"),
    (("buffer_load", "global_load", "flat_load"), "VMEM-load"),
    (("buffer_store", "global_store"), "VMEM-store"),
    (("ds_read", "ds_write"), "LDS"),
    (("s_load", "s_store"), "SMEM"),
    (("v_mfma", "v_fma"), "MFMA/FMA"),
]


def classify(asm):
    s = asm.lower()
    if "s_waitcnt" in s:
        return "VMEM-wait" if "vmcnt" in s else "LDS/SMEM-wait" if "lgkmcnt" in s else \
            "EXP-wait" if "expcnt" in s else "waitcnt"
    for subs, t in RULES:
        if any(x in s for x in subs):
            return t
    return "other"


def num(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def fmt(n):
    for div, suf in ((1e9, "G"), (1e6, "M"), (1e3, "K")):
        if n >= div:
            return "%.1f%s" % (n / div, suf)
    return str(n)


def bar(pct, width=36):
    k = int(round(pct / 100 * width))
    return "[" + "\u2588" * k + "\u2591" * (width - k) + "]"


def snapshots(d):
    out = {}
    try:
        tree = json.load(open(os.path.join(d, "snapshots.json")))
    except (OSError, ValueError):
        return out
    stack = [("", tree)]
    while stack:
        prefix, node = stack.pop()
        for k, v in node.items():
            p = prefix if k == "/" else prefix + "/" + k
            if isinstance(v, dict):
                stack.append((p, v))
            elif isinstance(v, str):
                try:
                    out[p] = open(os.path.join(d, v), newline=None).read().splitlines()
                except OSError:
                    pass
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--topk", type=int, default=15)
    ap.add_argument("--mode", choices=["asm", "src", "both"], default="both")
    ap.add_argument("--detail", action="store_true")
    ap.add_argument("--context", type=int, default=3)
    a = ap.parse_args()
    code = json.load(open(os.path.join(a.dir, "code.json")))["code"]
    insts = []
    for r in code:
        if not isinstance(r[2], int) or r[2] == 0:
            continue
        insts.append((r[0], r[3] or "<unknown>", num(r[7]), num(r[8]), classify(r[0])))
    total_stall = sum(i[3] for i in insts)
    total_cycles = sum(i[2] for i in insts)
    print("\nLoading: %s\n" % a.dir)
    print("  %-15s%s" % ("Kernel:", os.path.basename(a.dir)))
    print("  %-15s%s" % ("Instructions:", format(len(insts), ",")))
    print("  %-15s%s" % ("Total cycles:", fmt(total_cycles)))
    print("  %-15s%s  (%.1f%% of total cycles)" % ("Total stalls:", fmt(total_stall), 100 * total_stall / total_cycles))
    max_v = max_a = 0
    rv = [re.compile(r"\bv(\d+)\b"), re.compile(r"\bv\[(\d+)")]
    ra = [re.compile(r"\ba(\d+)\b"), re.compile(r"\ba\[(\d+)")]
    for asm, *_ in insts:
        for r in rv:
            for m in r.findall(asm):
                max_v = max(max_v, int(m))
        for r in ra:
            for m in r.findall(asm):
                max_a = max(max_a, int(m))
    gfx950 = any(x in i[0] for i in insts for x in ("v_mfma_scale_f32", "v_mfma_f32_16x16x128", "v_mfma_f32_32x32x64"))
    arch, accum = max_v + 1, max_a + 1 if max_a > 0 else 0
    ceil8 = lambda x: (x + 7) // 8 * 8
    total = ceil8(arch) + (ceil8(accum) if accum else 0)
    occ = min(512 // total if gfx950 else 256 // max(ceil8(arch), ceil8(accum) if accum else 0), 8)
    print("\n" + "\u2550" * 90 + "\n  Register Pressure & Occupancy\n" + "\u2550" * 90)
    print("  Architecture:   %s\n  arch_vgpr:      ~%d\n  occupancy:      %d waves/SIMD" %
          ("gfx950 (CDNA4)" if gfx950 else "gfx942 (CDNA3)", arch, occ))
    by_type = {}
    for i in insts:
        if i[3] > 0:
            by_type[i[4]] = by_type.get(i[4], 0) + i[3]
    print("\n" + "\u2550" * 90 + "\n  Stall Breakdown by Type\n" + "\u2550" * 90)
    for t, s in sorted(by_type.items(), key=lambda kv: kv[1], reverse=True):
        print("  %-14s  %8s  %s" % (t, fmt(s), bar(100 * s / total_stall if total_stall else 0)))
    lines = {}
    for i in insts:
        g = lines.setdefault(i[1], [0, 0, []])
        g[0] += i[3]
        g[1] += i[2]
        if i[3] > 0:
            g[2].append(i)
    ranked = sorted(lines.items(), key=lambda kv: kv[1][0], reverse=True)
    snaps = snapshots(a.dir) if a.detail else {}
    if a.mode in ("src", "both"):
        print("\n" + "\u2550" * 90 + "\n  Top-%d Hotspot Source Lines\n" % a.topk + "\u2550" * 90)
        for k, (loc, (st, cy, ins)) in enumerate(ranked[:a.topk], 1):
            if st == 0:
                break
            dom = {}
            for i in ins:
                dom[i[4]] = dom.get(i[4], 0) + i[3]
            d = max(dom.items(), key=lambda kv: kv[1])[0] if dom else "other"
            print("  %3d  %8s  %6.2f%%  %-38s  %-12s  %s" % (k, fmt(st), 100 * st / total_stall, bar(100 * st / cy if cy else 0),
                                                         d, loc[-48:]))
        for loc, (st, cy, ins) in [x for x in ranked[:min(5, a.topk)] if x[1][0] > 0] if a.detail else []:
            print("\n    \u2500\u2500 %s  (stall=%s, %.0f%% stall rate)" % (loc, fmt(st), 100 * st / cy if cy else 0))
            path, _, ln = loc.rpartition(":")
            src = snaps.get(path)
            if src and ln.isdigit():
                L = int(ln)
                print("    Source:")
                for n in range(max(0, L - a.context - 1), min(len(src), L + a.context)):
                    print("      %s %4d \u2502 %s" % (">>>" if n + 1 == L else "   ", n + 1, src[n].rstrip()))
            print("    Stalling instructions:")
            for i in sorted(ins, key=lambda i: i[3], reverse=True)[:6]:
                print("      stall=%7s  type=%-12s  %s" % (fmt(i[3]), i[4], i[0]))
    if a.mode in ("asm", "both"):
        print("\n" + "\u2550" * 90 + "\n  Top-%d Hotspot Instructions\n" % a.topk + "\u2550" * 90)
        for k, i in enumerate(sorted((i for i in insts if i[3] > 0), key=lambda i: i[3], reverse=True)[:a.topk], 1):
            print("  %3d  %8s  %6.2f%%  %-12s  %-48s  %s" % (k, fmt(i[3]), 100 * i[3] / total_stall, i[4], i[0][:48], i[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
