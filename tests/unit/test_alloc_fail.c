/* Out-of-memory handling through the public allocator hooks: each entry point (build, read,
 * check, write, merge, edit, convert) runs with an allocator that fails its Nth call, for
 * N = 1, 2, ... until the call makes fewer than N allocations and succeeds. Every failure must
 * come back as PPROF_E_NOMEM with a message, and every byte the allocator handed out must have
 * been returned by then: the live count is the leak check, so it holds without ASan too. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pprof/builder.h"
#include "pprof/check.h"
#include "pprof/edit.h"
#include "pprof/merge.h"
#include "pprof/pprof.h"
#include "pprof/report.h"
#include "report-private.h"
#include "tap.h"

/* Atomic because the merger, the editor and the gzip writer call the allocator from their own
 * threads when given threads >= 2. */
typedef struct failing {
    atomic_ullong calls;
    atomic_ullong fail_at; /* 1-based; 0: never */
    atomic_ullong failed;
    atomic_llong live; /* blocks handed out and not yet freed */
} failing;

static void *
fa_alloc(void *ctx, size_t size)
{
    failing *f = ctx;
    unsigned long long n = atomic_fetch_add(&f->calls, 1) + 1;
    if (n == atomic_load(&f->fail_at)) {
        atomic_fetch_add(&f->failed, 1);
        return NULL;
    }
    void *p = malloc(size ? size : 1);
    if (p)
        atomic_fetch_add(&f->live, 1);
    return p;
}

static void *
fa_realloc(void *ctx, void *ptr, size_t size)
{
    failing *f = ctx;
    unsigned long long n = atomic_fetch_add(&f->calls, 1) + 1;
    if (n == atomic_load(&f->fail_at)) {
        atomic_fetch_add(&f->failed, 1);
        return NULL;
    }
    void *p = realloc(ptr, size ? size : 1);
    if (p && !ptr)
        atomic_fetch_add(&f->live, 1);
    return p;
}

static void
fa_free(void *ctx, void *ptr)
{
    failing *f = ctx;
    if (ptr)
        atomic_fetch_sub(&f->live, 1);
    free(ptr);
}

/* Inputs shared by the scenarios, made once with the default allocator. */
typedef struct fixture {
    pprof_buffer raw, gz, zst, big_raw; /* big_raw: more than one gzip member */
    pprof_profile *p, *q, *big;         /* raw and a second one with other values; big_raw */
    pprof_profile *latin1;              /* function names that are not UTF-8 */
} fixture;

typedef pprof_status (*scenario_fn)(const fixture *fx, const pprof_allocator *a, pprof_error *err);

/* A profile with two sample types, inline frames, a mapping, string and numeric labels and a
 * comment; nsamples distinct stacks. */
