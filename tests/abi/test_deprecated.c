/* The names renamed by issue 42 stay one release as deprecated aliases: each still links from
 * the shared libraries and gives the bytes (or profile) of its successor, old argument order
 * included. The only program of the build that calls them, hence the pragma. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builder.h"
#include "flame.h"
#include "folded.h"
#include "interchange.h"
#include "pprof.h"
#include "report.h"

static int n, failed;

static void
check(bool pass, const char *what)
{
    n++;
    failed += !pass;
    printf("%s %d - %s\n", pass ? "ok" : "not ok", n, what);
}

static bool
same(const pprof_buffer *a, const pprof_buffer *b)
{
    return a->len == b->len && a->len && memcmp(a->data, b->data, a->len) == 0;
}

/* The file's bytes into *out (appended). */
static bool
slurp(const char *path, pprof_buffer *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char chunk[4096];
    size_t k;
    bool ok = true;
    while (ok && (k = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        uint8_t *d = realloc(out->data, out->len + k);
        if (!d)
            ok = false;
        else {
            memcpy(d + out->len, chunk, k);
            out->data = d;
            out->len += k;
            out->cap = out->len;
        }
    }
    fclose(f);
    return ok;
}

static pprof_builder *
builder(void)
{
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    pprof_builder_value_type t[] = {{"samples", "count"}, {"cpu", "nanoseconds"}};
    o.sample_types = t;
    o.n_sample_types = 2;
    pprof_builder *b = NULL;
    if (pprof_builder_new(&o, &b, NULL))
        return NULL;
    const char *fns[] = {"main", "work", "leaf"};
    pprof_builder_loc stack[3];
    for (int i = 0; i < 3; i++) {
        pprof_builder_str name;
        pprof_builder_fn fn;
        pprof_builder_line line;
        pprof_builder_map none = PPROF_BUILDER_NONE;
        if (pprof_builder_intern_cstr(b, fns[i], &name, NULL) ||
            pprof_builder_function(b, name, name, name, 1, &fn, NULL))
            return b;
        line.function = fn;
        line.line = 10 + i;
        line.column = 0;
        if (pprof_builder_location(b, none, 0, &line, 1, false, &stack[2 - i], NULL))
            return b;
    }
    int64_t v[] = {3, 3000};
    pprof_builder_add_sample(b, v, 2, stack, 3, NULL, 0, NULL);
    return b;
}

int
main(void)
{
    char dir[] = "/tmp/pprof-deprecated-XXXXXX";
    if (!mkdtemp(dir)) {
        printf("1..0 # SKIP no temporary directory\n");
        return 0;
    }
    char f1[64], f2[64];
    snprintf(f1, sizeof(f1), "%s/old", dir);
    snprintf(f2, sizeof(f2), "%s/new", dir);
    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW;

    pprof_builder *b = builder();
    pprof_buffer a = {0}, c = {0}, fa = {0}, fc = {0};
    check(b && pprof_builder_serialize(b, 0, &raw, &a, NULL) == PPROF_OK &&
              pprof_builder_write_memory(b, 0, &raw, &c, NULL) == PPROF_OK && same(&a, &c),
          "pprof_builder_serialize == pprof_builder_write_memory");
    check(pprof_builder_serialize_file(b, 0, f1, &raw, NULL) == PPROF_OK &&
              pprof_builder_write_file(b, 0, &raw, f2, NULL) == PPROF_OK && slurp(f1, &fa) &&
              slurp(f2, &fc) && same(&fa, &fc) && same(&fa, &a),
          "pprof_builder_serialize_file (path before opts) == pprof_builder_write_file");
    pprof_buffer_free(&fa);
    pprof_buffer_free(&fc);
    check(pprof_write_bytes_atomic(f1, a.data, a.len, NULL) == PPROF_OK &&
              pprof_write_bytes_file(f2, a.data, a.len, &raw, NULL) == PPROF_OK && slurp(f1, &fa) &&
              slurp(f2, &fc) && same(&fa, &a) && same(&fc, &a),
          "pprof_write_bytes_atomic and pprof_write_bytes_file write as pprof_bytes_write_file");
    pprof_buffer_free(&fa);
    pprof_buffer_free(&fc);

    pprof_profile *p = NULL;
    bool have = pprof_profile_read_memory(a.data, a.len, NULL, &p, NULL) == PPROF_OK;
    check(have, "the built profile reads");
    pprof_buffer_free(&a);
    pprof_buffer_free(&c);
    if (have) {
        check(pprof_folded_write(p, NULL, &a, NULL) == PPROF_OK &&
                  pprof_folded_write_memory(p, NULL, &c, NULL) == PPROF_OK && same(&a, &c),
              "pprof_folded_write == pprof_folded_write_memory");
        pprof_profile *x = NULL, *y = NULL;
        check(pprof_folded_read(a.data, a.len, NULL, &x, NULL) == PPROF_OK &&
                  pprof_folded_read_memory(a.data, a.len, NULL, &y, NULL) == PPROF_OK &&
                  pprof_profile_equal(x, y),
              "pprof_folded_read == pprof_folded_read_memory");
        pprof_profile_free(x);
        pprof_profile_free(y);
        x = y = NULL;
        pprof_buffer_free(&a);
        pprof_buffer_free(&c);

        check(pprof_speedscope_write(p, NULL, &a, NULL) == PPROF_OK &&
                  pprof_speedscope_write_memory(p, NULL, &c, NULL) == PPROF_OK && same(&a, &c),
              "pprof_speedscope_write == pprof_speedscope_write_memory");
        pprof_buffer_free(&a);
        pprof_buffer_free(&c);
        check(pprof_cpuprofile_write(p, NULL, &a, NULL) == PPROF_OK &&
                  pprof_cpuprofile_write_memory(p, NULL, &c, NULL) == PPROF_OK && same(&a, &c),
              "pprof_cpuprofile_write == pprof_cpuprofile_write_memory");
        check(pprof_cpuprofile_read(a.data, a.len, NULL, &x, NULL) == PPROF_OK &&
                  pprof_cpuprofile_read_memory(a.data, a.len, NULL, &y, NULL) == PPROF_OK &&
                  pprof_profile_equal(x, y),
              "pprof_cpuprofile_read == pprof_cpuprofile_read_memory");
        pprof_profile_free(x);
        pprof_profile_free(y);
        pprof_buffer_free(&a);
        pprof_buffer_free(&c);

        pprof_flame_tree *t = NULL;
        pprof_flame_write_options fo = PPROF_FLAME_WRITE_OPTIONS_INIT;
        fo.format = PPROF_FLAME_JSON;
        check(pprof_flame_tree_new(p, NULL, NULL, &t, NULL) == PPROF_OK &&
                  pprof_flame_write(t, &fo, &a, NULL) == PPROF_OK &&
                  pprof_flame_write_memory(t, &fo, &c, NULL) == PPROF_OK && same(&a, &c),
              "pprof_flame_write == pprof_flame_write_memory");
        pprof_flame_tree_free(t);
        pprof_buffer_free(&a);
        pprof_buffer_free(&c);

        pprof_report_render_options ro = PPROF_REPORT_RENDER_OPTIONS_INIT;
        ro.format = PPROF_REPORT_TRACES;
        check(pprof_report_render(p, &ro, PPROF_PRINT_TEXT, &a, NULL) == PPROF_OK &&
                  pprof_report_write_memory(p, &ro, PPROF_PRINT_TEXT, &c, NULL) == PPROF_OK &&
                  same(&a, &c),
              "pprof_report_render == pprof_report_write_memory");
        check(pprof_report_render_file(p, &ro, PPROF_PRINT_TEXT, f1, NULL, NULL) == PPROF_OK &&
                  slurp(f1, &fa) && same(&fa, &a),
              "pprof_report_render_file (path before the write options) writes the same");
        pprof_buffer_free(&fa);
        pprof_buffer_free(&a);
        pprof_buffer_free(&c);
    }
    pprof_profile_free(p);
    pprof_builder_free(b);
    unlink(f1);
    unlink(f2);
    rmdir(dir);
    printf("1..%d\n", n);
    return failed ? 1 : 0;
}
