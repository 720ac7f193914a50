/* pprof-flame: a flame graph of a profile as a self-contained HTML page, an interactive SVG or
 * d3-flame-graph JSON. The tree and the writers are the library's (flame.h); this reads the
 * inputs, applies pprof-edit's filters and picks the format. */
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "common.h"
#include "edit-filters.h"
#include "flame.h"
#include "folded.h"
#include "symbolize-opts.h"

static const char usage[] =
    "Usage: pprof-flame [options] IN\n"
    "Draws the flame graph of a profile ('-' reads stdin): a self-contained HTML page (no\n"
    "server, nothing fetched), an interactive SVG, or d3-flame-graph JSON.\n"
    "\n"
    "  -o, --output FILE     output path ('-' = stdout, the default)\n"
    "  --format=FMT          html, svg or json (default: from OUT's name, .html .svg .json;\n"
    "                        else html)\n"
    "  --sample-type T       the sample type shown (first) by name or index (default:\n"
    "                        default_sample_type, else the last type); the page has them all\n"
    "  --base BASE           differential: frames sized by IN, coloured by the change from\n"
    "                        BASE (red grew, blue shrank); JSON gets \"delta\"\n"
    "  --normalize           scale BASE to IN's total first\n"
    "  --title T             title (default \"Flame Graph\" / \"Differential Flame Graph\")\n"
    "  --width PX            SVG width (default 1200)\n"
    "  --minwidth PX|P%      frames narrower are not drawn (default 0.1 pixels); parents keep\n"
    "                        their exact values\n"
    "  --colors PALETTE      hot (default), mem, io, red, green, blue, aqua, yellow, purple,\n"
    "                        orange, lang (kernel, runtime, native and inlined frames apart)\n"
    "  --hash                colour by name: the same name always gets the same colour\n"
    "  --reverse             reverse the stacks: leaf frames at the root\n"
    "  --inverted            icicle graph: the root at the top\n"
    "  --lines               frames are function file:line instead of functions\n"
    "  --no-graph            HTML: no Graph view (by default the page also has the call graph\n"
    "                        of `go tool pprof -svg` for IN, drawn by Graphviz; not with --base)\n"
    "  --from=folded         IN (and BASE) are folded stacks (detected when not given)\n"
    "  --symbolize           symbolize IN (and BASE) from their mappings' ELF files first (as\n"
    "                        pprof-symbolize), with:\n" SYMBOLIZE_OPTS_HELP
    "  -h, --help            show this help\n"
    "  --version             show the version\n" EDIT_FILTERS_HELP "\n"
    "Exit status: 0 ok, 1 invalid input, 2 usage, 3 I/O error.\n";

typedef struct options {
    const char *in, *out, *base, *format;
    bool from_folded, normalize, no_graph;
    symbolize_opts sym;
    pprof_flame_options fo;
    pprof_flame_write_options wo;
} options;

static bool
ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

/* Folded stacks rather than a profile: an uncompressed input whose first line is text ending in
 * " DIGITS" (a profile starts with binary field tags). */
static bool
looks_folded(const uint8_t *d, size_t n)
{
    if (pprof_detect_format(d, n) != PPROF_FORMAT_RAW)
        return false;
    size_t i = 0;
    while (i < n && (d[i] == '\n' || d[i] == '\r'))
        i++;
    size_t end = i;
    while (end < n && d[end] != '\n')
        end++;
    for (size_t k = i; k < end; k++)
        if (d[k] < 0x20 && d[k] != '\t' && d[k] != '\r')
            return false;
    size_t e = end;
    while (e > i && (d[e - 1] == '\r' || d[e - 1] == ' '))
        e--;
    size_t digits = 0;
    while (e > i && d[e - 1] >= '0' && d[e - 1] <= '9')
        e--, digits++;
    return digits > 0 && e > i && d[e - 1] == ' ';
}

/* Reads IN or BASE as a profile or as folded stacks; prints the error and returns the exit
 * status, or 0 with *out set. drawn: the profile goes to the tree as read (no --symbolize, no
 * filter), so it is read in the form the tree takes (pprof_flame_profile_read_buffer). */
