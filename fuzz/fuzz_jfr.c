/* The JFR reader on arbitrary bytes. An accepted recording gives a valid profile (every option:
 * one event, timestamps, truncation allowed) that writes as pprof and reads back; a refused one
 * gives a coded error with a message. Tight limits give PPROF_E_LIMIT or success. The read path
 * every tool takes (pprof_profile_read_memory with the formats' readers) agrees with the
 * reader. */
#include <string.h>

#include "check.h"
#include "formats.h"
#include "fuzz.h"
#include "jfr.h"

static pprof_jfr_read_options
read_options(uint64_t h)
{
    static const char *const events[] = {NULL,   "cpu",    "alloc",
                                         "lock", "native", "jdk.ObjectAllocationInNewTLAB"};
    pprof_jfr_read_options o = PPROF_JFR_READ_OPTIONS_INIT;
    o.max_input_bytes = 1u << 22;
    o.event = events[h % 6];
    o.timestamps = h & 8;
    o.allow_truncated = h & 16;
    if (h & 32) {
        o.max_pool_entries = 1 + (h >> 6) % 8;
        o.max_types = 1 + (h >> 9) % 16;
        o.max_stack_depth = 1 + (h >> 13) % 4;
    }
    return o;
}

static void
accepted(pprof_profile *p)
{
    pprof_error err;
    FUZZ_CHECK(pprof_validate(p, NULL, NULL, 0, NULL, &err) == PPROF_OK,
               "an accepted recording is not valid: %s: %s", err.path, err.message);
    pprof_buffer b = {0};
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_RAW;
    FUZZ_CHECK(pprof_profile_write_memory(p, &w, &b, &err) == PPROF_OK, "write failed: %s",
               err.message);
    pprof_profile *q = NULL;
    FUZZ_CHECK(pprof_profile_read_memory(b.data, b.len, NULL, &q, &err) == PPROF_OK,
               "our own pprof does not read back: %s", err.message);
    pprof_profile_free(q);
    pprof_buffer_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fuzz_hash(data, size);
    pprof_error err;
    for (int pass = 0; pass < 2; pass++) {
        pprof_jfr_read_options o = read_options(pass ? h : 0);
        pprof_jfr_stats stats = PPROF_JFR_STATS_INIT;
        o.stats = &stats;
        pprof_profile *p = NULL;
        pprof_status st = pprof_jfr_read_memory(data, size, &o, &p, &err);
        if (st != PPROF_OK) {
            FUZZ_CHECK(p == NULL && err.code == st && err.message[0], "error without a message");
            FUZZ_CHECK(pass || st != PPROF_E_ARG, "PPROF_E_ARG without an event option");
            if (pass == 0 && size >= 4 && !memcmp(data, "FLR", 4)) {
                /* the tools' read path refuses it too */
                pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
                ro.readers = pprof_formats_readers();
                pprof_profile *q = NULL;
                FUZZ_CHECK(pprof_profile_read_memory(data, size, &ro, &q, &err) != PPROF_OK,
                           "the readers' path accepts what the JFR reader refuses");
            }
            continue;
        }
        FUZZ_CHECK(stats.events_kept <= stats.events, "kept %llu of %llu events",
                   (unsigned long long)stats.events_kept, (unsigned long long)stats.events);
        accepted(p);
        pprof_profile_free(p);
    }
    return 0;
}
