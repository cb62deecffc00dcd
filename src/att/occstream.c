/*
 * occstream.c - occupancy.json as a stream of events (fp_occupancy_stream, wave.h).
 *
 * fp_occupancy_load keeps every event (24 B each, plus the whole file while it
 * parses): 2.4 x the file's size, which grows with the trace (~300 B per wave in
 * real captures, 55 MB of RSS at 1 GB of trace). This reader holds a 64 KiB
 * window and one tie group, so a caller that needs the events in time order
 * (bubbles' occupancy levels) runs in constant memory by streaming twice.
 *
 * It takes the layout rocprofv3 writes - {"<se>": [[int x 5+], ...], ...,
 * "<other>": a scalar or an object of scalars} with each SE's times
 * non-decreasing - and returns 1 on anything else (a time going back, a repeated
 * SE, a row it cannot read, a file that does not parse), so the caller falls
 * back to fp_occupancy_load, which sorts, explains errors, and gives the same
 * events: inside a group of equal times the ends come first, each kind in file
 * order, which is what the loader's stable sort by (time, start) gives.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flyprof/fs.h"
#include "flyprof/mem.h"
#include "flyprof/wave.h"

#define OCC_WINDOW 65536
#define OCC_ROW_MAX 4096 /* a row longer than this is not rocprofv3's: fall back */

typedef struct occ_rd {
    int fd;
    char buf[OCC_WINDOW];
    size_t pos, len;
    bool eof, bad; /* bad: not the streamable layout */
} occ_rd;

