/* The profile `go tool pprof` lists: its driver merges every input, even a single one, before
 * anything is printed (google/pprof's profile.Merge of the one profile). That renumbers mappings,
 * locations and functions 1..N in order of first use from the samples (the first mapping always
 * first), drops what no sample reaches and samples whose values are all zero, combines samples
 * with the same stack and labels, and folds entities whose merge keys are equal. The library's
 * merger numbers by content instead (its output must not depend on input order), so the listing
 * has its own pass here, in Go's order. The result shares the source's string table: it must be
 * freed before the source. */
#include <stdlib.h>
#include <string.h>

#include "htab-private.h"
#include "profile-private.h"

/* Byte keys interned in order of arrival: the value of a key is its arrival index. */
typedef struct keytab {
    pprof__htab t;
    pprof__vec bytes; /* uint8_t */
    pprof__vec offs;  /* size_t: start of key i; one more entry than keys */
} keytab;

typedef struct keyref {
    const uint8_t *d;
    size_t n;
} keyref;

static bool
key_eq(const void *ctx, uint32_t v, const void *key)
{
    const keytab *kt = ctx;
    const keyref *k = key;
    size_t a = PPROF__AT(kt->offs, size_t, v), b = PPROF__AT(kt->offs, size_t, v + 1);
    return b - a == k->n && (!k->n || !memcmp((const uint8_t *)kt->bytes.data + a, k->d, k->n));
}

typedef struct compactor {
    const pprof_profile *src;
    pprof_profile *dst;
    const pprof_allocator *a;
    keytab maps, fns, locs, samples;
    pprof__vec key;                    /* uint8_t: the key being built */
    uint32_t *map_of, *fn_of, *loc_of; /* source index -> result index, PPROF_NONE: not yet */
    int64_t *map_shift;                /* source mapping index -> address shift */
    bool fake_mapping;                 /* the source has none: every location gets one */
    pprof_status st;
} compactor;

static void
kput(compactor *c, const void *d, size_t n)
{
    if (c->st)
        return;
    if (!pprof__vec_grow(c->a, &c->key, 1, c->key.len + n)) {
        c->st = PPROF_E_NOMEM;
        return;
    }
    if (n)
        memcpy((uint8_t *)c->key.data + c->key.len, d, n);
    c->key.len += n;
}

static void
kput_u64(compactor *c, uint64_t v)
{
    kput(c, &v, sizeof v);
}

/* A string by content (an index out of range counts as empty, as it reads in the listing). */
static void
kput_str(compactor *c, int64_t idx)
{
    pprof_string s = {"", 0};
    if (idx)
        (void)pprof_profile_string(c->src, idx, &s);
    kput_u64(c, s.len);
    kput(c, s.data, s.len);
}

/* The arrival index of the key built in c->key; *added when it is new. */
static uint32_t
intern(compactor *c, keytab *kt, bool *added)
{
    *added = false;
    if (c->st)
        return PPROF_NONE;
    keyref k = {c->key.data, c->key.len};
    uint32_t n = (uint32_t)(kt->offs.len ? kt->offs.len - 1 : 0);
    if (!kt->offs.len) {
        size_t *z = pprof__vec_push(c->a, &kt->offs, sizeof(size_t));
        if (!z) {
            c->st = PPROF_E_NOMEM;
            return PPROF_NONE;
        }
        *z = 0;
    }
    uint64_t h = pprof__mix64(pprof__hash_bytes(0, k.d, k.n));
    uint32_t v = pprof__htab_intern(&kt->t, c->a, h, key_eq, kt, &k, n, added);
    if (v == PPROF_NONE) {
        c->st = PPROF_E_NOMEM;
        return PPROF_NONE;
    }
    if (*added) {
        size_t *end = pprof__vec_push(c->a, &kt->offs, sizeof(size_t));
        if (!end || !pprof__vec_grow(c->a, &kt->bytes, 1, kt->bytes.len + k.n)) {
            c->st = PPROF_E_NOMEM;
            return PPROF_NONE;
        }
        if (k.n)
            memcpy((uint8_t *)kt->bytes.data + kt->bytes.len, k.d, k.n);
        kt->bytes.len += k.n;
        *end = kt->bytes.len;
    }
    return v;
}

