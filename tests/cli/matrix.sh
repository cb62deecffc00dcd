#!/usr/bin/env bash
# matrix.sh - one mistake, one exit code, in every command (docs/exit-codes.md):
#
#   missing required argument / malformed number / unknown flag -> 64 USAGE
#   nonexistent input path                                       -> 66 NO_ARTIFACT
#   path of the wrong kind (file for a dir, dir for a file, ...) -> 78 BAD_ARGS
#   unreadable input                                             -> 74 IO_ERROR
#
# and a command that failed created nothing (its output dirs, the cwd). A cell
# that does not apply to a command (rules reads no path) is printed as n/a.
set -u
: "${FLYPROF:?}"
T=$(mktemp -d)
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# fixtures: a file, a dir, a nonexistent path, an unreadable file and dir
FX=$T/fx
mkdir -p "$FX/dir" "$FX/d000" "$T/home"
echo 'not what anyone expects' > "$FX/file.txt"
echo 'secret' > "$FX/u000"
chmod 000 "$FX/u000" "$FX/d000"
FILE=$FX/file.txt DIR=$FX/dir NO=$FX/nope U000=$FX/u000 D000=$FX/d000
# outputs go under $W; the command runs in $W/cwd: both must stay as they were
W=$T/w
OUT=$W/out
mkdir -p "$W/cwd"

# Unreadable files: chmod 000 does not stop root (CAP_DAC_OVERRIDE). As root,
# run that column without the DAC capabilities (setpriv), after checking that
# this really blocks the read; otherwise skip the column and say why.
UNREAD=()
unread_skip=""
if [ "$(id -u)" != 0 ]; then
  UNREAD=()
elif command -v setpriv >/dev/null &&
     ! setpriv --inh-caps=-dac_override,-dac_read_search --bounding-set=-dac_override,-dac_read_search \
       cat "$U000" >/dev/null 2>&1; then
  UNREAD=(setpriv --inh-caps=-dac_override,-dac_read_search --bounding-set=-dac_override,-dac_read_search)
else
  unread_skip="running as root and cannot drop CAP_DAC_OVERRIDE (no setpriv, or no CAP_SETPCAP): chmod 000 does not block reads"
  echo "SKIP column unreadable: $unread_skip"
fi

# a clean environment: no config, registry or worktree from the machine
unset FLYPROF_WORKTREE FLYPROF_RECIPES FLYPROF_CONFIG FLYPROF_ROCPROFV3 FLYPROF_PYTHON FLYPROF_GPU FLYPROF_ARCH \
      FLYPROF_EXAMPLES_DIR XDG_CONFIG_HOME
export HOME=$T/home

CODES=([64]=USAGE [66]=NO_ARTIFACT [74]=IO_ERROR [78]=BAD_ARGS)
ncells=0
# cell COMMAND COLUMN EXIT ARGS... : run `flyprof COMMAND ARGS`, expect EXIT and its code
cell() {
  local cmd=$1 col=$2 want=$3; shift 3
  local pre=()
  if [ "$col" = unreadable ]; then
    [ -n "$unread_skip" ] && return
    pre=("${UNREAD[@]}")
  fi
  local before after rc
  before=$(cd "$W" && find . | sort)
  (cd "$W/cwd" && "${pre[@]}" "$FLYPROF" "$cmd" "$@" -f json -q > "$T/env.json" 2> "$T/err.txt" < /dev/null)
  rc=$?
  ncells=$((ncells + 1))
  if [ "$rc" != "$want" ]; then
    fail "$cmd x $col: exit $rc, want $want ($*): $(head -c 400 "$T/env.json")"
  else # the envelopes are checked together at the end (one python start, not 100)
    mkdir -p "$T/envs"
    cp "$T/env.json" "$T/envs/$ncells ${CODES[$want]} $cmd x $col.json"
  fi
  after=$(cd "$W" && find . | sort)
  [ "$before" = "$after" ] || fail "$cmd x $col: the failed command created: $(diff <(echo "$before") <(echo "$after") | grep '^>' | tr '\n' ' ')"
}
na() { echo "n/a  $1 x $2: $3"; }

# ---- run / capture: KERNEL, the config paths, the output bundle ----
for c in run capture; do
  cell $c missing 64 --bundle "$OUT"
  cell $c nonexistent 66 softmax --recipes "$NO" --bundle "$OUT"
  cell $c wrong-kind 78 softmax --recipes "$DIR" --bundle "$OUT"
  cell $c wrong-kind 78 softmax --worktree "$FILE" --bundle "$OUT"
  cell $c wrong-kind 78 softmax --bundle "$FILE"
  cell $c unreadable 74 softmax --config "$U000" --bundle "$OUT"
  cell $c bad-number 64 softmax --timeout 12s --bundle "$OUT"
  cell $c unknown-flag 64 softmax --no-such-flag --bundle "$OUT"
done
cell run bad-number 64 softmax --gpu x1 --bundle "$OUT"

