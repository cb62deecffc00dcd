/*
 * sweep_slurm.c - the Slurm client of `flyprof sweep` (sweep_slurm.h). Read against
 * Slurm 22.05's sbatch(1), squeue(1), scontrol(1), sacct(1): `sbatch --parsable`
 * prints "<jobid>[;<cluster>]"; `scontrol show job -o ID` prints one line per job
 * (for an array: one per task, the pending rest as one line with a range
 * "ArrayTaskId=3-7"); `sacct` needs slurmdbd, so it is only the fallback for jobs
 * scontrol has forgotten (MinJobAge).
 */
#include "sweep_slurm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/proc.h"
#include "flyprof/strbuf.h"

/* Run a Slurm client; its stdout in out (stderr in errb when given). 0 when it ran
 * and exited 0. */
static int slurm_run(const char *const *argv, fp_sb *out, fp_sb *errb, fp_err *err)
{
    fp_sb e2;
    fp_sb_init(&e2);
    fp_proc_opts o = {.argv = argv, .stdout_buf = out, .stderr_buf = errb ? errb : &e2, .timeout_s = 60};
    fp_proc_result r;
    int rc = fp_proc_run(&o, &r, err);
    fp_sb_free(&e2);
    if (rc != 0 && r.exec_failed) {
        fp_err_set(err, FP_MISSING_PREREQ, "the slurm backend needs %s, which cannot be run", argv[0]);
        return fp_err_help(err, "install the Slurm client (Debian: slurm-client) or use --backend local");
    }
    if (rc != 0)
        return -1;
    return r.exited && r.exit_code == 0 ? 0 : 1;
}

static void push(const char **v, size_t *n, size_t cap, const char *s)
{
    if (*n + 1 < cap)
        v[(*n)++] = s;
    v[*n] = NULL;
}

/* "1,3,4" from the ids */
static void id_list(const int *ids, size_t nids, fp_sb *out)
{
    for (size_t i = 0; i < nids; i++)
        fp_sb_addf(out, "%s%d", i ? "," : "", ids[i]);
}

/* sbatch --parsable ARGS SCRIPT -> the job id (before any ";cluster") */
static int sbatch(const char **args, size_t nargs, char **id, fp_err *err)
{
    const char *v[96];
    size_t n = 0;
    push(v, &n, 96, "sbatch");
    push(v, &n, 96, "--parsable");
    for (size_t i = 0; i < nargs; i++)
        push(v, &n, 96, args[i]);
    fp_sb out, eb;
    fp_sb_init(&out);
    fp_sb_init(&eb);
    int rc = slurm_run(v, &out, &eb, err);
    if (rc > 0) {
        while (eb.len && (eb.buf[eb.len - 1] == '\n' || eb.buf[eb.len - 1] == ' '))
            eb.buf[--eb.len] = '\0';
        rc = fp_err_set(err, FP_BAD_ARGS, "sbatch refused the sweep's job: %s", eb.len ? eb.buf : "(no message)");
        fp_err_help(err, "check the spec's slurm settings (partition, time, account, extra)");
    } else if (rc == 0) {
        size_t k = strspn(out.buf, "0123456789");
        if (k == 0)
            rc = fp_err_set(err, FP_INTERNAL, "sbatch printed no job id: '%s'", out.buf);
        else
            *id = strndup(out.buf, k);
    }
    fp_sb_free(&out);
    fp_sb_free(&eb);
    return rc;
}

