#!/usr/bin/env python3
"""Independent reference for every figure of the exposed-stall sweep (docs/exposed-stall.md),
on generated hostile dispatch dirs: several waves per SIMD, on several CUs, records out of
time order, stalls that overlap each other and their own issue windows, drains, files that
filenames.json misdates or does not list. Shares no code with flyprof: per SIMD it cuts time
at every interval bound and evaluates each elementary interval by brute force.

    sweep_ref.py gen SEED DIR      write a dispatch dir
    sweep_ref.py check DIR FILE    FILE = flyprof's bubbles.json (--limit 0) of DIR: compare

Checked: per SIMD issue / stall / exposed / lost, the totals (exposed, hidden, drain exposed
and lost), and per instruction, line and class the exposed cycles and the lost cycles (as
gain_upper_pct = 100 * lost / span_total, 2 decimals). A lost cycle counts once per
instruction / line / class however many waves stall in it.
"""
import json
import os
import random
import sys
from collections import defaultdict

SRC = "/synthetic/kernels/ref.py"
# (isa, line of source or None): a class per row is flyprof's (read from its output);
# no combined wait (its class is chosen per execution by its producers)
ROWS = [
    ("s_load_dwordx2 s[0:1], s[4:5], 0x0", 10),
    ("global_load_dwordx4 v[0:3], v4, s[0:1]", 12),
    ("s_waitcnt vmcnt(0)", 12),
    ("v_add_f32_e32 v0, v1, v0", 14),
    ("s_endpgm", 15),
    ("s_waitcnt lgkmcnt(0)", 16),
    ("s_nop 1", 16),
    ("s_cbranch_scc1 0x2", 17),
    ("v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]", 18),
    ("ds_read_b128 v[0:3], v4", None),
]
NOPIPE_OPS = ("s_waitcnt", "s_wait_", "s_nop", "s_barrier", "s_endpgm", "s_sendmsg", "s_sleep", "s_setprio")
CATS = [1, 2, 3, 4, 5, 6, 7, 9, 11]


