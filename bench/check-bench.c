/* Check cost against decode cost: `check-bench [PRESET...]` (default: large deep labels).
 * Generates each preset with bench/gen.h, then times, best of several runs, decoding the raw
 * bytes, decoding the gzip bytes, and pprof_check (including building the id indices, which a
 * first check on a freshly decoded profile pays). Prints one line per preset. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "gen.h"
#include "profile-private.h"

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static bool
count(void *ctx, const pprof_finding *f)
{
    (void)f;
    (*(uint64_t *)ctx)++;
    return true;
}

static int
run(const char *preset, int reps)
{
    pprof_gen_params gp;
    pprof_gen_params_init(&gp);
    if (!pprof_gen_preset(preset, &gp)) {
        fprintf(stderr, "check-bench: unknown preset %s\n", preset);
        return 2;
    }
    pprof_buffer raw = {0}, gz = {0};
    pprof_error err;
    if (pprof_gen_raw(&gp, &raw, &err) || pprof_gen_write(&gp, PPROF_FORMAT_GZIP, 0, &gz, &err)) {
        fprintf(stderr, "check-bench: %s\n", err.message);
        return 1;
    }
    double dec = 1e30, decgz = 1e30, chk = 1e30;
    uint64_t findings = 0;
    pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
    for (int r = 0; r < reps; r++) {
        pprof_profile *p = NULL;
        double t0 = now_ms();
        if (pprof_profile_read_memory(raw.data, raw.len, NULL, &p, &err)) {
            fprintf(stderr, "check-bench: %s\n", err.message);
            return 1;
        }
        double t1 = now_ms();
        findings = 0;
        pprof_check(p, NULL, count, &findings, &sum, &err);
        double t2 = now_ms();
        pprof_profile_free(p);
        p = NULL;
        double t3 = now_ms();
        pprof_profile_read_memory(gz.data, gz.len, NULL, &p, &err);
        double t4 = now_ms();
        pprof_profile_free(p);
        if (t1 - t0 < dec)
            dec = t1 - t0;
        if (t2 - t1 < chk)
            chk = t2 - t1;
        if (t4 - t3 < decgz)
            decgz = t4 - t3;
    }
    printf("%-8s raw %7.2f MB  decode %8.2f ms  decode-gzip %8.2f ms  check %8.2f ms  "
           "check/decode %.2fx  (findings %llu: %llu errors, %llu warnings, %llu notes)\n",
           preset, raw.len / 1e6, dec, decgz, chk, chk / dec, (unsigned long long)findings,
           (unsigned long long)sum.count[2], (unsigned long long)sum.count[1],
           (unsigned long long)sum.count[0]);
    pprof_buffer_free(&raw);
    pprof_buffer_free(&gz);
    return 0;
}

int
main(int argc, char **argv)
{
    const char *def[] = {"large", "deep", "labels"};
    int reps = 5, rc = 0;
    if (argc > 1) {
        for (int i = 1; i < argc && !rc; i++)
            rc = run(argv[i], reps);
    } else {
        for (size_t i = 0; i < 3 && !rc; i++)
            rc = run(def[i], reps);
    }
    return rc;
}
