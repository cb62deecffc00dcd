/*
 * test_history.c - the history database and its pure parts: SHA-256 vectors,
 * the content hash (what it covers and what it ignores), the forward migration
 * 1 -> 2 keeping entries, foreign / newer / empty files refused, records
 * round-tripping through the database, baselines, --since parsing, and the
 * verdict + gate check shares with diff.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flyprof/diff.h"
#include "flyprof/history.h"
#include "flyprof/history_doc.h"
#include "flyprof/json.h"
#include "flyprof/model.h"
#include "flyprof/sha256.h"
#include "flyprof/trend.h"

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/fp_hist_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *tpath(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static void test_sha256_vectors(void **state)
{
    (void)state;
    static const struct {
        size_t n;
        char c;
        const char *hex;
    } v[] = {
        {0, 'a', "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {55, 'a', "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"}, /* padding fits one block */
        {56, 'a', "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"}, /* needs a second */
        {64, 'a', "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
        {119, 'a', "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
    };
    char buf[200], out[65];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        memset(buf, v[i].c, v[i].n);
        fp_sha256_hex(buf, v[i].n, out);
        assert_string_equal(out, v[i].hex);
    }
    fp_sha256_hex("abc", 3, out);
    assert_string_equal(out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

/* A record as record.c builds it (a full document, through the strict reader). */
static void make_record_into(fp_history_record *out, const char *kernel, const char *shape, double t_ns, const char *commit, const char *when)
{
    char js[2048];
    snprintf(js, sizeof js,
             "{\"schema\":1,\"hash\":null,\"kernel\":\"%s\",\"shape\":\"%s\",\"arch\":\"gfx950\",\"product\":\"MI350X\","
             "\"workload\":{\"time_ns_per_call\":%g},"
             "\"totals\":{\"stall_pct\":60,\"exposed_pct\":50,\"waves\":2,\"latency\":10000},"
             "\"bound\":\"memory\",\"bound_rule\":\"trace_vmem\","
             "\"launch\":{\"fill_pct\":null,\"underfilled\":null,\"workgroups\":null},"
             "\"sol\":{\"hbm_pct\":41.5,\"mfma_busy_pct\":null,\"valu_busy_pct\":null},"
             "\"classes\":[{\"class\":\"vmcnt\",\"cycles\":5000,\"exposed\":5000,\"pct\":83.33},"
             "{\"class\":\"valu\",\"cycles\":1000,\"exposed\":0,\"pct\":16.67}],"
             "\"rules\":[{\"rank\":1,\"rule\":\"vmem_prefetch\",\"bubble_class\":\"vmcnt\",\"est_gain_pct\":40.5}],"
             "\"metrics\":{\"counters.l2_hit_pct\":71.25,\"bubbles.idle\":448},"
             "\"provenance\":{\"commit\":\"%s\",\"dirty\":false,\"branch\":\"main\",\"flyprof_version\":\"0.1.0\","
             "\"captured_at\":\"%s\",\"host\":\"ci-1\",\"bundle\":\"/b\"},\"added_at\":\"2026-11-30T00:00:00Z\"}",
             kernel, shape, t_ns, commit, when);
    cJSON *j = cJSON_Parse(js);
    assert_non_null(j);
    fp_err err = {0};
    if (fp_model_read(&fp_history_record_schema, j, out, "record", &err) != 0)
        fail_msg("%s", err.message);
    cJSON_Delete(j);
    char h[65];
    fp_history_hash(out, h);
    out->hash = fp_model_strdup(h);
}

static fp_history_record *make_record(const char *kernel, const char *shape, double t_ns, const char *commit,
                                      const char *when)
{
    fp_history_record *r = calloc(1, sizeof *r);
    assert_non_null(r);
    make_record_into(r, kernel, shape, t_ns, commit, when);
    return r;
}

static void rec_delete(fp_history_record *r)
{
    fp_history_record_free(r);
    free(r);
}

static void set_str(char **slot, const char *v)
{
    free(*slot);
    *slot = fp_model_strdup(v);
}

static void test_hash_covers_figures_not_where_added(void **state)
{
    (void)state;
    fp_history_record *a = make_record("k", "s", 20000, "abcdef0123", "2026-11-01T00:00:00Z");
    char h0[65], h1[65];
    fp_history_hash(a, h0);
    /* where/when/by which flyprof it was added: same entry */
    set_str(&a->provenance.host, "other");
    set_str(&a->provenance.bundle, "/elsewhere");
    set_str(&a->provenance.flyprof_version, "9.9");
    set_str(&a->added_at, "2030-01-01T00:00:00Z");
    fp_history_hash(a, h1);
    assert_string_equal(h0, h1);
    /* a figure, the commit or the capture time: another entry */
    a->workload.time_ns_per_call = fp_optd_of(20001);
    fp_history_hash(a, h1);
    assert_string_not_equal(h0, h1);
    rec_delete(a);
    a = make_record("k", "s", 20000, "abcdef0124", "2026-11-01T00:00:00Z");
    fp_history_hash(a, h1);
    assert_string_not_equal(h0, h1);
    rec_delete(a);
    /* metrics in another order: the same hash */
    a = make_record("k", "s", 20000, "abcdef0123", "2026-11-01T00:00:00Z");
    assert_int_equal(a->nmetrics, 2);
    fp_history_metric m0 = a->metrics[0];
    a->metrics[0] = a->metrics[1];
    a->metrics[1] = m0;
    assert_string_equal(a->metrics[0].key, "bubbles.idle");
    fp_history_hash(a, h1);
    assert_string_equal(h0, h1);
    rec_delete(a);
}

/* A record's JSON form (history show / export lines) through its table: the bytes
 * back, and typed errors with the key path. */
static void test_record_doc(void **state)
{
    (void)state;
    fp_history_record *a = make_record("k", "s", 20000, "abcdef0123", "2026-11-01T00:00:00Z");
    cJSON *j = fp_model_write(&fp_history_record_schema, a);
    char *t1 = fp_json_print_bytes(j, false, NULL);
    assert_null(strstr(t1, "\"id\"")); /* not stored yet */
    assert_non_null(strstr(t1, "\"metrics\":{\"counters.l2_hit_pct\":71.25,\"bubbles.idle\":448},"));
    fp_history_record back;
    fp_err err = {0};
    assert_int_equal(fp_model_read(&fp_history_record_schema, j, &back, "x.jsonl:1", &err), 0);
    cJSON *j2 = fp_model_write(&fp_history_record_schema, &back);
    char *t2 = fp_json_print_bytes(j2, false, NULL);
    assert_string_equal(t1, t2);
    free(t1);
    free(t2);
    cJSON_Delete(j2);
    fp_history_record_free(&back);
    cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "metrics");
    cJSON_AddStringToObject(m, "counters.x", "high");
    assert_int_equal(fp_model_read(&fp_history_record_schema, j, &back, "x.jsonl:1", &err), -1);
    assert_string_equal(err.message, "x.jsonl:1: $.metrics.counters.x: expected a number or null, got a string");
    cJSON_DeleteItemFromObject(m, "counters.x");
    cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "totals");
    cJSON_AddItemToObject(t, "stall", cJSON_DetachItemFromObject(t, "stall_pct"));
    assert_int_equal(fp_model_read(&fp_history_record_schema, j, &back, "x.jsonl:1", &err), -1);
    assert_string_equal(err.message, "x.jsonl:1: $.totals.stall: unknown key");
    cJSON_DeleteItemFromObject(t, "stall");
    assert_int_equal(fp_model_read(&fp_history_record_schema, j, &back, "x.jsonl:1", &err), -1);
    assert_string_equal(err.message, "x.jsonl:1: $.totals.stall_pct: missing");
    cJSON_Delete(j);
    rec_delete(a);
}

