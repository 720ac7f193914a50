/* The merger over 2-4 profiles made from one input: split at "PPROFMERGE" separators when the
 * input has them, otherwise the input plus structure-aware mutants of it (seeded from the
 * input, so related profiles that share most content but not ids). Oracles, from the
 * determinism promise of docs/merge.md: the merged bytes do not depend on the order of the
 * inputs, nor on grouping them through an encoded intermediate, nor on merging incrementally
 * (and then writing straight from the merger); without type intersection every value column keeps
 * its total; the result writes and reads back; one allocation failing (at up to 6 points
 * chosen from the input) gives PPROF_E_NOMEM or, when it was only a hint, the same bytes. */
#include <string.h>

#include "fuzz.h"
#include "merge.h"
#include "mutator.h"

#define SEP "PPROFMERGE"
#define MAX_PARTS 4

typedef struct parts {
    pprof_profile *p[MAX_PARTS];
    size_t n;
} parts;

static const uint8_t *
find_sep(const uint8_t *p, const uint8_t *end)
{
    size_t n = sizeof(SEP) - 1;
    for (; (size_t)(end - p) >= n; p++)
        if (memcmp(p, SEP, n) == 0)
            return p;
    return NULL;
}

static void
add_part(parts *ps, const uint8_t *data, size_t size)
{
    pprof_read_options o = fuzz_read_options();
    pprof_profile *p = NULL;
    if (ps->n < MAX_PARTS && pprof_profile_read_memory(data, size, &o, &p, NULL) == PPROF_OK)
        ps->p[ps->n++] = p;
}

static void
make_parts(parts *ps, const uint8_t *data, size_t size, uint64_t h)
{
    const uint8_t *sep = find_sep(data, data + size);
    if (sep) {
        const uint8_t *p = data, *end = data + size;
        while (p <= end && ps->n < MAX_PARTS) {
            const uint8_t *q = find_sep(p, end);
            const uint8_t *stop = q ? q : end;
            add_part(ps, p, (size_t)(stop - p));
            if (!q)
                break;
            p = q + sizeof(SEP) - 1;
        }
        return;
    }
    add_part(ps, data, size);
    if (!ps->n)
        return;
    size_t k = 2 + h % 3, max = size * 2 + 4096;
    uint8_t *buf = malloc(max);
    FUZZ_CHECK(buf != NULL, "out of memory");
    for (size_t j = 1; j < k; j++) {
        fuzz_rng bytes = {h + j};
        memcpy(buf, data, size);
        size_t n = fuzz_mutate(buf, size, max, h * 31 + j, fuzz_mutate_bytes, &bytes);
        add_part(ps, buf, n);
    }
    free(buf);
}

static pprof_status
merge(pprof_profile *const *in, size_t n, const pprof_merge_options *o, pprof_buffer *out,
      pprof_profile **keep)
{
    pprof_profile *m = NULL;
    pprof_error err;
    pprof_status st = pprof_merge((const pprof_profile *const *)in, NULL, n, o, &m, &err);
    if (st == PPROF_OK) {
        pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
        raw.format = PPROF_FORMAT_RAW;
        st = pprof_profile_write_memory(m, &raw, out, &err);
        FUZZ_CHECK(st == PPROF_OK, "merged profile does not write: %s at %s", err.message,
                   err.path);
    } else {
        FUZZ_CHECK(st == PPROF_E_INVALID || st == PPROF_E_INCOMPATIBLE || st == PPROF_E_OVERFLOW,
                   "merge failed with %s: %s", pprof_status_name(st), err.message);
        FUZZ_CHECK(err.message[0] != 0, "merge error without a message");
    }
    if (keep)
        *keep = m;
    else
        pprof_profile_free(m);
    return st;
}

static void
same_bytes(const pprof_buffer *a, const pprof_buffer *b, const char *what)
{
    FUZZ_CHECK(a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0),
               "%s gave different bytes (%zu vs %zu)", what, a->len, b->len);
}

