#!/usr/bin/env bash
# bubbles' two-thread writer stops at 16,384 hotspots (src/cmd/cmd_bubbles.c
# SPLIT_MAX_HOTSPOTS: past it the second part would be held as text, docs/commands/bubbles.md):
# on generated traces of exactly 16,384 and 16,385 hotspots (one wave, every VALU record
# stalled: one hotspot per code row)
#  - --jobs 1 and --jobs 2 give the same bubbles.json, envelope and exit code on both;
#  - the branch taken, seen from outside (there is no debug switch): the split writer hands
#    the second thread's text to write() in one block, bigger than the 64 KiB buffer every other
#    write of the artifact goes through (strace). With --jobs 2 the run at the bound makes one
#    such write and the run past it none; with --jobs 1 neither does. (Threads cannot tell: the
#    writer's task runs on the team's thread, started for every --jobs 2 run, src/core/team.c.)
. "$FP_SRC/tests/cli/lib/common.sh"
GEN="$FP_TOOLS/fp_gen_att"
[ -x "$GEN" ] || { echo "fp_gen_att not built: skip"; exit 77; }
fail=0
ok() { echo "ok   $1"; }
no() { echo "FAIL $1"; fail=1; }

for n in 16384 16385; do
    python3 - "$n" "$T/s$n.json" <<'PY'
import json, sys
n, out = int(sys.argv[1]), sys.argv[2]
prog = [{"isa": "v_add_f32_e32 v0, v1, v0", "source": "/s/k.py:%d" % (i + 1), "category": "VALU"} for i in range(n)]
prog.append({"isa": "s_endpgm", "source": "/s/k.py:%d" % (n + 1), "category": "MESSAGE"})
ins = [[1032 + 8 * i, "VALU", 4, 8, i + 1] for i in range(n)] + [[1032 + 8 * n, "MESSAGE", 0, 4, n + 1]]
json.dump({"symbol": "many_0", "pid": 5, "dispatch": 1, "program": prog, "waitcnt": "none",
           "waves": [{"se": 0, "simd": 0, "slot": 0, "id": 0, "cu": 1, "begin": 1000, "instructions": ins}]},
          open(out, "w"))
PY
    "$GEN" "$T/s$n.json" "$T/g$n" > /dev/null || { no "generate $n"; continue; }
    d=$(ls -d "$T/g$n"/ui_output_agent_*)
    for j in 1 2; do
        "$FLYPROF" bubbles --bundle "$d" -q --jobs $j --limit 0 --out "$T/b.json" > "$T/e$n-$j" 2> /dev/null
        echo "$?" >> "$T/e$n-$j"
        sed -i "s#$T/b.json#OUT#g" "$T/e$n-$j"
        mv "$T/b.json" "$T/b$n-$j.json" 2> /dev/null
    done
    got=$(py "$T/b$n-1.json" 'len(j["hotspots"])' 2> /dev/null)
    [ "$got" = "$n" ] && ok "$n hotspots" || no "$got hotspots, expected $n"
    cmp -s "$T/b$n-1.json" "$T/b$n-2.json" && cmp -s "$T/e$n-1" "$T/e$n-2" && [ "$(tail -n1 "$T/e$n-1")" = 0 ] &&
        ok "$n hotspots: bubbles.json, envelope and exit identical for --jobs 1 and 2" ||
        no "$n hotspots: --jobs 1 and 2 differ (exits $(tail -n1 "$T/e$n-1") / $(tail -n1 "$T/e$n-2"))"
done

# block writes of the artifact past the 64 KiB buffer (not stdout, fd 1: the envelope)
if command -v strace > /dev/null && strace -f -o /dev/null true 2> /dev/null; then
    blocks() { # N JOBS
        local d
        d=$(ls -d "$T/g$1"/ui_output_agent_*)
        strace -f -e trace=write -o "$T/st" "$FLYPROF" bubbles --bundle "$d" -q --jobs "$2" --limit 0 \
            --out "$T/x.json" > /dev/null 2>&1
        grep -E '^[0-9]+ +write\(([02-9]|[1-9][0-9]+),' "$T/st" | grep -oE '= [0-9]+$' | awk '$2 > 65536' | wc -l
    }
    at=$(blocks 16384 2) past=$(blocks 16385 2) at1=$(blocks 16384 1) past1=$(blocks 16385 1)
    [ "$at" = 1 ] && [ "$past" = 0 ] && ok "--jobs 2: the split writer at 16,384 hotspots ($at block write), one writer past it ($past)" ||
        no "--jobs 2: $at block writes at 16,384 hotspots, $past at 16,385 (expected 1 and 0)"
    [ "$at1" = 0 ] && [ "$past1" = 0 ] && ok "--jobs 1: one writer on both" || no "--jobs 1: $at1 / $past1 block writes (expected 0)"
else
    echo "strace unavailable: the branch check is skipped"
fi
exit $fail
