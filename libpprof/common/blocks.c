/* Blocks in huge pages for mergers and their inputs (see memory-private.h for why). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memory-private.h"

typedef pprof__blk blk;
#define BIG PPROF__BIG_BLOCK
#define CACHE_BYTES ((size_t)256 << 20)
#define UNIT_SHIFT 13 /* medium blocks are 8 KiB << order */
#define UNIT ((size_t)1 << UNIT_SHIFT)
#define TOP (PPROF__BLOCKS_ORDERS - 1) /* a whole slab */
#define SLAB (UNIT << TOP)
/* Medium blocks of this order and up may be cached big blocks (cache_take_medium). */
#define MEDIUM_FROM_CACHE (TOP - 1)
_Static_assert(SLAB == BIG, "a slab is one huge page");

/* what starts at a unit: nothing (0), a block in use or a free block, with its order */
#define U_USED 0x40
#define U_FREE 0x80
#define U_ORDER 0x3f

typedef struct fnode {
    struct fnode *next, *prev;
} fnode;

struct pprof__blocks {
    pthread_mutex_t mu;
    atomic_size_t refs;
    /* big blocks: freed mappings kept for reuse */
    blk *cache[PPROF__BLOCKS_CACHE_SLOTS];
    size_t n_cached, cached_bytes;
    /* medium blocks: the buddy system's region, its slabs handed out so far, the free lists
     * (threaded through the free blocks) and one byte per unit saying what starts there */
    uint8_t *region;
    size_t region_len, slabs_used;
    fnode *free_list[PPROF__BLOCKS_ORDERS];
    uint8_t *unit;
};

/* Reserved address space (no memory until touched): 16 GiB of medium blocks at most, which no
 * merge comes near; a smaller one where address space is limited, none if even that fails. */
static const size_t region_sizes[] = {(size_t)16 << 30, (size_t)1 << 30};

static void
reserve_region(pprof__blocks *b)
{
    for (size_t i = 0; i < sizeof(region_sizes) / sizeof(region_sizes[0]); i++) {
        size_t len = region_sizes[i];
        uint8_t *r = pprof__mem_reserve(len, true);
        if (!r)
            continue;
        uint8_t *unit = pprof__mem_reserve(len >> UNIT_SHIFT, false);
        if (!unit) {
            pprof__mem_unmap_big(r, len);
            continue;
        }
        b->region = r;
        b->region_len = len;
        b->unit = unit;
        return;
    }
}

static bool
in_region(const pprof__blocks *b, const void *p)
{
    return b->region && (const uint8_t *)p >= b->region &&
           (const uint8_t *)p < b->region + b->region_len;
}

static size_t
unit_of(const pprof__blocks *b, const void *p)
{
    return (size_t)((const uint8_t *)p - b->region) >> UNIT_SHIFT;
}

static void
push(pprof__blocks *b, unsigned order, void *p)
{
    fnode *n = p, *head = b->free_list[order];
    n->next = head;
    n->prev = NULL;
    if (head)
        head->prev = n;
    b->free_list[order] = n;
    b->unit[unit_of(b, p)] = (uint8_t)(U_FREE | order);
}

static void
unlink_free(pprof__blocks *b, unsigned order, fnode *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else
        b->free_list[order] = n->next;
    if (n->next)
        n->next->prev = n->prev;
    b->unit[unit_of(b, n)] = 0;
}

static unsigned
order_for(size_t size)
{
    unsigned k = 0;
    while ((UNIT << k) < size)
        k++;
    return k;
}

/* A medium block of 2^order units, or NULL when the region is used up (or missing). Called with
 * the lock held. */
static void *
buddy_alloc(pprof__blocks *b, unsigned order)
{
    unsigned k = order;
    while (k <= TOP && !b->free_list[k])
        k++;
    uint8_t *p;
    if (k <= TOP) {
        p = (uint8_t *)b->free_list[k];
        unlink_free(b, k, (fnode *)p);
    } else {
        if (!b->region || (b->slabs_used + 1) * SLAB > b->region_len)
            return NULL;
        p = b->region + b->slabs_used++ * SLAB;
        k = TOP;
    }
    while (k > order) { /* the upper halves go back, one of each order */
        k--;
        push(b, k, p + (UNIT << k));
    }
    b->unit[unit_of(b, p)] = (uint8_t)(U_USED | order);
    return p;
}

