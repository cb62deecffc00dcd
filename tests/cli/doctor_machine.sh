#!/bin/bash
# doctor on this machine as it is: a correct not-ready report, exit 0.
. "$(dirname "$0")/lib/capture_env.sh"
unset FLYPROF_ROCPROFV3 FLYPROF_WORKTREE
fp doctor
[ "$RC" = 0 ] || fail "doctor exit $RC"
[ "$(jget $T/out.json 'd["ok"]')" = True ] || fail ok
[ "$(jget $T/out.json 'd["data"]["verdict"]')" = not-ready ] || fail verdict
codes=$(jget $T/out.json '" ".join(b["code"] for b in d["data"]["blockers"])')
if ! command -v rocprofv3 >/dev/null; then
  case " $codes " in *" ROCPROFV3_MISSING "*) ;; *) fail "ROCPROFV3_MISSING not a blocker: $codes";; esac
fi
if [ ! -e /dev/kfd ] && ! command -v rocminfo >/dev/null; then
  case " $codes " in *" NO_GPU "*) ;; *) fail "NO_GPU not a blocker: $codes";; esac
  [ "$(jget $T/out.json 'd["data"]["gpu"]["present"]')" = False ] || fail "gpu present"
fi
# no worktree configured is a blocker too
case " $codes " in *" BUILD_TREE_MISSING "*) ;; *) fail "BUILD_TREE_MISSING not a blocker: $codes";; esac
# every check has status, evidence and (when not ok) a fix
"$PY" - "$T/out.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))["data"]
names = [c["name"] for c in d["checks"]]
for n in ["rocprofv3", "trace_decoder", "gpu", "worktree", "python", "soc_spec"]:
    assert n in names, names
for c in d["checks"]:
    assert c["status"] in ("ok", "warn", "fail", "skip"), c
    assert c["evidence"], c
    if c["status"] == "fail":
        assert c["fix"] and c["blocker"], c
PY
# the table form says the same
"$FLYPROF" doctor -f table > "$T/t.txt" 2>/dev/null || fail "table exit"
grep -q "verdict: not-ready" "$T/t.txt" || fail "table verdict"
echo ok
