/* Builder: interning with generation-stamped handles, sample aggregation, open samples. */
#include <stdlib.h>

#include "builder-private.h"

#define LOCK(b)                                                                                    \
    do {                                                                                           \
        if ((b)->locked_mode)                                                                      \
            pthread_mutex_lock(&(b)->mu);                                                          \
    } while (0)
#define UNLOCK(b)                                                                                  \
    do {                                                                                           \
        if ((b)->locked_mode)                                                                      \
            pthread_mutex_unlock(&(b)->mu);                                                        \
    } while (0)

/* ---------------------------------------------------------------- errors and handles */

static pprof_status
stale(pprof_error *err, const char *path, uint64_t h, uint32_t gen)
{
    return pprof__error(err, PPROF_E_STALE, PPROF_NO_OFFSET, path,
                        "handle 0x%llx is not from the current generation %u or was never issued",
                        (unsigned long long)h, gen);
}

static inline uint64_t
mkh(const pprof_builder *b, uint32_t index)
{
    return ((uint64_t)b->gen << 32) | (uint64_t)(index + 1);
}

/* Resolves a handle of the current generation into a table index; 0 maps to PPROF_NONE. */
static bool
resolve(const pprof_builder *b, uint64_t h, size_t len, uint32_t *index)
{
    if (h == 0) {
        *index = PPROF_NONE;
        return true;
    }
    uint32_t lo = (uint32_t)h;
    if ((uint32_t)(h >> 32) != b->gen || lo == 0 || lo > len)
        return false;
    *index = lo - 1;
    return true;
}

static pprof_status
res_str(const pprof_builder *b, pprof_builder_str s, uint32_t *index, const char *path,
        pprof_error *err)
{
    if (!resolve(b, s.h, b->strs.len, index))
        return stale(err, path, s.h, b->gen);
    if (*index == PPROF_NONE)
        *index = 0;
    return PPROF_OK;
}

/* ---------------------------------------------------------------- samples */

typedef struct skey {
    const uint32_t *locs;
    size_t n_loc;
    const blabel *labs;
    size_t n_lab;
} skey;

static bool
sample_eq(const pprof_builder *b, uint32_t i, const void *key)
{
    const skey *k = key;
    const bsample *s = &PPROF__AT(b->samples, bsample, i);
    if (s->n_loc != k->n_loc || s->n_lab != k->n_lab)
        return false;
    if (k->n_loc &&
        memcmp((const uint32_t *)b->stack.data + s->loc_off, k->locs, k->n_loc * sizeof(uint32_t)))
        return false;
    if (!k->n_lab) /* labels.data may still be NULL, and NULL + 0 is undefined */
        return true;
    const blabel *l = (const blabel *)b->labels.data + s->lab_off;
    for (size_t j = 0; j < k->n_lab; j++)
        if (l[j].key != k->labs[j].key || l[j].str != k->labs[j].str ||
            l[j].unit != k->labs[j].unit || l[j].num != k->labs[j].num)
            return false;
    return true;
}

static int
label_cmp(const void *x, const void *y)
{
    const blabel *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->str != b->str)
        return a->str < b->str ? -1 : 1;
    if (a->num != b->num)
        return a->num < b->num ? -1 : 1;
    if (a->unit != b->unit)
        return a->unit < b->unit ? -1 : 1;
    return 0;
}

