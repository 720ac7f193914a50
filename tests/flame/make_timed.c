/* Writes a profile whose samples carry times (the numeric label timestamp_unix_nano, as
 * pprof-from-perf --timestamps writes): 1 ms apart, the first 1.5 s in main > A > spin, the next
 * 1.5 s in main > B > spin, a sample in twenty in main alone. The viewer's Time tests read it.
 * usage: make_timed OUT [NAME_A NAME_B [SAMPLES]]   (default names phase_a, phase_b; 3000
 * samples; more are spread over the same 3 s and over 64 leaf frames, for size benchmarks) */
#include <stdio.h>
#include <stdlib.h>

#include "pprof/builder.h"

static int
fail(const pprof_error *err)
{
    fprintf(stderr, "make_timed: %s\n", err->message);
    return 1;
}

int
main(int argc, char **argv)
{
    if (argc != 2 && argc != 4 && argc != 5) {
        fprintf(stderr, "usage: make_timed OUT [NAME_A NAME_B [SAMPLES]]\n");
        return 2;
    }
    const char *na = argc >= 4 ? argv[2] : "phase_a", *nb = argc >= 4 ? argv[3] : "phase_b";
    long n = argc == 5 ? atol(argv[4]) : 3000;
    if (n < 2 || n > 100000000) {
        fprintf(stderr, "make_timed: SAMPLES from 2 to 1e8\n");
        return 2;
    }
    pprof_builder_value_type types[] = {{"samples", "count"}, {"cpu", "nanoseconds"}};
    pprof_builder_options o;
    pprof_builder_options_init(&o);
    o.max_samples = (uint64_t)n + 16;
    o.sample_types = types;
    o.n_sample_types = 2;
    o.default_sample_type = "cpu";
    pprof_builder *b = NULL;
    pprof_error err;
    if (pprof_builder_new(&o, &b, &err))
        return fail(&err);
    const char *fnames[4] = {"main", na, nb, "spin"};
    pprof_builder_loc loc[4], leaf[64];
    pprof_builder_str none = PPROF_BUILDER_NONE;
    pprof_builder_map nomap = PPROF_BUILDER_NONE;
    for (int i = 0; i < 4; i++) {
        pprof_builder_str s;
        pprof_builder_line line = {{0}, 10 + i, 0};
        if (pprof_builder_intern_cstr(b, fnames[i], &s, &err) ||
            pprof_builder_function(b, s, s, none, 0, &line.function, &err) ||
            pprof_builder_location(b, nomap, 0x1000 + 16 * (uint64_t)i, &line, 1, false, &loc[i],
                                   &err))
            return fail(&err);
    }
    for (int i = 0; i < 64 && n > 3000; i++) {
        char name[32];
        pprof_builder_str s;
        pprof_builder_line line = {{0}, 100 + i, 0};
        snprintf(name, sizeof(name), "leaf_%02d", i);
        if (pprof_builder_intern_cstr(b, name, &s, &err) ||
            pprof_builder_function(b, s, s, none, 0, &line.function, &err) ||
            pprof_builder_location(b, nomap, 0x2000 + 16 * (uint64_t)i, &line, 1, false, &leaf[i],
                                   &err))
            return fail(&err);
    }
    pprof_builder_label l = {{0}, PPROF_BUILDER_NONE, 0, {0}};
    if (pprof_builder_intern_cstr(b, "timestamp_unix_nano", &l.key, &err) ||
        pprof_builder_intern_cstr(b, "nanoseconds", &l.num_unit, &err))
        return fail(&err);
    const int64_t t0 = INT64_C(1796601600000000000); /* 2026-12-07T00:00:00Z */
    const int64_t step = INT64_C(3000000000) / n;
    for (long k = 0; k < n; k++) {
        int64_t v[2] = {1, 1000000 + (k % 7) * 1000};
        pprof_builder_loc st[3] = {n > 3000 ? leaf[(k * 2654435761u) % 64] : loc[3],
                                   k < n / 2 ? loc[1] : loc[2], loc[0]};
        l.num = t0 + (int64_t)k * step + (k % 3) * (step / 1000);
        size_t depth = k % 20 == 0 ? 1 : 3;
        if (pprof_builder_add_sample(b, v, 2, depth == 1 ? &st[2] : st, depth, &l, 1, &err))
            return fail(&err);
    }
    if (pprof_builder_set_time(b, t0, INT64_C(3000000000), &err) ||
        pprof_builder_write_file(b, 0, NULL, argv[1], &err))
        return fail(&err);
    pprof_builder_free(b);
    return 0;
}
