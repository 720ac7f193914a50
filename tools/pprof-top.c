/* pprof-top: flat and cumulative value per node, as `go tool pprof -top`. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "edit-filters.h"
#include "report.h"
#include "symbolize-opts.h"

static const char usage[] =
    "Usage: pprof-top [options] IN\n"
    "Lists the nodes of a profile by flat (or cumulative) value, as `go tool pprof -top`\n"
    "computes and prints them ('-' reads stdin).\n"
    "\n"
    "  --sample-type T       sample type by name or index (default: default_sample_type,\n"
    "                        else the last type)\n"
    "  -n, --nodecount N     list at most N nodes (default: all above the cutoff)\n"
    "  --cum                 order by cumulative value\n"
    "  --granularity G       functions (default), filefunctions, files, lines, addresses\n"
    "  --nodefraction F      drop nodes whose cum is below F of the total (default 0.005)\n"
    "  --format=FMT          text (default, Go's layout) or json (raw integers)\n"
    "  -o, --output FILE     output path ('-' = stdout, the default); refused when it is\n"
    "                        the input, unless --force\n"
    "  --force               write the listing over the input all the same\n"
    "  -h, --help            show this help\n"
    "  --version             show the version\n"
    "  --symbolize           symbolize the input from its mappings' ELF files first (as\n"
    "                        pprof-symbolize), with:\n" SYMBOLIZE_OPTS_HELP EDIT_FILTERS_HELP "\n"
    "Exit status: 0 ok, 1 invalid input, 2 usage, 3 I/O error.\n";

static bool
parse_format(const char *v, pprof_print_format *f)
{
    if (!strcmp(v, "text") || !strcmp(v, "json")) {
        *f = v[0] == 't' ? PPROF_PRINT_TEXT : PPROF_PRINT_JSON;
        return true;
    }
    return false;
}

static int
run(int argc, char **argv)
{
    const char *prog = "pprof-top", *in = NULL, *out = "-";
    pprof_report_options ro = PPROF_REPORT_OPTIONS_INIT;
    pprof_print_format fmt = PPROF_PRINT_TEXT;
    bool force = false;
    tool_args a;
    tool_args_init(&a, argc, argv);
    const char *opt, *operand, *v;
    edit_filters ef;
    edit_filters_init(&ef);
    int frc;
    symbolize_opts so;
    symbolize_opts_init(&so);
    while (tool_args_next(&a, &opt, &operand)) {
        if (!operand && symbolize_opts_opt(&so, &a, prog, opt, true, &frc)) {
            if (frc) {
                edit_filters_free(&ef);
                return frc;
            }
        } else if (!operand && edit_filters_opt(&ef, &a, opt, &frc)) {
            if (frc)
                return frc;
        } else if (operand) {
            if (in)
                return tool_usage_error(prog, "only one input file is taken");
            in = operand;
        } else if (tool_opt_is(opt, "-h", "--help")) {
            fputs(usage, stdout);
            return TOOL_EXIT_OK;
        } else if (tool_opt_is(opt, NULL, "--version")) {
            tool_print_version(stdout, prog);
            return TOOL_EXIT_OK;
        } else if (tool_opt_is(opt, NULL, "--cum")) {
            ro.cum_sort = true;
        } else if (tool_opt_is(opt, NULL, "--force")) {
            force = true;
        } else if (!(v = tool_args_value(&a, prog))) {
            return TOOL_EXIT_USAGE;
        } else if (tool_opt_is(opt, "-o", "--output")) {
            out = v;
        } else if (tool_opt_is(opt, NULL, "--sample-type")) {
            ro.sample_type = v;
        } else if (tool_opt_is(opt, "-n", "--nodecount")) {
            unsigned long long n;
            if (!tool_parse_u64(v, &n))
                return tool_usage_error(prog, "%s takes a number", opt);
            ro.node_count = (size_t)n;
        } else if (tool_opt_is(opt, NULL, "--nodefraction")) {
            char *end;
            ro.node_fraction = strtod(v, &end);
            if (*end || end == v || !(ro.node_fraction >= 0 && ro.node_fraction <= 1))
                return tool_usage_error(prog, "--nodefraction takes a number from 0 to 1");
        } else if (tool_opt_is(opt, NULL, "--granularity")) {
            if (!pprof_granularity_parse(v, &ro.granularity))
                return tool_usage_error(prog, "unknown granularity '%s'", v);
        } else if (tool_opt_is(opt, NULL, "--format")) {
            if (!parse_format(v, &fmt))
                return tool_usage_error(prog, "unknown format '%s' (text, json)", v);
        } else {
            return tool_usage_error(prog, "unknown option %s", opt);
        }
    }
    if (!in)
        return tool_usage_error(prog, "no input file");
    int rc = tool_refuse_text_over_input(prog, in, out, force, "report");
    if (rc)
        return rc;
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    tool_output_init(&w);
    pprof_error err;
    pprof_profile *p = NULL, *fp = NULL;
    pprof_report *r = NULL;
    pprof_buffer b = {0};
    const char *where = in;
    pprof_status st = pprof_profile_read_file(in, NULL, &p, &err);
    int bad = st ? 0 : tool_refuse_invalid(prog, in, p, "not reported");
    if (!st && !bad)
        bad = symbolize_opts_apply(&so, prog, in, &p);
    if (bad) {
        pprof_profile_free(p);
        edit_filters_free(&ef);
        return bad;
    }
    if (!st)
        st = edit_filters_apply(&ef, p, &fp, &err);
    if (!st && fp) {
        ro.unfiltered = p;
        ro.active_filters = (const char *const *)ef.active;
        ro.n_active_filters = ef.n_active;
    }
    if (!st)
        st = pprof_report_new(fp ? fp : p, &ro, &r, &err);
    if (!st)
        st = pprof_report_print(r, fmt, &b, &err);
    if (!st) {
        where = strcmp(out, "-") ? out : "<stdout>";
        st = pprof_write_bytes_file(out, b.data, b.len, &w, &err);
    }
    if (st)
        tool_print_error(stderr, prog, where, &err);
    pprof_buffer_free(&b);
    pprof_report_free(r);
    pprof_profile_free(fp);
    pprof_profile_free(p);
    edit_filters_free(&ef);
    return tool_exit_for(st);
}

int
main(int argc, char **argv)
{
    return tool_finish("pprof-top", run(argc, argv));
}
