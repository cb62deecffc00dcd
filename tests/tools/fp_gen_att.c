/*
 * fp_gen_att.c - the project's synthetic ATT generator (a test double).
 *
 *   fp_gen_att SPEC.json OUTDIR
 *
 * Reads a JSON spec (docs/generator.md) and writes a decoded rocprofv3 ATT
 * dispatch directory ui_output_agent_<pid>_dispatch_<n>/ in the exact format of
 * ../shared/reference/rocprof-formats.md §5 (compact JSON, keys sorted like the
 * decoder's std::map, format version 3.0.0), plus optional rocprofv3 CSVs (§3).
 *
 * The one idea: every number in the output is DERIVED from the wave instruction
 * records (given explicitly, or produced by a tiny deterministic simulator), so
 * the files are mutually consistent by construction and a test can hand-compute
 * what an analysis must answer. Same spec -> byte-identical files.
 *
 * Exit status: 0 ok, 1 bad spec or write failure (message on stderr), 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "flyprof/error.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/strbuf.h"

/* Decoder format version written in every JSON file (§5.1). */
#define GEN_FORMAT_VERSION "3.0.0"
/* gfx9 timestamps have 4-cycle granularity (§5.3): all times/durations are multiples of 4. */
#define GEN_QUANTUM 4
/* Reference clock of realtime.json pairs (§5.6). */
#define GEN_REALTIME_HZ 100000000LL
/* Largest integer a spec may give (2^53: exact in a double). */
#define GEN_MAX_INT 9007199254740992.0
/* Cap on the records of one simulated wave (a runaway repeat nest would exhaust memory). */
#define GEN_MAX_RECORDS 10000000
#define GEN_CODE_HEADER "ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle"
/* Wave timeline states (§5.8). */
enum { WS_EMPTY = 0, WS_IDLE = 1, WS_EXEC = 2, WS_WAIT = 3, WS_STALL = 4, WS_COUNT = 5 };

/* Decoder instruction categories (§5.8), index == code. */
enum {
    CAT_NONE, CAT_SMEM, CAT_SALU, CAT_VMEM, CAT_FLAT, CAT_LDS, CAT_VALU, CAT_JUMP,
    CAT_NEXT, CAT_IMMED, CAT_CONTEXT, CAT_MESSAGE, CAT_BVH, CAT_COUNT
};
static const char *const cat_names[CAT_COUNT] = {
    "NONE", "SMEM", "SALU", "VMEM", "FLAT", "LDS", "VALU",
    "JUMP", "NEXT", "IMMED", "CONTEXT", "MESSAGE", "BVH",
};

/* Category from the mnemonic when the spec omits it: first matching prefix wins. */
static const struct { const char *prefix; int cat; } cat_rules[] = {
    {"s_load", CAT_SMEM},      {"s_buffer_load", CAT_SMEM}, {"s_store", CAT_SMEM},
    {"s_dcache", CAT_SMEM},    {"s_memtime", CAT_SMEM},     {"s_waitcnt", CAT_IMMED},
    {"s_nop", CAT_IMMED},      {"s_barrier", CAT_IMMED},    {"s_sleep", CAT_IMMED},
    {"s_setprio", CAT_IMMED},  {"s_endpgm", CAT_MESSAGE},   {"s_sendmsg", CAT_MESSAGE},
    {"s_cbranch", CAT_JUMP},   {"s_branch", CAT_JUMP},      {"s_", CAT_SALU},
    {"buffer_", CAT_VMEM},     {"tbuffer_", CAT_VMEM},      {"global_", CAT_FLAT},
    {"flat_", CAT_FLAT},       {"scratch_", CAT_FLAT},      {"ds_", CAT_LDS},
    {"v_", CAT_VALU},
};

/* ---- simulator model (docs/generator.md "Simulated waves") ---- */

/* Default issue cycles per category; s_waitcnt etc. add their wait as stall. */
static const int default_issue[CAT_COUNT] = {
    [CAT_NONE] = 4, [CAT_SMEM] = 4, [CAT_SALU] = 4, [CAT_VMEM] = 8, [CAT_FLAT] = 8,
    [CAT_LDS] = 8, [CAT_VALU] = 4, [CAT_JUMP] = 4, [CAT_NEXT] = 4, [CAT_IMMED] = 4,
    [CAT_CONTEXT] = 4, [CAT_MESSAGE] = 4, [CAT_BVH] = 4,
};
/* Default completion latency (issue start -> data back) of memory categories. */
static const int default_latency[CAT_COUNT] = {
    [CAT_SMEM] = 200, [CAT_VMEM] = 600, [CAT_FLAT] = 600, [CAT_LDS] = 64,
};

typedef struct model {
    int issue[CAT_COUNT];
    int latency[CAT_COUNT];
    int start_idle; /* begin -> first instruction attempt */
    int jump_gap;   /* fetch bubble after a taken branch */
    int jitter;     /* max extra memory latency, deterministic per (wave, record) */
    bool simd_contention; /* VALU records of waves sharing a SIMD issue one at a time */
} model;

/* ---- in-memory spec ---- */

typedef struct prog_inst {
    char *isa;
    char *source;
    int cat;
    int size;    /* bytes, for Vaddr */
    int issue;   /* -1 = model default */
    int stall;   /* fixed extra stall per execution */
    int latency; /* -1 = model default */
} prog_inst;

typedef struct rec {
    int64_t t, stall, dur, line;
    int cat;
} rec;

typedef struct seg {
    int state;
    int64_t dur;
} seg;

typedef struct wave {
    int se, simd, slot, id, cu;
    int64_t begin, end;
    rec *r;
    size_t n, cap;
    seg *tl;
    size_t ntl, captl;
    fp_sb waitcnt; /* JSON array text of the edges, "" = write [] */
    bool has_edges;
    double truncate_frac; /* 0 = intact */
    int64_t truncate_bytes;
    char fname[96];
} wave;

typedef struct gen {
    const cJSON *spec;
    const char *outdir;
    char *symbol;
    int64_t pid, dispatch;
    const char *arch;
    int64_t codeobj, vaddr_base;
    prog_inst *prog; /* prog[0] unused: row 0 is the "; symbol" header */
    size_t nprog;    /* number of code rows including the header */
    wave *w;
    size_t nw;
    int traced_ses[64];
    size_t nses;
    model m;
    fp_err err;
} gen;

