#!/usr/bin/env bash
# The views in a real browser (issue 20 "Done when"): report.html and flamegraph.svg opened in
# headless Chromium with no console error, every section and the timeline / occupancy / source
# views in the rendered DOM, and the flamegraph's click-to-zoom and search driven by a harness page
# (the SVG inlined, window.prompt stubbed). FP_SHOTS=DIR also saves screenshots there.
set -u
: "${FLYPROF:?}" "${FP_TOOLS:?}" "${FP_SRC:?}"
CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || { echo "chromium absent: skip"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "ok   $1"; }
no() { echo "FAIL $1"; fail=1; }
browse() { # out-prefix url [extra flags]: DOM to $1.dom, console to $1.log
    local o=$1 u=$2; shift 2
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/profile" \
        --enable-logging=stderr --v=0 --virtual-time-budget=3000 "$@" --dump-dom "$u" > "$o.dom" 2> "$o.err"
    grep 'CONSOLE' "$o.err" > "$o.log" || true
}
console_clean() { ! grep -qiE 'Uncaught|error' "$1.log"; }

"$FP_TOOLS/fp_gen_att" "$FP_SRC/tests/data/gen/rep_stream.json" "$T/b" >/dev/null || { echo "FAIL generator"; exit 1; }
bundles=("$T/b")
if [ -d "${FP_CORPUS:-}/flash_attn_func-big/att" ]; then
    mkdir -p "$T/fa/att/big"; ln -s "$(ls -d "$FP_CORPUS"/flash_attn_func-big/att/ui_output_agent_*)" "$T/fa/att/big/"
    bundles+=("$T/fa")
fi
for b in "${bundles[@]}"; do
    n=$(basename "$b")
    "$FLYPROF" map -q --bundle "$b" > /dev/null && "$FLYPROF" report -q --bundle "$b" > /dev/null
    [ -s "$b/report.html" ] && [ -s "$b/flamegraph.svg" ] || { no "$n: report/map did not write"; continue; }
    browse "$T/r-$n" "file://$b/report.html"
    if console_clean "$T/r-$n" && python3 - "$T/r-$n.dom" <<'PY'; then ok "$n: report.html renders in Chromium, no console error, every section and view in the DOM"; else no "$n report.html"; cat "$T/r-$n.log"; fi
import sys
dom = open(sys.argv[1]).read()
for i in ["headline", "workload", "roofline", "taxonomy", "evidence", "waits", "source", "timeline", "occupancy",
          "flamegraph", "plan", "verification", "counters", "quality", "repro", "wave-timeline", "occupancy-plot", "fp-flame"]:
    assert 'id="%s"' % i in dom, i
assert 'class="src"' in dom and "<polyline" in dom and "<script" not in dom
PY
    browse "$T/f-$n" "file://$b/flamegraph.svg"
    console_clean "$T/f-$n" && grep -q 'fp-flame' "$T/f-$n.dom" && ok "$n: flamegraph.svg loads with its script, no console error" || { no "$n flamegraph.svg"; cat "$T/f-$n.log"; }
    # the harness: the SVG inlined, a click on the widest frame of depth 2, then a search for the bubble classes
    python3 - "$b/flamegraph.svg" "$T/h-$n.html" <<'PY'
import sys
svg = open(sys.argv[1]).read()
svg = svg[svg.index("<svg"):]
js = """
window.prompt = function () { return 'cnt|wait'; };
window.addEventListener('load', function () {
  var fr = [].slice.call(document.querySelectorAll('#fp-flame g.f'));
  var d2 = fr.filter(function (g) { return +g.getAttribute('data-d') === 2; });
  d2.sort(function (a, b) { return b.querySelector('rect').getAttribute('width') - a.querySelector('rect').getAttribute('width'); });
  var z = d2[0], w0 = +z.querySelector('rect').getAttribute('width');
  z.dispatchEvent(new MouseEvent('click', {bubbles: true}));
  var w1 = +z.querySelector('rect').getAttribute('width');
  var hidden = fr.filter(function (g) { return g.style.display === 'none'; }).length;
  document.getElementById('fp-search').dispatchEvent(new MouseEvent('click', {bubbles: true}));
  var matched = document.getElementById('fp-matched').textContent;
  var marked = document.querySelectorAll('#fp-flame rect.m').length;
  document.getElementById('fp-reset').dispatchEvent(new MouseEvent('click', {bubbles: true}));
  var w2 = +z.querySelector('rect').getAttribute('width');
  console.log('HARNESS ' + JSON.stringify({w0: w0, w1: w1, w2: w2, hidden: hidden, matched: matched, marked: marked, frames: fr.length}));
});
"""
open(sys.argv[2], "w").write("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>" + svg + "<script>" + js + "</script></body></html>")
PY
    browse "$T/h-$n" "file://$T/h-$n.html"
    if console_clean "$T/h-$n" && python3 - "$T/h-$n.log" <<'PY'; then ok "$n: click zooms the frame to the full width (others hidden), search marks matches, reset restores"; else no "$n zoom/search harness"; cat "$T/h-$n.log"; fi
import sys, json, re
line = [l for l in open(sys.argv[1]) if "HARNESS" in l][0]
r = json.loads(re.search(r'HARNESS (\{.*?\})"', line).group(1).replace('\\"', '"'))
assert r["w1"] > r["w0"] and abs(r["w1"] - 1180) < 0.5, r      # zoomed to the plot's width (1200 - 2 * 10)
assert abs(r["w2"] - r["w0"]) < 0.01, r                          # reset
assert r["marked"] > 0 and r["matched"].startswith("matched ") and r["matched"].endswith("%"), r
assert r["hidden"] >= 0 and r["frames"] > 3, r
PY
    if [ -n "${FP_SHOTS:-}" ]; then
        mkdir -p "$FP_SHOTS"
        for what in "report.html:report-$n:1400,6000" "flamegraph.svg:flamegraph-$n:1220,600"; do
            IFS=: read -r f s wh <<< "$what"
            timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$T/profile" \
                --window-size="$wh" --screenshot="$FP_SHOTS/$s.png" "file://$b/$f" > /dev/null 2>&1
        done
    fi
done
exit $fail
