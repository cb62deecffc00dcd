/*
 * counters_rocpd.c - read counters from a rocpd SQLite results.db
 * (rocprof-formats.md §4): query the unsuffixed views, SUM the per-instance
 * rows of rocpd_pmc_event per (run, dispatch, counter), and take each guid
 * (one application run) as one pass.
 *
 * The database is opened read-only, so a corrupt file can only produce an
 * error, never a write; anything that is not a rocpd database
 * (not SQLite, no views, wrong columns, no counter rows) is BAD_INPUT.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/pmc.h"
#include "flyprof/rocpd.h"
#include "flyprof/fs.h"

/* Counter rows per dispatch, SUMmed over instances; guid order = pass order. */
static const char counters_sql[] =
    "SELECT K.guid, K.dispatch_id, S.display_name, K.\"start\", K.\"end\","
    " K.grid_size_x * K.grid_size_y * K.grid_size_z,"
    " K.workgroup_size_x * K.workgroup_size_y * K.workgroup_size_z,"
    " K.group_segment_size, S.arch_vgpr_count, S.accum_vgpr_count, S.sgpr_count, K.agent_id,"
    " P.name, SUM(E.value), SUM(typeof(E.value) NOT IN ('integer', 'real')), K.pid,"
    /* the agent spelled as the CSV's Agent_Id (default --agent-index relative: "Agent <logical index>") */
    " (SELECT A.logical_index FROM rocpd_info_agent A WHERE A.id = K.agent_id AND A.guid = K.guid)"
    " FROM rocpd_pmc_event E"
    " JOIN rocpd_info_pmc P ON P.id = E.pmc_id AND P.guid = E.guid"
    " JOIN rocpd_kernel_dispatch K ON K.event_id = E.event_id AND K.guid = E.guid"
    " JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid"
    " GROUP BY K.guid, K.dispatch_id, P.name"
    " ORDER BY K.guid, K.dispatch_id, P.name";

/* Every GPU agent, first by absolute index: the first is the set's agent until
 * fp_pmc_keep picks the traced one. */
static const char agent_sql[] =
    "SELECT product_name, name, json_extract(extdata, '$.device_id'),"
    " json_extract(extdata, '$.gfx_target_version'), json_extract(extdata, '$.cu_count'),"
    " json_extract(extdata, '$.num_xcc'), logical_index"
    " FROM rocpd_info_agent WHERE type = 'GPU' ORDER BY absolute_index";

static long long col_int(sqlite3_stmt *st, int i)
{
    if (sqlite3_column_type(st, i) != SQLITE_INTEGER)
        return -1;
    long long v = sqlite3_column_int64(st, i);
    return v < 0 ? -1 : v;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? (const char *)t : "";
}

static void agent_facts(sqlite3_stmt *st, fp_pmc_agent *a)
{
    if (!a->product_name && *col_text(st, 0))
        a->product_name = strdup(col_text(st, 0));
    if (!a->name && *col_text(st, 1))
        a->name = strdup(col_text(st, 1));
    long long *dst[] = {&a->device_id, &a->gfx_target_version, &a->cu_count, &a->num_xcc};
    for (int i = 0; i < 4; i++)
        if (*dst[i] < 0)
            *dst[i] = col_int(st, 2 + i);
}

/* The agent as the rows name it ("Agent <logical index>", "" when unknown). */
static void agent_name(sqlite3_stmt *st, int col, char *buf, size_t n)
{
    long long li = col_int(st, col);
    if (li >= 0)
        snprintf(buf, n, "Agent %lld", li);
    else
        buf[0] = '\0';
}

