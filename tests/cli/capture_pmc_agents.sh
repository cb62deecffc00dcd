#!/bin/bash
# issue 18 follow-ups (round 3, capture): the counters' agent and process.
#  1. the agent_info row of the agent the counter rows name (Agent_Id), not the first GPU row;
#     rows of other agents (a multi-GPU application) dropped with a warning;
#  2. counter passes write one file per process (-o pmc_%pid%), merged per pass, the
#     traced agent's process kept.
# Every expectation is recomputed here from the raw CSVs the fake wrote (Python), not from flyprof.
. "$(dirname "$0")/lib/capture_env.sh"
R=$FP_TOOLS/rocprofv3
K='pa_decode_kernel<16>(float*, int)'
export FAKE_ROCPROF_KERNELS="$K:10:30000"
export FAKE_ROCPROF_ARCH=gfx942 FAKE_ROCPROF_VERSION=0.6.0
cnt() { # BUNDLE ENV... -- : live counters on the fake with the given environment
    local b=$1; shift; mkdir -p "$b"
    env "$@" "$FLYPROF" counters -q --bundle "$b" --kernel pa_decode --gpu-name MI300X --rocprofv3 "$R" -f json \
        -- true > "$T/out.json" 2> "$T/err.txt"; RC=$?
}

# 1. a node whose GPU 0 is one SPX agent (304 CUs, 8 XCDs) and GPU 1 is CPX (8 agents of 38 CUs, 1 XCD):
#    HIP_VISIBLE_DEVICES=1 runs on Agent 3; the first GPU row (Agent 2) is the wrong one
cnt "$T/a1" HIP_VISIBLE_DEVICES=1 FAKE_ROCPROF_GPUS=2 FAKE_ROCPROF_PARTITION=spx,cpx \
    FAKE_ROCPROF_COUNTER_VALUES=GRBM_GUI_ACTIVE=1000
[ "$RC" = 0 ] || { cat "$T/out.json" "$T/err.txt"; fail "mixed partitions exit $RC"; }
"$PY" - "$T/out.json" "$T/a1/pmc" <<'PY' || fail "agent row"
import csv, glob, json, sys
d = json.load(open(sys.argv[1]))["data"]
ai = glob.glob(sys.argv[2] + "/group_1/pass_1/pmc_*_agent_info.csv")[0]
rows = [r for r in csv.DictReader(open(ai)) if r["Agent_Type"] == "GPU"]
cc = glob.glob(sys.argv[2] + "/group_1/pass_1/pmc_*_counter_collection.csv")[0]
agents = {r["Agent_Id"] for r in csv.DictReader(open(cc))}
assert agents == {"Agent 3"}, agents
first = rows[0]
own = [r for r in rows if "Agent " + r["Logical_Node_Id"] == "Agent 3"][0]
assert (int(first["Cu_Count"]), int(first["Num_Xcc"])) == (304, 8), first   # what the old code read
assert (int(own["Cu_Count"]), int(own["Num_Xcc"])) == (38, 1), own
# GRBM_GUI_ACTIVE is summed over the agent's XCDs: / 1 on Agent 3 (the first row's 8 would give 125)
assert d["metrics"]["kernel_cycles"]["value"] == 1000 / int(own["Num_Xcc"]), d["metrics"]["kernel_cycles"]
PY

# 1b. one process spreading its dispatches over 2 agents (a multi-GPU application): only one agent's rows
cnt "$T/a2" FAKE_ROCPROF_GPUS=2 FAKE_ROCPROF_PARTITION=spx,cpx FAKE_ROCPROF_APP_AGENTS=2 \
    FAKE_ROCPROF_COUNTER_VALUES=GRBM_GUI_ACTIVE=1000
