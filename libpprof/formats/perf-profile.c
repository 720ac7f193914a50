/* perf.data to a profile: sample types per event, stacks of addresses in the sample's
 * process mappings, labels, header; and the public entry points. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf-private.h"

pprof_status pprof__read_all(const char *path, uint64_t max, const pprof_allocator *a,
                             uint8_t **out, size_t *len, pprof_error *err);

void
pprof_perf_options_init(pprof_perf_options *opts)
{
    pprof_perf_options d = PPROF_PERF_OPTIONS_INIT;
    *opts = d;
}

static bool
event_matches(const char *name, const char *want)
{
    size_t n = strlen(want);
    return strncmp(name, want, n) == 0 && (name[n] == 0 || (name[n] == ':' && !strchr(want, ':')));
}

static bool
is_clock(const perf__attr *at)
{
    return at->type == 1 && at->config <= 1;
}

/* The profile's sample types: samples/count, then one per event name (attrs of one name share
 * it). The dummy event perf adds for side-band records never samples and gets none. */
static pprof_status
setup(perf__reader *r)
{
    pprof_builder_value_type types[65] = {{"samples", "count"}};
    size_t nt = 1;
    const char *const *ev = r->o.events;
    for (size_t e = 0; ev && e < r->o.n_events; e++) {
        bool found = false;
        for (size_t i = 0; i < r->attrs.len; i++)
            found |= event_matches(PPROF__AT(r->attrs, perf__attr, i).name, ev[e]);
        if (!found)
            return pprof__error(r->err, PPROF_E_ARG, PPROF_NO_OFFSET, "events",
                                "no event named '%s' in the recording", ev[e]);
    }
    int first = -1;
    for (size_t i = 0; i < r->attrs.len; i++) {
        perf__attr *at = &PPROF__AT(r->attrs, perf__attr, i);
        bool want = !(at->type == 1 && at->config == 9);
        if (ev && r->o.n_events) {
            want = false;
            for (size_t e = 0; e < r->o.n_events; e++)
                want |= event_matches(at->name, ev[e]);
        }
        if (!want)
            continue;
        const char *type = at->type == 1 && at->config == 0 ? "cpu" : at->name;
        size_t k = 1;
        while (k < nt && strcmp(types[k].type, type))
            k++;
        if (k == nt) {
            if (nt == 65)
                return pprof__error(r->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                                    "more than 64 distinct events");
            types[nt++] = (pprof_builder_value_type){type, is_clock(at) ? "nanoseconds" : "count"};
        }
        at->slot = (int)k;
        if (first < 0)
            first = (int)i;
    }
    pprof_builder_options bo = PPROF_BUILDER_OPTIONS_INIT;
    bo.sample_types = types;
    bo.n_sample_types = nt;
    bo.allocator = r->a;
    bo.max_samples = UINT64_C(1) << 26;
    bo.max_locations = UINT64_C(1) << 26;
    bo.max_functions = UINT64_C(1) << 24;
    bo.max_mappings = UINT64_C(1) << 22;
    bo.max_strings = UINT64_C(1) << 24;
    if (first >= 0) {
        const perf__attr *at = &PPROF__AT(r->attrs, perf__attr, (size_t)first);
        bo.period_type = types[at->slot];
        if (!at->freq)
            bo.period = (int64_t)(at->sample_period & INT64_MAX);
        else if (is_clock(at) && at->sample_period)
            bo.period = (int64_t)(UINT64_C(1000000000) / at->sample_period);
        bo.default_sample_type = types[at->slot].type;
    }
    pprof_status st = pprof_builder_new(&bo, &r->b, r->err);
    if (st)
        return st;
    r->n_values = nt;
    r->values = pprof__malloc(&r->a, nt * sizeof(int64_t));
    if (!r->values)
        return perf__nomem(r);
    if ((st = pprof_builder_intern_cstr(r->b, "pid", &r->k_pid, r->err)) ||
        (st = pprof_builder_intern_cstr(r->b, "tid", &r->k_tid, r->err)) ||
        (st = pprof_builder_intern_cstr(r->b, "comm", &r->k_comm, r->err)) ||
        (st = pprof_builder_intern_cstr(r->b, "cpu", &r->k_cpu, r->err)))
        return st;
    if (r->o.timestamps &&
        ((st = pprof_builder_intern_cstr(r->b, PERF_TIME_LABEL, &r->k_time, r->err)) ||
         (st = pprof_builder_intern_cstr(r->b, "nanoseconds", &r->k_ns, r->err))))
        return st;
    return PPROF_OK;
}

