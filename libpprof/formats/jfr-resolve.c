/* What the pool keys of events stand for: stack traces as builder locations (inlined frames
 * as inline lines of one location, the frame type as its mapping), methods as functions,
 * threads and classes as label values. Each is resolved once per chunk and cached by key. */
#include <stdio.h>

#include "jfr-private.h"

pprof_status
jfr__nomem(jfr_reader *r)
{
    return pprof__error(r->ps.err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
}

/* ---------------------------------------------------------------- text of values */

static bool text_of_class(jfr_reader *r, jfr_in *in, uint32_t cls, pprof__vec *out, int depth);

/* The text a field's value stands for: a string, or the string/name/description of the struct
 * (a Symbol, a Class, a FrameType) it is or refers to. Empty when null or unresolved. */
bool
jfr__text_of_field(jfr_reader *r, jfr_in *in, const jfr_field *f, pprof__vec *out, int depth)
{
    jfr_chunk *c = &r->c;
    if (f->array)
        return jfr__skip_field(&r->ps, c, in, f, depth);
    if (!f->pool)
        return text_of_class(r, in, f->cls, out, depth);
    uint64_t key = jfr__long(in);
    if (in->bad)
        return false;
    uint64_t off = jfr__pool_get(c, f->cls, key);
    if (off == UINT64_MAX)
        return true;
    jfr_in sub = jfr__in(&r->ps, c, off, r->ps.size);
    if (!text_of_class(r, &sub, f->cls, out, depth + 1)) {
        if (sub.bad) {
            in->bad = true;
            in->err_pos = sub.err_pos;
        }
        return false;
    }
    return true;
}

static bool
text_of_class(jfr_reader *r, jfr_in *in, uint32_t cls, pprof__vec *out, int depth)
{
    jfr_chunk *c = &r->c;
    if (depth > 8) {
        in->bad = true;
        in->err_pos = in->pos;
        return false;
    }
    const jfr_class *k = &PPROF__AT(c->classes, jfr_class, cls);
    if (k->prim == JFR_STRING) {
        bool is_null;
        return jfr__string(&r->ps, c, in, out, &is_null, 0);
    }
    if (k->prim != JFR_STRUCT)
        return jfr__skip_class(&r->ps, c, in, cls, depth);
    static const char *const names[] = {"string", "name", "description"};
    for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
        uint32_t i = jfr__field_index(c, cls, names[n]);
        if (i == PPROF_NONE)
            continue;
        return jfr__seek_field(&r->ps, c, in, cls, i) &&
               jfr__text_of_field(r, in, jfr__field(c, cls, i), out, depth + 1);
    }
    return true;
}

/* A field read as a 64-bit value when it is an integer, a boolean or a pool key (*got), else
 * skipped: a writer may declare fields of other types under the names read here. */
bool
jfr__scalar_or_skip(jfr_reader *r, jfr_in *in, const jfr_field *f, uint64_t *v, bool *got)
{
    jfr_prim p = PPROF__AT(r->c.classes, jfr_class, f->cls).prim;
    *got = !f->array &&
           (f->pool || (p != JFR_STRUCT && p != JFR_FLOAT && p != JFR_DOUBLE && p != JFR_STRING));
    if (*got)
        return jfr__scalar(&r->c, in, f, v);
    return jfr__skip_field(&r->ps, &r->c, in, f, 1);
}

/* ---------------------------------------------------------------- caches */

static pprof_status
cache_put(jfr_reader *r, pprof__u64map *m, uint64_t key, pprof__vec *v, size_t elem,
          const void *value)
{
    uint32_t old;
    bool added;
    void *slot = pprof__vec_push(&r->ps.a, v, elem);
    if (!slot || !pprof__u64map_put(m, &r->ps.a, key, (uint32_t)(v->len - 1), &old, &added))
        return jfr__nomem(r);
    memcpy(slot, value, elem);
    return PPROF_OK;
}

/* The field of a struct at off by name, positioned in *in; false when absent. */
static bool
field_at(jfr_reader *r, uint32_t cls, uint64_t off, const char *name, jfr_in *in,
         const jfr_field **f)
{
    uint32_t i = jfr__field_index(&r->c, cls, name);
    if (i == PPROF_NONE || off == UINT64_MAX)
        return false;
    *in = jfr__in(&r->ps, &r->c, off, r->ps.size);
    *f = jfr__field(&r->c, cls, i);
    return jfr__seek_field(&r->ps, &r->c, in, cls, i);
}

