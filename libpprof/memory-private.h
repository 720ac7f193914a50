/* Memory policy: how large buffers get their pages. The only place that knows about huge pages
 * (also blk-private.h, the default allocator's blocks, which only arena.c includes), prefaulting
 * and madvise. */
#ifndef PPROF_MEMORY_PRIVATE_H
#define PPROF_MEMORY_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "pool-private.h"

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