static void
keytab_free(compactor *c, keytab *kt)
{
    pprof__htab_free(&kt->t, c->a);
    pprof__free(c->a, kt->bytes.data);
    pprof__free(c->a, kt->offs.data);
}

/* Go's mapping key: the size rounded up to 4 KiB, the offset, the build id or else the file. */
static uint32_t
map_mapping(compactor *c, size_t si)
{
    if (c->map_of[si] != PPROF_NONE)
        return c->map_of[si];
    pprof_mapping m = pprof_profile_mapping(c->src, si);
    c->key.len = 0;
    uint64_t size = m.memory_limit - m.memory_start;
    size = size + 0xfff;
    size -= size % 0x1000;
    kput_u64(c, size);
    kput_u64(c, m.file_offset);
    pprof_string b = {"", 0};
    if (!m.build_id || !pprof_profile_string(c->src, m.build_id, &b) || !b.len)
        kput_str(c, m.filename);
    else
        kput_str(c, m.build_id);
    bool added;
    uint32_t v = intern(c, &c->maps, &added);
    if (v == PPROF_NONE)
        return PPROF_NONE;
    if (added) {
        pprof_mapping *d = pprof__vec_push(c->a, &c->dst->mappings, sizeof(*d));
        if (!d) {
            c->st = PPROF_E_NOMEM;
            return PPROF_NONE;
        }
        *d = m;
        d->id = v + 1;
        c->map_shift[si] = 0;
    } else {
        const pprof_mapping *d = &PPROF__AT(c->dst->mappings, pprof_mapping, v);
        c->map_shift[si] = (int64_t)(d->memory_start - m.memory_start);
    }
    c->map_of[si] = v;
    return v;
}

/* Go's function key: start line, name, system name, file name. */
static uint64_t
map_function(compactor *c, uint64_t id)
{
    size_t si;
    if (!id)
        return 0;
    if (!pprof_profile_find_function(c->src, id, &si)) {
        c->st = PPROF_E_INVALID;
        return 0;
    }
    if (c->fn_of[si] != PPROF_NONE)
        return c->fn_of[si] + 1;
    pprof_function f = pprof_profile_function(c->src, si);
    c->key.len = 0;
    kput_u64(c, (uint64_t)f.start_line);
    kput_str(c, f.name);
    kput_str(c, f.system_name);
    kput_str(c, f.filename);
    bool added;
    uint32_t v = intern(c, &c->fns, &added);
    if (v == PPROF_NONE)
        return 0;
    if (added) {
        pprof_function *d = pprof__vec_push(c->a, &c->dst->functions, sizeof(*d));
        if (!d) {
            c->st = PPROF_E_NOMEM;
            return 0;
        }
        *d = f;
        d->id = v + 1;
    }
    c->fn_of[si] = v;
    return v + 1;
}

/* Go's location key: the address relative to the merged mapping's start, that mapping, the
 * folded flag, and (function, line) of every line. */