static pprof_status
map_handle(perf__reader *r, perf__map *m, bool kernel)
{
    if (m->has_bm)
        return PPROF_OK;
    const char *name = m->name;
    char kname[] = "[kernel.kallsyms]";
    if (kernel && strncmp(name, kname, sizeof(kname) - 1) == 0)
        name = kname;
    pprof_builder_mapping_desc d = {
        m->start, m->end, m->pgoff, PPROF_BUILDER_NONE, PPROF_BUILDER_NONE, false,
        false,    false,  false};
    d.has_functions = kernel && r->syms.len;
    pprof_status st = pprof_builder_intern_cstr(r->b, name, &d.filename, r->err);
    if (!st && m->build_id)
        st = pprof_builder_intern_cstr(r->b, m->build_id, &d.build_id, r->err);
    if (!st)
        st = pprof_builder_mapping(r->b, &d, &m->bm, r->err);
    if (!st)
        m->has_bm = true;
    return st;
}

static pprof_status
resolve_frame(perf__reader *r, uint32_t pid, uint64_t ip, unsigned mode, pprof_builder_loc *out,
              uint8_t *kind)
{
    perf__map *m = NULL;
    perf__sym *sym = NULL;
    bool kernel = false;
    if (mode == PERF_MISC_KERNEL) {
        kernel = true;
        m = perf__find_map(r, PERF_KERNEL_PID, ip);
        if (r->syms.len)
            sym = perf__find_sym(r, ip);
    } else if (mode == PERF_MISC_USER || mode == 0) {
        m = perf__find_map(r, pid, ip);
    } else {
        *kind = 2;
    }
    pprof_builder_map bm = PPROF_BUILDER_NONE;
    pprof_status st;
    if (m) {
        if ((st = map_handle(r, m, kernel)))
            return st;
        bm = m->bm;
    } else if (mode <= PERF_MISC_USER) {
        *kind = 1;
    }
    pprof_builder_line line = {PPROF_BUILDER_NONE, 0, 0};
    if (sym) {
        if (!sym->has_fn) {
            pprof_builder_str name;
            if ((st = pprof_builder_intern(r->b, sym->name, sym->len, &name, r->err)) ||
                (st = pprof_builder_function(
                     r->b, name, name, (pprof_builder_str)PPROF_BUILDER_NONE, 0, &sym->fn, r->err)))
                return st;
            sym->has_fn = true;
        }
        line.function = sym->fn;
    }
    return pprof_builder_location(r->b, bm, ip, &line, sym ? 1 : 0, false, out, r->err);
}

/* A frame's location, from a direct-mapped cache of resolved frames first: a recording
 * repeats its hot addresses, and resolving (mapping lookup, builder interning) dominates. */
static pprof_status
add_frame(perf__reader *r, uint32_t pid, uint64_t ip, unsigned mode)
{
    if (!ip) /* a chain's filler (perf's unwinder stopped); pprof has no location at 0 */
        return PPROF_OK;
    if (!r->fcache) {
        r->fcache = pprof__malloc(&r->a, sizeof(perf__fcache) << PERF_FCACHE_BITS);
        if (!r->fcache)
            return perf__nomem(r);
        memset(r->fcache, 0, sizeof(perf__fcache) << PERF_FCACHE_BITS);
    }
    uint32_t tag = (r->maps_gen << 3 | mode) + 1;
    uint64_t h = pprof__mix64(ip ^ ((uint64_t)pid << 40) ^ mode);
    perf__fcache *c = &r->fcache[h >> (64 - PERF_FCACHE_BITS)];
    if (c->tag != tag || c->ip != ip || c->pid != pid) {
        uint8_t kind = 0;
        pprof_status st = resolve_frame(r, pid, ip, mode, &c->loc, &kind);
        if (st) {
            c->tag = 0;
            return st;
        }
        c->ip = ip;
        c->pid = pid;
        c->tag = tag;
        c->kind = kind;
    }
    r->st->unmapped_frames += c->kind == 1;
    r->st->guest_frames += c->kind == 2;
    pprof_builder_loc *loc = pprof__vec_push(&r->a, &r->stack, sizeof(*loc));
    if (!loc)
        return perf__nomem(r);
    *loc = c->loc;
    return PPROF_OK;
}

static unsigned
context_mode(uint64_t marker)
{
    switch (marker) {
    case PERF_CTX_KERNEL: return PERF_MISC_KERNEL;
    case PERF_CTX_USER: return PERF_MISC_USER;
    case PERF_CTX_HV: return 3;
    case PERF_CTX_GUEST_USER: return 5;
    default: return 4; /* guest, guest kernel */
    }
}

