/* The writer: exact bytes for a tiny profile, determinism, the rebuilt string table, packed
 * output, and dangling string indices refused with a path. */
#include <dirent.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pb.h"
#include "testutil.h"

static pprof_profile *
decode(const pb *b)
{
    pprof_profile *p = NULL;
    pprof_error err;
    if (tu_decode_raw(b->d, b->n, NULL, &p, &err)) {
        tap_diag("decode failed: %s: %s", err.path, err.message);
        return NULL;
    }
    return p;
}

static bool
write_raw(const pprof_profile *p, pprof_buffer *out, pprof_error *err)
{
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_RAW;
    return pprof_profile_write_memory(p, &w, out, err) == PPROF_OK;
}

/* A tiny profile whose encoding we know byte for byte: it pins field order, packing, omitted
 * zero fields and the string table layout. */
static void
test_exact_bytes(tap *t)
{
    pb b = {0}, s = {0};
    /* unused and duplicate strings, "" not first: all of that is rebuilt */
    const char *const strs[] = {"", "unused", "cpu", "ns", "cpu", "f"};
    pb_strings(&b, strs, 6);
    pb_value_type(&b, 1, 4, 3); /* the duplicate "cpu" */
    const uint64_t ids[] = {1, 300};
    pb_packed(&s, 2, ids, 2);
    pb_v(&s, 1, 1); /* unpacked in, packed out */
    pb_msg_free(&b, 2, &s);
    pb_v(&s, 1, 1);
    pb_v(&s, 2, 5);
    pb_v(&s, 5, 0); /* an explicit zero is omitted on output */
    pb_msg_free(&b, 5, &s);
    pb_v(&b, 12, 100);
    pprof_profile *p = decode(&b);
    pprof_buffer out = {0};
    pprof_error err;
    bool ok = p && write_raw(p, &out, &err);
    pb exp = {0};
    pb_value_type(&exp, 1, 1, 2);
    pb_packed(&s, 1, ids, 1);
    pb_packed(&s, 2, ids, 2);
    pb_msg_free(&exp, 2, &s);
    pb_v(&s, 1, 1);
    pb_v(&s, 2, 3);
    pb_msg_free(&exp, 5, &s);
    const char *const new_strs[] = {"", "cpu", "ns", "f"};
    pb_strings(&exp, new_strs, 4);
    pb_v(&exp, 12, 100);
    ok = ok && out.len == exp.n && memcmp(out.data, exp.d, exp.n) == 0;
    if (!tap_ok(t, ok, "exact bytes: packed, zero fields omitted, string table rebuilt"))
        for (size_t i = 0; i < out.len; i++)
            tap_diag("byte %zu: got %02x want %02x", i, out.data[i], i < exp.n ? exp.d[i] : 0);
    /* the encoding of a decoded encoding is the same bytes (a fixed point) */
    pprof_profile *q = NULL;
    pprof_buffer again = {0};
    ok = ok && tu_decode_raw(out.data, out.len, NULL, &q, NULL) == PPROF_OK &&
         write_raw(q, &again, &err);
    tap_ok(t, ok && again.len == out.len && memcmp(again.data, out.data, out.len) == 0,
           "encode(decode(encode(x))) == encode(x)");
    tap_ok(t, q && pprof_profile_equal(p, q), "the written profile reads back equal");
    tap_ok(t, q && pprof_profile_count(q, PPROF_TABLE_STRING) == 4,
           "written string table holds only referenced strings");
    pprof_profile_free(q);
    pprof_buffer_free(&again);
    pprof_buffer_free(&out);
    pprof_profile_free(p);
    pb_free(&exp);
    pb_free(&b);
}