static int bad(gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(gen *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fp_err_vset(&g->err, FP_BAD_INPUT, fmt, ap);
    va_end(ap);
    return -1;
}

/* Prefix the current error message (bad() cannot take its own buffer as an argument). */
static int rebad(gen *g, const char *where)
{
    char msg[FP_ERR_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", g->err.message);
    return bad(g, "%s: %s", where, msg);
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        abort();
    return q;
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        abort();
    return d;
}

static int64_t round_up_q(int64_t v)
{
    if (v <= 0)
        return 0;
    return (v + GEN_QUANTUM - 1) / GEN_QUANTUM * GEN_QUANTUM;
}

/* ---- small JSON readers with spec-path errors ---- */

static bool get_int(const cJSON *o, const char *key, int64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    /* beyond 2^53 a double is not an exact integer (and the cast could overflow) */
    if (!cJSON_IsNumber(v) || !(fabs(v->valuedouble) <= GEN_MAX_INT))
        return false;
    *out = (int64_t)v->valuedouble;
    return true;
}

static int64_t int_or(const cJSON *o, const char *key, int64_t dflt)
{
    int64_t v;
    return get_int(o, key, &v) ? v : dflt;
}

static bool bool_or(const cJSON *o, const char *key, bool dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}

static int parse_cat(gen *g, const cJSON *v, int *out)
{
    if (cJSON_IsNumber(v)) {
        int c = (int)v->valuedouble;
        if (c < 0 || c >= CAT_COUNT)
            return bad(g, "category code %d out of range 0..%d", c, CAT_COUNT - 1);
        *out = c;
        return 0;
    }
    if (cJSON_IsString(v)) {
        for (int c = 0; c < CAT_COUNT; c++)
            if (!strcasecmp(v->valuestring, cat_names[c])) {
                *out = c;
                return 0;
            }
        /* RCV's colour names for two codes */
        if (!strcasecmp(v->valuestring, "TRAP")) {
            *out = CAT_CONTEXT;
            return 0;
        }
        if (!strcasecmp(v->valuestring, "MSG")) {
            *out = CAT_MESSAGE;
            return 0;
        }
        return bad(g, "unknown category \"%s\"", v->valuestring);
    }
    return bad(g, "category must be a name or a code");
}

static int cat_from_isa(const char *isa)
{
    for (size_t i = 0; i < sizeof cat_rules / sizeof cat_rules[0]; i++)
        if (!strncmp(isa, cat_rules[i].prefix, strlen(cat_rules[i].prefix)))
            return cat_rules[i].cat;
    return CAT_NONE;
}

/* Encoded size used for Vaddr: 8 bytes for memory ops, MFMA and 3-operand VALU
 * (VOP3), 4 bytes otherwise, +4 for a SALU literal above the inline range. */
static int size_from_isa(const char *isa, int cat)
{
    if (cat == CAT_SMEM || cat == CAT_VMEM || cat == CAT_FLAT || cat == CAT_LDS)
        return 8;
    if (!strncmp(isa, "v_", 2)) {
        int commas = 0;
        for (const char *p = isa; *p; p++)
            commas += *p == ',';
        return (strstr(isa, "mfma") || commas >= 3) ? 8 : 4;
    }
    const char *hex = strstr(isa, "0x");
    if (hex && strtoll(hex, NULL, 16) > 64)
        return 8;
    return 4;
}

/* ---- program ---- */

static int load_program(gen *g)
{
    const cJSON *prog = cJSON_GetObjectItemCaseSensitive(g->spec, "program");
    size_t n = cJSON_IsArray(prog) ? (size_t)cJSON_GetArraySize(prog) : 0;
    g->nprog = n + 1;
    g->prog = xrealloc(NULL, g->nprog * sizeof *g->prog);
    memset(g->prog, 0, g->nprog * sizeof *g->prog);
    size_t i = 1;
    const cJSON *it;
    cJSON_ArrayForEach(it, prog) {
        prog_inst *p = &g->prog[i];
        const cJSON *isa, *src, *cat = NULL;
        if (cJSON_IsArray(it)) { /* compact form ["isa", "source", "CAT"] */
            isa = cJSON_GetArrayItem(it, 0);
            src = cJSON_GetArrayItem(it, 1);
            cat = cJSON_GetArrayItem(it, 2);
        } else {
            isa = cJSON_GetObjectItemCaseSensitive(it, "isa");
            src = cJSON_GetObjectItemCaseSensitive(it, "source");
            cat = cJSON_GetObjectItemCaseSensitive(it, "category");
        }
        if (!cJSON_IsString(isa))
            return bad(g, "program[%zu]: \"isa\" must be a string", i - 1);
        p->isa = xstrdup(isa->valuestring);
        p->source = xstrdup(cJSON_IsString(src) ? src->valuestring : "");
        if (cat && !cJSON_IsNull(cat)) {
            if (parse_cat(g, cat, &p->cat) != 0) {
                char where[48];
                snprintf(where, sizeof where, "program[%zu]", i - 1);
                return rebad(g, where);
            }
        } else {
            p->cat = cat_from_isa(p->isa);
        }
        const cJSON *obj = cJSON_IsObject(it) ? it : NULL;
        p->size = (int)int_or(obj, "size", size_from_isa(p->isa, p->cat));
        p->issue = (int)int_or(obj, "issue", -1);
        p->stall = (int)int_or(obj, "stall", 0);
        p->latency = (int)int_or(obj, "latency", -1);
        i++;
    }
    return 0;
}

static void free_program(gen *g)
{
    for (size_t i = 0; i < g->nprog; i++) {
        free(g->prog[i].isa);
        free(g->prog[i].source);
    }
    free(g->prog);
}

/* ---- waves: records ---- */

static void add_rec(wave *w, int64_t t, int cat, int64_t stall, int64_t dur, int64_t line)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 64;
        w->r = xrealloc(w->r, w->cap * sizeof *w->r);
    }
    w->r[w->n++] = (rec){.t = t, .stall = stall, .dur = dur, .line = line, .cat = cat};
}

static int load_explicit(gen *g, wave *w, size_t wi, const cJSON *insts)
{
    const cJSON *it;
    size_t k = 0;
    cJSON_ArrayForEach(it, insts) {
        if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 5)
            return bad(g, "waves[%zu].instructions[%zu]: want [time, category, stall, duration, line]",
                       wi, k);
        int cat;
        if (parse_cat(g, cJSON_GetArrayItem(it, 1), &cat) != 0) {
            char where[64];
            snprintf(where, sizeof where, "waves[%zu].instructions[%zu]", wi, k);
            return rebad(g, where);
        }
        int64_t f[5];
        for (int j = 0; j < 5; j++) {
            if (j == 1)
                continue;
            const cJSON *c = cJSON_GetArrayItem(it, j);
            if (!cJSON_IsNumber(c))
                return bad(g, "waves[%zu].instructions[%zu][%d] must be a number", wi, k, j);
            if (!(fabs(c->valuedouble) <= GEN_MAX_INT))
                return bad(g, "waves[%zu].instructions[%zu][%d] is out of range", wi, k, j);
            f[j] = (int64_t)c->valuedouble;
        }
        add_rec(w, f[0], cat, f[2], f[3], f[4]);
        k++;
    }
    return 0;
}

/* Expand a path (line numbers and {"repeat": N, "body": [...]}) into a flat list. */
static int expand_path(gen *g, const cJSON *path, int64_t **out, size_t *n, size_t *cap, int depth)
{
    if (depth > 16)
        return bad(g, "path: repeat blocks nested deeper than 16");
    const cJSON *it;
    cJSON_ArrayForEach(it, path) {
        if (cJSON_IsNumber(it)) {
            if (*n >= GEN_MAX_RECORDS)
                return bad(g, "path: more than %d records in one wave", GEN_MAX_RECORDS);
            if (*n == *cap) {
                *cap = *cap ? *cap * 2 : 256;
                *out = xrealloc(*out, *cap * sizeof **out);
            }
            (*out)[(*n)++] = (int64_t)it->valuedouble;
        } else if (cJSON_IsObject(it)) {
            int64_t times = int_or(it, "repeat", -1);
            const cJSON *body = cJSON_GetObjectItemCaseSensitive(it, "body");
            if (times < 0 || times > 100000 || !cJSON_IsArray(body))
                return bad(g, "path: a block must be {\"repeat\": 0..100000, \"body\": [...]}");
            for (int64_t r = 0; r < times; r++)
                if (expand_path(g, body, out, n, cap, depth + 1) != 0)
                    return -1;
        } else {
            return bad(g, "path: entries must be line numbers or repeat blocks");
        }
    }
    return 0;
}

/* Deterministic hash for latency jitter (splitmix64 finaliser). */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* One outstanding memory op in a counter queue (issue order). */
typedef struct memop {
    int64_t done;
    int64_t line;
} memop;

typedef struct mqueue {
    memop *q;
    size_t n, cap;
} mqueue;

static void mq_push(mqueue *q, int64_t done, int64_t line)
{
    if (q->n == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 32;
        q->q = xrealloc(q->q, q->cap * sizeof *q->q);
    }
    q->q[q->n++] = (memop){.done = done, .line = line};
}

/* Counter value in "s_waitcnt vmcnt(3) lgkmcnt(0)"; -1 when absent. */
static int waitcnt_arg(const char *isa, const char *name)
{
    const char *p = strstr(isa, name);
    if (!p)
        return -1;
    p += strlen(name);
    if (*p != '(')
        return -1;
    return atoi(p + 1);
}

/* Retire all but the newest `keep` ops of q: returns when they are all done and
 * appends their producer lines (first occurrence order) to lines[]. */
static int64_t mq_retire(mqueue *q, int keep, int64_t *lines, size_t *nl)
{
    int64_t ready = 0;
    if (keep < 0 || (size_t)keep >= q->n)
        return 0;
    size_t drop = q->n - (size_t)keep;
    for (size_t i = 0; i < drop; i++) {
        if (q->q[i].done > ready)
            ready = q->q[i].done;
        bool seen = false;
        for (size_t j = 0; j < *nl; j++)
            seen |= lines[j] == q->q[i].line;
        if (!seen)
            lines[(*nl)++] = q->q[i].line;
    }
    memmove(q->q, q->q + drop, (size_t)keep * sizeof *q->q);
    q->n = (size_t)keep;
    return ready;
}

static bool is_mem_cat(int c)
{
    return c == CAT_SMEM || c == CAT_VMEM || c == CAT_FLAT || c == CAT_LDS;
}

/* One simulated wave. All simulated waves advance together, earliest attempt
 * first, so that SIMD issue contention and workgroup barriers can couple them. */
typedef struct sim {
    wave *w;
    size_t wi;
    int64_t *seq; /* expanded path */
    size_t n, k;
    mqueue vm, lgkm;
    int64_t *lines; /* scratch for waitcnt producers */
    size_t maxl;
    int64_t t; /* next attempt time */
    bool edges, first_edge, done, blocked;
    int64_t wg; /* workgroup for s_barrier synchronisation, -1 = none */
    /* the s_barrier record held while waiting for the workgroup */
    int64_t b_line, b_issue, b_stall;
    int b_cat;
} sim;

static void sim_emit(gen *g, sim *s, int cat, int64_t line, int64_t issue, int64_t stall, bool taken)
{
    const prog_inst *p = &g->prog[line];
    /* An IMMED wait is all stall (§5.8: "their whole wait shows as stall"). */
    int64_t dur = cat == CAT_IMMED ? (stall > issue ? stall : issue) : stall + issue;
    add_rec(s->w, s->t, cat, stall, dur, line);
    if (is_mem_cat(cat)) {
        int64_t lat = p->latency >= 0 ? p->latency : g->m.latency[cat];
        if (g->m.jitter > 0)
            lat += (int64_t)(mix(((uint64_t)s->wi << 32) ^ s->k) % (uint64_t)(g->m.jitter + 1));
        int64_t done = s->t + stall + round_up_q(lat);
        mqueue *q = (cat == CAT_SMEM || cat == CAT_LDS) ? &s->lgkm : &s->vm;
        /* vmcnt returns in order: an op is never done before an older one */
        if (q == &s->vm && q->n && q->q[q->n - 1].done > done)
            done = q->q[q->n - 1].done;
        mq_push(q, done, line);
    }
    s->t += dur;
    if (taken)
        s->t += round_up_q(g->m.jump_gap);
    if (++s->k == s->n)
        s->done = true;
}