static pprof_status
bad_entry(jfr_reader *r, const jfr_in *in, const char *what)
{
    return pprof__error(r->ps.err, PPROF_E_INVALID, in->err_pos, "checkpoint.pool",
                        "malformed constant pool entry of a %s", what);
}

/* The function of a method: "java.util.HashMap.get". */
static pprof_status
method_fn(jfr_reader *r, uint32_t mcls, uint64_t key, pprof_builder_fn *out)
{
    uint32_t i = pprof__u64map_get(&r->m_method, key);
    if (i != PPROF_NONE) {
        *out = PPROF__AT(r->fns, pprof_builder_fn, i);
        return PPROF_OK;
    }
    uint64_t off = jfr__pool_get(&r->c, mcls, key);
    pprof__vec *t = &r->text, *m = &r->text2;
    t->len = m->len = 0;
    jfr_in in;
    const jfr_field *f;
    if (field_at(r, mcls, off, "type", &in, &f) && !jfr__text_of_field(r, &in, f, t, 0))
        return in.bad ? bad_entry(r, &in, "method's class") : jfr__nomem(r);
    if (field_at(r, mcls, off, "name", &in, &f) && !jfr__text_of_field(r, &in, f, m, 0))
        return in.bad ? bad_entry(r, &in, "method's name") : jfr__nomem(r);
    for (size_t k = 0; k < t->len; k++)
        if (((char *)t->data)[k] == '/')
            ((char *)t->data)[k] = '.';
    if (t->len && m->len) {
        if (!pprof__vec_grow(&r->ps.a, t, 1, t->len + m->len + 2))
            return jfr__nomem(r);
        ((char *)t->data)[t->len++] = '.';
        memcpy((char *)t->data + t->len, m->data, m->len + 1);
        t->len += m->len;
    } else if (m->len) {
        t = m;
    } else if (!t->len) {
        t = NULL;
    }
    pprof_builder_str name;
    pprof_status st;
    if ((st = pprof_builder_intern_cstr(r->b, t ? jfr__text_cstr(t) : "[unknown]", &name,
                                        r->ps.err)) ||
        (st = pprof_builder_function(r->b, name, name, (pprof_builder_str)PPROF_BUILDER_NONE, 0,
                                     out, r->ps.err)))
        return st;
    return cache_put(r, &r->m_method, key, &r->fns, sizeof(*out), out);
}

static pprof_status
frame_kind_of(jfr_reader *r, uint32_t tcls, uint64_t key, frame_kind *out)
{
    uint32_t i = pprof__u64map_get(&r->m_frame, key);
    if (i != PPROF_NONE) {
        *out = PPROF__AT(r->frames, frame_kind, i);
        return PPROF_OK;
    }
    pprof__vec *t = &r->text;
    t->len = 0;
    uint64_t off = tcls == PPROF_NONE ? UINT64_MAX : jfr__pool_get(&r->c, tcls, key);
    if (off != UINT64_MAX) {
        jfr_in in = jfr__in(&r->ps, &r->c, off, r->ps.size);
        if (!text_of_class(r, &in, tcls, t, 0))
            return in.bad ? bad_entry(r, &in, "frame type") : jfr__nomem(r);
    }
    const char *d = t->len ? jfr__text_cstr(t) : "unknown";
    char name[160];
    snprintf(name, sizeof(name), "[%s]", d);
    pprof_builder_mapping_desc md = {0};
    md.has_functions = md.has_line_numbers = true;
    md.has_inline_frames = true;
    pprof_status st = pprof_builder_intern_cstr(r->b, name, &md.filename, r->ps.err);
    if (!st)
        st = pprof_builder_mapping(r->b, &md, &out->map, r->ps.err);
    if (st)
        return st;
    out->inlined = !strcmp(d, "Inlined");
    return cache_put(r, &r->m_frame, key, &r->frames, sizeof(*out), out);
}

static pprof_status
emit_location(jfr_reader *r, pprof_builder_map map)
{
    pprof_builder_loc *loc = pprof__vec_push(&r->ps.a, &r->locs, sizeof(*loc));
    if (!loc)
        return jfr__nomem(r);
    pprof_status st =
        pprof_builder_location(r->b, map, 0, r->lines.data, r->lines.len, false, loc, r->ps.err);
    r->lines.len = 0;
    return st;
}

/* One frame of a stack trace: a line of the location being gathered, which ends at a frame
 * that is not inlined into its caller. */