static uint64_t
map_location(compactor *c, uint64_t id)
{
    size_t si;
    if (!pprof_profile_find_location(c->src, id, &si)) {
        c->st = PPROF_E_INVALID;
        return 0;
    }
    if (c->loc_of[si] != PPROF_NONE)
        return c->loc_of[si] + 1;
    pprof_location l = pprof_profile_location(c->src, si);
    uint32_t mi = PPROF_NONE;
    int64_t shift = 0;
    size_t msi;
    if (c->fake_mapping) {
        mi = 0;
    } else if (l.mapping_id && pprof_profile_find_mapping(c->src, l.mapping_id, &msi)) {
        mi = map_mapping(c, msi);
        shift = c->map_shift[msi];
    }
    /* the lines first: their functions are numbered as Go numbers them, before the key */
    size_t line0 = c->dst->lines.len;
    for (size_t j = 0; j < l.n_line && !c->st; j++) {
        pprof_line ln = l.line[j];
        ln.function_id = map_function(c, ln.function_id);
        pprof_line *d = pprof__vec_push(c->a, &c->dst->lines, sizeof(*d));
        if (!d)
            c->st = PPROF_E_NOMEM;
        else
            *d = ln;
    }
    if (c->st)
        return 0;
    uint64_t addr = l.address + (uint64_t)shift;
    c->key.len = 0;
    if (mi != PPROF_NONE) {
        kput_u64(c, addr - PPROF__AT(c->dst->mappings, pprof_mapping, mi).memory_start);
        kput_u64(c, (uint64_t)mi + 1);
    } else {
        kput_u64(c, addr);
        kput_u64(c, 0);
    }
    kput(c, &(uint8_t){l.is_folded}, 1);
    for (size_t j = 0; j < l.n_line; j++) {
        const pprof_line *d = &PPROF__AT(c->dst->lines, pprof_line, line0 + j);
        kput_u64(c, d->function_id);
        kput_u64(c, (uint64_t)d->line);
    }
    bool added;
    uint32_t v = intern(c, &c->locs, &added);
    if (v == PPROF_NONE)
        return 0;
    if (added) {
        pprof__location *d = pprof__vec_push(c->a, &c->dst->locations, sizeof(*d));
        if (!d) {
            c->st = PPROF_E_NOMEM;
            return 0;
        }
        d->id = v + 1;
        d->mapping_id = mi == PPROF_NONE ? 0 : mi + 1;
        d->address = addr;
        d->line_off = (uint32_t)line0;
        d->n_line = (uint32_t)l.n_line;
        d->is_folded = l.is_folded;
    } else {
        c->dst->lines.len = line0;
    }
    c->loc_of[si] = v;
    return v + 1;
}

/* Labels as Go's decoder groups them: by key, each key's values in their order; string labels
 * apart from numeric ones. */
typedef struct lab_ref {
    pprof_string key;
    size_t pos;
    bool numeric;
} lab_ref;

static int
cmp_lab(const void *x, const void *y)
{
    const lab_ref *a = x, *b = y;
    if (a->numeric != b->numeric)
        return a->numeric ? 1 : -1;
    size_t n = a->key.len < b->key.len ? a->key.len : b->key.len;
    int r = n ? memcmp(a->key.data, b->key.data, n) : 0;
    if (!r)
        r = (a->key.len > b->key.len) - (a->key.len < b->key.len);
    return r ? r : (a->pos > b->pos) - (a->pos < b->pos);
}

static void
kput_labels(compactor *c, const pprof_sample *s)
{
    if (!s->n_label)
        return;
    lab_ref *refs = pprof__malloc(c->a, s->n_label * sizeof(*refs));
    if (!refs) {
        c->st = PPROF_E_NOMEM;
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < s->n_label; i++) {
        const pprof_label *l = &s->label[i];
        if (!l->str && !l->num && !l->num_unit)
            continue; /* Go's decoder drops it */
        pprof_string k = {"", 0};
        if (l->key)
            (void)pprof_profile_string(c->src, l->key, &k);
        refs[n++] = (lab_ref){k, i, l->str == 0};
    }
    qsort(refs, n, sizeof(*refs), cmp_lab);
    for (size_t i = 0; i < n; i++) {
        const pprof_label *l = &s->label[refs[i].pos];
        kput(c, &(uint8_t){refs[i].numeric}, 1);
        kput_str(c, l->key);
        if (refs[i].numeric) {
            kput_u64(c, (uint64_t)l->num);
            kput_str(c, l->num_unit);
        } else {
            kput_str(c, l->str);
        }
    }
    pprof__free(c->a, refs);
}

