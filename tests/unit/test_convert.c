/* pprof_convert_*: the in-place path writes the model path's bytes (or gives its error) for
 * every file of corpus/ and the real corpus, and hand-made samples that break one condition
 * each are refused in place and converted through the model. */
#include <unistd.h>

#include "pb.h"
#include "testutil.h"

typedef struct outcome {
    pprof_status st;
    pprof_buffer buf;
    pprof_convert_result res;
    pprof_error err;
} outcome;

static outcome
run_with(const uint8_t *data, size_t len, pprof_convert_mode mode, bool no_check, unsigned threads,
         uint64_t max_stack)
{
    outcome o = {0};
    o.res.struct_size = sizeof(o.res);
    pprof_convert_options co = PPROF_CONVERT_OPTIONS_INIT;
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    /* a small decompression cap: the bombs of corpus/ stop early, the same way in both paths */
    pprof_read_options r = PPROF_READ_OPTIONS_INIT;
    r.max_decompressed_bytes = UINT64_C(64) << 20;
    r.threads = threads;
    if (max_stack)
        r.max_stack_entries = max_stack;
    w.format = PPROF_FORMAT_RAW;
    co.mode = mode;
    co.write = &w;
    co.read = &r;
    co.no_check = no_check;
    o.st = pprof_convert_memory(data, len, &co, &o.buf, &o.res, &o.err);
    return o;
}

static outcome
run(const uint8_t *data, size_t len, pprof_convert_mode mode, bool no_check)
{
    return run_with(data, len, mode, no_check, 0, 0);
}

static bool
same_outcome(const outcome *a, const outcome *b)
{
    if (a->st != b->st)
        return false;
    if (a->st)
        return strcmp(a->err.message, b->err.message) == 0 &&
               strcmp(a->err.path, b->err.path) == 0 && a->err.offset == b->err.offset &&
               a->res.check_errors == b->res.check_errors;
    return a->buf.len == b->buf.len && memcmp(a->buf.data, b->buf.data, a->buf.len) == 0;
}

/* Model and auto, checked and not: the same outcome; *in_place counts auto's copies. */
static void
both_ways(tap *t, const char *name, const uint8_t *data, size_t len, size_t *in_place)
{
    for (int nc = 0; nc < 2; nc++) {
        outcome m = run(data, len, PPROF_CONVERT_MODEL, nc);
        outcome a = run(data, len, PPROF_CONVERT_AUTO, nc);
        bool ok = same_outcome(&m, &a) && !m.res.in_place;
        if (!tap_ok(t, ok, "%s%s: in place (%s) == model", name, nc ? " --no-check" : "",
                    a.res.in_place ? "copied" : "fell back"))
            tap_diag("model %s %zu bytes: %s %s; auto %s %zu bytes: %s %s", pprof_status_name(m.st),
                     m.buf.len, m.err.path, m.err.message, pprof_status_name(a.st), a.buf.len,
                     a.err.path, a.err.message);
        if (a.res.in_place)
            (*in_place)++;
        pprof_buffer_free(&m.buf);
        pprof_buffer_free(&a.buf);
    }
}

static void
corpus_dir(tap *t, const char *dir, size_t *files, size_t *in_place)
{
    tu_files fl = {0};
    tu_walk(&fl, dir);
    for (size_t i = 0; i < fl.n; i++) {
        size_t len;
        uint8_t *data = tu_read_file(fl.path[i], &len);
        if (!data)
            continue;
        both_ways(t, tu_short(fl.path[i]), data, len, in_place);
        (*files)++;
        free(data);
    }
    tu_files_free(&fl);
}

/* ---- hand-made profiles: strings "", cpu, ns, k, v, w; sample type cpu/ns; locations 1, 2
 * and 300 (an id of two bytes); one sample whose body the case gives. */

