/* [libpprof-analyze] libpprof flame graphs: the stack tree of a profile and its writers
 * (d3-flame-graph JSON, an interactive SVG, a self-contained HTML page). docs/flame.md describes
 * the tree and the data the HTML page carries.
 *
 * The tree: node 0 is the root; every other node is a frame at one position of the stacks, its
 * value the sum of the samples whose stack passes through that position and its self value the
 * sum of those that end there, for every sample type of the profile at once. Frames are
 * functions (Go's printable name at function granularity, "<unknown>", "[binary]" or an
 * address for locations without functions), or "function file:line" with `lines`. A location
 * with inline frames gives one node per line, the outermost call first, and every line but the
 * outermost is marked inline. Children are ordered by name bytewise (then non-inline first), so
 * the tree does not depend on the order of the samples. Values are exact int64 sums: the root's
 * value is the profile's total per type, negative values (diff profiles) are kept.
 *
 * Thread rule: the library's (see pprof.h): many threads may build trees of one profile at
 * once; a finished tree refers to nothing in the profile and may be read (and written out)
 * from many threads at once.
 */
#ifndef PPROF_FLAME_H
#define PPROF_FLAME_H

#include <stdio.h>

#include "pprof.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pprof_flame_tree pprof_flame_tree;

typedef struct pprof_flame_options {
    size_t struct_size;      /* sizeof(pprof_flame_options) */
    const char *sample_type; /* the type shown first, as pprof_sample_type_find; NULL = default */
    bool lines;              /* "function file:line" frames instead of functions */
    bool reverse;            /* stacks reversed: leaf frames at the root */
    /* With a base: BASE's values scaled per type so that its total equals IN's (each node's
     * value and self rounded to the nearest integer). */
    bool normalize;
    pprof_allocator allocator;
} pprof_flame_options;

#define PPROF_FLAME_OPTIONS_INIT                                                                   \
    {                                                                                              \
        sizeof(pprof_flame_options), NULL, false, false, false,                                    \
        {                                                                                          \
            NULL, NULL, NULL, NULL                                                                 \
        }                                                                                          \
    }

/* The defaults, as PPROF_FLAME_OPTIONS_INIT. */
PPROF_API void pprof_flame_options_init(pprof_flame_options *opts);

/* Builds the tree of p in one pass over its samples. base may be NULL; otherwise the tree is
 * the union of p's and base's trees, every node with base's values at the same path too (0
 * where base has none). Errors: PPROF_E_ARG (NULL profile or output, unknown sample type),
 * PPROF_E_INVALID (a sample with fewer values than types, a location id without location),
 * PPROF_E_INCOMPATIBLE (base's sample types differ from p's in name or unit), PPROF_E_OVERFLOW
 * (a value leaves int64), PPROF_E_LIMIT (more than 2^32 - 2 nodes), PPROF_E_NOMEM. */
PPROF_API pprof_status pprof_flame_tree_new(const pprof_profile *p, const pprof_profile *base,
                                            const pprof_flame_options *opts, pprof_flame_tree **out,
                                            pprof_error *err);
/* NULL is a no-op. */
PPROF_API void pprof_flame_tree_free(pprof_flame_tree *t);

#define PPROF_FLAME_NONE SIZE_MAX

typedef enum pprof_flame_kind {
    PPROF_FLAME_KIND_NATIVE = 0,  /* C/C++/Rust, addresses, unknown */
    PPROF_FLAME_KIND_USER = 1,    /* Go and other managed code */
    PPROF_FLAME_KIND_RUNTIME = 2, /* Go's runtime */
    PPROF_FLAME_KIND_KERNEL = 3,  /* "_[k]" names, [kernel.kallsyms], vmlinux */
    PPROF_FLAME_KIND_INLINE = 4,  /* an inlined call (node kind only) */
} pprof_flame_kind;

typedef struct pprof_flame_node {
    size_t parent;     /* PPROF_FLAME_NONE for the root */
    size_t end;        /* one past the last node of its subtree (nodes are in preorder) */
    size_t depth;      /* 0 for the root */
    size_t n_children; /* the first child is node + 1; the next sibling of c is c's end */
    size_t name_id;    /* index of its name (pprof_flame_name_at); 0 = "root" */
    bool is_inline;
    pprof_flame_kind kind;
} pprof_flame_node;

typedef struct pprof_flame_name {
    const char *name; /* NUL-terminated (a name may hold NUL bytes: use name_len) */
    size_t name_len;
    const char *file; /* the function's file, "" when unknown; NUL-terminated */
    size_t file_len;
    pprof_flame_kind kind; /* never PPROF_FLAME_KIND_INLINE */
} pprof_flame_name;

typedef struct pprof_flame_type {
    const char *type, *unit; /* NUL-terminated, as in the profile */
} pprof_flame_type;

