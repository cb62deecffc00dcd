#!/bin/bash
# history + check: two bundles of one kernel (the second 30 % slower per call)
# -> list shows both; check on the slower trips the gate (REGRESSED, exit 1),
# on the faster passes; the same bundle twice is one entry; 8 parallel adds
# -> 8 entries; a truncated / foreign / non-SQLite file is BAD_INPUT and stays
# byte-identical; export -> import round trip; trend.svg + trend.csv.
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
unset FLYPROF_HISTORY XDG_DATA_HOME
export HOME="$T/home"
DB="$T/h.db"

# ---- two bundles of rep_stream_kernel_0: 20 us and 26 us per call ----
python3 - "$FP_SRC/tests/data/gen/rep_stream.json" "$T/slow.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
for c in s["rocprof"]["calls"]:
    c["end"] = c["start"] + 26000          # 20000 ns per call -> 26000 (+30 %)
json.dump(s, open(sys.argv[2], "w"))
EOF
"$FP_TOOLS/fp_gen_att" "$FP_SRC/tests/data/gen/rep_stream.json" "$T/fast" >/dev/null || fail "gen fast"
"$FP_TOOLS/fp_gen_att" "$T/slow.json" "$T/slow" >/dev/null || fail "gen slow"
capture() { # DIR SHAPE WHEN COMMIT DIRTY: what `capture` records (shape, time, libgit2 provenance)
    printf '{"schema":1,"kernel":"rep_stream_kernel_0","arch":"gfx950","shape":"%s","captured_at":"%s",
"worktree":{"commit":"%s","dirty":%s,"branch":"main"}}\n' "$2" "$3" "$4" "$5" > "$1/capture.json"
}
capture "$T/fast" 65536,f32 2026-11-01T10:00:00Z 1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa false
capture "$T/slow" 65536,f32 2026-11-02T10:00:00Z 2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb true
for b in fast slow; do
    "$FLYPROF" report --bundle "$T/$b" -q -f json > /dev/null || fail "report $b"
done
[ "$(py "$T/slow/report.json" "j['workload']['time_ns_per_call']")" = 26000 ] || fail "slow bundle duration"

# ---- a missing database is NO_ARTIFACT for readers ----
"$FLYPROF" history list --db "$DB" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 66 ] || fail "list on a missing db: exit $rc"
[ "$(py "$T/e.json" "j['error']['code']")" = NO_ARTIFACT ] || fail "missing db code"
[ ! -e "$DB" ] || fail "a reader created the database"

# ---- add both; the same bundle twice is one entry ----
"$FLYPROF" history add --bundle "$T/fast" --db "$DB" -q -f json > "$T/e.json" || fail "add fast"
[ "$(py "$T/e.json" "(j['data']['id'], j['data']['added'])")" = "(1, True)" ] || fail "add fast data"
"$FLYPROF" history add --bundle "$T/slow" --db "$DB" -q -f json > "$T/e.json" || fail "add slow"
[ "$(py "$T/e.json" "(j['data']['id'], j['data']['added'])")" = "(2, True)" ] || fail "add slow data"
"$FLYPROF" history add --bundle "$T/fast" --db "$DB" -q -f json > "$T/e.json" || fail "add fast again"
[ "$(py "$T/e.json" "(j['data']['id'], j['data']['added'])")" = "(1, False)" ] || fail "idempotent add"

"$FLYPROF" history list --db "$DB" -q -f json > "$T/list.json" || fail "list"
[ "$(py "$T/list.json" "j['data']['count']")" = 2 ] || fail "list count"
[ "$(py "$T/list.json" "[(e['id'], e['time_ns_per_call'], e['commit'][:7], e['dirty'], e['shape'], e['bound'], e['top_class']) for e in j['data']['entries']]")" = \
  "[(1, 20000, '1111111', False, '65536,f32', 'latency', 'vmcnt'), (2, 26000, '2222222', True, '65536,f32', 'latency', 'vmcnt')]" ] ||
    fail "list entries: $(py "$T/list.json" "j['data']['entries']")"
