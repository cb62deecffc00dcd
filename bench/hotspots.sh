#!/usr/bin/env bash
# bench/hotspots.sh - `flyprof hotspots` on every corpus case: median wall time
# and peak RSS of flyprof next to `cat` of the same bytes (code.json and the
# kernel_trace/agent_info CSVs that hotspots reads) in the same run, and the
# ratio to the reference Python analyzer (about 0.17 s and 16-19 MB per case on
# this machine, mostly interpreter start-up).
#
# usage: bench/hotspots.sh [FLYPROF] [N]   (defaults: build/flyprof, 21 runs)
#
# Measuring: a tiny C launcher (compiled here into a temp dir) forks, execs and
# wait4()s each run, so wall time has ns resolution and ru_maxrss is the child's
# own peak (a fork of a big parent such as python would report the parent's RSS,
# which survives exec in ru_maxrss; this launcher is ~1 MiB).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
FLYPROF=$(realpath "${1:-$here/build/flyprof}")
N=${2:-21}
CORPUS=${FP_CORPUS:-$here/../shared/corpus}
[ -x "$FLYPROF" ] || { echo "flyprof binary not found: $FLYPROF (pass it as \$1)" >&2; exit 2; }
[ -f "$CORPUS/cases.tsv" ] || { echo "corpus not found at $CORPUS" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/runstat.c" <<'C'
/* runstat N cmd args...: run cmd N times; print "median_wall_ms median_maxrss_kib median_cpu_ms". */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    double *w = calloc((size_t)n, sizeof *w), *m = calloc((size_t)n, sizeof *m), *c = calloc((size_t)n, sizeof *c);
    for (int i = 0; i < n; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        pid_t p = fork();
        if (p == 0) {
            int fd = open("/dev/null", O_WRONLY);
            dup2(fd, 1); dup2(fd, 2);
            execvp(argv[2], argv + 2);
            _exit(127);
        }
        int st; struct rusage ru;
        wait4(p, &st, 0, &ru);
        clock_gettime(CLOCK_MONOTONIC, &b);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) { fprintf(stderr, "%s failed\n", argv[2]); return 1; }
        w[i] = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
        m[i] = (double)ru.ru_maxrss;
        c[i] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    }
    qsort(w, (size_t)n, sizeof *w, cmpd);
    qsort(m, (size_t)n, sizeof *m, cmpd);
    qsort(c, (size_t)n, sizeof *c, cmpd);
    printf("%.3f %.0f %.3f\n", w[n / 2], m[n / 2], c[n / 2]);
    return 0;
}
C
cc -O2 -o "$tmp/runstat" "$tmp/runstat.c"

printf 'flyprof hotspots (-f table, default flags) vs cat of the same bytes; median of %s runs\n(ms = wall, cpu = user+sys ms of the child; MiB = peak RSS; ref = 0.17 s / 17.5 MB)\n' "$N"
uptime
printf '%-36s %9s %8s %8s %8s %8s %8s %8s %7s %8s %8s\n' case bytes fp_ms fp_cpu fp_MiB cat_ms cat_cpu cat_MiB fp/cat ref/fp MBref/fp
# Process start-up alone (dynamic linking of ~23 shared libraries, most of them
# pulled in by libgit2), for reading the per-case figures.
read -r vms vkb vcpu < <("$tmp/runstat" "$N" "$FLYPROF" --version)
read -r tms tkb tcpu < <("$tmp/runstat" "$N" true)
printf '%-36s %9s %8.2f %8.2f %8.2f   (true: %.2f ms wall, %.2f ms cpu)\n' "flyprof --version (start-up only)" - \
    "$vms" "$vcpu" "$(awk -v k="$vkb" 'BEGIN { print k / 1024 }')" "$tms" "$tcpu"
all=""
while IFS=$'\t' read -r id _set _kernel _variant dispatch _rest; do
    [ "$id" = id ] && continue
    att="$CORPUS/$id/att"
    files=("$att/$dispatch/code.json")
    for f in kernel_trace.csv agent_info.csv; do
        [ -f "$CORPUS/$id/rocprof/$f" ] && files+=("$CORPUS/$id/rocprof/$f")
    done
    bytes=$(cat "${files[@]}" | wc -c)
    read -r fms fkb fcpu < <(cd "$att" && "$tmp/runstat" "$N" "$FLYPROF" hotspots "$dispatch" -f table -q)
    read -r cms ckb ccpu < <("$tmp/runstat" "$N" cat "${files[@]}")
    all="$all $fms:$fkb"
    awk -v id="$id" -v b="$bytes" -v fms="$fms" -v fkb="$fkb" -v cms="$cms" -v ckb="$ckb" -v fc="$fcpu" -v cc="$ccpu" 'BEGIN {
        printf "%-36s %9d %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %7.2f %7.0fx %7.1fx\n", id, b, fms, fc, fkb/1024, cms, cc, ckb/1024,
               fms/cms, 170/fms, 17.5/(fkb/1024) }'
done < "$CORPUS/cases.tsv"
med=$(echo "$all" | tr ' ' '\n' | awk -F: 'NF == 2 { print $1 }' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
maxkb=$(echo "$all" | tr ' ' '\n' | awk -F: 'NF == 2 && $2 > m { m = $2 } END { print m }')
awk -v med="$med" -v kb="$maxkb" 'BEGIN {
    printf "median over cases: %.2f ms per case (%.0fx faster than the 0.17 s reference); max peak RSS %.2f MiB (%.1fx less than 16-19 MB)\n",
           med, 170 / med, kb / 1024, 17.5 / (kb / 1024) }'
