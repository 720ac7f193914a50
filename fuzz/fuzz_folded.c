/* The folded-stack reader on arbitrary bytes. When it accepts them, writing the profile back
 * gives folded text that reads again and writes to the same bytes (the writer's output is a
 * fixed point), and a report of the profile can be built and printed, its JSON valid. Input
 * that is a pprof profile instead is written as folded stacks with options picked by its hash
 * (a sample type, line numbers, label roots): that text reads as folded stacks (within the
 * limits) and writes again to the same bytes. Folded text read, written and read again names
 * the same functions. An accepted input gives a profile the checker finds no error in (but
 * S23: an escape may name a byte that is not UTF-8), and a refused one an error naming its
 * line once, in the path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "folded.h"
#include "fuzz.h"
#include "json-check.h"
#include "report.h"

/* Error-level findings of the checker in p. */
static uint64_t
check_errors(pprof_profile *p)
{
    bool on[PPROF_RULE_COUNT];
    for (unsigned r = 0; r < PPROF_RULE_COUNT; r++)
        on[r] = pprof_rule_get((pprof_rule)r)->severity == PPROF_SEVERITY_ERROR;
    /* raw text must be UTF-8, but an escape \xHH gives any byte on purpose (what the writer
     * escaped reads back as it was) */
    on[PPROF_RULE_S23_UTF8] = false;
    pprof_check_options co = PPROF_CHECK_OPTIONS_INIT;
    co.enabled = on;
    co.n_enabled = PPROF_RULE_COUNT;
    co.max_findings = 0;
    pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
    pprof_error err;
    FUZZ_CHECK(pprof_check(p, &co, NULL, NULL, &sum, &err) == PPROF_OK, "check failed: %s",
               err.message);
    return sum.count[PPROF_SEVERITY_ERROR];
}

static int
str_cmp(const void *x, const void *y)
{
    const pprof_string *a = x, *b = y;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->data, b->data, n) : 0;
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* Whether p and q name the same functions: folded text read back gives every name as it was,
 * whatever bytes it holds (the writer's escape and the reader's unescape undo each other). */
static bool
same_names(const pprof_profile *p, const pprof_profile *q)
{
    size_t n = pprof_profile_count(p, PPROF_TABLE_FUNCTION);
    if (n != pprof_profile_count(q, PPROF_TABLE_FUNCTION))
        return false;
    pprof_string *a = calloc(2 * n + 1, sizeof(pprof_string));
    FUZZ_CHECK(a != NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        pprof_profile_string(p, pprof_profile_function(p, i).name, &a[i]);
        pprof_profile_string(q, pprof_profile_function(q, i).name, &a[n + i]);
    }
    qsort(a, n, sizeof(*a), str_cmp);
    qsort(a + n, n, sizeof(*a), str_cmp);
    bool same = true;
    for (size_t i = 0; i < n && same; i++)
        same = !str_cmp(&a[i], &a[n + i]);
    free(a);
    return same;
}

/* A pprof profile written as folded stacks with options from h. */
static void
check_profile(const uint8_t *data, size_t size, const pprof_folded_read_options *ro)
{
    pprof_read_options po = fuzz_read_options();
    pprof_profile *p = NULL, *q = NULL;
    if (pprof_profile_read_memory(data, size, &po, &p, NULL) != PPROF_OK)
        return;
    uint64_t h = fuzz_hash(data, size);
    static const char *const keys[] = {"tenant", "thread_id", "bytes", "", "pid", "region"};
    pprof_folded_write_options wo = PPROF_FOLDED_WRITE_OPTIONS_INIT;
    wo.lines = h & 1;
    wo.labels = keys + (h >> 1) % 3;
    wo.n_labels = (h >> 3) % 4;
    size_t nt = pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE);
    char type[256];
    pprof_string ts;
    if (nt && (h >> 5) % 3 == 0 &&
        pprof_profile_string(p, pprof_profile_sample_type(p, (h >> 7) % nt).type, &ts)) {
        snprintf(type, sizeof(type), "%.*s", (int)ts.len, ts.data);
        wo.sample_type = type;
    }
    pprof_buffer a = {0}, b = {0};
    pprof_error err;
    pprof_status st = pprof_folded_write_memory(p, &wo, &a, &err);
    FUZZ_CHECK(st == PPROF_OK || (err.code == st && err.message[0]), "error without a message");
    pprof_status rst = st == PPROF_OK ? pprof_folded_read_memory(a.data, a.len, ro, &q, &err) : st;
    /* what the writer gives reads back (names with controls, NUL or bytes that are not UTF-8
     * are escaped), unless it is past the harness's limits */
    FUZZ_CHECK(st != PPROF_OK || rst == PPROF_OK || rst == PPROF_E_LIMIT,
               "the folded text written does not read back: %s: %s", err.path, err.message);
    if (rst == PPROF_OK) {
        FUZZ_CHECK(pprof_folded_write_memory(q, NULL, &b, &err) == PPROF_OK, "rewriting failed: %s",
                   err.message);
        FUZZ_CHECK(a.len == b.len && (a.len == 0 || !memcmp(a.data, b.data, a.len)),
                   "profile -> folded -> profile -> folded changed the bytes (%zu -> %zu)", a.len,
                   b.len);
    }
    pprof_buffer_free(&a);
    pprof_buffer_free(&b);
    pprof_profile_free(p);
    pprof_profile_free(q);
}

