/*
 * store.c - the history database (see history.h): open + validate + migrate,
 * insert a record, read records back.
 *
 * Order matters on open: everything that could write (journal mode,
 * migrations) comes after the file has been validated with reads only, so a
 * damaged or foreign file is reported and left byte-identical.
 */
#include "flyprof/history.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "flyprof/fs.h"
#include "flyprof/model.h"
#include "flyprof/strbuf.h"

struct fp_history {
    sqlite3 *db;
    char *path;
    int version;
};

/* Forward migrations: step i takes user_version i to i+1. Never edit a
 * shipped step; append one. */
static const char *const migrations[FP_HISTORY_SCHEMA] = {
    /* 1: entries and their per-class, per-rule and metric rows */
    "CREATE TABLE entries ("
    " id INTEGER PRIMARY KEY,"
    " hash TEXT NOT NULL UNIQUE,"
    " kernel TEXT NOT NULL,"
    " shape TEXT NOT NULL DEFAULT '',"
    " arch TEXT, product TEXT,"
    " time_ns_per_call REAL, stall_pct REAL, exposed_pct REAL, waves REAL, latency REAL,"
    " bound TEXT, bound_rule TEXT,"
    " commit_sha TEXT, dirty INTEGER, branch TEXT,"
    " flyprof_version TEXT, captured_at TEXT NOT NULL, host TEXT, bundle TEXT,"
    " added_at TEXT NOT NULL);"
    "CREATE INDEX entries_series ON entries(kernel, shape, captured_at);"
    "CREATE INDEX entries_commit ON entries(commit_sha);"
    "CREATE TABLE classes ("
    " entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,"
    " class TEXT NOT NULL, cycles REAL, exposed REAL, pct REAL, ord INTEGER NOT NULL,"
    " PRIMARY KEY (entry_id, class));"
    "CREATE TABLE rules ("
    " entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,"
    " rank INTEGER NOT NULL, rule TEXT NOT NULL, bubble_class TEXT, est_gain_pct REAL,"
    " PRIMARY KEY (entry_id, rank));"
    "CREATE TABLE metrics ("
    " entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,"
    " name TEXT NOT NULL, value REAL,"
    " PRIMARY KEY (entry_id, name));",
    /* 2: launch fill and speed of light (report.json `launch`, `sol`) */
    "ALTER TABLE entries ADD COLUMN launch_fill_pct REAL;"
    "ALTER TABLE entries ADD COLUMN launch_underfilled INTEGER;"
    "ALTER TABLE entries ADD COLUMN launch_workgroups INTEGER;"
    "ALTER TABLE entries ADD COLUMN sol_hbm_pct REAL;"
    "ALTER TABLE entries ADD COLUMN sol_mfma_busy_pct REAL;"
    "ALTER TABLE entries ADD COLUMN sol_valu_busy_pct REAL;",
    /* 3: pins: the entry that is the baseline of its series (kernel, shape, arch) until unpinned */
    "CREATE TABLE pins ("
    " kernel TEXT NOT NULL, shape TEXT NOT NULL, arch TEXT NOT NULL,"
    " entry_id INTEGER NOT NULL UNIQUE REFERENCES entries(id) ON DELETE CASCADE,"
    " pinned_at TEXT NOT NULL,"
    " PRIMARY KEY (kernel, shape, arch));",
};

char *fp_history_default_path(void)
{
    const char *e = getenv("FLYPROF_HISTORY");
    if (e && e[0])
        return strdup(e);
    const char *x = getenv("XDG_DATA_HOME");
    char buf[PATH_MAX];
    if (x && x[0] == '/') {
        snprintf(buf, sizeof buf, "%s/flyprof/history.db", x);
        return strdup(buf);
    }
    const char *home = getenv("HOME");
    if (!home || !home[0])
        return NULL;
    snprintf(buf, sizeof buf, "%s/.local/share/flyprof/history.db", home);
    return strdup(buf);
}

