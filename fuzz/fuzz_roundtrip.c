/* decode -> write -> decode is a fixed point: the second model equals the first, writing it
 * again gives the same bytes, and writing is deterministic. One compressed container, chosen
 * from the input, must round-trip as well, and the compressed read and write fail cleanly
 * with one allocation failing (PPROF_E_NOMEM, or the same bytes when it was a hint). */
#include <string.h>

#include "fuzz.h"

/* Reads data and writes it as z through allocator fa (the writer allocates through the
 * profile's). */
static pprof_status
read_write(const uint8_t *data, size_t size, const pprof_write_options *z, fuzz_failing_alloc *fa,
           pprof_buffer *out, pprof_error *err)
{
    pprof_read_options o = fuzz_read_options();
    o.allocator = fuzz_failing_allocator(fa);
    pprof_profile *p = NULL;
    pprof_status st = pprof_profile_read_memory(data, size, &o, &p, err);
    if (st == PPROF_OK)
        st = pprof_profile_write_memory(p, z, out, err);
    pprof_profile_free(p);
    return st;
}

/* One allocation failing at up to 6 points spread over the read and the compressed write of
 * the bytes c (which wrote and read back): PPROF_E_NOMEM, or the same bytes. */
static void
nomem(const pprof_buffer *c, const pprof_write_options *z, uint64_t h)
{
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    pprof_error err;
    pprof_buffer want = {0};
    pprof_status st = read_write(c->data, c->len, z, &fa, &want, &err);
    /* the fuzzing limits (the ratio) may refuse what the first read took as raw bytes */
    FUZZ_CHECK(st == PPROF_OK || st == PPROF_E_LIMIT, "the compressed profile does not rewrite: %s",
               err.message);
    uint64_t calls = st == PPROF_OK ? fa.calls : 0;
    uint64_t points = fuzz_fail_points(6);
    for (uint64_t k = 0; k < points && k < calls; k++) {
        uint64_t at = fuzz_fail_point(calls, k, points, h);
        fa = (fuzz_failing_alloc){0, at, 0};
        pprof_buffer got = {0};
        st = read_write(c->data, c->len, z, &fa, &got, &err);
        if (st == PPROF_OK)
            FUZZ_CHECK(got.len == want.len && !memcmp(got.data, want.data, got.len),
                       "allocation %llu failing changed the bytes", (unsigned long long)at);
        else
            FUZZ_CHECK(st == PPROF_E_NOMEM && fa.failed && err.message[0],
                       "allocation %llu failing gives %s", (unsigned long long)at,
                       pprof_status_name(st));
        pprof_buffer_free(&got);
    }
    pprof_buffer_free(&want);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pprof_read_options o = fuzz_read_options();
    pprof_error err;
    pprof_profile *p1 = NULL, *p2 = NULL, *p3 = NULL;
    if (pprof_profile_read_memory(data, size, &o, &p1, &err) != PPROF_OK)
        return 0;

    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW;
    pprof_buffer b1 = {0}, b2 = {0}, b3 = {0}, c = {0};
    pprof_status st = pprof_profile_write_memory(p1, &raw, &b1, &err);
    if (st != PPROF_OK) {
        /* The writer refuses only dangling string indices, and must say where. */
        FUZZ_CHECK(st == PPROF_E_INVALID, "write failed with %s: %s", pprof_status_name(st),
                   err.message);
        FUZZ_CHECK(err.path[0] != 0, "write error without a path: %s", err.message);
        goto done;
    }
    st = pprof_profile_write_memory(p1, &raw, &b2, &err);
    FUZZ_CHECK(st == PPROF_OK, "second write failed: %s", err.message);
    FUZZ_CHECK(b1.len == b2.len && (b1.len == 0 || memcmp(b1.data, b2.data, b1.len) == 0),
               "writing twice gave different bytes (%zu vs %zu)", b1.len, b2.len);

    /* An empty profile is written as zero bytes, which readers refuse as an empty file. */
    if (b1.len == 0)
        goto done;
    pprof_read_options big = PPROF_READ_OPTIONS_INIT;
    st = pprof_profile_read_memory(b1.data, b1.len, &big, &p2, &err);
    FUZZ_CHECK(st == PPROF_OK, "written profile does not read back: %s at %s: %s",
               pprof_status_name(st), err.path, err.message);
    FUZZ_CHECK(pprof_profile_equal(p1, p2), "read-back profile differs");
    st = pprof_profile_write_memory(p2, &raw, &b3, &err);
    FUZZ_CHECK(st == PPROF_OK, "rewrite failed: %s", err.message);
    FUZZ_CHECK(b1.len == b3.len && memcmp(b1.data, b3.data, b1.len) == 0,
               "decode/write is not a fixed point (%zu vs %zu bytes)", b1.len, b3.len);

    pprof_write_options z = PPROF_WRITE_OPTIONS_INIT;
    uint64_t h = fuzz_hash(data, size);
    z.format = h & 1 ? PPROF_FORMAT_ZSTD : PPROF_FORMAT_GZIP;
    /* the default level (0) or the fastest; a level past the maximum is an argument error
     * that writes nothing */
    z.level = (h >> 1) % 2 == 0 ? 0 : 1;
    pprof_write_options over = z;
    over.level = 99;
    st = pprof_profile_write_memory(p1, &over, &c, &err);
    FUZZ_CHECK(st == PPROF_E_ARG && c.len == 0, "level 99 gave %s", pprof_status_name(st));
    st = pprof_profile_write_memory(p1, &z, &c, &err);
    FUZZ_CHECK(st == PPROF_OK, "compressed write failed: %s", err.message);
    FUZZ_CHECK(pprof_detect_format(c.data, c.len) == z.format, "wrong container written");
    st = pprof_profile_read_memory(c.data, c.len, &big, &p3, &err);
    FUZZ_CHECK(st == PPROF_OK, "compressed profile does not read back: %s", err.message);
    FUZZ_CHECK(pprof_profile_source_format(p3) == z.format, "source format lost");
    FUZZ_CHECK(pprof_profile_equal(p1, p3), "compressed read-back differs");
    nomem(&c, &z, h >> 3);
    /* an unknown container is refused as an argument error, and nothing is appended */
    pprof_write_options bad = z;
    bad.format = (pprof_format)7;
    size_t had = c.len;
    st = pprof_profile_write_memory(p1, &bad, &c, &err);
    FUZZ_CHECK(st == PPROF_E_ARG && c.len == had, "an unknown format gave %s",
               pprof_status_name(st));

done:
    pprof_buffer_free(&b1);
    pprof_buffer_free(&b2);
    pprof_buffer_free(&b3);
    pprof_buffer_free(&c);
    pprof_profile_free(p1);
    pprof_profile_free(p2);
    pprof_profile_free(p3);
    return 0;
}
