/* The perf.data / perf script reader on arbitrary bytes, as data (file or pipe mode), as
 * detected, and with each event filter. It never crashes and gives either a profile or an error
 * with a message; a profile it gives holds one samples/count per converted sample and encodes
 * and reads back equal. A successful read fails cleanly (PPROF_E_NOMEM, nothing leaked) when
 * one of its allocations fails (small inputs only while fuzzing; see fuzz_fail_points). The same
 * bytes read from a file (mapped) and converted into a file give the same samples as from memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "perf.h"

/* Event filters: names the recordings of corpus/perf/ have, a modifier, and one none has. */
static const char *const EVENTS[][2] = {
    {"cpu-clock", NULL},
    {"task-clock", "cpu-clock:u"},
    {"sched:sched_process_exec", "dummy"},
    {"no-such-event", NULL},
};

static pprof_perf_options
options(pprof_perf_input input, uint32_t labels)
{
    pprof_perf_options o;
    pprof_perf_options_init(&o);
    o.input = input;
    o.labels = labels;
    o.max_round_records = 64;
    o.max_processes = 256;
    o.timestamps = (labels & PPROF_PERF_LABEL_TID) != 0; /* times too, on half the inputs */
    static const char ks[] = "ffffffff81000000 T _text\nffffffff81000100 t f [mod]\n";
    if (labels & PPROF_PERF_LABEL_CPU) {
        o.kallsyms = ks;
        o.kallsyms_size = sizeof(ks) - 1;
    }
    return o;
}

static int64_t
count_samples(const pprof_profile *p)
{
    int64_t n = 0;
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE); i++)
        n += pprof_profile_sample(p, i).value[0];
    return n;
}

/* The read again, with every label, with one allocation failing, at up to points points spread
 * over its allocations (fuzz_fail_points). */
static void
nomem(const uint8_t *data, size_t size, pprof_perf_options o, uint64_t points, uint64_t h)
{
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    o.allocator = fuzz_failing_allocator(&fa);
    /* every label: their names and values are allocations too */
    o.labels =
        PPROF_PERF_LABEL_PID | PPROF_PERF_LABEL_TID | PPROF_PERF_LABEL_COMM | PPROF_PERF_LABEL_CPU;
    o.timestamps = true;
    pprof_profile *p = NULL;
    pprof_error err;
    if (pprof_perf_read_memory(data, size, &o, &p, NULL, &err) != PPROF_OK)
        return;
    pprof_profile_free(p);
    uint64_t calls = fa.calls;
    for (uint64_t k = 0; k < points && k < calls; k++) {
        fa = (fuzz_failing_alloc){0, fuzz_fail_point(calls, k, points, h), 0};
        p = NULL;
        pprof_status s = pprof_perf_read_memory(data, size, &o, &p, NULL, &err);
        FUZZ_CHECK(s == PPROF_OK || (s == PPROF_E_NOMEM && fa.failed && !p && err.message[0]),
                   "allocation %llu failing gives %s: %s", (unsigned long long)fa.fail_at,
                   pprof_status_name(s), err.message);
        pprof_profile_free(p);
    }
}

/* Reads data with o; the number of samples converted, or -1 on an error. */
static int64_t
one(const uint8_t *data, size_t size, const pprof_perf_options *o)
{
    pprof_profile *p = NULL, *q = NULL;
    pprof_perf_stats st = PPROF_PERF_STATS_INIT;
    pprof_error err;
    pprof_status s = pprof_perf_read_memory(data, size, o, &p, &st, &err);
    if (s != PPROF_OK) {
        FUZZ_CHECK(!p && err.code == s && err.message[0], "error without a message");
        return -1;
    }
    FUZZ_CHECK(st.samples_converted <= st.samples, "more samples converted than read");
    int64_t n = count_samples(p);
    FUZZ_CHECK(n == (int64_t)st.samples_converted, "samples/count %lld, converted %llu",
               (long long)n, (unsigned long long)st.samples_converted);
    /* the warning is snprintf-like: its full length whatever the room, cut to the room */
    char w[1024], cut[9];
    size_t wn = pprof_perf_warning(&st, w, sizeof(w));
    FUZZ_CHECK(pprof_perf_warning(&st, cut, sizeof(cut)) == wn &&
                   strncmp(cut, w, sizeof(cut) - 1) == 0 && strlen(cut) < sizeof(cut),
               "the warning cut to %zu bytes is not its start", sizeof(cut));
    FUZZ_CHECK(pprof_perf_warning(NULL, cut, sizeof(cut)) == 0 && !cut[0],
               "no stats give a warning");
    pprof_buffer b = {0};
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    s = pprof_profile_write_memory(p, &wo, &b, &err);
    FUZZ_CHECK(s == PPROF_OK, "writing the profile failed: %s", err.message);
    s = pprof_profile_read_memory(b.data, b.len, NULL, &q, &err);
    FUZZ_CHECK(s == PPROF_OK && pprof_profile_equal(p, q), "the profile does not read back");
    pprof_buffer_free(&b);
    pprof_profile_free(p);
    pprof_profile_free(q);
    return n;
}

