/* The tools' allocator: every block of 8 KiB and more in transparent huge pages, and freed
 * memory kept for reuse.
 *
 * On the virtual machines these tools are measured on, a first touch of a 4 KiB page costs
 * about 9 us (a fault, then the hypervisor's own work), while a 2 MiB huge page costs one fault
 * for 512 pages; and memory given back to the kernel comes back zeroed through faults again.
 * glibc's heaps (the main one and each thread's) are in 4 KiB pages, and a merge of many inputs
 * decodes each of them into such heaps. So:
 *
 *   - blocks of 2 MiB and more get their own mapping, whole huge pages long, and freed ones
 *     are kept in a small cache (bounded) to be handed out again, resized with mremap;
 *   - blocks from 8 KiB up to 2 MiB come from a buddy system over 2 MiB slabs carved from one
 *     reserved huge-page region, shared by all threads: a block freed by the merging thread
 *     serves the next input that a decoding thread reads, and freed buddies merge again, so
 *     what is resident stays close to the peak of what is live;
 *   - smaller blocks come from malloc.
 *
 * The state is in a tool_blocks object the caller owns; it serves any thread. */
#ifndef PPROF_TOOLS_BLOCKS_H
#define PPROF_TOOLS_BLOCKS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pprof.h"

#define TOOL_BLOCKS_CACHE_SLOTS 16
#define TOOL_BLOCKS_ORDERS 9 /* 8 KiB << 0..8: 8 KiB to 2 MiB */

typedef struct tool_blocks {
    pthread_mutex_t mu;
    /* big blocks: freed mappings kept for reuse */
    void *cache[TOOL_BLOCKS_CACHE_SLOTS];
    size_t n_cached, cached_bytes;
    /* medium blocks: the buddy system's region, its slabs handed out so far, the free lists
     * (threaded through the free blocks) and one byte per 8 KiB unit saying what starts there */
    uint8_t *region;
    size_t region_len, slabs_used;
    void *free_list[TOOL_BLOCKS_ORDERS];
    uint8_t *unit;
    size_t free_slabs; /* whole free slabs, to bound what stays resident */
} tool_blocks;

/* Sets up b (the buddy region is reserved, not touched; without it, medium blocks come from
 * malloc). Returns false only if the mutex cannot be made. */
bool tool_blocks_init(tool_blocks *b);
/* Gives every cached and reserved byte back. No block may be in use. */
void tool_blocks_destroy(tool_blocks *b);
/* The allocator hooks over b, for the library's options structs. */
pprof_allocator tool_blocks_allocator(tool_blocks *b);

void *tool_blocks_alloc(void *b, size_t size);
void *tool_blocks_realloc(void *b, void *p, size_t size);
void tool_blocks_free(void *b, void *p);

#endif
