/* Files: capped reads, atomic writes that replace a file only on success (also when the output is
 * the input), modes kept, no temporary files left behind. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pb.h"
#include "testutil.h"

static char dir[256];

static void
path_in(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

/* Number of directory entries other than . and .. */
static int
entries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    if (d)
        closedir(d);
    return n;
}

static bool
file_is(const char *path, const void *data, size_t n)
{
    size_t len;
    uint8_t *b = tu_read_file(path, &len);
    bool ok = b && len == n && (n == 0 || memcmp(b, data, n) == 0);
    free(b);
    return ok;
}

static pb
small_profile(const char *name)
{
    pb b = {0}, s = {0};
    pb_str(&b, 6, "");
    pb_str(&b, 6, name);
    pb_v(&s, 1, 1);
    pb_v(&s, 2, 1);
    pb_msg_free(&b, 5, &s);
    return b;
}

static void
test_atomic(tap *t)
{
    char p[512];
    path_in(p, sizeof(p), "out.pb");
    pprof_error err;
    tap_ok(t,
           pprof_bytes_write_file("first", 5, NULL, p, &err) == PPROF_OK && file_is(p, "first", 5),
           "a new file is written");
    chmod(p, 0640);
    tap_ok(t,
           pprof_bytes_write_file("second!", 7, NULL, p, &err) == PPROF_OK &&
               file_is(p, "second!", 7),
           "an existing file is replaced");
    struct stat sb;
    tap_ok(t, stat(p, &sb) == 0 && (sb.st_mode & 07777) == 0640, "its mode 0640 is kept (%o)",
           (unsigned)(sb.st_mode & 07777));
    tap_ok(t, entries() == 1, "no temporary file is left after success");

    /* a write that fails half way (file size limit) leaves the old content alone */
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 4096;
    signal(SIGXFSZ, SIG_IGN);
    static uint8_t big[16384];
    memset(big, 'x', sizeof(big));
    bool set = setrlimit(RLIMIT_FSIZE, &lim) == 0;
    pprof_status st = pprof_bytes_write_file(big, sizeof(big), NULL, p, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    tap_ok(t, set && st == PPROF_E_IO && err.code == PPROF_E_IO && err.message[0],
           "a write that runs out of space fails with PPROF_E_IO (%s)", err.message);
    tap_ok(t, file_is(p, "second!", 7) && stat(p, &sb) == 0 && (sb.st_mode & 07777) == 0640,
           "the old content and mode survive the failure");
    tap_ok(t, entries() == 1, "no temporary file is left after a failure");

    char missing[512];
    path_in(missing, sizeof(missing), "no-such-dir/out.pb");
    tap_ok(t, pprof_bytes_write_file("x", 1, NULL, missing, &err) == PPROF_E_IO,
           "a path in a missing directory: PPROF_E_IO");
    /* a directory in the way: rename fails and nothing changes */
    char sub[512];
    path_in(sub, sizeof(sub), "sub");
    mkdir(sub, 0755);
    tap_ok(t,
           pprof_bytes_write_file("x", 1, NULL, sub, &err) == PPROF_E_IO && stat(sub, &sb) == 0 &&
               S_ISDIR(sb.st_mode) && entries() == 2,
           "a directory is not replaced, no temporary file left");
    rmdir(sub);
    tap_ok(t, pprof_bytes_write_file("x", 1, NULL, NULL, &err) == PPROF_E_ARG, "NULL path");
    tap_ok(t, pprof_bytes_write_file(NULL, 1, NULL, p, &err) == PPROF_E_ARG, "NULL data");
    tap_ok(t, pprof_bytes_write_file(NULL, 0, NULL, p, &err) == PPROF_OK && file_is(p, "", 0),
           "zero bytes make an empty file");
    unlink(p);
}

/* Reading a file and writing the profile back to the same path. */
static void
test_same_path(tap *t)
{
    char p[512];
    path_in(p, sizeof(p), "same.pb");
    pb raw = small_profile("f");
    pprof_buffer gz = {0};
    pprof__compress(raw.d, raw.n, PPROF_FORMAT_GZIP, 6, 1, NULL, &gz, NULL);
    pprof_bytes_write_file(gz.data, gz.len, NULL, p, NULL);
    chmod(p, 0604);
    pprof_profile *in = NULL, *back = NULL;
    pprof_error err;
    bool ok = pprof_profile_read_file(p, NULL, &in, &err) == PPROF_OK;
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_ZSTD;
    ok = ok && pprof_profile_write_file(in, &w, p, &err) == PPROF_OK;
    ok = ok && pprof_profile_read_file(p, NULL, &back, &err) == PPROF_OK;
    struct stat sb;
    tap_ok(t,
           ok && pprof_profile_source_format(back) == PPROF_FORMAT_ZSTD &&
               pprof_profile_equal(in, back) && stat(p, &sb) == 0 && (sb.st_mode & 07777) == 0604 &&
               entries() == 1,
           "output path == input path: replaced by the new encoding, mode kept");

    /* a profile that cannot be written leaves the input untouched */
    pb bad = {0}, s = {0};
    pb_str(&bad, 6, "");
    pb_v(&s, 2, 77);
    pb_msg_free(&bad, 5, &s);
    pprof_profile *bp = NULL;
    tu_decode_raw(bad.d, bad.n, NULL, &bp, NULL);
    size_t before_len;
    uint8_t *before = tu_read_file(p, &before_len);
    pprof_status st = pprof_profile_write_file(bp, NULL, p, &err);
    tap_ok(t,
           st == PPROF_E_INVALID && strcmp(err.path, "function[0].name") == 0 &&
               file_is(p, before, before_len) && entries() == 1,
           "an invalid profile written over the input leaves it intact");
    free(before);
    pprof_profile_free(bp);
    pb_free(&bad);
    pprof_profile_free(in);
    pprof_profile_free(back);
    pprof_buffer_free(&gz);
    pb_free(&raw);
    unlink(p);
}

static void
test_read(tap *t)
{
    char p[512];
    pprof_profile *pr = NULL;
    pprof_error err = {0};
    path_in(p, sizeof(p), "missing.pb");
    tap_ok(t,
           pprof_profile_read_file(p, NULL, &pr, &err) == PPROF_E_IO && !pr &&
               strstr(err.message, "No such file"),
           "missing file: PPROF_E_IO (%s)", err.message);
    tap_ok(t, pprof_profile_read_file(dir, NULL, &pr, &err) == PPROF_E_IO,
           "a directory: PPROF_E_IO (%s)", err.message);
    path_in(p, sizeof(p), "in.pb");
    pb raw = small_profile("g");
    pprof_bytes_write_file(raw.d, raw.n, NULL, p, NULL);
    pprof_read_options o;
    pprof_read_options_init(&o);
    o.max_input_bytes = raw.n - 1;
    tap_ok(t, pprof_profile_read_file(p, &o, &pr, &err) == PPROF_E_LIMIT,
           "file larger than max_input_bytes: PPROF_E_LIMIT");
    o.max_input_bytes = raw.n;
    tap_ok(t, pprof_profile_read_file(p, &o, &pr, &err) == PPROF_OK && pr,
           "file of exactly max_input_bytes reads");
    pprof_profile_free(pr);
    pprof_bytes_write_file(NULL, 0, NULL, p, NULL);
    tap_ok(t, pprof_profile_read_file(p, NULL, &pr, &err) == PPROF_E_EMPTY,
           "empty file: PPROF_E_EMPTY");
    tap_ok(t, pprof_profile_read_file(NULL, NULL, &pr, &err) == PPROF_E_ARG, "NULL path");
    tap_ok(t, pprof_profile_read_memory("x", 1, NULL, NULL, &err) == PPROF_E_ARG, "NULL out");
    unlink(p);
    pb_free(&raw);
}

/* A large file read in parts by several threads: the same bytes as one thread reads, for sizes
 * that do and do not split evenly. */
static void
test_read_parts(tap *t)
{
    char p[512];
    path_in(p, sizeof(p), "big.bin");
    const size_t sizes[] = {(size_t)8 << 20, ((size_t)8 << 20) + 1, ((size_t)13 << 20) + 12345};
    for (size_t k = 0; k < 3; k++) {
        size_t n = sizes[k];
        uint8_t *d = malloc(n);
        uint64_t x = 99 + k;
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            d[i] = (uint8_t)x;
        }
        pprof_bytes_write_file(d, n, NULL, p, NULL);
        bool ok = true;
        for (unsigned th = 1; th <= 5; th += 2) {
            uint8_t *got = NULL;
            size_t len = 0;
            pprof_error err;
            pprof_status st =
                pprof__read_all_threads(p, UINT64_C(1) << 32, NULL, th, &got, &len, &err);
            ok = ok && st == PPROF_OK && len == n && memcmp(got, d, n) == 0;
            if (st == PPROF_OK)
                pprof__free(NULL, got);
        }
        tap_ok(t, ok, "a file of %zu bytes read by 1, 3 and 5 threads: the same bytes", n);
        free(d);
    }
    unlink(p);
}

