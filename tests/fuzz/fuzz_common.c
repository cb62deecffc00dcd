/*
 * fuzz_common.c - see fuzz_common.h.
 */
#include "fuzz_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "flyprof/cli.h"
#include "flyprof/error.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"

static char g_dir[256];

static void rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                    continue;
                char *p = fp_path_join(path, e->d_name);
                rm_rf(p);
                free(p);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void cleanup(void)
{
    if (g_dir[0])
        rm_rf(g_dir);
}

const char *fz_dir(void)
{
    if (g_dir[0])
        return g_dir;
    const char *base = getenv("FLYPROF_FUZZ_TMP");
    if (!base || !*base)
        base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(g_dir, sizeof g_dir, "%s/flyprof-fuzz-XXXXXX", base);
    if (!mkdtemp(g_dir)) {
        perror("fuzz: mkdtemp");
        abort();
    }
    atexit(cleanup);
    return g_dir;
}

char *fz_path(const char *rel) { return fp_path_join(fz_dir(), rel); }

char *fz_write(const char *rel, const uint8_t *data, size_t size)
{
    char *p = fz_path(rel);
    char *dir = strdup(p);
    char *slash = strrchr(dir, '/');
    *slash = '\0';
    fp_err e = {0};
    if (fp_mkdir_p(dir, &e) != 0)
        abort();
    free(dir);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        abort();
    size_t off = 0;
    while (off < size) {
        ssize_t n = write(fd, data + off, size - off);
        if (n <= 0)
            abort();
        off += (size_t)n;
    }
    close(fd);
    return p;
}

static void copy_tree(const char *src, const char *dst)
{
    fp_err e = {0};
    if (fp_mkdir_p(dst, &e) != 0)
        abort();
    char **names = NULL;
    size_t n = 0;
    if (fp_list_dir(src, &names, &n, &e) != 0)
        abort();
    for (size_t i = 0; i < n; i++) {
        char *s = fp_path_join(src, names[i]), *d = fp_path_join(dst, names[i]);
        struct stat st;
        if (lstat(s, &st) == 0 && S_ISDIR(st.st_mode)) {
            copy_tree(s, d);
        } else if (lstat(s, &st) == 0 && S_ISREG(st.st_mode)) {
            fp_sb sb;
            fp_sb_init(&sb);
            if (fp_read_file(s, &sb, &e) != 0 || fp_write_atomic(d, sb.buf, sb.len, &e) != 0)
                abort();
            fp_sb_free(&sb);
        }
        free(s);
        free(d);
    }
    fp_strv_free(names, n);
}

char *fz_copy_tree(const char *src, const char *rel)
{
    char *dst = fz_path(rel);
    rm_rf(dst);
    copy_tree(src, dst);
    return dst;
}

void fz_remove(const char *rel)
{
    char *p = fz_path(rel);
    rm_rf(p);
    free(p);
}

/* ---- oracles ---- */

static size_t utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else
        return 0;
    for (size_t i = 1; i < len; i++)
        if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xBF))
            return 0;
    return len;
}

void fz_check_json_text(const char *text, const char *what)
{
    /* an independent UTF-8 check (not the printer's own sanitiser) */
    for (const unsigned char *s = (const unsigned char *)text; *s;) {
        size_t l = utf8_len(s);
        if (!l) {
            fprintf(stderr, "fuzz oracle: %s is not valid UTF-8 at byte %zu\n", what,
                    (size_t)(s - (const unsigned char *)text));
            abort();
        }
        s += l;
    }
    cJSON *j = cJSON_Parse(text);
    if (!j) {
        fprintf(stderr, "fuzz oracle: %s is not one JSON document\n", what);
        abort();
    }
    cJSON_Delete(j);
}

void fz_check_err(int rc, const fp_err *err, const char *what)
{
    if (rc == 0)
        return;
    if (err->code == FP_OK || err->code == FP_INTERNAL) {
        fprintf(stderr, "fuzz oracle: %s failed with %s: %s\n", what, err->code == FP_OK ? "no code" : "INTERNAL",
                err->message);
        abort();
    }
}