static int
read_input(const char *prog, const char *path, bool folded, bool drawn, pprof_profile **out)
{
    pprof_error err;
    pprof_buffer b = {0};
    *out = NULL;
    pprof_status st = tool_read_all(path, &b, &err);
    if (!st && (folded || looks_folded(b.data, b.len))) {
        pprof_folded_read_options ro = PPROF_FOLDED_READ_OPTIONS_INIT;
        st = pprof_folded_read_memory(b.data, b.len, &ro, out, &err);
        pprof_buffer_free(&b);
        if (st)
            tool_print_error(stderr, prog, path, &err);
        return st ? tool_exit_for(st) : 0;
    }
    pprof_read_options ro;
    tool_read_options(&ro);
    ro.threads = tool_cores(64); /* gzip members inflated side by side: the same bytes */
    /* the input goes once decompressed: never held beside the decoded profile */
    if (!st)
        st = drawn ? pprof_flame_profile_read_buffer(&b, &ro, out, &err)
                   : pprof_profile_read_buffer(&b, &ro, out, &err);
    pprof_buffer_free(&b);
    if (st) {
        tool_print_error(stderr, prog, path, &err);
        return tool_exit_for(st);
    }
    int bad = tool_refuse_invalid(prog, path, *out, "not drawn");
    if (bad) {
        pprof_profile_free(*out);
        *out = NULL;
    }
    return bad;
}

static int
parse_minwidth(const char *prog, const char *v, pprof_flame_write_options *wo)
{
    char *end;
    double d = strtod(v, &end);
    wo->minwidth_percent = *end == '%';
    if (end == v || (*end && strcmp(end, "%")) ||
        !(d >= 0 && d <= (wo->minwidth_percent ? 100 : 1e6)))
        return tool_usage_error(prog, "--minwidth takes pixels (0.1) or a percentage (0.5%%)");
    wo->minwidth = d;
    return 0;
}

/* Every option but the filters; returns 0 to go on, -1 after --help/--version, else the exit. */
static int
option(const char *prog, options *o, tool_args *a, const char *opt)
{
    const char *v;
    if (tool_opt_is(opt, "-h", "--help")) {
        fputs(usage, stdout);
        return -1;
    } else if (tool_opt_is(opt, NULL, "--version")) {
        tool_print_version(stdout, prog);
        return -1;
    } else if (tool_opt_is(opt, NULL, "--normalize")) {
        o->fo.normalize = true;
    } else if (tool_opt_is(opt, NULL, "--hash")) {
        o->wo.hash = true;
    } else if (tool_opt_is(opt, NULL, "--reverse")) {
        o->fo.reverse = true;
    } else if (tool_opt_is(opt, NULL, "--inverted")) {
        o->wo.inverted = true;
    } else if (tool_opt_is(opt, NULL, "--lines")) {
        o->fo.lines = true;
    } else if (tool_opt_is(opt, NULL, "--no-graph")) {
        o->no_graph = true;
    } else if (!(v = tool_args_value(a, prog))) {
        return TOOL_EXIT_USAGE;
    } else if (tool_opt_is(opt, "-o", "--output")) {
        o->out = v;
    } else if (tool_opt_is(opt, NULL, "--format")) {
        pprof_flame_format f;
        if (!pprof_flame_format_parse(v, &f) || f == PPROF_FLAME_DATA)
            return tool_usage_error(prog, "unknown format '%s' (html, svg, json)", v);
        o->format = v;
    } else if (tool_opt_is(opt, NULL, "--sample-type")) {
        o->fo.sample_type = v;
    } else if (tool_opt_is(opt, NULL, "--base")) {
        o->base = v;
    } else if (tool_opt_is(opt, NULL, "--title")) {
        o->wo.title = v;
    } else if (tool_opt_is(opt, NULL, "--width")) {
        unsigned long long w;
        if (!tool_parse_u64(v, &w) || w < 100 || w > 1000000)
            return tool_usage_error(prog, "--width takes pixels from 100 to 1000000");
        o->wo.width = (unsigned)w;
    } else if (tool_opt_is(opt, NULL, "--minwidth")) {
        return parse_minwidth(prog, v, &o->wo);
    } else if (tool_opt_is(opt, NULL, "--colors")) {
        const char *const *p = pprof_flame_palettes();
        while (*p && strcmp(*p, v))
            p++;
        if (!*p)
            return tool_usage_error(prog,
                                    "unknown palette '%s' (hot, mem, io, red, green, blue, "
                                    "aqua, yellow, purple, orange, lang)",
                                    v);
        o->wo.colors = v;
    } else if (tool_opt_is(opt, NULL, "--from")) {
        if (strcmp(v, "folded"))
            return tool_usage_error(prog, "--from takes only 'folded'");
        o->from_folded = true;
    } else {
        return tool_usage_error(prog, "unknown option %s", opt);
    }
    return 0;
}

