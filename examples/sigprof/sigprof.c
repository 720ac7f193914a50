/* sigprof: a small SIGPROF sampling profiler built on pprof_builder, profiling a workload in
 * its own process.
 *
 *   sigprof [-o out.pb.gz] [--seconds S] [--hz N] [--raw]
 *
 * How it works:
 * - setitimer(ITIMER_PROF) delivers SIGPROF every 1/hz s of CPU time. Only the workload
 *   thread can take it: the drain thread blocks SIGPROF, so the ring has a single producer.
 * - The handler is async-signal-safe: it reads the interrupted PC and frame pointer from the
 *   ucontext, walks the frame-pointer chain (the program is built with
 *   -fno-omit-frame-pointer) within [interrupted sp, stack top), and publishes the raw PCs
 *   into a lock-free single-producer/single-consumer ring with atomics only. No locks, no
 *   allocation, no libc calls besides errno save/restore.
 * - A normal thread drains the ring and adds samples of raw addresses to a pprof_builder, in
 *   the mappings of /proc/self/maps: no names are looked up while profiling.
 * - On write the profile is symbolized through pprof_symbolize (pprof/symbolize.h) from the
 *   mappings' ELF files and DWARF (functions, inline frames, lines) and written atomically;
 *   --raw writes the addresses as recorded, for pprof-symbolize to name later, elsewhere.
 * - Built with -DSIGPROF_CORE_ONLY it is the profiler that embeds libpprof: it links the core
 *   library alone (statically, through pkg-config --static libpprof: libc, libm, libpthread,
 *   zlib, libdeflate and libzstd are all it needs), and always writes raw addresses;
 *   tests/builder/static-embed.sh builds and runs it so. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "pprof/builder.h"
#ifndef SIGPROF_CORE_ONLY
#include "pprof/symbolize.h"
#endif

enum { RING_SLOTS = 1024, MAX_DEPTH = 64, MAX_MAPS = 256, CACHE = 4096 };

typedef struct record {
    uint32_t depth;
    uintptr_t pc[MAX_DEPTH]; /* pc[0] is the interrupted PC, then return addresses */
} record;

typedef struct ring {
    _Atomic size_t head; /* advanced by the signal handler only */
    _Atomic size_t tail; /* advanced by the drain thread only */
    _Atomic uint64_t dropped;
    _Atomic uint64_t recorded;
    uintptr_t stack_hi; /* top of the workload thread's stack, set before the timer starts */
    record slot[RING_SLOTS];
} ring;

/* The one piece of process state: a signal handler gets no context argument. Set before the
 * handler is installed and cleared after the timer is stopped. */
static ring *_Atomic the_ring;

static void
on_sigprof(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    (void)si;
    int saved_errno = errno;
    ring *r = atomic_load_explicit(&the_ring, memory_order_acquire);
    if (!r)
        goto out;
    size_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    size_t t = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (h - t >= RING_SLOTS) {
        atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
        goto out;
    }
    record *rec = &r->slot[h % RING_SLOTS];
    const ucontext_t *uc = ucv;
#if defined(__x86_64__)
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    uintptr_t fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
    uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.pc;
    uintptr_t fp = (uintptr_t)uc->uc_mcontext.regs[29];
    uintptr_t sp = (uintptr_t)uc->uc_mcontext.sp;
#else
#error "sigprof supports x86_64 and aarch64"
#endif
    uint32_t n = 0;
    rec->pc[n++] = pc;
    /* Frame records {saved fp, return address} live between sp and the stack top, which is
     * mapped; anything outside, misaligned or not strictly increasing ends the walk. */
    while (n < MAX_DEPTH && r->stack_hi && fp >= sp && fp <= r->stack_hi - 2 * sizeof(uintptr_t) &&
           (fp & (sizeof(uintptr_t) - 1)) == 0) {
        const uintptr_t *frame = (const uintptr_t *)fp;
        uintptr_t next = frame[0], ret = frame[1];
        if (!ret)
            break;
        rec->pc[n++] = ret;
        if (next <= fp)
            break;
        fp = next;
    }
    rec->depth = n;
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
    atomic_fetch_add_explicit(&r->recorded, 1, memory_order_relaxed);
out:
    errno = saved_errno;
}

