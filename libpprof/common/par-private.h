/* Fork-join helpers for the few loops of the library that may use several threads (only when
 * the caller asks for threads; the results never depend on how many ran). */
#ifndef PPROF_PAR_PRIVATE_H
#define PPROF_PAR_PRIVATE_H

#include <stddef.h>

#include "pool-private.h"

/* The most parts a loop is cut into. */
#define PPROF__PAR_MAX 16

typedef void (*pprof__par_fn)(void *ctx, size_t lo, size_t hi);
/* The same with the part's index, from 0 in the order of the ranges: for loops that keep a
 * result or a scratch area per part. */
typedef void (*pprof__par_part_fn)(void *ctx, size_t part, size_t lo, size_t hi);

/* Runs fn over [0, n) cut into up to `threads` contiguous parts of at least min_part items; the
 * calling thread takes the first part, pool's free workers the others. A part no worker takes
 * (pool NULL or busy) is left to the caller. */
void pprof__par_for(pprof__pool *pool, unsigned threads, size_t n, size_t min_part,
                    pprof__par_fn fn, void *ctx);

/* How many parts those loops cut [0, n) into (1: the caller runs it whole), so that a caller
 * can make room for the parts' results first. */
size_t pprof__par_parts(unsigned threads, size_t n, size_t min_part);

/* pprof__par_for with the part index; the workers run under name (NULL: unnamed). Returns the
 * number of parts, pprof__par_parts(threads, n, min_part). */
size_t pprof__par_for_parts(pprof__pool *pool, unsigned threads, size_t n, size_t min_part,
                            const char *name, pprof__par_part_fn fn, void *ctx);

#endif
