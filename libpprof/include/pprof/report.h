/* [libpprof-analyze] libpprof reports: flat and cumulative values per node (`go tool pprof -top`),
 * the difference of two profiles (`go tool pprof -diff_base`) and a regression gate over it.
 *
 * Semantics follow google/pprof's internal/report and internal/graph (docs/report.md lists the
 * few deviations): a node is a function, a file, a source line or an address depending on the
 * granularity; a sample adds its value to the cum of every node on its stack once, however
 * often the node recurs, and to the flat of its leaf node after inline expansion.
 *
 * Thread rule: the library's (see pprof.h): many threads may build reports of one profile at
 * once; a finished report refers to nothing in the profile.
 */
#ifndef PPROF_REPORT_H
#define PPROF_REPORT_H

#include <stdio.h>

#include "pprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* pprof_granularity is pprof.h's (one enum for the rewrite engine and the reports); a
 * report reads PPROF_GRANULARITY_NONE as PPROF_GRANULARITY_FUNCTIONS, Go's default for -top. */

/* Option values where 0 is the default and so cannot also mean "none": node_count =
 * PPROF_REPORT_ALL keeps every node; node_fraction or edge_fraction = PPROF_REPORT_NO_CUTOFF
 * (any negative value) drops nothing. */
#define PPROF_REPORT_ALL INT64_MAX
#define PPROF_REPORT_NO_CUTOFF (-1.0)

/* "functions", "filefunctions", "files", "lines" or "addresses". */
PPROF_API bool pprof_granularity_parse(const char *name, pprof_granularity *out);

typedef struct pprof_report_options {
    size_t struct_size;      /* sizeof(pprof_report_options) */
    const char *sample_type; /* see pprof_sample_type_find; NULL = the default */
    pprof_granularity granularity;
    bool cum_sort;     /* order by cum instead of flat (-cum) */
    size_t node_count; /* nodes kept after ordering (-nodecount); 0 = the default, all */
    /* drop nodes whose |cum| is below this share of the total; 0 = the default, 0.005 */
    double node_fraction;
    /* edges below this share do not mark a node (inline); 0 = the default, 0.001 */
    double edge_fraction;
    pprof_allocator allocator;
    /* When p is a filtered copy (pprof_edit) of a profile: that profile. Go takes the total
     * and the header lines before it applies -focus and the other filters, so percentages
     * stay shares of the whole profile. NULL: p itself. */
    const pprof_profile *unfiltered;
    /* The filters in effect, "focus=RX" and so on, printed as Go's "Active filters:" lines. */
    const char *const *active_filters;
    size_t n_active_filters;
    /* Go's -mean: each node's value divided by the first sample value (the count) summed over
     * the same samples; the type is printed as mean_TYPE. Ordering and cutoffs use the sums, as
     * Go's do. */
    bool mean;
} pprof_report_options;

#define PPROF_REPORT_OPTIONS_INIT                                                                  \
    {                                                                                              \
        sizeof(pprof_report_options), NULL, PPROF_GRANULARITY_FUNCTIONS, false, 0, 0, 0,           \
            {NULL, NULL, NULL, NULL}, NULL, NULL, 0, false                                         \
    }

PPROF_API void pprof_report_options_init(pprof_report_options *opts);

typedef struct pprof_report pprof_report;

typedef enum pprof_inline_mark {
    PPROF_INLINE_MARK_NONE = 0,
    PPROF_INLINE_MARK_INLINE = 1,  /* every call into the node was inlined: "(inline)" */
    PPROF_INLINE_MARK_PARTIAL = 2, /* some were: "(partial-inline)" */
} pprof_inline_mark;

typedef struct pprof_report_node {
    const char *name; /* Go's printable name at the report's granularity, NUL-terminated */
    size_t name_len;  /* its length (a name may hold NUL bytes) */
    int64_t flat, cum;
    pprof_inline_mark inline_mark;
} pprof_report_node;

typedef struct pprof_report_summary {
    size_t sample_index;
    const char *sample_type, *sample_unit; /* NUL-terminated; unit lowercased as Go does */
    int64_t total;        /* sum of |value| (of the base samples only, in a diff profile) */
    size_t nodes_nonzero; /* nodes with a nonzero flat or cum */
    size_t nodes_kept;    /* of those, the ones at or above the node_fraction cutoff */
    int64_t flat_shown;   /* the flat values of the nodes listed, summed */
} pprof_report_summary;

