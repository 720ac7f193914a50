/* pprof-report: the reports of `go tool pprof` (top, traces, tags, tree, peek, dot, svg,
 * callgrind, list) byte for byte. Built twice: as pprof-report, and as pprof-top
 * (PPROF_REPORT_AS_TOP), which is the same code with --top as its only format. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "edit-filters.h"
#include "report.h"
#include "symbolize-opts.h"

#ifdef PPROF_REPORT_AS_TOP
#define PROG "pprof-top"
static const char usage_head[] =
    "Usage: pprof-top [options] IN\n"
    "Lists the nodes of a profile by flat (or cumulative) value, as `go tool pprof -top`\n"
    "computes and prints them ('-' reads stdin). The same as `pprof-report --top`.\n"
    "\n";
#else
#define PROG "pprof-report"
static const char usage_head[] =
    "Usage: pprof-report IN --FORMAT [options]\n"
    "Prints one of `go tool pprof`'s reports, byte for byte ('-' reads stdin).\n"
    "\n"
    "Formats (one):\n"
    "  --top                 flat and cumulative value per node (-top)\n"
    "  --traces              every sample's stack, labels and value (-traces)\n"
    "  --tags                label values with their share of the total (-tags)\n"
    "  --tree                each node with its callers and callees (-tree)\n"
    "  --peek RX             -tree for the nodes matching RX, untrimmed (-peek)\n"
    "  --dot                 the call graph in Graphviz's language (-dot)\n"
    "  --svg                 that graph laid out by Graphviz, with pan and zoom (-svg)\n"
    "  --callgrind           callgrind's format, for KCachegrind (-callgrind)\n"
    "  --list RX             annotated source of the functions matching RX (-list)\n"
    "\n";
#endif

static const char usage_opts[] =
    "Options (Go's names; '-' and '_' alike):\n"
    "  --sample-index T      sample type by name or index (default: default_sample_type,\n"
    "                        else the last type)\n"
    "  --sample-type T       the same as --sample-index\n"
    "  -n, --nodecount N     nodes kept (default 80 for tree, dot and svg; top: all)\n"
    "  --nodefraction F      drop nodes whose cum is below F of the total (default 0.005)\n"
    "  --edgefraction F      drop edges below F of the total (default 0.001)\n"
    "  --trim=false          no node count, no fractions\n"
    "  --cum                 order by cumulative value (--flat: by flat, the default)\n"
    "  --granularity G       functions (default), filefunctions, files, lines, addresses;\n"
    "                        also --functions, --files, --lines, ...\n"
    "  --compact-labels      no profile header lines (tree)\n"
    "  --mean                values divided by the first sample value (the count), Go's\n"
    "                        -mean; the type is printed as mean_TYPE\n"
    "  --source-path DIRS    where --list looks for sources (':'-separated; default: .)\n"
    "  --trim-path PREFIXES  prefixes removed from source paths (':'-separated)\n"
    "  --json                JSON instead of Go's text (top, traces, tags, tree, peek, dot)\n"
    "  --format=FMT          text (the default) or json\n"
    "  -o, --output FILE     output path ('-' = stdout, the default); refused when it is\n"
    "                        the input, unless --force\n"
    "  --force               write the report over the input all the same\n"
    "  -h, --help            show this help\n"
    "  --version             show the version\n"
    "  --symbolize           symbolize the input from its mappings' ELF files first (as\n"
    "                        pprof-symbolize), with:\n" SYMBOLIZE_OPTS_HELP EDIT_FILTERS_HELP "\n"
    "Exit status: 0 ok, 1 invalid input, 2 usage, 3 I/O error.\n";

typedef struct opts {
    const char *in, *out;
    pprof_report_render_options r;
    pprof_print_format fmt;
    bool force, have_format;
} opts;

/* Go's spelling with '_' or ours with '-'. */
static bool
is(const char *opt, const char *name)
{
    char alt[64];
    size_t n = strlen(name);
    if (n >= sizeof(alt))
        return false;
    for (size_t i = 0; i <= n; i++)
        alt[i] = name[i] == '-' && i > 2 ? '_' : name[i];
    return tool_opt_is(opt, NULL, name) || tool_opt_is(opt, NULL, alt);
}