/* The file entry points: a mapped file read and a conversion into a file give the samples the
 * memory read gave (n, or -1 for an error); a missing file or a directory is PPROF_E_IO, one over
 * max_input_bytes PPROF_E_LIMIT, a NULL argument PPROF_E_ARG. */
static void
files(const uint8_t *data, size_t size, const pprof_perf_options *o, int64_t n)
{
    const char *base = getenv("TMPDIR");
    char dir[4096], in[4200], out[4200];
    snprintf(dir, sizeof(dir), "%s/pprof-fuzz-perf-XXXXXX", base && *base ? base : "/tmp");
    FUZZ_CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    snprintf(in, sizeof(in), "%s/in.data", dir);
    snprintf(out, sizeof(out), "%s/out.pb", dir);
    FILE *f = fopen(in, "wb");
    FUZZ_CHECK(f && fwrite(data, 1, size, f) == size && fclose(f) == 0, "cannot write %s", in);

    pprof_profile *p = NULL;
    pprof_error err;
    pprof_status s = pprof_perf_read_file(in, o, &p, NULL, &err);
    FUZZ_CHECK((s == PPROF_OK) == (n >= 0), "file and memory reads disagree: %s",
               pprof_status_name(s));
    if (s == PPROF_OK)
        FUZZ_CHECK(count_samples(p) == n, "file and memory reads give different samples");
    pprof_profile_free(p);
    p = NULL;
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    s = pprof_perf_convert_file(in, o, &wo, out, NULL, &err);
    FUZZ_CHECK((s == PPROF_OK) == (n >= 0), "conversion and memory read disagree: %s",
               pprof_status_name(s));
    if (s == PPROF_OK) {
        s = pprof_profile_read_file(out, NULL, &p, &err);
        FUZZ_CHECK(s == PPROF_OK && count_samples(p) == n, "the converted file does not read");
        pprof_profile_free(p);
        unlink(out);
    }
    if (size) {
        pprof_perf_options small = *o;
        small.max_input_bytes = size - 1;
        p = NULL;
        s = pprof_perf_read_file(in, &small, &p, NULL, &err);
        FUZZ_CHECK(s == PPROF_E_LIMIT && !p, "a file over max_input_bytes gives %s",
                   pprof_status_name(s));
    }
    FUZZ_CHECK(unlink(in) == 0, "unlink %s", in);
    p = NULL;
    s = pprof_perf_read_file(in, o, &p, NULL, &err);
    FUZZ_CHECK(s == PPROF_E_IO && !p, "a missing file gives %s", pprof_status_name(s));
    s = pprof_perf_read_file(dir, o, &p, NULL, &err);
    FUZZ_CHECK(s == PPROF_E_IO && !p, "a directory gives %s", pprof_status_name(s));
    FUZZ_CHECK(rmdir(dir) == 0, "rmdir %s: %s", dir, strerror(errno));
    FUZZ_CHECK(pprof_perf_read_memory(data, size, o, NULL, NULL, &err) == PPROF_E_ARG &&
                   pprof_perf_read_file(NULL, o, &p, NULL, &err) == PPROF_E_ARG &&
                   pprof_perf_convert_file(NULL, o, &wo, out, NULL, &err) == PPROF_E_ARG,
               "a NULL argument is not PPROF_E_ARG");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fuzz_hash(data, size);
    pprof_perf_options o = options(PPROF_PERF_INPUT_DATA, (uint32_t)(h & 15));
    one(data, size, &o);
    o = options(PPROF_PERF_INPUT_AUTO, (uint32_t)((h >> 4) & 15));
    int64_t n = one(data, size, &o);
    /* while fuzzing, the sweep (which reads the input 9 times) only on small inputs */
    uint64_t points = fuzz_fail_points(8);
    if (n >= 0 && (size <= 4096 || points > 8))
        nomem(data, size, o, points, h >> 16);
    files(data, size, &o, n);
    /* each event filter, with rounds replayed one record at a time (0 means 1) */
    o.max_round_records = 0;
    o.labels = (uint32_t)((h >> 12) & 15);
    o.kallsyms = NULL;
    for (size_t i = 0; i < sizeof(EVENTS) / sizeof(EVENTS[0]); i++) {
        o.events = EVENTS[i];
        o.n_events = EVENTS[i][1] ? 2 : 1;
        one(data, size, &o);
    }
    return 0;
}
