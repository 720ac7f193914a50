/* decode -> write -> decode is a fixed point: the second model equals the first, writing it
 * again gives the same bytes, and writing is deterministic. One compressed container, chosen
 * from the input, must round-trip as well. */
#include <string.h>

#include "fuzz.h"

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
