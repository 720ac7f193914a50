/* Model -> protobuf. Deterministic: the same model gives the same bytes. The string table is
 * rebuilt from the strings actually referenced, deduplicated by content, "" first. */
#include <stdlib.h>
#include <zstd.h>

#include "hash-private.h"
#include "htab-private.h"
#include "par-private.h"
#include "profile-private.h"
#include "schema-private.h"
#include "wire-private.h"

typedef struct strmap {
    const pprof_allocator *a;
    const pprof_profile *p;
    uint32_t *memo;         /* old index -> new index, PPROF_NONE when not yet seen */
    pprof__vec out;         /* pprof_string, the new table */
    pprof__htab by_content; /* new strings by content */
    pprof_error *err;
    pprof_status st;
    /* While samples are encoded in parts on several threads, every string they use is mapped
     * already and nothing may add one: a miss is the source's mistake, reported. */
    bool frozen;
} strmap;

static inline uint64_t
hash_bytes(const char *s, size_t n)
{
    return pprof__hash_bytes(0, s, n);
}

/* Maps an old string index to its new one; records the first failure in m->st. */
static uint64_t
remap(strmap *m, int64_t idx, const char *path_fmt, size_t a, size_t b)
{
    if (idx == 0 && m->p->strings.len == 0)
        return 0; /* an absent table is the same as [""] for unset fields */
    if (idx < 0 || (uint64_t)idx >= m->p->strings.len) {
        if (m->st == PPROF_OK) {
            char path[128];
            /* path_fmt is always one of this file's literals */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
            pprof__path(path, path_fmt, a, b);
#pragma GCC diagnostic pop
            m->st = pprof__error(m->err, PPROF_E_INVALID, PPROF_NO_OFFSET, path,
                                 "string index %lld is outside the string table of %zu entries",
                                 (long long)idx, m->p->strings.len);
        }
        return 0;
    }
    uint32_t *memo = &m->memo[idx];
    if (*memo != PPROF_NONE)
        return *memo;
    if (m->frozen) {
        if (m->st == PPROF_OK)
            m->st = pprof__error(m->err, PPROF_E_INVALID, PPROF_NO_OFFSET, "",
                                 "string %lld is used by a sample but not listed by its source",
                                 (long long)idx);
        return 0;
    }
    pprof_string s = PPROF__AT(m->p->strings, pprof_string, idx);
    if (!pprof__htab_reserve(&m->by_content, m->a, 1))
        goto nomem;
    const pprof_string *o = m->out.data;
    pprof__htab_probe at;
    uint32_t v;
    PPROF__HTAB_FIND(&m->by_content, hash_bytes(s.data, s.len), at, v,
                     o[v].len == s.len && (s.len == 0 || memcmp(o[v].data, s.data, s.len) == 0));
    if (v != PPROF_NONE)
        return *memo = v;
    pprof_string *dst = pprof__vec_push(m->a, &m->out, sizeof(pprof_string));
    if (!dst)
        goto nomem;
    *dst = s;
    pprof__htab_insert_at(&m->by_content, &at, (uint32_t)m->out.len - 1);
    return *memo = (uint32_t)(m->out.len - 1);
nomem:
    if (m->st == PPROF_OK)
        m->st = pprof__error(m->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    return 0;
}

static inline size_t
vsz(uint64_t v)
{
    return pprof__varint_size(v);
}

/* size of an optional varint field (omitted when 0); all our field numbers fit a 1-byte tag */
static inline size_t
fsz(uint64_t v)
{
    return v ? 1 + vsz(v) : 0;
}

static inline uint8_t *
fput(uint8_t *p, unsigned field, uint64_t v)
{
    if (!v)
        return p;
    *p++ = PPROF__TAG(field, PPROF_WT_VARINT);
    return pprof__put_varint(p, v);
}

static inline uint8_t *
lput(uint8_t *p, unsigned field, size_t len)
{
    *p++ = PPROF__TAG(field, PPROF_WT_LEN);
    return pprof__put_varint(p, len);
}

/* A raw encoding for a file goes out a piece at a time as it is made, through one buffer that
 * is reused, instead of being built whole first: tens of megabytes of fresh pages less. The
 * file is opened at the first piece, so an encoding that fails early leaves no trace, and a
 * file that cannot be opened is reported only when the encoding itself succeeds, as before. */
#define PIECE_BYTES ((size_t)1 << 20)

typedef struct raw_sink {
    const char *path;
    const pprof_write_options *opts;
    pprof__out_file out;
    bool opened;
    pprof_status open_st;
    pprof_error open_err;
} raw_sink;

/* Gzip streamed through a ring of chunks rather than one buffer of the whole encoding: once the
 * chunk being written holds a whole member, its whole members go to the compressor and the
 * encoding goes on in the next chunk, which is written again once the members it held before are
 * compressed. A few chunks in memory that was freed before, where the whole buffer was tens of
 * megabytes of fresh pages. A chunk holds whole members from its start (its first byte is at a
 * multiple of PPROF_GZIP_MEMBER_BYTES in the encoding) and grows when a piece does not fit. */
#define RING_MAX 66
#define CHUNK_BYTES (PPROF_GZIP_MEMBER_BYTES + PPROF_GZIP_MEMBER_BYTES / 2)

typedef struct gz_ring {
    pprof_buffer chunk[RING_MAX];
    size_t end[RING_MAX]; /* the members chunk i held last end before this one */
    size_t n, cur;
    size_t base; /* where the current chunk's first byte is in the encoding */
    bool failed; /* out of memory for a chunk: nothing more is written */
} gz_ring;

typedef struct enc {
    pprof_buffer *b;
    raw_sink *sink;                   /* NULL: b holds the whole encoding */
    const pprof__sample_src *src;     /* NULL: the profile's samples */
    const pprof__sample_parts *parts; /* NULL: src's samples in order */
    const pprof_allocator *ba;        /* grows b; NULL for a caller's buffer (libc) */
    strmap sm;
    /* Streaming to a compressor: b was sized by encoded_bound and never moves; what is written
     * is announced a member's worth at a time. */
    pprof__gz_stream *gs;
    size_t announce_at;
    gz_ring *ring; /* with gs: b is the ring's current chunk, and nothing is announced before */
} enc;

/* The current chunk's whole members to the compressor; the rest starts the next chunk. */
static void
ring_next(enc *e)
{
    gz_ring *r = e->ring;
    pprof_buffer *b = &r->chunk[r->cur];
    size_t whole = b->len / PPROF_GZIP_MEMBER_BYTES * PPROF_GZIP_MEMBER_BYTES;
    size_t first = r->base / PPROF_GZIP_MEMBER_BYTES;
    for (size_t off = 0; off < whole; off += PPROF_GZIP_MEMBER_BYTES)
        pprof__gz_stream_member(e->gs, first + off / PPROF_GZIP_MEMBER_BYTES, b->data + off);
    r->end[r->cur] = first + whole / PPROF_GZIP_MEMBER_BYTES;
    r->base += whole;
    pprof__gz_stream_ready(e->gs, r->base);
    size_t nx = (r->cur + 1) % r->n, rest = b->len - whole;
    pprof__gz_stream_wait(e->gs, r->end[nx]);
    pprof_buffer *c = &r->chunk[nx];
    c->len = 0;
    if (!pprof__buffer_reserve_in(e->ba, c, rest > CHUNK_BYTES ? rest : CHUNK_BYTES)) {
        r->failed = true;
        if (e->sm.st == PPROF_OK)
            e->sm.st = pprof__error(e->sm.err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        return;
    }
    if (rest)
        memcpy(c->data, b->data + whole, rest);
    c->len = rest;
    r->cur = nx;
    e->b = c;
}

/* The last chunk's members, the last one partial, to the compressor; the encoding's length. */
static size_t
ring_last(gz_ring *r, pprof__gz_stream *gs)
{
    const pprof_buffer *b = &r->chunk[r->cur];
    size_t first = r->base / PPROF_GZIP_MEMBER_BYTES;
    pprof__gz_stream_member(gs, first, b->data); /* an empty encoding is one empty member */
    for (size_t off = 0; off < b->len; off += PPROF_GZIP_MEMBER_BYTES)
        pprof__gz_stream_member(gs, first + off / PPROF_GZIP_MEMBER_BYTES, b->data + off);
    return r->base + b->len;
}

/* The buffer's bytes to the file (the first time, opened); the buffer is empty again. */
static void
flush(enc *e)
{
    raw_sink *k = e->sink;
    if (!k->opened && k->open_st == PPROF_OK) {
        k->open_st = pprof__out_open(k->path, k->opts, &k->out, &k->open_err);
        k->opened = k->open_st == PPROF_OK;
    }
    if (k->opened)
        pprof__out_write(&k->out, e->b->data, e->b->len);
    e->b->len = 0;
}

/* Called between entities, never inside one: true when the buffer was written out. */
static inline bool
piece_done(enc *e)
{
    if (e->ring) {
        if (e->ring->failed || e->b->len < PPROF_GZIP_MEMBER_BYTES)
            return false;
        ring_next(e);
        return true;
    }
    if (!e->sink || e->b->len < PIECE_BYTES)
        return false;
    flush(e);
    return true;
}

static uint8_t *
reserve(enc *e, size_t n)
{
    if (e->ring && e->ring->failed)
        return NULL;
    if (e->gs && !e->ring) {
        if (e->b->len >= e->announce_at) {
            pprof__gz_stream_ready(e->gs, e->b->len);
            e->announce_at = (e->b->len / PPROF_GZIP_MEMBER_BYTES + 1) * PPROF_GZIP_MEMBER_BYTES;
        }
        if (n <= e->b->cap - e->b->len)
            return e->b->data + e->b->len;
        if (e->sm.st == PPROF_OK) /* encoded_bound is wrong: a bug, reported, not a crash */
            e->sm.st = pprof__error(e->sm.err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "",
                                    "encoding exceeds its computed bound");
        return NULL;
    }
    if (!pprof__buffer_reserve_in(e->ba, e->b, n)) {
        if (e->sm.st == PPROF_OK)
            e->sm.st = pprof__error(e->sm.err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        return NULL;
    }
    return e->b->data + e->b->len;
}

static void
sample_type(enc *e, unsigned field, pprof_value_type vt, size_t i)
{
    uint64_t t = remap(&e->sm, vt.type, "sample_type[%zu].type", i, 0);
    uint64_t u = remap(&e->sm, vt.unit, "sample_type[%zu].unit", i, 0);
    size_t body = fsz(t) + fsz(u);
    uint8_t *p = reserve(e, body + 11);
    if (!p)
        return;
    p = lput(p, field, body);
    p = fput(p, PPROF__F_value_type_type, t);
    p = fput(p, PPROF__F_value_type_unit, u);
    e->b->len = (size_t)(p - e->b->data);
}

static size_t
packed_size(const uint64_t *v, size_t n)
{
    size_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += vsz(v[i]);
    return s;
}

static uint8_t *
packed_put(uint8_t *p, unsigned field, const uint64_t *v, size_t n, size_t size)
{
    if (!n)
        return p;
    p = lput(p, field, size);
    for (size_t i = 0; i < n; i++)
        p = pprof__put_varint(p, v[i]);
    return p;
}

/* Samples lo..hi-1; part: the source's scratch to take them through (get_in), or SIZE_MAX
 * (get, or the profile's own). */
static void
samples_range(enc *e, size_t lo, size_t hi, size_t part)
{
    const pprof_profile *pr = e->sm.p;
    const pprof__sample *ps = pr->samples.data;
    /* Samples that differ only in labels come in a row in merged profiles, with one stack: its
     * packed location ids are copied from the previous record instead of encoded again. */
    size_t prev_at = 0, prev_len = 0, prev_ls = 0;
    for (size_t i = lo; i < hi; i++) {
        pprof_sample s;
        bool same;
        if (piece_done(e))
            prev_len = 0; /* the previous record is gone from the buffer */
        const uint8_t *packed = NULL;
        size_t packed_len = 0;
        if (part != SIZE_MAX) {
            e->parts->get_in(e->src->ctx, part, i, &s, &same, &packed, &packed_len);
        } else if (e->src) {
            e->src->get(e->src->ctx, i, &s, &same, &packed, &packed_len);
        } else {
            s = pprof_profile_sample(pr, i);
            same = i && ps[i].loc_off == ps[i - 1].loc_off && ps[i].n_loc == ps[i - 1].n_loc;
        }
        same = same && prev_len;
        size_t ls = same     ? prev_ls
                    : packed ? packed_len
                             : packed_size(s.location_id, s.n_location_id);
        size_t vs = packed_size((const uint64_t *)s.value, s.n_value);
        size_t body = (s.n_location_id ? 1 + vsz(ls) + ls : 0) + (s.n_value ? 1 + vsz(vs) + vs : 0);
        uint64_t lab[4 * 8];
        size_t lab_body_total = 0;
        for (size_t j = 0; j < s.n_label; j++) {
            const pprof_label *l = &s.label[j];
            uint64_t k = remap(&e->sm, l->key, "sample[%zu].label[%zu].key", i, j);
            uint64_t v = remap(&e->sm, l->str, "sample[%zu].label[%zu].str", i, j);
            uint64_t u = remap(&e->sm, l->num_unit, "sample[%zu].label[%zu].num_unit", i, j);
            size_t lb = fsz(k) + fsz(v) + fsz((uint64_t)l->num) + fsz(u);
            lab_body_total += 1 + vsz(lb) + lb;
            if (j < 8) {
                lab[4 * j] = k;
                lab[4 * j + 1] = v;
                lab[4 * j + 2] = u;
                lab[4 * j + 3] = lb;
            }
        }
        body += lab_body_total;
        uint8_t *p = reserve(e, body + 11);
        if (!p)
            return;
        p = lput(p, PPROF__F_profile_sample, body);
        if (same) {
            memcpy(p, e->b->data + prev_at, prev_len);
            p += prev_len;
        } else {
            uint8_t *at = p;
            if (!packed) {
                p = packed_put(p, PPROF__F_sample_location_id, s.location_id, s.n_location_id, ls);
            } else if (s.n_location_id) {
                p = lput(p, PPROF__F_sample_location_id, ls);
                memcpy(p, packed, ls);
                p += ls;
            }
            prev_at = (size_t)(at - e->b->data);
            prev_len = (size_t)(p - at);
            prev_ls = ls;
        }
        p = packed_put(p, PPROF__F_sample_value, (const uint64_t *)s.value, s.n_value, vs);
        for (size_t j = 0; j < s.n_label; j++) {
            const pprof_label *l = &s.label[j];
            uint64_t k, v, u, lb;
            if (j < 8) {
                k = lab[4 * j], v = lab[4 * j + 1], u = lab[4 * j + 2], lb = lab[4 * j + 3];
            } else { /* memoized, so the second lookup is cheap */
                k = remap(&e->sm, l->key, "", 0, 0);
                v = remap(&e->sm, l->str, "", 0, 0);
                u = remap(&e->sm, l->num_unit, "", 0, 0);
                lb = fsz(k) + fsz(v) + fsz((uint64_t)l->num) + fsz(u);
            }
            p = lput(p, PPROF__F_sample_label, lb);
            p = fput(p, PPROF__F_label_key, k);
            p = fput(p, PPROF__F_label_str, v);
            p = fput(p, PPROF__F_label_num, (uint64_t)l->num);
            p = fput(p, PPROF__F_label_num_unit, u);
        }
        e->b->len = (size_t)(p - e->b->data);
    }
}

static void mappings(enc *e);
static void locations(enc *e);
static void functions(enc *e);

/* The source's samples in parts on several threads: part 0 into e as the serial encoding
 * would write them, the others into buffers of their own, appended in order after. The
 * strings the samples use are mapped first in the order of their first use, so the string
 * table is the serial encoding's. The last part's thread then encodes the mappings, locations
 * and functions into a buffer of their own, with the string map (the samples' part of it is
 * only read meanwhile), so that their strings still come after the samples'. */
typedef struct parts_job {
    enc *e;
    enc sub[PPROF__PAR_MAX];
    pprof_buffer buf[PPROF__PAR_MAX];
    pprof_error err[PPROF__PAR_MAX];
    size_t k;
    enc tables;
    pprof_buffer tables_buf;
    pprof_error tables_err;
} parts_job;

static void
part_run(void *ctx, size_t t, size_t lo, size_t hi)
{
    (void)lo, (void)hi; /* one part of the source's, t */
    parts_job *j = ctx;
    const pprof__sample_parts *ps = j->e->parts;
    samples_range(t ? &j->sub[t] : j->e, ps->first[t], ps->first[t + 1], t);
    if (t == j->k - 1) {
        mappings(&j->tables);
        locations(&j->tables);
        functions(&j->tables);
    }
}

/* The most bytes mappings(), locations() and functions() write, as encoded_bound counts. */
static size_t
tables_bound(const pprof_profile *pr)
{
    pprof__encoded_counts c = {0};
    c.mappings = pr->mappings.len;
    c.functions = pr->functions.len;
    c.locations = pr->locations.len;
    const pprof__location *l = pr->locations.data;
    for (size_t i = 0; i < pr->locations.len; i++)
        c.lines += l[i].n_line;
    return pprof__encoded_bound_of(&c);
}

/* The first failure of a part or of the tables, in the order of the output. */
static void
take_error(enc *e, const strmap *m, const pprof_error *err)
{
    if (e->sm.st == PPROF_OK && m->st) {
        e->sm.st = m->st;
        if (e->sm.err)
            *e->sm.err = *err;
    }
}

/* Bytes made elsewhere, after what e holds. */
static void
append(enc *e, const pprof_buffer *b)
{
    if (e->sink) {
        flush(e);
        if (e->sink->opened)
            pprof__out_write(&e->sink->out, b->data, b->len);
        return;
    }
    uint8_t *p = reserve(e, b->len);
    if (p && b->len) {
        memcpy(p, b->data, b->len);
        e->b->len += b->len;
    }
}

/* The samples, mappings, locations and functions, or a failure in e->sm.st. */
static void
samples_in_parts(enc *e)
{
    const pprof__sample_parts *ps = e->parts;
    const pprof_allocator *a = &e->sm.p->alloc;
    size_t k = ps->n;
    for (size_t i = 0; i < ps->n_strings; i++)
        remap(&e->sm, (int64_t)ps->strings[i], "sample label string %zu", i, 0);
    parts_job *j = pprof__malloc(a, sizeof(*j));
    if (!j) {
        if (e->sm.st == PPROF_OK)
            e->sm.st = pprof__error(e->sm.err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        return;
    }
    memset(j, 0, sizeof(*j));
    j->e = e;
    j->k = k;
    /* every buffer at its bound up front: none grows on another thread */
    bool ready = e->sm.st == PPROF_OK;
    for (size_t t = 1; t < k && ready; t++) {
        j->sub[t] = (enc){.b = &j->buf[t], .src = e->src, .parts = ps, .ba = a, .sm = e->sm};
        j->sub[t].sm.err = &j->err[t];
        j->sub[t].sm.frozen = true;
        ready = pprof__buffer_reserve_in(a, &j->buf[t], ps->bound[t]);
    }
    j->tables = (enc){.b = &j->tables_buf, .ba = a, .sm = e->sm};
    j->tables.sm.err = &j->tables_err;
    ready = ready && pprof__buffer_reserve_in(a, &j->tables_buf, tables_bound(e->sm.p));
    if (!ready) {
        if (e->sm.st == PPROF_OK)
            e->sm.st = pprof__error(e->sm.err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    } else {
        e->sm.frozen = true;
        pprof__par_for_parts(ps->pool, (unsigned)k, k, 1, "pprof-encode", part_run, j);
        /* the string map goes on from where the tables left it */
        strmap after = j->tables.sm;
        after.err = e->sm.err;
        after.st = e->sm.st; /* part 0's */
        e->sm = after;
        for (size_t t = 1; t < k; t++)
            take_error(e, &j->sub[t].sm, &j->err[t]);
        take_error(e, &j->tables.sm, &j->tables_err);
        for (size_t t = 1; t < k && e->sm.st == PPROF_OK; t++)
            append(e, &j->buf[t]);
        if (e->sm.st == PPROF_OK)
            append(e, &j->tables_buf);
    }
    for (size_t t = 1; t < k; t++)
        pprof__free(a, j->buf[t].data);
    pprof__free(a, j->tables_buf.data);
    pprof__free(a, j);
}

/* The samples, then the mappings, locations and functions. */
static void
entities(enc *e)
{
    if (e->src && e->parts && e->parts->n > 1 && e->parts->n <= PPROF__PAR_MAX) {
        samples_in_parts(e); /* all of them, or a failure recorded */
        return;
    }
    samples_range(e, 0, e->src ? e->src->n : e->sm.p->samples.len, SIZE_MAX);
    mappings(e);
    locations(e);
    functions(e);
}

static void
mappings(enc *e)
{
    const pprof_profile *pr = e->sm.p;
    for (size_t i = 0; i < pr->mappings.len; i++) {
        piece_done(e);
        pprof_mapping m = pprof_profile_mapping(pr, i);
        uint64_t fn = remap(&e->sm, m.filename, "mapping[%zu].filename", i, 0);
        uint64_t bid = remap(&e->sm, m.build_id, "mapping[%zu].build_id", i, 0);
        size_t body = fsz(m.id) + fsz(m.memory_start) + fsz(m.memory_limit) + fsz(m.file_offset) +
                      fsz(fn) + fsz(bid) + fsz(m.has_functions) + fsz(m.has_filenames) +
                      fsz(m.has_line_numbers) + fsz(m.has_inline_frames);
        uint8_t *p = reserve(e, body + 11);
        if (!p)
            return;
        p = lput(p, PPROF__F_profile_mapping, body);
        p = fput(p, PPROF__F_mapping_id, m.id);
        p = fput(p, PPROF__F_mapping_memory_start, m.memory_start);
        p = fput(p, PPROF__F_mapping_memory_limit, m.memory_limit);
        p = fput(p, PPROF__F_mapping_file_offset, m.file_offset);
        p = fput(p, PPROF__F_mapping_filename, fn);
        p = fput(p, PPROF__F_mapping_build_id, bid);
        p = fput(p, PPROF__F_mapping_has_functions, m.has_functions);
        p = fput(p, PPROF__F_mapping_has_filenames, m.has_filenames);
        p = fput(p, PPROF__F_mapping_has_line_numbers, m.has_line_numbers);
        p = fput(p, PPROF__F_mapping_has_inline_frames, m.has_inline_frames);
        e->b->len = (size_t)(p - e->b->data);
    }
}

static void
locations(enc *e)
{
    const pprof_profile *pr = e->sm.p;
    for (size_t i = 0; i < pr->locations.len; i++) {
        piece_done(e);
        pprof_location l = pprof_profile_location(pr, i);
        size_t body = fsz(l.id) + fsz(l.mapping_id) + fsz(l.address) + fsz(l.is_folded);
        for (size_t j = 0; j < l.n_line; j++) {
            const pprof_line *ln = &l.line[j];
            size_t lb = fsz(ln->function_id) + fsz((uint64_t)ln->line) + fsz((uint64_t)ln->column);
            body += 1 + vsz(lb) + lb;
        }
        uint8_t *p = reserve(e, body + 11);
        if (!p)
            return;
        p = lput(p, PPROF__F_profile_location, body);
        p = fput(p, PPROF__F_location_id, l.id);
        p = fput(p, PPROF__F_location_mapping_id, l.mapping_id);
        p = fput(p, PPROF__F_location_address, l.address);
        for (size_t j = 0; j < l.n_line; j++) {
            const pprof_line *ln = &l.line[j];
            size_t lb = fsz(ln->function_id) + fsz((uint64_t)ln->line) + fsz((uint64_t)ln->column);
            p = lput(p, PPROF__F_location_line, lb);
            p = fput(p, PPROF__F_line_function_id, ln->function_id);
            p = fput(p, PPROF__F_line_line, (uint64_t)ln->line);
            p = fput(p, PPROF__F_line_column, (uint64_t)ln->column);
        }
        p = fput(p, PPROF__F_location_is_folded, l.is_folded);
        e->b->len = (size_t)(p - e->b->data);
    }
}

static void
functions(enc *e)
{
    const pprof_profile *pr = e->sm.p;
    for (size_t i = 0; i < pr->functions.len; i++) {
        piece_done(e);
        pprof_function f = pprof_profile_function(pr, i);
        uint64_t n = remap(&e->sm, f.name, "function[%zu].name", i, 0);
        uint64_t sn = remap(&e->sm, f.system_name, "function[%zu].system_name", i, 0);
        uint64_t fn = remap(&e->sm, f.filename, "function[%zu].filename", i, 0);
        size_t body = fsz(f.id) + fsz(n) + fsz(sn) + fsz(fn) + fsz((uint64_t)f.start_line);
        uint8_t *p = reserve(e, body + 11);
        if (!p)
            return;
        p = lput(p, PPROF__F_profile_function, body);
        p = fput(p, PPROF__F_function_id, f.id);
        p = fput(p, PPROF__F_function_name, n);
        p = fput(p, PPROF__F_function_system_name, sn);
        p = fput(p, PPROF__F_function_filename, fn);
        p = fput(p, PPROF__F_function_start_line, (uint64_t)f.start_line);
        e->b->len = (size_t)(p - e->b->data);
    }
}

size_t
pprof__encoded_bound_of(const pprof__encoded_counts *c)
{
    return 8 * 11 + 22 + 11 + 10 * c->comments + 64 + 33 * c->sample_types + 121 * c->mappings +
           66 * c->functions + 55 * c->locations + 35 * c->lines + 11 * c->strings +
           c->string_bytes + c->sample_bound;
}

/* The most bytes encode_raw can write for pr: each entity's fixed fields at their largest
 * varints, as the reserve() calls of the encoders ask for them. */
static size_t
encoded_bound(const pprof_profile *pr, const pprof__sample_src *src)
{
    pprof__encoded_counts c = {pr->comments.len,    pr->sample_types.len,
                               pr->mappings.len,    pr->functions.len,
                               pr->locations.len,   0,
                               pr->strings.len,     0,
                               src ? src->bound : 0};
    const pprof__sample *s = pr->samples.data;
    for (size_t i = 0; !src && i < pr->samples.len; i++)
        c.sample_bound += PPROF__SAMPLE_BOUND(s[i].n_loc, s[i].n_val, s[i].n_lab);
    const pprof__location *l = pr->locations.data;
    for (size_t i = 0; i < pr->locations.len; i++)
        c.lines += l[i].n_line;
    const pprof_string *str = pr->strings.data;
    for (size_t i = 0; i < pr->strings.len; i++)
        c.string_bytes += str[i].len;
    return pprof__encoded_bound_of(&c);
}

/* Into b, or with ring (and gs) into the ring's chunks. */
static pprof_status
encode_raw(const pprof_profile *pr, const pprof__sample_src *src, const pprof__sample_parts *parts,
           pprof_buffer *b, const pprof_allocator *ba, pprof__gz_stream *gs, gz_ring *ring,
           raw_sink *sink, pprof_error *err)
{
    enc e = {.b = ring ? &ring->chunk[ring->cur] : b,
             .sink = sink,
             .src = src,
             .parts = parts,
             .ba = ba,
             .gs = gs,
             .announce_at = PPROF_GZIP_MEMBER_BYTES,
             .ring = ring};
    e.sm.a = &pr->alloc;
    e.sm.p = pr;
    e.sm.err = err;
    e.sm.memo = pprof__malloc(&pr->alloc, (pr->strings.len + 1) * sizeof(uint32_t));
    uint64_t *comments = pprof__malloc(&pr->alloc, (pr->comments.len + 1) * sizeof(uint64_t));
    pprof_string empty = {"", 0};
    pprof_string *s0 = NULL;
    if (!e.sm.memo || !comments ||
        !pprof__htab_init(&e.sm.by_content, e.sm.a, pr->strings.len + 1) ||
        !(s0 = pprof__vec_push(e.sm.a, &e.sm.out, sizeof(pprof_string)))) {
        e.sm.st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        goto done;
    }
    memset(e.sm.memo, 0xff, (pr->strings.len + 1) * sizeof(uint32_t));
    *s0 = empty;
    pprof__htab_add(&e.sm.by_content, hash_bytes("", 0), 0);

    const pprof_header h = pprof_profile_header(pr);
    for (size_t i = 0; i < pr->sample_types.len; i++)
        sample_type(&e, PPROF__F_profile_sample_type, pprof_profile_sample_type(pr, i), i);
    entities(&e);
    uint64_t drop = remap(&e.sm, h.drop_frames, "drop_frames", 0, 0);
    uint64_t keep = remap(&e.sm, h.keep_frames, "keep_frames", 0, 0);
    for (size_t i = 0; i < h.n_comment; i++)
        comments[i] = remap(&e.sm, h.comment[i], "comment[%zu]", i, 0);
    uint64_t pt = remap(&e.sm, h.period_type.type, "period_type.type", 0, 0);
    uint64_t pu = remap(&e.sm, h.period_type.unit, "period_type.unit", 0, 0);
    uint64_t dst = remap(&e.sm, h.default_sample_type, "default_sample_type", 0, 0);
    uint64_t doc = remap(&e.sm, h.doc_url, "doc_url", 0, 0);
    if (e.sm.st)
        goto done;

    /* a string at a time, between pieces: a large string table is no one piece */
    for (size_t i = 0; i < e.sm.out.len; i++) {
        piece_done(&e);
        pprof_string s = PPROF__AT(e.sm.out, pprof_string, i);
        uint8_t *q = reserve(&e, 11 + s.len);
        if (!q)
            goto done;
        q = lput(q, PPROF__F_profile_string_table, s.len);
        if (s.len)
            memcpy(q, s.data, s.len);
        e.b->len = (size_t)(q + s.len - e.b->data);
    }
    piece_done(&e);
    uint8_t *p = reserve(&e, 8 * 11 + 22 + 11 + 10 * h.n_comment);
    if (!p)
        goto done;
    p = fput(p, PPROF__F_profile_drop_frames, drop);
    p = fput(p, PPROF__F_profile_keep_frames, keep);
    p = fput(p, PPROF__F_profile_time_nanos, (uint64_t)h.time_nanos);
    p = fput(p, PPROF__F_profile_duration_nanos, (uint64_t)h.duration_nanos);
    if (pt || pu) {
        p = lput(p, PPROF__F_profile_period_type, fsz(pt) + fsz(pu));
        p = fput(p, PPROF__F_value_type_type, pt);
        p = fput(p, PPROF__F_value_type_unit, pu);
    }
    p = fput(p, PPROF__F_profile_period, (uint64_t)h.period);
    p = packed_put(p, PPROF__F_profile_comment, comments, h.n_comment,
                   packed_size(comments, h.n_comment));
    p = fput(p, PPROF__F_profile_default_sample_type, dst);
    p = fput(p, PPROF__F_profile_doc_url, doc);
    e.b->len = (size_t)(p - e.b->data);
    if (sink)
        flush(&e);
done:
    pprof__free(&pr->alloc, e.sm.memo);
    pprof__htab_free(&e.sm.by_content, &pr->alloc);
    pprof__free(&pr->alloc, e.sm.out.data);
    pprof__free(&pr->alloc, comments);
    return e.sm.st;
}

static pprof_write_options
write_options(const pprof_write_options *opts)
{
    pprof_write_options o = PPROF_WRITE_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    return o;
}

pprof_status
pprof_write_options_check(const pprof_write_options *opts, pprof_error *err)
{
    pprof_write_options o = write_options(opts);
    static const char *const names[] = {
        [PPROF_FORMAT_RAW] = "none", [PPROF_FORMAT_GZIP] = "gzip", [PPROF_FORMAT_ZSTD] = "zstd"};
    int most;
    switch (o.format) {
    case PPROF_FORMAT_RAW: most = 0; break;
    case PPROF_FORMAT_GZIP: most = 12; break;
    case PPROF_FORMAT_ZSTD: most = ZSTD_maxCLevel(); break;
    default:
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "unknown output format %d",
                            (int)o.format);
    }
    if (o.level < 0 || o.level > most) {
        if (most == 0)
            return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                                "compression level %d given for an uncompressed output", o.level);
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                            "%s compression level %d is outside 1-%d", names[o.format], o.level,
                            most);
    }
    return PPROF_OK;
}

pprof_status
pprof_profile_write_memory(const pprof_profile *p, const pprof_write_options *opts,
                           pprof_buffer *out, pprof_error *err)
{
    return pprof__write_memory_src(p, NULL, opts, out, err);
}

pprof_status
pprof__write_memory_src(const pprof_profile *p, const pprof__sample_src *src,
                        const pprof_write_options *opts, pprof_buffer *out, pprof_error *err)
{
    return pprof__write_memory_parts(p, src, NULL, opts, out, err);
}

pprof_status
pprof__write_memory_parts(const pprof_profile *p, const pprof__sample_src *src,
                          const pprof__sample_parts *parts, const pprof_write_options *opts,
                          pprof_buffer *out, pprof_error *err)
{
    if (!p || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile or no output");
    pprof_status bad = pprof_write_options_check(opts, err);
    if (bad)
        return bad;
    pprof_write_options o = write_options(opts);
    if (o.format == PPROF_FORMAT_RAW) {
        size_t before = out->len;
        pprof_status st = encode_raw(p, src, parts, out, NULL, NULL, NULL, NULL, err);
        if (st)
            out->len = before;
        return st;
    }
    /* The intermediate encoding comes from the profile's allocator (huge pages for large
     * blocks by default): first-touch faults on a large libc buffer cost more than encoding. */
    pprof_buffer raw = {0};
    pprof_status st = encode_raw(p, src, parts, &raw, &p->alloc, NULL, NULL, NULL, err);
    if (st == PPROF_OK)
        st = pprof__compress(raw.data, raw.len, o.format, o.level, o.threads, NULL, out, err);
    pprof__free(&p->alloc, raw.data);
    return st;
}

pprof_status
pprof_profile_write_file(const pprof_profile *p, const pprof_write_options *opts, const char *path,
                         pprof_error *err)
{
    return pprof__write_file_src(p, NULL, NULL, path, opts, err);
}

pprof_status
pprof_profile_write_stream(const pprof_profile *p, const pprof_write_options *opts, FILE *stream,
                           pprof_error *err)
{
    if (!stream)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no stream");
    pprof_buffer b = {0};
    pprof_status st = pprof_profile_write_memory(p, opts, &b, err);
    return pprof__buffer_write_stream(stream, st, &b, err);
}

static pprof_status write_file(const pprof_profile *p, const pprof__sample_src *src,
                               const pprof__sample_parts *parts, pprof_buffer *pre,
                               const char *path, const pprof_write_options *opts, pprof_error *err);

pprof_status
pprof__write_file_src(const pprof_profile *p, const pprof__sample_src *src, pprof_buffer *pre,
                      const char *path, const pprof_write_options *opts, pprof_error *err)
{
    return write_file(p, src, NULL, pre, path, opts, err);
}

bool
pprof__write_file_src_whole(const pprof_write_options *opts)
{
    pprof_write_options o = write_options(opts);
    return !(o.format == PPROF_FORMAT_GZIP && o.threads > 1);
}

pprof_status
pprof__write_file_parts(const pprof_profile *p, const pprof__sample_src *src,
                        const pprof__sample_parts *parts, const char *path,
                        const pprof_write_options *opts, pprof_error *err)
{
    return write_file(p, src, parts, NULL, path, opts, err);
}

static pprof_status
write_file(const pprof_profile *p, const pprof__sample_src *src, const pprof__sample_parts *parts,
           pprof_buffer *pre, const char *path, const pprof_write_options *opts, pprof_error *err)
{
    if (!p || !path)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile or no output path");
    pprof_status bad = pprof_write_options_check(opts, err);
    if (bad)
        return bad;
    pprof_write_options o = write_options(opts);
    pprof_buffer raw = {0}, packed = {0};
    if (pre) {
        raw = *pre;
        raw.len = 0;
    }
    const pprof_buffer *bytes = &raw;
    pprof_status st;
    pprof__out_file out;
    bool streamed = false;
    if (o.format == PPROF_FORMAT_GZIP && o.threads > 1) {
        /* Members are compressed while the rest is still being encoded, and written to the
         * temporary file as they come (standard output gets all or nothing, as below). */
        size_t bound = encoded_bound(p, src), len = 0;
        pprof__gz_stream *gs = NULL;
        /* Samples in parts are encoded into buffers of their own and appended: one buffer. */
        gz_ring *ring = parts ? NULL : pprof__malloc(&p->alloc, sizeof(gz_ring));
        streamed = strcmp(path, "-") != 0;
        if (streamed && (st = pprof__out_open(path, &o, &out, err))) {
            pprof__free(&p->alloc, ring);
            return st;
        }
        if (ring) {
            memset(ring, 0, sizeof(*ring));
            ring->n = o.threads + 1 < RING_MAX ? o.threads + 1 : RING_MAX;
        }
        if (!(ring ? pprof__buffer_reserve_in(&p->alloc, &ring->chunk[0], CHUNK_BYTES)
                   : parts && pprof__buffer_reserve_in(&p->alloc, &raw, bound)))
            st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        else if (!(gs = pprof__gz_stream_start(ring ? NULL : raw.data, bound, o.level, o.threads,
                                               &p->alloc, &packed, streamed ? &out : NULL, err)))
            st = PPROF_E_NOMEM;
        else
            st = encode_raw(p, src, parts, &raw, &p->alloc, gs, ring, NULL, err);
        if (gs) {
            len = ring && st == PPROF_OK ? ring_last(ring, gs) : raw.len;
            pprof_status fst = pprof__gz_stream_finish(gs, len, st == PPROF_OK, err);
            if (st == PPROF_OK)
                st = fst;
        }
        for (size_t i = 0; ring && i < RING_MAX; i++)
            pprof__free(&p->alloc, ring->chunk[i].data);
        pprof__free(&p->alloc, ring);
        bytes = &packed;
    } else if (o.format == PPROF_FORMAT_RAW && !pre && strcmp(path, "-") != 0) {
        /* standard output gets all or nothing, as below */
        raw_sink k = {.path = path, .opts = &o};
        st = encode_raw(p, src, parts, &raw, &p->alloc, NULL, NULL, &k, err);
        if (st == PPROF_OK && k.open_st) {
            st = k.open_st;
            if (err)
                *err = k.open_err;
        }
        if (k.opened && st == PPROF_OK)
            st = pprof__out_commit(&k.out, err);
        else if (k.opened)
            pprof__out_abort(&k.out);
        pprof__free(&p->alloc, raw.data);
        return st;
    } else {
        st = encode_raw(p, src, parts, &raw, &p->alloc, NULL, NULL, NULL, err);
        if (st == PPROF_OK && o.format != PPROF_FORMAT_RAW) {
            st = pprof__compress(raw.data, raw.len, o.format, o.level, o.threads, &p->alloc,
                                 &packed, err);
            bytes = &packed;
        }
    }
    if (streamed && st == PPROF_OK)
        st = pprof__out_commit(&out, err);
    else if (streamed)
        pprof__out_abort(&out);
    else if (st == PPROF_OK)
        st = pprof_bytes_write_file(bytes->data, bytes->len, &o, path, err);
    if (pre)
        *pre = raw; /* the caller's to free */
    else
        pprof__free(&p->alloc, raw.data);
    pprof__free(&p->alloc, packed.data);
    return st;
}