PPROF_API size_t pprof_flame_count(const pprof_flame_tree *t); /* nodes, root included */
PPROF_API pprof_flame_node pprof_flame_node_at(const pprof_flame_tree *t, size_t node);
PPROF_API size_t pprof_flame_names(const pprof_flame_tree *t);
PPROF_API pprof_flame_name pprof_flame_name_at(const pprof_flame_tree *t, size_t name_id);
PPROF_API size_t pprof_flame_types(const pprof_flame_tree *t);
PPROF_API pprof_flame_type pprof_flame_type_at(const pprof_flame_tree *t, size_t type);
/* The type shown first: opts->sample_type, else as pprof_sample_type_find's default. */
PPROF_API size_t pprof_flame_default_type(const pprof_flame_tree *t);
PPROF_API bool pprof_flame_has_base(const pprof_flame_tree *t);
/* A node's values for a type (0 when out of range); base = true for BASE's. */
PPROF_API int64_t pprof_flame_value(const pprof_flame_tree *t, size_t node, size_t type, bool base);
PPROF_API int64_t pprof_flame_self(const pprof_flame_tree *t, size_t node, size_t type, bool base);
/* Per name over the whole tree: flat = self summed over its nodes; cum = value summed over
 * its nodes without an ancestor of the same name (pprof-top's numbers at this granularity). */
PPROF_API int64_t pprof_flame_flat(const pprof_flame_tree *t, size_t name_id, size_t type,
                                   bool base);
PPROF_API int64_t pprof_flame_cum(const pprof_flame_tree *t, size_t name_id, size_t type,
                                  bool base);

/* ---------------------------------------------------------------- writers */

typedef enum pprof_flame_format {
    PPROF_FLAME_HTML = 0, /* one self-contained page: the viewer and the data (docs/flame.md) */
    PPROF_FLAME_SVG = 1,  /* standalone interactive SVG, as flamegraph.pl's */
    PPROF_FLAME_JSON = 2, /* d3-flame-graph's tree: name, value, children (delta with a base) */
    PPROF_FLAME_DATA = 3, /* the HTML page's data block alone (docs/flame.md's contract) */
} pprof_flame_format;

typedef struct pprof_flame_write_options {
    size_t struct_size; /* sizeof(pprof_flame_write_options) */
    pprof_flame_format format;
    const char *title;       /* NULL: "Flame Graph" / "Differential Flame Graph" */
    const char *source;      /* the input's name as the user gave it (NULL: "") */
    const char *base_source; /* the base's (NULL: "") */
    unsigned width;          /* SVG width in pixels; 0 = 1200 */
    /* Frames narrower than this are not drawn (SVG: left out, parents keep their values; JSON:
     * left out when minwidth_percent; HTML: passed to the viewer). Pixels of the full width, or
     * percent of the total with minwidth_percent. Negative = the default, 0.1 pixels. */
    double minwidth;
    bool minwidth_percent;
    const char *colors; /* hot (default), mem, io, red, green, blue, aqua, yellow, purple,
                           orange, lang (kernel, runtime, native, inlined frames apart) */
    bool hash;          /* colour from a hash of the name: the same name, the same colour */
    bool inverted;      /* icicle: the root at the top */
    /* HTML and DATA: at most this many nodes are carried (the narrowest subtrees are left out,
     * parents keep exact values; docs/flame.md "Pruning"). 0 = 150,000; SIZE_MAX = all. */
    size_t max_nodes;
    pprof_allocator allocator; /* for scratch memory; out is grown with libc's realloc */
    /* HTML: a Graph view of this profile next to the flame graph: the call graph of
     * `go tool pprof -svg` (pprof_report_write_memory, PPROF_REPORT_SVG, with graph_sample_type;
     * NULL: the report's default type), drawn by Graphviz when the page is written. NULL: no
     * Graph view. In a library built without Graphviz the page says that the view is absent;
     * when Graphviz fails the page says why, and the flame graph is written all the same.
     * With a graph, pprof_flame_write_* is NOT thread-safe (Graphviz is not reentrant,
     * see pprof_report_write_memory). */
    const pprof_profile *graph;
    const char *graph_sample_type;
    /* HTML and DATA: the samples with a "timestamp_unix_nano" label are carried with their
     * times for the Time view (docs/flame.md "Time"), to the microsecond while there are at
     * most this many; past it, samples ending at the same frame within the same 20 ms slice
     * are summed into one. 0 = 250,000; SIZE_MAX = never summed. No times with a base. */
    size_t max_time_samples;
    /* HTML: the Graph view's element made beforehand by pprof_flame_graph_view_memory, used as
     * it stands instead of drawing graph (which is then not read): the profile can be freed
     * before the page is written. NULL: graph decides. */
    const pprof_buffer *graph_view;
} pprof_flame_write_options;

#define PPROF_FLAME_WRITE_OPTIONS_INIT                                                             \
    {                                                                                              \
        sizeof(pprof_flame_write_options), PPROF_FLAME_HTML, NULL, NULL, NULL, 0, -1.0, false,     \
            NULL, false, false, 0, {NULL, NULL, NULL, NULL}, NULL, NULL, 0, NULL                   \
    }

