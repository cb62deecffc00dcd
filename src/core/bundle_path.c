/*
 * bundle_path.c - see bundle_path.h. Done as a rewrite of the document at
 * write time, not at each place a path is recorded: the writers stay simple
 * (they record what they used) and no artifact can forget it.
 */
#include "flyprof/bundle_path.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/mem.h"
#include "flyprof/strbuf.h"

char *fp_bundle_abs_path(const char *path) { return fp_path_abs(path); }

/* a path may start here: the start of the string or after a separator */
static bool word_start(const char *s, size_t i)
{
    return i == 0 || strchr(" \t=:'\"(,;", s[i - 1]) != NULL;
}

/* a path component ends here */
static bool comp_end(char c) { return c == '\0' || strchr("/ \t'\"),;#", c) != NULL; }

/* Replace prefix p (len pl) where it starts a word and ends a component by
 * repl: "p/x" -> "repl/x" ("x" when repl is ""), "p" -> repl (or "."). need_slash:
 * only "p/..." (a relative prefix is too ambiguous alone). Returns a new
 * string or NULL when nothing changed. */
/* Is there a place where rewrite() replaces (p whole somewhere, and its first pl bytes
 * where a word starts and a component ends)? Checked before building the copy: most
 * strings of an artifact hold no path, and a bundle given as "." is in every file name
 * (~700 instructions per string when each was copied byte by byte to find that out). */
static bool has_match(const char *s, const char *p, size_t pl, bool need_slash)
{
    if (!strstr(s, p))
        return false;
    for (const char *q = strchr(s, p[0]); q; q = strchr(q + 1, p[0])) {
        size_t i = (size_t)(q - s);
        if (!strncmp(q, p, pl) && word_start(s, i) && comp_end(s[i + pl]) && (!need_slash || s[i + pl] == '/'))
            return true;
    }
    return false;
}

static char *rewrite(const char *s, const char *p, size_t pl, bool need_slash, const char *repl)
{
    if (!pl || !has_match(s, p, pl, need_slash))
        return NULL;
    fp_sb out;
    fp_sb_init(&out);
    bool changed = false;
    for (size_t i = 0; s[i];) {
        if (word_start(s, i) && !strncmp(s + i, p, pl) && comp_end(s[i + pl]) &&
            (!need_slash || s[i + pl] == '/')) {
            if (s[i + pl] == '/' && s[i + pl + 1] && !comp_end(s[i + pl + 1])) {
                if (repl[0])
                    fp_sb_addf(&out, "%s/", repl);
                i += pl + 1; /* "p/x" -> "x" */
            } else {
                fp_sb_adds(&out, repl[0] ? repl : ".");
                i += pl;
            }
            changed = true;
            continue;
        }
        fp_sb_addc(&out, s[i++]);
    }
    if (!changed) {
        fp_sb_free(&out);
        return NULL;
    }
    return fp_sb_detach(&out);
}

static size_t trimmed_len(const char *p)
{
    size_t l = strlen(p);
    while (l > 1 && p[l - 1] == '/')
        l--;
    return l;
}

/* Where walk() puts a rewritten string: in place (SetValuestring) or, when
 * `swaps` is set, by swapping the node's pointer and recording the old one, so
 * a const document can be written relative and restored without a deep copy
 * (cJSON_Duplicate of bubbles.json cost ~17 % of `bubbles`). */
typedef struct swap_list {
    struct swap { cJSON *node; char *old; } *v;
    size_t n, cap;
} swap_list;

static void put(cJSON *it, char *s, swap_list *swaps)
{
    if (!swaps) {
        cJSON_SetValuestring(it, s);
        free(s);
        return;
    }
    FP_GROW(swaps->v, swaps->n, swaps->cap);
    swaps->v[swaps->n].node = it;
    swaps->v[swaps->n].old = it->valuestring;
    swaps->n++;
    it->valuestring = s;
}

/* One string through every rewrite of a fp_path_rw, in the order the document walks
 * applied them (absolute path, then the bundle as given, then its other spelling). */
