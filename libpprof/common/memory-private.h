/* Memory policy: how large buffers get their pages. The only place that knows about huge pages,
 * prefaulting, mapping and madvise. */
#ifndef PPROF_MEMORY_PRIVATE_H
#define PPROF_MEMORY_PRIVATE_H

#include "api-private.h"

#include <pthread.h>

#include <stdbool.h>
#include <stddef.h>

#include "pool-private.h"
#include "pprof/pprof.h"

/* Large buffers that are about to be filled are faulted in by a pool worker of their own, so that
 * the thread filling them (the one that limits the run) does not take the page faults.
 * MADV_POPULATE_WRITE faults pages in without touching their bytes, so the buffers may be in
 * use, even grown, moved or freed, meanwhile. */
#define PPROF__PREFAULT_MAX 8

typedef struct pprof__prefault {
    void *p[PPROF__PREFAULT_MAX];
    size_t len[PPROF__PREFAULT_MAX], n;
    pprof__job job;
    bool running;
} pprof__prefault;

/* ---- The default allocator's big blocks (arena.c): anonymous mappings of whole 2 MiB pages
 * with transparent huge pages asked for. A decoded model is about three times its input, and
 * with 4 KiB pages first-touch page faults dominate a one-shot decode on virtual machines. */
#define PPROF__BIG_BLOCK ((size_t)2 << 20)

/* A mapping of at least len bytes, its length (whole huge pages) in *mapped_len; NULL where big
 * blocks are not mapped (AddressSanitizer builds keep every block on the heap, where it gets
 * redzones; systems without MADV_HUGEPAGE or mremap) or the mapping failed. */
void *pprof__mem_map_big(size_t len, size_t *mapped_len);
/* Mapping m of old bytes resized to at least len bytes, its pages moving along; NULL on failure
 * (m still valid). */
void *pprof__mem_remap_big(void *m, size_t old, size_t len, size_t *mapped_len);
void pprof__mem_unmap_big(void *m, size_t len);
/* Address space of len bytes reserved without memory behind it until touched (MAP_NORESERVE),
 * aligned to and advised into huge pages when huge; NULL where big blocks are not mapped or the
 * reservation failed. Given back with pprof__mem_unmap_big. */
void *pprof__mem_reserve(size_t len, bool huge);

/* The default allocator's block header (arena.c): how a block was obtained, so that free and
 * realloc need nothing else. */
typedef struct pprof__blk {
    size_t size;   /* mapping length, or the malloc'd payload size */
    size_t mapped; /* 1 when the block is its own mapping */
} pprof__blk;

/* A heap block with that header, and one resized (stays on the heap). NULL when out of memory. */
void *pprof__heap_blk(size_t size);
void *pprof__heap_blk_resize(pprof__blk *h, size_t size);

/* ---- Blocks for work that allocates and frees the same tables again and again (a merger and
 * the inputs it decodes), in transparent huge pages:
 *   - blocks of PPROF__BIG_BLOCK and more are mappings of their own, whole huge pages long;
 *     freed ones are kept (bounded) and handed out again, resized with mremap;
 *   - blocks from 8 KiB up to 2 MiB come from a buddy system over 2 MiB slabs carved from one
 *     reserved huge-page region: a block freed by one thread serves the next allocation of
 *     another, freed buddies merge again, so what is resident stays near the peak of what is
 *     live, and no medium block costs a first-touch fault per 4 KiB page;
 *   - smaller blocks come from malloc.
 * First touches of 4 KiB pages dominate such work on virtual machines (docs/merge.md), and the
 * default allocator's medium blocks are malloc's, in small pages.
 * Blocks are interchangeable with the default allocator's only below 8 KiB, so a block must be
 * freed through the allocator that made it. The object is reference-counted: whoever holds
 * blocks made by it (a merger, the profile a merger finishes) holds a reference, and the last
 * release gives every byte back. Safe on many threads (one mutex). */
#define PPROF__BLOCKS_CACHE_SLOTS 16
#define PPROF__BLOCKS_ORDERS 9 /* 8 KiB << 0..8: 8 KiB to 2 MiB */

/* Whether a is the caller's own allocator rather than the default one. */
static inline bool
pprof__allocator_custom(const pprof_allocator *a)
{
    return a && a->alloc && a->realloc && a->free;
}

typedef struct pprof__blocks pprof__blocks;

/* A new object with one reference; NULL when out of memory. Without huge pages (or under
 * AddressSanitizer) it hands out heap blocks only. */
pprof__blocks *pprof__blocks_new(void);
/* Work on fewer bytes than this (an input's size, a profile's) keeps the default allocator:
 * the first touch of a blocks object's huge page costs what some dozens of small-page faults
 * do, more than small work saves. */
#define PPROF__BLOCKS_MIN_WORK ((size_t)256 << 10)
/* New blocks for work on about n bytes with a (NULL: the default allocator) when a is the
 * default allocator and n is at least PPROF__BLOCKS_MIN_WORK; else NULL, as when out of memory. */
PPROF_PRIVATE_API pprof__blocks *pprof__blocks_for_work(const pprof_allocator *a, size_t n);
/* Another reference to b (b may be NULL). */
pprof__blocks *pprof__blocks_ref(pprof__blocks *b);
/* Drops a reference; the last one gives every kept and reserved byte back, and no block made by
 * b may be in use then. b may be NULL. */
PPROF_PRIVATE_API void pprof__blocks_release(pprof__blocks *b);
/* The allocator hooks over b. */
PPROF_PRIVATE_API pprof_allocator pprof__blocks_allocator(pprof__blocks *b);
/* A new reference to the object behind a when a is such hooks, else NULL: whatever keeps blocks
 * of a beyond its maker's life (a profile) holds one. */
PPROF_PRIVATE_API pprof__blocks *pprof__blocks_of(const pprof_allocator *a);
/* Sets *a to m's blocks allocator when m has one (merge.c). */
struct pprof_merger;
void pprof__merger_blocks(const struct pprof_merger *m, pprof_allocator *a);

/* Asks that [p, p + len) stay in small pages (advice only: failing changes nothing but memory),
 * for a buffer that will be filled only in part. */
void pprof__mem_small_pages(void *p, size_t len);
/* Asks that the whole 2 MiB pages within [p, p + len) be huge pages when first touched (advice
 * only), for a large buffer about to be filled. */
void pprof__mem_huge_pages(void *p, size_t len);

/* Notes [p, p + len) to be faulted in; small buffers and any past the first eight are not. */
void pprof__prefault_add(pprof__prefault *pf, void *p, size_t len);
/* Starts faulting in what was noted, on a worker of pool (nothing when none is free). */
void pprof__prefault_start(pprof__prefault *pf, pprof__pool *pool);
/* Waits for that job; a no-op when none runs. */
void pprof__prefault_join(pprof__prefault *pf);

#endif
