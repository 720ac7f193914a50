/* Id lookups: dense ids, sparse and huge ids, unordered and duplicated ids, id 0, and many ids,
 * for mappings, locations and functions alike. */
#include "pb.h"
#include "testutil.h"

/* A profile whose three tables hold the given ids, in that order. */
static pprof_profile *
with_ids(const uint64_t *ids, size_t n)
{
    pb b = {0}, s = {0};
    pb_str(&b, 6, ""); /* never an empty input, also for empty tables */
    for (uint32_t table = 3; table <= 5; table++)
        for (size_t i = 0; i < n; i++) {
            pb_v(&s, 1, ids[i]);
            pb_v(&s, table == 5 ? 5 : 3, i + 1); /* start_line or address: tells entries apart */
            pb_msg_free(&b, table, &s);
        }
    pprof_profile *p = NULL;
    tu_decode_raw(b.d, b.n, NULL, &p, NULL);
    pb_free(&b);
    return p;
}

typedef bool (*finder)(const pprof_profile *, uint64_t, size_t *);

static const finder FINDERS[] = {pprof_profile_find_mapping, pprof_profile_find_location,
                                 pprof_profile_find_function};
static const char *const TABLES[] = {"mapping", "location", "function"};

/* Every table finds id -> want (SIZE_MAX: not found). */
static bool
finds(const pprof_profile *p, uint64_t id, size_t want)
{
    for (int f = 0; f < 3; f++) {
        size_t idx = SIZE_MAX;
        bool found = FINDERS[f](p, id, &idx);
        if (want == SIZE_MAX ? found : (!found || idx != want)) {
            tap_diag("%s id %llu: found %d at %zu, want %zu", TABLES[f], (unsigned long long)id,
                     found, idx, want);
            return false;
        }
    }
    return true;
}

static void
test_cases(tap *t)
{
    {
        const uint64_t ids[] = {1, 2, 3, 4};
        pprof_profile *p = with_ids(ids, 4);
        tap_ok(t,
               p && finds(p, 1, 0) && finds(p, 4, 3) && finds(p, 0, SIZE_MAX) &&
                   finds(p, 5, SIZE_MAX) && finds(p, UINT64_MAX, SIZE_MAX),
               "dense ids 1..4");
        pprof_profile_free(p);
    }
    {
        const uint64_t ids[] = {UINT64_MAX, 1000000007, 3, UINT64_C(1) << 63, 17};
        pprof_profile *p = with_ids(ids, 5);
        bool ok = p;
        for (size_t i = 0; ok && i < 5; i++)
            ok = finds(p, ids[i], i);
        tap_ok(t,
               ok && finds(p, 1, SIZE_MAX) && finds(p, 2, SIZE_MAX) &&
                   finds(p, (UINT64_C(1) << 63) + 1, SIZE_MAX),
               "sparse, huge and unordered ids");
        pprof_profile_free(p);
    }
    {
        /* a later duplicate wins, as in Go's reader */
        const uint64_t ids[] = {5, 9, 5, 1, 9};
        pprof_profile *p = with_ids(ids, 5);
        tap_ok(t, p && finds(p, 5, 2) && finds(p, 9, 4) && finds(p, 1, 3),
               "duplicate ids resolve to the last one");
        pprof_profile_free(p);
    }
    {
        /* ids 1..n but out of order, and with a 0 in the middle */
        const uint64_t ids[] = {2, 1, 3, 0, 4};
        pprof_profile *p = with_ids(ids, 5);
        tap_ok(t, p && finds(p, 2, 0) && finds(p, 1, 1) && finds(p, 4, 4) && finds(p, 0, SIZE_MAX),
               "ids 1..n out of order, id 0 never found");
        pprof_profile_free(p);
    }
    {
        const uint64_t ids[] = {0};
        pprof_profile *p = with_ids(ids, 0);
        tap_ok(t, p && finds(p, 0, SIZE_MAX) && finds(p, 1, SIZE_MAX), "empty tables");
        pprof_profile_free(p);
    }
    {
        /* many ids from a fixed generator, with collisions in the low bits */
        size_t n = 20000;
        uint64_t *ids = malloc(n * sizeof(uint64_t)), st = 42;
        for (size_t i = 0; i < n; i++)
            ids[i] = (pb_rand(&st) << 20) | 1; /* low bits equal: probes must cope */
        pprof_profile *p = with_ids(ids, n);
        bool ok = p;
        for (size_t i = 0; ok && i < n; i++) {
            /* a duplicate would make an earlier index wrong: check against the last one */
            size_t want = i;
            for (size_t j = i + 1; j < n; j++)
                if (ids[j] == ids[i])
                    want = j;
            ok = finds(p, ids[i], want);
            if (i > 200) /* the quadratic duplicate scan only for a prefix */
                break;
        }
        for (size_t i = 0; ok && i < n; i++) {
            size_t idx;
            ok = pprof_profile_find_location(p, ids[i], &idx) && ids[idx] == ids[i];
        }
        for (size_t i = 0; ok && i < 1000; i++)
            ok = finds(p, (pb_rand(&st) << 20) | 2, SIZE_MAX);
        tap_ok(t, ok, "%zu random ids all found, absent ids not", n);
        pprof_profile_free(p);
        free(ids);
    }
    /* the lookup also works on a profile that was written and read back */
    {
        const uint64_t ids[] = {10, 20, 30};
        pprof_profile *p = with_ids(ids, 3), *q = NULL;
        pprof_buffer out = {0};
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        w.format = PPROF_FORMAT_RAW;
        bool ok = p && pprof_profile_write_memory(p, &w, &out, NULL) == PPROF_OK &&
                  tu_decode_raw(out.data, out.len, NULL, &q, NULL) == PPROF_OK;
        tap_ok(t, ok && finds(q, 20, 1) && finds(q, 1, SIZE_MAX), "lookups after a round trip");
        pprof_buffer_free(&out);
        pprof_profile_free(p);
        pprof_profile_free(q);
    }
}

int
main(void)
{
    tap t = {0};
    test_cases(&t);
    return tap_done(&t);
}
