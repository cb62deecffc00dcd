/*
 * strtab.c - see strtab.h. Linear probing; the table only grows.
 */
#include "flyprof/strtab.h"

#include <stdlib.h>
#include <string.h>

uint64_t fp_strtab_hash(const char *s, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    for (; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

fp_strtab_slot *fp_strtab_get(const fp_strtab *t, const char *key, size_t n, uint64_t hash)
{
    if (!t->cap)
        return NULL;
    for (size_t k = (size_t)hash & (t->cap - 1);; k = (k + 1) & (t->cap - 1)) {
        fp_strtab_slot *s = &t->slots[k];
        if (!s->key)
            return NULL;
        if (s->hash == hash && s->len == n && !memcmp(s->key, key, n))
            return s;
    }
}

static void place(fp_strtab_slot *slots, size_t cap, const fp_strtab_slot *e)
{
    size_t k = (size_t)e->hash & (cap - 1);
    while (slots[k].key)
        k = (k + 1) & (cap - 1);
    slots[k] = *e;
}

void fp_strtab_put(fp_strtab *t, const char *key, size_t n, uint64_t hash, size_t val)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        fp_strtab_slot *ns = calloc(cap, sizeof *ns);
        if (!ns)
            abort();
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i].key)
                place(ns, cap, &t->slots[i]);
        free(t->slots);
        t->slots = ns;
        t->cap = cap;
    }
    fp_strtab_slot e = {key, n, hash, val};
    place(t->slots, t->cap, &e);
    t->n++;
}

void fp_strtab_free(fp_strtab *t)
{
    free(t->slots);
    memset(t, 0, sizeof *t);
}
