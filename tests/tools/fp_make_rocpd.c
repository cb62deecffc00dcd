/*
 * fp_make_rocpd.c - build a rocpd results.db in the ROCm 7.0 schema
 * (rocprof-formats.md §4: per-run suffixed tables, un-suffixed views, guid on
 * every row, one rocpd_pmc_event row per counter per dimension instance) with
 * exactly the counter values a test asks for.
 *
 *   fp_make_rocpd OUT.db [--product NAME] [--device-id N] [--no-pmc]
 *                 [--guid G] KERNEL@ID:START:END:NAME=V[,NAME=V...] ...
 *
 * Each --guid starts a new run (a pass) for the dispatches after it. Every
 * counter value is split over two instances (V/2 each) so that readers must
 * SUM. --no-pmc writes the dispatches without any counter rows.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/strbuf.h"

static const char *const tables[][2] = {
    {"rocpd_metadata", "id INTEGER PRIMARY KEY, tag TEXT, value TEXT"},
    {"rocpd_info_agent", "id INTEGER, guid TEXT, nid INTEGER, pid INTEGER, type TEXT, absolute_index INTEGER, "
                         "logical_index INTEGER, type_index INTEGER, uuid INTEGER, name TEXT, model_name TEXT, "
                         "vendor_name TEXT, product_name TEXT, user_name TEXT, extdata JSONB"},
    {"rocpd_info_kernel_symbol",
     "id INTEGER, guid TEXT, nid INTEGER, pid INTEGER, code_object_id INTEGER, kernel_name TEXT, display_name TEXT, "
     "kernel_object INTEGER, kernarg_segment_size INTEGER, kernarg_segment_alignment INTEGER, group_segment_size "
     "INTEGER, private_segment_size INTEGER, sgpr_count INTEGER, arch_vgpr_count INTEGER, accum_vgpr_count "
     "INTEGER, extdata JSONB"},
    {"rocpd_event", "id INTEGER, guid TEXT, category_id INTEGER, stack_id INTEGER, parent_stack_id INTEGER, "
                    "correlation_id INTEGER, call_stack JSONB, line_info JSONB, extdata JSONB"},
    {"rocpd_kernel_dispatch",
     "id INTEGER, guid TEXT, nid INTEGER, pid INTEGER, tid INTEGER, agent_id INTEGER, kernel_id INTEGER, "
     "dispatch_id INTEGER, queue_id INTEGER, stream_id INTEGER, start BIGINT, \"end\" BIGINT, private_segment_size "
     "INTEGER, group_segment_size INTEGER, workgroup_size_x INTEGER, workgroup_size_y INTEGER, workgroup_size_z "
     "INTEGER, grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER, region_name_id INTEGER, event_id "
     "INTEGER, extdata JSONB"},
    {"rocpd_info_pmc", "id INTEGER, guid TEXT, nid INTEGER, pid INTEGER, agent_id INTEGER, target_arch TEXT, "
                       "event_code INTEGER, instance_id INTEGER, name TEXT, symbol TEXT, description TEXT, "
                       "long_description TEXT, component TEXT, units TEXT, value_type TEXT, block TEXT, "
                       "expression TEXT, is_constant INTEGER, is_derived INTEGER, extdata JSONB"},
    {"rocpd_pmc_event", "id INTEGER, guid TEXT, event_id INTEGER, pmc_id INTEGER, value REAL, extdata JSONB"},
};

static int usage(void)
{
    fprintf(stderr, "usage: fp_make_rocpd OUT.db [--product NAME] [--device-id N] [--no-pmc] [--guid G] "
                    "KERNEL@ID:START:END:NAME=V[,NAME=V...] ...\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    const char *out = argv[1];
    const char *product = "AMD Instinct MI300X";
    long long device_id = 29857;
    int no_pmc = 0;
    const char *sfx = "_0c8e2f4a_1d3b_4e5f_8a9b_0c1d2e3f4a5b";
    fp_sb sql;
    fp_sb_init(&sql);
    fp_sb_adds(&sql, "BEGIN;");
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        fp_sb_addf(&sql, "CREATE TABLE %s%s (%s); CREATE VIEW %s AS SELECT * FROM %s%s;", tables[t][0], sfx,
                   tables[t][1], tables[t][0], tables[t][0], sfx);
    fp_sb_addf(&sql, "INSERT INTO rocpd_metadata%s(tag,value) VALUES('schema_version','3');", sfx);
    char guid[128] = "run-1";
    int agents_done = 0, kernel_ids = 0, pmc_ids = 0, ev_ids = 0, pmc_rows = 0;
    char kernels[64][4096];
    char guid_of_kernel[64][128];
    char pmc_names[256][64];
    char guid_of_pmc[256][128];
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--product") && i + 1 < argc) {
            product = argv[++i];
            continue;
        }
        if (!strcmp(argv[i], "--device-id") && i + 1 < argc) {
            device_id = atoll(argv[++i]);
            continue;
        }
        if (!strcmp(argv[i], "--no-pmc")) {
            no_pmc = 1;
            continue;
        }
        if (!strcmp(argv[i], "--guid") && i + 1 < argc) {
            snprintf(guid, sizeof guid, "%s", argv[++i]);
            agents_done = 0;
            continue;
        }
        if (!agents_done) {
            char *p = sqlite3_mprintf("%q", product);
            fp_sb_addf(&sql,
                       "INSERT INTO rocpd_info_agent%s VALUES(0,'%s',1,1,'CPU',0,0,0,0,'CPU','','AMD','AMD EPYC','',"
                       "'{}'),(2,'%s',1,1,'GPU',2,2,0,0,'gfx942','ip discovery','AMD','%s','',"
                       "'{\"cu_count\":304,\"num_xcc\":8,\"device_id\":%lld,\"gfx_target_version\":90402}');",
                       sfx, guid, guid, p, device_id);
            sqlite3_free(p);
            agents_done = 1;
        }
        /* KERNEL@ID:START:END:COUNTERS */
        char spec[4096];
        snprintf(spec, sizeof spec, "%s", argv[i]);
        char *at = strrchr(spec, '@');
        if (!at)
            return usage();
        *at = '\0';
        long long id, st, en;
        int used = 0;
        if (sscanf(at + 1, "%lld:%lld:%lld:%n", &id, &st, &en, &used) != 3 || !used)
            return usage();
        const char *counters = at + 1 + used;
        int kid = -1;
        for (int k = 0; k < kernel_ids; k++)
            if (!strcmp(kernels[k], spec) && !strcmp(guid_of_kernel[k], guid))
                kid = k + 1;
        if (kid < 0 && kernel_ids < 64) {
            snprintf(kernels[kernel_ids], sizeof kernels[0], "%s", spec);
            snprintf(guid_of_kernel[kernel_ids], sizeof guid_of_kernel[0], "%s", guid);
            kid = ++kernel_ids;
            char *k = sqlite3_mprintf("%q", spec);
            fp_sb_addf(&sql,
                       "INSERT INTO rocpd_info_kernel_symbol%s VALUES(%d,'%s',1,1,1,'%s.kd','%s',0,64,8,16384,0,48,"
                       "128,0,'{}');",
                       sfx, kid, guid, k, k);
            sqlite3_free(k);
        }
        int ev = ++ev_ids;
        fp_sb_addf(&sql, "INSERT INTO rocpd_event%s VALUES(%d,'%s',1,0,0,%d,'{}','{}','{}');", sfx, ev, guid, ev);
        fp_sb_addf(&sql,
                   "INSERT INTO rocpd_kernel_dispatch%s VALUES(%d,'%s',1,1,1,2,%d,%lld,1,0,%lld,%lld,0,16384,256,1,1,"
                   "262144,1,1,NULL,%d,'{}');",
                   sfx, ev, guid, kid, id, st, en, ev);
        if (no_pmc)
            continue;
        char *cs = strdup(counters), *save = NULL;
        for (char *tok = strtok_r(cs, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(tok, '=');
            if (!eq) {
                free(cs);
                return usage();
            }
            *eq = '\0';
            int pid = -1;
            for (int k = 0; k < pmc_ids; k++)
                if (!strcmp(pmc_names[k], tok) && !strcmp(guid_of_pmc[k], guid))
                    pid = k + 1;
            if (pid < 0 && pmc_ids < 256) {
                snprintf(pmc_names[pmc_ids], sizeof pmc_names[0], "%s", tok);
                snprintf(guid_of_pmc[pmc_ids], sizeof guid_of_pmc[0], "%s", guid);
                pid = ++pmc_ids;
                fp_sb_addf(&sql,
                           "INSERT INTO rocpd_info_pmc%s VALUES(%d,'%s',1,1,2,'GPU',0,0,'%s','%s','','','rocm','',"
                           "'ABS','SQ','',0,0,'{}');",
                           sfx, pid, guid, tok, tok);
            }
            /* a value that is not a number is written as text: the reader must refuse it */
            char *end;
            double v = strtod(eq + 1, &end);
            for (int inst = 0; inst < 2; inst++) {
                if (*end || end == eq + 1)
                    fp_sb_addf(&sql, "INSERT INTO rocpd_pmc_event%s VALUES(%d,'%s',%d,%d,'%s','{}');", sfx,
                               ++pmc_rows, guid, ev, pid, eq + 1);
                else
                    fp_sb_addf(&sql, "INSERT INTO rocpd_pmc_event%s VALUES(%d,'%s',%d,%d,%.17g,'{}');", sfx,
                               ++pmc_rows, guid, ev, pid, v / 2.0);
            }
        }
        free(cs);
    }
    fp_sb_adds(&sql, "COMMIT;");
    remove(out);
    sqlite3 *db;
    if (sqlite3_open(out, &db) != SQLITE_OK) {
        fprintf(stderr, "fp_make_rocpd: cannot create %s\n", out);
        return 1;
    }
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql.buf, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fprintf(stderr, "fp_make_rocpd: %s\n", msg ? msg : "?");
    sqlite3_free(msg);
    sqlite3_close(db);
    fp_sb_free(&sql);
    return rc == SQLITE_OK ? 0 : 1;
}
