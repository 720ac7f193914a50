/* The thread pool (see pool-private.h): the only place of the library that starts threads. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setname_np, gettid */
#endif
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pool-private.h"

typedef struct worker {
    pprof__pool *pool;
    pthread_t th;
    pprof__job *job; /* set by pprof__pool_start, cleared by the worker when it returns */
    pthread_cond_t wake;
    /* A job's nice value that could not be undone (lowering nice needs privilege): the worker
     * stays at it and takes only jobs that ask for that same value, so that no other job ever
     * runs at a priority it did not ask for. */
    int stuck_nice;
} worker;

struct pprof__pool {
    pthread_mutex_t mu;
    pthread_cond_t done; /* a job returned */
    unsigned size, started;
    bool quit;
    worker w[];
};

#define IDLE_NAME "pprof-pool"

/* Runs j at its priority; returns the nice value the worker is left at when it could not be
 * restored, else 0. */
static int
run_job(pprof__job *j)
{
    int stuck = 0;
#ifdef __linux__
    /* Priority is per thread on Linux; failing to lower it changes nothing but speed. */
    id_t tid = (id_t)gettid();
    int before = 0;
    bool set = false;
    if (j->nice) {
        errno = 0;
        before = getpriority(PRIO_PROCESS, tid);
        set = !(before == -1 && errno) && before != j->nice &&
              setpriority(PRIO_PROCESS, tid, j->nice) == 0;
    }
#endif
    if (j->name)
        pthread_setname_np(pthread_self(), j->name);
    j->fn(j->arg);
    if (j->name)
        pthread_setname_np(pthread_self(), IDLE_NAME);
#ifdef __linux__
    if (set && setpriority(PRIO_PROCESS, tid, before) != 0)
        stuck = j->nice;
#endif
    return stuck;
}

static void *
worker_main(void *arg)
{
    worker *w = arg;
    pprof__pool *p = w->pool;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!w->job && !p->quit)
            pthread_cond_wait(&w->wake, &p->mu);
        pprof__job *j = w->job;
        if (!j)
            break;
        pthread_mutex_unlock(&p->mu);
        int stuck = run_job(j);
        pthread_mutex_lock(&p->mu);
        if (stuck)
            w->stuck_nice = stuck;
        w->job = NULL;
        j->done = true; /* the owner may free j from here on */
        pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

pprof__pool *
pprof__pool_new(unsigned workers)
{
    if (!workers)
        return NULL;
    pprof__pool *p = calloc(1, sizeof(*p) + (size_t)workers * sizeof(worker));
    if (!p)
        return NULL;
    if (pthread_mutex_init(&p->mu, NULL)) {
        free(p);
        return NULL;
    }
    if (pthread_cond_init(&p->done, NULL)) {
        pthread_mutex_destroy(&p->mu);
        free(p);
        return NULL;
    }
    p->size = workers;
    return p;
}

void
pprof__pool_free(pprof__pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    for (unsigned i = 0; i < p->started; i++)
        pthread_cond_signal(&p->w[i].wake);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < p->started; i++) {
        pthread_join(p->w[i].th, NULL);
        pthread_cond_destroy(&p->w[i].wake);
    }
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

/* Called with p->mu held; the new worker waits for the lock before it looks at its job. */
static bool
add_worker(pprof__pool *p, pprof__job *j)
{
    worker *w = &p->w[p->started];
    w->pool = p;
    w->job = j;
    w->stuck_nice = 0;
    if (pthread_cond_init(&w->wake, NULL))
        return false;
    if (pthread_create(&w->th, NULL, worker_main, w)) {
        pthread_cond_destroy(&w->wake);
        w->job = NULL;
        return false;
    }
    p->started++;
    return true;
}

bool
pprof__pool_start(pprof__pool *p, pprof__job *j)
{
    if (!p || !j->fn)
        return false;
    j->pool = p;
    j->done = false;
    bool ok = false;
    pthread_mutex_lock(&p->mu);
    for (unsigned i = 0; i < p->started && !ok; i++) {
        worker *w = &p->w[i];
        if (!w->job && (!w->stuck_nice || w->stuck_nice == j->nice)) {
            w->job = j;
            pthread_cond_signal(&w->wake);
            ok = true;
        }
    }
    if (!ok && p->started < p->size)
        ok = add_worker(p, j);
    pthread_mutex_unlock(&p->mu);
    return ok;
}

void
pprof__pool_wait(pprof__job *j)
{
    pprof__pool *p = j->pool;
    pthread_mutex_lock(&p->mu);
    while (!j->done)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}