static void
test_deterministic(tap *t)
{
    pb b = {0}, s = {0}, l = {0};
    const char *const strs[] = {"", "a", "b", "a", "c", "zz"};
    pb_strings(&b, strs, 6);
    for (uint64_t i = 0; i < 50; i++) {
        pb_v(&s, 1, i % 7 + 1);
        pb_v(&s, 2, i * 1000003);
        pb_v(&l, 1, 1 + i % 5);
        pb_v(&l, 3, i);
        pb_msg_free(&s, 3, &l);
        pb_msg_free(&b, 2, &s);
    }
    for (uint64_t i = 1; i <= 7; i++) {
        pb_v(&s, 1, i * 17);
        pb_v(&l, 1, i);
        pb_v(&l, 2, i);
        pb_msg_free(&s, 4, &l);
        pb_msg_free(&b, 4, &s);
        pb_v(&s, 1, i);
        pb_v(&s, 2, i % 6);
        pb_msg_free(&b, 5, &s);
    }
    const uint64_t comments[] = {5, 3, 3};
    pb_packed(&b, 13, comments, 3);
    pb_value_type(&b, 11, 1, 2);
    pprof_profile *p = decode(&b);
    const pprof_format fmts[] = {PPROF_FORMAT_RAW, PPROF_FORMAT_GZIP, PPROF_FORMAT_ZSTD};
    for (int f = 0; f < 3; f++) {
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        w.format = fmts[f];
        pprof_buffer x = {0}, y = {0};
        bool ok = p && pprof_profile_write_memory(p, &w, &x, NULL) == PPROF_OK &&
                  pprof_profile_write_memory(p, &w, &y, NULL) == PPROF_OK;
        tap_ok(t, ok && x.len == y.len && memcmp(x.data, y.data, x.len) == 0,
               "%s: same model, same bytes", pprof_format_name(fmts[f]));
        pprof_profile *q = NULL;
        ok = ok && pprof_profile_read_memory(x.data, x.len, NULL, &q, NULL) == PPROF_OK;
        tap_ok(t, ok && pprof_profile_source_format(q) == fmts[f] && pprof_profile_equal(p, q),
               "%s: reads back equal, container detected", pprof_format_name(fmts[f]));
        if (q) {
            /* "" first, no duplicates */
            size_t n = pprof_profile_count(q, PPROF_TABLE_STRING);
            pprof_string s0;
            bool dedup = pprof_profile_string(q, 0, &s0) && s0.len == 0;
            for (size_t i = 0; i < n && dedup; i++)
                for (size_t j = i + 1; j < n && dedup; j++) {
                    pprof_string a, c;
                    pprof_profile_string(q, (int64_t)i, &a);
                    pprof_profile_string(q, (int64_t)j, &c);
                    dedup = !(a.len == c.len && memcmp(a.data, c.data, a.len) == 0);
                }
            tap_ok(t, dedup && n == 5, "%s: string table \"\" first, deduplicated (%zu)",
                   pprof_format_name(fmts[f]), n);
        }
        pprof_profile_free(q);
        pprof_buffer_free(&x);
        pprof_buffer_free(&y);
    }
    /* writing appends to what the buffer holds */
    pprof_buffer x = {0};
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_RAW;
    pprof__buffer_append(&x, "HDR", 3);
    bool ok = p && pprof_profile_write_memory(p, &w, &x, NULL) == PPROF_OK;
    pprof_buffer y = {0};
    ok = ok && write_raw(p, &y, NULL);
    tap_ok(t,
           ok && x.len == y.len + 3 && memcmp(x.data, "HDR", 3) == 0 &&
               memcmp(x.data + 3, y.data, y.len) == 0,
           "write_memory appends to a non-empty buffer");
    pprof_buffer_free(&x);
    pprof_buffer_free(&y);
    pprof_profile_free(p);
    pb_free(&b);
}

/* A profile without a string table writes [""] and reads back equal. */
static void
test_no_string_table(tap *t)
{
    pb b = {0}, s = {0};
    pb_v(&s, 1, 1);
    pb_msg_free(&b, 2, &s);
    pprof_profile *p = decode(&b), *q = NULL;
    pprof_buffer out = {0};
    bool ok = p && write_raw(p, &out, NULL) &&
              tu_decode_raw(out.data, out.len, NULL, &q, NULL) == PPROF_OK;
    pprof_string s0;
    tap_ok(t,
           ok && pprof_profile_count(q, PPROF_TABLE_STRING) == 1 &&
               pprof_profile_string(q, 0, &s0) && s0.len == 0,
           "no string table in, [\"\"] out");
    pprof_profile_free(p);
    pprof_profile_free(q);
    pprof_buffer_free(&out);
    pb_free(&b);
}

