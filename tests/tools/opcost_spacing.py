#!/usr/bin/env python3
"""Measure instruction issue spacing in ATT traces (issue 23 item 3, docs/sol.md).

MFMA: for every MFMA of a wave, the spacing to the wave's next MFMA when it has
the same opcode (f8f6f4 ops keyed with their cbsz/blgp), other instructions in
between allowed; VALU: consecutive instructions with the same opcode; a
transcendental: the spacing to the next instruction when that is a VALU op.
issue = time + stall of the wave record [time, category, stall, duration, pc].
Back-to-back same-pipe ops issue as soon as the pipe frees, so the MODE of the
spacing is the issue cost; the rest are dependency or arbitration stalls.

usage: opcost_spacing.py CORPUS_CASE_DIR... [--files N]   (prints one line per opcode)
"""
import collections
import glob
import json
import os
import sys

TRANS = ("v_exp_", "v_log_", "v_rcp_", "v_rsq_", "v_sqrt_", "v_sin_", "v_cos_")


def key_of(text):
    w = text.split()
    if not w:
        return None
    k = w[0]
    if "f8f6f4" in k:
        mods = [x for x in w if x.startswith(("cbsz:", "blgp:"))]
        k += " " + (" ".join(mods) if mods else "fp8")
    return k


def measure(case_dir, nfiles):
    d = glob.glob(os.path.join(case_dir, "att", "*", ""))[0]
    code = json.load(open(d + "code.json"))["code"]
    text = {r[2]: r[0] for r in code}
    out = collections.defaultdict(collections.Counter)
    for f in sorted(glob.glob(d + "se*_sm*_sl*_wv*.json"))[:nfiles]:
        ins = json.load(open(f))["wave"]["instructions"]
        last = None  # the wave's previous MFMA: (key, issue)
        for a in ins:
            k = key_of(text.get(a[4], ""))
            if k and k.startswith("v_mfma"):
                if last and last[0] == k:
                    out[k][a[0] + a[2] - last[1]] += 1
                last = (k, a[0] + a[2])
        for a, b in zip(ins, ins[1:]):
            ka, kb = key_of(text.get(a[4], "")), key_of(text.get(b[4], ""))
            if not ka or not kb:
                continue
            gap = (b[0] + b[2]) - (a[0] + a[2])
            if ka == kb and ka.startswith("v_") and not ka.startswith("v_mfma"):
                out[ka][gap] += 1
            elif ka.startswith(TRANS) and a[1] == 6 and b[1] == 6:
                out[ka + " ->valu"][gap] += 1
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    nfiles = 16
    for a in sys.argv[1:]:
        if a.startswith("--files="):
            nfiles = int(a.split("=", 1)[1])
    for case in args:
        for k, c in sorted(measure(case, nfiles).items()):
            mode, n = c.most_common(1)[0]
            print(f"{os.path.basename(case.rstrip('/'))}\t{k}\tmode={mode}\t{n}/{sum(c.values())}")


if __name__ == "__main__":
    main()
