#!/bin/bash
# diff_pairs: `flyprof diff` on the corpus pairs that share one kernel_trace.csv,
# against an independent reference from the raw files (tests/tools/diff_ref.py).
#
# The reasoning, pair by pair (issue 17 item 6):
#  * flash_attn_func-small -> flash_attn_func-small-after_loc_fix (and back): a
#    recapture after a source-location fix. The ISA is byte-identical (same SHA-256
#    over the 2069 instruction texts), so the verdict must say "code unchanged" and
#    can only be neutral. The traced waves differ: 4 waves x 5 main-loop iterations
#    before, 8 waves of 3 or 5 (mean 4.0) after, so per wave the after side looks
#    16.5 % faster while per iteration of the main loop (loop span / iterations, per
#    wave) it moves -0.15 % with a 95 % CI of about +-2 % from the waves' own spread.
#    Both CSVs are the same file, whose rows issue 23 refuses (another grid): each
#    duration is the traced wave span, a sample, so the verdict uses the waves'
#    cycles with their spread. The decorator line :257 -> :258 carries no line test
#    (issue 17's debug-info gate: class tests there); the LDS test of :283 follows its
#    instructions to :746.
#  * flash_attn_func-big -> flash_attn_func-small: the same opcodes in the same
#    order, but 21 instructions differ in operands (shape constants): another
#    specialisation, "operands_changed", never "code unchanged"; big keeps the CSV rows,
#    small has a wave span: the waves decide again.
# The issue's "-1.3 % per iteration" came from another per-iteration measure; this
# one is the wall-clock loop span per iteration of each wave (docs/commands/diff.md).
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

for id in flash_attn_func-small flash_attn_func-small-after_loc_fix flash_attn_func-big; do
    "$FLYPROF" report --bundle "$C/$id"/att/ui_output_* --out-dir "$T/$id" -q -f json > /dev/null || fail "report $id"
done

# check BEFORE AFTER IDENTITY VERDICT: diff.json against the reference
check() {
    "$FLYPROF" diff --before "$T/$1/report.json" --after "$T/$2/report.json" --out "$T/d.json" -q -f json \
        > "$T/e.json" || fail "diff $1 $2"
    python3 "$FP_SRC/tests/tools/diff_ref.py" "$C/$1"/att/ui_output_* "$C/$2"/att/ui_output_* > "$T/ref.json" ||
        fail "reference $1 $2"
    python3 - "$T/d.json" "$T/ref.json" "$T/e.json" "$3" "$4" "$1 -> $2" <<'PY' || fail "$1 -> $2"
import json, sys
d, r, e = (json.load(open(p)) for p in sys.argv[1:4])
identity, verdict, pair = sys.argv[4:7]
near = lambda x, y, eps: abs(x - y) <= eps
assert d["code"]["identity"] == identity, d["code"]
assert d["code"]["sha256_before"] == r["before"]["sha256"] and d["code"]["sha256_after"] == r["after"]["sha256"]
assert d["verdict"]["overall"] == verdict, d["verdict"]
assert d["verdict"]["basis"] == "cycles_per_iteration", d["verdict"]
# the CSV (one file for all flash_attn cases) does not decide: issue 23 refuses its rows for the small
# cases (grid 512 workgroups vs 128 traced), whose durations are then traced wave spans, samples like
# the per-wave cycles; the big case keeps the CSV rows
assert d["work"]["time_void"] is False
assert any("traced wave span" in w for w in e["warnings"]), e["warnings"]
for unit in ("per_wave", "per_iteration"):
    got, ref = d["work"][unit], r[unit]
    # the report keeps means and sds to 2 decimals: the percentages agree to 0.02
    for k in ("delta_pct", "ci_low_pct", "ci_high_pct"):
        assert near(got[k], ref[k], 0.02), (unit, k, got[k], ref[k])
assert near(d["verdict"]["delta"], r["per_iteration"]["delta_pct"], 0.01)
assert d["verdict"]["ci_low"] < d["verdict"]["delta"] < d["verdict"]["ci_high"]
assert d["work"]["iterations_per_wave"]["before"] == round(r["before"]["iterations_per_wave"], 2)
assert d["work"]["iterations_per_wave"]["after"] == round(r["after"]["iterations_per_wave"], 2)
loop = "%d..%d" % tuple(r["before"]["loop"])
assert d["work"]["loop_before"].startswith(loop), (d["work"]["loop_before"], loop)
if identity == "unchanged":
    # nothing in the same binary can change but what was sampled
    assert not any(c["significant"] for c in d["classes"]), [c for c in d["classes"] if c["significant"]]
    assert d["verdict"]["ci_low"] <= 0 <= d["verdict"]["ci_high"]
print("%s: %s, %s; per wave %+.1f%% [%+.1f, %+.1f]; per iteration %+.2f%% [%+.2f, %+.2f]" % (
    pair, identity, d["verdict"]["overall"], d["work"]["per_wave"]["delta_pct"],
    d["work"]["per_wave"]["ci_low_pct"], d["work"]["per_wave"]["ci_high_pct"], d["verdict"]["delta"],
    d["verdict"]["ci_low"], d["verdict"]["ci_high"]))
PY
}