/* Every string field of every message, set out of range, fails with its own path. */
static void
test_dangling(tap *t)
{
    struct {
        uint32_t outer, inner, leaf; /* leaf 0: inner is the string field itself */
        const char *path;
    } cases[] = {
        {1, 1, 0, "sample_type[0].type"},
        {1, 2, 0, "sample_type[0].unit"},
        {2, 3, 1, "sample[0].label[0].key"},
        {2, 3, 2, "sample[0].label[0].str"},
        {2, 3, 4, "sample[0].label[0].num_unit"},
        {3, 5, 0, "mapping[0].filename"},
        {3, 6, 0, "mapping[0].build_id"},
        {5, 2, 0, "function[0].name"},
        {5, 3, 0, "function[0].system_name"},
        {5, 4, 0, "function[0].filename"},
        {11, 1, 0, "period_type.type"},
        {11, 2, 0, "period_type.unit"},
        {0, 7, 0, "drop_frames"},
        {0, 8, 0, "keep_frames"},
        {0, 14, 0, "default_sample_type"},
        {0, 15, 0, "doc_url"},
        {0, 13, 0, "comment[1]"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pb b = {0}, s = {0}, l = {0};
        const char *const strs[] = {"", "ok"};
        pb_strings(&b, strs, 2);
        /* a valid entity first, so the failing one has index 0 only for its own table */
        const uint64_t bad = 99;
        if (cases[i].outer == 0) {
            if (cases[i].inner == 13) {
                pb_v(&b, 13, 1);
                pb_v(&b, 13, bad);
            } else {
                pb_v(&b, cases[i].inner, bad);
            }
        } else if (cases[i].leaf) {
            pb_v(&l, cases[i].leaf, bad);
            pb_msg_free(&s, cases[i].inner, &l);
            pb_msg_free(&b, cases[i].outer, &s);
        } else {
            pb_v(&s, cases[i].inner, bad);
            pb_msg_free(&b, cases[i].outer, &s);
        }
        pprof_profile *p = decode(&b);
        pprof_buffer out = {0};
        pprof_error err = {0};
        const pprof_format fmts[] = {PPROF_FORMAT_RAW, PPROF_FORMAT_GZIP};
        for (int f = 0; f < 2; f++) {
            pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
            w.format = fmts[f];
            pprof_status st = p ? pprof_profile_write_memory(p, &w, &out, &err) : PPROF_E_ARG;
            if (!tap_ok(t,
                        st == PPROF_E_INVALID && err.code == PPROF_E_INVALID &&
                            strcmp(err.path, cases[i].path) == 0 && out.len == 0 &&
                            strstr(err.message, "99"),
                        "%s: dangling string index -> PPROF_E_INVALID at %s",
                        pprof_format_name(w.format), cases[i].path))
                tap_diag("got %s '%s' %s (out.len %zu)", pprof_status_name(st), err.path,
                         err.message, out.len);
        }
        pprof_buffer_free(&out);
        pprof_profile_free(p);
        pb_free(&b);
    }
    /* negative index */
    pb b = {0}, s = {0};
    pb_str(&b, 6, "");
    pb_v(&s, 2, (uint64_t)-1);
    pb_msg_free(&b, 5, &s);
    pprof_profile *p = decode(&b);
    pprof_buffer out = {0};
    pprof_error err = {0};
    tap_ok(t,
           p && !write_raw(p, &out, &err) && err.code == PPROF_E_INVALID &&
               strcmp(err.path, "function[0].name") == 0,
           "negative string index -> PPROF_E_INVALID");
    pprof_buffer_free(&out);
    pprof_profile_free(p);
    pb_free(&b);
}

static void
test_args(tap *t)
{
    pprof_buffer out = {0};
    pprof_error err;
    tap_ok(t, pprof_profile_write_memory(NULL, NULL, &out, &err) == PPROF_E_ARG,
           "NULL profile -> PPROF_E_ARG");
    pb b = {0};
    pb_str(&b, 6, "");
    pprof_profile *p = decode(&b);
    tap_ok(t, pprof_profile_write_memory(p, NULL, NULL, &err) == PPROF_E_ARG,
           "NULL buffer -> PPROF_E_ARG");
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = (pprof_format)42;
    tap_ok(t, pprof_profile_write_memory(p, &w, &out, &err) == PPROF_E_ARG,
           "unknown format -> PPROF_E_ARG");
    /* an older caller's smaller options struct: the format it set is honoured */
    pprof_write_options old = {.struct_size = offsetof(pprof_write_options, level),
                               .format = PPROF_FORMAT_ZSTD,
                               .level = 12345};
    pprof_buffer_free(&out);
    tap_ok(t,
           pprof_profile_write_memory(p, &old, &out, &err) == PPROF_OK && out.len >= 4 &&
               pprof_detect_format(out.data, out.len) == PPROF_FORMAT_ZSTD,
           "short options struct: fields past struct_size ignored");
    pprof_buffer_free(&out);
    pprof_profile_free(p);
    pb_free(&b);
}

/* Writing a file with threads compresses gzip members while the rest is still being encoded:
 * the file must hold the same bytes as a one-thread write and as write_memory's gzip. */
static void
test_streamed_gzip(tap *t)
{
    pb b = {0}, s = {0}, l = {0};
    const char *const strs[] = {"", "samples", "count", "f", "k", "v"};
    pb_strings(&b, strs, 6);
    pb_value_type(&b, 1, 1, 2);
    uint64_t x = 7;
    for (size_t i = 0; i < 300000; i++) { /* about 11 MB encoded: three members */
        uint64_t locs[24];
        size_t depth = 4 + pb_rand(&x) % 20;
        for (size_t d = 0; d < depth; d++)
            locs[d] = 1 + pb_rand(&x) % 50;
        pb_packed(&s, 1, locs, depth);
        pb_v(&s, 2, 1 + pb_rand(&x) % 1000);
        pb_v(&l, 1, 4);
        pb_v(&l, 2, 5);
        pb_msg_free(&s, 3, &l);
        pb_msg_free(&b, 2, &s);
    }
    pb_simple_locations(&b, 50);
    pprof_profile *p = decode(&b);
    char dir[] = "/tmp/pprof-test-stream-XXXXXX";
    bool ok = p && mkdtemp(dir);
    char one[64], many[64];
    snprintf(one, sizeof(one), "%s/one.pb.gz", dir);
    snprintf(many, sizeof(many), "%s/many.pb.gz", dir);
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.level = 1;
    pprof_buffer mem = {0};
    pprof_error err;
    ok = ok && pprof_profile_write_file(p, &w, one, &err) == PPROF_OK &&
         pprof_profile_write_memory(p, &w, &mem, &err) == PPROF_OK;
    w.threads = 3;
    ok = ok && pprof_profile_write_file(p, &w, many, &err) == PPROF_OK;
    size_t n1 = 0, n2 = 0;
    uint8_t *a = ok ? tu_read_file(one, &n1) : NULL, *c = ok ? tu_read_file(many, &n2) : NULL;
    tap_ok(t,
           a && c && n1 == n2 && n1 == mem.len && n1 > 1000000 && !memcmp(a, c, n1) &&
               !memcmp(a, mem.data, n1),
           "gzip written by 1 and 3 threads (compressing while encoding) and to memory: the "
           "same %zu bytes",
           n1);
    pprof_profile *back = NULL;
    tap_ok(t,
           c && pprof_profile_read_memory(c, n2, NULL, &back, &err) == PPROF_OK &&
               pprof_profile_equal(p, back),
           "the streamed file reads back as the profile");
    pprof_profile_free(back);
    /* A streamed write the file system refuses part way (a file size limit of 200 kB, in a
     * child, as a full disk would) is an I/O error, and the target stays as it was. */
    pid_t pid = ok ? fork() : -1;
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {200000, 200000};
        pprof_error e2;
        pprof_status st2 = setrlimit(RLIMIT_FSIZE, &rl) == 0
                               ? pprof_profile_write_file(p, &w, many, &e2)
                               : PPROF_E_ARG;
        _exit(st2 == PPROF_E_IO && strstr(e2.message, "cannot write") ? 0 : 1);
    }
    int status = -1;
    if (pid > 0)
        waitpid(pid, &status, 0);
    size_t n4 = 0;
    uint8_t *kept = tu_read_file(many, &n4);
    tap_ok(t,
           pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && kept && n4 == n2 && c &&
               !memcmp(kept, c, n2),
           "a streamed write refused part way (file size limit) is an I/O error and leaves the "
           "file as it was");
    free(kept);
    /* A write that fails part way (a dangling function name, met after members of samples went
     * out to the temporary file) leaves the target as it was and nothing beside it. */
    PPROF__AT(p->functions, pprof_function, 0).name = 1000;
    pprof_status st = ok ? pprof_profile_write_file(p, &w, many, &err) : PPROF_OK;
    size_t n3 = 0, left = 0;
    uint8_t *d = tu_read_file(many, &n3);
    DIR *dd = ok ? opendir(dir) : NULL;
    for (struct dirent *e; dd && (e = readdir(dd));)
        left += e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, ".."));
    if (dd)
        closedir(dd);
    tap_ok(t,
           st == PPROF_E_INVALID && strstr(err.path, "function[0].name") && d && n3 == n2 && c &&
               !memcmp(d, c, n2) && left == 2,
           "a streamed write that fails part way leaves the file as it was (%s: %s; %zu files)",
           err.path, err.message, left);
    free(d);
    free(a);
    free(c);
    unlink(one);
    unlink(many);
    rmdir(dir);
    pprof_buffer_free(&mem);
    pprof_profile_free(p);
    pb_free(&b);
}

