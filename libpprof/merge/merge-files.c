/* pprof_merger_add_files: a list of files decoded on worker threads into a bounded window ahead
 * of the merger, which absorbs them in list order on the calling thread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "memory-private.h"
#include "merge.h"
#include "pool-private.h"
#include "profile-private.h"

/* How far decoding runs ahead of absorbing: two inputs per thread always; up to four while the
 * files taken and not yet absorbed add up to less than WINDOW_BYTES, so that memory stays bounded
 * for large inputs. The deeper window is for many small inputs: with two per thread, the calling
 * thread often found its next input not ready and decoded one itself, which delayed the merge
 * (docs/bench/core.md). */
#define WINDOW_MIN_PER_THREAD 2
#define WINDOW_MAX_PER_THREAD 4
#define WINDOW_BYTES ((uint64_t)16 << 20)
/* The calling thread limits the run and decoding has the window's slack: at equal priority, more
 * runnable threads than cores take the merger's share whenever all run. Should other work starve
 * the decoding jobs, the merger decodes its next input itself. */
#define DECODE_NICE 10
#define MAX_THREADS 256
#define NO_SIZE UINT64_MAX

/* A finding of a decoding thread's check, kept for the calling thread to deliver. */
typedef struct kept_finding {
    pprof_rule rule;
    const char *rule_id; /* static */
    pprof_severity severity;
    uint64_t offset;
    char *path, *message;
} kept_finding;

typedef struct file_slot {
    pprof_merge_input *in; /* the usual way in: samples decoded while absorbed */
    pprof_profile *p;      /* with check, which needs the whole profile */
    pprof_status st;
    pprof_merge_file_stage stage;
    pprof_error err;
    uint64_t bytes; /* the file's size, NO_SIZE when unknown */
    uint64_t check_errors;
    /* The check's findings, delivered in list order when the file is absorbed: which later
     * files a decoding thread had checked when the merge stopped must not change the output. */
    kept_finding *found;
    size_t n_found, cap_found;
    bool done;
} file_slot;

typedef struct file_pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const char *const *paths;
    size_t n;
    size_t next;     /* next index to decode */
    size_t consumed; /* slots below this were absorbed */
    size_t window_min, window_max;
    uint64_t ahead_bytes; /* of the slots taken and not yet absorbed */
    bool stop;
    file_slot *slots;
    const pprof_merge_files_options *o;
    const pprof_read_options *ro;
} file_pool;

static uint64_t
file_size(const char *path)
{
    struct stat sb;
    return strcmp(path, "-") && stat(path, &sb) == 0 && sb.st_size >= 0 ? (uint64_t)sb.st_size
                                                                        : NO_SIZE;
}

/* What an input counts against WINDOW_BYTES: one of unknown size as if it filled the window. */
static uint64_t
window_cost(const file_slot *s)
{
    return s->bytes == NO_SIZE ? WINDOW_BYTES : s->bytes;
}

/* Whether the next input may be decoded now; called with pl->mu held. */
static bool
may_take(const file_pool *pl)
{
    if (pl->next >= pl->n)
        return false;
    size_t ahead = pl->next - pl->consumed;
    return ahead < pl->window_min || (ahead < pl->window_max && pl->ahead_bytes < WINDOW_BYTES);
}

typedef struct finding_keep {
    file_slot *s;
    bool nomem;
} finding_keep;

static char *
copy_str(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s ? s : "", n);
    return d;
}

/* Keeps a copy of the finding in the slot (the strings live only during the call). */
static bool
keep_finding(void *ctx, const pprof_finding *f)
{
    finding_keep *k = ctx;
    file_slot *s = k->s;
    if (s->n_found == s->cap_found) {
        size_t cap = s->cap_found ? 2 * s->cap_found : 16;
        kept_finding *v = realloc(s->found, cap * sizeof(*v));
        if (!v)
            return !(k->nomem = true);
        s->found = v;
        s->cap_found = cap;
    }
    kept_finding *g = &s->found[s->n_found];
    *g = (kept_finding){f->rule,   f->rule_id,        f->severity,
                        f->offset, copy_str(f->path), copy_str(f->message)};
    if (!g->path || !g->message) {
        free(g->path);
        free(g->message);
        return !(k->nomem = true);
    }
    s->n_found++;
    return true;
}

static void
free_found(file_slot *s)
{
    for (size_t i = 0; i < s->n_found; i++) {
        free(s->found[i].path);
        free(s->found[i].message);
    }
    free(s->found);
    s->found = NULL;
    s->n_found = s->cap_found = 0;
}

/* The kept findings to the caller's callback, with their file set to the path checked, on the
 * calling thread; a false from the callback drops the rest of the file's. */