static void
profile_with(pb *b, const pb *sample, bool sample_type)
{
    static const char *const strs[] = {"", "cpu", "ns", "k", "v", "w"};
    pb_strings(b, strs, 6);
    if (sample_type)
        pb_value_type(b, 1, 1, 2);
    pb_simple_locations(b, 2);
    pb l = {0};
    pb_v(&l, 1, 300);
    pb_v(&l, 3, 0x1000); /* address */
    pb_msg_free(b, 4, &l);
    pb_msg(b, 2, sample);
}

typedef struct hand_case {
    const char *name;
    const uint8_t *body;
    size_t len;
    bool in_place; /* expected to be copied in place */
    bool no_type;  /* the profile has no sample type */
} hand_case;

#define CASE(name, in_place, ...)                                                                  \
    {                                                                                              \
        name, (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__}), in_place,    \
            false                                                                                  \
    }

static const hand_case CASES[] = {
    CASE("canonical ids and one value", true, 0x0a, 0x02, 0x01, 0x02, 0x12, 0x01, 0x05),
    CASE("a two-byte id", true, 0x0a, 0x03, 0x01, 0xac, 0x02, 0x12, 0x01, 0x05),
    CASE("a value unpacked", true, 0x0a, 0x01, 0x01, 0x10, 0x07),
    CASE("an empty run of ids", true, 0x0a, 0x00, 0x12, 0x01, 0x05),
    /* labels naming strings 5 and 4: the new table numbers them in the order of use */
    CASE("labels with renumbered strings", true, 0x0a, 0x01, 0x02, 0x12, 0x01, 0x05, 0x1a, 0x04,
         0x08, 0x05, 0x10, 0x04, 0x1a, 0x04, 0x08, 0x03, 0x18, 0x09),
    CASE("a non-shortest id", false, 0x0a, 0x03, 0x81, 0x00, 0x02, 0x12, 0x01, 0x05),
    CASE("a non-shortest two-byte id", false, 0x0a, 0x04, 0xac, 0x82, 0x80, 0x00, 0x12, 0x01, 0x05),
    CASE("unpacked ids", false, 0x08, 0x01, 0x08, 0x02, 0x12, 0x01, 0x05),
    CASE("ids in two runs", false, 0x0a, 0x01, 0x01, 0x0a, 0x01, 0x02, 0x12, 0x01, 0x05),
    CASE("a dangling id", false, 0x0a, 0x02, 0x01, 0x09, 0x12, 0x01, 0x05),
    CASE("id 0", false, 0x0a, 0x01, 0x00, 0x12, 0x01, 0x05),
    CASE("a truncated id", false, 0x0a, 0x01, 0x81, 0x12, 0x01, 0x05),
    CASE("two values for one type", false, 0x0a, 0x01, 0x01, 0x12, 0x02, 0x05, 0x06),
    CASE("no value", false, 0x0a, 0x01, 0x01),
    CASE("a label string out of range", false, 0x0a, 0x01, 0x01, 0x12, 0x01, 0x05, 0x1a, 0x04, 0x08,
         0x03, 0x10, 0x63),
    CASE("a label key out of range", false, 0x0a, 0x01, 0x01, 0x12, 0x01, 0x05, 0x1a, 0x02, 0x08,
         0x40),
    CASE("an unknown label field", false, 0x0a, 0x01, 0x01, 0x12, 0x01, 0x05, 0x1a, 0x04, 0x08,
         0x03, 0x28, 0x01),
    CASE("an unknown sample field", false, 0x0a, 0x01, 0x01, 0x12, 0x01, 0x05, 0x20, 0x01),
    CASE("a bad length", false, 0x0a, 0x05, 0x01),
    {"no sample type", (const uint8_t[]){0x0a, 0x01, 0x01}, 3, false, true},
};

/* Location ids 1..20000 (a dense index: ids up to 3 bytes are read without a lookup): ids of
 * each length at and past the end of the range, longer forms than needed, id 0, ids of 4
 * bytes and a truncated one; in place when valid, else the model's outcome. */
