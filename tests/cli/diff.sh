#!/bin/bash
# diff: a bundle against itself is neutral with zero deltas; a real fix
# (prefetched loop) is "improved" with its acceptance tests met; report.json
# files and bundles are both accepted; typed errors for missing / bad inputs.
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
gen() { "$FP_TOOLS/fp_gen_att" "$FP_SRC/tests/data/gen/$1.json" "$T/$2" >/dev/null || fail "generator $1"; }

gen rep_stream before
gen rep_stream_fixed after
"$FLYPROF" report --bundle "$T/before" -q -f json > /dev/null || fail "report before"

# ---- self diff: neutral, every delta zero ----
"$FLYPROF" diff --before "$T/before" --after "$T/before/report.json" --out "$T/self.json" -q -f json > "$T/env.json"
rc=$?
[ $rc -eq 0 ] || fail "self diff exit $rc"
D="$T/self.json"
[ "$(py "$D" "j['verdict']['overall']")" = neutral ] || fail "self verdict"
[ "$(py "$D" "j['verdict']['delta']")" = 0 ] || fail "self delta"
[ "$(py "$D" "all(c['delta'][k]==0 for c in j['classes'] for k in ('pct','stall_per_wave','exposed_per_wave'))")" = True ] || fail "class deltas"
[ "$(py "$D" "len(j['classes']) > 0")" = True ] || fail "no classes"
[ "$(py "$D" "all(l['delta']['pct']==0 and l['delta']['stall_per_wave']==0 for l in j['lines']['rows'])")" = True ] || fail "line deltas"
[ "$(py "$D" "j['instructions']['changed']")" = 0 ] || fail "instruction deltas"
[ "$(py "$D" "j['instructions']['matched'] == j['instructions']['before'] > 0")" = True ] || fail "instruction matching"
[ "$(py "$D" "j['totals']['stall_pct']['delta']")" = 0 ] || fail "stall delta"
[ "$(py "$D" "[a['verdict'] for a in j['acceptance']]")" = "['not_met', 'not_met']" ] || fail "self acceptance"
[ "$(py "$T/env.json" "j['data']['artifact'] is not None")" = True ] || fail "artifact path"

# ---- the fix: loads issued one iteration ahead, shorter dispatches ----
"$FLYPROF" diff --before "$T/before" --after "$T/after" -q -f json > "$T/env.json"; rc=$?
[ $rc -eq 0 ] || fail "fix diff exit $rc"
[ -s "$T/after/diff.json" ] || fail "default artifact in the after bundle"
D="$T/after/diff.json"
[ "$(py "$D" "j['verdict']['overall']")" = improved ] || fail "fix verdict"
[ "$(py "$D" "j['verdict']['basis']")" = time_ns_per_call ] || fail "fix basis"
[ "$(py "$D" "j['verdict']['delta']")" = -40 ] || fail "fix delta"
[ "$(py "$D" "[(a['rule'], a['verdict']) for a in j['acceptance']]")" = "[('vmem_prefetch', 'met'), ('load_use_distance', 'met')]" ] ||
    fail "fix acceptance: $(py "$D" "[(a['rule'], a['verdict']) for a in j['acceptance']]")"
[ "$(py "$D" "[c for c in j['classes'] if c['class']=='vmcnt'][0]['delta']['pct'] < -5")" = True ] || fail "vmcnt share"
# instructions of the same line + opcode are matched although their pc moved
[ "$(py "$D" "j['instructions']['matched_by_source'] > 0 and j['instructions']['moved'] > 0")" = True ] || fail "moved match"

# the reverse is a regression (verdict is data: exit 0)
"$FLYPROF" diff --before "$T/after" --after "$T/before" --no-write -q -f json > "$T/env.json"; rc=$?
[ $rc -eq 0 ] || fail "reverse exit $rc"
[ "$(py "$T/env.json" "j['data']['verdict']['overall']")" = regressed ] || fail "reverse verdict"

