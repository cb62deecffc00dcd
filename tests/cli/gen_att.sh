#!/usr/bin/env bash
# gen_att.sh - the synthetic ATT generator (tests/tools/fp_gen_att) writes dispatch
# dirs whose files are mutually consistent, in the rocprofv3 format (§5 of
# rocprof-formats.md): every spec in tests/data/gen is generated twice (must be
# byte-identical) and checked against the format invariants, plus hand-computed
# values for the small scenarios and the generator's own error handling.
set -u
: "${FP_TOOLS:?FP_TOOLS must point to the built test tools}"
: "${FP_SRC:?FP_SRC must point to the source root}"
GEN="$FP_TOOLS/fp_gen_att"
SPECS="$FP_SRC/tests/data/gen"
[ -x "$GEN" ] || { echo "missing $GEN"; exit 1; }
command -v python3 >/dev/null || { echo "python3 not available"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0

for spec in "$SPECS"/*.json; do
    name=$(basename "$spec" .json)
    for run in a b; do
        if ! "$GEN" "$spec" "$T/$run/$name" 2>"$T/$name.$run.err"; then
            echo "FAIL: $name: generator failed: $(cat "$T/$name.$run.err")"
            fail=1
        fi
    done
    if ! diff -r "$T/a/$name" "$T/b/$name" >/dev/null; then
        echo "FAIL: $name: output is not deterministic"
        fail=1
    fi
done

# Invariants on every generated dispatch dir, driven by the specs.
python3 - "$SPECS" "$T/a" <<'EOF' || fail=1
import glob, json, os, sys
specs_dir, out = sys.argv[1], sys.argv[2]
errors = []
def check(cond, msg):
    if not cond:
        errors.append(msg)
    return cond

def dispatch_dirs(root):
    return sorted(glob.glob(os.path.join(root, "ui_output_agent_*_dispatch_*")) +
                  glob.glob(os.path.join(root, "att", "ui_output_agent_*_dispatch_*")))

checked = 0
for spec_path in sorted(glob.glob(os.path.join(specs_dir, "*.json"))):
    name = os.path.basename(spec_path)[:-5]
    spec = json.load(open(spec_path))
    truncated = {"se%d_sm%d_sl%d_wv%d.json" % (w.get("se", 0), w.get("simd", 0), w.get("slot", 0), w.get("id", 0))
                 for w in spec.get("waves", []) if "truncate" in w}
    dirs = dispatch_dirs(os.path.join(out, name))
    want = 1 + len(spec.get("extra_empty_shells", []))
    check(len(dirs) == want, f"{name}: {len(dirs)} dispatch dirs, want {want}")
    for d in dirs:
        checked += 1
        tag = f"{name}/{os.path.basename(d)}"
        files = sorted(os.listdir(d))
        for f in files:
            if not f.endswith(".json"):
                continue
            text = open(os.path.join(d, f)).read()
            if f in truncated:
                try:
                    json.loads(text)
                    check(False, f"{tag}/{f}: should be truncated but parses")
                except ValueError:
                    pass
                check(text.startswith('{"duration":'), f"{tag}/{f}: truncated file lost its head")
                continue
            try:
                j = json.loads(text)
            except ValueError as e:
                check(False, f"{tag}/{f}: does not parse: {e}")
                continue
            # the decoder's writer (nlohmann, std::map) = compact + keys sorted; every real
            # corpus file satisfies exactly this round trip
            check(json.dumps(j, separators=(",", ":"), sort_keys=True, ensure_ascii=False) == text,
                  f"{tag}/{f}: not compact, key-sorted JSON like the decoder writes")
        code = json.load(open(os.path.join(d, "code.json")))
        fn = json.load(open(os.path.join(d, "filenames.json")))
        occ = json.load(open(os.path.join(d, "occupancy.json")))
        check(code["version"] == "3.0.0" and fn["version"] == "3.0.0" and occ["version"] == "3.0.0",
              f"{tag}: version must be 3.0.0")
        check(code["header"] == "ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle",
              f"{tag}: code.json header")
        check(fn["gfxip"] == 9 and fn["gfxv"] == "vega", f"{tag}: gfxip/gfxv")
        waves = [f for f in files if f.startswith("se") and "_sm" in f]
        if code["code"] is None:  # empty shell (§5.2)
            check(fn["wave_filenames"] is None, f"{tag}: shell must have wave_filenames null")
            check(not waves, f"{tag}: shell has wave files {waves}")
            check(not any(f.startswith("wstates") for f in files), f"{tag}: shell has wstates files")
            check("realtime.json" in files, f"{tag}: shell lacks realtime.json")
            check(all(isinstance(v, list) for k, v in occ.items() if k.isdigit()), f"{tag}: occupancy SE arrays")
            continue
        rows = code["code"]
        check(rows[0][0] == "; " + spec["symbol"], f"{tag}: row 0 must be the '; <symbol>' header")
        check(all(r[2] == i for i, r in enumerate(rows)), f"{tag}: LineNumber must equal the row index")
        check(all(r[1] == 0 for r in rows), f"{tag}: column 1 must be 0")
        check(all(r[5] >= rows[0][5] for r in rows), f"{tag}: vaddr below the symbol address")
        # rebuild the aggregates from the wave records
        n = len(rows)
        hit, lat, stall, idle = [0] * n, [0] * n, [0] * n, [0] * n
        state_sum = {}
        records = 0
        listed = {}
        for se, a in (fn["wave_filenames"] or {}).items():
            for simd, b in a.items():
                for slot, c in b.items():
                    for wid, entry in c.items():
                        listed[entry[0]] = (int(se), int(simd), int(slot), int(wid), entry[1], entry[2])
        check(sorted(listed) == sorted(waves), f"{tag}: filenames.json lists {sorted(listed)}, dir has {waves}")
        intact = True
        for f in waves:
            if f in truncated:
                intact = False
                continue
            top = json.load(open(os.path.join(d, f)))
            w = top["wave"]
            ins = w["instructions"]
            se, simd, slot, wid, b, e = listed.get(f, (None,) * 6)
            check((w["simd"], w["slot"], w["id"], w["begin"], w["end"]) == (simd, slot, wid, b, e)
                  and top["name"] == "SE%d" % se, f"{tag}/{f}: header disagrees with filenames.json")
            check(top["duration"] == w["end"] - w["begin"], f"{tag}/{f}: duration != end - begin")
            check(top["num_insts"] == len(ins) == top["num_stitched"], f"{tag}/{f}: num_insts")
            tl = sum(dd for s, dd in w["timeline"])
            check(tl == w["end"] - w["begin"] + 4, f"{tag}/{f}: Σ timeline {tl} != end-begin+4")
            check(w["timeline"][0][0] == 1, f"{tag}/{f}: timeline must start IDLE")
            prev = w["begin"]
            for t, cat, st, du, line in ins:
                check(0 <= st <= du and du >= 4, f"{tag}/{f}: stall {st} > duration {du}")
                check(t >= prev, f"{tag}/{f}: overlapping records at {t}")
                check(t % 4 == 0 and du % 4 == 0, f"{tag}/{f}: 4-cycle granularity")
                check(0 < line < n, f"{tag}/{f}: line {line} outside code.json")
                hit[line] += 1; lat[line] += du; stall[line] += st
                idle[line] += max(0, t - prev)
                prev = max(prev, t + du)
            for s, dd in w["timeline"]:
                state_sum[s] = state_sum.get(s, 0) + dd
            for wl, prods in w["waitcnt"]:
                check(rows[wl][0].startswith("s_waitcnt"), f"{tag}/{f}: waitcnt edge from non-wait line {wl}")
                check(all(p < wl or True for p, z in prods) and all(z == 0 for p, z in prods),
                      f"{tag}/{f}: producer pairs must be [line, 0]")
            records += len(ins)
            # occupancy: one start and one end event for the wave on its CU
            evs = [x for x in occ.get(str(se), []) if x[1] == w["cu"] and x[2] == simd and x[3] == slot]
            check([w["begin"], 1] in [[x[0], x[4]] for x in evs] and [w["end"], 0] in [[x[0], x[4]] for x in evs],
                  f"{tag}/{f}: occupancy lacks the wave's start/end")
        if intact:
            check(sum(r[6] for r in rows) == records, f"{tag}: Σ Hit {sum(r[6] for r in rows)} != {records} records")
            for i in range(1, n):
                check(rows[i][6:10] == [hit[i], lat[i], stall[i], idle[i]],
                      f"{tag}: row {i} Hit/Latency/Stall/Idle {rows[i][6:10]} != {[hit[i], lat[i], stall[i], idle[i]]}")
            check(all(r[8] <= r[7] for r in rows), f"{tag}: Stall > Latency")
            for s in (1, 2, 3, 4):
                p = os.path.join(d, "wstates%d.json" % s)
                if state_sum.get(s, 0) == 0:
                    check(not os.path.exists(p), f"{tag}: wstates{s}.json written for an absent state")
                    continue
                ws = json.load(open(p))
                check(ws["name"] == "wstates%d.json" % s and ws["state"][-1] == 0, f"{tag}: wstates{s} shape")
                integral = sum(ws["state"][i] * (ws["time"][i + 1] - ws["time"][i]) for i in range(len(ws["time"]) - 1))
                check(integral == state_sum[s], f"{tag}: ∫wstates{s} {integral} != Σ timeline {state_sum[s]}")
        else:
            check(sum(r[6] for r in rows) > records, f"{tag}: Σ Hit must count the truncated wave's records")
        rt = json.load(open(os.path.join(d, "realtime.json")))
        check(rt["metadata"]["frequency"] == 100000000 and
              all(len(v) == 2 for k, v in rt.items() if k.startswith("SE")), f"{tag}: realtime.json shape")
        snap = os.path.join(d, "snapshots.json")
        if spec.get("sources") and spec.get("snapshots", True):
            sj = json.load(open(snap))
            def leaves(node, path):
                for k, v in node.items():
                    p = path + ("" if path.endswith("/") or k == "/" else "/") + k
                    if isinstance(v, dict):
                        yield from leaves(v, p)
                    else:
                        yield p, v
            extra = spec.get("snapshot_extra_leaves", {})
            got = dict(leaves(sj, ""))
            for k, (vp, text) in enumerate(spec["sources"].items()):
                want_leaf = "source_%d_%s" % (k, os.path.basename(vp))
                check(got.get(vp) == want_leaf, f"{tag}: snapshots[{vp}] = {got.get(vp)}, want {want_leaf}")
                body = open(os.path.join(d, want_leaf), "rb").read()
                lines = text if isinstance(text, list) else None
                if lines is not None:
                    nl = b"\r\n" if spec.get("crlf_sources") else b"\n"
                    check(body == nl.join(l.encode() for l in lines) + nl, f"{tag}: {want_leaf} content")
            for vp, leaf in extra.items():
                check(got.get(vp) == leaf, f"{tag}: extra leaf {vp}")
        else:
            check(not os.path.exists(snap), f"{tag}: snapshots.json written although disabled")
check(checked >= 8, f"only {checked} dispatch dirs checked")
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
EOF

# Hand-computed answers for two_waves_one_simd: both waves on SE0/SIMD0, wave A
# waits 400 cycles at line 3 from 1044, wave B 200 cycles from 1144.
python3 - "$T/a/two_waves_one_simd/ui_output_agent_100_dispatch_1" <<'EOF' || fail=1
import json, sys
d = sys.argv[1]
code = json.load(open(d + "/code.json"))["code"]
assert code[3][6:10] == [2, 600, 600, 0], code[3]
assert code[1][9] == 64, code[1]  # 32 idle cycles before the first issue, per wave
w3 = json.load(open(d + "/wstates3.json"))
assert w3["time"] == [1044, 1144, 1344, 1444] and w3["state"] == [1, 2, 1, 0], w3
a = json.load(open(d + "/se0_sm0_sl0_wv0.json"))["wave"]
assert a["end"] == 1448 and a["timeline"] == [[1, 32], [2, 12], [3, 400], [2, 8]], a["timeline"]
EOF

# loop_wait: the wait at line 7 depends on the previous iteration's load (line 6),
# and only on the prologue load (line 4) in the first iteration.
python3 - "$T/a/loop_wait/ui_output_agent_200_dispatch_5" <<'EOF' || fail=1
import json, sys
d = sys.argv[1]
w0 = json.load(open(d + "/se1_sm2_sl0_wv0.json"))["wave"]
assert w0["waitcnt"] == [[2, [[1, 0]]], [7, [[4, 0]]], [7, [[6, 0]]], [7, [[6, 0]]], [7, [[6, 0]]], [13, [[6, 0]]]], w0["waitcnt"]
w1 = json.load(open(d + "/se1_sm2_sl0_wv1.json"))["wave"]
assert w1["waitcnt"] == [], "waitcnt: none must omit the edges"
cats = [i[1] for i in w0["instructions"] if i[4] == 12]
assert cats == [7, 7, 7, 8], cats  # taken 3 times, falls through on the last iteration
EOF

# contention_barrier: waves A, B share SE0/SIMD0 (VALU issues one at a time, A first
# on ties), C on SIMD1 starts 100 cycles later; A, B, C form workgroup 1, so their
# s_barrier (line 3) ends when C arrives at 216. D (no workgroup) runs freely.
python3 - "$T/a/contention_barrier/ui_output_agent_400_dispatch_1" <<'EOF' || fail=1
import json, sys
d = sys.argv[1]
ins = lambda f: json.load(open(d + "/" + f))["wave"]["instructions"]
assert ins("se0_sm0_sl0_wv0.json") == [[108, 6, 0, 4, 1], [112, 6, 4, 8, 2], [120, 9, 96, 96, 3], [216, 11, 0, 4, 4]]
assert ins("se0_sm0_sl1_wv0.json") == [[108, 6, 4, 8, 1], [116, 6, 4, 8, 2], [124, 9, 92, 92, 3], [216, 11, 0, 4, 4]]
assert ins("se0_sm1_sl0_wv0.json") == [[208, 6, 0, 4, 1], [212, 6, 0, 4, 2], [216, 9, 0, 4, 3], [220, 11, 0, 4, 4]]
assert ins("se0_sm2_sl0_wv0.json") == [[108, 6, 0, 4, 1], [112, 6, 0, 4, 2], [116, 9, 0, 4, 3], [120, 11, 0, 4, 4]]
code = json.load(open(d + "/code.json"))["code"]
assert code[3][6:9] == [4, 196, 188], code[3]  # barrier: Latency 96+92+4+4, Stall 96+92
EOF

# rocprof CSVs (synthetic_gemm, corpus layout): real headers, column counts, stats.
python3 - "$T/a/synthetic_gemm" <<'EOF' || fail=1
import csv, io, sys, statistics
d = sys.argv[1] + "/rocprof/"
KT = ('"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name",'
      '"Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count",'
      '"Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z",'
      '"Grid_Size_X","Grid_Size_Y","Grid_Size_Z"')
kt = open(d + "kernel_trace.csv").read()
assert kt.split("\n")[0] == KT, "kernel_trace.csv header"
rows = list(csv.DictReader(io.StringIO(kt)))
assert all(len(r) == 22 and None not in r for r in rows), "22 columns per row"
assert [int(r["Dispatch_Id"]) for r in rows] == [1, 2, 3, 4], "rows sorted by dispatch id"
g = [r for r in rows if r["Kernel_Name"] == "gemm_kernel_0"]
assert len(g) == 3 and g[1]["Dispatch_Id"] == "3" and g[0]["Agent_Id"] == "Agent 2"
assert (g[0]["VGPR_Count"], g[0]["Accum_VGPR_Count"], g[0]["SGPR_Count"], g[0]["LDS_Block_Size"]) == ("64", "0", "32", "16384")
ai = open(d + "agent_info.csv").read()
assert len(ai.split("\n")[0].split(",")) == 53 and ai.startswith('"Node_Id","Logical_Node_Id","Agent_Type"')
rows_ai = list(csv.DictReader(io.StringIO(ai)))
assert all(len(r) == 53 and None not in r for r in rows_ai), "53 columns per agent row"
assert [r["Agent_Type"] for r in rows_ai] == ["CPU", "CPU", "GPU"]
assert (rows_ai[2]["Name"], rows_ai[2]["Gfx_Target_Version"], rows_ai[2]["Cu_Count"]) == ("gfx950", "90500", "256")
st = list(csv.DictReader(open(d + "kernel_stats.csv")))
durs = [int(r["End_Timestamp"]) - int(r["Start_Timestamp"]) for r in g]
s0 = st[0]
assert s0["Name"] == "gemm_kernel_0" and int(s0["Calls"]) == 3 and int(s0["TotalDurationNs"]) == sum(durs)
assert s0["AverageNs"] == "%.6f" % (sum(durs) / 3) and s0["StdDev"] == "%.6f" % statistics.stdev(durs)
allns = sum(int(r["End_Timestamp"]) - int(r["Start_Timestamp"]) for r in rows)
assert s0["Percentage"] == "%.2f" % (100 * sum(durs) / allns), s0["Percentage"]
assert st[1]["StdDev"] == "0.00000000e+00", "single call: scientific zero"
EOF

# Edge knobs: hostile leaf and CRLF, missing s_endpgm, shells.
d="$T/a/missing_endpgm_no_snapshots/ui_output_agent_303_dispatch_2"
python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["wave"]; assert w["instructions"][-1][1] != 11' \
    "$d/se0_sm0_sl1_wv0.json" || { echo "FAIL: drop_endpgm kept s_endpgm"; fail=1; }
grep -q '"../../etc/passwd"' "$T/a/hostile_snapshot/ui_output_agent_302_dispatch_2/snapshots.json" ||
    { echo "FAIL: hostile leaf missing"; fail=1; }
[ ! -e "$T/a/hostile_snapshot/etc" ] && [ ! -e "$T/etc/passwd" ] || { echo "FAIL: hostile leaf wrote a file"; fail=1; }

# Generator errors: bad specs exit 1 with a message and write nothing.
bad() {
    printf '%s' "$2" >"$T/bad.json"
    rm -rf "$T/badout"
    if "$GEN" "$T/bad.json" "$T/badout" 2>"$T/bad.err"; then
        echo "FAIL: bad spec accepted ($1)"; fail=1
    elif ! grep -q "$3" "$T/bad.err"; then
        echo "FAIL: ($1) message: $(cat "$T/bad.err"), want /$3/"; fail=1
    fi
}
P='"program":[{"isa":"s_nop 0"},{"isa":"s_endpgm"}]'
bad stall-gt-dur '{"symbol":"k",'"$P"',"waves":[{"instructions":[[100,"IMMED",8,4,1]]}]}' "stall <= duration"
bad line-range '{"symbol":"k",'"$P"',"waves":[{"instructions":[[100,"IMMED",0,4,7]]}]}' "not a program row"
bad overlap '{"symbol":"k",'"$P"',"waves":[{"begin":0,"instructions":[[100,9,0,8,1],[104,11,0,4,2]]}]}' "overlaps"
bad category '{"symbol":"k",'"$P"',"waves":[{"instructions":[[100,"MFMA",0,4,1]]}]}' "unknown category"
bad no-symbol '{'"$P"',"waves":[{"path":[1,2]}]}' '"symbol"'
bad arch '{"symbol":"k","arch":"gfx90a",'"$P"',"path":[1,2],"waves":[{}]}' "gfx942 or gfx950"
bad path '{"symbol":"k",'"$P"',"waves":[{"path":[1,{"repeat":2}]}]}' "repeat"
bad truncated-spec '{"symbol":"k",' "invalid JSON"
bad shell-over-dispatch '{"symbol":"k","dispatch":4,"extra_empty_shells":[4],"program":[{"isa":"s_endpgm"}],"path":[1],"waves":[{}]}' "other than"
bad barrier-deadlock '{"symbol":"k","program":[{"isa":"s_barrier"},{"isa":"s_endpgm"}],"waves":[{"slot":0,"wg":1,"path":[1,2]},{"slot":1,"wg":1,"path":[2]}]}' "never get there"
"$GEN" 2>/dev/null; [ $? -eq 2 ] || { echo "FAIL: usage must exit 2"; fail=1; }

[ $fail -eq 0 ] && echo "ok: generator output consistent"
exit $fail
