/* The wave listing (fp_wave_list_dir) and occupancy.json's rows (at the end). The listing: its order and its cross-check with
 * filenames.json, by both readers of filenames.json (the layout rocprofv3 writes, and
 * jscan for anything else: every document is also read with a top-level member that
 * sends it to jscan, and must give the same), by both pairings (by numbers when every
 * name on disk is canonical, by name when one has a leading zero), and the numeric
 * order both ways (numbers past 2^16 take qsort). Expected values by hand. The empty
 * probe's count (fp_dispatch_is_empty) too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flyprof/dispatch.h"
#include "flyprof/fs.h"
#include "flyprof/strbuf.h"
#include "flyprof/wave.h"

static void put(const char *dir, const char *name, const char *text)
{
    char *p = fp_path_join(dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(p);
}

/* "listed missing unlisted | name:begin ..." (begin "-" when not dated) */
static void summary(const char *dir, char *out, size_t cap)
{
    fp_wave_list l;
    fp_err e = {0};
    assert_int_equal(fp_wave_list_dir(dir, &l, &e), 0);
    size_t k = (size_t)snprintf(out, cap, "%d %zu %zu %zu |", l.filenames_json, l.listed, l.listed_missing, l.unlisted);
    for (size_t i = 0; i < l.n && k < cap; i++) {
        assert_int_equal(l.files[i].pos, i);
        if (l.files[i].has_begin)
            k += (size_t)snprintf(out + k, cap - k, " %s:%lld", l.files[i].name, (long long)l.files[i].begin);
        else
            k += (size_t)snprintf(out + k, cap - k, " %s:-", l.files[i].name);
    }
    fp_wave_list_free(&l);
}

/* doc as it is and with a first member jscan must read, each against `want` */
static void check(const char *dir, const char *doc, const char *want)
{
    char got[2048], via[2048];
    put(dir, "filenames.json", doc);
    summary(dir, got, sizeof got);
    fp_sb sb;
    fp_sb_init(&sb);
    fp_sb_adds(&sb, doc[0] == '{' && doc[1] != '}' ? "{\"zz\":[[0]]," : "{\"zz\":[[0]]");
    fp_sb_adds(&sb, doc + 1);
    put(dir, "filenames.json", doc[0] == '{' ? sb.buf : doc);
    summary(dir, via, sizeof via);
    fp_sb_free(&sb);
    if (strcmp(got, want) || strcmp(via, want))
        fail_msg("%s\n got %s\n jscan %s\n want %s", doc, got, via, want);
}

