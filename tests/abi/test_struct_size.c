/* Result structs are filled up to the caller's struct_size and no further: a caller built
 * against an older, smaller struct keeps working (issue 42). Each struct is pre-filled with a
 * sentinel byte, given a struct_size that stops before its last fields, and must come back with
 * the fields inside filled and every byte past struct_size untouched; a full-size one gets all. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "builder.h"
#include "check.h"
#include "merge.h"
#include "pprof.h"

static int n, failed;

static void
check(bool pass, const char *what)
{
    n++;
    failed += !pass;
    printf("%s %d - %s\n", pass ? "ok" : "not ok", n, what);
}

#define SENTINEL 0xA5

static bool
untouched(const void *s, size_t from, size_t to)
{
    const unsigned char *b = s;
    for (size_t i = from; i < to; i++)
        if (b[i] != SENTINEL)
            return false;
    return true;
}

static pprof_profile *
profile(pprof_buffer *bytes)
{
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    pprof_builder_value_type t[] = {{"samples", "count"}};
    o.sample_types = t;
    o.n_sample_types = 1;
    pprof_builder *b = NULL;
    pprof_profile *p = NULL;
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_RAW;
    if (pprof_builder_new(&o, &b, NULL) == PPROF_OK) {
        pprof_builder_str name;
        pprof_builder_fn fn;
        pprof_builder_loc loc;
        pprof_builder_line line = {{0}, 3, 0};
        pprof_builder_map none = PPROF_BUILDER_NONE;
        int64_t v = 7;
        if (pprof_builder_intern_cstr(b, "main", &name, NULL) == PPROF_OK &&
            pprof_builder_function(b, name, name, name, 1, &fn, NULL) == PPROF_OK &&
            (line.function = fn, true) &&
            pprof_builder_location(b, none, 0, &line, 1, false, &loc, NULL) == PPROF_OK &&
            pprof_builder_add_sample(b, &v, 1, &loc, 1, NULL, 0, NULL) == PPROF_OK &&
            pprof_builder_write_memory(b, 0, &w, bytes, NULL) == PPROF_OK)
            pprof_profile_read_memory(bytes->data, bytes->len, NULL, &p, NULL);
    }
    pprof_builder_free(b);
    return p;
}

int
main(void)
{
    pprof_buffer bytes = {0};
    pprof_profile *p = profile(&bytes);
    check(p != NULL, "a built profile");
    if (!p) {
        printf("1..%d\n", n);
        return 1;
    }

    /* pprof_check_summary: a caller that knows count[] only */
    pprof_check_summary cs;
    memset(&cs, SENTINEL, sizeof(cs));
    cs.struct_size = offsetof(pprof_check_summary, reported);
    check(pprof_check(p, NULL, NULL, NULL, &cs, NULL) == PPROF_OK &&
              cs.struct_size == offsetof(pprof_check_summary, reported) &&
              cs.count[PPROF_SEVERITY_ERROR] == 0 &&
              untouched(&cs, offsetof(pprof_check_summary, reported), sizeof(cs)),
          "pprof_check fills a short summary up to its struct_size only");
    memset(&cs, SENTINEL, sizeof(cs));
    cs.struct_size = offsetof(pprof_check_summary, reported);
    check(pprof_validate(p, NULL, NULL, 0, &cs, NULL) == PPROF_OK &&
              cs.count[PPROF_SEVERITY_ERROR] == 0 &&
              untouched(&cs, offsetof(pprof_check_summary, reported), sizeof(cs)),
          "pprof_validate likewise");
    pprof_check_summary full = PPROF_CHECK_SUMMARY_INIT;
    memset((char *)&full + sizeof(size_t), SENTINEL, sizeof(full) - sizeof(size_t));
    check(pprof_check(p, NULL, NULL, NULL, &full, NULL) == PPROF_OK && full.reported == 0 &&
              !full.truncated && full.struct_size == sizeof(full),
          "a full-size summary gets every field");

    /* pprof_merge_summary: a caller that knows samples only */
    pprof_merger *m = NULL;
    pprof_buffer out = {0};
    pprof_merge_summary ms;
    memset(&ms, SENTINEL, sizeof(ms));
    ms.struct_size = offsetof(pprof_merge_summary, locations);
    check(pprof_merger_new(NULL, &m, NULL) == PPROF_OK &&
              pprof_merger_add(m, p, "p", NULL) == PPROF_OK &&
              pprof_merger_write_memory(m, NULL, &out, &ms, NULL) == PPROF_OK && ms.samples == 1 &&
              untouched(&ms, offsetof(pprof_merge_summary, locations), sizeof(ms)),
          "pprof_merger_write_memory fills a short summary up to its struct_size only");
    pprof_merge_summary mfull = PPROF_MERGE_SUMMARY_INIT;
    check(pprof_merger_write_memory(m, NULL, &out, &mfull, NULL) == PPROF_OK &&
              mfull.samples == 1 && mfull.locations == 1 && mfull.functions == 1,
          "a full-size merge summary gets every field");
    pprof_merger_free(m);
    pprof_buffer_free(&out);

    /* pprof_convert_result: a caller that knows in_place only */
    pprof_convert_result cr;
    memset(&cr, SENTINEL, sizeof(cr));
    cr.struct_size = offsetof(pprof_convert_result, output_failed);
    check(pprof_convert_memory(bytes.data, bytes.len, NULL, &out, &cr, NULL) == PPROF_OK &&
              untouched(&cr, offsetof(pprof_convert_result, output_failed), sizeof(cr)),
          "pprof_convert_memory fills a short result up to its struct_size only");
    pprof_convert_result crfull = PPROF_CONVERT_RESULT_INIT;
    memset((char *)&crfull + sizeof(size_t), SENTINEL, sizeof(crfull) - sizeof(size_t));
    check(pprof_convert_memory(bytes.data, bytes.len, NULL, &out, &crfull, NULL) == PPROF_OK &&
              crfull.check_errors == 0 && !crfull.output_failed,
          "a full-size convert result gets every field");
    pprof_buffer_free(&out);

    pprof_profile_free(p);
    pprof_buffer_free(&bytes);
    printf("1..%d\n", n);
    return failed ? 1 : 0;
}