static void
dense_ids(tap *t)
{
    static const struct {
        const char *name;
        uint8_t ids[12];
        size_t len;
        bool in_place;
    } cases[] = {
        {"1, 2 and 3-byte ids, the last id", {0x01, 0xac, 0x02, 0xa0, 0x9c, 0x01, 0x7f}, 7, true},
        {"a 3-byte id then a short tail", {0xa0, 0x9c, 0x01, 0x05, 0x06}, 5, true},
        {"one past the last id", {0x01, 0xa1, 0x9c, 0x01}, 4, false},
        {"a 3-byte id far past the last", {0x81, 0x80, 0x7f, 0x01}, 4, false},
        {"a longer 2-byte form", {0x05, 0x81, 0x00, 0x07}, 4, false},
        {"a longer 3-byte form", {0x81, 0x80, 0x00, 0x07}, 4, false},
        {"id 0 among others", {0x05, 0xac, 0x02, 0x00, 0x07}, 5, false},
        {"a 4-byte id", {0x81, 0x80, 0x80, 0x01, 0x05}, 5, false},
        {"a truncated id at the end", {0x01, 0x02, 0x03, 0x81}, 4, false},
        {"a truncated 3-byte id at the end", {0x01, 0x02, 0x81, 0x81}, 4, false},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        static const char *const strs[] = {"", "cpu", "ns", "f"};
        pb b = {0}, s = {0}, ids = {0};
        pb_strings(&b, strs, 4);
        pb_value_type(&b, 1, 1, 2);
        pb_simple_locations(&b, 20000);
        pb_raw(&ids, cases[c].ids, cases[c].len);
        pb_msg(&s, 1, &ids);
        pb_v(&s, 2, 5);
        pb_msg(&b, 2, &s);
        outcome x = run(b.d, b.n, PPROF_CONVERT_IN_PLACE, false);
        bool want = cases[c].in_place;
        if (!tap_ok(t, want ? x.st == PPROF_OK && x.res.in_place : x.st == PPROF_E_UNSUPPORTED,
                    "dense ids, %s: %s in place", cases[c].name, want ? "converted" : "refused"))
            tap_diag("%s: %s %s", pprof_status_name(x.st), x.err.path, x.err.message);
        size_t copies = 0;
        both_ways(t, cases[c].name, b.d, b.n, &copies);
        tap_ok(t, copies == (want ? 2 : 0), "dense ids, %s: auto %s", cases[c].name,
               want ? "copies in place" : "falls back");
        pprof_buffer_free(&x.buf);
        pb_free(&s);
        pb_free(&ids);
        pb_free(&b);
    }
}

static void
hand_made(tap *t)
{
    for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
        const hand_case *c = &CASES[i];
        pb s = {0}, b = {0};
        pb_raw(&s, c->body, c->len);
        profile_with(&b, &s, !c->no_type);
        outcome x = run(b.d, b.n, PPROF_CONVERT_IN_PLACE, false);
        bool want = c->in_place;
        if (!tap_ok(t, want ? x.st == PPROF_OK && x.res.in_place : x.st == PPROF_E_UNSUPPORTED,
                    "%s: %s in place", c->name, want ? "converted" : "refused"))
            tap_diag("%s: %s %s", pprof_status_name(x.st), x.err.path, x.err.message);
        size_t copies = 0;
        both_ways(t, c->name, b.d, b.n, &copies);
        /* unchecked, samples without values match a profile without sample types */
        tap_ok(t,
               copies == (want         ? 2
                          : c->no_type ? 1
                                       : 0),
               "%s: auto %s", c->name, want ? "copies in place" : "falls back");
        pprof_buffer_free(&x.buf);
        pb_free(&s);
        pb_free(&b);
    }
}

/* A profile of n samples (three ids and a label each); sample `bad` (if < n) has a dangling
 * location id. */
