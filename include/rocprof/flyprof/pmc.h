/*
 * pmc.h - hardware counters (PMC) per dispatch as rocprofv3 wrote them: the
 * data set (passes, dispatches, counter values, agent facts) and its readers
 * for counter_collection.csv files and rocpd results.db.
 *
 * One idea: a "pass" is one application run (one CSV file, one rocpd guid).
 * Counters that do not fit one pass are collected in several passes, and the
 * same dispatch has a different Dispatch_Id in each. Every counter value
 * remembers its pass; merging passes into records and the metric formulas
 * are analysis (counters.h).
 *
 * Layer: rocprof. The set is src/rocprof/pmc.c, the readers
 * src/rocprof/counters_csv.c and counters_rocpd.c.
 */
#ifndef FLYPROF_PMC_H
#define FLYPROF_PMC_H

#include <stdbool.h>
#include <stddef.h>

#include "flyprof/error.h"

/* Largest counter value accepted (a 2.4 GHz clock summed over 10^5 instances
 * for an hour is ~10^18): anything bigger is a corrupt file, not a count. */
#define FP_PMC_MAX_VALUE 1e18
/* Most rows / dispatches one input may carry before it is refused. */
#define FP_PMC_MAX_ROWS 50000000
/* Distinct counters per dispatch (a pass holds at most a few dozen) and passes
 * per analysis (one per counter group): beyond these the input is not a
 * profiler's, and quadratic lookups would only waste time. */
#define FP_PMC_MAX_COUNTERS 4096
#define FP_PMC_MAX_PASSES 1024

typedef struct fp_pmc_counter {
    char *name; /* as written (TCC_HIT or TCC_HIT_sum) */
    double value;
} fp_pmc_counter;

/* One dispatch in one pass. Integers are -1 when unknown. */
typedef struct fp_pmc_dispatch {
    size_t pass;            /* index into fp_pmc_set.passes */
    char *agent;            /* Agent_Id text ("Agent 5", rocpd: spelled the same) or "" */
    long long pid;          /* Process_Id / rocpd pid: one pass may hold several processes' files */
    long long dispatch_id;
    char *kernel;
    long long start_ns, end_ns;
    long long grid_size, wg_size, lds_bytes, vgpr, accum_vgpr, sgpr;
    fp_pmc_counter *c;
    size_t n, cap;
} fp_pmc_dispatch;

/* GPU agent facts that came with the counters (CSV sibling agent_info.csv or
 * rocpd_info_agent); NULL / -1 when unknown. */
typedef struct fp_pmc_agent {
    char *id;           /* the agent as the counter rows name it ("Agent 5"); NULL when not matched */
    char *product_name;
    char *name; /* "gfx950" */
    long long device_id, gfx_target_version, cu_count, num_xcc;
} fp_pmc_agent;

/* One file read into a pass: a per-process output (rocprofv3 -o ..._%pid%) of one run. */
typedef struct fp_pmc_file {
    size_t pass;
    long long pid; /* the first Process_Id in the file, -1 when it has none */
    char *path;
} fp_pmc_file;

typedef struct fp_pmc_set {
    char **passes; /* source of each pass: file path or "db#guid" */
    size_t npasses;
    fp_pmc_dispatch *d;
    size_t nd, cap;
    /* the facts of the agent the counters are about: fp_pmc_keep's agent's own row;
     * before it (or when no row matches), the first GPU row, as before issue 18 */
    fp_pmc_agent agent;
    fp_pmc_agent *agents; /* every agent the rows name that matched a GPU row */
    size_t nagents;
    fp_pmc_file *files;   /* which file each (pass, process) came from */
    size_t nfiles;
    size_t *index;  /* open-addressing hash of (pass, pid, agent, id) -> d index + 1; private */
    size_t index_cap;
} fp_pmc_set;

void fp_pmc_set_init(fp_pmc_set *s);
void fp_pmc_set_free(fp_pmc_set *s);
/* Free an agent's strings and make it unknown. */
void fp_pmc_agent_free(fp_pmc_agent *a);
/* A reader's bookkeeping: the file a pass's process came from; an agent row's
 * facts under the id the rows use (NULL when that id is already known). */