[ "$(py "$T/list.json" "j['data']['schema_version']")" = 3 ] || fail "schema version"
"$FLYPROF" history list --db "$DB" -f table > "$T/list.txt" || fail "list table"
grep -q '^    2  2026-11-02T10:00:00Z  2222222\*    26.00   96.34  latency   vmcnt' "$T/list.txt" || fail "list table row: $(cat "$T/list.txt")"
"$FLYPROF" history list --db "$DB" --limit 1 -q -f json > "$T/e.json" || fail "list --limit"
[ "$(py "$T/e.json" "[e['id'] for e in j['data']['entries']]")" = "[2]" ] || fail "limit = the latest"
"$FLYPROF" history list --db "$DB" --since 2026-11-02 -q -f json > "$T/e.json" || fail "list --since"
[ "$(py "$T/e.json" "[e['id'] for e in j['data']['entries']]")" = "[2]" ] || fail "since"
"$FLYPROF" history list --db "$DB" --since yesterday -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 78 ] || fail "bad --since exit $rc"
"$FLYPROF" history list --db "$DB" --kernel nope -q -f json > "$T/e.json" || fail "list other kernel"
[ "$(py "$T/e.json" "j['data']['count']")" = 0 ] || fail "kernel filter"

# show: the whole record (classes, rules with est. gain, provenance); the gain is the class's 90.62 % of
# the traced waves' time x traced wave span / kernel duration (0.126, issue 17)
"$FLYPROF" history show 1 --db "$DB" -q -f json > "$T/e.json" || fail "show"
[ "$(py "$T/e.json" "[(c['class'], c['pct']) for c in j['data']['classes']]")" = "[('vmcnt', 96.04), ('lgkmcnt', 3.96)]" ] || fail "show classes"
[ "$(py "$T/e.json" "[(r['rank'], r['rule'], r['est_gain_pct']) for r in j['data']['rules']]")" = \
  "[(1, 'vmem_prefetch', 11.42), (2, 'load_use_distance', 11.42)]" ] || fail "show rules: $(py "$T/e.json" "j['data']['rules']")"
[ "$(py "$T/e.json" "(j['data']['provenance']['flyprof_version'] is not None, j['data']['provenance']['host'] is not None)")" = "(True, True)" ] || fail "show provenance"
# launch fill and speed of light as the report states them (256 workgroups fill all 256 CUs; HBM
# from the unique bytes: the stream's load address is the same in every workgroup, issue 23)
[ "$(py "$T/e.json" "(j['data']['launch'], j['data']['sol'])")" = \
  "({'fill_pct': 100, 'underfilled': False, 'workgroups': 256}, {'hbm_pct': 0.67, 'mfma_busy_pct': 0, 'valu_busy_pct': 0.99})" ] ||
    fail "show launch/sol: $(py "$T/e.json" "(j['data']['launch'], j['data']['sol'])")"
[ "$(py "$T/e.json" "j['data']['launch']")" = "$(py "$T/fast/report.json" "{k: j['launch'][k] for k in ('fill_pct', 'underfilled', 'workgroups')}")" ] || fail "launch = report.json launch"
"$FLYPROF" history show 9 --db "$DB" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 66 ] || fail "show missing id exit $rc"

# ---- check: the slower one regresses (+30 %), the faster one does not ----
"$FLYPROF" check --bundle "$T/slow" --db "$DB" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 1 ] || fail "check slow exit $rc"
[ "$(py "$T/e.json" "j['error']['code']")" = REGRESSED ] || fail "check slow code"
[ "$(py "$T/e.json" "(j['data']['verdict']['overall'], j['data']['verdict']['delta'], j['data']['baseline']['id'])")" = "('regressed', 30, 1)" ] ||
    fail "check slow data: $(py "$T/e.json" "j['data']['verdict']")"
