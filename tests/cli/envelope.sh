#!/usr/bin/env bash
# envelope.sh - the envelope contract of main.c: one JSON document on stdout, exit status bound
# to error.code, usage errors as envelopes, help and version as data.
set -u
fail=0
check() { # name expected_exit expected_code cmd...
  local name=$1 want_exit=$2 want_code=$3; shift 3
  local out rc
  out=$("$@" 2>/dev/null); rc=$?
  if [ "$rc" != "$want_exit" ]; then echo "FAIL $name: exit $rc, want $want_exit"; fail=1; return; fi
  printf '%s' "$out" | python3 -c '
import json,sys
want=sys.argv[1]
doc=sys.stdin.read()
lines=[l for l in doc.split("\n") if l]
assert len(lines)==1, "expected exactly one line on stdout, got %d" % len(lines)
e=json.loads(lines[0])
keys=list(e.keys())
if want=="OK":
    assert e["ok"] is True, e
    assert keys[:2]==["ok","command"], keys
    assert "data" in e and "warnings" in e, keys
    assert keys.index("data") < keys.index("warnings")
else:
    assert e["ok"] is False, e
    # data (and warnings) only follow the error when the failure still has an
    # answer: bare `flyprof` (the usage), a tripped --fail-on gate
    assert keys in (["ok","command","error"], ["ok","command","error","data","warnings"]), keys
    err=e["error"]
    assert list(err.keys())[:4]==["code","exitCode","message","help"], err
    assert err["code"]==want, (err["code"], want)
    assert err["message"] and err["help"]
' "$want_code" || { echo "FAIL $name: bad envelope: $out"; fail=1; }
}

F=$FLYPROF
check no-command 64 USAGE "$F"
check unknown-command 64 USAGE "$F" frobnicate
check unknown-global 64 USAGE "$F" --frob
# bare flyprof: the usage (as data) and exit 64
"$F" -f json | python3 -c 'import json,sys; e=json.load(sys.stdin); assert e["error"]["code"]=="USAGE" and e["data"]["usage"], e' ||
  { echo "FAIL no-command carries no usage"; fail=1; }
"$F" -f table 2>/dev/null | grep -q '^usage: flyprof <command>' || { echo "FAIL no-command table has no usage"; fail=1; }
# did you mean: commands, flags (global ones too), choice values
for t in "reprot:did you mean 'report'" "report --bundel x:did you mean --bundle" "bubbles --limt 3:did you mean --limit" \
         "bubbles --rank exposd:did you mean 'exposed'" "help reprot:did you mean 'report'"; do
  "$F" ${t%%:*} -f json 2>/dev/null | grep -q "${t#*:}" || { echo "FAIL no '${t#*:}' for: ${t%%:*}"; fail=1; }
done
# global flags are only global: --version after a command is an unknown option of it
check rules-version 64 USAGE "$F" rules --version
check doctor-bundle 64 USAGE "$F" doctor --bundle /tmp
# combined short flags: global with global, global with the command's own
check combined-global 0 OK "$F" rules -qf json
check combined-mixed 0 OK "$F" list -qf json
check combined-with-value 0 OK "$F" tile --shape 1024,1024,1024 --gpu-name MI300X -qk gemm
# an option's value that looks like a cluster stays whole: "-qz" is a (nonexistent) path, not -q -z
check value-not-cluster 66 NO_ARTIFACT "$F" diff --before -qz --after /tmp
check bad-format 64 USAGE "$F" help -f yaml
check format-missing-value 64 USAGE "$F" help -f
check help-topic-unknown 64 USAGE "$F" help nosuch
check version 0 OK "$F" --version
check help 0 OK "$F" help
check help-flag 0 OK "$F" --help
check help-exit-codes 0 OK "$F" help exit-codes -f json

# help lists only commands that exist, each of which answers -h with its own help envelope
cmds=$("$F" help -f json | python3 -c 'import json,sys; print(" ".join(c["name"] for c in json.load(sys.stdin)["data"]["commands"]))')
for c in $cmds; do
  check "help-$c" 0 OK "$F" "$c" -h -f json
  check "help-topic-$c" 0 OK "$F" help "$c"
  check "unknown-flag-$c" 64 USAGE "$F" "$c" --no-such-flag-xyz
done

# one meaning per short flag across commands; options shown only where they apply
"$F" help -f json | python3 -c '
import json, subprocess, sys
cmds = [c["name"] for c in json.load(sys.stdin)["data"]["commands"]]
seen, bad = {}, []
for c in cmds:
    h = json.loads(subprocess.run([sys.argv[1], "help", c, "-f", "json"], capture_output=True, text=True).stdout)["data"]
    for o in h["options"]:
        if "short" in o:
            if seen.setdefault(o["short"], o["flag"]) != o["flag"]:
                bad.append("%s %s is %s, elsewhere %s" % (c, o["short"], o["flag"], seen[o["short"]]))
        if o.get("default") == "0" and o["type"] in ("number", "integer"):
            bad.append("%s %s shows default 0" % (c, o["flag"]))
    flags = [o["flag"] for o in h["options"]] + [o["flag"] for o in h["globalOptions"]]
    if c in ("doctor", "list", "rules", "diff", "hotspots") and "--bundle" in flags:
        bad.append("%s shows --bundle" % c)
    if c == "list" and set(flags) & {"--rocprofv3", "--gpu", "--arch", "--python"}:
        bad.append("list shows options it ignores")
assert not bad, bad
' "$F" || { echo "FAIL short flags / applicable options"; fail=1; }

# every listed command has its page in docs/commands/ and a row in the README
for c in $cmds; do
  [ -f "$FP_SRC/docs/commands/$c.md" ] || { echo "FAIL docs/commands/$c.md missing"; fail=1; }
  grep -q "^| \[\`$c\`\](docs/commands/$c.md)" "$FP_SRC/README.md" || { echo "FAIL README lacks $c"; fail=1; }
done
n_readme=$(grep -c '^| \[`[a-z]*`\](docs/commands/' "$FP_SRC/README.md")
[ "$n_readme" = "$(echo $cmds | wc -w)" ] || { echo "FAIL README lists $n_readme commands, help lists $(echo $cmds | wc -w)"; fail=1; }

# the exit-code table in the envelope matches the one documented in the README and docs
"$F" help exit-codes -f table > /tmp/fp_exit_codes.$$ || fail=1
for doc in "$FP_SRC/README.md" "$FP_SRC/docs/exit-codes.md"; do
  sed -n '/<!-- exit-codes:begin -->/,/<!-- exit-codes:end -->/p' "$doc" | sed '1d;$d' > /tmp/fp_doc_codes.$$
  if ! diff -u /tmp/fp_exit_codes.$$ /tmp/fp_doc_codes.$$; then echo "FAIL exit-code table drifted in $doc"; fail=1; fi
done
rm -f /tmp/fp_exit_codes.$$ /tmp/fp_doc_codes.$$

# table mode: an error is human text on stderr, nothing on stdout, same exit status
out=$("$F" frobnicate -f table 2>/dev/null); rc=$?
[ "$rc" = 64 ] && [ -z "$out" ] || { echo "FAIL table-mode error: rc=$rc out=$out"; fail=1; }

[ $fail = 0 ] && echo "envelope: all checks passed"
exit $fail