/* SQLite's view of a failure: a damaged or foreign file is the user's input. */
static int db_err(fp_history *h, sqlite3 *db, int rc, const char *what, fp_err *err)
{
    const char *path = h ? h->path : "?";
    int prim = rc & 0xff;
    if (prim == SQLITE_NOTADB || prim == SQLITE_CORRUPT || prim == SQLITE_FORMAT || prim == SQLITE_RANGE) {
        fp_err_set(err, FP_BAD_INPUT, "%s is not a readable SQLite database (%s: %s)", path, what,
                   db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        return fp_err_help(err, "the file was left untouched; pass another --db, or move it away to start a new history");
    }
    if (prim == SQLITE_CONSTRAINT) { /* check_record should have caught it: still the record's fault */
        fp_err_set(err, FP_BAD_INPUT, "%s: %s: the record breaks the history's rules: %s", path, what,
                   db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        return fp_err_help(err, "nothing was written for it; fix or drop the record");
    }
    if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED) {
        fp_err_set(err, FP_IO_ERROR, "%s stayed locked for %d ms (%s)", path, FP_HISTORY_BUSY_MS, what);
        return fp_err_help(err, "another flyprof is writing to it; retry");
    }
    fp_err_set(err, FP_IO_ERROR, "%s: %s: %s", path, what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    return -1;
}

static int exec(fp_history *h, const char *sql, const char *what, fp_err *err)
{
    int rc = sqlite3_exec(h->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : db_err(h, h->db, rc, what, err);
}

static int pragma_int(fp_history *h, const char *sql, int *out, fp_err *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(h->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_err(h, h->db, rc, sql, err);
    rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_err(h, h->db, rc, sql, err);
}

typedef enum { DB_FRESH, DB_OURS } db_kind;

static int validate_reads(fp_history *h, db_kind *kind, int *version, fp_err *err);

/* Reads only: is this an empty database, or ours at a version we know? One
 * read transaction, so that the pragmas and the schema are one snapshot: a
 * parallel writer may create the schema between two auto-commit reads (seen:
 * application_id 0 but 10 objects -> "another program's database"). */
static int validate(fp_history *h, db_kind *kind, int *version, fp_err *err)
{
    if (exec(h, "BEGIN", "begin", err))
        return -1;
    int rc = validate_reads(h, kind, version, err);
    sqlite3_exec(h->db, rc ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
    return rc;
}

static int validate_reads(fp_history *h, db_kind *kind, int *version, fp_err *err)
{
    int app, ver, nobj;
    if (pragma_int(h, "PRAGMA application_id", &app, err) || pragma_int(h, "PRAGMA user_version", &ver, err) ||
        pragma_int(h, "SELECT count(*) FROM sqlite_master", &nobj, err))
        return -1;
    if (app == 0 && ver == 0 && nobj == 0) {
        *kind = DB_FRESH;
        *version = 0;
        return 0;
    }
    if ((unsigned)app != FP_HISTORY_APP_ID) {
        fp_err_set(err, FP_BAD_INPUT, "%s is an SQLite database of another program (application_id 0x%08x, %d objects)",
                   h->path, (unsigned)app, nobj);
        return fp_err_help(err, "the file was left untouched; pass --db with a flyprof history file or a new path");
    }
    if (ver > FP_HISTORY_SCHEMA || ver < 1) {
        fp_err_set(err, FP_BAD_INPUT, "%s has history schema version %d; this flyprof knows 1..%d", h->path, ver,
                   FP_HISTORY_SCHEMA);
        return fp_err_help(err, ver > FP_HISTORY_SCHEMA ? "it was written by a newer flyprof: upgrade flyprof"
                                                          : "the file was left untouched");
    }
    /* a truncated or damaged file can still answer the header pragmas */
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(h->db, "PRAGMA quick_check", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_err(h, h->db, rc, "quick_check", err);
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return db_err(h, h->db, rc, "quick_check", err);
    }
    const char *res = (const char *)sqlite3_column_text(st, 0);
    if (!res || strcmp(res, "ok")) {
        fp_err_set(err, FP_BAD_INPUT, "%s is damaged: %s", h->path, res ? res : "quick_check failed");
        sqlite3_finalize(st);
        return fp_err_help(err, "the file was left untouched; restore it from a copy or `history export` of another one");
    }
    sqlite3_finalize(st);
    *kind = DB_OURS;
    *version = ver;
    return 0;
}

/* Apply migrations version..target-1 inside one IMMEDIATE transaction. The
 * version is read again under the write lock: a parallel writer may have
 * created or migrated the file meanwhile. */
static int migrate(fp_history *h, int target, fp_err *err)
{
    if (exec(h, "BEGIN IMMEDIATE", "begin", err))
        return -1;
    int app, ver, nobj;
    if (pragma_int(h, "PRAGMA application_id", &app, err) || pragma_int(h, "PRAGMA user_version", &ver, err) ||
        pragma_int(h, "SELECT count(*) FROM sqlite_master", &nobj, err))
        goto fail;
    if (ver == 0 && (app != 0 || nobj != 0)) {
        fp_err_set(err, FP_BAD_INPUT, "%s changed under flyprof into a non-history database", h->path);
        goto fail;
    }
    for (int v = ver; v < target; v++)
        if (exec(h, migrations[v], "migration", err))
            goto fail;
    if (ver < target) {
        char sql[96];
        snprintf(sql, sizeof sql, "PRAGMA application_id=%d; PRAGMA user_version=%d", (int)FP_HISTORY_APP_ID, target);
        if (exec(h, sql, "set version", err))
            goto fail;
    }
    if (exec(h, "COMMIT", "commit", err))
        goto fail;
    h->version = ver > target ? ver : target;
    return 0;
fail:
    sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

/* How open_raw opens: a writer (read-write, creating when asked), a reader
 * (read-only: a read-only file or mount is readable), or a reader of a file
 * SQLite cannot lock (a WAL db on a read-only mount has no -shm to create):
 * immutable=1, which reads it as it is. */
typedef enum { OPEN_WRITE, OPEN_READ, OPEN_READ_IMMUTABLE } open_mode;

/* "file:<path percent-encoded>?mode=ro&immutable=1": a path with '?', '#' or
 * '%' must not be read as URI syntax. */
static char *immutable_uri(const char *path)
{
    fp_sb u;
    fp_sb_init(&u);
    fp_sb_adds(&u, "file:");
    for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("/-._~", *c))
            fp_sb_addc(&u, (char)*c);
        else
            fp_sb_addf(&u, "%%%02X", *c);
    }
    fp_sb_adds(&u, "?mode=ro&immutable=1");
    return fp_sb_detach(&u);
}

static int open_raw(const char *path, bool create, open_mode mode, fp_history **out, fp_err *err)
{
    *out = NULL;
    struct stat sb;
    bool exists = stat(path, &sb) == 0;
    if (exists && !S_ISREG(sb.st_mode))
        return fp_err_set(err, FP_BAD_INPUT, "%s is not a regular file", path);
    if (!exists && !create) {
        fp_err_set(err, FP_NO_ARTIFACT, "no history database at %s", path);
        return fp_err_help(err, "add entries first: flyprof history add --bundle DIR --db %s", path);
    }
    if (!exists) {
        char *dir = strdup(path);
        char *slash = dir ? strrchr(dir, '/') : NULL;
        if (slash && slash != dir) {
            *slash = 0;
            if (fp_mkdir_p(dir, err)) {
                free(dir);
                return -1;
            }
        }
        free(dir);
    }
    fp_history *h = calloc(1, sizeof *h);
    if (!h)
        abort();
    h->path = strdup(path);
    int flags = (mode == OPEN_WRITE ? SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) : SQLITE_OPEN_READONLY) |
                SQLITE_OPEN_NOMUTEX;
    /* a name with URI characters must not be read as a URI (immutable_uri encodes them) */
    char *uri = mode == OPEN_READ_IMMUTABLE ? immutable_uri(path) : NULL;
    int rc = sqlite3_open_v2(uri ? uri : path, &h->db, flags | (uri ? SQLITE_OPEN_URI : 0), NULL);
    free(uri);
    if (rc != SQLITE_OK) {
        db_err(h, h->db, rc, "open", err);
        fp_history_close(h);
        return -1;
    }
    sqlite3_extended_result_codes(h->db, 1);
    sqlite3_busy_timeout(h->db, FP_HISTORY_BUSY_MS);
    *out = h;
    return 0;
}

/* A reader (list, show, export, check, the trend): read-only, no journal mode
 * switch, so a read-only file or mount reads. 1 = the file is at an older
 * schema: the caller opens it as a writer to migrate it. */
static int open_reader(const char *path, open_mode mode, fp_history **out, fp_err *err)
{
    fp_history *h;
    if (open_raw(path, false, mode, &h, err))
        return -1;
    db_kind kind = DB_FRESH;
    int ver = 0;
    if (validate(h, &kind, &ver, err)) {
        fp_history_close(h);
        return -1;
    }
    if (kind == DB_FRESH) {
        fp_err_set(err, FP_NO_ARTIFACT, "%s is an empty database: no history yet", path);
        fp_err_help(err, "add entries first: flyprof history add --bundle DIR --db %s", path);
        fp_history_close(h);
        return -1;
    }
    if (ver < FP_HISTORY_SCHEMA) {
        fp_history_close(h);
        return 1;
    }
    h->version = ver;
    sqlite3_exec(h->db, "PRAGMA query_only=ON", NULL, NULL, NULL);
    *out = h;
    return 0;
}

int fp_history_open(const char *path, bool create, fp_history **out, fp_err *err)
{
    if (!create) {
        int r = open_reader(path, OPEN_READ, out, err);
        if (r == -1 && err->code == FP_IO_ERROR) {
            /* cannot lock it (a WAL file on a read-only mount): read it as immutable */
            fp_err e2 = {0};
            r = open_reader(path, OPEN_READ_IMMUTABLE, out, &e2);
            if (r == -1)
                fp_err_clear(&e2);
            else
                fp_err_clear(err);
        }
        if (r <= 0)
            return r;
    }
    fp_history *h;
    if (open_raw(path, create, OPEN_WRITE, &h, err))
        return -1;
    db_kind kind = DB_FRESH;
    int ver = 0;
    if (validate(h, &kind, &ver, err))
        goto fail;
    if (kind == DB_FRESH && !create) {
        fp_err_set(err, FP_NO_ARTIFACT, "%s is an empty database: no history yet", path);
        fp_err_help(err, "add entries first: flyprof history add --bundle DIR --db %s", path);
        goto fail;
    }
    if (ver < FP_HISTORY_SCHEMA && migrate(h, FP_HISTORY_SCHEMA, err))
        goto fail;
    h->version = FP_HISTORY_SCHEMA;
    /* WAL: readers never block the writer, and parallel adds only queue. Switching a
     * fresh database to WAL needs it to itself: when several first writers race (8
     * parallel `history add` on a new db), SQLite answers SQLITE_BUSY at once instead of
     * calling the busy handler (it would deadlock), so the switch is retried here for
     * as long as the busy timeout allows. */
    int wrc = SQLITE_BUSY;
    for (int waited = 0; (wrc & 0xff) == SQLITE_BUSY && waited <= FP_HISTORY_BUSY_MS; waited += 10) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(h->db, "PRAGMA journal_mode=WAL", -1, &st, NULL) != SQLITE_OK) {
            wrc = SQLITE_ROW; /* no such pragma: keep the default journal */
            break;
        }
        wrc = sqlite3_step(st);
        sqlite3_finalize(st);
        if ((wrc & 0xff) == SQLITE_BUSY)
            sqlite3_sleep(10);
    }
    if (wrc != SQLITE_ROW) {
        db_err(h, h->db, wrc, "journal_mode=WAL", err);
        goto fail;
    }
    if (exec(h, "PRAGMA foreign_keys=ON", "foreign_keys", err))
        goto fail;
    *out = h;
    return 0;
fail:
    fp_history_close(h);
    *out = NULL;
    return -1;
}

void fp_history_close(fp_history *h)
{
    if (!h)
        return;
    sqlite3_close(h->db);
    free(h->path);
    free(h);
}

int fp_history_schema_version(fp_history *h) { return h ? h->version : 0; }

int fp_history_create_at_version(const char *path, int version, fp_err *err)
{
    if (version < 1 || version > FP_HISTORY_SCHEMA)
        return fp_err_set(err, FP_BAD_ARGS, "version %d out of 1..%d", version, FP_HISTORY_SCHEMA);
    fp_history *h;
    if (open_raw(path, true, OPEN_WRITE, &h, err))
        return -1;
    int rc = migrate(h, version, err);
    fp_history_close(h);
    return rc;
}

/* ---- binding and reading values ---- */

static void bind_num(sqlite3_stmt *st, int i, fp_optd v)
{
    if (v.known && isfinite(v.v))
        sqlite3_bind_double(st, i, v.v);
    else
        sqlite3_bind_null(st, i);
}

static void bind_str(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static void bind_bool(sqlite3_stmt *st, int i, fp_optb b)
{
    if (b.known)
        sqlite3_bind_int(st, i, b.v);
    else
        sqlite3_bind_null(st, i);
}

static fp_optd col_num(sqlite3_stmt *st, int c)
{
    if (sqlite3_column_type(st, c) == SQLITE_NULL)
        return fp_optd_none();
    return fp_optd_of(sqlite3_column_double(st, c));
}

static char *col_str(sqlite3_stmt *st, int c) { return fp_model_strdup((const char *)sqlite3_column_text(st, c)); }

static fp_optb col_bool(sqlite3_stmt *st, int c)
{
    if (sqlite3_column_type(st, c) == SQLITE_NULL)
        return (fp_optb){false, false};
    return (fp_optb){true, sqlite3_column_int(st, c) != 0};
}

/* ---- insert ---- */

static const char *need_str(const char *s, const char *what, fp_err *err)
{
    if (!s)
        fp_err_set(err, FP_BAD_INPUT, "history record without %s", what);
    return s;
}

static bool is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i]))
            return false;
    return s[n] == 0;
}