/* ---------------------------------------------------------------- the workload
 * noinline keeps them as frames; gcc at -O3 would still run a private constant-propagated
 * clone (workload_hot.constprop.0), named so in the profile, so it gets noclone too (clang has
 * no such attribute and does not clone these). */
#if defined(__GNUC__) && !defined(__clang__)
#define KEEP_FRAME __attribute__((noinline, noclone))
#else
#define KEEP_FRAME __attribute__((noinline))
#endif

double workload_hot(long n);
double workload_warm(long n);
double workload_cold(long n);
void run_workload(double seconds);

KEEP_FRAME double
workload_hot(long n)
{
    volatile double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 0.5 / (x + 1.0);
    return x;
}

KEEP_FRAME double
workload_warm(long n)
{
    volatile double x = 2.0;
    for (long i = 0; i < n; i++)
        x = x * 0.9999999 + 1.0 / (x + 3.0);
    return x;
}

KEEP_FRAME double
workload_cold(long n)
{
    volatile double x = 3.0;
    for (long i = 0; i < n; i++)
        x = x + 1.0 / (x + 5.0);
    return x;
}

static double
thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* About 70% hot, 22% warm, 8% cold, until the thread has used `seconds` of CPU. */
KEEP_FRAME void
run_workload(double seconds)
{
    double start = thread_cpu_seconds(), sink = 0;
    while (thread_cpu_seconds() - start < seconds) {
        sink += workload_hot(700000);
        sink += workload_warm(220000);
        sink += workload_cold(80000);
    }
    if (sink == 42.0)
        puts("");
}

/* ---------------------------------------------------------------- addresses (drain side) */

typedef struct map_entry {
    uintptr_t start, limit, offset;
    char path[256];
} map_entry;

typedef struct drain {
    ring *r;
    pprof_builder *b;
    _Atomic bool stop;
    map_entry maps[MAX_MAPS];
    size_t n_maps;
    struct {
        uintptr_t pc;
        pprof_builder_loc loc;
    } cache[CACHE];
    uint64_t samples, errors;
    int64_t period_ns;
} drain;

/* Executable mappings of the process; read once, in normal context. */
static void
read_maps(drain *d)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return;
    char line[512];
    while (d->n_maps < MAX_MAPS && fgets(line, sizeof(line), f)) {
        unsigned long s, e, off;
        char perms[8], path[256] = "";
        if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %255[^\n]", &s, &e, perms, &off, path) < 4)
            continue;
        if (perms[2] != 'x')
            continue;
        map_entry *m = &d->maps[d->n_maps++];
        m->start = s;
        m->limit = e;
        m->offset = off;
        snprintf(m->path, sizeof(m->path), "%s", path);
    }
    fclose(f);
}

/* An address-only location in its mapping: nothing is named here, pprof_symbolize does it on
 * write. */
static pprof_status
location(drain *d, uintptr_t pc, bool leaf, pprof_builder_loc *out)
{
    /* A return address points after the call: the call instruction itself is one byte back,
     * where the symbolizer finds the caller's line (pprof allows a non-leaf address anywhere
     * in its call instruction). */
    uintptr_t addr = leaf ? pc : pc - 1;
    size_t slot = (addr >> 2) % CACHE;
    if (d->cache[slot].pc == addr) {
        *out = d->cache[slot].loc;
        return PPROF_OK;
    }
    pprof_builder *b = d->b;
    pprof_status st;
    pprof_builder_map map = PPROF_BUILDER_NONE;
    for (size_t i = 0; i < d->n_maps; i++) {
        const map_entry *m = &d->maps[i];
        if (addr >= m->start && addr < m->limit) {
            pprof_builder_mapping_desc md = {m->start, m->limit, m->offset, {0},  {0},
                                             false,    false,    false,     false};
            if ((st = pprof_builder_intern_cstr(b, m->path, &md.filename, NULL)) ||
                (st = pprof_builder_mapping(b, &md, &map, NULL)))
                return st;
            break;
        }
    }
    if ((st = pprof_builder_location(b, map, addr, NULL, 0, false, out, NULL)))
        return st;
    d->cache[slot].pc = addr;
    d->cache[slot].loc = *out;
    return PPROF_OK;
}

