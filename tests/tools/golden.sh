#!/usr/bin/env bash
# golden.sh - proof that a change moved no output byte: build a reference flyprof
# from a commit and the flyprof of a work tree, run the same workload with each
# (every command on every corpus case, generator fixture, the shipped example, the
# fake-rocprofv3 pipeline, and the fuzz seeds + deterministic mutations of them),
# and compare every stdout, exit status and written file byte for byte.
#
#   tests/tools/golden.sh [--ref COMMIT] [--tree DIR] [--only corpus|gen|example|live|fuzz,...]
#                         [--keep] [--jobs N]
#
#   --ref COMMIT   reference commit (default: the merge base of HEAD and main, else HEAD~)
#   --tree DIR     work tree whose current files are compared (default: this checkout)
#   --only LIST    run only these parts of the workload (default: all)
#   --keep         keep the output trees (printed at the end)
#   --allow FILE   announced differences (default: tests/tools/golden-allowed.txt of the tree):
#                  lines "GLOB<TAB>why"; a differing output whose path (relative to the output
#                  tree, e.g. res/0702-fz-capture_json-*.out) matches a GLOB is listed as
#                  announced instead of failing the comparison
#
# Both runs happen at the same absolute paths (one work dir, renamed after each run),
# with the binaries copied to the same place, so paths inside outputs compare equal.
# What is legitimately different from run to run (wall-clock times, pids, elapsed
# milliseconds) is normalised by the patterns in normalise() below; the reference is
# first run twice against itself so that a pattern missing there shows up as
# "reference not deterministic" rather than as a change.
#
# Exit 0 when everything is identical, 1 when something differs (a summary of
# which outputs, then the first lines of each diff), 2 on a build or usage error.
# Builds are cached under ${FP_GOLDEN_CACHE:-/tmp/fp-golden} (the reference by commit).
set -uo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
tree=$here
ref=""
only="corpus,gen,example,live,fuzz"
keep=0
jobs=2
allow=""
while [ $# -gt 0 ]; do
    case "$1" in
    --ref) ref=$2; shift 2 ;;
    --tree) tree=$(cd "$2" && pwd) || exit 2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --allow) allow=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "golden: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ -z "$ref" ]; then
    ref=$(git -C "$tree" merge-base HEAD main 2>/dev/null || true)
    [ "$ref" = "$(git -C "$tree" rev-parse HEAD)" ] && ref=$(git -C "$tree" rev-parse HEAD~)
fi
ref=$(git -C "$tree" rev-parse --verify "$ref^{commit}") || { echo "golden: no commit $ref" >&2; exit 2; }
corpus=$(cd "$tree/.." && pwd)/shared/corpus
[ -f "$corpus/cases.tsv" ] || corpus=$(cd "$here/.." && pwd)/shared/corpus

cache=${FP_GOLDEN_CACHE:-/tmp/fp-golden}
mkdir -p "$cache"
TARGETS="flyprof fp_gen_att rocprofv3 fp_make_rocpd"

build() { # SRC BUILD: configure + build the binaries the workload needs
    cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$2.log" 2>&1 &&
        cmake --build "$2" -j "$jobs" --target $TARGETS >>"$2.log" 2>&1 ||
        { echo "golden: build of $1 failed (log: $2.log)" >&2; tail -20 "$2.log" >&2; exit 2; }
}

# the reference: sources of the commit (git archive), built once per commit
# (under a lock: several trees may be compared against one reference at once)
rsrc=$cache/src-$ref
exec 9>"$cache/ref-$ref.lock"
flock 9
if [ ! -f "$cache/build-$ref/flyprof" ]; then
    rm -rf "$rsrc" && mkdir -p "$rsrc" && git -C "$tree" archive "$ref" | tar -x -C "$rsrc" || exit 2
    mkdir -p "$cache/build-$ref"
    build "$rsrc" "$cache/build-$ref"
fi
flock -u 9
# the tree: built out of source, in a build dir of its own per tree path
tkey=$(printf '%s' "$tree" | sha256sum | cut -c1-12)
mkdir -p "$cache/tree-$tkey"
build "$tree" "$cache/tree-$tkey"

