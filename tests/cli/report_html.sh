#!/usr/bin/env bash
# report.html (issue 20 item 3, issue 22 item 3): every section present, the pictures built from
# data, and nothing from a bundle's files can put markup or script into it - a planted
# flamegraph.svg with <SCRIPT>/onload=, and hostile kernel/source/ISA/snapshot text, come out
# escaped or not at all (checked with an HTML parser, not by searching for one spelling).
set -u
: "${FLYPROF:?}" "${FP_TOOLS:?}" "${FP_SRC:?}"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "ok   $1"; }
no() { echo "FAIL $1"; fail=1; }
"$FP_TOOLS/fp_gen_att" "$FP_SRC/tests/data/gen/rep_stream.json" "$T/b" >/dev/null || { echo "FAIL generator"; exit 1; }
d=$(ls -d "$T/b"/att/ui_output_agent_*)

cat > "$T/check.py" <<'PY'
import sys, html.parser
SECTIONS = ["headline", "workload", "roofline", "taxonomy", "evidence", "waits", "source", "timeline",
            "occupancy", "flamegraph", "plan", "verification", "counters", "quality", "repro"]
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.bad, self.text = [], [], []
    def handle_starttag(self, tag, attrs):
        if tag in ("script", "iframe", "object", "embed", "link", "meta") and not (tag == "meta" and attrs == [("charset", "utf-8")]):
            self.bad.append(tag)
        for k, v in attrs:
            if k.lower().startswith("on") or (v and "javascript:" in v.lower().replace(" ", "")) or (k in ("src", "href") and v and not v.startswith("#")):
                self.bad.append("%s %s=%r" % (tag, k, v))
            if k == "id":
                self.ids.append(v)
    handle_startendtag = handle_starttag
    def handle_data(self, data):
        self.text.append(data)
raw = open(sys.argv[1], "rb").read()
page = raw.decode("utf-8")  # strict
p = P(); p.feed(page)
assert not p.bad, p.bad
missing = [s for s in SECTIONS if s not in p.ids]
assert not missing, missing
assert all(v in p.ids for v in ("wave-timeline", "occupancy-plot", "fp-flame")), p.ids
assert not any(0 < ord(c) < 32 and c not in "\t\n\r" for c in page), "control characters in the page"
for want in sys.argv[2:]:
    assert want in "".join(p.text), want
PY

"$FLYPROF" report -q --bundle "$T/b" > "$T/env"; rc=$?
[ $rc -eq 0 ] && python3 "$T/check.py" "$T/b/report.html" && python3 - "$T/b/report.html" <<'PY' && ok "every section, timeline / occupancy / source / flamegraph pictures present, inert" || { no "sections ($rc)"; head -c 500 "$T/env"; }
import sys, re
page = open(sys.argv[1]).read()
# the wave timeline draws the generator's waves, the occupancy plot a polyline, the flamegraph frames
assert page.count("<rect") > 20 and "<polyline" in page and 'class="f"' in page
assert 'class="src"' in page  # the source view's table (the fixture ships snapshots)
assert "<code>" in page       # backticks of the report's texts rendered as code
PY

# hostile bundle: a planted flamegraph.svg, markup and terminal escapes in every text the page shows
printf '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><SCRIPT>alert(2)</SCRIPT><a href="javascript:alert(3)">x</a></svg>' > "$T/b/flamegraph.svg"
python3 - "$d" <<'PY'
import json, sys, glob, os
d = sys.argv[1]
p = os.path.join(d, "code.json"); j = json.load(open(p))
evil = '<img src=x onerror=alert(1)>\x1b]52;c;SGVsbG8=\x07\x1b]0;title\x07'
j["code"][0][0] = "; kernel<SCRIPT>alert(4)</SCRIPT>" + evil
for r in j["code"][1:]:
    if r[3]:
        r[3] = r[3].replace(".py", evil.replace(":", "") + ".py", 1)
    r[0] = r[0] + " <b onmouseover=alert(5)>"
open(p, "w").write(json.dumps(j))
s = os.path.join(d, "snapshots.json")
if os.path.exists(s):
    for f in glob.glob(os.path.join(d, "source_*")):
        open(f, "a").write("\n".join("</td><script>alert(6)</script>" + evil for _ in range(200)) + "\n")
PY
"$FLYPROF" report -q --bundle "$T/b" > "$T/env"; rc=$?
[ $rc -eq 0 -o $rc -eq 66 ] && python3 "$T/check.py" "$T/b/report.html" '<SCRIPT>alert(4)</SCRIPT>' && ! grep -qi 'alert(2)\|alert(3)' "$T/b/report.html" && ok "a planted flamegraph.svg is never pasted; markup and OSC/BEL escapes in names, paths, ISA, sources are escaped" || { no "hostile ($rc)"; grep -io '.\{40\}alert.\{40\}' "$T/b/report.html" | head -5; }

# map's own flamegraph.svg (interactive) is not pasted either: the page's flamegraph is rebuilt from report.json
"$FLYPROF" map -q --bundle "$T/b" > /dev/null
"$FLYPROF" report -q --bundle "$T/b" > "$T/env"
python3 "$T/check.py" "$T/b/report.html" && ok "after map: still no script in report.html" || no "after map"
exit $fail