static void
add_record(drain *d, const record *rec)
{
    pprof_builder_loc stack[MAX_DEPTH];
    int64_t values[2] = {1, d->period_ns};
    for (int attempt = 0; attempt < 2; attempt++) {
        pprof_status st = PPROF_OK;
        for (uint32_t i = 0; i < rec->depth && !st; i++)
            st = location(d, rec->pc[i], i == 0, &stack[i]);
        if (!st)
            st = pprof_builder_add_sample(d->b, values, 2, stack, rec->depth, NULL, 0, NULL);
        if (st == PPROF_E_STALE) { /* someone reset the builder: cached handles are gone */
            memset(d->cache, 0, sizeof(d->cache));
            continue;
        }
        if (st)
            d->errors++;
        else
            d->samples++;
        return;
    }
    d->errors++;
}

static void *
drain_main(void *arg)
{
    drain *d = arg;
    ring *r = d->r;
    for (;;) {
        size_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
        size_t h = atomic_load_explicit(&r->head, memory_order_acquire);
        if (t == h) {
            if (atomic_load(&d->stop))
                break;
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
            continue;
        }
        record rec;
        const record *src = &r->slot[t % RING_SLOTS];
        rec.depth = src->depth;
        memcpy(rec.pc, src->pc, rec.depth * sizeof(uintptr_t));
        atomic_store_explicit(&r->tail, t + 1, memory_order_release);
        add_record(d, &rec);
    }
    return NULL;
}

/* ---------------------------------------------------------------- main */

static uintptr_t
stack_top(void)
{
    pthread_attr_t a;
    void *addr;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &a) != 0)
        return 0;
    pthread_attr_getstack(&a, &addr, &size);
    pthread_attr_destroy(&a);
    return (uintptr_t)addr + size;
}

#ifndef SIGPROF_CORE_ONLY
/* The builder's profile symbolized from the mappings' files, then written atomically; mappings
 * that could not be symbolized are named on stderr and keep their addresses. */
static pprof_status
write_symbolized(pprof_builder *b, const char *out, pprof_error *err)
{
    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW; /* read right back: no compression in between */
    pprof_buffer buf = {0};
    pprof_profile *p = NULL, *sym = NULL;
    pprof_symbolize_report *rep = NULL;
    pprof_status st = pprof_builder_write_memory(b, PPROF_BUILDER_RESET, &raw, &buf, err);
    if (!st)
        st = pprof_profile_read_memory(buf.data, buf.len, NULL, &p, err);
    pprof_buffer_free(&buf);
    if (!st)
        st = pprof_symbolize(p, NULL, &sym, &rep, err);
    uint64_t resolved = 0;
    for (size_t i = 0; !st && i < pprof_symbolize_report_count(rep); i++) {
        pprof_symbolize_mapping m = pprof_symbolize_report_mapping(rep, i);
        resolved += m.resolved;
        if (m.result != PPROF_SYMBOLIZE_OK && m.result != PPROF_SYMBOLIZE_NOTHING_TO_DO)
            fprintf(stderr, "sigprof: %s not symbolized: %s: %s\n",
                    m.mapping_file[0] ? m.mapping_file : "a mapping without a file",
                    pprof_symbolize_result_name(m.result), m.reason);
    }
    if (!st) {
        fprintf(stderr,
                "sigprof: symbolized on write: %llu addresses named, %llu left unresolved\n",
                (unsigned long long)resolved,
                (unsigned long long)pprof_symbolize_report_unresolved(rep));
        st = pprof_profile_write_file(sym, NULL, out, err);
    }
    pprof_symbolize_report_free(rep);
    pprof_profile_free(sym);
    pprof_profile_free(p);
    return st;
}

#endif

