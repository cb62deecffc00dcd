#!/usr/bin/env bash
# run.sh - build the libFuzzer targets (clang, FLYPROF_FUZZ=ON) and run each for a
# bounded time; CI runs this from `scripts/setup.sh test`. Fails on any crash,
# leak, hang (> 2 s on one input), sanitizer report or out-of-memory.
#
#   tests/fuzz/run.sh [TARGET...]        all targets when none given
#
# Environment:
#   FUZZ_SECONDS   per-target time (default 12)
#   FUZZ_BUILD     build dir (default build-fuzz)
#   FUZZ_WORK      work dir: corpora and crash artifacts (default: a temp dir, kept on failure)
#   FUZZ_JOBS      build parallelism (default 2)
#
# Seed corpora are assembled at run time from tests/fuzz/seeds (committed, small),
# the project's generator (tests/tools/fp_gen_att over tests/data/gen/*.json),
# fp_make_rocpd, the pipeline's artifacts on the shipped example, and
# ../shared/corpus when present. A crash is saved as <work>/crash/<target>/crash-*:
# copy it to tests/fuzz/regressions/<target>/ once fixed (replayed by ctest).
set -uo pipefail
cd "$(dirname "$0")/../.."
SRC=$PWD
SECS=${FUZZ_SECONDS:-12}
B=${FUZZ_BUILD:-build-fuzz}
JOBS=${FUZZ_JOBS:-2}
ALL="code_json wave wave_chunked wave_side filenames_json snapshots_json counters_csv kernel_trace_csv rocpd recipes_yaml config_yaml
     input_yaml bubbles_json map_json report_json capture_json counters_json tile_json model sweep_spec codeobj
     realtime_json markup kernel_filter history_import order"
TARGETS=${*:-$ALL}
# largest input per target: seeds above it are cut, mutations stay fast
declare -A MAXLEN=([code_json]=65536 [wave]=65536 [wave_chunked]=65536 [rocpd]=131072 [bubbles_json]=65536 [map_json]=65536
                   [report_json]=65536 [recipes_yaml]=16384 [model]=65536)

CC_FUZZ=${CC_FUZZ:-$(command -v clang || true)}
[ -n "$CC_FUZZ" ] || { echo "fuzz: clang not found (apt-get install clang libclang-rt-dev)" >&2; exit 1; }

t0=$(date +%s)
CC="$CC_FUZZ" cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLYPROF_FUZZ=ON -DFLYPROF_WERROR=OFF > /dev/null || exit 1
cmake --build "$B" -j "$JOBS" --target fuzz flyprof fp_gen_att fp_make_rocpd > "$B/fuzz-build.log" 2>&1 ||
    { tail -40 "$B/fuzz-build.log" >&2; echo "fuzz: build failed" >&2; exit 1; }
t1=$(date +%s)

