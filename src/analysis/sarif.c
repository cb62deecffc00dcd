/*
 * sarif.c - report / diff / check -> a SARIF 2.1.0 log (sarif.h).
 */
#include "flyprof/sarif.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/rules.h"
#include "flyprof/strbuf.h"

#define PUSH(list, n) fp_model_push((void **)&(list), &(n), sizeof *(list))

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"
#define SRCROOT "SRCROOT"
/* REPORT.md's HIGH / MED thresholds on the estimated gain (report.c) */
#define LEVEL_ERROR_GAIN 10.0
#define LEVEL_WARNING_GAIN 3.0

/* The regression rules, after the knob rules in tool.driver.rules. */
typedef struct regress_rule {
    const char *id, *short_text, *help;
} regress_rule;
static const regress_rule regress_rules[] = {
    {"regressed_line", "A source line's share of the stall grew beyond the noise floor",
     "The after side of `flyprof diff` spends a larger share of its stall cycles at this line than the before "
     "side (by more than the share noise floor, docs/commands/diff.md). Look at what changed around the line; "
     "`flyprof map --source-line FILE:LINE` shows its instructions."},
    {"regressed_class", "A stall class's share of the stall grew beyond the noise floor",
     "The bundle spends a larger share of its stall cycles in this class than its history baseline (by more than "
     "the share noise floor, docs/commands/check.md). The location is the class's hottest line in the bundle's "
     "report; `flyprof report` ranks the knobs for it."},
};
#define N_REGRESS (sizeof regress_rules / sizeof regress_rules[0])

/* "vmem_prefetch" -> "VmemPrefetch" */
static char *pascal(const char *id)
{
    fp_sb sb;
    fp_sb_init(&sb);
    bool up = true;
    for (const char *p = id; *p; p++) {
        if (*p == '_' || *p == '-') {
            up = true;
            continue;
        }
        fp_sb_addc(&sb, up ? (char)toupper((unsigned char)*p) : *p);
        up = false;
    }
    return fp_sb_detach(&sb);
}

/* A path as a URI reference: unreserved characters and '/' stay, the rest %XX. */
static void uri_path(fp_sb *out, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (isalnum(c) || strchr("-._~/", c))
            fp_sb_addc(out, (char)c);
        else
            fp_sb_addf(out, "%%%02X", c);
    }
}

/* The root without trailing slashes (NULL / "" / "/" -> length 0: no root). */
static size_t root_len(const char *root)
{
    size_t n = root ? strlen(root) : 0;
    while (n > 0 && root[n - 1] == '/')
        n--;
    return n;
}

bool fp_sarif_location_of(const char *source, const char *source_root, fp_sarif_location *out)
{
    memset(out, 0, sizeof *out);
    const char *colon = source ? strrchr(source, ':') : NULL;
    if (!colon || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1))
        return false;
    long line = strtol(colon + 1, NULL, 10);
    if (line < 1 || line > 1000000000L)
        return false;
    size_t plen = (size_t)(colon - source), rl = root_len(source_root);
    fp_sb uri;
    fp_sb_init(&uri);
    if (rl && plen > rl + 1 && !strncmp(source, source_root, rl) && source[rl] == '/') {
        uri_path(&uri, source + rl + 1, plen - rl - 1);
        out->uri_base_id = fp_model_strdup(SRCROOT);
    } else if (source[0] == '/') {
        fp_sb_adds(&uri, "file://");
        uri_path(&uri, source, plen);
    } else { /* already relative (a bundle-relative path): relative to the root when there is one */
        uri_path(&uri, source, plen);
        out->uri_base_id = rl ? fp_model_strdup(SRCROOT) : NULL;
    }
    out->uri = fp_sb_detach(&uri);
    out->start_line = (int)line;
    return true;
}

static void add_rule(fp_sarif_run *run, const char *id, const char *short_text, const char *full, const char *help,
                     const char *cls, const char *gain)
{
    fp_sarif_rule *o = PUSH(run->rules, run->nrules);
    o->id = fp_model_strdup(id);
    o->name = pascal(id);
    o->short_text = fp_model_strdup(short_text);
    o->full_text = fp_model_strdup(full);
    o->help_text = fp_model_strdup(help);
    o->level = fp_model_strdup("warning");
    o->bubble_class = fp_model_strdup(cls);
    o->gain_model = fp_model_strdup(gain);
}

/* A knob rule's help: the FlyDSL API, what it is expected to do, when it fires. */
static void knob_rule(fp_sarif_run *run, const fp_rule *r)
{
    fp_sb help, cond;
    fp_sb_init(&help);
    fp_sb_init(&cond);
    fp_rule_cond_text(r, &cond);
    fp_sb_addf(&help, "%s\n\nFlyDSL: %s\n\nExpected: %s\n\nFires when: %s. The estimated gain (%s) is an upper bound "
                      "in %% of kernel time; the acceptance test is what `flyprof diff` checks after the change.",
               r->change, r->api, r->expected, cond.buf, fp_gain_model_text(r->gain));
    add_rule(run, r->id, r->knob, r->change, help.buf, r->bubble_class, fp_gain_model_text(r->gain));
    fp_sb_free(&help);
    fp_sb_free(&cond);
}

