/* The checker's internals. The first part (finding delivery) is shared with inline.c and
 * repair.c; the rest is the state and helpers of the checker's own files (check*.c). Not
 * installed. */
#ifndef PPROF_CHECK_PRIVATE_H
#define PPROF_CHECK_PRIVATE_H

#include "htab-private.h"
#include <stdio.h>

#include "pprof/check.h"
#include "profile-private.h"
#include "utf8-private.h"

/* rules.def as a table, indexed by pprof_rule. */
extern const pprof_rule_info pprof__rules[PPROF_RULE_COUNT];

/* Finding delivery: enabled mask, limit, callback, summary. */
typedef struct pprof__ck {
    const bool *enabled;
    size_t n_enabled;
    uint64_t max;
    uint64_t reported;
    pprof_finding_fn fn;
    void *ctx;
    pprof_check_summary *sum;
    const char *file;
    bool stop;
    int (*regex_check)(const char *pattern, size_t n, const char **why); /* NULL: S14 is off */
} pprof__ck;

/* A caller's summary (may be NULL) through a full-size local one: sum_in returns NULL for NULL,
 * else local holding what the caller's struct_size covers; sum_out copies back only that. */
PPROF_PRIVATE_API pprof_check_summary *pprof__sum_in(pprof_check_summary *local,
                                                     const pprof_check_summary *user);
PPROF_PRIVATE_API void pprof__sum_out(pprof_check_summary *user, const pprof_check_summary *local);
PPROF_PRIVATE_API void pprof__ck_init(pprof__ck *c, const pprof_check_options *opts,
                                      pprof_finding_fn fn, void *ctx, pprof_check_summary *sum);
bool pprof__ck_on(const pprof__ck *c, pprof_rule r);
/* Counts a finding of an enabled rule; true when it should be formatted and delivered. */
PPROF_PRIVATE_API bool pprof__ck_take(pprof__ck *c, pprof_rule r);
PPROF_PRIVATE_API void pprof__ck_emit(pprof__ck *c, pprof_rule r, uint64_t off, const char *path,
                                      const char *msg);
void pprof__ck_put(pprof__ck *c, pprof_rule r, uint64_t off, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* ---------------------------------------------------------------- the checker's state */

typedef struct chk {
    pprof__ck c;
    const pprof_profile *p;
    const pprof_allocator *a;
    size_t nstr;
    bool implicit_empty; /* no string table: index 0 is read as "" and reported once */
    uint8_t *str_used;
    uint8_t *map_used, *loc_used, *fn_used; /* NULL: not counted (validate.c) */
    size_t sample_base; /* the first sample's number in paths (a merge input's batch) */
} chk;

/* A finding on one path, formatted only when it will be delivered. */
#define FIND(c, rule, off, pathfmt_args, ...)                                                      \
    do {                                                                                           \
        if (pprof__ck_take(c, rule)) {                                                             \
            char path_[160];                                                                       \
            snprintf pathfmt_args;                                                                 \
            pprof__ck_put(c, rule, off, path_, __VA_ARGS__);                                       \
        }                                                                                          \
    } while (0)
#define P(...) (path_, sizeof(path_), __VA_ARGS__)

/* The wire offset of entity i, when the decoder recorded offsets. */
static inline uint64_t
off_at(const pprof__vec *offs, size_t i)
{
    return i < offs->len ? PPROF__AT(*offs, uint64_t, i) : PPROF_NO_OFFSET;
}

/* A string field; on a bad index reports PD1 with the field's path. */
#define SREF(k, idx, off, pathfmt_args)                                                            \
    do {                                                                                           \
        int64_t i_ = (idx);                                                                        \
        if ((uint64_t)i_ < (k)->nstr) {                                                            \
            if ((k)->str_used)                                                                     \
                (k)->str_used[i_] = 1;                                                             \
        } else if (!(i_ == 0 && (k)->implicit_empty))                                              \
            FIND(&(k)->c, PPROF_RULE_PD1_STRING_INDEX, off, pathfmt_args,                          \
                 "string index %lld is out of range: expected 0..%zu (the string table has %zu "   \
                 "entries)",                                                                       \
                 (long long)i_, (k)->nstr ? (k)->nstr - 1 : 0, (k)->nstr);                         \
    } while (0)

static inline bool
str_of(const chk *k, int64_t idx, pprof_string *s)
{
    if (pprof__str(k->p, idx, s))
        return true;
    s->data = "";
    s->len = 0;
    return false;
}

/* Entity indices by content (the common table); callers give the hash and an equality test.
 * Sized for every index up front, so adding never allocates. */
typedef pprof__htab iset;

static inline bool
iset_init(const pprof_allocator *a, iset *s, size_t n)
{
    return pprof__htab_init(s, a, n);
}

static inline void
iset_free(const pprof_allocator *a, iset *s)
{
    pprof__htab_free(s, a);
}

/* Returns the earlier equal index, or PPROF_NONE after inserting i. */
static inline uint32_t
iset_add(iset *s, uint64_t h, uint32_t i, bool (*eq)(const void *, uint32_t, uint32_t),
         const void *ctx)
{
    pprof__htab_probe at;
    uint32_t v;
    PPROF__HTAB_FIND(s, h, at, v, eq(ctx, v, i));
    if (v == PPROF_NONE)
        pprof__htab_insert_at(s, &at, i);
    return v;
}

/* qsort order of (key, index) pairs of uint64_t. */
int pprof__cmp_u64pair(const void *a, const void *b);

/* One step of pprof_check each, in this order: the first five fail only on PPROF_E_NOMEM;
 * check_unused needs the references the others marked. */
pprof_status pprof__check_strings(chk *k);
pprof_status pprof__check_mappings(chk *k);
pprof_status pprof__check_functions(chk *k);
pprof_status pprof__check_locations(chk *k);
pprof_status pprof__check_samples(chk *k);
/* CV1 for a profile with n_samples samples (check_samples's first rule). */
void pprof__check_sample_types(chk *k, size_t n_samples);
pprof_status pprof__check_header(chk *k); /* PPROF_E_NOMEM or PPROF_OK */
void pprof__check_unused(chk *k);
void pprof__check_wire(chk *k);
/* CV4/CV5 for one entity of any table. */
void pprof__check_id(chk *k, const char *what, size_t i, uint64_t id, const pprof__idmap *m,
                     const pprof__vec *offs);

#endif
