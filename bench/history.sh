#!/usr/bin/env bash
# bench/history.sh [FLYPROF] [N] [PAR]
# Figures of the performance history: ms per `history add` (sequential, into a database that grows
# to N entries), wall time of PAR concurrent adds into one file, and ms per list / check / trend /
# export on N entries. Bundles are copies of a generated report with distinct durations.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
FLYPROF=${1:-$here/build/flyprof}
N=${2:-200}
PAR=${3:-8}
GEN=$(dirname "$FLYPROF")/tests/fp_gen_att
[ -x "$FLYPROF" ] && [ -x "$GEN" ] || { echo "build flyprof and tests/fp_gen_att first" >&2; exit 2; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
"$GEN" "$here/tests/data/gen/rep_stream.json" "$T/b0" > /dev/null
echo '{"schema":1,"shape":"65536,f32"}' > "$T/b0/capture.json"
"$FLYPROF" report --bundle "$T/b0" -q -f json > /dev/null
mk() { # DIR NS: a copy of b0 whose duration per call is NS
    mkdir -p "$1" && cp "$T/b0/report.json" "$T/b0/capture.json" "$1/"
    sed -i "s/\"time_ns_per_call\":[[:space:]]*20000/\"time_ns_per_call\":$2/" "$1/report.json"
}
for i in $(seq 1 "$N"); do mk "$T/s$i" $((20000 + i)); done
for i in $(seq 1 "$PAR"); do mk "$T/p$i" $((90000 + i)); done
# wall and CPU (user + sys) ms of one run: on a shared machine the CPU figure is the stable one
one() { /usr/bin/time -f "%e %U %S" "$@" 2>&1 > /dev/null | tail -1 | awk '{printf "%.1f ms wall, %.1f ms cpu", $1*1000, ($2+$3)*1000}'; }
ms() { echo "($2 - $1) * 1000" | bc -l | xargs printf '%.1f'; }
s=$(date +%s.%N)
for i in $(seq 1 "$N"); do "$FLYPROF" history add --bundle "$T/s$i" --db "$T/h.db" -q -f json > /dev/null; done
e=$(date +%s.%N)
printf 'history add        %s ms wall per add (sequential, %s adds, database grows 0 -> %s); then add #%s: %s\n' \
    "$(echo "($e - $s) * 1000 / $N" | bc -l | xargs printf '%.2f')" "$N" "$N" "$((N + 1))" \
    "$(mk "$T/last" 99999; one "$FLYPROF" history add --bundle "$T/last" --db "$T/h.db" -q -f json)"
s=$(date +%s.%N)
pids=()
for i in $(seq 1 "$PAR"); do "$FLYPROF" history add --bundle "$T/p$i" --db "$T/par.db" -q -f json > "$T/par$i.json" & pids+=($!); done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
e=$(date +%s.%N)
[ "$failed" = 0 ] || { echo "concurrent add: $failed failed:" >&2; grep -h '"ok":false' "$T"/par*.json >&2; }
n=$("$FLYPROF" history list --db "$T/par.db" -q -f json | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["count"])')
printf 'concurrent add     %s adds into a new file: %s ms wall, %s entries\n' "$PAR" "$(ms "$s" "$e")" "$n"
nh=$("$FLYPROF" history list --db "$T/h.db" -q -f json | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["count"])')
printf 'history list       %s (%s entries)\n' "$(one "$FLYPROF" history list --db "$T/h.db" -q -f json)" "$nh"
printf 'baseline           %s per process start (flyprof rules, for comparison on this machine)\n' \
    "$(one "$FLYPROF" rules -q -f json)"
printf 'check              %s\n' "$(one "$FLYPROF" check --bundle "$T/s1" --db "$T/h.db" -q -f json)"
printf 'history trend      %s (%s points)\n' "$(one "$FLYPROF" history trend --db "$T/h.db" --out "$T" -q -f json)" "$nh"
printf 'history export     %s\n' "$(one "$FLYPROF" history export --db "$T/h.db" --out "$T/x.jsonl" -q -f json)"
printf 'history import     %s (%s records into a new file, one transaction)\n' \
    "$(one "$FLYPROF" history import "$T/x.jsonl" --db "$T/y.db" -q -f json)" "$nh"
printf 'database size      %s bytes for %s entries\n' "$(stat -c %s "$T/h.db")" "$N"
