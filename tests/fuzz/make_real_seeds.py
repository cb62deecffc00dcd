#!/usr/bin/env python3
"""make_real_seeds.py CORPUS SEEDS - real-format seeds cut small from the MI350X corpus
(/work/shared/corpus): a few hundred bytes each, never whole corpus files.

  wave_side/real_<case>_wstates3.json   the first 64 cells of wstates3.json's arrays
  wave_side/real_<case>_occupancy.json  the first 24 rows of the first two SEs of occupancy.json
  filenames_json/real_<case>.json       '#' + six of the dir's wave names (the first line: the
                                        files fuzz_filenames_json creates), then filenames.json
                                        with wave_filenames cut to those six

Written compact, as rocprofv3 writes them (the fast paths' layout)."""
import glob
import json
import os
import sys

CASES = ["flash_attn_func-big", "moe_reduce-big", "vec_add-big"]


def dump(path, text):
    with open(path, "w") as f:
        f.write(text)


def compact(v):
    return json.dumps(v, separators=(",", ":"))


def main(corpus, seeds):
    for case in CASES:
        d = sorted(glob.glob(os.path.join(corpus, case, "att", "ui_output_*")))[0]
        ws = json.load(open(os.path.join(d, "wstates3.json")))
        for k in ("state", "time"):
            ws[k] = ws[k][:64]
        dump(os.path.join(seeds, "wave_side", f"real_{case}_wstates3.json"), compact(ws))
        occ = json.load(open(os.path.join(d, "occupancy.json")))
        cut = {k: occ[k][:24] for k in list(occ)[:2]}
        dump(os.path.join(seeds, "wave_side", f"real_{case}_occupancy.json"), compact(cut))
        fn = json.load(open(os.path.join(d, "filenames.json")))
        kept, names = {}, []
        for se, simds in fn["wave_filenames"].items():
            for simd, slots in simds.items():
                for slot, waves in slots.items():
                    for n, ent in waves.items():
                        if len(names) < 6:
                            kept.setdefault(se, {}).setdefault(simd, {}).setdefault(slot, {})[n] = ent
                            names.append(ent[0])
        fn["wave_filenames"] = kept
        dump(os.path.join(seeds, "filenames_json", f"real_{case}.json"), "#" + " ".join(names) + "\n" + compact(fn))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
