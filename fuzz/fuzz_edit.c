/* The edit engine (pprof/edit.h): operations decoded from the input, applied to the profile
 * that follows them. An input is "OPS\nPPROFEDIT\nPROFILE": OPS are lines "name=value" (see
 * set_op); without the separator the whole input is the profile and the operations are chosen
 * from a fixed table by a hash of the input, hostile patterns included. Oracles: a failure
 * has a code and a message (and names the option when it is PPROF_E_ARG); a success reads back
 * and re-encodes to the same bytes, is the same from pprof_edit, from the streamed writer into
 * memory and into a file (in a private directory removed afterwards), from a merge input (into
 * memory, a file and a profile) and with 1 or 2 threads; on every other input the step report
 * chains (each step starts with the samples and totals the previous one ended with); is left as it
 * is by a second, empty edit (compaction is idempotent), and the input profile is unchanged. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "edit.h"
#include "fuzz.h"
#include "merge.h"

#define SEP "\nPPROFEDIT\n"
#define MAX_LIST 8

/* What the step report and the warnings said during one edit. */
typedef struct seen {
    unsigned steps, warnings;
    size_t last_out;
    int64_t last_total[MAX_LIST + 8];
    size_t n_last_total;
    bool chained; /* one pass over the samples: each step starts where the previous ended */
} seen;

typedef struct ops {
    pprof_edit_options o;
    seen seen;
    const char *types[MAX_LIST], *remove[MAX_LIST], *redact_labels[MAX_LIST];
    pprof_edit_label set[MAX_LIST];
    pprof_edit_rename rename[MAX_LIST];
    pprof_edit_scale scale[MAX_LIST];
    bool normalize; /* normalize against the input itself */
} ops;

static void
ops_init(ops *p)
{
    memset(p, 0, sizeof(*p));
    pprof_edit_options_init(&p->o);
    p->o.sample_types = p->types;
    p->o.remove_labels = p->remove;
    p->o.redact_labels = p->redact_labels;
    p->o.set_labels = p->set;
    p->o.rename_labels = p->rename;
    p->o.scale = p->scale;
    p->o.redact_key = "fuzz-key";
    p->o.redact_key_len = 8;
}

/* Each step starts with the samples and totals the previous one ended with (when min_fraction
 * makes the pipeline run twice, redact only runs in the second pass, so only the names and the
 * sizes are checked then). */
static void
on_step(void *ctx, const pprof_edit_step *s)
{
    seen *v = ctx;
    FUZZ_CHECK(s->op && s->op[0], "a step without a name");
    FUZZ_CHECK(!s->n_total_in || s->total_in, "step %s: totals missing", s->op);
    FUZZ_CHECK(!s->n_total_out || s->total_out, "step %s: totals missing", s->op);
    if (v->chained && v->steps) {
        FUZZ_CHECK(s->samples_in == v->last_out, "step %s starts with %zu samples, not %zu", s->op,
                   s->samples_in, v->last_out);
        FUZZ_CHECK(s->n_total_in == v->n_last_total &&
                       (!s->n_total_in ||
                        !memcmp(s->total_in, v->last_total, s->n_total_in * sizeof(int64_t))),
                   "step %s starts with other totals than the previous step ended with", s->op);
    }
    v->steps++;
    v->last_out = s->samples_out;
    v->n_last_total = s->n_total_out < MAX_LIST + 8 ? s->n_total_out : 0;
    if (v->n_last_total)
        memcpy(v->last_total, s->total_out, v->n_last_total * sizeof(int64_t));
}

static void
on_warn(void *ctx, const char *msg)
{
    seen *v = ctx;
    FUZZ_CHECK(msg && msg[0] && strlen(msg) < 512, "an empty or unbounded warning");
    v->warnings++;
}

/* Resets what the callbacks saw before one more edit of the same input. */
static void
seen_reset(ops *p)
{
    p->seen = (seen){.chained = !(p->o.min_fraction > 0)};
}

