#!/usr/bin/env bash
# tile.sh - `flyprof tile`: an evaluated tile with hand-checked numbers, tiles ==
# CUs reported "full", the search, the real kernel from a bundle's kernel trace
# (gfx950 register under-count corrected), tile.json, and bad arguments.
set -u
F=$FLYPROF
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0

expect() { # NAME EXIT CODE -- cmd...
  local name=$1 want_exit=$2 want_code=$3; shift 4
  local rc
  "$@" >"$T/out.json" 2>"$T/err.txt"; rc=$?
  if [ "$rc" != "$want_exit" ]; then echo "FAIL $name: exit $rc, want $want_exit: $(head -c 400 "$T/out.json")"; fail=1; return 1; fi
  if [ "$want_code" = OK ]; then
    grep -q '^{"ok":true,"command":"tile"' "$T/out.json" || { echo "FAIL $name: $(head -c 400 "$T/out.json")"; fail=1; return 1; }
  else
    grep -q "^{\"ok\":false,\"command\":\"tile\",\"error\":{\"code\":\"$want_code\"" "$T/out.json" \
      || { echo "FAIL $name: $(head -c 400 "$T/out.json")"; fail=1; return 1; }
  fi
}

# MI300X: 4864 x 1024 with 256 x 64 tiles = 19 x 16 = 304 tiles = one per CU: "full"
expect full 0 OK -- "$F" tile --gpu-name MI300X --shape 4864,1024,512 --dtype bf16 --bm 256 --bn 64 --bk 32
python3 - "$T/out.json" <<'PY' || { echo "FAIL full content"; fail=1; }
import json,sys
d=json.load(open(sys.argv[1]))["data"]
e=d["evaluated"]
assert d["confidence"]=="heuristic" and "GEMM" in d["note"]
assert e["grid"]["tiles"]==304 and e["grid"]["verdict"]=="full", e["grid"]
assert e["lds"]["bytes"]==((256*32+32*64)*2*2) and e["lds"]["limit"]==65536
assert e["vgpr_estimate"]["accum"]==64 and e["vgpr_estimate"]["arch"]==16+20  # (256*32+32*64)*2/4/256 = 20
assert d["soc"]["product"]=="MI300X" and d["soc"]["peaks_gflops"]["bf16"]==1307443.2 and "fp4" not in d["soc"]["peaks_gflops"]
assert d["bound"]["basis"]=="shape" and d["bound"]["bound"]=="memory"
PY

# search: five candidates, sorted, recommended = first; a shape-embedded dtype
expect search 0 OK -- "$F" tile --gpu-name MI355X --shape 8192x8192x8192,fp8
python3 - "$T/out.json" <<'PY' || { echo "FAIL search content"; fail=1; }
import json,sys
d=json.load(open(sys.argv[1]))["data"]
c=d["candidates"]
assert d["shape"]["dtype"]=="fp8" and d["tiles_considered"]==36 and len(c)==5
assert [x["score"] for x in c]==sorted([x["score"] for x in c], reverse=True)
assert d["recommended"]==c[0]
assert all(x["lds"]["fits"] and x["vgpr_estimate"]["fits"] and x["occupancy"]["waves_per_simd"]>=1 for x in c)
PY

# the bundle: real kernel from the kernel trace; gfx950 VGPR_Count 124 with Accum 0 -> 248 combined -> 2 waves/SIMD
B="$T/b"; mkdir -p "$B/rocprof/big"
cat >"$B/rocprof/big/kernel_trace.csv" <<'EOF'
"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"
"KERNEL_DISPATCH","Agent 2",1,0,697690,5,195,"flash_attn_func_kernel_0",5,2016989883593149,2016989883687109,49152,0,124,0,112,256,1,1,131072,1,1
EOF
cat >"$B/rocprof/big/agent_info.csv" <<'EOF'
"Node_Id","Agent_Type","Cu_Count","Num_Xcc","Gfx_Target_Version","Device_Id","Name","Product_Name"
0,"CPU",0,0,0,0,"EPYC","AMD EPYC"
2,"GPU",256,8,90500,30112,"gfx950","AMD Instinct MI350X"
EOF
echo '{"schema":1,"kernel":"flash_attn_func_kernel_0","arch":"gfx950","tags":{"big":{"status":"ok","kernel_trace_csv":"rocprof/big/kernel_trace.csv"}}}' >"$B/capture.json"
expect bundle 0 OK -- "$F" tile --bundle "$B" --bm 128 --bn 128 --bk 64
python3 - "$T/out.json" "$B" <<'PY' || { echo "FAIL bundle content"; fail=1; }
import json,sys
d=json.load(open(sys.argv[1]))["data"]
assert d["soc"]["product"]=="MI350X" and d["soc"]["product_source"]=="agent Product_Name", d["soc"]
r=d["real_kernel"]
assert r["resources"]["combined_vgpr"]==248 and r["resources"]["gfx950_undercount_corrected"] is True, r
assert r["occupancy"]["waves_per_simd"]==2 and r["occupancy"]["limiter"]=="VGPR", r["occupancy"]
assert r["resources"]["workgroups"]==512
assert r["grid"]["tiles"]==512 and r["grid"]["verdict"]=="full", r["grid"]   # 512 WGs = 2 per CU on 256 CUs
t=json.load(open(sys.argv[2]+"/tile.json"))
assert t["real_kernel"]["occupancy"]["waves_per_simd"]==2 and t["evaluated"]["tile"]["BM"]==128
PY

# table output says it is a heuristic
"$F" tile --gpu-name MI350X --bm 128 --bn 128 --bk 64 -f table >"$T/t.txt" 2>/dev/null
grep -q 'heuristic for GEMM-shaped kernels' "$T/t.txt" && grep -q 'LDS        65536 of 163840 bytes' "$T/t.txt" \
  || { echo "FAIL table"; cat "$T/t.txt"; fail=1; }

# only the arch: works without grid and ridge, warns
expect arch-only 0 OK -- "$F" tile --arch gfx942 --shape 1024,1024,1024 --bm 64 --bn 64 --bk 64
grep -q 'GPU product unknown' "$T/out.json" || { echo "FAIL arch-only warning"; fail=1; }

# bad arguments
expect no-gpu 78 BAD_ARGS -- "$F" tile --bm 64 --bn 64 --bk 64
expect bad-gpu 78 BAD_ARGS -- "$F" tile --gpu-name MI100
expect bad-dtype 78 BAD_ARGS -- "$F" tile --gpu-name MI300X --dtype fp5
expect partial-tile 64 USAGE -- "$F" tile --gpu-name MI300X --bm 64
expect bad-shape 64 USAGE -- "$F" tile --gpu-name MI300X --shape 10,x,20
expect zero-shape 64 USAGE -- "$F" tile --gpu-name MI300X --shape 0,10,20
expect huge-shape 64 USAGE -- "$F" tile --gpu-name MI300X --shape 99999999999,10,20
expect two-dims 64 USAGE -- "$F" tile --gpu-name MI300X --shape 10,20
expect bad-bm 64 USAGE -- "$F" tile --gpu-name MI300X --bm -1 --bn 64 --bk 64
echo '{"kernel": ' >"$T/bad.json"; mkdir -p "$T/bb"; cp "$T/bad.json" "$T/bb/capture.json"
expect bad-capture 65 BAD_INPUT -- "$F" tile --bundle "$T/bb" --gpu-name MI300X

[ $fail = 0 ] && echo "tile.sh: all passed"
exit $fail