/* Computes the report. opts may be NULL for the defaults. Errors: PPROF_E_ARG (sample type),
 * PPROF_E_OVERFLOW (a flat, cum or total leaves int64), PPROF_E_NOMEM. */
PPROF_API pprof_status pprof_report_new(const pprof_profile *p, const pprof_report_options *opts,
                                        pprof_report **out, pprof_error *err);
/* NULL is a no-op. */
PPROF_API void pprof_report_free(pprof_report *r);
PPROF_API pprof_report_summary pprof_report_get_summary(const pprof_report *r);
/* Nodes listed, in report order; pointers stay valid until the report is freed. */
PPROF_API size_t pprof_report_count(const pprof_report *r);
PPROF_API pprof_report_node pprof_report_node_at(const pprof_report *r, size_t i);

/* Appends the report: PPROF_PRINT_TEXT is `go tool pprof -top`'s text (header lines, then
 * flat flat% sum% cum cum% name with Go's unit scaling); PPROF_PRINT_JSON gives raw integers. */
PPROF_API pprof_status pprof_report_print(const pprof_report *r, pprof_print_format format,
                                          pprof_buffer *out, pprof_error *err);

/* ---------------------------------------------------------------- rendered reports */

/* The reports of `go tool pprof` by output format (docs/report.md). */
typedef enum pprof_report_format {
    PPROF_REPORT_TOP = 0,   /* -top: pprof_report_new + pprof_report_print */
    PPROF_REPORT_TRACES,    /* -traces: every sample's stack, labels and value */
    PPROF_REPORT_TAGS,      /* -tags: label values by share of the total */
    PPROF_REPORT_TREE,      /* -tree: each node with its callers and callees */
    PPROF_REPORT_PEEK,      /* -peek RX: -tree for the nodes matching symbol, untrimmed */
    PPROF_REPORT_DOT,       /* -dot: the call graph in Graphviz's language */
    PPROF_REPORT_CALLGRIND, /* -callgrind: callgrind's format (KCachegrind) */
    PPROF_REPORT_LIST,      /* -list RX: annotated source of the functions matching symbol,
                             * the sources read from the paths in the profile (docs/report.md) */
    PPROF_REPORT_SVG,       /* -svg: the dot graph laid out by Graphviz, with pan and zoom */
} pprof_report_format;

typedef struct pprof_report_render_options {
    size_t struct_size; /* sizeof(pprof_report_render_options) */
    pprof_report_format format;
    const char *sample_type; /* see pprof_sample_type_find; NULL = the default */
    /* PPROF_GRANULARITY_NONE: the format's default, as Go's (functions; addresses for
     * callgrind, which Go forces; lines for list, which Go forces) */
    pprof_granularity granularity;
    bool cum_sort;        /* -cum */
    int64_t node_count;   /* -nodecount; 0: the format's default (80; all for top) */
    double node_fraction; /* -nodefraction; 0: 0.005 */
    double edge_fraction; /* -edgefraction; 0: 0.001 */
    bool no_trim;         /* -trim=false: no node count, no fractions */
    bool compact_labels;  /* -compact_labels: no profile header lines in tree and top */
    const char *symbol;   /* the regexp (Go syntax) of peek and list; NULL for the others */
    /* list: directories searched for sources, ':'-separated, each with its parents (NULL or
     * "": the working directory); Go's -source_path */
    const char *source_path;
    /* list: prefixes removed from source paths, ':'-separated (NULL or "": a search
     * directory's base name found in the path, as Go guesses); Go's -trim_path */
    const char *trim_path;
    pprof_allocator allocator;
    /* as in pprof_report_options */
    const pprof_profile *unfiltered;
    const char *const *active_filters;
    size_t n_active_filters;
    /* -mean, as in pprof_report_options; traces divide each sample's value by its first value;
     * tags are Go's, which ignore it; tree, peek and callgrind print edge weights undivided and
     * list its lines (the total divided), as Go does */
    bool mean;
} pprof_report_render_options;

