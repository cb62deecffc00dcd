#!/bin/bash
# Docs match behaviour (issue 21 item 8): every command page with an error table also has a
# table of checked examples (| example | code | exit |); each example is run and must give
# exactly that code and exit status, the pair must be a row of the page's error table, and
# every row of every error table must carry the exit status flyprof binds to its code
# (`flyprof help exit-codes`). The README's sentence on the global --bundle must name
# exactly the commands that refuse it. diff.json must not carry the envelope-only `artifact`.
# Placeholders in examples: $EX (a reported copy of the shipped example), $EXD (its dispatch
# dir), $NOPE (a path that does not exist), $FILE (a regular text file), $DIR (an empty dir),
# $BADJSON (a file holding "{").
set -u
: "${FLYPROF:?}" "${FP_SRC:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
unset FLYPROF_FORMAT FLYPROF_HISTORY FLYPROF_RECIPES FLYPROF_CONFIG FLYPROF_WORKTREE FLYPROF_EXAMPLES_DIR
export HOME=$T/home XDG_DATA_HOME=$T/xdg
mkdir -p "$HOME" "$T/dir"
cp -r "$FP_SRC/examples/synthetic_gemm" "$T/ex"
"$FLYPROF" report --bundle "$T/ex" -q -f json > /dev/null || fail "report on the example copy"
echo x > "$T/file"
echo "{" > "$T/bad.json"
export T EX=$T/ex EXD=$(ls -d "$T"/ex/att/ui_output_agent_*) NOPE=$T/nope FILE=$T/file DIR=$T/dir BADJSON=$T/bad.json
cd "$T"
python3 - "$FLYPROF" "$FP_SRC" <<'PY' || fail "the command pages disagree with flyprof (above)"
import glob, json, os, re, shlex, subprocess, sys
flyprof, src = sys.argv[1:3]
codes = {c["code"]: c["exitCode"] for c in json.loads(subprocess.run([flyprof, "help", "exit-codes", "-f", "json"],
                                                                      capture_output=True, text=True).stdout)["data"]["exitCodes"]}
bad = []
def tables(text):
    """every markdown table: (header cells, [row cells])"""
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cur is None:
                cur = (cells, [])
            elif not all(re.fullmatch(r":?-+:?", c) for c in cells):
                cur[1].append(cells)
        elif cur is not None:
            out.append(cur)
            cur = None
    if cur:
        out.append(cur)
    return out
nexamples = 0
for page in sorted(glob.glob(os.path.join(src, "docs/commands/*.md"))):
    name = os.path.basename(page)[:-3]
    text = open(page).read()
    ts = tables(text)
    errs = [rows for head, rows in ts if [h.lower() for h in head[:3]] == ["code", "exit", "when"]]
    exs = [rows for head, rows in ts if [h.lower() for h in head[:3]] == ["example", "code", "exit"]]
    pairs = set()
    for rows in errs:
        for r in rows:
            for code in re.findall(r"`([A-Z_]+)`", r[0]):
                pairs.add((code, int(r[1])))
                if codes.get(code) != int(r[1]):
                    bad.append("%s: the error table gives %s exit %s, flyprof binds it to %s" % (name, code, r[1], codes.get(code)))
    if errs and not exs:
        bad.append("%s: an error table without checked examples (| example | code | exit |)" % name)
    for rows in exs:
        for r in rows:
            cmd = re.fullmatch(r"`(.*)`", r[0]).group(1)
            code, want = r[1].strip("`"), int(r[2])
            argv = [os.path.expandvars(a) for a in shlex.split(cmd)]
            assert argv[0] == "flyprof", cmd
            p = subprocess.run([flyprof] + argv[1:] + ["-f", "json", "-q"], capture_output=True, text=True,
                               stdin=subprocess.DEVNULL, timeout=60)
            nexamples += 1
            try:
                got = json.loads(p.stdout)["error"]["code"]
            except Exception:
                got = "no error envelope: " + p.stdout[:200]
            if (got, p.returncode) != (code, want):
                bad.append("%s: `%s` gives %s exit %d, the page says %s %d" % (name, cmd, got, p.returncode, code, want))
            if errs and (code, want) not in pairs:
                bad.append("%s: example `%s` (%s %d) is not a row of the error table" % (name, cmd, code, want))
# the README: which commands refuse the global --bundle
refuse = []
for c in json.loads(subprocess.run([flyprof, "help", "-f", "json"], capture_output=True, text=True).stdout)["data"]["commands"]:
    h = json.loads(subprocess.run([flyprof, "help", c["name"], "-f", "json"], capture_output=True, text=True).stdout)["data"]
    if "--bundle" in [o["flag"] for o in h["globalOptions"]]:
        continue  # takes it (never run here: run or capture would start working)
    refuse.append(c["name"])
    # and really refuses it (a positional for the ones that need one before the check)
    outs = [subprocess.run([flyprof, c["name"], "--bundle", "."] + extra + ["-f", "json", "-q"], capture_output=True,
                           text=True, stdin=subprocess.DEVNULL, timeout=60).stdout for extra in ([], ["x"])]
    if not any("unknown option --bundle" in o for o in outs):
        bad.append("%s: help shows no --bundle but the command does not refuse it" % c["name"])
readme = open(os.path.join(src, "README.md")).read()
m = re.search(r"`--bundle DIR` \(([^)]*)\)", readme)
if not m:
    bad.append("README: no `--bundle DIR` (...) sentence naming the commands that refuse it")
else:
    named = re.findall(r"`(\w+)`", m.group(1))
    if sorted(named) != sorted(refuse):
        bad.append("README: --bundle refused by %s, the README names %s" % (refuse, named))
for b in bad:
    print(b)
print("%d examples run" % nexamples)
assert not bad and nexamples >= 40
PY
# diff.json: the page's keys; `artifact` is the envelope's only
cp -r "$EX" "$T/ex2"
"$FLYPROF" diff --before "$EX" --after "$T/ex2" -q -f json > "$T/d.json" || fail "diff"
python3 - "$T/d.json" "$T/ex2/diff.json" <<'PY' || fail "diff.json vs its page"
import json, sys
env = json.load(open(sys.argv[1]))["data"]; art = json.load(open(sys.argv[2]))
assert "artifact" in env and "artifact" not in art, (list(env), list(art))
assert list(env)[:-1] == list(art), (list(env), list(art))
PY
echo "doc_errors: ok"
