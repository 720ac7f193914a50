/* Validity does not depend on the path taken (issue 25): every broken profile of corpus/invalid
 * is refused by pprof_validate and by every entry point that computes from a profile, whatever
 * the operation, with the same rule named. Also: ids up to UINT64_MAX leave room for new frames;
 * a dangling string index is reported against the input's own table.
 * `test_validate --write-corpus DIR` regenerates corpus/invalid. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "edit.h"
#include "folded.h"
#include "invalid-cases.h"
#include "merge.h"
#include "report.h"
#include "tap.h"

typedef struct named_op {
    const char *name;
    void (*set)(pprof_edit_options *o);
} named_op;

static void
op_none(pprof_edit_options *o)
{
    (void)o;
}

static void
op_frames(pprof_edit_options *o)
{
    o->hide = "nothing";
    o->show_from = "main";
    o->granularity = PPROF_GRANULARITY_LINES;
}

static const char *const TYPES[] = {"samples"};

static void
op_sample_types(pprof_edit_options *o)
{
    o->sample_types = TYPES;
    o->n_sample_types = 1;
}

static const pprof_edit_label LABELS[] = {{"k1", "v1"}, {"k2", "v2"}, {"k3", "v3"}, {"k4", "v4"}};

static void
op_set_labels(pprof_edit_options *o)
{
    o->set_labels = LABELS;
    o->n_set_labels = 4;
}

static void
op_focus(pprof_edit_options *o)
{
    o->focus = "main";
}

static const pprof_edit_scale SCALE[] = {{NULL, 2.0}};

static void
op_scale(pprof_edit_options *o)
{
    o->scale = SCALE;
    o->n_scale = 1;
}

static void
op_trim(pprof_edit_options *o)
{
    o->max_depth = 1;
    o->tag_root = "k1";
}

static const named_op OPS[] = {
    {"no operation", op_none},
    {"hide+show_from+lines", op_frames},
    {"sample_types", op_sample_types},
    {"4 set_labels", op_set_labels},
    {"focus", op_focus},
    {"scale", op_scale},
    {"max_depth+tag_root", op_trim},
};
#define N_OPS (sizeof(OPS) / sizeof(OPS[0]))

/* The refusal every path must give: PPROF_E_INVALID naming the rule ("[RULE]" from the
 * validator, "(rule RULE)" from the reader). */
static bool
refused(pprof_status st, const pprof_error *err, const char *rule)
{
    return st == PPROF_E_INVALID && strstr(err->message, rule) != NULL;
}

static void
say(tap *t, bool ok, const char *file, const char *what, pprof_status st, const pprof_error *err)
{
    if (!tap_ok(t, ok, "%s: %s refused", file, what))
        tap_diag("got %s: %s: %s", pprof_status_name(st), err->path, err->message);
}

static pprof_profile *
std_good(void)
{
    pb b = {.n = 0};
    std_profile(&b, 0);
    pprof_profile *p = NULL;
    pprof_profile_read_memory(b.d, b.n, NULL, &p, NULL);
    return p;
}

