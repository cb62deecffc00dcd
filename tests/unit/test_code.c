/* test_code.c - code.json reader: shapes, coercions the seed analyzer applies, bad input. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flyprof/att.h"
#include "flyprof/fs.h"
#include "flyprof/strbuf.h"

static int parse(const char *s, fp_code *c, fp_err *e)
{
    memset(e, 0, sizeof *e);
    return fp_code_parse(s, strlen(s), "code.json", c, e);
}

static void test_basic(void **state)
{
    (void)state;
    fp_code c;
    fp_err e;
    const char *doc = "{\"code\":[[\"; my_kernel\",0,0,\"\",4,5888,0,0,0,0],"
                      "[\"s_load_dword s4, s[0:1], 0x3c\",0,1,\"/k.py:872\",4,5888,32,128,0,992],"
                      "[\"s_waitcnt lgkmcnt(0)\",0,2,null,4,5900,32,41180,41180,0]],"
                      "\"header\":\"ISA, _, LineNumber\",\"version\":\"3.0.0\"}";
    assert_int_equal(parse(doc, &c, &e), 0);
    assert_int_equal(c.n, 3);
    assert_string_equal(c.symbol, "my_kernel");
    assert_string_equal(c.rows[1].source, "/k.py:872");
    assert_string_equal(c.rows[2].source, "");
    assert_int_equal(c.rows[2].stall, 41180);
    assert_int_equal(c.rows[1].idle, 992);
    assert_int_equal(c.coerced_cells, 0);
    assert_ptr_equal(fp_code_at(&c, 2), &c.rows[2]);
    assert_null(fp_code_at(&c, 3));
    assert_null(fp_code_at(&c, -1));
    fp_code_free(&c);
}

static void test_coercions(void **state)
{
    (void)state;
    fp_code c;
    fp_err e;
    /* floats, strings and huge numbers in numeric cells read as 0, as in the seed analyzer */
    const char *doc = "{\"code\":[[\"v_add\",0,\"x\",\"\",4,5,1.5,\"7\",99999999999999999999,null]]}";
    assert_int_equal(parse(doc, &c, &e), 0);
    assert_int_equal(c.n, 1);
    assert_false(c.rows[0].index_ok);
    assert_int_equal(c.rows[0].hit, 0);
    assert_int_equal(c.rows[0].latency, 0);
    assert_int_equal(c.rows[0].stall, 0);
    assert_int_equal(c.coerced_cells, 5);
    fp_code_free(&c);
}

static void test_null_code(void **state)
{
    (void)state;
    fp_code c;
    fp_err e;
    assert_int_equal(parse("{\"code\":null,\"version\":\"3.0.0\"}", &c, &e), 0);
    assert_true(c.null_code);
    assert_int_equal(c.n, 0);
    fp_code_free(&c);
}

static void test_bad_input(void **state)
{
    (void)state;
    const char *bad[] = {
        "",
        "[]",
        "{\"code\":[[\"a\",0,1,\"\",4,5,6,7,8,9]]",            /* truncated */
        "{\"code\":[[\"a\",0,1,\"\",4,5,6,7,8]]}",              /* 9 columns */
        "{\"code\":[[1,0,1,\"\",4,5,6,7,8,9]]}",                /* ISA not a string */
        "{\"code\":[\"row\"]}",                                 /* row not an array */
        "{\"code\":{}}",                                        /* code not an array */
        "{\"header\":\"x\"}",                                   /* no code key */
        "{\"code\":[[\"a\",0,1,5,4,5,6,7,8,9]]}",               /* source a number */
        "{\"code\":[[\"a\",0,1000000000,\"\",4,5,6,7,8,9]]}",   /* absurd LineNumber */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        fp_code c;
        fp_err e;
        if (parse(bad[i], &c, &e) != -1)
            fail_msg("accepted bad code.json #%zu", i);
        assert_int_equal(e.code, FP_BAD_INPUT);
        assert_null(c.rows);
        fp_err_clear(&e);
    }
}

static void test_split_lines(void **state)
{
    (void)state;
    char **lines;
    size_t n;
    const char *t = "a\r\nb\rc\n\nd";
    fp_split_lines(t, strlen(t), &lines, &n);
    assert_int_equal(n, 5);
    assert_string_equal(lines[0], "a");
    assert_string_equal(lines[1], "b");
    assert_string_equal(lines[2], "c");
    assert_string_equal(lines[3], "");
    assert_string_equal(lines[4], "d");
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}

/* ---- the fast path reads every document as jscan does ---- */

