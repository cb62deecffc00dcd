/*
 * sarif_doc.c - the table of a SARIF 2.1.0 log (sarif_doc.h): the only place its keys
 * are spelled. Nested SARIF objects without a C struct of their own are views.
 */
#include "flyprof/sarif_doc.h"

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "flyprof/json.h"

#define ON FP_F_OMIT_NULL
#define SCHEMA(name, T, f) {name, sizeof(T), FP_FIELDS(f), false}

#define R fp_sarif_rule
static const fp_field short_f[] = {FP_STR(R, short_text, "text", 0)};
static const fp_field full_f[] = {FP_STR(R, full_text, "text", 0)};
static const fp_field help_f[] = {FP_STR(R, help_text, "text", 0)};
static const fp_field config_f[] = {FP_STR(R, level, "level", 0)};
static const fp_field rule_props_f[] = {
    FP_STR(R, bubble_class, "bubble_class", ON),
    FP_STR(R, gain_model, "gain_model", ON),
};
static const fp_schema short_s = SCHEMA("sarif.rule.shortDescription", R, short_f);
static const fp_schema full_s = SCHEMA("sarif.rule.fullDescription", R, full_f);
static const fp_schema help_s = SCHEMA("sarif.rule.help", R, help_f);
static const fp_schema config_s = SCHEMA("sarif.rule.defaultConfiguration", R, config_f);
static const fp_schema rule_props_s = SCHEMA("sarif.rule.properties", R, rule_props_f);
static const fp_field rule_f[] = {
    FP_STR(R, id, "id", 0),
    FP_STR(R, name, "name", 0),
    FP_VIEW("shortDescription", &short_s),
    FP_VIEW("fullDescription", &full_s),
    FP_VIEW("help", &help_s),
    FP_VIEW("defaultConfiguration", &config_s),
    FP_VIEW("properties", &rule_props_s),
};
static const fp_schema rule_s = SCHEMA("sarif.rule", R, rule_f);
#undef R

#define L fp_sarif_location
static const fp_field artifact_f[] = {
    FP_STR(L, uri, "uri", 0),
    FP_STR(L, uri_base_id, "uriBaseId", ON),
};
static const fp_field region_f[] = {FP_INT(L, start_line, "startLine", 0)};
static const fp_schema artifact_s = SCHEMA("sarif.location.artifactLocation", L, artifact_f);
static const fp_schema region_s = SCHEMA("sarif.location.region", L, region_f);
static const fp_field physical_f[] = {
    FP_VIEW("artifactLocation", &artifact_s),
    FP_VIEW("region", &region_s),
};
static const fp_schema physical_s = SCHEMA("sarif.location.physicalLocation", L, physical_f);
static const fp_field location_f[] = {FP_VIEW("physicalLocation", &physical_s)};
static const fp_schema location_s = SCHEMA("sarif.location", L, location_f);
#undef L

#define X fp_sarif_result
static const fp_field message_f[] = {FP_STR(X, message, "text", 0)};
static const fp_schema message_s = SCHEMA("sarif.result.message", X, message_f);
static const fp_field result_props_f[] = {
    FP_OPTD(X, rank, "rank", 0, ON),
    FP_OPTD(X, est_gain_pct, "est_gain_pct", 2, ON),
    FP_OPTD(X, confidence, "confidence", 2, ON),
    FP_STR(X, acceptance, "acceptance", ON),
};
static const fp_schema result_props_s = SCHEMA("sarif.result.properties", X, result_props_f);
static const fp_field result_f[] = {
    FP_STR(X, rule_id, "ruleId", 0),
    FP_INT(X, rule_index, "ruleIndex", 0),
    FP_STR(X, level, "level", 0),
    FP_VIEW("message", &message_s),
    FP_ARR(X, locations, nlocations, "locations", &location_s, ON),
    FP_VIEW("properties", &result_props_s),
};
static const fp_schema result_s = SCHEMA("sarif.result", X, result_f);
#undef X

static const fp_field base_f[] = {FP_STR(fp_sarif_base, uri, "uri", 0)};
static const fp_schema base_s = SCHEMA("sarif.originalUriBaseIds", fp_sarif_base, base_f);

#define U fp_sarif_run
static const fp_field driver_f[] = {
    FP_STR(U, tool_name, "name", 0),
    FP_STR(U, tool_version, "version", 0),
    FP_STR(U, semantic_version, "semanticVersion", 0),
    FP_STR(U, information_uri, "informationUri", ON),
    FP_ARR(U, rules, nrules, "rules", &rule_s, 0),
};
static const fp_schema driver_s = SCHEMA("sarif.tool.driver", U, driver_f);
static const fp_field tool_f[] = {FP_VIEW("driver", &driver_s)};
static const fp_schema tool_s = SCHEMA("sarif.tool", U, tool_f);
static const fp_field run_f[] = {
    FP_VIEW("tool", &tool_s),
    FP_MAP(U, bases, nbases, "originalUriBaseIds", &base_s, ON),
    FP_ARR(U, results, nresults, "results", &result_s, 0),
};
static const fp_schema run_s = SCHEMA("sarif.run", U, run_f);
#undef U

static const fp_field log_f[] = {
    FP_STR(fp_sarif_log, schema, "$schema", 0),
    FP_STR(fp_sarif_log, version, "version", 0),
    FP_ARR(fp_sarif_log, runs, nruns, "runs", &run_s, 0),
};
const fp_schema fp_sarif_schema = SCHEMA("sarif", fp_sarif_log, log_f);

void fp_sarif_print(fp_sarif_log *log, fp_sb *out)
{
    cJSON *j = fp_model_write(&fp_sarif_schema, log);
    char *t = fp_json_print(j, true);
    fp_sb_adds(out, t ? t : "{}");
    fp_sb_addc(out, '\n');
    free(t);
    cJSON_Delete(j);
    fp_model_free(&fp_sarif_schema, log);
}