static pprof_status
add_frame(jfr_reader *r, uint32_t fcls, jfr_in *in)
{
    jfr_chunk *c = &r->c;
    const jfr_class *k = &PPROF__AT(c->classes, jfr_class, fcls);
    uint64_t method = 0, line = 0, type = 0;
    uint32_t mcls = PPROF_NONE, tcls = PPROF_NONE;
    bool has_method = false;
    for (uint32_t i = 0; i < k->n_fields; i++) {
        const jfr_field *f = jfr__field(c, fcls, i);
        uint64_t v = 0;
        bool got, ok = jfr__scalar_or_skip(r, in, f, &v, &got);
        if (!ok)
            return bad_entry(r, in, "stack frame");
        if (!got)
            continue;
        if (!strcmp(f->name, "method") && f->pool) {
            method = v;
            mcls = f->cls;
            has_method = true;
        } else if (!strcmp(f->name, "lineNumber")) {
            line = v;
        } else if (!strcmp(f->name, "type") && f->pool) {
            type = v;
            tcls = f->cls;
        }
    }
    pprof_builder_line *ln = pprof__vec_push(&r->ps.a, &r->lines, sizeof(*ln));
    if (!ln)
        return jfr__nomem(r);
    memset(ln, 0, sizeof(*ln));
    pprof_status st = PPROF_OK;
    if (has_method)
        st = method_fn(r, mcls, method, &ln->function);
    else
        st = pprof_builder_function(
            r->b, (pprof_builder_str)PPROF_BUILDER_NONE, (pprof_builder_str)PPROF_BUILDER_NONE,
            (pprof_builder_str)PPROF_BUILDER_NONE, 0, &ln->function, r->ps.err);
    if (st)
        return st;
    ln = &PPROF__AT(r->lines, pprof_builder_line, r->lines.len - 1);
    int32_t l = (int32_t)line;
    ln->line = l > 0 ? l : 0;
    frame_kind fk;
    if ((st = frame_kind_of(r, tcls, type, &fk)))
        return st;
    return fk.inlined ? PPROF_OK : emit_location(r, fk.map);
}

pprof_status
jfr__stack_of(jfr_reader *r, uint32_t scls, uint64_t key, stack_info *out)
{
    uint32_t i = pprof__u64map_get(&r->m_stack, key);
    if (i != PPROF_NONE) {
        *out = PPROF__AT(r->stacks, stack_info, i);
        return PPROF_OK;
    }
    jfr_chunk *c = &r->c;
    out->first = (uint32_t)r->locs.len;
    out->n = 0;
    r->lines.len = 0;
    uint64_t off = jfr__pool_get(c, scls, key);
    bool truncated = false;
    pprof_status st;
    if (off == UINT64_MAX)
        return PPROF_E_EMPTY; /* not an error: the caller keeps the event without a stack */
    uint64_t max_depth = r->ps.o->max_stack_depth ? r->ps.o->max_stack_depth : 1u << 14;
    jfr_in in = jfr__in(&r->ps, c, off, r->ps.size);
    const jfr_class *k = &PPROF__AT(c->classes, jfr_class, scls);
    for (uint32_t fi = 0; fi < k->n_fields; fi++) {
        const jfr_field *f = jfr__field(c, scls, fi);
        if (!strcmp(f->name, "truncated")) {
            uint64_t v = 0;
            bool got;
            if (!jfr__scalar_or_skip(r, &in, f, &v, &got))
                return bad_entry(r, &in, "stack trace");
            truncated |= got && v != 0;
            continue;
        }
        if (strcmp(f->name, "frames") || !f->array ||
            PPROF__AT(c->classes, jfr_class, f->cls).prim != JFR_STRUCT) {
            if (!jfr__skip_field(&r->ps, c, &in, f, 1))
                return bad_entry(r, &in, "stack trace");
            continue;
        }
        uint32_t n = jfr__int(&in);
        if (in.bad || n > in.end - in.pos)
            return bad_entry(r, &in, "stack trace");
        for (uint32_t j = 0; j < n; j++) {
            if (j == max_depth) {
                truncated = true;
                break;
            }
            if (f->pool) {
                uint64_t fk = jfr__long(&in);
                uint64_t foff = jfr__pool_get(c, f->cls, fk);
                if (in.bad)
                    return bad_entry(r, &in, "stack trace");
                if (foff == UINT64_MAX)
                    continue;
                jfr_in sub = jfr__in(&r->ps, c, foff, r->ps.size);
                if ((st = add_frame(r, f->cls, &sub)))
                    return st;
            } else if ((st = add_frame(r, f->cls, &in))) {
                return st;
            }
        }
        break; /* the fields after the frames are of no use */
    }
    if (r->lines.len) {
        /* inlined frames with no frame they were inlined into: a location of their own */
        frame_kind fk;
        if ((st = frame_kind_of(r, PPROF_NONE, UINT64_MAX, &fk)) || (st = emit_location(r, fk.map)))
            return st;
    }
    if (truncated) {
        pprof_builder_loc *loc = pprof__vec_push(&r->ps.a, &r->locs, sizeof(*loc));
        if (!loc)
            return jfr__nomem(r);
        *loc = r->truncated;
    }
    out->n = (uint32_t)(r->locs.len - out->first);
    return cache_put(r, &r->m_stack, key, &r->stacks, sizeof(*out), out);
}

