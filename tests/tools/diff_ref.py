#!/usr/bin/env python3
"""diff_ref.py BEFORE_DISPATCH_DIR AFTER_DISPATCH_DIR -> JSON on stdout

An independent reference for `flyprof diff`'s explanation (docs/commands/diff.md),
from the raw decoder files only (code.json and the wave files), sharing no code with
flyprof: the ISA identity (SHA-256 of the instruction texts, and of the opcodes), the
main loop (the backward branch run more often than the kernel was entered whose body
has the most latency), per wave its cycles (end - begin), its iterations and its loop
span per iteration, and the relative change of the means with a Welch 95 % confidence
interval whose t quantile is found by integrating Student's t density (no table)."""
import glob
import hashlib
import json
import math
import sys


def code_rows(d):
    return [r for r in json.load(open(d + "/code.json"))["code"] if r[2] > 0 and not r[0].startswith(";")]


def isa_hashes(rows):
    text = "".join(r[0] + "\n" for r in rows)
    ops = "".join(r[0].split()[0].lower() + "\n" for r in rows)
    return hashlib.sha256(text.encode()).hexdigest(), hashlib.sha256(ops.encode()).hexdigest()


def main_loop(rows):
    entry = rows[0][6]
    by_vaddr = {r[5]: r for r in rows}
    best = None
    for r in rows:
        op = r[0].split()
        if not (op[0] == "s_branch" or op[0].startswith("s_cbranch")) or len(op) < 2:
            continue
        try:
            imm = int(op[1])
        except ValueError:
            continue
        imm = imm - 65536 if imm >= 32768 else imm
        tgt = by_vaddr.get(r[5] + 4 + 4 * imm)
        if tgt is None or tgt[2] > r[2] or r[6] <= entry:
            continue
        lat = sum(x[7] for x in rows if tgt[2] <= x[2] <= r[2])
        if best is None or lat > best[0]:
            best = (lat, tgt[2], r[2])
    return best and best[1:]


def per_wave(d, loop):
    cycles, iters, per_iter = [], [], []
    for f in sorted(glob.glob(d + "/se*_sm*_sl*_wv*.json")):
        w = json.load(open(f))["wave"]
        cycles.append(w["end"] - w["begin"])
        if not loop:
            continue
        body = [x for x in w["instructions"] if loop[0] <= x[4] <= loop[1]]
        n = sum(1 for x in body if x[4] == loop[1])
        iters.append(n)
        if n:
            per_iter.append((body[-1][0] + body[-1][3] - body[0][0]) / n)
    return cycles, iters, per_iter


def mean_sd(v):
    m = sum(v) / len(v)
    return m, math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else 0.0


def t_cdf(t, df):
    c = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    f = lambda x: c * (1 + x * x / df) ** (-(df + 1) / 2)
    n = 2000
    h = t / n
    s = f(0) + f(t) + sum((4 if k % 2 else 2) * f(k * h) for k in range(1, n))
    return 0.5 + s * h / 3


def t975(df):
    lo, hi = 0.0, 50.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_cdf(mid, df) < 0.975 else (lo, mid)
    return (lo + hi) / 2


def change(b, a):
    (mb, sb), (ma, sa) = mean_sd(b), mean_sd(a)
    vb, va = sb * sb / len(b), sa * sa / len(a)
    d = 100 * (ma - mb) / mb
    if len(b) < 2 or len(a) < 2 or vb + va == 0:
        return {"before": mb, "after": ma, "delta_pct": d, "ci_low_pct": None, "ci_high_pct": None}
    df = (vb + va) ** 2 / (vb * vb / (len(b) - 1) + va * va / (len(a) - 1))
    h = 100 * t975(df) * math.sqrt(vb + va) / mb
    return {"before": mb, "after": ma, "delta_pct": d, "ci_low_pct": d - h, "ci_high_pct": d + h, "df": df}


def side(d):
    rows = code_rows(d)
    loop = main_loop(rows)
    cycles, iters, per_iter = per_wave(d, loop)
    sha, ops = isa_hashes(rows)
    return {"sha256": sha, "opcodes_sha256": ops, "instructions": len(rows), "loop": loop, "cycles": cycles,
            "iterations_per_wave": sum(iters) / len(iters) if iters else 0.0, "per_iter": per_iter}


if __name__ == "__main__":
    b, a = side(sys.argv[1]), side(sys.argv[2])
    out = {"before": {k: b[k] for k in ("sha256", "opcodes_sha256", "instructions", "loop", "iterations_per_wave")},
           "after": {k: a[k] for k in ("sha256", "opcodes_sha256", "instructions", "loop", "iterations_per_wave")},
           "per_wave": change(b["cycles"], a["cycles"]), "per_iteration": change(b["per_iter"], a["per_iter"])}
    json.dump(out, sys.stdout, indent=1)