/* Splits v at the first c; the part after it, or NULL. */
static char *
cut(char *v, char c)
{
    char *p = strchr(v, c);
    if (!p)
        return NULL;
    *p = 0;
    return p + 1;
}

/* One "name=value" line; v stays alive for the run (it points into the op text copy). */
static void
set_op(ops *p, const char *name, char *v)
{
    pprof_edit_options *o = &p->o;
    struct {
        const char *n;
        const char **slot;
    } str[] = {{"focus", &o->focus},         {"ignore", &o->ignore},
               {"hide", &o->hide},           {"show", &o->show},
               {"show_from", &o->show_from}, {"prune_from", &o->prune_from},
               {"drop", &o->drop_frames},    {"keep", &o->keep_frames},
               {"tagfocus", &o->tag_focus},  {"tagignore", &o->tag_ignore},
               {"tagshow", &o->tag_show},    {"taghide", &o->tag_hide},
               {"tagroot", &o->tag_root},    {"tagleaf", &o->tag_leaf},
               {"unit", &o->tag_unit},       {"from", &o->time_from},
               {"to", &o->time_to}};
    for (size_t i = 0; i < sizeof(str) / sizeof(str[0]); i++)
        if (!strcmp(name, str[i].n)) {
            *str[i].slot = v;
            return;
        }
    char *w;
    if (!strcmp(name, "type") && o->n_sample_types < MAX_LIST)
        p->types[o->n_sample_types++] = v;
    else if (!strcmp(name, "rm") && o->n_remove_labels < MAX_LIST)
        p->remove[o->n_remove_labels++] = v;
    else if (!strcmp(name, "set") && o->n_set_labels < MAX_LIST && (w = cut(v, ':')))
        p->set[o->n_set_labels++] = (pprof_edit_label){v, w};
    else if (!strcmp(name, "rename") && o->n_rename_labels < MAX_LIST && (w = cut(v, ':')))
        p->rename[o->n_rename_labels++] = (pprof_edit_rename){v, w};
    else if (!strcmp(name, "scale") && o->n_scale < MAX_LIST) {
        w = cut(v, ':');
        p->scale[o->n_scale++] = (pprof_edit_scale){w ? v : NULL, strtod(w ? w : v, NULL)};
    } else if (!strcmp(name, "gran"))
        o->granularity = (pprof_granularity)(strtoul(v, NULL, 10) % 7);
    else if (!strcmp(name, "noinl"))
        o->no_inlines = true;
    else if (!strcmp(name, "prune"))
        o->remove_uninteresting = true;
    else if (!strcmp(name, "depth"))
        o->max_depth = (uint32_t)strtoul(v, NULL, 10) % 64;
    else if (!strcmp(name, "frac"))
        o->min_fraction = strtod(v, NULL);
    else if (!strcmp(name, "redact"))
        o->redact = (unsigned)strtoul(v, NULL, 10) % 9;
    else if (!strcmp(name, "dropts"))
        o->drop_timestamps = true;
    else if (!strcmp(name, "norm"))
        p->normalize = true;
    else if (!strcmp(name, "redactlabel") && o->n_redact_labels < MAX_LIST)
        p->redact_labels[o->n_redact_labels++] = v;
}

static void
parse_ops(ops *p, char *text)
{
    for (char *line = text; line;) {
        char *next = cut(line, '\n');
        char *v = cut(line, '=');
        if (v)
            set_op(p, line, v);
        line = next;
    }
}

