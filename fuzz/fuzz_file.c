/* What the tools do with files: read a profile from a path, write it back atomically to the
 * same path (the `-o` names its input case), read it again. The file holds the same profile
 * afterwards; a failed read never changes the file; error paths (missing file, a directory)
 * answer with PPROF_E_IO. Writes announce their temporary and its end (on_temporary); a readable
 * profile is also written through symbolic links (the links stay, the target is replaced), to
 * a link loop, to /dev/null and /dev/full (character devices, written in place) and to a socket
 * nobody listens on; a pipe over max_input_bytes is PPROF_E_LIMIT; the input written by
 * pprof_bytes_write_file holds its bytes and reads as a merge input as memory does. All files
 * live in a directory made and removed for each input. */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "fuzz.h"
#include "merge.h"

static bool
write_file(const char *path, const uint8_t *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(d, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* What on_temporary announced: the last temporary's name ("" once it is gone) and how often. */
typedef struct announced {
    char path[4300];
    unsigned calls;
} announced;

static void
on_temporary(void *ctx, const char *tmp)
{
    announced *a = ctx;
    FUZZ_CHECK(!tmp || strlen(tmp) < sizeof(a->path), "temporary name too long");
    snprintf(a->path, sizeof(a->path), "%s", tmp ? tmp : "");
    a->calls++;
}

/* Outputs that are not a plain file: through a symbolic link (the link stays, its target gets
 * the profile), a link loop, a dangling link (creates its target), a character device written
 * in place (/dev/null stays a device; /dev/full fails with PPROF_E_IO), a socket nobody
 * listens on. Every file made here is removed again. */
static void
special_outputs(const pprof_profile *p, const char *dir, const pprof_write_options *w)
{
    char target[4300], link[4300], link2[4300];
    snprintf(target, sizeof(target), "%s/target.pb", dir);
    snprintf(link, sizeof(link), "%s/link.pb", dir);
    snprintf(link2, sizeof(link2), "%s/link2.pb", dir);
    pprof_error err;
    pprof_read_options o = fuzz_read_options();
    o.max_input_bytes = o.max_decompressed_bytes = UINT64_MAX >> 2;
    /* a dangling relative link, reached through a second link */
    FUZZ_CHECK(symlink("target.pb", link) == 0 && symlink(link, link2) == 0, "symlink: %s",
               strerror(errno));
    pprof_status st = pprof_profile_write_file(p, w, link2, &err);
    struct stat sb;
    FUZZ_CHECK(lstat(link, &sb) == 0 && S_ISLNK(sb.st_mode) && lstat(link2, &sb) == 0 &&
                   S_ISLNK(sb.st_mode),
               "writing through a link replaced the link");
    if (st == PPROF_OK) {
        pprof_profile *r = NULL;
        FUZZ_CHECK(pprof_profile_read_file(target, &o, &r, &err) == PPROF_OK,
                   "the link's target does not hold the profile: %s", err.message);
        FUZZ_CHECK(pprof_profile_equal(p, r), "the link's target holds another profile");
        pprof_profile_free(r);
        /* the target exists now: written again through the link, it is replaced */
        FUZZ_CHECK(pprof_profile_write_file(p, w, link, &err) == PPROF_OK,
                   "writing over a link's existing target: %s", err.message);
        unlink(target);
    } else {
        FUZZ_CHECK(st == PPROF_E_INVALID, "writing through a link gave %s: %s",
                   pprof_status_name(st), err.message);
        FUZZ_CHECK(lstat(target, &sb) != 0, "a failed write through a link left its target");
    }
    unlink(link);
    unlink(link2);
    /* a link to itself is refused, and stays */
    FUZZ_CHECK(symlink("loop.pb", link) == 0, "symlink: %s", strerror(errno));
    snprintf(link2, sizeof(link2), "%s/loop.pb", dir);
    FUZZ_CHECK(rename(link, link2) == 0, "rename: %s", strerror(errno));
    st = pprof_profile_write_file(p, w, link2, &err);
    FUZZ_CHECK(st == PPROF_E_IO || st == PPROF_E_INVALID, "writing to a link loop gave %s",
               pprof_status_name(st));
    FUZZ_CHECK(lstat(link2, &sb) == 0 && S_ISLNK(sb.st_mode), "a link loop was replaced");
    unlink(link2);
    /* character devices are written in place */
    if (stat("/dev/null", &sb) == 0 && S_ISCHR(sb.st_mode)) {
        st = pprof_profile_write_file(p, w, "/dev/null", &err);
        FUZZ_CHECK(st == PPROF_OK || st == PPROF_E_INVALID, "writing /dev/null gave %s: %s",
                   pprof_status_name(st), err.message);
        FUZZ_CHECK(stat("/dev/null", &sb) == 0 && S_ISCHR(sb.st_mode),
                   "/dev/null is no longer a device");
    }
    if (stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode)) {
        st = pprof_profile_write_file(p, w, "/dev/full", &err);
        FUZZ_CHECK(st == PPROF_E_IO || st == PPROF_E_INVALID, "writing /dev/full gave %s",
                   pprof_status_name(st));
        FUZZ_CHECK(st != PPROF_E_IO || strstr(err.message, "cannot write"),
                   "a full device is not a write error: %s", err.message);
    }
    /* a socket nobody accepts on: connect fails, an I/O error */
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", dir);
    if (n > 0 && (size_t)n < sizeof(sa.sun_path)) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        FUZZ_CHECK(fd >= 0, "socket: %s", strerror(errno));
        FUZZ_CHECK(bind(fd, (const struct sockaddr *)&sa, sizeof(sa)) == 0, "bind: %s",
                   strerror(errno));
        st = pprof_profile_write_file(p, w, sa.sun_path, &err);
        close(fd);
        FUZZ_CHECK(st == PPROF_E_IO || st == PPROF_E_INVALID,
                   "writing to a socket nobody listens on gave %s", pprof_status_name(st));
        FUZZ_CHECK(stat(sa.sun_path, &sb) == 0 && S_ISSOCK(sb.st_mode), "the socket was replaced");
        unlink(sa.sun_path);
    }
}

