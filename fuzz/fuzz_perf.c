/* The perf.data / perf script reader on arbitrary bytes, as data (file or pipe mode) and as
 * detected. It never crashes and gives either a profile or an error with a message; a profile
 * it gives holds one samples/count per converted sample and encodes and reads back equal. */
#include <string.h>

#include "fuzz.h"
#include "perf.h"

static void
one(const uint8_t *data, size_t size, pprof_perf_input input, uint32_t labels)
{
    pprof_perf_options o = PPROF_PERF_OPTIONS_INIT;
    o.input = input;
    o.labels = labels;
    o.max_round_records = 64;
    o.max_processes = 256;
    static const char ks[] = "ffffffff81000000 T _text\nffffffff81000100 t f [mod]\n";
    if (labels & PPROF_PERF_LABEL_CPU) {
        o.kallsyms = ks;
        o.kallsyms_size = sizeof(ks) - 1;
    }
    pprof_profile *p = NULL, *q = NULL;
    pprof_perf_stats st = PPROF_PERF_STATS_INIT;
    pprof_error err;
    pprof_status s = pprof_perf_read_memory(data, size, &o, &p, &st, &err);
    if (s != PPROF_OK) {
        FUZZ_CHECK(!p && err.code == s && err.message[0], "error without a message");
        return;
    }
    FUZZ_CHECK(st.samples_converted <= st.samples, "more samples converted than read");
    int64_t n = 0;
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE); i++)
        n += pprof_profile_sample(p, i).value[0];
    FUZZ_CHECK(n == (int64_t)st.samples_converted, "samples/count %lld, converted %llu",
               (long long)n, (unsigned long long)st.samples_converted);
    char w[512];
    pprof_perf_warning(&st, w, sizeof(w));
    pprof_buffer b = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    s = pprof_profile_write_memory(p, &wo, &b, &err);
    FUZZ_CHECK(s == PPROF_OK, "writing the profile failed: %s", err.message);
    s = pprof_profile_read_memory(b.data, b.len, NULL, &q, &err);
    FUZZ_CHECK(s == PPROF_OK && pprof_profile_equal(p, q), "the profile does not read back");
    pprof_buffer_free(&b);
    pprof_profile_free(p);
    pprof_profile_free(q);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fuzz_hash(data, size);
    one(data, size, PPROF_PERF_INPUT_DATA, (uint32_t)(h & 15));
    one(data, size, PPROF_PERF_INPUT_AUTO, (uint32_t)((h >> 4) & 15));
    return 0;
}
