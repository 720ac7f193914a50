/* Profile lifetime, reading entry points and read-only accessors. */
#include <stdlib.h>

#include "memory-private.h"
#include "profile-private.h"

void
pprof_read_options_init(pprof_read_options *opts)
{
    if (!opts)
        return;
    const pprof_read_options def = PPROF_READ_OPTIONS_INIT;
    *opts = def;
}

void
pprof_write_options_init(pprof_write_options *opts)
{
    if (!opts)
        return;
    const pprof_write_options def = PPROF_WRITE_OPTIONS_INIT;
    *opts = def;
}

void
pprof__read_options_fill(pprof_read_options *dst, const pprof_read_options *src)
{
    pprof_read_options_init(dst);
    if (!src)
        return;
    size_t n = src->struct_size < sizeof(*dst) ? src->struct_size : sizeof(*dst);
    memcpy(dst, src, n);
    dst->struct_size = sizeof(*dst);
}

pprof_profile *
pprof__profile_new(const pprof_allocator *a)
{
    pprof_profile *p = pprof__malloc(a, sizeof(*p));
    if (!p)
        return NULL;
    memset(p, 0, sizeof(*p));
    atomic_init(&p->idx_state, PPROF__IDX_NONE);
    if (a)
        p->alloc = *a;
    p->blocks = pprof__blocks_of(&p->alloc);
    pprof__arena_init(&p->arena, &p->alloc);
    return p;
}

void
pprof_profile_free(pprof_profile *p)
{
    if (!p)
        return;
    const pprof_allocator a = p->alloc;
    pprof__vec *vecs[] = {&p->strings,      &p->sample_types,  &p->samples,       &p->stack,
                          &p->values,       &p->labels,        &p->mappings,      &p->locations,
                          &p->lines,        &p->functions,     &p->comments,      &p->sample_offs,
                          &p->mapping_offs, &p->location_offs, &p->function_offs, &p->lazy};
    for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
        pprof__free(&a, vecs[i]->data);
    pprof__idmap_free(&a, &p->map_idx);
    pprof__idmap_free(&a, &p->loc_idx);
    pprof__idmap_free(&a, &p->fn_idx);
    pprof__free(&a, p->buf);
    pprof__arena_destroy(&p->arena);
    struct pprof__blocks *blocks = p->blocks;
    pprof__free(&a, p);
    pprof__blocks_release(blocks);
}

pprof_status
pprof__read_memory_start(const void *data, size_t size, const pprof_read_options *opts, void *out,
                         pprof_read_options *o, pprof_error *err)
{
    if (!out || (!data && size))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no input or no output");
    pprof__read_options_fill(o, opts);
    if (size > o->max_input_bytes)
        return pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                            "input of %zu bytes exceeds the limit of %llu", size,
                            (unsigned long long)o->max_input_bytes);
    return PPROF_OK;
}

/* owned: the buffer data is in, freed once it is decompressed (NULL: the caller's bytes);
 * id32: the stack is decoded as 4-byte ids where they fit (pprof_profile.stack_is_id32) */
static pprof_status
read_memory(const void *data, size_t size, pprof_buffer *owned, const pprof_read_options *opts,
            bool id32, pprof_profile **out, pprof_error *err)
{
    if (out)
        *out = NULL;
    pprof_read_options o;
    pprof_status st0 = pprof__read_memory_start(data, size, opts, out, &o, err);
    if (st0)
        return st0;
    pprof_profile *p = pprof__profile_new(&o.allocator);
    if (!p)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    pprof_format fmt = pprof_detect_format(data, size);
    p->source_format = fmt;
    p->stack_is_id32 = id32;
    uint8_t *buf = NULL;
    size_t len = 0;
    pprof_status st = pprof__decompress(data, size, fmt, &o, &buf, &len, err);
    if (owned)
        pprof_buffer_free(owned); /* data is not read again */
    /* another format by content (pprof_read_options.readers), converted where every tool reads */
    const pprof_reader *r = st == PPROF_OK ? pprof__reader_for_raw(o.readers, buf, len) : NULL;
    if (r) {
        pprof_profile_free(p);
        return r->read(buf, len, fmt, &o, out, err);
    }
    if (st == PPROF_OK)
        st = pprof__decode(p, buf, len, &o, err); /* p owns buf from here on */
    if (st != PPROF_OK) {
        pprof_profile_free(p);
        return st;
    }
    *out = p;
    return PPROF_OK;
}

