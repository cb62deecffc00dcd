#!/usr/bin/env bash
# CLI test of `flyprof hotspots`: envelopes, exit codes and the register block
# on fixtures written here (mktemp): errors (missing dir/code.json, code null,
# truncated JSON, bad flags), tolerant readings (non-integer cells, 0 cycles,
# hostile snapshot leaves) and the kernel_trace/agent_info CSV lookup.
set -u
FLYPROF=${FLYPROF:?FLYPROF must point at the binary}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0 passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect EXIT CODE -- args...: run, check exit status and the envelope's error code
expect() {
    local want_rc=$1 want_code=$2; shift 2
    "$FLYPROF" "$@" -f json > "$t/out.json" 2> "$t/err.txt"
    local rc=$?
    # the envelope is one unformatted line: read the code without a python start
    local code
    if grep -q '^{"ok":true' "$t/out.json"; then code=OK
    else code=$(grep -o '"error":{"code":"[A-Z_]*"' "$t/out.json" | sed 's/.*"code":"//; s/"$//'); fi
    if [ "$rc" = "$want_rc" ] && [ "$code" = "$want_code" ]; then ok; else bad "$* -> rc $rc code '$code' (want $want_rc $want_code): $(head -c 300 "$t/out.json")"; fi
}
# jcheck 'expr' ...: python expressions on e = envelope, d = data (one python start)
jcheck() {
    local out
    out=$(python3 -c '
import json, sys
e = json.load(open(sys.argv[1])); d = e.get("data")
for x in sys.argv[2:]:
    print("ok" if eval(x) else "FAIL: check " + x)
' "$t/out.json" "$@" 2>&1)
    while IFS= read -r l; do
        if [ "$l" = ok ]; then ok; else bad "$l on $(head -c 600 "$t/out.json")"; fi
    done <<< "$out"
}

row() { # isa idx src lat stall
    printf '["%s",0,%s,"%s",1,%s,1,%s,%s,0]' "$1" "$2" "$3" "$((4096 + $2 * 8))" "$4" "$5"
}
mkcode() { # dir rows...
    local d=$1; shift
    mkdir -p "$d"
    { printf '{"code":[["; my_kernel_0",0,0,"",1,4096,0,0,0,0]'; for r in "$@"; do printf ',%s' "$r"; done; printf ']}'; } > "$d/code.json"
}

# ---- errors ----
expect 66 NO_ARTIFACT hotspots "$t/nope"
mkdir -p "$t/empty_dir"
expect 66 NO_ARTIFACT hotspots "$t/empty_dir"
# an empty code.json (not mappable: read path) and a code.json that is a directory
mkdir -p "$t/zero"; : > "$t/zero/code.json"
expect 65 BAD_INPUT hotspots "$t/zero"
mkdir -p "$t/isdir/code.json"
expect 74 IO_ERROR hotspots "$t/isdir"
mkdir -p "$t/null"; echo '{"code": null, "header": []}' > "$t/null/code.json"
expect 66 EMPTY_ATT hotspots "$t/null"
mkdir -p "$t/trunc"; printf '{"code":[["s_nop 0",0,1,"/k.py:1",1,2,3,4' > "$t/trunc/code.json"
expect 65 BAD_INPUT hotspots "$t/trunc"
mkdir -p "$t/notjson"; echo 'not json' > "$t/notjson/code.json"
expect 65 BAD_INPUT hotspots "$t/notjson"
mkdir -p "$t/short"; echo '{"code":[["s_nop 0",0,1]]}' > "$t/short/code.json"
expect 65 BAD_INPUT hotspots "$t/short"
mkdir -p "$t/isanum"; echo '{"code":[[5,0,1,"",0,0,0,0,0,0]]}' > "$t/isanum/code.json"
expect 65 BAD_INPUT hotspots "$t/isanum"

mkcode "$t/k/att/ui_output_agent_7_dispatch_3" \
    "$(row 's_waitcnt vmcnt(0)' 1 /w/k.py:2 100 90)" \
    "$(row 'v_mfma_f32_32x32x16_bf16 a[0:15], v[0:3], v[4:7], a[0:15]' 2 /w/k.py:3 50 10)" \
    "$(row 'v_mov_b32 v95, 0' 3 /w/k.py:3 20 5)" \
    "$(row 's_endpgm' 4 '' 10 0)"
D="$t/k/att/ui_output_agent_7_dispatch_3"
expect 64 USAGE hotspots "$D" --topk 0
expect 64 USAGE hotspots "$D" --topk -1
expect 64 USAGE hotspots "$D" --context -1
expect 64 USAGE hotspots "$D" --mode sideways
expect 64 USAGE hotspots "$D" --arch gfx1100
expect 64 USAGE hotspots "$D" --topk x
expect 64 USAGE hotspots
expect 64 USAGE hotspots "$D" "$D"

# ---- no CSV anywhere: ISA only, heuristic arch, warnings ----
expect 0 OK hotspots "$D"
jcheck 'd["instructions"] == 4 and d["total_cycles"] == 180 and d["total_stall"] == 105' \
    'd["stall_by_type"][0] == {"type": "VMEM-wait", "stall": 90, "pct": 85.7143}' \
    '[l["source_loc"] for l in d["source_lines"]] == ["/w/k.py:2", "/w/k.py:3"] and d["source_lines_total"] == 2' \
    'd["source_lines"][1]["dominant_type"] == "MFMA/FMA" and d["source_lines"][1]["stalling_pc_index"] == [2, 3]' \
    '[i["pc_index"] for i in d["instructions_ranked"]] == [1, 2, 3]' \
    'd["registers"]["arch"] == "gfx942" and d["registers"]["arch_source"] == "heuristic"' \
    'd["registers"]["kernel_trace"] is None and d["registers"]["limits"]["lds"] is None' \
    'd["registers"]["isa_scan"]["arch_vgpr"] == 96 and d["registers"]["occupancy"] == 5' \
    'any("ISA scan only" in w for w in e["warnings"]) and any("guessed" in w for w in e["warnings"])' \
    '"truncated" not in e'
expect 0 OK hotspots "$D" --topk 1 --mode asm
jcheck 'e["truncated"] == {"instructions_ranked": {"shown": 1, "total": 3}} and "source_lines" not in d'
expect 0 OK hotspots "$D" --arch gfx950
jcheck 'd["registers"]["arch"] == "gfx950" and d["registers"]["arch_source"] == "flag"'

# ---- kernel_trace.csv + agent_info.csv in <case>/rocprof (the corpus/bundle layout) ----
mkdir -p "$t/k/rocprof"
{
    echo '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"'
    echo '"KERNEL_DISPATCH","Agent 2",1,0,1,1,1,"other_kernel(int, float)",1,10,20,0,0,8,0,16,64,1,1,64,1,1'
    echo '"KERNEL_DISPATCH","Agent 2",1,0,1,2,2,"my_kernel_0",2,10,20,49152,0,124,0,112,256,1,1,131072,1,1'
} > "$t/k/rocprof/kernel_trace.csv"
{
    echo '"Node_Id","Agent_Type","Gfx_Target_Version","Name"'
    echo '0,"CPU",0,"AMD EPYC"'
    echo '2,"GPU",90500,"gfx950"'
} > "$t/k/rocprof/agent_info.csv"
expect 0 OK hotspots "$D"
jcheck 'd["registers"]["arch"] == "gfx950" and d["registers"]["arch_source"] == "agent_info"' \
    'd["registers"]["kernel_trace"]["kernel_name"] == "my_kernel_0" and d["registers"]["kernel_trace"]["line"] == 3' \
    'd["registers"]["kernel_trace"]["gfx950_undercount_corrected"] is True and d["registers"]["total_vgpr"] == 248' \
    'd["registers"]["limits"] == {"vgpr": 2, "lds": 3, "sgpr": 7, "hardware": 8} and d["registers"]["occupancy"] == 2' \
    'd["registers"]["bound_by"] == "VGPR" and d["registers"]["next"] == {"waves": 3, "total_vgpr_at_most": 168, "other_limits_bind": False}' \
    'not any("ISA scan only" in w for w in e["warnings"])'
# --kernel picks another row (substring of a name with a quoted comma); --arch overrides agent_info
expect 0 OK hotspots "$D" --kernel other_kernel --arch gfx942
jcheck 'd["registers"]["kernel_trace"]["kernel_name"] == "other_kernel(int, float)" and d["registers"]["arch_source"] == "flag"' \
    'd["registers"]["kernel_trace"]["gfx950_undercount_corrected"] is False and d["registers"]["sgpr"]["count"] == 16'
# explicit --kernel-trace: missing file, no matching row, malformed
expect 66 NO_ARTIFACT hotspots "$D" --kernel-trace "$t/none.csv"
expect 66 KERNEL_NOT_FOUND hotspots "$D" --kernel-trace "$t/k/rocprof/kernel_trace.csv" --kernel nothing_like_it
printf '"Kernel_Name","VGPR_Count"\n"a",1\n"b"\n' > "$t/ragged.csv"
expect 65 BAD_INPUT hotspots "$D" --kernel-trace "$t/ragged.csv"
# a malformed auto-discovered CSV is skipped with a warning (a_ sorts before kernel_trace.csv)
cp "$t/ragged.csv" "$t/k/rocprof/a_kernel_trace.csv"
expect 0 OK hotspots "$D"
jcheck 'any("a_kernel_trace.csv" in w for w in e["warnings"]) and d["registers"]["kernel_trace"]["kernel_name"] == "my_kernel_0"'
rm "$t/k/rocprof/a_kernel_trace.csv"
# the dispatch dir is searched last: a CSV there is not listed when <case>/rocprof has the row,
# and is found when no other place has one
cp "$t/ragged.csv" "$D/zz_kernel_trace.csv"
expect 0 OK hotspots "$D"
jcheck 'not any("zz_kernel_trace.csv" in w for w in e["warnings"]) and d["registers"]["kernel_trace"]["path"].endswith("/../../rocprof/kernel_trace.csv")'
rm "$D/zz_kernel_trace.csv"
mv "$t/k/rocprof/kernel_trace.csv" "$D/kernel_trace.csv"
expect 0 OK hotspots "$D"
jcheck 'd["registers"]["kernel_trace"]["path"] == "'"$D"'/kernel_trace.csv" and d["registers"]["kernel_trace"]["kernel_name"] == "my_kernel_0"'
mv "$D/kernel_trace.csv" "$t/k/rocprof/kernel_trace.csv"

# table text keeps the lines downstream regexes grep (att_capture.py)
"$FLYPROF" hotspots "$D" -f table > "$t/out.txt" 2> "$t/err.txt"
if python3 - "$t/out.txt" <<'PY'
import re, sys
s = open(sys.argv[1], encoding="utf-8").read()
assert re.search(r"Architecture:\s*(\S+)", s).group(1) == "gfx950", "arch"
assert re.search(r"arch_vgpr:\s*~?(\d+)", s).group(1) == "248", "arch_vgpr"
assert re.search(r"accum_vgpr:\s*(\d+)", s).group(1) == "0", "accum"
assert re.search(r"occupancy:\s*(\d+)\s*waves", s).group(1) == "2", "occupancy"
assert "(85.7%" not in s and "(58.3% of total cycles)" in s, "total line"
PY
then ok; else bad "table grep lines: $(cat "$t/out.txt")"; fi
grep -q 'doubled' "$t/err.txt" && ok || bad "table mode warnings go to stderr"

# the per-line stalling list is bounded by --topk too (stalling_total keeps the count)
mkcode "$t/many" "$(row 's_nop 0' 1 /k.py:1 10 1)" "$(row 's_nop 1' 2 /k.py:1 10 3)" "$(row 's_nop 2' 3 /k.py:1 10 2)"
expect 0 OK hotspots "$t/many" --topk 2 --mode src
jcheck 'd["source_lines"][0]["stalling_total"] == 3 and d["source_lines"][0]["stalling_pc_index"] == [2, 3]'

# ---- tolerant readings ----
mkdir -p "$t/coerce"
echo '{"code":[["s_nop 0",0,1,"/k.py:1",0,0,"many",12.5,null,0],["s_barrier",0,2,"/k.py:1",0,0,1,10,4,0]]}' > "$t/coerce/code.json"
expect 0 OK hotspots "$t/coerce"
jcheck 'd["total_cycles"] == 10 and d["total_stall"] == 4 and any("not integers" in w for w in e["warnings"])'
mkcode "$t/zero" "$(row 's_nop 0' 1 /k.py:1 0 0)"
expect 0 OK hotspots "$t/zero"
jcheck 'd["stall_pct"] is None and d["source_lines"] == [] and any("total cycles are 0" in w for w in e["warnings"])'
mkcode "$t/none"
expect 0 OK hotspots "$t/none"
jcheck 'd["instructions"] == 0 and any("no instruction rows" in w for w in e["warnings"])'

# hostile snapshot leaf: never read, the envelope still succeeds, no snippet from outside
mkcode "$t/evil/d" "$(row 's_waitcnt vmcnt(0)' 1 /etc/passwd:1 10 9)" "$(row 's_nop 0' 2 /w/k.py:2 10 5)"
printf 'a = 1\r\nb = 2   \r\nc = 3\r\n' > "$t/evil/d/source_0_k.py"
echo '{"/":{"etc":{"passwd":"../../../../../../etc/passwd"},"w":{"k.py":"source_0_k.py"}}}' > "$t/evil/d/snapshots.json"
expect 0 OK hotspots "$t/evil/d" --detail --context 1
jcheck 'd["source_lines"][0]["snippet"] is None and "root:" not in json.dumps(e)' \
    'd["source_lines"][1]["snippet"]["lines"] == [{"line": 1, "text": "a = 1", "hot": False}, {"line": 2, "text": "b = 2", "hot": True}, {"line": 3, "text": "c = 3", "hot": False}]' \
    'any("outside the dispatch dir" in w for w in e["warnings"])'
"$FLYPROF" hotspots "$t/evil/d" --detail --context 1 -f table > "$t/out.txt" 2>/dev/null
if grep -q $'\r' "$t/out.txt" || grep -q 'root:' "$t/out.txt"; then bad "CR or passwd in text"; else ok; fi
grep -q '      >>>    2 │ b = 2$' "$t/out.txt" && ok || bad "CRLF snippet line"

# table-mode errors: message on stderr, nothing on stdout, exit code kept
"$FLYPROF" hotspots "$t/null" -f table > "$t/out.txt" 2> "$t/err.txt"
rc=$?
if [ $rc = 66 ] && [ ! -s "$t/out.txt" ] && grep -q EMPTY_ATT "$t/err.txt"; then ok; else bad "table error rc=$rc"; fi

echo "hotspots cli: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
