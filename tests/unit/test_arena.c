/* Memory: the bump arena (alignment, large blocks, everything freed) and growable vectors
 * (growth, overflow refused), through a counting allocator. */
#include "memory-private.h"
#include "testutil.h"

typedef struct counting {
    long live;
    size_t calls;
    size_t fail_at;
} counting;

static void *
c_alloc(void *ctx, size_t n)
{
    counting *c = ctx;
    if (++c->calls == c->fail_at)
        return NULL;
    c->live++;
    return malloc(n);
}

static void *
c_realloc(void *ctx, void *p, size_t n)
{
    counting *c = ctx;
    if (++c->calls == c->fail_at)
        return NULL;
    if (!p)
        c->live++;
    return realloc(p, n);
}

static void
c_free(void *ctx, void *p)
{
    counting *c = ctx;
    if (p)
        c->live--;
    free(p);
}

static void
test_arena(tap *t)
{
    counting c = {0};
    pprof_allocator a = {c_alloc, c_realloc, c_free, &c};
    pprof__arena ar;
    pprof__arena_init(&ar, &a);
    bool aligned = true, distinct = true;
    uint8_t *prev = NULL;
    for (size_t i = 0; i < 5000; i++) {
        size_t n = i % 37;
        uint8_t *p = pprof__arena_alloc(&ar, n);
        if (!p || ((uintptr_t)p & 15))
            aligned = false;
        if (p && n)
            memset(p, (int)i, n); /* ASan would catch an overlap or overrun here */
        if (p == prev)
            distinct = false;
        prev = p;
    }
    tap_ok(t, aligned, "5000 allocations, all 16-byte aligned");
    tap_ok(t, distinct, "consecutive allocations are distinct, zero sizes too");
    long chunks_small = c.live;
    uint8_t *big = pprof__arena_alloc(&ar, 1 << 20);
    tap_ok(t, big && ((uintptr_t)big & 15) == 0, "an allocation larger than a chunk");
    if (big)
        memset(big, 1, 1 << 20);
    tap_ok(t, chunks_small > 0 && chunks_small < 40, "few chunks for many small blocks (%ld)",
           chunks_small);
    tap_ok(t, pprof__arena_alloc(&ar, SIZE_MAX - 8) == NULL, "an impossible size is refused");
    pprof__arena_destroy(&ar);
    tap_ok(t, c.live == 0, "destroy frees every chunk");

    c.fail_at = c.calls + 1;
    pprof__arena_init(&ar, &a);
    tap_ok(t, pprof__arena_alloc(&ar, 10) == NULL, "allocator failure gives NULL");
    c.fail_at = 0;
    tap_ok(t, pprof__arena_alloc(&ar, 10) != NULL, "and the arena works afterwards");
    pprof__arena_destroy(&ar);
    tap_ok(t, c.live == 0, "nothing leaked");
}

static void
test_vec(tap *t)
{
    counting c = {0};
    pprof_allocator a = {c_alloc, c_realloc, c_free, &c};
    pprof__vec v = {0};
    bool ok = true;
    for (uint64_t i = 0; i < 100000 && ok; i++) {
        uint64_t *slot = pprof__vec_push(&a, &v, sizeof(uint64_t));
        ok = slot != NULL;
        if (ok)
            *slot = i * 3;
    }
    for (size_t i = 0; i < v.len && ok; i++)
        ok = PPROF__AT(v, uint64_t, i) == i * 3;
    tap_ok(t, ok && v.len == 100000 && v.cap >= v.len, "100000 pushes keep every value");
    tap_ok(t, c.calls < 40, "growth is geometric (%zu reallocations)", c.calls);
    size_t cap = v.cap;
    tap_ok(t, pprof__vec_grow(&a, &v, sizeof(uint64_t), 10) && v.cap == cap,
           "growing to less than the capacity is a no-op");
    tap_ok(t,
           !pprof__vec_grow(&a, &v, sizeof(uint64_t), SIZE_MAX / 4) && v.cap == cap &&
               v.len == 100000,
           "an overflowing size is refused and the vector is unchanged");
    tap_ok(t, !pprof__vec_grow(&a, &v, SIZE_MAX / 2, cap + 1), "elem * cap overflow refused");
    c.fail_at = c.calls + 1;
    v.len = v.cap;
    tap_ok(t, pprof__vec_push(&a, &v, sizeof(uint64_t)) == NULL && v.len == cap,
           "a failed push returns NULL and keeps the length");
    c.fail_at = 0;
    pprof__free(&a, v.data);
    tap_ok(t, c.live == 0, "one block, freed");

    /* the default allocator (NULL fields) */
    pprof__vec w = {0};
    tap_ok(t, pprof__vec_push(NULL, &w, 8) != NULL, "NULL allocator uses malloc");
    pprof__free(NULL, w.data);
}

