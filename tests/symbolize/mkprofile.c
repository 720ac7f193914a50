/* Test helper: writes a profile of raw addresses, as a native profiler would (mappings with
 * file, offset and build ID; locations with an address and no lines), one sample per address.
 *
 *   mkprofile OUT < spec
 * spec lines: "map START LIMIT OFFSET FILE [BUILD_ID]" starts a mapping; "addr ADDR" adds an
 * address (hex) in the last mapping; "line ADDR NAME" adds a location that already has a line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"

static int
fail(const char *what, const pprof_error *err)
{
    fprintf(stderr, "mkprofile: %s: %s\n", what, err ? err->message : "bad spec line");
    return 1;
}

int
main(int argc, char **argv)
{
    if (argc != 2)
        return fail("usage: mkprofile OUT < spec", NULL);
    pprof_builder_value_type st = {"samples", "count"};
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    o.sample_types = &st;
    o.n_sample_types = 1;
    pprof_builder *b;
    pprof_error err;
    if (pprof_builder_new(&o, &b, &err))
        return fail("new", &err);
    pprof_builder_map map = PPROF_BUILDER_NONE;
    char line[8192];
    int64_t one = 1;
    while (fgets(line, sizeof(line), stdin)) {
        char file[4096] = "", id[256] = "", name[1024] = "";
        uint64_t start, limit, off, addr;
        if (sscanf(line, "map %" SCNx64 " %" SCNx64 " %" SCNx64 " %4095s %255s", &start, &limit,
                   &off, file, id) >= 4) {
            pprof_builder_mapping_desc d = {start, limit, off,   {0},  {0},
                                            false, false, false, false};
            if (pprof_builder_intern_cstr(b, file, &d.filename, &err) ||
                pprof_builder_intern_cstr(b, id, &d.build_id, &err) ||
                pprof_builder_mapping(b, &d, &map, &err))
                return fail("mapping", &err);
        } else if (sscanf(line, "addr %" SCNx64, &addr) == 1) {
            pprof_builder_loc loc;
            if (pprof_builder_location(b, map, addr, NULL, 0, false, &loc, &err) ||
                pprof_builder_add_sample(b, &one, 1, &loc, 1, NULL, 0, &err))
                return fail("location", &err);
        } else if (sscanf(line, "line %" SCNx64 " %1023s", &addr, name) == 2) {
            pprof_builder_str s;
            pprof_builder_fn fn;
            pprof_builder_loc loc;
            if (pprof_builder_intern_cstr(b, name, &s, &err) ||
                pprof_builder_function(b, s, s, (pprof_builder_str)PPROF_BUILDER_NONE, 0, &fn,
                                       &err))
                return fail("function", &err);
            pprof_builder_line l = {fn, 1, 0};
            if (pprof_builder_location(b, map, addr, &l, 1, false, &loc, &err) ||
                pprof_builder_add_sample(b, &one, 1, &loc, 1, NULL, 0, &err))
                return fail("location", &err);
        } else if (line[0] != '\n' && line[0] != '#') {
            return fail(line, NULL);
        }
    }
    if (pprof_builder_write_file(b, 0, NULL, argv[1], &err))
        return fail(argv[1], &err);
    pprof_builder_free(b);
    return 0;
}