static pprof_status
build(const pprof_allocator *a, int nsamples, int64_t scale, pprof_buffer *out, pprof_error *err)
{
    pprof_builder_value_type types[2] = {{"alloc_objects", "count"}, {"alloc_space", "bytes"}};
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    o.sample_types = types;
    o.n_sample_types = 2;
    o.period_type = (pprof_builder_value_type){"space", "bytes"};
    o.period = 524288;
    o.default_sample_type = "alloc_space";
    if (a)
        o.allocator = *a;
    pprof_builder *b = NULL;
    pprof_status st = pprof_builder_new(&o, &b, err);
    if (st != PPROF_OK)
        return st;
    enum { NFN = 40 };
    pprof_builder_fn fns[NFN];
    pprof_builder_map map;
    pprof_builder_str file, key, val, unit;
    char name[32];
    if ((st = pprof_builder_intern_cstr(b, "src/alloc.c", &file, err)) != PPROF_OK)
        goto out;
    for (int i = 0; i < NFN; i++) {
        pprof_builder_str s, none = PPROF_BUILDER_NONE;
        snprintf(name, sizeof name, "pkg.fn%d", i);
        if ((st = pprof_builder_intern_cstr(b, name, &s, err)) != PPROF_OK ||
            (st = pprof_builder_function(b, s, none, file, 10 * i, &fns[i], err)) != PPROF_OK)
            goto out;
    }
    pprof_builder_mapping_desc md = {
        0x400000, 0x800000, 0, PPROF_BUILDER_NONE, PPROF_BUILDER_NONE, true, true, true, false};
    if ((st = pprof_builder_intern_cstr(b, "/bin/app", &md.filename, err)) != PPROF_OK ||
        (st = pprof_builder_intern_cstr(b, "abc123", &md.build_id, err)) != PPROF_OK ||
        (st = pprof_builder_mapping(b, &md, &map, err)) != PPROF_OK ||
        (st = pprof_builder_intern_cstr(b, "thread", &key, err)) != PPROF_OK ||
        (st = pprof_builder_intern_cstr(b, "worker", &val, err)) != PPROF_OK ||
        (st = pprof_builder_intern_cstr(b, "bytes", &unit, err)) != PPROF_OK)
        goto out;
    for (int i = 0; i < nsamples; i++) {
        pprof_builder_loc stack[4];
        for (int k = 0; k < 4; k++) {
            /* two lines (an inlined call) in every other location */
            pprof_builder_line lines[2] = {{fns[(i + k) % NFN], 100 + k, 0},
                                           {fns[(i * 7 + k) % NFN], 200 + i % 1000, 0}};
            uint64_t addr = 0x401000 + (uint64_t)((i * 4 + k) % 200000) * 16;
            if ((st = pprof_builder_location(b, map, addr, lines, (size_t)1 + (k & 1), false,
                                             &stack[k], err)) != PPROF_OK)
                goto out;
        }
        pprof_builder_label labels[2] = {{key, val, 0, PPROF_BUILDER_NONE},
                                         {unit, PPROF_BUILDER_NONE, i % 4096, unit}};
        int64_t values[2] = {1 + i % 3, scale * (512 + i)};
        if ((st = pprof_builder_add_sample(b, values, 2, stack, 4, labels, 2, err)) != PPROF_OK)
            goto out;
    }
    if ((st = pprof_builder_set_time(b, 1700000000000000000, 10000000000, err)) != PPROF_OK ||
        (st = pprof_builder_add_comment(b, "built by test_alloc_fail", err)) != PPROF_OK)
        goto out;
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_RAW;
    st = pprof_builder_write_memory(b, 0, &w, out, err);
out:
    pprof_builder_free(b);
    return st;
}

static pprof_status
sc_builder(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    (void)fx;
    pprof_buffer out = {0};
    pprof_status st = build(a, 50, 1, &out, err);
    pprof_buffer_free(&out);
    return st;
}

static pprof_status
read_with(const pprof_buffer *in, const pprof_allocator *a, pprof_profile **p, pprof_error *err)
{
    pprof_read_options o = PPROF_READ_OPTIONS_INIT;
    o.allocator = *a;
    return pprof_profile_read_memory(in->data, in->len, &o, p, err);
}

static pprof_status
read_one(const pprof_buffer *in, const pprof_allocator *a, pprof_error *err)
{
    pprof_profile *p = NULL;
    pprof_status st = read_with(in, a, &p, err);
    if ((st == PPROF_OK) != (p != NULL)) {
        snprintf(err->message, sizeof err->message, "status %d but profile %p", st, (void *)p);
        st = PPROF_E_ARG; /* reported as a wrong code */
    }
    pprof_profile_free(p);
    return st;
}

static pprof_status
sc_read_raw(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    return read_one(&fx->raw, a, err);
}

static pprof_status
sc_read_gzip(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    return read_one(&fx->gz, a, err);
}

static pprof_status
sc_read_zstd(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    return read_one(&fx->zst, a, err);
}

static pprof_status
sc_check(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    pprof_profile *p = NULL;
    pprof_status st = read_with(&fx->raw, a, &p, err);
    if (st == PPROF_OK) {
        pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
        st = pprof_check(p, NULL, NULL, NULL, &sum, err);
    }
    pprof_profile_free(p);
    return st;
}

/* The write uses the profile's allocator, so the profile is read with the failing one too. */
static pprof_status
write_with(const pprof_buffer *in, pprof_format format, unsigned threads, const pprof_allocator *a,
           pprof_error *err)
{
    pprof_profile *p = NULL;
    pprof_status st = read_with(in, a, &p, err);
    if (st == PPROF_OK) {
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        w.format = format;
        w.threads = threads;
        pprof_buffer out = {0};
        st = pprof_profile_write_memory(p, &w, &out, err);
        pprof_buffer_free(&out);
    }
    pprof_profile_free(p);
    return st;
}

static pprof_status
sc_write_gzip(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    return write_with(&fx->raw, PPROF_FORMAT_GZIP, 1, a, err);
}

static pprof_status
sc_write_zstd(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    return write_with(&fx->raw, PPROF_FORMAT_ZSTD, 1, a, err);
}