static int check_record(const fp_history_record *rec, fp_err *err)
{
    const char *hash = need_str(rec->hash, "hash", err);
    if (!hash)
        return -1;
    if (strlen(hash) != 64 || !is_hex(hash, 64))
        return fp_err_set(err, FP_BAD_INPUT, "history record hash is not 64 hex digits");
    if (!need_str(rec->kernel, "kernel", err) || !need_str(rec->shape, "shape", err) ||
        !need_str(rec->provenance.captured_at, "provenance.captured_at", err) ||
        !need_str(rec->added_at, "added_at", err))
        return -1;
    /* what the tables' primary keys would refuse is the record's fault (BAD_INPUT),
     * not the disk's: checked here, before any insert */
    for (size_t i = 0; i < rec->nclasses; i++) {
        if (!rec->classes[i].cls)
            return fp_err_set(err, FP_BAD_INPUT, "history record class without a name");
        for (size_t k = 0; k < i; k++)
            if (!strcmp(rec->classes[k].cls, rec->classes[i].cls))
                return fp_err_set(err, FP_BAD_INPUT, "history record lists class '%s' twice", rec->classes[i].cls);
    }
    for (size_t i = 0; i < rec->nrules; i++) {
        if (!rec->rules[i].rule)
            return fp_err_set(err, FP_BAD_INPUT, "history record rule without rule/rank");
        if (rec->rules[i].rank < 0 || rec->rules[i].rank > INT32_MAX)
            return fp_err_set(err, FP_BAD_INPUT, "history record rule rank %lld is out of range 0..%d",
                              (long long)rec->rules[i].rank, INT32_MAX);
        for (size_t k = 0; k < i; k++)
            if (rec->rules[k].rank == rec->rules[i].rank)
                return fp_err_set(err, FP_BAD_INPUT, "history record has two rules of rank %lld",
                                  (long long)rec->rules[i].rank);
    }
    for (size_t i = 0; i < rec->nmetrics; i++)
        for (size_t k = 0; k < i && rec->metrics[i].key; k++)
            if (rec->metrics[k].key && !strcmp(rec->metrics[k].key, rec->metrics[i].key))
                return fp_err_set(err, FP_BAD_INPUT, "history record has metric '%s' twice", rec->metrics[i].key);
    return 0;
}

