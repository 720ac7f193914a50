/* The .cpuprofile reader on arbitrary bytes, and the .cpuprofile and speedscope writers. An
 * accepted input gives a valid profile whose .cpuprofile reads back and writes to the same
 * bytes (our output is a fixed point), and whose speedscope JSON is valid JSON. A refused input
 * gives a coded error with a message. Input that is a pprof profile instead is written in both
 * formats (valid JSON, or a coded error), and its .cpuprofile reads back. */
#include <string.h>

#include "check.h"
#include "fuzz.h"
#include "interchange.h"
#include "json-check.h"

static pprof_cpuprofile_read_options
read_options(void)
{
    pprof_cpuprofile_read_options o = PPROF_CPUPROFILE_READ_OPTIONS_INIT;
    o.max_input_bytes = 1u << 20;
    o.max_nodes = 1u << 14;
    o.max_samples = 1u << 16;
    o.max_depth = 1u << 10;
    o.max_stack_entries = 1u << 20;
    return o;
}

static void
write_json(const pprof_profile *p, bool cpuprofile, pprof_buffer *out)
{
    pprof_error err;
    pprof_status st;
    if (cpuprofile) {
        pprof_cpuprofile_write_options o = PPROF_CPUPROFILE_WRITE_OPTIONS_INIT;
        o.max_samples = 1u << 16;
        st = pprof_cpuprofile_write_memory(p, &o, out, &err);
    } else {
        st = pprof_speedscope_write_memory(p, NULL, out, &err);
    }
    FUZZ_CHECK(st == PPROF_OK || (err.code == st && err.message[0]), "error without a message");
    FUZZ_CHECK(st == PPROF_OK || out->len == 0, "a failed write left %zu bytes", out->len);
    size_t bad = 0;
    FUZZ_CHECK(st != PPROF_OK || json_check(out->data, out->len, &bad),
               "%s output is not JSON at byte %zu", cpuprofile ? "cpuprofile" : "speedscope", bad);
}

/* The writers' options (speedscope's name and per-line frames; the cpuprofile's sample type
 * and a small sample budget), and each writer and the reader (of data, when it is a
 * .cpuprofile) with one allocation failing (chosen from h): NOMEM and nothing written, or done. */
static void
writer_options(const pprof_profile *p, const uint8_t *data, size_t size, uint64_t h)
{
    static const char *const types[] = {NULL, "cpu", "samples", "0", "no-such-type"};
    pprof_speedscope_options so = PPROF_SPEEDSCOPE_OPTIONS_INIT;
    so.name = h & 1 ? "t\"<>\n\x01" : NULL;
    so.lines = h & 2;
    pprof_cpuprofile_write_options co = PPROF_CPUPROFILE_WRITE_OPTIONS_INIT;
    co.sample_type = types[(h >> 2) % 5];
    co.max_samples = (h >> 5) % 8;
    pprof_buffer out = {0};
    pprof_error err;
    size_t bad = 0;
    pprof_status st = pprof_speedscope_write_memory(p, &so, &out, &err);
    FUZZ_CHECK(st == PPROF_OK ? json_check(out.data, out.len, &bad) : err.message[0] != 0,
               "speedscope with options: invalid JSON at %zu or no message", bad);
    pprof_buffer_free(&out);
    st = pprof_cpuprofile_write_memory(p, &co, &out, &err);
    FUZZ_CHECK(st == PPROF_OK ? json_check(out.data, out.len, &bad) : err.message[0] != 0,
               "cpuprofile with options: invalid JSON at %zu or no message", bad);
    pprof_buffer_free(&out);
    /* each writer, and the read of the input, with one allocation failing at one point (more
     * with FUZZ_FAIL_POINTS): PPROF_E_NOMEM or success */
    for (int w = 0; w < 3; w++) {
        fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
        pprof_allocator a = fuzz_failing_allocator(&fa);
        pprof_cpuprofile_read_options ro = read_options();
        ro.allocator = a;
        so.allocator = a;
        co.allocator = a;
        uint64_t calls = 0, points = fuzz_fail_points(1);
        for (uint64_t k = 0; k <= points && k <= calls; k++) {
            pprof_profile *q = NULL;
            if (w == 0)
                st = pprof_speedscope_write_memory(p, &so, &out, &err);
            else if (w == 1)
                st = pprof_cpuprofile_write_memory(p, &co, &out, &err);
            else
                st = pprof_cpuprofile_read_memory(data, size, &ro, &q, &err);
            pprof_profile_free(q);
            pprof_buffer_free(&out);
            if (k == 0) { /* the counting run */
                if (st != PPROF_OK || !fa.calls)
                    break;
                calls = fa.calls;
            } else {
                FUZZ_CHECK(st == PPROF_OK || (st == PPROF_E_NOMEM && fa.failed),
                           "writer %d: allocation %llu failing gives %s", w,
                           (unsigned long long)fa.fail_at, pprof_status_name(st));
            }
            if (k < points && k < calls)
                fa = (fuzz_failing_alloc){0, fuzz_fail_point(calls, k, points, h >> 8) % calls, 0};
        }
    }
}

/* A pprof profile through both writers; its .cpuprofile reads again. */
static void
check_profile(const uint8_t *data, size_t size)
{
    pprof_read_options po = fuzz_read_options();
    pprof_profile *p = NULL, *q = NULL;
    if (pprof_profile_read_memory(data, size, &po, &p, NULL) != PPROF_OK)
        return;
    pprof_buffer a = {0}, s = {0};
    write_json(p, false, &s);
    write_json(p, true, &a);
    writer_options(p, data, size, fuzz_hash(data, size));
    pprof_cpuprofile_read_options ro = read_options();
    pprof_error err;
    if (a.len)
        FUZZ_CHECK(pprof_cpuprofile_read_memory(a.data, a.len, &ro, &q, &err) == PPROF_OK,
                   "our .cpuprofile does not read back: %s: %s", err.path, err.message);
    pprof_buffer_free(&a);
    pprof_buffer_free(&s);
    pprof_profile_free(p);
    pprof_profile_free(q);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pprof_cpuprofile_read_options ro = read_options();
    pprof_error err;
    pprof_profile *p = NULL, *q = NULL;
    if (pprof_cpuprofile_read_memory(data, size, &ro, &p, &err) != PPROF_OK) {
        FUZZ_CHECK(err.code != PPROF_OK && err.message[0], "error without a message");
        check_profile(data, size);
        return 0;
    }
    FUZZ_CHECK(pprof_validate(p, NULL, NULL, 0, NULL, &err) == PPROF_OK,
               "an accepted input is not valid: %s", err.message);
    pprof_buffer a = {0}, b = {0}, s = {0};
    write_json(p, false, &s);
    write_json(p, true, &a);
    writer_options(p, data, size, fuzz_hash(data, size));
    if (a.len) {
        pprof_status st = pprof_cpuprofile_read_memory(a.data, a.len, &ro, &q, &err);
        FUZZ_CHECK(st == PPROF_OK, "reading our own output failed: %s: %s", err.path, err.message);
        write_json(q, true, &b);
        FUZZ_CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len),
                   ".cpuprofile -> profile -> .cpuprofile changed the bytes (%zu -> %zu)", a.len,
                   b.len);
    }
    pprof_buffer_free(&a);
    pprof_buffer_free(&b);
    pprof_buffer_free(&s);
    pprof_profile_free(p);
    pprof_profile_free(q);
    return 0;
}