static int
set_format(opts *o, pprof_report_format f, const char *opt)
{
    if (o->have_format && o->r.format != f)
        return tool_usage_error(PROG, "%s: only one report format is taken", opt);
    o->have_format = true;
    o->r.format = f;
    return 0;
}

static bool
parse_fraction(const char *v, double *out)
{
    char *end;
    double d = strtod(v, &end);
    if (*end || end == v || !(d >= 0 && d <= 1))
        return false;
    *out = d == 0 ? PPROF_REPORT_NO_CUTOFF : d; /* 0 in the options is the default */
    return true;
}

/* Options that take no value; 1 = handled, 0 = not one of them, else an exit code + 2. */
static int
flag_opt(opts *o, tool_args *a, const char *opt, int *rc)
{
    static const char *const grans[] = {"--functions", "--filefunctions", "--files", "--lines",
                                        "--addresses"};
    *rc = 0;
    if (is(opt, "--cum"))
        o->r.cum_sort = true;
    else if (is(opt, "--flat")) /* Go's -flat: the default order, after a --cum */
        o->r.cum_sort = false;
    else if (is(opt, "--force"))
        o->force = true;
    else if (is(opt, "--json"))
        o->fmt = PPROF_PRINT_JSON;
    else if (is(opt, "--compact-labels"))
        o->r.compact_labels = true;
    else if (is(opt, "--mean"))
        o->r.mean = true;
    else if (is(opt, "--trim") && !a->inline_value)
        o->r.no_trim = false;
    else if (is(opt, "--no-trim"))
        o->r.no_trim = true;
    else if (is(opt, "--top"))
        *rc = set_format(o, PPROF_REPORT_TOP, opt);
#ifndef PPROF_REPORT_AS_TOP
    else if (is(opt, "--traces"))
        *rc = set_format(o, PPROF_REPORT_TRACES, opt);
    else if (is(opt, "--tags"))
        *rc = set_format(o, PPROF_REPORT_TAGS, opt);
    else if (is(opt, "--tree"))
        *rc = set_format(o, PPROF_REPORT_TREE, opt);
    else if (is(opt, "--dot"))
        *rc = set_format(o, PPROF_REPORT_DOT, opt);
    else if (is(opt, "--svg"))
        *rc = set_format(o, PPROF_REPORT_SVG, opt);
    else if (is(opt, "--callgrind"))
        *rc = set_format(o, PPROF_REPORT_CALLGRIND, opt);
#endif
    else {
        for (int i = 0; i < 5; i++)
            if (is(opt, grans[i])) {
                o->r.granularity = (pprof_granularity)(PPROF_GRANULARITY_FUNCTIONS + i);
                return 1;
            }
        return 0;
    }
    return 1;
}

static int
value_opt(opts *o, const char *opt, const char *v)
{
    if (tool_opt_is(opt, "-o", "--output")) {
        o->out = v;
    } else if (is(opt, "--sample-index") || is(opt, "--sample-type")) {
        o->r.sample_type = v;
    } else if (tool_opt_is(opt, "-n", "--nodecount")) {
        unsigned long long n;
        if (!tool_parse_u64(v, &n) || n > INT64_MAX)
            return tool_usage_error(PROG, "%s takes a number", opt);
        o->r.node_count = n ? (int64_t)n : PPROF_REPORT_ALL;
    } else if (is(opt, "--nodefraction")) {
        if (!parse_fraction(v, &o->r.node_fraction))
            return tool_usage_error(PROG, "%s takes a number from 0 to 1", opt);
    } else if (is(opt, "--edgefraction")) {
        if (!parse_fraction(v, &o->r.edge_fraction))
            return tool_usage_error(PROG, "%s takes a number from 0 to 1", opt);
    } else if (is(opt, "--trim")) {
        if (strcmp(v, "true") && strcmp(v, "false") && strcmp(v, "1") && strcmp(v, "0"))
            return tool_usage_error(PROG, "--trim takes true or false");
        o->r.no_trim = v[0] == 'f' || v[0] == '0';
    } else if (is(opt, "--granularity")) {
        if (!pprof_granularity_parse(v, &o->r.granularity))
            return tool_usage_error(PROG, "unknown granularity '%s'", v);
    } else if (is(opt, "--format")) {
        if (strcmp(v, "text") && strcmp(v, "json"))
            return tool_usage_error(PROG, "unknown format '%s' (text, json)", v);
        o->fmt = v[0] == 't' ? PPROF_PRINT_TEXT : PPROF_PRINT_JSON;
#ifndef PPROF_REPORT_AS_TOP
    } else if (is(opt, "--peek") || is(opt, "--list")) {
        int rc = set_format(o, is(opt, "--peek") ? PPROF_REPORT_PEEK : PPROF_REPORT_LIST, opt);
        if (rc)
            return rc;
        o->r.symbol = v;
    } else if (is(opt, "--source-path")) {
        o->r.source_path = v;
    } else if (is(opt, "--trim-path")) {
        o->r.trim_path = v;
#endif
    } else {
        return tool_usage_error(PROG, "unknown option %s", opt);
    }
    return 0;
}

