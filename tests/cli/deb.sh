#!/bin/bash
# The Debian package (issue 21 item 6): `cpack -G DEB` of this build -> a .deb whose Depends come
# from the shlibs of the linked libraries (+ the dlopen'ed libgit2's package), holding the binary,
# recipes, skills, man pages and completions under /usr. It is installed with dpkg -i — into the
# system when FLYPROF_TEST_DPKG_SYSTEM=1 (CI, as root: removed again afterwards), else into a
# private root (--instdir/--admindir) with each dependency checked against this system — and the
# installed flyprof runs doctor, list and an analysis from another directory, finding its own
# registry. A lone copy of the binary (its source tree hidden) says where it looked for one.
set -u
: "${FLYPROF:?}" "${FP_SRC:?}"
for t in cpack dpkg-deb dpkg dpkg-shlibdeps; do
  command -v $t > /dev/null || { echo "skip: $t not installed (dpkg-dev)"; exit 77; }
done
T=$(mktemp -d)
SYS=${FLYPROF_TEST_DPKG_SYSTEM:-0}
cleanup() { [ "$SYS" = 1 ] && [ -n "${INSTALLED:-}" ] && dpkg -r flyprof > /dev/null 2>&1; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
BUILD=$(dirname "$FLYPROF")
(cd "$BUILD" && cpack -G DEB -B "$T/pkg" > "$T/cpack.log" 2>&1) || { cat "$T/cpack.log"; fail "cpack -G DEB"; }
DEB=$(ls "$T"/pkg/flyprof_*.deb 2>/dev/null | head -1)
[ -f "$DEB" ] || fail "no .deb: $(ls "$T/pkg")"
DEPS=$(dpkg-deb -f "$DEB" Depends)
for d in libc6 libcjson1 libgit2; do
  echo "$DEPS" | grep -q "$d" || fail "Depends lacks $d: $DEPS"
done
dpkg-deb -c "$DEB" | awk '{print $6}' > "$T/files"
for f in ./usr/bin/flyprof ./usr/share/flyprof/recipes.yaml ./usr/share/flyprof/skills/ ./usr/share/man/man1/flyprof.1 \
         ./usr/share/man/man1/flyprof-report.1 ./usr/share/bash-completion/completions/flyprof \
         ./usr/share/zsh/vendor-completions/_flyprof ./usr/share/fish/vendor_completions.d/flyprof.fish; do
  grep -qx "$f" "$T/files" || fail "the package lacks $f"
done
if [ "$SYS" = 1 ]; then
  [ "$(id -u)" = 0 ] || fail "FLYPROF_TEST_DPKG_SYSTEM=1 needs root"
  dpkg -s flyprof > /dev/null 2>&1 && fail "flyprof is already installed on this system: not touching it"
  dpkg -i "$DEB" > "$T/dpkg.log" 2>&1 || { cat "$T/dpkg.log"; fail "dpkg -i"; }
  INSTALLED=1
  ROOT=
else
  # every dependency is installed here (what dpkg -i would check) ...
  echo "$DEPS" | tr ',' '\n' | sed 's/(.*//; s/ //g' | while read -r p; do
    [ -z "$p" ] || dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || { echo "$p"; exit 1; }
  done > "$T/missing" || fail "dependencies not installed here: $(cat "$T/missing")"
  # ... and the package installs with dpkg into a private root
  mkdir -p "$T/root" "$T/admin/info" "$T/admin/updates"
  : > "$T/admin/status"
  dpkg --instdir="$T/root" --admindir="$T/admin" --force-depends --force-not-root --log=/dev/null -i "$DEB" \
    > "$T/dpkg.log" 2>&1 || { cat "$T/dpkg.log"; fail "dpkg -i into a private root"; }
  ROOT=$T/root
fi
F=$ROOT/usr/bin/flyprof
[ -x "$F" ] || fail "no installed binary"
mkdir -p "$T/elsewhere" && cd "$T/elsewhere" || exit 1
unset FLYPROF_RECIPES FLYPROF_CONFIG FLYPROF_WORKTREE FLYPROF_FORMAT
export HOME=$T/home
"$F" list -f json -q > list.json || fail "installed list"
python3 - list.json "$ROOT" <<'PY' || fail "installed list: $(cat list.json)"
import json, os, sys
d = json.load(open(sys.argv[1]))["data"]
assert d["count"] > 0 and d["registry"] == os.path.realpath(sys.argv[2] + "/usr/share/flyprof/recipes.yaml"), d
PY
"$F" doctor -f json -q > doctor.json || fail "installed doctor: exit $?"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['ok'] and d['data']['recipes']['source']=='shipped', d['data']['recipes']" doctor.json ||
  fail "installed doctor"
"$F" report --bundle "$FP_SRC/examples/synthetic_gemm" -o out -q -f json > report.json || fail "installed report"
[ -s out/report.json ] && [ -s out/REPORT.md ] || fail "installed report wrote nothing"
"$F" help man report -f table | cmp -s - "$ROOT/usr/share/man/man1/flyprof-report.1" || fail "installed man page"
# the installed skills' docs/... references resolve (share/flyprof/ stands for the project root)
refs=$(grep -rhoE "docs/[A-Za-z0-9_/.-]+\.md" "$ROOT/usr/share/flyprof/skills" | sort -u)
[ -n "$refs" ] || fail "no docs references found in the installed skills"
for r in $refs; do [ -f "$ROOT/usr/share/flyprof/$r" ] || fail "installed skills name $r, not installed"; done
# a lone copy whose source tree is gone (hidden by a private mount) says where it looked
if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null && unshare -m true 2> /dev/null; then
  mkdir -p "$T/lone" && cp "$F" "$T/lone/flyprof"
  unshare -m sh -c "mount -t tmpfs none '$FP_SRC/share' && '$T/lone/flyprof' list -f json -q" > lone.json || fail "lone list"
  python3 - lone.json "$T/lone" <<'PY' || fail "lone binary: $(cat lone.json)"
import json, sys
env = json.load(open(sys.argv[1]))
w = [x for x in env["warnings"] if x.startswith("no recipes registry found")]
assert env["data"]["registry"] is None and w, env
assert sys.argv[2] + "/../share/flyprof/recipes.yaml" in w[0] and "--recipes FILE" in w[0] and "FLYPROF_RECIPES" in w[0], w
PY
fi
echo "deb: ok ($([ "$SYS" = 1 ] && echo system || echo private root) install)"
