/* pprof_report_write_memory: the context every report starts from (sample type, total, units, Go's
 * per-format defaults) and the dispatch to the report's module. */
#include <stdio.h>

#include "report-graph-private.h"
#include "text-private.h"

void
pprof_report_render_options_init(pprof_report_render_options *opts)
{
    pprof_report_render_options d = PPROF_REPORT_RENDER_OPTIONS_INIT;
    *opts = d;
}

/* -top through the pprof_report API. */
static pprof_status
render_top(const pprof_profile *p, const pprof_report_render_options *o, pprof_print_format f,
           pprof_buffer *out, pprof_error *err)
{
    pprof_report_options ro = PPROF_REPORT_OPTIONS_INIT;
    ro.sample_type = o->sample_type;
    ro.granularity = o->granularity;
    ro.cum_sort = o->cum_sort;
    ro.node_count = o->node_count > 0 && !o->no_trim ? (size_t)o->node_count : 0;
    ro.node_fraction = o->node_fraction;
    ro.edge_fraction = o->edge_fraction;
    if (o->no_trim)
        ro.node_fraction = ro.edge_fraction = PPROF_REPORT_NO_CUTOFF;
    ro.allocator = o->allocator;
    ro.unfiltered = o->unfiltered;
    ro.active_filters = o->active_filters;
    ro.n_active_filters = o->n_active_filters;
    ro.mean = o->mean;
    pprof_report *r = NULL;
    pprof_status st = pprof_report_new(p, &ro, &r, err);
    if (!st)
        st = pprof_report_print(r, f, out, err);
    pprof_report_free(r);
    return st;
}

pprof_status
pprof__rctx_spill(pprof__rctx *c, pprof_buffer *out)
{
    if (!c->sink || out->len < ((size_t)1 << 17))
        return PPROF_OK;
    bool ok = pprof__out_write(c->sink, out->data, out->len);
    out->len = 0;
    if (ok)
        return PPROF_OK;
    /* commit reports the write's errno with the path */
    return pprof__out_commit(c->sink, c->err);
}

static pprof_status render(const pprof_profile *p, const pprof_report_render_options *opts,
                           pprof_print_format format, pprof_buffer *out, pprof__out_file *sink,
                           unsigned threads, pprof_error *err);

pprof_status
pprof_report_write_memory(const pprof_profile *p, const pprof_report_render_options *opts,
                          pprof_print_format format, pprof_buffer *out, pprof_error *err)
{
    return render(p, opts, format, out, NULL, 1, err);
}

pprof_status
pprof__report_write_memory_threads(const pprof_profile *p, const pprof_report_render_options *opts,
                                   unsigned threads, pprof_print_format format, pprof_buffer *out,
                                   pprof_error *err)
{
    return render(p, opts, format, out, NULL, threads, err);
}

pprof_status
pprof_report_write_file(const pprof_profile *p, const pprof_report_render_options *opts,
                        pprof_print_format format, const pprof_write_options *wo, const char *path,
                        pprof_error *err)
{
    if (!p)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile");
    pprof__out_file f;
    pprof_status st = pprof__out_open(path, wo, &f, err);
    if (st)
        return st;
    pprof_buffer b = {0};
    st = render(p, opts, format, &b, &f, 1, err);
    if (st == PPROF_E_IO) {
        pprof_buffer_free(&b);
        return st; /* the sink failed: its commit said why and removed the temporary */
    }
    if (!st && b.len && !pprof__out_write(&f, b.data, b.len))
        st = PPROF_E_IO;
    pprof_buffer_free(&b);
    if (st && st != PPROF_E_IO) {
        pprof__out_abort(&f);
        return st;
    }
    return pprof__out_commit(&f, err);
}

