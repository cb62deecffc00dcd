#!/usr/bin/env python3
"""Independent reference for hidden / exposed stall by issue windows (issue 23 item 2,
docs/exposed-stall.md). Reads the raw wave files + code.json of one ATT dispatch dir;
shares no code with flyprof.

Definition: a stall cycle of a wave (record [time, category, stall, duration, pc]
stalls on [time, time + stall)) is HIDDEN when another wave on the same (SE, CU, SIMD)
has an instruction in flight in that cycle: in flight = inside some issue window
[time + stall, time + max(stall, duration)) of one of its records, branches included,
except records that occupy no pipe: decoder category IMMED (9) or MESSAGE (11), or an
opcode s_waitcnt*, s_wait_*, s_nop, s_barrier, s_endpgm, s_sendmsg*, s_sleep, s_setprio.
The drain: the s_endpgm record's [time + stall, time + max(stall, duration)), split the
same way (its own figures, not part of the stall).

usage: hidden_ref.py DISPATCH_DIR      prints one JSON object
"""
import glob
import json
import os
import re
import sys
from collections import defaultdict

NOPIPE_OPS = ("s_waitcnt", "s_wait_", "s_nop", "s_barrier", "s_endpgm", "s_sendmsg", "s_sleep", "s_setprio")
NOPIPE_CATS = (9, 11)


def load(dirpath):
    code = json.load(open(os.path.join(dirpath, "code.json")))["code"]
    op = {}
    for row in code:
        words = row[0].split()
        op[row[2]] = words[0].lower() if words else ""
    simds = defaultdict(list)
    for f in glob.glob(os.path.join(dirpath, "se*_sm*_sl*_wv*.json")):
        se = int(re.match(r"se(\d+)_", os.path.basename(f)).group(1))
        w = json.load(open(f))["wave"]
        simds[(se, w["cu"], w["simd"])].append(w["instructions"])
    return op, simds


def wave_intervals(recs, op):
    """(in-flight union, stall intervals, drain intervals) of one wave."""
    wins, stalls, drains = [], [], []
    for t, cat, st, du, pc in recs:
        if pc not in op:
            continue
        st = max(st, 0)
        if st > 0:
            stalls.append((t, t + st))
        a, b = t + st, t + max(st, du)
        if b <= a:
            continue
        o = op[pc]
        if cat in NOPIPE_CATS or o.startswith(NOPIPE_OPS):
            if o.startswith("s_endpgm"):
                drains.append((a, b))
            continue
        wins.append((a, b))
    wins.sort()
    union = []
    for a, b in wins:
        if union and a <= union[-1][1]:
            union[-1][1] = max(union[-1][1], b)
        else:
            union.append([a, b])
    return union, stalls, drains


def sweep(waves):
    """Sum over the waves of one SIMD: stall hidden / exposed, drain hidden / exposed."""
    ev = []  # (time, kind, wave): kind 0 in-flight end, 1 in-flight start, 2 stall +-, 3 drain +-
    for i, (union, stalls, drains) in enumerate(waves):
        for a, b in union:
            ev.append((a, 1, i, 1))
            ev.append((b, 1, i, -1))
        for a, b in stalls:
            ev.append((a, 2, i, 1))
            ev.append((b, 2, i, -1))
        for a, b in drains:
            ev.append((a, 3, i, 1))
            ev.append((b, 3, i, -1))
    ev.sort()
    inflight = defaultdict(int)
    stalled = defaultdict(int)
    draining = defaultdict(int)
    busy = 0  # waves with an instruction in flight
    out = {"hidden": 0, "exposed": 0, "drain_hidden": 0, "drain_exposed": 0}
    last = None
    for t, kind, i, d in ev:
        if last is not None and t > last:
            ln = t - last
            for w, n in stalled.items():
                hid = busy - (1 if inflight[w] > 0 else 0) > 0
                out["hidden" if hid else "exposed"] += n * ln
            for w, n in draining.items():
                hid = busy - (1 if inflight[w] > 0 else 0) > 0
                out["drain_hidden" if hid else "drain_exposed"] += n * ln
        last = t
        if kind == 1:
            before = inflight[i] > 0
            inflight[i] += d
            busy += (inflight[i] > 0) - before
        else:
            m = stalled if kind == 2 else draining
            m[i] += d
            if m[i] == 0:
                del m[i]
    return out


def main():
    op, simds = load(sys.argv[1])
    tot = {"stall": 0, "hidden": 0, "exposed": 0, "drain_stall": 0, "drain_hidden": 0, "drain_exposed": 0}
    for key in sorted(simds):
        waves = [wave_intervals(r, op) for r in simds[key]]
        for _, stalls, drains in waves:
            tot["stall"] += sum(b - a for a, b in stalls)
            tot["drain_stall"] += sum(b - a for a, b in drains)
        for k, v in sweep(waves).items():
            tot[k] += v
    print(json.dumps(tot))


if __name__ == "__main__":
    main()
