/* The edit engine's working state, shared by edit*.c. Not installed.
 *
 * An edit builds a working profile w that starts as a view of the input: its big tables (stack,
 * values, labels, lines, mappings, functions, locations, sample types, comments) are borrowed
 * from the input until an operation needs to change one, which then gets its own copy
 * (ed_own). Operations only ever shrink a sample's range into the stack (slicing) or point it
 * at new entries appended to w's own stack, so most of them never copy a stack. The result is
 * compacted by the merger (Go's Compact is Merge([p]) too), which drops what no sample
 * reaches and sums identical samples. */
#ifndef PPROF_EDIT_PRIVATE_H
#define PPROF_EDIT_PRIVATE_H

#include "pprof/edit.h"
#include "profile-private.h"
#include "regex-private.h"

enum {
    ED_B_STRINGS = 1u << 0,
    ED_B_SAMPLE_TYPES = 1u << 1,
    ED_B_STACK = 1u << 2,
    ED_B_VALUES = 1u << 3,
    ED_B_LABELS = 1u << 4,
    ED_B_MAPPINGS = 1u << 5,
    ED_B_LOCATIONS = 1u << 6,
    ED_B_LINES = 1u << 7,
    ED_B_FUNCTIONS = 1u << 8,
    ED_B_COMMENTS = 1u << 9,
};

/* A compiled option pattern and its answers per string index (0 unknown, 1 no, 2 yes). */
typedef struct ed_rx {
    pprof__regex *re;
    uint8_t *memo;
    size_t n_memo;
} ed_rx;

/* A bound of a time slice: nanoseconds since the epoch, or from the first sample. */
typedef struct ed_time_bound {
    int64_t ns;
    bool set, relative;
} ed_time_bound;

typedef struct pprof__ed {
    const pprof_profile *in;
    pprof_profile *w;
    pprof_edit_options o;
    const pprof_allocator *a; /* &w->alloc */
    pprof_error *err;
    pprof_status st; /* first failure; every op stops at it */
    unsigned borrowed;
    bool prev_same_tables; /* the batch before gave the merger tables every batch has */
    size_t n_loc0, n_fn0;  /* input table sizes: entries past them are new */
    uint64_t first_loc_id,
        first_fn_id; /* ids of the first new location and function (0: not chosen yet) */
    /* the options' patterns, compiled before anything runs so a bad one fails early */
    ed_rx focus, ignore, hide, show, show_from, prune_from, drop, keep, tag_show, tag_hide;

    /* Samples are edited a batch at a time (all of them for a decoded profile, PPROF__EDIT_BATCH
     * of a merge input), each batch in a fresh working profile added to the merger: the merge
     * is independent of grouping, so the result is the same. What needs every sample is
     * computed before the batches. */
    pprof_profile *lazy;                  /* the merge input's profile, or NULL */
    struct pprof_merge_input *lazy_input; /* the merge input itself, or NULL */
    size_t first;                         /* global index of the batch's first sample */
    size_t batch;                         /* its number */
    bool final;                           /* false: the pass that only sums min_fraction's total */
    /* prune_from's answer per input location, the same in every batch (the operations before
     * it change a location only by what it is): 0 not worked out yet, 1 no line matches, else 2
     * + the index of the first line that does. */
    uint32_t *prune_from_at;
    uint32_t *canon; /* input string -> first string with its bytes (tag operations) */
    size_t n_canon;
    size_t n_str0;   /* the input's strings; later ones are a batch's own (memos skip them) */
    int64_t *units;  /* canonical key -> its numeric unit (string index) or -1 */
    double *norm;    /* normalize's ratio per sample type */
    double mf_total; /* sum of |value| that min_fraction compares against */
    bool unit_conflict;
    unsigned nm_seen, nm_matched; /* "matched no samples", per ED_NM_* */
    struct ed_step_acc *steps;
    ed_time_bound t_from, t_to;
    int64_t t_first;    /* the earliest sample time (t_seen) */
    int64_t t_lo, t_hi; /* the slice kept: [t_lo, t_hi), INT64_MAX = no end */
    bool t_seen;
    /* The output pass over only the samples focus and ignore keep (edit-prefilter.c): what
     * ed_filter_names would have found, and what the kept samples hold in all. */
    struct {
        bool on, focus_matched, ignore_matched;
        uint64_t stack, labels;
    } pre;
} pprof__ed;

