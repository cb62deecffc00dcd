/* fuzz_markup - the views' escaping (markup.h) on arbitrary bytes: the XML/HTML
 * text is valid UTF-8 with no raw markup character and no control character,
 * the JSON string is valid UTF-8 with no raw control character, and a prefix /
 * suffix cut never ends inside a UTF-8 sequence. */
#include <stdlib.h>
#include <string.h>

#include "flyprof/json.h"
#include "flyprof/markup.h"
#include "fuzz_common.h"

static void check_text(const fp_sb *sb, bool markup)
{
    if (!fp_utf8_valid(sb->buf))
        abort();
    for (size_t i = 0; i < sb->len; i++) {
        unsigned char c = (unsigned char)sb->buf[i];
        /* JSON strings may hold DEL; markup never does (a terminal acts on it) */
        if ((c < 0x20 && c != '\t' && c != '\n') || (markup && (c == 0x7f || c == '<' || c == '>' || c == '"')))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = 0;
    size_t n = strlen(s); /* the strings flyprof holds are NUL-terminated */
    fp_sb a, j;
    fp_sb_init(&a);
    fp_sb_init(&j);
    fp_mk_xml(&a, s, n);
    check_text(&a, true);
    fp_mk_json(&j, s);
    check_text(&j, false);
    for (size_t max = 0; max < 8; max++) {
        size_t p = fp_mk_prefix(s, n, max), q = fp_mk_suffix_start(s, n, max);
        if (p > n || q > n)
            abort();
        fp_sb c;
        fp_sb_init(&c);
        fp_sb_add(&c, s, p);
        fp_sb_add(&c, s + q, n - q);
        /* a cut of valid text stays valid */
        if (fp_utf8_valid(s) && !fp_utf8_valid(c.buf))
            abort();
        fp_sb_free(&c);
    }
    fp_sb_free(&a);
    fp_sb_free(&j);
    free(s);
    return 0;
}