static int
parse(opts *o, edit_filters *ef, symbolize_opts *so, int argc, char **argv, bool *done)
{
    tool_args a;
    tool_args_init(&a, argc, argv);
    const char *opt, *operand, *v;
    int rc;
    while (tool_args_next(&a, &opt, &operand)) {
        if (!operand && symbolize_opts_opt(so, &a, PROG, opt, true, &rc)) {
            if (rc)
                return rc;
        } else if (!operand && edit_filters_opt(ef, &a, opt, &rc)) {
            if (rc)
                return rc;
        } else if (operand) {
            if (o->in)
                return tool_usage_error(PROG, "only one input file is taken");
            o->in = operand;
        } else if (tool_opt_is(opt, "-h", "--help")) {
            fputs(usage_head, stdout);
            fputs(usage_opts, stdout);
            *done = true;
            return TOOL_EXIT_OK;
        } else if (tool_opt_is(opt, NULL, "--version")) {
            tool_print_version(stdout, PROG);
            *done = true;
            return TOOL_EXIT_OK;
        } else if (flag_opt(o, &a, opt, &rc)) {
            if (rc)
                return rc;
        } else if (!(v = tool_args_value(&a, PROG))) {
            return TOOL_EXIT_USAGE;
        } else if ((rc = value_opt(o, opt, v))) {
            return rc;
        }
    }
    if (!o->in)
        return tool_usage_error(PROG, "no input file");
#ifndef PPROF_REPORT_AS_TOP
    if (!o->have_format)
        return tool_usage_error(PROG, "no report format (--top, --traces, --dot, ...)");
#endif
    return 0;
}

static int
run(int argc, char **argv)
{
    opts o = {NULL, "-", PPROF_REPORT_RENDER_OPTIONS_INIT, PPROF_PRINT_TEXT, false, false};
    edit_filters ef;
    edit_filters_init(&ef, PROG);
    symbolize_opts so;
    symbolize_opts_init(&so);
    bool done = false;
    int rc = parse(&o, &ef, &so, argc, argv, &done);
    if (rc || done) {
        edit_filters_free(&ef);
        return rc;
    }
    rc = tool_refuse_text_over_input(PROG, o.in, o.out, o.force, "report");
    if (rc) {
        edit_filters_free(&ef);
        return rc;
    }
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    tool_output_init(&w);
    pprof_error err;
    pprof_profile *p = NULL, *fp = NULL;
    const char *where = o.in;
    pprof_status st = tool_read_profile(o.in, &p, &err);
    int bad = st ? 0 : tool_refuse_invalid(PROG, o.in, p, "not reported");
    if (!st && !bad)
        bad = symbolize_opts_apply(&so, PROG, o.in, &p);
    if (bad) {
        pprof_profile_free(p);
        edit_filters_free(&ef);
        return bad;
    }
    if (!st)
        st = edit_filters_apply(&ef, p, &fp, &err);
    if (!st && fp) {
        o.r.unfiltered = p;
        o.r.active_filters = (const char *const *)ef.active;
        o.r.n_active_filters = ef.n_active;
    }
    if (!st) {
        /* streamed: a traces report can be far larger than the profile */
        st = pprof_report_write_file(fp ? fp : p, &o.r, o.fmt, &w, o.out, &err);
        if (st == PPROF_E_IO)
            where = strcmp(o.out, "-") ? o.out : "<stdout>";
    }
    if (st)
        tool_print_error(stderr, PROG, where, &err);
    pprof_profile_free(fp);
    pprof_profile_free(p);
    edit_filters_free(&ef);
    return tool_exit_for(st);
}

int
main(int argc, char **argv)
{
    return tool_finish(PROG, run(argc, argv));
}
