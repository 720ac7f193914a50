/* The tools' allocator (see blocks.h for why). */
#define _GNU_SOURCE /* mremap */
#include "blocks.h"
#include "blk-private.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Big and malloc'd blocks carry the library's block header; medium blocks are known by their
 * address. Under AddressSanitizer every block comes from malloc, where it gets redzones. */
#if defined(PPROF__HUGE_BLOCKS) && defined(MAP_NORESERVE)
#define BLOCKS_HUGE 1
#endif

typedef pprof__blk blk;
#define BIG_BLOCK PPROF__BIG_BLOCK
#define CACHE_BYTES ((size_t)256 << 20)
#define UNIT_SHIFT 13 /* medium blocks are 8 KiB << order */
#define UNIT ((size_t)1 << UNIT_SHIFT)
#define MED_MIN UNIT
#define TOP (TOOL_BLOCKS_ORDERS - 1) /* a whole slab */
#define SLAB (UNIT << TOP)
_Static_assert(SLAB == BIG_BLOCK, "a slab is one huge page");

/* what starts at a unit: nothing (0), a block in use or a free block, with its order */
#define U_USED 0x40
#define U_FREE 0x80
#define U_ORDER 0x3f

typedef struct fnode {
    struct fnode *next, *prev;
} fnode;

#ifdef BLOCKS_HUGE
/* Reserved address space (no memory until touched): 16 GiB of medium blocks at most, which
 * no merge comes near; a smaller one where address space is limited, none if even that
 * fails. */
static const size_t region_sizes[] = {(size_t)16 << 30, (size_t)1 << 30};

