/* pprof_convert_*: read, check, write. Decoding every sample into the model costs more than
 * the rest of a conversion (a uint64 per location id, first-touched pages, then encoding them
 * again), so when each sample's bytes can be checked where they lie, they are: the location
 * ids are copied as they are, the values and labels re-encoded from a sample's worth of
 * scratch. The output must be the model path's byte for byte, so a sample is copied only when
 * the model path would have written exactly those bytes for it; anything else sends the whole
 * file through the model, which then gives its own output, errors and findings. */
#include "pprof/check.h"

#include "memory-private.h"
#include "par-private.h"
#include "profile-private.h"
#include "validate-private.h"
#include "wire-private.h"

/* One-byte tags of the fields a sample may hold in place (field << 3 | wire type). */
enum {
    TAG_LOCATION_PACKED = 0x0a,
    TAG_VALUE = 0x10,
    TAG_VALUE_PACKED = 0x12,
    TAG_LABEL = 0x1a,
    TAG_LABEL_KEY = 0x08,
    TAG_LABEL_STR = 0x10,
    TAG_LABEL_NUM = 0x18,
    TAG_LABEL_NUM_UNIT = 0x20,
};

/* One sample's values and labels, sized by the check pass for the largest sample. */
typedef struct scratch {
    int64_t *vals;
    pprof_label *labs;
} scratch;

/* The label strings a part of the samples uses, each once, in the order of first use. */
typedef struct first_use {
    uint8_t *seen; /* by string index */
    uint32_t *order;
    size_t n;
} first_use;

/* What the check pass found in one part of the samples. */
typedef struct check_part {
    bool failed;
    uint64_t stack, values, labels;
    size_t most_vals, most_labs, bound;
    first_use used;
} check_part;

typedef struct conv {
    const pprof_profile *p;
    const uint64_t *span; /* (offset, length) of each sample's body in p->buf */
    size_t n;
    uint64_t nstr;
    size_t most_vals, most_labs;
    /* the samples in parts (k of them when the parts passed the check, else k is 0): each
     * part's check results and scratch, the parts' bounds and the strings in order of use */
    size_t k;
    check_part part[PPROF__PAR_MAX];
    scratch work[PPROF__PAR_MAX];
    size_t first[PPROF__PAR_MAX + 1], bound[PPROF__PAR_MAX];
    uint32_t *strings;
    size_t n_strings;
    pprof__pool *pool;
    pprof__sample_parts parts; /* for the encoder, when k > 1 */
} conv;

/* What one sample holds; the counts are exact after a scan. */
typedef struct scan {
    const uint8_t *ids;
    size_t ids_len, n_loc, n_val, n_lab;
    const char *why; /* the reason a sample needs the model */
} scan;

/* A varint that is the shortest encoding of its value (so that copying it gives what the
 * encoder writes), within end. */
static inline bool
shortest_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    uint8_t b = *p++;
    uint64_t v = b & 0x7f;
    for (unsigned shift = 7; b & 0x80; shift += 7) {
        if (p == end || shift > 63)
            return false;
        b = *p++;
        if (shift == 63 && b > 1)
            return false;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (b == 0) /* a zero last byte after others: a longer form than needed */
            return false;
    }
    *pp = p;
    *out = v;
    return true;
}

/* The packed location ids: shortest varints naming existing locations (the checker's rule,
 * CV3), counted in *n. */