[ "$(py "$T/e.json" "j['data']['totals']['time_ns_per_call']")" = "{'before': 20000, 'after': 26000, 'delta': 6000}" ] || fail "check totals"
"$FLYPROF" check --bundle "$T/fast" --db "$DB" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 0 ] || fail "check fast exit $rc"
[ "$(py "$T/e.json" "(j['data']['verdict']['overall'], j['data']['baseline']['id'], j['data']['gate'])")" = \
  "('improved', 2, {'fail_on': 'regressed', 'tripped': False})" ] || fail "check fast data: $(py "$T/e.json" "j['data']")"
# any-change trips on an improvement too; never reports only
"$FLYPROF" check --bundle "$T/fast" --db "$DB" --fail-on any-change -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 1 ] || fail "any-change exit $rc"
"$FLYPROF" check --bundle "$T/slow" --db "$DB" --fail-on never -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 0 ] || fail "never exit $rc"
# the same figures as diff: the verdict of `diff` on the two bundles
"$FLYPROF" diff --before "$T/fast" --after "$T/slow" --no-write -q -f json > "$T/d.json" || fail "diff"
[ "$(py "$T/d.json" "(j['data']['verdict']['overall'], j['data']['verdict']['delta'], j['data']['verdict']['why'])")" = \
  "$(py "$T/e.json" "(j['data']['verdict']['overall'], j['data']['verdict']['delta'], j['data']['verdict']['why'])")" ] || fail "check != diff verdict"
# (diff also has each share's noise from the waves' spread, ci_points, that a history record lacks)
[ "$(py "$T/d.json" "[{k: c[k] for k in ('class', 'before', 'after', 'delta')} for c in j['data']['classes']]")" = \
  "$(py "$T/e.json" "[{k: c[k] for k in ('class', 'before', 'after', 'delta')} for c in j['data']['classes']]")" ] || fail "check != diff classes"
# baselines: by commit prefix, by entry id; the bundle itself is never its baseline
"$FLYPROF" check --bundle "$T/slow" --db "$DB" --baseline 11111 -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 1 ] && [ "$(py "$T/e.json" "j['data']['baseline']['id']")" = 1 ] || fail "baseline by commit"
"$FLYPROF" check --bundle "$T/fast" --db "$DB" --baseline 2 -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 0 ] && [ "$(py "$T/e.json" "j['data']['baseline']['id']")" = 2 ] || fail "baseline by id"
"$FLYPROF" check --bundle "$T/fast" --db "$DB" --baseline 1 -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 66 ] || fail "self baseline exit $rc"
"$FLYPROF" check --bundle "$T/fast" --db "$DB" --baseline zz-top -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 78 ] || fail "bad baseline exit $rc"
"$FLYPROF" check --bundle "$T/fast" --db "$DB" --fail-on sometimes -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 64 ] || fail "bad --fail-on exit $rc"
# no baseline of another shape
cp -r "$T/fast" "$T/other"
capture "$T/other" 4096,f32 2026-11-03T10:00:00Z 3333333ccccccccccccccccccccccccccccccccc false
"$FLYPROF" report --bundle "$T/other" -q -f json > /dev/null || fail "report other"
"$FLYPROF" check --bundle "$T/other" --db "$DB" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 0 ] || fail "no baseline: exit $rc (a warning, not a failure)"
[ "$(py "$T/e.json" "(j['data']['status'], j['warnings'][0][:12])")" = "('no_baseline', 'NO_BASELINE:')" ] || fail "no baseline data"
"$FLYPROF" check --bundle "$T/other" --db "$DB" --strict -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 4 ] && [ "$(py "$T/e.json" "j['error']['code']")" = NO_BASELINE ] || fail "no baseline --strict: exit $rc"
"$FLYPROF" check --bundle "$T/other" --db "$T/no-such.db" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 66 ] && [ "$(py "$T/e.json" "j['error']['code']")" = NO_ARTIFACT ] || fail "a wrong --db path is NO_ARTIFACT: exit $rc"
"$FLYPROF" check --bundle "$T/nope" --db "$DB" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 66 ] || fail "missing bundle exit $rc"
"$FLYPROF" check --db "$DB" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 64 ] || fail "check without --bundle exit $rc"
"$FLYPROF" check --bundle "$T/slow" --db "$T" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 78 ] || fail "check --db DIR exit $rc"