int fp_slurm_submit(const fp_sweep_spec *spec, const char *dir, const int *ids, size_t nids, const char *script,
                    const char *agg_script, char **array_id, char **agg_id, fp_err *err)
{
    fp_sb arr, gres, outp, dep, aggout;
    fp_sb_init(&arr), fp_sb_init(&gres), fp_sb_init(&outp), fp_sb_init(&dep), fp_sb_init(&aggout);
    fp_sb_adds(&arr, "--array=");
    id_list(ids, nids, &arr);
    fp_sb_addf(&gres, "--gres=gpu:%d", spec->gpus_per_task.known ? (int)spec->gpus_per_task.v : 1);
    fp_sb_addf(&outp, "--output=%s/tasks/slurm-%%A_%%a.out", dir);
    const char *a[80];
    size_t n = 0;
    const fp_sweep_slurm *s = spec->slurm;
    fp_sb part, tim, acct;
    fp_sb_init(&part), fp_sb_init(&tim), fp_sb_init(&acct);
    push(a, &n, 80, "--job-name=flyprof-sweep");
    push(a, &n, 80, arr.buf);
    push(a, &n, 80, gres.buf);
    push(a, &n, 80, outp.buf);
    if (s && s->partition)
        fp_sb_addf(&part, "--partition=%s", s->partition), push(a, &n, 80, part.buf);
    if (s && s->time)
        fp_sb_addf(&tim, "--time=%s", s->time), push(a, &n, 80, tim.buf);
    if (s && s->account)
        fp_sb_addf(&acct, "--account=%s", s->account), push(a, &n, 80, acct.buf);
    for (size_t i = 0; s && i < s->nextra; i++)
        push(a, &n, 80, s->extra[i]);
    push(a, &n, 80, script);
    int rc = sbatch(a, n, array_id, err);
    if (rc == 0) {
        /* the aggregation: no GPU, after every task ended whatever its state */
        fp_sb_addf(&dep, "--dependency=afterany:%s", *array_id);
        fp_sb_addf(&aggout, "--output=%s/aggregate.out", dir);
        const char *b[16];
        size_t m = 0;
        push(b, &m, 16, "--job-name=flyprof-sweep-aggregate");
        push(b, &m, 16, dep.buf);
        push(b, &m, 16, aggout.buf);
        if (s && s->partition)
            push(b, &m, 16, part.buf);
        if (s && s->account)
            push(b, &m, 16, acct.buf);
        push(b, &m, 16, agg_script);
        rc = sbatch(b, m, agg_id, err);
    }
    fp_sb_free(&arr), fp_sb_free(&gres), fp_sb_free(&outp), fp_sb_free(&dep), fp_sb_free(&aggout);
    fp_sb_free(&part), fp_sb_free(&tim), fp_sb_free(&acct);
    return rc == 0 ? 0 : -1;
}

/* The value of "Key=" in a scontrol line, up to the next space, into buf. */
static bool field(const char *line, const char *key, char *buf, size_t n)
{
    size_t k = strlen(key);
    for (const char *p = line; (p = strstr(p, key)); p += k) {
        if ((p == line || p[-1] == ' ') && p[k] == '=') {
            size_t len = strcspn(p + k + 1, " \n");
            snprintf(buf, n, "%.*s", (int)(len < n ? len : n - 1), p + k + 1);
            return true;
        }
    }
    return false;
}

/* Set st[i] for every index in a range list "3", "2-7", "1,3-5%2" (the "%N" limit ignored). */
static void set_range(const char *list, const char *state, const char *reason, const char *array,
                      fp_slurm_task_state *st, size_t ntasks)
{
    for (const char *p = list; *p;) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p)
            break;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long i = a; i <= b && i >= 0 && (size_t)i < ntasks; i++) {
            st[i].known = true;
            snprintf(st[i].state, sizeof st[i].state, "%s", state);
            snprintf(st[i].reason, sizeof st[i].reason, "%s", reason);
            snprintf(st[i].job_id, sizeof st[i].job_id, "%s_%ld", array, i);
        }
        p = end + strcspn(end, ",");
        p += *p == ',';
    }
}

/* What one line of a client's output says about the array `job`'s tasks. */
typedef void (*line_fn)(char *line, const char *job, fp_slurm_task_state *st, size_t ntasks);

/* One scontrol -o line: "... ArrayTaskId=2-7 JobState=PENDING Reason=Resources ..." */
static void scontrol_line(char *line, const char *job, fp_slurm_task_state *st, size_t ntasks)
{
    char ids[256], state[32], reason[128];
    if (field(line, "ArrayTaskId", ids, sizeof ids) && field(line, "JobState", state, sizeof state)) {
        if (!field(line, "Reason", reason, sizeof reason))
            reason[0] = '\0';
        set_range(ids, state, reason, job, st, ntasks);
    }
}