static void
many_samples(pb *b, size_t n, size_t bad)
{
    static const char *const strs[] = {"", "cpu", "ns", "k", "v", "w"};
    pb_strings(b, strs, 6);
    pb_value_type(b, 1, 1, 2);
    pb_simple_locations(b, 200);
    for (size_t i = 0; i < n; i++) {
        pb s = {0}, ids = {0}, lab = {0};
        /* one-byte ids, of locations that exist, but id 0 in the bad sample */
        pb_raw(&ids,
               (const uint8_t[]){(uint8_t)(1 + i % 100), (uint8_t)(i == bad ? 0 : 101 + i % 27), 1},
               3);
        pb_msg(&s, 1, &ids);
        pb_v(&s, 2, 1 + i % 7);
        pb_v(&lab, 1, 3);
        pb_v(&lab, 2, 4 + i % 2);
        pb_msg(&s, 3, &lab);
        pb_msg(b, 2, &s);
        pb_free(&s);
        pb_free(&ids);
        pb_free(&lab);
    }
}

/* The check pass in parts (pprof_read_options.threads): the outcome of one thread, in place or
 * not, with a sample at fault in a later part, and with a limit that only the parts' sum
 * exceeds. */
static void
in_parts(tap *t)
{
    const size_t n = 40000;
    struct {
        const char *name;
        size_t bad;
        uint64_t max_stack;
        bool in_place;
    } cases[] = {
        {"every sample good", n, 0, true},
        {"a dangling id in the last part", n - 5, 0, false},
        {"a dangling id in the first part", 17, 0, false},
        {"a stack limit only the sum exceeds", n, 3 * n - 2, false},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        pb b = {0};
        many_samples(&b, n, cases[c].bad);
        for (int mode = 0; mode < 2; mode++) {
            pprof_convert_mode m = mode ? PPROF_CONVERT_IN_PLACE : PPROF_CONVERT_AUTO;
            outcome one = run_with(b.d, b.n, m, false, 1, cases[c].max_stack);
            bool ok =
                (one.st == PPROF_OK) == cases[c].in_place && one.res.in_place == cases[c].in_place;
            for (unsigned th = 2; th <= 5; th += 3) {
                outcome x = run_with(b.d, b.n, m, false, th, cases[c].max_stack);
                ok = ok && same_outcome(&one, &x) && x.res.in_place == one.res.in_place;
                pprof_buffer_free(&x.buf);
            }
            if (!tap_ok(t, ok, "in parts: %s (%s): the outcome of one thread", cases[c].name,
                        mode ? "in place only" : "auto"))
                tap_diag("%s in_place %d: %s %s", pprof_status_name(one.st), one.res.in_place,
                         one.err.path, one.err.message);
            pprof_buffer_free(&one.buf);
        }
        pb_free(&b);
    }
}

/* Samples whose labels use strings first met in later parts, in another order in each part,
 * two strings of one content, num units, and more than 8 labels: encoded in parts on several
 * threads, the string table and every byte must be those of one thread and of the model. */
static void
label_strings_in_parts(pb *b, size_t n)
{
    const char *strs[40] = {"", "cpu", "ns"};
    static char names[40][8];
    for (int i = 3; i < 40; i++) {
        snprintf(names[i], sizeof(names[i]), "s%d",
                 i % 37 == 3 ? 36 : i); /* 3 and 36: one content */
        strs[i] = names[i];
    }
    pb_strings(b, strs, 40);
    pb_value_type(b, 1, 1, 2);
    pb_simple_locations(b, 200);
    for (size_t i = 0; i < n; i++) {
        pb s = {0}, ids = {0};
        pb_raw(&ids, (const uint8_t[]){(uint8_t)(1 + i % 100), (uint8_t)(101 + i % 27)}, 2);
        pb_msg(&s, 1, &ids);
        pb_v(&s, 2, 1 + i % 7);
        /* strings 24.. come into use one per 3001 samples; every 50th sample has 10 labels */
        size_t many = i % 50 == 0, labels = many ? 10 : 1 + i % 3, phase = i / 3001;
        for (size_t j = 0; j < labels; j++) {
            pb lab = {0};
            pb_v(&lab, 1, 3 + j);
            if (j == 2) {
                pb_v(&lab, 3, i);
                pb_v(&lab, 4, 15 + phase % 9);
            } else {
                pb_v(&lab, 2, many ? 24 : 24 + (phase + j) % 16);
            }
            pb_msg(&s, 3, &lab);
            pb_free(&lab);
        }
        pb_msg(b, 2, &s);
        pb_free(&s);
        pb_free(&ids);
    }
}