static void
test_case(tap *t, const icase *c, const pprof_profile *good)
{
    char file[128];
    icase_file_name(c, file, sizeof(file));
    pb b = {.n = 0};
    c->build(&b);
    pprof_error err;
    pprof_profile *p = NULL;
    pprof_status st = pprof_profile_read_memory(b.d, b.n, NULL, &p, &err);
    if (st) /* the reader refuses W6 and W8 itself, unless told to relax */
        say(t, refused(st, &err, c->rule), file, "the default read", st, &err);
    pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
    ro.relax = PPROF_RELAX_STRING0 | PPROF_RELAX_CONCATENATED;
    if (!p && (st = pprof_profile_read_memory(b.d, b.n, &ro, &p, &err))) {
        tap_ok(t, 0, "%s: a relaxed read works (%s)", file, err.message);
        return;
    }
    pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
    st = pprof_validate(p, NULL, NULL, 0, &sum, &err);
    say(t, refused(st, &err, c->rule) && sum.count[PPROF_SEVERITY_ERROR] > 0, file,
        "pprof_validate", st, &err);
    st = pprof_validate(p, NULL, NULL, 0, NULL, &err); /* twice: nothing cached */
    say(t, refused(st, &err, c->rule), file, "pprof_validate again", st, &err);

    for (size_t i = 0; i < N_OPS; i++) {
        pprof_edit_options eo;
        pprof_edit_options_init(&eo);
        OPS[i].set(&eo);
        pprof_profile *out = NULL;
        char what[96];
        st = pprof_edit(p, &eo, &out, &err);
        snprintf(what, sizeof(what), "pprof_edit %s", OPS[i].name);
        say(t, refused(st, &err, c->rule) && !out, file, what, st, &err);
        pprof_profile_free(out);
        out = NULL;
        pprof_merge_input *in = NULL;
        if ((st = pprof_merge_input_read_memory(b.d, b.n, &ro, &in, &err)) == PPROF_OK)
            st = pprof_edit_input(in, &eo, &out, &err);
        snprintf(what, sizeof(what), "pprof_edit_input %s", OPS[i].name);
        say(t, refused(st, &err, c->rule) && !out, file, what, st, &err);
        pprof_profile_free(out);
        pprof_merge_input_free(in);
    }

    pprof_report *r = NULL;
    st = pprof_report_new(p, NULL, &r, &err);
    say(t, refused(st, &err, c->rule), file, "pprof_report_new", st, &err);
    pprof_report_free(r);

    pprof_profile *d = NULL;
    st = pprof_diff_profile(p, good, NULL, &d, &err);
    say(t, refused(st, &err, c->rule), file, "pprof_diff_profile as base", st, &err);
    pprof_profile_free(d);
    d = NULL;
    st = pprof_diff_profile(good, p, NULL, &d, &err);
    say(t, refused(st, &err, c->rule), file, "pprof_diff_profile as new", st, &err);
    pprof_profile_free(d);
    pprof_diff *df = NULL;
    st = pprof_diff_new(p, good, NULL, &df, &err);
    say(t, refused(st, &err, c->rule), file, "pprof_diff_new as base", st, &err);
    pprof_diff_free(df);
    df = NULL;
    st = pprof_diff_new(good, p, NULL, &df, &err);
    say(t, refused(st, &err, c->rule), file, "pprof_diff_new as new", st, &err);
    pprof_diff_free(df);

    pprof_buffer fb = {0};
    st = pprof_folded_write_memory(p, NULL, &fb, &err);
    say(t, refused(st, &err, c->rule), file, "pprof_folded_write_memory", st, &err);
    pprof_buffer_free(&fb);

    pprof_merger *m = NULL;
    if ((st = pprof_merger_new(NULL, &m, &err)) == PPROF_OK)
        st = pprof_merger_add(m, p, "bad", &err);
    say(t, refused(st, &err, c->rule), file, "pprof_merger_add", st, &err);
    pprof_merger_free(m);
    m = NULL;
    pprof_merge_input *in = NULL;
    if ((st = pprof_merger_new(NULL, &m, &err)) == PPROF_OK &&
        (st = pprof_merge_input_read_memory(b.d, b.n, &ro, &in, &err)) == PPROF_OK)
        st = pprof_merger_add_input(m, in, "bad", &err);
    say(t, refused(st, &err, c->rule), file, "pprof_merger_add_input", st, &err);
    pprof_merge_input_free(in);
    pprof_merger_free(m);
    pprof_profile_free(p);
}

/* ---- ids up to UINT64_MAX: new frames get ids that do not depend on the largest one */

static void
test_sparse_ids(tap *t)
{
    pb b = {.n = 0};
    std_profile(&b, NO_FN | NO_LOC | NO_SAMPLE);
    func(&b, UINT64_MAX, S_MAIN, S_MAIN_GO);
    func(&b, 2, S_FOO, S_MAIN_GO);
    const uint64_t l1[] = {UINT64_MAX, 10}, l2[] = {2, 20};
    loc(&b, UINT64_MAX, 1, 0x1100, 1, l1);
    loc(&b, 1, 1, 0x1200, 1, l2);
    const uint64_t s[] = {1, UINT64_MAX};
    const int64_t v[] = {5};
    const lab l = {S_CPU, S_MAIN, 0, 0};
    sample(&b, 2, s, 1, v, 1, &l);
    pprof_profile *p = NULL;
    pprof_error err;
    pprof_status st = pprof_profile_read_memory(b.d, b.n, NULL, &p, &err);
    tap_ok(t, st == PPROF_OK && pprof_validate(p, NULL, NULL, 0, NULL, &err) == PPROF_OK,
           "ids up to UINT64_MAX: a valid profile");
    static const named_op ops[] = {{"no operation", op_none},
                                   {"focus", op_focus},
                                   {"hide+show_from+lines", op_frames},
                                   {"max_depth+tag_root", op_trim}};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        pprof_edit_options eo;
        pprof_edit_options_init(&eo);
        ops[i].set(&eo);
        eo.tag_root = "cpu";
        pprof_profile *out = NULL;
        st = pprof_edit(p, &eo, &out, &err);
        bool ok = st == PPROF_OK && out && pprof_validate(out, NULL, NULL, 0, NULL, &err) == 0;
        /* the tag_root frame names the label value "main"; with max_depth 1 the cut frame too */
        size_t nf = out ? pprof_profile_count(out, PPROF_TABLE_FUNCTION) : 0;
        if (!tap_ok(t, ok && nf >= 2, "ids up to UINT64_MAX: pprof_edit %s with a new frame",
                    ops[i].name))
            tap_diag("%s: %s: %s", pprof_status_name(st), err.path, err.message);
        pprof_profile_free(out);
        pprof_merge_input *in = NULL;
        out = NULL;
        if (!(st = pprof_merge_input_read_memory(b.d, b.n, NULL, &in, &err)))
            st = pprof_edit_input(in, &eo, &out, &err);
        if (!tap_ok(t, st == PPROF_OK && out, "ids up to UINT64_MAX: pprof_edit_input %s",
                    ops[i].name))
            tap_diag("%s: %s: %s", pprof_status_name(st), err.path, err.message);
        pprof_profile_free(out);
        pprof_merge_input_free(in);
    }
    pprof_profile_free(p);
}

