#!/bin/bash
# CI baselines (issue 21 item 3), through check: history rm / pin / unpin, the baseline
# policy of --baseline auto (pinned, else the median of the last --window of kernel +
# shape + arch) and NO_BASELINE (exit 0 + warning, --strict exit 4, distinct from a
# wrong --db path: NO_ARTIFACT 66). Three bundles of one kernel: 20, 26 and 23 us per call.
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
unset FLYPROF_HISTORY XDG_DATA_HOME FLYPROF_FORMAT
export HOME="$T/home"
DB="$T/h.db"
n=0
for us in 20 26 23 30; do
  n=$((n + 1))
  python3 - "$FP_SRC/tests/data/gen/rep_stream.json" "$T/b$n.json" "$us" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for c in s["rocprof"]["calls"]:
    c["end"] = c["start"] + int(sys.argv[3]) * 1000
json.dump(s, open(sys.argv[2], "w"))
PY
  "$FP_TOOLS/fp_gen_att" "$T/b$n.json" "$T/b$n" >/dev/null || fail "gen b$n"
  printf '{"schema":1,"kernel":"rep_stream_kernel_0","arch":"gfx950","shape":"65536,f32","captured_at":"2026-11-0%sT10:00:00Z"}\n' "$n" \
    > "$T/b$n/capture.json"
  "$FLYPROF" report --bundle "$T/b$n" -q -f json > /dev/null || fail "report b$n"
done
check() { "$FLYPROF" check --bundle "$T/b4" --db "$DB" -q -f json "$@" > "$T/c.json"; RC=$?; }
base() { py "$T/c.json" "'%d %s' % (j['data']['baseline']['id'], j['data']['baseline_policy'])"; }

# the first run of a CI job: no history yet for the kernel -> a warning, exit 0
"$FLYPROF" history add --bundle "$T/b1" --db "$DB" -q -f json > /dev/null || fail "add b1"
"$FLYPROF" check --bundle "$T/b1" --db "$DB" -q -f json > "$T/c.json"; rc=$?
[ $rc = 0 ] || fail "check of the only entry: exit $rc"
[ "$(py "$T/c.json" "(j['ok'], j['data']['status'], j['data']['current']['kernel'])")" = "(True, 'no_baseline', 'rep_stream_kernel_0')" ] ||
  fail "no baseline data: $(cat "$T/c.json")"
"$FLYPROF" check --bundle "$T/b1" --db "$DB" -q -f table > "$T/c.txt" 2> "$T/c.err" || fail "no baseline table exit"
grep -q "no baseline yet" "$T/c.txt" && grep -q "warning: NO_BASELINE" "$T/c.err" || fail "no baseline table: $(cat "$T/c.txt" "$T/c.err")"
"$FLYPROF" check --bundle "$T/b1" --db "$DB" --strict -q -f json > "$T/c.json"; rc=$?
[ $rc = 4 ] && [ "$(py "$T/c.json" "j['error']['code']")" = NO_BASELINE ] || fail "--strict: exit $rc"
"$FLYPROF" check --bundle "$T/b1" --db "$DB" -q -f junit > "$T/c.xml" || fail "no baseline junit exit"
python3 -c "import sys, xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); c=r.find('testsuite').findall('testcase'); assert len(c)==1 and c[0].find('skipped') is not None and r.get('skipped')=='1'" "$T/c.xml" ||
  fail "no baseline junit: $(cat "$T/c.xml")"
# a wrong --db path is not "no baseline"
"$FLYPROF" check --bundle "$T/b1" --db "$T/nope.db" -q -f json > "$T/c.json"; rc=$?
[ $rc = 66 ] && [ "$(py "$T/c.json" "j['error']['code']")" = NO_ARTIFACT ] || fail "wrong --db: exit $rc"

for i in 2 3; do "$FLYPROF" history add --bundle "$T/b$i" --db "$DB" -q -f json > /dev/null || fail "add b$i"; done
# auto: the median of 20, 26, 23 us = entry 3 (23 us); b4 (30 us) regressed against it
check
[ $RC = 1 ] || fail "check b4 exit $RC"
[ "$(base)" = "3 median of the last 3" ] || fail "median baseline: $(base)"
[ "$(py "$T/c.json" "j['data']['totals']['time_ns_per_call']['before']")" = 23000 ] || fail "median's duration"
check --window 1
[ "$(base)" = "3 median of the last 1" ] || fail "--window 1: the latest"
check --baseline latest
[ "$(base)" = "3 latest" ] || fail "--baseline latest"
check --baseline 1
[ "$(base)" = "1 entry" ] || fail "--baseline 1"

# pin entry 2 (26 us): the baseline until unpinned
"$FLYPROF" history pin 2 --db "$DB" -q -f json > "$T/p.json" || fail "pin"
[ "$(py "$T/p.json" "(j['data']['action'], j['data']['id'], j['data']['entry']['time_ns_per_call'])")" = "('pinned', 2, 26000)" ] || fail "pin data"
"$FLYPROF" history list --db "$DB" -q -f json > "$T/l.json" || fail "list"
[ "$(py "$T/l.json" "j['data']['pinned']")" = "[2]" ] || fail "list pinned"
check
[ "$(base)" = "2 pinned" ] || fail "pinned baseline: $(base)"
"$FLYPROF" history pin 1 --db "$DB" -q -f json > /dev/null || fail "pin 1"
check
[ "$(base)" = "1 pinned" ] || fail "a new pin of the series replaces the old one: $(base)"
"$FLYPROF" history unpin 1 --db "$DB" -q -f json > /dev/null || fail "unpin"
check
[ "$(base)" = "3 median of the last 3" ] || fail "after unpin: $(base)"
"$FLYPROF" history unpin 1 --db "$DB" -q -f json > "$T/p.json"; rc=$?
[ $rc = 66 ] || fail "unpin of an entry that is not pinned: exit $rc"

# rm: one bad main run no longer poisons the baseline
"$FLYPROF" history pin 3 --db "$DB" -q -f json > /dev/null || fail "pin 3"
"$FLYPROF" history rm 3 --db "$DB" -q -f json > "$T/r.json" || fail "rm 3"
[ "$(py "$T/r.json" "(j['data']['action'], j['data']['id'])")" = "('removed', 3)" ] || fail "rm data"
"$FLYPROF" history list --db "$DB" -q -f json > "$T/l.json" || fail "list after rm"
[ "$(py "$T/l.json" "([e['id'] for e in j['data']['entries']], 'pinned' in j['data'])")" = "([1, 2], False)" ] || fail "rm took the entry and its pin"
check
[ "$(base)" = "1 median of the last 2" ] || fail "after rm: the lower middle of 20, 26: $(base)"
"$FLYPROF" history rm 3 --db "$DB" -q -f json > /dev/null; rc=$?
[ $rc = 66 ] || fail "rm of a missing entry: exit $rc"
"$FLYPROF" history rm x --db "$DB" -q -f json > /dev/null; rc=$?
[ $rc = 64 ] || fail "rm x: exit $rc"
"$FLYPROF" history pin --db "$DB" -q -f json > /dev/null; rc=$?
[ $rc = 64 ] || fail "pin without id: exit $rc"
for i in 1 2; do "$FLYPROF" history rm $i --db "$DB" -q -f json > /dev/null || fail "rm $i"; done
check
[ $RC = 0 ] && [ "$(py "$T/c.json" "j['data']['status']")" = no_baseline ] || fail "all removed: no baseline, exit $RC"
echo "history_pin: ok"