static void
map_sample(compactor *c, const pprof_sample *s)
{
    size_t stack0 = c->dst->stack.len;
    if (!pprof__vec_grow(c->a, &c->dst->stack, sizeof(uint64_t), stack0 + s->n_location_id)) {
        c->st = PPROF_E_NOMEM;
        return;
    }
    for (size_t j = 0; j < s->n_location_id && !c->st; j++) {
        uint64_t id = map_location(c, s->location_id[j]);
        PPROF__AT(c->dst->stack, uint64_t, stack0 + j) = id;
    }
    if (c->st)
        return;
    c->key.len = 0;
    kput_u64(c, s->n_location_id);
    if (s->n_location_id) /* an empty stack may have no table at all */
        kput(c, &PPROF__AT(c->dst->stack, uint64_t, stack0), s->n_location_id * sizeof(uint64_t));
    kput_labels(c, s);
    bool added;
    uint32_t v = intern(c, &c->samples, &added);
    if (v == PPROF_NONE)
        return;
    if (!added) {
        pprof__sample *d = &PPROF__AT(c->dst->samples, pprof__sample, v);
        int64_t *vals = &PPROF__AT(c->dst->values, int64_t, d->val_off);
        for (size_t j = 0; j < s->n_value && j < d->n_val; j++)
            vals[j] = (int64_t)((uint64_t)vals[j] + (uint64_t)s->value[j]); /* wraps as Go's */
        c->dst->stack.len = stack0;
        return;
    }
    c->dst->stack.len = stack0 + s->n_location_id;
    pprof__sample *d = pprof__vec_push(c->a, &c->dst->samples, sizeof(*d));
    size_t val0 = c->dst->values.len, lab0 = c->dst->labels.len;
    if (!d || !pprof__vec_grow(c->a, &c->dst->values, sizeof(int64_t), val0 + s->n_value) ||
        !pprof__vec_grow(c->a, &c->dst->labels, sizeof(pprof_label), lab0 + s->n_label)) {
        c->st = PPROF_E_NOMEM;
        return;
    }
    if (s->n_value)
        memcpy(&PPROF__AT(c->dst->values, int64_t, val0), s->value, s->n_value * sizeof(int64_t));
    if (s->n_label)
        memcpy(&PPROF__AT(c->dst->labels, pprof_label, lab0), s->label,
               s->n_label * sizeof(pprof_label));
    c->dst->values.len += s->n_value;
    c->dst->labels.len += s->n_label;
    *d = (pprof__sample){(uint32_t)stack0, (uint32_t)s->n_location_id,
                         (uint32_t)val0,   (uint32_t)s->n_value,
                         (uint32_t)lab0,   (uint32_t)s->n_label};
}

static bool
zero_values(const int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i])
            return false;
    return true;
}

static bool
copy_vec(const pprof_allocator *a, pprof__vec *dst, const pprof__vec *src, size_t elem)
{
    if (!src->len)
        return true;
    if (!pprof__vec_grow(a, dst, elem, src->len))
        return false;
    memcpy(dst->data, src->data, src->len * elem);
    dst->len = src->len;
    return true;
}

/* One merge of src, as Go's profile.Merge([]*Profile{src}); *zero: some combined sample sums to
 * all zeros (Go then merges its result again). */