/* At least `need` bytes after pos unless the file ends first. */
static void fill(occ_rd *r, size_t need)
{
    if (r->len - r->pos >= need || r->eof)
        return;
    memmove(r->buf, r->buf + r->pos, r->len - r->pos);
    r->len -= r->pos;
    r->pos = 0;
    while (r->len < need && !r->eof) {
        ssize_t n = read(r->fd, r->buf + r->len, sizeof r->buf - r->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            r->eof = true;
        else
            r->len += (size_t)n;
    }
}

static int peek(occ_rd *r)
{
    for (;;) {
        fill(r, 1);
        if (r->pos >= r->len)
            return -1;
        char c = r->buf[r->pos];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            return (unsigned char)c;
        r->pos++;
    }
}

static bool lit(occ_rd *r, char c)
{
    if (peek(r) != (unsigned char)c)
        return false;
    r->pos++;
    return true;
}

/* A string with no escapes, up to cap - 1 bytes, into out; else bad. */
static bool key(occ_rd *r, char *out, size_t cap)
{
    if (!lit(r, '"'))
        return false;
    fill(r, cap + 1);
    size_t i = 0;
    /* JSON forbids raw control characters in a string: refused as the loader refuses them */
    while (r->pos < r->len && r->buf[r->pos] != '"' && r->buf[r->pos] != '\\' &&
           (unsigned char)r->buf[r->pos] >= 0x20 && i + 1 < cap)
        out[i++] = r->buf[r->pos++];
    if (r->pos >= r->len || r->buf[r->pos] != '"')
        return false;
    r->pos++;
    out[i] = '\0';
    return lit(r, ':');
}

/* The JSON number grammar -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? as a state
 * machine over one byte at a time (a number may be any length): the next state, or
 * -1 when the byte cannot follow. States: 0 start, 1 '-', 2 a leading 0, 3 integer
 * digits, 4 '.', 5 fraction digits, 6 'e', 7 exponent sign, 8 exponent digits. */
static int num_step(int st, char x)
{
    bool dig = x >= '0' && x <= '9';
    static const struct {
        int st;
        char c;     /* the byte, or 'd' for a digit, 'D' for 1-9 */
        int next;
    } tr[] = {{0, '-', 1}, {0, '0', 2}, {0, 'D', 3}, {1, '0', 2}, {1, 'D', 3}, {3, 'd', 3}, {2, '.', 4},
              {3, '.', 4}, {4, 'd', 5}, {5, 'd', 5}, {2, 'e', 6}, {3, 'e', 6}, {5, 'e', 6}, {2, 'E', 6},
              {3, 'E', 6}, {5, 'E', 6}, {6, '+', 7}, {6, '-', 7}, {6, 'd', 8}, {7, 'd', 8}, {8, 'd', 8}};
    for (size_t i = 0; i < sizeof tr / sizeof tr[0]; i++)
        if (tr[i].st == st && (tr[i].c == x || (tr[i].c == 'd' && dig) || (tr[i].c == 'D' && dig && x != '0')))
            return tr[i].next;
    return -1;
}

/* A scalar: a string (escapes allowed), a number, true/false/null. */
static bool skip_scalar(occ_rd *r)
{
    int c = peek(r);
    if (c == '"') {
        r->pos++;
        for (;;) {
            fill(r, 6);
            if (r->pos >= r->len)
                return false;
            char x = r->buf[r->pos++];
            if ((unsigned char)x < 0x20)
                return false; /* a raw control character: not JSON (the loader's verdict too) */
            if (x == '\\') {
                /* only JSON's escapes, \uXXXX with four hex digits (the loader refuses "\m") */
                if (r->pos >= r->len || !strchr("\"\\/bfnrtu", r->buf[r->pos]) || !r->buf[r->pos])
                    return false;
                if (r->buf[r->pos++] == 'u') {
                    for (int k = 0; k < 4; k++, r->pos++)
                        if (r->pos >= r->len || !isxdigit((unsigned char)r->buf[r->pos]))
                            return false;
                }
            } else if (x == '"') {
                return true;
            }
        }
    }
    /* true / false / null, or a number checked byte by byte: exactly what the loader takes */
    char tok[8];
    size_t n = 0;
    int st = 0;
    bool word = peek(r) >= 'a' && peek(r) <= 'z';
    for (;; n++) {
        fill(r, 1);
        if (r->pos >= r->len)
            break;
        char x = r->buf[r->pos];
        if (!((x >= '0' && x <= '9') || (x >= 'a' && x <= 'z') || x == '-' || x == '+' || x == '.' || x == 'E'))
            break;
        if (word && n + 1 < sizeof tok)
            tok[n] = x;
        else if (!word && (st = num_step(st, x)) < 0)
            return false;
        r->pos++;
    }
    if (word) {
        tok[n < sizeof tok ? n : sizeof tok - 1] = '\0';
        return n < sizeof tok && (!strcmp(tok, "true") || !strcmp(tok, "false") || !strcmp(tok, "null"));
    }
    return st == 2 || st == 3 || st == 5 || st == 8;
}

static bool int64_at(occ_rd *r, int64_t *v)
{
    peek(r);
    bool neg = r->pos < r->len && r->buf[r->pos] == '-';
    r->pos += neg;
    int64_t x = 0;
    int d = 0;
    if (r->pos + 1 < r->len && r->buf[r->pos] == '0' && r->buf[r->pos + 1] >= '0' && r->buf[r->pos + 1] <= '9')
        return false; /* a leading zero is not JSON */
    while (r->pos < r->len && r->buf[r->pos] >= '0' && r->buf[r->pos] <= '9' && d < 18) {
        x = x * 10 + (r->buf[r->pos++] - '0');
        d++;
    }
    if (d == 0 || (r->pos < r->len && ((r->buf[r->pos] >= '0' && r->buf[r->pos] <= '9') || r->buf[r->pos] == '.' ||
                                       r->buf[r->pos] == 'e' || r->buf[r->pos] == 'E')))
        return false; /* 19+ digits or a fraction: the loader decides */
    *v = neg ? -x : x;
    return true;
}

/* One row [int x 5+] into v[0..4]. */
static bool row(occ_rd *r, int64_t v[5])
{
    fill(r, OCC_ROW_MAX);
    if (!lit(r, '['))
        return false;
    int nv = 0;
    do {
        int64_t x;
        if (!int64_at(r, &x))
            return false;
        if (nv < 5)
            v[nv] = x;
        nv++;
    } while (lit(r, ','));
    return lit(r, ']') && nv >= 5;
}

typedef struct tie_group {
    fp_occ_event *ev;
    size_t n, cap;
} tie_group;

/* The events of one time: ends first, then starts, each in file order. */
static void flush(tie_group *g, int se, fp_occ_stream_fn fn, void *user)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < g->n; i++)
            if (g->ev[i].start == pass)
                fn(user, se, &g->ev[i]);
    g->n = 0;
}

