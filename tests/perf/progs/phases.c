/* Spins about 1.5 s in phase_a, then about 1.5 s in phase_b (the seconds of each are argv[1]):
 * a recording whose samples' times tell the two phases apart. */
#include <stdint.h>
#include <stdlib.h>
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
spin(double secs)
{
    double end = now() + secs;
    while (now() < end)
        for (int i = 0; i < 1000; i++)
            sink += (uint64_t)i;
}

__attribute__((noinline)) void
phase_a(double secs)
{
    spin(secs);
}

__attribute__((noinline)) void
phase_b(double secs)
{
    spin(secs);
}

int
main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 1.5;
    phase_a(secs);
    phase_b(secs);
    return 0;
}