# every corpus case: report.json "work" (per-wave cycles, main loop, cycles per iteration) is what
# the reference computes from the raw files (the wave walk is split over two threads on big cases:
# 4112 waves on moe_reduce-big; the merge must keep the figures of a serial walk)
while IFS=$'\t' read -r id _rest; do
    [ "$id" = id ] && continue
    "$FLYPROF" report --bundle "$C/$id"/att/ui_output_* --out-dir "$T/w-$id" --no-html -q -f json > /dev/null ||
        fail "report $id"
    python3 - "$FP_SRC/tests/tools" "$C/$id"/att/ui_output_* "$T/w-$id/report.json" <<'PY' || fail "$id: work"
import json, sys
sys.path.insert(0, sys.argv[1])
import diff_ref as R
s, w = R.side(sys.argv[2]), json.load(open(sys.argv[3]))["work"]
near = lambda x, y: abs(x - round(y, 2)) < 0.006
m, sd = R.mean_sd(s["cycles"])
assert w["wave_cycles"]["n"] == len(s["cycles"]) and near(w["wave_cycles"]["mean"], m) and near(w["wave_cycles"]["sd"], sd), w
ml = w["main_loop"]
if s["loop"] and s["per_iter"]:
    pm, psd = R.mean_sd(s["per_iter"])
    assert ml and [ml["head"], ml["back_edge"]] == list(s["loop"]), (ml, s["loop"])
    assert near(ml["cycles_per_iteration"]["mean"], pm) and near(ml["cycles_per_iteration"]["sd"], psd), ml
    assert near(ml["iterations_per_wave"]["mean"], s["iterations_per_wave"]), ml
else:
    assert ml is None, ml
PY
done < "$C/cases.tsv"

check flash_attn_func-small flash_attn_func-small-after_loc_fix unchanged neutral
# the location fix moved the hot line: the acceptance test follows its instructions
python3 - "$T/d.json" <<'PY' || fail "moved hot line"
import json, sys
d = json.load(open(sys.argv[1]))
notes = [a["note"] for a in d["acceptance"] if a["kind"] == "line_stall_drop"]
assert notes and all(n.startswith("hot line moved flash_attn_func.py:") for n in notes), notes
# issue 17 item 5 (verdicts): the decorator line :257 is no acceptance target any more (its tests
# are class tests, which a location fix cannot break); the line test left (:283) follows its
# instructions to their new line
assert not any(n.startswith("hot line moved flash_attn_func.py:257") for n in notes), notes
assert any(n.startswith("hot line moved flash_attn_func.py:283 -> flash_attn_func.py:746") for n in notes), notes
assert all(a["verdict"] != "unknown" for a in d["acceptance"]), d["acceptance"]
PY
check flash_attn_func-small-after_loc_fix flash_attn_func-small unchanged neutral
check flash_attn_func-big flash_attn_func-small operands_changed improved
echo "ok"