/* Attempt the next record of s; valu_busy (NULL = no contention) is the time
 * each (se, simd) VALU issue port is busy until. */
static int sim_step(gen *g, sim *s, int64_t *valu_busy)
{
    int64_t line = s->seq[s->k];
    if (line < 1 || (size_t)line >= g->nprog)
        return bad(g, "waves[%zu].path: line %" PRId64 " is not a program row (1..%zu)", s->wi, line,
                   g->nprog - 1);
    const prog_inst *p = &g->prog[line];
    int cat = p->cat;
    bool taken = false;
    if (cat == CAT_JUMP || cat == CAT_NEXT) { /* the path decides taken / not taken */
        taken = s->k + 1 < s->n && s->seq[s->k + 1] != line + 1;
        cat = taken ? CAT_JUMP : CAT_NEXT;
    }
    int64_t issue = round_up_q(p->issue >= 0 ? p->issue : g->m.issue[cat]);
    if (issue < GEN_QUANTUM)
        issue = GEN_QUANTUM;
    int64_t stall = round_up_q(p->stall);
    if (!strncmp(p->isa, "s_waitcnt", 9)) {
        size_t need = s->vm.n + s->lgkm.n;
        if (need > s->maxl) {
            s->maxl = need;
            s->lines = xrealloc(s->lines, s->maxl * sizeof *s->lines);
        }
        size_t nl = 0;
        int64_t r1 = mq_retire(&s->vm, waitcnt_arg(p->isa, "vmcnt"), s->lines, &nl);
        int64_t r2 = mq_retire(&s->lgkm, waitcnt_arg(p->isa, "lgkmcnt"), s->lines, &nl);
        int64_t ready = r1 > r2 ? r1 : r2;
        if (ready > s->t + stall)
            stall = round_up_q(ready - s->t);
        if (s->edges && nl) {
            fp_sb_addf(&s->w->waitcnt, "%s[%" PRId64 ",[", s->first_edge ? "" : ",", line);
            for (size_t j = 0; j < nl; j++)
                fp_sb_addf(&s->w->waitcnt, "%s[%" PRId64 ",0]", j ? "," : "", s->lines[j]);
            fp_sb_adds(&s->w->waitcnt, "]]");
            s->first_edge = false;
            s->w->has_edges = true;
        }
    }
    if (s->wg >= 0 && !strncmp(p->isa, "s_barrier", 9)) {
        s->blocked = true; /* the record is emitted when the workgroup is complete */
        s->b_line = line;
        s->b_issue = issue;
        s->b_stall = stall;
        s->b_cat = cat;
        return 0;
    }
    if (valu_busy && cat == CAT_VALU) {
        int64_t *busy = &valu_busy[s->w->se * 4 + s->w->simd];
        if (*busy > s->t + stall)
            stall = round_up_q(*busy - s->t);
        *busy = s->t + stall + issue;
    }
    sim_emit(g, s, cat, line, issue, stall, taken);
    return 0;
}

/* Release workgroup wg when every member waits at its barrier: each member's
 * s_barrier stalls until the last arrival (plus the entry's fixed stall). */
static void sim_barrier(gen *g, sim *ss, size_t ns, int64_t wg)
{
    int64_t last = 0;
    for (size_t i = 0; i < ns; i++) {
        if (ss[i].wg != wg)
            continue;
        if (!ss[i].blocked)
            return;
        if (ss[i].t > last)
            last = ss[i].t;
    }
    for (size_t i = 0; i < ns; i++) {
        sim *s = &ss[i];
        if (s->wg != wg)
            continue;
        s->blocked = false;
        sim_emit(g, s, s->b_cat, s->b_line, s->b_issue, round_up_q(last - s->t) + s->b_stall, false);
    }
}

static int simulate_all(gen *g, sim *ss, size_t ns)
{
    int64_t *busy = NULL;
    if (g->m.simd_contention) {
        busy = calloc(64 * 4, sizeof *busy);
        if (!busy)
            abort();
    }
    int rc = 0;
    /* Without SIMD contention or workgroup barriers the waves do not interact:
     * simulating each to its end gives exactly the records of the interleaved
     * loop below, in O(records) instead of O(records x waves) (the scaling
     * tests generate tens of thousands of waves). */
    bool coupled = g->m.simd_contention;
    for (size_t i = 0; i < ns && !coupled; i++)
        coupled = ss[i].wg >= 0;
    for (size_t i = 0; !coupled && rc == 0 && i < ns; i++)
        while (rc == 0 && !ss[i].done)
            rc = sim_step(g, &ss[i], busy);
    if (!coupled) {
        free(busy);
        return rc;
    }
    for (;;) {
        sim *next = NULL;
        for (size_t i = 0; i < ns; i++)
            if (!ss[i].done && !ss[i].blocked && (!next || ss[i].t < next->t))
                next = &ss[i];
        if (!next)
            break;
        if ((rc = sim_step(g, next, busy)) != 0)
            break;
        if (next->blocked)
            sim_barrier(g, ss, ns, next->wg);
    }
    for (size_t i = 0; rc == 0 && i < ns; i++)
        if (ss[i].blocked)
            rc = bad(g, "waves[%zu]: waits at s_barrier (line %" PRId64 ") for workgroup %" PRId64
                        " members that never get there", ss[i].wi, ss[i].b_line, ss[i].wg);
    free(busy);
    return rc;
}

static void tl_add(wave *w, int state, int64_t dur)
{
    if (dur <= 0)
        return;
    if (w->ntl && w->tl[w->ntl - 1].state == state) {
        w->tl[w->ntl - 1].dur += dur;
        return;
    }
    if (w->ntl == w->captl) {
        w->captl = w->captl ? w->captl * 2 : 64;
        w->tl = xrealloc(w->tl, w->captl * sizeof *w->tl);
    }
    w->tl[w->ntl++] = (seg){.state = state, .dur = dur};
}

/* Validate the records and derive end + timeline: IDLE before the first
 * instruction, then per record its stall (WAIT for IMMED, STALL otherwise) and
 * its issue cycles as EXEC; gaps between records count as EXEC as in decoder
 * output. end = last time + last duration - 4, so that Σ timeline = end - begin + 4. */
static int derive_wave(gen *g, wave *w, size_t wi)
{
    if (w->n == 0)
        return bad(g, "waves[%zu]: no instruction records", wi);
    int64_t prev = w->begin;
    for (size_t k = 0; k < w->n; k++) {
        const rec *r = &w->r[k];
        if (r->line < 1 || (size_t)r->line >= g->nprog)
            return bad(g, "waves[%zu] record %zu: line %" PRId64 " is not a program row (1..%zu)", wi,
                       k, r->line, g->nprog - 1);
        if (r->dur < GEN_QUANTUM || r->stall < 0 || r->stall > r->dur)
            return bad(g, "waves[%zu] record %zu: need 0 <= stall <= duration and duration >= %d", wi,
                       k, GEN_QUANTUM);
        if (r->t < prev)
            return bad(g, "waves[%zu] record %zu: time %" PRId64 " overlaps the previous instruction"
                       " (or precedes begin) ending at %" PRId64, wi, k, r->t, prev);
        tl_add(w, k == 0 ? WS_IDLE : WS_EXEC, r->t - prev);
        tl_add(w, r->cat == CAT_IMMED ? WS_WAIT : WS_STALL, r->stall);
        tl_add(w, WS_EXEC, r->dur - r->stall);
        prev = r->t + r->dur;
    }
    w->end = prev - GEN_QUANTUM;
    return 0;
}