pprof_status
jfr__thread_of(jfr_reader *r, uint32_t tcls, uint64_t key, thread_info *out)
{
    uint32_t i = pprof__u64map_get(&r->m_thread, key);
    if (i != PPROF_NONE) {
        *out = PPROF__AT(r->threads, thread_info, i);
        return PPROF_OK;
    }
    memset(out, 0, sizeof(*out));
    uint64_t off = jfr__pool_get(&r->c, tcls, key);
    jfr_in in;
    const jfr_field *f;
    static const char *const names[] = {"javaName", "osName"};
    for (int n = 0; n < 2 && !out->has_name; n++) {
        r->text.len = 0;
        if (!field_at(r, tcls, off, names[n], &in, &f))
            continue;
        if (!jfr__text_of_field(r, &in, f, &r->text, 0))
            return in.bad ? bad_entry(r, &in, "thread") : jfr__nomem(r);
        if (r->text.len) {
            pprof_status st =
                pprof_builder_intern_cstr(r->b, jfr__text_cstr(&r->text), &out->name, r->ps.err);
            if (st)
                return st;
            out->has_name = true;
        }
    }
    static const char *const ids[] = {"javaThreadId", "osThreadId"};
    for (int n = 0; n < 2 && !out->id; n++) {
        uint64_t v = 0;
        if (field_at(r, tcls, off, ids[n], &in, &f) && !f->array && !jfr__scalar(&r->c, &in, f, &v))
            return bad_entry(r, &in, "thread");
        out->id = (int64_t)v;
    }
    return cache_put(r, &r->m_thread, key, &r->threads, sizeof(*out), out);
}

pprof_status
jfr__class_label(jfr_reader *r, const jfr_field *f, uint64_t key, pprof_builder_str *out, bool *has)
{
    uint32_t i = pprof__u64map_get(&r->m_class, key);
    if (i != PPROF_NONE) {
        *out = PPROF__AT(r->class_strs, pprof_builder_str, i);
        *has = out->h != 0;
        return PPROF_OK;
    }
    r->text.len = 0;
    uint64_t off = jfr__pool_get(&r->c, f->cls, key);
    if (off != UINT64_MAX) {
        jfr_in in = jfr__in(&r->ps, &r->c, off, r->ps.size);
        if (!text_of_class(r, &in, f->cls, &r->text, 0))
            return in.bad ? bad_entry(r, &in, "class") : jfr__nomem(r);
    }
    for (size_t k = 0; k < r->text.len; k++)
        if (((char *)r->text.data)[k] == '/')
            ((char *)r->text.data)[k] = '.';
    *out = (pprof_builder_str)PPROF_BUILDER_NONE;
    if (r->text.len) {
        pprof_status st = pprof_builder_intern_cstr(r->b, jfr__text_cstr(&r->text), out, r->ps.err);
        if (st)
            return st;
    }
    *has = out->h != 0;
    return cache_put(r, &r->m_class, key, &r->class_strs, sizeof(*out), out);
}

void
jfr__caches_reset(jfr_reader *r)
{
    pprof__u64map *maps[] = {&r->m_method, &r->m_thread, &r->m_frame, &r->m_stack, &r->m_class};
    for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
        pprof__u64map_free(maps[i], &r->ps.a);
        memset(maps[i], 0, sizeof(*maps[i]));
    }
    r->fns.len = r->threads.len = r->frames.len = r->stacks.len = r->class_strs.len = 0;
    r->locs.len = 0;
}

pprof_status
jfr__caches_init(jfr_reader *r)
{
    pprof__u64map *maps[] = {&r->m_method, &r->m_thread, &r->m_frame, &r->m_stack, &r->m_class};
    for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
        if (!pprof__u64map_init(maps[i], &r->ps.a, 64))
            return jfr__nomem(r);
    return PPROF_OK;
}
