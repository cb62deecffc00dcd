#!/usr/bin/env bash
# counters.sh - `flyprof counters` offline: the seed's worked example from two
# real-format counter_collection.csv passes and from a rocpd results.db built in
# the real schema (fp_make_rocpd), kernel selection, the bundle's pmc/ dir and
# counters.json, and every kind of bad input as a typed envelope.
set -u
F=$FLYPROF
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0

# expect NAME EXIT CODE -- cmd...   (CODE = OK or an error code)
expect() {
  local name=$1 want_exit=$2 want_code=$3; shift 4
  local rc
  "$@" >"$T/out.json" 2>"$T/err.txt"; rc=$?
  if [ "$rc" != "$want_exit" ]; then echo "FAIL $name: exit $rc, want $want_exit: $(head -c 400 "$T/out.json")"; fail=1; return 1; fi
  # one line, the right ok flag and code (grep: python starts slowly on a loaded machine)
  [ "$(wc -l <"$T/out.json")" = 1 ] || { echo "FAIL $name: not one line"; fail=1; return 1; }
  if [ "$want_code" = OK ]; then
    grep -q '^{"ok":true,"command":"counters"' "$T/out.json" || { echo "FAIL $name: $(head -c 400 "$T/out.json")"; fail=1; return 1; }
  else
    grep -q "^{\"ok\":false,\"command\":\"counters\",\"error\":{\"code\":\"$want_code\"" "$T/out.json" \
      || { echo "FAIL $name: $(head -c 400 "$T/out.json")"; fail=1; return 1; }
  fi
}

HDR='"Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id","Grid_Size","Kernel_Id","Kernel_Name","Workgroup_Size","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Counter_Name","Counter_Value","Start_Timestamp","End_Timestamp"'
K='"void pa_decode<16, 131072>(bf16 const*, float*, int)"'
mkdir -p "$T/l2" "$T/ea"
# pass 1 (L2 job): two dispatches of the decode kernel and one of another kernel
cat >"$T/l2/pmc_counter_collection.csv" <<EOF
$HDR
1,7,"Agent 2",1,100,100,262144,3,$K,256,16384,0,128,0,48,"TCC_HIT_sum",787312.000000,1000,1001000
1,7,"Agent 2",1,100,100,262144,3,$K,256,16384,0,128,0,48,"TCC_MISS_sum",45525188.000000,1000,1001000
2,8,"Agent 2",1,100,100,262144,4,"rmsnorm_kernel_0",256,0,0,32,0,16,"TCC_HIT_sum",5.000000,2000,3000
3,9,"Agent 2",1,100,100,262144,3,$K,256,16384,0,128,0,48,"TCC_HIT_sum",787312.000000,4000,1004000
3,9,"Agent 2",1,100,100,262144,3,$K,256,16384,0,128,0,48,"TCC_MISS_sum",45525188.000000,4000,1004000
EOF
# pass 2 (EA job): the same two iterations with other dispatch ids; 46,312,500 x 64 B = 1.04 x 2.85 GB
cat >"$T/ea/pmc_counter_collection.csv" <<EOF
$HDR
1,17,"Agent 2",1,101,101,262144,3,$K,256,16384,0,128,0,48,"TCC_EA0_RDREQ_sum",46312500.000000,5000,1005000
1,17,"Agent 2",1,101,101,262144,3,$K,256,16384,0,128,0,48,"TCC_EA0_RDREQ_32B_sum",0.000000,5000,1005000
1,17,"Agent 2",1,101,101,262144,3,$K,256,16384,0,128,0,48,"TCC_BUBBLE_sum",0.000000,5000,1005000
3,19,"Agent 2",1,101,101,262144,3,$K,256,16384,0,128,0,48,"TCC_EA0_RDREQ_sum",46312500.000000,7000,1007000
3,19,"Agent 2",1,101,101,262144,3,$K,256,16384,0,128,0,48,"TCC_EA0_RDREQ_32B_sum",0.000000,7000,1007000
3,19,"Agent 2",1,101,101,262144,3,$K,256,16384,0,128,0,48,"TCC_BUBBLE_sum",0.000000,7000,1007000
EOF

seed_check() { # the seed's worked example numbers
  python3 - "$T/out.json" "$1" <<'PY'
import json,sys
e=json.load(open(sys.argv[1]))
d=e["data"]
m=d["metrics"]
v=lambda k: m[k]["value"]
assert d["dispatches"]==2, d["dispatches"]
assert len(d["passes"])==2
assert v("l2_hit_pct")==1.7, v("l2_hit_pct")
assert v("partial_32b_pct")==0.0
assert v("fetch_bytes")==2964000000
assert v("over_fetch")==1.04, v("over_fetch")
assert v("ideal_gbs")==2850.0, v("ideal_gbs")
assert v("ideal_pct_of_peak")==53.8, v("ideal_pct_of_peak")
assert m["over_fetch"]["formula"].startswith("fetch_bytes / ideal_bytes")
assert "TCC_BUBBLE_sum" in m["fetch_bytes"]["formula"]
assert d["soc"]["product"]=="MI300X" and d["soc"]["hbm_gbs"]==5300.0
b=d["bound"]
assert b["bound"]=="memory" and b["optimal"] is True and b["optimal_rule"]=="clean_stream", b
txt=" ".join(d["interpretation"])
assert "L2 hit 1.7% < 5%" in txt and "over-fetch 1.04x" in txt and "2.85 TB/s" in txt and "54% of peak" in txt, txt
assert d["duration_source"]==sys.argv[2], d["duration_source"]
assert "mfma_util_pct" in d["missing"]
PY
}