static int load_waves(gen *g)
{
    const cJSON *waves = cJSON_GetObjectItemCaseSensitive(g->spec, "waves");
    const cJSON *dpath = cJSON_GetObjectItemCaseSensitive(g->spec, "path");
    const cJSON *dwait = cJSON_GetObjectItemCaseSensitive(g->spec, "waitcnt");
    g->nw = cJSON_IsArray(waves) ? (size_t)cJSON_GetArraySize(waves) : 0;
    g->w = xrealloc(NULL, (g->nw ? g->nw : 1) * sizeof *g->w);
    memset(g->w, 0, (g->nw ? g->nw : 1) * sizeof *g->w);
    sim *ss = xrealloc(NULL, (g->nw ? g->nw : 1) * sizeof *ss);
    size_t ns = 0, wi = 0;
    int rc = 0;
    const cJSON *it;
    /* 1: placement, explicit records, simulator state */
    cJSON_ArrayForEach(it, waves) {
        wave *w = &g->w[wi];
        fp_sb_init(&w->waitcnt);
        w->se = (int)int_or(it, "se", 0);
        w->simd = (int)int_or(it, "simd", 0);
        w->slot = (int)int_or(it, "slot", 0);
        w->id = (int)int_or(it, "id", 0);
        w->cu = (int)int_or(it, "cu", 1);
        w->begin = int_or(it, "begin", 1000);
        if (w->se < 0 || w->se > 63 || w->simd < 0 || w->simd > 3 || w->slot < 0 || w->id < 0 ||
            w->cu < 0 || w->begin < 0) {
            rc = bad(g, "waves[%zu]: se 0..63, simd 0..3, slot/id/cu/begin >= 0", wi);
            break;
        }
        const cJSON *insts = cJSON_GetObjectItemCaseSensitive(it, "instructions");
        const cJSON *path = cJSON_GetObjectItemCaseSensitive(it, "path");
        const cJSON *wait = cJSON_GetObjectItemCaseSensitive(it, "waitcnt");
        if (!wait)
            wait = dwait;
        if (cJSON_IsArray(insts)) {
            if ((rc = load_explicit(g, w, wi, insts)) != 0)
                break;
            if (cJSON_IsArray(wait)) {
                char *txt = cJSON_PrintUnformatted(wait);
                fp_sb_adds(&w->waitcnt, txt);
                free(txt);
                w->has_edges = cJSON_GetArraySize(wait) > 0;
            }
        } else {
            if (!path)
                path = dpath;
            if (!cJSON_IsArray(path)) {
                rc = bad(g, "waves[%zu]: needs \"instructions\" or a \"path\" (or a top-level path)", wi);
                break;
            }
            sim *s = &ss[ns++];
            memset(s, 0, sizeof *s);
            s->w = w;
            s->wi = wi;
            s->t = w->begin + round_up_q(g->m.start_idle);
            s->edges = !(cJSON_IsString(wait) && !strcmp(wait->valuestring, "none"));
            s->first_edge = true;
            s->wg = int_or(it, "wg", -1);
            size_t cap = 0;
            if ((rc = expand_path(g, path, &s->seq, &s->n, &cap, 0)) != 0)
                break;
            s->done = s->n == 0;
        }
        wi++;
    }
    /* 2: all simulated waves together */
    for (size_t i = 0; rc == 0 && i < ns; i++)
        if (ss[i].edges)
            fp_sb_adds(&ss[i].w->waitcnt, "[");
    if (rc == 0)
        rc = simulate_all(g, ss, ns);
    for (size_t i = 0; rc == 0 && i < ns; i++)
        if (ss[i].edges)
            fp_sb_adds(&ss[i].w->waitcnt, "]");
    for (size_t i = 0; i < ns; i++) {
        free(ss[i].seq);
        free(ss[i].vm.q);
        free(ss[i].lgkm.q);
        free(ss[i].lines);
    }
    free(ss);
    if (rc != 0)
        return -1;
    /* 3: knobs, derived fields */
    wi = 0;
    cJSON_ArrayForEach(it, waves) {
        wave *w = &g->w[wi];
        if (bool_or(it, "drop_endpgm", false)) {
            while (w->n && w->r[w->n - 1].cat == CAT_MESSAGE)
                w->n--;
        }
        if (derive_wave(g, w, wi) != 0)
            return -1;
        const cJSON *tr = cJSON_GetObjectItemCaseSensitive(it, "truncate");
        if (cJSON_IsNumber(tr)) {
            if (tr->valuedouble > 0 && tr->valuedouble < 1)
                w->truncate_frac = tr->valuedouble;
            else if (tr->valuedouble >= 1 && tr->valuedouble <= GEN_MAX_INT)
                w->truncate_bytes = (int64_t)tr->valuedouble;
            else
                return bad(g, "waves[%zu].truncate: a fraction in (0,1) or a byte count >= 1", wi);
        }
        snprintf(w->fname, sizeof w->fname, "se%d_sm%d_sl%d_wv%d.json", w->se, w->simd, w->slot, w->id);
        for (size_t j = 0; j < wi; j++)
            if (!strcmp(g->w[j].fname, w->fname))
                return bad(g, "waves[%zu]: duplicate wave (se, simd, slot, id) %s", wi, w->fname);
        wi++;
    }
    return 0;
}

static void free_waves(gen *g)
{
    for (size_t i = 0; i < g->nw; i++) {
        free(g->w[i].r);
        free(g->w[i].tl);
        fp_sb_free(&g->w[i].waitcnt);
    }
    free(g->w);
}

/* ---- JSON text helpers (decoder style: compact, nlohmann escaping) ---- */

static void js_str(fp_sb *sb, const char *s)
{
    fp_sb_addc(sb, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fp_sb_adds(sb, "\\\""); break;
        case '\\': fp_sb_adds(sb, "\\\\"); break;
        case '\b': fp_sb_adds(sb, "\\b"); break;
        case '\f': fp_sb_adds(sb, "\\f"); break;
        case '\n': fp_sb_adds(sb, "\\n"); break;
        case '\r': fp_sb_adds(sb, "\\r"); break;
        case '\t': fp_sb_adds(sb, "\\t"); break;
        default:
            if (*p < 0x20)
                fp_sb_addf(sb, "\\u%04x", *p);
            else
                fp_sb_addc(sb, (char)*p);
        }
    }
    fp_sb_addc(sb, '"');
}

static char *dir_path(gen *g, int64_t dispatch)
{
    const char *layout = fp_json_get_str(g->spec, "layout");
    char name[128];
    snprintf(name, sizeof name, "ui_output_agent_%" PRId64 "_dispatch_%" PRId64, g->pid, dispatch);
    if (layout && !strcmp(layout, "corpus")) {
        char *att = fp_path_join(g->outdir, "att");
        char *d = fp_path_join(att, name);
        free(att);
        return d;
    }
    return fp_path_join(g->outdir, name);
}

/* Plain writes, no fsync: test fixtures are regenerated at will and tests
 * generate many directories, so fp_write_atomic's durability would only cost time. */
static int write_file(gen *g, const char *dir, const char *name, const fp_sb *sb)
{
    if (fp_mkdir_p(dir, &g->err) != 0)
        return -1;
    char *p = fp_path_join(dir, name);
    FILE *f = fopen(p, "wb");
    int rc = 0;
    if (!f || fwrite(sb->buf, 1, sb->len, f) != sb->len)
        rc = fp_err_set(&g->err, FP_IO_ERROR, "%s: %s", p, strerror(errno));
    if (f && fclose(f) != 0 && rc == 0)
        rc = fp_err_set(&g->err, FP_IO_ERROR, "%s: %s", p, strerror(errno));
    free(p);
    return rc;
}

/* ---- code.json ---- */

static void gen_code(gen *g, fp_sb *sb)
{
    size_t n = g->nprog;
    int64_t *hit = calloc(n, sizeof *hit), *lat = calloc(n, sizeof *lat),
            *stall = calloc(n, sizeof *stall), *idle = calloc(n, sizeof *idle);
    if (!hit || !lat || !stall || !idle)
        abort();
    for (size_t i = 0; i < g->nw; i++) {
        const wave *w = &g->w[i];
        int64_t prev = w->begin; /* running max of time + duration (§5.3 Idle) */
        for (size_t k = 0; k < w->n; k++) {
            const rec *r = &w->r[k];
            hit[r->line]++;
            lat[r->line] += r->dur;
            stall[r->line] += r->stall;
            if (r->t > prev)
                idle[r->line] += r->t - prev;
            if (r->t + r->dur > prev)
                prev = r->t + r->dur;
        }
    }
    fp_sb_adds(sb, "{\"code\":[[");
    fp_sb tmp;
    fp_sb_init(&tmp);
    fp_sb_addf(&tmp, "; %s", g->symbol);
    js_str(sb, tmp.buf);
    fp_sb_free(&tmp);
    fp_sb_addf(sb, ",0,0,\"\",%" PRId64 ",%" PRId64 ",0,0,0,0]", g->codeobj, g->vaddr_base);
    int64_t va = g->vaddr_base;
    for (size_t i = 1; i < n; i++) {
        fp_sb_adds(sb, ",[");
        js_str(sb, g->prog[i].isa);
        fp_sb_addf(sb, ",0,%zu,", i);
        js_str(sb, g->prog[i].source);
        fp_sb_addf(sb, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "]",
                   g->codeobj, va, hit[i], lat[i], stall[i], idle[i]);
        va += g->prog[i].size;
    }
    fp_sb_adds(sb, "],\"header\":\"" GEN_CODE_HEADER "\",\"version\":\"" GEN_FORMAT_VERSION "\"}");
    free(hit);
    free(lat);
    free(stall);
    free(idle);
}

/* ---- wave files ---- */

