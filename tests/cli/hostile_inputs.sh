#!/bin/bash
# hostile_inputs: the fixes of issue 10 (b) (c) (e) (f) end to end, through the binary.
#  (b) a 356-byte YAML alias bomb as --recipes: BAD_INPUT at once (it ran for minutes, GBs)
#  (c) bundle never deletes the bundle it publishes (examples-dir/<kernel> == or contains --bundle)
#  (e) a FIFO where a trace file is expected: a typed IO_ERROR, not a hang
#  (f) invalid UTF-8 in code.json / source paths: the envelope and artifacts stay valid UTF-8 JSON
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# strict: bytes must decode as UTF-8 and parse as one JSON document
strict_json() { python3 -c "import json,sys; json.loads(open(sys.argv[1],'rb').read().decode('utf-8'))" "$1"; }
code_of() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['error']['code'])" "$1"; }
# every run is bounded: a regression is a failure, not a hung suite
run() { timeout -k 5 20 "$FLYPROF" "$@"; }

"$FP_TOOLS/fp_gen_att" "$FP_SRC/tests/data/gen/rep_stream.json" "$T/b" > /dev/null || fail generator
D=$(ls -d "$T"/b/att/ui_output_agent_*)

# ---- (b) alias bomb ----
run list --recipes "$FP_SRC/tests/data/hostile/alias_bomb.yaml" -q -f json > "$T/b.json"; rc=$?
[ $rc -eq 65 ] || fail "(b) alias bomb exit $rc (124 = timed out)"
[ "$(code_of "$T/b.json")" = BAD_INPUT ] || fail "(b) alias bomb code"
grep -q 'alias bomb' "$T/b.json" || fail "(b) alias bomb message"

# ---- (c) bundle onto itself ----
run bundle --bundle "$T/b" --examples-dir "$T/ex" -q -f json > /dev/null || fail "(c) first bundle"
E="$T/ex/rep_stream_kernel_0"
[ -s "$E/report.json" ] || fail "(c) example not written"
touch "$E/only_here.txt"
snap() { (cd "$1" && find . -type f | LC_ALL=C sort | xargs md5sum); }
before=$(snap "$E")
# 1. <examples-dir>/<kernel> IS the bundle
run bundle --bundle "$E" --examples-dir "$T/ex" -q -f json > "$T/c1.json"; rc=$?
[ $rc -eq 78 ] || fail "(c) bundle == destination: exit $rc"
[ "$(code_of "$T/c1.json")" = BAD_ARGS ] || fail "(c) bundle == destination: code"
[ "$before" = "$(snap "$E")" ] || fail "(c) the source bundle changed"
# ... also through a relative path with .. and a symlinked examples dir
ln -s "$T/ex" "$T/exlink"
(cd "$T" && run bundle --bundle "ex/rep_stream_kernel_0" --examples-dir "ex/../exlink" -q -f json > "$T/c2.json"); rc=$?
[ $rc -eq 78 ] || fail "(c) bundle == destination via symlink: exit $rc"
[ "$before" = "$(snap "$E")" ] || fail "(c) the source bundle changed (symlink)"
# 2. <examples-dir>/<kernel> CONTAINS the bundle (and --bundle is a bare dispatch dir inside it)
mkdir -p "$T/ex3/rep_stream_kernel_0"
cp -r "$T/b" "$T/ex3/rep_stream_kernel_0/b"
b3=$(snap "$T/ex3/rep_stream_kernel_0")
run bundle --bundle "$T/ex3/rep_stream_kernel_0/b" --examples-dir "$T/ex3" -q -f json > "$T/c3.json"; rc=$?
[ $rc -eq 78 ] || fail "(c) destination contains the bundle: exit $rc"
D3=$(ls -d "$T"/ex3/rep_stream_kernel_0/b/att/ui_output_agent_*)
run bundle --bundle "$D3" --examples-dir "$T/ex3" -q -f json > "$T/c4.json"; rc=$?
[ $rc -eq 78 ] || fail "(c) destination contains the dispatch dir: exit $rc"
[ "$b3" = "$(snap "$T/ex3/rep_stream_kernel_0")" ] || fail "(c) the containing bundle changed"
# 3. the examples dir inside a directory the example copies
run bundle --bundle "$T/b" --examples-dir "$D/ex" -q -f json > "$T/c5.json"; rc=$?
[ $rc -eq 78 ] || fail "(c) examples dir inside the dispatch: exit $rc"
[ ! -e "$D/ex" ] || [ -z "$(ls -A "$D/ex")" ] || fail "(c) wrote into the dispatch dir"
# a normal re-bundle still replaces the example whole
run bundle --bundle "$T/b" --examples-dir "$T/ex" -q -f json > /dev/null || fail "(c) re-bundle"
[ ! -e "$E/only_here.txt" ] || fail "(c) re-bundle is not a whole replacement"

