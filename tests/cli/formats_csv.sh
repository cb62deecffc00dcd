#!/bin/bash
# -f csv (issue 21 item 2): every table command's rows round-trip through Python's csv
# module to the values of its JSON envelope (an independent reading: flattening, nulls,
# booleans, lists as JSON text, formula cells neutralised); -f csv:NAME picks a list;
# commands without rows refuse csv with USAGE 64; $FLYPROF_FORMAT sets the default.
. "$(dirname "$0")/lib/capture_env.sh"
C=$FP_SRC/examples/synthetic_gemm
B=$T/b
cp -r "$C" "$B"
D=$(ls -d "$B"/att/ui_output_agent_*)
check() { # NAME ROWS ARGS...: the csv of ROWS equals data[ROWS] of the json run
  local name=$1 rows=$2; shift 2
  "$FLYPROF" "$@" -f json -q > "$T/$name.json" || fail "$name json"
  "$FLYPROF" "$@" -f "csv:$rows" -q > "$T/$name.csv" || fail "$name csv"
  "$PY" - "$T/$name.json" "$T/$name.csv" "$rows" <<'PY' || fail "$name: csv != json"
import csv, json, sys
data = json.load(open(sys.argv[1]))["data"]
rows = data[sys.argv[3]]
raw = open(sys.argv[2], newline="").read()
assert raw.endswith("\r\n") or not rows, "RFC 4180 line ends"
table = list(csv.reader(raw.splitlines(keepends=True)))
def flat(o, pre=""):
    out = {}
    for k, v in o.items():
        if isinstance(v, dict) and v:
            out.update(flat(v, pre + k + "."))
        else:
            out[pre + k] = v
    return out
frows = [flat(r) for r in rows]
cols = []
for r in frows:
    cols += [k for k in r if k not in cols]
assert table[0] == cols, (table[0], cols)
assert len(table) == len(rows) + 1, (len(table), len(rows))
def same(cell, v):
    if v is None:
        return cell == ""
    if isinstance(v, bool):
        return cell == ("true" if v else "false")
    if isinstance(v, (int, float)):
        return float(cell) == float(v)
    if isinstance(v, (list, dict)):
        return json.loads(cell) == v
    if v[:1] in ("=", "+", "-", "@", "\t", "\r"):
        try:
            float(v)
        except ValueError:
            return cell == "'" + v
    return cell == v
for line, r in zip(table[1:], frows):
    assert len(line) == len(cols), line
    for c, cell in zip(cols, line):
        assert same(cell, r.get(c)), (c, cell, r.get(c))
print(sys.argv[3], len(rows), "rows ok")
PY
}
check kernels kernels kernels --bundle "$B"
check bubbles_classes classes bubbles --bundle "$B"
check bubbles_hotspots hotspots bubbles --bundle "$B"
check bubbles_lines lines bubbles --bundle "$B"
check map mappings map --bundle "$B"
check hotspots instructions_ranked hotspots "$D"
check hotspots_lines source_lines hotspots "$D"
"$FLYPROF" report --bundle "$B" -q -f json > /dev/null && "$FLYPROF" history add --bundle "$B" --db "$T/h.db" -q -f json > /dev/null || fail "history add"
check history_list entries history list --db "$T/h.db"
check history_trend points history trend --db "$T/h.db" --out "$T/trend"
# a sub-command whose answer is one record has no rows: USAGE, nothing on stdout
"$FLYPROF" history show 1 --db "$T/h.db" -q -f csv > "$T/o.txt" 2> "$T/e.txt"; [ $? = 64 ] || fail "history show -f csv exit"
[ ! -s "$T/o.txt" ] && grep -q "has no list of rows" "$T/e.txt" || fail "history show -f csv: $(cat "$T/e.txt")"
# -f csv without a name: the first list the command names
"$FLYPROF" bubbles --bundle "$B" -f csv -q > "$T/def.csv" || fail "bubbles -f csv"
cmp -s "$T/def.csv" "$T/bubbles_classes.csv" || fail "bubbles -f csv is not its classes"
# a formula cell is neutralised, a negative number is not (the writer's own rule, via a kernel name)
printf 'Name,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,StdDev\n@SUM(A1),1,5,5,100,5,5,0\n-2+3,1,4,4,100,4,4,0\n' > "$T/ks.csv"
"$FLYPROF" kernels --csv "$T/ks.csv" -f csv -q > "$T/f.csv" || fail "kernels --csv formula names"
"$PY" -c "
import csv, sys
r = list(csv.reader(open(sys.argv[1], newline='')))
n, t = r[0].index('name'), r[0].index('total_ns')
assert [x[n] for x in r[1:]] == [\"'@SUM(A1)\", \"'-2+3\"], r
assert [x[t] for x in r[1:]] == ['5', '4'], r" "$T/f.csv" || fail "formula cells: $(cat "$T/f.csv")"
# refusals: no rows, unknown rows
"$FLYPROF" doctor -f csv > "$T/o.txt" 2> "$T/e.txt"; [ $? = 64 ] && grep -q "has no table of rows" "$T/e.txt" || fail "doctor csv message"
"$FLYPROF" bubbles --bundle "$B" -f csv:nope > "$T/o.txt" 2> "$T/e.txt"; [ $? = 64 ] || fail "csv:nope exit"
tr -s "\n " "  " < "$T/e.txt" | grep -q "it has: classes, hotspots, lines" || fail "csv:nope names the lists: $(cat "$T/e.txt")"
[ ! -s "$T/o.txt" ] || fail "an error printed a document on stdout"
"$FLYPROF" kernels --bundle "$B" -f sarif > "$T/o.txt" 2> "$T/e.txt"; [ $? = 64 ] || fail "kernels -f sarif exit"
"$FLYPROF" kernels --bundle "$B" -f xml > "$T/o.txt" 2> "$T/e.txt"; [ $? = 64 ] || fail "-f xml exit"
# $FLYPROF_FORMAT: the default when -f is absent (a pipe gets a table), -f still wins
FLYPROF_FORMAT=table "$FLYPROF" kernels --bundle "$B" -q | head -1 | grep -q "^rank\|kernel\|#" || fail "FLYPROF_FORMAT=table"
! FLYPROF_FORMAT=table "$FLYPROF" kernels --bundle "$B" -q | head -c 1 | grep -q "{" || fail "FLYPROF_FORMAT=table printed JSON"
FLYPROF_FORMAT=csv "$FLYPROF" kernels --bundle "$B" -q | cmp -s - <("$FLYPROF" kernels --bundle "$B" -q -f csv) || fail "FLYPROF_FORMAT=csv"
FLYPROF_FORMAT=table "$FLYPROF" kernels --bundle "$B" -q -f json | "$PY" -c "import json,sys; assert json.load(sys.stdin)['ok']" ||
  fail "-f json over FLYPROF_FORMAT"
FLYPROF_FORMAT=bogus "$FLYPROF" kernels --bundle "$B" -q > "$T/o.txt"; [ $? = 64 ] || fail "FLYPROF_FORMAT=bogus exit"
grep -q "FLYPROF_FORMAT is 'bogus'" "$T/o.txt" || fail "FLYPROF_FORMAT=bogus help: $(cat "$T/o.txt")"
echo "formats_csv: ok"