static void
buddy_free(pprof__blocks *b, void *p)
{
    size_t u = unit_of(b, p);
    unsigned k = b->unit[u] & U_ORDER;
    b->unit[u] = 0;
    while (k < TOP) {
        size_t bu = u ^ ((size_t)1 << k);
        if (b->unit[bu] != (U_FREE | k))
            break;
        unlink_free(b, k, (fnode *)(b->region + (bu << UNIT_SHIFT)));
        u &= ~((size_t)1 << k);
        k++;
    }
    push(b, k, b->region + (u << UNIT_SHIFT));
}

/* The smallest cached mapping of at least len bytes if there is one; else, unless fit_only, the
 * largest (to be grown); else NULL. Called with the lock held. */
static blk *
cache_take(pprof__blocks *b, size_t len, bool fit_only)
{
    size_t best = PPROF__BLOCKS_CACHE_SLOTS;
    for (size_t i = 0; i < b->n_cached; i++) {
        size_t s = b->cache[i]->size;
        if (fit_only && s < len)
            continue;
        size_t bs = best == PPROF__BLOCKS_CACHE_SLOTS ? 0 : b->cache[best]->size;
        if (best == PPROF__BLOCKS_CACHE_SLOTS ||
            (s >= len ? (bs < len || s < bs) : (bs < len && s > bs)))
            best = i;
    }
    if (best == PPROF__BLOCKS_CACHE_SLOTS)
        return NULL;
    blk *h = b->cache[best];
    b->cache[best] = b->cache[--b->n_cached];
    b->cached_bytes -= h->size;
    return h;
}

/* Whether a medium block of that order can be had without a fresh slab. Called with the lock
 * held. */
static bool
buddy_has(const pprof__blocks *b, unsigned order)
{
    for (unsigned k = order; k <= TOP; k++)
        if (b->free_list[k])
            return true;
    return false;
}

/* For a medium block of size bytes that would take a fresh slab: the smallest cached mapping
 * that holds it with at most one huge page to spare, whose pages are in memory already (a fresh
 * slab's are cleared by the kernel at first touch); NULL if there is none. Called with the lock
 * held. */
static blk *
cache_take_medium(pprof__blocks *b, size_t size)
{
    size_t want = size + sizeof(blk);
    blk *h = cache_take(b, want, true);
    if (h && h->size > want + BIG) { /* too large: kept for a big block */
        b->cache[b->n_cached++] = h;
        b->cached_bytes += h->size;
        return NULL;
    }
    return h;
}

/* A big block: a cached mapping resized to fit, else a fresh one; NULL where big blocks are
 * not mapped. */
static void *
big_alloc(pprof__blocks *b, size_t size)
{
    size_t want = size + sizeof(blk), len;
    pthread_mutex_lock(&b->mu);
    blk *h = cache_take(b, want, false);
    pthread_mutex_unlock(&b->mu);
    /* a much larger cached block is trimmed so that its resident tail is given back */
    if (h && (h->size < want || h->size / 2 > want)) {
        blk *r = pprof__mem_remap_big(h, h->size, want, &len);
        if (!r)
            pprof__mem_unmap_big(h, h->size);
        else
            r->size = len;
        h = r;
    }
    if (!h) {
        if (!(h = pprof__mem_map_big(want, &len)))
            return NULL;
        h->size = len;
    }
    h->mapped = 1;
    return h + 1;
}

static void
big_free(pprof__blocks *b, blk *h)
{
    pthread_mutex_lock(&b->mu);
    bool kept = b->n_cached < PPROF__BLOCKS_CACHE_SLOTS && b->cached_bytes + h->size <= CACHE_BYTES;
    if (kept) {
        b->cache[b->n_cached++] = h;
        b->cached_bytes += h->size;
    }
    pthread_mutex_unlock(&b->mu);
    if (!kept)
        pprof__mem_unmap_big(h, h->size);
}

static void *
blocks_alloc(void *ctx, size_t size)
{
    pprof__blocks *b = ctx;
    if (size > SIZE_MAX / 2)
        return NULL;
    if (size >= BIG) {
        void *p = big_alloc(b, size);
        if (p)
            return p;
    } else if (size >= UNIT && b->region) {
        unsigned order = order_for(size);
        pthread_mutex_lock(&b->mu);
        blk *h =
            order >= MEDIUM_FROM_CACHE && !buddy_has(b, order) ? cache_take_medium(b, size) : NULL;
        void *p = h ? NULL : buddy_alloc(b, order);
        pthread_mutex_unlock(&b->mu);
        if (h) {
            h->mapped = 1;
            return h + 1;
        }
        if (p)
            return p;
    }
    return pprof__heap_blk(size);
}

