/*
 * codeobj.c - read the register/LDS counts of the kernels in an AMDGPU code
 * object (codeobj.h): libelf for the ELF, a bounded msgpack validator and then
 * msgpack-c for the NT_AMDGPU_METADATA note, the kernel descriptors by symbol.
 */
#include "flyprof/codeobj.h"

#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flyprof/fs.h"
#include "flyprof/mem.h"
#include "flyprof/strbuf.h"

#define EM_AMDGPU_ 224          /* EM_AMDGPU (not in every elf.h) */
#define NT_AMDGPU_METADATA_ 32  /* code object v3+ metadata note */
#define EF_AMDGPU_MACH_MASK 0xffu
#define KD_SIZE 64              /* sizeof(kernel_descriptor_t) */
#define MP_MAX_DEPTH 32         /* msgpack-c's own unpacker stack is 32 deep */
#define MAX_KERNELS 4096

/* EF_AMDGPU_MACH -> arch, with the kernel descriptor's VGPR granule and whether
 * RSRC3 carries ACCUM_OFFSET (unified VGPR/AGPR file: gfx90a, gfx94x, gfx95x).
 * Values from LLVM's ELF.h; gfx950 (0x4f) is there for objects LLVM 19 cannot
 * produce (tests patch a gfx942 object: docs/commands/capture.md). */
static const struct mach_row {
    unsigned mach;
    const char *name;
    int vgpr_granule;
    bool accum_offset;
} machs[] = {
    {0x2c, "gfx900", 4, false}, {0x2f, "gfx906", 4, false},  {0x30, "gfx908", 4, false},
    {0x3f, "gfx90a", 8, true},  {0x40, "gfx940", 8, true},   {0x4b, "gfx941", 8, true},
    {0x4c, "gfx942", 8, true},  {0x4f, "gfx950", 8, true},   {0x36, "gfx1030", 8, false},
    {0x41, "gfx1100", 8, false}, {0x48, "gfx1200", 8, false}, {0x4e, "gfx1201", 8, false},
};

static const struct mach_row *mach_row(unsigned mach)
{
    for (size_t i = 0; i < sizeof machs / sizeof machs[0]; i++)
        if (machs[i].mach == mach)
            return &machs[i];
    return NULL;
}

const char *fp_codeobj_mach_name(unsigned mach)
{
    const struct mach_row *r = mach_row(mach);
    return r ? r->name : NULL;
}

/* ---------- msgpack: a bounded walk before msgpack-c allocates anything ---------- */

static bool mp_need(size_t len, size_t off, size_t n) { return n <= len && off <= len - n; }

