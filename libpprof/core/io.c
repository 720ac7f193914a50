/* Files and buffers: capped whole-file reads, atomic writes (devices, FIFOs and sockets
 * written in place, symlinks followed), growable output buffers. */
#define _GNU_SOURCE /* sync_file_range */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "par-private.h"
#include "profile-private.h"

/* A large file's bytes are read in parts side by side: copying them and touching the fresh
 * buffer's pages is most of a read, and both split. */
#define READ_PART_MIN ((size_t)4 << 20)
#define READ_MAX_PARTS 8

typedef struct read_part {
    size_t off, len, got; /* got < len: the file ended (or failed) there */
    int err;
} read_part;

typedef struct read_job {
    int fd;
    uint8_t *buf;
    read_part part[READ_MAX_PARTS];
} read_job;

static void
read_part_run(void *ctx, size_t t, size_t lo, size_t hi)
{
    read_job *j = ctx;
    read_part *r = &j->part[t];
    *r = (read_part){.off = lo, .len = hi - lo};
    while (r->got < r->len) {
        ssize_t k =
            pread(j->fd, j->buf + r->off + r->got, r->len - r->got, (off_t)(r->off + r->got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            r->err = errno;
        if (k <= 0)
            return;
        r->got += (size_t)k;
    }
}

/* The first size bytes of fd into buf in up to `threads` parts; the bytes read before the
 * first part that came short, and fd's offset moved past them. */
static bool
read_in_parts(int fd, uint8_t *buf, size_t size, unsigned threads, size_t *n, int *err)
{
    unsigned most = threads < READ_MAX_PARTS ? threads : READ_MAX_PARTS;
    read_job j = {.fd = fd, .buf = buf};
    size_t k = pprof__par_parts(most, size, READ_PART_MIN);
    pprof__pool *pool = k > 1 ? pprof__pool_new((unsigned)k - 1) : NULL;
    k = pprof__par_for_parts(pool, most, size, READ_PART_MIN, "pprof-read", read_part_run, &j);
    pprof__pool_free(pool);
    *n = 0;
    *err = 0;
    for (size_t t = 0; t < k; t++) {
        *n += j.part[t].got;
        if (j.part[t].err) {
            *err = j.part[t].err;
            return false;
        }
        if (j.part[t].got < j.part[t].len)
            break; /* the file shrank: what follows is not its content */
    }
    return lseek(fd, (off_t)*n, SEEK_SET) == (off_t)*n || (*err = errno, false);
}

pprof_status
pprof__read_all(const char *path, uint64_t max, const pprof_allocator *a, uint8_t **out,
                size_t *len, pprof_error *err)
{
    return pprof__read_all_threads(path, max, a, 1, out, len, err);
}

pprof_status
pprof__read_all_threads(const char *path, uint64_t max, const pprof_allocator *a, unsigned threads,
                        uint8_t **out, size_t *len, pprof_error *err)
{
    bool is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pprof__error(err, PPROF_E_IO, PPROF_NO_OFFSET, "", "cannot open: %s",
                            strerror(errno));
    struct stat sb;
    size_t cap = 1 << 16;
    if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        if (!is_stdin)
            close(fd);
        return pprof__error(err, PPROF_E_IO, PPROF_NO_OFFSET, "", "is a directory");
    }
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
        if ((uint64_t)sb.st_size > max) {
            if (!is_stdin)
                close(fd);
            return pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                                "file of %lld bytes exceeds the input limit of %llu bytes",
                                (long long)sb.st_size, (unsigned long long)max);
        }
        cap = (size_t)sb.st_size + 1;
    }
    uint8_t *buf = pprof__malloc(a, cap);
    size_t n = 0;
    pprof_status st = PPROF_OK;
    if (!buf) {
        st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        goto done;
    }
    /* the rest (what the file grew by since fstat, or its end) is read as any file's */
    int perr;
    if (!is_stdin && threads > 1 && cap - 1 >= 2 * READ_PART_MIN &&
        !read_in_parts(fd, buf, cap - 1, threads, &n, &perr)) {
        st = pprof__error(err, PPROF_E_IO, n, "", "read failed: %s", strerror(perr));
        goto done;
    }
    for (;;) {
        if (n == cap) {
            if (cap > max) {
                st = pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                                  "input exceeds the limit of %llu bytes", (unsigned long long)max);
                goto done;
            }
            size_t nc = cap * 2;
            uint8_t *nb = pprof__realloc(a, buf, nc);
            if (!nb) {
                st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
                goto done;
            }
            buf = nb;
            cap = nc;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            st = pprof__error(err, PPROF_E_IO, n, "", "read failed: %s", strerror(errno));
            goto done;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    if (n > max)
        st = pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                          "input exceeds the limit of %llu bytes", (unsigned long long)max);
done:
    if (!is_stdin)
        close(fd);
    if (st) {
        pprof__free(a, buf);
        return st;
    }
    *out = buf;
    *len = n;
    return PPROF_OK;
}

