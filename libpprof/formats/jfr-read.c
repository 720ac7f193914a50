/* JFR events into a pprof profile (docs/jfr.md): which events become which sample types, the
 * frames of their stack traces, their thread labels. Each chunk has its own metadata and pools,
 * so the caches of resolved stacks, methods and threads live for one chunk; the builder's
 * handles they hold live for the whole recording. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "jfr-private.h"
#include "pprof/formats.h"
#include "profile-private.h"

enum {
    K_NONE,
    K_CPU,
    K_NATIVE,
    K_ALLOC,
    K_TLAB_IN,
    K_TLAB_OUT,
    K_MONITOR,
    K_PARK,
    K_SETTING,
    K_COUNT
};
#define BIT(k) (1u << (k))
#define ALLOC_KINDS (BIT(K_ALLOC) | BIT(K_TLAB_IN) | BIT(K_TLAB_OUT))
#define LOCK_KINDS (BIT(K_MONITOR) | BIT(K_PARK))
#define SAMPLE_KINDS (BIT(K_CPU) | BIT(K_NATIVE) | ALLOC_KINDS | LOCK_KINDS)

static const char *const kind_name[K_COUNT] = {
    NULL,
    "jdk.ExecutionSample",
    "jdk.NativeMethodSample",
    "jdk.ObjectAllocationSample",
    "jdk.ObjectAllocationInNewTLAB",
    "jdk.ObjectAllocationOutsideTLAB",
    "jdk.JavaMonitorEnter",
    "jdk.ThreadPark",
    "jdk.ActiveSetting",
};

/* Groups of sample types, in the profile's order. */
enum { G_CPU, G_NATIVE, G_ALLOC, G_LOCK, G_COUNT };
static const pprof_builder_value_type group_types[G_COUNT][2] = {
    {{"samples", "count"}, {"cpu", "nanoseconds"}},
    {{"native", "count"}, {NULL, NULL}},
    {{"alloc_objects", "count"}, {"alloc_space", "bytes"}},
    {{"contentions", "count"}, {"delay", "nanoseconds"}},
};

static int
group_of(int kind)
{
    return kind == K_CPU               ? G_CPU
           : kind == K_NATIVE          ? G_NATIVE
           : (BIT(kind) & ALLOC_KINDS) ? G_ALLOC
           : (BIT(kind) & LOCK_KINDS)  ? G_LOCK
                                       : -1;
}

/* What an event's field is to us. */
enum {
    R_NONE,
    R_START,
    R_DURATION,
    R_SAMPLED_THREAD,
    R_THREAD,
    R_STACK,
    R_CLASS,
    R_WEIGHT,
    R_ALLOC_SIZE,
    R_TLAB_SIZE,
    R_ID,
    R_NAME,
    R_VALUE,
    R_COUNT
};
static const char *const role_field[R_COUNT] = {
    NULL,         "startTime", "duration", "sampledThread",  "eventThread",
    "stackTrace", NULL,        "weight",   "allocationSize", "tlabSize",
    "id",         "name",      "value",
};

typedef struct thread_info {
    pprof_builder_str name;
    int64_t id;
    bool has_name;
} thread_info;

typedef struct frame_kind {
    pprof_builder_map map;
    bool inlined;
} frame_kind;

typedef struct stack_info {
    uint32_t first, n;
} stack_info;

typedef struct jfr_reader {
    jfr_parser ps;
    pprof_jfr_stats *st;
    pprof_builder *b;
    unsigned use; /* kinds turned into samples */
    int slot[G_COUNT];
    size_t n_values;
    int64_t values[8];
    int64_t period_ns; /* of jdk.ExecutionSample in the current chunk */
    int64_t profile_period;
    bool have_period;
    int64_t time_start, time_end;
    bool have_time;
    jfr_chunk c;
    uint8_t *kinds; /* per class of the chunk */
    uint8_t *roles; /* per field of the chunk */
    /* per-chunk caches: pool key -> index into the vectors beside them */
    pprof__u64map m_method, m_thread, m_frame, m_stack, m_class;
    pprof__vec fns, threads, frames, stacks, class_strs, locs, lines, text, text2;
    pprof_builder_str k_thread, k_thread_id, k_class, k_ts, u_ns;
    pprof_builder_loc truncated;
} jfr_reader;