static uint64_t be(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* The bytes of a length field after the type byte (0 = none) and the payload
 * it implies (str/bin/ext) or the element count (array/map), by type byte. */
typedef enum { MP_SCALAR, MP_BYTES, MP_ARRAY, MP_MAP, MP_BAD } mp_kind;

static mp_kind mp_head(unsigned char t, int *lenbytes, uint64_t *fixed)
{
    *lenbytes = 0;
    *fixed = 0;
    if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3)
        return MP_SCALAR;
    if (t >= 0x80 && t <= 0x8f)
        return *fixed = t & 0x0f, MP_MAP;
    if (t >= 0x90 && t <= 0x9f)
        return *fixed = t & 0x0f, MP_ARRAY;
    if (t >= 0xa0 && t <= 0xbf)
        return *fixed = t & 0x1f, MP_BYTES;
    static const struct {
        unsigned char lo, hi;
        mp_kind kind;
        int lenbytes[4];   /* per t - lo */
        uint64_t fixed[5]; /* payload bytes that are not length-prefixed */
    } rows[] = {
        {0xc4, 0xc6, MP_BYTES, {1, 2, 4, 0}, {0}},           /* bin 8/16/32 */
        {0xc7, 0xc9, MP_BYTES, {1, 2, 4, 0}, {1, 1, 1}},     /* ext 8/16/32 (+ type byte) */
        {0xca, 0xcb, MP_BYTES, {0}, {4, 8}},                 /* float 32/64 */
        {0xcc, 0xcf, MP_BYTES, {0}, {1, 2, 4, 8}},           /* uint 8..64 */
        {0xd0, 0xd3, MP_BYTES, {0}, {1, 2, 4, 8}},           /* int 8..64 */
        {0xd4, 0xd8, MP_BYTES, {0}, {2, 3, 5, 9, 17}},       /* fixext 1..16 (+ type byte) */
        {0xd9, 0xdb, MP_BYTES, {1, 2, 4, 0}, {0}},           /* str 8/16/32 */
        {0xdc, 0xdd, MP_ARRAY, {2, 4, 0, 0}, {0}},           /* array 16/32 */
        {0xde, 0xdf, MP_MAP, {2, 4, 0, 0}, {0}},             /* map 16/32 */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (t >= rows[i].lo && t <= rows[i].hi) {
            int k = t - rows[i].lo;
            *lenbytes = k < 4 ? rows[i].lenbytes[k] : 0;
            *fixed = rows[i].fixed[k];
            return rows[i].kind;
        }
    return MP_BAD; /* 0xc1: never used */
}

/* One object at *off: well-formed, every declared size within len. */
static bool mp_check(const unsigned char *b, size_t len, size_t *off, int depth)
{
    if (depth > MP_MAX_DEPTH || !mp_need(len, *off, 1))
        return false;
    int lb;
    uint64_t n;
    mp_kind k = mp_head(b[(*off)++], &lb, &n);
    if (k == MP_BAD || !mp_need(len, *off, (size_t)lb))
        return false;
    if (lb) {
        n += be(b + *off, lb);
        *off += (size_t)lb;
    }
    if (k == MP_SCALAR)
        return true;
    if (k == MP_BYTES) {
        if (n > len || !mp_need(len, *off, (size_t)n))
            return false;
        *off += (size_t)n;
        return true;
    }
    uint64_t items = k == MP_MAP ? 2 * n : n;
    if (items > len - *off) /* each item takes at least one byte */
        return false;
    for (uint64_t i = 0; i < items; i++)
        if (!mp_check(b, len, off, depth + 1))
            return false;
    return true;
}

/* ---------- the metadata map ---------- */

static bool mp_str_eq(const msgpack_object *o, const char *s)
{
    size_t n = strlen(s);
    return o->type == MSGPACK_OBJECT_STR && o->via.str.size == n && !memcmp(o->via.str.ptr, s, n);
}

static char *mp_strdup(const msgpack_object *o)
{
    return o->type == MSGPACK_OBJECT_STR ? fp_xstrndup(o->via.str.ptr, o->via.str.size) : NULL;
}

static bool mp_int(const msgpack_object *o, long long *v)
{
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= (uint64_t)LLONG_MAX)
        return *v = (long long)o->via.u64, true;
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
        return *v = (long long)o->via.i64, true;
    return false;
}

/* The per-kernel keys read: a table, so a key is spelled once. */
typedef enum { K_INT, K_LL, K_STR } key_kind;
static const struct key_row {
    const char *key;
    key_kind kind;
    size_t off;
} kernel_keys[] = {
    {".name", K_STR, offsetof(fp_co_kernel, name)},
    {".symbol", K_STR, offsetof(fp_co_kernel, symbol)},
    {".vgpr_count", K_INT, offsetof(fp_co_kernel, vgpr_count)},
    {".agpr_count", K_INT, offsetof(fp_co_kernel, agpr_count)},
    {".sgpr_count", K_INT, offsetof(fp_co_kernel, sgpr_count)},
    {".wavefront_size", K_INT, offsetof(fp_co_kernel, wavefront_size)},
    {".max_flat_workgroup_size", K_INT, offsetof(fp_co_kernel, max_flat_workgroup_size)},
    {".group_segment_fixed_size", K_LL, offsetof(fp_co_kernel, group_segment_fixed_size)},
    {".private_segment_fixed_size", K_LL, offsetof(fp_co_kernel, private_segment_fixed_size)},
};

