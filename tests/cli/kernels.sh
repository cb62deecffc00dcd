#!/bin/bash
# kernels: the ranking of a discovery run. On every corpus case the top kernel
# of `kernels --csv kernel_stats.csv` is the one with the largest
# TotalDurationNs, and of `kernels --csv kernel_trace.csv` the one with the
# largest sum of End-Start (both computed here with python's csv module); the
# numbers of every row equal the CSV's. Then rocpd (fp_make_rocpd), --bundle
# lookup, --filter/--limit (and the deprecated --top), the errors, and capture recording the same ranking.
. "$(dirname "$0")/lib/capture_env.sh"

# the shipped example: --bundle finds rocprof/kernel_stats.csv
fp kernels --bundle "$FP_SRC/examples/synthetic_gemm"
[ "$RC" = 0 ] || { cat "$T/out.json"; fail "example exit $RC"; }
[ "$(jget $T/out.json 'd["data"]["kernels"][0]["name"]')" = gemm_kernel_0 ] || fail "example top kernel"
[ "$(jget $T/out.json 'd["data"]["next"]')" = "flyprof capture gemm_kernel_0" ] || fail "example next"
[ "$(jget $T/out.json 'd["data"]["source"]')" = kernel_stats.csv ] || fail "example source"

C=${FP_CORPUS:-}
if [ -n "$C" ] && [ -f "$C/cases.tsv" ]; then
  ncase=0
  while IFS=$'\t' read -r id _rest; do
    [ "$id" = id ] && continue
    for kind in kernel_stats kernel_trace; do
      "$FLYPROF" kernels --csv "$C/$id/rocprof/$kind.csv" --limit 0 -f json > "$T/k.json" 2> "$T/k.err" ||
        fail "$id $kind: exit $?: $(cat "$T/k.err" "$T/k.json")"
      "$PY" - "$C/$id/rocprof/$kind.csv" "$T/k.json" "$kind" "$id" <<'PY' || fail "$id $kind: ranking"
import csv, json, sys
path, env, kind, case = sys.argv[1:5]
rows = list(csv.DictReader(open(path, newline="")))
tot, calls, mn, mx, order = {}, {}, {}, {}, []
for r in rows:
    if kind == "kernel_stats":
        n, t = r["Name"], int(r["TotalDurationNs"])
        tot[n], calls[n], mn[n], mx[n] = t, int(r["Calls"]), int(r["MinNs"]), int(r["MaxNs"])
    else:
        n, t = r["Kernel_Name"], int(r["End_Timestamp"]) - int(r["Start_Timestamp"])
        tot[n] = tot.get(n, 0) + t
        calls[n] = calls.get(n, 0) + 1
        mn[n] = min(mn.get(n, t), t)
        mx[n] = max(mx.get(n, t), t)
    if n not in order:
        order.append(n)
# sorted() is stable: ties keep first-seen order, like flyprof
expect = sorted(order, key=lambda n: -tot[n])
d = json.load(open(env))["data"]
got = [k["name"] for k in d["kernels"]]
assert got[0] == expect[0], f"{case} {kind}: top {got[0]!r} != {expect[0]!r}"
assert got == expect, f"{case} {kind}: order differs"
grand = sum(tot.values())
assert d["total_ns"] == grand and d["kernels_total"] == len(order)
for k in d["kernels"]:
    n = k["name"]
    assert (k["total_ns"], k["calls"], k["min_ns"], k["max_ns"]) == (tot[n], calls[n], mn[n], mx[n]), (case, k)
    assert abs(k["pct"] - 100.0 * tot[n] / grand) < 0.006, (case, k)