W=${FUZZ_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/flyprof-fuzz-run.XXXXXX")}
mkdir -p "$W"
# the targets' scratch dirs: on tmpfs (artifact writes fsync), in one dir removed at exit
# (a crashing target cannot clean its own)
SCRATCH=$(mktemp -d "$( [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/flyprof-fuzz-scratch.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
export FLYPROF_FUZZ_TMP=$SCRATCH
# the tools are instrumented too; their leaks are not findings of the readers
export ASAN_OPTIONS=detect_leaks=0
C="$W/corpus"
for t in $TARGETS; do mkdir -p "$C/$t"; [ -d tests/fuzz/seeds/$t ] && cp tests/fuzz/seeds/$t/* "$C/$t/" 2>/dev/null; done
add() { # add FILE as a seed of TARGET under NAME (when the target is selected and the file exists)
    [ -d "$C/$1" ] && [ -f "$2" ] && cp "$2" "$C/$1/$3"
}
# 1. the generator: every spec of tests/data/gen
G="$W/gen"
for spec in tests/data/gen/*.json; do
    n=$(basename "$spec" .json)
    "$B/tests/fp_gen_att" "$spec" "$G/$n" > /dev/null 2>&1 || continue
    d=$(ls -d "$G/$n"/att/ui_output_agent_* 2>/dev/null | head -1)
    [ -n "$d" ] || continue
    add code_json "$d/code.json" "gen_$n.json"
    add filenames_json "$d/filenames.json" "gen_$n.json"
    [ -d "$C/snapshots_json" ] && [ -f "$d/snapshots.json" ] && sed 's/source_[0-9]*_[A-Za-z0-9_.-]*\.py/source_0_k.py/g' "$d/snapshots.json" \
        > "$C/snapshots_json/gen_$n.json" 2>/dev/null
    i=0
    for w in "$d"/se*_wv*.json; do [ $i -lt 2 ] && add wave "$w" "gen_${n}_$i.json"; i=$((i + 1)); done
    add kernel_trace_csv "$G/$n/rocprof/kernel_trace.csv" "gen_$n.csv"
    add kernel_trace_csv "$G/$n/rocprof/kernel_stats.csv" "gen_${n}_stats.csv"
done
# 2. rocpd images in the ROCm 7 schema
if [ -d "$C/rocpd" ]; then
    "$B/tests/fp_make_rocpd" "$C/rocpd/gen_two_runs.db" --product "AMD Instinct MI355X" --guid g1 \
        k1@1:0:100:SQ_WAVES=8,TCC_HIT_sum=3 --guid g2 k1@2:200:350:TCC_MISS_sum=9 > /dev/null 2>&1
    "$B/tests/fp_make_rocpd" "$C/rocpd/gen_no_pmc.db" --no-pmc k2@1:0:10 > /dev/null 2>&1
    rm -f "$C"/rocpd/*-journal "$C"/rocpd/*-wal
fi
# 3. the pipeline's artifacts on the example and on a generated bundle
for b in "$SRC/examples/synthetic_gemm" "$G/rep_spill"; do
    [ -d "$b" ] || continue
    n=$(basename "$b"); rm -rf "$W/art/$n"; mkdir -p "$W/art"; cp -r "$b" "$W/art/$n"
    for c in bubbles map; do "$B/flyprof" $c --bundle "$W/art/$n" -q -f json > /dev/null 2>&1; done
    "$B/flyprof" report --bundle "$W/art/$n" -o "$W/art/$n" -q -f json > /dev/null 2>&1
    for a in bubbles map report; do add ${a}_json "$W/art/$n/$a.json" "pipe_$n.json"; done
done
# 4. the real-trace corpus (read in place, never copied into the repo)
CORPUS=${FP_CORPUS:-$SRC/../shared/corpus}
if [ -d "$CORPUS" ]; then
    for case in "$CORPUS"/*/; do
        n=$(basename "$case")
        d=$(ls -d "$case"att/ui_output_agent_* 2>/dev/null | head -1)
        if [ -n "$d" ]; then
            [ "$(stat -c %s "$d/code.json" 2>/dev/null || echo 9999999)" -le 262144 ] && add code_json "$d/code.json" "corpus_$n.json"
            add filenames_json "$d/filenames.json" "corpus_$n.json"
            [ -d "$C/snapshots_json" ] && [ -f "$d/snapshots.json" ] && sed 's/source_[0-9]*_[A-Za-z0-9_.-]*\.py/source_0_k.py/g' "$d/snapshots.json" \
                > "$C/snapshots_json/corpus_$n.json" 2>/dev/null
            # the two smallest wave files of each case
            i=0
            for w in $(ls -S -r "$d"/se*_wv*.json 2>/dev/null | head -2); do add wave "$w" "corpus_${n}_$i.json"; i=$((i + 1)); done
        fi
        [ -d "$C/kernel_trace_csv" ] && [ -f "$case/rocprof/kernel_trace.csv" ] &&
            head -c 16384 "$case/rocprof/kernel_trace.csv" > "$C/kernel_trace_csv/corpus_$n.csv"
    done
fi
t2=$(date +%s)

# 5. fuzz each target
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fail=0
printf '%-18s %8s %10s %8s %s\n' target seconds execs exec/s result > "$W/summary.txt"
for t in $TARGETS; do
    bin="$B/tests/fuzz/fuzz_$t"
    [ -x "$bin" ] || { echo "fuzz: no target $t" >&2; fail=1; continue; }
    mkdir -p "$W/crash/$t"
    ml=${MAXLEN[$t]:-8192}
    s0=$(date +%s)
    "$bin" "$C/$t" -max_total_time="$SECS" -timeout=2 -rss_limit_mb=2048 -max_len="$ml" -print_final_stats=1 \
        -artifact_prefix="$W/crash/$t/" > "$W/$t.log" 2>&1
    rc=$?
    s1=$(date +%s)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$W/$t.log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$W/$t.log" | tail -1)
    res=ok
    if [ $rc -ne 0 ] || ls "$W/crash/$t"/* > /dev/null 2>&1; then
        res="FAIL (exit $rc): $(ls "$W/crash/$t" | head -1)"
        fail=1
        grep -m1 -E 'ERROR: |runtime error|SUMMARY' "$W/$t.log" >&2
    fi
    printf '%-18s %8s %10s %8s %s\n' "$t" $((s1 - s0)) "${execs:-?}" "${rate:-?}" "$res" >> "$W/summary.txt"
done
t3=$(date +%s)
cat "$W/summary.txt"
echo "fuzz: build $((t1 - t0)) s, seeds $((t2 - t1)) s, fuzzing $((t3 - t2)) s; work dir $W"
if [ $fail -ne 0 ]; then
    echo "fuzz: FINDINGS (logs and crash inputs in $W)" >&2
    exit 1
fi
[ -n "${FUZZ_WORK:-}" ] || rm -rf "$W"
exit 0
