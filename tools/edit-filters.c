#include "edit-filters.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* In the order of Go's report.Options.ActiveFilters (driver.reportOptions). */
static const struct {
    const char *name, *alias, *go;
    size_t off;
} filters[] = {
    {"--focus", NULL, "focus", offsetof(pprof_edit_options, focus)},
    {"--ignore", NULL, "ignore", offsetof(pprof_edit_options, ignore)},
    {"--hide", NULL, "hide", offsetof(pprof_edit_options, hide)},
    {"--show", NULL, "show", offsetof(pprof_edit_options, show)},
    {"--show-from", "--show_from", "show_from", offsetof(pprof_edit_options, show_from)},
    {"--tag-focus", "--tagfocus", "tagfocus", offsetof(pprof_edit_options, tag_focus)},
    {"--tag-ignore", "--tagignore", "tagignore", offsetof(pprof_edit_options, tag_ignore)},
    {"--tag-show", "--tagshow", "tagshow", offsetof(pprof_edit_options, tag_show)},
    {"--tag-hide", "--taghide", "taghide", offsetof(pprof_edit_options, tag_hide)},
    {"--prune-from", "--prune_from", NULL, offsetof(pprof_edit_options, prune_from)},
};
#define N_FILTERS (sizeof(filters) / sizeof(filters[0]))

static void
warn(void *ctx, const char *msg)
{
    fprintf(stderr, "%s: warning: %s\n", (const char *)ctx, msg);
}

void
edit_filters_init(edit_filters *f, const char *prog)
{
    memset(f, 0, sizeof(*f));
    pprof_edit_options_init(&f->e);
    f->prog = prog;
    f->e.warn = warn;
    f->e.warn_ctx = (void *)prog;
}

static const char **
slot(edit_filters *f, size_t i)
{
    return (const char **)((char *)&f->e + filters[i].off);
}

bool
edit_filters_opt(edit_filters *f, tool_args *a, const char *opt, int *rc)
{
    *rc = 0;
    for (size_t i = 0; i < N_FILTERS; i++) {
        if (!tool_opt_is(opt, NULL, filters[i].name) &&
            !(filters[i].alias && tool_opt_is(opt, NULL, filters[i].alias)))
            continue;
        const char *v = tool_args_value(a, f->prog);
        if (!v) {
            *rc = TOOL_EXIT_USAGE;
            return true;
        }
        *slot(f, i) = v;
        f->any = true;
        return true;
    }
    return false;
}

pprof_status
edit_filters_apply(edit_filters *f, const pprof_profile *p, pprof_profile **out, pprof_error *err)
{
    *out = NULL;
    if (!f->any)
        return PPROF_OK;
    edit_filters *m = f; /* the active-filter lines are rebuilt on each use */
    for (size_t i = 0; i < m->n_active; i++)
        free(m->active[i]);
    m->n_active = 0;
    for (size_t i = 0; i < N_FILTERS; i++) {
        const char *v = *slot(m, i);
        if (!v || !*v || !filters[i].go)
            continue;
        size_t n = strlen(filters[i].go) + strlen(v) + 2;
        char *s = malloc(n);
        if (s) {
            snprintf(s, n, "%s=%s", filters[i].go, v);
            m->active[m->n_active++] = s;
        }
    }
    return pprof_edit(p, &f->e, out, err);
}

void
edit_filters_free(edit_filters *f)
{
    for (size_t i = 0; i < f->n_active; i++)
        free(f->active[i]);
    f->n_active = 0;
}
