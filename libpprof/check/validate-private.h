/* The validity decision (validate.c) as the library's entry points use it. Not installed. */
#ifndef PPROF_VALIDATE_PRIVATE_H
#define PPROF_VALIDATE_PRIVATE_H

#include "pprof/check.h"
#include "profile-private.h"

#define PPROF__VALIDATE_TABLES 1  /* strings, header, mappings, functions, locations */
#define PPROF__VALIDATE_SAMPLES 2 /* the samples the sample table holds */

/* pprof_validate for an entry point: PPROF_OK, or PPROF_E_INVALID with err naming the first
 * finding ("NAME: message [RULE]" when name is not NULL) and its path. A success is kept in the
 * profile (a cache, like the id index: the first call needs exclusive use of p). */
PPROF_PRIVATE_API pprof_status pprof__validate(const pprof_profile *p, const char *name, pprof_error *err);
/* The same on parts of p, for a merge input whose samples are decoded a batch at a time:
 * paths number the batch's samples from first. Nothing is cached. */
PPROF_PRIVATE_API pprof_status pprof__validate_part(const pprof_profile *p, int parts, size_t first, const char *name,
                                  pprof_error *err);

#endif