[ "$RC" = 0 ] || { cat "$T/out.json" "$T/err.txt"; fail "2 agents exit $RC"; }
cp "$T/out.json" "$T/a2.json"
# the same outputs read offline with --agent: the other agent's rows
"$FLYPROF" counters -q --bundle "$T/a2" --kernel pa_decode --gpu-name MI300X --agent "Agent 2" -f json > "$T/a2b.json"
[ $? = 0 ] || { cat "$T/a2b.json"; fail "offline --agent"; }
"$PY" - "$T/a2.json" "$T/a2b.json" "$T/a2/pmc" <<'PY' || fail "multi-agent rows"
import csv, glob, json, sys
live, off = (json.load(open(p)) for p in sys.argv[1:3])
per, first = {}, None
for g in (1, 2):
    f = glob.glob(sys.argv[3] + "/group_%d/pass_1/pmc_*_counter_collection.csv" % g)[0]
    for r in csv.DictReader(open(f)):
        first = first or r["Agent_Id"]
        per.setdefault((g, r["Agent_Id"]), set()).add(r["Dispatch_Id"])
assert sorted({a for _, a in per}) == ["Agent 2", "Agent 3"], per
n = lambda a: min(len(per[(g, a)]) for g in (1, 2))   # records merge over the passes
# live (no capture.json, no --agent): the first row's agent (dispatch 2 ran on Agent 3), the other dropped
assert first == "Agent 3" and live["data"]["dispatches"] == n("Agent 3") == 2, (first, live["data"]["dispatches"])
w = [x for x in live["warnings"] if "other agent" in x]
assert w and "'Agent 2'" in w[0] and "kept 'Agent 3'" in w[0] and "--agent chooses" in w[0], live["warnings"]
assert live["data"]["metrics"]["kernel_cycles"]["value"] == 1000      # Agent 3: CPX, 1 XCD
# --agent "Agent 2": its dispatches and its own row (SPX, 8 XCDs)
assert off["data"]["dispatches"] == n("Agent 2") == 1, off["data"]["dispatches"]
assert off["data"]["metrics"]["kernel_cycles"]["value"] == 1000 / 8
assert any("kept 'Agent 2' (--agent)" in x for x in off["warnings"]), off["warnings"]
PY
"$FLYPROF" counters -q --bundle "$T/a2" --kernel pa_decode --gpu-name MI300X --agent "Agent 9" -f json > "$T/a2c.json"
[ $? = 66 ] && [ "$(jget "$T/a2c.json" 'd["error"]["code"]')" = KERNEL_NOT_FOUND ] || fail "--agent absent: $(cat "$T/a2c.json")"

# 2. a launcher giving each of its 2 workers its own GPU (rank k on agent 2+k): one counter file per
#    process and pass (a fixed -o pmc keeps only the last to exit: rank 1's rows, on the wrong agent)
cnt "$T/p1" FAKE_ROCPROF_GPUS=2 FAKE_ROCPROF_PROCS=2 FAKE_ROCPROF_MODE=rank-per-gpu
[ "$RC" = 0 ] || { cat "$T/out.json" "$T/err.txt"; fail "2 ranks exit $RC"; }
"$PY" - "$T/out.json" "$T/p1/pmc" <<'PY' || fail "per-process files"
import csv, glob, json, sys
d = json.load(open(sys.argv[1]))["data"]
for p, g in zip(d["passes"], (1, 2)):
    files = sorted(glob.glob(sys.argv[2] + "/group_%d/pass_1/pmc_*_counter_collection.csv" % g))
    assert len(files) == 2, files            # pmc_%pid%: one per process
    rows = {f: list(csv.DictReader(open(f))) for f in files}
    agents = {f: {r["Agent_Id"] for r in rs} for f, rs in rows.items()}
    kept = [f for f in files if agents[f] == {"Agent 2"}]
    assert len(kept) == 1 and agents[files[1]] == {"Agent 3"}, agents
    assert p["source"].endswith(kept[0].split("/pmc/")[1]), (p, kept)
    if g == 1:
        v = {}
        for r in rows[kept[0]]:
            v.setdefault(r["Counter_Name"], []).append(float(r["Counter_Value"]))
        mean = lambda k: sum(v[k]) / len(v[k])
        ref = round(100 * mean("TCC_HIT_sum") / (mean("TCC_HIT_sum") + mean("TCC_MISS_sum")), 2)
        assert d["metrics"]["l2_hit_pct"]["value"] == ref, (d["metrics"]["l2_hit_pct"], ref)
