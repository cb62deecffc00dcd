/*
 * history.h - the per-kernel performance history: one SQLite file of entries,
 * one per reported bundle (docs/commands/history.md).
 *
 * An entry is handled as a "record", struct fp_history_record (history_doc.h;
 * the same object `history show` prints and `history export` writes, one per line):
 *
 *   {hash, kernel, shape, arch, product,
 *    workload {time_ns_per_call}, totals {stall_pct, exposed_pct, waves, latency},
 *    bound, bound_rule, launch {fill_pct, underfilled, workgroups},
 *    sol {hbm_pct, mfma_busy_pct, valu_busy_pct},
 *    classes [{class, cycles, exposed, pct}], rules [{rank, rule, bubble_class, est_gain_pct}],
 *    metrics {"counters.<id>"|"bubbles.<name>": number},
 *    provenance {commit, dirty, branch, flyprof_version, captured_at, host, bundle},
 *    added_at}            (+ "id" when read back from a database)
 *
 * workload/totals/classes use report.json's key names so that `check` feeds
 * a record to the very comparison `diff` uses (fp_diff_figures_of_record).
 *
 * The database: PRAGMA application_id marks it as ours, PRAGMA user_version is
 * the schema version, migrations run forward in one transaction, WAL and a busy
 * timeout let parallel CI jobs add at once. A file that is not SQLite, is
 * damaged, belongs to another program or to a newer flyprof is BAD_INPUT and
 * is validated before anything is written, so it is never modified.
 */
#ifndef FLYPROF_HISTORY_H
#define FLYPROF_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flyprof/error.h"
#include "flyprof/history_doc.h"

/* "FPHS": PRAGMA application_id of a flyprof history database. */
#define FP_HISTORY_APP_ID 0x46504853
/* Latest schema version (PRAGMA user_version); migrations 1..this. */
#define FP_HISTORY_SCHEMA 3
/* How long a writer waits for another one's lock (parallel CI jobs). */
#define FP_HISTORY_BUSY_MS 30000
/* Version of the record format (export lines carry it). */
#define FP_HISTORY_RECORD_SCHEMA 1

typedef struct fp_history fp_history;

/* Default path: $FLYPROF_HISTORY, else $XDG_DATA_HOME/flyprof/history.db,
 * else $HOME/.local/share/flyprof/history.db. malloc'd; NULL without HOME. */
char *fp_history_default_path(void);

/* Open (create=true: create the file and its directory when missing).
 * Missing file without create -> NO_ARTIFACT. Validates, then migrates an
 * older flyprof schema forward. */
int fp_history_open(const char *path, bool create, fp_history **out, fp_err *err);
void fp_history_close(fp_history *h);
int fp_history_schema_version(fp_history *h);

/* Tests only: create a database at an older schema version (migrations
 * 1..version applied) to exercise the forward migration. */
int fp_history_create_at_version(const char *path, int version, fp_err *err);

/* The record of a reported bundle (needs report.json; reads capture.json,
 * bubbles.json, counters.json when present). wt_commit/wt_dirty/wt_branch
 * give the provenance when capture.json has none (wt_dirty -1 = unknown).
 * Fills "hash" (content hash: same bundle, same hash). */
int fp_history_record_from_bundle(const char *bundle, const char *wt_commit, int wt_dirty, const char *wt_branch,
                                  fp_history_record *rec, fp_err *err);

/* The content hash of a record (everything but id, hash, added_at and where /
 * by which flyprof it was added). 64 hex digits. */
void fp_history_hash(const fp_history_record *rec, char out[65]);

/* What insert checks before writing (required fields, hash form, no class,
 * rule rank or metric twice, ranks in 0..INT32_MAX): BAD_INPUT. `import` runs it
 * on every line before it opens (or creates) the database. */
int fp_history_record_check(const fp_history_record *rec, fp_err *err);

/* Insert in one transaction; a record whose hash is present is not added
 * again (*added false, *id the existing entry). Validates the record. */
int fp_history_insert(fp_history *h, const fp_history_record *rec, int64_t *id, bool *added, fp_err *err);

/* Insert many records in one transaction (all or nothing); *added counts the
 * new ones. Every record is validated before anything is written. */
int fp_history_insert_many(fp_history *h, const fp_history_record *records, size_t n, size_t *added, fp_err *err);

typedef struct fp_history_filter {
    const char *kernel; /* exact, or NULL */
    const char *shape;  /* exact, or NULL */
    const char *since;  /* ISO-8601 UTC lower bound of captured_at, or NULL */
    long long limit;    /* the latest N entries (0 = all) */
} fp_history_filter;

/* Matching records, oldest first (captured_at, then id). */
int fp_history_query(fp_history *h, const fp_history_filter *f, fp_history_records *records, fp_err *err);
/* One record by id; absent -> NO_ARTIFACT. */
int fp_history_get(fp_history *h, int64_t id, fp_history_record *rec, fp_err *err);

/* The baseline of `check`: among entries of kernel+shape whose hash differs
 * from exclude_hash, `latest` (or NULL), an entry id, or a commit (prefix of
 * at least 4 hex digits; the latest entry of that commit). No entry at all for
 * latest -> NO_BASELINE; an id or commit that names none -> NO_ARTIFACT. */
int fp_history_baseline(fp_history *h, const char *kernel, const char *shape, const char *spec,
                        const char *exclude_hash, fp_history_record *rec, fp_err *err);

/* Remove entry id with its rows and its pin; absent -> NO_ARTIFACT. *removed (may be
 * NULL) gets the record that was removed. */
int fp_history_rm(fp_history *h, int64_t id, fp_history_record *removed, fp_err *err);

/* pin: entry id becomes the baseline of its series (kernel + shape + arch), replacing
 * the series' pin; !pin: the pin is removed (an entry that is not pinned -> NO_ARTIFACT). */
int fp_history_pin(fp_history *h, int64_t id, bool pin, fp_err *err);

/* The ids of the pinned entries, ascending (*ids malloc'd). */
int fp_history_pinned_ids(fp_history *h, int64_t **ids, size_t *n, fp_err *err);

/* The baseline policy of `check --baseline auto` (docs/commands/check.md): the pinned
 * entry of cur's series (kernel + shape + arch), else the median entry of the last
 * `window` entries of the series (by duration per call when all have one, else by the
 * stalled share; an even count takes the lower middle), never cur itself (by hash).
 * *how says which ("pinned", "median of the last 5"). None -> NO_BASELINE. */
int fp_history_baseline_auto(fp_history *h, const fp_history_record *cur, int window, fp_history_record *rec,
                             char how[128], fp_err *err);

/* Normalise a --since value: "YYYY-MM-DD[THH:MM[:SS]][Z]" or "<N>d" / "<N>h"
 * (relative to now) -> "YYYY-MM-DDTHH:MM:SSZ" in buf. -1 + BAD_ARGS otherwise. */
int fp_history_since(const char *s, char buf[32], fp_err *err);

#endif
