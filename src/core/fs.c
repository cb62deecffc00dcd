/*
 * fs.c - file reads with a cap, atomic writes, sorted directory listings.
 */
#include "flyprof/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool fp_is_dir(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool fp_is_file(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : "not a regular file";
}

/* Open an input file for reading, refusing anything but a regular file.
 * O_NONBLOCK: open() of a FIFO with no writer would otherwise block forever
 * (and a read of a character device like /dev/zero never ends); regular files
 * ignore the flag, so reads stay plain blocking reads. Returns the fd, or -1
 * with err set. */
static int open_regular(const char *path, struct stat *st, fp_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return fp_err_set(err, FP_NO_ARTIFACT, "%s: no such file", path);
        return fp_err_set(err, FP_IO_ERROR, "%s: cannot open: %s", path, strerror(errno));
    }
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        return fp_err_set(err, FP_IO_ERROR, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        return fp_err_set(err, FP_IO_ERROR, "%s: not a regular file (%s)", path, kind_of(st->st_mode));
    }
    return fd;
}

int fp_read_file(const char *path, fp_sb *sb, fp_err *err)
{
    struct stat st;
    int fd = open_regular(path, &st, err);
    if (fd < 0)
        return -1;
    if ((size_t)st.st_size > FP_MAX_INPUT_FILE) {
        close(fd);
        return fp_err_set(err, FP_BAD_INPUT, "%s: %lld bytes is larger than the %zu-byte input limit",
                          path, (long long)st.st_size, FP_MAX_INPUT_FILE);
    }
    /* Size the buffer once from fstat (+1 page so EOF is seen without a regrow):
     * growing by doubling would copy multi-MB trace files and fault in twice the pages. */
    fp_sb_grow(sb, (size_t)st.st_size + 4096);
    for (;;) {
        if (sb->cap - sb->len - 1 == 0)
            fp_sb_grow(sb, 65536);
        ssize_t n = read(fd, sb->buf + sb->len, sb->cap - sb->len - 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            return fp_err_set(err, FP_IO_ERROR, "%s: read failed: %s", path, strerror(e));
        }
        if (n == 0)
            break;
        sb->len += (size_t)n;
        if (sb->len > FP_MAX_INPUT_FILE) {
            close(fd);
            return fp_err_set(err, FP_BAD_INPUT, "%s: larger than the input limit", path);
        }
    }
    sb->buf[sb->len] = '\0';
    close(fd);
    return 0;
}

int fp_mkdir_p(const char *path, fp_err *err)
{
    char *p = strdup(path);
    if (!p)
        abort();
    size_t len = strlen(p);
    for (size_t i = 1; i <= len; i++) {
        if (p[i] == '/' || p[i] == '\0') {
            char c = p[i];
            p[i] = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                int e = errno;
                fp_err_set(err, FP_IO_ERROR, "cannot create directory %s: %s", p, strerror(e));
                free(p);
                return -1;
            }
            p[i] = c;
        }
    }
    free(p);
    if (!fp_is_dir(path))
        return fp_err_set(err, FP_IO_ERROR, "%s exists and is not a directory", path);
    return 0;
}

/* Create a fresh temp file next to path: "<path>.tmp.<pid>.<random>" opened with
 * O_CREAT|O_EXCL|O_NOFOLLOW, so a name planted in advance (a symlink to a file the
 * user owns, or another writer's temp file when two hosts/containers share a pid)
 * is never opened: EEXIST just draws another name. Mode 0666 & ~umask as before.
 * Returns the fd with tmp holding the name, or -1 with errno set. */
static int open_fresh_temp(const char *path, fp_sb *tmp)
{
    for (int attempt = 0; attempt < 64; attempt++) {
        /* the random part only avoids collisions; O_EXCL is what makes it safe */
        unsigned long r = 0;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            r = (unsigned long)ts.tv_nsec * 2654435761UL + (unsigned long)attempt;
        }
        tmp->len = 0;
        fp_sb_addf(tmp, "%s.tmp.%ld.%08lx", path, (long)getpid(), r & 0xffffffffUL);
        int fd = open(tmp->buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

int fp_write_atomic_fn(const char *path, int (*fill)(int fd, void *ctx), void *ctx, fp_err *err)
{
    char *dir = strdup(path);
    if (!dir)
        abort();
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        if (fp_mkdir_p(dir, err) != 0) {
            free(dir);
            return -1;
        }
    }
    free(dir);
    fp_sb tmp;
    fp_sb_init(&tmp);
    int fd = open_fresh_temp(path, &tmp);
    if (fd < 0) {
        fp_err_set(err, FP_IO_ERROR, "cannot write %s: %s", path, strerror(errno));
        fp_sb_free(&tmp);
        return -1;
    }
    int e = fill(fd, ctx);
    if (e) {
        close(fd);
        unlink(tmp.buf);
        fp_err_set(err, FP_IO_ERROR, "cannot write %s: %s", path, strerror(e));
        fp_sb_free(&tmp);
        return -1;
    }
    if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
        e = errno;
        close(fd);
        unlink(tmp.buf);
        fp_err_set(err, FP_IO_ERROR, "cannot sync %s: %s", path, strerror(e));
        fp_sb_free(&tmp);
        return -1;
    }
    close(fd);
    /* rename() replaces a symlink at path by the new file; it never writes
     * through it, so a symlinked artifact cannot redirect the write. */
    if (rename(tmp.buf, path) != 0) {
        e = errno;
        unlink(tmp.buf);
        fp_err_set(err, FP_IO_ERROR, "cannot rename into %s: %s", path, strerror(e));
        fp_sb_free(&tmp);
        return -1;
    }
    fp_sb_free(&tmp);
    return 0;
}

