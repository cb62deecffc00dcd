/*
 * config.c - resolve the shared configuration: flag > environment > config
 * file > default, one table row per setting so that adding a setting is
 * adding a row. The config file is a flat YAML mapping (libyaml); unknown keys
 * are an error because a typo there would otherwise be silently ignored.
 */
#include "flyprof/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "flyprof/fs.h"
#include "flyprof/json.h"
#include "flyprof/yaml_depth.h"

/* The registry shipped with the project, found next to the binary first:
 * <prefix>/bin/flyprof -> <prefix>/share/flyprof/recipes.yaml when installed
 * (so an installed prefix can be moved), <src>/build-x/flyprof ->
 * <src>/share/recipes.yaml in a build tree under the source, and last the
 * source tree this binary was built from (a build dir elsewhere). */
/* The places a shipped registry is looked for, in order (malloc'd; fp_config_registry_hint). */
static size_t registry_candidates(char *out[3])
{
    size_t k = 0;
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            static const char *const rel[] = {"../share/flyprof/recipes.yaml", "../share/recipes.yaml"};
            for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
                out[k++] = fp_path_join(self, rel[i]);
        }
    }
#ifdef FP_SOURCE_SHARE
    out[k++] = strdup(FP_SOURCE_SHARE "/recipes.yaml");
#endif
    return k;
}

static char *shipped_recipes(void)
{
    char *cand[3];
    size_t n = registry_candidates(cand);
    char *found = NULL;
    for (size_t i = 0; i < n; i++) {
        char *real = found ? NULL : realpath(cand[i], NULL);
        if (real && fp_is_file(real))
            found = real;
        else
            free(real);
        free(cand[i]);
    }
    return found;
}

void fp_config_registry_hint(fp_sb *out)
{
    char *cand[3];
    size_t n = registry_candidates(cand);
    fp_sb_adds(out, "no recipes registry found: looked for ");
    for (size_t i = 0; i < n; i++) {
        fp_sb_addf(out, "%s%s", i ? (i + 1 == n ? " and " : ", ") : "", cand[i]);
        free(cand[i]);
    }
    fp_sb_adds(out, "; point --recipes FILE (or FLYPROF_RECIPES, or `recipes:` in the config file) at one, e.g. "
                    "share/recipes.yaml of a flyprof checkout, or install flyprof (cmake --install / the .deb) so "
                    "that share/flyprof/recipes.yaml sits next to its bin/");
}

typedef struct setting {
    const char *key;   /* config-file key and JSON key */
    const char *env;   /* environment variable or NULL */
    size_t arg_off;    /* offset in fp_config_args */
    size_t cfg_off;    /* offset of the fp_config_value in fp_config */
    bool is_path;      /* made absolute (relative to the cwd) */
} setting;

#define ARG(m) offsetof(fp_config_args, m)
#define CFG(m) offsetof(fp_config, m)
static const setting SETTINGS[] = {
    {"worktree", "FLYPROF_WORKTREE", ARG(worktree), CFG(worktree), true},
    {"rocprofv3", "FLYPROF_ROCPROFV3", ARG(rocprofv3), CFG(rocprofv3), false},
    {"python", "FLYPROF_PYTHON", ARG(python), CFG(python), false},
    {"gpu", "FLYPROF_GPU", ARG(gpu), CFG(gpu_text), false},
    {"arch", "FLYPROF_ARCH", ARG(arch), CFG(arch), false},
    {"recipes", "FLYPROF_RECIPES", ARG(recipes), CFG(recipes), true},
    /* main.c reads $FLYPROF_FORMAT itself (it applies off a terminal too); here only the file's */
    {"format", NULL, ARG(format), CFG(format), false},
};
#define N_SETTINGS (sizeof SETTINGS / sizeof SETTINGS[0])

/* Built-in defaults; NULL = unset. */
static const char *default_of(const char *key)
{
    if (!strcmp(key, "rocprofv3"))
        return "rocprofv3";
    if (!strcmp(key, "python"))
        return "python3";
    if (!strcmp(key, "gpu"))
        return "0";
    return NULL;
}

static int load_file(const char *path, char *vals[N_SETTINGS], fp_err *err)
{
    fp_sb text;
    fp_sb_init(&text);
    if (fp_read_file(path, &text, err) != 0) {
        fp_sb_free(&text);
        return -1;
    }
    if (fp_yaml_depth_check(path, text.buf, text.len, err) != 0) {
        fp_sb_free(&text);
        return -1;
    }
    yaml_parser_t p;
    yaml_document_t doc;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text.buf, text.len);
    int rc = 0;
    if (!yaml_parser_load(&p, &doc)) {
        rc = fp_err_set(err, FP_BAD_INPUT, "%s: YAML error at line %zu: %s", path, p.problem_mark.line + 1,
                        p.problem ? p.problem : "parse error");
        yaml_parser_delete(&p);
        fp_sb_free(&text);
        return rc;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (root && root->type != YAML_MAPPING_NODE) {
        rc = fp_err_set(err, FP_BAD_INPUT, "%s: expected a mapping of settings at the top level", path);
    } else if (root) {
        for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; rc == 0 && pr < root->data.mapping.pairs.top;
             pr++) {
            yaml_node_t *k = yaml_document_get_node(&doc, pr->key);
            yaml_node_t *v = yaml_document_get_node(&doc, pr->value);
            if (!k || k->type != YAML_SCALAR_NODE || !v || v->type != YAML_SCALAR_NODE) {
                rc = fp_err_set(err, FP_BAD_INPUT, "%s: every setting must be `key: scalar`", path);
                break;
            }
            const char *key = (const char *)k->data.scalar.value;
            size_t i = 0;
            while (i < N_SETTINGS && strcmp(SETTINGS[i].key, key))
                i++;
            if (i == N_SETTINGS) {
                rc = fp_err_set(err, FP_BAD_INPUT, "%s: unknown setting '%s'", path, key);
                fp_err_help(err, "known settings: worktree, rocprofv3, python, gpu, arch, recipes, format");
                break;
            }
            free(vals[i]);
            vals[i] = strndup((const char *)v->data.scalar.value, v->data.scalar.length);
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&p);
    fp_sb_free(&text);
    return rc;
}

