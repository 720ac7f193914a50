/* Container detection, decompression and decoding with small limits. Every view of an accepted
 * profile is walked, and the same input is read again with one allocation failing, chosen from
 * the input, to reach the out-of-memory paths (which must report PPROF_E_NOMEM, or change
 * nothing when the allocation was optional, and leak nothing). */
#include <string.h>

#include "fuzz.h"
#include "merge.h"

static void
check_error(pprof_status st, const pprof_error *err)
{
    FUZZ_CHECK(strncmp(pprof_status_name(st), "PPROF_", 6) == 0, "bad status name");
    FUZZ_CHECK(err->code == st, "returned %d but error says %d", st, err->code);
    FUZZ_CHECK(memchr(err->path, 0, sizeof(err->path)) != NULL, "path not terminated");
    FUZZ_CHECK(memchr(err->message, 0, sizeof(err->message)) != NULL, "message not terminated");
    FUZZ_CHECK(err->message[0] != 0, "empty message for %s", pprof_status_name(st));
}

static uint64_t
walk(const pprof_profile *p)
{
    uint64_t acc = 0; /* summed so the reads cannot be optimised away */
    pprof_string s;
    size_t n_str = pprof_profile_count(p, PPROF_TABLE_STRING);
    for (size_t i = 0; i < n_str; i++) {
        FUZZ_CHECK(pprof_profile_string(p, (int64_t)i, &s), "string %zu missing", i);
        acc += s.len ? (uint8_t)s.data[0] + (uint8_t)s.data[s.len - 1] : 0;
    }
    FUZZ_CHECK(!pprof_profile_string(p, (int64_t)n_str, &s), "string past the end");
    FUZZ_CHECK(!pprof_profile_string(p, -1, &s), "negative string index");
    pprof_header h = pprof_profile_header(p);
    for (size_t i = 0; i < h.n_comment; i++)
        acc += (uint64_t)h.comment[i];
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE); i++)
        acc += (uint64_t)pprof_profile_sample_type(p, i).unit;
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE); i++) {
        pprof_sample x = pprof_profile_sample(p, i);
        for (size_t j = 0; j < x.n_location_id; j++) {
            size_t k;
            if (pprof_profile_find_location(p, x.location_id[j], &k)) {
                FUZZ_CHECK(k < pprof_profile_count(p, PPROF_TABLE_LOCATION), "bad index");
                FUZZ_CHECK(pprof_profile_location(p, k).id == x.location_id[j], "wrong location");
            }
        }
        for (size_t j = 0; j < x.n_value; j++)
            acc += (uint64_t)x.value[j];
        for (size_t j = 0; j < x.n_label; j++)
            acc += (uint64_t)x.label[j].num;
    }
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_LOCATION); i++) {
        pprof_location l = pprof_profile_location(p, i);
        size_t k;
        if (l.mapping_id && pprof_profile_find_mapping(p, l.mapping_id, &k))
            FUZZ_CHECK(pprof_profile_mapping(p, k).id == l.mapping_id, "wrong mapping");
        for (size_t j = 0; j < l.n_line; j++)
            if (pprof_profile_find_function(p, l.line[j].function_id, &k))
                FUZZ_CHECK(pprof_profile_function(p, k).id == l.line[j].function_id,
                           "wrong function");
        FUZZ_CHECK(pprof_profile_find_location(p, l.id, &k) == (l.id != 0),
                   "location id %llu not found", (unsigned long long)l.id);
    }
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_FUNCTION); i++)
        acc += (uint64_t)pprof_profile_function(p, i).start_line;
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_MAPPING); i++)
        acc += pprof_profile_mapping(p, i).memory_limit;
    return acc;
}

/* Finishes m into raw bytes; a sum past int64 is found only here (PPROF_E_OVERFLOW). */
static pprof_status
raw_bytes(pprof_merger *m, pprof_buffer *out)
{
    pprof_profile *r = NULL;
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_RAW;
    pprof_error e;
    pprof_status st = pprof_merger_finish(m, &r, &e);
    FUZZ_CHECK(st == PPROF_OK || st == PPROF_E_OVERFLOW, "finish failed: %s", e.message);
    if (st == PPROF_OK)
        FUZZ_CHECK(pprof_profile_write_memory(r, &w, out, NULL) == PPROF_OK, "write failed");
    pprof_profile_free(r);
    return st;
}

/* A merge input decodes its samples only while the merger absorbs them. Merging it must agree
 * with merging the fully read profile (same status, same error path, same bytes), and what the
 * full read refuses must be refused by the input read or by the merge. */
