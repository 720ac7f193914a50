/* [libpprof-formats] The formats other than pprof that every read
 * path of the core can take, as a table of readers for pprof_read_options.readers and
 * pprof_check_options.readers. */
#ifndef PPROF_FORMATS_H
#define PPROF_FORMATS_H

#include "pprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The readers of this library, NULL-terminated and constant: OTLP Profiles (pprof/otlp.h) and
 * Java Flight Recorder recordings (pprof/jfr.h).
 * A caller that reads "any profile file" puts it in its read and check options. */
PPROF_API const pprof_reader *const *pprof_formats_readers(void);

#ifdef __cplusplus
}
#endif

#endif