/* A pipe holding the input, its write end closed: grown past the default 64 KiB when the input
 * needs it (so that reads from a stream grow their buffer), false when it cannot hold it. */
static bool
pipe_holding(const uint8_t *data, size_t size, int fds[2], bool *wrote)
{
    if (size >= (1u << 20) || pipe(fds) != 0)
        return false;
    if (size >= 60000 && fcntl(fds[1], F_SETPIPE_SZ, 1 << 20) < (int)size) {
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    *wrote = write(fds[1], data, size) == (ssize_t)size;
    close(fds[1]);
    return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *base = getenv("TMPDIR");
    char dir[4096], path[4200];
    snprintf(dir, sizeof(dir), "%s/pprof-fuzz-file-XXXXXX", base && *base ? base : "/tmp");
    FUZZ_CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    snprintf(path, sizeof(path), "%s/in.pb", dir);
    FUZZ_CHECK(write_file(path, data, size), "cannot write %s", path);

    pprof_read_options o = fuzz_read_options();
    pprof_error err;
    pprof_profile *p = NULL, *q = NULL;
    pprof_status st = pprof_profile_read_file(path, &o, &p, &err);
    pprof_status mem = pprof_profile_read_memory(data, size, &o, &q, NULL);
    FUZZ_CHECK((st == PPROF_OK) == (mem == PPROF_OK), "file and memory reads disagree: %s / %s",
               pprof_status_name(st), pprof_status_name(mem));
    if (st == PPROF_OK) {
        FUZZ_CHECK(pprof_profile_equal(p, q), "file and memory reads give different models");
        /* writes that cannot happen fail with PPROF_E_IO (or PPROF_E_INVALID before any I/O,
         * for a model the writer refuses) and leave nothing behind: into a missing directory,
         * and over a directory */
        char bad[4300];
        snprintf(bad, sizeof(bad), "%s/missing/out.pb", dir);
        pprof_status sw = pprof_profile_write_file(p, NULL, bad, &err);
        FUZZ_CHECK(sw == PPROF_E_IO || sw == PPROF_E_INVALID,
                   "writing into a missing directory gave %s", pprof_status_name(sw));
        snprintf(bad, sizeof(bad), "%s/sub", dir);
        FUZZ_CHECK(mkdir(bad, 0700) == 0, "mkdir %s", bad);
        sw = pprof_profile_write_file(p, NULL, bad, &err);
        FUZZ_CHECK(sw == PPROF_E_IO || sw == PPROF_E_INVALID, "writing over a directory gave %s",
                   pprof_status_name(sw));
        FUZZ_CHECK(rmdir(bad) == 0, "writing over a directory left files in it");
        /* the first input byte picks the output container */
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        w.format = size ? (pprof_format)(data[0] % 3) : PPROF_FORMAT_RAW;
        w.level = 1;
        w.threads = size > 1 && (data[1] & 1) ? 2 : 0; /* gzip: compressing while encoding */
        announced ann = {{0}, 0};
        w.on_temporary = on_temporary;
        w.temporary_ctx = &ann;
        st = pprof_profile_write_file(p, &w, path, &err);
        /* a temporary announced was announced gone (NULL) at the end; a success had one */
        FUZZ_CHECK(!ann.path[0] && (st != PPROF_OK || ann.calls >= 2),
                   "the temporary was not announced, or not announced gone");
        FUZZ_CHECK(st == PPROF_OK || !strstr(err.message, "computed bound"),
                   "the encoding bound is wrong: %s", err.message);
        if (st == PPROF_OK) {
            pprof_profile *r = NULL;
            st = pprof_profile_read_file(path, &o, &r, &err);
            FUZZ_CHECK(st == PPROF_OK || st == PPROF_E_LIMIT, "rewritten file does not read: %s",
                       err.message);
            FUZZ_CHECK(!r || pprof_profile_equal(p, r), "rewritten file holds another profile");
            pprof_profile_free(r);
            special_outputs(p, dir, &w);
        } else {
            /* a failed write leaves the input as it was */
            FUZZ_CHECK(fuzz_file_holds(path, data, size, NULL),
                       "a failed write changed the input file");
        }
    } else {
        FUZZ_CHECK(fuzz_file_holds(path, data, size, NULL), "a failed read changed the input file");
    }
    pprof_profile_free(p);
    pprof_profile_free(q);

    /* the same bytes through a pipe (read as a stream, not a sized file) give the same verdict */
    int fds[2];
    bool wrote;
    if (pipe_holding(data, size, fds, &wrote)) {
        char fdpath[64];
        snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fds[0]);
        pprof_profile *r = NULL;
        pprof_status sp = wrote ? pprof_profile_read_file(fdpath, &o, &r, &err) : mem;
        close(fds[0]);
        FUZZ_CHECK((sp == PPROF_OK) == (mem == PPROF_OK), "pipe and memory reads disagree: %s",
                   pprof_status_name(sp));
        pprof_profile_free(r);
    }

    /* a pipe holding more than max_input_bytes is refused while it is read */
    if (size > 1 && pipe_holding(data, size, fds, &wrote)) {
        char fdpath[64];
        snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fds[0]);
        pprof_read_options small = o;
        small.max_input_bytes = size / 2;
        pprof_profile *r = NULL;
        pprof_status sp = wrote ? pprof_profile_read_file(fdpath, &small, &r, &err) : PPROF_E_LIMIT;
        close(fds[0]);
        FUZZ_CHECK(sp == PPROF_E_LIMIT && !r, "a pipe over max_input_bytes gave %s",
                   pprof_status_name(sp));
    }

    /* the same bytes written atomically by the library, then read as a merge input from the
     * file and from memory: the same bytes, the same verdict */
    char copy[4300];
    snprintf(copy, sizeof(copy), "%s/copy.pb", dir);
    FUZZ_CHECK(pprof_bytes_write_file(data, size, NULL, copy, &err) == PPROF_OK, "writing %s: %s",
               copy, err.message);
    FUZZ_CHECK(fuzz_file_holds(copy, data, size, NULL), "pprof_bytes_write_file wrote other bytes");
    pprof_merge_input *mf = NULL, *mm = NULL;
    pprof_status sf = pprof_merge_input_read_file(copy, &o, &mf, &err);
    pprof_status sm = pprof_merge_input_read_memory(data, size, &o, &mm, NULL);
    FUZZ_CHECK(sf == sm, "merge input from file (%s) and memory (%s) disagree",
               pprof_status_name(sf), pprof_status_name(sm));
    pprof_merge_input_free(mf);
    pprof_merge_input_free(mm);

    /* pprof_convert_file gives pprof_convert_memory's outcome in every mode: the same status,
     * the same bytes in the file; a failure leaves no output behind */
    char conv[4300];
    snprintf(conv, sizeof(conv), "%s/conv.pb", dir);
    pprof_write_options cw = PPROF_WRITE_OPTIONS_INIT;
    cw.format = PPROF_FORMAT_RAW;
    pprof_convert_options co = PPROF_CONVERT_OPTIONS_INIT;
    co.read = &o;
    co.write = &cw;
    co.mode = (pprof_convert_mode)(fuzz_hash(data, size) % 3);
    co.no_check = fuzz_hash(data, size) >> 8 & 1;
    pprof_buffer cb = {0};
    pprof_error cerr;
    pprof_convert_result rm = PPROF_CONVERT_RESULT_INIT, rf = PPROF_CONVERT_RESULT_INIT;
    pprof_status cm = pprof_convert_memory(data, size, &co, &cb, &rm, &cerr);
    pprof_status cf = pprof_convert_file(copy, &co, conv, &rf, &err);
    FUZZ_CHECK(cm == cf && rm.in_place == rf.in_place,
               "convert from memory gave %s (in place %d), from a file %s (%d): %s",
               pprof_status_name(cm), rm.in_place, pprof_status_name(cf), rf.in_place, err.message);
    if (cf == PPROF_OK)
        FUZZ_CHECK(fuzz_file_holds(conv, cb.data, cb.len, NULL),
                   "convert wrote other bytes to a file");
    else
        FUZZ_CHECK(access(conv, F_OK) != 0, "a failed convert left %s behind", conv);
    pprof_buffer_free(&cb);
    unlink(conv);
    unlink(copy);
    FUZZ_CHECK(pprof_convert_file(copy, &co, conv, NULL, &err) == PPROF_E_IO,
               "converting a missing file is not PPROF_E_IO");

    /* a file over the input limit is refused before it is decoded */
    struct stat sb;
    if (stat(path, &sb) == 0 && sb.st_size > 1) {
        pprof_read_options small = o;
        small.max_input_bytes = (uint64_t)sb.st_size / 2;
        pprof_profile *r = NULL;
        FUZZ_CHECK(pprof_profile_read_file(path, &small, &r, &err) == PPROF_E_LIMIT && !r,
                   "a file over max_input_bytes is not PPROF_E_LIMIT");
    }

    /* error paths: a directory and a missing file are I/O errors, never crashes */
    p = NULL;
    FUZZ_CHECK(pprof_profile_read_file(dir, &o, &p, &err) == PPROF_E_IO && !p,
               "reading a directory is not PPROF_E_IO");
    unlink(path);
    FUZZ_CHECK(pprof_profile_read_file(path, &o, &p, &err) == PPROF_E_IO && !p,
               "reading a missing file is not PPROF_E_IO");
    FUZZ_CHECK(rmdir(dir) == 0, "temporary files left behind in %s", dir);
    return 0;
}