# ---- errors ----
"$FLYPROF" diff --before "$T/nope" --after "$T/before" -q -f json > "$T/env.json"; rc=$?
[ $rc -eq 66 ] || fail "missing before exit $rc"
[ "$(py "$T/env.json" "j['error']['code']")" = NO_ARTIFACT ] || fail "missing before code"
mkdir -p "$T/empty"
"$FLYPROF" diff --before "$T/empty" --after "$T/before" -q -f json > "$T/env.json"; rc=$?
[ "$(py "$T/env.json" "j['error']['code']")" = MISSING_PREREQ ] || fail "empty bundle code"
echo '{"kernel": "x"}' > "$T/bad.json"
"$FLYPROF" diff --before "$T/bad.json" --after "$T/before" -q -f json > "$T/env.json"; rc=$?
[ $rc -eq 65 ] || fail "not a report exit $rc"
printf '{"totals": {' > "$T/trunc.json"
"$FLYPROF" diff --before "$T/trunc.json" --after "$T/before" -q -f json > "$T/env.json"; rc=$?
[ $rc -eq 65 ] || fail "truncated exit $rc"
"$FLYPROF" diff --after "$T/before" -q -f json > "$T/env.json"; rc=$?
[ $rc -eq 64 ] || fail "no --before exit $rc"

# ---- --fail-on: the CI gate ----
# regressed pair + --fail-on regressed: exit 1, error REGRESSED, the diff still in data
"$FLYPROF" diff --before "$T/after" --after "$T/before" --out "$T/gate.json" --fail-on regressed -q -f json \
    > "$T/env.json"; rc=$?
[ $rc -eq 1 ] || fail "gate on a regression: exit $rc"
[ "$(py "$T/env.json" "(j['ok'], j['error']['code'], j['error']['exitCode'], j['data']['verdict']['overall'])")" = \
  "(False, 'REGRESSED', 1, 'regressed')" ] || fail "gate envelope: $(cat "$T/env.json")"
[ "$(py "$T/gate.json" "j['verdict']['overall']")" = regressed ] || fail "gate still writes diff.json"
# the same pair in table mode: the table on stdout, the error on stderr
"$FLYPROF" diff --before "$T/after" --after "$T/before" --no-write --fail-on regressed -q -f table \
    > "$T/tab.txt" 2> "$T/tab.err"; rc=$?
[ $rc -eq 1 ] || fail "gate table exit $rc"
grep -q '^verdict: regressed' "$T/tab.txt" || fail "gate table lacks the verdict"
grep -q 'error REGRESSED (exit 1)' "$T/tab.err" || fail "gate table lacks the error"
# an improvement passes `regressed` but trips `any-change`; a neutral self-diff passes both
"$FLYPROF" diff --before "$T/before" --after "$T/after" --no-write --fail-on regressed -q -f json > "$T/env.json"
rc=$?; [ $rc -eq 0 ] || fail "improvement tripped --fail-on regressed ($rc)"
"$FLYPROF" diff --before "$T/before" --after "$T/after" --no-write --fail-on any-change -q -f json > "$T/env.json"
rc=$?; [ $rc -eq 1 ] || fail "improvement passed --fail-on any-change ($rc)"
"$FLYPROF" diff --before "$T/before" --after "$T/before" --no-write --fail-on any-change -q -f json > "$T/env.json"
rc=$?; [ $rc -eq 0 ] || fail "neutral tripped --fail-on any-change ($rc)"
[ "$(py "$T/env.json" "j['ok']")" = True ] || fail "neutral gate envelope"
"$FLYPROF" diff --before "$T/before" --after "$T/before" --fail-on regresed -q -f json > "$T/env.json"; rc=$?
[ $rc -eq 64 ] || fail "bad --fail-on value exit $rc"
grep -q "did you mean 'regressed'" "$T/env.json" || fail "no did-you-mean for --fail-on: $(cat "$T/env.json")"

# ---- different kernels / one-sided duration: warnings in the envelope and the table ----
python3 -c "
import json,sys
r=json.load(open(sys.argv[1])); r.setdefault('workload',{})['time_ns_per_call']=1000.0
json.dump(r,open(sys.argv[2],'w'))
r['kernel']='flash_attn'; r['workload']['time_ns_per_call']=None  # a full document: unknown is null
json.dump(r,open(sys.argv[3],'w'))" "$T/before/report.json" "$T/timed.json" "$T/other.json"
"$FLYPROF" diff --before "$T/timed.json" --after "$T/other.json" --no-write -q -f json > "$T/env.json"
[ "$(py "$T/env.json" "any(w.startswith('different kernels') for w in j['warnings'])")" = True ] ||
    fail "different kernels not a warning: $(cat "$T/env.json")"
[ "$(py "$T/env.json" "any('before side only' in w for w in j['warnings'])")" = True ] || fail "one-sided duration warning"
"$FLYPROF" diff --before "$T/before/report.json" --after "$T/other.json" --no-write -q -f table > "$T/tab.txt" 2>/dev/null
grep -q '^warning: different kernels' "$T/tab.txt" || fail "different kernels not in the table"
echo ok