/* The read of the input and the write of what it gave, with one allocation failing at a few
 * points (FUZZ_FAIL_POINTS for more): PPROF_E_NOMEM with a message, or the same outcome, and no
 * leak. */
static void
folded_nomem(const uint8_t *data, size_t size, pprof_folded_read_options ro, uint64_t h)
{
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    ro.allocator = fuzz_failing_allocator(&fa);
    pprof_folded_write_options wo = PPROF_FOLDED_WRITE_OPTIONS_INIT;
    wo.allocator = ro.allocator;
    pprof_error err;
    pprof_profile *p = NULL;
    pprof_buffer out = {0};
    pprof_status want = pprof_folded_read_memory(data, size, &ro, &p, &err);
    if (want == PPROF_OK)
        want = pprof_folded_write_memory(p, &wo, &out, &err);
    pprof_profile_free(p);
    pprof_buffer_free(&out);
    uint64_t calls = fa.calls, points = fuzz_fail_points(4);
    for (uint64_t k = 0; k < points && k < calls; k++) {
        fa = (fuzz_failing_alloc){0, fuzz_fail_point(calls, k, points, h), 0};
        p = NULL;
        pprof_status st = pprof_folded_read_memory(data, size, &ro, &p, &err);
        if (st == PPROF_OK)
            st = pprof_folded_write_memory(p, &wo, &out, &err);
        FUZZ_CHECK(st == want || (st == PPROF_E_NOMEM && fa.failed && err.message[0]),
                   "allocation %llu failing gives %s (without: %s)", (unsigned long long)fa.fail_at,
                   pprof_status_name(st), pprof_status_name(want));
        pprof_profile_free(p);
        pprof_buffer_free(&out);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pprof_folded_read_options ro = PPROF_FOLDED_READ_OPTIONS_INIT;
    ro.max_input_bytes = 1 << 20;
    ro.max_stacks = 1 << 14;
    ro.max_frames = 1 << 14;
    folded_nomem(data, size, ro, fuzz_hash(data, size));
    pprof_error err;
    pprof_profile *p = NULL, *q = NULL;
    if (pprof_folded_read_memory(data, size, &ro, &p, &err) != PPROF_OK) {
        FUZZ_CHECK(err.code != PPROF_OK && err.message[0], "error without a message");
        FUZZ_CHECK(strncmp(err.message, "line ", 5) != 0, "the line is said twice: %s: %s",
                   err.path, err.message);
        FUZZ_CHECK(err.code != PPROF_E_INVALID || !strncmp(err.path, "line[", 5),
                   "an invalid input without its line: '%s'", err.path);
        check_profile(data, size, &ro);
        return 0;
    }
    uint64_t errors = check_errors(p);
    FUZZ_CHECK(errors == 0, "an accepted input gives %llu checker error(s)",
               (unsigned long long)errors);
    pprof_buffer a = {0}, b = {0}, r = {0};
    pprof_status st = pprof_folded_write_memory(p, NULL, &a, &err);
    FUZZ_CHECK(st == PPROF_OK, "writing an accepted input failed: %s", err.message);
    st = pprof_folded_read_memory(a.data, a.len, &ro, &q, &err);
    FUZZ_CHECK(st == PPROF_OK, "reading our own output failed: %s", err.message);
    st = pprof_folded_write_memory(q, NULL, &b, &err);
    FUZZ_CHECK(st == PPROF_OK, "writing again failed: %s", err.message);
    FUZZ_CHECK(a.len == b.len && (a.len == 0 || !memcmp(a.data, b.data, a.len)),
               "folded -> profile -> folded changed the bytes (%zu -> %zu)", a.len, b.len);
    FUZZ_CHECK(same_names(p, q), "folded -> profile -> folded -> profile changed the names");
    pprof_report *rep = NULL;
    st = pprof_report_new(p, NULL, &rep, &err);
    FUZZ_CHECK(st == PPROF_OK || st == PPROF_E_OVERFLOW, "report failed: %s", err.message);
    if (rep) {
        st = pprof_report_print(rep, PPROF_PRINT_TEXT, &r, &err);
        FUZZ_CHECK(st == PPROF_OK, "report print failed: %s", err.message);
        r.len = 0;
        st = pprof_report_print(rep, PPROF_PRINT_JSON, &r, &err);
        FUZZ_CHECK(st == PPROF_OK, "report JSON failed: %s", err.message);
        size_t bad = 0;
        FUZZ_CHECK(json_check(r.data, r.len, &bad), "report JSON invalid at byte %zu", bad);
    }
    pprof_report_free(rep);
    pprof_buffer_free(&a);
    pprof_buffer_free(&b);
    pprof_buffer_free(&r);
    pprof_profile_free(p);
    pprof_profile_free(q);
    return 0;
}
