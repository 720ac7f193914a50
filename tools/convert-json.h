/* pprof-convert's JSON formats of other viewers: --to=speedscope, --to=cpuprofile and
 * --from=cpuprofile (pprof/interchange.h). */
#ifndef PPROF_TOOLS_CONVERT_JSON_H
#define PPROF_TOOLS_CONVERT_JSON_H

#include "convert-folded.h"

/* Runs a conversion that reads or writes one of them (f->from_json or f->to_json set); the
 * other side is pprof or folded stacks. Returns the exit code. */
int convert_json_run(convert_folded *f, const char *in, const char *out,
                     const pprof_write_options *w);

#endif