PY
[ "$(jget "$T/out.json" 'any("other agent" in w for w in d["warnings"])')" = True ] || fail "rank agents warned"
# 2b. two processes on the same agent: the first file's process, and a warning
cnt "$T/p2" FAKE_ROCPROF_PROCS=2
[ "$RC" = 0 ] || fail "2 processes exit $RC"
[ "$(jget "$T/out.json" 'any("2 passes: several processes ran the kernel on '"'Agent 2'"'" in w for w in d["warnings"])')" = True ] \
  || fail "process warning: $(jget "$T/out.json" 'd["warnings"]')"
[ "$(jget "$T/out.json" 'd["data"]["dispatches"]')" = 3 ] || fail "one process's 3 dispatches (2-4)"
# 2c. rocpd output: one results.db per process, the same choice
cnt "$T/p3" FAKE_ROCPROF_VERSION=1.1.0 FAKE_ROCPROF_GPUS=2 FAKE_ROCPROF_PROCS=2 FAKE_ROCPROF_MODE=rank-per-gpu
[ "$RC" = 0 ] || { cat "$T/out.json" "$T/err.txt"; fail "rocpd ranks exit $RC"; }
[ "$(ls "$T/p3/pmc/group_1/pass_1" | grep -c '^pmc_[0-9]*_results.db$')" = 2 ] || fail "2 dbs"
[ "$(jget "$T/out.json" 'd["data"]["dispatches"]')" = 3 ] || fail "rocpd dispatches"
[ "$(jget "$T/out.json" 'any("other agent" in w and "kept '"'Agent 2'"'" in w for w in d["warnings"])')" = True ] \
  || fail "rocpd agent: $(jget "$T/out.json" 'd["warnings"]')"

# 3. through capture --with-pmc: the traced agent goes to the counters child (--agent), whose rows are kept
FAKE_ROCPROF_KERNELS="softmax_kernel_0:12:30000:96" FAKE_ROCPROF_GPUS=2 FAKE_ROCPROF_PROCS=2 \
  FAKE_ROCPROF_MODE=rank-per-gpu FAKE_ROCPROF_VERSION=1.1.0 fp capture softmax --gpu 1 --with-pmc --bundle "$T/c1"
[ "$RC" = 0 ] || { cat "$T/out.json"; fail "capture exit $RC"; }
[ "$(jget "$T/c1/capture.json" 'd["gpu"]["agent_id"]')" = "Agent 3" ] || fail "traced agent"
[ "$(jget "$T/c1/capture.json" '"--agent" in d["pmc"]["command"] and "Agent 3" in d["pmc"]["command"]')" = True ] \
  || fail "pmc command $(jget "$T/c1/capture.json" 'd["pmc"]')"
[ "$(jget "$T/c1/capture.json" 'd["pmc"]["status"]')" = ok ] || fail "pmc status"
"$PY" - "$T/c1/counters.json" "$T/c1/pmc" <<'PY' || fail "capture's counters"
import glob, json, os, sqlite3, sys
d = json.load(open(sys.argv[1]))
dbs = sorted(glob.glob(sys.argv[2] + "/group_1/pass_1/pmc_*_results.db"))
assert len(dbs) == 2, dbs                       # one per process
ag = {}
for f in dbs:
    q = "SELECT DISTINCT A.logical_index FROM rocpd_kernel_dispatch K JOIN rocpd_info_agent A ON A.id = K.agent_id"
    ag[os.path.basename(f)] = {"Agent %d" % r[0] for r in sqlite3.connect(f).execute(q)}
