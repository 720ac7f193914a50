/* JFR events into a pprof profile (docs/jfr.md): which events become which sample types and
 * values, their labels, the settings that give the sampling period, the chunks one after the
 * other. Each chunk has its own metadata and pools, so what jfr-resolve.c caches lives for one
 * chunk; the builder's handles it holds live for the whole recording. */
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
static const pprof_builder_value_type group_types[JFR_G_COUNT][2] = {
    {{"samples", "count"}, {"cpu", "nanoseconds"}},
    {{"native", "count"}, {NULL, NULL}},
    {{"alloc_objects", "count"}, {"alloc_space", "bytes"}},
    {{"contentions", "count"}, {"delay", "nanoseconds"}},
};

static int
group_of(int kind)
{
    return kind == K_CPU               ? JFR_G_CPU
           : kind == K_NATIVE          ? JFR_G_NATIVE
           : (BIT(kind) & ALLOC_KINDS) ? JFR_G_ALLOC
           : (BIT(kind) & LOCK_KINDS)  ? JFR_G_LOCK
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

static int64_t
ticks_to_ns(const jfr_chunk *c, int64_t ticks)
{
    __extension__ typedef __int128 wide;
    wide v = (wide)ticks * 1000000000 / c->ticks_per_second;
    return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
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
        return jfr__nomem(r);
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
                      : role == R_NAME  ? jfr__text_of_field(r, &in, f, &r->text, 0)
                      : role == R_VALUE ? jfr__text_of_field(r, &in, f, &r->text2, 0)
                                        : jfr__skip_field(&r->ps, c, &in, f, 1);
            if (!ok)
                return in.bad ? pprof__error(r->ps.err, PPROF_E_INVALID, in.err_pos,
                                             "jdk.ActiveSetting", "malformed event at %llu",
                                             (unsigned long long)at)
                              : jfr__nomem(r);
        }
        int64_t ns;
        if (id == cpu_id &&
            (!strcmp(jfr__text_cstr(&r->text), "period") ||
             !strcmp(jfr__text_cstr(&r->text), "interval")) &&
            parse_period(jfr__text_cstr(&r->text2), &ns))
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
            ok = jfr__scalar_or_skip(r, &in, f, &v[role], &got);
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
        st = jfr__stack_of(r, fld[R_STACK]->cls, v[R_STACK], &si);
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
        if ((st = jfr__thread_of(r, fld[tr]->cls, v[tr], &ti)))
            return st;
        if (ti.has_name)
            labels[nl++] = (pprof_builder_label){r->k_thread, ti.name, 0, PPROF_BUILDER_NONE};
        if (ti.has_name || ti.id)
            labels[nl++] = (pprof_builder_label){r->k_thread_id, PPROF_BUILDER_NONE, ti.id,
                                                 PPROF_BUILDER_NONE};
    }
    bool has_class = false;
    pprof_builder_str cs;
    if (has[R_CLASS] && (st = jfr__class_label(r, fld[R_CLASS], v[R_CLASS], &cs, &has_class)))
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
    for (int g = 0; g < JFR_G_COUNT; g++) {
        r->slot[g] = -1;
        bool in = false;
        for (int k = 1; k < K_COUNT; k++)
            if ((r->use & BIT(k)) && group_of(k) == g)
                in = true;
        if (!in && !(g == JFR_G_CPU && !r->use))
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
    if (r->slot[JFR_G_CPU] >= 0 && r->use) {
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

pprof_status
jfr__read_all(jfr_reader *r, pprof_profile **out)
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
            if (!st && !(st = jfr__caches_init(r)))
                st = chunk_events(r);
            jfr__caches_reset(r);
        }
        int64_t end = 0;
        if (!st && __builtin_add_overflow(c->start_nanos,
                                          c->duration_nanos > 0 ? c->duration_nanos : 0, &end))
            st = pprof__error(r->ps.err, PPROF_E_INVALID, off, "chunk",
                              "the chunk's start time plus its duration leaves int64");
        if (!st) {
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
    st = pprof_builder_write_memory(r->b, 0, &w, &buf, r->ps.err);
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