static void same_code(const fp_code *a, const fp_code *b)
{
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->null_code, b->null_code);
    assert_int_equal(a->coerced_cells, b->coerced_cells);
    assert_int_equal(a->max_index, b->max_index);
    if (a->symbol || b->symbol)
        assert_string_equal(a->symbol, b->symbol);
    for (size_t i = 0; i < a->n; i++) {
        const fp_inst *x = &a->rows[i], *y = &b->rows[i];
        assert_string_equal(x->isa, y->isa);
        assert_string_equal(x->source, y->source);
        assert_int_equal(x->index, y->index);
        assert_int_equal(x->index_ok, y->index_ok);
        assert_int_equal(x->codeobj, y->codeobj);
        assert_int_equal(x->vaddr, y->vaddr);
        assert_int_equal(x->hit, y->hit);
        assert_int_equal(x->latency, y->latency);
        assert_int_equal(x->stall, y->stall);
        assert_int_equal(x->idle, y->idle);
    }
    for (int64_t i = 0; i <= a->max_index && a->pos_of_index; i++)
        assert_int_equal(a->pos_of_index[i], b->pos_of_index[i]);
}

/* Parse with both readers, check they agree; returns the rc. */
static int both(const char *buf, size_t len)
{
    fp_code a, b;
    fp_err e1 = {0}, e2 = {0};
    int r1 = fp_code_parse(buf, len, "code.json", &a, &e1);
    int r2 = fp_code_parse_jscan(buf, len, "code.json", &b, &e2);
    if (r1 != r2)
        fail_msg("fast %d jscan %d (%s | %s)", r1, r2, e1.message, e2.message);
    if (r1 == 0) {
        same_code(&a, &b);
        fp_code_free(&a);
        fp_code_free(&b);
    } else {
        assert_int_equal(e1.code, e2.code);
        assert_string_equal(e1.message, e2.message);
    }
    fp_err_clear(&e1);
    fp_err_clear(&e2);
    return r1;
}

/* `rounds` copies of doc with 1-3 bytes replaced from alphabet (seeded by *rng):
 * fast and jscan agree on each (both()); how many were accepted. */
static int mutations_agree(const fp_sb *doc, const char *alphabet, int rounds, uint64_t *rng)
{
    size_t na = strlen(alphabet);
    char *m = malloc(doc->len + 1);
    assert_non_null(m);
    int accepted = 0;
    for (int t = 0; t < rounds; t++) {
        memcpy(m, doc->buf, doc->len + 1);
        for (int k = 0; k < 1 + t % 3; k++) {
            *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
            size_t pos = (size_t)(*rng >> 33) % doc->len;
            m[pos] = alphabet[(*rng >> 17) % na];
        }
        accepted += both(m, doc->len) == 0;
    }
    free(m);
    return accepted;
}

/* The fast path's two shortcuts - a source equal to the last one read by one compare,
 * and cells of 1..6 digits by one load - on a document made for them: runs of one
 * source, sources that differ in their last byte or are prefixes of each other ("/k.py:1",
 * "/k.py:2", "/k.py:12"), "" and
 * null in a run, blanks before a repeated source (no escape: the whole document
 * must take the fast path), numbers of 1 to 9 digits and
 * negative ones; then 4,000 mutations of it (1-3 bytes, from the bytes that matter
 * here): fast and jscan agree on every one (result, rows, message). */
static void test_fast_path_repeats(void **state)
{
    (void)state;
    static const char *const src[] = {"\"/k.py:1\"", "\"/k.py:2\"", "\"/k.py:12\"", "\"/k.py:1\"", "\"\"", "null",
                                      " \"/k.py:1\"", "\"/k.py:1 \"", "\"/k.py:3\""};
    static const char *const num[] = {"0", "7", "42", "999999", "1000000", "12345678", "123456789", "-3", "8"};
    fp_sb sb;
    fp_sb_init(&sb);
    fp_sb_adds(&sb, "{\"code\":[[\"; kern\",0,0,\"\",4,1,0,0,0,0]");
    uint64_t rng = 0x13198A2E03707344ull;
    for (int i = 1; i <= 120; i++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        const char *s = src[(i / 4 + (rng >> 60 == 0)) % 9]; /* runs of ~4 */
        fp_sb_addf(&sb, ",[\"v_add v%d\",%s,%d,%s", i, (rng >> 20) % 9 ? "0" : "\"x\"", i, s);
        for (int k = 0; k < 6; k++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            /* mostly short; stall (k = 4) never above latency (k = 3): 0 */
            fp_sb_addf(&sb, ",%s", k == 4 ? "0" : num[(rng >> 33) % 20 < 14 ? (rng >> 40) % 4 : (rng >> 40) % 9]);
        }
        fp_sb_adds(&sb, "]");
    }
    fp_sb_adds(&sb, "]}");
    assert_int_equal(both(sb.buf, sb.len), 0);
    static const char alphabet[] = "\",0123456789 ]\\:1/.e-";
    int accepted = mutations_agree(&sb, alphabet, 4000, &rng);
    fp_sb_free(&sb);
    assert_true(accepted > 100 && accepted < 3900);
}