static void test_cross_check(void **state)
{
    (void)state;
    char dir[] = "/tmp/fp_wave_list_XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *w = "{}";
    put(dir, "se0_sm0_sl0_wv1.json", w);
    put(dir, "se0_sm0_sl0_wv0.json", w);
    put(dir, "se1_sm0_sl2_wv3.json", w);
    put(dir, "se0_sm1_sl0_wv10.json", w);
    put(dir, "se0_sm1_sl0_wv9.json", w);
    put(dir, "notes.txt", w);
    const char *doc1 =
        "{\"counter_names\":[],\"gfxip\":9,\"gfxv\":\"vega\",\"wave_filenames\":{\"0\":{\"0\":{\"0\":{"
        "\"0\":[\"se0_sm0_sl0_wv0.json\",100,200],\"1\":[\"se0_sm0_sl0_wv1.json\",150,300],"
        "\"2\":[\"se0_sm0_sl0_wv1.json\",999,1000],\"3\":[\"se0_sm0_sl0_wv01.json\",5,6],"
        "\"4\":[\"se9_sm0_sl0_wv0.json\",1,2]}},\"1\":{\"0\":{\"10\":[\"se0_sm1_sl0_wv10.json\",-7,8],"
        "\"9\":[\"se0_sm1_sl0_wv9.json\"]}}}},\"version\":\"3.0.0\"}";
    /* the second wv1 and wv01, se9 are missing; se1 is unlisted; wv9 has no begin */
    check(dir, doc1,
          "1 7 3 1 | se0_sm0_sl0_wv0.json:100 se0_sm0_sl0_wv1.json:150 se0_sm1_sl0_wv9.json:- "
          "se0_sm1_sl0_wv10.json:-7 se1_sm0_sl2_wv3.json:-");
    /* jscan's own cases: a fraction as begin (not dated), an escaped name, a name with a
     * NUL (compared up to it, as strcmp), a second wave_filenames (ignored), 19 digits */
    check(dir,
          "{\"wave_filenames\":{\"0\":{\"0\":{\"0\":{\"0\":[\"se0_sm0_sl0_wv0.json\",1.5],"
          "\"1\":[\"se0_sm0_sl0_wv\\u0031.json\",12],\"9\":[\"se1_sm0_sl2_wv3.json\\u0000x\",33]}},"
          "\"1\":{\"0\":{\"x\":[\"se0_sm1_sl0_wv9.json\",1234567890123456789]}}}},"
          "\"wave_filenames\":{\"0\":{\"0\":{\"0\":{\"0\":[\"se0_sm1_sl0_wv10.json\",4]}}}}}",
          "1 4 0 1 | se0_sm0_sl0_wv0.json:- se0_sm0_sl0_wv1.json:12 se0_sm1_sl0_wv9.json:1234567890123456789 "
          "se0_sm1_sl0_wv10.json:- se1_sm0_sl2_wv3.json:33");
    /* not at depth 3, empty entries, a non-string first cell, other values skipped */
    check(dir,
          "{\"wave_filenames\":{\"0\":[\"se0_sm0_sl0_wv0.json\",1],\"1\":{\"0\":{\"0\":{\"0\":[],\"1\":[5,\"se0_sm0_sl0_wv1.json\"],"
          "\"2\":\"se0_sm0_sl0_wv1.json\",\"3\":[\"se0_sm0_sl0_wv1.json\",2,[3]]},\"1\":[\"se0_sm1_sl0_wv9.json\",4]}}}}",
          "1 1 0 4 | se0_sm0_sl0_wv0.json:- se0_sm0_sl0_wv1.json:2 se0_sm1_sl0_wv9.json:- se0_sm1_sl0_wv10.json:- "
          "se1_sm0_sl2_wv3.json:-");
    check(dir, "{}", "1 0 0 5 | se0_sm0_sl0_wv0.json:- se0_sm0_sl0_wv1.json:- se0_sm1_sl0_wv9.json:- "
                     "se0_sm1_sl0_wv10.json:- se1_sm0_sl2_wv3.json:-");
    /* a broken document: no cross-check (summary's doc is broken both ways) */
    char got[2048];
    put(dir, "filenames.json", "{\"wave_filenames\":{\"0\":{}}} x");
    summary(dir, got, sizeof got);
    assert_string_equal(got, "0 0 0 0 | se0_sm0_sl0_wv0.json:- se0_sm0_sl0_wv1.json:- se0_sm1_sl0_wv9.json:- "
                             "se0_sm1_sl0_wv10.json:- se1_sm0_sl2_wv3.json:-");
    /* a leading zero on disk: the pairing by name (wv01 listed in doc1 now pairs), the
     * order by numbers then name */
    put(dir, "se0_sm0_sl0_wv01.json", w);
    check(dir, doc1,
          "1 7 2 1 | se0_sm0_sl0_wv0.json:100 se0_sm0_sl0_wv01.json:5 se0_sm0_sl0_wv1.json:150 "
          "se0_sm1_sl0_wv9.json:- se0_sm1_sl0_wv10.json:-7 se1_sm0_sl2_wv3.json:-");
    char *p = fp_path_join(dir, "se0_sm0_sl0_wv01.json");
    unlink(p);
    free(p);
    /* numbers past 2^16: qsort's order, the same pairing */
    put(dir, "se70000_sm0_sl0_wv0.json", w);
    put(dir, "se0_sm0_sl0_wv1000000.json", w);
    check(dir, doc1,
          "1 7 3 3 | se0_sm0_sl0_wv0.json:100 se0_sm0_sl0_wv1.json:150 se0_sm0_sl0_wv1000000.json:- "
          "se0_sm1_sl0_wv9.json:- se0_sm1_sl0_wv10.json:-7 se1_sm0_sl2_wv3.json:- se70000_sm0_sl0_wv0.json:-");
    long long waves = 0;
    put(dir, "code.json", "{\"code\":[[1]]}");
    assert_false(fp_dispatch_is_empty(dir, &waves));
    assert_int_equal(waves, 7);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    waves = 5;
    assert_true(fp_dispatch_is_empty(dir, &waves)); /* no dir */
    assert_int_equal(waves, 0);
}

