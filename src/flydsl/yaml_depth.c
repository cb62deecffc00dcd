/*
 * yaml_depth.c - a streaming pass over the YAML events that stops at the first
 * collection nested deeper than FP_YAML_MAX_DEPTH (see yaml_depth.h for why).
 */
#include "flyprof/yaml_depth.h"

#include <stdbool.h>
#include <yaml.h>

int fp_yaml_depth_check(const char *path, const char *text, size_t len, fp_err *err)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return fp_err_set(err, FP_INTERNAL, "%s: cannot initialise the YAML parser", path);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int depth = 0, rc = 0;
    for (bool done = false; !done;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev))
            break; /* malformed: the loader says where */
        if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
            depth++;
        else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
            depth--;
        done = ev.type == YAML_STREAM_END_EVENT;
        size_t line = ev.start_mark.line + 1;
        yaml_event_delete(&ev);
        if (depth > FP_YAML_MAX_DEPTH) {
            rc = fp_err_set(err, FP_BAD_INPUT, "%s: YAML nested more than %d levels deep at line %zu", path,
                            FP_YAML_MAX_DEPTH, line);
            fp_err_help(err, "a recipes or config file is a few levels deep; this one is not a flyprof file");
            break;
        }
    }
    yaml_parser_delete(&p);
    return rc;
}