static pprof_status
nomem(jfr_reader *r)
{
    return pprof__error(r->ps.err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
}

static int64_t
ticks_to_ns(const jfr_chunk *c, int64_t ticks)
{
    __extension__ typedef __int128 wide;
    wide v = (wide)ticks * 1000000000 / c->ticks_per_second;
    return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

/* ---------------------------------------------------------------- text of values */

static bool text_of_class(jfr_reader *r, jfr_in *in, uint32_t cls, pprof__vec *out, int depth);

/* The text a field's value stands for: a string, or the string/name/description of the struct
 * (a Symbol, a Class, a FrameType) it is or refers to. Empty when null or unresolved. */
static bool
text_of_field(jfr_reader *r, jfr_in *in, const jfr_field *f, pprof__vec *out, int depth)
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
               text_of_field(r, in, jfr__field(c, cls, i), out, depth + 1);
    }
    return true;
}

static const char *
text_cstr(pprof__vec *v)
{
    return v->len ? (const char *)v->data : "";
}

/* A field read as a 64-bit value when it is an integer, a boolean or a pool key (*got), else
 * skipped: a writer may declare fields of other types under the names read here. */
static bool
scalar_or_skip(jfr_reader *r, jfr_in *in, const jfr_field *f, uint64_t *v, bool *got)
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
        return nomem(r);
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
    if (field_at(r, mcls, off, "type", &in, &f) && !text_of_field(r, &in, f, t, 0))
        return in.bad ? bad_entry(r, &in, "method's class") : nomem(r);
    if (field_at(r, mcls, off, "name", &in, &f) && !text_of_field(r, &in, f, m, 0))
        return in.bad ? bad_entry(r, &in, "method's name") : nomem(r);
    for (size_t k = 0; k < t->len; k++)
        if (((char *)t->data)[k] == '/')
            ((char *)t->data)[k] = '.';
    if (t->len && m->len) {
        if (!pprof__vec_grow(&r->ps.a, t, 1, t->len + m->len + 2))
            return nomem(r);
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
    if ((st = pprof_builder_intern_cstr(r->b, t ? text_cstr(t) : "[unknown]", &name, r->ps.err)) ||
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
            return in.bad ? bad_entry(r, &in, "frame type") : nomem(r);
    }
    const char *d = t->len ? text_cstr(t) : "unknown";
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
        return nomem(r);
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
        bool got, ok = scalar_or_skip(r, in, f, &v, &got);
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
        return nomem(r);
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

static pprof_status
stack_of(jfr_reader *r, uint32_t scls, uint64_t key, stack_info *out)
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
            if (!scalar_or_skip(r, &in, f, &v, &got))
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
            return nomem(r);
        *loc = r->truncated;
    }
    out->n = (uint32_t)(r->locs.len - out->first);
    return cache_put(r, &r->m_stack, key, &r->stacks, sizeof(*out), out);
}

static pprof_status
thread_of(jfr_reader *r, uint32_t tcls, uint64_t key, thread_info *out)
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
        if (!text_of_field(r, &in, f, &r->text, 0))
            return in.bad ? bad_entry(r, &in, "thread") : nomem(r);
        if (r->text.len) {
            pprof_status st =
                pprof_builder_intern_cstr(r->b, text_cstr(&r->text), &out->name, r->ps.err);
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

static pprof_status
class_label(jfr_reader *r, const jfr_field *f, uint64_t key, pprof_builder_str *out, bool *has)
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
            return in.bad ? bad_entry(r, &in, "class") : nomem(r);
    }
    for (size_t k = 0; k < r->text.len; k++)
        if (((char *)r->text.data)[k] == '/')
            ((char *)r->text.data)[k] = '.';
    *out = (pprof_builder_str)PPROF_BUILDER_NONE;
    if (r->text.len) {
        pprof_status st = pprof_builder_intern_cstr(r->b, text_cstr(&r->text), out, r->ps.err);
        if (st)
            return st;
    }
    *has = out->h != 0;
    return cache_put(r, &r->m_class, key, &r->class_strs, sizeof(*out), out);
}

