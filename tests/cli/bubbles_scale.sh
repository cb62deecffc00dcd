#!/usr/bin/env bash
# issue 10: memory of bubbles/report is bounded by the waves resident at one
# moment, not by the trace. Generates a ~250 MB synthetic trace at test time
# (10,700 wave files of ~19 KB; 8 SEs x 4 SIMDs, 4 slots per SIMD) with the
# project's generator, then checks:
#  - peak RSS of `bubbles` and `report` stays under a fixed cap (16 MiB; the
#    whole-group sweep of before needed ~29 MiB here and ~100 MiB at 1 GB);
#  - the bounded sweep (waves in filenames.json begin order, retired when swept)
#    gives the same numbers as the whole-group sweep (filenames.json removed);
#  - a filenames.json that dates a wave after its own events is detected and
#    the analysis redone unbounded: same numbers again.
# Timing is not asserted (bench/ prints figures).
set -u
GEN="$FP_TOOLS/fp_gen_att"
[ -x "$GEN" ] || { echo "fp_gen_att not built: skip"; exit 77; }
# sanitizer builds: shadow memory makes any RSS cap meaningless (and the run slow)
if grep -qa -e __asan_init -e __ubsan_handle "$FLYPROF" "$GEN"; then echo "sanitizer build: skip"; exit 77; fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
avail=$(df -Pk "$tmp" | awk 'NR == 2 { print $4 }')
[ "${avail:-0}" -gt 1200000 ] || { echo "less than 1.2 GB free in $tmp: skip"; exit 77; }
fail=0
ok() { echo "ok   $1"; }
no() { echo "FAIL $1"; fail=1; }
CAP_KIB=16384
python3 "$FP_SRC/tests/tools/gen_scale_spec.py" 10700 "$tmp/spec.json"
"$GEN" "$tmp/spec.json" "$tmp/gen" > /dev/null || { echo "FAIL generate"; exit 1; }
d=$(ls -d "$tmp"/gen/ui_output_agent_*)
echo "trace: $(ls "$d" | grep -c '^se') wave files, $(du -sm "$d" | cut -f1) MB"
# peak RSS of one command: GNU time when installed (a fork of python would
# report python's own ~10 MiB as the child's floor), else python's rusage
rss() {
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f '%x %M' -o "$tmp/time" "$@" > /dev/null 2>&1
        cat "$tmp/time"
    else
        python3 -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
    fi
}
read -r rc kib < <(rss "$FLYPROF" bubbles --bundle "$d" -q --out "$tmp/bounded.json")
echo "bubbles: exit $rc, peak RSS $kib KiB"
[ "$rc" = 0 ] && [ "$kib" -lt $CAP_KIB ] && ok "bubbles on $(du -sm "$d" | cut -f1) MB under $CAP_KIB KiB ($kib)" || no "bubbles rc $rc rss $kib KiB"
read -r rc kib < <(rss "$FLYPROF" report --bundle "$d" -q)
echo "report: exit $rc, peak RSS $kib KiB"
[ "$rc" = 0 ] && [ "$kib" -lt $CAP_KIB ] && ok "report under $CAP_KIB KiB ($kib)" || no "report rc $rc rss $kib KiB"

same() { # same analysis numbers in two bubbles.json
    python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for k in ("totals", "classes", "hotspots", "lines", "simds", "waitcnt", "wave_states"):
    assert a[k] == b[k], k
t = a["totals"]
assert t["exposed"] > 0 and t["exposed"] + t["hidden"] == t["wave_stall"], t
assert a["quality"]["waves_read"] == 10700, a["quality"]
PY
}
# the whole-group sweep: without filenames.json no wave is dated
mv "$d/filenames.json" "$tmp/filenames.json"
"$FLYPROF" bubbles --bundle "$d" -q --out "$tmp/whole.json" > /dev/null
same "$tmp/bounded.json" "$tmp/whole.json" && ok "bounded sweep == whole-group sweep" || no "bounded vs whole-group sweep"
# a wave dated after its own events (begin + 10^6 for se0_sm0_sl0_wv0): redone unbounded
python3 - "$tmp/filenames.json" "$d/filenames.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
e = j["wave_filenames"]["0"]["0"]["0"]["0"]
e[1] += 1000000
json.dump(j, open(sys.argv[2], "w"))
PY
"$FLYPROF" bubbles --bundle "$d" -q --out "$tmp/misdated.json" > /dev/null
same "$tmp/bounded.json" "$tmp/misdated.json" && ok "a misdated wave in filenames.json: redone, same numbers" || no "misdated filenames.json"
exit $fail
