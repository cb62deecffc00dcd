/*
 * child_argv.c - a child `flyprof <cmd>` command line spelled from the child's
 * own option table (child_argv.h).
 */
#include <stdlib.h>
#include <string.h>

#include "child_argv.h"

void push(argvb *b, const char *s)
{
    if (b->n < 63)
        b->v[b->n++] = s;
    b->v[b->n] = NULL;
}

const char *own(argvb *b, fp_sb *sb)
{
    char *s = fp_sb_detach(sb);
    if (!s || b->nowned >= sizeof b->owned / sizeof *b->owned)
        abort(); /* at most one owned string per argv slot */
    b->owned[b->nowned++] = s;
    return s;
}

void argvb_free(argvb *b)
{
    for (size_t i = 0; i < b->nowned; i++)
        free(b->owned[i]);
}

const fp_opt *find_opt(const fp_opt *opts, const char *lng)
{
    for (const fp_opt *o = opts; o && o->lng; o++)
        if (!strcmp(o->lng, lng))
            return o;
    return NULL;
}

/* Option `lng` of `opts` as "--lng" (or "-s" when shrt), then its value unless
 * it is a flag. */
void push_opt(argvb *b, const fp_opt *opts, const char *lng, bool shrt, const char *value)
{
    const fp_opt *o = find_opt(opts, lng);
    if (!o || (shrt && !o->shrt)) {
        if (!b->unknown)
            b->unknown = lng;
        return;
    }
    fp_sb f;
    fp_sb_init(&f);
    if (shrt)
        fp_sb_addf(&f, "-%c", o->shrt);
    else
        fp_sb_addf(&f, "--%s", o->lng);
    push(b, own(b, &f));
    if (o->kind != FP_OPT_FLAG)
        push(b, value);
}

/* The child's option `lng` with `value`; nothing when value is NULL (not set). */
void opt(argvb *b, const char *lng, const char *value)
{
    if (value)
        push_opt(b, b->cmd->opts, lng, false, value);
}

/* The child's flag `lng`, when on. */
void flag(argvb *b, const char *lng, bool on)
{
    if (on)
        push_opt(b, b->cmd->opts, lng, false, NULL);
}

void global_bundle(argvb *b, const char *dir) { push_opt(b, fp_global_opts, "bundle", false, dir); }

void json_envelope(argvb *b) { push_opt(b, fp_global_opts, "format", true, "json"); }
void quiet(argvb *b) { push_opt(b, fp_global_opts, "quiet", true, NULL); }
