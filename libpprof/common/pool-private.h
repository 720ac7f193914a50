/* The library's one way to run work on other threads: a pool owned by whoever needs threads (a
 * merger, one write call, one pprof_merger_add_files call), never shared state. Workers start
 * only when a job needs one, up to the pool's size; a job that finds no free worker is not
 * queued: the caller is told, and does the work itself (or goes without the help), so a pool
 * can never deadlock on jobs that wait for each other, and results never depend on how many
 * threads ran. Jobs may run long (a stage that waits for batches, a prefault walk). */
#ifndef PPROF_POOL_PRIVATE_H
#define PPROF_POOL_PRIVATE_H

#include "api-private.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct pprof__pool pprof__pool;
typedef void (*pprof__job_fn)(void *arg);

/* Owned by the caller, which fills fn, arg and optionally nice and name, and keeps it alive
 * until pprof__pool_wait returns. */
typedef struct pprof__job {
    pprof__job_fn fn;
    void *arg;
    int nice;         /* nonzero: the worker runs the job at this nice value (Linux) */
    const char *name; /* the worker's thread name while it runs the job, or NULL */
    pprof__pool *pool;
    bool done;
} pprof__job;

/* A pool of up to `workers` threads, none started yet; NULL when workers is 0 or out of memory
 * (every start on a NULL pool fails, so the callers work alone). */
PPROF_PRIVATE_API pprof__pool *pprof__pool_new(unsigned workers);
/* Stops and joins the workers; every started job must have been waited for. NULL is a no-op. */
PPROF_PRIVATE_API void pprof__pool_free(pprof__pool *p);

/* Runs job on a free worker, starting one if the pool is not full. False when none is free and
 * none can be started: the job does not run, the caller decides what to do instead. */
PPROF_PRIVATE_API bool pprof__pool_start(pprof__pool *p, pprof__job *job);
/* Waits until a started job has returned. */
PPROF_PRIVATE_API void pprof__pool_wait(pprof__job *job);

#endif
