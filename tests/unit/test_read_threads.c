/* pprof.h's thread rule: a profile no longer modified may be read from many threads. Four
 * threads run every read-only entry point (check, validate, report, render, flame tree,
 * folded, speedscope, cpuprofile and OTLP writers, edit, symbolize into a new profile, merger
 * add) on one freshly read profile whose id indices are not built yet, each round starting with
 * another entry point, so that each one races the others to the first use. Every thread's
 * output must equal the one of the same calls made on a profile of its own, and under TSan
 * (scripts/test runs this test in its tsan configuration) no data race may be reported.
 *
 * The profile's one mapping is this program's executable segment and some locations are
 * addresses of this program's functions without lines, so that symbolizing has work to do. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "pb.h"
#include "testutil.h"

#include "pprof/check.h"
#include "pprof/edit.h"
#include "pprof/flame.h"
#include "pprof/folded.h"
#include "pprof/interchange.h"
#include "pprof/merge.h"
#include "pprof/otlp.h"
#include "pprof/report.h"
#include "pprof/symbolize.h"

enum { THREADS = 4, FUNCS = 300, LOCS = 900, SAMPLES = 1500, ADDRS = 4 };

/* Entry points, in the order a thread starting with entry 0 runs them. */
enum {
    E_CHECK,
    E_VALIDATE,
    E_REPORT,
    E_TOP,
    E_DOT,
    E_FLAME,
    E_FOLDED,
    E_SPEEDSCOPE,
    E_CPUPROFILE,
    E_OTLP,
    E_EDIT,
    E_SYMBOLIZE,
    E_MERGE,
    E_COUNT
};
static const char *const entry_name[E_COUNT] = {
    "pprof_check",
    "pprof_validate",
    "pprof_report_new",
    "pprof_report_write_memory top",
    "pprof_report_write_memory dot",
    "pprof_flame_tree_new",
    "pprof_folded_write_memory",
    "pprof_speedscope_write_memory",
    "pprof_cpuprofile_write_memory",
    "pprof_otlp_write_memory",
    "pprof_edit",
    "pprof_symbolize",
    "pprof_merger_add",
};

/* The executable segment of this program, for the mapping symbolize resolves against. */
typedef struct exe_seg {
    char path[PATH_MAX];
    uint64_t start, limit, offset;
    bool found;
} exe_seg;

/* Functions whose addresses go into the profile; noinline so each has a body of its own. */
static __attribute__((noinline)) int
rt_leaf_a(int x)
{
    return x * 3 + 1;
}
static __attribute__((noinline)) int
rt_leaf_b(int x)
{
    return rt_leaf_a(x) ^ 5;
}

static exe_seg
find_exe(void)
{
    exe_seg s = {.found = false};
    ssize_t n = readlink("/proc/self/exe", s.path, sizeof(s.path) - 1);
    FILE *f = n > 0 ? fopen("/proc/self/maps", "r") : NULL;
    if (!f)
        return s;
    s.path[n] = 0;
    uint64_t want = (uint64_t)(uintptr_t)&rt_leaf_a;
    char line[PATH_MAX + 128];
    while (fgets(line, sizeof(line), f)) {
        unsigned long long a, b, off;
        char perm[8];
        int at = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &a, &b, perm, &off, &at) < 4 || !at)
            continue;
        if (perm[2] != 'x' || want < a || want >= b)
            continue;
        char *nl = strchr(line + at, '\n');
        if (nl)
            *nl = 0;
        s.found = strcmp(line + at, s.path) == 0;
        s.start = a;
        s.limit = b;
        s.offset = off;
        break;
    }
    fclose(f);
    return s;
}

/* Sparse, descending ids, so that every index needs a hash table and takes a while to build. */
static uint64_t
sparse_id(size_t i, size_t n)
{
    return 3 * (uint64_t)(n - i) + 7;
}

