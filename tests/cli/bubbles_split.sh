#!/usr/bin/env bash
# bubbles --jobs 2 writes bubbles.json in two parts: a second thread renders the
# hotspots' later part while the main thread writes the rest and the file
# (src/cmd/cmd_bubbles.c: write_artifact, 64 hotspots and more). On a corpus case that
# reaches it (flash_attn_func-big: 1,454 hotspots):
#  - --jobs 1 (one writer) and --jobs 2 (split) give the same bubbles.json and envelope;
#  - a write that fails (the --out parent is a file) gives the same error envelope,
#    exit 74, and no file;
#  - a signal at any moment of the run leaves the old file or the complete new one,
#    never a part, and no temp file.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
no() { echo "FAIL $1"; fail=1; }

d=
for c in flash_attn_func-big moe_reduce-big; do
    [ -d "${FP_CORPUS:-/nonexistent}/$c/att" ] && { d=$(ls -d "$FP_CORPUS/$c"/att/*/ | head -1); break; }
done
[ -n "$d" ] || { echo "corpus absent: skip"; exit 77; }

for j in 1 2; do
    rm -f "$tmp/b.json"
    "$FLYPROF" bubbles --bundle "$d" -q --jobs $j --limit 0 --out "$tmp/b.json" > "$tmp/e$j.json" 2> /dev/null
    echo $? > "$tmp/rc$j"
    mv "$tmp/b.json" "$tmp/b$j.json" 2> /dev/null
done
n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['hotspots']))" "$tmp/b1.json" 2> /dev/null || echo 0)
[ "$n" -ge 64 ] && ok "$n hotspots: the split is taken with --jobs 2" || no "only $n hotspots: the split is not reached"
cmp -s "$tmp/rc1" "$tmp/rc2" && [ "$(cat "$tmp/rc1")" = 0 ] && ok "exit 0 for --jobs 1 and 2" || no "exit codes $(cat "$tmp/rc1") / $(cat "$tmp/rc2")"
cmp -s "$tmp/b1.json" "$tmp/b2.json" && ok "bubbles.json identical for --jobs 1 and 2" || no "bubbles.json differs with --jobs 2"
cmp -s "$tmp/e1.json" "$tmp/e2.json" && ok "envelope identical for --jobs 1 and 2" || no "envelope differs with --jobs 2"

# a failed write: the parent of --out is a plain file (fails before the text is needed)
: > "$tmp/plain"
for j in 1 2; do
    "$FLYPROF" bubbles --bundle "$d" -q --jobs $j --out "$tmp/plain/b.json" > "$tmp/fe$j.json" 2> /dev/null
    echo $? > "$tmp/frc$j"
done
[ "$(cat "$tmp/frc2")" = 74 ] && cmp -s "$tmp/frc1" "$tmp/frc2" && cmp -s "$tmp/fe1.json" "$tmp/fe2.json" \
    && [ ! -s "$tmp/plain" ] && ok "failed write with --jobs 2: exit 74, the --jobs 1 error envelope" \
    || { no "failed write: exit $(cat "$tmp/frc1") / $(cat "$tmp/frc2")"; cat "$tmp/fe2.json"; }

# a signal at different moments (the later ones during the write and its overlap)
mkdir -p "$tmp/sig"
old=0 new=0
for delay in 0 0.003 0.006 0.009 0.012 0.015 0.018 0.021 0.025; do
    echo '{"old": true}' > "$tmp/sig/b.json"
    "$FLYPROF" bubbles --bundle "$d" -q --jobs 2 --limit 0 --out "$tmp/sig/b.json" > /dev/null 2>&1 &
    pid=$!
    sleep $delay
    kill -TERM $pid 2> /dev/null
    wait $pid
    if cmp -s "$tmp/sig/b.json" "$tmp/b1.json"; then
        new=$((new + 1))
    elif [ "$(cat "$tmp/sig/b.json")" = '{"old": true}' ]; then
        old=$((old + 1))
    else
        no "SIGTERM after ${delay}s: bubbles.json is neither the old nor the complete new one"
    fi
    left=$(ls "$tmp/sig" | grep -v '^b.json$')
    [ -z "$left" ] || no "SIGTERM after ${delay}s: left $left"
done
ok "SIGTERM at 9 moments: $old old, $new new bubbles.json, no part, no temp file"
exit $fail
