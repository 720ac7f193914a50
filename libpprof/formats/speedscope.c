/* speedscope's file format out of a profile. The frame table is built once from the lines of
 * the locations that samples reach, then each sample type is one "sampled" profile whose
 * samples are the pprof samples themselves, weighted by their values: the output grows with
 * the profile's stacks, never with the counts they stand for. */
#define _GNU_SOURCE /* qsort_r */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "pprof/interchange.h"
#include "pprof/report.h"
#include "validate-private.h"

typedef struct frame_key {
    uint64_t fi;  /* function index */
    int64_t line; /* the line of call, or the function's start line */
    uint32_t li;  /* the line entry (index into p->lines) */
    uint32_t pad;
} frame_key;

typedef struct sctx {
    const pprof_profile *p;
    const pprof_speedscope_options *o;
    uint32_t *idx;      /* one sample's location indices, leaf first */
    uint8_t *used;      /* per location: reached by a sample */
    uint32_t *frame_of; /* per line entry, then per location without lines: its frame */
    frame_key *keys;
    size_t n_keys, n_frames;
} sctx;

static pprof_string
str_at(const pprof_profile *p, int64_t i)
{
    pprof_string s = {"", 0};
    if (!pprof_profile_string(p, i, &s))
        s = (pprof_string){"", 0};
    return s;
}

static int
key_cmp(const void *x, const void *y)
{
    const frame_key *a = x, *b = y;
    if (a->fi != b->fi)
        return a->fi < b->fi ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    return a->li < b->li ? -1 : a->li > b->li;
}

static const pprof_function *
function_of(const pprof_profile *p, uint64_t fi)
{
    return &PPROF__AT(p->functions, pprof_function, fi);
}

/* Marks the locations samples reach; idx is sized for the deepest stack. */
static pprof_status
mark_used(sctx *s, pprof_error *err)
{
    const pprof_profile *p = s->p;
    for (size_t i = 0; i < p->samples.len; i++) {
        const pprof__sample *sm = &PPROF__AT(p->samples, pprof__sample, i);
        pprof_status st = pprof__sample_locs(p, i, s->idx, err);
        if (st)
            return st;
        for (uint32_t j = 0; j < sm->n_loc; j++)
            s->used[s->idx[j]] = 1;
    }
    return PPROF_OK;
}

/* Frames: one per distinct (function, line) among the used lines, sorted, then one per used
 * location without lines, in location order. */
static pprof_status
build_frames(sctx *s, pprof_error *err)
{
    const pprof_profile *p = s->p;
    const pprof_allocator *a = &s->o->allocator;
    size_t n_lines = p->lines.len, n_locs = p->locations.len;
    s->keys = pprof__malloc(a, (n_lines ? n_lines : 1) * sizeof(frame_key));
    s->frame_of = pprof__malloc(a, (n_lines + n_locs + 1) * sizeof(uint32_t));
    if (!s->keys || !s->frame_of)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    for (size_t l = 0; l < n_locs; l++) {
        const pprof__location *loc = &PPROF__AT(p->locations, pprof__location, l);
        for (uint32_t k = 0; s->used[l] && k < loc->n_line; k++) {
            const pprof_line *ln = &PPROF__AT(p->lines, pprof_line, loc->line_off + k);
            size_t fi = SIZE_MAX;
            /* validation guarantees the function exists; a line without one is a frame of
             * its own (fi past every function) */
            if (!ln->function_id || !pprof_profile_find_function(p, ln->function_id, &fi))
                fi = p->functions.len + loc->line_off + k;
            int64_t line = ln->line;
            if (!s->o->lines)
                line = fi < p->functions.len ? function_of(p, fi)->start_line : 0;
            s->keys[s->n_keys++] = (frame_key){fi, line, loc->line_off + k, 0};
        }
    }
    if (s->n_keys)
        qsort(s->keys, s->n_keys, sizeof(frame_key), key_cmp);
    /* keys that differ only in li share a frame; keys[f] keeps the first of each frame */
    size_t nf = 0;
    for (size_t i = 0; i < s->n_keys; i++) {
        if (nf == 0 || s->keys[nf - 1].fi != s->keys[i].fi ||
            s->keys[nf - 1].line != s->keys[i].line)
            s->keys[nf++] = s->keys[i];
        s->frame_of[s->keys[i].li] = (uint32_t)(nf - 1);
    }
    s->n_keys = nf;
    s->n_frames = nf;
    for (size_t l = 0; l < n_locs; l++) {
        const pprof__location *loc = &PPROF__AT(p->locations, pprof__location, l);
        if (s->used[l] && !loc->n_line)
            s->frame_of[n_lines + l] = (uint32_t)s->n_frames++;
    }
    return PPROF_OK;
}