pprof_status
pprof_profile_read_memory(const void *data, size_t size, const pprof_read_options *opts,
                          pprof_profile **out, pprof_error *err)
{
    return read_memory(data, size, NULL, opts, false, out, err);
}

static pprof_status
read_buffer(pprof_buffer *in, const pprof_read_options *opts, bool id32, pprof_profile **out,
            pprof_error *err)
{
    if (!in) {
        if (out)
            *out = NULL;
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no input or no output");
    }
    pprof_status st = read_memory(in->data, in->len, in, opts, id32, out, err);
    pprof_buffer_free(in); /* when refused before the decompression */
    return st;
}

pprof_status
pprof_profile_read_buffer(pprof_buffer *in, const pprof_read_options *opts, pprof_profile **out,
                          pprof_error *err)
{
    return read_buffer(in, opts, false, out, err);
}

pprof_status
pprof__read_buffer_id32(pprof_buffer *in, const pprof_read_options *opts, pprof_profile **out,
                        pprof_error *err)
{
    return read_buffer(in, opts, true, out, err);
}

pprof_status
pprof_profile_read_file(const char *path, const pprof_read_options *opts, pprof_profile **out,
                        pprof_error *err)
{
    if (!path || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no path or no output");
    *out = NULL;
    pprof_read_options o;
    pprof__read_options_fill(&o, opts);
    uint8_t *data;
    size_t len;
    pprof_status st = pprof__read_all(path, o.max_input_bytes, &o.allocator, &data, &len, err);
    if (st)
        return st;
    pprof_format fmt = pprof_detect_format(data, len);
    /* a name can say the format where the content alone is not certain (".otlp") */
    const pprof_reader *r = pprof__reader_for_path(o.readers, path);
    if (!r && fmt == PPROF_FORMAT_RAW)
        r = pprof__reader_for_raw(o.readers, data, len);
    if (r) {
        if (fmt == PPROF_FORMAT_RAW)
            return r->read(data, len, fmt, &o, out, err);
        uint8_t *buf = NULL;
        size_t blen = 0;
        st = pprof__decompress(data, len, fmt, &o, &buf, &blen, err);
        pprof__free(&o.allocator, data);
        return st ? st : r->read(buf, blen, fmt, &o, out, err);
    }
    if (fmt != PPROF_FORMAT_RAW) {
        st = pprof_profile_read_memory(data, len, &o, out, err);
        pprof__free(&o.allocator, data);
        return st;
    }
    /* A raw file needs no copy: the profile takes the bytes it was read into. */
    if (len > o.max_decompressed_bytes) {
        pprof__free(&o.allocator, data);
        return pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                            "input of %zu bytes exceeds the limit of %llu", len,
                            (unsigned long long)o.max_decompressed_bytes);
    }
    pprof_profile *p = pprof__profile_new(&o.allocator);
    if (!p) {
        pprof__free(&o.allocator, data);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    p->source_format = PPROF_FORMAT_RAW;
    st = pprof__decode(p, data, len, &o, err); /* p owns data from here on */
    if (st != PPROF_OK) {
        pprof_profile_free(p);
        return st;
    }
    *out = p;
    return PPROF_OK;
}

pprof_format
pprof_profile_source_format(const pprof_profile *p)
{
    return p ? p->source_format : PPROF_FORMAT_RAW;
}

uint64_t
pprof_profile_unknown_fields(const pprof_profile *p)
{
    return p ? p->unknown_fields : 0;
}

size_t
pprof_profile_count(const pprof_profile *p, pprof_table t)
{
    if (!p)
        return 0;
    switch (t) {
    case PPROF_TABLE_STRING: return p->strings.len;
    case PPROF_TABLE_SAMPLE_TYPE: return p->sample_types.len;
    case PPROF_TABLE_SAMPLE: return p->samples.len;
    case PPROF_TABLE_MAPPING: return p->mappings.len;
    case PPROF_TABLE_LOCATION: return p->locations.len;
    case PPROF_TABLE_FUNCTION: return p->functions.len;
    }
    return 0;
}

pprof_header
pprof_profile_header(const pprof_profile *p)
{
    pprof_header h = p->hdr;
    h.comment = p->comments.data;
    h.n_comment = p->comments.len;
    return h;
}

bool
pprof_profile_string(const pprof_profile *p, int64_t index, pprof_string *out)
{
    pprof_string tmp;
    return pprof__str(p, index, out ? out : &tmp);
}

pprof_value_type
pprof_profile_sample_type(const pprof_profile *p, size_t i)
{
    return PPROF__AT(p->sample_types, pprof_value_type, i);
}

pprof_sample
pprof_profile_sample(const pprof_profile *p, size_t i)
{
    const pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, i);
    /* A table nobody used has no storage, and NULL + 0 is undefined behaviour in C. */
    /* a profile read to be drawn holds location indices (pprof_flame_profile_read_buffer) */
    bool ids = p->stack.data && !p->stack_is_index;
    pprof_sample v = {
        .location_id = ids ? (const uint64_t *)p->stack.data + s->loc_off : NULL,
        .n_location_id = ids ? s->n_loc : 0,
        .value = p->values.data ? (const int64_t *)p->values.data + s->val_off : NULL,
        .n_value = s->n_val,
        .label = p->labels.data ? (const pprof_label *)p->labels.data + s->lab_off : NULL,
        .n_label = s->n_lab,
    };
    return v;
}

