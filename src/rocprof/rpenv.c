/*
 * rpenv.c - which inherited ROCPROF_* variables rocprofv3 must not see
 * (rpenv.h says why).
 */
#include "flyprof/rpenv.h"

#include <stdlib.h>
#include <string.h>

#include "flyprof/fs.h"
#include "flyprof/mem.h"

extern char **environ;

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void push(char ***v, size_t *n, char *s)
{
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        abort();
    nv[(*n)++] = s;
    *v = nv;
}

size_t fp_rocprof_env_inherited(char ***names)
{
    *names = NULL;
    size_t n = 0;
    size_t lp = strlen(FP_ROCPROF_ENV_PREFIX);
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || strncmp(*e, FP_ROCPROF_ENV_PREFIX, lp) != 0)
            continue;
        push(names, &n, fp_xstrndup(*e, (size_t)(eq - *e)));
    }
    if (n > 1)
        qsort(*names, n, sizeof **names, cmp_str);
    return n;
}

size_t fp_rocprof_att_lib_dirs(char ***dirs)
{
    *dirs = NULL;
    size_t n = 0;
    const char *v = getenv(FP_ROCPROF_ATT_LIB_ENV);
    for (const char *p = v; p && *p;) {
        size_t len = strcspn(p, ":");
        if (len)
            push(dirs, &n, fp_xstrndup(p, len));
        p += len + (p[len] == ':');
    }
    return n;
}
