/* The library dlmain loads. */
#include <stdint.h>
#include <time.h>

void dl_spin(double secs);

static volatile uint64_t sink;

__attribute__((noinline)) void
dl_spin(double secs)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double end = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + secs;
    for (;;) {
        for (int i = 0; i < 1000; i++)
            sink += (uint64_t)i;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        if ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 > end)
            break;
    }
}
