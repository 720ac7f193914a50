#include "symbolize-opts.h"

#include <string.h>

void
symbolize_opts_init(symbolize_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->demangle = PPROF_DEMANGLE_FULL;
}

static bool
push(const char **list, size_t *n, const char *v)
{
    if (*n >= SYMBOLIZE_OPTS_MAX)
        return false;
    list[(*n)++] = v;
    return true;
}

bool
symbolize_opts_opt(symbolize_opts *o, tool_args *a, const char *prog, const char *opt,
                   bool with_switch, int *rc)
{
    *rc = 0;
    if (with_switch && tool_opt_is(opt, NULL, "--symbolize")) {
        o->enabled = true;
        return true;
    }
    if (tool_opt_is(opt, NULL, "--no-default-dirs")) {
        o->no_default_dirs = true;
        return true;
    }
    if (tool_opt_is(opt, NULL, "--no-cache")) {
        o->no_cache = true;
        return true;
    }
    bool bin = tool_opt_is(opt, NULL, "--binary"), dir = tool_opt_is(opt, NULL, "--debug-dir");
    bool root = tool_opt_is(opt, NULL, "--sysroot"), dem = tool_opt_is(opt, NULL, "--demangle");
    bool cache = tool_opt_is(opt, NULL, "--cache-dir");
    if (!bin && !dir && !root && !dem && !cache)
        return false;
    const char *v = tool_args_value(a, prog);
    if (!v) {
        *rc = TOOL_EXIT_USAGE;
        return true;
    }
    if ((bin && !push(o->binaries, &o->n_binaries, v)) ||
        (dir && !push(o->debug_dirs, &o->n_debug_dirs, v))) {
        *rc = tool_usage_error(prog, "%s is taken at most %d times", opt, SYMBOLIZE_OPTS_MAX);
    } else if (root) {
        o->sysroot = v;
    } else if (cache) {
        o->cache_dir = v;
    } else if (dem) {
        if (!strcmp(v, "full"))
            o->demangle = PPROF_DEMANGLE_FULL;
        else if (!strcmp(v, "none"))
            o->demangle = PPROF_DEMANGLE_NONE;
        else
            *rc = tool_usage_error(prog, "unknown --demangle mode '%s' (full, none)", v);
    }
    return true;
}

void
symbolize_opts_fill(const symbolize_opts *o, pprof_symbolize_options *so)
{
    pprof_symbolize_options_init(so);
    so->binaries = o->binaries;
    so->n_binaries = o->n_binaries;
    so->debug_dirs = o->debug_dirs;
    so->n_debug_dirs = o->n_debug_dirs;
    so->sysroot = o->sysroot;
    so->demangle = o->demangle;
    so->no_default_dirs = o->no_default_dirs;
    /* the tools keep the cache by default: the library leaves that choice to its callers */
    so->cache = !o->no_cache;
    so->cache_dir = o->no_cache ? NULL : o->cache_dir;
}

int
symbolize_opts_apply(const symbolize_opts *o, const char *prog, const char *file, pprof_profile **p)
{
    if (!o->enabled)
        return 0;
    pprof_symbolize_options so;
    symbolize_opts_fill(o, &so);
    pprof_profile *out = NULL;
    pprof_symbolize_report *r = NULL;
    pprof_error err;
    pprof_status st = pprof_symbolize(*p, &so, &out, &r, &err);
    if (st) {
        tool_print_error(stderr, prog, file, &err);
        pprof_symbolize_report_free(r);
        return tool_exit_for(st);
    }
    for (size_t i = 0; i < pprof_symbolize_report_count(r); i++) {
        pprof_symbolize_mapping m = pprof_symbolize_report_mapping(r, i);
        if (m.result != PPROF_SYMBOLIZE_OK && m.result != PPROF_SYMBOLIZE_NOTHING_TO_DO)
            fprintf(stderr, "%s: %s: mapping %llu (%s) not symbolized: %s: %s\n", prog,
                    strcmp(file, "-") ? file : "<stdin>", (unsigned long long)m.mapping_id,
                    m.mapping_file[0] ? m.mapping_file : "no file name",
                    pprof_symbolize_result_name(m.result), m.reason);
    }
    pprof_symbolize_report_free(r);
    pprof_profile_free(*p);
    *p = out;
    return 0;
}