/* Adds a sample whose labels are already sorted; nothing changes on error. */
static pprof_status
add_resolved(pprof_builder *b, const int64_t *values, const uint32_t *locs, size_t n_loc,
             const blabel *labs, size_t n_lab, pprof_error *err)
{
    const size_t nt = b->n_types;
    if (!pprof__htab_reserve(&b->h_sample, &b->alloc, 1))
        return pprof__builder_nomem(err);
    skey k = {locs, n_loc, labs, n_lab};
    uint32_t h = pprof__bsample_hash(locs, n_loc, labs, n_lab);
    pprof__htab_probe pos;
    uint32_t i = pprof__builder_find(&b->h_sample, h, sample_eq, b, &k, &pos);
    if (i != PPROF_NONE) {
        int64_t *v = (int64_t *)b->values.data + PPROF__AT(b->samples, bsample, i).val_off;
        int64_t sum;
        for (size_t j = 0; j < nt; j++)
            if (__builtin_add_overflow(v[j], values[j], &sum))
                return pprof__error(err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, "value",
                                    "sum of value[%zu] overflows int64", j);
        for (size_t j = 0; j < nt; j++)
            v[j] += values[j];
        return PPROF_OK;
    }
    if (b->samples.len >= b->o.max_samples)
        return pprof__builder_limit(b, err, "max_samples", b->o.max_samples);
    if (b->stack.len + n_loc > PPROF__BUILDER_MAX_U32 ||
        b->labels.len + n_lab > PPROF__BUILDER_MAX_U32)
        return pprof__builder_limit(b, err, "2^32 stack entries or labels", UINT32_MAX);
    if (!pprof__vec_grow(&b->alloc, &b->samples, sizeof(bsample), b->samples.len + 1) ||
        !pprof__vec_grow(&b->alloc, &b->stack, sizeof(uint32_t), b->stack.len + n_loc) ||
        !pprof__vec_grow(&b->alloc, &b->labels, sizeof(blabel), b->labels.len + n_lab) ||
        !pprof__vec_grow(&b->alloc, &b->values, sizeof(int64_t), b->values.len + nt))
        return pprof__builder_nomem(err);
    bsample *s = pprof__vec_push(&b->alloc, &b->samples, sizeof(bsample));
    s->loc_off = (uint32_t)b->stack.len;
    s->n_loc = (uint32_t)n_loc;
    s->lab_off = (uint32_t)b->labels.len;
    s->n_lab = (uint32_t)n_lab;
    s->val_off = b->values.len;
    if (n_loc)
        memcpy((uint32_t *)b->stack.data + b->stack.len, locs, n_loc * sizeof(uint32_t));
    if (n_lab)
        memcpy((blabel *)b->labels.data + b->labels.len, labs, n_lab * sizeof(blabel));
    memcpy((int64_t *)b->values.data + b->values.len, values, nt * sizeof(int64_t));
    b->stack.len += n_loc;
    b->labels.len += n_lab;
    b->values.len += nt;
    pprof__htab_insert_at(&b->h_sample, &pos, (uint32_t)b->samples.len - 1);
    return PPROF_OK;
}

static pprof_status
res_label(const pprof_builder *b, const pprof_builder_label *l, blabel *out, size_t i,
          pprof_error *err)
{
    char path[128];
    pprof__path(path, "label[%zu].key", i);
    pprof_status st = res_str(b, l->key, &out->key, path, err);
    if (!st) {
        pprof__path(path, "label[%zu].str", i);
        st = res_str(b, l->str, &out->str, path, err);
    }
    if (!st) {
        pprof__path(path, "label[%zu].num_unit", i);
        st = res_str(b, l->num_unit, &out->unit, path, err);
    }
    if (st)
        return st;
    if (out->key == 0) {
        pprof__path(path, "label[%zu].key", i);
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, path, "a label needs a key");
    }
    out->num = out->str ? 0 : l->num;
    if (out->str)
        out->unit = 0;
    return PPROF_OK;
}

static pprof_status
check_values(const pprof_builder *b, const int64_t *values, size_t n_values, pprof_error *err)
{
    if (n_values != b->n_types || !values)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "value",
                            "%zu values for %zu sample types", values ? n_values : 0, b->n_types);
    return PPROF_OK;
}

static pprof_status
add_sample(pprof_builder *b, const int64_t *values, size_t n_values, const pprof_builder_loc *stack,
           size_t n_stack, const pprof_builder_label *labels, size_t n_labels, pprof_error *err)
{
    pprof_status st = check_values(b, values, n_values, err);
    if (st)
        return st;
    if ((n_stack && !stack) || (n_labels && !labels))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "NULL stack or labels");
    if (!pprof__vec_grow(&b->alloc, &b->scratch_locs, sizeof(uint32_t), n_stack) ||
        !pprof__vec_grow(&b->alloc, &b->scratch_labs, sizeof(blabel), n_labels))
        return pprof__builder_nomem(err);
    uint32_t *locs = b->scratch_locs.data;
    blabel *labs = b->scratch_labs.data;
    for (size_t i = 0; i < n_stack; i++) {
        if (!resolve(b, stack[i].h, b->locs.len, &locs[i]) || locs[i] == PPROF_NONE) {
            char path[128];
            pprof__path(path, "stack[%zu]", i);
            return stale(err, path, stack[i].h, b->gen);
        }
    }
    for (size_t i = 0; i < n_labels; i++)
        if ((st = res_label(b, &labels[i], &labs[i], i, err)))
            return st;
    if (n_labels > 1)
        qsort(labs, n_labels, sizeof(blabel), label_cmp);
    return add_resolved(b, values, locs, n_stack, labs, n_labels, err);
}