/* The resident bytes of the mappings overlapping [lo, hi), from /proc/self/smaps; -1 unknown. */
static long
resident(uintptr_t lo, uintptr_t hi)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    long kb = 0;
    bool in = false;
    while (fgets(line, sizeof(line), f)) {
        unsigned long s, e;
        long v;
        if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = s < hi && e > lo;
        else if (in && sscanf(line, "Rss: %ld kB", &v) == 1)
            kb += v;
    }
    fclose(f);
    return kb * 1024;
}

/* A big block whose last 2 MiB is barely used keeps that part in small pages: touching it all
 * makes resident about what is used, not a whole huge page more; it still grows and shrinks. */
static void
test_big_tail(tap *t)
{
    size_t used = ((size_t)4 << 20) + (64 << 10);
    uint8_t *p = pprof__malloc(NULL, used - sizeof(pprof__blk));
    pprof__blk *h = p ? (pprof__blk *)p - 1 : NULL;
    if (!h || !h->mapped) {
        tap_ok(t, p != NULL, "big block (kept on the heap in this build: nothing to check)");
        pprof__free(NULL, p);
        return;
    }
    memset(p, 1, used - sizeof(pprof__blk));
    long r = resident((uintptr_t)h, (uintptr_t)h + h->size);
    tap_ok(t, r >= 0 && (size_t)r <= used + ((size_t)256 << 10),
           "%zu bytes used of a %zu-byte mapping: %ld resident", used, h->size, r);
    uint8_t *q = pprof__realloc(NULL, p, 2 * used);
    bool same = q != NULL;
    for (size_t i = 0; q && i < used - sizeof(pprof__blk); i += 4093)
        same &= q[i] == 1;
    tap_ok(t, same, "it grows (mremap), the bytes kept");
    uint8_t *s = q ? pprof__realloc(NULL, q, used) : NULL;
    tap_ok(t, s && s[used / 2] == 1, "and shrinks");
    pprof__free(NULL, s ? s : q);
}

/* A medium block that would carve a fresh slab takes a freed big mapping that holds it (its
 * pages are in memory already), and behaves as any block: its bytes stay through a resize up
 * and down, and it goes back to the cache when freed. A much larger mapping is left for big
 * blocks. Where big blocks are not mapped (AddressSanitizer builds) only the bytes are checked. */
static void
test_medium_from_cache(tap *t)
{
    size_t len = 0;
    void *probe = pprof__mem_map_big(1, &len);
    bool mapped = probe != NULL;
    if (probe)
        pprof__mem_unmap_big(probe, len);
    pprof__blocks *b = pprof__blocks_new();
    if (!tap_ok(t, b != NULL, "blocks object"))
        return;
    pprof_allocator a = pprof__blocks_allocator(b);
    const size_t big = ((size_t)2 << 20) + 8, medium = (size_t)3 << 19; /* 2 MiB + 8, 1.5 MiB */
    uint8_t *p = pprof__malloc(&a, big);
    if (p)
        memset(p, 0x5a, big);
    pprof__free(&a, p);
    uint8_t *q = pprof__malloc(&a, medium);
    tap_ok(t, q && (!mapped || q == p),
           "a 1.5 MiB block with no slab carved yet is the freed 2 MiB mapping (%s)",
           mapped ? "mapped" : "heap blocks only");
    bool kept = q != NULL;
    for (size_t i = 0; q && i < medium; i++)
        q[i] = (uint8_t)(i * 7);
    uint8_t *r = q ? pprof__realloc(&a, q, (size_t)3 << 20) : NULL;
    for (size_t i = 0; r && i < medium; i += 4093)
        kept = kept && r[i] == (uint8_t)(i * 7);
    uint8_t *s2 = r ? pprof__realloc(&a, r, 100000) : NULL;
    for (size_t i = 0; s2 && i < 100000; i += 997)
        kept = kept && s2[i] == (uint8_t)(i * 7);
    tap_ok(t, r && s2 && kept, "its bytes stay through a resize to 3 MiB and down to 100 kB");
    pprof__free(&a, s2);
    pprof__blocks_release(b);
    /* a 16 MiB mapping is too large to give a 600 kB block: that one comes from a slab */
    if (!(b = pprof__blocks_new()))
        return;
    a = pprof__blocks_allocator(b);
    uint8_t *h = pprof__malloc(&a, (size_t)16 << 20);
    if (h)
        memset(h, 1, 4096);
    pprof__free(&a, h);
    uint8_t *m = pprof__malloc(&a, 600000);
    tap_ok(t, m && (!mapped || m != h), "a 16 MiB mapping is not taken for a 600 kB block");
    pprof__free(&a, m);
    pprof__blocks_release(b);
}

int
main(void)
{
    tap t = {0};
    test_arena(&t);
    test_vec(&t);
    test_big_tail(&t);
    test_medium_from_cache(&t);
    return tap_done(&t);
}