static void test_roundtrip_and_idempotent(void **state)
{
    (void)state;
    fp_err err = {0};
    fp_history *h;
    assert_int_equal(fp_history_open(tpath("rt.db"), true, &h, &err), 0);
    assert_int_equal(fp_history_schema_version(h), FP_HISTORY_SCHEMA);
    fp_history_record *a = make_record("k", "s", 20000, "aaaa1111", "2026-11-01T00:00:00Z");
    int64_t id;
    bool added;
    assert_int_equal(fp_history_insert(h, a, &id, &added, &err), 0);
    assert_true(added);
    assert_int_equal(id, 1);
    assert_int_equal(fp_history_insert(h, a, &id, &added, &err), 0);
    assert_false(added);
    assert_int_equal(id, 1);
    fp_history_record back;
    assert_int_equal(fp_history_get(h, 1, &back, &err), 0);
    /* the record read back hashes to the stored hash (import verifies this) */
    char hb[65];
    fp_history_hash(&back, hb);
    assert_string_equal(hb, a->hash);
    assert_int_equal((int)back.sol.hbm_pct.v * 10, 410);
    assert_false(back.launch.fill_pct.known);
    assert_string_equal(back.classes[1].cls, "valu");
    assert_string_equal(back.metrics[1].key, "counters.l2_hit_pct"); /* by name */
    assert_int_equal((int)back.metrics[1].v.v, 71);
    fp_history_record_free(&back);
    assert_int_equal(fp_history_get(h, 7, &back, &err), -1);
    assert_int_equal(err.code, FP_NO_ARTIFACT);
    /* an invalid record is refused before anything is written */
    fp_history_record bad = {0};
    bad.hash = fp_model_strdup("xyz");
    bad.kernel = fp_model_strdup("k");
    assert_int_equal(fp_history_insert(h, &bad, &id, &added, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    fp_history_record_free(&bad);
    rec_delete(a);
    fp_history_close(h);
}

static void test_baseline(void **state)
{
    (void)state;
    fp_err err = {0};
    fp_history *h;
    assert_int_equal(fp_history_open(tpath("bl.db"), true, &h, &err), 0);
    fp_history_record all[3];
    make_record_into(&all[0], "k", "s", 20000, "aaaa1111", "2026-11-01T00:00:00Z");
    make_record_into(&all[1], "k", "s", 26000, "bbbb2222", "2026-11-02T00:00:00Z");
    make_record_into(&all[2], "k", "other", 1000, "cccc3333", "2026-11-03T00:00:00Z");
    size_t added;
    assert_int_equal(fp_history_insert_many(h, all, 3, &added, &err), 0);
    assert_int_equal(added, 3);
    fp_history_record b;
    /* latest of the same kernel + shape, never the bundle itself */
    assert_int_equal(fp_history_baseline(h, "k", "s", "latest", NULL, &b, &err), 0);
    assert_int_equal((int)b.id.v, 2);
    fp_history_record_free(&b);
    assert_int_equal(fp_history_baseline(h, "k", "s", NULL, all[1].hash, &b, &err), 0);
    assert_int_equal((int)b.id.v, 1);
    fp_history_record_free(&b);
    assert_int_equal(fp_history_baseline(h, "k", "s", "AAAA", NULL, &b, &err), 0); /* commit prefix, any case */
    assert_int_equal((int)b.id.v, 1);
    fp_history_record_free(&b);
    assert_int_equal(fp_history_baseline(h, "k", "s", "2", NULL, &b, &err), 0); /* entry id */
    assert_int_equal((int)b.id.v, 2);
    fp_history_record_free(&b);
    assert_int_equal(fp_history_baseline(h, "k", "s", "3", NULL, &b, &err), -1); /* id of another shape */
    assert_int_equal(err.code, FP_NO_ARTIFACT);
    assert_int_equal(fp_history_baseline(h, "k", "nope", NULL, NULL, &b, &err), -1);
    assert_int_equal(err.code, FP_NO_BASELINE); /* nothing of the series: a first run, not a wrong ref */
    assert_int_equal(fp_history_baseline(h, "k", "s", "not-a-ref", NULL, &b, &err), -1);
    assert_int_equal(err.code, FP_BAD_ARGS);
    /* query: the latest N, oldest first */
    fp_history_filter f = {"k", NULL, NULL, 2};
    fp_history_records recs;
    assert_int_equal(fp_history_query(h, &f, &recs, &err), 0);
    assert_int_equal(recs.n, 2);
    assert_int_equal((int)recs.items[0].id.v, 2);
    assert_int_equal((int)recs.items[1].id.v, 3);
    /* trend: top classes by mean share, CSV row per entry */
    char **top;
    size_t ntop;
    fp_trend_top_classes(recs.items, recs.n, 1, &top, &ntop);
    assert_int_equal(ntop, 1);
    assert_string_equal(top[0], "vmcnt");
    char *csv = fp_trend_csv(recs.items, recs.n, top, ntop);
    assert_non_null(strstr(csv, "\n2,2026-11-02T00:00:00Z,bbbb2222,false,26000,60,50,memory,83.33\n"));
    free(csv);
    free(top[0]);
    free(top);
    fp_history_records_free(&recs);
    for (size_t i = 0; i < 3; i++)
        fp_history_record_free(&all[i]);
    fp_history_close(h);
}

/* check's baseline policy (auto): pinned, else the median of the last N of kernel + shape
 * + arch, never the bundle itself; rm and pin/unpin. */
static void test_pin_rm_policy(void **state)
{
    (void)state;
    fp_err err = {0};
    fp_history *h;
    assert_int_equal(fp_history_open(tpath("pin.db"), true, &h, &err), 0);
    /* durations 30, 10, 50, 20, 40 us on days 1..5; a sixth entry on another arch */
    static const double t[6] = {30000, 10000, 50000, 20000, 40000, 1000};
    fp_history_record all[6];
    for (int i = 0; i < 6; i++) {
        char c[16], when[32];
        snprintf(c, sizeof c, "%04d%04d", i, i);
        snprintf(when, sizeof when, "2026-11-0%dT00:00:00Z", i + 1);
        make_record_into(&all[i], "k", "s", t[i], c, when);
    }
    free(all[5].arch);
    all[5].arch = fp_model_strdup("gfx942");
    char hsh[65];
    fp_history_hash(&all[5], hsh);
    free(all[5].hash);
    all[5].hash = fp_model_strdup(hsh);
    size_t added;
    assert_int_equal(fp_history_insert_many(h, all, 6, &added, &err), 0);
    assert_int_equal(added, 6);
    fp_history_record cur, b;
    make_record_into(&cur, "k", "s", 99000, "ffff0000", "2026-11-09T00:00:00Z");
    char how[128];
    /* median of the last 5 of gfx950 (30, 10, 50, 20, 40 -> 30: entry 1); gfx942's 1 us is another series */
    assert_int_equal(fp_history_baseline_auto(h, &cur, 5, &b, how, &err), 0);
    assert_int_equal((int)b.id.v, 1);
    assert_string_equal(how, "median of the last 5");
    fp_history_record_free(&b);
    /* the last 2 (20, 40): the lower middle, 20 = entry 4 */
    assert_int_equal(fp_history_baseline_auto(h, &cur, 2, &b, how, &err), 0);
    assert_int_equal((int)b.id.v, 4);
    fp_history_record_free(&b);
    /* a pin wins until unpinned; pinning another entry of the series replaces it */
    assert_int_equal(fp_history_pin(h, 3, true, &err), 0);
    assert_int_equal(fp_history_pin(h, 2, true, &err), 0);
    int64_t *ids;
    size_t nids;
    assert_int_equal(fp_history_pinned_ids(h, &ids, &nids, &err), 0);
    assert_int_equal(nids, 1);
    assert_int_equal((int)ids[0], 2);
    free(ids);
    assert_int_equal(fp_history_baseline_auto(h, &cur, 5, &b, how, &err), 0);
    assert_int_equal((int)b.id.v, 2);
    assert_string_equal(how, "pinned");
    fp_history_record_free(&b);
    /* the pinned entry is never its own baseline: the bundle that is entry 2 gets the median of the others */
    assert_int_equal(fp_history_baseline_auto(h, &all[1], 5, &b, how, &err), 0);
    assert_string_equal(how, "median of the last 4");
    assert_int_equal((int)b.id.v, 1); /* 30, 50, 20, 40 -> lower middle 30 */
    fp_history_record_free(&b);
    assert_int_equal(fp_history_pin(h, 3, false, &err), -1); /* not pinned */
    assert_int_equal(err.code, FP_NO_ARTIFACT);
    fp_err_clear(&err);
    /* rm drops the entry, its rows and its pin */
    fp_history_record gone;
    assert_int_equal(fp_history_rm(h, 2, &gone, &err), 0);
    assert_string_equal(gone.provenance.commit, "00010001");
    fp_history_record_free(&gone);
    assert_int_equal(fp_history_get(h, 2, &b, &err), -1);
    assert_int_equal(err.code, FP_NO_ARTIFACT);
    fp_err_clear(&err);
    assert_int_equal(fp_history_pinned_ids(h, &ids, &nids, &err), 0);
    assert_int_equal(nids, 0);
    free(ids);
    assert_int_equal(fp_history_rm(h, 2, NULL, &err), -1);
    assert_int_equal(err.code, FP_NO_ARTIFACT);
    fp_err_clear(&err);
    assert_int_equal(fp_history_baseline_auto(h, &cur, 5, &b, how, &err), 0);
    assert_string_equal(how, "median of the last 4"); /* 30, 50, 20, 40 */
    assert_int_equal((int)b.id.v, 1);
    fp_history_record_free(&b);
    /* another kernel: no baseline */
    free(cur.kernel);
    cur.kernel = fp_model_strdup("k2");
    assert_int_equal(fp_history_baseline_auto(h, &cur, 5, &b, how, &err), -1);
    assert_int_equal(err.code, FP_NO_BASELINE);
    fp_err_clear(&err);
    fp_history_record_free(&cur);
    for (int i = 0; i < 6; i++)
        fp_history_record_free(&all[i]);
    fp_history_close(h);
}

static void sql(const char *path, const char *q)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    int rc = sqlite3_exec(db, q, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fail_msg("%s: %s", q, msg ? msg : "?");
    sqlite3_close(db);
}

static void test_migration_1_to_2(void **state)
{
    (void)state;
    fp_err err = {0};
    const char *p = tpath("v1.db");
    assert_int_equal(fp_history_create_at_version(p, 1, &err), 0);
    /* an entry written by a version-1 flyprof (no launch/sol columns yet) */
    sql(p, "INSERT INTO entries(hash, kernel, shape, time_ns_per_call, captured_at, added_at) VALUES ("
           "'0000000000000000000000000000000000000000000000000000000000000001', 'old_kernel', 's', 1234, "
           "'2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');"
           "INSERT INTO classes(entry_id, class, pct, ord) VALUES (1, 'vmcnt', 90, 0);");
    fp_history *h;
    assert_int_equal(fp_history_open(p, false, &h, &err), 0);
    assert_int_equal(fp_history_schema_version(h), FP_HISTORY_SCHEMA); /* 1 -> 2 -> 3 */
    fp_history_record r;
    assert_int_equal(fp_history_get(h, 1, &r, &err), 0);
    assert_string_equal(r.kernel, "old_kernel");
    assert_int_equal((int)r.workload.time_ns_per_call.v, 1234);
    assert_false(r.launch.fill_pct.known);
    assert_false(r.sol.hbm_pct.known);
    fp_history_record_free(&r);
    /* a v2 entry with launch figures goes next to it */
    fp_history_record *n = make_record("k", "s", 1, "dd", "2026-11-01T00:00:00Z");
    n->launch.fill_pct = fp_optd_of(62.5);
    char hh[65];
    fp_history_hash(n, hh);
    set_str(&n->hash, hh);
    int64_t id;
    bool added;
    assert_int_equal(fp_history_insert(h, n, &id, &added, &err), 0);
    assert_int_equal(fp_history_get(h, id, &r, &err), 0);
    assert_int_equal((int)(r.launch.fill_pct.v * 10), 625);
    fp_history_record_free(&r);
    rec_delete(n);
    fp_history_close(h);
    /* opening again is a no-op at the latest version */
    assert_int_equal(fp_history_open(p, false, &h, &err), 0);
    assert_int_equal(fp_history_schema_version(h), FP_HISTORY_SCHEMA); /* 1 -> 2 -> 3 */
    fp_history_close(h);
}

static void test_refused_files(void **state)
{
    (void)state;
    fp_err err = {0};
    fp_history *h;
    /* another program's database */
    const char *f = tpath("foreign.db");
    sql(f, "CREATE TABLE t(x); INSERT INTO t VALUES (1);");
    assert_int_equal(fp_history_open(f, true, &h, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    assert_null(h);
    /* ours, but from a newer flyprof */
    const char *n = tpath("newer.db");
    assert_int_equal(fp_history_create_at_version(n, FP_HISTORY_SCHEMA, &err), 0);
    sql(n, "PRAGMA user_version=99");
    assert_int_equal(fp_history_open(n, true, &h, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    /* missing and empty files for a reader; a directory */
    assert_int_equal(fp_history_open(tpath("missing.db"), false, &h, &err), -1);
    assert_int_equal(err.code, FP_NO_ARTIFACT);
    assert_int_not_equal(access(tpath("missing.db"), F_OK), 0);
    FILE *e = fopen(tpath("empty.db"), "w");
    fclose(e);
    assert_int_equal(fp_history_open(tpath("empty.db"), false, &h, &err), -1);
    assert_int_equal(err.code, FP_NO_ARTIFACT);
    assert_int_equal(fp_history_open(tmpdir, true, &h, &err), -1);
    assert_int_equal(err.code, FP_BAD_INPUT);
    /* ... but an empty file is a fine new history for a writer */
    assert_int_equal(fp_history_open(tpath("empty.db"), true, &h, &err), 0);
    fp_history_close(h);
}

static void test_since(void **state)
{
    (void)state;
    char b[32];
    fp_err err = {0};
    assert_int_equal(fp_history_since("2026-11-01", b, &err), 0);
    assert_string_equal(b, "2026-11-01T00:00:00Z");
    assert_int_equal(fp_history_since("2026-11-01T10:20", b, &err), 0);
    assert_string_equal(b, "2026-11-01T10:20:00Z");
    assert_int_equal(fp_history_since("2026-11-01T10:20:30Z", b, &err), 0);
    assert_string_equal(b, "2026-11-01T10:20:30Z");
    assert_int_equal(fp_history_since("7d", b, &err), 0);
    assert_int_equal(strlen(b), 20);
    static const char *const bad[] = {"", "yesterday", "2026-13-01", "2026-11-01T", "2026-11-01x", "d", "-1d",
                                      "2026-1-01"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(fp_history_since(bad[i], b, &err), -1);
        assert_int_equal(err.code, FP_BAD_ARGS);
    }
}

static void test_verdict_and_gate(void **state)
{
    (void)state;
    /* the figures of four sides: totals {stall_pct, waves}, workload {time_ns_per_call}, no classes */
    fp_diff_figures fa = {.stall_pct = fp_optd_of(60), .waves = fp_optd_of(2), .time_ns_per_call = fp_optd_of(20000)};
    fp_diff_figures fb = {.stall_pct = fp_optd_of(60), .waves = fp_optd_of(2), .time_ns_per_call = fp_optd_of(26000)};
    fp_diff_figures fc = {.stall_pct = fp_optd_of(60), .waves = fp_optd_of(2), .time_ns_per_call = fp_optd_of(20300)};
    fp_diff_figures fs = {.stall_pct = fp_optd_of(58.5), .waves = fp_optd_of(2), .time_ns_per_call = fp_optd_none()};
    fp_diff_verdict v;
    fp_diff_verdict_of(&fa, &fb, &v);
    assert_string_equal(v.overall, "regressed");
    assert_string_equal(v.basis, "time_ns_per_call");
    assert_int_equal((int)(v.delta * 100 + 0.5), 3000);
    fp_diff_verdict_of(&fb, &fa, &v);
    assert_string_equal(v.overall, "improved");
    fp_diff_verdict_of(&fa, &fc, &v); /* +1.5 %: inside the 2 % floor */
    assert_string_equal(v.overall, "neutral");
    fp_diff_verdict_of(&fa, &fs, &v); /* one side without a duration: stalled share, -1.5 points */
    assert_string_equal(v.basis, "stall_pct");
    assert_string_equal(v.overall, "improved");
    assert_int_equal(fp_diff_gate("regressed", "regressed"), 1);
    assert_int_equal(fp_diff_gate("improved", "regressed"), 0);
    assert_int_equal(fp_diff_gate("neutral", "regressed"), 0);
    assert_int_equal(fp_diff_gate("improved", "any-change"), 1);
    assert_int_equal(fp_diff_gate("regressed", "any-change"), 1);
    assert_int_equal(fp_diff_gate("neutral", "any-change"), 0);
    assert_int_equal(fp_diff_gate("regressed", NULL), 0);
    assert_int_equal(fp_diff_gate(NULL, "regressed"), 1); /* an unknown verdict never passes */
    assert_int_equal(fp_diff_gate("neutral", "sometimes"), -1);
    /* a history record gives the same figures (check feeds records to the verdict) */
    fp_history_record *r = make_record("k", "s", 26000, "aaaa1111", "2026-11-01T00:00:00Z");
    fp_diff_figures fr;
    fp_diff_figures_of_record(r, &fr);
    fp_diff_verdict_of(&fa, &fr, &v);
    assert_string_equal(v.overall, "regressed");
    assert_int_equal(fr.nclasses, 2);
    fp_diff_figures_free(&fr);
    rec_delete(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_vectors),
        cmocka_unit_test(test_hash_covers_figures_not_where_added),
        cmocka_unit_test(test_record_doc),
        cmocka_unit_test(test_roundtrip_and_idempotent),
        cmocka_unit_test(test_baseline),
        cmocka_unit_test(test_pin_rm_policy),
        cmocka_unit_test(test_migration_1_to_2),
        cmocka_unit_test(test_refused_files),
        cmocka_unit_test(test_since),
        cmocka_unit_test(test_verdict_and_gate),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
