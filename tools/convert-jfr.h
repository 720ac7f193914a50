/* pprof-convert's Java Flight Recorder side: --from=jfr, --event, --timestamps and
 * --allow-truncated (JFR is read without them too: by content). */
#ifndef PPROF_TOOLS_CONVERT_JFR_H
#define PPROF_TOOLS_CONVERT_JFR_H

#include "common.h"
#include "jfr.h"

typedef struct convert_jfr {
    bool on; /* any of the options */
    pprof_jfr_read_options o;
} convert_jfr;

void convert_jfr_init(convert_jfr *c);
/* Handles opt when it is one of ours: returns true and sets *rc (nonzero = exit with it). */
bool convert_jfr_opt(convert_jfr *c, tool_args *a, const char *opt, int *rc);
/* Reads IN as JFR with the options, refuses what Go's pprof would (unless no_check) and writes
 * the profile to OUT; returns the exit code. */
int convert_jfr_run(convert_jfr *c, const char *in, const char *out, const pprof_write_options *w,
                    bool no_check);

#endif