/* ---------------------------------------------------------------- events */

static void
caches_reset(jfr_reader *r)
{
    pprof__u64map *maps[] = {&r->m_method, &r->m_thread, &r->m_frame, &r->m_stack, &r->m_class};
    for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
        pprof__u64map_free(maps[i], &r->ps.a);
        memset(maps[i], 0, sizeof(*maps[i]));
    }
    r->fns.len = r->threads.len = r->frames.len = r->stacks.len = r->class_strs.len = 0;
    r->locs.len = 0;
}

static pprof_status
caches_init(jfr_reader *r)
{
    pprof__u64map *maps[] = {&r->m_method, &r->m_thread, &r->m_frame, &r->m_stack, &r->m_class};
    for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
        if (!pprof__u64map_init(maps[i], &r->ps.a, 64))
            return nomem(r);
    return PPROF_OK;
}

/* Kinds of the chunk's classes and roles of their fields. */
static pprof_status
classify(jfr_reader *r)
{
    jfr_chunk *c = &r->c;
    pprof__free(&r->ps.a, r->kinds);
    pprof__free(&r->ps.a, r->roles);
    r->kinds = pprof__malloc(&r->ps.a, c->classes.len + 1);
    r->roles = pprof__malloc(&r->ps.a, c->fields.len + 1);
    if (!r->kinds || !r->roles)
        return nomem(r);
    memset(r->roles, 0, c->fields.len + 1);
    for (size_t i = 0; i < c->classes.len; i++) {
        const jfr_class *k = &PPROF__AT(c->classes, jfr_class, i);
        r->kinds[i] = K_NONE;
        for (int kind = 1; kind < K_COUNT; kind++)
            if (!strcmp(k->name, kind_name[kind]))
                r->kinds[i] = (uint8_t)kind;
        if (r->kinds[i] == K_NONE)
            continue;
        for (uint32_t j = 0; j < k->n_fields; j++) {
            const jfr_field *f = jfr__field(c, (uint32_t)i, j);
            uint8_t role = R_NONE;
            for (int q = 1; q < R_COUNT; q++)
                if (role_field[q] && !strcmp(f->name, role_field[q]))
                    role = (uint8_t)q;
            if ((!strcmp(f->name, "objectClass") || !strcmp(f->name, "monitorClass") ||
                 !strcmp(f->name, "parkedClass")) &&
                f->pool)
                role = R_CLASS;
            if (f->array)
                role = R_NONE;
            r->roles[k->first_field + j] = role;
        }
    }
    return PPROF_OK;
}

/* A duration as the JDK's settings write it: "10 ms", "20ms", "1 s"; false otherwise. */
static bool
parse_period(const char *s, int64_t *ns)
{
    char *e;
    errno = 0;
    double v = strtod(s, &e);
    if (e == s || errno || v < 0)
        return false;
    while (*e == ' ')
        e++;
    double mul = !*e || !strcmp(e, "ns") ? 1
                 : !strcmp(e, "us")      ? 1e3
                 : !strcmp(e, "ms")      ? 1e6
                 : !strcmp(e, "s")       ? 1e9
                 : !strcmp(e, "m")       ? 60e9
                 : !strcmp(e, "h")       ? 3600e9
                                         : -1;
    if (mul < 0 || v * mul > 1e18)
        return false;
    *ns = (int64_t)(v * mul);
    return *ns > 0;
}

