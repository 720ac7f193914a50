#include "convert-otlp.h"

#include <stdlib.h>
#include <string.h>

#include "otlp.h"

static const char prog[] = "pprof-convert";

void
convert_otlp_init(convert_otlp *c)
{
    memset(c, 0, sizeof(*c));
    c->profile = -1;
}

bool
convert_otlp_opt(convert_otlp *c, tool_args *a, const char *opt, int *rc)
{
    *rc = 0;
    bool to = tool_opt_is(opt, NULL, "--to"), from = tool_opt_is(opt, NULL, "--from");
    if (to || from) {
        /* only "otlp" is ours: peek before taking the value */
        const char *v = a->inline_value ? a->inline_value : a->i < a->argc ? a->argv[a->i] : NULL;
        if (!v || strcmp(v, "otlp") != 0)
            return false;
        tool_args_value(a, prog);
        if (to)
            c->to = true;
        else
            c->from = true;
        return true;
    }
    bool res = tool_opt_is(opt, NULL, "--resource"), svc = tool_opt_is(opt, NULL, "--service-name");
    bool pr = tool_opt_is(opt, NULL, "--profile");
    if (!res && !svc && !pr)
        return false;
    const char *v = tool_args_value(a, prog);
    if (!v) {
        *rc = TOOL_EXIT_USAGE;
    } else if (svc) {
        c->service_name = v;
    } else if (pr) {
        unsigned long long n;
        if (!tool_parse_u64(v, &n) || n > 1u << 30)
            *rc = tool_usage_error(prog, "--profile takes a number (0 for the first)");
        else
            c->profile = (long long)n;
    } else if (!strchr(v, '=') || v[0] == '=') {
        *rc = tool_usage_error(prog, "--resource takes KEY=VALUE, not '%s'", v);
    } else if (c->n_resource == CONVERT_OTLP_MAX_RESOURCE) {
        *rc = tool_usage_error(prog, "at most %d --resource attributes", CONVERT_OTLP_MAX_RESOURCE);
    } else {
        c->resource[c->n_resource++] = v;
    }
    return true;
}

static const char *
shown(const char *path)
{
    return strcmp(path, "-") ? path : "<stdin>";
}

/* --from=otlp: the profile of the input (or --profile N of several) written as pprof. */
static int
from_otlp(convert_otlp *c, const char *in, const char *out, const pprof_write_options *w,
          bool no_check)
{
    pprof_error err;
    pprof_otlp *o = NULL;
    pprof_status st = pprof_otlp_read_file(in, NULL, &o, &err);
    pprof_profile **v = NULL;
    size_t n = 0;
    if (!st)
        st = pprof_otlp_to_pprof(o, &v, &n, &err);
    pprof_otlp_free(o);
    if (st) {
        tool_print_error(stderr, prog, in, &err);
        return tool_exit_for(st);
    }
    int rc = TOOL_EXIT_OK;
    if (n == 0 || (c->profile < 0 && n > 1) || (c->profile >= 0 && (size_t)c->profile >= n)) {
        fprintf(stderr,
                "%s: %s: the OTLP input holds %zu profile(s) once combined%s; "
                "--profile N (0-%zu) picks one\n",
                prog, shown(in), n, n > 1 ? " (docs/otlp.md says when they combine)" : "",
                n ? n - 1 : 0);
        rc = TOOL_EXIT_INVALID;
    } else {
        pprof_profile *p = v[c->profile < 0 ? 0 : c->profile];
        long long errors = no_check ? 0 : tool_check_go_rules(prog, in, p, "error");
        if (errors) {
            rc = errors > 0 ? TOOL_EXIT_INVALID : TOOL_EXIT_IO;
        } else {
            tool_note_format(prog, w->format, false);
            st = pprof_profile_write_file(p, w, out, &err);
            if (st)
                tool_print_error(stderr, prog, st == PPROF_E_IO ? out : in, &err);
            rc = tool_exit_for(st);
        }
    }
    pprof_otlp_profiles_free(v, n);
    return rc;
}

/* --to=otlp: the input (pprof, or OTLP of one profile) as OTLP ProfilesData. */
static int
to_otlp(convert_otlp *c, const char *in, const char *out, const pprof_write_options *w,
        bool compress_given, bool no_check)
{
    pprof_error err;
    pprof_profile *p = NULL;
    pprof_status st = tool_read_profile(in, &p, &err);
    if (st) {
        tool_print_error(stderr, prog, in, &err);
        return tool_exit_for(st);
    }
    long long errors = no_check ? 0 : tool_check_go_rules(prog, in, p, "error");
    if (errors) {
        pprof_profile_free(p);
        return errors > 0 ? TOOL_EXIT_INVALID : TOOL_EXIT_IO;
    }
    pprof_otlp_write_options o = PPROF_OTLP_WRITE_OPTIONS_INIT;
    /* OTLP is sent uncompressed (or gzipped by the transport): raw unless asked or named so */
    size_t n = strlen(out);
    o.format = compress_given                              ? w->format
               : n > 3 && strcmp(out + n - 3, ".gz") == 0  ? PPROF_FORMAT_GZIP
               : n > 4 && strcmp(out + n - 4, ".zst") == 0 ? PPROF_FORMAT_ZSTD
                                                           : PPROF_FORMAT_RAW;
    o.level = w->level;
    o.resource = c->resource;
    o.n_resource = c->n_resource;
    o.service_name = c->service_name;
    const pprof_profile *const ps[] = {p};
    st = pprof_otlp_write_file(ps, 1, &o, out, &err);
    if (st)
        tool_print_error(stderr, prog, st == PPROF_E_IO || st == PPROF_E_NOMEM ? out : in, &err);
    pprof_profile_free(p);
    return tool_exit_for(st);
}

int
convert_otlp_run(convert_otlp *c, const char *in, const char *out, const pprof_write_options *w,
                 bool compress_given, bool no_check)
{
    if (c->to && c->from)
        return tool_usage_error(prog, "--to=otlp and --from=otlp together: nothing to convert");
    if (c->from)
        return from_otlp(c, in, out, w, no_check);
    return to_otlp(c, in, out, w, compress_given, no_check);
}