# ---- trend: one series -> trend.svg + trend.csv ----
"$FLYPROF" history trend --db "$DB" --out "$T/tr" -q -f json > "$T/e.json" || fail "trend"
[ "$(py "$T/e.json" "(j['data']['count'], j['data']['classes'], [p['time_ns_per_call'] for p in j['data']['points']])")" = \
  "(2, ['vmcnt', 'lgkmcnt'], [20000, 26000])" ] || fail "trend data"
python3 - "$T/tr/trend.svg" <<'EOF' || fail "trend.svg"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag.endswith("svg"), root.tag
text = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
for want in ("1111111", "2222222*", "vmcnt", "lgkmcnt", "duration per call (us)", "rep_stream_kernel_0"):
    assert want in text, want
assert not any(e.tag.endswith("script") for e in root.iter())
assert "href" not in open(sys.argv[1]).read()
# issue 20: the baseline (median 23 us) with diff's +-2 % noise band, the 30 % slower entry in red,
# capture dates under the commits, and a y axis zoomed onto 20..26 us (not from 0)
ns = "{http://www.w3.org/2000/svg}"
base = root.find(".//%sline[@id='baseline']" % ns)
band = root.find(".//%srect[@id='noise-band']" % ns)
assert base is not None and band is not None and "23.00 us" in base.find(ns + "title").text
assert abs(float(band.get("height")) - 2 * 0.46 / 10 * 200) < 1.0, band.get("height")  # 0.92 us of a 10 us axis
red = [c for c in root.iter(ns + "circle") if c.get("class") == "regressed"]
assert len(red) == 1 and "2222222*" in red[0].find(ns + "title").text and red[0].get("fill") == "#d62728", red
assert "2026-11-01" in text and "2026-11-02" in text
ticks = [float(t.text) for t in root.iter(ns + "text") if t.get("text-anchor") == "end" and t.text and t.text.replace(".", "").isdigit() and float(t.get("y")) < 270]
assert min(ticks) >= 16 and max(ticks) <= 30, ticks
EOF
[ "$(sed -n 1p "$T/tr/trend.csv")" = "id,captured_at,commit,dirty,time_ns_per_call,stall_pct,exposed_pct,bound,vmcnt_pct,lgkmcnt_pct" ] || fail "csv header"
[ "$(sed -n 3p "$T/tr/trend.csv")" = "2,2026-11-02T10:00:00Z,2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,true,26000,96.34,100,latency,96.04,3.96" ] || fail "csv row: $(sed -n 3p "$T/tr/trend.csv")"
# two series need a filter
"$FLYPROF" history add --bundle "$T/other" --db "$DB" -q -f json > /dev/null || fail "add other"
"$FLYPROF" history trend --db "$DB" --out "$T/tr2" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 78 ] && [ "$(py "$T/e.json" "len(j['error']['series'])")" = 2 ] || fail "two series exit $rc"
[ ! -e "$T/tr2/trend.svg" ] || fail "trend wrote on error"
"$FLYPROF" history trend --db "$DB" --shape 4096,f32 --out "$T/tr2" -q -f json > "$T/e.json" || fail "trend --shape"

# ---- export -> import: the same entries; import is idempotent and verified ----
"$FLYPROF" history export --db "$DB" --out "$T/h.jsonl" -q -f json > "$T/e.json" || fail "export"
[ "$(wc -l < "$T/h.jsonl")" -eq 3 ] || fail "export lines"
"$FLYPROF" history import "$T/h.jsonl" --db "$T/copy.db" -q -f json > "$T/e.json" || fail "import"
[ "$(py "$T/e.json" "(j['data']['records'], j['data']['added'])")" = "(3, 3)" ] || fail "import counts"
"$FLYPROF" history import "$T/h.jsonl" --db "$T/copy.db" -q -f json > "$T/e.json" || fail "import again"
[ "$(py "$T/e.json" "j['data']['added']")" = 0 ] || fail "import twice"
"$FLYPROF" history list --db "$T/copy.db" -q -f json > "$T/l2.json" || fail "list copy"
"$FLYPROF" history list --db "$DB" -q -f json > "$T/l1.json" || fail "list orig"
[ "$(py "$T/l1.json" "[(e['hash'], e['time_ns_per_call']) for e in j['data']['entries']]")" = \
  "$(py "$T/l2.json" "[(e['hash'], e['time_ns_per_call']) for e in j['data']['entries']]")" ] || fail "round trip"
