/* pprof_convert_memory: the in-place path gives the model path's outcome, byte for byte when
 * both write, the same status and error otherwise; checked and unchecked; on one thread or
 * three. One allocation failing (at up to 6 points chosen from the input) gives
 * PPROF_E_NOMEM or, when it was only a hint, the same outcome. */
#include <string.h>

#include "fuzz.h"

static pprof_status
convert(const uint8_t *data, size_t size, pprof_convert_mode mode, bool no_check, pprof_buffer *out,
        pprof_convert_result *res, pprof_error *err, fuzz_failing_alloc *fa)
{
    pprof_read_options o = fuzz_read_options();
    /* half the inputs on three threads: a large profile is then checked and encoded in parts,
     * and the outcome may not depend on it */
    o.threads = fuzz_hash(data, size) >> 12 & 1 ? 3 : 1;
    if (fa)
        o.allocator = fuzz_failing_allocator(fa);
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_RAW;
    pprof_convert_options co = PPROF_CONVERT_OPTIONS_INIT;
    co.mode = mode;
    co.read = &o;
    co.write = &w;
    co.no_check = no_check;
    return pprof_convert_memory(data, size, &co, out, res, err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bool no_check = fuzz_hash(data, size) & 1;
    pprof_buffer m = {0}, a = {0};
    pprof_convert_result mr = PPROF_CONVERT_RESULT_INIT, ar = PPROF_CONVERT_RESULT_INIT;
    pprof_error me = {0}, ae = {0};
    pprof_status ms = convert(data, size, PPROF_CONVERT_MODEL, no_check, &m, &mr, &me, NULL);
    pprof_status as = convert(data, size, PPROF_CONVERT_AUTO, no_check, &a, &ar, &ae, NULL);
    FUZZ_CHECK(ms == as, "model gave %s, auto (in place: %d) %s: %s", pprof_status_name(ms),
               ar.in_place, pprof_status_name(as), ae.message);
    FUZZ_CHECK(!mr.in_place, "the model path claims to have copied in place");
    if (ms == PPROF_OK)
        FUZZ_CHECK(m.len == a.len && (m.len == 0 || memcmp(m.data, a.data, m.len) == 0),
                   "in place (%d) wrote %zu bytes, the model %zu", ar.in_place, a.len, m.len);
    else
        FUZZ_CHECK(strcmp(me.message, ae.message) == 0 && strcmp(me.path, ae.path) == 0,
                   "errors differ: %s: %s vs %s: %s", me.path, me.message, ae.path, ae.message);
    FUZZ_CHECK(mr.check_errors == ar.check_errors, "check errors differ");

    uint64_t h = fuzz_hash(data, size);
    pprof_convert_mode mode =
        (pprof_convert_mode)(h >> 4 & 1 ? PPROF_CONVERT_AUTO : PPROF_CONVERT_MODEL);
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    pprof_buffer c = {0}, f = {0};
    pprof_convert_result cr = PPROF_CONVERT_RESULT_INIT, fr = PPROF_CONVERT_RESULT_INIT;
    pprof_error ce = {0}, fe = {0};
    pprof_status cs = convert(data, size, mode, no_check, &c, &cr, &ce, &fa);
    FUZZ_CHECK(cs == ms, "the counting allocator changed the outcome: %s", ce.message);
    uint64_t calls = fa.calls;
    uint64_t points = fuzz_fail_points(6);
    for (uint64_t k = 0; k < points && k < calls; k++) {
        fa = (fuzz_failing_alloc){0, fuzz_fail_point(calls, k, points, h >> 8), 0};
        pprof_status fs = convert(data, size, mode, no_check, &f, &fr, &fe, &fa);
        if (fs == PPROF_E_NOMEM)
            FUZZ_CHECK(fe.message[0] && f.len == 0, "out of memory without a message, or output");
        else
            FUZZ_CHECK(fs == cs && f.len == c.len && (c.len == 0 || !memcmp(c.data, f.data, c.len)),
                       "allocation %llu failing gave %s, not %s or PPROF_E_NOMEM: %s",
                       (unsigned long long)fa.fail_at, pprof_status_name(fs), pprof_status_name(cs),
                       fe.message);
        pprof_buffer_free(&f);
    }
    pprof_buffer_free(&c);
    pprof_buffer_free(&f);
    pprof_buffer_free(&m);
    pprof_buffer_free(&a);
    return 0;
}