/* An allocator that counts the bytes it holds, and their peak since the last reset. */
typedef struct counting {
    _Atomic long long held, peak;
} counting;

static void
ct_add(counting *c, long long d)
{
    long long now = atomic_fetch_add(&c->held, d) + d, p = atomic_load(&c->peak);
    while (now > p && !atomic_compare_exchange_weak(&c->peak, &p, now))
        ;
}

static void *
ct_alloc(void *ctx, size_t size)
{
    size_t *h = malloc(sizeof(size_t) * 2 + size);
    if (!h)
        return NULL;
    *h = size;
    ct_add(ctx, (long long)size);
    return h + 2;
}

static void
ct_free(void *ctx, void *ptr)
{
    if (!ptr)
        return;
    size_t *h = (size_t *)ptr - 2;
    ct_add(ctx, -(long long)*h);
    free(h);
}

static void *
ct_realloc(void *ctx, void *ptr, size_t size)
{
    if (!ptr)
        return ct_alloc(ctx, size);
    size_t *h = (size_t *)ptr - 2, old = *h;
    size_t *n = realloc(h, sizeof(size_t) * 2 + size);
    if (!n)
        return NULL;
    *n = size;
    ct_add(ctx, (long long)size - (long long)old);
    return n + 2;
}

/* gzip on several threads streams the encoding through a few chunks that are compressed and
 * then written again, never one buffer of the whole encoding: the bytes are those of one thread
 * and of write_memory, and the memory the write holds stays a few chunks, whatever the
 * encoding's size. The profile has a record larger than a chunk's spare room (one sample of
 * 1.5 M locations) and a string table of 4 MB, written a string at a time. Before, the write held a
 * buffer of the whole encoding, and more. */