static pprof_status
put_kv_str(pprof_buffer *b, const char *key, pprof_string v)
{
    pprof_status st = pprof__buffer_printf(b, ",\"%s\":", key);
    return st ? st : pprof__json_string_html(b, v.data, v.len);
}

/* A location without lines: its address and the file of its mapping. */
static pprof_status
put_location_frame(const sctx *s, const pprof__location *loc, pprof_buffer *b)
{
    const pprof_profile *p = s->p;
    size_t mi;
    pprof_string file = {"", 0};
    if (loc->mapping_id && pprof_profile_find_mapping(p, loc->mapping_id, &mi))
        file = str_at(p, PPROF__AT(p->mappings, pprof_mapping, mi).filename);
    pprof_status st = pprof__buffer_printf(b, "{\"name\":\"0x%" PRIx64 "\"", loc->address);
    if (!st && file.len)
        st = put_kv_str(b, "file", file);
    return st ? st : pprof__buffer_append(b, "}", 1);
}

static pprof_status
put_frames(const sctx *s, pprof_buffer *b)
{
    const pprof_profile *p = s->p;
    pprof_status st = pprof__buffer_append(b, "\"shared\":{\"frames\":[", 20);
    for (size_t f = 0; f < s->n_keys && !st; f++) {
        const frame_key *k = &s->keys[f];
        pprof_string name = {"", 0}, file = {"", 0};
        if (k->fi < p->functions.len) {
            const pprof_function *fn = function_of(p, k->fi);
            name = str_at(p, fn->name);
            if (!name.len)
                name = str_at(p, fn->system_name);
            file = str_at(p, fn->filename);
        }
        if (!name.len)
            name = (pprof_string){"<unknown>", 9};
        st = pprof__buffer_append(b, f ? ",{\"name\":" : "{\"name\":", f ? 9 : 8);
        if (!st)
            st = pprof__json_string_html(b, name.data, name.len);
        if (!st && file.len)
            st = put_kv_str(b, "file", file);
        if (!st && k->line > 0)
            st = pprof__buffer_printf(b, ",\"line\":%" PRId64, k->line);
        if (!st)
            st = pprof__buffer_append(b, "}", 1);
    }
    size_t n_lines = p->lines.len;
    for (size_t l = 0; l < p->locations.len && !st; l++) {
        const pprof__location *loc = &PPROF__AT(p->locations, pprof__location, l);
        if (!s->used[l] || loc->n_line)
            continue;
        if (s->frame_of[n_lines + l])
            st = pprof__buffer_append(b, ",", 1);
        if (!st)
            st = put_location_frame(s, loc, b);
    }
    return st ? st : pprof__buffer_append(b, "]}", 2);
}

static const char *
speedscope_unit(pprof_string u)
{
    static const char *const known[] = {"nanoseconds", "microseconds", "milliseconds", "seconds",
                                        "bytes"};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (u.len == strlen(known[i]) && !memcmp(u.data, known[i], u.len))
            return known[i];
    return "none";
}