/* The defaults, as PPROF_FLAME_WRITE_OPTIONS_INIT. */
PPROF_API void pprof_flame_write_options_init(pprof_flame_write_options *opts);

/* The palettes' names, NULL-terminated, for option parsing and completions. */
PPROF_API const char *const *pprof_flame_palettes(void);
/* "html", "svg", "json" or "data" (case-sensitive). */
PPROF_API bool pprof_flame_format_parse(const char *name, pprof_flame_format *out);

/* Appends the tree in opts->format to out. Names are text in every format: whatever bytes a
 * name holds, the output is valid JSON / well-formed XML / an HTML page where no name can end
 * the data block or run (invalid UTF-8 becomes U+FFFD). The SVG and JSON show the default
 * type. PPROF_E_ARG for an unknown palette or format, PPROF_E_NOMEM. */
PPROF_API pprof_status pprof_flame_write_memory(const pprof_flame_tree *t,
                                                const pprof_flame_write_options *opts,
                                                pprof_buffer *out, pprof_error *err);
/* Appends the Graph view's element of the HTML page for opts->graph (with graph_sample_type and
 * allocator; nothing when graph is NULL), the very bytes pprof_flame_write_memory would put in
 * the page: drawn while the profile lives, it goes in a later page through graph_view, so the
 * profile need not outlive the drawing. A Graphviz failure is said in the element, as in the
 * page. PPROF_E_ARG without out, PPROF_E_NOMEM. NOT thread-safe (Graphviz). */
PPROF_API pprof_status pprof_flame_graph_view_memory(const pprof_flame_write_options *opts,
                                                     pprof_buffer *out, pprof_error *err);

/* pprof_profile_read_buffer (in is freed in every case) for a profile read to be drawn: checked
 * as it is read (pprof_validate's rules), a valid profile comes back in the smaller form
 * pprof_flame_tree_new_take makes of the profiles it takes (location indices of 4 bytes read
 * straight from the wire instead of 8-byte ids, the decoded input gone), so that the full form
 * is never held. Such a profile is for pprof_flame_tree_new_take, pprof_flame_tree_new,
 * pprof_flame_graph_view_memory, pprof_validate, the header, table and string accessors and
 * pprof_profile_free only (pprof_profile_sample gives its samples no location ids): it must
 * not be written, merged, edited or reported on. An invalid profile comes back as
 * pprof_profile_read_buffer reads it (PPROF_OK), for pprof_validate to list its findings. */
PPROF_API pprof_status pprof_flame_profile_read_buffer(pprof_buffer *in,
                                                       const pprof_read_options *opts,
                                                       pprof_profile **out, pprof_error *err);
/* pprof_flame_tree_new taking the profiles: *in (and *base, which may be NULL or point to NULL)
 * are freed and set to NULL as soon as their samples are summed into stacks, before the tree's
 * nodes are made, so that a profile and its tree are never held whole together (the peak memory
 * of a large profile's page). When view is not NULL and there is no base, the Graph view of *in
 * (pprof_flame_graph_view_memory with view_opts; their graph and graph_view are ignored) is
 * appended to view, on a second thread while the stacks are summed (the same bytes as drawn
 * alone; its graph's tags are summed on a third, so view_opts->allocator must be usable from
 * two threads at once). Being the call's, the profiles are checked first and then slimmed (smaller tables,
 * the decoded input gone) before anything reads them. The profiles are freed whatever the
 * outcome; the errors are pprof_flame_tree_new's, then the Graph view's. */
PPROF_API pprof_status pprof_flame_tree_new_take(pprof_profile **in, pprof_profile **base,
                                                 const pprof_flame_options *opts,
                                                 const pprof_flame_write_options *view_opts,
                                                 pprof_buffer *view, pprof_flame_tree **out,
                                                 pprof_error *err);
/* The same into a file written atomically ("-" = standard output); wopts as
 * pprof_bytes_write_file (may be NULL). HTML and the data block go to the file as they are
 * made (never held whole): on standard output, a FIFO or a device, an error part-way leaves the
 * part written. */
PPROF_API pprof_status pprof_flame_write_file(const pprof_flame_tree *t,
                                              const pprof_flame_write_options *opts,
                                              const pprof_write_options *wopts, const char *path,
                                              pprof_error *err);
/* The same to an open stream (flushed, not closed). */
PPROF_API pprof_status pprof_flame_write_stream(const pprof_flame_tree *t,
                                                const pprof_flame_write_options *opts, FILE *stream,
                                                pprof_error *err);
/* Deprecated (one release): pprof_flame_write_memory. */
PPROF_API pprof_status pprof_flame_write(const pprof_flame_tree *t,
                                         const pprof_flame_write_options *opts, pprof_buffer *out,
                                         pprof_error *err)
    PPROF_DEPRECATED("use pprof_flame_write_memory");

#ifdef __cplusplus
}
#endif

#endif