/* Without an op text: a few operations picked by the input's hash. */
static void
pick_ops(ops *p, uint64_t h)
{
    static const char *rx[] = {"main",    "runtime\\.", "^$",
                               ".",       "(a*)*b",     "[[:alpha:]]+\\(",
                               "a(?=b)",  "\\pL{2,3}",  "(?i)GC|mallocgc",
                               "x{1001}", "(a|aa)*$",   "\\Q(\\E"};
    static const char *tags[] = {"64kb:1mb", "1:", ":0",          "thread_id=1", "bytes=8b",
                                 "a,b",      "=x", "tenant=acme", "1s:2h",       "5ms"};
    static const char *keys[] = {"thread_id", "bytes,tenant", "", ",", "pid"};
    char *names[] = {"focus", "ignore", "hide", "show", "show_from", "prune_from", "drop"};
    for (int i = 0; i < 3; i++, h >>= 9)
        set_op(p, names[h % 7], (char *)rx[(h >> 3) % 12]);
    if (h & 1)
        p->o.tag_focus = tags[(h >> 1) % 10];
    if (h & 32)
        p->o.tag_ignore = tags[(h >> 6) % 10];
    if (h & 1024)
        p->o.tag_root = keys[(h >> 11) % 5];
    p->o.granularity = (pprof_granularity)((h >> 14) % 6);
    p->o.no_inlines = (h >> 17) & 1;
    p->o.max_depth = (uint32_t)((h >> 18) % 5);
    p->o.remove_uninteresting = (h >> 21) & 1;
    if ((h >> 22) & 1) {
        p->scale[0] = (pprof_edit_scale){NULL, ((h >> 23) % 7) * 0.37};
        p->o.n_scale = 1;
    }
    /* time slices: relative, absolute, at int64's end, and not a time */
    static const char *times[] = {"0", "0.001", "1970-01-01T00:00:00Z",
                                  "2262-04-11T23:47:16.854775807Z", "x"};
    if ((h >> 26) & 1)
        p->o.time_from = times[(h >> 27) % 5];
    if ((h >> 30) & 1)
        p->o.time_to = times[(h >> 31) % 5];
    p->o.drop_timestamps = (h >> 34) & 1;
}

static void
encode(const pprof_profile *p, pprof_buffer *b)
{
    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW;
    pprof_error err;
    FUZZ_CHECK(pprof_profile_write_memory(p, &raw, b, &err) == PPROF_OK, "%s", err.message);
}

/* The input may not encode (a string index out of range that no operation reads): then its
 * bytes cannot be compared, and an empty buffer stands for them. */
static void
encode_input(const pprof_profile *p, pprof_buffer *b)
{
    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW;
    if (pprof_profile_write_memory(p, &raw, b, NULL) != PPROF_OK)
        b->len = 0;
}

static bool
same(const pprof_buffer *a, const pprof_buffer *b)
{
    return a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len));
}

/* The edit and its streamed write through allocator fa. */
static pprof_status
edit_all(const pprof_profile *in, const pprof_edit_options *o, pprof_error *err)
{
    pprof_profile *q = NULL;
    pprof_status st = pprof_edit(in, o, &q, err);
    FUZZ_CHECK(st == PPROF_OK || !q, "a failed edit returned a profile");
    pprof_profile_free(q);
    if (st == PPROF_OK) {
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        w.format = PPROF_FORMAT_RAW;
        pprof_buffer b = {0};
        st = pprof_edit_write_memory(in, o, &w, &b, err);
        pprof_buffer_free(&b);
    }
    return st;
}

/* The same edit and its streamed write with one allocation failing, at up to 6 points spread
 * over its allocations (from h): PPROF_E_NOMEM or success, the input unchanged, nothing leaked
 * (the sanitizer builds check that). */
static void
edit_nomem(const pprof_profile *in, ops *p, uint64_t h)
{
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    pprof_edit_options o = p->o;
    o.allocator = fuzz_failing_allocator(&fa);
    o.threads = 1;
    o.step = NULL;
    o.warn = NULL;
    pprof_error err;
    if (edit_all(in, &o, &err) != PPROF_OK || fa.calls == 0)
        return;
    uint64_t calls = fa.calls;
    uint64_t points = fuzz_fail_points(6);
    for (uint64_t k = 0; k < points && k < calls; k++) {
        uint64_t at = fuzz_fail_point(calls, k, points, h);
        fa = (fuzz_failing_alloc){0, at, 0};
        pprof_status st = edit_all(in, &o, &err);
        FUZZ_CHECK(st == PPROF_OK || (st == PPROF_E_NOMEM && fa.failed && err.message[0]),
                   "allocation %llu failing gives %s: %s", (unsigned long long)at,
                   pprof_status_name(st), err.message);
    }
}

