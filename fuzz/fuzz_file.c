/* What the tools do with files: read a profile from a path, write it back atomically to the
 * same path (the `-o` names its input case), read it again. The file holds the same profile
 * afterwards; a failed read never changes the file; error paths (missing file, a directory)
 * answer with PPROF_E_IO. All files live in a directory made and removed for each input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static bool
write_file(const char *path, const uint8_t *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(d, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

static bool
same_bytes(const char *path, const uint8_t *d, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++)
        ok = fgetc(f) == d[i];
    ok = ok && fgetc(f) == EOF;
    fclose(f);
    return ok;
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
        pprof_status sw = pprof_profile_write_file(p, bad, NULL, &err);
        FUZZ_CHECK(sw == PPROF_E_IO || sw == PPROF_E_INVALID,
                   "writing into a missing directory gave %s", pprof_status_name(sw));
        snprintf(bad, sizeof(bad), "%s/sub", dir);
        FUZZ_CHECK(mkdir(bad, 0700) == 0, "mkdir %s", bad);
        sw = pprof_profile_write_file(p, bad, NULL, &err);
        FUZZ_CHECK(sw == PPROF_E_IO || sw == PPROF_E_INVALID, "writing over a directory gave %s",
                   pprof_status_name(sw));
        FUZZ_CHECK(rmdir(bad) == 0, "writing over a directory left files in it");
        /* the first input byte picks the output container */
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        w.format = size ? (pprof_format)(data[0] % 3) : PPROF_FORMAT_RAW;
        w.level = 1;
        w.threads = size > 1 && (data[1] & 1) ? 2 : 0; /* gzip: compressing while encoding */
        st = pprof_profile_write_file(p, path, &w, &err);
        FUZZ_CHECK(st == PPROF_OK || !strstr(err.message, "computed bound"),
                   "the encoding bound is wrong: %s", err.message);
        if (st == PPROF_OK) {
            pprof_profile *r = NULL;
            st = pprof_profile_read_file(path, &o, &r, &err);
            FUZZ_CHECK(st == PPROF_OK || st == PPROF_E_LIMIT, "rewritten file does not read: %s",
                       err.message);
            FUZZ_CHECK(!r || pprof_profile_equal(p, r), "rewritten file holds another profile");
            pprof_profile_free(r);
        } else {
            /* a failed write leaves the input as it was */
            FUZZ_CHECK(same_bytes(path, data, size), "a failed write changed the input file");
        }
    } else {
        FUZZ_CHECK(same_bytes(path, data, size), "a failed read changed the input file");
    }
    pprof_profile_free(p);
    pprof_profile_free(q);

    /* the same bytes through a pipe (read as a stream, not a sized file) give the same verdict */
    int fds[2];
    if (size < 60000 && pipe(fds) == 0) {
        bool wrote = write(fds[1], data, size) == (ssize_t)size;
        close(fds[1]);
        char fdpath[64];
        snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fds[0]);
        pprof_profile *r = NULL;
        pprof_status sp = wrote ? pprof_profile_read_file(fdpath, &o, &r, &err) : mem;
        close(fds[0]);
        FUZZ_CHECK((sp == PPROF_OK) == (mem == PPROF_OK), "pipe and memory reads disagree: %s",
                   pprof_status_name(sp));
        pprof_profile_free(r);
    }

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