/* Per-column totals; false when a column's total leaves int64 or the shapes disagree. */
static bool
totals(pprof_profile *const *in, size_t n, int64_t *sum, size_t cols)
{
    memset(sum, 0, cols * sizeof(int64_t));
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < pprof_profile_count(in[k], PPROF_TABLE_SAMPLE); i++) {
            pprof_sample s = pprof_profile_sample(in[k], i);
            if (s.n_value != cols)
                return false;
            for (size_t c = 0; c < cols; c++)
                if (__builtin_add_overflow(sum[c], s.value[c], &sum[c]))
                    return false;
        }
    }
    return true;
}

/* An incremental merge of the parts through o, finished, then written raw from the merger. */
static pprof_status
merge_steps(const parts *ps, const pprof_merge_options *o, pprof_buffer *out, pprof_error *err)
{
    pprof_merger *m = NULL;
    pprof_profile *r = NULL;
    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW;
    pprof_status st = pprof_merger_new(o, &m, err);
    for (size_t i = 0; st == PPROF_OK && i < ps->n; i++)
        st = pprof_merger_add(m, ps->p[i], "part", err);
    if (st == PPROF_OK)
        st = pprof_merger_finish(m, &r, err);
    if (st == PPROF_OK)
        st = pprof_merger_write_memory(m, &raw, out, NULL, err);
    pprof_merger_free(m);
    pprof_profile_free(r);
    return st;
}