static void gen_wave(const wave *w, fp_sb *sb)
{
    fp_sb_addf(sb, "{\"duration\":%" PRId64 ",\"name\":\"SE%d\",\"num_insts\":%zu,\"num_stitched\":%zu,",
               w->end - w->begin, w->se, w->n, w->n);
    fp_sb_addf(sb, "\"wave\":{\"begin\":%" PRId64 ",\"cu\":%d,\"end\":%" PRId64 ",\"id\":%d,\"instructions\":[",
               w->begin, w->cu, w->end, w->id);
    for (size_t k = 0; k < w->n; k++) {
        const rec *r = &w->r[k];
        fp_sb_addf(sb, "%s[%" PRId64 ",%d,%" PRId64 ",%" PRId64 ",%" PRId64 "]", k ? "," : "", r->t,
                   r->cat, r->stall, r->dur, r->line);
    }
    fp_sb_addf(sb, "],\"simd\":%d,\"slot\":%d,\"timeline\":[", w->simd, w->slot);
    for (size_t k = 0; k < w->ntl; k++)
        fp_sb_addf(sb, "%s[%d,%" PRId64 "]", k ? "," : "", w->tl[k].state, w->tl[k].dur);
    fp_sb_addf(sb, "],\"waitcnt\":%s}}", w->waitcnt.len ? w->waitcnt.buf : "[]");
}

static int write_wave(gen *g, const char *dir, const wave *w)
{
    fp_sb sb;
    fp_sb_init(&sb);
    gen_wave(w, &sb);
    /* A truncated file models a decoder killed mid-write: cut the JSON text. */
    if (w->truncate_frac > 0)
        sb.len = (size_t)((double)sb.len * w->truncate_frac);
    else if (w->truncate_bytes > 0 && (size_t)w->truncate_bytes < sb.len)
        sb.len = (size_t)w->truncate_bytes;
    sb.buf[sb.len] = '\0';
    int rc = write_file(g, dir, w->fname, &sb);
    fp_sb_free(&sb);
    return rc;
}

/* ---- filenames.json: wave_filenames[se][simd][slot][id], keys sorted as strings ---- */

typedef struct wkey {
    char k[4][24];
    const wave *w;
} wkey;

static int wkey_cmp(const void *a, const void *b)
{
    const wkey *x = a, *y = b;
    for (int i = 0; i < 4; i++) {
        int c = strcmp(x->k[i], y->k[i]);
        if (c)
            return c;
    }
    return 0;
}

static void gen_filenames(gen *g, fp_sb *sb, bool shell)
{
    fp_sb_addf(sb, "{\"counter_names\":[],\"gfxip\":9,\"gfxv\":\"vega\",\"global_begin_time\":0,"
                   "\"version\":\"" GEN_FORMAT_VERSION "\",\"wave_filenames\":");
    if (shell || g->nw == 0) {
        fp_sb_adds(sb, "null}");
        return;
    }
    wkey *ks = xrealloc(NULL, g->nw * sizeof *ks);
    for (size_t i = 0; i < g->nw; i++) {
        const wave *w = &g->w[i];
        snprintf(ks[i].k[0], 24, "%d", w->se);
        snprintf(ks[i].k[1], 24, "%d", w->simd);
        snprintf(ks[i].k[2], 24, "%d", w->slot);
        snprintf(ks[i].k[3], 24, "%d", w->id);
        ks[i].w = w;
    }
    qsort(ks, g->nw, sizeof *ks, wkey_cmp);
    fp_sb_addc(sb, '{');
    for (size_t i = 0; i < g->nw; i++) {
        int same = 0; /* levels shared with the previous key */
        if (i)
            while (same < 3 && !strcmp(ks[i].k[same], ks[i - 1].k[same]))
                same++;
        if (i) {
            for (int l = 3; l > same; l--)
                fp_sb_addc(sb, '}');
            fp_sb_addc(sb, ',');
        }
        for (int l = i ? same : 0; l < 4; l++) {
            fp_sb_addf(sb, "\"%s\":", ks[i].k[l]);
            if (l < 3)
                fp_sb_addc(sb, '{');
        }
        fp_sb_addf(sb, "[\"%s\",%" PRId64 ",%" PRId64 "]", ks[i].w->fname, ks[i].w->begin, ks[i].w->end);
    }
    fp_sb_adds(sb, "}}}}}");
    free(ks);
}

/* ---- occupancy.json ---- */

typedef struct occ {
    int64_t t;
    int cu, simd, slot, start;
    size_t seq;
} occ;