/* A private directory for the written files, removed again by tmp_done. */
typedef struct tmp {
    char dir[4096], path[4200];
} tmp;

static void
tmp_make(tmp *t)
{
    const char *base = getenv("TMPDIR");
    snprintf(t->dir, sizeof(t->dir), "%s/pprof-fuzz-edit-XXXXXX", base && *base ? base : "/tmp");
    FUZZ_CHECK(mkdtemp(t->dir), "mkdtemp: %s", strerror(errno));
    snprintf(t->path, sizeof(t->path), "%s/out.pb", t->dir);
}

static void
tmp_done(tmp *t)
{
    unlink(t->path);
    FUZZ_CHECK(rmdir(t->dir) == 0, "files left behind in %s", t->dir);
}

/* The file written by an edit holds want's bytes. */
static void
check_file(const tmp *t, const pprof_buffer *want, const char *what)
{
    FUZZ_CHECK(fuzz_file_holds(t->path, want->data, want->len, NULL),
               "%s: the file holds other bytes than the memory output", what);
    unlink(t->path);
}

/* The same edit through a merge input (samples decoded and edited in batches), into memory, into
 * a file and as a profile. */
static void
check_lazy(const uint8_t *data, size_t size, ops *p, pprof_status want, const pprof_buffer *out)
{
    pprof_read_options ro = fuzz_read_options();
    pprof_merge_input *in = NULL;
    pprof_error err;
    pprof_buffer b = {0};
    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW;
    FUZZ_CHECK(pprof_merge_input_read_memory(data, size, &ro, &in, &err) == PPROF_OK,
               "a profile that reads does not read as a merge input: %s", err.message);
    seen_reset(p);
    pprof_status st = pprof_edit_input_write_memory(in, &p->o, &raw, &b, &err);
    FUZZ_CHECK(st == want, "edited as a merge input: %s, as a profile: %s", pprof_status_name(st),
               pprof_status_name(want));
    FUZZ_CHECK(st || same(&b, out), "edited as a merge input, other bytes");
    if (!st) {
        /* the input may be edited again: once more into a file, and as a profile */
        tmp t;
        tmp_make(&t);
        seen_reset(p);
        FUZZ_CHECK(pprof_edit_input_write_file(in, &p->o, &raw, t.path, &err) == PPROF_OK,
                   "a merge input edited into a file: %s", err.message);
        check_file(&t, out, "pprof_edit_input_write_file");
        tmp_done(&t);
        pprof_profile *q = NULL;
        pprof_buffer qb = {0};
        seen_reset(p);
        FUZZ_CHECK(pprof_edit_input(in, &p->o, &q, &err) == PPROF_OK, "pprof_edit_input: %s",
                   err.message);
        encode(q, &qb);
        FUZZ_CHECK(same(&qb, out), "pprof_edit_input gives another profile");
        pprof_buffer_free(&qb);
        pprof_profile_free(q);
    }
    pprof_buffer_free(&b);
    pprof_merge_input_free(in);
}