/* ---- commands in-process (mirrors main.c) ---- */

#define FZ_TABLE_ENTRY(name) &fp_cmd_##name,
static const fp_command *const commands[] = {FP_COMMANDS(FZ_TABLE_ENTRY) NULL};
#undef FZ_TABLE_ENTRY

int fz_run(const char *bundle, int argc, const char **argv)
{
    static volatile sig_atomic_t never;
    const fp_command *cmd = NULL;
    for (const fp_command *const *c = commands; *c; c++)
        if (!strcmp((*c)->name, argv[0]))
            cmd = *c;
    if (!cmd)
        abort();
    fp_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    fp_sb_init(&ctx.table);
    ctx.command = cmd->name;
    ctx.format = FP_FMT_JSON;
    ctx.quiet = true;
    ctx.bundle = bundle;
    ctx.bundle_abs = bundle ? fp_path_abs(bundle) : NULL;
    ctx.interrupted = &never;
    ctx.argv0 = "flyprof";
    fp_err err;
    memset(&err, 0, sizeof err);

    void *args = calloc(1, cmd->args_size ? cmd->args_size : 1);
    char **pos = NULL;
    int npos = 0;
    int rc = fp_parse_opts(cmd, args, argc - 1, (char **)argv + 1, &pos, &npos, &err);
    if (rc != 0) {
        fprintf(stderr, "fuzz: bad harness argv for %s: %s\n", cmd->name, err.message);
        abort();
    }
    /* main's path checks first (an input file the fuzzer wrote always exists, but a
     * mutated capture.json may name anything) */
    rc = fp_check_paths(cmd, args, pos, npos, bundle, &err);
    if (rc == 0)
        rc = cmd->run(&ctx, args, pos, npos, &err);
    for (const fp_opt *o = cmd->opts; o && o->lng; o++)
        if (o->kind == FP_OPT_LIST)
            free(((fp_strlist *)((char *)args + o->off))->v);
    free(pos);
    free(args);
    fz_check_err(rc, &err, cmd->name);

    /* the envelope, built as main.c builds it */
    cJSON *env = cJSON_CreateObject();
    cJSON_AddItemToObject(env, "ok", cJSON_CreateBool(rc == 0));
    fp_json_add_str(env, "command", ctx.command);
    if (rc == 0) {
        cJSON_AddItemToObject(env, "data", ctx.data ? ctx.data : cJSON_CreateObject());
        ctx.data = NULL;
        cJSON_AddItemToObject(env, "warnings", ctx.warnings ? ctx.warnings : cJSON_CreateArray());
        ctx.warnings = NULL;
        if (ctx.truncated) {
            cJSON_AddItemToObject(env, "truncated", ctx.truncated);
            ctx.truncated = NULL;
        }
    } else {
        cJSON *e = cJSON_CreateObject();
        fp_json_add_str(e, "code", fp_code_name(err.code));
        fp_json_add_str(e, "message", err.message);
        if (err.extra)
            cJSON_AddItemToObject(e, "extra", cJSON_Duplicate(err.extra, 1));
        cJSON_AddItemToObject(env, "error", e);
    }
    char *s = fp_json_print(env, false);
    if (!s)
        abort();
    fz_check_json_text(s, "the envelope");
    if (getenv("FLYPROF_FUZZ_VERBOSE")) /* replay: show what each input made of the command */
        fprintf(stderr, "  %s -> %.300s\n", cmd->name, s);
    free(s);
    cJSON_Delete(env);
    cJSON_Delete(ctx.data);
    cJSON_Delete(ctx.warnings);
    cJSON_Delete(ctx.truncated);
    fp_sb_free(&ctx.table);
    free(ctx.bundle_abs);
    int status = rc == 0 ? 0 : fp_code_exit(err.code);
    fp_err_clear(&err);
    return status;
}
