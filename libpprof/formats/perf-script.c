/* `perf script` text to a profile: the default output and the -F forms stackcollapse-perf.pl
 * reads. A sample is a header line "COMM PID[/TID] [CPU] TIME: [PERIOD] EVENT: [IP SYM (DSO)]"
 * followed by indented frame lines "IP SYM+OFF (DSO)", leaf first, and a blank line. */
#include <stdio.h>
#include <stdlib.h>

#include "perf-private.h"

typedef struct span {
    const char *p;
    size_t n;
} span;

static bool
all_digits(const char *p, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (p[i] < '0' || p[i] > '9')
            return false;
    return true;
}

static int
hexd(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A number past its field's range: the first one of a line, for the error. */
typedef struct script_overflow {
    const char *field; /* NULL = none */
    span tok;
    uint64_t max;
} script_overflow;

typedef struct script_head {
    span comm, event;
    uint64_t pid, tid, cpu, period, time; /* time: perf clock nanoseconds */
    bool has_pid, has_tid, has_cpu, has_period, has_time;
    span frame; /* a frame on the header line itself (no callchain), or n == 0 */
    script_overflow over;
} script_head;

/* The one parser of the text's numbers: the digits of t (checked by the caller) in base 10 or
 * 16, at most max. Past max the value is max and *o names the field, so that the line is still
 * classified as before and the caller refuses it with its line number. */
static uint64_t
to_uint(span t, unsigned base, uint64_t max, const char *field, script_overflow *o)
{
    uint64_t v = 0;
    for (size_t i = 0; i < t.n; i++) {
        unsigned d = (unsigned)hexd(t.p[i]);
        if (v > (max - d) / base) {
            if (!o->field)
                *o = (script_overflow){field, t, max};
            return max;
        }
        v = v * base + d;
    }
    return v;
}

static uint64_t
to_i64(const char *p, size_t n, const char *field, script_overflow *o)
{
    return to_uint((span){p, n}, 10, INT64_MAX, field, o);
}

static bool
is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* Next whitespace-separated token of [*s, e). */
static bool
token(const char **s, const char *e, span *t)
{
    const char *p = *s;
    while (p < e && is_space(*p))
        p++;
    if (p == e)
        return false;
    const char *q = p;
    while (q < e && !is_space(*q))
        q++;
    *t = (span){p, (size_t)(q - p)};
    *s = q;
    return true;
}

static bool
pid_token(span t, script_head *h)
{
    const char *slash = memchr(t.p, '/', t.n);
    if (!slash)
        return all_digits(t.p, t.n) && ((h->pid = to_i64(t.p, t.n, "pid", &h->over)), true);
    size_t a = (size_t)(slash - t.p);
    if (!all_digits(t.p, a) || !all_digits(slash + 1, t.n - a - 1))
        return false;
    h->pid = to_i64(t.p, a, "pid", &h->over);
    h->tid = to_i64(slash + 1, t.n - a - 1, "tid", &h->over);
    h->has_tid = true;
    return true;
}

static bool
parse_head(const char *s, const char *e, script_head *h)
{
    memset(h, 0, sizeof(*h));
    /* the comm may hold spaces: the pid is the first numeric token after at least one word,
     * unless the line starts with it (no comm field) */
    const char *cur = s, *comm_end = s;
    span t;
    bool found = false;
    int i = 0;
    while (token(&cur, e, &t)) {
        if (pid_token(t, h)) {
            found = true;
            break;
        }
        comm_end = t.p + t.n;
        i++;
    }
    if (!found)
        return false;
    h->has_pid = true;
    if (!h->has_tid) {
        h->tid = h->pid;
    }
    h->comm = (span){s, (size_t)(comm_end - s)};
    while (token(&cur, e, &t)) {
        if (t.n > 2 && t.p[0] == '[' && t.p[t.n - 1] == ']' && all_digits(t.p + 1, t.n - 2)) {
            h->cpu = to_i64(t.p + 1, t.n - 2, "cpu", &h->over);
            h->has_cpu = true;
        } else if (t.n > 1 && t.p[t.n - 1] == ':' && memchr(t.p, '.', t.n) &&
                   all_digits(t.p, (size_t)((const char *)memchr(t.p, '.', t.n) - t.p))) {
            /* the time stamp: only its seconds are a number with a range; the fraction's
             * first nine digits are its nanoseconds */
            size_t whole = (size_t)((const char *)memchr(t.p, '.', t.n) - t.p);
            uint64_t sec = to_i64(t.p, whole, "time", &h->over), ns = 0;
            size_t k = 0;
            for (; k < 9 && whole + 1 + k < t.n - 1 && t.p[whole + 1 + k] >= '0' &&
                   t.p[whole + 1 + k] <= '9';
                 k++)
                ns = ns * 10 + (uint64_t)(t.p[whole + 1 + k] - '0');
            for (; k < 9; k++)
                ns *= 10;
            h->has_time = sec <= (uint64_t)INT64_MAX / 1000000000 - 1;
            h->time = h->has_time ? sec * 1000000000 + ns : 0;
        } else if (all_digits(t.p, t.n)) {
            h->period = to_i64(t.p, t.n, "period", &h->over);
            h->has_period = true;
        } else if (t.n > 1 && t.p[t.n - 1] == ':') {
            h->event = (span){t.p, t.n - 1};
            break;
        } else {
            return false;
        }
    }
    while (cur < e && is_space(*cur))
        cur++;
    h->frame = (span){cur, (size_t)(e - cur)};
    while (h->frame.n && is_space(h->frame.p[h->frame.n - 1]))
        h->frame.n--;
    (void)i;
    return true;
}

typedef struct script_frame {
    uint64_t addr;
    span sym, dso;
    script_overflow over;
} script_frame;

/* "ADDR SYM+0xOFF (DSO)"; the symbol may hold spaces and parentheses, the DSO is the last
 * parenthesised group. */
static bool
parse_frame(const char *p, size_t n, script_frame *f)
{
    const char *e = p + n;
    while (p < e && is_space(*p))
        p++;
    while (e > p && is_space(e[-1]))
        e--;
    const char *digits = p;
    while (p < e && hexd(*p) >= 0)
        p++;
    if (p == digits || (p < e && !is_space(*p)))
        return false;
    f->over.field = NULL;
    f->addr = to_uint((span){digits, (size_t)(p - digits)}, 16, UINT64_MAX, "address", &f->over);
    while (p < e && is_space(*p))
        p++;
    f->dso = (span){NULL, 0};
    if (e > p && e[-1] == ')') {
        const char *o = e - 1;
        while (o > p && *o != '(')
            o--;
        if (*o == '(') {
            f->dso = (span){o + 1, (size_t)(e - 1 - (o + 1))};
            e = o;
            while (e > p && is_space(e[-1]))
                e--;
        }
    }
    /* drop "+0xOFFSET" */
    const char *plus = NULL;
    for (const char *q = p; q + 2 < e; q++)
        if (q[0] == '+' && q[1] == '0' && q[2] == 'x')
            plus = q;
    if (plus)
        e = plus;
    f->sym = (span){p, (size_t)(e - p)};
    return true;
}

typedef struct script_ctx {
    pprof_perf_stats *st;
    pprof_error *err;
    const pprof_perf_options *o;
    pprof_builder *b;
    span events[64];
    bool event_period[64];
    size_t n_events;
    int slot[64];
    size_t n_values;
    pprof__vec stack;
    pprof_allocator a;
} script_ctx;

static int
event_index(script_ctx *c, span ev)
{
    for (size_t i = 0; i < c->n_events; i++)
        if (c->events[i].n == ev.n && (ev.n == 0 || !memcmp(c->events[i].p, ev.p, ev.n)))
            return (int)i;
    return -1;
}

static pprof_status
intern_span(script_ctx *c, span s, pprof_builder_str *out)
{
    return pprof_builder_intern(c->b, s.p ? s.p : "", s.n, out, c->err);
}

static pprof_status
add_frame(script_ctx *c, const script_frame *f)
{
    pprof_builder_map m = PPROF_BUILDER_NONE;
    pprof_builder_line line = {PPROF_BUILDER_NONE, 0, 0};
    pprof_status st;
    bool named = f->sym.n && !(f->sym.n == 9 && !memcmp(f->sym.p, "[unknown]", 9));
    if (!f->addr && !named) /* an unwinder's filler, left out as from perf.data */
        return PPROF_OK;
    if (f->dso.n && !(f->dso.n == 9 && !memcmp(f->dso.p, "[unknown]", 9))) {
        pprof_builder_mapping_desc d = {
            0, 0, 0, PPROF_BUILDER_NONE, PPROF_BUILDER_NONE, named, false, false, false};
        if ((st = intern_span(c, f->dso, &d.filename)) ||
            (st = pprof_builder_mapping(c->b, &d, &m, c->err)))
            return st;
    }
    if (named) {
        pprof_builder_str name;
        if ((st = intern_span(c, f->sym, &name)) ||
            (st = pprof_builder_function(c->b, name, name, (pprof_builder_str)PPROF_BUILDER_NONE, 0,
                                         &line.function, c->err)))
            return st;
    }
    pprof_builder_loc *loc = pprof__vec_push(&c->a, &c->stack, sizeof(*loc));
    if (!loc)
        return pprof__error(c->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    return pprof_builder_location(c->b, m, f->addr, &line, named ? 1 : 0, false, loc, c->err);
}

static pprof_status
emit(script_ctx *c, const script_head *h)
{
    int e = event_index(c, h->event);
    if (e < 0 || c->slot[e] < 0) {
        c->st->samples_other_event++;
        return PPROF_OK;
    }
    int64_t values[65] = {1};
    values[c->slot[e]] = h->has_period ? (int64_t)h->period : 1;
    pprof_builder_label labels[5];
    size_t nl = 0;
    pprof_status st;
    uint32_t want = c->o->labels;
    pprof_builder_str k;
    if ((want & PPROF_PERF_LABEL_PID) && h->has_pid) {
        if ((st = pprof_builder_intern_cstr(c->b, "pid", &k, c->err)))
            return st;
        labels[nl++] =
            (pprof_builder_label){k, PPROF_BUILDER_NONE, (int64_t)h->pid, PPROF_BUILDER_NONE};
    }
    if ((want & PPROF_PERF_LABEL_TID) && h->has_pid) {
        if ((st = pprof_builder_intern_cstr(c->b, "tid", &k, c->err)))
            return st;
        labels[nl++] =
            (pprof_builder_label){k, PPROF_BUILDER_NONE, (int64_t)h->tid, PPROF_BUILDER_NONE};
    }
    if ((want & PPROF_PERF_LABEL_COMM) && h->comm.n) {
        pprof_builder_str v;
        if ((st = pprof_builder_intern_cstr(c->b, "comm", &k, c->err)) ||
            (st = intern_span(c, h->comm, &v)))
            return st;
        labels[nl++] = (pprof_builder_label){k, v, 0, PPROF_BUILDER_NONE};
    }
    if ((want & PPROF_PERF_LABEL_CPU) && h->has_cpu) {
        if ((st = pprof_builder_intern_cstr(c->b, "cpu", &k, c->err)))
            return st;
        labels[nl++] =
            (pprof_builder_label){k, PPROF_BUILDER_NONE, (int64_t)h->cpu, PPROF_BUILDER_NONE};
    }
    if (c->o->timestamps && h->has_time) {
        pprof_builder_str u;
        if ((st = pprof_builder_intern_cstr(c->b, PERF_TIME_LABEL, &k, c->err)) ||
            (st = pprof_builder_intern_cstr(c->b, "nanoseconds", &u, c->err)))
            return st;
        labels[nl++] = (pprof_builder_label){k, PPROF_BUILDER_NONE, (int64_t)h->time, u};
    }
    if ((st = pprof_builder_add_sample(c->b, values, c->n_values, c->stack.data, c->stack.len,
                                       labels, nl, c->err)))
        return st;
    c->st->samples_converted++;
    return PPROF_OK;
}

static bool
is_clock_name(span ev)
{
    return (ev.n == 9 && !memcmp(ev.p, "cpu-clock", 9)) ||
           (ev.n == 10 && !memcmp(ev.p, "task-clock", 10));
}

static pprof_status
overflow_error(script_ctx *c, const char *s, uint64_t lineno, const script_overflow *o)
{
    return pprof__error(c->err, PPROF_E_OVERFLOW, (uint64_t)(o->tok.p - s), "",
                        "line %llu: %s %.*s%s is past its largest value %llu%s",
                        (unsigned long long)lineno, o->field, (int)(o->tok.n < 40 ? o->tok.n : 40),
                        o->tok.p, o->tok.n > 40 ? "..." : "", (unsigned long long)o->max,
                        o->max == INT64_MAX ? " (int64)" : " (uint64)");
}

/* Runs over the lines: pass 0 collects the events, pass 1 builds the samples. */
static pprof_status
scan(script_ctx *c, const char *s, size_t size, int pass)
{
    const char *end = s + size, *line = s;
    bool in_sample = false;
    script_head h;
    pprof_status st;
    uint64_t lineno = 0;
    while (line < end) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *le = nl ? nl : end;
        lineno++;
        size_t n = (size_t)(le - line);
        bool blank = true;
        for (size_t i = 0; i < n && blank; i++)
            blank = is_space(line[i]);
        if (memchr(line, 0, n))
            return pprof__error(c->err, PPROF_E_INVALID, (uint64_t)(line - s), "",
                                "line %llu holds a NUL byte: not perf script text",
                                (unsigned long long)lineno);
        if (pass)
            c->st->records++;
        if (blank || line[0] == '#') {
            if (in_sample && blank) {
                if (pass && (st = emit(c, &h)))
                    return st;
                in_sample = false;
            }
        } else if (is_space(line[0])) {
            script_frame f;
            if (!in_sample || !parse_frame(line, n, &f)) {
                if (pass)
                    c->st->bad_lines++;
            } else if (f.over.field) {
                return overflow_error(c, s, lineno, &f.over);
            } else if (pass && (st = add_frame(c, &f))) {
                return st;
            }
        } else {
            if (in_sample && pass && (st = emit(c, &h)))
                return st;
            in_sample = parse_head(line, le, &h);
            script_frame f;
            bool head_frame = in_sample && h.frame.n && parse_frame(h.frame.p, h.frame.n, &f);
            if (in_sample && h.over.field)
                return overflow_error(c, s, lineno, &h.over);
            if (head_frame && f.over.field)
                return overflow_error(c, s, lineno, &f.over);
            if (!in_sample) {
                if (pass)
                    c->st->bad_lines++;
            } else if (pass) {
                c->st->samples++;
                c->stack.len = 0;
                if (head_frame && (st = add_frame(c, &f)))
                    return st;
            } else if (event_index(c, h.event) < 0) {
                if (c->n_events == 64)
                    return pprof__error(c->err, PPROF_E_LIMIT, (uint64_t)(line - s), "",
                                        "more than 64 distinct events");
                c->event_period[c->n_events] = h.has_period;
                c->events[c->n_events++] = h.event;
            }
        }
        line = le + 1;
    }
    if (in_sample && pass && (st = emit(c, &h)))
        return st;
    return PPROF_OK;
}

bool
perf__looks_like_script(const uint8_t *p, size_t n)
{
    /* the first non-comment line parses as a sample header */
    const char *s = (const char *)p, *e = s + n;
    while (s < e) {
        const char *nl = memchr(s, '\n', (size_t)(e - s));
        const char *le = nl ? nl : e;
        if (le > s && s[0] != '#' && !is_space(s[0])) {
            script_head h;
            return !memchr(s, 0, (size_t)(le - s)) && parse_head(s, le, &h) && h.event.n;
        }
        s = le + 1;
    }
    return false;
}

pprof_status
perf__read_script(const void *data, size_t size, const pprof_perf_options *o, const perf__sink *k,
                  pprof_perf_stats *stats, pprof_error *err)
{
    script_ctx c;
    memset(&c, 0, sizeof(c));
    c.st = stats;
    c.err = err;
    c.o = o;
    c.a = o->allocator;
    stats->script_text = true;
    pprof_status st = scan(&c, data, size, 0);
    if (st)
        return st;
    pprof_builder_value_type types[65] = {{"samples", "count"}};
    char names[64][96];
    size_t nt = 1;
    for (size_t e = 0; o->events && e < o->n_events; e++) {
        bool found = false;
        for (size_t i = 0; i < c.n_events; i++)
            found |= c.events[i].n == strlen(o->events[e]) &&
                     !memcmp(c.events[i].p, o->events[e], c.events[i].n);
        if (!found)
            return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "events",
                                "no event named '%s' in the text", o->events[e]);
    }
    for (size_t i = 0; i < c.n_events; i++) {
        c.slot[i] = -1;
        span ev = c.events[i];
        if (o->events && o->n_events) {
            bool want = false;
            for (size_t e = 0; e < o->n_events; e++)
                want |= ev.n == strlen(o->events[e]) && !memcmp(ev.p, o->events[e], ev.n);
            if (!want)
                continue;
        }
        snprintf(names[i], sizeof(names[i]), "%.*s", (int)(ev.n < 90 ? ev.n : 90), ev.p);
        bool clock = is_clock_name(ev) && c.event_period[i];
        const char *type = clock && ev.n == 9 ? "cpu" : names[i];
        types[nt] = (pprof_builder_value_type){type, clock ? "nanoseconds" : "count"};
        c.slot[i] = (int)nt++;
    }
    c.n_values = nt;
    pprof_builder_options bo = PPROF_BUILDER_OPTIONS_INIT;
    bo.sample_types = types;
    bo.n_sample_types = nt;
    bo.allocator = o->allocator;
    bo.max_samples = UINT64_C(1) << 26;
    bo.max_locations = UINT64_C(1) << 26;
    bo.max_functions = UINT64_C(1) << 24;
    bo.max_strings = UINT64_C(1) << 24;
    if (nt > 1)
        bo.default_sample_type = types[1].type;
    if ((st = pprof_builder_new(&bo, &c.b, err)))
        return st;
    st = scan(&c, data, size, 1);
    if (!st)
        st = perf__deliver(c.b, k, &c.a, err);
    pprof_builder_free(c.b);
    pprof__free(&c.a, c.stack.data);
    return st;
}