#define PPROF_REPORT_RENDER_OPTIONS_INIT                                                           \
    {                                                                                              \
        sizeof(pprof_report_render_options), PPROF_REPORT_TOP, NULL, PPROF_GRANULARITY_NONE,       \
            false, 0, 0.0, 0.0, false, false, NULL, NULL, NULL, {NULL, NULL, NULL, NULL}, NULL,    \
            NULL, 0, false                                                                         \
    }

PPROF_API void pprof_report_render_options_init(pprof_report_render_options *opts);

/* Appends the report opts->format names to out. PPROF_PRINT_TEXT is Go's output byte for byte
 * (docs/report.md lists the differences); PPROF_PRINT_JSON is documented there for top, traces,
 * tags, tree, peek and dot (PPROF_E_ARG for callgrind, list and svg). Errors: PPROF_E_ARG (sample
 * type, a bad regexp, no node matching symbol), PPROF_E_INVALID (a dangling location id),
 * PPROF_E_OVERFLOW, PPROF_E_NOMEM. Sources that list cannot read are said in the output.
 *
 * PPROF_REPORT_SVG is the dot graph laid out and drawn by Graphviz's library (libgvc) in this
 * process: `go tool pprof -svg`'s document, whose pan/zoom script is ours (docs/report.md).
 * Graphviz's warnings go to stderr, as dot's do under Go; Graphviz failing to read, lay out or
 * draw the graph is PPROF_E_INVALID.
 *
 * Thread safety: every format but PPROF_REPORT_SVG may run on many threads at once (one output
 * buffer each). PPROF_REPORT_SVG is NOT thread-safe: Graphviz is not reentrant (its parser,
 * error reporting and plugin loading are process-wide), so the caller must make sure no other
 * PPROF_REPORT_SVG render, and no other use of Graphviz in the process, runs at the same time
 * (the library holds no lock of its own: it keeps no global state). */
PPROF_API pprof_status pprof_report_write_memory(const pprof_profile *p,
                                                 const pprof_report_render_options *opts,
                                                 pprof_print_format format, pprof_buffer *out,
                                                 pprof_error *err);

/* pprof_report_write_memory written to path as pprof_bytes_write_file writes (a temporary file
 * renamed over path once complete; "-" is standard output; wopts may be NULL), with the text
 * of long reports (traces) written as it is made, a megabyte at a time, instead of held whole.
 * Errors as pprof_report_write_memory, plus PPROF_E_IO (path cannot be written; path is left
 * as it was). Thread safety as pprof_report_write_memory. */
PPROF_API pprof_status pprof_report_write_file(const pprof_profile *p,
                                               const pprof_report_render_options *opts,
                                               pprof_print_format format,
                                               const pprof_write_options *wopts, const char *path,
                                               pprof_error *err);
/* The same to an open stream (flushed, not closed). */
PPROF_API pprof_status pprof_report_write_stream(const pprof_profile *p,
                                                 const pprof_report_render_options *opts,
                                                 pprof_print_format format, FILE *stream,
                                                 pprof_error *err);
/* Deprecated (one release): pprof_report_write_memory and pprof_report_write_file (whose
 * path comes after the write options). */
PPROF_API pprof_status pprof_report_render(const pprof_profile *p,
                                           const pprof_report_render_options *opts,
                                           pprof_print_format format, pprof_buffer *out,
                                           pprof_error *err)
    PPROF_DEPRECATED("use pprof_report_write_memory");
PPROF_API pprof_status pprof_report_render_file(const pprof_profile *p,
                                                const pprof_report_render_options *opts,
                                                pprof_print_format format, const char *path,
                                                const pprof_write_options *wopts, pprof_error *err)
    PPROF_DEPRECATED("use pprof_report_write_file");

/* ---------------------------------------------------------------- diff */

typedef struct pprof_diff_options {
    size_t struct_size;      /* sizeof(pprof_diff_options) */
    const char *sample_type; /* for the node table: a type both profiles have; NULL = default */
    pprof_granularity granularity;
    /* Go's -normalize: NEW's values are scaled per sample type so that its totals equal
     * BASE's (google/pprof scales the source profile, not the base). */
    bool normalize;
    pprof_allocator allocator;
    /* Threads the merge behind the diff profile may use (pprof_merge_options.threads); the
     * result never depends on it. */
    unsigned threads;
} pprof_diff_options;