static bool
file_bytes(const char *path, pprof_buffer *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    uint8_t chunk[65536];
    size_t k;
    while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0)
        if (pprof__buffer_append(out, chunk, k))
            break;
    bool ok = !ferror(f);
    fclose(f);
    return ok;
}

/* The same profile written to a file in each format, with one thread and with threads. */
static bool
files_agree(const uint8_t *data, size_t len, pprof_format fmt, const char *dir)
{
    pprof_buffer got[2] = {{0}, {0}};
    bool ok = true;
    for (int th = 0; th < 2; th++) {
        char path[4200];
        snprintf(path, sizeof(path), "%s/out-%d-%d", dir, (int)fmt, th);
        FILE *in = NULL;
        char inpath[4200];
        snprintf(inpath, sizeof(inpath), "%s/in.pb", dir);
        if (!(in = fopen(inpath, "wb")) || fwrite(data, 1, len, in) != len) {
            if (in)
                fclose(in);
            return false;
        }
        fclose(in);
        pprof_convert_options co = PPROF_CONVERT_OPTIONS_INIT;
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        pprof_read_options r = PPROF_READ_OPTIONS_INIT;
        r.threads = w.threads = th ? 4 : 1;
        w.format = fmt;
        co.write = &w;
        co.read = &r;
        pprof_convert_result res = PPROF_CONVERT_RESULT_INIT;
        ok = ok && pprof_convert_file(inpath, &co, path, &res, NULL) == PPROF_OK && res.in_place &&
             file_bytes(path, &got[th]);
        remove(path);
        remove(inpath);
    }
    ok = ok && got[0].len && got[0].len == got[1].len &&
         memcmp(got[0].data, got[1].data, got[0].len) == 0;
    pprof_buffer_free(&got[0]);
    pprof_buffer_free(&got[1]);
    return ok;
}

static void
strings_in_parts(tap *t)
{
    pb b = {0};
    label_strings_in_parts(&b, 50000);
    outcome model = run_with(b.d, b.n, PPROF_CONVERT_MODEL, false, 1, 0);
    bool ok = model.st == PPROF_OK;
    for (unsigned th = 1; th <= 7 && ok; th += 2) {
        outcome x = run_with(b.d, b.n, PPROF_CONVERT_IN_PLACE, false, th, 0);
        ok = same_outcome(&model, &x) && x.res.in_place;
        if (!ok)
            tap_diag("threads %u: %s %s", th, pprof_status_name(x.st), x.err.message);
        pprof_buffer_free(&x.buf);
    }
    tap_ok(t, ok, "encoded in parts: the model's bytes and string table, threads 1 to 7");
    char dir[4096];
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/pprof-test-convert-XXXXXX", base && *base ? base : "/tmp");
    bool made = mkdtemp(dir) != NULL;
    tap_ok(t, made && files_agree(b.d, b.n, PPROF_FORMAT_RAW, dir),
           "encoded in parts to a file: the bytes of one thread (raw)");
    tap_ok(t, made && files_agree(b.d, b.n, PPROF_FORMAT_GZIP, dir),
           "encoded in parts to a file: the bytes of one thread (gzip)");
    if (made)
        rmdir(dir);
    pprof_buffer_free(&model.buf);
    pb_free(&b);
}

