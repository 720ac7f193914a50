/* pprof/jfr.h as a C caller sees it: the options' defaults and struct_size, the stats, the
 * limits (PPROF_E_LIMIT with an offset), the errors of empty, unknown and cut input, one event
 * picked, and the same profile from memory, from a file and through the formats' readers.
 * Reads corpus/jfr/gen-asprof-2.0.jfr (written by tests/jfr/gen_jfr.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "jfr.h"
#include "tap.h"

static unsigned char *
slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *b = malloc(1 << 20);
    *n = b ? fread(b, 1, 1 << 20, f) : 0;
    fclose(f);
    return b;
}

static size_t
types(const pprof_profile *p)
{
    return pprof_profile_count(p, PPROF_TABLE_SAMPLE_TYPE);
}

int
main(void)
{
    tap t = {0};
    const char *root = getenv("PPROF_SOURCE_ROOT");
    char path[4096];
    snprintf(path, sizeof(path), "%s/corpus/jfr/gen-asprof-2.0.jfr", root ? root : ".");
    size_t n = 0;
    unsigned char *d = slurp(path, &n);
    if (!d || n < 100)
        return tap_skip_all("cannot read %s", path);

    pprof_jfr_read_options a = PPROF_JFR_READ_OPTIONS_INIT, b;
    memset(&b, 0xff, sizeof(b));
    pprof_jfr_read_options_init(&b);
    tap_ok(&t,
           b.struct_size == sizeof(b) && !b.event && !b.timestamps && !b.allow_truncated &&
               !b.max_input_bytes && !b.max_pool_entries && !b.max_types && !b.max_stack_depth &&
               !b.stats && !b.allocator.alloc && a.struct_size == sizeof(a),
           "pprof_jfr_read_options_init equals the INIT macro");

    pprof_error err;
    pprof_profile *p = NULL;
    pprof_jfr_stats st = PPROF_JFR_STATS_INIT;
    a.stats = &st;
    pprof_status s = pprof_jfr_read_memory(d, n, &a, &p, &err);
    tap_ok(&t, s == PPROF_OK && p, "reads the recording (%s)", s ? err.message : "");
    tap_ok(&t,
           st.chunks == 1 && st.events_kept == 14 && st.events_no_stack == 1 &&
               st.events > st.events_kept && st.version_major == 2 && st.version_minor == 0 &&
               !st.truncated,
           "stats: 1 chunk, 14 events kept (1 without a stack) of %llu, version 2.0",
           (unsigned long long)st.events);
    tap_ok(&t, p && types(p) == 7, "seven sample types (cpu, native, alloc, lock)");

    /* an older caller's smaller struct: the fields it has, defaults for the rest */
    pprof_jfr_read_options old = PPROF_JFR_READ_OPTIONS_INIT;
    old.struct_size = sizeof(size_t) + sizeof(const char *);
    old.event = "cpu";
    pprof_profile *q = NULL;
    s = pprof_jfr_read_memory(d, n, &old, &q, &err);
    tap_ok(&t, s == PPROF_OK && q && types(q) == 2, "a smaller struct_size: its event is used");
    pprof_profile_free(q);

    pprof_profile *f = NULL;
    s = pprof_jfr_read_file(path, NULL, &f, &err);
    pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
    ro.readers = pprof_formats_readers();
    pprof_profile *r = NULL;
    pprof_status s2 = pprof_profile_read_memory(d, n, &ro, &r, &err);
    pprof_buffer b1 = {0}, b2 = {0}, b3 = {0};
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_RAW;
    bool same = !s && !s2 && !pprof_profile_write_memory(p, &w, &b1, &err) &&
                !pprof_profile_write_memory(f, &w, &b2, &err) &&
                !pprof_profile_write_memory(r, &w, &b3, &err) && b1.len == b2.len &&
                b1.len == b3.len && !memcmp(b1.data, b2.data, b1.len) &&
                !memcmp(b1.data, b3.data, b1.len);
    tap_ok(&t, same, "the same profile from memory, from the file and through the readers");
    pprof_buffer_free(&b1);
    pprof_buffer_free(&b2);
    pprof_buffer_free(&b3);
    pprof_profile_free(f);
    pprof_profile_free(r);
    pprof_profile_free(p);

    pprof_jfr_read_options lim = PPROF_JFR_READ_OPTIONS_INIT;
    lim.max_pool_entries = 3;
    p = NULL;
    s = pprof_jfr_read_memory(d, n, &lim, &p, &err);
    tap_ok(&t,
           s == PPROF_E_LIMIT && !p && err.offset != PPROF_NO_OFFSET &&
               strstr(err.message, "max_pool_entries"),
           "max_pool_entries: PPROF_E_LIMIT at a byte offset, naming the limit");
    lim = (pprof_jfr_read_options)PPROF_JFR_READ_OPTIONS_INIT;
    lim.max_types = 5;
    s = pprof_jfr_read_memory(d, n, &lim, &p, &err);
    tap_ok(&t, s == PPROF_E_LIMIT && strstr(err.message, "max_types"), "max_types: PPROF_E_LIMIT");

    s = pprof_jfr_read_memory(d, 0, NULL, &p, &err);
    tap_ok(&t, s == PPROF_E_EMPTY, "no bytes: PPROF_E_EMPTY");
    s = pprof_jfr_read_memory(d, n - 10, NULL, &p, &err);
    tap_ok(&t,
           s == PPROF_E_INVALID && err.offset == n - 10 && strstr(err.message, "inside a chunk"),
           "cut: PPROF_E_INVALID at the end, saying so");
    lim = (pprof_jfr_read_options)PPROF_JFR_READ_OPTIONS_INIT;
    lim.allow_truncated = true;
    st = (pprof_jfr_stats)PPROF_JFR_STATS_INIT;
    lim.stats = &st;
    s = pprof_jfr_read_memory(d, n - 10, &lim, &p, &err);
    tap_ok(&t, s == PPROF_OK && st.truncated, "cut with allow_truncated: read, stats.truncated");
    pprof_profile_free(p);
    lim.event = "jdk.NoSuchEvent";
    s = pprof_jfr_read_memory(d, n, &lim, &p, &err);
    tap_ok(&t, s == PPROF_E_ARG, "an unknown event: PPROF_E_ARG");
    lim.event = "jdk.ObjectAllocationSample";
    s = pprof_jfr_read_memory(d, n, &lim, &p, &err);
    tap_ok(&t, s == PPROF_E_ARG && strstr(err.message, "holds no"),
           "an event the recording does not hold: PPROF_E_ARG");
    d[5] = 3; /* version 3.0 */
    s = pprof_jfr_read_memory(d, n, NULL, &p, &err);
    tap_ok(&t, s == PPROF_E_UNSUPPORTED && err.offset == 4, "version 3: PPROF_E_UNSUPPORTED at 4");
    d[5] = 0;
    d[0] = 'X';
    tap_ok(&t, !pprof_jfr_detect(d, n), "pprof_jfr_detect wants the magic");
    s = pprof_jfr_read_memory(d, n, NULL, &p, &err);
    tap_ok(&t, s == PPROF_E_INVALID && err.offset == 0, "no magic: PPROF_E_INVALID at 0");
    free(d);
    return tap_done(&t);
}
