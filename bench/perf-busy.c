/* A busy multi-threaded program with deep, varied call stacks, recorded by perf for the
 * pprof-from-perf benchmark (docs/bench/perf.md): N threads recurse to depths 40..120 along
 * 1024 different paths and spin at the leaf. Built with frame pointers. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;
static double seconds = 5;

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void rec_a(unsigned depth, unsigned path);
__attribute__((noinline)) static void rec_b(unsigned depth, unsigned path);

__attribute__((noinline)) static void
leaf(unsigned path)
{
    for (unsigned i = 0; i < 20000 + path % 7 * 1000; i++)
        sink += i;
}

__attribute__((noinline)) static void
rec_a(unsigned depth, unsigned path)
{
    if (!depth)
        leaf(path);
    else if (path & 1)
        rec_b(depth - 1, path >> 1 | (path & 1) << 30);
    else
        rec_a(depth - 1, path >> 1 | (path & 1) << 30);
    sink++;
}

__attribute__((noinline)) static void
rec_b(unsigned depth, unsigned path)
{
    if (!depth)
        leaf(path);
    else if (path & 1)
        rec_a(depth - 1, path >> 1);
    else
        rec_b(depth - 1, path >> 1);
    sink++;
}

static void *
worker(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    double end = now() + seconds;
    while (now() < end) {
        seed = seed * 1103515245u + 12345u;
        /* 1024 call paths: stacks repeat, as a real program's do, so the profile stays the
         * same size however long the recording */
        unsigned v = (seed >> 8) % 1024;
        rec_a(40 + v % 81, v * 2654435761u >> 3);
    }
    return NULL;
}

int
main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2;
    if (argc > 2)
        seconds = atof(argv[2]);
    if (n < 1 || n > 64)
        return 2;
    pthread_t t[64];
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    return 0;
}