kept = os.path.basename(d["passes"][0]["source"])
assert ag[kept] == {"Agent 3"} and sorted(map(frozenset, ag.values())) != [frozenset({"Agent 3"})] * 2, ag
PY
# the same bundle offline (pmc/ grouped by directory, capture.json's agent): the same metrics
cp "$T/c1/counters.json" "$T/c1a.json"
"$FLYPROF" counters -q --bundle "$T/c1" -f json > "$T/c1b.json" || fail "offline bundle"
"$PY" - "$T/c1a.json" "$T/c1b.json" <<'PY' || fail "offline = live"
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))["data"]
# the live child had no capture.json yet (durations from the pass timestamps): compare what needs no time
same = ["l2_hit_pct", "partial_32b_pct", "fetch_bytes", "kernel_cycles", "mfma_util_pct", "occupancy_waves_per_cu", "waves"]
a["metrics"] = {k: a["metrics"][k] for k in same}; b["metrics"] = {k: b["metrics"][k] for k in same}
src = lambda d: [p["source"].split("pmc/group_")[-1] for p in d["passes"]]   # the file: bundle-relative, envelope absolute
assert a["metrics"] == b["metrics"] and src(a) == src(b), (a["passes"], b["passes"])
PY
# 4. SDK-derived counters (counter_defs.yaml, defined for gfx942 and gfx950) replace flyprof's own
#    arithmetic: MfmaUtil, VALUBusy, LdsBankConflict are requested and, when present, used as they are
cnt "$T/d1" HIP_VISIBLE_DEVICES=1 FAKE_ROCPROF_GPUS=2 FAKE_ROCPROF_PARTITION=spx,cpx \
    FAKE_ROCPROF_COUNTER_VALUES=MfmaUtil=12.5,LdsBankConflict=0.25
[ "$RC" = 0 ] || { cat "$T/out.json" "$T/err.txt"; fail "derived exit $RC"; }
"$PY" - "$T/out.json" "$T/d1/pmc" <<'PY' || fail "derived counters"
import csv, glob, json, sys
d = json.load(open(sys.argv[1]))["data"]
asked = sum((g["counters"] for g in d["live"]["groups"]), [])
assert {"MfmaUtil", "VALUBusy", "LdsBankConflict", "MeanOccupancyPerCU"} <= set(asked), asked
assert d["missing_counters"] == [], d["missing_counters"]
m = d["metrics"]
# the CSV's own derived values, not flyprof's formula (which would give something else here)
assert m["mfma_util_pct"]["value"] == 12.5 and m["mfma_util_pct"]["formula"].startswith("MfmaUtil"), m["mfma_util_pct"]
assert m["lds_bank_conflicts_per_access"]["value"] == 0.25, m["lds_bank_conflicts_per_access"]
# VALUBusy as the SDK computes it (the fake evaluates counter_defs.yaml): 100*SQ_ACTIVE_INST_VALU/CU_NUM/max(GUI),
# CU_NUM the agent's own 38, the GUI summed over its 1 XCD; mean over the dispatches
rows = {}
for f in glob.glob(sys.argv[2] + "/group_*/pass_1/pmc_*_counter_collection.csv"):
    for r in csv.DictReader(open(f)):
        rows.setdefault(r["Counter_Name"], []).append(float(r["Counter_Value"]))
mean = lambda k: sum(rows[k]) / len(rows[k])
ref = 100 * mean("SQ_ACTIVE_INST_VALU") / 38 / (mean("GRBM_GUI_ACTIVE") / 1)
assert abs(m["valu_util_pct"]["value"] - round(ref, 2)) <= 0.011 and m["valu_util_pct"]["formula"].startswith("VALUBusy"), \
    (m["valu_util_pct"], ref)
PY
# offline data without them (an older collection): flyprof's formula over the raw counters, as before
f=$(ls "$T"/d1/pmc/group_*/pass_1/pmc_*_counter_collection.csv | while read -r x; do grep -q '"MfmaUtil"' "$x" && echo "$x"; done)
mkdir -p "$T/raw"; grep -v '"MfmaUtil"' "$f" > "$T/raw/x_counter_collection.csv"
"$FLYPROF" counters -q --csv "$T/raw/x_counter_collection.csv" --gpu-name MI300X -f json > "$T/d2.json" 2>/dev/null
[ $? = 0 ] && [ "$(jget "$T/d2.json" 'd["data"]["metrics"]["mfma_util_pct"]["formula"].startswith("100 * SQ_VALU_MFMA_BUSY_CYCLES")')" = True ] \
  || fail "raw fallback $(head -c 400 "$T/d2.json")"
echo ok
