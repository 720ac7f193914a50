/* pprof-edit's frame and label filters for the report tools (pprof-top, pprof-diff): the same
 * option names, applied with pprof_edit before the report is computed. */
#ifndef PPROF_TOOLS_EDIT_FILTERS_H
#define PPROF_TOOLS_EDIT_FILTERS_H

#include "common.h"
#include "edit.h"

#define EDIT_FILTERS_MAX 16

typedef struct edit_filters {
    pprof_edit_options e;
    bool any;
    /* Go's "Active filters:" lines ("focus=RX"), in Go's order; strings owned here */
    char *active[EDIT_FILTERS_MAX];
    size_t n_active;
    const char *prog; /* for messages: "prog: warning: Focus expression matched no samples" */
} edit_filters;

/* The filter options' help lines, for the tools' usage texts. */
#define EDIT_FILTERS_HELP                                                                          \
    "Filters (as pprof-edit; Go regexps on function, file and mapping names):\n"                   \
    "  --focus RX            keep samples with a matching frame\n"                                 \
    "  --ignore RX           drop samples with a matching frame\n"                                 \
    "  --hide RX             remove matching frames\n"                                             \
    "  --show RX             keep only matching frames\n"                                          \
    "  --show-from RX        cut each stack above its root-most match\n"                           \
    "  --prune-from RX       cut each stack below its leaf-most match\n"                           \
    "  --tag-focus [KEY=]RX|RANGE  keep samples with a matching label\n"                           \
    "  --tag-ignore [KEY=]RX|RANGE  drop samples with a matching label\n"                          \
    "  --tag-show RX         keep only label keys that match\n"                                    \
    "  --tag-hide RX         remove label keys that match\n"

/* Go's "matched no samples" warnings go to stderr, as go tool pprof prints them. */
void edit_filters_init(edit_filters *f, const char *prog);
/* Handles opt when it is a filter option: returns true and sets *rc (nonzero = exit). */
bool edit_filters_opt(edit_filters *f, tool_args *a, const char *opt, int *rc);
/* The filtered copy of p in *out (NULL when no filter is set). */
pprof_status edit_filters_apply(edit_filters *f, const pprof_profile *p, pprof_profile **out,
                                pprof_error *err);
void edit_filters_free(edit_filters *f);

#endif