static void
deliver_found(const pprof_merge_files_options *o, file_slot *s, const char *path)
{
    for (size_t i = 0; o->on_finding && i < s->n_found; i++) {
        const kept_finding *k = &s->found[i];
        pprof_finding g = {k->rule, k->rule_id, k->severity, path, k->offset, k->path, k->message};
        if (!o->on_finding(o->finding_ctx, &g))
            break;
    }
    free_found(s);
}

static void
check_whole(file_pool *pl, file_slot *s)
{
    finding_keep k = {s, false};
    pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
    s->stage = PPROF_MERGE_FILE_CHECK;
    s->st = pprof_check(s->p, pl->o->check_options, pl->o->on_finding ? keep_finding : NULL, &k,
                        &sum, &s->err);
    if (s->st == PPROF_OK && k.nomem)
        s->st = pprof__error(&s->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "",
                             "out of memory keeping the check's findings");
    if (s->st == PPROF_OK && sum.count[PPROF_SEVERITY_ERROR]) {
        s->check_errors = sum.count[PPROF_SEVERITY_ERROR];
        s->st = PPROF_E_INVALID;
        pprof__error(&s->err, PPROF_E_INVALID, PPROF_NO_OFFSET, "",
                     "the strict check found %llu error(s)", (unsigned long long)s->check_errors);
    }
}

/* Called without pl->mu held. */
static void
decode_one(file_pool *pl, size_t i)
{
    file_slot *s = &pl->slots[i];
    const char *path = pl->paths[i];
    s->bytes = file_size(path);
    pthread_mutex_lock(&pl->mu);
    pl->ahead_bytes += window_cost(s);
    pthread_mutex_unlock(&pl->mu);
    s->stage = PPROF_MERGE_FILE_READ;
    if (!pl->o->check) {
        s->st = pprof_merge_input_read_file(path, pl->ro, &s->in, &s->err);
        return;
    }
    s->st = pprof_profile_read_file(path, pl->ro, &s->p, &s->err);
    if (s->st == PPROF_OK)
        check_whole(pl, s);
}

static void
worker(void *arg)
{
    file_pool *pl = arg;
    pthread_mutex_lock(&pl->mu);
    for (;;) {
        while (!pl->stop && pl->next < pl->n && !may_take(pl))
            pthread_cond_wait(&pl->cv, &pl->mu);
        if (pl->stop || pl->next >= pl->n)
            break;
        size_t i = pl->next++;
        pthread_mutex_unlock(&pl->mu);
        decode_one(pl, i);
        pthread_mutex_lock(&pl->mu);
        pl->slots[i].done = true;
        pthread_cond_broadcast(&pl->cv);
    }
    pthread_mutex_unlock(&pl->mu);
}

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits until input i is decoded; rather than wait, decodes an input of the window itself: the
 * decoding threads share the cores with this one, and which side is short of time changes from
 * input to input. */
static void
wait_for(file_pool *pl, size_t i, bool threads)
{
    if (!threads) {
        pl->next = i + 1;
        decode_one(pl, i);
        pl->slots[i].done = true;
        return;
    }
    pthread_mutex_lock(&pl->mu);
    while (!pl->slots[i].done) {
        if (may_take(pl)) {
            size_t j = pl->next++;
            pthread_mutex_unlock(&pl->mu);
            decode_one(pl, j);
            pthread_mutex_lock(&pl->mu);
            pl->slots[j].done = true;
            pthread_cond_broadcast(&pl->cv);
            continue;
        }
        pthread_cond_wait(&pl->cv, &pl->mu);
    }
    pthread_mutex_unlock(&pl->mu);
}

/* Adds decoded input i to the merger and reports it; its slot is emptied. */
static pprof_status
absorb(pprof_merger *m, file_pool *pl, size_t i)
{
    file_slot *s = &pl->slots[i];
    const char *path = pl->paths[i];
    deliver_found(pl->o, s, path);
    if (s->st == PPROF_OK) {
        s->stage = PPROF_MERGE_FILE_ADD;
        s->st = s->in ? pprof_merger_add_input(m, s->in, path, &s->err)
                      : pprof_merger_add(m, s->p, path, &s->err);
    }
    pprof_merge_input_free(s->in);
    s->in = NULL;
    pprof_profile_free(s->p);
    s->p = NULL;
    if (pl->o->on_file) {
        pprof_merge_file_event ev = {
            i, path, s->bytes, s->st, s->stage, s->st ? &s->err : NULL, s->check_errors};
        pl->o->on_file(pl->o->ctx, &ev);
    }
    pthread_mutex_lock(&pl->mu);
    pl->consumed = i + 1;
    pl->ahead_bytes -= window_cost(s);
    if (s->st)
        pl->stop = true;
    pthread_cond_broadcast(&pl->cv);
    pthread_mutex_unlock(&pl->mu);
    return s->st;
}

