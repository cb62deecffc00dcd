/* fuzz_input_yaml - the rocprofv3 `-i` input-file writer: any JSON array of jobs
 * either is refused with a typed error or emits YAML that libyaml reads back
 * as one document with a `jobs` sequence of the same length. */
#include <stdlib.h>
#include <yaml.h>

#include "flyprof/input_yaml.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *jobs = cJSON_ParseWithLength((const char *)data, size);
    if (!jobs)
        return 0;
    fp_sb out;
    fp_sb_init(&out);
    fp_err err = {0};
    int rc = fp_input_yaml_emit(jobs, &out, &err);
    if (rc == 0) {
        yaml_parser_t p;
        yaml_document_t doc;
        yaml_parser_initialize(&p);
        yaml_parser_set_input_string(&p, (const unsigned char *)out.buf, out.len);
        if (!yaml_parser_load(&p, &doc))
            abort(); /* the writer produced YAML its own library cannot read */
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        if (!root || root->type != YAML_MAPPING_NODE)
            abort();
        yaml_node_t *seq = yaml_document_get_node(&doc, root->data.mapping.pairs.start->value);
        if (!seq || seq->type != YAML_SEQUENCE_NODE ||
            seq->data.sequence.items.top - seq->data.sequence.items.start != cJSON_GetArraySize(jobs))
            abort();
        yaml_document_delete(&doc);
        yaml_parser_delete(&p);
    }
    fp_err_clear(&err);
    fp_sb_free(&out);
    cJSON_Delete(jobs);
    return 0;
}