bin_of() { # BUILD DIR -> copies its binaries into W/bin, where every run uses them
    mkdir -p "$W/bin"
    cp "$1/flyprof" "$W/bin/flyprof"
    for t in fp_gen_att rocprofv3 fp_make_rocpd; do cp "$1/tests/$t" "$W/bin/$t"; done
    # a build finds the registry in its own source tree, whose path differs between the two
    # builds: both read the tree's copy at one path instead
    mkdir -p "$W/share" && cp "$SRC/share/recipes.yaml" "$W/share/recipes.yaml"
    export FLYPROF_RECIPES=$W/share/recipes.yaml
}

# one work dir per compared tree, so that comparisons of several trees can run at once
W=$cache/w-$tkey
SRC=$tree            # fixtures (specs, seeds) are read from the tree: both sides get the same inputs

# ---------------------------------------------------------------- the workload
n=0
# r NAME ARGS...: run flyprof ARGS with cwd W/o, record stdout, exit status.
r() {
    local name=$1; shift
    n=$((n + 1))
    local id; id=$(printf '%04d-%s' "$n" "$name")
    (cd "$W/o" && "$W/bin/flyprof" "$@" >"$W/res/$id.out" 2>"$W/res/$id.err" </dev/null)
    echo $? >"$W/res/$id.rc"
}
part() { case ",$only," in *",$1,"*) return 0 ;; esac; return 1; }

corpus_part() {
    [ -f "$corpus/cases.tsv" ] || { echo "golden: no corpus at $corpus: corpus part skipped" >&2; return; }
    local prev=""
    while IFS=$'\t' read -r id _s _k _v dispatch _rest; do
        [ "$id" = id ] && continue
        local D=$corpus/$id/att/$dispatch O=$W/o/c/$id
        mkdir -p "$O"
        r "$id-hot-json" hotspots "$D" -f json -q
        r "$id-hot-table" hotspots "$D" -f table -q
        r "$id-hot-both" hotspots "$D" --mode both --topk 15 --detail --context 4 -f table -q
        r "$id-hot-both-json" hotspots "$D" --mode both --topk 15 --detail --context 4 -f json -q
        r "$id-hot-src" hotspots "$D" --mode src --topk 5 --detail --context 4 -f table -q
        r "$id-hot-asm" hotspots "$D" --mode asm --topk 30 -f table -q
        r "$id-hot-csv" hotspots "$D" --kernel-trace "$corpus/$id/rocprof/kernel_trace.csv" -f json -q
        r "$id-bub" bubbles --bundle "$D" --out "$O/bubbles.json" -f json -q
        r "$id-bub-table" bubbles --bundle "$D" --out "$O/bubbles2.json" -f table -q
        r "$id-bub-stall" bubbles --bundle "$D" --out "$O/bubbles3.json" --rank stall --limit 0 -f json -q --jobs 1
        r "$id-bub-lat" bubbles --bundle "$D" --out "$O/bubbles4.json" --rank latency --limit 3 -f table -q
        r "$id-map" map --bundle "$D" --out-dir "$O/map" -f json -q
        r "$id-map-table" map --bundle "$D" --out-dir "$O/map2" -f table -q --weight latency --limit 5
        r "$id-map-line" map --bundle "$D" --out-dir "$O/map3" --code-line 20 -f json -q
        r "$id-rep" report --bundle "$D" --out-dir "$O/rep" -f json -q
        r "$id-rep-table" report --bundle "$D" --out-dir "$O/rep2" -f table -q --no-html --jobs 1
        r "$id-kern" kernels --csv "$corpus/$id/rocprof/kernel_trace.csv" -f json -q
        r "$id-kern-stats" kernels --csv "$corpus/$id/rocprof/kernel_stats.csv" -f table -q --top 3
        r "$id-diff-self" diff --before "$O/rep/report.json" --after "$O/rep/report.json" --out "$O/diff-self.json" -f json -q
        if [ -n "$prev" ]; then
            r "$id-diff-prev" diff --before "$prev" --after "$O/rep/report.json" --out "$O/diff-prev.json" -f json -q
            r "$id-diff-prev-table" diff --before "$prev" --after "$O/rep/report.json" --no-write -f table -q
        fi
        prev=$O/rep/report.json
        # a writable bundle: history add + check on it
        mkdir -p "$O/b" && cp -r "$O/rep/." "$O/b/" && cp "$O/bubbles.json" "$O/b/"
        printf '{"schema":1,"kernel":"%s","arch":"gfx950","shape":"1,2,bf16","captured_at":"2026-11-0%dT10:00:00Z","worktree":{"commit":"%040d","dirty":false,"branch":"main"}}\n' \
            "$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["kernel"])' "$O/rep/report.json" 2>/dev/null)" \
            $((n % 9 + 1)) "$n" >"$O/b/capture.json"
        r "$id-hist-add" history add --bundle "$O/b" --db "$W/o/corpus.db" -f json -q
        r "$id-check" check --bundle "$O/b" --db "$W/o/corpus.db" -f json -q
        # a second capture of the same kernel and shape: checked against the first, then added
        mkdir -p "$O/b2" && cp -r "$O/b/." "$O/b2/"
        sed -i -e 's/"captured_at":"2026-11-0/"captured_at":"2026-11-1/' -e 's/"commit":"0/"commit":"a/' "$O/b2/capture.json"
        r "$id-check2" check --bundle "$O/b2" --db "$W/o/corpus.db" -f json -q
        r "$id-check2-table" check --bundle "$O/b2" --db "$W/o/corpus.db" --fail-on any-change -f table -q
        r "$id-hist-add2" history add --bundle "$O/b2" --db "$W/o/corpus.db" -f json -q
        r "$id-hist-trend" history trend --db "$W/o/corpus.db" --kernel "$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["kernel"])' "$O/rep/report.json")" \
            --shape 1,2,bf16 --out "$O/trend" -f json -q
    done <"$corpus/cases.tsv"
    # the two before/after pairs of the corpus
    r pair-fa diff --before "$W/o/c/flash_attn_func-small/rep/report.json" \
        --after "$W/o/c/flash_attn_func-small-after_loc_fix/rep/report.json" --no-write -f json -q
    r hist-list history list --db "$W/o/corpus.db" -f json -q
    r hist-list-table history list --db "$W/o/corpus.db" -f table -q
    r hist-show history show latest --db "$W/o/corpus.db" -f json -q
    r hist-show1 history show 1 --db "$W/o/corpus.db" -f table -q
    r hist-export history export --db "$W/o/corpus.db" --out "$W/o/corpus.jsonl" -f json -q
    r hist-import history import "$W/o/corpus.jsonl" --db "$W/o/corpus2.db" -f json -q
    r hist-trend history trend --db "$W/o/corpus.db" --out "$W/o/trend" -f json -q
}