/* More than PPROF_GZIP_MEMBER_BYTES on two threads: the parallel gzip members. */
static pprof_status
sc_write_gzip_threads(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    return write_with(&fx->big_raw, PPROF_FORMAT_GZIP, 2, a, err);
}

/* The same written to a file: the encoding streams through the gzip ring's chunks. */
static pprof_status
sc_write_file_gzip_threads(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    pprof_profile *p = NULL;
    pprof_status st = read_with(&fx->big_raw, a, &p, err);
    if (st == PPROF_OK) {
        char path[64];
        snprintf(path, sizeof path, "/tmp/pprof-alloc-fail-%d.pb.gz", (int)getpid());
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        w.threads = 2;
        st = pprof_profile_write_file(p, &w, path, err);
        unlink(path);
    }
    pprof_profile_free(p);
    return st;
}

static pprof_status
merge_with(const fixture *fx, unsigned threads, const pprof_allocator *a, pprof_error *err)
{
    pprof_merge_options o = PPROF_MERGE_OPTIONS_INIT;
    o.allocator = *a;
    o.threads = threads;
    pprof_merger *m = NULL;
    pprof_status st = pprof_merger_new(&o, &m, err);
    if (st == PPROF_OK)
        st = pprof_merger_add(m, fx->p, "a", err);
    if (st == PPROF_OK)
        st = pprof_merger_add(m, fx->q, "b", err);
    pprof_merge_input *in = NULL;
    if (st == PPROF_OK) {
        pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
        ro.allocator = *a;
        st = pprof_merge_input_read_memory(fx->gz.data, fx->gz.len, &ro, &in, err);
    }
    if (st == PPROF_OK)
        st = pprof_merger_add_input(m, in, "c", err);
    pprof_merge_input_free(in);
    pprof_profile *out = NULL;
    if (st == PPROF_OK)
        st = pprof_merger_finish(m, &out, err);
    pprof_profile_free(out);
    pprof_merger_free(m);
    return st;
}

static pprof_status
sc_merge(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    return merge_with(fx, 0, a, err);
}

static pprof_status
sc_merge_threads(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    return merge_with(fx, 2, a, err);
}

/* Writing a merge straight out: the big profile twice, gzip on two threads. */
static pprof_status
sc_merge_write(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    pprof_merge_options o = PPROF_MERGE_OPTIONS_INIT;
    o.allocator = *a;
    o.threads = 2;
    pprof_merger *m = NULL;
    pprof_status st = pprof_merger_new(&o, &m, err);
    if (st == PPROF_OK)
        st = pprof_merger_add(m, fx->big, "big", err);
    if (st == PPROF_OK)
        st = pprof_merger_add(m, fx->p, "small", err);
    pprof_buffer out = {0};
    if (st == PPROF_OK) {
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        w.threads = 2;
        st = pprof_merger_write_memory(m, &w, &out, NULL, err);
    }
    if (st == PPROF_OK) { /* and to a file: through the gzip ring */
        char path[64];
        snprintf(path, sizeof path, "/tmp/pprof-alloc-fail-m%d.pb.gz", (int)getpid());
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        w.threads = 2;
        st = pprof_merger_write_file(m, &w, path, NULL, err);
        unlink(path);
    }
    pprof_buffer_free(&out);
    pprof_merger_free(m);
    return st;
}

static pprof_status
edit_with(const fixture *fx, unsigned threads, const pprof_allocator *a, pprof_error *err)
{
    pprof_edit_options o;
    pprof_edit_options_init(&o);
    o.allocator = *a;
    o.threads = threads;
    o.focus = "fn1";
    o.hide = "fn3$";
    o.tag_focus = "thread=worker";
    pprof_profile *out = NULL;
    pprof_status st = pprof_edit(fx->p, &o, &out, err);
    pprof_profile_free(out);
    if (st != PPROF_OK)
        return st;
    pprof_buffer buf = {0};
    st = pprof_edit_write_memory(fx->p, &o, NULL, &buf, err);
    pprof_buffer_free(&buf);
    return st;
}

static pprof_status
sc_edit(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    return edit_with(fx, 0, a, err);
}

static pprof_status
sc_edit_threads(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    return edit_with(fx, 2, a, err);
}