typedef struct bytes {
    const char *p;
    size_t len;
} bytes;

static int fill_bytes(int fd, void *ctx)
{
    const bytes *b = ctx;
    const char *p = b->p;
    size_t left = b->len;
    while (left) {
        ssize_t n = write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        p += n;
        left -= (size_t)n;
    }
    return 0;
}

int fp_write_atomic(const char *path, const void *data, size_t len, fp_err *err)
{
    bytes b = {data, len};
    return fp_write_atomic_fn(path, fill_bytes, &b, err);
}

char *fp_path_join(const char *a, const char *b)
{
    fp_sb sb;
    fp_sb_init(&sb);
    fp_sb_adds(&sb, a);
    while (sb.len > 1 && sb.buf[sb.len - 1] == '/')
        sb.buf[--sb.len] = '\0';
    if (sb.len && b[0] && sb.buf[sb.len - 1] != '/')
        fp_sb_addc(&sb, '/');
    while (*b == '/' && sb.len)
        b++;
    fp_sb_adds(&sb, b);
    return fp_sb_detach(&sb);
}

const char *fp_path_base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

char *fp_path_abs(const char *path)
{
    char buf[PATH_MAX];
    if (realpath(path, buf)) {
        char *r = strdup(buf);
        if (!r)
            abort();
        return r;
    }
    if (path[0] == '/') {
        char *r = strdup(path);
        if (!r)
            abort();
        return r;
    }
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        strcpy(cwd, ".");
    return fp_path_join(cwd, path);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int fp_list_dir(const char *dir, char ***names, size_t *count, fp_err *err)
{
    *names = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT || errno == ENOTDIR)
            return fp_err_set(err, FP_NO_ARTIFACT, "%s: no such directory", dir);
        return fp_err_set(err, FP_IO_ERROR, "%s: cannot list: %s", dir, strerror(errno));
    }
    size_t cap = 0, n = 0;
    char **v = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            char **nv = realloc(v, cap * sizeof *v);
            if (!nv)
                abort();
            v = nv;
        }
        v[n] = strdup(e->d_name);
        if (!v[n])
            abort();
        n++;
    }
    closedir(d);
    if (n)
        qsort(v, n, sizeof *v, cmp_str);
    *names = v;
    *count = n;
    return 0;
}

void fp_strv_free(char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

bool fp_is_plain_name(const char *name)
{
    if (!name || !name[0] || !strcmp(name, ".") || !strcmp(name, ".."))
        return false;
    return strchr(name, '/') == NULL && strchr(name, '\\') == NULL;
}

int fp_file_map(const char *path, fp_file_view *v, fp_err *err)
{
    memset(v, 0, sizeof *v);
    fp_sb_init(&v->copy_);
    struct stat st;
    int fd = open_regular(path, &st, err);
    if (fd < 0)
        return -1;
    if (st.st_size > 0 && (size_t)st.st_size <= FP_MAX_INPUT_FILE) {
        /* MAP_POPULATE: map every page now, in one call, instead of one fault per page. */
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (m != MAP_FAILED) {
            close(fd);
            v->map_ = m;
            v->data = m;
            v->len = (size_t)st.st_size;
            return 0;
        }
    }
    close(fd);
    if (fp_read_file(path, &v->copy_, err) != 0)
        return -1;
    v->data = v->copy_.buf;
    v->len = v->copy_.len;
    return 0;
}

void fp_file_unmap(fp_file_view *v)
{
    if (v->map_)
        munmap(v->map_, v->len);
    fp_sb_free(&v->copy_);
    memset(v, 0, sizeof *v);
    fp_sb_init(&v->copy_);
}