gen_part() {
    local spec
    for spec in "$SRC"/tests/data/gen/*.json; do
        local g; g=$(basename "$spec" .json)
        local B=$W/o/g/$g
        mkdir -p "$B"
        "$W/bin/fp_gen_att" "$spec" "$B" >/dev/null 2>&1 || { echo "gen-failed" >"$W/res/gen-$g.rc"; continue; }
        local D; D=$(ls -d "$B"/att/*/ui_output_* "$B"/ui_output_* 2>/dev/null | head -1)
        r "g-$g-bub" bubbles --bundle "$B" -f json -q
        r "g-$g-bub-table" bubbles --bundle "$B" --out "$B/b2.json" -f table -q --rank stall
        r "g-$g-map" map --bundle "$B" -f json -q
        r "g-$g-rep" report --bundle "$B" -f json -q
        r "g-$g-rep-table" report --bundle "$B" --out-dir "$B/t" -f table -q
        r "g-$g-tile" tile --bundle "$B" -f json -q
        r "g-$g-tile-gpu" tile --bundle "$B" --gpu-name MI350X --shape 4096,4096,4096 -f json -q
        r "g-$g-diff" diff --before "$B" --after "$B" --no-write -f json -q
        [ -n "$D" ] && r "g-$g-hot" hotspots "$D" --detail -f table -q
        [ -n "$D" ] && r "g-$g-hot-json" hotspots "$D" -f json -q
        [ -f "$B/rocprof/kernel_trace.csv" ] && r "g-$g-kern" kernels --bundle "$B" -f json -q
    done
    r g-diff-fixed diff --before "$W/o/g/rep_stream" --after "$W/o/g/rep_stream_fixed" -f json -q
    r g-diff-fixed-table diff --before "$W/o/g/rep_stream" --after "$W/o/g/rep_stream_fixed" --no-write -f table -q
}

