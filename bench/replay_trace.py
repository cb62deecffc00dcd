#!/usr/bin/env python3
"""bench/replay_trace.py SRC_DISPATCH_DIR OUT_DIR [--bytes SIZE] - a large real-format ATT trace.

Replays a corpus dispatch back to back in time, in the decoder's exact layout, until the wave
files reach SIZE (default 1G; suffixes K, M, G): replay k shifts every absolute time by
k x (the dispatch's span + 64 cycles) and gives each wave the next wave index of its
(SE, SIMD, slot): se<S>_sm<M>_sl<L>_wv<k>.json. Per replay it appends the occupancy.json
events of each SE, the wstates<k>.json steps and the filenames.json entries (all shifted),
so the occupancy and listing grow with the trace as they do in a real long capture (~300 B
of occupancy per wave, not the ~41 B of tests/tools/gen_scale_spec.py). code.json, snapshots
and the sources are copied once. Compact JSON (separators "," ":") as the decoder writes it.
Prints OUT_DIR's dispatch dir. Needs SIZE of disk.

--single-wave: ONE wave file of SIZE instead (the memory bound of a huge wave, issue 22):
the dispatch's largest wave replayed back to back inside itself - its instruction rows
shifted by k x (its span + 64), its timeline and waitcnt lists repeated - written row by
row (never held whole). The other side files are copied as they are, filenames.json dropped.
"""
import argparse
import json
import os
import re
import shutil
import sys

WAVE = re.compile(r"^se(\d+)_sm(\d+)_sl(\d+)_wv(\d+)\.json$")


def size_arg(s):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]?)", s.upper())
    if not m:
        raise argparse.ArgumentTypeError("a size like 1G or 500M")
    return int(float(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2)])


def dump(obj, path):
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))


SENT = ("\u0001B", "\u0001E", "\u0001I", "\u0001R")


def template(w):
    """The wave file's compact JSON cut around begin, end, id and the instruction rows
    (json.dump's bytes with those four replaced by markers), plus each row's time and the
    text after it: a replay is then one join, not a dump of every row."""
    wave = dict(w["wave"])
    wave["begin"], wave["end"], wave["id"], wave["instructions"] = SENT
    out = dict(w)
    out["wave"] = wave
    text = json.dumps(out, separators=(",", ":"))
    parts, rest = [], text
    for m in SENT:
        q = json.dumps(m)  # the marker as dumped, quotes included (instructions: inside its brackets)
        a, rest = rest.split(q, 1)
        parts.append(a + "[" if m == SENT[3] else a)
        if m == SENT[3]:
            rest = "]" + rest
    parts.append(rest)
    insts = w["wave"]["instructions"]
    times = [i[0] for i in insts]
    rests = ["".join("," + json.dumps(x) for x in i[1:]) + "]" for i in insts]
    return parts, times, rests


def rows_text(rows):
    return ",".join("[" + ",".join(str(x) for x in r) + "]" for r in rows)