void fp_pmc_add_file(fp_pmc_set *s, size_t pass, long long pid, const char *path);
fp_pmc_agent *fp_pmc_agent_add(fp_pmc_set *s, const char *id);
/* Add a pass, returns its index. */
size_t fp_pmc_add_pass(fp_pmc_set *s, const char *source);
/* Find or create the dispatch (pass, pid, agent, dispatch_id): each process
 * numbers its dispatches from 1, so two processes' files of one run can share a pass. */
fp_pmc_dispatch *fp_pmc_dispatch_get(fp_pmc_set *s, size_t pass, long long pid, const char *agent, long long id,
                                     const char *kernel);
/* Add (or sum into) a counter of a dispatch. -1 when the dispatch already has
 * FP_PMC_MAX_COUNTERS distinct counters (the caller reports BAD_INPUT). */
int fp_pmc_add(fp_pmc_dispatch *d, const char *name, double value);

/* Readers (src/rocprof). Errors: missing file NO_ARTIFACT; malformed content
 * (missing columns, non-numeric or huge values, not a SQLite db, no rocpd
 * views, no counter rows) BAD_INPUT. Each CSV is one pass; each guid of a db
 * is one pass. A CSV's sibling <prefix>_agent_info.csv fills s->agent. */
int fp_pmc_load_csv(fp_pmc_set *s, const char *path, fp_err *err);
int fp_pmc_load_rocpd(fp_pmc_set *s, const char *path, fp_err *err);
/* Same, but a valid database without counter rows is not an error (live runs
 * whose kernel filter matched nothing): nothing is added. */
int fp_pmc_load_rocpd_ex(fp_pmc_set *s, const char *path, bool allow_empty, fp_err *err);
/* One application run written as one file per process (rocprofv3 -o pmc_%pid%:
 * a launcher and its workers each write their own): all of them as ONE pass
 * (every guid of the databases too); fp_pmc_keep then keeps one process. */
int fp_pmc_load_csv_run(fp_pmc_set *s, const char *const *paths, size_t n, fp_err *err);
int fp_pmc_load_rocpd_run(fp_pmc_set *s, const char *const *paths, size_t n, bool allow_empty, fp_err *err);

/* What fp_pmc_keep kept and dropped. */
typedef struct fp_pmc_kept {
    bool found;                 /* a row of the kernel exists (else nothing was done) */
    char agent[64];             /* the agent kept, as the rows name it ("" when they name none) */
    bool wanted_absent;         /* a wanted agent was given but no row of the kernel ran on it */
    bool facts_matched;         /* set->agent is the kept agent's own agent_info / rocpd row */
    size_t other_agents;        /* distinct other agents whose rows were dropped */
    size_t agent_rows_dropped;  /* dispatches dropped for their agent */
    char other_agent[64];       /* one of them, for the message */
    size_t process_passes;      /* passes where several processes ran the kernel on the agent */
    size_t process_rows_dropped;
} fp_pmc_kept;

/* Keep only the traced agent's and, per pass, one process's rows (issue 18): the
 * agent is `want` ("Agent 5", capture.json's) when a row of the kernel (Kernel_Name
 * contains `kernel`; NULL = any) ran on it, else the first such row's; per pass,
 * the process of the first such row (files sorted, as capture's ATT merge). Every
 * other dispatch is removed, each pass's source becomes its kept file, and
 * set->agent becomes that agent's row's facts when one matched. */
void fp_pmc_keep(fp_pmc_set *s, const char *want, const char *kernel, fp_pmc_kept *out);
/* Read the GPU row of an agent_info.csv into a (fields it lacks stay unknown). */
int fp_pmc_load_agent_info(fp_pmc_agent *a, const char *path, fp_err *err);

/* Strict number parse for counter cells: the whole cell, finite, in
 * [0, FP_PMC_MAX_VALUE]. */
int fp_pmc_parse_value(const char *s, double *out);

#endif
