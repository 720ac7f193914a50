/* Go's call graph (internal/graph and report.newTrimmedGraph) for the graph-shaped reports: dot,
 * tree, peek, callgrind; and the shared pieces of every rendered report (header lines, units,
 * the sample type). Not installed. */
#ifndef PPROF_REPORT_GRAPH_PRIVATE_H
#define PPROF_REPORT_GRAPH_PRIVATE_H

#include "regex-private.h"
#include "report-private.h"

/* ---- header lines: a list of NUL-terminated strings */

typedef struct pprof__lines {
    pprof_buffer b; /* the lines, each NUL-terminated */
    size_t n;
} pprof__lines;

pprof_status pprof__lines_add(pprof__lines *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The next line after *pos (start with *pos = 0); NULL at the end. */
const char *pprof__lines_next(const pprof__lines *l, size_t *pos);
void pprof__lines_free(pprof__lines *l);

/* report.ProfileLabels: file, build id, comments, type, time, duration. total and the units
 * format the "Total samples" figure. */
pprof_status pprof__profile_labels(const pprof_profile *p, const char *type, int64_t total,
                                   const char *sample_unit, const char *output_unit,
                                   pprof__lines *out);
/* legendActiveFilters. */
pprof_status pprof__filter_labels(const char *const *f, size_t n, pprof__lines *out);

/* ---- the context every rendered report starts from */

typedef struct pprof__rctx {
    const pprof_profile *p; /* the (filtered) profile reported */
    const pprof_profile *u; /* the profile before filters (labels and total) */
    const pprof_report_render_options *o;
    pprof_allocator a;
    size_t index;
    char type[256], unit[64]; /* unit lowercased */
    int64_t total;
    const char *output_unit; /* "minimum" until selectOutputUnit */
    char output_unit_buf[64];
    pprof_error *err;
    /* pprof_report_write_file: where long reports (traces) move their text as it grows, so
     * that the whole text is never held; NULL: everything stays in the output buffer */
    pprof__out_file *sink;
    /* threads the graph may use (dot and svg: its tags are summed beside its edges); 0 or 1:
     * the calling thread alone. The result never depends on it. */
    unsigned threads;
} pprof__rctx;

/* With a sink: moves out's text to it once out holds a megabyte or more (out is emptied).
 * PPROF_E_IO when the write fails. */
pprof_status pprof__rctx_spill(pprof__rctx *c, pprof_buffer *out);

/* measurement.ScaledLabel of v in the context's units. */
void pprof__rctx_value(const pprof__rctx *c, char *dst, size_t cap, int64_t v);

/* ---- the graph */

typedef struct pprof__gedge {
    uint32_t src, dst, stamp;
    bool residual, is_inline, dead;
    int64_t w;
    int64_t wd; /* Go's WeightDiv (-mean) */
} pprof__gedge;

/* Go's Edge.WeightValue: what dot prints (tree, peek and callgrind print w, as Go does). */
static inline int64_t
pprof__gedge_value(const pprof__gedge *e)
{
    return e->wd ? pprof__div64(e->w, e->wd) : e->w;
}

typedef struct pprof__gtag {
    uint32_t node, labels; /* labels: label-set id (0: none) */
    uint32_t name;         /* tag name: a string id (label tags: = labels) */
    uint32_t stamp;
    bool numeric, dead;
    int64_t value; /* numeric tags */
    int64_t flat, cum;
    int64_t flat_div, cum_div; /* -mean */
} pprof__gtag;

typedef struct pprof__graph {
    pprof_allocator a;
    pprof__nodes nodes;
    /* printable names of every node: name_buf + name_off[i], name_off[i + 1] - 1 bytes */
    char *name_buf;
    uint32_t *name_off;
    uint8_t *in_set; /* per node id: part of the graph being built (Go's KeptNodes) */
    uint32_t *order; /* the graph's nodes (ids), in report order */
    size_t n;
    pprof__vec edges; /* pprof__gedge */
    pprof__u64map emap;
    /* the samples build_edges walks: the first of each distinct location stack (walk[k], in
     * sample order) with the values of every sample of that stack summed (walk_v, walk_d) */
    size_t n_walk;
    uint32_t *walk;
    int64_t *walk_v, *walk_d;
    /* live edges per node: in and out lists (edge indices), rebuilt with the edges */
    uint32_t *in_off, *in_e, *out_off, *out_e;
    /* tags (dot only): strings interned in str_buf/str_off */
    bool with_tags;
    pprof__vec tags; /* pprof__gtag */
    pprof__htab tag_index;
    /* the label-set tags of the first label sets met, as a table: tag_row[labels][node] is the
     * tag's index or PPROF_NONE (node: its tag_rank); a set whose row is NULL once
     * tag_row_kind[labels] is set has its tags in tag_index */
    uint32_t **tag_row;
    uint8_t *tag_row_kind;
    uint32_t *tag_rank; /* per node: its column in the rows (PPROF_NONE: not in the set) */
    size_t n_ranked;
    size_t n_tag_row, tag_row_cells;
    pprof_buffer str_buf;
    pprof__vec str_off; /* uint32_t; string 0 is "" */
    pprof__htab str_index;
    char tag_unit[64];            /* the unit of the "bytes" numeric label */
    uint32_t *tag_off, *tag_list; /* live tags per node */
    int64_t node_cutoff, edge_cutoff;
    size_t orig_count, dropped_nodes, dropped_edges;
} pprof__graph;

typedef struct pprof__graph_opts {
    pprof_granularity granularity;
    bool visual; /* dot: entropy order, tags, redundant edges removed */
    bool cum_sort;
    bool obj_names; /* Go's ObjNames (callgrind, list) */
    size_t node_count;
    double node_fraction, edge_fraction;
} pprof__graph_opts;

/* report.newTrimmedGraph. */
pprof_status pprof__graph_build(const pprof__rctx *c, const pprof__graph_opts *o, pprof__graph *g);
void pprof__graph_free(pprof__graph *g);

static inline const char *
pprof__gname(const pprof__graph *g, uint32_t id, size_t *len)
{
    *len = g->name_off[id + 1] - g->name_off[id] - 1;
    return g->name_buf + g->name_off[id];
}

static inline const char *
pprof__gstr(const pprof__graph *g, uint32_t s, size_t *len)
{
    const uint32_t *off = g->str_off.data;
    *len = off[s + 1] - off[s] - 1;
    return (const char *)g->str_buf.data + off[s];
}

/* Edges of a node sorted as Go's EdgeMap.Sort (|weight| desc, source name, destination name);
 * *out is malloc'ed by the graph's allocator (free with pprof__free). */
pprof_status pprof__graph_sorted_edges(const pprof__graph *g, uint32_t node, bool in,
                                       uint32_t **out, size_t *n);
/* Every live edge between graph nodes, sorted the same way. */
pprof_status pprof__graph_all_edges(const pprof__graph *g, uint32_t **out, size_t *n);
int pprof__graph_edge_cmp(const pprof__graph *g, uint32_t a, uint32_t b);
/* Names of the nodes computed for all nodes (traces); done by pprof__graph_build too. */
pprof_status pprof__graph_names(pprof__graph *g);
/* The names rewritten through the text escape (text-private.h), for a text report that writes
 * them as they are; after pprof__graph_build, since sorting and matching take the real names. */
pprof_status pprof__graph_names_text(pprof__graph *g);

/* report.selectOutputUnit over the graph's nodes; sets c->output_unit. */
void pprof__select_output_unit(pprof__rctx *c, const pprof__graph *g);

/* ---- the reports */
pprof_status pprof__render_traces(pprof__rctx *c, pprof_print_format f, pprof_buffer *out);
pprof_status pprof__render_tags(pprof__rctx *c, pprof_print_format f, pprof_buffer *out);
pprof_status pprof__render_tree(pprof__rctx *c, pprof_print_format f, pprof_buffer *out);
pprof_status pprof__render_dot(pprof__rctx *c, pprof_print_format f, pprof_buffer *out);
pprof_status pprof__render_dot_text(pprof__rctx *c, pprof_print_format f, size_t cap,
                                    pprof_buffer *out);
pprof_status pprof__render_callgrind(pprof__rctx *c, pprof_buffer *out);
pprof_status pprof__render_list(pprof__rctx *c, pprof_buffer *out);
/* report-svg.c: Graphviz's layout of the dot graph; not reentrant (report.h) */
pprof_status pprof__render_svg(pprof__rctx *c, pprof_buffer *out);
/* dot text (n bytes, then a NUL) laid out and drawn as -svg draws it (tests call it). */
pprof_status pprof__svg_from_dot(const char *dot, size_t n, pprof_buffer *svg, pprof_error *err);

/* graph.ShortenFunctionName into buf (NUL-terminated). */
pprof_status pprof__shorten_function_name(const char *name, size_t n, pprof_buffer *buf);

#endif