static int occ_cmp(const void *a, const void *b)
{
    const occ *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int se_str_cmp(const void *a, const void *b)
{
    char x[16], y[16];
    snprintf(x, sizeof x, "%d", *(const int *)a);
    snprintf(y, sizeof y, "%d", *(const int *)b);
    return strcmp(x, y);
}

static void gen_occupancy(gen *g, fp_sb *sb, bool shell)
{
    const cJSON *mirror = cJSON_GetObjectItemCaseSensitive(g->spec, "occupancy_mirror_cus");
    fp_sb_addc(sb, '{');
    for (size_t s = 0; s < g->nses; s++) {
        int se = g->traced_ses[s];
        size_t cap = 0, n = 0;
        occ *ev = NULL;
        for (size_t i = 0; !shell && i < g->nw; i++) {
            const wave *w = &g->w[i];
            if (w->se != se)
                continue;
            /* the traced CU itself, then copies on the mirrored CUs shifted by 4*(j+1) cycles */
            int nm = cJSON_IsArray(mirror) ? cJSON_GetArraySize(mirror) : 0;
            for (int j = -1; j < nm; j++) {
                int cu = j < 0 ? w->cu : (int)cJSON_GetArrayItem(mirror, j)->valuedouble;
                int64_t shift = j < 0 ? 0 : (int64_t)GEN_QUANTUM * (j + 1);
                if (n + 2 > cap) {
                    cap = cap ? cap * 2 : 64;
                    ev = xrealloc(ev, cap * sizeof *ev);
                }
                ev[n] = (occ){w->begin + shift, cu, w->simd, w->slot, 1, n};
                n++;
                ev[n] = (occ){w->end + shift, cu, w->simd, w->slot, 0, n};
                n++;
            }
        }
        if (n)
            qsort(ev, n, sizeof *ev, occ_cmp);
        fp_sb_addf(sb, "%s\"%d\":[", s ? "," : "", se);
        for (size_t k = 0; k < n; k++)
            fp_sb_addf(sb, "%s[%" PRId64 ",%d,%d,%d,%d,1]", k ? "," : "", ev[k].t, ev[k].cu, ev[k].simd,
                       ev[k].slot, ev[k].start);
        fp_sb_addc(sb, ']');
        free(ev);
    }
    fp_sb_addf(sb, "%s\"dispatches\":{\"0\":\"0 / 0x0\",\"1\":", g->nses ? "," : "");
    js_str(sb, g->symbol);
    fp_sb_adds(sb, "},\"version\":\"" GEN_FORMAT_VERSION "\"}");
}

/* ---- wstates<k>.json: number of traced waves in state k over time ---- */

typedef struct step {
    int64_t t;
    int d;
} step;

static int step_cmp(const void *a, const void *b)
{
    const step *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* Returns false when the state never occurs (the decoder omits that file). */
static bool gen_wstates(gen *g, int state, fp_sb *sb)
{
    step *ev = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < g->nw; i++) {
        const wave *w = &g->w[i];
        int64_t t = w->begin;
        for (size_t k = 0; k < w->ntl; k++) {
            if (w->tl[k].state == state) {
                if (n + 2 > cap) {
                    cap = cap ? cap * 2 : 256;
                    ev = xrealloc(ev, cap * sizeof *ev);
                }
                ev[n++] = (step){t, +1};
                ev[n++] = (step){t + w->tl[k].dur, -1};
            }
            t += w->tl[k].dur;
        }
    }
    if (!n)
        return false;
    qsort(ev, n, sizeof *ev, step_cmp);
    fp_sb tv, sv;
    fp_sb_init(&tv);
    fp_sb_init(&sv);
    int level = 0, last = -1;
    size_t out = 0;
    for (size_t k = 0; k < n;) {
        int64_t t = ev[k].t;
        while (k < n && ev[k].t == t)
            level += ev[k++].d;
        if (level == last)
            continue;
        fp_sb_addf(&tv, "%s%" PRId64, out ? "," : "", t);
        fp_sb_addf(&sv, "%s%d", out ? "," : "", level);
        last = level;
        out++;
    }
    fp_sb_addf(sb, "{\"name\":\"wstates%d.json\",\"state\":[%s],\"time\":[%s]}", state, sv.buf, tv.buf);
    fp_sb_free(&tv);
    fp_sb_free(&sv);
    free(ev);
    return true;
}

/* ---- realtime.json ---- */

static void gen_realtime(gen *g, fp_sb *sb, const cJSON *rt)
{
    int64_t lo = INT64_MAX, hi = 0;
    for (size_t i = 0; i < g->nw; i++) {
        if (g->w[i].begin < lo)
            lo = g->w[i].begin;
        if (g->w[i].end > hi)
            hi = g->w[i].end;
    }
    if (!g->nw)
        lo = hi = 100000;
    /* one pair a little before the first wave and one after the last */
    int64_t c0 = lo > 2000 ? lo - 2000 : 0, c1 = hi + 2000;
    int64_t mhz = int_or(rt, "shader_mhz", !strcmp(g->arch, "gfx942") ? 2100 : 2200);
    int64_t ref0 = int_or(rt, "ref_begin", 201700000000000LL);
    if (mhz <= 0)
        mhz = 2200;
    int64_t ref1 = ref0 + (c1 - c0) * (GEN_REALTIME_HZ / 1000000) / mhz;
    int ses[64];
    memcpy(ses, g->traced_ses, g->nses * sizeof *ses);
    /* "SE10" sorts before "SE2" in the decoder's map */
    qsort(ses, g->nses, sizeof *ses, se_str_cmp);
    fp_sb_addc(sb, '{');
    for (size_t s = 0; s < g->nses; s++)
        fp_sb_addf(sb, "\"SE%d\":[[%" PRId64 ",%" PRId64 "],[%" PRId64 ",%" PRId64 "]],", ses[s], c0, ref0,
                   c1, ref1);
    fp_sb_addf(sb, "\"metadata\":{\"descriptor\":\"[gfx_clock, realtime_clock]\",\"frequency\":%lld}}",
               GEN_REALTIME_HZ);
}

/* ---- snapshots.json + source_<k>_<basename> ---- */

typedef struct snap {
    char **comp; /* path components after the leading '/' */
    size_t nc;
    char *leaf;
} snap;

static void split_path(const char *p, snap *s)
{
    s->comp = NULL;
    s->nc = 0;
    const char *q = p;
    while (*q) {
        while (*q == '/')
            q++;
        if (!*q)
            break;
        const char *e = strchr(q, '/');
        size_t len = e ? (size_t)(e - q) : strlen(q);
        s->comp = xrealloc(s->comp, (s->nc + 1) * sizeof *s->comp);
        s->comp[s->nc] = strndup(q, len);
        if (!s->comp[s->nc])
            abort();
        s->nc++;
        q += len;
    }
}

static int str_ptr_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Emit the object for entries sel[] sharing components [0, depth). */
static void emit_tree(fp_sb *sb, snap *s, size_t *sel, size_t nsel, size_t depth)
{
    char **names = xrealloc(NULL, (nsel ? nsel : 1) * sizeof *names);
    size_t nn = 0;
    for (size_t i = 0; i < nsel; i++)
        if (s[sel[i]].nc > depth)
            names[nn++] = s[sel[i]].comp[depth];
    qsort(names, nn, sizeof *names, str_ptr_cmp);
    fp_sb_addc(sb, '{');
    size_t *sub = xrealloc(NULL, (nsel ? nsel : 1) * sizeof *sub);
    bool firstname = true;
    for (size_t k = 0; k < nn; k++) {
        if (k && !strcmp(names[k], names[k - 1]))
            continue;
        if (!firstname)
            fp_sb_addc(sb, ',');
        firstname = false;
        js_str(sb, names[k]);
        fp_sb_addc(sb, ':');
        size_t ns = 0;
        const char *leaf = NULL;
        for (size_t i = 0; i < nsel; i++) {
            snap *e = &s[sel[i]];
            if (e->nc > depth && !strcmp(e->comp[depth], names[k])) {
                if (e->nc == depth + 1)
                    leaf = e->leaf;
                else
                    sub[ns++] = sel[i];
            }
        }
        if (leaf)
            js_str(sb, leaf);
        else
            emit_tree(sb, s, sub, ns, depth + 1);
    }
    fp_sb_addc(sb, '}');
    free(sub);
    free(names);
}

static int write_sources(gen *g, const char *dir)
{
    const cJSON *sources = cJSON_GetObjectItemCaseSensitive(g->spec, "sources");
    const cJSON *extra = cJSON_GetObjectItemCaseSensitive(g->spec, "snapshot_extra_leaves");
    bool crlf = bool_or(g->spec, "crlf_sources", false);
    if (!bool_or(g->spec, "snapshots", true))
        return 0;
    size_t n = (size_t)(cJSON_IsObject(sources) ? cJSON_GetArraySize(sources) : 0) +
               (size_t)(cJSON_IsObject(extra) ? cJSON_GetArraySize(extra) : 0);
    if (!n)
        return 0;
    snap *s = xrealloc(NULL, n * sizeof *s);
    size_t ns = 0, k = 0;
    int rc = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, sources) {
        if (it->string[0] != '/') {
            rc = bad(g, "sources: \"%s\" is not an absolute path", it->string);
            break;
        }
        fp_sb text, leaf;
        fp_sb_init(&text);
        fp_sb_init(&leaf);
        if (cJSON_IsString(it)) {
            fp_sb_adds(&text, it->valuestring);
        } else if (cJSON_IsArray(it)) { /* one string per line */
            const cJSON *ln;
            cJSON_ArrayForEach(ln, it) {
                fp_sb_adds(&text, cJSON_IsString(ln) ? ln->valuestring : "");
                fp_sb_addc(&text, '\n');
            }
        } else {
            rc = bad(g, "sources[\"%s\"]: text or array of lines", it->string);
        }
        if (rc == 0 && crlf) {
            fp_sb c;
            fp_sb_init(&c);
            for (size_t i = 0; i < text.len; i++) {
                if (text.buf[i] == '\n' && (i == 0 || text.buf[i - 1] != '\r'))
                    fp_sb_addc(&c, '\r');
                fp_sb_addc(&c, text.buf[i]);
            }
            fp_sb_free(&text);
            text = c;
        }
        fp_sb_addf(&leaf, "source_%zu_%s", k++, fp_path_base(it->string));
        if (rc == 0)
            rc = write_file(g, dir, leaf.buf, &text);
        split_path(it->string, &s[ns]);
        s[ns++].leaf = fp_sb_detach(&leaf);
        fp_sb_free(&text);
        fp_sb_free(&leaf);
        if (rc)
            break;
    }
    /* leaves without a copied file: hostile ("../../etc/passwd") or missing */
    cJSON_ArrayForEach(it, extra) {
        if (rc || !cJSON_IsString(it))
            break;
        split_path(it->string, &s[ns]);
        s[ns++].leaf = xstrdup(it->valuestring);
    }
    if (rc == 0) {
        size_t *sel = xrealloc(NULL, ns * sizeof *sel);
        for (size_t i = 0; i < ns; i++)
            sel[i] = i;
        fp_sb sb;
        fp_sb_init(&sb);
        fp_sb_adds(&sb, "{\"/\":");
        emit_tree(&sb, s, sel, ns, 0);
        fp_sb_addc(&sb, '}');
        rc = write_file(g, dir, "snapshots.json", &sb);
        fp_sb_free(&sb);
        free(sel);
    }
    for (size_t i = 0; i < ns; i++) {
        for (size_t c = 0; c < s[i].nc; c++)
            free(s[i].comp[c]);
        free(s[i].comp);
        free(s[i].leaf);
    }
    free(s);
    return rc;
}

/* ---- one dispatch directory ---- */

static int write_dispatch(gen *g, int64_t dispatch, bool shell)
{
    char *dir = dir_path(g, dispatch);
    int rc = fp_mkdir_p(dir, &g->err);
    fp_sb sb;
    fp_sb_init(&sb);
    if (rc == 0) {
        if (shell)
            fp_sb_adds(&sb, "{\"code\":null,\"header\":\"" GEN_CODE_HEADER "\",\"version\":\"" GEN_FORMAT_VERSION
                            "\"}");
        else
            gen_code(g, &sb);
        rc = write_file(g, dir, "code.json", &sb);
    }
    if (rc == 0) {
        fp_sb_reset(&sb);
        gen_filenames(g, &sb, shell);
        rc = write_file(g, dir, "filenames.json", &sb);
    }
    if (rc == 0) {
        fp_sb_reset(&sb);
        gen_occupancy(g, &sb, shell);
        rc = write_file(g, dir, "occupancy.json", &sb);
    }
    const cJSON *rt = cJSON_GetObjectItemCaseSensitive(g->spec, "realtime");
    if (rc == 0 && !cJSON_IsFalse(rt)) {
        fp_sb_reset(&sb);
        gen_realtime(g, &sb, rt);
        rc = write_file(g, dir, "realtime.json", &sb);
    }
    for (int st = WS_IDLE; rc == 0 && !shell && st < WS_COUNT; st++) {
        fp_sb_reset(&sb);
        if (gen_wstates(g, st, &sb)) {
            char name[32];
            snprintf(name, sizeof name, "wstates%d.json", st);
            rc = write_file(g, dir, name, &sb);
        }
    }
    for (size_t i = 0; rc == 0 && !shell && i < g->nw; i++)
        rc = write_wave(g, dir, &g->w[i]);
    if (rc == 0 && !shell)
        rc = write_sources(g, dir);
    fp_sb_free(&sb);
    free(dir);
    return rc;
}

/* ---- rocprofv3 CSVs (§3.2-3.4) ---- */

static const char kernel_trace_header[] =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
    "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\","
    "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\","
    "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";

static const char kernel_stats_header[] =
    "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\",\"StdDev\"\n";