/* The sampling period jdk.ActiveSetting gives jdk.ExecutionSample in this chunk. */
static pprof_status
settings(jfr_reader *r)
{
    jfr_chunk *c = &r->c;
    uint32_t cpu = jfr__class_by_name(c, kind_name[K_CPU]);
    if (cpu == PPROF_NONE)
        return PPROF_OK;
    uint64_t cpu_id = PPROF__AT(c->classes, jfr_class, cpu).id;
    uint64_t pos = c->start + JFR_HEADER_SIZE, size, type, body;
    bool more;
    pprof_status st;
    while (!(st = jfr__next_event(&r->ps, c, &pos, &size, &type, &body, &more)) && more) {
        uint64_t at = pos;
        pos += size;
        uint32_t cls = type > 1 ? jfr__class_by_id(c, type) : PPROF_NONE;
        if (cls == PPROF_NONE || r->kinds[cls] != K_SETTING)
            continue;
        const jfr_class *k = &PPROF__AT(c->classes, jfr_class, cls);
        jfr_in in = jfr__in(&r->ps, c, body, pos);
        uint64_t id = UINT64_MAX;
        r->text.len = r->text2.len = 0;
        for (uint32_t i = 0; i < k->n_fields; i++) {
            const jfr_field *f = jfr__field(c, cls, i);
            uint8_t role = r->roles[k->first_field + i];
            bool ok = role == R_ID      ? jfr__scalar(c, &in, f, &id)
                      : role == R_NAME  ? text_of_field(r, &in, f, &r->text, 0)
                      : role == R_VALUE ? text_of_field(r, &in, f, &r->text2, 0)
                                        : jfr__skip_field(&r->ps, c, &in, f, 1);
            if (!ok)
                return in.bad ? pprof__error(r->ps.err, PPROF_E_INVALID, in.err_pos,
                                             "jdk.ActiveSetting", "malformed event at %llu",
                                             (unsigned long long)at)
                              : nomem(r);
        }
        int64_t ns;
        if (id == cpu_id &&
            (!strcmp(text_cstr(&r->text), "period") || !strcmp(text_cstr(&r->text), "interval")) &&
            parse_period(text_cstr(&r->text2), &ns))
            r->period_ns = ns;
    }
    return st;
}

static pprof_status
one_event(jfr_reader *r, uint32_t cls, int kind, uint64_t at, uint64_t body, uint64_t end)
{
    jfr_chunk *c = &r->c;
    const jfr_class *k = &PPROF__AT(c->classes, jfr_class, cls);
    jfr_in in = jfr__in(&r->ps, c, body, end);
    uint64_t v[R_COUNT] = {0};
    bool has[R_COUNT] = {0};
    const jfr_field *fld[R_COUNT] = {0};
    for (uint32_t i = 0; i < k->n_fields; i++) {
        const jfr_field *f = jfr__field(c, cls, i);
        uint8_t role = r->roles[k->first_field + i];
        bool ok;
        if (role && role != R_NAME && role != R_VALUE) {
            bool got;
            ok = scalar_or_skip(r, &in, f, &v[role], &got);
            has[role] = ok && got;
            fld[role] = f;
        } else {
            ok = jfr__skip_field(&r->ps, c, &in, f, 1);
        }
        if (!ok)
            return pprof__error(r->ps.err, PPROF_E_INVALID, in.bad ? in.err_pos : at,
                                kind_name[kind],
                                "malformed %s event at %llu (or one running "
                                "past its size)",
                                kind_name[kind], (unsigned long long)at);
    }
    /* An event with no stack trace (a compiler thread's allocation) or one in no pool still
     * counts, with an empty stack: the totals stay those of the recording. */
    stack_info si = {0, 0};
    pprof_status st = PPROF_E_EMPTY;
    if (has[R_STACK] && fld[R_STACK]->pool)
        st = stack_of(r, fld[R_STACK]->cls, v[R_STACK], &si);
    if (st == PPROF_E_EMPTY) {
        si.n = 0;
        if (r->st)
            r->st->events_no_stack++;
    } else if (st) {
        return st;
    }
    pprof_builder_label labels[4];
    size_t nl = 0;
    int tr = has[R_SAMPLED_THREAD] ? R_SAMPLED_THREAD : R_THREAD;
    if (has[tr] && fld[tr]->pool) {
        thread_info ti;
        if ((st = thread_of(r, fld[tr]->cls, v[tr], &ti)))
            return st;
        if (ti.has_name)
            labels[nl++] = (pprof_builder_label){r->k_thread, ti.name, 0, PPROF_BUILDER_NONE};
        if (ti.has_name || ti.id)
            labels[nl++] = (pprof_builder_label){r->k_thread_id, PPROF_BUILDER_NONE, ti.id,
                                                 PPROF_BUILDER_NONE};
    }
    bool has_class = false;
    pprof_builder_str cs;
    if (has[R_CLASS] && (st = class_label(r, fld[R_CLASS], v[R_CLASS], &cs, &has_class)))
        return st;
    if (has_class)
        labels[nl++] = (pprof_builder_label){r->k_class, cs, 0, PPROF_BUILDER_NONE};
    if (r->ps.o->timestamps) {
        int64_t t =
            c->start_nanos + ticks_to_ns(c, (int64_t)(v[R_START] - (uint64_t)c->start_ticks));
        labels[nl++] = (pprof_builder_label){r->k_ts, PPROF_BUILDER_NONE, t, r->u_ns};
    }
    memset(r->values, 0, sizeof(r->values));
    int slot = r->slot[group_of(kind)];
    r->values[slot] = 1;
    switch (kind) {
    case K_CPU: r->values[slot + 1] = r->period_ns; break;
    case K_ALLOC: r->values[slot + 1] = (int64_t)v[R_WEIGHT]; break;
    case K_TLAB_IN:
        r->values[slot + 1] = (int64_t)(v[R_TLAB_SIZE] ? v[R_TLAB_SIZE] : v[R_ALLOC_SIZE]);
        break;
    case K_TLAB_OUT: r->values[slot + 1] = (int64_t)v[R_ALLOC_SIZE]; break;
    case K_MONITOR:
    case K_PARK: r->values[slot + 1] = ticks_to_ns(c, (int64_t)v[R_DURATION]); break;
    }
    if ((st = pprof_builder_add_sample(r->b, r->values, r->n_values,
                                       si.n ? (const pprof_builder_loc *)r->locs.data + si.first
                                            : NULL,
                                       si.n, labels, nl, r->ps.err)))
        return st;
    if (r->st)
        r->st->events_kept++;
    return PPROF_OK;
}