static uint64_t
rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The encoded profile: strings "" samples count cpu nanoseconds exe file.c f0..f{FUNCS-1}. */
static pb
make_profile(const exe_seg *exe)
{
    pb b = {0}, s = {0}, l = {0};
    pb_value_type(&b, 1, 1, 2);
    pb_value_type(&b, 1, 3, 4);
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < SAMPLES; i++) {
        uint64_t stack[12];
        size_t depth = 3 + rnd(&seed) % 10;
        for (size_t d = 0; d < depth; d++)
            stack[d] = sparse_id(rnd(&seed) % LOCS, LOCS);
        uint64_t values[2] = {1 + rnd(&seed) % 5, 10000000 * (1 + rnd(&seed) % 7)};
        pb_packed(&s, 1, stack, depth);
        pb_packed(&s, 2, values, 2);
        pb_msg_free(&b, 2, &s);
    }
    pb_v(&s, 1, 42); /* mapping id */
    pb_v(&s, 2, exe->start);
    pb_v(&s, 3, exe->limit);
    pb_v(&s, 4, exe->offset);
    pb_v(&s, 5, 5);
    pb_msg_free(&b, 3, &s);
    uint64_t addrs[ADDRS] = {(uint64_t)(uintptr_t)&rt_leaf_a, (uint64_t)(uintptr_t)&rt_leaf_b,
                             (uint64_t)(uintptr_t)&find_exe, (uint64_t)(uintptr_t)&make_profile};
    for (size_t i = 0; i < LOCS; i++) {
        pb_v(&s, 1, sparse_id(i, LOCS));
        pb_v(&s, 2, 42);
        if (i % 3 == 0) { /* an address left to symbolize */
            pb_v(&s, 3, addrs[i / 3 % ADDRS]);
        } else {
            pb_v(&s, 3, exe->start + 16 * i);
            pb_v(&l, 1, sparse_id(i % FUNCS, FUNCS));
            pb_v(&l, 2, 10 + i);
            pb_msg_free(&s, 4, &l);
        }
        pb_msg_free(&b, 4, &s);
    }
    for (size_t i = 0; i < FUNCS; i++) {
        pb_v(&s, 1, sparse_id(i, FUNCS));
        pb_v(&s, 2, 7 + i);
        pb_v(&s, 4, 6);
        pb_msg_free(&b, 5, &s);
    }
    const char *fixed[] = {"", "samples", "count", "cpu", "nanoseconds", exe->path, "file.c"};
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        pb_str(&b, 6, fixed[i]);
    for (size_t i = 0; i < FUNCS; i++) {
        char name[32];
        snprintf(name, sizeof(name), "main.f%zu", i);
        pb_str(&b, 6, name);
    }
    pb_value_type(&b, 11, 3, 4);
    pb_v(&b, 12, 10000000);
    return b;
}

/* What one entry point produced: its status and its bytes (or a digest of its result). */
typedef struct result {
    pprof_status st;
    pprof_buffer out;
} result;

typedef struct job {
    pprof_profile *p; /* shared; only read */
    pthread_barrier_t *go;
    int first;
    bool symbolize;
    result r[E_COUNT];
} job;

static pprof_status
write_profile(pprof_profile *q, pprof_status st, pprof_buffer *out, pprof_error *err)
{
    if (st == PPROF_OK) {
        pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
        wo.format = PPROF_FORMAT_RAW;
        st = pprof_profile_write_memory(q, &wo, out, err);
    }
    pprof_profile_free(q);
    return st;
}

static void
put_u64(pprof_buffer *out, uint64_t v)
{
    uint8_t *d = realloc(out->data, out->len + sizeof(v));
    if (!d)
        abort();
    memcpy(d + out->len, &v, sizeof(v));
    out->data = d;
    out->len += sizeof(v);
    out->cap = out->len;
}

static pprof_status
run_entry(int e, pprof_profile *p, bool symbolize, pprof_buffer *out)
{
    pprof_error err;
    switch (e) {
    case E_CHECK: {
        pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
        pprof_status st = pprof_check(p, NULL, NULL, NULL, &sum, &err);
        for (int k = 0; k < 3; k++)
            put_u64(out, sum.count[k]);
        return st;
    }
    case E_VALIDATE: return pprof_validate(p, NULL, NULL, 0, NULL, &err);
    case E_REPORT: {
        pprof_report *r = NULL;
        pprof_status st = pprof_report_new(p, NULL, &r, &err);
        if (st == PPROF_OK)
            st = pprof_report_print(r, PPROF_PRINT_TEXT, out, &err);
        pprof_report_free(r);
        return st;
    }
    case E_TOP:
    case E_DOT: {
        pprof_report_render_options o = PPROF_REPORT_RENDER_OPTIONS_INIT;
        o.format = e == E_TOP ? PPROF_REPORT_TOP : PPROF_REPORT_DOT;
        return pprof_report_write_memory(p, &o, PPROF_PRINT_TEXT, out, &err);
    }
    case E_FLAME: {
        pprof_flame_tree *t = NULL;
        pprof_status st = pprof_flame_tree_new(p, NULL, NULL, &t, &err);
        pprof_flame_write_options o = PPROF_FLAME_WRITE_OPTIONS_INIT;
        o.format = PPROF_FLAME_JSON;
        if (st == PPROF_OK)
            st = pprof_flame_write_memory(t, &o, out, &err);
        pprof_flame_tree_free(t);
        return st;
    }
    case E_FOLDED: return pprof_folded_write_memory(p, NULL, out, &err);
    case E_SPEEDSCOPE: return pprof_speedscope_write_memory(p, NULL, out, &err);
    case E_CPUPROFILE: return pprof_cpuprofile_write_memory(p, NULL, out, &err);
    case E_OTLP: {
        const pprof_profile *ps[1] = {p};
        return pprof_otlp_write_memory(ps, 1, NULL, out, &err);
    }
    case E_EDIT: {
        pprof_edit_options o;
        pprof_edit_options_init(&o);
        pprof_profile *q = NULL;
        pprof_status st = pprof_edit(p, &o, &q, &err);
        return write_profile(q, st, out, &err);
    }
    case E_SYMBOLIZE: {
        if (!symbolize)
            return PPROF_OK;
        pprof_symbolize_options o = PPROF_SYMBOLIZE_OPTIONS_INIT;
        o.debuginfod_cache = "";
        pprof_profile *q = NULL;
        pprof_symbolize_report *rep = NULL;
        pprof_status st = pprof_symbolize(p, &o, &q, &rep, &err);
        uint64_t resolved = 0; /* first in out, for main's check that the mapping was used */
        for (size_t i = 0; rep && i < pprof_symbolize_report_count(rep); i++)
            resolved += pprof_symbolize_report_mapping(rep, i).resolved;
        put_u64(out, resolved);
        pprof_symbolize_report_free(rep);
        return write_profile(q, st, out, &err);
    }
    case E_MERGE: {
        pprof_merger *m = NULL;
        pprof_status st = pprof_merger_new(NULL, &m, &err);
        if (st == PPROF_OK)
            st = pprof_merger_add(m, p, "shared", &err);
        pprof_profile *q = NULL;
        if (st == PPROF_OK)
            st = pprof_merger_finish(m, &q, &err);
        pprof_merger_free(m);
        return write_profile(q, st, out, &err);
    }
    }
    return PPROF_E_ARG;
}