int fp_history_record_check(const fp_history_record *rec, fp_err *err) { return check_record(rec, err); }

static const char *const entry_cols =
    "hash, kernel, shape, arch, product, time_ns_per_call, stall_pct, exposed_pct, waves, latency, bound, bound_rule,"
    " commit_sha, dirty, branch, flyprof_version, captured_at, host, bundle, added_at,"
    " launch_fill_pct, launch_underfilled, launch_workgroups, sol_hbm_pct, sol_mfma_busy_pct, sol_valu_busy_pct";

static int insert_children(fp_history *h, int64_t id, const fp_history_record *rec, fp_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc;
    rc = sqlite3_prepare_v2(h->db, "INSERT INTO classes(entry_id, class, cycles, exposed, pct, ord) VALUES (?,?,?,?,?,?)",
                            -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_err(h, h->db, rc, "prepare classes", err);
    for (size_t i = 0; i < rec->nclasses; i++) {
        const fp_history_class *c = &rec->classes[i];
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, id);
        bind_str(st, 2, c->cls);
        bind_num(st, 3, c->cycles);
        bind_num(st, 4, c->exposed);
        bind_num(st, 5, c->pct);
        sqlite3_bind_int(st, 6, (int)i);
        if ((rc = sqlite3_step(st)) != SQLITE_DONE) {
            sqlite3_finalize(st);
            return db_err(h, h->db, rc, "insert class", err);
        }
    }
    sqlite3_finalize(st);
    rc = sqlite3_prepare_v2(h->db, "INSERT INTO rules(entry_id, rank, rule, bubble_class, est_gain_pct) VALUES (?,?,?,?,?)",
                            -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_err(h, h->db, rc, "prepare rules", err);
    for (size_t i = 0; i < rec->nrules; i++) {
        const fp_history_rule *r = &rec->rules[i];
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, r->rank); /* in 0..INT32_MAX (check_record) */
        bind_str(st, 3, r->rule);
        bind_str(st, 4, r->bubble_class);
        bind_num(st, 5, r->est_gain_pct);
        if ((rc = sqlite3_step(st)) != SQLITE_DONE) {
            sqlite3_finalize(st);
            return db_err(h, h->db, rc, "insert rule", err);
        }
    }
    sqlite3_finalize(st);
    rc = sqlite3_prepare_v2(h->db, "INSERT INTO metrics(entry_id, name, value) VALUES (?,?,?)", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_err(h, h->db, rc, "prepare metrics", err);
    for (size_t i = 0; i < rec->nmetrics; i++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, id);
        bind_str(st, 2, rec->metrics[i].key);
        bind_num(st, 3, rec->metrics[i].v);
        if ((rc = sqlite3_step(st)) != SQLITE_DONE) {
            sqlite3_finalize(st);
            return db_err(h, h->db, rc, "insert metric", err);
        }
    }
    sqlite3_finalize(st);
    return 0;
}