static bool
ids_ok(const pprof__idmap *li, const uint8_t *p, const uint8_t *end, size_t *n)
{
    size_t k = 0;
    if (li->dense) { /* ids 1..mask + 1: no lookup */
        uint64_t most = (uint64_t)li->mask;
        /* ids of up to 3 bytes without a branch on their length, which no predictor guesses
         * in a stack: c0, c1 say whether bytes 1 and 2 belong to the id; a failed condition
         * is remembered in bad */
        uint64_t bad = 0;
        while (end - p >= 3) {
            uint32_t b0 = p[0], b1 = p[1], b2 = p[2];
            uint32_t c0 = b0 >> 7, c1 = c0 & b1 >> 7;
            if (c1 & b2 >> 7)
                break; /* 4 bytes or more: below */
            uint64_t id =
                (b0 & 0x7f) | ((b1 & 0x7f) << 7 & -c0) | ((uint64_t)b2 << 14 & -(uint64_t)c1);
            /* a zero last byte after others is a longer form than needed */
            bad |= (uint64_t)((c0 & (c1 ^ 1) & (b1 == 0)) | (c1 & (b2 == 0))) | (id - 1 > most);
            p += 1 + c0 + c1;
            k++;
        }
        if (bad)
            return false;
        while (p < end) {
            uint64_t id;
            if (p[0] < 0x80) {
                id = *p++;
            } else if (end - p >= 2 && p[1] < 0x80) {
                if (!p[1]) /* a longer form than needed */
                    return false;
                id = (p[0] & 0x7fu) | (uint64_t)p[1] << 7;
                p += 2;
            } else if (end - p >= 3 && p[2] < 0x80) {
                if (!p[2])
                    return false;
                id = (p[0] & 0x7fu) | (uint64_t)(p[1] & 0x7f) << 7 | (uint64_t)p[2] << 14;
                p += 3;
            } else if (!shortest_varint(&p, end, &id)) {
                return false;
            }
            if (id - 1 > most) /* id 0 too */
                return false;
            k++;
        }
        *n = k;
        return true;
    }
    while (p < end) {
        uint64_t id;
        if (*p < 0x80)
            id = *p++;
        else if (!shortest_varint(&p, end, &id))
            return false;
        if (pprof__idmap_find(li, id) == PPROF_NONE)
            return false;
        k++;
    }
    *n = k;
    return true;
}

static bool
string_ok(const conv *c, uint64_t v)
{
    return v < c->nstr || (v == 0 && c->nstr == 0); /* what the encoder's remap accepts */
}

/* One label's fields, into *l. */
static bool
label_scan(const conv *c, const uint8_t *p, const uint8_t *end, pprof_label *l, const char **why)
{
    pprof_label x = {0, 0, 0, 0};
    while (p < end) {
        uint8_t tag = *p++;
        uint64_t v;
        if (!pprof__varint(&p, end, &v)) {
            *why = "a bad varint in a label";
            return false;
        }
        switch (tag) {
        case TAG_LABEL_KEY: x.key = (int64_t)v; break;
        case TAG_LABEL_STR: x.str = (int64_t)v; break;
        case TAG_LABEL_NUM: x.num = (int64_t)v; break;
        case TAG_LABEL_NUM_UNIT: x.num_unit = (int64_t)v; break;
        default: *why = "a label field the writer drops or rewrites"; return false;
        }
    }
    if (!string_ok(c, (uint64_t)x.key) || !string_ok(c, (uint64_t)x.str) ||
        !string_ok(c, (uint64_t)x.num_unit)) {
        *why = "a label string index out of range";
        return false;
    }
    *l = x;
    return true;
}

static inline void
note_use(first_use *u, int64_t idx)
{
    if (!u->seen[idx]) {
        u->seen[idx] = 1;
        u->order[u->n++] = (uint32_t)idx;
    }
}

/* One value (one) or a packed run of them up to end, into w's values unless w is NULL. */
static inline bool
take_values(const scratch *w, scan *s, const uint8_t **p, const uint8_t *end, bool one)
{
    while (one || *p < end) {
        uint64_t v;
        if (!pprof__varint(p, end, &v)) {
            s->why = one ? "a bad varint" : "a bad varint in packed values";
            return false;
        }
        if (w)
            w->vals[s->n_val] = (int64_t)v;
        s->n_val++;
        if (one)
            break;
    }
    return true;
}

/* Scans sample i's body. Without w: apply every condition (the check pass), noting the label
 * strings in u unless it is NULL; with w: the sample passed them already and its values and
 * labels go to w. */
