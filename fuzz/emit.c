/* The raw emitter. The library's writer refuses dangling string indices and compacts the table,
 * so mutations that break references need their own encoder; this one writes the model as it
 * is, in a few wire-level variants the library never produces. */
#include "mutator.h"
#include "profile-private.h"
#include "wire-private.h"

typedef struct em {
    pprof_buffer *b;
    unsigned flags;
    bool oom;
} em;

static void
put(em *e, const void *d, size_t n)
{
    if (!e->oom && pprof__buffer_append(e->b, d, n) != PPROF_OK)
        e->oom = true;
}

static void
put_varint(em *e, uint64_t v)
{
    uint8_t tmp[10];
    put(e, tmp, (size_t)(pprof__put_varint(tmp, v) - tmp));
}

static void
tag(em *e, unsigned field, unsigned wt)
{
    put_varint(e, (uint64_t)field << 3 | wt);
}

static void
f_varint(em *e, unsigned field, uint64_t v)
{
    if (!v && !(e->flags & FUZZ_EMIT_ZEROS))
        return;
    tag(e, field, PPROF_WT_VARINT);
    put_varint(e, v);
}

static void
f_bytes(em *e, unsigned field, const void *d, size_t n)
{
    tag(e, field, PPROF_WT_LEN);
    put_varint(e, n);
    put(e, d, n);
}

static void
unknown(em *e)
{
    if (e->flags & FUZZ_EMIT_UNKNOWN) {
        f_varint(e, 100, 7);
        f_bytes(e, 101, "x", 1);
    }
}

/* A nested message: the body goes into its own buffer first for its length prefix. */
typedef struct sub {
    em e;
    pprof_buffer buf;
} sub;

static void
sub_begin(sub *s, const em *parent)
{
    s->buf = (pprof_buffer){0};
    s->e = (em){&s->buf, parent->flags, false};
}

static void
sub_end(sub *s, em *parent, unsigned field)
{
    unknown(&s->e);
    if (s->e.oom)
        parent->oom = true;
    f_bytes(parent, field, s->buf.data, s->buf.len);
    pprof_buffer_free(&s->buf);
}

static void
f_repeated(em *e, unsigned field, const void *vals, size_t n)
{
    const uint64_t *v = vals; /* int64 values go out as their two's complement */
    if (e->flags & FUZZ_EMIT_UNPACKED) {
        for (size_t i = 0; i < n; i++) {
            tag(e, field, PPROF_WT_VARINT);
            put_varint(e, v[i]);
        }
        return;
    }
    if (!n)
        return;
    sub s;
    sub_begin(&s, e);
    for (size_t i = 0; i < n; i++)
        put_varint(&s.e, v[i]);
    s.e.flags &= ~(unsigned)FUZZ_EMIT_UNKNOWN;
    sub_end(&s, e, field);
}

static void
value_type(em *e, unsigned field, pprof_value_type vt)
{
    sub s;
    sub_begin(&s, e);
    f_varint(&s.e, 1, (uint64_t)vt.type);
    f_varint(&s.e, 2, (uint64_t)vt.unit);
    sub_end(&s, e, field);
}

static void
strings(em *e, const pprof_profile *p)
{
    for (size_t i = 0; i < p->strings.len; i++) {
        pprof_string s = PPROF__AT(p->strings, pprof_string, i);
        f_bytes(e, 6, s.data, s.len);
    }
}