sed 's/"time_ns_per_call":26000/"time_ns_per_call":20000/' "$T/h.jsonl" > "$T/edited.jsonl"
"$FLYPROF" history import "$T/edited.jsonl" --db "$T/copy2.db" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 65 ] || fail "edited import exit $rc"
[ ! -e "$T/copy2.db" ] || fail "an edited import created the database"

# ---- 8 concurrent adds -> 8 entries ----
for i in 1 2 3 4 5 6 7 8; do
    cp -r "$T/fast" "$T/c$i"
    python3 - "$T/c$i/report.json" "$i" <<'EOF'
import json, sys
p = sys.argv[1]; j = json.load(open(p))
j["workload"]["time_ns_per_call"] = 20000 + int(sys.argv[2])
json.dump(j, open(p, "w"))
EOF
done
# three rounds, each into a new file: creating the schema races too (a validation that read the
# header and the schema in two transactions once saw another writer's half and refused the file)
for round in 1 2 3; do
    pids=()
    for i in 1 2 3 4 5 6 7 8; do
        "$FLYPROF" history add --bundle "$T/c$i" --db "$T/par$round.db" -q -f json > "$T/par$i.json" & pids+=($!)
    done
    for i in 1 2 3 4 5 6 7 8; do
        wait "${pids[$((i - 1))]}" || fail "parallel add $i (round $round): $(cat "$T/par$i.json")"
    done
    "$FLYPROF" history list --db "$T/par$round.db" -q -f json > "$T/e.json" || fail "list parallel"
    [ "$(py "$T/e.json" "sorted(e['time_ns_per_call'] for e in j['data']['entries'])")" = \
      "[20001, 20002, 20003, 20004, 20005, 20006, 20007, 20008]" ] || fail "8 parallel adds: $(py "$T/e.json" "j['data']['count']")"
    [ "$(py "$T/e.json" "sorted(e['id'] for e in j['data']['entries'])")" = "[1, 2, 3, 4, 5, 6, 7, 8]" ] || fail "parallel ids"
done

# ---- damaged and foreign files: BAD_INPUT, byte-identical afterwards ----
cp "$DB" "$T/trunc.db"
[ ! -e "$DB-wal" ] || [ ! -s "$DB-wal" ] || fail "WAL not checkpointed on close"
truncate -s $(( $(stat -c %s "$DB") / 2 )) "$T/trunc.db"
cp "$T/trunc.db" "$T/trunc.orig"
for cmd in "history list" "history add --bundle $T/fast" "check --bundle $T/slow" "history export --out $T/x.jsonl"; do
    # shellcheck disable=SC2086
    "$FLYPROF" $cmd --db "$T/trunc.db" -q -f json > "$T/e.json"; rc=$?
    [ $rc -eq 65 ] || fail "truncated db, $cmd: exit $rc $(cat "$T/e.json")"
    [ "$(py "$T/e.json" "j['error']['code']")" = BAD_INPUT ] || fail "truncated code ($cmd)"
    cmp -s "$T/trunc.db" "$T/trunc.orig" || fail "truncated db modified by $cmd"
