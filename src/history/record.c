/*
 * record.c - a reported bundle -> a history record (see history.h), and the
 * content hash that makes adding the same bundle twice a no-op.
 *
 * Only figures are kept, never paths into the bundle: an entry must stay
 * meaningful after the bundle is gone (CI runners are wiped).
 */
#include "flyprof/history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/sha256.h"

static void add_num_or_null(cJSON *o, const char *k, const cJSON *src, const char *sk)
{
    double v;
    if (fp_jnum(src, sk, &v) && isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static void add_bool_or_null(cJSON *o, const char *k, const cJSON *src, const char *sk)
{
    const cJSON *b = fp_jget(src, sk);
    if (cJSON_IsBool(b))
        fp_json_add_bool(o, k, cJSON_IsTrue(b));
    else
        cJSON_AddNullToObject(o, k);
}

static void iso_utc(time_t t, char buf[32])
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Optional JSON artifact of the bundle: absent -> NULL; present but broken -> error. */
static int load_opt(const char *bundle, const char *name, cJSON **out, fp_err *err)
{
    *out = NULL;
    char *p = fp_path_join(bundle, name);
    int rc = 0;
    if (fp_is_file(p)) {
        rc = fp_json_parse_file(p, out, err);
        if (rc == 0 && !cJSON_IsObject(*out)) {
            cJSON_Delete(*out);
            *out = NULL;
            rc = fp_err_set(err, FP_BAD_INPUT, "%s is not a JSON object", p);
        }
    }
    free(p);
    return rc;
}

/* Numeric members of obj (one level; objects with a numeric "value" count) as
 * metrics "<prefix>.<key>". */
static void add_metrics(cJSON *m, const char *prefix, const cJSON *obj)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, obj)
    {
        double v;
        char key[256];
        snprintf(key, sizeof key, "%s.%s", prefix, it->string ? it->string : "?");
        if (cJSON_IsNumber(it))
            v = it->valuedouble;
        else if (!fp_jnum(it, "value", &v))
            continue;
        if (isfinite(v) && !cJSON_GetObjectItemCaseSensitive(m, key))
            cJSON_AddNumberToObject(m, key, v);
    }
}