def single_wave(src, out, size):
    name = os.path.basename(src)
    dst = os.path.join(out, name)
    os.makedirs(dst)
    files = [f for f in sorted(os.listdir(src)) if WAVE.match(f)]
    big = max(files, key=lambda f: os.path.getsize(os.path.join(src, f)))
    for f in os.listdir(src):
        if not WAVE.match(f) and f != "filenames.json" and os.path.isfile(os.path.join(src, f)):
            shutil.copy(os.path.join(src, f), os.path.join(dst, f))
    d = json.load(open(os.path.join(src, big)))
    w = d["wave"]
    insts, tl, wc = w["instructions"], w.get("timeline") or [], w.get("waitcnt") or []
    period = w["end"] - w["begin"] + 64
    reps = max(1, -(-size // os.path.getsize(os.path.join(src, big))))
    head = {k: v for k, v in d.items() if k != "wave"}
    scal = {k: v for k, v in w.items() if k not in ("instructions", "timeline", "waitcnt")}
    scal["end"] = w["begin"] + (reps - 1) * period + (w["end"] - w["begin"])
    wct, tlt = rows_text(wc), rows_text(tl)
    path = os.path.join(dst, big)
    with open(path, "w") as f:
        f.write(json.dumps(head, separators=(",", ":"))[:-1] + ',"wave":')
        f.write(json.dumps(scal, separators=(",", ":"))[:-1] + ',"instructions":[')
        for r in range(reps):
            dt = r * period
            f.write(("," if r else "") + rows_text([[i[0] + dt] + i[1:] for i in insts]))
        f.write('],"timeline":[' + ",".join([tlt] * reps if tl else []))
        f.write('],"waitcnt":[' + ",".join([wct] * reps if wc else []) + "]}}")
    sys.stderr.write("%d replays of %s: %.1f MB\n" % (reps, big, os.path.getsize(path) / 1e6))
    print(dst)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--bytes", type=size_arg, default=1 << 30)
    ap.add_argument("--single-wave", action="store_true")
    a = ap.parse_args()
    if a.single_wave:
        return single_wave(a.src.rstrip("/"), a.out, a.bytes)
    src = a.src.rstrip("/")
    name = os.path.basename(src)
    dst = os.path.join(a.out, name)
    os.makedirs(dst)
    waves, other = [], []
    for f in sorted(os.listdir(src)):
        m = WAVE.match(f)
        if m:
            waves.append((tuple(int(x) for x in m.groups()), json.load(open(os.path.join(src, f)))))
        elif os.path.isfile(os.path.join(src, f)):
            other.append(f)
    begin = min(w["wave"]["begin"] for _, w in waves)
    end = max(w["wave"]["end"] for _, w in waves)
    occ = json.load(open(os.path.join(src, "occupancy.json")))
    for evs in occ.values():
        if isinstance(evs, list) and evs:
            begin, end = min(begin, evs[0][0]), max(end, evs[-1][0])
    period = end - begin + 64
    per_replay = sum(os.path.getsize(os.path.join(src, "se%d_sm%d_sl%d_wv%d.json" % k)) for k, _ in waves)
    reps = max(1, -(-a.bytes // per_replay))
    wst = {}
    for f in other:
        if re.fullmatch(r"wstates\d+\.json", f):
            wst[f] = json.load(open(os.path.join(src, f)))
        elif f not in ("occupancy.json", "filenames.json"):
            shutil.copy(os.path.join(src, f), os.path.join(dst, f))
    fn = json.load(open(os.path.join(src, "filenames.json"))) if "filenames.json" in other else None
    occ_out = {k: ([] if isinstance(v, list) else v) for k, v in occ.items()}
    wst_out = {f: {"name": w.get("name", f), "state": [], "time": []} for f, w in wst.items()}
    listing = {}
    written = 0
    tpl = [template(w) for _, w in waves]
    for r in range(reps):
        dt = r * period
        for ((se, sm, sl, wv), w), (parts, times, rests) in zip(waves, tpl):
            begin, end = w["wave"]["begin"] + dt, w["wave"]["end"] + dt
            fname = "se%d_sm%d_sl%d_wv%d.json" % (se, sm, sl, wv + r)
            rows = ",".join(["[" + str(t + dt) + x for t, x in zip(times, rests)])
            text = parts[0] + str(begin) + parts[1] + str(end) + parts[2] + str(wv + r) + parts[3] + rows + parts[4]
            with open(os.path.join(dst, fname), "w") as f:
                f.write(text)
            written += len(text)
            listing.setdefault(str(se), {}).setdefault(str(sm), {}).setdefault(str(sl), {})[str(wv + r)] = \
                [fname, begin, end]
        for k, v in occ.items():
            if isinstance(v, list):
                occ_out[k].extend([e[0] + dt] + e[1:] for e in v)
        for f, w in wst.items():
            wst_out[f]["state"].extend(w["state"])
            wst_out[f]["time"].extend(t + dt for t in w["time"])
    dump(occ_out, os.path.join(dst, "occupancy.json"))
    for f, w in wst_out.items():
        dump(w, os.path.join(dst, f))
    if fn is not None:
        fn["wave_filenames"] = listing
        dump(fn, os.path.join(dst, "filenames.json"))
    sys.stderr.write("%d replays, %d wave files, %.1f MB of waves, occupancy.json %.1f MB\n" % (
        reps, reps * len(waves), written / 1e6, os.path.getsize(os.path.join(dst, "occupancy.json")) / 1e6))
    print(dst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