char *fp_path_rw_apply(const fp_path_rw *rw, const char *s)
{
    char *a = rewrite(s, rw->abs, trimmed_len(rw->abs), false, rw->repl);
    if (rw->given) {
        char *b = rewrite(a ? a : s, rw->given, trimmed_len(rw->given), true, rw->repl);
        if (b) {
            free(a);
            a = b;
        }
    }
    if (rw->alt) {
        char *c = rewrite(a ? a : s, rw->alt, trimmed_len(rw->alt), false, rw->repl);
        if (c) {
            free(a);
            a = c;
        }
    }
    return a;
}

static void walk(cJSON *j, const fp_path_rw *rw, swap_list *swaps)
{
    for (cJSON *it = j ? j->child : NULL; it; it = it->next) {
        if (cJSON_IsString(it) && it->valuestring) {
            char *a = fp_path_rw_apply(rw, it->valuestring);
            if (a)
                put(it, a, swaps);
        } else if (cJSON_IsObject(it) || cJSON_IsArray(it)) {
            walk(it, rw, swaps);
        }
    }
}

void fp_path_rw_walk(const fp_path_rw *rw, cJSON *doc) { walk(doc, rw, NULL); }

void fp_json_path_replace(cJSON *doc, const char *from, const char *to)
{
    if (!doc || !from || !from[0])
        return;
    fp_path_rw rw = {.abs = fp_path_abs(from), .repl = to};
    walk(doc, &rw, NULL);
    free(rw.abs);
}

bool fp_path_rw_bundle(fp_path_rw *rw, const char *bundle)
{
    memset(rw, 0, sizeof *rw);
    if (!bundle || !bundle[0])
        return false;
    rw->abs = fp_path_abs(bundle);
    rw->repl = "";
    /* the bundle as given matters when it is relative ("runs/x/pmc/…" recorded as built) */
    const char *given = bundle[0] != '/' ? bundle : NULL;
    if (given && !strncmp(given, "./", 2))
        given = given + 2;
    if (given && (!given[0] || !strcmp(given, ".")))
        given = "."; /* "./att/x" -> "att/x" */
    rw->given = given ? fp_xstrndup(given, strlen(given)) : NULL;
    /* the bundle given with a different spelling of the same absolute path */
    rw->alt = bundle[0] == '/' && strcmp(bundle, rw->abs) ? fp_xstrndup(bundle, strlen(bundle)) : NULL;
    return true;
}

size_t fp_path_rw_shortest(const fp_path_rw *rw)
{
    /* rewrite() needs the whole prefix inside the string (has_match's strstr), and an
     * empty prefix rewrites nothing */
    size_t m = SIZE_MAX;
    const char *const p[] = {rw->abs, rw->given, rw->alt};
    for (size_t i = 0; i < 3; i++)
        if (p[i] && trimmed_len(p[i]) && trimmed_len(p[i]) < m)
            m = trimmed_len(p[i]);
    return m;
}

void fp_path_rw_free(fp_path_rw *rw)
{
    free(rw->abs);
    free(rw->given);
    free(rw->alt);
    memset(rw, 0, sizeof *rw);
}

static void bundle_relative(cJSON *doc, const char *bundle, swap_list *swaps)
{
    fp_path_rw rw;
    if (!doc || !fp_path_rw_bundle(&rw, bundle))
        return;
    walk(doc, &rw, swaps);
    fp_path_rw_free(&rw);
}

void fp_json_bundle_relative(cJSON *doc, const char *bundle) { bundle_relative(doc, bundle, NULL); }

int fp_bundle_write_json(const char *path, const cJSON *doc, const char *bundle, fp_err *err)
{
    if (!bundle)
        return fp_json_write_file(path, doc, err);
    /* rewrite by swapping string pointers, write, then put every original back
     * (last swap first: a string rewritten twice is restored through both) */
    swap_list swaps = {0};
    bundle_relative((cJSON *)doc, bundle, &swaps);
    int rc = fp_json_write_file(path, doc, err);
    for (size_t i = swaps.n; i-- > 0;) {
        free(swaps.v[i].node->valuestring);
        swaps.v[i].node->valuestring = swaps.v[i].old;
    }
    free(swaps.v);
    return rc;
}