pprof_mapping
pprof_profile_mapping(const pprof_profile *p, size_t i)
{
    return PPROF__AT(p->mappings, pprof_mapping, i);
}

pprof_location
pprof_profile_location(const pprof_profile *p, size_t i)
{
    const pprof__location *l = &PPROF__AT(p->locations, pprof__location, i);
    pprof_location v = {
        .id = l->id,
        .mapping_id = l->mapping_id,
        .address = l->address,
        .line = p->lines.data ? (const pprof_line *)p->lines.data + l->line_off : NULL,
        .n_line = l->n_line,
        .is_folded = l->is_folded,
    };
    return v;
}

pprof_function
pprof_profile_function(const pprof_profile *p, size_t i)
{
    return PPROF__AT(p->functions, pprof_function, i);
}

static bool
find(const pprof_profile *cp, const pprof__idmap *m, uint64_t id, size_t *index)
{
    if (pprof__profile_index(cp, NULL) != PPROF_OK)
        return false;
    uint32_t i = pprof__idmap_get(m, id);
    if (i == PPROF_NONE)
        return false;
    if (index)
        *index = i;
    return true;
}

bool
pprof_profile_find_mapping(const pprof_profile *p, uint64_t id, size_t *index)
{
    return find(p, &p->map_idx, id, index);
}

bool
pprof_profile_find_location(const pprof_profile *p, uint64_t id, size_t *index)
{
    return find(p, &p->loc_idx, id, index);
}

bool
pprof_profile_find_function(const pprof_profile *p, uint64_t id, size_t *index)
{
    return find(p, &p->fn_idx, id, index);
}

/* ---- semantic equality */

static bool
str_eq(const pprof_profile *a, int64_t ia, const pprof_profile *b, int64_t ib)
{
    pprof_string sa = {"", 0}, sb = {"", 0};
    /* Index 0 of an absent table is "", as the writer treats it (it always writes [""]). */
    bool va = (ia == 0 && a->strings.len == 0) || pprof__str(a, ia, &sa);
    bool vb = (ib == 0 && b->strings.len == 0) || pprof__str(b, ib, &sb);
    if (!va || !vb)
        return !va && !vb && ia == ib;
    return sa.len == sb.len && (sa.len == 0 || memcmp(sa.data, sb.data, sa.len) == 0);
}

