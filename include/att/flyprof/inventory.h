/*
 * inventory.h - the ATT dispatch dirs (ui_output_agent_*) under one directory,
 * as `capture` records them in capture.json: which exist, which are empty
 * shells, their waves / instructions / mapped rows, and which one to keep.
 *
 * Layer: att (src/att/inventory.c).
 */
#ifndef FLYPROF_INVENTORY_H
#define FLYPROF_INVENTORY_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "flyprof/error.h"

typedef struct fp_att_dir {
    char *name;             /* ui_output_agent_<H>_dispatch_<D> */
    long long dispatch;     /* D, -1 if absent */
    bool empty;             /* empty shell: no wave file or code null/empty */
    long long waves;
    long long instructions; /* code.json rows minus the "; symbol" rows */
    long long mapped;       /* of those, rows with a Source */
    bool code_ok;           /* code.json parsed */
} fp_att_dir;

/* Inventory of att_dir (ordered by dispatch number). Missing dir -> n = 0. */
int fp_att_inventory(const char *att_dir, fp_att_dir **v, size_t *n, fp_err *err);
void fp_att_inventory_free(fp_att_dir *v, size_t n);
/* The dispatch to keep: the non-empty one with the most waves, then most
 * instructions, then the lowest dispatch number; -1 when all are empty. */
long fp_att_pick(const fp_att_dir *v, size_t n);
cJSON *fp_att_inventory_json(const fp_att_dir *v, size_t n);

#endif