static pprof_status
sc_convert(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
    ro.allocator = *a;
    pprof_convert_options o = PPROF_CONVERT_OPTIONS_INIT;
    o.read = &ro;
    pprof_buffer out = {0};
    pprof_status st = pprof_convert_memory(fx->gz.data, fx->gz.len, &o, &out, NULL, err);
    pprof_buffer_free(&out);
    if (st != PPROF_OK)
        return st;
    o.mode = PPROF_CONVERT_MODEL;
    st = pprof_convert_memory(fx->gz.data, fx->gz.len, &o, &out, NULL, err);
    pprof_buffer_free(&out);
    return st;
}

/* A profile without a string table (rule PD1): converting it with the check on must refuse it
 * whichever allocation fails. The in-place path once took a table check that ran out of memory
 * for one that found nothing, and wrote it. */
static pprof_status
sc_convert_invalid(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    (void)fx;
    static const uint8_t no_strings[] = {0x70, 0x00, 0x78, 0x00, 0xa0, 0x06,
                                         0x07, 0xaa, 0x81, 0x00, 0x01, 0x78};
    pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
    ro.allocator = *a;
    pprof_convert_options o = PPROF_CONVERT_OPTIONS_INIT;
    o.read = &ro;
    pprof_buffer out = {0};
    pprof_status st = pprof_convert_memory(no_strings, sizeof no_strings, &o, &out, NULL, err);
    pprof_buffer_free(&out);
    return st;
}

/* Two functions named in Latin-1 ("caf\xe9" and "na\xefve") calling each other: a regexp
 * search of such a name needs memory (Go reads each bad byte as U+FFFD). */
static pprof_status
build_latin1(pprof_profile **out, pprof_error *err)
{
    pprof_builder_value_type type = {"samples", "count"};
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    o.sample_types = &type;
    o.n_sample_types = 1;
    pprof_builder *b = NULL;
    pprof_status st = pprof_builder_new(&o, &b, err);
    if (st != PPROF_OK)
        return st;
    static const char *const names[] = {"caf\xe9", "na\xefve"};
    pprof_builder_loc stack[2];
    for (int i = 0; i < 2 && st == PPROF_OK; i++) {
        pprof_builder_str s, file, none = PPROF_BUILDER_NONE;
        pprof_builder_fn fn;
        if ((st = pprof_builder_intern_cstr(b, names[i], &s, err)) != PPROF_OK ||
            (st = pprof_builder_intern_cstr(b, "menu.c", &file, err)) != PPROF_OK ||
            (st = pprof_builder_function(b, s, none, file, 1, &fn, err)) != PPROF_OK)
            break;
        pprof_builder_line line = {fn, 10 + i, 0};
        pprof_builder_map no_map = PPROF_BUILDER_NONE;
        st = pprof_builder_location(b, no_map, 0x1000 + 16 * (uint64_t)i, &line, 1, false,
                                    &stack[i], err);
    }
    int64_t v = 3;
    pprof_buffer raw = {0};
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_RAW;
    if (st == PPROF_OK)
        st = pprof_builder_add_sample(b, &v, 1, stack, 2, NULL, 0, err);
    if (st == PPROF_OK)
        st = pprof_builder_write_memory(b, 0, &w, &raw, err);
    if (st == PPROF_OK)
        st = pprof_profile_read_memory(raw.data, raw.len, NULL, out, err);
    pprof_buffer_free(&raw);
    pprof_builder_free(b);
    return st;
}

/* A report render of the fixture (every allocation through a): the dot graph once freed its
 * name shortener twice when one of the shortener's patterns failed to allocate, and the
 * callgrind output read nodes it had not grouped yet after a failed hash table growth. */
static pprof_status
render_with(const fixture *fx, pprof_report_format f, const pprof_allocator *a, pprof_error *err)
{
    pprof_report_render_options o;
    pprof_report_render_options_init(&o);
    o.format = f;
    o.granularity = PPROF_GRANULARITY_ADDRESSES;
    o.allocator = *a;
    pprof_buffer out = {0};
    pprof_status st = pprof_report_write_memory(fx->p, &o, PPROF_PRINT_TEXT, &out, err);
    pprof_buffer_free(&out);
    return st;
}

static pprof_status
sc_render_dot(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    return render_with(fx, PPROF_REPORT_DOT, a, err);
}

/* The dot graph with its tags summed on a worker beside its edges: a failure on either thread
 * is the call's, and a render that absorbed one says what one thread says without any. */