int fp_history_record_from_bundle(const char *bundle, const char *wt_commit, int wt_dirty, const char *wt_branch,
                                  cJSON **out, fp_err *err)
{
    *out = NULL;
    if (!fp_is_dir(bundle)) {
        fp_err_set(err, FP_MISSING_PREREQ, "bundle %s does not exist", bundle);
        return fp_err_help(err, "pass a reported bundle dir (flyprof run / flyprof report --bundle DIR)");
    }
    char *rp = fp_path_join(bundle, "report.json");
    if (!fp_is_file(rp)) {
        fp_err_set(err, FP_MISSING_PREREQ, "%s has no report.json", bundle);
        fp_err_help(err, "run `flyprof report --bundle %s` first", bundle);
        free(rp);
        return -1;
    }
    cJSON *rep = NULL, *cap = NULL, *bub = NULL, *cnt = NULL;
    int rc = fp_json_parse_file(rp, &rep, err);
    if (rc == 0 && (!cJSON_IsObject(rep) || !cJSON_IsObject(fp_jget(rep, "totals")) ||
                    !cJSON_IsArray(fp_jget(rep, "classes")) || !fp_json_get_str(rep, "kernel")))
        rc = fp_err_set(err, FP_BAD_INPUT, "%s is not a flyprof report.json (no kernel/totals/classes)", rp);
    if (rc == 0)
        rc = load_opt(bundle, "capture.json", &cap, err);
    if (rc == 0)
        rc = load_opt(bundle, "bubbles.json", &bub, err);
    if (rc == 0)
        rc = load_opt(bundle, "counters.json", &cnt, err);
    if (rc) {
        free(rp);
        cJSON_Delete(rep);
        cJSON_Delete(cap);
        cJSON_Delete(bub);
        cJSON_Delete(cnt);
        return -1;
    }

    cJSON *r = cJSON_CreateObject();
    fp_json_add_int(r, "schema", FP_HISTORY_RECORD_SCHEMA);
    cJSON_AddNullToObject(r, "hash"); /* filled last */
    fp_json_add_str(r, "kernel", fp_json_get_str(rep, "kernel"));
    /* shape: what the capture was asked for ("" when not recorded) */
    const char *shape = fp_json_get_str(fp_jget(rep, "workload"), "shape");
    if (!shape)
        shape = fp_json_get_str(cap, "shape");
    fp_json_add_str(r, "shape", shape ? shape : "");
    const char *arch = fp_json_get_str(rep, "arch");
    fp_json_add_str(r, "arch", arch ? arch : fp_json_get_str(cap, "arch"));
    fp_json_add_str(r, "product", fp_json_get_str(rep, "product"));

    /* duration per call: report's workload, else counters.json's measurement */
    cJSON *w = cJSON_AddObjectToObject(r, "workload");
    double t;
    if (fp_jnum(fp_jget(rep, "workload"), "time_ns_per_call", &t) && t > 0)
        cJSON_AddNumberToObject(w, "time_ns_per_call", t);
    else if (fp_jnum(cnt, "duration_ns", &t) && t > 0)
        cJSON_AddNumberToObject(w, "time_ns_per_call", t);
    else
        cJSON_AddNullToObject(w, "time_ns_per_call");
    const cJSON *rt = fp_jget(rep, "totals");
    cJSON *tot = cJSON_AddObjectToObject(r, "totals");
    add_num_or_null(tot, "stall_pct", rt, "stall_pct");
    add_num_or_null(tot, "exposed_pct", rt, "exposed_pct");
    add_num_or_null(tot, "waves", rt, "waves");
    add_num_or_null(tot, "latency", rt, "latency");
    const char *bound = fp_json_get_str(rep, "bound_type");
    if (!bound)
        bound = fp_json_get_str(fp_jget(rep, "bound"), "bound");
    fp_json_add_str(r, "bound", bound);
    fp_json_add_str(r, "bound_rule", fp_json_get_str(fp_jget(rep, "bound"), "rule"));

    /* launch fill and speed of light: report.json sections that may be absent */
    const cJSON *rl = fp_jget(rep, "launch"), *rs = fp_jget(rep, "sol");
    cJSON *la = cJSON_AddObjectToObject(r, "launch");
    add_num_or_null(la, "fill_pct", rl, "fill_pct");
    add_bool_or_null(la, "underfilled", rl, "underfilled");
    add_num_or_null(la, "workgroups", rl, "workgroups");
    cJSON *sol = cJSON_AddObjectToObject(r, "sol");
    add_num_or_null(sol, "hbm_pct", fp_jget(rs, "hbm"), "pct_of_peak");
    add_num_or_null(sol, "mfma_busy_pct", fp_jget(rs, "mfma"), "busy_pct");
    add_num_or_null(sol, "valu_busy_pct", fp_jget(rs, "valu"), "busy_pct");

    cJSON *cls = cJSON_AddArrayToObject(r, "classes");
    const cJSON *it;
    cJSON_ArrayForEach(it, fp_jget(rep, "classes"))
    {
        const char *name = fp_json_get_str(it, "class");
        if (!name)
            continue;
        cJSON *c = cJSON_CreateObject();
        fp_json_add_str(c, "class", name);
        add_num_or_null(c, "cycles", it, "cycles");
        add_num_or_null(c, "exposed", it, "exposed");
        add_num_or_null(c, "pct", it, "pct");
        cJSON_AddItemToArray(cls, c);
    }
    cJSON *rules = cJSON_AddArrayToObject(r, "rules");
    cJSON_ArrayForEach(it, fp_jget(rep, "recommendations"))
    {
        const char *name = fp_json_get_str(it, "rule");
        double rank;
        if (!name || !fp_jnum(it, "rank", &rank))
            continue;
        cJSON *c = cJSON_CreateObject();
        fp_json_add_int(c, "rank", (int64_t)rank);
        fp_json_add_str(c, "rule", name);
        fp_json_add_str(c, "bubble_class", fp_json_get_str(it, "bubble_class"));
        add_num_or_null(c, "est_gain_pct", it, "est_gain_pct");
        cJSON_AddItemToArray(rules, c);
    }

    /* counters metrics and the whole-trace wave-state shares */
    cJSON *m = cJSON_AddObjectToObject(r, "metrics");
    add_metrics(m, "counters", fp_jget(cnt, "metrics"));
    add_metrics(m, "bubbles.wave_states_pct", fp_jget(fp_jget(bub, "wave_states"), "pct"));
    const cJSON *bt = fp_jget(bub, "totals");
    static const char *const bkeys[] = {"idle", "issue", "hidden", "hit"};
    for (size_t i = 0; i < sizeof bkeys / sizeof bkeys[0]; i++) {
        double v;
        char key[64];
        snprintf(key, sizeof key, "bubbles.%s", bkeys[i]);
        if (fp_jnum(bt, bkeys[i], &v) && isfinite(v))
            cJSON_AddNumberToObject(m, key, v);
    }

    /* provenance: the capture's own record of the worktree (libgit2 at capture
     * time), else what the caller read from --worktree */
    cJSON *p = cJSON_AddObjectToObject(r, "provenance");
    const cJSON *cw = fp_jget(cap, "worktree");
    const char *commit = fp_json_get_str(cw, "commit");
    const cJSON *dirty = fp_jget(cw, "dirty");
    const char *branch = fp_json_get_str(cw, "branch");
    if (!commit) {
        commit = wt_commit;
        branch = wt_branch;
        dirty = NULL;
    }
    fp_json_add_str(p, "commit", commit);
    if (cJSON_IsBool(dirty))
        fp_json_add_bool(p, "dirty", cJSON_IsTrue(dirty));
    else if (!fp_json_get_str(cw, "commit") && wt_commit && wt_dirty >= 0)
        fp_json_add_bool(p, "dirty", wt_dirty);
    else
        cJSON_AddNullToObject(p, "dirty");
    fp_json_add_str(p, "branch", branch);
    fp_json_add_str(p, "flyprof_version", FLYPROF_VERSION);
    /* capture time: capture.json's captured_at, else when the capture (or the
     * report) file was written */
    char when[32];
    const char *ca = fp_json_get_str(cap, "captured_at");
    if (ca) {
        snprintf(when, sizeof when, "%s", ca);
    } else {
        char *cp = fp_path_join(bundle, "capture.json");
        struct stat sb;
        if (stat(cp, &sb) != 0 && stat(rp, &sb) != 0)
            sb.st_mtime = time(NULL);
        iso_utc(sb.st_mtime, when);
        free(cp);
    }
    fp_json_add_str(p, "captured_at", when);
    const char *host = fp_json_get_str(cap, "host");
    char hn[256] = "";
    if (!host && gethostname(hn, sizeof hn - 1) == 0)
        host = hn;
    fp_json_add_str(p, "host", host && host[0] ? host : NULL);
    char *abs = fp_path_abs(bundle);
    fp_json_add_str(p, "bundle", abs);
    free(abs);
    char now[32];
    iso_utc(time(NULL), now);
    fp_json_add_str(r, "added_at", now);

    char hash[65];
    fp_history_hash(r, hash);
    cJSON_ReplaceItemInObjectCaseSensitive(r, "hash", cJSON_CreateString(hash));
    free(rp);
    cJSON_Delete(rep);
    cJSON_Delete(cap);
    cJSON_Delete(bub);
    cJSON_Delete(cnt);
    *out = r;
    return 0;
}

