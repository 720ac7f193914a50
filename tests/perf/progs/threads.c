/* Two threads and main spinning in distinct functions, for perf record tests. */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

static volatile uint64_t sink;

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void
spin_leaf(double secs)
{
    double end = now() + secs;
    while (now() < end)
        for (int i = 0; i < 1000; i++)
            sink += (uint64_t)i;
}

__attribute__((noinline)) static void *
worker_a(void *arg)
{
    spin_leaf(*(double *)arg);
    return NULL;
}

__attribute__((noinline)) static void *
worker_b(void *arg)
{
    spin_leaf(*(double *)arg);
    return NULL;
}

int
main(int argc, char **argv)
{
    double secs = argc > 1 ? 0.01 * (argv[1][0] - '0') : 0.1;
    pthread_t a, b;
    pthread_create(&a, NULL, worker_a, &secs);
    pthread_create(&b, NULL, worker_b, &secs);
    spin_leaf(secs);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