static bool
sample_scan(const conv *c, size_t i, const scratch *w, first_use *u, scan *s)
{
    bool check = !w;
    const uint8_t *p = c->p->buf + c->span[2 * i];
    const uint8_t *end = p + c->span[2 * i + 1];
    memset(s, 0, sizeof(*s));
    while (p < end) {
        uint8_t tag = *p++;
        uint64_t len;
        switch (tag) {
        case TAG_LOCATION_PACKED:
            if (!pprof__varint(&p, end, &len) || len > (uint64_t)(end - p)) {
                s->why = "a bad length";
                return false;
            }
            if (check && (s->ids || !ids_ok(&c->p->loc_idx, p, p + len, &s->n_loc))) {
                s->why = s->ids ? "location ids in more than one run"
                                : "location ids not in their shortest form or naming no location";
                return false;
            }
            s->ids = p;
            s->ids_len = (size_t)len;
            p += len;
            break;
        case TAG_VALUE:
            if (!take_values(w, s, &p, end, true))
                return false;
            break;
        case TAG_VALUE_PACKED:
            if (!pprof__varint(&p, end, &len) || len > (uint64_t)(end - p)) {
                s->why = "a bad length";
                return false;
            }
            if (!take_values(w, s, &p, p + len, false))
                return false;
            break;
        case TAG_LABEL:
            if (!pprof__varint(&p, end, &len) || len > (uint64_t)(end - p)) {
                s->why = "a bad length";
                return false;
            }
            pprof_label l;
            if (!label_scan(c, p, p + len, w ? &w->labs[s->n_lab] : &l, &s->why))
                return false;
            if (u) {
                note_use(u, l.key);
                note_use(u, l.str);
                note_use(u, l.num_unit);
            }
            s->n_lab++;
            p += len;
            break;
        default: s->why = "a field the writer drops or writes in another form"; return false;
        }
    }
    if (s->ids && !s->ids_len) /* an empty run: written as no field, so the copy is not it */
        s->ids = NULL;
    return true;
}

static void
get_in(void *ctx, size_t part, size_t i, pprof_sample *s, bool *same, const uint8_t **packed,
       size_t *packed_len)
{
    const conv *c = ctx;
    const scratch *w = &c->work[part];
    scan x;
    sample_scan(c, i, w, NULL, &x); /* it passed the check pass */
    s->location_id = NULL;
    s->n_location_id = x.ids_len; /* nonzero exactly when there are ids */
    s->value = w->vals;
    s->n_value = x.n_val;
    s->label = w->labs;
    s->n_label = x.n_lab;
    *same = false;
    *packed = x.ids;
    *packed_len = x.ids_len;
}

static void
get_sample(void *ctx, size_t i, pprof_sample *s, bool *same, const uint8_t **packed,
           size_t *packed_len)
{
    get_in(ctx, 0, i, s, same, packed, packed_len);
}

static pprof_status
refuse(pprof_error *err, const pprof_profile *p, size_t i, const char *why)
{
    char path[128];
    pprof__path(path, "sample[%zu]", i);
    const uint64_t *span = p->lazy.data;
    return pprof__error(err, PPROF_E_UNSUPPORTED, span[2 * i], path, "not converted in place: %s",
                        why);
}

/* The check pass in parts on several threads: each part applies the per-sample conditions to
 * its samples, sums what the limits and the bound count and notes the label strings in the
 * order of their first use. Only a pass where every part passes and the sums stay within the
 * limits is taken (the samples are then encoded in the same parts); anything else is decided
 * by the serial pass, which names the first sample at fault. */

/* Below this many samples per part a thread costs more than it saves. */
#define CHECK_MIN_PART 8192

static void
check_part_run(void *ctx, size_t t, size_t lo, size_t hi)
{
    conv *c = ctx;
    check_part *r = &c->part[t];
    size_t nt = c->p->sample_types.len;
    c->first[t] = lo;
    for (size_t i = lo; i < hi; i++) {
        scan s;
        if (!sample_scan(c, i, NULL, &r->used, &s) || s.n_val != nt) {
            r->failed = true;
            return;
        }
        r->stack += s.n_loc, r->values += s.n_val, r->labels += s.n_lab;
        if (s.n_val > r->most_vals)
            r->most_vals = s.n_val;
        if (s.n_lab > r->most_labs)
            r->most_labs = s.n_lab;
        r->bound += PPROF__SAMPLE_BOUND(s.n_loc, s.n_val, s.n_lab);
    }
}