pprof_status
perf__emit_sample(perf__reader *r, perf__attr *at, const perf__sample *s, unsigned cpumode)
{
    pprof_status st;
    r->stack.len = 0;
    if (s->chain && s->nr) {
        unsigned mode = cpumode;
        for (uint64_t i = 0; i < s->nr; i++) {
            uint64_t ip = perf__u64(r, s->chain + 8 * i);
            if (ip >= PERF_CTX_MAX)
                mode = context_mode(ip);
            else if ((st = add_frame(r, s->pid, ip, mode)))
                return st;
        }
    } else if (at->sample_type & PERF_S_IP) {
        if ((st = add_frame(r, s->pid, s->ip, cpumode)))
            return st;
    }
    pprof_builder_label labels[5];
    size_t nl = 0;
    uint32_t want = r->o.labels;
    if (want & PPROF_PERF_LABEL_PID)
        labels[nl++] = (pprof_builder_label){r->k_pid, PPROF_BUILDER_NONE, (int32_t)s->pid,
                                             PPROF_BUILDER_NONE};
    if (want & PPROF_PERF_LABEL_TID)
        labels[nl++] = (pprof_builder_label){r->k_tid, PPROF_BUILDER_NONE, (int32_t)s->tid,
                                             PPROF_BUILDER_NONE};
    if (want & PPROF_PERF_LABEL_COMM) {
        perf__comm *c = perf__get_comm(r, s->tid);
        if (c) {
            if (!c->has_bs) {
                if ((st = pprof_builder_intern_cstr(r->b, c->s, &c->bs, r->err)))
                    return st;
                c->has_bs = true;
            }
            labels[nl++] = (pprof_builder_label){r->k_comm, c->bs, 0, PPROF_BUILDER_NONE};
        }
    }
    if (want & PPROF_PERF_LABEL_CPU)
        labels[nl++] =
            (pprof_builder_label){r->k_cpu, PPROF_BUILDER_NONE, s->cpu, PPROF_BUILDER_NONE};
    if (r->o.timestamps && (at->sample_type & PERF_S_TIME))
        labels[nl++] = (pprof_builder_label){r->k_time, PPROF_BUILDER_NONE,
                                             perf__wall_time(r, s->time), r->k_ns};
    memset(r->values, 0, r->n_values * sizeof(int64_t));
    r->values[0] = 1;
    r->values[at->slot] = (int64_t)(s->period & INT64_MAX);
    if ((st = pprof_builder_add_sample(r->b, r->values, r->n_values, r->stack.data, r->stack.len,
                                       labels, nl, r->err)))
        return st;
    r->st->samples_converted++;
    if (at->sample_type & PERF_S_TIME) {
        if (!r->have_time || s->time < r->first_time)
            r->first_time = s->time;
        if (!r->have_time || s->time > r->last_time)
            r->last_time = s->time;
        r->have_time = true;
    }
    return PPROF_OK;
}

int64_t
perf__wall_time(const perf__reader *r, uint64_t t)
{
    uint64_t v = r->have_clock ? r->clock_wall + (t - r->clock_ref) : t;
    return (int64_t)(v & INT64_MAX);
}

pprof_status
perf__ensure_setup(perf__reader *r)
{
    return r->b ? PPROF_OK : setup(r);
}

static pprof_status
add_comment(perf__reader *r, const char *lead, const char *s)
{
    if (!s || !s[0])
        return PPROF_OK;
    char buf[4096];
    snprintf(buf, sizeof(buf), "%s%s", lead, s);
    return pprof_builder_add_comment(r->b, buf, r->err);
}

pprof_status
perf__deliver(pprof_builder *b, const perf__sink *k, const pprof_allocator *a, pprof_error *err)
{
    if (k->path)
        return pprof_builder_write_file(b, 0, k->w, k->path, err);
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_RAW;
    pprof_buffer buf = {0};
    pprof_status st = pprof_builder_write_memory(b, 0, &w, &buf, err);
    if (!st) {
        pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
        ro.allocator = *a;
        ro.max_decompressed_bytes = UINT64_MAX;
        ro.max_input_bytes = UINT64_MAX;
        st = pprof_profile_read_memory(buf.data, buf.len, &ro, k->out, err);
    }
    pprof_buffer_free(&buf);
    return st;
}

