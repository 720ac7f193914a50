/* pprof-convert's OpenTelemetry Profiles side: --to=otlp and --from=otlp with their options. */
#ifndef PPROF_TOOLS_CONVERT_OTLP_H
#define PPROF_TOOLS_CONVERT_OTLP_H

#include "common.h"

#define CONVERT_OTLP_MAX_RESOURCE 64

typedef struct convert_otlp {
    bool to, from;
    const char *service_name;
    const char *resource[CONVERT_OTLP_MAX_RESOURCE];
    size_t n_resource;
    long long profile; /* --profile N, -1 when not given */
} convert_otlp;

void convert_otlp_init(convert_otlp *c);
/* Handles opt when it is --to=otlp, --from=otlp, --resource, --service-name or --profile
 * (--to and --from with another value are left to the caller): returns true and sets *rc
 * (nonzero = exit with it). */
bool convert_otlp_opt(convert_otlp *c, tool_args *a, const char *opt, int *rc);
/* Runs the conversion selected by --to/--from; returns the exit code. */
int convert_otlp_run(convert_otlp *c, const char *in, const char *out, const pprof_write_options *w,
                     bool compress_given, bool no_check);

#endif
