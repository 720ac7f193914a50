/* pprof-convert's folded-stack side: --to=folded and --from=folded with their options. */
#ifndef PPROF_TOOLS_CONVERT_FOLDED_H
#define PPROF_TOOLS_CONVERT_FOLDED_H

#include "common.h"

#define CONVERT_FOLDED_MAX_LABELS 32

typedef struct convert_folded {
    bool to, from;
    /* the other formats (convert-json.c): NULL, or the value of --to / --from */
    const char *to_json, *from_json;
    bool lines;
    const char *sample_type;
    char *labels_arg; /* owned copy of --labels, split in place */
    const char *labels[CONVERT_FOLDED_MAX_LABELS];
    size_t n_labels;
} convert_folded;

/* Handles opt when it is one of --to, --from, --sample-type, --lines, --labels: returns true
 * and sets *rc (nonzero = exit with it). */
bool convert_folded_opt(convert_folded *f, tool_args *a, const char *opt, int *rc);
/* Runs the conversion selected by --to/--from; returns the exit code. */
int convert_folded_run(convert_folded *f, const char *in, const char *out,
                       const pprof_write_options *w);

#endif