static pprof_status
finish(perf__reader *r, int64_t end_time_hint, const perf__sink *k)
{
    pprof_status st = perf__ensure_setup(r);
    if (st)
        return st;
    uint64_t first = r->have_feat_time ? r->feat_first : r->first_time;
    uint64_t last = r->have_feat_time ? r->feat_last : r->last_time;
    bool timed = r->have_feat_time || r->have_time;
    int64_t duration = timed ? (int64_t)((last - first) & INT64_MAX) : 0;
    int64_t t = 0;
    if (r->have_clock && timed)
        t = perf__wall_time(r, first);
    else if (end_time_hint > 0)
        t = end_time_hint - duration;
    if ((st = pprof_builder_set_time(r->b, t, duration, r->err)) ||
        (st = add_comment(r, "", r->cmdline)) || (st = add_comment(r, "host: ", r->hostname)) ||
        (st = add_comment(r, "os release: ", r->osrelease)) ||
        (st = add_comment(r, "cpu: ", r->cpudesc)) ||
        (st = add_comment(r, "perf version: ", r->version)))
        return st;
    return perf__deliver(r->b, k, &r->a, r->err);
}

static void
reader_free(perf__reader *r)
{
    perf__maps_free(r);
    pprof__free(&r->a, r->attrs.data);
    pprof__u64map_free(&r->ids, &r->a);
    pprof__free(&r->a, r->queue.data);
    pprof__free(&r->a, r->stack.data);
    pprof__free(&r->a, r->values);
    pprof__free(&r->a, r->fcache);
    pprof_builder_free(r->b);
    pprof__arena_destroy(&r->arena);
}

static pprof_status
read_data(const uint8_t *data, size_t size, const pprof_perf_options *o, int64_t end_hint,
          void (*release)(void *, uint64_t), void *release_ctx, const perf__sink *k,
          pprof_perf_stats *st, pprof_error *err)
{
    perf__reader r;
    memset(&r, 0, sizeof(r));
    r.o = *o;
    r.a = o->allocator;
    r.st = st;
    r.err = err;
    r.base = data;
    r.size = size;
    r.release = release;
    r.release_ctx = release_ctx;
    r.id_pos = r.id_tail = -1;
    if (!r.o.max_round_records)
        r.o.max_round_records = 1;
    pprof__arena_init(&r.arena, &r.a);
    uint64_t off = 0, end = 0;
    pprof_status s = perf__read_file_header(&r, &off, &end);
    if (!s && r.o.kallsyms)
        s = perf__load_kallsyms(&r);
    if (!s && !r.pipe && r.attrs.len == 0)
        s = pprof__error(err, PPROF_E_INVALID, 24, "attrs", "no event attributes");
    if (!s && !r.pipe)
        s = perf__ensure_setup(&r);
    if (!s)
        s = perf__walk(&r, off, end);
    if (!s)
        s = finish(&r, end_hint, k);
    reader_free(&r);
    return s;
}

static pprof_status
dispatch(const void *data, size_t size, const pprof_perf_options *opts, int64_t end_hint,
         void (*release)(void *, uint64_t), void *release_ctx, const perf__sink *k,
         pprof_perf_stats *stats, pprof_error *err)
{
    pprof_profile *dummy = NULL;
    pprof_profile **out = k->out ? k->out : &dummy;
    pprof_perf_stats local = PPROF_PERF_STATS_INIT;
    pprof_perf_stats *st = &local;
    *out = NULL;
    pprof_perf_options o = PPROF_PERF_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    o.struct_size = sizeof(o);
    if (!size)
        return pprof__error(err, PPROF_E_EMPTY, 0, "", "empty input");
    bool magic = size >= 8 && (!memcmp(data, "PERFILE2", 8) || !memcmp(data, "2ELIFREP", 8));
    pprof_status s;
    if (o.input == PPROF_PERF_INPUT_SCRIPT || (o.input == PPROF_PERF_INPUT_AUTO && !magic)) {
        if (o.input == PPROF_PERF_INPUT_AUTO && !perf__looks_like_script(data, size))
            s = pprof__error(err, PPROF_E_INVALID, 0, "header",
                             "neither a perf.data file (magic PERFILE2) nor perf script text");
        else
            s = perf__read_script(data, size, &o, k, st, err);
    } else {
        s = read_data(data, size, &o, end_hint, release, release_ctx, k, st, err);
    }
    if (stats) {
        size_t n = stats->struct_size < sizeof(local) ? stats->struct_size : sizeof(local);
        local.struct_size = stats->struct_size;
        memcpy(stats, &local, n);
    }
    if (s && *out) {
        pprof_profile_free(*out);
        *out = NULL;
    }
    return s;
}

pprof_status
pprof_perf_read_memory(const void *data, size_t size, const pprof_perf_options *opts,
                       pprof_profile **out, pprof_perf_stats *stats, pprof_error *err)
{
    if (!out || (!data && size))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "NULL argument");
    perf__sink k = {out, NULL, NULL};
    return dispatch(data, size, opts, 0, NULL, NULL, &k, stats, err);
}