/* Many files (the table of match_by_numbers probes past collisions): each listed name
 * pairs or not as the general way's merge by name pairs it - listed in string order (as
 * rocprofv3 writes), some twice, some absent on disk, some with a leading zero, some
 * files unlisted - and the expected counts by hand. */
static void test_many_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/fp_wave_list_XXXXXX";
    assert_non_null(mkdtemp(dir));
    fp_sb doc;
    fp_sb_init(&doc);
    fp_sb_adds(&doc, "{\"wave_filenames\":{\"0\":{\"0\":{\"0\":{");
    char name[64], ent[128];
    int ne = 0;
    for (int se = 0; se < 3; se++)
        for (int id = 0; id < 120; id++) {
            snprintf(name, sizeof name, "se%d_sm%d_sl%d_wv%d.json", se, id % 4, id % 3, id);
            if (id % 7 != 3) /* every seventh from 3 on: unlisted */
                put(dir, name, "{}");
            if (id % 5 == 1) /* every fifth from 1: listed, not on disk, numbers that share
                              * se and simd with files (a probe must compare all four) */
                snprintf(name, sizeof name, "se%d_sm%d_sl%d_wv%d.json", se, id % 4, id % 3, id + 500);
            if (id % 13 == 2) /* every thirteenth from 2: a leading zero (never a file's name) */
                snprintf(name, sizeof name, "se%d_sm%d_sl%d_wv0%d.json", se, id % 4, id % 3, id);
            snprintf(ent, sizeof ent, "%s\"%d\":[\"%s\",%d]", ne ? "," : "", ne, name, 1000 + ne);
            fp_sb_adds(&doc, ent);
            ne++;
            if (id % 17 == 0) { /* listed twice: the second is missing */
                snprintf(ent, sizeof ent, ",\"%d\":[\"%s\",%d]", ne, name, 1000 + ne);
                fp_sb_adds(&doc, ent);
                ne++;
            }
        }
    fp_sb_adds(&doc, "}}}}}");
    put(dir, "filenames.json", doc.buf);
    fp_sb_free(&doc);
    fp_wave_list a, b;
    fp_err e = {0};
    assert_int_equal(fp_wave_list_dir(dir, &a, &e), 0);
    assert_int_equal(fp_wave_list_dir_general(dir, &b, &e), 0);
    /* 3 x 120 names, 3 x 8 twice; on disk 3 x (120 - 17) */
    assert_int_equal(a.listed, 3 * 120 + 3 * 8);
    assert_int_equal(a.n, 3 * (120 - 17));
    assert_int_equal(a.listed, b.listed);
    assert_int_equal(a.listed_missing, b.listed_missing);
    assert_int_equal(a.unlisted, b.unlisted);
    assert_int_equal(a.n, b.n);
    size_t dated = 0;
    for (size_t i = 0; i < a.n; i++) {
        assert_string_equal(a.files[i].name, b.files[i].name);
        assert_int_equal(a.files[i].has_begin, b.files[i].has_begin);
        assert_int_equal(a.files[i].begin, b.files[i].begin);
        dated += a.files[i].has_begin;
    }
    /* paired: on disk, listed under its own canonical name (id % 5 != 1, id % 13 != 2) */
    size_t want = 0;
    for (int id = 0; id < 120; id++)
        want += id % 7 != 3 && id % 5 != 1 && id % 13 != 2;
    assert_int_equal(dated, 3 * want);
    assert_int_equal(a.unlisted, a.n - 3 * want);
    assert_int_equal(a.listed_missing, a.listed - 3 * want);
    fp_wave_list_free(&a);
    fp_wave_list_free(&b);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* fp_wave_list_dir and fp_wave_list_dir_general on the same dir: the same files in the
 * same order with the same pairing and counts. */