static pprof_status
make_builder(jfr_reader *r)
{
    pprof_builder_value_type types[8];
    size_t n = 0;
    for (int g = 0; g < G_COUNT; g++) {
        r->slot[g] = -1;
        bool in = false;
        for (int k = 1; k < K_COUNT; k++)
            if ((r->use & BIT(k)) && group_of(k) == g)
                in = true;
        if (!in && !(g == G_CPU && !r->use))
            continue;
        r->slot[g] = (int)n;
        for (int j = 0; j < 2 && group_types[g][j].type; j++)
            types[n++] = group_types[g][j];
    }
    r->n_values = n;
    pprof_builder_options bo = PPROF_BUILDER_OPTIONS_INIT;
    bo.sample_types = types;
    bo.n_sample_types = n;
    bo.allocator = r->ps.a;
    bo.max_samples = UINT64_C(1) << 26;
    bo.max_open_depth = UINT64_C(1) << 16;
    if (r->slot[G_CPU] >= 0 && r->use) {
        bo.period_type = (pprof_builder_value_type){"cpu", "nanoseconds"};
        bo.period = r->profile_period;
    }
    pprof_status st = pprof_builder_new(&bo, &r->b, r->ps.err);
    if (st)
        return st;
    pprof_builder_str fn_name;
    pprof_builder_fn fn;
    pprof_builder_line line = {PPROF_BUILDER_NONE, 0, 0};
    if ((st = pprof_builder_intern_cstr(r->b, "thread", &r->k_thread, r->ps.err)) ||
        (st = pprof_builder_intern_cstr(r->b, "thread_id", &r->k_thread_id, r->ps.err)) ||
        (st = pprof_builder_intern_cstr(r->b, "class", &r->k_class, r->ps.err)) ||
        (st = pprof_builder_intern_cstr(r->b, "timestamp_unix_nano", &r->k_ts, r->ps.err)) ||
        (st = pprof_builder_intern_cstr(r->b, "nanoseconds", &r->u_ns, r->ps.err)) ||
        (st = pprof_builder_intern_cstr(r->b, "truncated", &fn_name, r->ps.err)) ||
        (st = pprof_builder_function(r->b, fn_name, fn_name, (pprof_builder_str)PPROF_BUILDER_NONE,
                                     0, &fn, r->ps.err)))
        return st;
    line.function = fn;
    return pprof_builder_location(r->b, (pprof_builder_map)PPROF_BUILDER_NONE, 0, &line, 1, false,
                                  &r->truncated, r->ps.err);
}