#define SEQ(x, y) str_eq(a, (x), b, (y))

bool
pprof_profile_equal(const pprof_profile *a, const pprof_profile *b)
{
    if (!a || !b)
        return a == b;
    const pprof_header ha = pprof_profile_header(a), hb = pprof_profile_header(b);
    if (!SEQ(ha.period_type.type, hb.period_type.type) ||
        !SEQ(ha.period_type.unit, hb.period_type.unit) || ha.period != hb.period ||
        ha.time_nanos != hb.time_nanos || ha.duration_nanos != hb.duration_nanos ||
        !SEQ(ha.drop_frames, hb.drop_frames) || !SEQ(ha.keep_frames, hb.keep_frames) ||
        !SEQ(ha.default_sample_type, hb.default_sample_type) || !SEQ(ha.doc_url, hb.doc_url) ||
        ha.n_comment != hb.n_comment)
        return false;
    for (size_t i = 0; i < ha.n_comment; i++)
        if (!SEQ(ha.comment[i], hb.comment[i]))
            return false;
    for (int t = PPROF_TABLE_SAMPLE_TYPE; t <= PPROF_TABLE_FUNCTION; t++)
        if (pprof_profile_count(a, t) != pprof_profile_count(b, t))
            return false;
    for (size_t i = 0; i < a->sample_types.len; i++) {
        pprof_value_type x = pprof_profile_sample_type(a, i), y = pprof_profile_sample_type(b, i);
        if (!SEQ(x.type, y.type) || !SEQ(x.unit, y.unit))
            return false;
    }
    for (size_t i = 0; i < a->samples.len; i++) {
        pprof_sample x = pprof_profile_sample(a, i), y = pprof_profile_sample(b, i);
        if (x.n_location_id != y.n_location_id || x.n_value != y.n_value ||
            x.n_label != y.n_label ||
            (x.n_location_id &&
             memcmp(x.location_id, y.location_id, x.n_location_id * sizeof(uint64_t))) ||
            (x.n_value && memcmp(x.value, y.value, x.n_value * sizeof(int64_t))))
            return false;
        for (size_t j = 0; j < x.n_label; j++) {
            const pprof_label *l = &x.label[j], *m = &y.label[j];
            if (!SEQ(l->key, m->key) || !SEQ(l->str, m->str) || l->num != m->num ||
                !SEQ(l->num_unit, m->num_unit))
                return false;
        }
    }
    for (size_t i = 0; i < a->mappings.len; i++) {
        pprof_mapping x = pprof_profile_mapping(a, i), y = pprof_profile_mapping(b, i);
        if (x.id != y.id || x.memory_start != y.memory_start || x.memory_limit != y.memory_limit ||
            x.file_offset != y.file_offset || !SEQ(x.filename, y.filename) ||
            !SEQ(x.build_id, y.build_id) || x.has_functions != y.has_functions ||
            x.has_filenames != y.has_filenames || x.has_line_numbers != y.has_line_numbers ||
            x.has_inline_frames != y.has_inline_frames)
            return false;
    }
    for (size_t i = 0; i < a->locations.len; i++) {
        pprof_location x = pprof_profile_location(a, i), y = pprof_profile_location(b, i);
        if (x.id != y.id || x.mapping_id != y.mapping_id || x.address != y.address ||
            x.is_folded != y.is_folded || x.n_line != y.n_line ||
            (x.n_line && memcmp(x.line, y.line, x.n_line * sizeof(pprof_line))))
            return false;
    }
    for (size_t i = 0; i < a->functions.len; i++) {
        pprof_function x = pprof_profile_function(a, i), y = pprof_profile_function(b, i);
        if (x.id != y.id || !SEQ(x.name, y.name) || !SEQ(x.system_name, y.system_name) ||
            !SEQ(x.filename, y.filename) || x.start_line != y.start_line)
            return false;
    }
    return true;
}