#define PPROF_DIFF_OPTIONS_INIT                                                                    \
    {                                                                                              \
        sizeof(pprof_diff_options), NULL, PPROF_GRANULARITY_FUNCTIONS, false,                      \
            {NULL, NULL, NULL, NULL}, 0                                                            \
    }

PPROF_API void pprof_diff_options_init(pprof_diff_options *opts);

/* The profile `go tool pprof -proto -diff_base BASE NEW` writes: NEW merged with BASE, BASE's
 * samples labelled pprof::base=true and their values negated (samples left all zero are
 * dropped). With opts->sample_type set and differing sample types, only the types both have
 * are kept; otherwise differing sample or period types fail with PPROF_E_INCOMPATIBLE. */
PPROF_API pprof_status pprof_diff_profile(const pprof_profile *base, const pprof_profile *cur,
                                          const pprof_diff_options *opts, pprof_profile **out,
                                          pprof_error *err);

/* pprof_diff_profile written straight to a path ("-" = standard output), atomically, without
 * building the diff profile's sample table: the same bytes as pprof_diff_profile followed by
 * pprof_profile_write_file. wopts may be NULL (gzip). */
PPROF_API pprof_status pprof_diff_write_file(const pprof_profile *base, const pprof_profile *cur,
                                             const pprof_diff_options *opts,
                                             const pprof_write_options *wopts, const char *path,
                                             pprof_error *err);

typedef struct pprof_diff pprof_diff;

typedef struct pprof_diff_node {
    const char *name; /* NUL-terminated */
    size_t name_len;
    int64_t base_flat, base_cum, new_flat, new_cum;
} pprof_diff_node;

typedef struct pprof_diff_summary {
    const char *sample_type, *sample_unit;
    int64_t base_total, new_total; /* sums of the sample values (signed) */
} pprof_diff_summary;

/* Flat and cum per node in both profiles, ordered by the largest of |new_flat - base_flat| and
 * |new_cum - base_cum|, then by name. Errors as pprof_report_new, plus PPROF_E_INCOMPATIBLE
 * when the chosen sample types differ in name or unit. */
PPROF_API pprof_status pprof_diff_new(const pprof_profile *base, const pprof_profile *cur,
                                      const pprof_diff_options *opts, pprof_diff **out,
                                      pprof_error *err);
PPROF_API void pprof_diff_free(pprof_diff *d);
PPROF_API pprof_diff_summary pprof_diff_get_summary(const pprof_diff *d);
PPROF_API size_t pprof_diff_count(const pprof_diff *d);
PPROF_API pprof_diff_node pprof_diff_node_at(const pprof_diff *d, size_t i);
/* Appends the first n nodes (0 = all) as text or JSON. */
PPROF_API pprof_status pprof_diff_print(const pprof_diff *d, size_t n, pprof_print_format format,
                                        pprof_buffer *out, pprof_error *err);

/* A --fail-if rule (grammar in docs/report.md):
 *   RULE    = SUBJECT OP CHANGE
 *   SUBJECT = "total" | ("flat" | "cum") ":" REGEX
 *   OP      = ">" | ">=" | "<" | "<="
 *   CHANGE  = ["+" | "-"] NUMBER ("%" | "pp" | "")
 * "%" is percent of the subject's own base value, "pp" percentage points of BASE's total,
 * a bare number the change in the sample type's unit. REGEX (Go's syntax, RE2, as every other
 * pattern of the library) is searched in the node name; the rule fires when any matching
 * node's change satisfies OP. pprof_diff_rule_eval uses a scratch buffer of the rule for names
 * that are not UTF-8: one thread at a time per rule. */
typedef struct pprof_diff_rule pprof_diff_rule;

/* PPROF_E_ARG with a message pointing at the offending character. */
PPROF_API pprof_status pprof_diff_rule_parse(const char *text, const pprof_allocator *allocator,
                                             pprof_diff_rule **out, pprof_error *err);
PPROF_API void pprof_diff_rule_free(pprof_diff_rule *rule);
/* Evaluates the rule; appends one line per firing (the rule, the node and its values) to msg
 * (may be NULL) and sets *fired to the number of firings. */
PPROF_API pprof_status pprof_diff_rule_eval(const pprof_diff_rule *rule, const pprof_diff *d,
                                            pprof_buffer *msg, size_t *fired, pprof_error *err);

#ifdef __cplusplus
}
#endif

#endif