static bool se_number(const char *k, int *se)
{
    size_t n = strlen(k);
    if (n == 0 || n > 6)
        return false;
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (k[i] < '0' || k[i] > '9')
            return false;
        v = v * 10 + (k[i] - '0');
    }
    *se = v;
    return true;
}

/* One SE's array: events in time order through fn. */
static bool se_series(occ_rd *r, int se, tie_group *g, fp_occ_stream_fn fn, void *user)
{
    fn(user, se, NULL);
    if (!lit(r, '['))
        return false;
    if (lit(r, ']'))
        return true;
    int64_t last = INT64_MIN;
    do {
        int64_t v[5];
        if (!row(r, v))
            return false;
        fp_occ_event e = {v[0], (int32_t)v[1], (int32_t)v[2], (int32_t)v[3], v[4] ? 1 : 0};
        if (e.time < last)
            return false; /* out of order: the loader sorts */
        if (g->n && e.time != last)
            flush(g, se, fn, user);
        last = e.time;
        FP_GROW(g->ev, g->n, g->cap);
        g->ev[g->n++] = e;
    } while (lit(r, ','));
    flush(g, se, fn, user);
    return lit(r, ']');
}

/* A non-SE member: a scalar or an object of scalars ("dispatches", "version"). */
static bool other_member(occ_rd *r)
{
    if (!lit(r, '{'))
        return skip_scalar(r);
    if (lit(r, '}'))
        return true;
    char k[64];
    do {
        if (!key(r, k, sizeof k) || !skip_scalar(r))
            return false;
    } while (lit(r, ','));
    return lit(r, '}');
}

static bool document(occ_rd *r, fp_occ_stream_fn fn, void *user)
{
    if (!lit(r, '{'))
        return false;
    if (lit(r, '}'))
        return peek(r) < 0;
    tie_group g = {0};
    int seen[64], nseen = 0;
    bool ok = true;
    do {
        char k[64];
        int se;
        if (!key(r, k, sizeof k)) {
            ok = false;
            break;
        }
        if (!se_number(k, &se)) {
            ok = other_member(r);
            continue;
        }
        for (int i = 0; i < nseen; i++)
            ok &= seen[i] != se; /* a repeated SE: the loader keeps both series */
        if (ok && nseen < 64)
            seen[nseen++] = se;
        ok = ok && nseen < 64 && se_series(r, se, &g, fn, user);
    } while (ok && lit(r, ','));
    free(g.ev);
    return ok && lit(r, '}') && peek(r) < 0;
}

int fp_occupancy_stream(const char *dir, fp_occ_stream_fn fn, void *user, fp_err *err)
{
    char *path = fp_path_join(dir, "occupancy.json");
    if (!fp_is_file(path)) {
        bool missing = access(path, F_OK) != 0;
        fp_err_set(err, missing ? FP_NO_ARTIFACT : FP_IO_ERROR, "%s: %s", path,
                   missing ? "no such file" : "not a regular file");
        free(path);
        return -1;
    }
    occ_rd *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    free(path);
    int rc = 1;
    if (r->fd >= 0) {
        rc = document(r, fn, user) ? 0 : 1;
        close(r->fd);
    }
    free(r);
    return rc;
}