typedef struct mapped {
    uint8_t *base;
    size_t dropped;
} mapped;

/* Pages already replayed are dropped from the process's memory: a mapped input of any size then
 * costs a round's worth of resident pages, not the file's. */
static void
release_pages(void *ctx, uint64_t upto)
{
    mapped *m = ctx;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t to = (size_t)upto / page * page;
    if (to > m->dropped) {
        madvise(m->base + m->dropped, to - m->dropped, MADV_DONTNEED);
        m->dropped = to;
    }
}

static pprof_status
from_file(const char *path, const pprof_perf_options *opts, const perf__sink *k,
          pprof_perf_stats *stats, pprof_error *err)
{
    pprof_profile **out = k->out;
    pprof_perf_options o = PPROF_PERF_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    o.struct_size = sizeof(o);
    if (strcmp(path, "-") != 0) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return pprof__error(err, PPROF_E_IO, PPROF_NO_OFFSET, "", "cannot open: %s",
                                strerror(errno));
        struct stat sb;
        if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
            if ((uint64_t)sb.st_size > o.max_input_bytes) {
                close(fd);
                return pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                                    "file of %lld bytes exceeds the input limit of %llu bytes",
                                    (long long)sb.st_size, (unsigned long long)o.max_input_bytes);
            }
            size_t n = (size_t)sb.st_size;
            void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
            close(fd);
            if (m == MAP_FAILED)
                return pprof__error(err, PPROF_E_IO, PPROF_NO_OFFSET, "", "cannot map: %s",
                                    strerror(errno));
            madvise(m, n, MADV_SEQUENTIAL);
            int64_t mtime = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
            mapped mc = {m, 0};
            pprof_status s = dispatch(m, n, &o, mtime, release_pages, &mc, k, stats, err);
            munmap(m, n);
            return s;
        }
        close(fd);
    }
    uint8_t *buf = NULL;
    size_t len = 0;
    pprof_status s = pprof__read_all(path, o.max_input_bytes, &o.allocator, &buf, &len, err);
    if (s)
        return s;
    s = dispatch(buf, len, &o, 0, NULL, NULL, k, stats, err);
    pprof__free(&o.allocator, buf);
    (void)out;
    return s;
}

pprof_status
pprof_perf_read_file(const char *path, const pprof_perf_options *opts, pprof_profile **out,
                     pprof_perf_stats *stats, pprof_error *err)
{
    if (!path || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "NULL argument");
    perf__sink k = {out, NULL, NULL};
    return from_file(path, opts, &k, stats, err);
}

pprof_status
pprof_perf_convert_file(const char *in, const pprof_perf_options *opts,
                        const pprof_write_options *wopts, const char *out, pprof_perf_stats *stats,
                        pprof_error *err)
{
    if (!in || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "NULL argument");
    perf__sink k = {NULL, out, wopts};
    return from_file(in, opts, &k, stats, err);
}

static void
say(char *buf, size_t cap, size_t *n, uint64_t count, const char *what)
{
    if (!count)
        return;
    int k = snprintf(*n < cap ? buf + *n : NULL, *n < cap ? cap - *n : 0, "%s%llu %s",
                     *n ? "; " : "", (unsigned long long)count, what);
    if (k > 0)
        *n += (size_t)k;
}

size_t
pprof_perf_warning(const pprof_perf_stats *s, char *buf, size_t cap)
{
    size_t n = 0;
    if (cap)
        buf[0] = 0;
    if (!s)
        return 0;
    say(buf, cap, &n, s->dwarf_stacks,
        "samples with DWARF register/stack dumps (not unwound; leaf and frame-pointer chain "
        "kept)");
    say(buf, cap, &n, s->branch_stacks, "samples with branch stacks (not converted)");
    say(buf, cap, &n, s->raw_payloads, "samples with raw tracepoint payloads (not converted)");
    say(buf, cap, &n, s->aux_records, "AUX data records or samples (not converted)");
    say(buf, cap, &n, s->compressed_records, "compressed records (perf record -z; not read)");
    say(buf, cap, &n, s->unknown_records, "records of unknown types (skipped)");
    say(buf, cap, &n, s->samples_unknown_id, "samples of an unknown event id (skipped)");
    say(buf, cap, &n, s->lost, "samples lost by the kernel");
    say(buf, cap, &n, s->truncated_bytes, "bytes at the end cut off (truncated file)");
    say(buf, cap, &n, s->rounds_split, "rounds too long to sort whole (replayed in pieces)");
    say(buf, cap, &n, s->bad_lines, "text lines not understood (skipped)");
    return n;
}
