/* Go's internal/measurement, the one copy: label ranges and label frames (edit) and the
 * report's value scaling (top, diff). Not installed. */
#ifndef PPROF_MEASURE_PRIVATE_H
#define PPROF_MEASURE_PRIVATE_H

#include "profile-private.h"

/* measurement.Scale: value in unit from, expressed in unit to ("minimum"/"auto": the largest
 * unit that keeps it at least 1). *u may point into to or into static names. */
PPROF_PRIVATE_API void pprof__measure_scale(int64_t value, pprof_string from, pprof_string to, double *v,
                          pprof_string *u);
/* measurement.ScaledLabel into out (cap bytes, NUL-terminated); returns the text's length
 * (which may exceed cap - 1: then it was cut). */
PPROF_PRIVATE_API size_t pprof__measure_label(int64_t value, pprof_string from, pprof_string to, char *out,
                            size_t cap);

/* The same for NUL-terminated units: returns the scaled value; *unit_name is "" or a NUL-terminated
 * name (static, or `to` itself). */
PPROF_PRIVATE_API double pprof__scale(int64_t v, const char *from, const char *to, const char **unit_name);
/* measurement.ScaledLabel(v, from, to) into dst (NUL-terminated, cut at cap). */
PPROF_PRIVATE_API void pprof__scaled_label(char *dst, size_t cap, int64_t v, const char *from, const char *to);

#endif