/* ---------------------------------------------------------------- open samples */

static pprof_status
open_get(pprof_builder *b, pprof_builder_open s, bopen **out, pprof_error *err)
{
    uint32_t slot = (uint32_t)s.h, seq = (uint32_t)(s.h >> 32);
    if (slot == 0 || slot > b->opens.len || !PPROF__AT(b->opens, bopen, slot - 1).live ||
        PPROF__AT(b->opens, bopen, slot - 1).seq != seq)
        return pprof__error(err, PPROF_E_STALE, PPROF_NO_OFFSET, "open",
                            "open sample 0x%llx was committed, aborted or never begun",
                            (unsigned long long)s.h);
    *out = &PPROF__AT(b->opens, bopen, slot - 1);
    return PPROF_OK;
}

static void
open_end(pprof_builder *b, bopen *o)
{
    o->live = false;
    o->seq = o->seq == UINT32_MAX ? 1 : o->seq + 1;
    o->locs.len = 0;
    o->labs.len = 0;
    /* A capacity of free_open for every slot was reserved when the slot was created. */
    uint32_t *f = pprof__vec_push(&b->alloc, &b->free_open, sizeof(uint32_t));
    *f = (uint32_t)(o - (bopen *)b->opens.data);
    b->n_open--;
}

static pprof_status
open_begin(pprof_builder *b, pprof_builder_open *out, pprof_error *err)
{
    if (b->n_open >= b->o.max_open_samples)
        return pprof__builder_limit(b, err, "max_open_samples", b->o.max_open_samples);
    uint32_t slot;
    if (b->free_open.len) {
        slot = PPROF__AT(b->free_open, uint32_t, --b->free_open.len);
    } else {
        if (!pprof__vec_grow(&b->alloc, &b->free_open, sizeof(uint32_t), b->opens.len + 1))
            return pprof__builder_nomem(err);
        bopen *o = pprof__vec_push(&b->alloc, &b->opens, sizeof(bopen));
        if (!o)
            return pprof__builder_nomem(err);
        memset(o, 0, sizeof(*o));
        o->seq = 1;
        slot = (uint32_t)b->opens.len - 1;
    }
    bopen *o = &PPROF__AT(b->opens, bopen, slot);
    o->live = true;
    b->n_open++;
    out->h = ((uint64_t)o->seq << 32) | (uint64_t)(slot + 1);
    return PPROF_OK;
}

static pprof_status
open_room(pprof_builder *b, const bopen *o, pprof_error *err)
{
    if (o->locs.len + o->labs.len >= b->o.max_open_depth)
        return pprof__builder_limit(b, err, "max_open_depth", b->o.max_open_depth);
    return PPROF_OK;
}

static pprof_status
open_push_loc(pprof_builder *b, bopen *o, uint32_t loc, pprof_error *err)
{
    uint32_t *d = pprof__vec_push(&b->alloc, &o->locs, sizeof(uint32_t));
    if (!d)
        return pprof__builder_nomem(err);
    *d = loc;
    return PPROF_OK;
}

static pprof_status
open_push_label(pprof_builder *b, bopen *o, const blabel *l, pprof_error *err)
{
    blabel *d = pprof__vec_push(&b->alloc, &o->labs, sizeof(blabel));
    if (!d)
        return pprof__builder_nomem(err);
    *d = *l;
    return PPROF_OK;
}

static pprof_status
open_add_frame(pprof_builder *b, pprof_builder_open s, const pprof_builder_frame *f,
               pprof_error *err)
{
    bopen *o = NULL;
    pprof_status st = open_get(b, s, &o, err);
    if (st || (st = open_room(b, o, err)))
        return st;
    if (!f)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no frame");
    bloc l = {0};
    bline ln = {0};
    l.address = f->address;
    if (f->mapping_limit) {
        bmap m = {f->mapping_start, f->mapping_limit, f->mapping_offset, 0, 0, 1};
        uint32_t mi;
        if ((st = pprof__builder_intern_cstr(b, f->mapping_filename, &m.filename, err)) ||
            (st = pprof__builder_intern_cstr(b, f->mapping_build_id, &m.build_id, err)) ||
            (st = pprof__builder_intern_map(b, &m, &mi, err)))
            return st;
        l.map = mi + 1;
    }
    if (f->function) {
        bfn fn = {0};
        fn.start_line = f->start_line;
        if ((st = pprof__builder_intern_cstr(b, f->function, &fn.name, err)) ||
            (st = pprof__builder_intern_cstr(b, f->system_name ? f->system_name : f->function,
                                             &fn.system_name, err)) ||
            (st = pprof__builder_intern_cstr(b, f->filename, &fn.filename, err)) ||
            (st = pprof__builder_intern_fn(b, &fn, &ln.fn, err)))
            return st;
        ln.line = f->line;
        l.n_line = 1;
    }
    uint32_t li;
    if ((st = pprof__builder_intern_loc(b, &l, &ln, &li, err)))
        return st;
    return open_push_loc(b, o, li, err);
}