static bool
write_full(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Names that mean this process's standard output whatever it is (a terminal, a pipe or a
 * file opened for appending): written through the descriptor, never replaced. */
static bool
is_stdout_name(const char *path)
{
    return strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0 ||
           strcmp(path, "/dev/fd/1") == 0 || strcmp(path, "/proc/self/fd/1") == 0;
}

/* The file that replacing path must replace: its last component's symbolic links followed, so
 * that the link stays and its target gets the new content. *out is NULL when path is not a
 * link; a dangling link resolves to the file it would name. */
static pprof_status
resolve_links(const char *path, char **out, pprof_error *err)
{
    *out = NULL;
    char *cur = NULL;
    const char *p = path;
    for (int hops = 0;; hops++) {
        struct stat sb;
        if (lstat(p, &sb) != 0 || !S_ISLNK(sb.st_mode))
            break;
        char link[4096];
        ssize_t n = hops < 40 ? readlink(p, link, sizeof(link) - 1) : -1;
        if (n < 0) {
            free(cur);
            return pprof__error(err, PPROF_E_IO, PPROF_NO_OFFSET, "", "cannot follow the link: %s",
                                strerror(hops < 40 ? errno : ELOOP));
        }
        link[n] = 0;
        const char *slash = strrchr(p, '/');
        size_t dirlen = link[0] != '/' && slash ? (size_t)(slash - p) + 1 : 0;
        char *next = malloc(dirlen + (size_t)n + 1);
        if (!next) {
            free(cur);
            return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        }
        memcpy(next, p, dirlen);
        memcpy(next + dirlen, link, (size_t)n + 1);
        free(cur);
        p = cur = next;
    }
    *out = cur;
    return PPROF_OK;
}

/* A device, FIFO or socket is written in place: renaming a regular file over it would replace
 * it for everyone (as root, /dev/null itself). */
static pprof_status
open_special(pprof__out_file *o, const struct stat *sb, pprof_error *err)
{
    if (S_ISDIR(sb->st_mode))
        return pprof__error(err, PPROF_E_IO, PPROF_NO_OFFSET, "", "is a directory");
    if (S_ISSOCK(sb->st_mode)) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        if (strlen(o->path) >= sizeof(sa.sun_path))
            return pprof__error(err, PPROF_E_IO, PPROF_NO_OFFSET, "",
                                "socket path too long to connect to");
        memcpy(sa.sun_path, o->path, strlen(o->path) + 1);
        o->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (o->fd >= 0 && connect(o->fd, (const struct sockaddr *)&sa, sizeof(sa)) != 0) {
            int e = errno;
            close(o->fd);
            o->fd = -1;
            errno = e;
        }
    } else {
        o->fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    }
    if (o->fd < 0)
        return pprof__error(err, PPROF_E_IO, PPROF_NO_OFFSET, "", "cannot open: %s",
                            strerror(errno));
    o->own_fd = true;
    return PPROF_OK;
}