static pprof_status
render(const pprof_profile *p, const pprof_report_render_options *opts, pprof_print_format format,
       pprof_buffer *out, pprof__out_file *sink, unsigned threads, pprof_error *err)
{
    pprof_report_render_options o = PPROF_REPORT_RENDER_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    if (!p || !out || o.granularity > PPROF_GRANULARITY_ADDRESSES || o.format > PPROF_REPORT_SVG ||
        (format != PPROF_PRINT_TEXT && format != PPROF_PRINT_JSON))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile, output or format");
    if (format == PPROF_PRINT_JSON &&
        (o.format == PPROF_REPORT_CALLGRIND || o.format == PPROF_REPORT_LIST ||
         o.format == PPROF_REPORT_SVG))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                            "callgrind, list and svg have no JSON form");
    if ((o.format == PPROF_REPORT_PEEK || o.format == PPROF_REPORT_LIST) && !o.symbol)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                            "peek and list need a regular expression");
    if (o.format == PPROF_REPORT_TOP)
        return render_top(p, &o, format, out, err);
    pprof_status st = pprof__profile_index(p, err);
    if (st)
        return st;
    pprof__rctx c;
    memset(&c, 0, sizeof(c));
    c.p = p;
    c.u = o.unfiltered ? o.unfiltered : p;
    c.o = &o;
    c.a = o.allocator;
    c.err = err;
    c.output_unit = "minimum";
    c.sink = sink;
    c.threads = threads;
    if ((st = pprof_sample_type_find(p, o.sample_type, &c.index, err)))
        return st;
    pprof_value_type vt = PPROF__AT(p->sample_types, pprof_value_type, c.index);
    pprof_string t = {"", 0}, u = {"", 0};
    pprof_profile_string(p, vt.type, &t);
    pprof_profile_string(p, vt.unit, &u);
    snprintf(c.type, sizeof(c.type), "%s%.*s", o.mean ? "mean_" : "", (int)t.len, t.data);
    snprintf(c.unit, sizeof(c.unit), "%.*s", (int)u.len, u.data);
    for (char *s = c.unit; *s; s++)
        *s = (char)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s);
    /* a unit that is no known one is printed after each value of a text report: escaped, as
     * names are (a known unit has nothing to escape; JSON escapes its own) */
    if (format == PPROF_PRINT_TEXT && pprof__text_needs_escape(c.unit, strlen(c.unit))) {
        pprof_buffer eb = {0};
        if (!pprof__text_escape(&eb, c.unit, strlen(c.unit)))
            snprintf(c.unit, sizeof(c.unit), "%.*s", (int)eb.len, (const char *)eb.data);
        pprof_buffer_free(&eb);
    }
    size_t ui = c.index;
    if (o.unfiltered && (st = pprof_sample_type_find(o.unfiltered, o.sample_type, &ui, err)))
        return st;
    c.total = pprof__report_total(c.u, ui, o.mean);
    /* Go's applyCommandOverrides */
    bool trim = !o.no_trim;
    if (o.format == PPROF_REPORT_PEEK || o.format == PPROF_REPORT_LIST ||
        o.format == PPROF_REPORT_CALLGRIND)
        trim = false;
    /* 0: the default; PPROF_REPORT_ALL and PPROF_REPORT_NO_CUTOFF: none, which is 0 below */
    if (o.node_count == PPROF_REPORT_ALL)
        o.node_count = 0;
    else if (o.node_count <= 0)
        o.node_count = 80;
    o.node_fraction = o.node_fraction == 0 ? 0.005 : o.node_fraction < 0 ? 0 : o.node_fraction;
    o.edge_fraction = o.edge_fraction == 0 ? 0.001 : o.edge_fraction < 0 ? 0 : o.edge_fraction;
    if (o.format == PPROF_REPORT_CALLGRIND)
        o.granularity = PPROF_GRANULARITY_ADDRESSES;
    if (o.format == PPROF_REPORT_LIST)
        o.granularity = PPROF_GRANULARITY_LINES;
    if (!trim) {
        o.node_count = 0;
        o.node_fraction = o.edge_fraction = 0;
    }
    switch (o.format) {
    case PPROF_REPORT_TRACES: return pprof__render_traces(&c, format, out);
    case PPROF_REPORT_TAGS: return pprof__render_tags(&c, format, out);
    case PPROF_REPORT_TREE:
    case PPROF_REPORT_PEEK: return pprof__render_tree(&c, format, out);
    case PPROF_REPORT_DOT: return pprof__render_dot(&c, format, out);
    case PPROF_REPORT_CALLGRIND: return pprof__render_callgrind(&c, out);
    case PPROF_REPORT_LIST: return pprof__render_list(&c, out);
    case PPROF_REPORT_SVG: return pprof__render_svg(&c, out);
    default: return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "unknown report format");
    }
}

pprof_status
pprof_report_write_stream(const pprof_profile *p, const pprof_report_render_options *opts,
                          pprof_print_format format, FILE *stream, pprof_error *err)
{
    if (!stream)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no stream");
    pprof_buffer b = {0};
    pprof_status st = pprof_report_write_memory(p, opts, format, &b, err);
    return pprof__buffer_write_stream(stream, st, &b, err);
}

/* ---- deprecated names, kept for one release (report.h) */

pprof_status
pprof_report_render(const pprof_profile *p, const pprof_report_render_options *opts,
                    pprof_print_format format, pprof_buffer *out, pprof_error *err)
{
    return pprof_report_write_memory(p, opts, format, out, err);
}

pprof_status
pprof_report_render_file(const pprof_profile *p, const pprof_report_render_options *opts,
                         pprof_print_format format, const char *path, const pprof_write_options *wo,
                         pprof_error *err)
{
    return pprof_report_write_file(p, opts, format, wo, path, err);
}
