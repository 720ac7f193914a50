/* Go's internal/measurement, as far as go tool pprof's label ranges and label frames use it.
 * Not installed. */
#ifndef PPROF_EDIT_UNITS_PRIVATE_H
#define PPROF_EDIT_UNITS_PRIVATE_H

#include "profile-private.h"

/* measurement.Scale: value in unit from, expressed in unit to ("minimum"/"auto": the largest
 * unit that keeps it at least 1). *u may point into to or into static names. */
void pprof__measure_scale(int64_t value, pprof_string from, pprof_string to, double *v,
                          pprof_string *u);
/* measurement.ScaledLabel into out (cap bytes, NUL-terminated); returns the text's length
 * (which may exceed cap - 1: then it was cut). */
size_t pprof__measure_label(int64_t value, pprof_string from, pprof_string to, char *out,
                            size_t cap);

#endif