static pprof_status
chunk_events(jfr_reader *r)
{
    jfr_chunk *c = &r->c;
    uint64_t pos = c->start + JFR_HEADER_SIZE, size, type, body;
    bool more;
    pprof_status st;
    while (!(st = jfr__next_event(&r->ps, c, &pos, &size, &type, &body, &more)) && more) {
        uint64_t at = pos;
        pos += size;
        uint32_t cls = type > 1 ? jfr__class_by_id(c, type) : PPROF_NONE;
        if (cls == PPROF_NONE || !(r->use & BIT(r->kinds[cls])))
            continue;
        if ((st = one_event(r, cls, r->kinds[cls], at, body, pos)))
            return st;
    }
    return st;
}

/* Which kinds the recording holds: every chunk's metadata and event types, pools unread. */
static pprof_status
survey(jfr_reader *r, unsigned *present)
{
    *present = 0;
    for (uint64_t off = 0; off < r->ps.size;) {
        jfr_chunk *c = &r->c;
        pprof_status st = jfr__chunk_header(&r->ps, off, c);
        uint64_t events = 0;
        if (!st)
            st = jfr__chunk_load(&r->ps, c, &events, false);
        if (!st && c->classes.len)
            st = classify(r);
        uint64_t pos = c->start + JFR_HEADER_SIZE, size, type, body;
        bool more;
        while (!st && !(st = jfr__next_event(&r->ps, c, &pos, &size, &type, &body, &more)) &&
               more) {
            pos += size;
            uint32_t cls = type > 1 ? jfr__class_by_id(c, type) : PPROF_NONE;
            if (cls != PPROF_NONE)
                *present |= BIT(r->kinds[cls]);
        }
        if (!st && r->st) {
            r->st->chunks++;
            r->st->events += events;
            r->st->version_major = c->major;
            r->st->version_minor = c->minor;
            r->st->truncated |= c->cut;
        }
        off = c->end;
        jfr__chunk_free(&r->ps, c);
        if (st)
            return st;
    }
    return PPROF_OK;
}

static pprof_status
wanted_kinds(const char *event, unsigned *wanted, pprof_error *err)
{
    static const struct {
        const char *name;
        unsigned kinds;
    } t[] = {{"cpu", BIT(K_CPU)},
             {"native", BIT(K_NATIVE)},
             {"alloc", ALLOC_KINDS},
             {"lock", LOCK_KINDS}};
    if (!event) {
        *wanted = SAMPLE_KINDS;
        return PPROF_OK;
    }
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (!strcmp(event, t[i].name)) {
            *wanted = t[i].kinds;
            return PPROF_OK;
        }
    for (int k = 1; k < K_SETTING; k++)
        if (!strcmp(event, kind_name[k])) {
            *wanted = BIT(k);
            return PPROF_OK;
        }
    return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "event",
                        "unknown event '%s' (cpu, native, alloc, lock or a JFR event name such "
                        "as jdk.ExecutionSample, docs/jfr.md)",
                        event);
}