expect csv-seed 0 OK -- "$F" counters --csv "$T/l2/pmc_counter_collection.csv" "$T/ea/pmc_counter_collection.csv" \
  --kernel pa_decode --ideal-gb 2.85 --gpu-name MI300X --duration-ns 1000000 && \
  { seed_check "--duration-ns" || { echo "FAIL csv-seed values"; fail=1; }; }

# without --kernel: two kernels -> BAD_ARGS with the list
expect csv-two-kernels 78 BAD_ARGS -- "$F" counters --csv "$T/l2/pmc_counter_collection.csv"
python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); assert "rmsnorm_kernel_0" in e["error"]["kernels"]' "$T/out.json" \
  || { echo "FAIL kernels list"; fail=1; }
expect csv-kernel-not-found 66 KERNEL_NOT_FOUND -- "$F" counters --csv "$T/l2/pmc_counter_collection.csv" --kernel flash
# a product the table does not model, an --arch contradicting the product
expect bad-gpu-name 78 BAD_ARGS -- "$F" counters --csv "$T/l2/pmc_counter_collection.csv" --kernel pa --gpu-name MI250X
expect arch-contradiction 78 BAD_ARGS -- "$F" counters --csv "$T/l2/pmc_counter_collection.csv" --kernel pa --gpu-name MI300X --arch gfx950
# no product known: no %-of-peak, recorded as missing
expect csv-no-product 0 OK -- "$F" counters --csv "$T/ea/pmc_counter_collection.csv" --kernel pa_decode --duration-ns 1000000
python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))["data"]
assert "hbm_pct_of_peak" not in d["metrics"] and d["missing"]["hbm_pct_of_peak"]==["product (peak HBM)"], d["missing"]
assert d["metrics"]["hbm_read_gbs"]["value"]==2964.0
assert d["soc"]["product"] is None' "$T/out.json" || { echo "FAIL no-product"; fail=1; }

# rocpd: the same example in one results.db, two runs (guids) = two passes, values split over instances
"$FP_TOOLS/fp_make_rocpd" "$T/seed.db" --product "AMD Instinct MI300X" \
  --guid run-l2 'pa_decode_kernel@7:1000:1001000:TCC_HIT_sum=787312,TCC_MISS_sum=45525188' \
               'pa_decode_kernel@9:4000:1004000:TCC_HIT_sum=787312,TCC_MISS_sum=45525188' \
  --guid run-ea 'pa_decode_kernel@17:5000:1005000:TCC_EA0_RDREQ_sum=46312500,TCC_EA0_RDREQ_32B_sum=0,TCC_BUBBLE_sum=0' \
               'pa_decode_kernel@19:7000:1007000:TCC_EA0_RDREQ_sum=46312500,TCC_EA0_RDREQ_32B_sum=0,TCC_BUBBLE_sum=0' \
  || { echo "FAIL fp_make_rocpd"; fail=1; }
expect rocpd-seed 0 OK -- "$F" counters --db "$T/seed.db" --ideal-gb 2.85
seed_check "counter pass timestamps" || { echo "FAIL rocpd-seed values"; fail=1; }

# bad rocpd inputs
: >"$T/empty.db"
expect rocpd-empty 65 BAD_INPUT -- "$F" counters --db "$T/empty.db"
head -c 4096 /dev/urandom >"$T/garbage.db"
expect rocpd-garbage 65 BAD_INPUT -- "$F" counters --db "$T/garbage.db"
head -c 3000 "$T/seed.db" >"$T/truncated.db"
expect rocpd-truncated 65 BAD_INPUT -- "$F" counters --db "$T/truncated.db"
"$FP_TOOLS/fp_make_rocpd" "$T/nopmc.db" --no-pmc 'k@1:0:10:SQ_WAVES=1'
expect rocpd-no-counters 65 BAD_INPUT -- "$F" counters --db "$T/nopmc.db"
"$FP_TOOLS/fp_make_rocpd" "$T/text.db" 'k@1:0:10:SQ_WAVES=lots'
expect rocpd-text-value 65 BAD_INPUT -- "$F" counters --db "$T/text.db"
expect rocpd-missing 66 NO_ARTIFACT -- "$F" counters --db "$T/nope.db"