static void same_as_general(const char *dir, const char *doc)
{
    fp_wave_list a, b;
    fp_err e = {0};
    assert_int_equal(fp_wave_list_dir(dir, &a, &e), 0);
    assert_int_equal(fp_wave_list_dir_general(dir, &b, &e), 0);
    if (a.n != b.n || a.filenames_json != b.filenames_json || a.listed != b.listed ||
        a.listed_missing != b.listed_missing || a.unlisted != b.unlisted)
        fail_msg("%s\n fast %d %zu %zu %zu general %d %zu %zu %zu", doc, a.filenames_json, a.listed, a.listed_missing,
                 a.unlisted, b.filenames_json, b.listed, b.listed_missing, b.unlisted);
    for (size_t i = 0; i < a.n; i++) {
        const fp_wave_file *x = &a.files[i], *y = &b.files[i];
        if (strcmp(x->name, y->name) || x->se != y->se || x->simd != y->simd || x->slot != y->slot || x->id != y->id ||
            x->pos != y->pos || x->regular != y->regular || x->has_begin != y->has_begin || x->begin != y->begin)
            fail_msg("%s\n file %zu: fast %s %d:%lld general %s %d:%lld", doc, i, x->name, x->has_begin,
                     (long long)x->begin, y->name, y->has_begin, (long long)y->begin);
    }
    fp_wave_list_free(&a);
    fp_wave_list_free(&b);
}

/* The flat reader of an entry (flat_entry: the exact layout rocprofv3 writes, with the
 * name's numbers read on the way) against the general way, on every near miss of that
 * layout - in the key, the name, its numbers (leading zeros, the 1000000 limit, 7 and
 * 8 digits), begin (0, signs, fractions, exponents, 1..19 digits), end (digits, signs,
 * missing, extra cells, other scalars) and blanks - each in the middle of a listing
 * (followed by ',') and last in its object (followed by '}'), with enough document after
 * it that the flat reader is in view of it. */