static void
check_edit(const pprof_profile *in, ops *p, const uint8_t *data, size_t size)
{
    pprof_buffer before = {0}, after = {0}, out = {0}, streamed = {0}, again = {0};
    pprof_error err;
    encode_input(in, &before);
    pprof_profile *q = NULL;
    if (p->normalize)
        p->o.normalize_base = in;
    seen_reset(p);
    pprof_status st = pprof_edit(in, &p->o, &q, &err);
    if (st) {
        FUZZ_CHECK(q == NULL && err.code == st && err.message[0], "failure without a message");
        FUZZ_CHECK(st != PPROF_E_ARG || strchr(err.message, ':') || strstr(err.message, "needs"),
                   "an option error names the option: %s", err.message);
        encode_input(in, &after);
        FUZZ_CHECK(same(&before, &after), "a failed edit changed the input");
        check_lazy(data, size, p, st, NULL);
        goto done;
    }
    encode(q, &out);
    edit_nomem(in, p, fuzz_hash(data, size));
    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW;
    seen first = p->seen;
    p->o.threads = 2;
    seen_reset(p);
    FUZZ_CHECK(pprof_edit_write_memory(in, &p->o, &raw, &streamed, &err) == PPROF_OK, "%s",
               err.message);
    FUZZ_CHECK(same(&out, &streamed), "the streamed edit differs (or 2 threads do)");
    FUZZ_CHECK(p->seen.steps == first.steps && p->seen.warnings == first.warnings,
               "the streamed edit reports other steps or warnings");
    tmp t;
    tmp_make(&t);
    seen_reset(p);
    FUZZ_CHECK(pprof_edit_write_file(in, &p->o, &raw, t.path, &err) == PPROF_OK,
               "edited into a file: %s", err.message);
    check_file(&t, &out, "pprof_edit_write_file");
    tmp_done(&t);
    pprof_profile *r = NULL, *r2 = NULL;
    pprof_read_options ro = fuzz_read_options();
    ro.max_input_bytes = ro.max_decompressed_bytes = UINT64_MAX >> 2;
    FUZZ_CHECK(pprof_profile_read_memory(out.data, out.len, &ro, &r, &err) == PPROF_OK,
               "the output does not read back: %s", err.message);
    pprof_edit_options none;
    pprof_edit_options_init(&none);
    FUZZ_CHECK(pprof_edit(r, &none, &r2, &err) == PPROF_OK, "%s", err.message);
    encode(r2, &again);
    FUZZ_CHECK(same(&out, &again), "compacting the output again changed it");
    pprof_profile_free(r);
    pprof_profile_free(r2);
    encode_input(in, &after);
    FUZZ_CHECK(same(&before, &after), "the edit changed its input");
    check_lazy(data, size, p, PPROF_OK, &out);
done:
    pprof_profile_free(q);
    pprof_buffer_free(&before);
    pprof_buffer_free(&after);
    pprof_buffer_free(&out);
    pprof_buffer_free(&streamed);
    pprof_buffer_free(&again);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *prof = data, *sep = NULL;
    size_t n = sizeof(SEP) - 1;
    for (size_t i = 0; i + n <= size && !sep; i++)
        if (!memcmp(data + i, SEP, n))
            sep = data + i;
    ops p;
    ops_init(&p);
    char *text = NULL;
    if (sep) {
        size_t tn = (size_t)(sep - data);
        text = malloc(tn + 1);
        FUZZ_CHECK(text != NULL, "out of memory");
        memcpy(text, data, tn);
        text[tn] = 0;
        parse_ops(&p, text);
        prof = sep + n;
    } else {
        pick_ops(&p, fuzz_hash(data, size));
    }
    /* the step report and the warnings are asked for on every other input */
    if (fuzz_hash(data, size) & 2) {
        p.o.step = on_step;
        p.o.step_ctx = &p.seen;
        p.o.warn = on_warn;
        p.o.warn_ctx = &p.seen;
    }
    pprof_read_options ro = fuzz_read_options();
    pprof_profile *in = NULL;
    if (pprof_profile_read_memory(prof, size - (size_t)(prof - data), &ro, &in, NULL) == PPROF_OK)
        check_edit(in, &p, prof, size - (size_t)(prof - data));
    pprof_profile_free(in);
    free(text);
    return 0;
}