pprof_status
pprof__out_open(const char *path, const pprof_write_options *opts, pprof__out_file *o,
                pprof_error *err)
{
    memset(o, 0, sizeof(*o));
    o->fd = -1;
    if (!path)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no path");
    o->path = path;
    if (opts && opts->struct_size >=
                    offsetof(pprof_write_options, temporary_ctx) + sizeof(opts->temporary_ctx)) {
        o->on_temporary = opts->on_temporary;
        o->temporary_ctx = opts->temporary_ctx;
    }
    if (is_stdout_name(path)) {
        o->fd = STDOUT_FILENO;
        return PPROF_OK;
    }
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return open_special(o, &sb, err);
    pprof_status st = resolve_links(path, &o->target, err);
    if (st)
        return st;
    const char *target = o->target ? o->target : path;
    /* temp file in the target's directory, so rename() stays on one file system */
    size_t plen = strlen(target);
    if (!(o->tmp = malloc(plen + 64))) {
        free(o->target);
        o->target = NULL;
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    const char *slash = strrchr(target, '/');
    size_t dirlen = slash ? (size_t)(slash - target) + 1 : 0;
    memcpy(o->tmp, target, dirlen);
    /* O_EXCL with mode 0666 lets the kernel apply the umask; no process-wide umask dance */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    for (unsigned attempt = 0; o->fd < 0 && attempt < 100; attempt++) {
        snprintf(o->tmp + dirlen, plen + 64 - dirlen, ".%s.%ld.%lx%u", slash ? slash + 1 : target,
                 (long)getpid(), (unsigned long)ts.tv_nsec, attempt);
        /* announced before it exists: a signal that comes between open and the announcement
         * would otherwise leave the file behind (removing a name not yet created is harmless) */
        if (o->on_temporary)
            o->on_temporary(o->temporary_ctx, o->tmp);
        o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (o->fd < 0 && o->on_temporary)
            o->on_temporary(o->temporary_ctx, NULL);
        if (o->fd < 0 && errno != EEXIST)
            break;
    }
    if (o->fd < 0) {
        st = pprof__error(err, PPROF_E_IO, PPROF_NO_OFFSET, "",
                          "cannot create a temporary file beside it: %s", strerror(errno));
        free(o->tmp);
        free(o->target);
        o->tmp = o->target = NULL;
        return st;
    }
    return PPROF_OK;
}

bool
pprof__out_write(pprof__out_file *o, const void *data, size_t n)
{
    if (o->errnum)
        return false;
    if (!write_full(o->fd, data, n)) {
        o->errnum = errno ? errno : EIO;
        return false;
    }
#ifdef SYNC_FILE_RANGE_WRITE
    /* Start writing back what is there now, so that the fsync at the end waits for the tail
     * only; advice: a failure here shows up at fsync. */
    if (o->tmp)
        sync_file_range(o->fd, (off_t)o->written, (off_t)n, SYNC_FILE_RANGE_WRITE);
#endif
    o->written += n;
    return true;
}

/* The temporary is announced gone only once it is: a signal handler that removes it in between
 * finds nothing left to remove. */
static void
forget_temporary(pprof__out_file *o)
{
    if (o->on_temporary)
        o->on_temporary(o->temporary_ctx, NULL);
    free(o->tmp);
    free(o->target);
    o->tmp = o->target = NULL;
}

void
pprof__out_abort(pprof__out_file *o)
{
    if (o->tmp) {
        if (o->fd >= 0)
            close(o->fd);
        unlink(o->tmp);
        forget_temporary(o);
    } else if (o->own_fd && o->fd >= 0) {
        close(o->fd);
    }
    o->own_fd = false;
    o->fd = -1;
}

pprof_status
pprof__out_commit(pprof__out_file *o, pprof_error *err)
{
    int saved = o->errnum;
    bool ok = saved == 0;
    if (ok && o->tmp) {
        /* a file being replaced keeps its mode */
        const char *target = o->target ? o->target : o->path;
        struct stat sb;
        ok =
            (stat(target, &sb) != 0 || fchmod(o->fd, sb.st_mode & 07777) == 0) && fsync(o->fd) == 0;
        saved = errno;
        ok = close(o->fd) == 0 && ok;
        o->fd = -1;
        if (ok && rename(o->tmp, target) != 0) {
            saved = errno;
            ok = false;
        }
        if (ok)
            forget_temporary(o);
    } else if (ok && o->own_fd) {
        /* a device or FIFO: what close reports is all there is to know */
        ok = close(o->fd) == 0;
        saved = errno;
        o->own_fd = false;
        o->fd = -1;
    }
    if (ok)
        return PPROF_OK;
    pprof__out_abort(o);
    if (is_stdout_name(o->path))
        return pprof__error(err, PPROF_E_IO, PPROF_NO_OFFSET, "",
                            "cannot write standard output: %s", strerror(saved));
    return pprof__error(err, PPROF_E_IO, PPROF_NO_OFFSET, "", "cannot write: %s", strerror(saved));
}

pprof_status
pprof__stream_write(FILE *stream, const void *data, size_t size, pprof_error *err)
{
    if (!stream || (!data && size))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no stream or no data");
    if ((size && fwrite(data, 1, size, stream) != size) || fflush(stream) != 0)
        return pprof__error(err, PPROF_E_IO, PPROF_NO_OFFSET, "", "cannot write the stream: %s",
                            strerror(errno ? errno : EIO));
    return PPROF_OK;
}

pprof_status
pprof__buffer_write_stream(FILE *stream, pprof_status st, pprof_buffer *b, pprof_error *err)
{
    if (st == PPROF_OK)
        st = pprof__stream_write(stream, b->data, b->len, err);
    pprof_buffer_free(b);
    return st;
}

pprof_status
pprof__buffer_write_file(const char *path, const pprof_write_options *wopts, pprof_status st,
                         pprof_buffer *b, pprof_error *err)
{
    if (st == PPROF_OK)
        st = pprof_bytes_write_file(b->data, b->len, wopts, path, err);
    pprof_buffer_free(b);
    return st;
}

pprof_status
pprof_bytes_write_file(const void *data, size_t size, const pprof_write_options *opts,
                       const char *path, pprof_error *err)
{
    if (!path || (!data && size))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no path or no data");
    pprof__out_file o;
    pprof_status st = pprof__out_open(path, opts, &o, err);
    if (st)
        return st;
    pprof__out_write(&o, data, size);
    return pprof__out_commit(&o, err);
}

/* ---- deprecated names, kept for one release (pprof.h) */

pprof_status
pprof_write_bytes_atomic(const char *path, const void *data, size_t size, pprof_error *err)
{
    return pprof_bytes_write_file(data, size, NULL, path, err);
}

pprof_status
pprof_write_bytes_file(const char *path, const void *data, size_t size,
                       const pprof_write_options *opts, pprof_error *err)
{
    return pprof_bytes_write_file(data, size, opts, path, err);
}