int fp_config_load(fp_config *c, const fp_config_args *a, fp_err *err)
{
    memset(c, 0, sizeof *c);
    static const fp_config_args none;
    if (!a)
        a = &none;
    /* which config file */
    const char *cfg = a->config;
    bool explicit_cfg = cfg != NULL;
    if (!cfg && getenv("FLYPROF_CONFIG") && getenv("FLYPROF_CONFIG")[0]) {
        cfg = getenv("FLYPROF_CONFIG");
        explicit_cfg = true;
    }
    char *home_cfg = NULL;
    if (!cfg) {
        const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
        fp_sb s;
        fp_sb_init(&s);
        if (xdg && xdg[0])
            fp_sb_addf(&s, "%s/flyprof/config.yaml", xdg);
        else if (home && home[0])
            fp_sb_addf(&s, "%s/.config/flyprof/config.yaml", home);
        home_cfg = fp_sb_detach(&s);
        if (fp_is_file(home_cfg))
            cfg = home_cfg;
    }
    char *file_vals[N_SETTINGS] = {0};
    if (cfg) {
        if (explicit_cfg && !fp_is_file(cfg)) {
            free(home_cfg);
            fp_err_set(err, FP_NO_ARTIFACT, "config file %s does not exist", cfg);
            return fp_err_help(err, "pass an existing YAML file to --config / FLYPROF_CONFIG");
        }
        if (load_file(cfg, file_vals, err) != 0) {
            free(home_cfg);
            for (size_t i = 0; i < N_SETTINGS; i++)
                free(file_vals[i]);
            return -1;
        }
        c->config_file = fp_path_abs(cfg);
    }
    free(home_cfg);

    for (size_t i = 0; i < N_SETTINGS; i++) {
        const setting *s = &SETTINGS[i];
        fp_config_value *dst = (fp_config_value *)((char *)c + s->cfg_off);
        const char *flag = *(const char *const *)((const char *)a + s->arg_off);
        const char *env = s->env ? getenv(s->env) : NULL;
        const char *v = NULL;
        if (flag) {
            v = flag, dst->source = "flag";
        } else if (env && env[0]) {
            v = env, dst->source = "env";
        } else if (file_vals[i]) {
            v = file_vals[i], dst->source = "config";
        } else if ((v = default_of(s->key)) != NULL) {
            dst->source = "default";
        } else if (!strcmp(s->key, "recipes") && (dst->value = shipped_recipes()) != NULL) {
            dst->source = "shipped";
            continue;
        } else {
            dst->source = "unset";
        }
        if (v && !v[0] && flag) {
            for (size_t k = 0; k < N_SETTINGS; k++)
                free(file_vals[k]);
            fp_config_free(c);
            return fp_err_set(err, FP_USAGE, "--%s needs a non-empty value", s->key);
        }
        if (v)
            dst->value = s->is_path ? fp_path_abs(v) : strdup(v);
    }
    for (size_t k = 0; k < N_SETTINGS; k++)
        free(file_vals[k]);

    long long g = 0;
    if (fp_parse_ll(c->gpu_text.value, &g) != 0 || g < 0 || g > FP_MAX_GPU_INDEX) {
        /* malformed on the command line is USAGE like every bad number; from the
         * environment or the config file it is a setting that makes no sense */
        fp_err_set(err, !strcmp(c->gpu_text.source, "flag") ? FP_USAGE : FP_BAD_ARGS,
                   "gpu index '%s' (from %s) must be an integer in 0..%d", c->gpu_text.value, c->gpu_text.source,
                   FP_MAX_GPU_INDEX);
        fp_config_free(c);
        return -1;
    }
    c->gpu = (int)g;
    if (c->arch.value) {
        /* gfx + digits + optional letters: it becomes part of file names and a
         * table key, so refuse anything else */
        const char *v = c->arch.value;
        bool ok = !strncmp(v, "gfx", 3) && v[3] >= '0' && v[3] <= '9' && strlen(v) < 16;
        for (const char *p = v + 3; ok && *p; p++)
            ok = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z');
        if (!ok) {
            fp_err_set(err, FP_BAD_ARGS, "arch '%s' is not a gfx target name like gfx950", v);
            fp_config_free(c);
            return -1;
        }
    }
    return 0;
}

void fp_config_free(fp_config *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < N_SETTINGS; i++) {
        fp_config_value *v = (fp_config_value *)((char *)c + SETTINGS[i].cfg_off);
        free(v->value);
        v->value = NULL;
    }
    free(c->config_file);
    c->config_file = NULL;
}