static void read_agents(sqlite3 *db, fp_pmc_set *s)
{
    sqlite3_stmt *st = NULL;
    /* optional: an old schema or a SQLite without JSON1 just leaves the agent unknown */
    if (sqlite3_prepare_v2(db, agent_sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return;
    }
    for (bool first = true; sqlite3_step(st) == SQLITE_ROW; first = false) {
        if (first)
            agent_facts(st, &s->agent);
        char id[32];
        agent_name(st, 6, id, sizeof id);
        fp_pmc_agent *a = id[0] ? fp_pmc_agent_add(s, id) : NULL;
        if (a)
            agent_facts(st, a);
    }
    sqlite3_finalize(st);
}

int fp_pmc_load_rocpd(fp_pmc_set *s, const char *path, fp_err *err)
{
    return fp_pmc_load_rocpd_ex(s, path, false, err);
}

int fp_rocpd_schema_check(sqlite3 *db, const char *path, fp_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'", -1, &st, NULL) !=
        SQLITE_OK) {
        sqlite3_finalize(st);
        return 0; /* no metadata view: a hand-made or older database */
    }
    int rc = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(st, 0);
        char *end = NULL;
        long major = v ? strtol((const char *)v, &end, 10) : -1;
        if (!v || end == (char *)v || major != FP_ROCPD_SCHEMA_MAJOR) {
            rc = fp_err_set(err, FP_BAD_INPUT, "%s: rocpd schema_version %.40s is not supported (flyprof reads "
                                               "schema %d.x, ROCm 7.0-7.2; 4.x dispatches have no agent_id)",
                            path, v ? (const char *)v : "(null)", FP_ROCPD_SCHEMA_MAJOR);
            fp_err_help(err, "convert with the rocpd of the ROCm that wrote it (`rocpd convert -f csv`) and pass the "
                             "CSVs, or collect with ROCm 7.0-7.2");
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* One results.db: each guid a pass of its own, or every row into pass `forced`
 * (SIZE_MAX: per guid) when the file is one process of a run. */
static int load_rocpd(fp_pmc_set *s, const char *path, bool allow_empty, size_t forced, fp_err *err)
{
    if (fp_is_dir(path))
        return fp_err_set(err, FP_IO_ERROR, "%s: not a regular file", path);
    if (!fp_is_file(path)) {
        fp_err_set(err, FP_NO_ARTIFACT, "%s: no such file", path);
        return fp_err_help(err, "pass the *_results.db written by rocprofv3 -f rocpd");
    }
    sqlite3 *db = NULL;
    /* read-only (never immutable: a WAL database keeps its last rows in the -wal file) */
    char *uri = sqlite3_mprintf("file:%s?mode=ro", path);
    /* a path with '?' or '#' would be misread as URI syntax: fall back to a plain open */
    int rc = strpbrk(path, "?#%") ? sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL)
                                  : sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    sqlite3_free(uri);
    if (rc != SQLITE_OK) {
        fp_err_set(err, FP_IO_ERROR, "%s: cannot open: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return -1;
    }
    if (fp_rocpd_schema_check(db, path, err) != 0) {
        sqlite3_close(db);
        return -1;
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, counters_sql, -1, &st, NULL) != SQLITE_OK) {
        fp_err_set(err, FP_BAD_INPUT, "%s: not a rocpd results database (%s)", path, sqlite3_errmsg(db));
        fp_err_help(err, "expected the rocpd views rocpd_pmc_event, rocpd_info_pmc, rocpd_kernel_dispatch, "
                         "rocpd_info_kernel_symbol (rocprofv3 -f rocpd, ROCm >= 7.0)");
        sqlite3_finalize(st);
        sqlite3_close(db);
        return -1;
    }
    char *last_guid = NULL;
    size_t pass = 0, rows = 0;
    long long file_pid = -1;
    int step;
    int result = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *guid = col_text(st, 0);
        if (forced != SIZE_MAX) {
            pass = forced;
        } else if (!last_guid || strcmp(last_guid, guid)) {
            if (s->npasses >= FP_PMC_MAX_PASSES) {
                result = fp_err_set(err, FP_BAD_INPUT, "%s: more than %d runs (passes)", path, FP_PMC_MAX_PASSES);
                break;
            }
            free(last_guid);
            last_guid = strdup(guid);
            char *src = sqlite3_mprintf("%s#%s", path, guid);
            pass = fp_pmc_add_pass(s, src);
            sqlite3_free(src);
        }
        long long id = col_int(st, 1);
        int vt = sqlite3_column_type(st, 13);
        double v = sqlite3_column_double(st, 13);
        char vbuf[64];
        snprintf(vbuf, sizeof vbuf, "%.17g", v);
        double checked;
        /* SUM() reads text as 0: count the non-numeric instance rows instead */
        if (id < 0 || (vt != SQLITE_INTEGER && vt != SQLITE_FLOAT) || sqlite3_column_int64(st, 14) != 0 ||
            !*col_text(st, 12) ||
            fp_pmc_parse_value(vbuf, &checked) || ++rows > FP_PMC_MAX_ROWS) {
            result = fp_err_set(err, FP_BAD_INPUT,
                                "%s: bad counter row (dispatch %lld, counter '%s'): values must be numbers in "
                                "[0, 1e18]",
                                path, id, col_text(st, 12));
            break;
        }
        char agent[32];
        agent_name(st, 16, agent, sizeof agent);
        if (!agent[0]) /* no agent row: the raw id keeps dispatches of different agents apart */
            snprintf(agent, sizeof agent, "%lld", col_int(st, 11));
        long long pid = col_int(st, 15);
        if (file_pid < 0)
            file_pid = pid;
        fp_pmc_dispatch *d = fp_pmc_dispatch_get(s, pass, pid, agent, id, col_text(st, 2));
        d->start_ns = col_int(st, 3);
        d->end_ns = col_int(st, 4);
        d->grid_size = col_int(st, 5);
        d->wg_size = col_int(st, 6);
        d->lds_bytes = col_int(st, 7);
        d->vgpr = col_int(st, 8);
        d->accum_vgpr = col_int(st, 9);
        d->sgpr = col_int(st, 10);
        if (fp_pmc_add(d, col_text(st, 12), checked)) {
            result = fp_err_set(err, FP_BAD_INPUT, "%s: more than %d distinct counters in dispatch %lld", path,
                                FP_PMC_MAX_COUNTERS, id);
            break;
        }
    }
    if (result == 0 && step != SQLITE_DONE)
        result = fp_err_set(err, FP_BAD_INPUT, "%s: corrupt database: %s", path, sqlite3_errmsg(db));
    if (result == 0 && rows == 0 && !allow_empty) {
        result = fp_err_set(err, FP_BAD_INPUT, "%s: the database holds no counter rows", path);
        fp_err_help(err, "was rocprofv3 run with --pmc (or a pmc job)? A kernel-trace-only database has no "
                         "rocpd_pmc_event rows");
    }
    free(last_guid);
    sqlite3_finalize(st);
    if (result == 0 && forced != SIZE_MAX)
        fp_pmc_add_file(s, forced, file_pid, path);
    if (result == 0)
        read_agents(db, s);
    sqlite3_close(db);
    return result;
}

int fp_pmc_load_rocpd_ex(fp_pmc_set *s, const char *path, bool allow_empty, fp_err *err)
{
    return load_rocpd(s, path, allow_empty, SIZE_MAX, err);
}

int fp_pmc_load_rocpd_run(fp_pmc_set *s, const char *const *paths, size_t n, bool allow_empty, fp_err *err)
{
    if (n == 0)
        return 0;
    if (s->npasses >= FP_PMC_MAX_PASSES)
        return fp_err_set(err, FP_BAD_INPUT, "%s: more than %d runs (passes)", paths[0], FP_PMC_MAX_PASSES);
    size_t pass = fp_pmc_add_pass(s, paths[0]), nd0 = s->nd;
    /* a process without counters (a launcher) is no error; the run as a whole needs rows */
    for (size_t i = 0; i < n; i++)
        if (load_rocpd(s, paths[i], true, pass, err))
            return -1;
    if (!allow_empty && s->nd == nd0) {
        fp_err_set(err, FP_BAD_INPUT, "%s: the database holds no counter rows", paths[0]);
        return fp_err_help(err, "was rocprofv3 run with --pmc (or a pmc job)? A kernel-trace-only database has no "
                                "rocpd_pmc_event rows");
    }
    return 0;
}
