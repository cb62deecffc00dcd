/* bench/paired.c - the launcher of the bench/ scripts (compiled by them into a temp dir).
 *
 *   paired N CMD0... -- CMD1... [-- CMD2...]
 *
 * Runs the commands round-robin N times (the order rotates every round, so no command always
 * runs on a warm or cold cache), each forked, exec'ed and wait4()'ed with stdout/stderr to
 * /dev/null. Prints one line per command:
 *   "<k> <median wall ms> <median cpu ms> <max peak RSS KiB> <median of the per-round ratios wall_k / wall_0>"
 * A ratio is taken within one round: on a shared machine the load changes between rounds,
 * not within one. ru_maxrss is the child's own peak (this launcher is ~1 MiB). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXC 6

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmpd);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double run(char **argv, double *cpu, long *rss)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t p = fork();
    if (p == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        dup2(fd, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    struct rusage ru;
    wait4(p, &st, 0, &ru);
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "paired: %s failed (status %d)\n", argv[0], st);
        exit(1);
    }
    *cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    if (ru.ru_maxrss > *rss)
        *rss = ru.ru_maxrss;
    return (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fprintf(stderr, "usage: paired N CMD... [-- CMD...]\n"), 2;
    int n = atoi(argv[1]), nc = 0;
    char **cmd[MAXC];
    cmd[nc++] = argv + 2;
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--")) {
            /* past MAXC a "--" would silently become an argument of the last command */
            if (nc == MAXC)
                return fprintf(stderr, "paired: at most %d commands\n", MAXC), 2;
            argv[i] = NULL;
            cmd[nc++] = argv + i + 1;
        }
    double *w[MAXC], *c[MAXC], *r[MAXC];
    long rss[MAXC] = {0};
    for (int k = 0; k < nc; k++) {
        w[k] = calloc((size_t)n, sizeof(double));
        c[k] = calloc((size_t)n, sizeof(double));
        r[k] = calloc((size_t)n, sizeof(double));
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < nc; j++) {
            int k = (i + j) % nc;
            w[k][i] = run(cmd[k], &c[k][i], &rss[k]);
        }
        for (int k = 0; k < nc; k++)
            r[k][i] = w[k][i] / w[0][i];
    }
    for (int k = 0; k < nc; k++)
        printf("%d %.3f %.3f %ld %.3f\n", k, median(w[k], n), median(c[k], n), rss[k], median(r[k], n));
    return 0;
}
