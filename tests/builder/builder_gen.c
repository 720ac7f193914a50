/* Writes a few builder outputs into a directory for the Go differential test: raw, gzip and
 * zstd; inlined lines, mappings, string and numeric labels, an open sample committed across a
 * serialize-and-reset, and an empty profile. Prints one path per line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof/builder.h"

static const pprof_builder_value_type types[] = {{"samples", "count"}, {"cpu", "nanoseconds"}};

static int
check(pprof_status st, const pprof_error *e, const char *what)
{
    if (st != PPROF_OK) {
        fprintf(stderr, "builder_gen: %s: %s\n", what, e->message);
        exit(1);
    }
    return 0;
}

static pprof_builder_str
S(pprof_builder *b, const char *s)
{
    pprof_builder_str h;
    pprof_error e;
    check(pprof_builder_intern_cstr(b, s, &h, &e), &e, "intern");
    return h;
}

static void
out(pprof_builder *b, const char *dir, const char *name, pprof_format fmt, unsigned flags)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = fmt;
    pprof_error e;
    check(pprof_builder_write_file(b, flags, &wo, path, &e), &e, "serialize");
    printf("%s\n", path);
}

int
main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: builder_gen DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    o.sample_types = types;
    o.n_sample_types = 2;
    o.period_type = types[1];
    o.period = 10000000;
    o.default_sample_type = "cpu";
    pprof_builder *b;
    pprof_error e;
    check(pprof_builder_new(&o, &b, &e), &e, "new");

    pprof_builder_mapping_desc md = {
        0x400000, 0x500000, 0, S(b, "/usr/bin/app"), S(b, "deadbeef"), true, true, true, true};
    pprof_builder_map m;
    check(pprof_builder_mapping(b, &md, &m, &e), &e, "mapping");
    const char *names[] = {"main", "work", "inlined_helper", "compute"};
    pprof_builder_fn f[4];
    for (int i = 0; i < 4; i++)
        check(pprof_builder_function(b, S(b, names[i]), S(b, names[i]), S(b, "app.c"), 10 * i,
                                     &f[i], &e),
              &e, "function");
    pprof_builder_line inl[2] = {{f[2], 42, 3}, {f[1], 20, 0}}; /* helper inlined into work */
    pprof_builder_line l0 = {f[0], 5, 0}, l3 = {f[3], 33, 0};
    pprof_builder_loc lm, lw, lc;
    check(pprof_builder_location(b, m, 0x401000, &l0, 1, false, &lm, &e), &e, "loc");
    check(pprof_builder_location(b, m, 0x402000, inl, 2, false, &lw, &e), &e, "loc");
    check(pprof_builder_location(b, m, 0x403000, &l3, 1, false, &lc, &e), &e, "loc");
    pprof_builder_loc s1[3] = {lc, lw, lm}, s2[2] = {lw, lm};
    pprof_builder_label lab[2] = {{S(b, "thread"), S(b, "worker-1"), 0, {0}},
                                  {S(b, "alloc"), {0}, 4096, S(b, "bytes")}};
    int64_t v1[2] = {3, 30000000}, v2[2] = {1, 10000000};
    check(pprof_builder_add_sample(b, v1, 2, s1, 3, lab, 2, &e), &e, "sample");
    check(pprof_builder_add_sample(b, v2, 2, s2, 2, lab, 1, &e), &e, "sample");
    pprof_builder_open op;
    check(pprof_builder_open_begin(b, &op, &e), &e, "begin");
    pprof_builder_frame fr = {"open_leaf", NULL, "open.c",       7,         1, 0x404000, 0x400000,
                              0x500000,    0,    "/usr/bin/app", "deadbeef"};
    check(pprof_builder_open_add_frame(b, op, &fr, &e), &e, "frame");
    pprof_builder_add_comment(b, "libpprof builder test profile", NULL);
    pprof_builder_set_time(b, 1700000000000000000, 2000000000, NULL);
    out(b, dir, "builder-a.pb", PPROF_FORMAT_RAW, 0);
    out(b, dir, "builder-a.pb.zst", PPROF_FORMAT_ZSTD, 0);
    out(b, dir, "builder-a.pb.gz", PPROF_FORMAT_GZIP, PPROF_BUILDER_RESET);
    fr.function = "open_caller";
    fr.address = 0x405000;
    check(pprof_builder_open_add_frame(b, op, &fr, &e), &e, "frame");
    check(pprof_builder_open_add_label_cstr(b, op, "phase", "after-reset", 0, NULL, &e), &e,
          "label");
    check(pprof_builder_open_commit(b, op, v2, 2, &e), &e, "commit");
    out(b, dir, "builder-b.pb.gz", PPROF_FORMAT_GZIP, PPROF_BUILDER_RESET);
    out(b, dir, "builder-empty.pb.gz", PPROF_FORMAT_GZIP, PPROF_BUILDER_RESET);
    return pprof_builder_free(b) == 0 ? 0 : 1;
}