static void
parts_free(conv *c)
{
    const pprof_allocator *a = &c->p->alloc;
    for (size_t t = 0; t < PPROF__PAR_MAX; t++) {
        pprof__free(a, c->part[t].used.seen);
        pprof__free(a, c->part[t].used.order);
        pprof__free(a, c->work[t].vals);
        pprof__free(a, c->work[t].labs);
        c->part[t].used.seen = NULL;
        c->part[t].used.order = NULL;
        c->work[t].vals = NULL;
        c->work[t].labs = NULL;
    }
    pprof__free(a, c->strings);
    c->strings = NULL;
    pprof__pool_free(c->pool);
    c->pool = NULL;
    c->k = 0;
}

/* True when the parts all passed; then c's parts, scratch sizes and *bound are set. */
static bool
check_in_parts(conv *c, const pprof_read_options *o, size_t *bound)
{
    size_t k = pprof__par_parts(o->threads, c->n, CHECK_MIN_PART);
    /* a string index is noted in 32 bits */
    if (k < 2 || c->nstr >= UINT32_MAX || !(c->pool = pprof__pool_new((unsigned)k - 1)))
        return false;
    const pprof_allocator *a = &c->p->alloc;
    size_t nidx = (size_t)c->nstr + 1;
    for (size_t t = 0; t < k; t++) {
        first_use *u = &c->part[t].used;
        if (!(u->seen = pprof__malloc(a, nidx)) ||
            !(u->order = pprof__malloc(a, nidx * sizeof(uint32_t))))
            return false;
        memset(u->seen, 0, nidx);
    }
    c->k = pprof__par_for_parts(c->pool, o->threads, c->n, CHECK_MIN_PART, "pprof-check",
                                check_part_run, c);
    c->first[c->k] = c->n;
    uint64_t stack = 0, values = 0, labels = 0;
    *bound = 0;
    size_t n_strings = 0;
    for (size_t t = 0; t < c->k; t++) {
        const check_part *r = &c->part[t];
        if (r->failed)
            return false;
        stack += r->stack, values += r->values, labels += r->labels;
        *bound += r->bound;
        c->bound[t] = r->bound;
        n_strings += r->used.n;
        if (r->most_vals > c->most_vals)
            c->most_vals = r->most_vals;
        if (r->most_labs > c->most_labs)
            c->most_labs = r->most_labs;
    }
    if (stack > o->max_stack_entries || values > o->max_values || labels > o->max_labels)
        return false;
    /* the parts' lists one after another, each string at its first use: part 0's seen marks
     * those taken already */
    if (!(c->strings = pprof__malloc(a, (n_strings + 1) * sizeof(uint32_t))))
        return false;
    first_use *all = &c->part[0].used;
    memcpy(c->strings, all->order, all->n * sizeof(uint32_t));
    c->n_strings = all->n;
    for (size_t t = 1; t < c->k; t++) {
        const first_use *u = &c->part[t].used;
        for (size_t i = 0; i < u->n; i++)
            if (!all->seen[u->order[i]]) {
                all->seen[u->order[i]] = 1;
                c->strings[c->n_strings++] = u->order[i];
            }
    }
    return true;
}

/* The check pass over every sample: the conditions, the reader's limits, and the source's
 * bound and scratch sizes. PPROF_E_UNSUPPORTED names the first sample that needs the model. */
