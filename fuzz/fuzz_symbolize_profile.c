/* The symbolizer as a whole (pprof_symbolize): finding the file, reading it through the file
 * system, mapping runtime addresses through the PT_LOAD segments, DWARF and symbol tables,
 * demangling, building the output profile and the report. The input is the bytes of an ELF
 * file (any bytes), written to a file in a private directory; a profile built here has
 * mappings naming it (by path, through the binaries list by base name, and one whose build ID
 * cannot match) and locations at addresses spread over the file. The output must be a valid
 * profile that encodes and decodes, the report must add up, and symbolizing twice must give the
 * same bytes (an address in a file always gets the same frames). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "pprof/builder.h"
#include "pprof/symbolize.h"
#include "validate-private.h"

#define MAX_ADDRS 512 /* every 16 bytes of a small file, evenly spread over a larger one */

/* A profile of one sample per address, in three mappings of the file at path. */
static pprof_profile *
make_profile(const char *path, size_t size)
{
    static const pprof_builder_value_type types[] = {{"samples", "count"}};
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    o.sample_types = types;
    o.n_sample_types = 1;
    pprof_builder *b;
    pprof_error err;
    FUZZ_CHECK(pprof_builder_new(&o, &b, &err) == PPROF_OK, "builder: %s", err.message);
    uint64_t span = size > 0x1000 ? size : 0x1000;
    uint64_t stride = size / MAX_ADDRS > 16 ? size / MAX_ADDRS : 16;
    struct {
        uint64_t start, offset;
        const char *file, *build_id;
    } maps[3] = {
        {0x400000, 0, path, ""},                          /* found by its path */
        {0x7f0000000000, 0x1000, "/nonexistent/obj", ""}, /* by base name among the binaries */
        {0x7f1000000000, 0, path, "0badc0de42"},          /* a build ID the file does not have */
    };
    pprof_builder_map m[3];
    for (int i = 0; i < 3; i++) {
        pprof_builder_mapping_desc d = {
            maps[i].start, maps[i].start + span, maps[i].offset, {0}, {0}, false, false, false,
            false};
        FUZZ_CHECK(!pprof_builder_intern_cstr(b, maps[i].file, &d.filename, NULL) &&
                       !pprof_builder_intern_cstr(b, maps[i].build_id, &d.build_id, NULL) &&
                       !pprof_builder_mapping(b, &d, &m[i], NULL),
                   "mapping");
    }
    pprof_builder_loc stack[3];
    int64_t one = 1;
    for (uint64_t off = 0; off < size; off += stride) {
        for (int i = 0; i < 3; i++)
            FUZZ_CHECK(!pprof_builder_location(b, m[i], maps[i].start + off, NULL, 0, false,
                                               &stack[i], NULL),
                       "location");
        FUZZ_CHECK(!pprof_builder_add_sample(b, &one, 1, stack, 3, NULL, 0, NULL), "sample");
    }
    pprof_buffer buf = {0};
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_RAW;
    FUZZ_CHECK(pprof_builder_serialize(b, 0, &w, &buf, &err) == PPROF_OK, "serialize: %s",
               err.message);
    pprof_builder_free(b);
    pprof_profile *p = NULL;
    FUZZ_CHECK(pprof_profile_read_memory(buf.data, buf.len, NULL, &p, &err) == PPROF_OK,
               "read back: %s", err.message);
    pprof_buffer_free(&buf);
    return p;
}

/* Symbolizes p; checks the output and the report; returns the output's bytes. */
static pprof_buffer
symbolize(const pprof_profile *p, const char *path)
{
    const char *binaries[] = {path};
    pprof_symbolize_options o = PPROF_SYMBOLIZE_OPTIONS_INIT;
    o.binaries = binaries;
    o.n_binaries = 1;
    o.debuginfod_cache = ""; /* never the user's cache: the input alone decides */
    o.max_file_bytes = 8u << 20;
    pprof_profile *out = NULL;
    pprof_symbolize_report *r = NULL;
    pprof_error err;
    pprof_status st = pprof_symbolize(p, &o, &out, &r, &err);
    FUZZ_CHECK(st == PPROF_OK || st == PPROF_E_NOMEM || st == PPROF_E_LIMIT,
               "pprof_symbolize: %s (%d)", err.message, (int)st);
    pprof_buffer bytes = {0};
    if (st == PPROF_OK) {
        FUZZ_CHECK(pprof__validate(out, "symbolize", &err) == PPROF_OK,
                   "the symbolized profile is invalid: %s: %s", err.path, err.message);
        uint64_t unresolved = 0;
        for (size_t i = 0; i < pprof_symbolize_report_count(r); i++) {
            pprof_symbolize_mapping m = pprof_symbolize_report_mapping(r, i);
            FUZZ_CHECK(m.resolved <= m.addresses, "mapping %zu: %llu resolved of %llu", i,
                       (unsigned long long)m.resolved, (unsigned long long)m.addresses);
            FUZZ_CHECK(m.n_unresolved == 0 || m.unresolved, "unresolved list missing");
            for (size_t k = 1; k < m.n_unresolved; k++)
                FUZZ_CHECK(m.unresolved[k - 1] < m.unresolved[k], "unresolved not ascending");
            FUZZ_CHECK(m.reason && m.file && m.found_by && m.debug_file, "NULL report string");
            unresolved += m.n_unresolved;
        }
        FUZZ_CHECK(unresolved <= pprof_symbolize_report_unresolved(r), "unresolved count");
        pprof_buffer txt = {0};
        FUZZ_CHECK(pprof_symbolize_report_print(r, PPROF_PRINT_JSON, &txt, &err) == PPROF_OK,
                   "report: %s", err.message);
        pprof_buffer_free(&txt);
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        w.format = PPROF_FORMAT_RAW;
        FUZZ_CHECK(pprof_profile_write_memory(out, &w, &bytes, &err) == PPROF_OK,
                   "encoding the symbolized profile: %s", err.message);
        pprof_profile *again = NULL;
        FUZZ_CHECK(pprof_profile_read_memory(bytes.data, bytes.len, NULL, &again, &err) == PPROF_OK,
                   "the symbolized profile does not decode: %s", err.message);
        pprof_profile_free(again);
    }
    pprof_symbolize_report_free(r);
    pprof_profile_free(out);
    return bytes;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (4u << 20))
        return 0;
    const char *base = getenv("TMPDIR");
    char dir[4096], path[4200];
    snprintf(dir, sizeof(dir), "%s/pprof-fuzz-symbolize-XXXXXX", base && *base ? base : "/tmp");
    FUZZ_CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    snprintf(path, sizeof(path), "%s/obj", dir);
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f && fwrite(data, 1, size, f) == size && fclose(f) == 0, "writing %s", path);
    pprof_profile *p = make_profile(path, size);
    pprof_buffer one = symbolize(p, path), two = symbolize(p, path);
    FUZZ_CHECK(one.len == two.len && (!one.len || !memcmp(one.data, two.data, one.len)),
               "symbolizing the same profile twice gave different profiles");
    pprof_buffer_free(&one);
    pprof_buffer_free(&two);
    pprof_profile_free(p);
    unlink(path);
    FUZZ_CHECK(rmdir(dir) == 0, "files left behind in %s", dir);
    return 0;
}