def gen(seed, d):
    rng = random.Random(seed)
    os.makedirs(d, exist_ok=True)
    hit, lat, stl = defaultdict(int), defaultdict(int), defaultdict(int)  # code.json agrees with the waves
    listing = {}
    crowd = 40 <= seed < 48  # 18-40 waves on two SIMDs of one CU at once: more resident than exposed.c keeps sorted
    # seeds 48-63, "tails": on one CU, each wave begins while the one before is still in flight
    # after its last stall (a long last window); odd seeds dense (stalls overlapping their
    # wave's windows), even seeds orderly with 70-150 records a wave, read in chunks too
    # (tests/cli/bubbles_sweep_ref.sh), and one stall of a chunk inside a window of the one before
    tails = 48 <= seed < 64
    # seeds 64-79, "pairs": 4-8 waves at once on one SIMD, each stall closing where its window
    # starts (or, for a wait, where the next record's stall opens) and the next opening where that
    # window ends, on rows that share their line (2, 3: line 12; 6, 7: line 16) or class, so that
    # a stall closes and the next of its wave opens in one item while others are open
    # (exposed.c pass_stall); some stalls start inside the window before (unclean)
    pairs = 64 <= seed < 80
    prev_t = rng.randint(0, 100)
    for k in range(rng.randint(18, 40) if crowd else rng.randint(3, 8) if tails else
                   rng.randint(4, 8) if pairs else rng.randint(1, 7)):
        se, simd, cu = rng.randint(0, 1), rng.randint(0, 1), rng.choice([1, 1, 1, 2, 3])
        if crowd or tails or pairs:
            se, cu = 0, 1
        if pairs:
            simd = 0
            begin = rng.randint(0, 60)
            t, recs = begin, []
            for _ in range(rng.randint(66, 90) if k % 2 else rng.randint(10, 40)):
                st = rng.choice([0, rng.randint(1, 30), rng.randint(1, 30), rng.randint(1, 30)])
                du = st + rng.randint(1, 12)
                line = rng.choice([2, 3, 3, 3, 4, 6, 7, 7, 9, 10])
                recs.append([t, rng.choice(CATS), st, du, line])
                # the next stall opens where this window ends (as a rule), a little later, or inside it
                t += rng.choice([du, du, du, du + rng.randint(1, 3), st + rng.randint(0, du - st)])
            if rng.random() < 0.8:
                recs.append([t, 11, rng.randint(0, 5), rng.randint(0, 20), 5])
            end = max(max(r[0] + max(r[2], r[3]) for r in recs) + 1, begin + 1)
            for r in recs:
                hit[r[4]] += 1
                lat[r[4]] += max(r[2], r[3])
                stl[r[4]] += r[2]
            name = f"se{se}_sm{simd}_sl{k}_wv0.json"
            wave = {"begin": begin, "cu": cu, "end": end, "id": 0, "instructions": recs, "simd": simd, "slot": k,
                    "timeline": [[2, end - begin]], "waitcnt": []}
            json.dump({"duration": end - begin, "name": f"SE{se}", "num_insts": len(recs),
                       "num_stitched": len(recs), "wave": wave}, open(os.path.join(d, name), "w"))
            listing.setdefault(str(se), {}).setdefault(str(simd), {}).setdefault(str(k), {})["0"] = [name, begin, end]
            continue
        begin = rng.randint(0, 300)
        mode = rng.random()  # < 0.15: out of order; < 0.3: dense (overlapping stalls)
        if tails:  # mode 1: orderly, no stall meets a window of its wave (but the pattern below)
            begin, mode = prev_t + rng.randint(3, 60), 1 if seed % 2 == 0 else rng.choice([0.2, 0.5])
        t, recs = begin, []
        for _ in range(rng.randint(70, 150) if tails and seed % 2 == 0 else rng.randint(1, 40)):
            if tails and len(recs) == 61:  # pattern across rows 63 | 64 (chunks of 64): a stall of the
                # second chunk inside a window of the first, which is not the chunk's last span
                recs += [[t, 1, 0, 40, 4], [t + 2, 4, 0, 1, 3], [t + 5, 1, 60, 70, 4], [t + 6, 1, 3, 3, 4]]
                t += 80
            if mode < 0.15 and rng.random() < 0.3:
                t = max(0, t - rng.randint(0, 60))
            st = rng.choice([0, 0, 0, rng.randint(1, 80)])
            du = rng.choice([st, st + rng.randint(1, 30), rng.randint(0, 10)])
            line = rng.choice([1, 2, 3, 3, 4, 6, 6, 7, 8, 9, 10])
            recs.append([t, rng.choice(CATS), st, du, line])
            if mode == 1:
                t += max(st, du) + rng.randint(0, 4)
                continue
            t += rng.randint(0, 20) if mode < 0.3 else rng.choice([st, st + rng.randint(0, 12), rng.randint(0, 8)])
        if tails:  # a last window far past the wave's last stall and its drain
            recs.append([t, 1, 0, rng.randint(80, 400), 4])
            prev_t = t
            t += rng.randint(0, 3)
        if rng.random() < 0.8:
            recs.append([t + 2, 11, rng.randint(0, 5), rng.randint(0, 20), 5])
        end = max(max(r[0] + max(r[2], r[3]) for r in recs) + 1, begin + 1)
        for r in recs:
            hit[r[4]] += 1
            lat[r[4]] += max(r[2], r[3])
            stl[r[4]] += r[2]
        name = f"se{se}_sm{simd}_sl{k}_wv0.json"
        wave = {"begin": begin, "cu": cu, "end": end, "id": 0, "instructions": recs, "simd": simd, "slot": k,
                "timeline": [[2, end - begin]], "waitcnt": []}
        json.dump({"duration": end - begin, "name": f"SE{se}", "num_insts": len(recs), "num_stitched": len(recs),
                   "wave": wave}, open(os.path.join(d, name), "w"))
        dated = begin if rng.random() > 0.1 else begin + rng.randint(1, 200)  # misdated: flyprof redoes undated
        listing.setdefault(str(se), {}).setdefault(str(simd), {}).setdefault(str(k), {})["0"] = [name, dated, end]
    code = [["; ref_kernel", 0, 0, "", 2, 4096, 0, 0, 0, 0]]
    for i, (isa, line) in enumerate(ROWS, 1):
        code.append([isa, 0, i, f"{SRC}:{line}" if line else "", 2, 4096 + 4 * i, hit[i], lat[i], stl[i], 0])
    json.dump({"code": code, "header": "ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle",
               "version": "3.0.0"}, open(os.path.join(d, "code.json"), "w"))
    if rng.random() < 0.9:
        json.dump({"counter_names": [], "gfxip": 9, "gfxv": "vega", "global_begin_time": 0, "version": "3.0.0",
                   "wave_filenames": listing}, open(os.path.join(d, "filenames.json"), "w"))


def intervals(recs, rows):
    """(windows, stalls [(a, b, row)], drains) of one wave, as docs/exposed-stall.md defines them."""
    wins, stalls, drains = [], [], []
    for t, cat, st, du, pc in recs:
        if pc not in rows:
            continue
        st = max(st, 0)
        if st > 0:
            stalls.append((t, t + st, pc))
        a, b = t + st, t + max(st, du)
        if b <= a:
            continue
        op = rows[pc].split()[0].lower()
        if cat in (9, 11) or op.startswith(NOPIPE_OPS):
            if op.startswith("s_endpgm"):
                drains.append((a, b))
            continue
        wins.append((a, b))
    return wins, stalls, drains