static unsigned
decoding_threads(const pprof_merge_files_options *o, size_t n)
{
    unsigned t = o->threads;
    if (t == 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        t = c > 0 ? (unsigned)c : 1;
    }
    if (t > n)
        t = (unsigned)n;
    return t > MAX_THREADS ? MAX_THREADS : t;
}

/* The failing file's error, with its path in front when the error does not name it. */
static void
report_failure(const file_slot *s, const char *path, pprof_error *err)
{
    if (!err)
        return;
    *err = s->err;
    if (s->stage != PPROF_MERGE_FILE_ADD) {
        char msg[sizeof(err->message)];
        snprintf(msg, sizeof(msg), "%.100s: %.150s", path, s->err.message);
        memcpy(err->message, msg, sizeof(msg));
    }
}

void
pprof_merge_files_options_init(pprof_merge_files_options *opts)
{
    if (!opts)
        return;
    const pprof_merge_files_options def = PPROF_MERGE_FILES_OPTIONS_INIT;
    *opts = def;
}

pprof_status
pprof_merger_add_files(pprof_merger *m, const char *const *paths, size_t n,
                       const pprof_merge_files_options *opts, pprof_merge_files_summary *sum,
                       pprof_error *err)
{
    if (!m || (n && !paths))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no merger or no paths");
    pprof_merge_files_options o = PPROF_MERGE_FILES_OPTIONS_INIT;
    if (opts)
        memcpy(&o, opts, opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o));
    unsigned threads = decoding_threads(&o, n);
    file_pool pl = {.paths = paths,
                    .n = n,
                    .window_min = (size_t)threads * WINDOW_MIN_PER_THREAD,
                    .window_max = (size_t)threads * WINDOW_MAX_PER_THREAD,
                    .o = &o};
    pprof_read_options ro;
    pprof__read_options_fill(&ro, o.read);
    /* Without a caller's allocator, the inputs are decoded into the merger's blocks: what one
     * input frees serves the next and the merger's own tables, in huge pages, instead of fresh
     * memory whose pages the kernel faults in and zeroes again (docs/merge.md). */
    if (!ro.allocator.alloc && !ro.allocator.realloc && !ro.allocator.free)
        pprof__merger_blocks(m, &ro.allocator);
    pl.ro = &ro;
    const pprof_allocator *a = &ro.allocator;
    pl.slots = pprof__malloc(a, (n ? n : 1) * sizeof(file_slot));
    if (pl.slots)
        memset(pl.slots, 0, (n ? n : 1) * sizeof(file_slot));
    if (!pl.slots)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    pthread_mutex_init(&pl.mu, NULL);
    pthread_cond_init(&pl.cv, NULL);
    pprof__pool *pool = pprof__pool_new(threads);
    pprof__job jobs[MAX_THREADS];
    unsigned started = 0;
    for (; started < threads; started++) {
        jobs[started] =
            (pprof__job){.fn = worker, .arg = &pl, .nice = DECODE_NICE, .name = "pprof-decode"};
        if (!pprof__pool_start(pool, &jobs[started]))
            break;
    }
    pprof_status st = PPROF_OK;
    double waited = 0;
    size_t i = 0;
    for (; i < n && st == PPROF_OK; i++) {
        double t = now();
        wait_for(&pl, i, started > 0);
        waited += now() - t;
        if ((st = absorb(m, &pl, i)))
            report_failure(&pl.slots[i], paths[i], err);
    }
    pthread_mutex_lock(&pl.mu);
    pl.stop = true;
    pthread_cond_broadcast(&pl.cv);
    pthread_mutex_unlock(&pl.mu);
    for (unsigned t = 0; t < started; t++)
        pprof__pool_wait(&jobs[t]);
    pprof__pool_free(pool);
    for (size_t k = 0; k < n; k++) {
        pprof_merge_input_free(pl.slots[k].in);
        pprof_profile_free(pl.slots[k].p);
        free_found(&pl.slots[k]);
    }
    if (sum) {
        pprof_merge_files_summary s = {sum->struct_size, st ? i - 1 : i, waited};
        memcpy(sum, &s, sum->struct_size < sizeof(s) ? sum->struct_size : sizeof(s));
    }
    pthread_cond_destroy(&pl.cv);
    pthread_mutex_destroy(&pl.mu);
    pprof__free(a, pl.slots);
    return st;
}