static pprof_status
sc_render_dot_threads(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    pprof_report_render_options o;
    pprof_report_render_options_init(&o);
    o.format = PPROF_REPORT_DOT;
    o.allocator = *a;
    pprof_buffer out = {0}, want = {0};
    pprof_status st = pprof__report_write_memory_threads(fx->p, &o, 2, PPROF_PRINT_TEXT, &out, err);
    o.allocator = (pprof_allocator){NULL, NULL, NULL, NULL};
    if (st == PPROF_OK && (pprof_report_write_memory(fx->p, &o, PPROF_PRINT_TEXT, &want, err) ||
                           want.len != out.len || memcmp(want.data, out.data, out.len) != 0)) {
        snprintf(err->message, sizeof(err->message),
                 "the output differs from the one of a render on one thread");
        st = PPROF_E_INVALID;
    }
    pprof_buffer_free(&out);
    pprof_buffer_free(&want);
    return st;
}

static pprof_status
sc_render_callgrind(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    return render_with(fx, PPROF_REPORT_CALLGRIND, a, err);
}

/* peek, its JSON and list search names that are not UTF-8: a search without memory once was
 * reported as "the regexp's match limit was reached" (PPROF_E_LIMIT), and in peek's JSON as
 * no match */
static pprof_status
search_latin1(const fixture *fx, pprof_report_format f, pprof_print_format pf,
              const pprof_allocator *a, pprof_error *err)
{
    pprof_report_render_options o;
    pprof_report_render_options_init(&o);
    o.format = f;
    o.symbol = "caf";
    o.source_path = "no-such-dir";
    o.allocator = *a;
    pprof_buffer out = {0}, want = {0};
    pprof_status st = pprof_report_write_memory(fx->latin1, &o, pf, &out, err);
    /* a render that absorbed the failure must still say what it says without one */
    o.allocator = (pprof_allocator){NULL, NULL, NULL, NULL};
    if (st == PPROF_OK && (pprof_report_write_memory(fx->latin1, &o, pf, &want, err) != PPROF_OK ||
                           want.len != out.len || memcmp(want.data, out.data, out.len) != 0)) {
        snprintf(err->message, sizeof(err->message),
                 "the output differs from the one of a "
                 "render without failures");
        st = PPROF_E_INVALID;
    }
    pprof_buffer_free(&out);
    pprof_buffer_free(&want);
    return st;
}

static pprof_status
sc_peek_latin1(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    return search_latin1(fx, PPROF_REPORT_PEEK, PPROF_PRINT_TEXT, a, err);
}

static pprof_status
sc_peek_json_latin1(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    return search_latin1(fx, PPROF_REPORT_PEEK, PPROF_PRINT_JSON, a, err);
}

static pprof_status
sc_list_latin1(const fixture *fx, const pprof_allocator *a, pprof_error *err)
{
    return search_latin1(fx, PPROF_REPORT_LIST, PPROF_PRINT_TEXT, a, err);
}

/* Fails allocation 1, 2, ... of fn until a run makes fewer allocations than the one failed and
 * gives the status expected; every other run must give PPROF_E_NOMEM. */
static void
fail_each(tap *t, const fixture *fx, const char *name, scenario_fn fn, pprof_status expect)
{
    failing f;
    pprof_allocator a = {fa_alloc, fa_realloc, fa_free, &f};
    char bad[600] = "";
    unsigned long long n, failures = 0;
    int ok = 0;
    for (n = 1; n < 200000; n++) {
        atomic_init(&f.calls, 0);
        atomic_init(&f.fail_at, n);
        atomic_init(&f.failed, 0);
        atomic_init(&f.live, 0);
        pprof_error err;
        memset(&err, 0, sizeof err);
        pprof_status st = fn(fx, &a, &err);
        long long live = atomic_load(&f.live);
        if (live != 0 && !*bad)
            snprintf(bad, sizeof bad, "allocation %llu failed: %lld blocks never freed (%s)", n,
                     live, pprof_status_name(st));
        if (st == expect) {
            if (atomic_load(&f.failed) == 0) {
                ok = 1;
                break;
            }
            continue; /* the failure was absorbed (a fallback): fine if nothing leaked */
        }
        failures++;
        if (!*bad && (st != PPROF_E_NOMEM || !err.message[0]))
            snprintf(bad, sizeof bad, "allocation %llu failed: %s \"%s\" at \"%s\"", n,
                     pprof_status_name(st), err.message, err.path);
    }
    if (*bad)
        tap_diag("%s: %s", name, bad);
    tap_ok(t, ok && !*bad, "%s: each of %llu allocations fails cleanly (%llu failures)", name,
           n - 1, failures);
}

