/* pprof -> OTLP -> pprof against pprof -> pprof in one process (docs/otlp.md, "Figures"):
 * the minimum over RUNS runs of each stage, from a file to bytes in memory.
 * Usage: otlp-bench PROFILE [RUNS] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "pprof/otlp.h"

/* The time in ms, and the minor page faults so far in *faults. */
static double
now_ms(long *faults)
{
    struct timespec t;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *faults = ru.ru_minflt;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: otlp-bench PROFILE [RUNS]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 25;
    double m[6] = {1e30, 1e30, 1e30, 1e30, 1e30, 1e30};
    size_t otlp_bytes = 0;
    long flt[6] = {0};
    for (int r = 0; r < runs; r++) {
        double t[7];
        long f[7];
        pprof_error e;
        pprof_profile *p = NULL, **v = NULL;
        pprof_otlp *o = NULL;
        size_t n = 0;
        pprof_buffer b = {0}, c = {0}, d = {0};
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        t[0] = now_ms(&f[0]);
        if (pprof_profile_read_file(argv[1], NULL, &p, &e)) {
            fprintf(stderr, "%s: %s: %s\n", argv[1], e.path, e.message);
            return 1;
        }
        t[1] = now_ms(&f[1]);
        const pprof_profile *const in[] = {p};
        pprof_status st = pprof_otlp_write_memory(in, 1, NULL, &b, &e);
        t[2] = now_ms(&f[2]);
        if (!st)
            st = pprof_otlp_read_memory(b.data, b.len, NULL, &o, &e);
        t[3] = now_ms(&f[3]);
        if (!st)
            st = pprof_otlp_to_pprof(o, &v, &n, &e);
        t[4] = now_ms(&f[4]);
        if (!st && n)
            st = pprof_profile_write_memory(v[0], &w, &c, &e);
        t[5] = now_ms(&f[5]);
        if (!st)
            st = pprof_profile_write_memory(p, &w, &d, &e);
        t[6] = now_ms(&f[6]);
        if (st) {
            fprintf(stderr, "%s: %s\n", e.path, e.message);
            return 1;
        }
        for (int k = 0; k < 6; k++) {
            if (t[k + 1] - t[k] < m[k])
                m[k] = t[k + 1] - t[k];
            if (r == runs - 1)
                flt[k] = f[k + 1] - f[k];
        }
        otlp_bytes = b.len;
        pprof_buffer_free(&b);
        pprof_buffer_free(&c);
        pprof_buffer_free(&d);
        pprof_otlp_profiles_free(v, n);
        pprof_otlp_free(o);
        pprof_profile_free(p);
    }
    double base = m[0] + m[5], trip = m[0] + m[1] + m[2] + m[3] + m[4];
    printf("min of %d runs (ms): read %.1f | OTLP write %.1f, OTLP read %.1f, to pprof %.1f | "
           "pprof write %.1f (original: %.1f)\n",
           runs, m[0], m[1], m[2], m[3], m[4], m[5]);
    printf("pprof -> pprof %.1f ms, pprof -> OTLP -> pprof %.1f ms: %.2fx; OTLP %zu bytes\n", base,
           trip, trip / base, otlp_bytes);
    printf("page faults of the last run: read %ld | OTLP write %ld, OTLP read %ld, to pprof %ld | "
           "pprof write %ld (original: %ld)\n",
           flt[0], flt[1], flt[2], flt[3], flt[4], flt[5]);
    return 0;
}
