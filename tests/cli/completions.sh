#!/bin/bash
# Shell completion (bash, zsh, fish) and man pages (issue 21 item 5): generated at build time
# from the option tables (cmake/gen_shell_docs.cmake -> <build>/share), installed by
# `cmake --install`. Every option of every command (and every global option it takes)
# appears in each completion file, in that command's part, and in its man page; the bash
# completion really completes (options, choices, commands); the man pages render.
set -u
: "${FLYPROF:?}" "${FP_SRC:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
BUILD=$(dirname "$FLYPROF")
G=$BUILD/share
for f in completions/flyprof.bash completions/_flyprof completions/flyprof.fish man/man1/flyprof.1; do
  [ -s "$G/$f" ] || fail "not generated: $G/$f"
done
# the generated files are what the binary prints now (not stale)
"$FLYPROF" help completion bash -f table | cmp -s - "$G/completions/flyprof.bash" || fail "bash completion stale"
"$FLYPROF" help man report -f table | cmp -s - "$G/man/man1/flyprof-report.1" || fail "man page stale"
python3 - "$FLYPROF" "$G" <<'PY' || fail "an option is missing (above)"
import json, re, subprocess, sys
flyprof, G = sys.argv[1:3]
def j(*a):
    return json.loads(subprocess.run([flyprof, *a, "-f", "json"], capture_output=True, text=True).stdout)["data"]
bash = open(G + "/completions/flyprof.bash").read()
zsh = open(G + "/completions/_flyprof").read()
fish = open(G + "/completions/flyprof.fish").read().splitlines()
top = open(G + "/man/man1/flyprof.1").read()
bad, n = [], 0
def block(text, start, end_pat):
    i = text.index(start)
    m = re.compile(end_pat).search(text, i + len(start))
    return text[i:m.start() if m else len(text)]
for c in j("help")["commands"]:
    name = c["name"]
    h = j("help", name)
    opts = [o["flag"] for o in h["options"]] + [o["flag"] for o in h["globalOptions"]]
    shorts = [o["short"] for o in h["options"] + h["globalOptions"] if o.get("short")]
    b = block(bash, "\n    %s)\n" % name, r"\n    [a-z_]+\)\n|\n    esac")
    z = block(zsh, "\n    %s)\n" % name, r"\n    [a-z_]+\)\n|\n    esac")
    man = open("%s/man/man1/flyprof-%s.1" % (G, name)).read()
    if "flyprof\\-%s" % name not in top:
        bad.append("flyprof(1) does not list %s" % name)
    for f in opts:
        n += 1
        lng = f[2:]
        if not re.search(r'opts="[^"]* %s( |")' % re.escape(f), b):
            bad.append("bash %s: %s" % (name, f))
        if "'%s[" % f not in z and ",--%s}'" % lng not in z:
            bad.append("zsh %s: %s" % (name, f))
        if not any(("-l %s " % lng) in l and ("__fish_seen_subcommand_from %s'" % name in l or "__fish_seen" not in l) for l in fish):
            bad.append("fish %s: %s" % (name, f))
        if ".B " not in man or f.replace("-", "\\-") not in man:
            bad.append("man flyprof-%s: %s" % (name, f))
    for s in shorts:
        if " %s" % s not in b:
            bad.append("bash %s: short %s" % (name, s))
    # examples in every command's help, and they only use options the command has
    if not h.get("examples"):
        bad.append("help %s: no examples" % name)
    for e in h.get("examples", []):
        words = e.split(" -- ")[0].split()
        for w in words:
            if w.startswith("--") and w.split("=")[0] not in opts:
                bad.append("help %s example %r: %s is not an option" % (name, e, w))
        if ".SH EXAMPLES" not in man:
            bad.append("man flyprof-%s: no EXAMPLES" % name)
for o in j("help")["globalOptions"]:
    if o["flag"].replace("-", "\\-") not in top:
        bad.append("flyprof(1): %s" % o["flag"])
for x in bad:
    print(x)
print(n, "options checked")
assert not bad and n > 150
PY
# bash really completes
bash -c '
. "$1/completions/flyprof.bash"
t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _flyprof; echo "${COMPREPLY[*]}"; }
[ "$(t flyprof rep)" = report ] || { echo "command: $(t flyprof rep)"; exit 1; }
[ "$(t flyprof report --no)" = --no-html ] || { echo "option: $(t flyprof report --no)"; exit 1; }
[ "$(t flyprof report -f "")" = "json table csv sarif junit" ] || { echo "choice: $(t flyprof report -f "")"; exit 1; }
[ "$(t flyprof run softmax --tag b)" = "big both" ] || { echo "run --tag: $(t flyprof run softmax --tag b)"; exit 1; }
case " $(t flyprof diff --) " in *" --bundle "*) echo "diff offers --bundle"; exit 1;; esac
' _ "$G" || fail "bash completion"
command -v zsh > /dev/null && { zsh -n "$G/completions/_flyprof" || fail "zsh syntax"; }
command -v fish > /dev/null && { fish -n "$G/completions/flyprof.fish" || fail "fish syntax"; }
# the man pages render without warnings
if command -v groff > /dev/null; then
  for m in "$G"/man/man1/*.1; do
    w=$(groff -man -Tutf8 -ww -z "$m" 2>&1)
    [ -z "$w" ] || fail "groff on $(basename "$m"): $w"
  done
  groff -man -Tutf8 "$G/man/man1/flyprof-report.1" 2>/dev/null | grep -q "source-root" || fail "rendered man page"
fi
# cmake --install puts them where the shells and man look
cmake --install "$BUILD" --prefix "$T/p" > /dev/null || fail "cmake --install"
for f in share/bash-completion/completions/flyprof share/zsh/vendor-completions/_flyprof \
         share/fish/vendor_completions.d/flyprof.fish share/man/man1/flyprof.1 share/man/man1/flyprof-check.1; do
  [ -s "$T/p/$f" ] || fail "not installed: $f"
done
MANPATH=$T/p/share/man man -w flyprof-history > /dev/null 2>&1 || ! command -v man > /dev/null || fail "man -w flyprof-history"
echo "completions: ok"