/* One sacct -X -n -P -o JobID,State,Reason line: "11_3|TIMEOUT|TimeLimit" */
static void sacct_line(char *line, const char *job, fp_slurm_task_state *st, size_t ntasks)
{
    char id[64], state[32], reason[128] = "";
    if (sscanf(line, "%63[^|]|%31[^|]|%127[^\n]", id, state, reason) >= 2) {
        const char *us = strchr(id, '_');
        if (us && strspn(us + 1, "0123456789") > 0)
            set_range(us + 1, state, reason, job, st, ntasks);
    }
}

/* Run the client; each line of its output to fn. false when it did not answer. */
static bool read_states(const char *const *argv, line_fn fn, const char *job, fp_slurm_task_state *st,
                        size_t ntasks)
{
    fp_sb out;
    fp_sb_init(&out);
    fp_err e = {0};
    bool ok = slurm_run(argv, &out, NULL, &e) == 0;
    fp_err_clear(&e);
    for (char *line = out.buf; ok && line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        fn(line, job, st, ntasks);
        line = nl ? nl + 1 : NULL;
    }
    fp_sb_free(&out);
    return ok;
}

void fp_slurm_task_states(char *const *jobs, size_t njobs, fp_slurm_task_state *st, size_t ntasks)
{
    for (size_t j = 0; j < njobs; j++) {
        const char *sc[] = {"scontrol", "show", "job", "-o", jobs[j], NULL};
        const char *sa[] = {"sacct", "-X", "-n", "-P", "-o", "JobID,State,Reason", "-j", jobs[j], NULL};
        if (!read_states(sc, scontrol_line, jobs[j], st, ntasks)) /* sacct: once scontrol forgot the job */
            read_states(sa, sacct_line, jobs[j], st, ntasks);
    }
}

bool fp_slurm_any_queued(char *const *jobs, size_t njobs, const char *agg)
{
    fp_sb list;
    fp_sb_init(&list);
    for (size_t j = 0; j < njobs; j++)
        fp_sb_addf(&list, "%s%s", list.len ? "," : "", jobs[j]);
    if (agg)
        fp_sb_addf(&list, "%s%s", list.len ? "," : "", agg);
    const char *v[] = {"squeue", "-h", "-o", "%i", "-j", list.buf, NULL};
    fp_sb out, eb;
    fp_sb_init(&out);
    fp_sb_init(&eb);
    fp_err e = {0};
    int rc = list.len ? slurm_run(v, &out, &eb, &e) : 1;
    fp_err_clear(&e);
    /* squeue lists nothing once the jobs ended (and says "Invalid job id" once
     * slurmctld forgot them); any other failure (a busy controller timing out) is
     * not an answer: still queued, ask again */
    bool queued = list.len && (rc == 0 ? strspn(out.buf, " \n") < out.len : !strstr(eb.buf ? eb.buf : "", "Invalid job id"));
    fp_sb_free(&out);
    fp_sb_free(&eb);
    fp_sb_free(&list);
    return queued;
}

void fp_slurm_job_state(const char *job, char *buf, size_t n)
{
    buf[0] = '\0';
    if (!job)
        return;
    const char *v[] = {"scontrol", "show", "job", "-o", job, NULL};
    fp_sb out;
    fp_sb_init(&out);
    fp_err e = {0};
    if (slurm_run(v, &out, NULL, &e) == 0 && !field(out.buf, "JobState", buf, n))
        buf[0] = '\0';
    fp_err_clear(&e);
    fp_sb_free(&out);
}

int fp_slurm_cancel(char *const *jobs, size_t njobs, const char *agg, fp_err *err)
{
    const char *v[40];
    size_t n = 0;
    push(v, &n, 40, "scancel");
    for (size_t j = 0; j < njobs; j++)
        push(v, &n, 40, jobs[j]);
    if (agg)
        push(v, &n, 40, agg);
    if (n == 1)
        return 0;
    fp_sb out;
    fp_sb_init(&out);
    int rc = slurm_run(v, &out, NULL, err);
    fp_sb_free(&out);
    return rc < 0 ? -1 : 0;
}