/* Warnings are one line of text (pprof/merge.h); they may come from the merger's own thread. */
static void
warn_check(void *ctx, const char *message)
{
    (void)ctx;
    FUZZ_CHECK(message && message[0] && !strchr(message, '\n'),
               "a warning that is not one line: '%s'", message ? message : "(null)");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fuzz_hash(data, size);
    parts ps = {{NULL}, 0};
    make_parts(&ps, data, size, h);
    if (ps.n == 0)
        return 0;

    pprof_merge_options o = PPROF_MERGE_OPTIONS_INIT;
    o.intersect_types = (h >> 8) & 1;
    o.inline_conflict = (pprof_inline_conflict)((h >> 9) % 3);
    o.threads = (h >> 12) & 1 ? 2 : 0; /* the merger's own thread, and finish's */
    o.warn = warn_check;
    pprof_buffer forward = {0}, backward = {0}, inc = {0}, inc2 = {0}, grouped = {0};
    pprof_profile *merged = NULL;
    if (merge(ps.p, ps.n, &o, &forward, &merged) != PPROF_OK)
        goto done;

    /* Reversed order. */
    pprof_profile *rev[MAX_PARTS];
    for (size_t i = 0; i < ps.n; i++)
        rev[i] = ps.p[ps.n - 1 - i];
    pprof_status st = merge(rev, ps.n, &o, &backward, NULL);
    FUZZ_CHECK(st == PPROF_OK, "reversed merge failed: %s", pprof_status_name(st));
    same_bytes(&forward, &backward, "reversing the inputs");

    /* Incremental, finished twice. */
    pprof_merger *m = NULL;
    pprof_error err;
    FUZZ_CHECK(pprof_merger_new(&o, &m, &err) == PPROF_OK, "merger_new: %s", err.message);
    for (size_t i = 0; i < ps.n; i++)
        FUZZ_CHECK(pprof_merger_add(m, ps.p[i], "part", &err) == PPROF_OK,
                   "incremental add %zu failed: %s", i, err.message);
    FUZZ_CHECK(pprof_merger_count(m) == ps.n, "merger_count is wrong");
    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW;
    pprof_profile *r = NULL;
    FUZZ_CHECK(pprof_merger_finish(m, &r, &err) == PPROF_OK, "finish failed: %s", err.message);
    FUZZ_CHECK(pprof_profile_write_memory(r, &raw, &inc, &err) == PPROF_OK, "write failed");
    /* again, straight from the merger this time */
    pprof_merge_summary sum = PPROF_MERGE_SUMMARY_INIT;
    FUZZ_CHECK(pprof_merger_write_memory(m, &raw, &inc2, &sum, &err) == PPROF_OK,
               "writing from the merger failed: %s", err.message);
    FUZZ_CHECK(sum.samples == pprof_profile_count(r, PPROF_TABLE_SAMPLE) &&
                   sum.locations == pprof_profile_count(r, PPROF_TABLE_LOCATION) &&
                   sum.functions == pprof_profile_count(r, PPROF_TABLE_FUNCTION),
               "the written summary differs from the finished profile");
    pprof_profile_free(r);
    pprof_merger_free(m);
    same_bytes(&forward, &inc, "merging incrementally");
    same_bytes(&forward, &inc2, "writing straight from the merger after finishing");

    /* Grouped: the first two through an encoded intermediate, then the rest. */
    if (ps.n >= 3) {
        pprof_buffer mid = {0};
        pprof_profile *mp = NULL;
        st = merge(ps.p, 2, &o, &mid, NULL);
        if (st == PPROF_OK && mid.len &&
            pprof_profile_read_memory(mid.data, mid.len, NULL, &mp, &err) == PPROF_OK) {
            pprof_profile *g[MAX_PARTS] = {mp};
            for (size_t i = 2; i < ps.n; i++)
                g[i - 1] = ps.p[i];
            st = merge(g, ps.n - 1, &o, &grouped, NULL);
            FUZZ_CHECK(st == PPROF_OK, "grouped merge failed: %s", pprof_status_name(st));
            same_bytes(&forward, &grouped, "grouping through an intermediate");
        }
        pprof_profile_free(mp);
        pprof_buffer_free(&mid);
    }

    /* Totals per column, when every input has the result's columns. */
    size_t cols = pprof_profile_count(merged, PPROF_TABLE_SAMPLE_TYPE);
    int64_t want[16], got[16];
    if (!o.intersect_types && cols <= 16 && totals(ps.p, ps.n, want, cols) &&
        totals(&merged, 1, got, cols))
        FUZZ_CHECK(memcmp(want, got, cols * sizeof(int64_t)) == 0, "value totals changed");

    /* The result reads back as itself. */
    if (forward.len) {
        pprof_profile *back = NULL;
        st = pprof_profile_read_memory(forward.data, forward.len, NULL, &back, &err);
        FUZZ_CHECK(st == PPROF_OK, "merged bytes do not read: %s", err.message);
        FUZZ_CHECK(pprof_profile_equal(merged, back), "merged profile does not read back");
        pprof_profile_free(back);
    }

    /* One allocation failing, at up to 6 points picked from the input, in an incremental
     * merge that is finished and written: PPROF_E_NOMEM with a message, or the same bytes when
     * the allocation was only a hint. One thread, so that the allocations are the same on
     * every run. */
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    pprof_merge_options fo = o;
    fo.threads = 0;
    fo.allocator = fuzz_failing_allocator(&fa);
    pprof_buffer fb = {0};
    st = merge_steps(&ps, &fo, &fb, &err);
    FUZZ_CHECK(st == PPROF_OK, "merging through the counting allocator: %s", err.message);
    same_bytes(&forward, &fb, "merging through the counting allocator");
    pprof_buffer_free(&fb);
    uint64_t calls = fa.calls;
    uint64_t points = fuzz_fail_points(6);
    for (uint64_t k = 0; k < points && k < calls; k++) {
        uint64_t at = fuzz_fail_point(calls, k, points, h >> 16);
        fa = (fuzz_failing_alloc){0, at, 0};
        st = merge_steps(&ps, &fo, &fb, &err);
        if (st == PPROF_OK)
            same_bytes(&forward, &fb, "a merge whose failed allocation was a hint");
        else
            FUZZ_CHECK(st == PPROF_E_NOMEM && fa.failed && err.message[0],
                       "allocation %llu failing gave %s: %s", (unsigned long long)at,
                       pprof_status_name(st), err.message);
        pprof_buffer_free(&fb);
    }

done:
    pprof_profile_free(merged);
    pprof_buffer_free(&forward);
    pprof_buffer_free(&backward);
    pprof_buffer_free(&inc);
    pprof_buffer_free(&inc2);
    pprof_buffer_free(&grouped);
    for (size_t i = 0; i < ps.n; i++)
        pprof_profile_free(ps.p[i]);
    return 0;
}
