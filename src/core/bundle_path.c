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

static void walk(cJSON *j, const char *abs, const char *given, const char *repl, swap_list *swaps)
{
    for (cJSON *it = j ? j->child : NULL; it; it = it->next) {
        if (cJSON_IsString(it) && it->valuestring) {
            char *a = rewrite(it->valuestring, abs, trimmed_len(abs), false, repl);
            const char *cur = a ? a : it->valuestring;
            char *b = given ? rewrite(cur, given, trimmed_len(given), true, repl) : NULL;
            if (b) {
                free(a);
                put(it, b, swaps);
            } else if (a) {
                put(it, a, swaps);
            }
        } else if (cJSON_IsObject(it) || cJSON_IsArray(it)) {
            walk(it, abs, given, repl, swaps);
        }
    }
}

void fp_json_path_replace(cJSON *doc, const char *from, const char *to)
{
    if (!doc || !from || !from[0])
        return;
    char *abs = fp_path_abs(from);
    walk(doc, abs, NULL, to, NULL);
    free(abs);
}

static void bundle_relative(cJSON *doc, const char *bundle, swap_list *swaps)
{
    if (!doc || !bundle || !bundle[0])
        return;
    char *abs = fp_path_abs(bundle);
    /* the bundle as given matters when it is relative ("runs/x/pmc/…" recorded as built) */
    const char *given = bundle[0] != '/' ? bundle : NULL;
    char *given_norm = NULL;
    if (given && !strncmp(given, "./", 2))
        given = given + 2;
    if (given && (!given[0] || !strcmp(given, ".")))
        given = given_norm = strdup("."); /* "./att/x" -> "att/x" */
    walk(doc, abs, given, "", swaps);
    /* the bundle given with a different spelling of the same absolute path */
    if (bundle[0] == '/' && strcmp(bundle, abs))
        walk(doc, bundle, NULL, "", swaps);
    free(given_norm);
    free(abs);
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
