#!/bin/bash
# Shell conventions (issue 21 item 4): a typo is one line of did-you-mean plus the usage
# line; colour only on a terminal (--color always forces it, NO_COLOR and --color never
# remove it, JSON never has it); "wrote X" / "next: ..." on stderr after a table (not with
# -q, never in JSON); --version is one line in table mode; the config file's `format:` is
# the default on a terminal and never off one (the agent contract).
set -u
: "${FLYPROF:?}" "${FP_SRC:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
unset FLYPROF_FORMAT NO_COLOR FLYPROF_CONFIG
export HOME=$T/home XDG_CONFIG_HOME=$T/xdg TERM=xterm
mkdir -p "$HOME"
cp -r "$FP_SRC/examples/synthetic_gemm" "$T/b"
pty() { script -qec "$1" /dev/null | tr -d '\r'; } # run on a pseudo-terminal (stdout and stderr)
command -v script > /dev/null || { echo "skip: no script(1)"; exit 77; }

# typos: two lines (message, usage), no list of every command
"$FLYPROF" reprot -f table > /dev/null 2> "$T/e.txt"; [ $? = 64 ] || fail "typo exit"
python3 - "$T/e.txt" <<'PY' || fail "typo: $(cat "$T/e.txt")"
import sys
lines = open(sys.argv[1]).read().splitlines()
joined = [l for l in lines if not l.startswith("    ")]  # wrapped continuation lines belong to the line above
assert len(joined) == 2, lines
assert "did you mean 'report'?" in joined[0] and joined[1].startswith("  help: usage: flyprof report --bundle DIR"), lines
PY
"$FLYPROF" report --bundel "$T/b" -f table > /dev/null 2> "$T/e.txt"
[ "$(grep -vc '^    ' "$T/e.txt")" = 2 ] && grep -q "did you mean --bundle?" "$T/e.txt" || fail "option typo: $(cat "$T/e.txt")"
# JSON keeps the whole answer
"$FLYPROF" reprot -f json > "$T/e.json"
python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['error']; assert e['didYouMean']=='report' and e['help'].startswith('usage: flyprof report'), e" "$T/e.json" ||
  fail "typo json"

# colour
ESC=$(printf '\033')
pty "'$FLYPROF' report --bundle '$T/b' -q" > "$T/c.txt"
head -1 "$T/c.txt" | grep -q "^$ESC\[1m" || fail "no bold headline on a terminal: $(head -1 "$T/c.txt" | od -c | head -2)"
pty "NO_COLOR=1 '$FLYPROF' report --bundle '$T/b' -q" > "$T/c.txt"
! grep -q "$ESC" "$T/c.txt" || fail "NO_COLOR"
pty "'$FLYPROF' report --bundle '$T/b' -q --color never" > "$T/c.txt"
! grep -q "$ESC" "$T/c.txt" || fail "--color never"
"$FLYPROF" report --bundle "$T/b" -q -f table > "$T/c.txt"
! grep -q "$ESC" "$T/c.txt" || fail "colour in a pipe"
"$FLYPROF" report --bundle "$T/b" -q -f table --color always > "$T/c.txt"
head -1 "$T/c.txt" | grep -q "^$ESC\[1m" || fail "--color always"
"$FLYPROF" report --bundle "$T/b" -q -f json --color always > "$T/c.json"
! grep -q "$ESC" "$T/c.json" || fail "colour in JSON"
"$FLYPROF" report --bundle "$T/nope" -f table --color always 2> "$T/e.txt"; grep -q "$ESC\[31merror NO_ARTIFACT" "$T/e.txt" || fail "red error"
"$FLYPROF" report --color sometimes > /dev/null 2>&1; [ $? = 64 ] || fail "--color sometimes"

# wrote / next on stderr after a table; not with -q, not in JSON
"$FLYPROF" bubbles --bundle "$T/b" -f table > "$T/o.txt" 2> "$T/e.txt" || fail bubbles
grep -qx "wrote $T/b/bubbles.json" "$T/e.txt" && grep -qx "next: flyprof map --bundle $T/b   (which .py lines)" "$T/e.txt" ||
  fail "wrote/next: $(cat "$T/e.txt")"
! grep -q "^wrote\|^next:" "$T/o.txt" || fail "hints on stdout"
"$FLYPROF" report --bundle "$T/b" -f table > /dev/null 2> "$T/e.txt" || fail report
[ "$(grep -c "^wrote $T/b/" "$T/e.txt")" = 4 ] || fail "report wrote 4 files: $(cat "$T/e.txt")"
"$FLYPROF" bubbles --bundle "$T/b" -f table -q > /dev/null 2> "$T/e.txt"; [ ! -s "$T/e.txt" ] || fail "-q hints"
"$FLYPROF" bubbles --bundle "$T/b" -f json > /dev/null 2> "$T/e.txt"; ! grep -q "^wrote\|^next:" "$T/e.txt" || fail "json hints"

# --version: one line in table mode, the envelope in JSON
[ "$("$FLYPROF" --version -f table | wc -l)" = 1 ] && "$FLYPROF" --version -f table | grep -q "^flyprof [0-9]" || fail "--version table"
"$FLYPROF" --version -f json | python3 -c "import json,sys; assert json.load(sys.stdin)['data']['name']=='flyprof'" || fail "--version json"

# the config file's format: a terminal gets it, a pipe still gets JSON
mkdir -p "$XDG_CONFIG_HOME/flyprof"
echo "format: csv" > "$XDG_CONFIG_HOME/flyprof/config.yaml"
pty "'$FLYPROF' kernels --bundle '$T/b' -q" | head -1 | grep -q "^rank,name,calls" || fail "config format on a terminal"
"$FLYPROF" kernels --bundle "$T/b" -q | python3 -c "import json,sys; assert json.load(sys.stdin)['ok']" || fail "config format in a pipe"
echo "format: xml" > "$XDG_CONFIG_HOME/flyprof/config.yaml"
pty "'$FLYPROF' kernels --bundle '$T/b' -q" > "$T/c.txt"; grep -q "the config file .*config.yaml says format: xml" "$T/c.txt" ||
  fail "bad config format: $(cat "$T/c.txt")"
echo "conventions: ok"