# bad CSVs
bad_csv() { # name body
  printf '%s\n%s\n' "$HDR" "$2" >"$T/bad.csv"
  expect "$1" 65 BAD_INPUT -- "$F" counters --csv "$T/bad.csv"
}
bad_csv csv-non-numeric '1,1,"A",1,1,1,1,1,"k",64,0,0,8,0,16,"SQ_WAVES",many,1,2'
bad_csv csv-huge '1,1,"A",1,1,1,1,1,"k",64,0,0,8,0,16,"SQ_WAVES",1e300,1,2'
bad_csv csv-inf '1,1,"A",1,1,1,1,1,"k",64,0,0,8,0,16,"SQ_WAVES",inf,1,2'
bad_csv csv-huge-timestamp '1,1,"A",1,1,1,1,1,"k",64,0,0,8,0,16,"SQ_WAVES",1,1,999999999999999999999999999'
bad_csv csv-unquoted-comma '1,1,"A",1,1,1,1,1,k<a, b>,64,0,0,8,0,16,"SQ_WAVES",1,1,2'
bad_csv csv-short-row '1,1,"A",1,1'
printf '"Dispatch_Id","Kernel_Name","Counter_Value"\n1,"k",5\n' >"$T/nocol.csv"
expect csv-missing-column 65 BAD_INPUT -- "$F" counters --csv "$T/nocol.csv"
: >"$T/empty.csv"
expect csv-empty 65 BAD_INPUT -- "$F" counters --csv "$T/empty.csv"
expect csv-missing-file 66 NO_ARTIFACT -- "$F" counters --csv "$T/none.csv"
# a quoted comma inside the kernel name is fine
printf '%s\n%s\n' "$HDR" '1,1,"A",1,1,1,1,1,"k<a, b>(int, float)",64,0,0,8,0,16,"SQ_WAVES",4096,1,2' >"$T/quoted.csv"
expect csv-quoted-comma 0 OK -- "$F" counters --csv "$T/quoted.csv"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["data"]; assert d["kernel"]=="k<a, b>(int, float)" and d["metrics"]["waves"]["value"]==4096' "$T/out.json" \
  || { echo "FAIL quoted comma"; fail=1; }

# usage errors
expect no-input 64 USAGE -- "$F" counters
expect bad-dtype 78 BAD_ARGS -- "$F" counters --csv "$T/quoted.csv" --dtype fp7
expect live-and-csv 64 USAGE -- "$F" counters --csv "$T/quoted.csv" --bundle "$T" -- true

# the bundle: pmc/ discovered, counters.json written atomically, kernel trace from capture.json gives the duration
B="$T/bundle"
mkdir -p "$B/pmc/pass_1" "$B/pmc/pass_2" "$B/rocprof/big"
cp "$T/l2/pmc_counter_collection.csv" "$B/pmc/pass_1/"
cp "$T/ea/pmc_counter_collection.csv" "$B/pmc/pass_2/"
cat >"$B/rocprof/big/kernel_trace.csv" <<EOF
"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"
"KERNEL_DISPATCH","Agent 2",1,3,$K,1,100,1000100
"KERNEL_DISPATCH","Agent 2",1,3,$K,2,2000000,3000000
EOF
cat >"$B/capture.json" <<EOF
{"schema":1,"kernel":"pa_decode","arch":"gfx942","tags":{"big":{"status":"ok","kernel_trace_csv":"rocprof/big/kernel_trace.csv"}}}
EOF
expect bundle 0 OK -- "$F" counters --bundle "$B" --ideal-gb 2.85 --gpu-name MI300X
seed_check "kernel trace (capture.json)" || { echo "FAIL bundle values"; fail=1; }
python3 -c '
import json,sys
d=json.load(open(sys.argv[1]+"/counters.json"))
assert d["metrics"]["over_fetch"]["value"]==1.04 and d["duration_ns"]==1000000.0
assert len(d["per_dispatch"])==2 and d["per_dispatch"][0]["raw"][1]["counters"]["TCC_EA0_RDREQ_sum"]==46312500
' "$B" || { echo "FAIL counters.json"; fail=1; }
ls "$B" | grep -q '\.tmp' && { echo "FAIL temp file left in bundle"; fail=1; }
expect bundle-empty 66 NO_ARTIFACT -- "$F" counters --bundle "$T/l2/none"

# table output names formulas and the decision tree
"$F" counters --db "$T/seed.db" --ideal-gb 2.85 -f table >"$T/table.txt" 2>/dev/null
grep -q 'over_fetch .* fetch_bytes / ideal_bytes' "$T/table.txt" && grep -q 'interpretation (seed decision tree)' "$T/table.txt" \
  || { echo "FAIL table"; cat "$T/table.txt"; fail=1; }

[ $fail = 0 ] && echo "counters.sh: all passed"
exit $fail