int
main(int argc, char **argv)
{
    const char *out = "sigprof.pb.gz";
    double seconds = 2.0;
    int hz = 100;
    bool raw = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--hz") && i + 1 < argc)
            hz = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--raw"))
            raw = true;
        else {
            fprintf(stderr, "usage: sigprof [-o out.pb.gz] [--seconds S] [--hz N] [--raw]\n");
            return 2;
        }
    }
    if (hz < 1 || hz > 10000 || !(seconds > 0)) {
        fprintf(stderr, "sigprof: --hz must be 1..10000 and --seconds positive\n");
        return 2;
    }

    static const pprof_builder_value_type types[] = {{"samples", "count"}, {"cpu", "nanoseconds"}};
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    o.sample_types = types;
    o.n_sample_types = 2;
    o.period_type = types[1];
    o.period = 1000000000 / hz;
    o.default_sample_type = "cpu";
    pprof_error err;
    drain *d = calloc(1, sizeof(*d));
    ring *r = calloc(1, sizeof(*r));
    if (!d || !r || pprof_builder_new(&o, &d->b, &err) != PPROF_OK) {
        fprintf(stderr, "sigprof: cannot set up the builder\n");
        return 3;
    }
    d->r = r;
    d->period_ns = o.period;
    r->stack_hi = stack_top();
    read_maps(d);

    /* The drain thread inherits a mask with SIGPROF blocked: one producer only. */
    sigset_t prof, old;
    sigemptyset(&prof);
    sigaddset(&prof, SIGPROF);
    pthread_sigmask(SIG_BLOCK, &prof, &old);
    pthread_t th;
    if (pthread_create(&th, NULL, drain_main, d) != 0) {
        fprintf(stderr, "sigprof: cannot start the drain thread\n");
        return 3;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    atomic_store_explicit(&the_ring, r, memory_order_release);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_sigprof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval it = {{0, 1000000 / hz}, {0, 1000000 / hz}};
    struct timespec t0, t1;
    clock_gettime(CLOCK_REALTIME, &t0);
    setitimer(ITIMER_PROF, &it, NULL);

    run_workload(seconds);

    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    clock_gettime(CLOCK_REALTIME, &t1);
    signal(SIGPROF, SIG_IGN);
    atomic_store_explicit(&the_ring, NULL, memory_order_release);
    atomic_store(&d->stop, true);
    pthread_join(th, NULL);

    int64_t start_ns = (int64_t)t0.tv_sec * 1000000000 + t0.tv_nsec;
    int64_t end_ns = (int64_t)t1.tv_sec * 1000000000 + t1.tv_nsec;
    pprof_builder_set_time(d->b, start_ns, end_ns - start_ns, NULL);
    pprof_builder_add_comment(d->b, "sigprof example (libpprof builder)", NULL);
    pprof_builder_stats s = PPROF_BUILDER_STATS_INIT;
    pprof_builder_get_stats(d->b, &s, NULL);
    int rc = 0;
#ifdef SIGPROF_CORE_ONLY
    (void)raw; /* only the core is linked: the addresses are named later, by pprof-symbolize */
    pprof_status wst = pprof_builder_write_file(d->b, PPROF_BUILDER_RESET, NULL, out, &err);
#else
    pprof_status wst = raw ? pprof_builder_write_file(d->b, PPROF_BUILDER_RESET, NULL, out, &err)
                           : write_symbolized(d->b, out, &err);
#endif
    if (wst != PPROF_OK) {
        fprintf(stderr, "sigprof: %s: %s\n", out, err.message);
        rc = 3;
    }
    fprintf(stderr,
            "sigprof: %llu signals recorded, %llu dropped (ring full), %llu samples added, %llu "
            "errors; %llu distinct stacks, %llu locations, %llu functions, %llu mappings -> %s\n",
            (unsigned long long)atomic_load(&r->recorded),
            (unsigned long long)atomic_load(&r->dropped), (unsigned long long)d->samples,
            (unsigned long long)d->errors, (unsigned long long)s.samples,
            (unsigned long long)s.locations, (unsigned long long)s.functions,
            (unsigned long long)s.mappings, out);
    if (pprof_builder_free(d->b) != 0)
        rc = rc ? rc : 1;
    free(d);
    free(r);
    return rc;
}