# ---- sweep: --out, the spec, the config paths ----
cell sweep missing 64 --spec "$FILE"
cell sweep nonexistent 66 --spec "$NO" --out "$OUT"
cell sweep nonexistent 66 --status --out "$NO"
cell sweep wrong-kind 78 --spec "$DIR" --out "$OUT"
cell sweep wrong-kind 78 --spec "$FILE" --out "$FILE"
cell sweep unreadable 74 --spec "$U000" --out "$OUT"
cell sweep bad-number 64 --spec "$FILE" --out "$OUT" --parallel x
cell sweep unknown-flag 64 --spec "$FILE" --out "$OUT" --no-such-flag

# ---- doctor / list: no required argument; the config paths ----
for c in doctor list; do
  na $c missing "no required argument"
  cell $c nonexistent 66 --config "$NO"
  cell $c nonexistent 66 --worktree "$NO"
  cell $c wrong-kind 78 --recipes "$DIR"
  cell $c wrong-kind 78 --worktree "$FILE"
  cell $c unreadable 74 --recipes "$U000"
  cell $c unreadable 74 --worktree "$D000"
  cell $c unknown-flag 64 --bogus
  cell $c unknown-flag 64 --bundle "$DIR"   # reads no bundle
done
cell doctor bad-number 64 --gpu two
na list bad-number "list takes no number"

# ---- tile: --bundle is an optional input ----
cell tile missing 64 --bm 128   # --bm without --bn --bk
cell tile nonexistent 66 --bundle "$NO"
cell tile wrong-kind 78 --bundle "$FILE"
cell tile unreadable 74 --bundle "$D000"
cell tile bad-number 64 --shape 1024,1024,1024 --bm x
cell tile unknown-flag 64 --shape 1024,1024,1024 --bogus

# ---- kernels: a stats/trace CSV, a rocpd db or a bundle ----
cell kernels missing 64
cell kernels missing 64 --csv   # an option without its value
cell kernels nonexistent 66 --csv "$NO"
cell kernels nonexistent 66 --db "$NO"
cell kernels nonexistent 66 --bundle "$NO"
cell kernels wrong-kind 78 --csv "$DIR"
cell kernels wrong-kind 78 --db "$DIR"
cell kernels wrong-kind 78 --bundle "$FILE"
cell kernels unreadable 74 --csv "$U000"
cell kernels unreadable 74 --bundle "$D000"
cell kernels bad-number 64 --csv "$FILE" --limit many
cell kernels unknown-flag 64 --csv "$FILE" --bogus

# ---- counters: offline inputs, the bundle ----
cell counters missing 64
cell counters missing 64 --csv   # an option without its value
cell counters nonexistent 66 --csv "$NO"
cell counters nonexistent 66 --db "$NO"
cell counters wrong-kind 78 --csv "$DIR"
cell counters wrong-kind 78 --db "$DIR"
cell counters wrong-kind 78 --csv "$FILE" --bundle "$FILE"
cell counters unreadable 74 --csv "$U000"
cell counters bad-number 64 --csv "$FILE" --ideal-gb lots
cell counters unknown-flag 64 --csv "$FILE" --bogus

# ---- hotspots: a positional DIR ----
cell hotspots missing 64
cell hotspots nonexistent 66 "$NO"
cell hotspots nonexistent 66 "$DIR" --kernel-trace "$NO"
cell hotspots wrong-kind 78 "$FILE"
cell hotspots wrong-kind 78 "$DIR" --kernel-trace "$DIR"
cell hotspots unreadable 74 "$D000"
cell hotspots bad-number 64 "$DIR" --topk ten
cell hotspots unknown-flag 64 "$DIR" --bogus
cell hotspots unknown-flag 64 "$DIR" --bundle "$DIR"

# ---- bubbles / map / report / bundle: --bundle DIR is required ----
cell bubbles missing 64 --out "$OUT/b.json"
cell map missing 64 --out-dir "$OUT"
cell report missing 64 --out-dir "$OUT"
cell bundle missing 64 --examples-dir "$OUT"
cell timeline missing 64 --out "$OUT/t.json"
cell annotate missing 64 --pc 3
cell annotate nonexistent 66 --bundle "$NO"
cell annotate wrong-kind 78 --bundle "$FILE"
cell annotate unreadable 74 --bundle "$D000"
cell annotate unknown-flag 64 --bundle "$DIR" --bogus
cell annotate bad-number 64 --bundle "$DIR" --pc first
for c in bubbles map report bundle timeline; do
  case $c in
    bubbles) o=(--out "$OUT/b.json") ;;
    timeline) o=(--out "$OUT/t.json") ;;
    bundle) o=(--examples-dir "$OUT") ;;
    *) o=(--out-dir "$OUT") ;;
  esac
  cell $c nonexistent 66 --bundle "$NO" "${o[@]}"
  cell $c wrong-kind 78 --bundle "$FILE" "${o[@]}"
  cell $c wrong-kind 78 --bundle /dev/null "${o[@]}"
  cell $c unreadable 74 --bundle "$D000" "${o[@]}"
  cell $c unknown-flag 64 --bundle "$DIR" --bogus "${o[@]}"