static int
parse(int argc, char **argv, options *o, edit_filters *ef)
{
    const char *prog = "pprof-flame", *opt, *operand;
    tool_args a;
    tool_args_init(&a, argc, argv);
    int rc;
    while (tool_args_next(&a, &opt, &operand)) {
        if (!operand && edit_filters_opt(ef, &a, opt, &rc)) {
            if (rc)
                return rc;
        } else if (!operand && symbolize_opts_opt(&o->sym, &a, prog, opt, true, &rc)) {
            if (rc)
                return rc;
        } else if (operand) {
            if (o->in)
                return tool_usage_error(prog, "only one input file is taken");
            o->in = operand;
        } else if ((rc = option(prog, o, &a, opt))) {
            return rc;
        }
    }
    if (!o->in)
        return tool_usage_error(prog, "no input file");
    if (o->fo.normalize && !o->base)
        return tool_usage_error(prog, "--normalize needs --base");
    const char *f = o->format;
    if (!f)
        f = ends_with(o->out, ".svg") ? "svg" : ends_with(o->out, ".json") ? "json" : "html";
    pprof_flame_format_parse(f, &o->wo.format);
    return tool_refuse_text_over_input(prog, o->in, o->out, false, "flame graph");
}

static int
run(int argc, char **argv)
{
    const char *prog = "pprof-flame";
    options o = {.out = "-"};
    pprof_flame_options fo = PPROF_FLAME_OPTIONS_INIT;
    pprof_flame_write_options wo = PPROF_FLAME_WRITE_OPTIONS_INIT;
    o.fo = fo;
    o.wo = wo;
    symbolize_opts_init(&o.sym);
    edit_filters ef;
    edit_filters_init(&ef, "pprof-flame");
    int rc = parse(argc, argv, &o, &ef);
    if (rc) {
        edit_filters_free(&ef);
        return rc < 0 ? TOOL_EXIT_OK : rc;
    }
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    tool_output_init(&w);
    pprof_profile *p = NULL, *b = NULL, *fp = NULL, *fb = NULL;
    pprof_flame_tree *t = NULL;
    pprof_buffer view = {0};
    pprof_error err;
    pprof_status st = PPROF_OK;
    const char *where = o.in;
    bool drawn = !o.sym.enabled && !ef.any;
    rc = read_input(prog, o.in, o.from_folded, drawn, &p);
    if (!rc)
        rc = symbolize_opts_apply(&o.sym, prog, o.in, &p);
    if (!rc && o.base)
        rc = read_input(prog, o.base, o.from_folded, drawn, &b);
    if (!rc && b)
        rc = symbolize_opts_apply(&o.sym, prog, o.base, &b);
    if (!rc) {
        st = edit_filters_apply(&ef, p, &fp, &err);
        if (!st && b) {
            where = o.base;
            st = edit_filters_apply(&ef, b, &fb, &err);
        }
        o.wo.source = o.in;
        o.wo.base_source = o.base;
        /* the Graph view: Go's call graph of what the flame graph shows (after the filters);
         * a differential page has none (Go's graph of a diff is another report). Drawn with
         * the tree, which frees each profile once its stacks are summed: the tree's nodes, the
         * page and a profile are never held together. */
        bool graph = !o.no_graph && !o.base && o.wo.format == PPROF_FLAME_HTML;
        if (!st) {
            where = o.in;
            if (fp) { /* the filtered profiles are drawn: the read ones go first */
                pprof_profile_free(p);
                p = NULL;
            }
            if (fb) {
                pprof_profile_free(b);
                b = NULL;
            }
            o.wo.graph_sample_type = o.fo.sample_type;
            st = pprof_flame_tree_new_take(fp ? &fp : &p, fb ? &fb : &b, &o.fo, &o.wo,
                                           graph ? &view : NULL, &t, &err);
            if (graph)
                o.wo.graph_view = &view;
        }
        pprof_profile_free(fp);
        pprof_profile_free(fb);
        pprof_profile_free(p);
        pprof_profile_free(b);
        fp = fb = p = b = NULL;
        if (!st) {
            where = tool_is_stdout(o.out) ? "<stdout>" : o.out;
            st = pprof_flame_write_file(t, &o.wo, &w, o.out, &err);
        }
        if (st)
            tool_print_error(stderr, prog, where, &err);
        rc = tool_exit_for(st);
    }
    pprof_flame_tree_free(t);
    pprof_buffer_free(&view);
    pprof_profile_free(fp);
    pprof_profile_free(fb);
    pprof_profile_free(p);
    pprof_profile_free(b);
    edit_filters_free(&ef);
    return rc;
}

int
main(int argc, char **argv)
{
#ifdef __GLIBC__
    /* A fixed threshold: glibc's own rises to the size of the input buffer once it is freed,
     * and the profile's tables under it then go to the heap, where the pages freed with the
     * profile stay resident beside the tree (docs/bench/flame.md). */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    return tool_finish("pprof-flame", run(argc, argv));
}