static void kernel_from_map(const msgpack_object *m, fp_co_kernel *k)
{
    memset(k, 0, sizeof *k);
    k->vgpr_count = k->agpr_count = k->sgpr_count = k->wavefront_size = k->max_flat_workgroup_size = -1;
    k->group_segment_fixed_size = k->private_segment_fixed_size = -1;
    k->kd_vgpr_alloc = k->kd_accum_offset = -1;
    for (uint32_t i = 0; i < m->via.map.size; i++) {
        const msgpack_object_kv *kv = &m->via.map.ptr[i];
        for (size_t r = 0; r < sizeof kernel_keys / sizeof kernel_keys[0]; r++) {
            const struct key_row *row = &kernel_keys[r];
            if (!mp_str_eq(&kv->key, row->key))
                continue;
            char *base = (char *)k + row->off;
            long long v;
            if (row->kind == K_STR && !*(char **)base) {
                *(char **)base = mp_strdup(&kv->val);
            } else if (row->kind != K_STR && mp_int(&kv->val, &v) && v >= 0 && v <= INT_MAX) {
                if (row->kind == K_INT)
                    *(int *)base = (int)v;
                else
                    *(long long *)base = v;
            }
            break;
        }
    }
}

static int metadata_read(const unsigned char *desc, size_t len, fp_codeobj *co, fp_err *err)
{
    size_t off = 0;
    if (!mp_check(desc, len, &off, 0))
        return fp_err_set(err, FP_BAD_INPUT, "the AMDGPU metadata note is not valid msgpack");
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t uoff = 0;
    int rc = 0;
    if (msgpack_unpack_next(&u, (const char *)desc, len, &uoff) != MSGPACK_UNPACK_SUCCESS ||
        u.data.type != MSGPACK_OBJECT_MAP) {
        rc = fp_err_set(err, FP_BAD_INPUT, "the AMDGPU metadata note is not a msgpack map");
    } else {
        const msgpack_object *kernels = NULL;
        for (uint32_t i = 0; i < u.data.via.map.size; i++) {
            const msgpack_object_kv *kv = &u.data.via.map.ptr[i];
            if (mp_str_eq(&kv->key, "amdhsa.target") && !co->target)
                co->target = mp_strdup(&kv->val);
            else if (mp_str_eq(&kv->key, "amdhsa.kernels") && kv->val.type == MSGPACK_OBJECT_ARRAY)
                kernels = &kv->val;
        }
        if (!kernels)
            rc = fp_err_set(err, FP_BAD_INPUT, "the AMDGPU metadata has no amdhsa.kernels list");
        for (uint32_t i = 0; rc == 0 && i < kernels->via.array.size && co->n < MAX_KERNELS; i++) {
            const msgpack_object *m = &kernels->via.array.ptr[i];
            if (m->type != MSGPACK_OBJECT_MAP)
                continue;
            co->k = realloc(co->k, (co->n + 1) * sizeof *co->k);
            if (!co->k)
                abort();
            kernel_from_map(m, &co->k[co->n]);
            if (co->k[co->n].name)
                co->n++;
            else
                free(co->k[co->n].symbol);
        }
    }
    msgpack_unpacked_destroy(&u);
    return rc;
}

/* ---------- the ELF ---------- */

/* The first NT_AMDGPU_METADATA note with owner "AMDGPU" in any SHT_NOTE section. */
static int find_note(Elf *e, fp_codeobj *co, fp_err *err)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d || !d->d_buf)
            continue;
        size_t off = 0, name_off, desc_off;
        GElf_Nhdr nh;
        while (off < d->d_size && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
            if (name_off > d->d_size || nh.n_namesz > d->d_size - name_off || desc_off > d->d_size ||
                nh.n_descsz > d->d_size - desc_off)
                break;
            const char *nm = (const char *)d->d_buf + name_off;
            if (nh.n_type == NT_AMDGPU_METADATA_ && nh.n_namesz >= 6 && !memcmp(nm, "AMDGPU", 6))
                return metadata_read((const unsigned char *)d->d_buf + desc_off, nh.n_descsz, co, err);
        }
    }
    return fp_err_set(err, FP_BAD_INPUT, "no NT_AMDGPU_METADATA note (not a code object v3+ AMDGPU ELF)");
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The 64 bytes at vaddr v, from the SHT_PROGBITS section that holds them. */
static const unsigned char *bytes_at(Elf *e, GElf_Addr v)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || v < sh.sh_addr || v - sh.sh_addr > sh.sh_size ||
            sh.sh_size - (v - sh.sh_addr) < KD_SIZE)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t o = (size_t)(v - sh.sh_addr);
        if (!d || !d->d_buf || d->d_off != 0 || d->d_size < o || d->d_size - o < KD_SIZE)
            return NULL;
        return (const unsigned char *)d->d_buf + o;
    }
    return NULL;
}