static const char agent_info_header[] =
    "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Cpu_Cores_Count\",\"Simd_Count\",\"Cpu_Core_Id_Base\","
    "\"Simd_Id_Base\",\"Max_Waves_Per_Simd\",\"Lds_Size_In_Kb\",\"Gds_Size_In_Kb\",\"Num_Gws\","
    "\"Wave_Front_Size\",\"Num_Xcc\",\"Cu_Count\",\"Array_Count\",\"Num_Shader_Banks\","
    "\"Simd_Arrays_Per_Engine\",\"Cu_Per_Simd_Array\",\"Simd_Per_Cu\",\"Max_Slots_Scratch_Cu\","
    "\"Gfx_Target_Version\",\"Vendor_Id\",\"Device_Id\",\"Location_Id\",\"Domain\",\"Drm_Render_Minor\","
    "\"Num_Sdma_Engines\",\"Num_Sdma_Xgmi_Engines\",\"Num_Sdma_Queues_Per_Engine\",\"Num_Cp_Queues\","
    "\"Max_Engine_Clk_Ccompute\",\"Max_Engine_Clk_Fcompute\",\"Sdma_Fw_Version\",\"Fw_Version\","
    "\"Capability\",\"Cu_Per_Engine\",\"Max_Waves_Per_Cu\",\"Family_Id\",\"Workgroup_Max_Size\","
    "\"Grid_Max_Size\",\"Local_Mem_Size\",\"Hive_Id\",\"Gpu_Id\",\"Workgroup_Max_Dim_X\","
    "\"Workgroup_Max_Dim_Y\",\"Workgroup_Max_Dim_Z\",\"Grid_Max_Dim_X\",\"Grid_Max_Dim_Y\","
    "\"Grid_Max_Dim_Z\",\"Name\",\"Vendor_Name\",\"Product_Name\",\"Model_Name\"\n";

/* Two CPU nodes (0, 1) precede the GPU like on the capture machines (§3.1: first GPU = "Agent 2"). */
static const char agent_cpu_rows[] =
    "0,0,\"CPU\",64,0,0,0,0,0,0,0,0,1,64,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3300,0,0,0,0,0,0,26,0,0,0,0,0,0,0,0,"
    "0,0,0,\"Synthetic x86-64 CPU\",\"CPU\",\"Synthetic x86-64 CPU\",\"\"\n"
    "1,1,\"CPU\",64,0,128,0,0,0,0,0,0,1,64,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3300,0,0,0,0,0,0,26,0,0,0,0,0,0,0,0,"
    "0,0,0,\"Synthetic x86-64 CPU\",\"CPU\",\"Synthetic x86-64 CPU\",\"\"\n";

/* GPU rows: MI350X is the real row of §3.4; MI300X substitutes the §7.1 facts
 * (304 CUs, 64 KiB LDS, 2100 MHz, gfx942 = 90402, chip id 29857). */
static const struct { const char *arch; const char *row; } agent_gpu_rows[] = {
    {"gfx950", "2,2,\"GPU\",0,1024,0,2147487744,8,160,0,64,64,8,256,32,32,1,9,4,32,90500,4098,30112,29952,0,128,"
               "2,14,8,24,3300,2200,12,30,2755109504,8,32,141,1024,4294967295,0,8861873366774386336,12605,"
               "1024,1024,1024,2147483647,65535,65535,\"gfx950\",\"AMD\",\"AMD Instinct MI350X\",\"ip discovery\"\n"},
    {"gfx942", "2,2,\"GPU\",0,1216,0,2147487744,8,64,0,64,64,8,304,32,32,1,10,4,32,90402,4098,29857,29952,0,128,"
               "2,14,8,24,3300,2100,12,30,2755109504,10,32,141,1024,4294967295,0,8861873366774386336,12605,"
               "1024,1024,1024,2147483647,65535,65535,\"gfx942\",\"AMD\",\"AMD Instinct MI300X\",\"ip discovery\"\n"},
};

/* LDS_Block_Size is the static LDS rounded up to 512 B (§3.2). */
#define GEN_LDS_GRANULE 512

typedef struct ktrow {
    const char *name;
    int64_t dispatch, kernel_id, start, end, lds, scratch, vgpr, accum, sgpr, wg[3], grid[3];
    size_t seq;
} ktrow;

static int ktrow_cmp(const void *a, const void *b)
{
    const ktrow *x = a, *y = b;
    if (x->dispatch != y->dispatch)
        return x->dispatch < y->dispatch ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void dim3(const cJSON *o, const char *key, const int64_t dflt[3], int64_t out[3])
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    for (int i = 0; i < 3; i++) {
        const cJSON *v = cJSON_IsArray(a) ? cJSON_GetArrayItem(a, i) : NULL;
        out[i] = cJSON_IsNumber(v) ? (int64_t)v->valuedouble : dflt[i];
    }
}

static void fill_row(ktrow *r, const cJSON *o, const ktrow *d)
{
    const char *nm = fp_json_get_str(o, "name");
    r->name = nm ? nm : d->name;
    r->dispatch = int_or(o, "dispatch", d->dispatch);
    r->kernel_id = int_or(o, "kernel_id", d->kernel_id);
    r->start = int_or(o, "start", d->start);
    r->end = int_or(o, "end", d->end);
    int64_t lds = int_or(o, "lds", d->lds);
    r->lds = (lds + GEN_LDS_GRANULE - 1) / GEN_LDS_GRANULE * GEN_LDS_GRANULE;
    r->scratch = int_or(o, "scratch", d->scratch);
    r->vgpr = int_or(o, "vgpr", d->vgpr);
    r->accum = int_or(o, "accum_vgpr", d->accum);
    r->sgpr = int_or(o, "sgpr", d->sgpr);
    dim3(o, "workgroup", d->wg, r->wg);
    dim3(o, "grid", d->grid, r->grid);
}

/* rocprofv3 float cells: fixed 6 decimals from 1 up, scientific below (§3.1). */
static void csv_float(fp_sb *sb, double v)
{
    fp_sb_addf(sb, v >= 1.0 ? "%.6f" : "%.8e", v);
}

/* Percentage as observed in real kernel_stats.csv: 2 decimals from 1 up,
 * 4 decimals down to 0.01, scientific (3 digits) below. */
static void csv_pct(fp_sb *sb, double v)
{
    fp_sb_addf(sb, v >= 1.0 ? "%.2f" : v >= 0.01 ? "%.4f" : "%.3e", v);
}

