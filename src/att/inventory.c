/*
 * inventory.c - the inventory of the ATT dispatch dirs under one directory
 * (which exist, which are empty shells, how many waves, instructions and
 * mapped rows each has) and the rule for the one `capture` keeps (see
 * inventory.h).
 */
#include "flyprof/inventory.h"

#include <stdlib.h>
#include <string.h>

#include "flyprof/dispatch.h"
#include "flyprof/fs.h"
#include "flyprof/json.h"

static bool is_dispatch_dir_name(const char *n) { return !strncmp(n, "ui_output_agent_", 16); }

static void count_code(const char *dir, fp_att_dir *d)
{
    char *p = fp_path_join(dir, "code.json");
    cJSON *j = NULL;
    fp_err e = {0};
    if (fp_json_parse_file(p, &j, &e) == 0) {
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(j, "code");
        d->code_ok = true;
        const cJSON *row;
        cJSON_ArrayForEach(row, code)
        {
            const cJSON *isa = cJSON_GetArrayItem(row, 0), *src = cJSON_GetArrayItem(row, 3);
            if (!cJSON_IsString(isa) || isa->valuestring[0] == ';')
                continue;
            d->instructions++;
            if (cJSON_IsString(src) && src->valuestring[0])
                d->mapped++;
        }
    }
    fp_err_clear(&e);
    cJSON_Delete(j);
    free(p);
}

static int cmp_dir(const void *a, const void *b)
{
    const fp_att_dir *x = a, *y = b;
    if (x->dispatch != y->dispatch)
        return x->dispatch < y->dispatch ? -1 : 1;
    return strcmp(x->name, y->name);
}

int fp_att_inventory(const char *att_dir, fp_att_dir **v, size_t *n, fp_err *err)
{
    *v = NULL;
    *n = 0;
    if (!fp_is_dir(att_dir))
        return 0;
    char **names = NULL;
    size_t cnt = 0;
    if (fp_list_dir(att_dir, &names, &cnt, err) != 0)
        return -1;
    for (size_t i = 0; i < cnt; i++) {
        char *p = fp_path_join(att_dir, names[i]);
        if (is_dispatch_dir_name(names[i]) && fp_is_dir(p)) {
            fp_att_dir *nv = realloc(*v, (*n + 1) * sizeof *nv);
            if (!nv)
                abort();
            *v = nv;
            fp_att_dir *d = &(*v)[(*n)++];
            memset(d, 0, sizeof *d);
            d->name = strdup(names[i]);
            d->dispatch = fp_dispatch_number(names[i]);
            d->empty = fp_dispatch_is_empty(p, &d->waves);
            if (!d->empty)
                count_code(p, d);
            if (d->instructions == 0)
                d->empty = true;
        }
        free(p);
    }
    fp_strv_free(names, cnt);
    if (*n > 1)
        qsort(*v, *n, sizeof **v, cmp_dir);
    return 0;
}

void fp_att_inventory_free(fp_att_dir *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i].name);
    free(v);
}

long fp_att_pick(const fp_att_dir *v, size_t n)
{
    long best = -1;
    for (size_t i = 0; i < n; i++) {
        if (v[i].empty)
            continue;
        if (best < 0 || v[i].waves > v[best].waves ||
            (v[i].waves == v[best].waves && v[i].instructions > v[best].instructions))
            best = (long)i;
    }
    return best;
}

cJSON *fp_att_inventory_json(const fp_att_dir *v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        fp_json_add_str(o, "dir", v[i].name);
        fp_json_add_int(o, "dispatch", v[i].dispatch);
        fp_json_add_bool(o, "empty", v[i].empty);
        fp_json_add_int(o, "waves", v[i].waves);
        fp_json_add_int(o, "instructions", v[i].instructions);
        fp_json_add_int(o, "mapped", v[i].mapped);
        fp_json_add_num(o, "mapped_pct",
                        v[i].instructions ? 100.0 * (double)v[i].mapped / (double)v[i].instructions : 0.0, 1);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}