static pprof_status
read_all(jfr_reader *r, pprof_profile **out)
{
    unsigned wanted = 0, present = 0;
    const char *event = r->ps.o->event;
    pprof_status st = wanted_kinds(event, &wanted, r->ps.err);
    if (st || (st = survey(r, &present)))
        return st;
    if (r->st)
        r->st->chunks = r->st->events = 0; /* counted again below */
    /* the TLAB events describe the same allocations as jdk.ObjectAllocationSample */
    bool tlab_named =
        event && (!strcmp(event, kind_name[K_TLAB_IN]) || !strcmp(event, kind_name[K_TLAB_OUT]));
    if ((present & BIT(K_ALLOC)) && !tlab_named)
        wanted &= ~(unsigned)(BIT(K_TLAB_IN) | BIT(K_TLAB_OUT));
    r->use = wanted & present;
    if (event && !r->use)
        return pprof__error(r->ps.err, PPROF_E_ARG, PPROF_NO_OFFSET, "event",
                            "the recording holds no %s events", event);
    r->period_ns = 10000000;
    for (uint64_t off = 0; off < r->ps.size;) {
        jfr_chunk *c = &r->c;
        uint64_t events = 0;
        if ((st = jfr__chunk_header(&r->ps, off, c)))
            return st;
        if (!(st = jfr__chunk_load(&r->ps, c, &events, true)) && c->classes.len &&
            !(st = classify(r)) && !(st = settings(r))) {
            if (!r->have_period && r->period_ns) {
                r->profile_period = r->period_ns;
                r->have_period = true;
            }
            if (!r->b)
                st = make_builder(r);
            if (!st && !(st = caches_init(r)))
                st = chunk_events(r);
            caches_reset(r);
        }
        if (!st) {
            int64_t end = c->start_nanos + (c->duration_nanos > 0 ? c->duration_nanos : 0);
            if (!r->have_time || c->start_nanos < r->time_start)
                r->time_start = c->start_nanos;
            if (!r->have_time || end > r->time_end)
                r->time_end = end;
            r->have_time = true;
            if (r->st) {
                r->st->chunks++;
                r->st->events += events;
            }
        }
        off = c->end;
        jfr__chunk_free(&r->ps, c);
        if (st)
            return st;
    }
    if (!r->b && (st = make_builder(r)))
        return st;
    if (r->have_time &&
        (st = pprof_builder_set_time(r->b, r->time_start, r->time_end - r->time_start, r->ps.err)))
        return st;
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_RAW;
    pprof_buffer buf = {0};
    st = pprof_builder_serialize(r->b, 0, &w, &buf, r->ps.err);
    if (!st) {
        pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
        ro.allocator = r->ps.a;
        ro.max_decompressed_bytes = UINT64_MAX;
        ro.max_input_bytes = UINT64_MAX;
        st = pprof_profile_read_memory(buf.data, buf.len, &ro, out, r->ps.err);
    }
    pprof_buffer_free(&buf);
    return st;
}

void
pprof_jfr_read_options_init(pprof_jfr_read_options *opts)
{
    pprof_jfr_read_options o = PPROF_JFR_READ_OPTIONS_INIT;
    *opts = o;
}

bool
pprof_jfr_detect(const void *data, size_t size)
{
    return data && size >= 4 && !memcmp(data, "FLR\0", 4);
}

pprof_status
pprof_jfr_read_memory(const void *data, size_t size, const pprof_jfr_read_options *opts,
                      pprof_profile **out, pprof_error *err)
{
    if (!out || (!data && size))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "NULL argument");
    *out = NULL;
    pprof_jfr_read_options o = PPROF_JFR_READ_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    o.struct_size = sizeof(o);
    pprof_jfr_stats local = PPROF_JFR_STATS_INIT;
    if (!size)
        return pprof__error(err, PPROF_E_EMPTY, 0, "", "empty input");
    jfr_reader r;
    memset(&r, 0, sizeof(r));
    r.ps.a = o.allocator;
    r.ps.data = data;
    r.ps.size = size;
    r.ps.o = &o;
    r.ps.err = err;
    r.st = &local;
    pprof_status st = read_all(&r, out);
    caches_reset(&r);
    pprof__vec *vecs[] = {&r.fns,  &r.threads, &r.frames, &r.stacks, &r.class_strs,
                          &r.locs, &r.lines,   &r.text,   &r.text2};
    for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
        pprof__free(&r.ps.a, vecs[i]->data);
    pprof__free(&r.ps.a, r.kinds);
    pprof__free(&r.ps.a, r.roles);
    pprof_builder_free(r.b);
    if (o.stats) {
        size_t n = o.stats->struct_size < sizeof(local) ? o.stats->struct_size : sizeof(local);
        local.struct_size = o.stats->struct_size;
        memcpy(o.stats, &local, n);
    }
    return st;
}