static void kd_fill(fp_co_kernel *k, const unsigned char *kd, const struct mach_row *mr)
{
    k->has_kd = true;
    k->kd_group_segment = le32(kd + 0);
    k->kd_private_segment = le32(kd + 4);
    k->rsrc3 = le32(kd + 44);
    k->rsrc1 = le32(kd + 48);
    k->rsrc2 = le32(kd + 52);
    int granule = mr ? mr->vgpr_granule : 4;
    k->kd_vgpr_alloc = (int)((k->rsrc1 & 0x3f) + 1) * granule;
    k->kd_accum_offset = mr && mr->accum_offset ? (int)((k->rsrc3 & 0x3f) + 1) * 4 : -1;
}

/* Each kernel's descriptor: the symbol `.symbol` (else `<name>.kd`) in any symbol table. */
static void find_descriptors(Elf *e, fp_codeobj *co)
{
    const struct mach_row *mr = mach_row(co->mach);
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t esz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
        if (!d || !esz)
            continue;
        for (size_t i = 0; i < d->d_size / esz; i++) {
            GElf_Sym sym;
            const char *nm = gelf_getsym(d, (int)i, &sym) ? elf_strptr(e, sh.sh_link, sym.st_name) : NULL;
            size_t ln = nm ? strlen(nm) : 0;
            if (ln < 4 || strcmp(nm + ln - 3, ".kd"))
                continue;
            for (size_t j = 0; j < co->n; j++) {
                fp_co_kernel *k = &co->k[j];
                bool match = k->symbol ? !strcmp(k->symbol, nm)
                                       : strlen(k->name) == ln - 3 && !strncmp(k->name, nm, ln - 3);
                const unsigned char *kd = match && !k->has_kd ? bytes_at(e, sym.st_value) : NULL;
                if (kd)
                    kd_fill(k, kd, mr);
            }
        }
    }
}

static int elf_read(char *img, size_t len, fp_codeobj *co, fp_err *err)
{
    if (elf_version(EV_CURRENT) == EV_NONE)
        return fp_err_set(err, FP_INTERNAL, "libelf: %s", elf_errmsg(-1));
    Elf *e = elf_memory(img, len);
    if (!e)
        return fp_err_set(err, FP_BAD_INPUT, "not an ELF file (%s)", elf_errmsg(-1));
    GElf_Ehdr eh;
    int rc = 0;
    if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || gelf_getclass(e) != ELFCLASS64)
        rc = fp_err_set(err, FP_BAD_INPUT, "not a 64-bit ELF file");
    else if (eh.e_machine != EM_AMDGPU_)
        rc = fp_err_set(err, FP_BAD_INPUT, "ELF machine %u is not EM_AMDGPU (224)", (unsigned)eh.e_machine);
    if (rc == 0) {
        co->mach = (unsigned)(eh.e_flags & EF_AMDGPU_MACH_MASK);
        const char *an = fp_codeobj_mach_name(co->mach);
        snprintf(co->arch, sizeof co->arch, "%s", an ? an : "");
        rc = find_note(e, co, err);
    }
    if (rc == 0)
        find_descriptors(e, co);
    elf_end(e);
    return rc;
}

int fp_codeobj_read_mem(const void *buf, size_t len, fp_codeobj *co, fp_err *err)
{
    memset(co, 0, sizeof *co);
    if (len > FP_CODEOBJ_MAX_BYTES)
        return fp_err_set(err, FP_BAD_INPUT, "code object of %zu bytes is larger than %u MiB", len,
                          FP_CODEOBJ_MAX_BYTES >> 20);
    /* libelf takes a mutable image; the caller's bytes stay untouched */
    char *img = malloc(len ? len : 1);
    if (!img)
        abort();
    memcpy(img, buf, len);
    int rc = elf_read(img, len, co, err);
    free(img);
    if (rc != 0)
        fp_codeobj_free(co);
    return rc;
}