example_part() {
    local E=$W/o/ex
    cp -r "$SRC/examples/synthetic_gemm" "$E"
    r ex-rep report --bundle "$E" -f json -q
    r ex-rep-table report --bundle "$E" --out-dir "$E/t" -f table -q
    r ex-tile tile --bundle "$E" -f json -q
    r ex-tile-shape tile --shape 4096,4096,4096 --dtype bf16 --gpu-name MI300X -f json -q
    r ex-tile-shape-table tile --shape 8192x8192x1024,fp8 --gpu-name MI350X -f table -q
    r ex-tile-eval tile --shape 4096,4096,4096 --bm 128 --bn 128 --bk 64 --buffers 2 --gpu-name MI355X -f json -q
    r ex-bundle bundle --bundle "$E" --examples-dir "$W/o/pub" -f json -q
    r ex-bundle-again bundle --bundle "$E" --examples-dir "$W/o/pub" --no-clobber -f json -q
    r rules rules -f json -q
    r rules-table rules -f table -q
    r rules-md rules --markdown -f json -q
    r version --version
    r help help -f json
    r help-exit help exit-codes -f json
    local c
    for c in run doctor list kernels tile capture counters hotspots bubbles map report diff history check bundle rules mcp; do
        r "help-$c" help "$c" -f json
        r "help-$c-table" "$c" -h -f table
    done
    # counters offline, from real-format counter_collection.csv passes (the seed's worked example)
    local HDR='"Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id","Grid_Size","Kernel_Id","Kernel_Name","Workgroup_Size","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Counter_Name","Counter_Value","Start_Timestamp","End_Timestamp"'
    local K='"void pa_decode<16, 131072>(bf16 const*, float*, int)"'
    mkdir -p "$W/o/pmc/l2" "$W/o/pmc/ea"
    cat >"$W/o/pmc/l2/pmc_counter_collection.csv" <<EOF
$HDR
1,7,"Agent 2",1,100,100,262144,3,$K,256,16384,0,128,0,48,"TCC_HIT_sum",787312.000000,1000,1001000
1,7,"Agent 2",1,100,100,262144,3,$K,256,16384,0,128,0,48,"TCC_MISS_sum",45525188.000000,1000,1001000
2,8,"Agent 2",1,100,100,262144,4,"rmsnorm_kernel_0",256,0,0,32,0,16,"TCC_HIT_sum",5.000000,2000,3000
3,9,"Agent 2",1,100,100,262144,3,$K,256,16384,0,128,0,48,"TCC_HIT_sum",787312.000000,4000,1004000
3,9,"Agent 2",1,100,100,262144,3,$K,256,16384,0,128,0,48,"TCC_MISS_sum",45525188.000000,4000,1004000
EOF
    cat >"$W/o/pmc/ea/pmc_counter_collection.csv" <<EOF
$HDR
1,17,"Agent 2",1,101,101,262144,3,$K,256,16384,0,128,0,48,"TCC_EA0_RDREQ_sum",46312500.000000,5000,1005000
1,17,"Agent 2",1,101,101,262144,3,$K,256,16384,0,128,0,48,"TCC_EA0_RDREQ_32B_sum",0.000000,5000,1005000
1,17,"Agent 2",1,101,101,262144,3,$K,256,16384,0,128,0,48,"TCC_BUBBLE_sum",0.000000,5000,1005000
3,19,"Agent 2",1,101,101,262144,3,$K,256,16384,0,128,0,48,"TCC_EA0_RDREQ_sum",46312500.000000,7000,1007000
3,19,"Agent 2",1,101,101,262144,3,$K,256,16384,0,128,0,48,"TCC_EA0_RDREQ_32B_sum",0.000000,7000,1007000
3,19,"Agent 2",1,101,101,262144,3,$K,256,16384,0,128,0,48,"TCC_BUBBLE_sum",0.000000,7000,1007000
EOF
    r pmc-csv counters --csv "$W/o/pmc/l2/pmc_counter_collection.csv" "$W/o/pmc/ea/pmc_counter_collection.csv" \
        --kernel pa_decode --ideal-gb 2.85 --gpu-name MI300X --duration-ns 1000000 -f json -q
    r pmc-csv-table counters --csv "$W/o/pmc/l2/pmc_counter_collection.csv" "$W/o/pmc/ea/pmc_counter_collection.csv" \
        --kernel pa_decode --gpu-name MI300X -f table -q
    r pmc-csv-two counters --csv "$W/o/pmc/l2/pmc_counter_collection.csv" -f json -q
    r pmc-bundle counters --csv "$W/o/pmc/l2/pmc_counter_collection.csv" "$W/o/pmc/ea/pmc_counter_collection.csv" \
        --kernel pa_decode --bundle "$E" -f json -q
    r ex-rep-pmc report --bundle "$E" --out-dir "$E/pmcrep" -f json -q
    "$W/bin/fp_make_rocpd" "$W/o/pmc/seed.db" --product "AMD Instinct MI300X" \
        --guid run-l2 'pa_decode_kernel@7:1000:1001000:TCC_HIT_sum=787312,TCC_MISS_sum=45525188' \
        'pa_decode_kernel@9:4000:1004000:TCC_HIT_sum=787312,TCC_MISS_sum=45525188' \
        --guid run-ea 'pa_decode_kernel@17:5000:1005000:TCC_EA0_RDREQ_sum=46312500,TCC_EA0_RDREQ_32B_sum=0,TCC_BUBBLE_sum=0' \
        'pa_decode_kernel@19:7000:1007000:TCC_EA0_RDREQ_sum=46312500,TCC_EA0_RDREQ_32B_sum=0,TCC_BUBBLE_sum=0' >/dev/null 2>&1
    r pmc-rocpd counters --db "$W/o/pmc/seed.db" --ideal-gb 2.85 -f json -q
    r kern-rocpd kernels --db "$W/o/pmc/seed.db" -f json -q
}

