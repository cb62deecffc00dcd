/* test_bundle_path.c - paths inside artifacts become bundle-relative, at path boundaries only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "flyprof/bundle_path.h"

static const char *str(const cJSON *o, const char *k) { return cJSON_GetObjectItem(o, k)->valuestring; }

static void test_relative(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/fp_bp_XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char b[256], other[256];
    snprintf(b, sizeof b, "%s/run1", tmpl);
    snprintf(other, sizeof other, "%s/run10/x.json", tmpl);
    assert_int_equal(mkdir(b, 0700), 0);
    cJSON *d = cJSON_CreateObject();
    char s[1024];
    snprintf(s, sizeof s, "%s/att/big/ui_output_agent_1_dispatch_2", b);
    cJSON_AddStringToObject(d, "dir", s);
    cJSON_AddStringToObject(d, "self", b);
    cJSON_AddStringToObject(d, "other", other); /* run10 is not under run1 */
    snprintf(s, sizeof s, "rocprofv3 -d %s/rocprof/discovery -o discover --bundle %s -q", b, b);
    cJSON_AddStringToObject(d, "cmd", s);
    cJSON *a = cJSON_AddArrayToObject(d, "files");
    snprintf(s, sizeof s, "%s/pmc/results.db#guid", b);
    cJSON_AddItemToArray(a, cJSON_CreateString(s));
    cJSON_AddStringToObject(d, "outside", "/opt/rocm/bin/rocprofv3");
    fp_json_bundle_relative(d, b);
    assert_string_equal(str(d, "dir"), "att/big/ui_output_agent_1_dispatch_2");
    assert_string_equal(str(d, "self"), ".");
    assert_string_equal(str(d, "other"), other);
    assert_string_equal(str(d, "cmd"), "rocprofv3 -d rocprof/discovery -o discover --bundle . -q");
    assert_string_equal(cJSON_GetArrayItem(a, 0)->valuestring, "pmc/results.db#guid");
    assert_string_equal(str(d, "outside"), "/opt/rocm/bin/rocprofv3");
    cJSON_Delete(d);

    /* a relative bundle as given (paths built from it are cwd-relative) */
    char cwd[512];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(tmpl), 0);
    d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "log", "run1/pmc/group_1.stderr.log");
    cJSON_AddStringToObject(d, "word", "run1");           /* alone: too ambiguous, kept */
    cJSON_AddStringToObject(d, "name", "xrun1/pmc");      /* not at a word start */
    fp_json_bundle_relative(d, "run1");
    assert_string_equal(str(d, "log"), "pmc/group_1.stderr.log");
    assert_string_equal(str(d, "word"), "run1");
    assert_string_equal(str(d, "name"), "xrun1/pmc");
    /* a dispatch dir moving into a published example */
    cJSON_AddStringToObject(d, "disp", "run1/att/big/ui_output_agent_1_dispatch_2");
    fp_json_path_replace(d, "run1/att/big/ui_output_agent_1_dispatch_2", "att/ui_output_agent_1_dispatch_2");
    assert_string_equal(str(d, "disp"), "run1/att/big/ui_output_agent_1_dispatch_2"); /* relative: by abs only */
    snprintf(s, sizeof s, "%s/att/big/ui_output_agent_1_dispatch_2/code.json", b);
    cJSON_AddStringToObject(d, "code", s);
    fp_json_path_replace(d, "run1/att/big/ui_output_agent_1_dispatch_2", "att/ui_output_agent_1_dispatch_2");
    assert_string_equal(str(d, "code"), "att/ui_output_agent_1_dispatch_2/code.json");
    cJSON_Delete(d);
    /* the bundle given as "." (every file name holds a '.'): only "./x" at a word start
     * is rewritten; the check for a match before copying keeps all others as they are */
    d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "src", "kernels/flash_attn_func.py:257");
    cJSON_AddStringToObject(d, "dots", "a.b ..c x./y .");
    cJSON_AddStringToObject(d, "late", "see a.py then ./att/x and ./pmc");
    cJSON_AddStringToObject(d, "first", "./att/x");
    fp_json_bundle_relative(d, ".");
    assert_string_equal(str(d, "src"), "kernels/flash_attn_func.py:257");
    assert_string_equal(str(d, "dots"), "a.b ..c x./y .");
    assert_string_equal(str(d, "late"), "see a.py then att/x and pmc");
    assert_string_equal(str(d, "first"), "att/x");
    cJSON_Delete(d);
    /* a bundle given with a trailing slash matches its plain spelling too */
    d = cJSON_CreateObject();
    char withslash[300], both[700];
    snprintf(withslash, sizeof withslash, "%s/", b);
    snprintf(both, sizeof both, "%s and %s/att/x", b, b);
    cJSON_AddStringToObject(d, "both", both);
    cJSON_AddStringToObject(d, "bare", b);
    fp_json_bundle_relative(d, withslash);
    assert_string_equal(str(d, "both"), ". and att/x");
    assert_string_equal(str(d, "bare"), ".");
    cJSON_Delete(d);
    assert_int_equal(chdir(cwd), 0);
    rmdir(b);
    rmdir(tmpl);
}

/* fp_path_rw_shortest: the writer skips fp_path_rw_apply below it, so the bundle itself
 * (the shortest string rewritten) must be at that length, and it must be the shortest
 * of the spellings (abs, given, alt). */
static void test_shortest(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/fp_bps_XXXXXX", real[4096], given[4200], shorter[4096];
    assert_non_null(mkdtemp(tmpl));
    assert_non_null(realpath(tmpl, real));
    snprintf(given, sizeof given, "%s/", real); /* spelled unlike abs: alt */
    fp_path_rw rw;
    assert_true(fp_path_rw_bundle(&rw, given));
    assert_int_equal(fp_path_rw_shortest(&rw), strlen(real));
    char *r = fp_path_rw_apply(&rw, real);
    assert_non_null(r);
    assert_string_equal(r, ".");
    free(r);
    snprintf(shorter, sizeof shorter, "%.*s", (int)strlen(real) - 1, real); /* one byte shorter */
    assert_null(fp_path_rw_apply(&rw, shorter));
    fp_path_rw_free(&rw);
    rmdir(tmpl);
    assert_true(fp_path_rw_bundle(&rw, "ab"));
    assert_int_equal(fp_path_rw_shortest(&rw), 2); /* given: shorter than the absolute path */
    r = fp_path_rw_apply(&rw, "ab/x");
    assert_non_null(r);
    assert_string_equal(r, "x");
    free(r);
    fp_path_rw_free(&rw);
    assert_true(fp_path_rw_bundle(&rw, "./"));
    assert_int_equal(fp_path_rw_shortest(&rw), 1); /* "." */
    fp_path_rw_free(&rw);
    fp_path_rw none = {0};
    assert_int_equal(fp_path_rw_shortest(&none), SIZE_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_relative), cmocka_unit_test(test_shortest)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