static void
check_merge_input(const uint8_t *data, size_t size, pprof_profile *full, pprof_status full_st)
{
    pprof_read_options o = fuzz_read_options();
    pprof_merge_input *in = NULL;
    pprof_error e1, e2;
    pprof_status st_in = pprof_merge_input_read_memory(data, size, &o, &in, &e1);
    FUZZ_CHECK(full_st != PPROF_OK || st_in == PPROF_OK,
               "a merge input refuses what a full read accepts: %s", e1.message);
    if (st_in != PPROF_OK) {
        FUZZ_CHECK(in == NULL, "failed input read returned an input");
        check_error(st_in, &e1);
        return;
    }
    pprof_merger *a = NULL, *b = NULL;
    FUZZ_CHECK(pprof_merger_new(NULL, &a, NULL) == PPROF_OK, "merger_new failed");
    pprof_status sa = pprof_merger_add_input(a, in, "in", &e1);
    if (sa != PPROF_OK)
        check_error(sa, &e1);
    if (full_st != PPROF_OK) {
        FUZZ_CHECK(sa != PPROF_OK, "a merge input absorbed what a full read refuses (%s)",
                   pprof_status_name(full_st));
    } else {
        FUZZ_CHECK(pprof_merger_new(NULL, &b, NULL) == PPROF_OK, "merger_new failed");
        pprof_status sb = pprof_merger_add(b, full, "in", &e2);
        FUZZ_CHECK(sa == sb, "merge input %s (%s: %s), profile %s (%s: %s)", pprof_status_name(sa),
                   sa ? e1.path : "", sa ? e1.message : "", pprof_status_name(sb),
                   sb ? e2.path : "", sb ? e2.message : "");
        if (sa != PPROF_OK) {
            FUZZ_CHECK(strcmp(e1.path, e2.path) == 0, "error at %s vs %s", e1.path, e2.path);
        } else {
            pprof_buffer x = {0}, y = {0};
            pprof_status fa = raw_bytes(a, &x), fb = raw_bytes(b, &y);
            FUZZ_CHECK(fa == fb, "finishing: merge input %s, profile %s", pprof_status_name(fa),
                       pprof_status_name(fb));
            FUZZ_CHECK(x.len == y.len && (x.len == 0 || memcmp(x.data, y.data, x.len) == 0),
                       "merging the input and the profile gave different bytes");
            pprof_buffer_free(&x);
            pprof_buffer_free(&y);
        }
    }
    pprof_merger_free(a);
    pprof_merger_free(b);
    pprof_merge_input_free(in);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pprof_format fmt = pprof_detect_format(data, size);
    FUZZ_CHECK(strcmp(pprof_version_string(), PPROF_VERSION_STRING) == 0, "version mismatch");
    FUZZ_CHECK(pprof_format_name(fmt) != NULL, "no format name");

    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    pprof_read_options o = fuzz_read_options();
    o.allocator = fuzz_failing_allocator(&fa);
    pprof_error err, err2;
    pprof_profile *p = NULL, *p2 = NULL;
    pprof_status st = pprof_profile_read_memory(data, size, &o, &p, &err);
    uint64_t n = fa.calls; /* allocations made by the read alone, not by the id indices */
    if (st != PPROF_OK) {
        FUZZ_CHECK(p == NULL, "failed read returned a profile");
        check_error(st, &err);
    } else {
        FUZZ_CHECK(pprof_profile_source_format(p) == fmt, "source format differs");
        volatile uint64_t sink = walk(p);
        (void)sink;
        FUZZ_CHECK(pprof_profile_equal(p, p), "profile differs from itself");
    }

    /* Same input, one allocation failing: it is reported as PPROF_E_NOMEM, or it was only a
     * hint (the decoder presizes its tables best-effort) and the outcome is the same. One point
     * from the input's hash while fuzzing, more with FUZZ_FAIL_POINTS. */
    uint64_t points = fuzz_fail_points(1), h = fuzz_hash(data, size);
    for (uint64_t k = 0; k < points && k < n; k++) {
        fa.calls = 0;
        fa.failed = 0;
        fa.fail_at = fuzz_fail_point(n, k, points, h) % n;
        pprof_status st2 = pprof_profile_read_memory(data, size, &o, &p2, &err2);
        FUZZ_CHECK(fa.failed == 1, "allocation %llu of %llu never happened on the rerun",
                   (unsigned long long)fa.fail_at, (unsigned long long)n);
        if (st2 != PPROF_OK) {
            FUZZ_CHECK(p2 == NULL, "failed read returned a profile");
            check_error(st2, &err2);
        }
        if (st2 != PPROF_E_NOMEM) {
            FUZZ_CHECK(st2 == st, "allocation failure reported as %s (first run: %s)",
                       pprof_status_name(st2), pprof_status_name(st));
            FUZZ_CHECK(st == PPROF_OK ? pprof_profile_equal(p, p2)
                                      : strcmp(err.path, err2.path) == 0 &&
                                            strcmp(err.message, err2.message) == 0,
                       "an ignored allocation failure changed the outcome");
        }
        pprof_profile_free(p2);
        p2 = NULL;
    }
    check_merge_input(data, size, p, st);
    pprof_profile_free(p);
    pprof_profile_free(p2);
    return 0;
}