static void
test_gzip_ring(tap *t)
{
    pb b = {0}, s = {0}, l = {0};
    const char *const strs[] = {"", "samples", "count", "f", "k"};
    pb_strings(&b, strs, 5);
    char str[201];
    for (size_t i = 0; i < 20000; i++) { /* strings 5.. : label values */
        snprintf(str, sizeof(str), "%0200zu", i);
        pb_str(&b, 6, str);
    }
    pb_value_type(&b, 1, 1, 2);
    uint64_t x = 9, *huge = malloc(1500000 * sizeof(uint64_t));
    for (size_t i = 0; huge && i < 1500000; i++)
        huge[i] = 1 + i % 50;
    for (size_t i = 0; huge && i < 300000; i++) {
        uint64_t locs[24];
        size_t depth = 4 + pb_rand(&x) % 20;
        for (size_t d = 0; d < depth; d++)
            locs[d] = 1 + pb_rand(&x) % 50;
        if (i == 150000)
            pb_packed(&s, 1, huge, 1500000);
        else
            pb_packed(&s, 1, locs, depth);
        pb_v(&s, 2, 1 + pb_rand(&x) % 1000);
        pb_v(&l, 1, 4);
        pb_v(&l, 2, 5 + i % 20000);
        pb_msg_free(&s, 3, &l);
        pb_msg_free(&b, 2, &s);
    }
    free(huge);
    pb_simple_locations(&b, 50);
    counting c = {0};
    pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
    ro.allocator = (pprof_allocator){ct_alloc, ct_realloc, ct_free, &c};
    pprof_profile *p = NULL;
    pprof_error err;
    bool ok = tu_decode_raw(b.d, b.n, &ro, &p, &err) == PPROF_OK;
    char dir[] = "/tmp/pprof-test-ring-XXXXXX";
    ok = ok && mkdtemp(dir);
    char path[4][64];
    const unsigned threads[4] = {1, 2, 3, 64};
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    pprof_buffer mem = {0}, raw = {0};
    ok =
        ok && pprof_profile_write_memory(p, &w, &mem, &err) == PPROF_OK && write_raw(p, &raw, &err);
    long long peak2 = 0;
    for (int k = 0; k < 4 && ok; k++) {
        snprintf(path[k], sizeof(path[k]), "%s/%u.pb.gz", dir, threads[k]);
        w.threads = threads[k];
        long long before = atomic_load(&c.held);
        atomic_store(&c.peak, before);
        ok = pprof_profile_write_file(p, &w, path[k], &err) == PPROF_OK;
        if (threads[k] == 2)
            peak2 = atomic_load(&c.peak) - before;
    }
    bool same = ok;
    for (int k = 0; k < 4 && same; k++) {
        size_t n = 0;
        uint8_t *d = tu_read_file(path[k], &n);
        same = d && n == mem.len && !memcmp(d, mem.data, n);
        free(d);
    }
    tap_ok(t, same && raw.len > 12000000,
           "gzip of a %zu-byte encoding by 1, 2, 3 and 64 threads: write_memory's bytes (%s)",
           raw.len, ok ? "ok" : err.message);
    tap_ok(t, ok && peak2 > 0 && (size_t)peak2 < raw.len / 4 * 3,
           "gzip on 2 threads holds %lld bytes at most while writing a %zu-byte encoding", peak2,
           raw.len);
    pprof_profile *back = NULL;
    tap_ok(t,
           same && pprof_profile_read_memory(mem.data, mem.len, NULL, &back, &err) == PPROF_OK &&
               pprof_profile_equal(p, back),
           "it reads back as the profile");
    pprof_profile_free(back);
    for (int k = 0; k < 4; k++)
        unlink(path[k]);
    rmdir(dir);
    pprof_buffer_free(&mem);
    pprof_buffer_free(&raw);
    pprof_profile_free(p);
    pb_free(&b);
}

