#include "convert-jfr.h"

#include <string.h>

static const char prog[] = "pprof-convert";

void
convert_jfr_init(convert_jfr *c)
{
    memset(c, 0, sizeof(*c));
    pprof_jfr_read_options_init(&c->o);
}

bool
convert_jfr_opt(convert_jfr *c, tool_args *a, const char *opt, int *rc)
{
    *rc = 0;
    if (tool_opt_is(opt, NULL, "--from")) {
        /* only "jfr" is ours: peek before taking the value */
        const char *v = a->inline_value ? a->inline_value : a->i < a->argc ? a->argv[a->i] : NULL;
        if (!v || strcmp(v, "jfr") != 0)
            return false;
        tool_args_value(a, prog);
    } else if (tool_opt_is(opt, NULL, "--event")) {
        const char *v = tool_args_value(a, prog);
        if (!v) {
            *rc = TOOL_EXIT_USAGE;
            return true;
        }
        c->o.event = v;
    } else if (tool_opt_is(opt, NULL, "--timestamps")) {
        c->o.timestamps = true;
    } else if (tool_opt_is(opt, NULL, "--allow-truncated")) {
        c->o.allow_truncated = true;
    } else {
        return false;
    }
    c->on = true;
    tool_read_jfr_with(prog, &c->o);
    return true;
}

int
convert_jfr_run(convert_jfr *c, const char *in, const char *out, const pprof_write_options *w,
                bool no_check)
{
    (void)c;
    pprof_error err;
    pprof_profile *p = NULL;
    pprof_status st = tool_read_profile(in, &p, &err);
    if (st) {
        if (st == PPROF_E_ARG) {
            fprintf(stderr, "%s: %s\n", prog, err.message);
            return TOOL_EXIT_USAGE;
        }
        tool_print_error(stderr, prog, in, &err);
        return tool_exit_for(st);
    }
    long long errors = no_check ? 0 : tool_check_go_rules(prog, in, p, "error");
    int rc = TOOL_EXIT_OK;
    if (errors) {
        rc = errors > 0 ? TOOL_EXIT_INVALID : TOOL_EXIT_IO;
    } else {
        tool_note_format(prog, w->format, false);
        st = pprof_profile_write_file(p, w, out, &err);
        if (st)
            tool_print_error(stderr, prog, out, &err);
        rc = tool_exit_for(st);
    }
    pprof_profile_free(p);
    return rc;
}
