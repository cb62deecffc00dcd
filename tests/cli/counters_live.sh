#!/usr/bin/env bash
# counters_live.sh - `flyprof counters -- APP` against the fake rocprofv3
# (docs/fake-rocprofv3.md): one input YAML per counter group with pmc inside the
# job, the 1-based iteration set, csv vs rocpd by the installed version, and the
# failure modes: hang -> CAPTURE_TIMEOUT 75 (process group killed), profiler
# missing -> ROCPROFV3_MISSING 69, dropped counters recorded as missing,
# non-zero exit kept as a warning.
set -u
F=$FLYPROF
R="$FP_TOOLS/rocprofv3"
[ -x "$R" ] || { echo "fake rocprofv3 not built"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
export FAKE_ROCPROF_KERNELS="pa_decode_kernel_0:8:100000,other_kernel:3"
unset FAKE_ROCPROF_HANG FAKE_ROCPROF_EXIT FAKE_ROCPROF_DROP_COUNTERS FAKE_ROCPROF_VERSION FLYPROF_ROCPROFV3

expect() { # NAME EXIT CODE -- cmd...
  local name=$1 want_exit=$2 want_code=$3; shift 4
  local rc
  "$@" >"$T/out.json" 2>"$T/err.txt"; rc=$?
  if [ "$rc" != "$want_exit" ]; then echo "FAIL $name: exit $rc, want $want_exit: $(head -c 500 "$T/out.json")"; fail=1; return 1; fi
  if [ "$want_code" = OK ]; then
    grep -q '^{"ok":true,"command":"counters"' "$T/out.json" || { echo "FAIL $name: $(head -c 400 "$T/out.json")"; fail=1; return 1; }
  else
    grep -q "^{\"ok\":false,\"command\":\"counters\",\"error\":{\"code\":\"$want_code\"" "$T/out.json" \
      || { echo "FAIL $name: $(head -c 400 "$T/out.json")"; fail=1; return 1; }
  fi
}

# 1. default fake = SDK 1.1.0 on gfx950: rocpd output, four groups, each fits one pass
B="$T/b1"; mkdir -p "$B"
expect live-rocpd 0 OK -- env FAKE_ROCPROF_LOG="$T/log.jsonl" "$F" counters -q --bundle "$B" --kernel pa_decode \
  --gpu-name MI350X --rocprofv3 "$R" -- true
python3 - "$T/out.json" "$B" "$T/log.jsonl" <<'PY' || { echo "FAIL live-rocpd content"; fail=1; }
import json,sys
d=json.load(open(sys.argv[1]))["data"]
live=d["live"]
assert live["output_format"]=="rocpd" and live["version"]=="1.1.0", live
# the default skips the cold first launch (JIT): iterations 2-4
assert live["kernel_iteration_range"]=="[2-4]"
# the 4 counter groups packed by block limits into 2 passes (2 application runs, not 4)
assert [g["status"] for g in live["groups"]]==["ok"]*2, live["groups"]
assert d["dispatches"]==3 and len(d["passes"])==2, (d["dispatches"], d["passes"])
assert live["pmc_check"]=="not available", live.get("pmc_check")
assert d["missing_counters"]==[], d["missing_counters"]
for g in live["groups"]:
    # hardware slots, MeanOccupancyPerCU being SQ_LEVEL_WAVES + SQ_ACCUM_PREV_HIRES + GRBM_GUI_ACTIVE
    # (and the other SDK-derived counters their bases: counter_defs.yaml gfx942/gfx950)
    base={"MeanOccupancyPerCU":{"SQ_LEVEL_WAVES","SQ_ACCUM_PREV_HIRES","GRBM_GUI_ACTIVE"},
          "MfmaUtil":{"SQ_VALU_MFMA_BUSY_CYCLES","GRBM_GUI_ACTIVE"},"VALUBusy":{"SQ_ACTIVE_INST_VALU","GRBM_GUI_ACTIVE"},
          "LdsBankConflict":{"SQ_LDS_BANK_CONFLICT","SQ_LDS_IDX_ACTIVE"}}
    hw=set(g["counters"]) - set(base)
    for k in base:
        if k in g["counters"]: hw |= base[k]
    tcc=sum(c.startswith("TCC_") for c in hw); sq=sum(c.startswith("SQ_") for c in hw); grbm=sum(c.startswith("GRBM_") for c in hw)
    assert tcc<=4 and sq<=8 and grbm<=2, g["counters"]
    assert "SQ_ACCUM_PREV_HIRES" not in g["counters"] and "SQ_LEVEL_WAVES" not in g["counters"], g["counters"]
    assert not any(c.startswith("TCC_EA_RDREQ") for c in g["counters"])
    assert g["input_yaml"].endswith(".json"), g["input_yaml"]
    y=json.load(open(g["input_yaml"]))
    assert list(y)==["jobs"] and y["jobs"][0]["pmc"]==g["counters"], y
    assert y["jobs"][0]["kernel_iteration_range"]=="[2-4]" and y["jobs"][0]["output_format"]==["rocpd"], y
allc=sum((g["counters"] for g in live["groups"]),[])
assert "SQ_LDS_IDX_ACTIVE" in allc and "TCC_EA0_RDREQ_128B_sum" in allc  # gfx950: exact fetch bytes
for k in ("l2_hit_pct","fetch_bytes","mfma_util_pct","occupancy_waves_per_cu","hbm_pct_of_peak"):
    assert k in d["metrics"], (k, d["missing"])
assert d["metrics"]["fetch_bytes"]["formula"].endswith("[gfx950]")
assert d["metrics"]["mfma_util_pct"]["cross_pass"] is False
# occupancy from the SDK's derived counter, within one pass (the fake's rocpd value of the c-th
# counter of a pass is the sum of its 2 instances 1000*c + 0, 1000*c + 1)
occ=d["metrics"]["occupancy_waves_per_cu"]
ci=next(g["counters"].index("MeanOccupancyPerCU")+1 for g in live["groups"] if "MeanOccupancyPerCU" in g["counters"])
assert occ["value"]==2000*ci+1 and occ["formula"].startswith("MeanOccupancyPerCU") and occ["cross_pass"] is False, occ
assert d["metrics"]["l2_hit_pct"]["cross_pass"] is False and d["metrics"]["fetch_bytes"]["cross_pass"] is False
log=[json.loads(l) for l in open(sys.argv[3])]
runs=[l for l in log if l["jobs"] and l["jobs"][0]["pmc"]>0]
assert len(runs)==2 and all(r["jobs"][0]["kernel_iteration_range"]=="[2-4]" for r in runs), runs
assert all(r["argv"][1]=="-i" and r["argv"][3]=="--" and r["argv"][4]=="true" for r in runs)
c=json.load(open(sys.argv[2]+"/counters.json"))
assert c["mode"]=="live" and c["live"]["groups"][0]["status"]=="ok"
PY

# 1b. rocprofv3-avail next to rocprofv3: every packed pass is validated with `pmc-check`;
#     a refusal falls back to one pass per counter group
mkdir -p "$T/bin"; ln -sf "$R" "$T/bin/rocprofv3"; ln -sf "$R" "$T/bin/rocprofv3-avail"
"$T/bin/rocprofv3-avail" pmc-check TCC_HIT_sum TCC_MISS_sum TCC_EA0_RDREQ_sum TCC_EA0_WRREQ_sum TCC_BUBBLE_sum >/dev/null \
  && { echo "FAIL fake pmc-check accepted 5 TCC counters"; fail=1; }
B="$T/b1b"; mkdir -p "$B"
expect live-pmc-check 0 OK -- env FAKE_ROCPROF_LOG="$T/log1b.jsonl" "$F" counters -q --bundle "$B" --kernel pa_decode \
  --gpu-name MI350X --rocprofv3 "$T/bin/rocprofv3" -- true
python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['data']['live']; assert d['pmc_check']=='ok' and len(d['groups'])==2, d" \
  "$T/out.json" || { echo "FAIL pmc-check ok"; fail=1; }
B="$T/b1c"; mkdir -p "$B"
expect live-pmc-refused 0 OK -- env FAKE_ROCPROF_MODE=pmc-check-refuses "$F" counters -q --bundle "$B" --kernel pa_decode \
  --gpu-name MI350X --rocprofv3 "$T/bin/rocprofv3" -- true
python3 - "$T/out.json" <<'PY' || { echo "FAIL pmc-check refused"; fail=1; }
import json,sys
e=json.load(open(sys.argv[1])); d=e["data"]["live"]
assert d["pmc_check"]=="refused" and len(d["groups"])==4, d
assert any("pmc-check refused a packed pass" in w for w in e["warnings"]), e["warnings"]
PY

# 2. an SDK without --version (ROCm <= 6.4): csv; counter values flow through; explicit iteration set
B="$T/b2"; mkdir -p "$B"
expect live-csv 0 OK -- env FAKE_ROCPROF_VERSION=0.6.0 FAKE_ROCPROF_ARCH=gfx942 \
  FAKE_ROCPROF_COUNTER_VALUES=TCC_HIT_sum=17,TCC_MISS_sum=983 \
  "$F" counters -q --bundle "$B" --kernel pa_decode --gpu-name MI300X --iterations 6,8 --rocprofv3 "$R" -- true
python3 - "$T/out.json" <<'PY' || { echo "FAIL live-csv content"; fail=1; }
import json,sys
d=json.load(open(sys.argv[1]))["data"]
assert d["live"]["output_format"]=="csv" and d["live"]["version"] is None, d["live"]
assert d["live"]["kernel_iteration_range"]=="[6, 8]"
assert d["dispatches"]==2, d["dispatches"]
assert d["metrics"]["l2_hit_pct"]["value"]==1.7
assert d["metrics"]["occupancy_waves_per_cu"]["value"]==14.5, d["metrics"]["occupancy_waves_per_cu"]
allc=sum((g["counters"] for g in d["live"]["groups"]),[])
assert "TCC_BUBBLE_sum" in allc and "TCC_EA0_RDREQ_64B_sum" not in allc  # gfx942 counter names
PY

# 2b. a CPX-partitioned MI300X agent (38 CUs, 1 XCD): the agent's own counts, not the product's 304 / 8
B="$T/b2c"; mkdir -p "$B"
expect live-cpx 0 OK -- env FAKE_ROCPROF_VERSION=0.6.0 FAKE_ROCPROF_ARCH=gfx942 FAKE_ROCPROF_PARTITION=cpx \
  FAKE_ROCPROF_COUNTER_VALUES=GRBM_GUI_ACTIVE=1000 \
  "$F" counters -q --bundle "$B" --kernel pa_decode --gpu-name MI300X --rocprofv3 "$R" -- true
python3 - "$T/out.json" <<'PY' || { echo "FAIL live-cpx content"; fail=1; }
import json,sys
d=json.load(open(sys.argv[1]))["data"]
# GRBM_GUI_ACTIVE is summed over the agent's XCDs: 1 on a CPX agent (8 would give 125)
assert d["metrics"]["kernel_cycles"]["value"]==1000, d["metrics"]["kernel_cycles"]
PY

# 3. dropped counters are recorded, the metrics that need them are listed as missing
B="$T/b3"; mkdir -p "$B"
expect live-drop 0 OK -- env FAKE_ROCPROF_DROP_COUNTERS=TCC_HIT_sum,SQ_LDS_IDX_ACTIVE \
  "$F" counters -q --bundle "$B" --kernel pa_decode --gpu-name MI350X --output-format csv --rocprofv3 "$R" -- true
python3 - "$T/out.json" <<'PY' || { echo "FAIL live-drop content"; fail=1; }
import json,sys
e=json.load(open(sys.argv[1])); d=e["data"]
assert d["missing_counters"]==["TCC_HIT_sum","SQ_LDS_IDX_ACTIVE"], d["missing_counters"]
assert "TCC_HIT_sum" in d["missing"]["l2_hit_pct"] and "l2_hit_pct" not in d["metrics"]
assert "SQ_LDS_IDX_ACTIVE" in d["missing"]["lds_bank_conflict_pct"]
assert any("requested counters are absent" in w for w in e["warnings"])
PY

# 4. a hang: killed after --timeout, CAPTURE_TIMEOUT (75), well before the test's own limit
B="$T/b4"; mkdir -p "$B"
start=$(date +%s)
expect live-hang 75 CAPTURE_TIMEOUT -- env FAKE_ROCPROF_HANG=pmc "$F" counters -q --bundle "$B" --kernel pa_decode \
  --gpu-name MI350X --timeout 2 --rocprofv3 "$R" -- true
[ $(( $(date +%s) - start )) -lt 30 ] || { echo "FAIL live-hang took too long"; fail=1; }
grep -q 'hanging in the pmc pass' "$B/pmc/group_1.stderr.log" || { echo "FAIL hang log"; fail=1; }

# 4b. Ctrl-C during a hung pass: INTERRUPTED (130), the envelope still printed
B="$T/b4b"; mkdir -p "$B"
FAKE_ROCPROF_HANG=pmc "$F" counters -q --bundle "$B" --kernel pa_decode --gpu-name MI350X --timeout 60 \
  --rocprofv3 "$R" -- true >"$T/int.json" 2>/dev/null &
pid=$!
sleep 2
kill -INT "$pid"
wait "$pid"; rc=$?
[ "$rc" = 130 ] && grep -q '"code":"INTERRUPTED"' "$T/int.json" || { echo "FAIL live-interrupt: rc $rc $(head -c 300 "$T/int.json")"; fail=1; }

# 5. non-zero exit of rocprofv3: outputs kept, a warning per pass
B="$T/b5"; mkdir -p "$B"
expect live-exit 0 OK -- env FAKE_ROCPROF_EXIT=3 "$F" counters -q --bundle "$B" --kernel pa_decode --gpu-name MI350X \
  --rocprofv3 "$R" -- true
grep -q '"status":"nonzero_exit"' "$T/out.json" && grep -q 'exited non-zero' "$T/out.json" || { echo "FAIL live-exit"; fail=1; }

# 6. the application itself cannot start: rocprofv3 fails and writes nothing -> NO_ARTIFACT
#    (a GPU visible: FLYPROF_KFD_DEVICE stands for /dev/kfd); without one -> NO_GPU
B="$T/b6"; mkdir -p "$B"; touch "$T/kfd"
expect live-no-output 66 NO_ARTIFACT -- env FLYPROF_KFD_DEVICE="$T/kfd" "$F" counters -q --bundle "$B" --kernel pa_decode \
  --gpu-name MI350X --rocprofv3 "$R" -- /nonexistent/app
B="$T/b6g"; mkdir -p "$B"
expect live-no-gpu 69 NO_GPU -- env FLYPROF_KFD_DEVICE="$T/no-kfd" "$F" counters -q --bundle "$B" --kernel pa_decode \
  --gpu-name MI350X --rocprofv3 "$R" -- /nonexistent/app

# 7. errors before anything runs
expect live-missing-profiler 69 ROCPROFV3_MISSING -- "$F" counters -q --bundle "$B" --kernel pa_decode --gpu-name MI350X \
  --rocprofv3 "$T/nope/rocprofv3" -- true
expect live-no-arch 78 BAD_ARGS -- "$F" counters -q --bundle "$B" --kernel pa_decode --rocprofv3 "$R" -- true
expect live-no-bundle 64 USAGE -- "$F" counters -q --kernel pa_decode --gpu-name MI350X --rocprofv3 "$R" -- true
expect live-no-kernel 64 USAGE -- "$F" counters -q --bundle "$B" --gpu-name MI350X --rocprofv3 "$R" -- true
expect live-bad-iterations 64 USAGE -- "$F" counters -q --bundle "$B" --kernel k --gpu-name MI350X --iterations 0,2 \
  --rocprofv3 "$R" -- true
expect live-kernel-not-matched 66 KERNEL_NOT_FOUND -- "$F" counters -q --bundle "$B" --kernel nomatch --gpu-name MI350X \
  --rocprofv3 "$R" -- true

[ $fail = 0 ] && echo "counters_live.sh: all passed"
exit $fail