void fp_sarif_init(fp_sarif_log *log, const char *version, const char *source_root)
{
    memset(log, 0, sizeof *log);
    log->schema = fp_model_strdup(SARIF_SCHEMA);
    log->version = fp_model_strdup("2.1.0");
    fp_sarif_run *run = PUSH(log->runs, log->nruns);
    run->tool_name = fp_model_strdup("flyprof");
    run->tool_version = fp_model_strdup(version);
    run->semantic_version = fp_model_strdup(version);
    for (size_t i = 0; i < fp_rules_count; i++)
        knob_rule(run, &fp_rules[i]);
    for (size_t i = 0; i < N_REGRESS; i++)
        add_rule(run, regress_rules[i].id, regress_rules[i].short_text, regress_rules[i].short_text,
                 regress_rules[i].help, NULL, NULL);
    size_t rl = root_len(source_root);
    if (rl) {
        fp_sarif_base *b = PUSH(run->bases, run->nbases);
        b->key = fp_model_strdup(SRCROOT);
        fp_sb uri;
        fp_sb_init(&uri);
        fp_sb_adds(&uri, "file://");
        uri_path(&uri, source_root, rl);
        fp_sb_addc(&uri, '/');
        b->uri = fp_sb_detach(&uri);
    }
}

static int rule_index(const fp_sarif_run *run, const char *id)
{
    for (size_t i = 0; id && i < run->nrules; i++)
        if (!strcmp(run->rules[i].id, id))
            return (int)i;
    return -1;
}

/* A new result of rule `id` (which must be in the driver's rules). */
static fp_sarif_result *new_result(fp_sarif_run *run, const char *id, const char *level, const char *source,
                                   const char *source_root)
{
    int idx = rule_index(run, id);
    if (idx < 0)
        return NULL;
    fp_sarif_result *o = PUSH(run->results, run->nresults);
    o->rule_id = fp_model_strdup(id);
    o->rule_index = idx;
    o->level = fp_model_strdup(level);
    fp_sarif_location loc;
    if (fp_sarif_location_of(source, source_root, &loc))
        *(fp_sarif_location *)PUSH(o->locations, o->nlocations) = loc;
    return o;
}

void fp_sarif_add_report(fp_sarif_log *log, const fp_report_doc *r, const char *source_root)
{
    fp_sarif_run *run = &log->runs[0];
    for (size_t i = 0; i < r->nrecs; i++) {
        const fp_report_rec *rec = &r->recs[i];
        /* no estimate (the trace is not representative): the lowest level */
        double g = rec->est_gain_pct.known ? rec->est_gain_pct.v : 0.0;
        const char *level = g >= LEVEL_ERROR_GAIN ? "error" : g >= LEVEL_WARNING_GAIN ? "warning" : "note";
        const fp_report_hottest *h = rec->evidence.hottest;
        fp_sarif_result *o = new_result(run, rec->rule, level, h ? h->source : NULL, source_root);
        if (!o)
            continue;
        fp_sb m;
        fp_sb_init(&m);
        fp_sb_addf(&m, "%s: %s (", r->kernel ? r->kernel : "kernel", rec->knob);
        if (rec->est_gain_pct.known)
            fp_sb_addf(&m, "est. gain <= %.2f%% of kernel time", g);
        else
            fp_sb_adds(&m, "no gain estimate: the trace is not representative");
        fp_sb_addf(&m, ", %s confidence; %s bubble)", rec->confidence_label, rec->bubble_class);
        if (h && h->inst)
            fp_sb_addf(&m, ". Hottest instruction: %s", h->inst);
        fp_sb_addf(&m, ". Accept: %s", rec->acceptance.text ? rec->acceptance.text : "-");
        o->message = fp_sb_detach(&m);
        o->rank = fp_optd_of(rec->rank);
        o->est_gain_pct = rec->est_gain_pct;
        o->confidence = fp_optd_of(rec->confidence);
        o->acceptance = fp_model_strdup(rec->acceptance.text);
    }
}

static bool grew(const fp_diff_row *row) { return row->significant && row->delta.pct > 0; }

static void regression_message(fp_sarif_result *o, const char *what, const fp_diff_row *row)
{
    fp_sb m;
    fp_sb_init(&m);
    fp_sb_addf(&m, "%s %s: share of stall %.2f%% -> %.2f%% (%+.2f points, beyond the noise floor)", what, row->key,
               row->before ? row->before->pct : 0.0, row->after ? row->after->pct : 0.0, row->delta.pct);
    o->message = fp_sb_detach(&m);
}

void fp_sarif_add_lines(fp_sarif_log *log, const fp_diff_row *rows, size_t n, bool regressed, const char *source_root)
{
    for (size_t i = 0; i < n; i++) {
        if (!grew(&rows[i]))
            continue;
        fp_sarif_result *o =
            new_result(&log->runs[0], "regressed_line", regressed ? "error" : "warning", rows[i].key, source_root);
        if (o)
            regression_message(o, "line", &rows[i]);
    }
}

/* The hottest line of class `cls` in the report (hot_lines are hottest first). */
static const char *hottest_line_of(const fp_report_doc *r, const char *cls)
{
    for (size_t i = 0; r && i < r->nhot_lines; i++)
        if (r->hot_lines[i].dom_class && !strcmp(r->hot_lines[i].dom_class, cls))
            return r->hot_lines[i].source;
    return NULL;
}

void fp_sarif_add_classes(fp_sarif_log *log, const fp_diff_row *rows, size_t n, bool regressed,
                          const fp_report_doc *where, const char *source_root)
{
    for (size_t i = 0; i < n; i++) {
        if (!grew(&rows[i]))
            continue;
        fp_sarif_result *o = new_result(&log->runs[0], "regressed_class", regressed ? "error" : "warning",
                                        hottest_line_of(where, rows[i].key), source_root);
        if (o)
            regression_message(o, "class", &rows[i]);
    }
}