static void *
worker(void *arg)
{
    job *j = arg;
    if (j->go)
        pthread_barrier_wait(j->go);
    for (int k = 0; k < E_COUNT; k++) {
        int e = (j->first + k) % E_COUNT;
        j->r[e].st = run_entry(e, j->p, j->symbolize, &j->r[e].out);
    }
    return NULL;
}

static void
free_job(job *j)
{
    for (int e = 0; e < E_COUNT; e++)
        pprof_buffer_free(&j->r[e].out);
}

int
main(void)
{
    tap t = {0};
    exe_seg exe = find_exe();
    if (!exe.found) /* the other entry points still run on the profile */
        exe = (exe_seg){.path = "/nonexistent", .start = 0x400000, .limit = 0x800000};
    pb enc = make_profile(&exe);
    pprof_read_options ro = PPROF_READ_OPTIONS_INIT;

    /* The reference: every entry point on a profile of its own, one at a time. */
    job ref = {.symbolize = exe.found};
    pprof_error err;
    if (!tap_ok(&t, pprof_profile_read_memory(enc.d, enc.n, &ro, &ref.p, &err) == PPROF_OK,
                "the profile reads"))
        return tap_done(&t);
    worker(&ref);
    for (int e = 0; e < E_COUNT; e++) {
        if (e == E_SYMBOLIZE && !exe.found)
            tap_ok(&t, 1, "%s # SKIP this program's executable mapping is not in /proc/self/maps",
                   entry_name[e]);
        else if (e == E_SYMBOLIZE) {
            uint64_t resolved = 0;
            if (ref.r[e].out.len >= sizeof(resolved))
                memcpy(&resolved, ref.r[e].out.data, sizeof(resolved));
            tap_ok(&t, ref.r[e].st == PPROF_OK && resolved > 0,
                   "%s on its own profile resolves addresses in this program (status %d, %llu "
                   "of %d)",
                   entry_name[e], (int)ref.r[e].st, (unsigned long long)resolved, ADDRS);
        } else
            tap_ok(&t, ref.r[e].st == PPROF_OK && (e == E_VALIDATE || ref.r[e].out.len > 0),
                   "%s on its own profile succeeds (status %d, %zu bytes)", entry_name[e],
                   (int)ref.r[e].st, ref.r[e].out.len);
    }
    pprof_profile_free(ref.p);

    unsigned differ[E_COUNT] = {0};
    for (int round = 0; round < E_COUNT; round++) {
        pprof_profile *p = NULL;
        if (pprof_profile_read_memory(enc.d, enc.n, &ro, &p, &err)) {
            tap_ok(&t, 0, "round %d: the profile reads", round);
            continue;
        }
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, THREADS);
        job jobs[THREADS];
        pthread_t th[THREADS];
        for (int i = 0; i < THREADS; i++) {
            jobs[i] = (job){.p = p, .go = &go, .first = round, .symbolize = exe.found};
            pthread_create(&th[i], NULL, worker, &jobs[i]);
        }
        for (int i = 0; i < THREADS; i++) {
            pthread_join(th[i], NULL);
            for (int e = 0; e < E_COUNT; e++) {
                const result *a = &jobs[i].r[e], *b = &ref.r[e];
                differ[e] += a->st != b->st || a->out.len != b->out.len ||
                             (a->out.len && memcmp(a->out.data, b->out.data, a->out.len) != 0);
            }
            free_job(&jobs[i]);
        }
        pthread_barrier_destroy(&go);
        pprof_profile_free(p);
    }
    for (int e = 0; e < E_COUNT; e++)
        tap_ok(&t, differ[e] == 0,
               "%s from %d threads at once on one shared profile gives the reference output "
               "(%u of %d calls differ)",
               entry_name[e], THREADS, differ[e], THREADS * E_COUNT);
    free_job(&ref);
    pb_free(&enc);
    return tap_done(&t);
}