static pprof_status
open_commit(pprof_builder *b, bopen *o, const int64_t *values, pprof_error *err)
{
    blabel *labs = o->labs.data;
    if (o->labs.len > 1)
        qsort(labs, o->labs.len, sizeof(blabel), label_cmp);
    pprof_status st = add_resolved(b, values, o->locs.data, o->locs.len, labs, o->labs.len, err);
    if (st == PPROF_OK)
        open_end(b, o);
    return st;
}

/* ---------------------------------------------------------------- lifetime */

void
pprof_builder_options_init(pprof_builder_options *opts)
{
    if (!opts)
        return;
    const pprof_builder_options def = PPROF_BUILDER_OPTIONS_INIT;
    *opts = def;
}

static void
fill_caps(pprof_builder_options *o)
{
    if (!o->max_strings)
        o->max_strings = UINT64_C(1) << 20;
    if (!o->max_string_bytes)
        o->max_string_bytes = UINT64_C(64) << 20;
    if (!o->max_samples)
        o->max_samples = UINT64_C(1) << 20;
    if (!o->max_locations)
        o->max_locations = UINT64_C(1) << 20;
    if (!o->max_functions)
        o->max_functions = UINT64_C(1) << 20;
    if (!o->max_mappings)
        o->max_mappings = UINT64_C(1) << 16;
    if (!o->max_open_samples)
        o->max_open_samples = UINT64_C(1) << 12;
    if (!o->max_open_depth)
        o->max_open_depth = UINT64_C(1) << 12;
}

/* Interns the configured value types; they occupy the first string slots for good. */
static pprof_status
intern_config(pprof_builder *b, const pprof_builder_options *o, pprof_error *err)
{
    pprof_status st = PPROF_OK;
    for (size_t i = 0; i < b->n_types && !st; i++) {
        if (!(st =
                  pprof__builder_intern_cstr(b, o->sample_types[i].type, &b->type_str[2 * i], err)))
            st = pprof__builder_intern_cstr(b, o->sample_types[i].unit, &b->type_str[2 * i + 1],
                                            err);
    }
    if (!st)
        st = pprof__builder_intern_cstr(b, o->period_type.type, &b->period_type, err);
    if (!st)
        st = pprof__builder_intern_cstr(b, o->period_type.unit, &b->period_unit, err);
    if (!st)
        st = pprof__builder_intern_cstr(b, o->default_sample_type, &b->default_type, err);
    b->n_config_strings = (uint32_t)b->strs.len;
    return st;
}

pprof_status
pprof_builder_new(const pprof_builder_options *opts, pprof_builder **out, pprof_error *err)
{
    if (!out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no output");
    *out = NULL;
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    o.struct_size = sizeof(o);
    if (!o.n_sample_types || !o.sample_types)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "sample_type",
                            "a builder needs at least one sample type");
    fill_caps(&o);
    pprof_builder *b = pprof__malloc(&o.allocator, sizeof(*b));
    if (!b)
        return pprof__builder_nomem(err);
    memset(b, 0, sizeof(*b));
    b->alloc = o.allocator;
    b->flags = o.flags;
    b->o = o;
    b->o.sample_types = NULL;
    b->gen = 1;
    b->n_types = o.n_sample_types;
    b->type_str = pprof__malloc(&b->alloc, 2 * b->n_types * sizeof(uint32_t));
    bstr *e0 = pprof__vec_push(&b->alloc, &b->strs, sizeof(bstr));
    pprof_status st = PPROF_OK;
    if (!b->type_str || !e0) {
        st = pprof__builder_nomem(err);
    } else {
        e0->off = e0->len = 0;
        st = intern_config(b, &o, err);
    }
    if (!st && (o.flags & PPROF_BUILDER_THREAD_SAFE)) {
        if (pthread_mutex_init(&b->mu, NULL) != 0)
            st = pprof__builder_nomem(err);
        else
            b->locked_mode = true;
    }
    if (st) {
        pprof_builder_free(b);
        return st;
    }
    *out = b;
    return PPROF_OK;
}