# the capture half through the project's fake rocprofv3 (tests/cli/lib/capture_env.sh's set-up,
# with fixed names so both runs see the same paths)
live_part() {
    local L=$W/o/live
    mkdir -p "$L/wt/tests/kernels" "$L/wt/build-fly/python_packages/flydsl" "$L/bin" "$L/dec" "$L/home"
    printf 'import os\nprint("softmax shapes", os.environ.get("ROCDSL_SOFTMAX_SHAPES"))\n' >"$L/wt/tests/kernels/test_softmax.py"
    echo 'print("layernorm")' >"$L/wt/tests/kernels/test_layernorm.py"
    (cd "$L/wt" && git init -q && git add tests &&
        GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z \
            git -c user.email=t@t -c user.name=t commit -qm init) >/dev/null 2>&1
    : >"$L/dec/librocprof-trace-decoder.so"
    printf '#!/bin/sh\nprintf "Agent 2\\n  Name: gfx950\\n  Marketing Name: AMD Instinct MI350X\\n  Device Type: GPU\\n  Compute Unit: 256\\n"\n' >"$L/bin/rocminfo"
    chmod +x "$L/bin/rocminfo"
    local py=python3
    [ -x /usr/bin/python3 ] && py=/usr/bin/python3
    (
        unset FAKE_ROCPROF_MODE FAKE_ROCPROF_HANG FAKE_ROCPROF_EXIT FAKE_ROCPROF_VERSION FAKE_ROCPROF_ATT_NEED_BUFFER \
            FLYPROF_CONFIG FLYPROF_GPU FLYPROF_ARCH FLYPROF_HISTORY XDG_DATA_HOME
        export FLYPROF_WORKTREE=$L/wt FLYPROF_ROCPROFV3=$W/bin/rocprofv3 FLYPROF_PYTHON=$py HOME=$L/home
        export FAKE_ROCPROF_LOG=$L/fake.log PATH="$L/bin:$PATH" ROCPROF_ATT_LIBRARY_PATH=$L/dec
        export FAKE_ROCPROF_GEN_SPEC=$SRC/tests/data/gen/synthetic_gemm.json
        export FAKE_ROCPROF_KERNELS="softmax_kernel_0:12:30000:96"
        r live-doctor doctor -f json -q
        r live-doctor-table doctor -f table -q
        r live-list list -f json -q
        r live-list-table list -f table -q --category reduction
        r live-run run softmax --bundle "$L/run1" --shape 4096,8192,bf16 --examples-dir "$L/ex" -f json -q
        r live-run2 run softmax --bundle "$L/run2" --shape 4096,4096,4096,bf16 --skip-bundle --no-pmc --jobs 1 -f json -q
        r live-run-hist run softmax --bundle "$L/run3" --shape 4096,8192,bf16 --skip-bundle --no-pmc --history --history-db "$L/h.db" -f json -q
        r live-capture capture softmax --bundle "$L/cap" --shape 4096,8192,bf16 --tag both -f json -q
        r live-capture-pmc capture softmax --bundle "$L/cap2" --shape 4096,8192,bf16 --pmc -f json -q
        r live-counters counters --bundle "$L/cap" -f json -q -- "$py" "$L/wt/tests/kernels/test_softmax.py"
        r live-bub bubbles --bundle "$L/cap" -f json -q
        r live-rep report --bundle "$L/cap" -f json -q
        r live-tile tile --bundle "$L/cap" -f json -q
        r live-bundle bundle --bundle "$L/cap" --examples-dir "$L/ex2" -f json -q
        r live-check check --bundle "$L/run3" --db "$L/h.db" -f json -q
        FAKE_ROCPROF_EXIT=3 r live-fail capture softmax --bundle "$L/capf" --shape 4096,8192,bf16 -f json -q
        ROCPROF_ATT_LIBRARY_PATH=$L/none LD_LIBRARY_PATH= r live-nodec run softmax --bundle "$L/run4" -f json -q
        export FAKE_ROCPROF_KERNELS="at::native::vectorized_elementwise_kernel<4>(int):40:900000,softmax_kernel_0:12:30000:96"
        r live-capture-multi capture softmax --bundle "$L/cap3" --shape 4096,8192,bf16 -f json -q
    )
}

