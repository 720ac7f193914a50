/* The OTLP Profiles reader on arbitrary bytes (read + convert + check). When it accepts them:
 * the checker runs and counts what it reports; OTLP -> pprof either fails with a message and
 * a path or gives profiles that write as pprof and as OTLP again, and that OTLP reads back to
 * as many pprof profiles of the same meaning (sample and value counts). A refused input fails
 * with a message. Input that is a pprof profile instead is written as OTLP, which must read
 * back and pass the checker without an error. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fuzz.h"
#include "otlp.h"

static uint64_t
otlp_errors(const pprof_otlp *o)
{
    pprof_check_summary sum;
    pprof_error err;
    FUZZ_CHECK(pprof_otlp_check(o, NULL, NULL, NULL, &sum, &err) == PPROF_OK,
               "check failed: %s", err.message);
    FUZZ_CHECK(sum.reported <= 1000, "more findings reported than the default maximum");
    return sum.count[PPROF_SEVERITY_ERROR];
}

static size_t
samples_of(pprof_profile *const *v, size_t n)
{
    size_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += pprof_profile_count(v[i], PPROF_TABLE_SAMPLE);
    return s;
}

/* pprof input: written as OTLP, it reads back and breaks no error-level rule. */
static void
from_pprof(const uint8_t *data, size_t size)
{
    pprof_read_options ro = fuzz_read_options();
    pprof_profile *p = NULL;
    if (pprof_profile_read_memory(data, size, &ro, &p, NULL) != PPROF_OK)
        return;
    pprof_buffer b = {0};
    pprof_error err;
    const pprof_profile *const in[] = {p};
    pprof_status st = pprof_otlp_write_memory(in, 1, NULL, &b, &err);
    FUZZ_CHECK(st == PPROF_OK || (err.code == st && err.message[0]), "write error without a message");
    if (st == PPROF_OK) {
        pprof_otlp *o = NULL;
        st = pprof_otlp_read_memory(b.data, b.len, &ro, &o, &err);
        FUZZ_CHECK(st == PPROF_OK || st == PPROF_E_LIMIT, "the writer's OTLP does not read: %s: %s",
                   err.path, err.message);
        if (o) {
            FUZZ_CHECK(otlp_errors(o) == 0, "the writer's OTLP breaks an error-level rule");
            pprof_profile **v = NULL;
            size_t n = 0;
            st = pprof_otlp_to_pprof(o, &v, &n, &err);
            FUZZ_CHECK(st == PPROF_OK, "the writer's OTLP does not convert: %s: %s", err.path,
                       err.message);
            FUZZ_CHECK(pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE) == 0 || n == 1,
                       "%zu profiles back from one", n);
            pprof_otlp_profiles_free(v, n);
        }
        pprof_otlp_free(o);
    }
    pprof_buffer_free(&b);
    pprof_profile_free(p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pprof_read_options ro = fuzz_read_options();
    pprof_otlp *o = NULL;
    pprof_error err;
    pprof_status st = pprof_otlp_read_memory(data, size, &ro, &o, &err);
    if (st != PPROF_OK) {
        FUZZ_CHECK(o == NULL && err.code == st && err.message[0], "refusal without a message");
        from_pprof(data, size);
        return 0;
    }
    otlp_errors(o);
    pprof_profile **v = NULL;
    size_t n = 0;
    st = pprof_otlp_to_pprof(o, &v, &n, &err);
    FUZZ_CHECK(st == PPROF_OK || (err.code == st && err.message[0]),
               "conversion error without a message");
    if (st == PPROF_OK && n) {
        pprof_buffer b = {0}, pb = {0};
        pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
        wo.format = PPROF_FORMAT_RAW;
        /* as pprof: the bytes read again (the converter may build what Go refuses; then the
         * OTLP writer refuses it too, naming why) */
        FUZZ_CHECK(pprof_profile_write_memory(v[0], &wo, &pb, &err) == PPROF_OK ||
                       err.message[0],
                   "pprof write error without a message");
        st = pprof_otlp_write_memory((const pprof_profile *const *)v, n, NULL, &b, &err);
        FUZZ_CHECK(st == PPROF_OK || (err.code == st && err.message[0]),
                   "OTLP write error without a message");
        if (st == PPROF_OK) {
            pprof_otlp *o2 = NULL;
            pprof_profile **w = NULL;
            size_t m = 0;
            st = pprof_otlp_read_memory(b.data, b.len, &ro, &o2, &err);
            FUZZ_CHECK(st == PPROF_OK || st == PPROF_E_LIMIT, "rewritten OTLP does not read: %s",
                       err.message);
            if (o2) {
                FUZZ_CHECK(pprof_otlp_to_pprof(o2, &w, &m, &err) == PPROF_OK,
                           "rewritten OTLP does not convert: %s: %s", err.path, err.message);
                FUZZ_CHECK(samples_of(w, m) == samples_of(v, n),
                           "%zu samples after a second trip, %zu before", samples_of(w, m),
                           samples_of(v, n));
            }
            pprof_otlp_profiles_free(w, m);
            pprof_otlp_free(o2);
        }
        pprof_buffer_free(&b);
        pprof_buffer_free(&pb);
    }
    pprof_otlp_profiles_free(v, n);
    pprof_otlp_free(o);
    return 0;
}
