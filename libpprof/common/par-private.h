/* Fork-join helpers for the few loops of the library that may use several threads (only when
 * the caller asks for threads; the results never depend on how many ran). */
#ifndef PPROF_PAR_PRIVATE_H
#define PPROF_PAR_PRIVATE_H

#include <stddef.h>

#include "pool-private.h"

/* The most parts a loop is cut into. */
#define PPROF__PAR_MAX 16

typedef void (*pprof__par_fn)(void *ctx, size_t lo, size_t hi);

/* Runs fn over [0, n) cut into up to `threads` contiguous parts of at least min_part items; the
 * calling thread takes the first part, pool's free workers the others. A part no worker takes
 * (pool NULL or busy) is left to the caller. */
void pprof__par_for(pprof__pool *pool, unsigned threads, size_t n, size_t min_part,
                    pprof__par_fn fn, void *ctx);

#endif
