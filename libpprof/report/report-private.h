/* Shared by the report modules (report*.c, folded.c): nodes at a granularity and Go's number
 * formatting. Not installed. */
#ifndef PPROF_REPORT_PRIVATE_H
#define PPROF_REPORT_PRIVATE_H

#include <inttypes.h>
#include <string.h>

#include "measure-private.h"
#include "pprof/report.h"
#include "profile-private.h"
#include "validate-private.h"

/* Go's int64 arithmetic as the reports print it: wrapping, never undefined. */
static inline int64_t
pprof__abs64(int64_t v)
{
    return v < 0 ? (int64_t)(0 - (uint64_t)v) : v;
}

static inline int64_t
pprof__add64(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* Go's a / b (b != 0): INT64_MIN / -1 wraps to INT64_MIN instead of trapping. */
static inline int64_t
pprof__div64(int64_t a, int64_t b)
{
    return b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b;
}

/* Go's int64(f) on amd64, where the reports sort and cut by it: a value out of range (or NaN)
 * becomes INT64_MIN, as CVTTSD2SQ gives, instead of C's undefined conversion. */
static inline int64_t
pprof__go_i64(double f)
{
    if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0))
        return INT64_MIN;
    return (int64_t)f;
}

/* Byte order of two string views (Go's string comparison), and their equality. */
static inline int
pprof__str_cmp(pprof_string a, pprof_string b)
{
    size_t n = a.len < b.len ? a.len : b.len;
    int c = n ? memcmp(a.data, b.data, n) : 0;
    if (c)
        return c;
    return a.len < b.len ? -1 : a.len > b.len;
}

static inline bool
pprof__str_eq(pprof_string a, pprof_string b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
}

/* Go's graph.NodeInfo: the identity of a node. Strings are views into the profile or into the
 * node table's arena (cleaned file names). */
typedef struct pprof__node_info {
    uint64_t address;
    int64_t lineno, start_line;
    pprof_string name, file, objfile;
} pprof__node_info;

typedef struct pprof__nodes {
    pprof_allocator a;
    pprof__arena arena;
    size_t n;               /* nodes */
    pprof__node_info *info; /* per node */
    int64_t *flat, *cum;    /* per node */
    /* Go's FlatDiv and CumDiv (-mean: the first sample value summed like flat and cum); NULL
     * without -mean */
    int64_t *flat_div, *cum_div;
    uint32_t *loc_off;  /* per location index, n_locations + 1 offsets into loc_node */
    uint32_t *loc_node; /* node of each line of each location, lines in location order */
    size_t sample_index;
    int64_t total;    /* Go's report total (sum of |v|, base samples only in a diff) */
    int64_t flat_sum; /* the nodes' flat values summed (Go's cutoff base) */
    uint32_t *stamp;  /* per node: last sample + 1 that reached it */
} pprof__nodes;

/* report.computeTotal of sample type index: the sum of |value| (of the base samples only in a
 * diff profile); with mean, divided by the first values summed alike. */
int64_t pprof__report_total(const pprof_profile *p, size_t index, bool mean);

/* pprof_report_write_memory on up to `threads` threads (the svg and dot graph's tags are summed
 * beside its edges); the same bytes whatever the count. With 2 or more, opts->allocator must be
 * usable from two threads at once. */
pprof_status pprof__report_write_memory_threads(const pprof_profile *p,
                                                const pprof_report_render_options *opts,
                                                unsigned threads, pprof_print_format format,
                                                pprof_buffer *out, pprof_error *err);

/* Interns every location line into nodes and sums flat and cum of sample type index. */
pprof_status pprof__nodes_build(const pprof_profile *p, size_t index, pprof_granularity g,
                                const pprof_allocator *a, pprof__nodes *out, pprof_error *err);
/* Only the interning: info, n, loc_off and loc_node (flat, cum and stamp stay NULL). */
pprof_status pprof__nodes_intern(const pprof_profile *p, pprof_granularity g,
                                 const pprof_allocator *a, pprof__nodes *n, pprof_error *err);
/* The same with Go's ObjNames (objfile and start line kept in every key) and report.trimPath's
 * trim and search paths (NULL: none). */
typedef struct pprof__nodes_cfg {
    pprof_granularity granularity;
    bool obj_names;
    const char *trim_path, *source_path;
    bool mean; /* Go's -mean: flat_div and cum_div, and samples of value 0 count */
} pprof__nodes_cfg;
pprof_status pprof__nodes_build_cfg(const pprof_profile *p, size_t index,
                                    const pprof__nodes_cfg *cfg, const pprof_allocator *a,
                                    pprof__nodes *out, pprof_error *err);
void pprof__nodes_free(pprof__nodes *n);
/* Go's SampleMeanDivisor under -mean: the sample's first value; 0 without -mean. */
static inline int64_t
pprof__mean_divisor(const pprof_profile *p, const pprof__sample *s, bool mean)
{
    return mean && s->n_val ? PPROF__AT(p->values, int64_t, s->val_off) : 0;
}

/* Go's Node.FlatValue and CumValue: what the reports print (sorting and cutoffs use the sums). */
static inline int64_t
pprof__flat_value(const pprof__nodes *n, uint32_t id)
{
    return n->flat_div && n->flat_div[id] ? pprof__div64(n->flat[id], n->flat_div[id])
                                          : n->flat[id];
}

static inline int64_t
pprof__cum_value(const pprof__nodes *n, uint32_t id)
{
    return n->cum_div && n->cum_div[id] ? pprof__div64(n->cum[id], n->cum_div[id]) : n->cum[id];
}

/* report.trimPath of s (a view into s): the search path's heuristic when trim is empty, then the
 * trim prefixes and /proc/self/cwd. */
pprof_string pprof__trim_source_path(pprof_string s, const char *trim, const char *search);
/* Go's filepath.Clean of a non-empty s, lexically: s itself when already clean, else a copy in
 * the arena (*nomem set when it cannot be made). */
pprof_string pprof__clean_path(pprof__arena *arena, pprof_string s, bool *nomem);

/* Go's NodeInfo.PrintableName, appended to buf (NUL-terminated). */
pprof_status pprof__node_name(const pprof__node_info *i, pprof_buffer *buf);

/* The node ids of location index li, leaf (innermost inline frame) first. */
static inline const uint32_t *
pprof__nodes_of(const pprof__nodes *n, uint32_t li, size_t *count)
{
    *count = n->loc_off[li + 1] - n->loc_off[li];
    return n->loc_node + n->loc_off[li];
}

/* Whether a sample carries the label pprof::base=true (a diff profile's BASE side). */
bool pprof__is_base_sample(const pprof_profile *p, const pprof__sample *s);

/* ---- Go's measurement package */

/* measurement.Percentage(v, total) into dst (at least 32 bytes). */
void pprof__percentage(char *dst, size_t cap, int64_t v, int64_t total);

#endif
