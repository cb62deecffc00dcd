#!/usr/bin/env bash
# bench/bubbles.sh [FLYPROF] [N] [DISPATCH_DIR...]
# `flyprof bubbles` and `flyprof report` against `cat` of the same wave files,
# measured PAIRED: each run of flyprof is followed (or preceded, alternating) by
# a run of cat, N pairs, and the figure is the median of the per-pair ratios -
# on a shared machine the load changes between runs, not within a pair.
# Also the median wall times and the peak RSS (ru_maxrss of the child itself,
# via a tiny fork/exec/wait4 launcher compiled here).
#
# Cases: the given dispatch dirs, else the two largest corpus traces
# (moe_reduce-big, flash_attn_func-big). FP_BENCH_BIG=DIR adds a row (e.g. the
# 1 GB synthetic trace; bench/gen_big.sh writes one). Target: ratio <= 1.5,
# peak RSS < 32 MiB at 1 GB (issue 10).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
FLYPROF=$(realpath "${1:-$here/build/flyprof}")
N=${2:-5}
shift $(( $# > 2 ? 2 : $# ))
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
    for c in moe_reduce-big flash_attn_func-big; do
        d=$(ls -d "$here"/../shared/corpus/$c/att/*/ 2>/dev/null | head -1) && dirs+=("${d%/}")
    done
fi
[ -n "${FP_BENCH_BIG:-}" ] && dirs+=("$FP_BENCH_BIG")
[ -x "$FLYPROF" ] || { echo "no flyprof binary at $FLYPROF" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/paired.c" <<'C'
/* paired N -- A... -- B...: run A and B alternately N times in the cwd;
 * print "medA_ms medB_ms med_ratio(A/B) maxrssA_kib maxrssB_kib". */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static double run(char **argv, long *rss)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t p = fork();
    if (p == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1); dup2(fd, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st; struct rusage ru;
    wait4(p, &st, 0, &ru);
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) { fprintf(stderr, "%s failed\n", argv[0]); exit(1); }
    if (ru.ru_maxrss > *rss) *rss = ru.ru_maxrss;
    return (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
}
int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    char **A = argv + 3, **B = NULL;
    for (int i = 3; i < argc; i++) if (!strcmp(argv[i], "--")) { argv[i] = NULL; B = argv + i + 1; break; }
    double *ta = calloc(n, sizeof *ta), *tb = calloc(n, sizeof *tb), *r = calloc(n, sizeof *r);
    long ra = 0, rb = 0;
    for (int i = 0; i < n; i++) {
        if (i & 1) { tb[i] = run(B, &rb); ta[i] = run(A, &ra); }
        else { ta[i] = run(A, &ra); tb[i] = run(B, &rb); }
        r[i] = ta[i] / tb[i];
    }
    qsort(ta, n, sizeof *ta, cmpd); qsort(tb, n, sizeof *tb, cmpd); qsort(r, n, sizeof *r, cmpd);
    printf("%.1f %.1f %.2f %ld %ld\n", ta[n / 2], tb[n / 2], r[n / 2], ra, rb);
    return 0;
}
C
cc -O2 -o "$tmp/paired" "$tmp/paired.c"
printf 'paired runs, %s pairs, medians; ratio = median of per-pair flyprof/cat; RSS = peak of the child\n' "$N"
uptime
printf '%-44s %6s %8s | %9s %8s %6s %9s | %9s %6s %9s | %8s\n' case files MB bubbles_ms cat_ms ratio RSS_MiB report_ms ratio RSS_MiB cat_MiB
for d in "${dirs[@]}"; do
    (
        cd "$d"
        files=$(ls | grep -E '^se[0-9]+_sm[0-9]+_sl[0-9]+_wv[0-9]+\.json$' | tr '\n' ' ')
        nf=$(echo $files | wc -w)
        mb=$(cat $files | wc -c | awk '{ printf "%.1f", $1 / 1e6 }')
        read -r bms cms br brss crss < <("$tmp/paired" "$N" x "$FLYPROF" bubbles --bundle . -q --out "$tmp/b.json" -- cat $files)
        read -r rms _ rr rrss _ < <("$tmp/paired" "$N" x "$FLYPROF" report --bundle . -q --out-dir "$tmp/r" -- cat $files)
        awk -v c="$(basename "$d")" -v nf="$nf" -v mb="$mb" -v bms="$bms" -v cms="$cms" -v br="$br" -v brss="$brss" \
            -v rms="$rms" -v rr="$rr" -v rrss="$rrss" -v crss="$crss" 'BEGIN {
            printf "%-44s %6d %8s | %9s %8s %6s %9.1f | %9s %6s %9.1f | %8.1f\n", c, nf, mb, bms, cms, br, brss / 1024, rms, rr, rrss / 1024, crss / 1024 }'
    )
done