/* A raw file is written a piece at a time as it is encoded: the same bytes as write_memory's,
 * and on failure (of the file system or of the encoding, met after pieces went out) the target
 * stays as it was with nothing left beside it; an encoding error wins over a path that cannot
 * be written, as when the file was written whole. */
static void
test_streamed_raw(tap *t)
{
    pb b = {0}, s = {0}, l = {0};
    const char *const strs[] = {"", "samples", "count", "f", "k", "v"};
    pb_strings(&b, strs, 6);
    pb_value_type(&b, 1, 1, 2);
    uint64_t x = 11;
    for (size_t i = 0; i < 100000; i++) { /* about 2.7 MB: several pieces */
        uint64_t locs[24];
        size_t depth = 4 + pb_rand(&x) % 20;
        for (size_t d = 0; d < depth; d++)
            locs[d] = 1 + pb_rand(&x) % 50;
        if (i % 3 == 1) /* the stack of the sample before: copied from the previous record */
            locs[0] = 1 + (i - 1) % 50;
        pb_packed(&s, 1, locs, depth);
        pb_v(&s, 2, 1 + pb_rand(&x) % 1000);
        pb_v(&l, 1, 4);
        pb_v(&l, 2, 5);
        pb_msg_free(&s, 3, &l);
        pb_msg_free(&b, 2, &s);
    }
    pb_simple_locations(&b, 50);
    pprof_profile *p = decode(&b);
    char dir[] = "/tmp/pprof-test-raw-XXXXXX";
    bool ok = p && mkdtemp(dir);
    char path[64], nowhere[96];
    snprintf(path, sizeof(path), "%s/out.pb", dir);
    snprintf(nowhere, sizeof(nowhere), "%s/no/such/dir/out.pb", dir);
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_RAW;
    pprof_buffer mem = {0};
    pprof_error err;
    ok = ok && pprof_profile_write_memory(p, &w, &mem, &err) == PPROF_OK &&
         pprof_profile_write_file(p, &w, path, &err) == PPROF_OK;
    size_t n = 0;
    uint8_t *a = ok ? tu_read_file(path, &n) : NULL;
    tap_ok(t, a && n == mem.len && n > 2000000 && !memcmp(a, mem.data, n),
           "raw written to a file piece by piece: write_memory's %zu bytes", n);
    pprof_status st = ok ? pprof_profile_write_file(p, &w, nowhere, &err) : PPROF_OK;
    tap_ok(t, st == PPROF_E_IO, "raw to a directory that does not exist: an I/O error (%s)",
           err.message);
    pid_t pid = ok ? fork() : -1;
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {1500000, 1500000};
        pprof_error e2;
        pprof_status st2 = setrlimit(RLIMIT_FSIZE, &rl) == 0
                               ? pprof_profile_write_file(p, &w, path, &e2)
                               : PPROF_E_ARG;
        _exit(st2 == PPROF_E_IO && strstr(e2.message, "cannot write") ? 0 : 1);
    }
    int status = -1;
    if (pid > 0)
        waitpid(pid, &status, 0);
    size_t n2 = 0;
    uint8_t *kept = tu_read_file(path, &n2);
    tap_ok(t,
           pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && kept && n2 == n &&
               !memcmp(kept, a, n),
           "a raw write refused part way (file size limit) is an I/O error and leaves the file "
           "as it was");
    free(kept);
    PPROF__AT(p->functions, pprof_function, 0).name = 1000;
    st = ok ? pprof_profile_write_file(p, &w, path, &err) : PPROF_OK;
    size_t n3 = 0, left = 0;
    uint8_t *d = tu_read_file(path, &n3);
    DIR *dd = ok ? opendir(dir) : NULL;
    for (struct dirent *e; dd && (e = readdir(dd));)
        left += e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, ".."));
    if (dd)
        closedir(dd);
    tap_ok(t,
           st == PPROF_E_INVALID && strstr(err.path, "function[0].name") && d && n3 == n &&
               !memcmp(d, a, n) && left == 1,
           "a raw write that fails after pieces went out leaves the file as it was (%s; %zu "
           "files)",
           err.path, left);
    st = ok ? pprof_profile_write_file(p, &w, nowhere, &err) : PPROF_OK;
    tap_ok(t, st == PPROF_E_INVALID,
           "an encoding error wins over a path that cannot be written (%s)", err.message);
    free(d);
    free(a);
    unlink(path);
    rmdir(dir);
    pprof_buffer_free(&mem);
    pprof_profile_free(p);
    pb_free(&b);
}

int
main(void)
{
    tap t = {0};
    test_streamed_gzip(&t);
    test_gzip_ring(&t);
    test_streamed_raw(&t);
    test_exact_bytes(&t);
    test_deterministic(&t);
    test_no_string_table(&t);
    test_dangling(&t);
    test_args(&t);
    return tap_done(&t);
}
