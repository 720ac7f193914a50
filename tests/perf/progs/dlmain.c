/* Spins, then dlopens a library and spins in it: its samples must land in a mapping that
 * exists only after the dlopen. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static volatile uint64_t sink;

__attribute__((noinline)) static void
spin_main(double secs)
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

int
main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    spin_main(0.05);
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    void (*f)(double) = (void (*)(double))dlsym(h, "dl_spin");
    if (!f)
        return 1;
    f(0.1);
    dlclose(h);
    return 0;
}