# the committed fuzz seeds and regressions, and fixed-seed mutations of each, read by the
# commands that consume them (as tests/fuzz does): artifacts through report / diff, inputs
# through the command that parses them.
fuzz_part() {
    local F=$W/o/fz
    mkdir -p "$F"
    cp -r "$SRC/examples/synthetic_gemm" "$F/good"
    r fz-good-rep report --bundle "$F/good" --out-dir "$F/goodrep" --no-html -f json -q
    python3 - "$SRC/tests/fuzz" "$F/in" <<'PY'
import os, random, sys
src, out = sys.argv[1:3]
rng = random.Random(16)
for kind in ("seeds", "regressions"):
    base = os.path.join(src, kind)
    if not os.path.isdir(base):
        continue
    for target in sorted(os.listdir(base)):
        for name in sorted(os.listdir(os.path.join(base, target))):
            data = open(os.path.join(base, target, name), "rb").read()
            d = os.path.join(out, target)
            os.makedirs(d, exist_ok=True)
            variants = [data]
            for k in range(12):
                b = bytearray(data)
                op = k % 4
                if op == 0 and b:
                    b = b[: rng.randrange(len(b))]                       # truncated
                elif op == 1 and b:
                    for _ in range(3):
                        b[rng.randrange(len(b))] = rng.randrange(256)    # flipped bytes
                elif op == 2:
                    s = b.decode("latin-1")
                    for a, z in (("true", "1"), ("\": 0", "\": \"0\""), ("\":", "x\":"), ("1", "1e308"), ("[", "{")):
                        s = s.replace(a, z, 1) if rng.random() < 0.5 else s
                    b = bytearray(s.encode("latin-1"))
                elif b:
                    i = rng.randrange(len(b)); b = b[:i] + b[i:i + 200] * 3 + b[i:]   # repeated span
                variants.append(bytes(b))
            for i, v in enumerate(variants):
                open(os.path.join(d, f"{kind[0]}-{name[:40]}-{i:02d}"), "wb").write(v)
PY
    local t f k
    for t in "$F"/in/*; do
        local target; target=$(basename "$t")
        for f in "$t"/*; do
            k=$(basename "$f")
            case "$target" in
            bubbles_json|map_json|capture_json|counters_json|tile_json)
                local art=${target%_json}.json B=$F/b-$target
                rm -rf "$B" && cp -r "$F/good" "$B" && cp "$f" "$B/$art"
                r "fz-$target-$k" report --bundle "$B" --out-dir "$B/rep" --no-html -f json -q
                [ "$target" = capture_json ] && r "fz-$target-$k-bub" bubbles --bundle "$B" --out "$B/b.json" -f json -q
                [ "$target" = capture_json ] && r "fz-$target-$k-tile" tile --bundle "$B" -f json -q
                ;;
            report_json)
                r "fz-$target-$k-a" diff --before "$f" --after "$F/goodrep/report.json" --no-write -f json -q
                r "fz-$target-$k-b" diff --before "$F/goodrep/report.json" --after "$f" --no-write -f json -q
                ;;
            code_json|filenames_json|snapshots_json|wave|wave_side)
                local B=$F/d-$target
                rm -rf "$B" && cp -r "$F/good" "$B"
                local D; D=$(ls -d "$B"/att/ui_output_*)
                case "$target" in
                code_json) cp "$f" "$D/code.json" ;;
                filenames_json) cp "$f" "$D/filenames.json" ;;
                snapshots_json) cp "$f" "$D/snapshots.json" ;;
                *) cp "$f" "$D/se0_sm0_sl0_wv0.json" ;;
                esac
                r "fz-$target-$k-hot" hotspots "$D" -f json -q
                r "fz-$target-$k-bub" bubbles --bundle "$B" --out "$B/b.json" -f json -q --jobs 1
                ;;
            counters_csv)
                r "fz-$target-$k" counters --csv "$f" -f json -q ;;
            kernel_trace_csv)
                r "fz-$target-$k" kernels --csv "$f" -f json -q
                r "fz-$target-$k-hot" hotspots "$F/good/att/ui_output_agent_4242_dispatch_3" --kernel-trace "$f" -f json -q ;;
            rocpd)
                r "fz-$target-$k" counters --db "$f" -f json -q
                r "fz-$target-$k-k" kernels --db "$f" -f json -q ;;
            recipes_yaml)
                r "fz-$target-$k" list --recipes "$f" -f json -q ;;
            config_yaml)
                FLYPROF_CONFIG=$f r "fz-$target-$k" list -f json -q ;;
            esac
        done
    done
}

run_all() { # BUILD OUTNAME
    rm -rf "$W" && mkdir -p "$W/o" "$W/res"
    bin_of "$1"
    n=0
    part corpus && corpus_part
    part gen && gen_part
    part example && example_part
    part live && live_part
    part fuzz && fuzz_part
    rm -rf "$cache/$2-$tkey" && mv "$W" "$cache/$2-$tkey"
}

# What differs between two runs of one binary: clocks, pids, elapsed times.
normalise() { # DIR: rewrite volatile values in place
    # what the fake rocprofv3 itself wrote (its pids, clocks, logs) is its input to flyprof, not
    # flyprof's output; flyprof's own artifacts next to it are compared
    find "$1/o/live" \( -name '*stderr.log' -o -name '*stderr.txt' -o -name 'pmc_*results.db*' -o -name '*kernel_trace.csv' \
        -o -name 'fake.log' \) -delete 2>/dev/null
    rm -rf "$1/o/live/wt/.git"
    local ts='20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z?'
    find "$1" -type f \( -name '*.json' -o -name '*.out' -o -name '*.md' -o -name '*.html' -o -name '*.jsonl' \
        -o -name '*.csv' -o -name '*.txt' -o -name '*.log' -o -name '*.svg' \) -print0 |
        xargs -0 -r sed -i -E \
            -e "s/\"(captured_at|started_at|finished_at|created_at|added_at|generated_at|date|time|now)\":([[:space:]]*)\"$ts\"/\"\\1\":\\2\"T\"/g" \
            -e 's/"([a-z_]*_s|[a-z_]*_ms|seconds|ms)":([[:space:]]*)[0-9.]+/"\1":\20/g' \
            -e 's/(ui_output_agent_)[0-9]+(_dispatch)/\1PID\2/g' \
            -e 's/"pid":([[:space:]]*)[0-9]+/"pid":\10/g' \
            -e 's/\.tmp\.[0-9]+/.tmp.PID/g'
    # rocprofv3's output names carry the pid of the process that wrote them (-o out_%pid%,
    # discover_%pid%, issue 18; pmc_%pid% since round 3): the name and every mention of it
    find "$1/o/live" -depth -name '*_[0-9]*' 2>/dev/null | while IFS= read -r p; do
        local b; b=$(basename "$p" | sed -E 's/^(out|discover|pmc)_[0-9]+_/\1_PID_/')
        [ "$b" = "$(basename "$p")" ] || mv "$p" "$(dirname "$p")/$b"
    done
    find "$1/o" "$1/res" -type f -path '*live*' -print0 |
        xargs -0 -r sed -i -E 's/(out|discover|pmc)_[0-9]+_/\1_PID_/g'
    # the live captures carry a clock time, so the content hashes that cover it vary too
    find "$1/o" "$1/res" -type f -path '*live*' -print0 |
        xargs -0 -r sed -i -E 's/"(hash|content_hash)":([[:space:]]*)"[0-9a-f]{64}"/"\1":\2"H"/g'
    # a SQLite file is compared by its dump (page layout is not output); its times and the
    # content hashes that cover them are normalised like the JSON above
    find "$1" -type f -name '*.db' -print0 | while IFS= read -r -d '' db; do
        python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print("\n".join(c.iterdump()))' "$db" 2>/dev/null |
            sed -E -e "s/'$ts'/'T'/g" -e 's/[0-9a-f]{64}/H/g' >"$db.dump" || echo "unreadable" >"$db.dump"
        rm -f "$db" "$db-wal" "$db-shm"
    done
    # stderr is not output under the contract (progress, heartbeats): not compared
    find "$1/res" -name '*.err' -delete
    rm -rf "$1/bin" "$1/share" # the inputs both runs were given, not outputs
}

# The differing paths of diff -r -q, relative to tree A.
diff_paths() { # A B
    diff -r -q "$1" "$2" 2>&1 | sed -E -e "s|^Files $1/([^ ]+) and .*|\1|" -e "s|^Only in $1/?([^:]*): (.*)|\1/\2 (only before)|" \
        -e "s|^Only in $2/?([^:]*): (.*)|\1/\2 (only after)|"
}

compare() { # A B LABEL [ALLOWED]
    local out; out=$(diff -r -q "$1" "$2" 2>&1)
    if [ -z "$out" ]; then
        echo "golden: $3: identical ($(find "$1" -type f | wc -l) files, $(ls "$1/res" | grep -c '\.rc$') commands)"
        return 0
    fi
    if [ -n "${4:-}" ] && [ -f "$4" ]; then
        # split the differences into announced (a GLOB of the allow file matches) and not
        local p g why announced="" unexpected=""
        while IFS= read -r p; do
            local hit=""
            while IFS=$'\t' read -r g why; do
                case "$g" in ''|'#'*) continue ;; esac
                # shellcheck disable=SC2254
                case "${p%% (*}" in $g) hit=$g; break ;; esac
            done <"$4"
            if [ -n "$hit" ]; then announced="$announced$p	$hit"$'\n'; else unexpected="$unexpected$p"$'\n'; fi
        done < <(diff_paths "$1" "$2")
        if [ -z "$unexpected" ]; then
            echo "golden: $3: identical except $(printf '%s' "$announced" | grep -c .) announced differences" \
                "($(find "$1" -type f | wc -l) files, $(ls "$1/res" | grep -c '\.rc$') commands); by pattern:"
            printf '%s' "$announced" | cut -f2 | sort | uniq -c | sed 's/^/golden:   /'
            return 0
        fi
        echo "golden: $3: DIFFERENT: $(printf '%s' "$unexpected" | grep -c .) unannounced differences" \
            "(+ $(printf '%s' "$announced" | grep -c .) announced)"
        printf '%s' "$unexpected" | head -40
        printf '%s' "$unexpected" | head -8 | while read -r f _; do
            echo "--- $f"
            diff "$1/$f" "$2/$f" 2>/dev/null | head -12
        done
        return 1
    fi
    echo "golden: $3: DIFFERENT ($(printf '%s\n' "$out" | wc -l) paths)"
    printf '%s\n' "$out" | head -40
    printf '%s\n' "$out" | grep '^Files ' | head -8 | while read -r _ a _ b _; do
        echo "--- $a"
        diff "$a" "$b" | head -12
    done
    return 1
}

echo "golden: reference $ref, tree $tree" >&2
A=$cache/ref-out-$tkey A2=$cache/ref-out2-$tkey B=$cache/tree-out-$tkey
run_all "$cache/build-$ref" ref-out
normalise "$A"
run_all "$cache/build-$ref" ref-out2
normalise "$A2"
compare "$A" "$A2" "reference against itself" ||
    { echo "golden: the reference is not deterministic: extend normalise()" >&2; exit 2; }
rm -rf "$A2"
run_all "$cache/tree-$tkey" tree-out
normalise "$B"
[ -n "$allow" ] || allow=$tree/tests/tools/golden-allowed.txt
compare "$A" "$B" "tree against $ref" "$allow"; rc=$?
if [ $keep = 1 ]; then echo "golden: outputs in $A and $B"; else rm -rf "$A" "$B"; fi
exit $rc
