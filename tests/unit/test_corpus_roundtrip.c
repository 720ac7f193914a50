/* Every real profile: decode -> write (raw, gzip, zstd) -> decode gives an equal model, writing
 * twice gives the same bytes, and the writer's output is a fixed point. A file that does not read
 * must be listed below with the error it is expected to give. */
#include "testutil.h"

/* Corpus files that are expected not to read, with the reason. Currently every file reads: the
 * invalid ones (function id 0, a location with no address and no line, non-UTF-8 strings) break
 * semantic rules that the checker reports, not the wire format. */
static const struct {
    const char *name; /* path relative to the corpus */
    pprof_status code;
} EXPECTED_FAILURES[] = {
    {NULL, PPROF_OK},
};

static pprof_status
expected(const char *name)
{
    for (size_t i = 0; EXPECTED_FAILURES[i].name; i++)
        if (strcmp(EXPECTED_FAILURES[i].name, name) == 0)
            return EXPECTED_FAILURES[i].code;
    return PPROF_OK;
}

static bool
same(const pprof_buffer *a, const pprof_buffer *b)
{
    return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

int
main(void)
{
    tap t = {0};
    tu_files fl = tu_corpus();
    if (fl.n == 0) {
        return tap_skip_all("no corpus at %s", tap_real_corpus());
    }
    const pprof_format fmts[] = {PPROF_FORMAT_RAW, PPROF_FORMAT_GZIP, PPROF_FORMAT_ZSTD};
    for (size_t i = 0; i < fl.n; i++) {
        const char *name = tu_short(fl.path[i]);
        pprof_profile *p = NULL;
        pprof_error err = {0};
        pprof_status st = pprof_profile_read_file(fl.path[i], NULL, &p, &err);
        pprof_status want = expected(name);
        if (want != PPROF_OK || st != PPROF_OK) {
            if (!tap_ok(&t, st == want, "%s: read gives %s", name, pprof_status_name(want)))
                tap_diag("got %s: %s: %s (byte %llu)", pprof_status_name(st), err.path, err.message,
                         (unsigned long long)err.offset);
            pprof_profile_free(p);
            continue;
        }
        bool all = true;
        pprof_buffer raw1 = {0};
        for (int f = 0; f < 3; f++) {
            pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
            w.format = fmts[f];
            pprof_buffer a = {0}, b = {0};
            bool ok = pprof_profile_write_memory(p, &w, &a, &err) == PPROF_OK &&
                      pprof_profile_write_memory(p, &w, &b, &err) == PPROF_OK;
            if (!ok)
                tap_diag("%s: write %s: %s: %s", name, pprof_format_name(fmts[f]), err.path,
                         err.message);
            bool det = ok && same(&a, &b);
            pprof_profile *q = NULL;
            bool eq = ok && pprof_profile_read_memory(a.data, a.len, NULL, &q, &err) == PPROF_OK &&
                      pprof_profile_source_format(q) == fmts[f] && pprof_profile_equal(p, q);
            /* the writer's own output encodes to itself */
            bool fixed = true;
            if (eq && fmts[f] == PPROF_FORMAT_RAW) {
                pprof_buffer c = {0};
                fixed = pprof_profile_write_memory(q, &w, &c, NULL) == PPROF_OK && same(&a, &c);
                pprof_buffer_free(&c);
                raw1 = a;
                a.data = NULL;
            }
            if (!det || !eq || !fixed) {
                all = false;
                tap_diag("%s %s: deterministic %d, equal %d, fixed point %d", name,
                         pprof_format_name(fmts[f]), det, eq, fixed);
            }
            pprof_profile_free(q);
            pprof_buffer_free(&a);
            pprof_buffer_free(&b);
        }
        tap_ok(&t, all, "%s: %zu samples, %zu locations: raw, gzip and zstd round trips", name,
               pprof_profile_count(p, PPROF_TABLE_SAMPLE),
               pprof_profile_count(p, PPROF_TABLE_LOCATION));
        pprof_buffer_free(&raw1);
        pprof_profile_free(p);
    }
    tu_files_free(&fl);
    return tap_done(&t);
}