static void
reserve_region(tool_blocks *b)
{
    for (size_t i = 0; i < sizeof(region_sizes) / sizeof(region_sizes[0]); i++) {
        size_t len = region_sizes[i], units = len >> UNIT_SHIFT;
        uint8_t *raw = mmap(NULL, len + SLAB, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (raw == MAP_FAILED)
            continue;
        uint8_t *unit = mmap(NULL, units, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (unit == MAP_FAILED) {
            munmap(raw, len + SLAB);
            continue;
        }
        /* slabs aligned to huge pages: only aligned 2 MiB ranges can become one */
        uint8_t *r = (uint8_t *)(((uintptr_t)raw + SLAB - 1) & ~(uintptr_t)(SLAB - 1));
        if (r > raw)
            munmap(raw, (size_t)(r - raw));
        if (r + len < raw + len + SLAB)
            munmap(r + len, (size_t)(raw + len + SLAB - (r + len)));
        madvise(r, len, MADV_HUGEPAGE); /* advice only: failure costs speed, not bytes */
        b->region = r;
        b->region_len = len;
        b->unit = unit;
        return;
    }
}

static bool
in_region(const tool_blocks *b, const void *p)
{
    return b->region && (const uint8_t *)p >= b->region &&
           (const uint8_t *)p < b->region + b->region_len;
}

static size_t
unit_of(const tool_blocks *b, const void *p)
{
    return (size_t)((const uint8_t *)p - b->region) >> UNIT_SHIFT;
}

static void
push(tool_blocks *b, unsigned order, void *p)
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
unlink_free(tool_blocks *b, unsigned order, fnode *n)
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

/* A medium block of 2^order units, or NULL when the region is used up (or missing). Called
 * with the lock held. */
static void *
buddy_alloc(tool_blocks *b, unsigned order)
{
    unsigned k = order;
    while (k <= TOP && !b->free_list[k])
        k++;
    uint8_t *p;
    if (k <= TOP) {
        p = b->free_list[k];
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
buddy_free(tool_blocks *b, void *p)
{
    size_t u = unit_of(b, p);
    unsigned k = b->unit[u] & U_ORDER;
    while (k < TOP) {
        size_t bu = u ^ ((size_t)1 << k);
        if (b->unit[bu] != (U_FREE | k))
            break;
        unlink_free(b, k, (fnode *)(b->region + (bu << UNIT_SHIFT)));
        u &= ~((size_t)1 << k);
        k++;
    }
    b->unit[unit_of(b, p)] = 0;
    push(b, k, b->region + (u << UNIT_SHIFT));
}

static size_t
block_bytes(const tool_blocks *b, const void *p)
{
    return UNIT << (b->unit[unit_of(b, p)] & U_ORDER);
}

/* The smallest cached mapping of at least len bytes if there is one; else, unless fit_only, the
 * largest (to be grown); else NULL. Called with the lock held. */
static blk *
cache_take(tool_blocks *b, size_t len, bool fit_only)
{
    size_t best = TOOL_BLOCKS_CACHE_SLOTS;
    for (size_t i = 0; i < b->n_cached; i++) {
        size_t s = ((blk *)b->cache[i])->size;
        if (fit_only && s < len)
            continue;
        size_t bs = best == TOOL_BLOCKS_CACHE_SLOTS ? 0 : ((blk *)b->cache[best])->size;
        if (best == TOOL_BLOCKS_CACHE_SLOTS ||
            (s >= len ? (bs < len || s < bs) : (bs < len && s > bs)))
            best = i;
    }
    if (best == TOOL_BLOCKS_CACHE_SLOTS)
        return NULL;
    blk *h = b->cache[best];
    b->cache[best] = b->cache[--b->n_cached];
    b->cached_bytes -= h->size;
    return h;
}

static void *
big_alloc(tool_blocks *b, size_t size)
{
    size_t len = pprof__big_len(size);
    pthread_mutex_lock(&b->mu);
    blk *h = cache_take(b, len, false);
    pthread_mutex_unlock(&b->mu);
    /* A much larger cached block is trimmed so that its resident tail is given back. */
    if (h && (h->size < len || h->size / 2 > len)) {
        blk *r = pprof__big_resize(h, len);
        if (!r)
            munmap(h, h->size);
        h = r;
    }
    if (!h && !(h = pprof__big_map(len)))
        return NULL;
    h->mapped = 1;
    return h + 1;
}

static void
big_free(tool_blocks *b, blk *h)
{
    pthread_mutex_lock(&b->mu);
    bool kept = b->n_cached < TOOL_BLOCKS_CACHE_SLOTS && b->cached_bytes + h->size <= CACHE_BYTES;
    if (kept) {
        b->cache[b->n_cached++] = h;
        b->cached_bytes += h->size;
    }
    pthread_mutex_unlock(&b->mu);
    if (!kept)
        munmap(h, h->size);
}
#endif

void *
tool_blocks_alloc(void *ctx, size_t size)
{
    if (size > SIZE_MAX / 2)
        return NULL;
#ifdef BLOCKS_HUGE
    tool_blocks *b = ctx;
    if (size >= BIG_BLOCK)
        return big_alloc(b, size);
    if (size >= MED_MIN && b->region) {
        pthread_mutex_lock(&b->mu);
        void *p = buddy_alloc(b, order_for(size));
        pthread_mutex_unlock(&b->mu);
        if (p)
            return p;
    }
#else
    (void)ctx;
#endif
    return pprof__heap_blk(size);
}

void
tool_blocks_free(void *ctx, void *p)
{
    if (!p)
        return;
#ifdef BLOCKS_HUGE
    tool_blocks *b = ctx;
    if (in_region(b, p)) {
        pthread_mutex_lock(&b->mu);
        buddy_free(b, p);
        pthread_mutex_unlock(&b->mu);
        return;
    }
    blk *h = (blk *)p - 1;
    if (h->mapped) {
        big_free(b, h);
        return;
    }
#else
    (void)ctx;
    blk *h = (blk *)p - 1;
#endif
    free(h);
}

void *
tool_blocks_realloc(void *ctx, void *p, size_t size)
{
    if (!p)
        return tool_blocks_alloc(ctx, size);
    if (size > SIZE_MAX / 2)
        return NULL;
#ifdef BLOCKS_HUGE
    tool_blocks *b = ctx;
    size_t have; /* usable bytes of p */
    if (in_region(b, p)) {
        /* only p's owner changes what its unit says: no lock needed to read it */
        have = block_bytes(b, p);
        if (size <= have && (size > have / 4 || have == MED_MIN))
            return p; /* shrunk to a quarter or less, it moves to a smaller block */
    } else {
        blk *h = (blk *)p - 1;
        if (h->mapped && size >= BIG_BLOCK) {
            size_t len = pprof__big_len(size);
            if (len <= h->size)
                return p;
            /* A cached mapping that fits has its pages already: copying into it is cheaper
             * than faulting in the grown tail (arrays double, so the copy is at most what was
             * used). */
            pthread_mutex_lock(&b->mu);
            blk *r = cache_take(b, len, true);
            pthread_mutex_unlock(&b->mu);
            if (r) {
                memcpy(r + 1, p, h->size - sizeof(blk));
                r->mapped = 1;
                big_free(b, h);
                return r + 1;
            }
            r = pprof__big_resize(h, len);
            return r ? r + 1 : NULL;
        }
        if (!h->mapped && size < MED_MIN)
            return pprof__heap_blk_resize(h, size);
        have = h->mapped ? h->size - sizeof(blk) : h->size;
    }
    void *n = tool_blocks_alloc(ctx, size);
    if (!n)
        return NULL;
    memcpy(n, p, have < size ? have : size);
    tool_blocks_free(ctx, p);
    return n;
#else
    (void)ctx;
    return pprof__heap_blk_resize((blk *)p - 1, size);
#endif
}

bool
tool_blocks_init(tool_blocks *b)
{
    memset(b, 0, sizeof(*b));
    if (pthread_mutex_init(&b->mu, NULL))
        return false;
#ifdef BLOCKS_HUGE
    reserve_region(b);
#endif
    return true;
}

void
tool_blocks_destroy(tool_blocks *b)
{
#ifdef BLOCKS_HUGE
    for (size_t i = 0; i < b->n_cached; i++)
        munmap(b->cache[i], ((blk *)b->cache[i])->size);
    if (b->region) {
        munmap(b->region, b->region_len);
        munmap(b->unit, b->region_len >> UNIT_SHIFT);
    }
#endif
    pthread_mutex_destroy(&b->mu);
    memset(b, 0, sizeof(*b));
}

pprof_allocator
tool_blocks_allocator(tool_blocks *b)
{
    pprof_allocator a = {tool_blocks_alloc, tool_blocks_realloc, tool_blocks_free, b};
    return a;
}