# ---- (e) FIFOs ----
cp -r "$D" "$T/fifo"
rm "$T/fifo/code.json" && mkfifo "$T/fifo/code.json"
run hotspots "$T/fifo" -q -f json > "$T/e1.json"; rc=$?
[ $rc -eq 74 ] || fail "(e) code.json FIFO: exit $rc (124 = hung)"
grep -q 'FIFO' "$T/e1.json" || fail "(e) message names the FIFO"
cp -r "$D" "$T/fifo2"
W=$(ls "$T"/fifo2/se*_wv*.json | head -1)
rm "$W" && mkfifo "$W"
run bubbles --bundle "$T/fifo2" --out "$T/e2_bubbles.json" -q -f json > "$T/e2.json"; rc=$?
[ $rc -ne 124 ] || fail "(e) a wave file FIFO hangs bubbles"
strict_json "$T/e2.json" || fail "(e) bubbles envelope"
printf 'recipes: []\n' > /dev/null
mkfifo "$T/recipes.yaml"
run list --recipes "$T/recipes.yaml" -q -f json > "$T/e3.json"; rc=$?
[ $rc -ne 124 ] && [ $rc -ne 0 ] || fail "(e) a recipes FIFO: exit $rc"

# ---- (f) invalid UTF-8 ----
cp -r "$D" "$T/u"
python3 - "$T/u" <<'PY'
import sys, re, os
d = sys.argv[1]
p = os.path.join(d, 'code.json')
b = open(p, 'rb').read()
# an ISA string and a source path with bytes that are not UTF-8 (a lone continuation, a cut
# 3-byte sequence, 0xff, an overlong '/')
b = b.replace(b'"s_waitcnt', b'"s_waitcnt\x80\xe2\x82\xff').replace(b'"v_', b'"v_\xfe')
b = b.replace(b'rep_stream.py', b'rep_stream\xc0\xaf.py')
open(p, 'wb').write(b)
PY
run hotspots "$T/u" -q -f json > "$T/f1.json"; rc=$?
[ $rc -eq 0 ] || fail "(f) hotspots exit $rc"
strict_json "$T/f1.json" || fail "(f) hotspots envelope is not valid UTF-8 JSON"
grep -q $'rep_stream\xef\xbf\xbd\xef\xbf\xbd.py' "$T/f1.json" || fail "(f) U+FFFD not in the envelope"
run bubbles --bundle "$T/u" --out "$T/f_bubbles.json" -q -f json > "$T/f2.json"; rc=$?
[ $rc -eq 0 ] || fail "(f) bubbles exit $rc"
strict_json "$T/f2.json" || fail "(f) bubbles envelope"
strict_json "$T/f_bubbles.json" || fail "(f) bubbles.json artifact"
run map --bundle "$T/u" --out-dir "$T/fmap" -q -f json > "$T/f3.json"; rc=$?
strict_json "$T/f3.json" || fail "(f) map envelope (exit $rc)"
[ ! -e "$T/fmap/map.json" ] || strict_json "$T/fmap/map.json" || fail "(f) map.json artifact"
run report --bundle "$T/u" --out-dir "$T/frep" -q -f json > "$T/f4.json"; rc=$?
strict_json "$T/f4.json" || fail "(f) report envelope (exit $rc)"
[ ! -e "$T/frep/report.json" ] || strict_json "$T/frep/report.json" || fail "(f) report.json artifact"
echo "ok"