/* Issue 22 item 10: latency is stall + issue, so a row with more stall than latency
 * (whose sums gave stall_pct 1e18 and a negative issue) is BAD_INPUT in both parsers. */
static void test_stall_beyond_latency_refused(void **state)
{
    (void)state;
    const char *doc = "{\"code\":[[\"a\",0,1,\"s\",4,5,6,16,4611686018427387904,0]]}";
    fp_code c;
    fp_err e = {0};
    assert_int_equal(fp_code_parse(doc, strlen(doc), "code.json", &c, &e), -1);
    assert_int_equal(e.code, FP_BAD_INPUT);
    assert_non_null(strstr(e.message, "Stall 4611686018427387904 exceeds its Latency 16"));
    fp_err_clear(&e);
    assert_int_equal(fp_code_parse_jscan(doc, strlen(doc), "code.json", &c, &e), -1);
    assert_int_equal(e.code, FP_BAD_INPUT);
    fp_err_clear(&e);
    const char *equal = "{\"code\":[[\"a\",0,1,\"s\",4,5,6,16,16,0]]}";
    assert_int_equal(fp_code_parse(equal, strlen(equal), "code.json", &c, &e), 0);
    fp_code_free(&c);
}

static void test_fast_path_parity(void **state)
{
    (void)state;
    const char *docs[] = {
        "{\"code\":[[\"; k\",0,0,\"\",4,5888,0,0,0,0],[\"v_add v1, v2, v3\",0,1,\"/k.py:1\",4,5,6,8,7,9]]}",
        " { \"code\" : [ [ \"a\" , 0 , 1 , null , 4 , 5 , 6 , 8 , 7 , 9 ] ] , \"version\" : \"3.0.0\" } \n",
        "{\"code\":[[\"a\",\"x\",1,\"s\",4,5,6,8,7,9,10,11]]}",       /* extras, col 1 a string */
        "{\"code\":[[\"a\",0,1,\"s\",4,5,6,8,7,9,1.5]]}",             /* a float extra */
        "{\"code\":[[\"a\",[1],1,\"s\",4,5,6,8,7,9]]}",              /* a container in col 1 */
        "{\"code\":[[\"a\\u00e9\",0,1,\"s\\n\",4,5,6,8,7,9]]}",  /* escapes */
        "{\"code\":[[\"a\",0,1,\"/\xc3\xa9.py:3\",4,5,6,8,7,9]]}", /* raw UTF-8 */
        "{\"code\":[[\"a\",0,1,\"\xff\",4,5,6,8,7,9]]}",            /* invalid UTF-8, kept raw */
        "{\"code\":[[\"a\",0,-1,\"s\",-4,5,6,7,-8,9]]}",
        "{\"code\":[[\"a\",0,01,\"s\",4,5,6,8,7,9]]}",
        "{\"code\":[[\"a\",0,1,\"s\",4,5,6,8,7,9e2]]}",
        "{\"code\":[[\"a\",0,1,\"s\",4,5,6,8,7,1234567890123456789]]}", /* 19 digits */
        "{\"code\":[[\"a\",0,1,\"s\",4,5,6,8,7,99999999999999999999]]}",
        "{\"code\":[],\"code\":[[\"a\",0,1,\"s\",4,5,6,8,7,9]]}",  /* repeated key */
        "{\"code\":[[\"a\",0,1,\"s\",4,5,6,8,7,9]],\"code\":null}",
        "{\"code\":null}",
        "{\"code\":[]}",
        "{\"code\":[[\"a\",0,1,\"s\",4,5,6,8,7,9]],\"meta\":{\"x\":1}}",
        "{\"x\":true,\"y\":false,\"z\":-0.5e-3,\"code\":[[\"a\",0,1,\"s\",4,5,6,8,7,9]]}",
        "{\"code\":[[\"a\",0,1,\"s\",4,5,6,8,7,9]]}x",
        "{\"code\":[[\"a\",0,1,\"s\",4,5,6,8,7,9],]}",
        "{\"code\":[[\"a\",0,1,\"s\",4,5,6,7,8]]}",
        "{\"code\":[[\"a\",0,1,\"s\",4,5,6,8,7,9]]",
        "{\"code\":[[\"a\",0,1,\"s\",4,5,6,8,7,9]]}}",
        "{\"code\":[[\"a\",0,1,\"s\",4,5,6,8,7,9]],}",
        "{}",
        "{\"code\":[[\"a\\\",0,1,\"s\",4,5,6,8,7,9]]}",
        "{\"code\":[[\"a\",0,1,\"s\",4,5,6,8,7,9]],\"k\\u0041\":1}",
    };
    int ok = 0;
    for (size_t i = 0; i < sizeof docs / sizeof *docs; i++)
        ok += both(docs[i], strlen(docs[i])) == 0;
    assert_int_equal(ok, 19); /* all but 01, trailing data, 9 columns, truncations, no "code", a broken string */

    /* a generated document and 3,000 single-byte mutations of it (seeded: reproducible) */
    fp_sb sb;
    fp_sb_init(&sb);
    fp_sb_adds(&sb, "{\"code\":[[\"; kern\",0,0,\"\",4,1,0,0,0,0]");
    for (int i = 1; i <= 60; i++)
        fp_sb_addf(&sb, ",[\"v_mfma_f32_32x32x8 a[%d:%d], v%d, v%d\",0,%d,\"/w/k.py:%d\",4,%d,%d,%d,%d,%d]", i, i + 15,
                   i % 7, i % 5, i, 100 + i % 9, 4096 + 8 * i, 32, 40 + i * 8, i % 3 ? 0 : i * 7, i % 4);
    fp_sb_adds(&sb, "],\"header\":\"ISA, _, LineNumber\",\"version\":\"3.0.0\"}");
    assert_int_equal(both(sb.buf, sb.len), 0);
    static const char alphabet[] = "[]{},:\"\\ 0123456789-.eEnul\x80\x01x";
    uint64_t rng = 0x243F6A8885A308D3ull;
    int accepted = mutations_agree(&sb, alphabet, 3000, &rng);
    /* 600 rows (~60 KB): the fast path reserves len / 128 rows up front and then
     * still has to grow the array */
    fp_sb_free(&sb);
    fp_sb_init(&sb);
    fp_sb_adds(&sb, "{\"code\":[[\"; big\",0,0,\"\",4,1,0,0,0,0]");
    for (int i = 1; i <= 600; i++)
        fp_sb_addf(&sb, ",[\"ds_read_b128 v[%d:%d], v%d\",0,%d,\"/w/k.py:%d\",4,%d,64,%d,%d,0]", i % 200, i % 200 + 3,
                   i % 9, i, 7 + i % 40, 8 * i, 10 + i, i % 5 ? 0 : i);
    fp_sb_adds(&sb, "]}");
    assert_true(sb.len / 128 > 256 && sb.len / 128 < 600);
    assert_int_equal(both(sb.buf, sb.len), 0);
    fp_sb_free(&sb);
    /* both outcomes occur, so both branches of the comparison ran */
    assert_true(accepted > 100 && accepted < 2900);

    /* every code.json of the corpus, when it is next to the checkout */
    DIR *d = opendir(FP_CORPUS);
    int ncorpus = 0;
    for (struct dirent *de; d && (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        char att[4096];
        snprintf(att, sizeof att, "%s/%s/att", FP_CORPUS, de->d_name);
        DIR *a = opendir(att);
        for (struct dirent *ae; a && (ae = readdir(a));) {
            if (strncmp(ae->d_name, "ui_output_", 10))
                continue;
            char path[8192];
            snprintf(path, sizeof path, "%s/%s/code.json", att, ae->d_name);
            fp_sb f;
            fp_sb_init(&f);
            fp_err e = {0};
            if (fp_read_file(path, &f, &e) == 0) {
                assert_int_equal(both(f.buf, f.len), 0);
                ncorpus++;
            }
            fp_err_clear(&e);
            fp_sb_free(&f);
        }
        if (a)
            closedir(a);
    }
    if (d)
        closedir(d);
    fprintf(stderr, "parity: %d corpus code.json files, %d of 3000 mutations accepted\n", ncorpus, accepted);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),    cmocka_unit_test(test_coercions),
        cmocka_unit_test(test_null_code), cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_split_lines), cmocka_unit_test(test_fast_path_parity),
        cmocka_unit_test(test_fast_path_repeats),
        cmocka_unit_test(test_stall_beyond_latency_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