/* A format of its own for the test: pprof bytes of exactly 120001 samples are "other", and
 * read as a profile of the first sample only. */
static bool
other_detect(const uint8_t *raw, size_t len)
{
    pprof_profile *p = NULL;
    bool yes = pprof_profile_read_memory(raw, len, NULL, &p, NULL) == PPROF_OK &&
               pprof_profile_count(p, PPROF_TABLE_SAMPLE) == 120001;
    pprof_profile_free(p);
    return yes;
}

static pprof_status
other_read(uint8_t *raw, size_t len, pprof_format container, const pprof_read_options *opts,
           pprof_profile **out, pprof_error *err)
{
    (void)container;
    (void)opts;
    pprof_profile *p = NULL;
    pprof_status st = pprof_profile_read_memory(raw, len, NULL, &p, err);
    pprof__free(NULL, raw);
    if (st)
        return st;
    p->samples.len = 1;
    *out = p;
    return PPROF_OK;
}

static const pprof_reader OTHER = {sizeof(pprof_reader), "other", other_detect, NULL,
                                   other_read,           NULL,    NULL};

/* With read threads, the readers' detection runs beside the in-place path: bytes of another
 * format still go to its reader (nothing written in place), and pprof bytes are converted in
 * place, as with one thread. */
static void
detect_beside(tap *t)
{
    const pprof_reader *const readers[] = {&OTHER, NULL};
    for (int other = 0; other < 2; other++) {
        pb b = {0};
        many_samples(&b, other ? 120001 : 120000, 120001);
        outcome o[2];
        for (int th = 0; th < 2; th++) {
            o[th] = (outcome){0};
            o[th].res.struct_size = sizeof(o[th].res);
            pprof_convert_options co = PPROF_CONVERT_OPTIONS_INIT;
            pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
            pprof_read_options r = PPROF_READ_OPTIONS_INIT;
            r.readers = readers;
            r.threads = th ? 2 : 1;
            w.format = PPROF_FORMAT_RAW;
            co.write = &w;
            co.read = &r;
            o[th].st = pprof_convert_memory(b.d, b.n, &co, &o[th].buf, &o[th].res, &o[th].err);
        }
        pprof_profile *back = NULL;
        bool read = o[1].st == PPROF_OK && pprof_profile_read_memory(o[1].buf.data, o[1].buf.len,
                                                                     NULL, &back, NULL) == PPROF_OK;
        size_t n = read ? pprof_profile_count(back, PPROF_TABLE_SAMPLE) : 0;
        tap_ok(t,
               same_outcome(&o[0], &o[1]) && o[0].res.in_place == o[1].res.in_place &&
                   o[1].res.in_place == !other && n == (other ? 1 : 120000),
               "detection beside the in-place path: %s (%zu samples out)",
               other ? "another format goes to its reader" : "pprof is converted in place", n);
        pprof_profile_free(back);
        pprof_buffer_free(&o[0].buf);
        pprof_buffer_free(&o[1].buf);
        pb_free(&b);
    }
}

int
main(void)
{
    tap t = {0};
    hand_made(&t);
    dense_ids(&t);
    in_parts(&t);
    strings_in_parts(&t);
    detect_beside(&t);
    const char *src = getenv("PPROF_SOURCE_ROOT");
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/corpus", src && *src ? src : ".");
    size_t files = 0, in_place = 0;
    corpus_dir(&t, dir, &files, &in_place);
    corpus_dir(&t, tap_real_corpus(), &files, &in_place);
    tap_diag("%zu files, %zu conversions copied in place", files, in_place);
    /* the path must be taken, or the comparisons above prove nothing about it */
    tap_ok(&t, files && in_place * 4 >= files, "a good share of the corpus converts in place");
    return tap_done(&t);
}