/* ---- a dangling string index is measured against the input's table, not the edit's */

static void
test_dangling_size(tap *t)
{
    pb b = {.n = 0};
    std_profile(&b, 0);
    fv(&b, 13, N_STD + 3); /* comment */
    pprof_profile *p = NULL;
    pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
    pprof_error err;
    pprof_profile_read_memory(b.d, b.n, &ro, &p, &err);
    pprof_edit_options eo;
    pprof_edit_options_init(&eo);
    op_set_labels(&eo);
    pprof_profile *out = NULL;
    pprof_status st = pprof_edit(p, &eo, &out, &err);
    char want[64];
    snprintf(want, sizeof(want), "the string table has %d entries", N_STD);
    if (!tap_ok(
            t,
            st == PPROF_E_INVALID && strstr(err.message, want) && !strcmp(err.path, "comment[0]"),
            "a dangling comment with 4 --set-label: refused, with the input's %d strings", N_STD))
        tap_diag("%s: %s: %s", pprof_status_name(st), err.path, err.message);
    pprof_profile_free(out);
    pprof_profile_free(p);
}

static bool
read_whole(const char *path, pb *b)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    b->n = fread(b->d, 1, sizeof(b->d), f);
    bool ok = !ferror(f) && fgetc(f) == EOF;
    fclose(f);
    return ok;
}

static void
test_corpus_files(tap *t)
{
    const char *root = getenv("PPROF_SOURCE_ROOT");
    if (!root) {
        tap_diag("PPROF_SOURCE_ROOT unset: corpus/invalid not compared");
        return;
    }
    for (size_t i = 0; i < N_ICASES; i++) {
        char name[128], path[1024];
        icase_file_name(&ICASES[i], name, sizeof(name));
        snprintf(path, sizeof(path), "%s/corpus/invalid/%s", root, name);
        pb want = {.n = 0}, have = {.n = 0};
        ICASES[i].build(&want);
        tap_ok(
            t, read_whole(path, &have) && have.n == want.n && memcmp(have.d, want.d, want.n) == 0,
            "corpus/invalid/%s is up to date (test_validate --write-corpus corpus/invalid)", name);
    }
}

static int
write_corpus(const char *dir)
{
    for (size_t i = 0; i < N_ICASES; i++) {
        char name[128], path[1024];
        icase_file_name(&ICASES[i], name, sizeof(name));
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        pb b = {.n = 0};
        ICASES[i].build(&b);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(b.d, 1, b.n, f) != b.n || fclose(f) != 0) {
            perror(path);
            return 1;
        }
    }
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-corpus") == 0)
        return write_corpus(argv[2]);
    tap t = {0, 0};
    pprof_profile *good = std_good();
    tap_ok(&t, good && pprof_validate(good, NULL, NULL, 0, NULL, NULL) == PPROF_OK,
           "the standard profile reads and is valid");
    for (size_t i = 0; i < N_ICASES; i++)
        test_case(&t, &ICASES[i], good);
    pprof_profile_free(good);
    test_sparse_ids(&t);
    test_dangling_size(&t);
    test_corpus_files(&t);
    return tap_done(&t);
}