static int write_csvs(gen *g)
{
    const cJSON *rp = cJSON_GetObjectItemCaseSensitive(g->spec, "rocprof");
    if (!cJSON_IsObject(rp))
        return 0;
    const char *row = NULL;
    for (size_t i = 0; i < sizeof agent_gpu_rows / sizeof agent_gpu_rows[0]; i++)
        if (!strcmp(agent_gpu_rows[i].arch, g->arch))
            row = agent_gpu_rows[i].row;
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(rp, "calls");
    const cJSON *others = cJSON_GetObjectItemCaseSensitive(rp, "others");
    size_t n = (size_t)(cJSON_IsArray(calls) ? cJSON_GetArraySize(calls) : 0) +
               (size_t)(cJSON_IsArray(others) ? cJSON_GetArraySize(others) : 0);
    if (!n)
        return bad(g, "rocprof: needs at least one entry in \"calls\"");
    ktrow base = {.name = g->symbol, .dispatch = g->dispatch, .kernel_id = 1};
    static const int64_t wg1[3] = {256, 1, 1}, grid1[3] = {256, 1, 1};
    fill_row(&base, rp, &base);
    dim3(rp, "workgroup", wg1, base.wg);
    dim3(rp, "grid", grid1, base.grid);
    ktrow *rows = xrealloc(NULL, n * sizeof *rows);
    size_t k = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, calls) {
        fill_row(&rows[k], it, &base);
        rows[k].name = g->symbol;
        rows[k].seq = k;
        k++;
    }
    cJSON_ArrayForEach(it, others) {
        fill_row(&rows[k], it, &base);
        rows[k].seq = k;
        k++;
    }
    for (size_t i = 0; i < n; i++)
        if (rows[i].end < rows[i].start) {
            free(rows);
            return bad(g, "rocprof: a row ends before it starts");
        }
    qsort(rows, n, sizeof *rows, ktrow_cmp);
    int64_t agent = int_or(rp, "agent", 2), queue = int_or(rp, "queue_id", 1),
            tid = int_or(rp, "thread_id", g->pid);
    fp_sb sb;
    fp_sb_init(&sb);
    fp_sb_adds(&sb, kernel_trace_header);
    for (size_t i = 0; i < n; i++) {
        const ktrow *r = &rows[i];
        fp_sb_addf(&sb, "\"KERNEL_DISPATCH\",\"Agent %" PRId64 "\",%" PRId64 ",0,%" PRId64 ",%" PRId64 ",%" PRId64
                        ",\"%s\",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                        ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
                   agent, queue, tid, r->dispatch, r->kernel_id, r->name, r->dispatch, r->start, r->end, r->lds,
                   r->scratch, r->vgpr, r->accum, r->sgpr, r->wg[0], r->wg[1], r->wg[2], r->grid[0], r->grid[1],
                   r->grid[2]);
    }
    char *rdir = fp_path_join(g->outdir, "rocprof");
    int rc = write_file(g, rdir, "kernel_trace.csv", &sb);

    /* kernel_stats.csv: per name, sorted by total duration (ties: first seen) */
    double all = 0;
    for (size_t i = 0; i < n; i++)
        all += (double)(rows[i].end - rows[i].start);
    size_t *order = xrealloc(NULL, n * sizeof *order);
    int64_t *tot = xrealloc(NULL, n * sizeof *tot);
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) { /* group leaders in first-seen order */
        bool seen = false;
        for (size_t j = 0; j < ng; j++)
            seen |= !strcmp(rows[order[j]].name, rows[i].name);
        if (!seen)
            order[ng++] = i;
    }
    for (size_t j = 0; j < ng; j++) {
        tot[j] = 0;
        for (size_t i = 0; i < n; i++)
            if (!strcmp(rows[i].name, rows[order[j]].name))
                tot[j] += rows[i].end - rows[i].start;
    }
    for (size_t a = 1; a < ng; a++) /* stable insertion sort, descending total */
        for (size_t b = a; b > 0 && tot[b] > tot[b - 1]; b--) {
            int64_t t = tot[b];
            tot[b] = tot[b - 1];
            tot[b - 1] = t;
            size_t o = order[b];
            order[b] = order[b - 1];
            order[b - 1] = o;
        }
    fp_sb_reset(&sb);
    fp_sb_adds(&sb, kernel_stats_header);
    for (size_t j = 0; j < ng; j++) {
        const char *nm = rows[order[j]].name;
        int64_t calls_n = 0, mn = INT64_MAX, mx = 0;
        for (size_t i = 0; i < n; i++)
            if (!strcmp(rows[i].name, nm)) {
                int64_t d = rows[i].end - rows[i].start;
                calls_n++;
                mn = d < mn ? d : mn;
                mx = d > mx ? d : mx;
            }
        double avg = (double)tot[j] / (double)calls_n, ss = 0;
        for (size_t i = 0; i < n; i++)
            if (!strcmp(rows[i].name, nm)) {
                double d = (double)(rows[i].end - rows[i].start) - avg;
                ss += d * d;
            }
        /* sample standard deviation (matches real kernel_stats.csv) */
        double sd = calls_n > 1 ? sqrt(ss / (double)(calls_n - 1)) : 0.0;
        fp_sb_addf(&sb, "\"%s\",%" PRId64 ",%" PRId64 ",", nm, calls_n, tot[j]);
        csv_float(&sb, avg);
        fp_sb_addc(&sb, ',');
        csv_pct(&sb, all > 0 ? 100.0 * (double)tot[j] / all : 0.0);
        fp_sb_addf(&sb, ",%" PRId64 ",%" PRId64 ",", mn, mx);
        csv_float(&sb, sd);
        fp_sb_addc(&sb, '\n');
    }
    if (rc == 0)
        rc = write_file(g, rdir, "kernel_stats.csv", &sb);
    fp_sb_reset(&sb);
    fp_sb_adds(&sb, agent_info_header);
    fp_sb_adds(&sb, agent_cpu_rows);
    fp_sb_adds(&sb, row);
    if (rc == 0)
        rc = write_file(g, rdir, "agent_info.csv", &sb);
    fp_sb_free(&sb);
    free(rdir);
    free(order);
    free(tot);
    free(rows);
    return rc;
}

/* ---- spec top level ---- */

static int load_model(gen *g)
{
    memcpy(g->m.issue, default_issue, sizeof g->m.issue);
    memcpy(g->m.latency, default_latency, sizeof g->m.latency);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(g->spec, "model");
    g->m.start_idle = (int)int_or(m, "start_idle", 32);
    g->m.jump_gap = (int)int_or(m, "jump_gap", 16);
    g->m.jitter = (int)int_or(m, "jitter", 0);
    g->m.simd_contention = bool_or(m, "simd_contention", false);
    static const char *tables[2] = {"issue", "latency"};
    for (int t = 0; t < 2; t++) {
        const cJSON *tab = cJSON_GetObjectItemCaseSensitive(m, tables[t]);
        const cJSON *it;
        cJSON_ArrayForEach(it, tab) {
            cJSON name = {.type = cJSON_String, .valuestring = it->string};
            int c;
            if (parse_cat(g, &name, &c) != 0 || !cJSON_IsNumber(it) || it->valuedouble < 0)
                return bad(g, "model.%s: \"%s\" must be a category name with a cycle count", tables[t],
                           it->string);
            (t ? g->m.latency : g->m.issue)[c] = (int)it->valuedouble;
        }
    }
    if (g->m.start_idle < 0 || g->m.jump_gap < 0 || g->m.jitter < 0)
        return bad(g, "model: start_idle, jump_gap and jitter must be >= 0");
    return 0;
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

static void add_se(gen *g, int se)
{
    for (size_t i = 0; i < g->nses; i++)
        if (g->traced_ses[i] == se)
            return;
    if (g->nses < sizeof g->traced_ses / sizeof g->traced_ses[0])
        g->traced_ses[g->nses++] = se;
}

static int run(gen *g)
{
    const char *sym = fp_json_get_str(g->spec, "symbol");
    if (!sym || !*sym)
        return bad(g, "spec: \"symbol\" (kernel symbol name) is required");
    g->symbol = xstrdup(sym);
    g->pid = int_or(g->spec, "pid", 1);
    g->dispatch = int_or(g->spec, "dispatch", 1);
    g->arch = fp_json_get_str(g->spec, "arch");
    if (!g->arch)
        g->arch = "gfx950";
    if (strcmp(g->arch, "gfx950") && strcmp(g->arch, "gfx942"))
        return bad(g, "spec: arch must be gfx942 or gfx950, not \"%s\"", g->arch);
    g->codeobj = int_or(g->spec, "codeobj", 1);
    g->vaddr_base = int_or(g->spec, "vaddr_base", 4096);
    bool shell = bool_or(g->spec, "empty_shell", false);
    if (load_model(g) != 0 || load_program(g) != 0)
        return -1;
    if (!shell && load_waves(g) != 0)
        return -1;
    if (!shell && g->nw == 0)
        return bad(g, "spec: no waves (use \"empty_shell\": true for an empty dispatch)");
    const cJSON *src;
    cJSON_ArrayForEach(src, cJSON_GetObjectItemCaseSensitive(g->spec, "sources")) {
        if (!src->string || src->string[0] != '/')
            return bad(g, "sources: \"%s\" is not an absolute path", src->string ? src->string : "");
        if (!cJSON_IsString(src) && !cJSON_IsArray(src))
            return bad(g, "sources[\"%s\"]: text or array of lines", src->string);
    }
    const cJSON *ses = cJSON_GetObjectItemCaseSensitive(g->spec, "traced_ses");
    const cJSON *it;
    cJSON_ArrayForEach(it, ses)
        if (cJSON_IsNumber(it) && it->valuedouble >= 0 && it->valuedouble < 64)
            add_se(g, (int)it->valuedouble);
    for (size_t i = 0; i < g->nw; i++)
        add_se(g, g->w[i].se);
    if (!g->nses)
        add_se(g, 0);
    qsort(g->traced_ses, g->nses, sizeof g->traced_ses[0], int_cmp);
    /* occupancy keys are map-sorted as strings ("10" < "2") */
    qsort(g->traced_ses, g->nses, sizeof g->traced_ses[0], se_str_cmp);
    if (write_dispatch(g, g->dispatch, shell) != 0)
        return -1;
    const cJSON *extra = cJSON_GetObjectItemCaseSensitive(g->spec, "extra_empty_shells");
    cJSON_ArrayForEach(it, extra) {
        if (!cJSON_IsNumber(it) || (int64_t)it->valuedouble == g->dispatch)
            return bad(g, "extra_empty_shells: dispatch numbers other than \"dispatch\"");
        size_t nw = g->nw;
        g->nw = 0; /* a shell has no waves, whatever the spec traced */
        int rc = write_dispatch(g, (int64_t)it->valuedouble, true);
        g->nw = nw;
        if (rc != 0)
            return -1;
    }
    return write_csvs(g);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: fp_gen_att SPEC.json OUTDIR\n"
                        "writes OUTDIR/ui_output_agent_<pid>_dispatch_<n>/ (see docs/generator.md)\n");
        return 2;
    }
    gen g;
    memset(&g, 0, sizeof g);
    cJSON *spec = NULL;
    if (fp_json_parse_file(argv[1], &spec, &g.err) != 0) {
        fprintf(stderr, "fp_gen_att: %s\n", g.err.message);
        return 1;
    }
    if (!cJSON_IsObject(spec)) {
        fprintf(stderr, "fp_gen_att: %s: the spec must be a JSON object\n", argv[1]);
        cJSON_Delete(spec);
        return 1;
    }
    g.spec = spec;
    g.outdir = argv[2];
    int rc = run(&g);
    if (rc != 0)
        fprintf(stderr, "fp_gen_att: %s: %s\n", argv[1], g.err.message);
    if (g.prog)
        free_program(&g);
    if (g.w)
        free_waves(&g);
    free(g.symbol);
    fp_err_clear(&g.err);
    cJSON_Delete(spec);
    return rc ? 1 : 0;
}