def reference(d):
    code = json.load(open(os.path.join(d, "code.json")))["code"]
    rows = {r[2]: r[0] for r in code if not r[0].startswith(";")}
    line_of = {r[2]: r[3] for r in code if not r[0].startswith(";") and r[3]}
    simds = defaultdict(list)
    for f in sorted(os.listdir(d)):
        if f.startswith("se") and f.endswith(".json"):
            w = json.load(open(os.path.join(d, f)))["wave"]
            simds[(int(f[2:f.index("_")]), w["cu"], w["simd"])].append((w["begin"], w["end"], intervals(w["instructions"], rows)))
    out = {"simds": {}, "exposed": defaultdict(int), "lost_row": defaultdict(int), "lost_line": defaultdict(int),
           "lost_rows_of": [], "drain_exposed": 0, "drain_lost": 0, "span": 0, "stall": 0}
    for key, waves in simds.items():
        out["span"] += max(e for _, e, _ in waves) - min(b for b, _, _ in waves)
        cuts = sorted({x for _, _, (w, s, dr) in waves for iv in w + dr for x in iv} |
                      {x for _, _, (w, s, dr) in waves for a, b, _ in s for x in (a, b)})
        issue = stall = exposed = lost = 0
        lost_sets = []  # per elementary interval with nothing in flight: (length, rows stalled)
        for a, b in zip(cuts, cuts[1:]):
            ln = b - a
            fl = [any(x <= a < y for x, y in w) for _, _, (w, s, dr) in waves]
            busy = sum(fl)
            issue += ln if busy else 0
            rows_here = set()
            for i, (_, _, (w, s, dr)) in enumerate(waves):
                hidden = busy - fl[i] > 0
                for x, y, pc in s:
                    if x <= a < y:
                        if not hidden:
                            exposed += ln
                            out["exposed"][pc] += ln
                        rows_here.add(pc)
                for x, y in dr:
                    if x <= a < y and not hidden:
                        out["drain_exposed"] += ln
            if busy == 0 and any(x <= a < y for _, _, (w, s, dr) in waves for x, y in dr):
                out["drain_lost"] += ln
            if busy == 0 and rows_here:
                lost += ln
                lost_sets.append((ln, rows_here))
                for pc in rows_here:
                    out["lost_row"][pc] += ln
                for src in {line_of[pc] for pc in rows_here if pc in line_of}:
                    out["lost_line"][src] += ln
        for _, _, (w, s, dr) in waves:
            stall += sum(y - x for x, y, _ in s)
        out["lost_rows_of"] += lost_sets
        out["stall"] += stall
        out["simds"][key] = (issue, stall, exposed, lost)
    return out


def check(d, path):
    got = json.load(open(path))
    ref = reference(d)
    bad = []

    def eq(what, a, b, tol=0):
        if abs(a - b) > tol:
            bad.append(f"{what}: flyprof {a}, reference {b}")

    gs = {(s["se"], s["cu"], s["simd"]): (s["issue"], s["stall"], s["exposed"], s["lost"]) for s in got["simds"]}
    for k in sorted(set(gs) | set(ref["simds"])):
        if gs.get(k) != ref["simds"].get(k):
            bad.append(f"simd {k}: flyprof (issue, stall, exposed, lost) {gs.get(k)}, reference {ref['simds'].get(k)}")
    t = got["totals"]
    eq("exposed", t["exposed"], sum(ref["exposed"].values()))
    eq("hidden", t["hidden"], ref["stall"] - sum(ref["exposed"].values()))
    eq("drain_exposed", t["drain_exposed"], ref["drain_exposed"])
    eq("drain_lost", t["drain_lost"], ref["drain_lost"])
    span = ref["span"]
    eq("span_total", got["gain"]["span_total"], span)
    pct = lambda x: 100.0 * x / span if span else 0.0
    cls_of = {}
    for h in got["hotspots"]:
        pc = h["code_line"]
        cls_of[pc] = h["class"]
        eq(f"row {pc} exposed", h["exposed"], ref["exposed"].get(pc, 0))
        eq(f"row {pc} gain_upper_pct", h["gain_upper_pct"], pct(ref["lost_row"].get(pc, 0)), 0.0051)
    for L in got["lines"]:
        eq(f"line {L['source']} gain_upper_pct", L["gain_upper_pct"], pct(ref["lost_line"].get(L["source"], 0)), 0.0051)
    lost_cls = defaultdict(int)
    for ln, rs in ref["lost_rows_of"]:
        for c in {cls_of.get(pc) for pc in rs}:
            lost_cls[c] += ln
    exp_cls = defaultdict(int)
    for pc, v in ref["exposed"].items():
        exp_cls[cls_of.get(pc)] += v
    for c in got["classes"]:
        eq(f"class {c['class']} exposed", c["exposed"], exp_cls.get(c["class"], 0))
        eq(f"class {c['class']} gain_upper_pct", c["gain_upper_pct"], pct(lost_cls.get(c["class"], 0)), 0.0051)
    if None in exp_cls and exp_cls[None]:
        bad.append("a stalled row is missing from hotspots[]")
    print("\n".join(bad) if bad else f"ok {len(ref['simds'])} SIMDs, {sum(ref['exposed'].values())} exposed")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(int(sys.argv[2]), sys.argv[3])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3]))