static void test_flat_entries(void **state)
{
    (void)state;
    char dir[] = "/tmp/fp_wave_list_XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *w = "{}";
    const char *files[] = {"se0_sm0_sl0_wv0.json",      "se0_sm0_sl0_wv7.json",       "se1_sm2_sl3_wv45.json",
                           "se12_sm3_sl10_wv123.json",   "se0_sm0_sl0_wv1000000.json", "se1000000_sm0_sl0_wv0.json",
                           "se3_sm1_sl6_wv14.json"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        put(dir, files[i], w);
    static const char *const ents[] = {
        /* the layout itself, and its numbers at their limits */
        "\"5\":[\"se0_sm0_sl0_wv7.json\",100,200]", "\"5\":[\"se12_sm3_sl10_wv123.json\",1,2]",
        "\"5\":[\"se0_sm0_sl0_wv1000000.json\",3,4]", "\"5\":[\"se1000000_sm0_sl0_wv0.json\",3,4]",
        "\"5\":[\"se0_sm0_sl0_wv1000001.json\",3,4]", "\"5\":[\"se0_sm0_sl0_wv9999999.json\",3,4]",
        "\"5\":[\"se0_sm0_sl0_wv10000000.json\",3,4]", "\"5\":[\"se0_sm0_sl0_wv01000000.json\",3,4]",
        /* leading zeros in each number */
        "\"5\":[\"se00_sm0_sl0_wv7.json\",1,2]", "\"5\":[\"se0_sm00_sl0_wv7.json\",1,2]",
        "\"5\":[\"se0_sm0_sl00_wv7.json\",1,2]", "\"5\":[\"se0_sm0_sl0_wv07.json\",1,2]",
        "\"5\":[\"se01_sm2_sl3_wv45.json\",1,2]", "\"5\":[\"se1_sm2_sl3_wv045.json\",1,2]",
        /* the name's other bytes */
        "\"5\":[\"se0_sm0_sl0_wv7.jsonx\",1,2]", "\"5\":[\"se0_sm0_sl0_wv7.jso\",1,2]",
        "\"5\":[\"Se0_sm0_sl0_wv7.json\",1,2]", "\"5\":[\"se0_sm0_sl0_wv.json\",1,2]", "\"5\":[\"se_sm0_sl0_wv7.json\",1,2]",
        "\"5\":[\"se0-sm0_sl0_wv7.json\",1,2]", "\"5\":[\"se0_sm0_sl0_wv7.json\\u0000\",1,2]",
        "\"5\":[\"se0_sm0_sl0_wv\\u0037.json\",1,2]", "\"5\":[\"se0_sm0_sl0_wv7\",1,2]", "\"5\":[\"\",1,2]",
        /* begin */
        "\"5\":[\"se0_sm0_sl0_wv7.json\",0,2]", "\"5\":[\"se0_sm0_sl0_wv7.json\",-5,2]",
        "\"5\":[\"se0_sm0_sl0_wv7.json\",1.5,2]", "\"5\":[\"se0_sm0_sl0_wv7.json\",1e3,2]",
        "\"5\":[\"se0_sm0_sl0_wv7.json\",12345678,2]", "\"5\":[\"se0_sm0_sl0_wv7.json\",123456789,2]",
        "\"5\":[\"se0_sm0_sl0_wv7.json\",1234567890123456,2]", "\"5\":[\"se0_sm0_sl0_wv7.json\",123456789012345,2]",
        "\"5\":[\"se0_sm0_sl0_wv7.json\",123456789012345678,2]", "\"5\":[\"se0_sm0_sl0_wv7.json\",1234567890123456789,2]",
        "\"5\":[\"se0_sm0_sl0_wv7.json\",01,2]", "\"5\":[\"se0_sm0_sl0_wv7.json\",00,2]",
        "\"5\":[\"se0_sm0_sl0_wv7.json\",\"x\",2]", "\"5\":[\"se0_sm0_sl0_wv7.json\",null,2]",
        "\"5\":[\"se0_sm0_sl0_wv7.json\",7]", "\"5\":[\"se0_sm0_sl0_wv7.json\"]", "\"5\":[]",
        /* end */
        "\"5\":[\"se0_sm0_sl0_wv7.json\",1,07]", "\"5\":[\"se0_sm0_sl0_wv7.json\",1,00]",
        "\"5\":[\"se0_sm0_sl0_wv7.json\",1,0]", "\"5\":[\"se0_sm0_sl0_wv7.json\",1,1234567]",
        "\"5\":[\"se0_sm0_sl0_wv7.json\",1,12345678]", "\"5\":[\"se0_sm0_sl0_wv7.json\",1,-2]",
        "\"5\":[\"se0_sm0_sl0_wv7.json\",1,2.5]", "\"5\":[\"se0_sm0_sl0_wv7.json\",1,2e1]",
        "\"5\":[\"se0_sm0_sl0_wv7.json\",1,true]", "\"5\":[\"se0_sm0_sl0_wv7.json\",1,\"e\"]",
        "\"5\":[\"se0_sm0_sl0_wv7.json\",1,2,3]", "\"5\":[\"se0_sm0_sl0_wv7.json\",1,2,[3]]",
        /* keys and blanks */
        "\"12345678\":[\"se0_sm0_sl0_wv7.json\",1,2]", "\"1234567\":[\"se0_sm0_sl0_wv7.json\",1,2]",
        "\"a\":[\"se0_sm0_sl0_wv7.json\",1,2]", "\"\":[\"se0_sm0_sl0_wv7.json\",1,2]",
        "\"5\" :[\"se0_sm0_sl0_wv7.json\",1,2]", "\"5\": [\"se0_sm0_sl0_wv7.json\",1,2]",
        "\"5\":[ \"se0_sm0_sl0_wv7.json\",1,2]", "\"5\":[\"se0_sm0_sl0_wv7.json\" ,1,2]",
        "\"5\":[\"se0_sm0_sl0_wv7.json\", 1,2]", "\"5\":[\"se0_sm0_sl0_wv7.json\",1 ,2]",
        "\"5\":[\"se0_sm0_sl0_wv7.json\",1,2 ]", "\"5\":[\"se0_sm0_sl0_wv7.json\",1,2] ",
        /* the name with a leading zero (on disk in round 1) */
        "\"5\":[\"se0_sm0_sl0_wv007.json\",1,2]",
        /* listed twice: the second is missing */
        "\"5\":[\"se0_sm0_sl0_wv0.json\",9,10]",
    };
    char pad[300];
    memset(pad, 'x', sizeof pad - 1);
    pad[sizeof pad - 1] = '\0';
    fp_sb doc;
    fp_sb_init(&doc);
    /* round 1: a name with a leading zero on disk, so the pairing is the merge by name
     * (flat entries' names and lengths, not their numbers) */
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof ents / sizeof *ents; i++)
            for (int last = 0; last < 2; last++) {
                if (round == 1 && i == 0 && last == 0)
                    put(dir, "se0_sm0_sl0_wv007.json", w);
                fp_sb_reset(&doc);
                fp_sb_adds(&doc, "{\"wave_filenames\":{\"0\":{\"0\":{\"0\":{\"0\":[\"se0_sm0_sl0_wv0.json\",11,12],");
                fp_sb_adds(&doc, ents[i]);
                if (!last)
                    fp_sb_adds(&doc, ",\"6\":[\"se1_sm2_sl3_wv45.json\",13,14]");
                fp_sb_adds(&doc, "}},\"1\":{\"6\":{\"10\":[\"se3_sm1_sl6_wv14.json\",15,16]}}}},\"pad\":\"");
                fp_sb_adds(&doc, pad);
                fp_sb_adds(&doc, "\"}");
                put(dir, "filenames.json", doc.buf);
                same_as_general(dir, doc.buf);
            }
    /* the plain layout pairs every listed file by its numbers (by hand) */
    char *lz = fp_path_join(dir, "se0_sm0_sl0_wv007.json");
    unlink(lz);
    free(lz);
    fp_sb_reset(&doc);
    fp_sb_adds(&doc, "{\"wave_filenames\":{\"0\":{\"0\":{\"0\":{\"0\":[\"se0_sm0_sl0_wv0.json\",11,12],"
                     "\"1\":[\"se0_sm0_sl0_wv1000000.json\",0,5],\"7\":[\"se0_sm0_sl0_wv7.json\",1234567890123,1]}}},"
                     "\"1\":{\"2\":{\"3\":{\"45\":[\"se1_sm2_sl3_wv45.json\",45,46]}}},"
                     "\"12\":{\"3\":{\"10\":{\"123\":[\"se12_sm3_sl10_wv123.json\",123,124]}}}},\"pad\":\"");
    fp_sb_adds(&doc, pad);
    fp_sb_adds(&doc, "\"}");
    put(dir, "filenames.json", doc.buf);
    same_as_general(dir, doc.buf);
    char got[2048];
    summary(dir, got, sizeof got);
    assert_string_equal(got, "1 5 0 2 | se0_sm0_sl0_wv0.json:11 se0_sm0_sl0_wv7.json:1234567890123 "
                             "se0_sm0_sl0_wv1000000.json:0 se1_sm2_sl3_wv45.json:45 se3_sm1_sl6_wv14.json:- "
                             "se12_sm3_sl10_wv123.json:123 se1000000_sm0_sl0_wv0.json:-");
    fp_sb_free(&doc);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* occupancy.json rows near the usual shape "[time,c,s,l,b,x]" that the fast reader's
 * word-wide check (occ_row6) must take or leave exactly as jscan reads them: each byte
 * of the ten after the time replaced by a byte of every class around its own (digits,
 * ',' and ']' neighbours '+', '-', '.', '/', ':', blanks, letters, '[', bytes past 0xb9), times of 1 to
 * 10 digits, leading zeros and signs. fp_occupancy_parse against
 * fp_occupancy_parse_jscan: the same rc, message and events. */
static void same_occupancy(const char *doc, size_t len)
{
    fp_occupancy a, b;
    fp_err e1 = {0}, e2 = {0};
    int r1 = fp_occupancy_parse(doc, len, &a, &e1), r2 = fp_occupancy_parse_jscan(doc, len, &b, &e2);
    if (r1 != r2)
        fail_msg("%.200s: fast %d jscan %d", doc, r1, r2);
    if (r1 != 0) {
        assert_string_equal(e1.message, e2.message);
    } else {
        assert_int_equal(a.n, b.n);
        for (size_t k = 0; k < a.n; k++) {
            assert_int_equal(a.ses[k].se, b.ses[k].se);
            assert_int_equal(a.ses[k].n, b.ses[k].n);
            assert_memory_equal(a.ses[k].ev, b.ses[k].ev, a.ses[k].n * sizeof *a.ses[k].ev);
        }
        fp_occupancy_free(&a);
        fp_occupancy_free(&b);
    }
    fp_err_clear(&e1);
    fp_err_clear(&e2);
}

static void test_occupancy_rows(void **state)
{
    (void)state;
    static const char subst[] = "0159,]+-./:[ aZ\"\xba\xff";
    static const char *const times[] = {"0", "7", "42", "1234567", "12345678", "123456789", "1234567890", "01", "-5"};
    for (size_t t = 0; t < sizeof times / sizeof *times; t++) {
        for (int pos = -1; pos < 10; pos++) {
            for (size_t k = 0; k < (pos < 0 ? 1 : sizeof subst - 1); k++) {
                char row[64];
                snprintf(row, sizeof row, "[%s,3,1,7,1,1]", times[t]);
                char *tail = strchr(row, ',') + 1;
                if (pos >= 0)
                    tail[pos] = subst[k];
                fp_sb sb;
                fp_sb_init(&sb);
                fp_sb_adds(&sb, "{\"0\":[");
                /* the row in the middle of enough rows that the row window holds */
                for (int i = 0; i < 40; i++)
                    fp_sb_addf(&sb, "[%d,%d,%d,%d,%d,1],", 10 * i, i % 10, i % 4, i % 8, i % 2);
                fp_sb_adds(&sb, row);
                for (int i = 40; i < 80; i++)
                    fp_sb_addf(&sb, ",[%d,%d,%d,%d,%d,1]", 10 * i, i % 10, i % 4, i % 8, i % 2);
                fp_sb_adds(&sb, "]}");
                same_occupancy(sb.buf, sb.len);
                fp_sb_free(&sb);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cross_check), cmocka_unit_test(test_many_files),
                                       cmocka_unit_test(test_flat_entries), cmocka_unit_test(test_occupancy_rows)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
