#!/usr/bin/env bash
# Conformance of `flyprof hotspots` against the reference analyzer's outputs in
# the corpus (../shared/corpus/*/expected): for every case and the 4 modes,
# the -f table text must be byte-identical from line 3 on (line 2 echoes the
# path argument), except the "Register Pressure & Occupancy" block (the newer
# seed-000 model by design); and the -f json numbers must equal
# expected/hotspots.numbers.json. Skips (77) when the corpus is absent.
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

declare -A MODE_ARGS=(
    [both-top15-detail-ctx4]="--mode both --topk 15 --detail --context 4"
    [default]=""
    [src-top5-detail-ctx4]="--mode src --topk 5 --detail --context 4"
    [asm-top30]="--mode asm --topk 30"
)
MODES="both-top15-detail-ctx4 default src-top5-detail-ctx4 asm-top30"

# 1. Run flyprof for every case and mode (from att/, with the dispatch name).
while IFS=$'\t' read -r id _set _kernel _variant dispatch _rest; do
    [ "$id" = "id" ] && continue
    mkdir -p "$T/$id"
    for mode in $MODES; do
        # shellcheck disable=SC2086
        (cd "$C/$id/att" && "$FLYPROF" hotspots "$dispatch" -f table -q ${MODE_ARGS[$mode]}) \
            > "$T/$id/$mode.txt" 2> "$T/$id/$mode.err"
        echo $? > "$T/$id/$mode.rc"
    done
    (cd "$C/$id/att" && "$FLYPROF" hotspots "$dispatch" -f json --topk 100000) \
        > "$T/$id/out.json" 2>/dev/null
    echo $? > "$T/$id/json.rc"
done < "$C/cases.tsv"

# 2. Compare everything in one python process.
python3 - "$C" "$T" $MODES <<'PY'
import json, os, sys
corpus, tmp, modes = sys.argv[1], sys.argv[2], sys.argv[3:]
RULE = "\u2550" * 90

def cut_regs(text):
    """Lines 3.. without the register block (its title rules up to the next rule)."""
    lines = text.split("\n")[2:]
    out, i = [], 0
    while i < len(lines):
        if lines[i] == RULE and i + 1 < len(lines) and lines[i + 1] == "  Register Pressure & Occupancy":
            i += 3
            while i < len(lines) and lines[i] != RULE:
                i += 1
            continue
        out.append(lines[i]); i += 1
    return out

def numbers(d, exp):
    errs = []
    for k in ("instructions", "total_cycles", "total_stall"):
        if d[k] != exp[k]: errs.append(f"{k}: {d[k]} != {exp[k]}")
    got = [[t["type"], t["stall"]] for t in d["stall_by_type"]]
    if got != exp["stall_by_type"]: errs.append(f"stall_by_type: {got} != {exp['stall_by_type']}")
    if len(d["source_lines"]) != len(exp["source_lines"]):
        errs.append(f"source_lines: {len(d['source_lines'])} != {len(exp['source_lines'])}")
    for g, e in zip(d["source_lines"], exp["source_lines"]):
        for k in ("rank", "source_loc", "stall", "cycles", "dominant_type", "stalling_pc_index"):
            if g[k] != e[k]: errs.append(f"source line {e['rank']} {k}: {g[k]} != {e[k]}")
        if abs(g["stall_pct"] - e["stall_pct"]) > 5e-5: errs.append(f"source line {e['rank']} stall_pct")
        if g["stalling_total"] != len(e["stalling_pc_index"]): errs.append(f"source line {e['rank']} stalling_total")
    if d["stalling_instructions_total"] != exp["stalling_instructions_total"]:
        errs.append("stalling_instructions_total")
    if len(d["instructions_ranked"]) < len(exp["asm_ranking"]): errs.append("asm ranking too short")
    for g, e in zip(d["instructions_ranked"], exp["asm_ranking"]):
        for k in ("rank", "pc_index", "stall", "cycles", "type", "asm", "source_loc"):
            if g[k] != e[k]: errs.append(f"instruction {e['rank']} {k}: {g[k]} != {e[k]}")
    r, ri = d["registers"], exp["reg_info"]
    if (r["isa_scan"]["arch_vgpr"], r["isa_scan"]["accum_vgpr"]) != (ri["arch_vgpr"], ri["accum_vgpr"]):
        errs.append(f"isa scan {r['isa_scan']} vs {ri}")
    for k, ek in (("mfma", "mfma_count"), ("buffer_load", "buffer_load"), ("buffer_store", "buffer_store"),
                  ("ds_read", "ds_read"), ("ds_write", "ds_write")):
        if r["instruction_mix"][k] != ri[ek]: errs.append(f"instruction mix {k}")
    if not ri["arch"].startswith(r["opcode_heuristic"]): errs.append("opcode heuristic")
    return errs

passed = failed = 0
cases = [l.split("\t")[0] for l in open(os.path.join(corpus, "cases.tsv"), encoding="utf-8").read().splitlines()[1:] if l]
for cid in cases:
    for mode in modes:
        rc = open(f"{tmp}/{cid}/{mode}.rc").read().strip()
        exp = open(f"{corpus}/{cid}/expected/hotspots.{mode}.txt", encoding="utf-8").read()
        got = open(f"{tmp}/{cid}/{mode}.txt", encoding="utf-8").read()
        a, b = cut_regs(exp), cut_regs(got)
        if rc != "0" or a != b:
            failed += 1
            print(f"FAIL {cid} {mode}: exit {rc} {open(f'{tmp}/{cid}/{mode}.err').read()[:200]}")
            for i, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    print(f"  first difference at line {i + 3}:\n  expected: {x!r}\n  got:      {y!r}"); break
            else:
                print(f"  line counts: expected {len(a)}, got {len(b)}")
        else:
            passed += 1
    try:
        env = json.load(open(f"{tmp}/{cid}/out.json"))
        assert env["ok"] is True, env
        errs = numbers(env["data"], json.load(open(f"{corpus}/{cid}/expected/hotspots.numbers.json")))
    except Exception as e:  # a broken envelope is a failure, not a crash of the test
        errs = [f"bad envelope: {e!r}"]
    if errs:
        failed += 1
        print(f"FAIL {cid} numbers:\n  " + "\n  ".join(errs[:10]))
    else:
        passed += 1
print(f"hotspots conformance: {passed} passed, {failed} failed")
sys.exit(1 if failed or passed != len(cases) * (len(modes) + 1) else 0)
PY