done
cell bubbles wrong-kind 78 --bundle "$DIR" --out "$DIR"
cell map wrong-kind 78 --bundle "$DIR" --out-dir "$FILE"
cell report wrong-kind 78 --bundle "$DIR" --out-dir "$FILE"
cell bundle wrong-kind 78 --bundle "$DIR" --examples-dir "$FILE"
cell timeline wrong-kind 78 --bundle "$DIR" --out "$DIR"
cell timeline bad-number 64 --bundle "$DIR" --clock-mhz fast --out "$OUT/t.json"
cell bubbles bad-number 64 --bundle "$DIR" --limit many "${o[@]}"
cell map bad-number 64 --bundle "$DIR" --context x --out-dir "$OUT"
cell report bad-number 64 --bundle "$DIR" --dispatch first --out-dir "$OUT"
na bundle bad-number "bundle takes no number"

# ---- diff: --before and --after, bundle dirs or report.json files ----
cell diff missing 64 --before "$DIR" --out "$OUT/d.json"
cell diff missing 64 --after "$DIR" --out "$OUT/d.json"
cell diff nonexistent 66 --before "$NO" --after "$DIR" --out "$OUT/d.json"
cell diff wrong-kind 78 --before /dev/null --after "$DIR" --out "$OUT/d.json"
cell diff wrong-kind 78 --before "$DIR" --after "$DIR" --out "$DIR"
cell diff unreadable 74 --before "$U000" --after "$DIR" --out "$OUT/d.json"
cell diff unknown-flag 64 --before "$DIR" --after "$DIR" --bogus
cell diff unknown-flag 64 --before "$DIR" --after "$DIR" --bundle "$DIR"
na diff bad-number "diff takes no number"

# ---- history: a sub-command; --db is read (list/show/trend/export) or written (add/import) ----
cell history missing 64
cell history missing 64 add --db "$OUT/h.db"   # add without --bundle
cell history nonexistent 66 list --db "$NO"
cell history nonexistent 66 add --bundle "$NO" --db "$OUT/h.db"
cell history nonexistent 66 import "$NO" --db "$OUT/h.db"
cell history wrong-kind 78 list --db "$DIR"
cell history wrong-kind 78 add --bundle "$FILE" --db "$OUT/h.db"
cell history wrong-kind 78 add --bundle "$DIR" --db "$DIR"
cell history wrong-kind 78 trend --db "$FILE" --out "$FILE"
cell history unreadable 74 list --db "$U000"
cell history bad-number 64 list --db "$NO" --limit ten
cell history unknown-flag 64 list --bogus

# ---- check: --bundle DIR required, --db FILE ----
cell check missing 64 --db "$FILE"
cell check nonexistent 66 --bundle "$NO" --db "$FILE"
cell check nonexistent 66 --bundle "$DIR" --db "$NO"
cell check wrong-kind 78 --bundle "$FILE" --db "$FILE"
cell check wrong-kind 78 --bundle "$DIR" --db "$DIR"
cell check unreadable 74 --bundle "$DIR" --db "$U000"
na check bad-number "check takes no number"
cell check unknown-flag 64 --bundle "$DIR" --bogus
cell check unknown-flag 64 --bundle "$DIR" --fail-on sometimes

# ---- mcp: the --root dir (stdin is /dev/null: a server that starts ends at once) ----
na mcp missing "no required argument"
cell mcp nonexistent 66 --root "$NO"
cell mcp wrong-kind 78 --root "$FILE"
cell mcp unreadable 74 --root "$D000"
na mcp bad-number "mcp takes no number"
cell mcp unknown-flag 64 --bogus
cell mcp unknown-flag 64 --bundle "$DIR"

# ---- rules: no argument at all ----
na rules "missing/paths/bad-number" "rules reads nothing"
cell rules unknown-flag 64 --bogus
cell rules unknown-flag 64 --version
cell rules unknown-flag 64 --bundle "$DIR"
cell rules missing 64 extra-word   # a positional it does not take

# every command has at least the unknown-flag cell
for c in $("$FLYPROF" help -f json | python3 -c 'import json,sys; print(" ".join(c["name"] for c in json.load(sys.stdin)["data"]["commands"]))'); do
  grep -q "^cell $c unknown-flag\|for c in .*\b$c\b" "$0" || fail "command $c has no row in the matrix"
done

# every envelope: one line, ok false, the code bound to the exit, a message and a help
python3 - "$T/envs" <<'PY' || fail "envelopes"
import json, os, sys
bad = []
for f in sorted(os.listdir(sys.argv[1])):
    want = f.split(" ")[1]
    lines = [l for l in open(os.path.join(sys.argv[1], f)).read().split("\n") if l]
    try:
        assert len(lines) == 1, "%d lines on stdout" % len(lines)
        e = json.loads(lines[0])
        assert e["ok"] is False and e["error"]["code"] == want, e["error"]
        assert e["error"]["message"] and e["error"]["help"]
    except Exception as x:
        bad.append("%s: %s" % (f, x))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

echo "$ncells cells, $fails failed"
[ "$fails" = 0 ] || exit 1
echo ok