/* ---- content hash: a canonical rendering of the figures ---- */

static void canon_num(fp_sb *s, const cJSON *o, const char *k)
{
    double v;
    if (fp_jnum(o, k, &v) && isfinite(v))
        fp_sb_addf(s, "%.17g|", v);
    else
        fp_sb_adds(s, "null|");
}

static void canon_str(fp_sb *s, const cJSON *o, const char *k)
{
    const char *v = fp_json_get_str(o, k);
    if (v) {
        /* length-prefixed: no separator inside a string can forge another record */
        fp_sb_addf(s, "%zu:", strlen(v));
        fp_sb_adds(s, v);
        fp_sb_addc(s, '|');
    } else {
        fp_sb_adds(s, "null|");
    }
}

static void canon_bool(fp_sb *s, const cJSON *o, const char *k)
{
    const cJSON *b = fp_jget(o, k);
    fp_sb_adds(s, cJSON_IsBool(b) ? (cJSON_IsTrue(b) ? "true|" : "false|") : "null|");
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

void fp_history_hash(const cJSON *r, char out[65])
{
    fp_sb s;
    fp_sb_init(&s);
    fp_sb_adds(&s, "flyprof-history-record-1|");
    canon_str(&s, r, "kernel");
    canon_str(&s, r, "shape");
    canon_str(&s, r, "arch");
    canon_str(&s, r, "product");
    canon_num(&s, fp_jget(r, "workload"), "time_ns_per_call");
    const cJSON *t = fp_jget(r, "totals");
    canon_num(&s, t, "stall_pct");
    canon_num(&s, t, "exposed_pct");
    canon_num(&s, t, "waves");
    canon_num(&s, t, "latency");
    canon_str(&s, r, "bound");
    canon_str(&s, r, "bound_rule");
    const cJSON *la = fp_jget(r, "launch"), *sol = fp_jget(r, "sol");
    canon_num(&s, la, "fill_pct");
    canon_bool(&s, la, "underfilled");
    canon_num(&s, la, "workgroups");
    canon_num(&s, sol, "hbm_pct");
    canon_num(&s, sol, "mfma_busy_pct");
    canon_num(&s, sol, "valu_busy_pct");
    const cJSON *it;
    fp_sb_adds(&s, "classes|");
    cJSON_ArrayForEach(it, fp_jget(r, "classes"))
    {
        canon_str(&s, it, "class");
        canon_num(&s, it, "cycles");
        canon_num(&s, it, "exposed");
        canon_num(&s, it, "pct");
    }
    fp_sb_adds(&s, "rules|");
    cJSON_ArrayForEach(it, fp_jget(r, "rules"))
    {
        canon_num(&s, it, "rank");
        canon_str(&s, it, "rule");
        canon_str(&s, it, "bubble_class");
        canon_num(&s, it, "est_gain_pct");
    }
    /* metrics by name (the database returns them sorted) */
    fp_sb_adds(&s, "metrics|");
    const cJSON *m = fp_jget(r, "metrics");
    size_t n = 0;
    cJSON_ArrayForEach(it, m) n++;
    const cJSON **v = calloc(n ? n : 1, sizeof *v);
    if (!v)
        abort();
    n = 0;
    cJSON_ArrayForEach(it, m) if (it->string) v[n++] = it;
    qsort(v, n, sizeof *v, name_cmp);
    for (size_t i = 0; i < n; i++) {
        fp_sb_addf(&s, "%zu:%s|", strlen(v[i]->string), v[i]->string);
        if (cJSON_IsNumber(v[i]) && isfinite(v[i]->valuedouble))
            fp_sb_addf(&s, "%.17g|", v[i]->valuedouble);
        else
            fp_sb_adds(&s, "null|");
    }
    free(v);
    /* where the capture came from and when: not where or by whom it was added */
    const cJSON *p = fp_jget(r, "provenance");
    canon_str(&s, p, "commit");
    canon_bool(&s, p, "dirty");
    canon_str(&s, p, "branch");
    canon_str(&s, p, "captured_at");
    fp_sha256_hex(s.buf, s.len, out);
    fp_sb_free(&s);
}