#define PPROF__EDIT_BATCH 65536
/* The samples focus and ignore keep (edit-prefilter.c) go in smaller batches: with threads, one
 * is decoded while the merger takes the one before, and a batch reuses the tables of the one
 * two before, so that they are no more fresh pages than two batches hold. */
#define PPROF__EDIT_KEPT_BATCH 8192

/* Go's "<X> expression matched no samples" warnings, in Go's order. */
enum {
    ED_NM_TAGROOT,
    ED_NM_TAGLEAF,
    ED_NM_FOCUS,
    ED_NM_IGNORE,
    ED_NM_HIDE,
    ED_NM_SHOW,
    ED_NM_SHOWFROM,
    ED_NM_TAGFOCUS,
    ED_NM_TAGIGNORE,
    ED_NM_TAGSHOW,
    ED_NM_TAGHIDE,
    ED_NM_COUNT
};

/* Records whether an option matched in this batch; the warning comes after the last one. */
static inline void
ed_matched(pprof__ed *e, unsigned kind, bool m)
{
    if (!e->final)
        return;
    e->nm_seen |= 1u << kind;
    if (m)
        e->nm_matched |= 1u << kind;
}

/* Gives w its own copy of v (one of w's tables) if it is still the input's; false: no memory
 * (e->st set). */
bool ed_own(pprof__ed *e, pprof__vec *v, size_t elem);
/* Room for n more elements in an owned vec. */
bool ed_reserve(pprof__ed *e, pprof__vec *v, size_t elem, size_t n);
pprof_status ed_nomem(pprof__ed *e);

/* Index into w's tables of a location or function id; PPROF_NONE when it does not resolve. */
static inline uint32_t
ed_loc(const pprof__ed *e, uint64_t id)
{
    /* new ids are a block that may lie below input ids (edit.c, free_ids) */
    size_t n = e->w->locations.len, added = n > e->n_loc0 ? n - e->n_loc0 : 0;
    uint64_t k = id - e->first_loc_id; /* wraps for ids below the block */
    if (k < added)
        return (uint32_t)(e->n_loc0 + k);
    return pprof__idmap_find(&e->in->loc_idx, id);
}

static inline uint32_t
ed_fn(const pprof__ed *e, uint64_t id)
{
    size_t n = e->w->functions.len, added = n > e->n_fn0 ? n - e->n_fn0 : 0;
    uint64_t k = id - e->first_fn_id;
    if (k < added)
        return (uint32_t)(e->n_fn0 + k);
    return pprof__idmap_find(&e->in->fn_idx, id);
}

static inline uint32_t
ed_map(const pprof__ed *e, uint64_t id)
{
    return id ? pprof__idmap_find(&e->in->map_idx, id) : PPROF_NONE;
}

static inline pprof_string
ed_str(const pprof__ed *e, int64_t i)
{
    pprof_string s = {"", 0};
    pprof__str(e->w, i, &s);
    return s;
}

/* Appends a string (copied) to w's string table; its index, or -1 (e->st set). */
int64_t ed_add_string(pprof__ed *e, const char *s, size_t n);

pprof_status ed_rx_compile(pprof__ed *e, ed_rx *r, const char *option, const char *pattern,
                           bool anchored);
void ed_rx_free(pprof__ed *e, ed_rx *r);
/* Whether r matches string i (memoized); a failed match sets e->st and answers false. */
bool ed_rx_str(pprof__ed *e, ed_rx *r, int64_t i);
/* The same for bytes that are not a string of the table (not memoized). */
bool ed_rx_bytes(pprof__ed *e, ed_rx *r, const char *s, size_t n);