uint64_t
pprof_builder_free(pprof_builder *b)
{
    if (!b)
        return 0;
    uint64_t dropped = b->samples.len + b->n_open;
    const pprof_allocator a = b->alloc;
    pprof__builder_free_tables(b);
    for (size_t i = 0; i < b->opens.len; i++) {
        pprof__free(&a, PPROF__AT(b->opens, bopen, i).locs.data);
        pprof__free(&a, PPROF__AT(b->opens, bopen, i).labs.data);
    }
    pprof__free(&a, b->opens.data);
    pprof__free(&a, b->free_open.data);
    pprof__free(&a, b->scratch_locs.data);
    pprof__free(&a, b->scratch_labs.data);
    pprof__free(&a, b->type_str);
    if (b->locked_mode)
        pthread_mutex_destroy(&b->mu);
    pprof__free(&a, b);
    return dropped;
}

/* ---------------------------------------------------------------- public wrappers */

#define NEED_B(b)                                                                                  \
    do {                                                                                           \
        if (!(b))                                                                                  \
            return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no builder");              \
    } while (0)

pprof_status
pprof_builder_intern(pprof_builder *b, const char *s, size_t len, pprof_builder_str *out,
                     pprof_error *err)
{
    NEED_B(b);
    if (!out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no output");
    LOCK(b);
    uint32_t i;
    pprof_status st = pprof__builder_intern_str(b, s, len, &i, err);
    if (!st)
        out->h = i ? mkh(b, i) : 0;
    UNLOCK(b);
    return st;
}

pprof_status
pprof_builder_intern_cstr(pprof_builder *b, const char *s, pprof_builder_str *out, pprof_error *err)
{
    return pprof_builder_intern(b, s ? s : "", s ? strlen(s) : 0, out, err);
}

pprof_status
pprof_builder_function(pprof_builder *b, pprof_builder_str name, pprof_builder_str system_name,
                       pprof_builder_str filename, int64_t start_line, pprof_builder_fn *out,
                       pprof_error *err)
{
    NEED_B(b);
    if (!out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no output");
    LOCK(b);
    bfn k = {0};
    k.start_line = start_line;
    uint32_t i;
    pprof_status st;
    if (!(st = res_str(b, name, &k.name, "function.name", err)) &&
        !(st = res_str(b, system_name, &k.system_name, "function.system_name", err)) &&
        !(st = res_str(b, filename, &k.filename, "function.filename", err)) &&
        !(st = pprof__builder_intern_fn(b, &k, &i, err)))
        out->h = mkh(b, i);
    UNLOCK(b);
    return st;
}

pprof_status
pprof_builder_mapping(pprof_builder *b, const pprof_builder_mapping_desc *d, pprof_builder_map *out,
                      pprof_error *err)
{
    NEED_B(b);
    if (!out || !d)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no mapping or no output");
    LOCK(b);
    bmap k = {d->memory_start, d->memory_limit, d->file_offset, 0, 0, 0};
    k.flags = (uint8_t)((d->has_functions ? 1 : 0) | (d->has_filenames ? 2 : 0) |
                        (d->has_line_numbers ? 4 : 0) | (d->has_inline_frames ? 8 : 0));
    uint32_t i;
    pprof_status st;
    if (!(st = res_str(b, d->filename, &k.filename, "mapping.filename", err)) &&
        !(st = res_str(b, d->build_id, &k.build_id, "mapping.build_id", err)) &&
        !(st = pprof__builder_intern_map(b, &k, &i, err)))
        out->h = mkh(b, i);
    UNLOCK(b);
    return st;
}

pprof_status
pprof_builder_location(pprof_builder *b, pprof_builder_map mapping, uint64_t address,
                       const pprof_builder_line *lines, size_t n_lines, bool is_folded,
                       pprof_builder_loc *out, pprof_error *err)
{
    NEED_B(b);
    if (!out || (n_lines && !lines))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no lines or no output");
    if (n_lines > UINT32_MAX / 2)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "line", "too many lines");
    LOCK(b);
    pprof_status st = PPROF_OK;
    bloc l = {0};
    l.address = address;
    l.folded = is_folded;
    l.n_line = (uint32_t)n_lines;
    uint32_t mi;
    if (!resolve(b, mapping.h, b->maps.len, &mi)) {
        st = stale(err, "location.mapping", mapping.h, b->gen);
        goto out;
    }
    l.map = mi == PPROF_NONE ? 0 : mi + 1;
    if (!pprof__vec_grow(&b->alloc, &b->scratch_labs, sizeof(blabel),
                         (n_lines * sizeof(bline) + sizeof(blabel) - 1) / sizeof(blabel))) {
        st = pprof__builder_nomem(err);
        goto out;
    }
    /* scratch_labs doubles as line scratch: both are plain old data */
    bline *ln = b->scratch_labs.data;
    for (size_t i = 0; i < n_lines; i++) {
        char path[128];
        pprof__path(path, "location.line[%zu].function", i);
        if (!resolve(b, lines[i].function.h, b->fns.len, &ln[i].fn)) {
            st = stale(err, path, lines[i].function.h, b->gen);
            goto out;
        }
        if (ln[i].fn == PPROF_NONE) {
            st = pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, path, "a line needs a function");
            goto out;
        }
        ln[i].line = lines[i].line;
        ln[i].column = lines[i].column;
    }
    uint32_t i;
    if (!(st = pprof__builder_intern_loc(b, &l, ln, &i, err)))
        out->h = mkh(b, i);
out:
    UNLOCK(b);
    return st;
}

pprof_status
pprof_builder_add_sample(pprof_builder *b, const int64_t *values, size_t n_values,
                         const pprof_builder_loc *stack, size_t n_stack,
                         const pprof_builder_label *labels, size_t n_labels, pprof_error *err)
{
    NEED_B(b);
    LOCK(b);
    pprof_status st = add_sample(b, values, n_values, stack, n_stack, labels, n_labels, err);
    UNLOCK(b);
    return st;
}

pprof_status
pprof_builder_open_begin(pprof_builder *b, pprof_builder_open *out, pprof_error *err)
{
    NEED_B(b);
    if (!out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no output");
    LOCK(b);
    pprof_status st = open_begin(b, out, err);
    UNLOCK(b);
    return st;
}

pprof_status
pprof_builder_open_add_location(pprof_builder *b, pprof_builder_open s, pprof_builder_loc loc,
                                pprof_error *err)
{
    NEED_B(b);
    LOCK(b);
    bopen *o = NULL;
    uint32_t li;
    pprof_status st = open_get(b, s, &o, err);
    if (!st && !(st = open_room(b, o, err))) {
        if (!resolve(b, loc.h, b->locs.len, &li) || li == PPROF_NONE)
            st = stale(err, "location", loc.h, b->gen);
        else
            st = open_push_loc(b, o, li, err);
    }
    UNLOCK(b);
    return st;
}

pprof_status
pprof_builder_open_add_frame(pprof_builder *b, pprof_builder_open s,
                             const pprof_builder_frame *frame, pprof_error *err)
{
    NEED_B(b);
    LOCK(b);
    pprof_status st = open_add_frame(b, s, frame, err);
    UNLOCK(b);
    return st;
}

pprof_status
pprof_builder_open_add_label(pprof_builder *b, pprof_builder_open s,
                             const pprof_builder_label *label, pprof_error *err)
{
    NEED_B(b);
    if (!label)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no label");
    LOCK(b);
    bopen *o = NULL;
    blabel l;
    pprof_status st = open_get(b, s, &o, err);
    if (!st && !(st = open_room(b, o, err)) && !(st = res_label(b, label, &l, 0, err)))
        st = open_push_label(b, o, &l, err);
    UNLOCK(b);
    return st;
}

pprof_status
pprof_builder_open_add_label_cstr(pprof_builder *b, pprof_builder_open s, const char *key,
                                  const char *str, int64_t num, const char *unit, pprof_error *err)
{
    NEED_B(b);
    if (!key || !*key)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "label.key", "a label needs a key");
    LOCK(b);
    bopen *o = NULL;
    blabel l = {0};
    pprof_status st = open_get(b, s, &o, err);
    if (!st && !(st = open_room(b, o, err)) &&
        !(st = pprof__builder_intern_cstr(b, key, &l.key, err))) {
        if (str)
            st = pprof__builder_intern_cstr(b, str, &l.str, err);
        else {
            l.num = num;
            st = pprof__builder_intern_cstr(b, unit, &l.unit, err);
        }
        if (!st)
            st = open_push_label(b, o, &l, err);
    }
    UNLOCK(b);
    return st;
}

pprof_status
pprof_builder_open_commit(pprof_builder *b, pprof_builder_open s, const int64_t *values,
                          size_t n_values, pprof_error *err)
{
    NEED_B(b);
    LOCK(b);
    bopen *o = NULL;
    pprof_status st = open_get(b, s, &o, err);
    if (!st && !(st = check_values(b, values, n_values, err)))
        st = open_commit(b, o, values, err);
    UNLOCK(b);
    return st;
}

pprof_status
pprof_builder_open_abort(pprof_builder *b, pprof_builder_open s, pprof_error *err)
{
    NEED_B(b);
    LOCK(b);
    bopen *o = NULL;
    pprof_status st = open_get(b, s, &o, err);
    if (!st)
        open_end(b, o);
    UNLOCK(b);
    return st;
}

pprof_status
pprof_builder_set_time(pprof_builder *b, int64_t time_nanos, int64_t duration_nanos,
                       pprof_error *err)
{
    NEED_B(b);
    LOCK(b);
    b->time_nanos = time_nanos;
    b->duration_nanos = duration_nanos;
    UNLOCK(b);
    return PPROF_OK;
}

pprof_status
pprof_builder_add_comment(pprof_builder *b, const char *comment, pprof_error *err)
{
    NEED_B(b);
    LOCK(b);
    uint32_t i;
    pprof_status st = pprof__builder_intern_cstr(b, comment, &i, err);
    if (!st) {
        uint32_t *d = pprof__vec_push(&b->alloc, &b->comments, sizeof(uint32_t));
        if (d)
            *d = i;
        else
            st = pprof__builder_nomem(err);
    }
    UNLOCK(b);
    return st;
}

pprof_status
pprof_builder_write_memory(pprof_builder *b, unsigned flags, const pprof_write_options *opts,
                           pprof_buffer *out, pprof_error *err)
{
    NEED_B(b);
    if (!out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no output buffer");
    LOCK(b);
    size_t before = out->len;
    pprof_status st = pprof__builder_encode(b, opts, out, err);
    if (!st && (flags & PPROF_BUILDER_RESET)) {
        st = pprof__builder_compact(b, err);
        if (st)
            out->len = before; /* the samples were kept, so they are not emitted twice */
    }
    if (!st)
        b->serialized++;
    UNLOCK(b);
    return st;
}

pprof_status
pprof_builder_write_file(pprof_builder *b, unsigned flags, const pprof_write_options *opts,
                         const char *path, pprof_error *err)
{
    NEED_B(b);
    if (!path)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no output path");
    LOCK(b);
    pprof_buffer buf = {0};
    pprof_status st = pprof__builder_encode(b, opts, &buf, err);
    if (!st)
        st = pprof_bytes_write_file(buf.data, buf.len, opts, path, err);
    pprof_buffer_free(&buf);
    if (!st && (flags & PPROF_BUILDER_RESET))
        st = pprof__builder_compact(b, err);
    if (!st)
        b->serialized++;
    UNLOCK(b);
    return st;
}

pprof_status
pprof_builder_reset(pprof_builder *b, pprof_error *err)
{
    NEED_B(b);
    LOCK(b);
    pprof_status st = pprof__builder_compact(b, err);
    UNLOCK(b);
    return st;
}

pprof_status
pprof_builder_finish(pprof_builder *b, unsigned flags, const int64_t *open_values,
                     const pprof_write_options *opts, pprof_buffer *out, uint64_t *n_open_dropped,
                     pprof_error *err)
{
    NEED_B(b);
    LOCK(b);
    pprof_status st = PPROF_OK;
    int64_t *zeros = NULL;
    if (n_open_dropped)
        *n_open_dropped = 0;
    if ((flags & PPROF_BUILDER_FINISH_COMMIT_OPEN) && b->n_open) {
        if (!open_values) {
            zeros = pprof__malloc(&b->alloc, b->n_types * sizeof(int64_t));
            if (!zeros) {
                st = pprof__builder_nomem(err);
                goto done;
            }
            memset(zeros, 0, b->n_types * sizeof(int64_t));
            open_values = zeros;
        }
        for (size_t i = 0; i < b->opens.len && !st; i++) {
            bopen *o = &PPROF__AT(b->opens, bopen, i);
            if (o->live)
                st = open_commit(b, o, open_values, err);
        }
        if (st)
            goto done; /* committed ones stay committed, the rest stay open: nothing lost */
    }
    if (out && (st = pprof__builder_encode(b, opts, out, err)))
        goto done;
    uint64_t dropped = 0;
    for (size_t i = 0; i < b->opens.len; i++) {
        bopen *o = &PPROF__AT(b->opens, bopen, i);
        if (o->live) {
            open_end(b, o);
            dropped++;
        }
    }
    if (n_open_dropped)
        *n_open_dropped = dropped;
    if ((st = pprof__builder_compact(b, err)))
        goto done;
    b->serialized = 0;
    b->limit_errors = 0;
done:
    pprof__free(&b->alloc, zeros);
    UNLOCK(b);
    return st;
}

static uint64_t
vbytes(const pprof__vec *v, size_t elem)
{
    return (uint64_t)v->cap * elem;
}

pprof_status
pprof_builder_get_stats(pprof_builder *b, pprof_builder_stats *out, pprof_error *err)
{
    NEED_B(b);
    if (!out || out->struct_size == 0)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no stats output");
    LOCK(b);
    pprof_builder_stats s = {0};
    s.struct_size = sizeof(s);
    s.strings = b->strs.len - 1;
    s.string_bytes = b->bytes.len;
    s.functions = b->fns.len;
    s.locations = b->locs.len;
    s.mappings = b->maps.len;
    s.samples = b->samples.len;
    s.open_samples = b->n_open;
    s.generation = b->gen;
    s.serialized = b->serialized;
    s.limit_errors = b->limit_errors;
    uint64_t a = sizeof(*b) + 2 * b->n_types * sizeof(uint32_t);
    a += vbytes(&b->bytes, 1) + vbytes(&b->strs, sizeof(bstr)) + vbytes(&b->fns, sizeof(bfn)) +
         vbytes(&b->maps, sizeof(bmap)) + vbytes(&b->locs, sizeof(bloc)) +
         vbytes(&b->lines, sizeof(bline)) + vbytes(&b->samples, sizeof(bsample)) +
         vbytes(&b->stack, sizeof(uint32_t)) + vbytes(&b->labels, sizeof(blabel)) +
         vbytes(&b->values, sizeof(int64_t)) + vbytes(&b->comments, sizeof(uint32_t)) +
         vbytes(&b->opens, sizeof(bopen)) + vbytes(&b->free_open, sizeof(uint32_t)) +
         vbytes(&b->scratch_locs, sizeof(uint32_t)) + vbytes(&b->scratch_labs, sizeof(blabel));
    const pprof__htab *hs[] = {&b->h_str, &b->h_fn, &b->h_map, &b->h_loc, &b->h_sample};
    for (size_t i = 0; i < 5; i++)
        a += hs[i]->slot ? (hs[i]->mask + 1) * sizeof(uint64_t) : 0;
    for (size_t i = 0; i < b->opens.len; i++) {
        const bopen *o = &PPROF__AT(b->opens, bopen, i);
        a += vbytes(&o->locs, sizeof(uint32_t)) + vbytes(&o->labs, sizeof(blabel));
    }
    s.arena_bytes = a;
    UNLOCK(b);
    memcpy(out, &s, out->struct_size < sizeof(s) ? out->struct_size : sizeof(s));
    return PPROF_OK;
}

pprof_status
pprof_builder_write_stream(pprof_builder *b, unsigned flags, const pprof_write_options *opts,
                           FILE *stream, pprof_error *err)
{
    if (!stream)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no stream");
    pprof_buffer buf = {0};
    pprof_status st = pprof_builder_write_memory(b, flags, opts, &buf, err);
    return pprof__buffer_write_stream(stream, st, &buf, err);
}

/* ---- deprecated names, kept for one release (builder.h) */

pprof_status
pprof_builder_serialize(pprof_builder *b, unsigned flags, const pprof_write_options *opts,
                        pprof_buffer *out, pprof_error *err)
{
    return pprof_builder_write_memory(b, flags, opts, out, err);
}

pprof_status
pprof_builder_serialize_file(pprof_builder *b, unsigned flags, const char *path,
                             const pprof_write_options *opts, pprof_error *err)
{
    return pprof_builder_write_file(b, flags, opts, path, err);
}
