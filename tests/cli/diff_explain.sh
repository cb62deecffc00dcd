#!/bin/bash
# diff_explain: the diff that explains (issue 17 item 6) on synthetic loop kernels
# (tests/tools/diff_loop_specs.py): one verdict per case, each checked against an
# independent reference (tests/tools/diff_ref.py) computed from the raw wave files
# (loop span per iteration, Welch 95 % CI with a t quantile found by integrating the
# t density, not a table), the code identity, the void time comparison (one kernel_trace.csv),
# the acceptance test that follows a moved hot line, and the --fail-on exit codes:
# 0 pass, 1 REGRESSED, 3 INCONCLUSIVE.
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

python3 "$FP_SRC/tests/tools/diff_loop_specs.py" "$T" || fail "specs"
for c in base moved slow wide_a wide_b extra; do
    "$FP_TOOLS/fp_gen_att" "$T/$c.json" "$T/$c" > /dev/null || fail "generator $c"
    "$FLYPROF" report --bundle "$T/$c" -q -f json > /dev/null || fail "report $c"
done
cmp -s "$T/base/rocprof/kernel_trace.csv" "$T/moved/rocprof/kernel_trace.csv" || fail "the CSVs should be one file"

# The reference (tests/tools/diff_ref.py, from the raw wave files): per wave, first
# loop-body record to the end of the last one, / the back-edge's executions; means,
# sample sd, Welch CI with a t quantile integrated from the density.
ref() {
    python3 "$FP_SRC/tests/tools/diff_ref.py" "$T/$1"/att/ui_output_* "$T/$2"/att/ui_output_* |
        python3 -c "import json,sys; c=json.load(sys.stdin)['per_iteration']; print('%.2f %.2f %.2f' % (c['delta_pct'], c['ci_low_pct'], c['ci_high_pct']))"
}
# diff BEFORE AFTER [args] -> $T/e.json, exit status in $rc
run() { local b=$1 a=$2; shift 2; "$FLYPROF" diff --before "$T/$b" --after "$T/$a" --no-write -q -f json "$@" > "$T/e.json"; rc=$?; }
got() { py "$T/e.json" "'%.2f %.2f %.2f' % (j['data']['verdict']['delta'], j['data']['verdict']['ci_low'], j['data']['verdict']['ci_high'])"; }
# the last digit may differ: the report rounds the per-wave means and sds to 2 decimals
near() { python3 -c "import sys; a=list(map(float,sys.argv[1].split())); b=list(map(float,sys.argv[2].split())); sys.exit(max(abs(x-y) for x,y in zip(a,b)) > 0.02)" "$1" "$2"; }

# ---- same code, lines moved, other waves (5 -> 3 and 5 iterations): neutral per iteration ----
run base moved --fail-on regressed
[ $rc -eq 0 ] || fail "moved: exit $rc"
[ "$(py "$T/e.json" "(j['data']['verdict']['overall'], j['data']['verdict']['basis'], j['data']['code']['identity'], j['data']['work']['time_void'])")" = \
  "('neutral', 'cycles_per_iteration', 'unchanged', True)" ] || fail "moved verdict: $(py "$T/e.json" "j['data']['verdict']")"
R=$(ref base moved); G=$(got)
near "$R" "$G" || fail "moved: per iteration $G, reference $R"
[ "$(py "$T/e.json" "j['data']['work']['iterations_per_wave']")" = "{'before': 5, 'after': 4, 'delta': -1}" ] || fail "moved iterations"
[ "$(py "$T/e.json" "j['data']['work']['per_wave']['delta_pct'] < -15")" = True ] || fail "moved: per wave should look faster"
[ "$(py "$T/e.json" "any(c['significant'] for c in j['data']['classes'])")" = False ] || fail "moved: same code, no share change is a change"
[ "$(py "$T/e.json" "[a['note'] for a in j['data']['acceptance']][0]")" = \
  "hot line moved loopk.py:14 -> loopk.py:15 (2 of 2 instructions matched by opcode+block position (source changed)); per main-loop iteration" ] ||
    fail "moved acceptance: $(py "$T/e.json" "j['data']['acceptance']")"
[ "$(py "$T/e.json" "any(w.startswith('time comparison void') for w in j['warnings'])")" = True ] || fail "time void warning"
[ "$(py "$T/e.json" "j['data']['instructions']['matched'] == j['data']['instructions']['before']")" = True ] || fail "moved matching"

# ---- same code, slower memory: regressed; --fail-on regressed exits 1 ----
run base slow --fail-on regressed
[ $rc -eq 1 ] || fail "slow: exit $rc"
[ "$(py "$T/e.json" "(j['error']['code'], j['data']['verdict']['overall'])")" = "('REGRESSED', 'regressed')" ] || fail "slow verdict"
R=$(ref base slow); G=$(got)
near "$R" "$G" || fail "slow: per iteration $G, reference $R"
[ "$(py "$T/e.json" "any('environment differs' in w for w in j['warnings'])")" = True ] || fail "slow: same code note"

# ---- the reverse: improved; passes --fail-on regressed, trips any-change ----
run slow base --fail-on regressed
[ $rc -eq 0 ] || fail "faster: exit $rc"
[ "$(py "$T/e.json" "j['data']['verdict']['overall']")" = improved ] || fail "faster verdict"
run slow base --fail-on any-change
[ $rc -eq 1 ] || fail "faster any-change: exit $rc"

# ---- two waves a side, large jitter, one operand changed: inconclusive, exit 3 ----
run wide_a wide_b
[ $rc -eq 0 ] || fail "wide without a gate: exit $rc"
run wide_a wide_b --fail-on regressed
[ $rc -eq 3 ] || fail "wide: exit $rc"
[ "$(py "$T/e.json" "(j['error']['code'], j['error']['exitCode'], j['data']['verdict']['overall'], j['data']['code']['identity'])")" = \
  "('INCONCLUSIVE', 3, 'inconclusive', 'operands_changed')" ] || fail "wide verdict: $(py "$T/e.json" "j['error']")"
R=$(ref wide_a wide_b); G=$(got)
near "$R" "$G" || fail "wide: per iteration $G, reference $R"
run wide_a wide_b --fail-on any-change
[ $rc -eq 3 ] || fail "wide any-change: exit $rc"

# ---- one instruction inserted: code changed, instructions still matched by identity ----
run base extra
[ "$(py "$T/e.json" "(j['data']['code']['identity'], j['data']['instructions']['unmatched_after'], j['data']['instructions']['unmatched_before'])")" = \
  "('changed', 1, 0)" ] || fail "extra: $(py "$T/e.json" "(j['data']['code'], j['data']['instructions'])")"
R=$(ref base extra); G=$(got)
near "$R" "$G" || fail "extra: per iteration $G, reference $R"

# ---- the table says it too ----
"$FLYPROF" diff --before "$T/base" --after "$T/moved" --no-write -q -f table > "$T/t.txt" 2>&1
grep -q '^code: unchanged' "$T/t.txt" || fail "table: code line"
grep -q '^work: per wave .*main-loop iterations: per iteration' "$T/t.txt" || fail "table: work line"
echo "ok"