static void
blocks_free(void *ctx, void *p)
{
    pprof__blocks *b = ctx;
    if (!p)
        return;
    if (in_region(b, p)) {
        pthread_mutex_lock(&b->mu);
        buddy_free(b, p);
        pthread_mutex_unlock(&b->mu);
        return;
    }
    blk *h = (blk *)p - 1;
    if (h->mapped)
        big_free(b, h);
    else
        free(h);
}

static void *
blocks_realloc(void *ctx, void *p, size_t size)
{
    pprof__blocks *b = ctx;
    if (!p)
        return blocks_alloc(ctx, size);
    if (size > SIZE_MAX / 2)
        return NULL;
    size_t have; /* usable bytes of p */
    if (in_region(b, p)) {
        /* only p's owner changes what its unit says: no lock needed to read it */
        have = UNIT << (b->unit[unit_of(b, p)] & U_ORDER);
        if (size <= have && (size > have / 4 || have == UNIT))
            return p; /* shrunk to a quarter or less, it moves to a smaller block */
    } else {
        blk *h = (blk *)p - 1;
        if (h->mapped && size >= BIG) {
            size_t want = size + sizeof(blk), len;
            if (want <= h->size)
                return p;
            /* A cached mapping that fits has its pages already: copying into it is cheaper
             * than faulting in the grown tail (arrays double, so the copy is at most what was
             * used). */
            pthread_mutex_lock(&b->mu);
            blk *r = cache_take(b, want, true);
            pthread_mutex_unlock(&b->mu);
            if (r) {
                memcpy(r + 1, p, h->size - sizeof(blk));
                r->mapped = 1;
                big_free(b, h);
                return r + 1;
            }
            if (!(r = pprof__mem_remap_big(h, h->size, want, &len)))
                return NULL;
            r->size = len;
            return r + 1;
        }
        if (!h->mapped && size < UNIT)
            return pprof__heap_blk_resize(h, size);
        have = h->mapped ? h->size - sizeof(blk) : h->size;
    }
    void *n = blocks_alloc(ctx, size);
    if (!n)
        return NULL;
    memcpy(n, p, have < size ? have : size);
    blocks_free(ctx, p);
    return n;
}

pprof__blocks *
pprof__blocks_new(void)
{
    pprof__blocks *b = calloc(1, sizeof(*b));
    if (!b)
        return NULL;
    if (pthread_mutex_init(&b->mu, NULL)) {
        free(b);
        return NULL;
    }
    atomic_init(&b->refs, 1);
    reserve_region(b);
    return b;
}

pprof__blocks *
pprof__blocks_ref(pprof__blocks *b)
{
    if (b)
        atomic_fetch_add(&b->refs, 1);
    return b;
}

void
pprof__blocks_release(pprof__blocks *b)
{
    if (!b || atomic_fetch_sub(&b->refs, 1) != 1)
        return;
    for (size_t i = 0; i < b->n_cached; i++)
        pprof__mem_unmap_big(b->cache[i], b->cache[i]->size);
    if (b->region) {
        pprof__mem_unmap_big(b->region, b->region_len);
        pprof__mem_unmap_big(b->unit, b->region_len >> UNIT_SHIFT);
    }
    pthread_mutex_destroy(&b->mu);
    free(b);
}

pprof__blocks *
pprof__blocks_of(const pprof_allocator *a)
{
    return a && a->alloc == blocks_alloc ? pprof__blocks_ref(a->ctx) : NULL;
}

pprof_allocator
pprof__blocks_allocator(pprof__blocks *b)
{
    return (pprof_allocator){
        .alloc = blocks_alloc, .realloc = blocks_realloc, .free = blocks_free, .ctx = b};
}

pprof__blocks *
pprof__blocks_for_work(const pprof_allocator *a, size_t n)
{
    return pprof__allocator_custom(a) || n < PPROF__BLOCKS_MIN_WORK ? NULL : pprof__blocks_new();
}
