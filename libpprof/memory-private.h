/* Memory policy: how large buffers get their pages. The only place that knows about huge pages,
 * prefaulting, mapping and madvise. */
#ifndef PPROF_MEMORY_PRIVATE_H
#define PPROF_MEMORY_PRIVATE_H

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
/* A mapping of at least len bytes in small pages (64 KiB steps), unmapped as a big one; NULL
 * where big blocks are not mapped. For a cache that reuses it. */
void *pprof__mem_map_medium(size_t len, size_t *mapped_len);

/* A cache of mapped blocks for work that frees and allocates the same tables again and again (a
 * merge decodes one input after another): blocks of PPROF__CACHE_MIN and more are mappings
 * (huge pages from PPROF__BIG_BLOCK), a freed one is kept, up to max_bytes, and handed to the next
 * allocation it fits instead of a fresh mapping, whose pages the kernel would fault in and zero
 * again. Owned by its user (no global state); its allocator is safe
 * on many threads (one mutex). Blocks handed out are not zeroed. */
#define PPROF__CACHE_MIN ((size_t)64 << 10)
typedef struct pprof__blk_cache {
    pthread_mutex_t mu;
    void *slot[64];
    size_t slot_len[64];
    size_t n, bytes, max_bytes;
} pprof__blk_cache;

void pprof__blk_cache_init(pprof__blk_cache *c, size_t max_bytes);
/* Unmaps what is kept; blocks still out stay valid and go back to the default allocator. */
void pprof__blk_cache_destroy(pprof__blk_cache *c);
/* An allocator over the cache, interchangeable with the default one (the same block headers). */
pprof_allocator pprof__blk_cache_allocator(pprof__blk_cache *c);

/* Asks that [p, p + len) stay in small pages (advice only: failing changes nothing but memory),
 * for a buffer that will be filled only in part. */
void pprof__mem_small_pages(void *p, size_t len);

/* Notes [p, p + len) to be faulted in; small buffers and any past the first eight are not. */
void pprof__prefault_add(pprof__prefault *pf, void *p, size_t len);
/* Starts faulting in what was noted, on a worker of pool (nothing when none is free). */
void pprof__prefault_start(pprof__prefault *pf, pprof__pool *pool);
/* Waits for that job; a no-op when none runs. */
void pprof__prefault_join(pprof__prefault *pf);

#endif
