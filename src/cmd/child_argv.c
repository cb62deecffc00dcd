/*
 * child_argv.c - a child `flyprof <cmd>` command line spelled from the child's
 * own option table (child_argv.h).
 */
#include <stdlib.h>
#include <string.h>

#include "child_argv.h"

void fp_argv_push(fp_argvb *b, const char *s)
{
    if (b->n < 63)
        b->v[b->n++] = s;
    b->v[b->n] = NULL;
}

const char *fp_argv_own(fp_argvb *b, fp_sb *sb)
{
    char *s = fp_sb_detach(sb);
    if (!s || b->nowned >= sizeof b->owned / sizeof *b->owned)
        abort(); /* at most one owned string per argv slot */
    b->owned[b->nowned++] = s;
    return s;
}

void fp_argv_free(fp_argvb *b)
{
    for (size_t i = 0; i < b->nowned; i++)
        free(b->owned[i]);
}

const fp_opt *fp_argv_find_opt(const fp_opt *opts, const char *lng)
{
    for (const fp_opt *o = opts; o && o->lng; o++)
        if (!strcmp(o->lng, lng))
            return o;
    return NULL;
}

/* Option `lng` of `opts` as "--lng" (or "-s" when shrt), then its value unless
 * it is a flag. */
void fp_argv_opt_as(fp_argvb *b, const fp_opt *opts, const char *lng, bool shrt, const char *value)
{
    const fp_opt *o = fp_argv_find_opt(opts, lng);
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
    fp_argv_push(b, fp_argv_own(b, &f));
    if (o->kind != FP_OPT_FLAG)
        fp_argv_push(b, value);
}

/* The child's option `lng` with `value`; nothing when value is NULL (not set). */
void fp_argv_opt(fp_argvb *b, const char *lng, const char *value)
{
    if (value)
        fp_argv_opt_as(b, b->cmd->opts, lng, false, value);
}

/* The child's flag `lng`, when on. */
void fp_argv_flag(fp_argvb *b, const char *lng, bool on)
{
    if (on)
        fp_argv_opt_as(b, b->cmd->opts, lng, false, NULL);
}

void fp_argv_bundle(fp_argvb *b, const char *dir) { fp_argv_opt_as(b, fp_global_opts, "bundle", false, dir); }

void fp_argv_json(fp_argvb *b) { fp_argv_opt_as(b, fp_global_opts, "format", true, "json"); }
void fp_argv_quiet(fp_argvb *b) { fp_argv_opt_as(b, fp_global_opts, "quiet", true, NULL); }