done
# a damaged page behind an intact header: only quick_check sees it
cp "$DB" "$T/damaged.db"
python3 -c "import sys; f=open(sys.argv[1],'r+b'); f.seek(2*4096); f.write(b'\x0d'+b'\xff'*7)" "$T/damaged.db"
cp "$T/damaged.db" "$T/damaged.orig"
"$FLYPROF" history add --bundle "$T/slow" --db "$T/damaged.db" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 65 ] || fail "damaged page exit $rc"
[ "$(py "$T/e.json" "'is damaged' in j['error']['message']")" = True ] || fail "damaged: $(cat "$T/e.json")"
cmp -s "$T/damaged.db" "$T/damaged.orig" || fail "damaged db modified"
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('create table t(x)'); c.execute('insert into t values (1)'); c.commit()" "$T/foreign.db"
cp "$T/foreign.db" "$T/foreign.orig"
"$FLYPROF" history add --bundle "$T/fast" --db "$T/foreign.db" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 65 ] || fail "foreign db exit $rc"
cmp -s "$T/foreign.db" "$T/foreign.orig" || fail "foreign db modified"
echo "not a database, just text that is long enough to be read as a header..........................." > "$T/text.db"
cp "$T/text.db" "$T/text.orig"
"$FLYPROF" history add --bundle "$T/fast" --db "$T/text.db" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 65 ] || fail "text db exit $rc"
cmp -s "$T/text.db" "$T/text.orig" || fail "text db modified"
# a newer flyprof's schema is refused, not downgraded
cp "$DB" "$T/newer.db"
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('pragma user_version=99'); c.commit(); c.close()" "$T/newer.db"
cp "$T/newer.db" "$T/newer.orig"
"$FLYPROF" history list --db "$T/newer.db" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 65 ] || fail "newer schema exit $rc"
cmp -s "$T/newer.db" "$T/newer.orig" || fail "newer db modified"

# ---- default database: $FLYPROF_HISTORY, else $XDG_DATA_HOME, else ~/.local/share ----
"$FLYPROF" history add --bundle "$T/fast" -q -f json > "$T/e.json" || fail "default add"
[ "$(py "$T/e.json" "j['data']['db']")" = "$HOME/.local/share/flyprof/history.db" ] || fail "default HOME path"
XDG_DATA_HOME="$T/xdg" "$FLYPROF" history add --bundle "$T/fast" -q -f json > "$T/e.json" || fail "xdg add"
[ -s "$T/xdg/flyprof/history.db" ] || fail "XDG path"
FLYPROF_HISTORY="$T/env.db" XDG_DATA_HOME="$T/xdg" "$FLYPROF" history add --bundle "$T/fast" -q -f json > "$T/e.json" || fail "env add"
[ -s "$T/env.db" ] || fail "FLYPROF_HISTORY path"

# ---- provenance from a worktree via libgit2 when capture.json has none ----
if command -v git > /dev/null; then
    W="$T/flydsl"
    mkdir -p "$W" && git -C "$W" init -q && echo x > "$W/f" && git -C "$W" add f &&
        git -C "$W" -c user.name=t -c user.email=t@t commit -qm init || fail "git repo"
    cp -r "$T/fast" "$T/nocap" && rm "$T/nocap/capture.json"
    "$FLYPROF" history add --bundle "$T/nocap" --worktree "$W" --db "$T/wt.db" -q -f json > "$T/e.json" || fail "add --worktree"
    "$FLYPROF" history show latest --db "$T/wt.db" -q -f json > "$T/e.json" || fail "show latest"
    [ "$(py "$T/e.json" "(j['data']['provenance']['commit'], j['data']['provenance']['dirty'])")" = \
      "('$(git -C "$W" rev-parse HEAD)', False)" ] || fail "libgit2 provenance: $(py "$T/e.json" "j['data']['provenance']")"
fi

# ---- usage errors ----
"$FLYPROF" history frobnicate --db "$DB" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 64 ] || fail "unknown sub-command exit $rc"
"$FLYPROF" history add --db "$DB" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 64 ] || fail "add without --bundle exit $rc"
"$FLYPROF" history add --bundle "$T/fast" --db "$T" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 78 ] || fail "add --db DIR exit $rc"
"$FLYPROF" history import "$T/nope.jsonl" --db "$T/imp.db" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 66 ] && [ ! -e "$T/imp.db" ] || fail "import of a missing file exit $rc"
"$FLYPROF" history add --bundle "$T/home" --db "$DB" -q -f json > "$T/e.json"; rc=$?
[ $rc -eq 78 ] || fail "add of an unreported dir exit $rc"
echo ok