static pprof_status
check_samples(conv *c, const pprof_read_options *o, pprof__sample_src *src, pprof_error *err)
{
    const pprof_profile *p = c->p;
    size_t nt = p->sample_types.len;
    uint64_t stack = 0, values = 0, labels = 0;
    size_t bound = 0;
    if (check_in_parts(c, o, &bound))
        goto passed;
    parts_free(c);
    c->most_vals = c->most_labs = 0;
    for (size_t i = 0; i < c->n; i++) {
        scan s;
        if (!sample_scan(c, i, NULL, NULL, &s))
            return refuse(err, p, i, s.why);
        if (s.n_val != nt) /* CV2; and no sample types at all is CV1 */
            return refuse(err, p, i, "a value count other than the sample types'");
        stack += s.n_loc, values += s.n_val, labels += s.n_lab;
        if (stack > o->max_stack_entries || values > o->max_values || labels > o->max_labels)
            return refuse(err, p, i, "a reader's limit exceeded");
        if (s.n_val > c->most_vals)
            c->most_vals = s.n_val;
        if (s.n_lab > c->most_labs)
            c->most_labs = s.n_lab;
        bound += PPROF__SAMPLE_BOUND(s.n_loc, s.n_val, s.n_lab);
    }
passed:
    for (size_t t = 0; t < (c->k ? c->k : 1); t++) {
        scratch *w = &c->work[t];
        w->vals = pprof__malloc(&p->alloc, (c->most_vals + 1) * sizeof(int64_t));
        w->labs = pprof__malloc(&p->alloc, (c->most_labs + 1) * sizeof(pprof_label));
        if (!w->vals || !w->labs)
            return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    *src = (pprof__sample_src){c->n, bound, get_sample, c};
    c->parts =
        (pprof__sample_parts){c->k, c->first, c->bound, get_in, c->strings, c->n_strings, c->pool};
    return PPROF_OK;
}

static pprof_convert_options
convert_options(const pprof_convert_options *opts)
{
    pprof_convert_options o = PPROF_CONVERT_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    return o;
}

/* Where the output goes: a path, or a caller's buffer. */
typedef struct sink {
    const char *path;
    pprof_buffer *buf;
} sink;

static pprof_status
write_out(const pprof_profile *p, const pprof__sample_src *src, const pprof__sample_parts *parts,
          const pprof_convert_options *co, const sink *out, pprof_convert_result *res,
          pprof_error *err)
{
    pprof_status st = out->path
                          ? pprof__write_file_parts(p, src, parts, out->path, co->write, err)
                          : pprof__write_memory_parts(p, src, parts, co->write, out->buf, err);
    /* what cannot be encoded (a dangling string index, unchecked) is the input's fault */
    res->output_failed = st == PPROF_E_IO || st == PPROF_E_NOMEM;
    return st;
}

/* The model path on a profile read already (owned). */
static pprof_status
via_model(pprof_profile *p, const pprof_convert_options *co, const sink *out,
          pprof_convert_result *res, pprof_error *err)
{
    pprof_status st = PPROF_OK;
    if (!co->no_check) {
        pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
        st = pprof_validate(p, co->on_finding, co->finding_ctx, co->max_findings, &sum, err);
        res->check_errors = sum.count[PPROF_SEVERITY_ERROR];
    }
    if (!st)
        st = write_out(p, NULL, NULL, co, out, res, err);
    pprof_profile_free(p);
    return st;
}

/* Whether the bytes are another format (the readers' detection), worked out on another thread
 * while the in-place path decodes and checks them as pprof: for pprof input it is a walk over
 * all of them that finds nothing. Nothing is written before its answer is known. */
typedef struct detect_job {
    const pprof_read_options *o;
    const uint8_t *buf;
    size_t len;
    const pprof_reader *r; /* the answer */
    pprof__pool *pool;
    pprof__job job;
    bool started, waited;
} detect_job;

static void
detect_run(void *arg)
{
    detect_job *d = arg;
    d->r = pprof__reader_for_raw(d->o->readers, d->buf, d->len);
}

/* The answer, once there; run here if no thread took it. */
static const pprof_reader *
detect_wait(detect_job *d)
{
    if (!d->waited) {
        if (d->started)
            pprof__pool_wait(&d->job);
        else
            detect_run(d);
        pprof__pool_free(d->pool);
        d->pool = NULL;
        d->waited = true;
    }
    return d->r;
}

/* The in-place path on buf (owned by p from the start). PPROF_E_UNSUPPORTED when the input
 * needs the model, with p still holding buf for it, or (dj's answer) is another format. */
static pprof_status
in_place(pprof_profile *p, uint8_t *buf, size_t len, const pprof_read_options *o,
         const pprof_convert_options *co, const sink *out, pprof_convert_result *res,
         detect_job *dj, pprof_error *err)
{
    pprof_error quiet;
    if (pprof__decode_lazy(p, buf, len, o, &quiet)) /* the model path's error is the one */
        return pprof__error(err, PPROF_E_UNSUPPORTED, quiet.offset, quiet.path,
                            "not converted in place: %s", quiet.message);
    pprof_status st = pprof__profile_index(p, err);
    if (st)
        return st;
    /* a finding is reported by the model path, with the samples', in the checker's order; a
     * check that could not run (out of memory) must not pass for one that found nothing */
    if (!co->no_check &&
        (st = pprof__validate_part(p, PPROF__VALIDATE_TABLES, 0, NULL, &quiet)) != PPROF_OK) {
        if (st != PPROF_E_INVALID) {
            *err = quiet;
            return st;
        }
        return pprof__error(err, PPROF_E_UNSUPPORTED, quiet.offset, quiet.path,
                            "not converted in place: %s", quiet.message);
    }
    conv c = {.p = p, .span = p->lazy.data, .n = p->lazy.len / 2, .nstr = p->strings.len};
    pprof__sample_src src;
    st = check_samples(&c, o, &src, err);
    if (!st && dj && detect_wait(dj))
        st = PPROF_E_UNSUPPORTED; /* the caller reads it as that format */
    if (!st) {
        st = write_out(p, &src, &c.parts, co, out, res, err);
        res->in_place = true;
    }
    parts_free(&c);
    return st;
}

/* The bytes of another format become a model first: they cannot be rewritten where they are. */
static pprof_status
not_in_place(const pprof_reader *r, pprof_error *err)
{
    /* reader names are upper-cased as the formats are written ("OTLP") */
    char name[32];
    size_t i = 0;
    for (; r->name[i] && i < sizeof(name) - 1; i++)
        name[i] = (char)(r->name[i] >= 'a' && r->name[i] <= 'z' ? r->name[i] - 32 : r->name[i]);
    name[i] = 0;
    return pprof__error(err, PPROF_E_UNSUPPORTED, PPROF_NO_OFFSET, "",
                        "not converted in place: %s input", name);
}

/* The model path on buf (owned). */
static pprof_status
to_model(uint8_t *buf, size_t len, pprof_format fmt, const pprof_read_options *o,
         const pprof_convert_options *co, const sink *out, pprof_convert_result *res,
         pprof_error *err)
{
    pprof_profile *p = pprof__profile_new(&o->allocator);
    if (!p) {
        pprof__free(&o->allocator, buf);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    p->source_format = fmt;
    pprof_status st = pprof__decode(p, buf, len, o, err); /* p owns buf from here on */
    if (st) {
        pprof_profile_free(p);
        return st;
    }
    return via_model(p, co, out, res, err);
}

/* The profile the in-place path decodes buf into: without a caller's allocator its tables come
 * from blocks in huge pages (memory-private.h), as a merge's do: first touches of the small
 * pages of the default allocator's medium blocks cost more than decoding into them. buf stays
 * the read options' allocator's (in_place_free). */
static pprof_profile *
in_place_profile(const pprof_read_options *o, size_t len)
{
    pprof__blocks *b = pprof__blocks_for_work(&o->allocator, len);
    pprof_allocator ba = b ? pprof__blocks_allocator(b) : o->allocator;
    pprof_profile *p = pprof__profile_new(&ba);
    pprof__blocks_release(b);
    return p;
}

/* Frees p and buf, which p held. */
static void
in_place_free(pprof_profile *p, uint8_t *buf, const pprof_read_options *o)
{
    p->buf = NULL;
    pprof_profile_free(p);
    pprof__free(&o->allocator, buf);
}

/* Converts the decompressed protobuf in buf (owned), read from a container of format fmt. */
static pprof_status
convert_raw(uint8_t *buf, size_t len, pprof_format fmt, const pprof_read_options *o,
            const pprof_convert_options *co, const sink *out, pprof_convert_result *res,
            pprof_error *err)
{
    detect_job dj = {.o = o, .buf = buf, .len = len};
    if (co->mode == PPROF_CONVERT_AUTO && o->threads > 1 && o->readers && *o->readers &&
        (dj.pool = pprof__pool_new(1))) {
        dj.job = (pprof__job){.fn = detect_run, .arg = &dj, .name = "pprof-detect"};
        if (!(dj.started = pprof__pool_start(dj.pool, &dj.job)))
            pprof__pool_free(dj.pool);
    }
    if (dj.started) {
        pprof_profile *p = in_place_profile(o, len);
        if (!p) {
            detect_wait(&dj);
            pprof__free(&o->allocator, buf);
            return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        }
        p->source_format = fmt;
        pprof_error mine;
        pprof_status st = in_place(p, buf, len, o, co, out, res, &dj, &mine);
        /* as if the formats had been told apart first: another format's bytes go to its
         * reader whatever the in-place path made of them (it wrote nothing) */
        if (detect_wait(&dj) || st == PPROF_E_UNSUPPORTED) {
            p->buf = NULL; /* buf goes on to the reader or the model */
            pprof_profile_free(p);
            if (dj.r) {
                pprof_profile *q = NULL;
                st = dj.r->read(buf, len, fmt, o, &q, err);
                return st ? st : via_model(q, co, out, res, err);
            }
            return to_model(buf, len, fmt, o, co, out, res, err);
        }
        if (st && err)
            *err = mine;
        in_place_free(p, buf, o);
        return st;
    }
    const pprof_reader *r = pprof__reader_for_raw(o->readers, buf, len);
    if (r) {
        if (co->mode == PPROF_CONVERT_IN_PLACE) {
            pprof__free(&o->allocator, buf);
            return not_in_place(r, err);
        }
        pprof_profile *q = NULL;
        pprof_status st = r->read(buf, len, fmt, o, &q, err);
        return st ? st : via_model(q, co, out, res, err);
    }
    if (co->mode != PPROF_CONVERT_MODEL) {
        pprof_profile *p = in_place_profile(o, len);
        if (!p) {
            pprof__free(&o->allocator, buf);
            return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        }
        p->source_format = fmt;
        pprof_status st = in_place(p, buf, len, o, co, out, res, NULL, err);
        if (st != PPROF_E_UNSUPPORTED || co->mode == PPROF_CONVERT_IN_PLACE) {
            in_place_free(p, buf, o);
            return st;
        }
        p->buf = NULL; /* the bytes go on to the model path */
        pprof_profile_free(p);
        return to_model(buf, len, fmt, o, co, out, res, err);
    }
    pprof_profile *p = pprof__profile_new(&o->allocator);
    if (!p) {
        pprof__free(&o->allocator, buf);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    p->source_format = fmt;
    pprof_status st = pprof__decode(p, buf, len, o, err); /* p owns buf from here on */
    if (st) {
        pprof_profile_free(p);
        return st;
    }
    return via_model(p, co, out, res, err);
}

static pprof_status
start(const pprof_convert_options *opts, pprof_convert_options *co, pprof_read_options *o,
      pprof_convert_result *res, pprof_error *err)
{
    *co = convert_options(opts);
    memset(res, 0, sizeof(*res));
    if ((unsigned)co->mode > PPROF_CONVERT_IN_PLACE)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "unknown convert mode %d",
                            (int)co->mode);
    pprof__read_options_fill(o, co->read);
    return pprof_write_options_check(co->write, err);
}

static pprof_status
convert_memory_full(const void *data, size_t size, const pprof_convert_options *opts,
                    pprof_buffer *out, pprof_convert_result *res, pprof_error *err)
{
    pprof_convert_result dummy;
    res = res ? res : &dummy;
    pprof_convert_options co;
    pprof_read_options o;
    pprof_status st = start(opts, &co, &o, res, err);
    if (st)
        return st;
    if (!out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no output");
    if ((st = pprof__read_memory_start(data, size, co.read, out, &o, err)))
        return st;
    pprof_format fmt = pprof_detect_format(data, size);
    uint8_t *buf = NULL;
    size_t len = 0;
    if ((st = pprof__decompress(data, size, fmt, &o, &buf, &len, err)))
        return st;
    sink s = {NULL, out};
    return convert_raw(buf, len, fmt, &o, &co, &s, res, err);
}

static pprof_status
convert_file_full(const char *in_path, const pprof_convert_options *opts, const char *out_path,
                  pprof_convert_result *res, pprof_error *err)
{
    pprof_convert_result dummy;
    res = res ? res : &dummy;
    pprof_convert_options co;
    pprof_read_options o;
    pprof_status st = start(opts, &co, &o, res, err);
    if (st)
        return st;
    if (!in_path || !out_path)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no path");
    sink s = {out_path, NULL};
    const pprof_reader *r = pprof__reader_for_path(o.readers, in_path);
    if (r) { /* by its name: as pprof_profile_read_file */
        if (co.mode == PPROF_CONVERT_IN_PLACE)
            return not_in_place(r, err);
        pprof_profile *p = NULL;
        if ((st = pprof_profile_read_file(in_path, &o, &p, err)))
            return st;
        return via_model(p, &co, &s, res, err);
    }
    uint8_t *data;
    size_t len;
    if ((st = pprof__read_all_threads(in_path, o.max_input_bytes, &o.allocator, o.threads, &data,
                                      &len, err)))
        return st;
    pprof_format fmt = pprof_detect_format(data, len);
    if (fmt == PPROF_FORMAT_RAW) { /* the bytes read are the buffer, as the reader has it */
        if (len > o.max_decompressed_bytes && !pprof__reader_for_raw(o.readers, data, len)) {
            pprof__free(&o.allocator, data);
            return pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                                "input of %zu bytes exceeds the limit of %llu", len,
                                (unsigned long long)o.max_decompressed_bytes);
        }
        return convert_raw(data, len, fmt, &o, &co, &s, res, err);
    }
    uint8_t *buf = NULL;
    size_t blen = 0;
    st = pprof__decompress(data, len, fmt, &o, &buf, &blen, err);
    pprof__free(&o.allocator, data);
    if (st)
        return st;
    return convert_raw(buf, blen, fmt, &o, &co, &s, res, err);
}

/* Fills the caller's result up to its struct_size. */
static void
result_out(pprof_convert_result *res, const pprof_convert_result *local)
{
    if (!res)
        return;
    size_t keep = res->struct_size;
    memcpy(res, local, keep < sizeof(*local) ? keep : sizeof(*local));
    res->struct_size = keep;
}

pprof_status
pprof_convert_memory(const void *data, size_t size, const pprof_convert_options *opts,
                     pprof_buffer *out, pprof_convert_result *res, pprof_error *err)
{
    pprof_convert_result local = PPROF_CONVERT_RESULT_INIT;
    pprof_status st = convert_memory_full(data, size, opts, out, &local, err);
    result_out(res, &local);
    return st;
}

pprof_status
pprof_convert_file(const char *in_path, const pprof_convert_options *opts, const char *out_path,
                   pprof_convert_result *res, pprof_error *err)
{
    pprof_convert_result local = PPROF_CONVERT_RESULT_INIT;
    pprof_status st = convert_file_full(in_path, opts, out_path, &local, err);
    result_out(res, &local);
    return st;
}

void
pprof_convert_options_init(pprof_convert_options *opts)
{
    if (!opts)
        return;
    const pprof_convert_options def = PPROF_CONVERT_OPTIONS_INIT;
    *opts = def;
}