int
main(void)
{
    tap t = {0};
    fixture fx;
    memset(&fx, 0, sizeof fx);
    pprof_error err;
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
    pprof_buffer q_raw = {0};
    /* 16000 samples of 4 locations and 2 labels: about 1.8 MB, two gzip members */
    int ready = build(NULL, 200, 1, &fx.raw, &err) == PPROF_OK &&
                build(NULL, 120, 3, &q_raw, &err) == PPROF_OK &&
                build(NULL, 16000, 1, &fx.big_raw, &err) == PPROF_OK &&
                pprof_profile_read_memory(fx.raw.data, fx.raw.len, &ro, &fx.p, &err) == PPROF_OK &&
                pprof_profile_read_memory(q_raw.data, q_raw.len, &ro, &fx.q, &err) == PPROF_OK &&
                pprof_profile_read_memory(fx.big_raw.data, fx.big_raw.len, &ro, &fx.big, &err) ==
                    PPROF_OK &&
                pprof_profile_write_memory(fx.p, &w, &fx.gz, &err) == PPROF_OK &&
                build_latin1(&fx.latin1, &err) == PPROF_OK;
    w.format = PPROF_FORMAT_ZSTD;
    ready = ready && pprof_profile_write_memory(fx.p, &w, &fx.zst, &err) == PPROF_OK;
    if (!tap_ok(&t, ready, "fixtures built and read (%s)", ready ? "ok" : err.message))
        return tap_done(&t);
    tap_ok(&t, fx.big_raw.len > PPROF_GZIP_MEMBER_BYTES,
           "the big profile (%zu bytes) spans more than one gzip member", fx.big_raw.len);

    fail_each(&t, &fx, "builder", sc_builder, PPROF_OK);
    fail_each(&t, &fx, "read raw", sc_read_raw, PPROF_OK);
    fail_each(&t, &fx, "read gzip", sc_read_gzip, PPROF_OK);
    fail_each(&t, &fx, "read zstd", sc_read_zstd, PPROF_OK);
    fail_each(&t, &fx, "check", sc_check, PPROF_OK);
    fail_each(&t, &fx, "write gzip", sc_write_gzip, PPROF_OK);
    fail_each(&t, &fx, "write zstd", sc_write_zstd, PPROF_OK);
    fail_each(&t, &fx, "write gzip, 2 threads, 2 members", sc_write_gzip_threads, PPROF_OK);
    fail_each(&t, &fx, "write gzip to a file, 2 threads, 2 members", sc_write_file_gzip_threads,
              PPROF_OK);
    fail_each(&t, &fx, "merge", sc_merge, PPROF_OK);
    fail_each(&t, &fx, "merge, 2 threads", sc_merge_threads, PPROF_OK);
    fail_each(&t, &fx, "merge written, 2 threads", sc_merge_write, PPROF_OK);
    fail_each(&t, &fx, "edit", sc_edit, PPROF_OK);
    fail_each(&t, &fx, "edit, 2 threads", sc_edit_threads, PPROF_OK);
    fail_each(&t, &fx, "convert", sc_convert, PPROF_OK);
    fail_each(&t, &fx, "convert refusing an invalid profile", sc_convert_invalid, PPROF_E_INVALID);
    fail_each(&t, &fx, "render dot", sc_render_dot, PPROF_OK);
    fail_each(&t, &fx, "render dot, tags on a second thread", sc_render_dot_threads, PPROF_OK);
    fail_each(&t, &fx, "render callgrind", sc_render_callgrind, PPROF_OK);
    fail_each(&t, &fx, "peek of Latin-1 names", sc_peek_latin1, PPROF_OK);
    fail_each(&t, &fx, "peek of Latin-1 names, JSON", sc_peek_json_latin1, PPROF_OK);
    fail_each(&t, &fx, "list of Latin-1 names", sc_list_latin1, PPROF_OK);

    pprof_profile_free(fx.p);
    pprof_profile_free(fx.q);
    pprof_profile_free(fx.big);
    pprof_profile_free(fx.latin1);
    pprof_buffer_free(&fx.raw);
    pprof_buffer_free(&q_raw);
    pprof_buffer_free(&fx.big_raw);
    pprof_buffer_free(&fx.gz);
    pprof_buffer_free(&fx.zst);
    return tap_done(&t);
}