pprof_status
fuzz_emit_raw(const pprof_profile *p, unsigned flags, pprof_buffer *out)
{
    em e = {out, flags, false};
    if (flags & FUZZ_EMIT_STRINGS_FIRST)
        strings(&e, p);
    for (size_t i = 0; i < p->sample_types.len; i++)
        value_type(&e, 1, pprof_profile_sample_type(p, i));
    for (size_t i = 0; i < p->samples.len; i++) {
        pprof_sample x = pprof_profile_sample(p, i);
        sub s;
        sub_begin(&s, &e);
        f_repeated(&s.e, 1, x.location_id, x.n_location_id);
        f_repeated(&s.e, 2, x.value, x.n_value);
        for (size_t j = 0; j < x.n_label; j++) {
            sub l;
            sub_begin(&l, &s.e);
            f_varint(&l.e, 1, (uint64_t)x.label[j].key);
            f_varint(&l.e, 2, (uint64_t)x.label[j].str);
            f_varint(&l.e, 3, (uint64_t)x.label[j].num);
            f_varint(&l.e, 4, (uint64_t)x.label[j].num_unit);
            sub_end(&l, &s.e, 3);
        }
        sub_end(&s, &e, 2);
    }
    for (size_t i = 0; i < p->mappings.len; i++) {
        pprof_mapping m = pprof_profile_mapping(p, i);
        sub s;
        sub_begin(&s, &e);
        f_varint(&s.e, 1, m.id);
        f_varint(&s.e, 2, m.memory_start);
        f_varint(&s.e, 3, m.memory_limit);
        f_varint(&s.e, 4, m.file_offset);
        f_varint(&s.e, 5, (uint64_t)m.filename);
        f_varint(&s.e, 6, (uint64_t)m.build_id);
        f_varint(&s.e, 7, m.has_functions);
        f_varint(&s.e, 8, m.has_filenames);
        f_varint(&s.e, 9, m.has_line_numbers);
        f_varint(&s.e, 10, m.has_inline_frames);
        sub_end(&s, &e, 3);
    }
    for (size_t i = 0; i < p->locations.len; i++) {
        pprof_location l = pprof_profile_location(p, i);
        sub s;
        sub_begin(&s, &e);
        f_varint(&s.e, 1, l.id);
        f_varint(&s.e, 2, l.mapping_id);
        f_varint(&s.e, 3, l.address);
        for (size_t j = 0; j < l.n_line; j++) {
            sub ln;
            sub_begin(&ln, &s.e);
            f_varint(&ln.e, 1, l.line[j].function_id);
            f_varint(&ln.e, 2, (uint64_t)l.line[j].line);
            f_varint(&ln.e, 3, (uint64_t)l.line[j].column);
            sub_end(&ln, &s.e, 4);
        }
        f_varint(&s.e, 5, l.is_folded);
        sub_end(&s, &e, 4);
    }
    for (size_t i = 0; i < p->functions.len; i++) {
        pprof_function f = pprof_profile_function(p, i);
        sub s;
        sub_begin(&s, &e);
        f_varint(&s.e, 1, f.id);
        f_varint(&s.e, 2, (uint64_t)f.name);
        f_varint(&s.e, 3, (uint64_t)f.system_name);
        f_varint(&s.e, 4, (uint64_t)f.filename);
        f_varint(&s.e, 5, (uint64_t)f.start_line);
        sub_end(&s, &e, 5);
    }
    if (!(flags & FUZZ_EMIT_STRINGS_FIRST))
        strings(&e, p);
    pprof_header h = pprof_profile_header(p);
    f_varint(&e, 7, (uint64_t)h.drop_frames);
    f_varint(&e, 8, (uint64_t)h.keep_frames);
    f_varint(&e, 9, (uint64_t)h.time_nanos);
    f_varint(&e, 10, (uint64_t)h.duration_nanos);
    if (h.period_type.type || h.period_type.unit || (flags & FUZZ_EMIT_ZEROS))
        value_type(&e, 11, h.period_type);
    f_varint(&e, 12, (uint64_t)h.period);
    f_repeated(&e, 13, h.comment, h.n_comment);
    f_varint(&e, 14, (uint64_t)h.default_sample_type);
    f_varint(&e, 15, (uint64_t)h.doc_url);
    unknown(&e);
    return e.oom ? PPROF_E_NOMEM : PPROF_OK;
}