static pprof_status
compact_once(const pprof_profile *src, pprof_profile **out, bool *zero, pprof_error *err)
{
    *zero = false;
    pprof_status st = pprof__profile_index(src, err);
    if (st)
        return st;
    pprof_profile *dst = pprof__profile_new(&src->alloc);
    if (!dst)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    compactor c = {.src = src, .dst = dst, .a = &dst->alloc};
    size_t nm = src->mappings.len, nf = src->functions.len, nl = src->locations.len;
    c.map_of = pprof__malloc(c.a, (nm + 1) * sizeof(uint32_t));
    c.map_shift = pprof__malloc(c.a, (nm + 1) * sizeof(int64_t));
    c.fn_of = pprof__malloc(c.a, (nf + 1) * sizeof(uint32_t));
    c.loc_of = pprof__malloc(c.a, (nl + 1) * sizeof(uint32_t));
    if (!c.map_of || !c.map_shift || !c.fn_of || !c.loc_of)
        c.st = PPROF_E_NOMEM;
    else {
        memset(c.map_of, 0xff, (nm + 1) * sizeof(uint32_t));
        memset(c.fn_of, 0xff, (nf + 1) * sizeof(uint32_t));
        memset(c.loc_of, 0xff, (nl + 1) * sizeof(uint32_t));
    }
    if (!c.st && (!copy_vec(c.a, &dst->strings, &src->strings, sizeof(pprof_string)) ||
                  !copy_vec(c.a, &dst->sample_types, &src->sample_types, sizeof(pprof_value_type))))
        c.st = PPROF_E_NOMEM;
    dst->hdr = src->hdr;
    dst->hdr.comment = NULL;
    dst->hdr.n_comment = 0;
    dst->has_string_table = src->has_string_table;
    dst->source_format = src->source_format;
    dst->relax = src->relax;
    /* comments: each text once, in order of first appearance */
    pprof_header h = pprof_profile_header(src);
    for (size_t i = 0; i < h.n_comment && !c.st; i++) {
        c.key.len = 0;
        kput_str(&c, h.comment[i]);
        bool added; /* the function table is empty yet: it serves as the seen set */
        if (intern(&c, &c.fns, &added) != PPROF_NONE && added) {
            int64_t *d = pprof__vec_push(c.a, &dst->comments, sizeof(int64_t));
            if (!d)
                c.st = PPROF_E_NOMEM;
            else
                *d = h.comment[i];
        }
    }
    keytab_free(&c, &c.fns);
    memset(&c.fns, 0, sizeof c.fns);
    /* go tool pprof gives a profile without mappings a fake one before merging it */
    if (!c.st && nm == 0) {
        c.fake_mapping = true;
        pprof_mapping *m = pprof__vec_push(c.a, &dst->mappings, sizeof(*m));
        if (!m)
            c.st = PPROF_E_NOMEM;
        else
            *m = (pprof_mapping){.id = 1};
    } else if (!c.st) {
        (void)map_mapping(&c, 0); /* the first mapping is the main binary: it stays first */
    }
    size_t n = pprof_profile_count(src, PPROF_TABLE_SAMPLE);
    for (size_t i = 0; i < n && !c.st; i++) {
        pprof_sample s = pprof_profile_sample(src, i);
        if (!zero_values(s.value, s.n_value))
            map_sample(&c, &s);
    }
    for (size_t i = 0; i < dst->samples.len && !c.st; i++) {
        const pprof__sample *d = &PPROF__AT(dst->samples, pprof__sample, i);
        if (zero_values(&PPROF__AT(dst->values, int64_t, d->val_off), d->n_val))
            *zero = true;
    }
    keytab *tabs[] = {&c.maps, &c.fns, &c.locs, &c.samples};
    for (size_t i = 0; i < 4; i++)
        keytab_free(&c, tabs[i]);
    pprof__free(c.a, c.key.data);
    pprof__free(c.a, c.map_of);
    pprof__free(c.a, c.map_shift);
    pprof__free(c.a, c.fn_of);
    pprof__free(c.a, c.loc_of);
    if (c.st) {
        pprof_profile_free(dst);
        if (c.st == PPROF_E_INVALID)
            return pprof__error(err, c.st, PPROF_NO_OFFSET, "",
                                "a sample or location names an id that is not there");
        return pprof__error(err, c.st, PPROF_NO_OFFSET, "", "out of memory");
    }
    *out = dst;
    return PPROF_OK;
}

pprof_status
pprof__go_compact(const pprof_profile *src, pprof_profile **out, pprof_error *err)
{
    bool zero;
    pprof_profile *p = NULL;
    pprof_status st = compact_once(src, &p, &zero, err);
    /* A combined sample of zeros: Go merges the result again to drop it and what only it used.
     * The second pass drops every zero sample, so it never finds one. */
    if (!st && zero) {
        pprof_profile *q = NULL;
        st = compact_once(p, &q, &zero, err);
        pprof_profile_free(p);
        p = q;
    }
    if (st)
        return st;
    *out = p;
    return PPROF_OK;
}