PY
    done
    ncase=$((ncase + 1))
  done < "$C/cases.tsv"
  echo "ok: $ncase corpus cases ranked like their CSVs"
  # --limit and --filter on a real case; the percentages stay of the whole run
  fp kernels --csv "$C/pa-big/rocprof/kernel_stats.csv" --filter '^pa_' --limit 1
  [ "$RC" = 0 ] || fail "filter exit $RC"
  [ "$(jget $T/out.json '[k["name"] for k in d["data"]["kernels"]]')" = "['pa_decode_ps_kernel_0']" ] || fail "filter"
  [ "$(jget $T/out.json 'd["data"]["kernels"][0]["rank"]')" = 2 ] || fail "rank among all kernels"
  [ "$(jget $T/out.json 'd["data"]["kernels"][0]["pct"]')" = 5.03 ] || fail "pct of the whole run"
  # a bare dispatch dir finds its case's rocprof/
  fp kernels --bundle "$C/pa-big/att/ui_output_agent_10886_dispatch_209" --limit 3
  [ "$RC" = 0 ] && [ "$(jget $T/out.json 'd["data"]["next"]')" = "flyprof capture pa_decode_ps_kernel_0" ] ||
    fail "dispatch dir bundle: $RC"
else
  echo "corpus not found at '$C': corpus cases skipped"
fi

# rocpd: the same ranking from a results.db
"$FP_TOOLS/fp_make_rocpd" "$T/r.db" --no-pmc "small_k@1:0:100:" "big_k@2:1000:1900:" "small_k@3:2000:2150:" \
  "mid_k@4:3000:3300:" > /dev/null 2>&1 || fail "fp_make_rocpd"
fp kernels --db "$T/r.db"
[ "$RC" = 0 ] || { cat "$T/out.json"; fail "rocpd exit $RC"; }
[ "$(jget $T/out.json '[(k["name"], k["calls"], k["total_ns"], k["min_ns"], k["max_ns"]) for k in d["data"]["kernels"]]')" = \
  "[('big_k', 1, 900, 900, 900), ('mid_k', 1, 300, 300, 300), ('small_k', 2, 250, 100, 150)]" ] ||
  fail "rocpd ranking: $(jget $T/out.json 'd["data"]["kernels"]')"

# errors: one code per mistake
fp kernels;                                    expect_error USAGE 64
fp kernels --csv "$T/nope.csv";                expect_error NO_ARTIFACT 66
fp kernels --csv "$T";                         expect_error BAD_ARGS 78
fp kernels --csv "$T/r.db" --db "$T/r.db";     expect_error BAD_ARGS 78
printf 'a,b\n1,2\n' > "$T/other.csv"
fp kernels --csv "$T/other.csv";               expect_error BAD_INPUT 65
fp kernels --db "$T/other.csv";                expect_error BAD_INPUT 65
fp kernels --bundle "$T/home";                 expect_error NO_ARTIFACT 66
mkdir -p "$T/empty"
fp kernels --bundle "$T/empty";                expect_error NO_ARTIFACT 66
fp kernels --db "$T/r.db" --filter '(';        expect_error USAGE 64
fp kernels --db "$T/r.db" --limit -1;          expect_error USAGE 64

# capture records the same ranking (fp_kernel_rank) in capture.json
fp capture softmax --bundle "$T/b" --shape 4096,8192,bf16
[ "$RC" = 0 ] || { cat "$T/out.json" "$T/err.txt"; fail "capture exit $RC"; }
fp kernels --bundle "$T/b" --top 8   # the deprecated spelling of --limit: still works, with a warning
[ "$RC" = 0 ] || fail "kernels on the capture bundle: $RC"
[ "$(jget "$T/out.json" "d['warnings']")" = "['--top is deprecated (one spelling per meaning): use --limit']" ] ||
  fail "--top alias warning: $(jget "$T/out.json" "d['warnings']")"
"$PY" - "$T/b/capture.json" "$T/out.json" <<'PY' || fail "capture's candidates differ from kernels"
import json, sys
cap = json.load(open(sys.argv[1]))["discovery"]["candidates"]
ker = json.load(open(sys.argv[2]))["data"]["kernels"]
assert cap == ker, (cap, ker)
assert cap[0]["rank"] == 1 and "pct" in cap[0]
PY
echo ok
