/* The stack tree behind the flame graph writers (flame-tree.c builds it; flame-json.c,
 * flame-svg.c and flame-html.c write it). Not installed. */
#ifndef PPROF_FLAME_PRIVATE_H
#define PPROF_FLAME_PRIVATE_H

#include "pprof/flame.h"
#include <inttypes.h>

#include "profile-private.h"

/* Nodes are in preorder, children ordered by (name bytes, inline); per-type arrays are node-major
 * (value[node * nt + type]). The base arrays are NULL without a base. */
struct pprof_flame_tree {
    pprof_allocator a;
    pprof__arena arena; /* names, files and type strings */
    size_t nt, default_type;
    pprof_flame_type *types;
    bool lines, reverse, normalized;
    size_t n_names;
    pprof_flame_name *names;
    size_t n;
    uint32_t *parent, *end, *depth, *n_children, *name;
    uint8_t *inl;
    int64_t *value[2], *self[2]; /* [0] IN, [1] BASE */
    int64_t *flat[2], *cum[2];   /* per name: n_names * nt */
    /* The samples with a "timestamp_unix_nano" label (none with a base), sorted by time:
     * time[k], the node where the sample's stack ends node[k] (preorder index), its values
     * value[k * nt ..]. */
    size_t n_timed;
    int64_t *tm_time, *tm_value;
    uint32_t *tm_node;
};

#define PPROF__FLAME_TIME_LABEL "timestamp_unix_nano"

static inline pprof_flame_kind
pprof__flame_node_kind(const pprof_flame_tree *t, size_t i)
{
    return t->inl[i] ? PPROF_FLAME_KIND_INLINE : t->names[t->name[i]].kind;
}

/* The frames of every location, root-most first, as keys name << 1 | inline:
 * fr[off[li] .. off[li + 1]) for location index li. */
typedef struct pprof__flame_loc_frames {
    uint32_t *off, *fr;
} pprof__flame_loc_frames;

/* The distinct frame stacks of a profile (flame-stacks.c): stack k is frames[off[k] ..
 * off[k] + len[k]) root-first (leaf-first with reverse), sum[k * nt ..] the values of its
 * samples summed; order lists the stacks sorted by their frames; of_sample[i] is sample i's. */
typedef struct pprof__flame_stacks {
    size_t n;
    uint32_t *off, *len, *frames, *order;
    uint32_t *of_sample; /* each sample's stack (NULL unless asked for) */
    int64_t *sum;
    bool overflow;
} pprof__flame_stacks;

/* PPROF_E_INVALID for a sample with fewer than nt values or a location id without location;
 * PPROF_E_NOMEM. p's id index must be built. of_sample is made only when per_sample (else
 * NULL). */
pprof_status pprof__flame_stacks_build(const pprof_profile *p, const pprof__flame_loc_frames *lf,
                                       size_t nt, bool reverse, bool per_sample,
                                       const pprof_allocator *a, pprof__flame_stacks *s,
                                       pprof_error *err);
void pprof__flame_stacks_free(const pprof_allocator *a, pprof__flame_stacks *s);

/* The writers' common scratch: which nodes are written (keep[i]; NULL = all). */
typedef struct pprof__flame_keep {
    uint8_t *keep;
    size_t kept, pruned;
} pprof__flame_keep;

/* Marks the nodes to keep: a node whose |value| for some type reaches frac of that type's
 * |total| (frac <= 0: all), and every ancestor of a kept node; then, if more than max_nodes
 * remain (0: no cap), raises the cut until they fit. */
pprof_status pprof__flame_keep_select(const pprof_flame_tree *t, double frac, size_t max_nodes,
                                      const pprof_allocator *a, pprof__flame_keep *k,
                                      pprof_error *err);
void pprof__flame_keep_free(const pprof_allocator *a, pprof__flame_keep *k);
/* The k-th largest of v[0..n) (0-based, k < n), reordering v; linear time, ties included. */
float pprof__flame_kth_largest(float *v, size_t n, size_t k);

/* XML text or attribute content: &, <, >, ", ' as entities; characters XML 1.0 forbids (control
 * bytes, U+FFFE/U+FFFF) and invalid UTF-8 as U+FFFD. At most max bytes of s (then "..."). */
pprof_status pprof__flame_xml_str(pprof_buffer *b, const char *s, size_t n, size_t max);

/* Appends v in decimal; room for 20 bytes must have been reserved. */
static inline void
pprof__flame_put_i64(pprof_buffer *b, int64_t v)
{
    char tmp[24];
    size_t k = sizeof(tmp);
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[--k] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        tmp[--k] = '-';
    memcpy(b->data + b->len, tmp + k, sizeof(tmp) - k);
    b->len += sizeof(tmp) - k;
}

pprof_status pprof__flame_write_json(const pprof_flame_tree *t, const pprof_flame_write_options *o,
                                     pprof_buffer *out, pprof_error *err);
/* With a sink (may be NULL), the block goes to it as it is written, the rest left in out. */
pprof_status pprof__flame_write_data(const pprof_flame_tree *t, const pprof_flame_write_options *o,
                                     pprof_buffer *out, pprof__out_file *sink, pprof_error *err);
pprof_status pprof__flame_write_svg(const pprof_flame_tree *t, const pprof_flame_write_options *o,
                                    pprof_buffer *out, pprof_error *err);
pprof_status pprof__flame_write_html(const pprof_flame_tree *t, const pprof_flame_write_options *o,
                                     pprof_buffer *out, pprof__out_file *sink, pprof_error *err);

/* pprof_flame_graph_view_memory on up to `threads` threads (report-private.h's
 * pprof__report_write_memory_threads): the same bytes whatever the count. */
pprof_status pprof__flame_graph_view(const pprof_flame_write_options *opts, unsigned threads,
                                     pprof_buffer *out, pprof_error *err);

/* A palette's index in pprof_flame_palettes(), or -1. NULL or "" = hot (0). */
int pprof__flame_palette(const char *name);
/* The colour of a frame as "rgb(r,g,b)" into dst (at least 24 bytes), flamegraph.pl's way:
 * random within the palette's range unless hash, where the name decides (a deterministic
 * generator seeded per node keeps the output reproducible). */
void pprof__flame_color(char *dst, int palette, bool hash, const pprof_flame_tree *t, size_t node,
                        uint64_t *rng);

#endif
