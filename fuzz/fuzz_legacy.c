/* The legacy readers (gperftools CPU, tcmalloc heap, contention, thread, Go count, Java) on
 * arbitrary bytes. An accepted input gives a valid profile that writes and reads back; a
 * refused one gives a coded error with a message. The read also runs with one allocation
 * failing: PPROF_E_NOMEM or success, never a crash or a leak. */
#include "check.h"
#include "fuzz.h"
#include "legacy.h"

static pprof_legacy_read_options
read_options(void)
{
    pprof_legacy_read_options o = PPROF_LEGACY_READ_OPTIONS_INIT;
    o.max_input_bytes = 1u << 20;
    o.max_samples = 1u << 14;
    o.max_stack_entries = 1u << 18;
    o.max_mappings = 1u << 10;
    return o;
}

static void
failing_allocations(const uint8_t *data, size_t size, uint64_t h)
{
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    pprof_legacy_read_options o = read_options();
    o.allocator = fuzz_failing_allocator(&fa);
    uint64_t calls = 0, points = fuzz_fail_points(1);
    pprof_error err;
    for (uint64_t k = 0; k <= points && k <= calls; k++) {
        pprof_profile *p = NULL;
        pprof_status st = pprof_legacy_read_memory(data, size, &o, &p, &err);
        pprof_profile_free(p);
        if (k == 0) {
            if (st != PPROF_OK || !fa.calls)
                break;
            calls = fa.calls;
        } else {
            FUZZ_CHECK(st == PPROF_OK || (st == PPROF_E_NOMEM && fa.failed),
                       "allocation %llu failing gives %s", (unsigned long long)fa.fail_at,
                       pprof_status_name(st));
        }
        if (k < points && k < calls)
            fa = (fuzz_failing_alloc){0, fuzz_fail_point(calls, k, points, h) % calls, 0};
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pprof_legacy_read_options o = read_options();
    pprof_error err;
    pprof_profile *p = NULL, *q = NULL;
    pprof_status st = pprof_legacy_read_memory(data, size, &o, &p, &err);
    if (st != PPROF_OK) {
        FUZZ_CHECK(err.code == st && err.message[0], "error without a message");
        FUZZ_CHECK(!p, "a failed read left a profile");
        return 0;
    }
    FUZZ_CHECK(pprof_legacy_detect(data, size) ||
                   pprof_detect_format(data, size) != PPROF_FORMAT_RAW,
               "an input read as legacy is not detected as legacy");
    FUZZ_CHECK(pprof_validate(p, NULL, NULL, 0, NULL, &err) == PPROF_OK,
               "an accepted input is not valid: %s", err.message);
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    pprof_buffer b = {0};
    FUZZ_CHECK(pprof_profile_write_memory(p, &wo, &b, &err) == PPROF_OK, "write failed: %s",
               err.message);
    FUZZ_CHECK(pprof_profile_read_memory(b.data, b.len, NULL, &q, &err) == PPROF_OK,
               "our profile does not read back: %s", err.message);
    /* the read paths of every tool find the same reader */
    pprof_read_options ro = fuzz_read_options();
    pprof_profile *r = NULL;
    FUZZ_CHECK(pprof_profile_read_memory(data, size, &ro, &r, &err) == PPROF_OK ||
                   err.code == PPROF_E_LIMIT,
               "the tools' read path refuses what the legacy reader accepts: %s", err.message);
    pprof_profile_free(r);
    failing_allocations(data, size, fuzz_hash(data, size));
    pprof_buffer_free(&b);
    pprof_profile_free(p);
    pprof_profile_free(q);
    return 0;
}
