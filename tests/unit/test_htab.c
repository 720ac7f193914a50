/* The common hash table (libpprof/htab.c): byte keys through the callback and the open-coded
 * probe, colliding hashes, reserve and sizing from an expected count, iteration, clear, the id
 * map, and a million entries. */
#include "htab-private.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const pprof_allocator A; /* the library's default allocator */

typedef struct words {
    char (*w)[16];
    size_t n;
} words;

static bool
word_eq(const void *ctx, uint32_t value, const void *key)
{
    const words *ws = ctx;
    return strcmp(ws->w[value], key) == 0;
}

static uint64_t
word_hash(const char *s)
{
    return pprof__hash_bytes(0, s, strlen(s));
}

/* Interns "w<i % distinct>" for i < n; each distinct word must get one value, the first. */
static bool
intern_words(uint64_t (*hash)(const char *), size_t n, size_t distinct, size_t *count)
{
    words ws = {calloc(distinct, 16), 0};
    pprof__htab t;
    bool ok = ws.w && pprof__htab_init(&t, &A, 0);
    for (size_t i = 0; ok && i < n; i++) {
        char key[16];
        snprintf(key, sizeof(key), "w%zu", i % distinct);
        bool added;
        uint32_t v =
            pprof__htab_intern(&t, &A, hash(key), word_eq, &ws, key, (uint32_t)ws.n, &added);
        if (v == PPROF_NONE || added != (i < distinct) || v != i % distinct) {
            printf("# key %s: value %u, added %d\n", key, v, added);
            ok = false;
            break;
        }
        if (added)
            memcpy(ws.w[ws.n++], key, 16);
    }
    *count = ok ? t.count : 0;
    pprof__htab_free(&t, &A);
    free(ws.w);
    return ok;
}

static uint64_t
same_hash(const char *s)
{
    (void)s;
    return 42;
}

static void
test_bytes(tap *t)
{
    size_t count = 0;
    tap_ok(t, intern_words(word_hash, 30000, 10000, &count) && count == 10000,
           "10000 distinct words interned three times each: one value per word");
    tap_ok(t, intern_words(same_hash, 600, 200, &count) && count == 200,
           "200 words with one hash: told apart by the equality test");
}

static void
test_probe_reserve_iterate(tap *t)
{
    pprof__htab h;
    bool ok = pprof__htab_init(&h, &A, 1000);
    uint64_t *before = h.slot;
    size_t cap = h.mask + 1;
    tap_ok(t, ok && cap * 3 >= 1001 * 4 && cap <= 4096, "sized from the expected count (%zu)", cap);
    /* Keys are the values times 7: the open-coded probe compares them inline. */
    for (uint32_t i = 0; ok && i < 1000; i++) {
        pprof__htab_probe p;
        uint32_t v;
        for (v = pprof__htab_probe_start(&h, pprof__mix64(i * 7), &p); v != PPROF_NONE;
             v = pprof__htab_probe_next(&h, &p))
            if (v * 7 == i * 7)
                break;
        if (v != PPROF_NONE) {
            ok = false;
            break;
        }
        pprof__htab_insert_at(&h, &p, i);
    }
    tap_ok(t, ok && h.slot == before && h.count == 1000,
           "1000 inserts within the expected count do not grow");
    bool all = true;
    for (uint32_t i = 0; i < 1000; i++) {
        pprof__htab_probe p;
        uint32_t v = pprof__htab_probe_start(&h, pprof__mix64(i * 7), &p);
        while (v != PPROF_NONE && v != i)
            v = pprof__htab_probe_next(&h, &p);
        all = all && v == i && pprof__htab_peek(&h, pprof__mix64(i * 7)) != PPROF_NONE;
    }
    tap_ok(t, all, "every value found again");
    unsigned char *seen = calloc(1000, 1);
    size_t n = 0, dup = 0;
    uint32_t v;
    for (size_t pos = 0; seen && pprof__htab_next(&h, &pos, &v);) {
        n++;
        dup += v >= 1000 || seen[v]++;
    }
    tap_ok(t, n == 1000 && dup == 0, "iteration visits each value once (%zu, %zu bad)", n, dup);
    free(seen);
    ok = pprof__htab_reserve(&h, &A, 5000);
    size_t grown = h.mask + 1;
    all = ok;
    for (uint32_t i = 1000; i < 6000; i++)
        pprof__htab_add(&h, pprof__mix64(i * 7), i);
    all = all && h.mask + 1 == grown && h.count == 6000;
    for (uint32_t i = 0; all && i < 6000; i++) {
        pprof__htab_probe p;
        uint32_t w = pprof__htab_probe_start(&h, pprof__mix64(i * 7), &p);
        while (w != PPROF_NONE && w != i)
            w = pprof__htab_probe_next(&h, &p);
        all = w == i;
    }
    tap_ok(t, all, "reserve then add: no growth during the adds, all 6000 found (%zu slots)",
           grown);
    pprof__htab_clear(&h);
    tap_ok(t,
           h.count == 0 && h.mask + 1 == grown &&
               pprof__htab_peek(&h, pprof__mix64(7)) == PPROF_NONE,
           "clear forgets the values and keeps the slots");
    pprof__htab_free(&h, &A);
    tap_ok(t, h.slot == NULL && pprof__htab_peek(&h, 1) == PPROF_NONE, "a freed table is empty");
}

static void
test_idmap(tap *t)
{
    pprof__u64map m;
    bool ok = pprof__u64map_init(&m, &A, 0);
    const uint64_t ids[] = {0, 1, UINT64_MAX, UINT64_C(1) << 63, 1000000007, 2, 3};
    for (size_t i = 0; ok && i < 7; i++) {
        uint32_t old;
        bool added;
        ok = pprof__u64map_put(&m, &A, ids[i], (uint32_t)i * 10, &old, &added) && added &&
             old == i * 10;
    }
    uint32_t old = 0;
    bool added = true;
    ok = ok && pprof__u64map_put(&m, &A, UINT64_MAX, 99, &old, &added) && !added && old == 20;
    for (size_t i = 0; ok && i < 7; i++)
        ok = pprof__u64map_get(&m, ids[i]) == i * 10 && m.e[i].key == ids[i];
    ok = ok && pprof__u64map_get(&m, 4) == PPROF_NONE && m.n == 7;
    tap_ok(t, ok,
           "u64 map: 0, huge and sparse ids, a second put keeps the first value, "
           "insertion order");
    pprof__u64map_free(&m, &A);

    /* A million ids, spread out, sized from the expected count. */
    ok = pprof__u64map_init(&m, &A, 1000000);
    size_t slots = m.t.mask + 1;
    for (uint32_t i = 0; ok && i < 1000000; i++)
        ok = pprof__u64map_put(&m, &A, (uint64_t)i * 0x9E3779B97F4A7C15u, i, &old, &added) && added;
    for (uint32_t i = 0; ok && i < 1000000; i++)
        ok = pprof__u64map_get(&m, (uint64_t)i * 0x9E3779B97F4A7C15u) == i;
    tap_ok(t, ok && m.t.mask + 1 == slots && pprof__u64map_get(&m, 1) == PPROF_NONE,
           "a million ids: all found, no growth past the expected count");
    pprof__u64map_free(&m, &A);
}

int
main(void)
{
    tap t = {0};
    test_bytes(&t);
    test_probe_reserve_iterate(&t);
    test_idmap(&t);
    return tap_done(&t);
}
