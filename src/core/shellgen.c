/*
 * shellgen.c - completions and man pages from the option tables (shellgen.h).
 */
#include "flyprof/shellgen.h"

#include <stdbool.h>
#include <string.h>

#include "flyprof/error.h"

/* global options a command takes (the global --bundle only where the command reads one) */
static bool global_applies(const fp_command *cmd, const fp_opt *o)
{
    return !(cmd && cmd->no_bundle && !strcmp(o->lng, "bundle"));
}

/* what a value of the option is, for value completion */
typedef enum { VAL_NONE, VAL_CHOICE, VAL_DIR, VAL_FILE, VAL_WORD } val_kind;

static val_kind value_kind(const fp_opt *o)
{
    if (o->kind == FP_OPT_FLAG)
        return VAL_NONE;
    if (o->kind == FP_OPT_CHOICE && o->choices)
        return VAL_CHOICE;
    const char *m = o->metavar ? o->metavar : "";
    if (!strcmp(m, "DIR"))
        return VAL_DIR;
    static const char *const files[] = {"FILE", "PATH", "CSV", "DB"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (!strcmp(m, files[i]))
            return VAL_FILE;
    return VAL_WORD;
}

static void choices_words(const fp_opt *o, fp_sb *out)
{
    for (const char *const *c = o->choices; c && *c; c++)
        fp_sb_addf(out, "%s%s", c == o->choices ? "" : " ", *c);
}

/* A help text made safe for a quoted shell word / a zsh [description]: the first sentence,
 * no quotes, brackets, colons or backslashes. */
static void short_help(const char *h, size_t max, fp_sb *out)
{
    size_t n = 0;
    for (const char *p = h ? h : ""; *p && n < max; p++, n++) {
        if (*p == ';' || (*p == '(' && n > 20))
            break;
        fp_sb_addc(out, strchr("'\"[]:\\`$", *p) ? ' ' : *p);
    }
    while (out->len && out->buf[out->len - 1] == ' ')
        out->buf[--out->len] = '\0';
}

/* ---- bash ---- */

static void bash_values(const fp_opt *o, fp_sb *out)
{
    val_kind k = value_kind(o);
    if (k == VAL_NONE)
        return;
    fp_sb_adds(out, "        ");
    if (o->shrt)
        fp_sb_addf(out, "-%c|", o->shrt);
    fp_sb_addf(out, "--%s) ", o->lng);
    if (k == VAL_CHOICE) {
        fp_sb_adds(out, "COMPREPLY=($(compgen -W \"");
        choices_words(o, out);
        fp_sb_adds(out, "\" -- \"$cur\")); return ;;\n");
    } else if (k == VAL_DIR) {
        fp_sb_adds(out, "COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n");
    } else if (k == VAL_FILE) {
        fp_sb_adds(out, "COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n");
    } else {
        fp_sb_adds(out, "return ;;\n");
    }
}

static void bash_opts_words(const fp_opt *opts, const fp_command *cmd, fp_sb *out)
{
    for (const fp_opt *o = opts; o && o->lng; o++)
        if (opts != fp_global_opts || global_applies(cmd, o)) {
            fp_sb_addf(out, " --%s", o->lng);
            if (o->shrt)
                fp_sb_addf(out, " -%c", o->shrt);
        }
}

static void bash(const fp_command *const *cmds, fp_sb *out)
{
    fp_sb_adds(out, "# bash completion for flyprof (generated from its option tables: flyprof help completion bash)\n"
                    "_flyprof() {\n"
                    "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= i\n"
                    "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
                    "        case ${COMP_WORDS[i]} in -f|--format|--bundle|--color) ((i++)) ;; -*) ;; "
                    "*) cmd=${COMP_WORDS[i]}; break ;; esac\n"
                    "    done\n"
                    "    case $prev in\n");
    for (const fp_opt *o = fp_global_opts; o->lng; o++)
        bash_values(o, out);
    fp_sb_adds(out, "    esac\n    local opts=\n    case $cmd in\n    '')\n        COMPREPLY=($(compgen -W \"");
    for (const fp_command *const *c = cmds; *c; c++)
        fp_sb_addf(out, "%s ", (*c)->name);
    fp_sb_adds(out, "help\" -- \"$cur\"))\n        return ;;\n");
    for (const fp_command *const *c = cmds; *c; c++) {
        fp_sb_addf(out, "    %s)\n        case $prev in\n", (*c)->name);
        for (const fp_opt *o = (*c)->opts; o && o->lng; o++)
            bash_values(o, out);
        fp_sb_adds(out, "        esac\n        opts=\"");
        bash_opts_words((*c)->opts, *c, out);
        bash_opts_words(fp_global_opts, *c, out);
        fp_sb_adds(out, "\" ;;\n");
    }
    fp_sb_adds(out, "    esac\n"
                    "    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
                    "    else COMPREPLY=($(compgen -f -- \"$cur\")); fi\n"
                    "}\n"
                    "complete -o filenames -F _flyprof flyprof\n");
}

/* ---- zsh ---- */

static void zsh_opt(const fp_opt *o, fp_sb *out)
{
    fp_sb h;
    fp_sb_init(&h);
    short_help(o->help, 70, &h);
    val_kind k = value_kind(o);
    fp_sb_adds(out, "        '");
    if (o->shrt)
        fp_sb_addf(out, "(-%c --%s)'{-%c,--%s}'", o->shrt, o->lng, o->shrt, o->lng);
    else
        fp_sb_addf(out, "--%s", o->lng);
    fp_sb_addf(out, "[%s]", h.buf);
    if (k == VAL_CHOICE) {
        fp_sb_addf(out, ":%s:(", o->metavar ? o->metavar : "value");
        choices_words(o, out);
        fp_sb_adds(out, ")");
    } else if (k == VAL_DIR) {
        fp_sb_adds(out, ":directory:_files -/");
    } else if (k == VAL_FILE) {
        fp_sb_adds(out, ":file:_files");
    } else if (k == VAL_WORD) {
        fp_sb_addf(out, ":%s: ", o->metavar ? o->metavar : "value");
    }
    fp_sb_adds(out, "'\n");
    fp_sb_free(&h);
}

static void zsh(const fp_command *const *cmds, fp_sb *out)
{
    fp_sb_adds(out, "#compdef flyprof\n# zsh completion for flyprof (generated from its option tables: flyprof help "
                    "completion zsh)\n_flyprof() {\n    local -a cmds\n    cmds=(\n");
    for (const fp_command *const *c = cmds; *c; c++) {
        fp_sb h;
        fp_sb_init(&h);
        short_help((*c)->summary, 70, &h);
        fp_sb_addf(out, "        '%s:%s'\n", (*c)->name, h.buf);
        fp_sb_free(&h);
    }
    fp_sb_adds(out, "        'help:a command's options, exit codes'\n    )\n"
                    "    if (( CURRENT == 2 )); then _describe 'command' cmds; return; fi\n"
                    "    local cmd=${words[2]}\n    shift 1 words; (( CURRENT-- ))\n    case $cmd in\n");
    for (const fp_command *const *c = cmds; *c; c++) {
        fp_sb_addf(out, "    %s)\n        _arguments -s \\\n", (*c)->name);
        for (const fp_opt *o = (*c)->opts; o && o->lng; o++)
            zsh_opt(o, out);
        for (const fp_opt *o = fp_global_opts; o->lng; o++)
            if (global_applies(*c, o))
                zsh_opt(o, out);
        fp_sb_adds(out, "        '*:file:_files' ;;\n");
    }
    fp_sb_adds(out, "    esac\n}\n_flyprof \"$@\"\n");
    /* the descriptions above never hold a quote (short_help), but "command's" does: */
    char *q = strstr(out->buf, "command's");
    if (q)
        q[7] = ' ';
}

/* ---- fish ---- */

static void fish_opt(const fp_opt *o, const char *cond, fp_sb *out)
{
    fp_sb h;
    fp_sb_init(&h);
    short_help(o->help, 70, &h);
    fp_sb_addf(out, "complete -c flyprof%s%s%s", cond ? " -n '__fish_seen_subcommand_from " : "", cond ? cond : "",
               cond ? "'" : "");
    if (o->shrt)
        fp_sb_addf(out, " -s %c", o->shrt);
    fp_sb_addf(out, " -l %s", o->lng);
    val_kind k = value_kind(o);
    if (k == VAL_CHOICE) {
        fp_sb_adds(out, " -x -a '");
        choices_words(o, out);
        fp_sb_adds(out, "'");
    } else if (k == VAL_DIR) {
        fp_sb_adds(out, " -x -a '(__fish_complete_directories)'");
    } else if (k == VAL_FILE) {
        fp_sb_adds(out, " -r -F");
    } else if (k == VAL_WORD) {
        fp_sb_adds(out, " -x");
    }
    fp_sb_addf(out, " -d '%s'\n", h.buf);
    fp_sb_free(&h);
}

static void fish(const fp_command *const *cmds, fp_sb *out)
{
    fp_sb_adds(out, "# fish completion for flyprof (generated from its option tables: flyprof help completion fish)\n"
                    "complete -c flyprof -f\n");
    for (const fp_command *const *c = cmds; *c; c++) {
        fp_sb h;
        fp_sb_init(&h);
        short_help((*c)->summary, 70, &h);
        fp_sb_addf(out, "complete -c flyprof -n __fish_use_subcommand -a %s -d '%s'\n", (*c)->name, h.buf);
        fp_sb_free(&h);
    }
    fp_sb_adds(out, "complete -c flyprof -n __fish_use_subcommand -a help -d 'a command s options, exit codes'\n");
    for (const fp_opt *o = fp_global_opts; o->lng; o++)
        if (strcmp(o->lng, "bundle"))
            fish_opt(o, NULL, out);
    for (const fp_command *const *c = cmds; *c; c++) {
        for (const fp_opt *o = (*c)->opts; o && o->lng; o++)
            fish_opt(o, (*c)->name, out);
        if (!(*c)->no_bundle)
            for (const fp_opt *o = fp_global_opts; o->lng; o++)
                if (!strcmp(o->lng, "bundle"))
                    fish_opt(o, (*c)->name, out);
    }
}

int fp_completion(const char *shell, const fp_command *const *cmds, fp_sb *out)
{
    static const struct {
        const char *name;
        void (*gen)(const fp_command *const *cmds, fp_sb *out);
    } shells[] = {{"bash", bash}, {"zsh", zsh}, {"fish", fish}};
    for (size_t i = 0; i < sizeof shells / sizeof shells[0]; i++)
        if (shell && !strcmp(shell, shells[i].name)) {
            shells[i].gen(cmds, out);
            return 0;
        }
    return -1;
}

/* ---- man pages (man(7) roff) ---- */

/* Text as roff: backslashes escaped, a leading '.' or '\'' guarded, '-' as \- (so that
 * options copy and search as ASCII hyphens). */
static void roff(const char *s, fp_sb *out)
{
    bool bol = true;
    for (const char *p = s ? s : ""; *p; p++) {
        if (bol && (*p == '.' || *p == '\''))
            fp_sb_adds(out, "\\&");
        if (*p == '\\')
            fp_sb_adds(out, "\\e");
        else if (*p == '-')
            fp_sb_adds(out, "\\-");
        else
            fp_sb_addc(out, *p);
        bol = *p == '\n';
    }
}

static void man_opt(const fp_opt *o, fp_sb *out)
{
    fp_sb_adds(out, ".TP\n.B ");
    if (o->shrt)
        fp_sb_addf(out, "\\-%c, ", o->shrt);
    fp_sb_adds(out, "\\-\\-");
    roff(o->lng, out);
    if (o->kind != FP_OPT_FLAG && o->metavar) {
        fp_sb_adds(out, " \\fI");
        roff(o->metavar, out);
        fp_sb_adds(out, "\\fR");
    }
    fp_sb_addc(out, '\n');
    roff(o->help, out);
    if (o->kind == FP_OPT_CHOICE && o->choices) {
        fp_sb_adds(out, " (one of: ");
        for (const char *const *c = o->choices; *c; c++)
            fp_sb_addf(out, "%s%s", c == o->choices ? "" : ", ", *c);
        fp_sb_adds(out, ")");
    }
    if (o->deflt && fp_opt_default_shown(o)) {
        fp_sb_adds(out, " [default: ");
        roff(o->deflt, out);
        fp_sb_adds(out, "]");
    }
    fp_sb_addc(out, '\n');
}

static void man_head(const char *name, const char *version, fp_sb *out)
{
    fp_sb up;
    fp_sb_init(&up);
    for (const char *p = name; *p; p++)
        fp_sb_addc(&up, *p >= 'a' && *p <= 'z' ? (char)(*p - 32) : *p);
    fp_sb_addf(out, ".TH %s 1 \"\" \"flyprof %s\" \"flyprof manual\"\n", up.buf, version);
    fp_sb_free(&up);
}

static void man_command(const fp_command *cmd, const char *version, fp_sb *out)
{
    fp_sb name;
    fp_sb_init(&name);
    fp_sb_addf(&name, "flyprof-%s", cmd->name);
    man_head(name.buf, version, out);
    fp_sb_adds(out, ".SH NAME\n");
    roff(name.buf, out);
    fp_sb_adds(out, " \\- ");
    roff(cmd->summary, out);
    fp_sb_adds(out, "\n.SH SYNOPSIS\n");
    roff(cmd->usage, out);
    fp_sb_adds(out, "\n.SH DESCRIPTION\n");
    roff(cmd->summary, out);
    fp_sb_adds(out, ".\n");
    if (cmd->details) {
        fp_sb_adds(out, ".PP\n");
        roff(cmd->details, out);
        fp_sb_addc(out, '\n');
    }
    if (cmd->opts && cmd->opts->lng) {
        fp_sb_adds(out, ".SH OPTIONS\n");
        for (const fp_opt *o = cmd->opts; o->lng; o++)
            man_opt(o, out);
    }
    fp_sb_adds(out, ".SH GLOBAL OPTIONS\n");
    for (const fp_opt *o = fp_global_opts; o->lng; o++)
        if (global_applies(cmd, o))
            man_opt(o, out);
    if (cmd->examples && cmd->examples[0]) {
        fp_sb_adds(out, ".SH EXAMPLES\n");
        for (const char *const *e = cmd->examples; *e; e++) {
            fp_sb_adds(out, ".PP\n.nf\n");
            roff(*e, out);
            fp_sb_adds(out, "\n.fi\n");
        }
    }
    fp_sb_adds(out, ".SH EXIT STATUS\nThe status bound to the envelope's error code: see \\fBflyprof\\fR(1).\n"
                    ".SH SEE ALSO\n\\fBflyprof\\fR(1), docs/commands/");
    roff(cmd->name, out);
    fp_sb_adds(out, ".md\n");
    fp_sb_free(&name);
}

static void man_main(const fp_command *const *cmds, const char *version, fp_sb *out)
{
    man_head("flyprof", version, out);
    fp_sb_adds(out, ".SH NAME\nflyprof \\- why is this GPU kernel slow? (AMD Instinct, rocprofv3 ATT)\n"
                    ".SH SYNOPSIS\n\\fBflyprof\\fR \\fIcommand\\fR [\\fIargs\\fR] [\\fIoptions\\fR]\n"
                    ".SH DESCRIPTION\nEvery command prints one JSON envelope (or, with \\-f table, the human "
                    "text) and exits with the status bound to its error code.\n.SH COMMANDS\n");
    for (const fp_command *const *c = cmds; *c; c++) {
        fp_sb_addf(out, ".TP\n.BR flyprof\\-%s (1)\n", (*c)->name);
        roff((*c)->summary, out);
        fp_sb_addc(out, '\n');
    }
    fp_sb_adds(out, ".SH GLOBAL OPTIONS\n");
    for (const fp_opt *o = fp_global_opts; o->lng; o++)
        man_opt(o, out);
    fp_sb_adds(out, ".SH EXIT STATUS\n");
    for (int i = 0; i < FP_CODE_COUNT; i++) {
        fp_sb_addf(out, ".TP\n.B %d\n", fp_code_table[i].exit_status);
        roff(fp_code_table[i].name, out);
        fp_sb_adds(out, ": ");
        roff(fp_code_table[i].meaning, out);
        fp_sb_addc(out, '\n');
    }
    fp_sb_adds(out, ".SH ENVIRONMENT\n.TP\n.B FLYPROF_FORMAT\nthe default \\-f (json, table, csv, sarif, junit)\n"
                    ".TP\n.B NO_COLOR\nno colour in tables\n.TP\n.B FLYPROF_WORKTREE, FLYPROF_ROCPROFV3, "
                    "FLYPROF_RECIPES, FLYPROF_CONFIG, FLYPROF_HISTORY\nsee docs/config.md\n.SH SEE ALSO\n");
    for (const fp_command *const *c = cmds; *c; c++)
        fp_sb_addf(out, "\\fBflyprof\\-%s\\fR(1)%s\n", (*c)->name, c[1] ? "," : "");
}

void fp_man_page(const fp_command *cmd, const fp_command *const *cmds, const char *version, fp_sb *out)
{
    if (cmd)
        man_command(cmd, version, out);
    else
        man_main(cmds, version, out);
}