void ed_warn(pprof__ed *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, said once per edit (on the first batch of the output pass). */
void ed_warn_once(pprof__ed *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Canonical string indices and numeric label units over the whole input (edit-tags.c), made
 * before the batches. */
pprof_status ed_tag_prepare(pprof__ed *e, bool units);

/* base + off elements, without the undefined NULL + 0 of an empty table. */
static inline void *
ed_ptr(const void *base, size_t elem, size_t off)
{
    return base ? (void *)((const char *)base + elem * off) : NULL;
}

static inline pprof__sample *
ed_samples(const pprof__ed *e)
{
    return (pprof__sample *)e->w->samples.data;
}
static inline const uint64_t *
ed_stack(const pprof__ed *e, const pprof__sample *s)
{
    return ed_ptr(e->w->stack.data, sizeof(uint64_t), s->loc_off);
}

/* Whether a sample table (ED_B_STACK, ED_B_LABELS) may be written in place: w's own copy, or
 * the batch a merge input decoded for this edit (decoded again before anyone else reads it). */
static inline bool
ed_writable(const pprof__ed *e, unsigned bit)
{
    return e->lazy || !(e->borrowed & bit);
}

/* Points sample s at a copy of ids (n entries) appended to w's own stack; ids must not point
 * into w's stack. */
bool ed_set_stack(pprof__ed *e, pprof__sample *s, const uint64_t *ids, size_t n);

/* The same for labels, appended to w's own label table. */
bool ed_set_labels(pprof__ed *e, pprof__sample *s, const pprof_label *l, size_t n);

/* What focus and ignore decide for a location of w (ed_focus_state, edit-frames.c); FOCUS and
 * IGNORE are bits, so that the states of a stack can be ORed. */
enum { FI_NONE = 0, FI_FOCUS = 1, FI_IGNORE = 2 };
uint8_t ed_focus_state(pprof__ed *e, size_t li);

/* edit-prefilter.c: the spans of the merge input's samples that focus and ignore keep, given
 * state (FI_* per input location), and their totals in e->pre; false (nothing in *kept) when
 * the scan gives up, and the samples must then be decoded one and all. */
bool ed_prefilter_scan(pprof__ed *e, const uint8_t *state, pprof__vec *kept);

/* Operations (edit-frames.c, edit-tags.c, edit-values.c). Each returns e->st. */
pprof_status ed_prune(pprof__ed *e, const char *drop, const char *keep, const char *option);
pprof_status ed_filter_names(pprof__ed *e);
pprof_status ed_show_from(pprof__ed *e);
pprof_status ed_prune_from(pprof__ed *e);
pprof_status ed_tag_roots(pprof__ed *e);
pprof_status ed_tag_filter(pprof__ed *e);
pprof_status ed_tag_names(pprof__ed *e);
pprof_status ed_sample_types(pprof__ed *e);
pprof_status ed_labels(pprof__ed *e);
pprof_status ed_normalize(pprof__ed *e);
pprof_status ed_normalize_sum(pprof__ed *e);
void ed_normalize_ratio(pprof__ed *e, size_t nt);
pprof_status ed_scale(pprof__ed *e);
pprof_status ed_aggregate(pprof__ed *e);
pprof_status ed_max_depth(pprof__ed *e);
pprof_status ed_min_fraction(pprof__ed *e);
pprof_status ed_redact(pprof__ed *e);
/* edit-time.c: parse the options; the earliest time over a batch; the slice's bounds once
 * every batch was seen; the slice; drop_timestamps. */
pprof_status ed_time_options(pprof__ed *e);
pprof_status ed_time_first(pprof__ed *e);
pprof_status ed_time_resolve(pprof__ed *e);
pprof_status ed_time_range(pprof__ed *e);
pprof_status ed_drop_timestamps(pprof__ed *e);

#endif