/* The temporary-file callback: told the path before the file is created (so a signal handler
 * never misses it), then NULL once it is gone; symlinks are followed (the link stays); a FIFO is
 * written in place. */
typedef struct temp_seen {
    char path[600];
    int calls;
    bool existed, gone_after;
} temp_seen;

static void
on_temp(void *ctx, const char *path)
{
    temp_seen *s = ctx;
    s->calls++;
    struct stat sb;
    if (path) {
        snprintf(s->path, sizeof(s->path), "%s", path);
        s->existed = stat(path, &sb) == 0;
    } else {
        s->gone_after = s->path[0] && lstat(s->path, &sb) != 0;
    }
}

static void
test_special(tap *t)
{
    char target[512], link[512];
    path_in(target, sizeof(target), "target");
    path_in(link, sizeof(link), "link");
    pprof_error err;
    temp_seen seen = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.on_temporary = on_temp;
    wo.temporary_ctx = &seen;
    tap_ok(t, symlink("target", link) == 0, "symlink made");
    tap_ok(t,
           pprof_bytes_write_file("abc", 3, &wo, link, &err) == PPROF_OK &&
               file_is(target, "abc", 3),
           "writing through a dangling link creates its target");
    struct stat sb;
    tap_ok(t, lstat(link, &sb) == 0 && S_ISLNK(sb.st_mode), "the link stays a link");
    tap_ok(t, seen.calls == 2 && !seen.existed && seen.gone_after,
           "the callback was told the temporary before it existed, then NULL once it was gone");
    tap_ok(t, strncmp(seen.path, dir, strlen(dir)) == 0 && strstr(seen.path, "/.target."),
           "the temporary sits beside the link's target, named for it");
    tap_ok(t, entries() == 2, "no temporary left");
    unlink(link);
    unlink(target);
    /* a FIFO, read by a child */
    char fifo[512];
    path_in(fifo, sizeof(fifo), "fifo");
    memset(&seen, 0, sizeof(seen));
    if (mkfifo(fifo, 0600) == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            char buf[16];
            int fd = open(fifo, O_RDONLY);
            ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
            _exit(n == 3 && memcmp(buf, "xyz", 3) == 0 ? 0 : 1);
        }
        int status = -1;
        bool wrote = pprof_bytes_write_file("xyz", 3, &wo, fifo, &err) == PPROF_OK;
        waitpid(pid, &status, 0);
        tap_ok(t, wrote && WIFEXITED(status) && WEXITSTATUS(status) == 0,
               "a FIFO is written in place");
        tap_ok(t, stat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode) && seen.calls == 0,
               "the FIFO stays, no temporary was made");
        unlink(fifo);
    }
}

int
main(void)
{
    tap t = {0};
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/pprof-test-io-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir)) {
        return tap_skip_all("cannot create a temporary directory");
    }
    test_atomic(&t);
    test_same_path(&t);
    test_read(&t);
    test_read_parts(&t);
    test_special(&t);
    rmdir(dir);
    return tap_done(&t);
}