static pprof_status
slurp(const char *path, uint64_t max, const pprof_allocator *a, uint8_t **buf, size_t *len,
      pprof_error *err)
{
    bool std_in = !strcmp(path, "-");
    FILE *f = std_in ? stdin : fopen(path, "rb");
    if (!f)
        return pprof__error(err, PPROF_E_IO, PPROF_NO_OFFSET, "", "cannot open: %s",
                            strerror(errno));
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = pprof__malloc(a, cap);
    pprof_status st = b ? PPROF_OK : pprof__error(err, PPROF_E_NOMEM, 0, "", "out of memory");
    while (!st) {
        if (n == cap) {
            uint8_t *nb = pprof__realloc(a, b, cap * 2);
            if (!nb) {
                st = pprof__error(err, PPROF_E_NOMEM, n, "", "out of memory");
                break;
            }
            b = nb;
            cap *= 2;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (n > max)
            st = pprof__error(err, PPROF_E_LIMIT, max, "",
                              "the recording is larger than %llu bytes (max_input_bytes)",
                              (unsigned long long)max);
        else if (!got) {
            if (ferror(f))
                st = pprof__error(err, PPROF_E_IO, n, "", "read error: %s", strerror(errno));
            break;
        }
    }
    if (!std_in)
        fclose(f);
    if (st) {
        pprof__free(a, b);
        return st;
    }
    *buf = b;
    *len = n;
    return PPROF_OK;
}

pprof_status
pprof_jfr_read_file(const char *path, const pprof_jfr_read_options *opts, pprof_profile **out,
                    pprof_error *err)
{
    if (!path || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "NULL argument");
    *out = NULL;
    pprof_jfr_read_options o = PPROF_JFR_READ_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    o.struct_size = sizeof(o);
    uint8_t *buf = NULL;
    size_t len = 0;
    pprof_status st = slurp(path, o.max_input_bytes ? o.max_input_bytes : UINT64_C(1) << 40,
                            &o.allocator, &buf, &len, err);
    if (st)
        return st;
    st = pprof_jfr_read_memory(buf, len, &o, out, err);
    pprof__free(&o.allocator, buf);
    return st;
}

/* ---------------------------------------------------------------- the formats' reader */

bool
pprof__jfr_detect_raw(const uint8_t *raw, size_t len)
{
    return pprof_jfr_detect(raw, len);
}

bool
pprof__jfr_path_says(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 4 && !strcmp(path + n - 4, ".jfr");
}

pprof_status
pprof__jfr_read_one(uint8_t *raw, size_t len, pprof_format container, const pprof_read_options *ro,
                    pprof_profile **out, pprof_error *err)
{
    pprof_jfr_read_options o = PPROF_JFR_READ_OPTIONS_INIT;
    o.allocator = ro->allocator;
    pprof_status st = pprof_jfr_read_memory(raw, len, &o, out, err);
    pprof__free(&ro->allocator, raw);
    if (!st)
        (*out)->source_format = container;
    return st;
}

pprof_status
pprof__jfr_reencode(uint8_t **raw, size_t *len, pprof_format container,
                    const pprof_read_options *ro, pprof_error *err)
{
    pprof_profile *p = NULL;
    pprof_status st = pprof__jfr_read_one(*raw, *len, container, ro, &p, err);
    *raw = NULL;
    if (st)
        return st;
    pprof_write_options wo;
    pprof_write_options_init(&wo);
    wo.format = PPROF_FORMAT_RAW;
    pprof_buffer b = {0};
    st = pprof_profile_write_memory(p, &wo, &b, err);
    pprof_profile_free(p);
    if (!st) {
        uint8_t *copy = pprof__malloc(&ro->allocator, b.len ? b.len : 1);
        if (!copy) {
            st = pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        } else {
            if (b.len)
                memcpy(copy, b.data, b.len);
            *raw = copy;
            *len = b.len;
        }
    }
    pprof_buffer_free(&b);
    return st;
}