/* Decimal digits of v at the end of the buffer (numbers are most of the output). */
static pprof_status
put_u32(pprof_buffer *b, uint32_t v, char sep)
{
    char tmp[12];
    size_t n = sizeof(tmp);
    do {
        tmp[--n] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (sep)
        tmp[--n] = sep;
    return pprof__buffer_append(b, tmp + n, sizeof(tmp) - n);
}

/* One "sampled" profile: the stacks of the samples with a non-zero value of type t. */
static pprof_status
put_profile(sctx *s, size_t t, pprof_buffer *b, pprof_buffer *weights, pprof_error *err)
{
    const pprof_profile *p = s->p;
    pprof_value_type vt = pprof_profile_sample_type(p, t);
    pprof_string type = str_at(p, vt.type), unit = str_at(p, vt.unit);
    char name[256];
    snprintf(name, sizeof(name), "%.*s/%.*s", (int)(type.len > 120 ? 120 : type.len), type.data,
             (int)(unit.len > 120 ? 120 : unit.len), unit.data);
    static const char head[] = ",{\"type\":\"sampled\",\"name\":";
    pprof_status st = pprof__buffer_append(b, head + !t, sizeof(head) - 1 - !t);
    if (!st)
        st = pprof__json_string_html(b, name, strlen(name));
    if (!st)
        st = pprof__buffer_printf(b, ",\"unit\":\"%s\",\"startValue\":0,\"samples\":[",
                                  speedscope_unit(unit));
    weights->len = 0;
    int64_t total = 0;
    bool first = true;
    size_t n_lines = p->lines.len;
    for (size_t i = 0; i < p->samples.len && !st; i++) {
        const pprof__sample *sm = &PPROF__AT(p->samples, pprof__sample, i);
        int64_t v = t < sm->n_val ? PPROF__AT(p->values, int64_t, sm->val_off + t) : 0;
        if (!v)
            continue;
        if (v < 0) {
            char path[128];
            pprof__path(path, "sample[%zu].value[%zu]", i, t);
            return pprof__error(err, PPROF_E_INVALID, PPROF_NO_OFFSET, path,
                                "negative value %" PRId64 " (speedscope weights are amounts)", v);
        }
        if (__builtin_add_overflow(total, v, &total))
            return pprof__error(err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, "sample",
                                "the values of %s sum to more than int64 holds", name);
        if ((st = pprof__sample_locs(p, i, s->idx, err)))
            return st;
        st = pprof__buffer_append(b, first ? "[" : ",[", first ? 1 : 2);
        first = false;
        char sep = 0;
        for (uint32_t j = sm->n_loc; j-- > 0 && !st;) {
            const pprof__location *l = &PPROF__AT(p->locations, pprof__location, s->idx[j]);
            if (!l->n_line) {
                st = put_u32(b, s->frame_of[n_lines + s->idx[j]], sep);
                sep = ',';
            }
            for (uint32_t k = l->n_line; k-- > 0 && !st; sep = ',')
                st = put_u32(b, s->frame_of[l->line_off + k], sep);
        }
        if (!st)
            st = pprof__buffer_append(b, "]", 1);
        if (!st)
            st = pprof__buffer_printf(weights, weights->len ? ",%" PRId64 : "%" PRId64, v);
    }
    if (!st)
        st = pprof__buffer_printf(b, "],\"endValue\":%" PRId64 ",\"weights\":[", total);
    if (!st)
        st = pprof__buffer_append(b, weights->data, weights->len);
    if (!st)
        st = pprof__buffer_append(b, "]}", 2);
    if (st == PPROF_E_NOMEM)
        pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory");
    return st;
}

static pprof_status
put_file(sctx *s, pprof_buffer *out, pprof_error *err)
{
    const pprof_profile *p = s->p;
    size_t active = 0;
    pprof_status st = pprof_sample_type_find(p, NULL, &active, err);
    if (st)
        return st;
    const char *name = s->o->name ? s->o->name : "profile";
    st = pprof__buffer_printf(out,
                              "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
                              "\"exporter\":\"libpprof %s\",\"name\":",
                              pprof_version_string());
    if (!st)
        st = pprof__json_string_html(out, name, strlen(name));
    if (!st)
        st = pprof__buffer_printf(out, ",\"activeProfileIndex\":%zu,", active);
    if (!st)
        st = put_frames(s, out);
    if (!st)
        st = pprof__buffer_append(out, ",\"profiles\":[", 13);
    if (st)
        return pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory");
    pprof_buffer weights = {0};
    for (size_t t = 0; t < p->sample_types.len && !st; t++)
        st = put_profile(s, t, out, &weights, err);
    pprof_buffer_free(&weights);
    if (!st && (st = pprof__buffer_append(out, "]}\n", 3)))
        pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory");
    return st;
}

pprof_status
pprof_speedscope_write_memory(const pprof_profile *p, const pprof_speedscope_options *opts,
                              pprof_buffer *out, pprof_error *err)
{
    pprof_speedscope_options o = PPROF_SPEEDSCOPE_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    if (!p || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no profile or no output");
    /* the one validity decision (validate.c) before anything is computed */
    pprof_status st = pprof__validate(p, NULL, err);
    if (st)
        return st;
    if (p->lines.len >= UINT32_MAX / 2 || p->locations.len >= UINT32_MAX / 2)
        return pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                            "too many lines or locations for speedscope's frame table");
    size_t max_depth = 0;
    for (size_t i = 0; i < p->samples.len; i++) {
        uint32_t d = PPROF__AT(p->samples, pprof__sample, i).n_loc;
        max_depth = d > max_depth ? d : max_depth;
    }
    sctx s = {p, &o, NULL, NULL, NULL, NULL, 0, 0};
    s.idx = pprof__malloc(&o.allocator, (max_depth + 1) * sizeof(uint32_t));
    s.used = pprof__malloc(&o.allocator, p->locations.len + 1);
    if (!s.idx || !s.used) {
        st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    } else {
        memset(s.used, 0, p->locations.len + 1);
        st = mark_used(&s, err);
    }
    if (!st)
        st = build_frames(&s, err);
    size_t before = out->len;
    if (!st && (st = put_file(&s, out, err)))
        out->len = before;
    pprof__free(&o.allocator, s.idx);
    pprof__free(&o.allocator, s.used);
    pprof__free(&o.allocator, s.frame_of);
    pprof__free(&o.allocator, s.keys);
    return st;
}

pprof_status
pprof_speedscope_write_file(const pprof_profile *p, const pprof_speedscope_options *opts,
                            const pprof_write_options *wopts, const char *path, pprof_error *err)
{
    if (!path)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no path");
    pprof_buffer b = {0};
    pprof_status st = pprof_speedscope_write_memory(p, opts, &b, err);
    return pprof__buffer_write_file(path, wopts, st, &b, err);
}

pprof_status
pprof_speedscope_write_stream(const pprof_profile *p, const pprof_speedscope_options *opts,
                              FILE *stream, pprof_error *err)
{
    if (!stream)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no stream");
    pprof_buffer b = {0};
    pprof_status st = pprof_speedscope_write_memory(p, opts, &b, err);
    return pprof__buffer_write_stream(stream, st, &b, err);
}

/* ---- deprecated name, kept for one release (interchange.h) */

pprof_status
pprof_speedscope_write(const pprof_profile *p, const pprof_speedscope_options *opts,
                       pprof_buffer *out, pprof_error *err)
{
    return pprof_speedscope_write_memory(p, opts, out, err);
}

void
pprof_speedscope_options_init(pprof_speedscope_options *opts)
{
    if (!opts)
        return;
    const pprof_speedscope_options def = PPROF_SPEEDSCOPE_OPTIONS_INIT;
    *opts = def;
}