int fp_codeobj_read(const char *path, fp_codeobj *co, fp_err *err)
{
    memset(co, 0, sizeof *co);
    fp_sb b;
    fp_sb_init(&b);
    if (fp_read_file(path, &b, err) != 0) {
        fp_sb_free(&b);
        return -1;
    }
    int rc = fp_codeobj_read_mem(b.buf, b.len, co, err);
    fp_sb_free(&b);
    if (rc != 0 && err && err->code == FP_BAD_INPUT) {
        char msg[sizeof err->message];
        snprintf(msg, sizeof msg, "%s", err->message);
        fp_err_set(err, FP_BAD_INPUT, "%s: %s", path, msg);
    }
    return rc;
}

void fp_codeobj_free(fp_codeobj *co)
{
    if (!co)
        return;
    for (size_t i = 0; i < co->n; i++) {
        free(co->k[i].name);
        free(co->k[i].symbol);
    }
    free(co->k);
    free(co->target);
    memset(co, 0, sizeof *co);
}

const fp_co_kernel *fp_codeobj_find(const fp_codeobj *co, const char *name)
{
    if (!name)
        return NULL;
    size_t ln = strlen(name);
    for (size_t i = 0; i < co->n; i++) {
        const fp_co_kernel *k = &co->k[i];
        if (!strcmp(k->name, name) || (k->symbol && !strcmp(k->symbol, name)) ||
            (k->symbol && strlen(k->symbol) == ln + 3 && !strncmp(k->symbol, name, ln) &&
             !strcmp(k->symbol + ln, ".kd")))
            return k;
    }
    return NULL;
}

/* "<prefix>_<gfx>_code_object_id_<n>.out" -> n, else -1. */
static long co_file_id(const char *name)
{
    static const char tag[] = "_code_object_id_";
    const char *p = strstr(name, tag);
    size_t ln = strlen(name);
    if (!p || ln < 4 || strcmp(name + ln - 4, ".out"))
        return -1;
    char *end;
    long id = strtol(p + sizeof tag - 1, &end, 10);
    return end == name + ln - 4 && id >= 0 ? id : -1;
}

/* 1: an ELF that mentions kernel somewhere (its symbol and note hold the name),
 * 0: an ELF that does not (a library's code object: not parsed), -1: no ELF.
 * rocprofv3 writes EVERY loaded code object (math libraries: hundreds of MiB),
 * so the name is looked for in the mapped bytes before anything is parsed. */
static int elf_mentions(const char *path, const char *kernel)
{
    fp_file_view v;
    fp_err e = {0};
    if (fp_file_map(path, &v, &e) != 0) {
        fp_err_clear(&e);
        return -1;
    }
    int r = v.len >= 4 && !memcmp(v.data, "\177ELF", 4) ? 0 : -1;
    if (r == 0 && kernel[0] && memmem(v.data, v.len, kernel, strlen(kernel)))
        r = 1;
    fp_file_unmap(&v);
    return r;
}

int fp_codeobj_find_in_dir(const char *dir, const char *kernel, fp_codeobj *co, const fp_co_kernel **k,
                           char **path, size_t *nbad)
{
    memset(co, 0, sizeof *co);
    *k = NULL;
    *path = NULL;
    *nbad = 0;
    char **names = NULL;
    size_t n = 0;
    fp_err e = {0};
    if (fp_list_dir(dir, &names, &n, &e) != 0) {
        fp_err_clear(&e);
        return 0;
    }
    /* ascending id: the kernel's own object is normally loaded (and numbered) once */
    long best = -1;
    for (long want = 0; !*k && want >= 0;) {
        long next = -1;
        for (size_t i = 0; i < n; i++) {
            long id = co_file_id(names[i]);
            if (id >= want && (next < 0 || id < co_file_id(names[next])))
                next = (long)i;
        }
        if (next < 0)
            break;
        best = co_file_id(names[next]);
        char *p = fp_path_join(dir, names[next]);
        fp_codeobj one;
        int m = elf_mentions(p, kernel);
        if (m <= 0) {
            /* not an ELF (a test double's stand-in), or one without the kernel: nothing to read */
        } else if (fp_codeobj_read(p, &one, &e) != 0) {
            (*nbad)++;
            fp_err_clear(&e);
        } else if ((*k = fp_codeobj_find(&one, kernel)) != NULL) {
            *co = one;
            *path = p;
            p = NULL;
        } else {
            fp_codeobj_free(&one);
        }
        free(p);
        want = best + 1;
    }
    fp_strv_free(names, n);
    return *k ? 1 : 0;
}
