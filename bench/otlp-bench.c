/* pprof -> OTLP -> pprof against pprof -> pprof in one process (docs/otlp.md, "Figures"):
 * the minimum over RUNS runs of each stage, from a file to bytes in memory. The pprof -> pprof
 * runs come first and apart, so that neither loop leaves the other the memory it freed.
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

enum { READ, OTLP_WRITE, OTLP_READ, TO_PPROF, WRITE_BACK, BASE_READ, BASE_WRITE, N_STAGES };

/* One run: the round trip (trip) or pprof -> pprof; each stage's time into m (the minimum) and
 * its page faults into flt. */
static int
run(const char *path, bool trip, double *m, long *flt, size_t *otlp_bytes)
{
    double t[6];
    long f[6];
    int k0 = trip ? READ : BASE_READ;
    pprof_error e;
    pprof_profile *p = NULL, **v = NULL;
    pprof_otlp *o = NULL;
    size_t n = 0;
    pprof_buffer b = {0}, c = {0};
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    int ns = trip ? 5 : 2;
    t[0] = now_ms(&f[0]);
    pprof_status st = pprof_profile_read_file(path, NULL, &p, &e);
    t[1] = now_ms(&f[1]);
    if (!st && trip) {
        const pprof_profile *const in[] = {p};
        st = pprof_otlp_write_memory(in, 1, NULL, &b, &e);
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
        *otlp_bytes = b.len;
    } else if (!st) {
        st = pprof_profile_write_memory(p, &w, &c, &e);
        t[2] = now_ms(&f[2]);
    }
    if (st) {
        fprintf(stderr, "%s: %s: %s\n", path, e.path, e.message);
        return 1;
    }
    for (int k = 0; k < ns; k++) {
        if (t[k + 1] - t[k] < m[k0 + k])
            m[k0 + k] = t[k + 1] - t[k];
        flt[k0 + k] = f[k + 1] - f[k];
    }
    pprof_buffer_free(&b);
    pprof_buffer_free(&c);
    pprof_otlp_profiles_free(v, n);
    pprof_otlp_free(o);
    pprof_profile_free(p);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: otlp-bench PROFILE [RUNS]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 25;
    double m[N_STAGES];
    long flt[N_STAGES] = {0};
    for (int k = 0; k < N_STAGES; k++)
        m[k] = 1e30;
    size_t otlp_bytes = 0;
    for (int r = 0; r < runs; r++)
        if (run(argv[1], false, m, flt, &otlp_bytes))
            return 1;
    for (int r = 0; r < runs; r++)
        if (run(argv[1], true, m, flt, &otlp_bytes))
            return 1;
    double base = m[BASE_READ] + m[BASE_WRITE];
    double trip = m[READ] + m[OTLP_WRITE] + m[OTLP_READ] + m[TO_PPROF] + m[WRITE_BACK];
    printf("min of %d runs (ms): read %.2f | OTLP write %.2f, OTLP read %.2f, to pprof %.2f | "
           "pprof write %.2f; alone: read %.2f, write %.2f\n",
           runs, m[READ], m[OTLP_WRITE], m[OTLP_READ], m[TO_PPROF], m[WRITE_BACK], m[BASE_READ],
           m[BASE_WRITE]);
    printf("pprof -> pprof %.2f ms, pprof -> OTLP -> pprof %.2f ms: %.2fx; OTLP %zu bytes\n", base,
           trip, trip / base, otlp_bytes);
    printf("page faults of the last runs: read %ld | OTLP write %ld, OTLP read %ld, to pprof %ld | "
           "pprof write %ld; alone: read %ld, write %ld\n",
           flt[READ], flt[OTLP_WRITE], flt[OTLP_READ], flt[TO_PPROF], flt[WRITE_BACK],
           flt[BASE_READ], flt[BASE_WRITE]);
    return 0;
}