static int find_hash(fp_history *h, const char *hash, int64_t *id, fp_err *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(h->db, "SELECT id FROM entries WHERE hash = ?", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_err(h, h->db, rc, "prepare", err);
    sqlite3_bind_text(st, 1, hash, -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(st);
    *id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_err(h, h->db, rc, "find hash", err);
}

/* One record inside the caller's transaction. */
static int insert_one(fp_history *h, const fp_history_record *rec, int64_t *id, bool *added, fp_err *err)
{
    *id = 0;
    *added = false;
    if (find_hash(h, rec->hash, id, err))
        return -1;
    if (*id)
        return 0;
    char sql[1024];
    snprintf(sql, sizeof sql, "INSERT INTO entries(%s) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
             entry_cols);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(h->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_err(h, h->db, rc, "prepare insert", err);
    const fp_history_totals *tot = &rec->totals;
    const fp_history_provenance *pv = &rec->provenance;
    const fp_history_launch *la = &rec->launch;
    const fp_history_sol *sol = &rec->sol;
    bind_str(st, 1, rec->hash);
    bind_str(st, 2, rec->kernel);
    bind_str(st, 3, rec->shape);
    bind_str(st, 4, rec->arch);
    bind_str(st, 5, rec->product);
    bind_num(st, 6, rec->workload.time_ns_per_call);
    bind_num(st, 7, tot->stall_pct);
    bind_num(st, 8, tot->exposed_pct);
    bind_num(st, 9, tot->waves);
    bind_num(st, 10, tot->latency);
    bind_str(st, 11, rec->bound);
    bind_str(st, 12, rec->bound_rule);
    bind_str(st, 13, pv->commit);
    bind_bool(st, 14, pv->dirty);
    bind_str(st, 15, pv->branch);
    bind_str(st, 16, pv->flyprof_version);
    bind_str(st, 17, pv->captured_at);
    bind_str(st, 18, pv->host);
    bind_str(st, 19, pv->bundle);
    bind_str(st, 20, rec->added_at);
    bind_num(st, 21, la->fill_pct);
    bind_bool(st, 22, la->underfilled);
    bind_num(st, 23, la->workgroups);
    bind_num(st, 24, sol->hbm_pct);
    bind_num(st, 25, sol->mfma_busy_pct);
    bind_num(st, 26, sol->valu_busy_pct);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_err(h, h->db, rc, "insert entry", err);
    *id = sqlite3_last_insert_rowid(h->db);
    if (insert_children(h, *id, rec, err))
        return -1;
    *added = true;
    return 0;
}

int fp_history_insert_many(fp_history *h, const fp_history_record *recs, size_t n, size_t *added, fp_err *err)
{
    *added = 0;
    for (size_t i = 0; i < n; i++) {
        if (check_record(&recs[i], err)) {
            /* prefix the record number (the message keeps what fits) */
            char pre[32];
            int np = snprintf(pre, sizeof pre, "record %zu: ", i + 1);
            size_t keep = strlen(err->message);
            if (keep + (size_t)np >= sizeof err->message)
                keep = sizeof err->message - (size_t)np - 1;
            memmove(err->message + np, err->message, keep);
            memcpy(err->message, pre, (size_t)np);
            err->message[np + keep] = 0;
            return -1;
        }
    }
    /* IMMEDIATE: take the write lock first, so the hash checks and the inserts
     * see the same database (a deferred transaction could not upgrade). */
    if (exec(h, "BEGIN IMMEDIATE", "begin", err))
        return -1;
    for (size_t i = 0; i < n; i++) {
        int64_t id;
        bool a;
        if (insert_one(h, &recs[i], &id, &a, err)) {
            sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
            *added = 0;
            return -1;
        }
        *added += a;
    }
    if (exec(h, "COMMIT", "commit", err)) {
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
        *added = 0;
        return -1;
    }
    return 0;
}

int fp_history_insert(fp_history *h, const fp_history_record *rec, int64_t *id, bool *added, fp_err *err)
{
    *id = 0;
    *added = false;
    if (check_record(rec, err))
        return -1;
    if (exec(h, "BEGIN IMMEDIATE", "begin", err))
        return -1;
    if (insert_one(h, rec, id, added, err) || exec(h, "COMMIT", "commit", err)) {
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
        *id = 0;
        *added = false;
        return -1;
    }
    return 0;
}

/* ---- read back ---- */

static int add_children(fp_history *h, int64_t id, fp_history_record *rec, fp_err *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(h->db, "SELECT class, cycles, exposed, pct FROM classes WHERE entry_id=? ORDER BY ord", -1,
                                &st, NULL);
    if (rc != SQLITE_OK)
        return db_err(h, h->db, rc, "classes", err);
    sqlite3_bind_int64(st, 1, id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        fp_history_class *c = fp_model_push((void **)&rec->classes, &rec->nclasses, sizeof *c);
        c->cls = col_str(st, 0);
        c->cycles = col_num(st, 1);
        c->exposed = col_num(st, 2);
        c->pct = col_num(st, 3);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_err(h, h->db, rc, "classes", err);
    rc = sqlite3_prepare_v2(h->db, "SELECT rank, rule, bubble_class, est_gain_pct FROM rules WHERE entry_id=? ORDER BY rank",
                            -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_err(h, h->db, rc, "rules", err);
    sqlite3_bind_int64(st, 1, id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        fp_history_rule *r = fp_model_push((void **)&rec->rules, &rec->nrules, sizeof *r);
        r->rank = sqlite3_column_int64(st, 0);
        r->rule = col_str(st, 1);
        r->bubble_class = col_str(st, 2);
        r->est_gain_pct = col_num(st, 3);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_err(h, h->db, rc, "rules", err);
    rc = sqlite3_prepare_v2(h->db, "SELECT name, value FROM metrics WHERE entry_id=? ORDER BY name", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_err(h, h->db, rc, "metrics", err);
    sqlite3_bind_int64(st, 1, id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        fp_history_metric *m = fp_model_push((void **)&rec->metrics, &rec->nmetrics, sizeof *m);
        m->key = col_str(st, 0);
        m->v = col_num(st, 1);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_err(h, h->db, rc, "metrics", err);
    return 0;
}

/* One entries row (columns: id, then entry_cols) -> record. */
static void row_record(sqlite3_stmt *st, fp_history_record *r)
{
    memset(r, 0, sizeof *r);
    r->schema = FP_HISTORY_RECORD_SCHEMA;
    r->id = fp_optd_of((double)sqlite3_column_int64(st, 0));
    r->hash = col_str(st, 1);
    r->kernel = col_str(st, 2);
    r->shape = col_str(st, 3);
    r->arch = col_str(st, 4);
    r->product = col_str(st, 5);
    r->workload.time_ns_per_call = col_num(st, 6);
    r->totals.stall_pct = col_num(st, 7);
    r->totals.exposed_pct = col_num(st, 8);
    r->totals.waves = col_num(st, 9);
    r->totals.latency = col_num(st, 10);
    r->bound = col_str(st, 11);
    r->bound_rule = col_str(st, 12);
    r->launch.fill_pct = col_num(st, 21);
    r->launch.underfilled = col_bool(st, 22);
    r->launch.workgroups = col_num(st, 23);
    r->sol.hbm_pct = col_num(st, 24);
    r->sol.mfma_busy_pct = col_num(st, 25);
    r->sol.valu_busy_pct = col_num(st, 26);
    fp_history_provenance *p = &r->provenance;
    p->commit = col_str(st, 13);
    p->dirty = col_bool(st, 14);
    p->branch = col_str(st, 15);
    p->flyprof_version = col_str(st, 16);
    p->captured_at = col_str(st, 17);
    p->host = col_str(st, 18);
    p->bundle = col_str(st, 19);
    r->added_at = col_str(st, 20);
}

/* Run a SELECT of (id, entry_cols) with text binds; records appended to out. */
static int select_records(fp_history *h, const char *where_order, const char *const *binds, int nb, long long limit,
                          fp_history_records *out, fp_err *err)
{
    char sql[2048];
    snprintf(sql, sizeof sql, "SELECT id, %s FROM entries %s", entry_cols, where_order);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(h->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_err(h, h->db, rc, "select", err);
    for (int i = 0; i < nb; i++)
        sqlite3_bind_text(st, i + 1, binds[i], -1, SQLITE_TRANSIENT);
    if (limit > 0)
        sqlite3_bind_int64(st, nb + 1, limit);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        fp_history_record *r = fp_model_push((void **)&out->items, &out->n, sizeof *r);
        row_record(st, r);
        if (add_children(h, sqlite3_column_int64(st, 0), r, err)) {
            sqlite3_finalize(st);
            return -1;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_err(h, h->db, rc, "select", err);
}

int fp_history_query(fp_history *h, const fp_history_filter *f, fp_history_records *records, fp_err *err)
{
    char where[512] = "";
    const char *binds[3];
    int nb = 0;
    fp_sb w;
    fp_sb_init(&w);
    if (f->kernel) {
        fp_sb_adds(&w, nb ? " AND kernel = ?" : " WHERE kernel = ?");
        binds[nb++] = f->kernel;
    }
    if (f->shape) {
        fp_sb_adds(&w, nb ? " AND shape = ?" : " WHERE shape = ?");
        binds[nb++] = f->shape;
    }
    if (f->since) {
        fp_sb_adds(&w, nb ? " AND captured_at >= ?" : " WHERE captured_at >= ?");
        binds[nb++] = f->since;
    }
    /* the latest N, returned oldest first */
    if (f->limit > 0)
        snprintf(where, sizeof where, "WHERE id IN (SELECT id FROM entries%s ORDER BY captured_at DESC, id DESC LIMIT ?) "
                                      "ORDER BY captured_at, id",
                 w.buf);
    else
        snprintf(where, sizeof where, "%s ORDER BY captured_at, id", w.buf);
    fp_sb_free(&w);
    memset(records, 0, sizeof *records);
    if (select_records(h, where, binds, nb, f->limit, records, err)) {
        fp_history_records_free(records);
        return -1;
    }
    return 0;
}

/* The first of a selection into *rec (the rest freed); false when none. */
static bool take_first(fp_history_records *rs, fp_history_record *rec)
{
    bool any = rs->n > 0;
    if (any) {
        *rec = rs->items[0];
        memset(&rs->items[0], 0, sizeof rs->items[0]);
    }
    fp_history_records_free(rs);
    return any;
}

int fp_history_get(fp_history *h, int64_t id, fp_history_record *rec, fp_err *err)
{
    memset(rec, 0, sizeof *rec);
    char idbuf[32];
    snprintf(idbuf, sizeof idbuf, "%lld", (long long)id);
    const char *b[1] = {idbuf};
    fp_history_records arr = {0};
    if (select_records(h, "WHERE id = CAST(? AS INTEGER)", b, 1, 0, &arr, err)) {
        fp_history_records_free(&arr);
        return -1;
    }
    if (!take_first(&arr, rec)) {
        fp_err_set(err, FP_NO_ARTIFACT, "no history entry %lld", (long long)id);
        return fp_err_help(err, "`flyprof history list` shows the entry ids");
    }
    return 0;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

int fp_history_baseline(fp_history *h, const char *kernel, const char *shape, const char *spec,
                        const char *exclude_hash, fp_history_record *rec, fp_err *err)
{
    memset(rec, 0, sizeof *rec);
    const char *ex = exclude_hash ? exclude_hash : "";
    fp_history_records arr = {0};
    fp_history_records *rs = &arr;
    int rc = 0;
    const char *how;
    if (!spec || !strcmp(spec, "latest")) {
        const char *b[3] = {kernel, shape, ex};
        how = "the latest entry";
        rc = select_records(h, "WHERE kernel = ? AND shape = ? AND hash <> ? ORDER BY captured_at DESC, id DESC LIMIT 1",
                            b, 3, 0, rs, err);
    } else {
        if (all_digits(spec) && strlen(spec) < 19) {
            const char *b[4] = {kernel, shape, ex, spec};
            how = "entry id";
            rc = select_records(h, "WHERE kernel = ? AND shape = ? AND hash <> ? AND id = CAST(? AS INTEGER)", b, 4, 0,
                                rs, err);
        }
        if (rc == 0 && arr.n == 0) {
            size_t n = strlen(spec);
            if (all_digits(spec) && n < 4) {
                fp_history_records_free(&arr);
                fp_err_set(err, FP_NO_ARTIFACT, "no entry %s of kernel %s shape '%s' other than the bundle itself", spec,
                           kernel, shape);
                return fp_err_help(err, "`flyprof history list --kernel %s` shows ids and commits", kernel);
            }
            if (n < 4 || n > 40 || !is_hex(spec, n)) {
                fp_history_records_free(&arr);
                fp_err_set(err, FP_BAD_ARGS, "--baseline %s is neither latest, an entry id of %s, nor a commit (4-40 hex digits)",
                           spec, kernel);
                return fp_err_help(err, "`flyprof history list --kernel %s` shows ids and commits", kernel);
            }
            char pat[48];
            snprintf(pat, sizeof pat, "%s%%", spec);
            for (char *p = pat; *p; p++)
                *p = (char)tolower((unsigned char)*p);
            const char *b[4] = {kernel, shape, ex, pat};
            how = "the latest entry of commit";
            rc = select_records(h, "WHERE kernel = ? AND shape = ? AND hash <> ? AND commit_sha LIKE ? "
                                   "ORDER BY captured_at DESC, id DESC LIMIT 1",
                                b, 4, 0, rs, err);
        }
    }
    if (rc) {
        fp_history_records_free(&arr);
        return -1;
    }
    if (!take_first(&arr, rec)) {
        /* nothing of the series at all is NO_BASELINE (a first run); an explicit ref that
         * names nothing is a wrong ref */
        bool latest = !spec || !strcmp(spec, "latest");
        fp_err_set(err, latest ? FP_NO_BASELINE : FP_NO_ARTIFACT, "no baseline for kernel %s shape '%s' (%s %s) in the history",
                   kernel, shape, how, spec ? spec : "latest");
        return fp_err_help(err, "add a baseline first (on main: flyprof history add --bundle DIR); "
                                "`flyprof history list --kernel %s` shows what is there", kernel);
    }
    return 0;
}

int fp_history_since(const char *s, char buf[32], fp_err *err)
{
    size_t n = strlen(s);
    if (n >= 2 && (s[n - 1] == 'd' || s[n - 1] == 'h')) {
        char num[24];
        if (n - 1 < sizeof num) {
            memcpy(num, s, n - 1);
            num[n - 1] = 0;
            if (all_digits(num)) {
                long long v = atoll(num);
                if (v <= 100000) {
                    time_t t = time(NULL) - (time_t)(v * (s[n - 1] == 'd' ? 86400 : 3600));
                    struct tm tm;
                    gmtime_r(&t, &tm);
                    strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
                    return 0;
                }
            }
        }
    }
    /* YYYY-MM-DD[THH:MM[:SS]][Z] */
    int Y, M, D, h = 0, m = 0, sec = 0, used = 0;
    if (sscanf(s, "%4d-%2d-%2d%n", &Y, &M, &D, &used) == 3 && used == 10) {
        const char *r = s + used;
        int u2 = 0;
        if (*r == 'T' || *r == ' ') {
            if (sscanf(r + 1, "%2d:%2d%n", &h, &m, &u2) == 2 && u2 == 5) {
                r += 1 + u2;
                if (*r == ':' && sscanf(r + 1, "%2d%n", &sec, &u2) == 1 && u2 == 2)
                    r += 1 + u2;
            } else {
                r = "bad";
            }
        }
        if (*r == 'Z')
            r++;
        if (!*r && M >= 1 && M <= 12 && D >= 1 && D <= 31 && h < 24 && m < 60 && sec < 61) {
            snprintf(buf, 32, "%04d-%02d-%02dT%02d:%02d:%02dZ", Y % 10000, M % 100, D % 100, h % 100, m % 100,
                     sec % 100);
            return 0;
        }
    }
    fp_err_set(err, FP_BAD_ARGS, "--since %s is not a date (YYYY-MM-DD[THH:MM[:SS]]) nor an age (7d, 24h)", s);
    return fp_err_help(err, "e.g. --since 2026-11-01 or --since 14d");
}

/* ---- rm, pin, and the baseline policy (history.h) ---- */

/* Run one statement with an integer and text binds; *changes gets sqlite3_changes. */
static int exec_bound(fp_history *h, const char *sql, int64_t id, const char *const *texts, int nt, int *changes,
                      fp_err *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(h->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_err(h, h->db, rc, sql, err);
    sqlite3_bind_int64(st, 1, id);
    for (int i = 0; i < nt; i++)
        sqlite3_bind_text(st, i + 2, texts[i], -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_err(h, h->db, rc, sql, err);
    if (changes)
        *changes = sqlite3_changes(h->db);
    return 0;
}

int fp_history_rm(fp_history *h, int64_t id, fp_history_record *removed, fp_err *err)
{
    fp_history_record rec;
    if (fp_history_get(h, id, &rec, err))
        return -1;
    /* classes, rules, metrics and a pin of the entry go with it (ON DELETE CASCADE) */
    int rc = exec_bound(h, "DELETE FROM entries WHERE id = ?", id, NULL, 0, NULL, err);
    if (rc == 0 && removed)
        *removed = rec;
    else
        fp_history_record_free(&rec);
    return rc;
}

int fp_history_pin(fp_history *h, int64_t id, bool pin, fp_err *err)
{
    fp_history_record rec;
    if (fp_history_get(h, id, &rec, err))
        return -1;
    int changes = 0, rc;
    if (pin) {
        const char *t[3] = {rec.kernel, rec.shape ? rec.shape : "", rec.arch ? rec.arch : ""};
        /* one pin per series: pinning another entry of it replaces the pin */
        rc = exec_bound(h, "INSERT OR REPLACE INTO pins (entry_id, kernel, shape, arch, pinned_at) "
                           "VALUES (?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
                        id, t, 3, NULL, err);
    } else {
        rc = exec_bound(h, "DELETE FROM pins WHERE entry_id = ?", id, NULL, 0, &changes, err);
        if (rc == 0 && changes == 0) {
            fp_err_set(err, FP_NO_ARTIFACT, "history entry %lld is not pinned", (long long)id);
            rc = fp_err_help(err, "`flyprof history list` marks the pinned entries");
        }
    }
    fp_history_record_free(&rec);
    return rc;
}

int fp_history_pinned_ids(fp_history *h, int64_t **ids, size_t *n, fp_err *err)
{
    *ids = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(h->db, "SELECT entry_id FROM pins ORDER BY entry_id", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return db_err(h, h->db, rc, "pins", err);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        *(int64_t *)fp_model_push((void **)ids, n, sizeof **ids) = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_err(h, h->db, rc, "pins", err);
}

/* The figure the median is taken of: the duration per call when every candidate has
 * one (the verdict's basis, diff.c), else the stalled share of latency. */
static double policy_figure(const fp_history_record *r, bool by_time)
{
    fp_optd v = by_time ? r->workload.time_ns_per_call : r->totals.stall_pct;
    return v.known ? v.v : 0.0;
}

/* The median entry of rs (by policy_figure; the lower middle of an even count) into rec. */
static void take_median(fp_history_records *rs, fp_history_record *rec)
{
    bool by_time = true;
    for (size_t i = 0; i < rs->n; i++)
        by_time &= rs->items[i].workload.time_ns_per_call.known;
    size_t *ord = calloc(rs->n, sizeof *ord);
    if (!ord)
        abort();
    for (size_t i = 0; i < rs->n; i++) { /* insertion sort: N is a handful */
        size_t j = i;
        while (j > 0 && policy_figure(&rs->items[ord[j - 1]], by_time) > policy_figure(&rs->items[i], by_time)) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = i;
    }
    size_t pick = ord[(rs->n - 1) / 2];
    free(ord);
    *rec = rs->items[pick];
    memset(&rs->items[pick], 0, sizeof rs->items[pick]);
    fp_history_records_free(rs);
}

int fp_history_baseline_auto(fp_history *h, const fp_history_record *cur, int window, fp_history_record *rec,
                             char how[128], fp_err *err)
{
    memset(rec, 0, sizeof *rec);
    const char *b[4] = {cur->kernel, cur->shape ? cur->shape : "", cur->arch ? cur->arch : "",
                        cur->hash ? cur->hash : ""};
    fp_history_records arr = {0};
    /* a pinned entry of the series is the baseline until unpinned (unless it is the bundle itself) */
    if (select_records(h, "WHERE id = (SELECT entry_id FROM pins WHERE kernel = ? AND shape = ? AND arch = ?) "
                          "AND hash <> ?", b, 4, 0, &arr, err)) {
        fp_history_records_free(&arr);
        return -1;
    }
    if (take_first(&arr, rec)) {
        snprintf(how, 128, "pinned");
        return 0;
    }
    memset(&arr, 0, sizeof arr);
    if (select_records(h, "WHERE kernel = ? AND shape = ? AND IFNULL(arch, '') = ? AND hash <> ? "
                          "ORDER BY captured_at DESC, id DESC LIMIT ?", b, 4, window > 0 ? window : 5, &arr, err)) {
        fp_history_records_free(&arr);
        return -1;
    }
    if (arr.n == 0) {
        fp_history_records_free(&arr);
        fp_err_set(err, FP_NO_BASELINE, "no baseline for kernel %s shape '%s' arch %s in the history", cur->kernel,
                   b[1], b[2][0] ? b[2] : "(none)");
        return fp_err_help(err, "add one on main first (flyprof history add --bundle DIR); "
                                "`flyprof history list --kernel %s` shows what is there", cur->kernel);
    }
    snprintf(how, 128, "median of the last %zu", arr.n);
    take_median(&arr, rec);
    return 0;
}
