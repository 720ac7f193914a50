/* The one module that uses protobuf-c: conversion to and from its generated messages, and the
 * field-by-field comparison that makes protobuf-c the test oracle for our own decoder. */
#include <stdio.h>
#include <stdlib.h>

#include "pbc-private.h"
#include "pprof/pprof-protobuf-c.h"

static void *
new_copy(const void *init, size_t size)
{
    void *x = malloc(size);
    if (x)
        memcpy(x, init, size);
    return x;
}

/* a heap copy of a message initialised with its protoc-c INIT value */
#define NEW(type, init) ((type *)new_copy(&(type)init, sizeof(type)))

static void *
dup_array(const void *src, size_t n, size_t elem, bool *ok)
{
    if (!n)
        return NULL;
    void *d = malloc(n * elem);
    if (!d)
        *ok = false;
    else
        memcpy(d, src, n * elem);
    return d;
}

static void *
ptr_array(size_t n, bool *ok)
{
    if (!n)
        return NULL;
    void *d = calloc(n, sizeof(void *));
    if (!d)
        *ok = false;
    return d;
}

pprof_status
pprof_profile_to_protobuf_c(const pprof_profile *p, struct Perftools__Profiles__Profile **out,
                            pprof_error *err)
{
    if (!p || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile or no output");
    *out = NULL;
    bool ok = true;
    Perftools__Profiles__Profile *m =
        NEW(Perftools__Profiles__Profile, PERFTOOLS__PROFILES__PROFILE__INIT);
    if (!m)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    pprof_header h = pprof_profile_header(p);
    m->drop_frames = h.drop_frames;
    m->keep_frames = h.keep_frames;
    m->time_nanos = h.time_nanos;
    m->duration_nanos = h.duration_nanos;
    m->period = h.period;
    m->default_sample_type = h.default_sample_type;
    m->doc_url = h.doc_url;
    m->comment = dup_array(h.comment, h.n_comment, sizeof(int64_t), &ok);
    m->n_comment = ok ? h.n_comment : 0;
    if (h.period_type.type || h.period_type.unit) {
        m->period_type = NEW(Perftools__Profiles__ValueType, PERFTOOLS__PROFILES__VALUE_TYPE__INIT);
        if (m->period_type) {
            m->period_type->type = h.period_type.type;
            m->period_type->unit = h.period_type.unit;
        } else {
            ok = false;
        }
    }
    size_t n = p->strings.len;
    if (ok && (m->string_table = ptr_array(n, &ok)))
        for (size_t i = 0; i < n && ok; i++) {
            pprof_string s = PPROF__AT(p->strings, pprof_string, i);
            char *c = malloc(s.len + 1);
            if (!c) {
                ok = false;
                break;
            }
            memcpy(c, s.data, s.len);
            c[s.len] = 0;
            m->string_table[m->n_string_table++] = c;
        }
    n = p->sample_types.len;
    if (ok && (m->sample_type = ptr_array(n, &ok)))
        for (size_t i = 0; i < n && ok; i++) {
            Perftools__Profiles__ValueType *v =
                NEW(Perftools__Profiles__ValueType, PERFTOOLS__PROFILES__VALUE_TYPE__INIT);
            if (!(ok = v != NULL))
                break;
            pprof_value_type vt = pprof_profile_sample_type(p, i);
            v->type = vt.type;
            v->unit = vt.unit;
            m->sample_type[m->n_sample_type++] = v;
        }
    n = p->samples.len;
    if (ok && (m->sample = ptr_array(n, &ok)))
        for (size_t i = 0; i < n && ok; i++) {
            Perftools__Profiles__Sample *s =
                NEW(Perftools__Profiles__Sample, PERFTOOLS__PROFILES__SAMPLE__INIT);
            if (!(ok = s != NULL))
                break;
            m->sample[m->n_sample++] = s;
            pprof_sample v = pprof_profile_sample(p, i);
            s->location_id = dup_array(v.location_id, v.n_location_id, sizeof(uint64_t), &ok);
            s->n_location_id = s->location_id ? v.n_location_id : 0;
            s->value = dup_array(v.value, v.n_value, sizeof(int64_t), &ok);
            s->n_value = s->value ? v.n_value : 0;
            if (ok && (s->label = ptr_array(v.n_label, &ok)))
                for (size_t j = 0; j < v.n_label; j++) {
                    Perftools__Profiles__Label *l =
                        NEW(Perftools__Profiles__Label, PERFTOOLS__PROFILES__LABEL__INIT);
                    if (!(ok = l != NULL))
                        break;
                    l->key = v.label[j].key;
                    l->str = v.label[j].str;
                    l->num = v.label[j].num;
                    l->num_unit = v.label[j].num_unit;
                    s->label[s->n_label++] = l;
                }
        }
    n = p->mappings.len;
    if (ok && (m->mapping = ptr_array(n, &ok)))
        for (size_t i = 0; i < n; i++) {
            Perftools__Profiles__Mapping *x =
                NEW(Perftools__Profiles__Mapping, PERFTOOLS__PROFILES__MAPPING__INIT);
            if (!(ok = x != NULL))
                break;
            pprof_mapping v = pprof_profile_mapping(p, i);
            x->id = v.id;
            x->memory_start = v.memory_start;
            x->memory_limit = v.memory_limit;
            x->file_offset = v.file_offset;
            x->filename = v.filename;
            x->build_id = v.build_id;
            x->has_functions = v.has_functions;
            x->has_filenames = v.has_filenames;
            x->has_line_numbers = v.has_line_numbers;
            x->has_inline_frames = v.has_inline_frames;
            m->mapping[m->n_mapping++] = x;
        }
    n = p->locations.len;
    if (ok && (m->location = ptr_array(n, &ok)))
        for (size_t i = 0; i < n && ok; i++) {
            Perftools__Profiles__Location *x =
                NEW(Perftools__Profiles__Location, PERFTOOLS__PROFILES__LOCATION__INIT);
            if (!(ok = x != NULL))
                break;
            m->location[m->n_location++] = x;
            pprof_location v = pprof_profile_location(p, i);
            x->id = v.id;
            x->mapping_id = v.mapping_id;
            x->address = v.address;
            x->is_folded = v.is_folded;
            if ((x->line = ptr_array(v.n_line, &ok)))
                for (size_t j = 0; j < v.n_line; j++) {
                    Perftools__Profiles__Line *l =
                        NEW(Perftools__Profiles__Line, PERFTOOLS__PROFILES__LINE__INIT);
                    if (!(ok = l != NULL))
                        break;
                    l->function_id = v.line[j].function_id;
                    l->line = v.line[j].line;
                    l->column = v.line[j].column;
                    x->line[x->n_line++] = l;
                }
        }
    n = p->functions.len;
    if (ok && (m->function = ptr_array(n, &ok)))
        for (size_t i = 0; i < n; i++) {
            Perftools__Profiles__Function *x =
                NEW(Perftools__Profiles__Function, PERFTOOLS__PROFILES__FUNCTION__INIT);
            if (!(ok = x != NULL))
                break;
            pprof_function v = pprof_profile_function(p, i);
            x->id = v.id;
            x->name = v.name;
            x->system_name = v.system_name;
            x->filename = v.filename;
            x->start_line = v.start_line;
            m->function[m->n_function++] = x;
        }
    if (!ok) {
        protobuf_c_message_free_unpacked(&m->base, NULL);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    }
    *out = m;
    return PPROF_OK;
}

pprof_status
pprof_profile_from_protobuf_c(const struct Perftools__Profiles__Profile *msg,
                              const pprof_read_options *opts, pprof_profile **out, pprof_error *err)
{
    if (!msg || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no message or no output");
    *out = NULL;
    size_t n = protobuf_c_message_get_packed_size(&msg->base);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    protobuf_c_message_pack(&msg->base, buf);
    /* Through our own reader, so a message gets exactly the checks a file gets. An empty
     * message is a valid empty profile, not an empty file. */
    pprof_status st;
    if (n == 0) {
        pprof_read_options o;
        pprof__read_options_fill(&o, opts);
        pprof_profile *p = pprof__profile_new(&o.allocator);
        st = p ? PPROF_OK : pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        *out = p;
    } else {
        st = pprof_profile_read_memory(buf, n, opts, out, err);
    }
    free(buf);
    return st;
}

/* ---- oracle comparison */

#define DIFF(...)                                                                                  \
    do {                                                                                           \
        snprintf(why, why_len, __VA_ARGS__);                                                       \
        return false;                                                                              \
    } while (0)

bool
pprof__pbc_equal(const pprof_profile *p, const Perftools__Profiles__Profile *m, char *why,
                 size_t why_len)
{
    pprof_header h = pprof_profile_header(p);
    if (m->drop_frames != h.drop_frames || m->keep_frames != h.keep_frames ||
        m->time_nanos != h.time_nanos || m->duration_nanos != h.duration_nanos ||
        m->period != h.period || m->default_sample_type != h.default_sample_type ||
        m->doc_url != h.doc_url)
        DIFF("header scalar differs");
    int64_t pt = m->period_type ? m->period_type->type : 0;
    int64_t pu = m->period_type ? m->period_type->unit : 0;
    if (pt != h.period_type.type || pu != h.period_type.unit)
        DIFF("period_type differs");
    if (m->n_comment != h.n_comment ||
        (h.n_comment && memcmp(m->comment, h.comment, h.n_comment * sizeof(int64_t))))
        DIFF("comment differs");
    if (m->n_string_table != p->strings.len)
        DIFF("string_table: %zu vs %zu entries", m->n_string_table, p->strings.len);
    for (size_t i = 0; i < m->n_string_table; i++) {
        pprof_string s = PPROF__AT(p->strings, pprof_string, i);
        size_t l = strlen(m->string_table[i]);
        const char *nul = s.len ? memchr(s.data, 0, s.len) : NULL;
        size_t expect = nul ? (size_t)(nul - s.data) : s.len;
        if (l != expect || memcmp(m->string_table[i], s.data, l))
            DIFF("string_table[%zu] differs", i);
    }
    if (m->n_sample_type != p->sample_types.len)
        DIFF("sample_type count differs");
    for (size_t i = 0; i < m->n_sample_type; i++) {
        pprof_value_type v = pprof_profile_sample_type(p, i);
        if (m->sample_type[i]->type != v.type || m->sample_type[i]->unit != v.unit)
            DIFF("sample_type[%zu] differs", i);
    }
    if (m->n_sample != p->samples.len)
        DIFF("sample count: %zu vs %zu", m->n_sample, p->samples.len);
    for (size_t i = 0; i < m->n_sample; i++) {
        const Perftools__Profiles__Sample *x = m->sample[i];
        pprof_sample v = pprof_profile_sample(p, i);
        if (x->n_location_id != v.n_location_id ||
            (v.n_location_id &&
             memcmp(x->location_id, v.location_id, v.n_location_id * sizeof(uint64_t))))
            DIFF("sample[%zu].location_id differs", i);
        if (x->n_value != v.n_value ||
            (v.n_value && memcmp(x->value, v.value, v.n_value * sizeof(int64_t))))
            DIFF("sample[%zu].value differs", i);
        if (x->n_label != v.n_label)
            DIFF("sample[%zu].label count differs", i);
        for (size_t j = 0; j < v.n_label; j++) {
            const Perftools__Profiles__Label *l = x->label[j];
            if (l->key != v.label[j].key || l->str != v.label[j].str || l->num != v.label[j].num ||
                l->num_unit != v.label[j].num_unit)
                DIFF("sample[%zu].label[%zu] differs", i, j);
        }
    }
    if (m->n_mapping != p->mappings.len)
        DIFF("mapping count differs");
    for (size_t i = 0; i < m->n_mapping; i++) {
        const Perftools__Profiles__Mapping *x = m->mapping[i];
        pprof_mapping v = pprof_profile_mapping(p, i);
        if (x->id != v.id || x->memory_start != v.memory_start ||
            x->memory_limit != v.memory_limit || x->file_offset != v.file_offset ||
            x->filename != v.filename || x->build_id != v.build_id ||
            (bool)x->has_functions != v.has_functions ||
            (bool)x->has_filenames != v.has_filenames ||
            (bool)x->has_line_numbers != v.has_line_numbers ||
            (bool)x->has_inline_frames != v.has_inline_frames)
            DIFF("mapping[%zu] differs", i);
    }
    if (m->n_location != p->locations.len)
        DIFF("location count differs");
    for (size_t i = 0; i < m->n_location; i++) {
        const Perftools__Profiles__Location *x = m->location[i];
        pprof_location v = pprof_profile_location(p, i);
        if (x->id != v.id || x->mapping_id != v.mapping_id || x->address != v.address ||
            (bool)x->is_folded != v.is_folded || x->n_line != v.n_line)
            DIFF("location[%zu] differs", i);
        for (size_t j = 0; j < v.n_line; j++)
            if (x->line[j]->function_id != v.line[j].function_id ||
                x->line[j]->line != v.line[j].line || x->line[j]->column != v.line[j].column)
                DIFF("location[%zu].line[%zu] differs", i, j);
    }
    if (m->n_function != p->functions.len)
        DIFF("function count differs");
    for (size_t i = 0; i < m->n_function; i++) {
        const Perftools__Profiles__Function *x = m->function[i];
        pprof_function v = pprof_profile_function(p, i);
        if (x->id != v.id || x->name != v.name || x->system_name != v.system_name ||
            x->filename != v.filename || x->start_line != v.start_line)
            DIFF("function[%zu] differs", i);
    }
    return true;
}
