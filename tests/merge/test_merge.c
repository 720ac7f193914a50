/* Properties of the merger: conservation of totals, idempotence, cancellation, order and
 * grouping independence (byte-identical output), doubling, overflow and compatibility errors,
 * inline-conflict policies, header combination, label handling. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "memory-private.h"
#include "merge.h"
#include "profile-private.h"
#include "tap.h"
#include "unit/pb.h"
#include "wire-private.h"

/* ---------------------------------------------------------------- building profiles by hand */

static int64_t
S(pprof_profile *p, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < p->strings.len; i++) {
        pprof_string x = PPROF__AT(p->strings, pprof_string, i);
        if (x.len == n && !memcmp(x.data, s, n))
            return (int64_t)i;
    }
    pprof_string *d = pprof__vec_push(NULL, &p->strings, sizeof(*d));
    d->data = s;
    d->len = n;
    p->has_string_table = true;
    return (int64_t)p->strings.len - 1;
}

static pprof_profile *
mk(const char *type, const char *unit)
{
    pprof_profile *p = pprof__profile_new(NULL);
    S(p, "");
    pprof_value_type *vt = pprof__vec_push(NULL, &p->sample_types, sizeof(*vt));
    vt->type = S(p, type);
    vt->unit = S(p, unit);
    p->hdr.period_type.type = S(p, type);
    p->hdr.period_type.unit = S(p, unit);
    return p;
}

static void
mapping(pprof_profile *p, uint64_t id, uint64_t start, uint64_t limit, const char *file)
{
    pprof_mapping *m = pprof__vec_push(NULL, &p->mappings, sizeof(*m));
    if (!m)
        abort();
    memset(m, 0, sizeof(*m));
    m->id = id;
    m->memory_start = start;
    m->memory_limit = limit;
    m->filename = S(p, file);
}

static void
function(pprof_profile *p, uint64_t id, const char *name)
{
    pprof_function *f = pprof__vec_push(NULL, &p->functions, sizeof(*f));
    if (!f)
        abort();
    memset(f, 0, sizeof(*f));
    f->id = id;
    f->name = S(p, name);
    f->filename = S(p, "file.c");
}

/* lines: n triples (function id, line, column) */
static void
location(pprof_profile *p, uint64_t id, uint64_t mapping_id, uint64_t addr, size_t n,
         const int64_t *lines)
{
    pprof__location *l = pprof__vec_push(NULL, &p->locations, sizeof(*l));
    if (!l)
        abort();
    memset(l, 0, sizeof(*l));
    l->id = id;
    l->mapping_id = mapping_id;
    l->address = addr;
    l->line_off = (uint32_t)p->lines.len;
    l->n_line = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        pprof_line *ln = pprof__vec_push(NULL, &p->lines, sizeof(*ln));
        ln->function_id = (uint64_t)lines[3 * i];
        ln->line = lines[3 * i + 1];
        ln->column = lines[3 * i + 2];
    }
}

static void
sample(pprof_profile *p, size_t n_loc, const uint64_t *locs, int64_t value, size_t n_lab,
       const pprof_label *labs)
{
    pprof__sample *s = pprof__vec_push(NULL, &p->samples, sizeof(*s));
    s->loc_off = (uint32_t)p->stack.len;
    s->n_loc = (uint32_t)n_loc;
    s->val_off = (uint32_t)p->values.len;
    s->n_val = 1;
    s->lab_off = (uint32_t)p->labels.len;
    s->n_lab = (uint32_t)n_lab;
    for (size_t i = 0; i < n_loc; i++)
        *(uint64_t *)pprof__vec_push(NULL, &p->stack, sizeof(uint64_t)) = locs[i];
    *(int64_t *)pprof__vec_push(NULL, &p->values, sizeof(int64_t)) = value;
    for (size_t i = 0; i < n_lab; i++)
        *(pprof_label *)pprof__vec_push(NULL, &p->labels, sizeof(pprof_label)) = labs[i];
}

/* ---------------------------------------------------------------- helpers */

typedef struct warnings {
    int n;
    char last[512];
} warnings;

static void
on_warn(void *ctx, const char *msg)
{
    warnings *w = ctx;
    w->n++;
    snprintf(w->last, sizeof(w->last), "%s", msg);
}

static pprof_profile *
merge_n(pprof_profile **ps, const char **names, size_t n, const pprof_merge_options *o,
        pprof_status *st, pprof_error *err)
{
    pprof_profile *out = NULL;
    pprof_error e;
    *st = pprof_merge((const pprof_profile *const *)ps, names, n, o, &out, err ? err : &e);
    return out;
}

static pprof_buffer
bytes(const pprof_profile *p)
{
    pprof_buffer b = {0};
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_RAW;
    pprof_error e;
    if (p && pprof_profile_write_memory(p, &w, &b, &e) != PPROF_OK)
        pprof_buffer_free(&b);
    return b;
}

static bool
same_bytes(const pprof_profile *a, const pprof_profile *b)
{
    pprof_buffer x = bytes(a), y = bytes(b);
    bool eq = x.data && y.data && x.len == y.len && !memcmp(x.data, y.data, x.len);
    pprof_buffer_free(&x);
    pprof_buffer_free(&y);
    return eq;
}

/* Re-reads a profile from its encoding, as a second merge stage on another machine would. */
static pprof_profile *
reread(const pprof_profile *p)
{
    pprof_buffer b = bytes(p);
    pprof_profile *q = NULL;
    pprof_error e;
    if (b.data)
        pprof_profile_read_memory(b.data, b.len, NULL, &q, &e);
    pprof_buffer_free(&b);
    return q;
}

static void
totals(const pprof_profile *p, int64_t *t, size_t nt)
{
    memset(t, 0, nt * sizeof(int64_t));
    for (size_t i = 0; i < p->samples.len; i++) {
        pprof_sample s = pprof_profile_sample(p, i);
        for (size_t k = 0; k < nt && k < s.n_value; k++)
            t[k] += s.value[k];
    }
}

static size_t
load_many(pprof_profile **ps, const char **names, char paths[][512])
{
    const char *dir = tap_real_corpus();
    static const char *const stamps[] = {
        "1644509272337470000", "1644509275338070000", "1644509278338696000", "1644509281339135000",
        "1644509284338649000", "1644509287338709000", "1644509290338056000", "1644509293338714000",
        "1644509296350592000", "1644509299337903000"};
    size_t n = 0;
    for (size_t i = 0; i < 10; i++) {
        snprintf(paths[n], 512, "%s/parca/query-many-%s.pb.gz", dir, stamps[i]);
        pprof_error e;
        if (pprof_profile_read_file(paths[n], NULL, &ps[n], &e) == PPROF_OK) {
            names[n] = paths[n];
            n++;
        }
    }
    return n;
}

/* ---------------------------------------------------------------- tests on the real corpus */

/* pprof_merger_write_memory and _write_file give the bytes of finish + write, and say the size of
 * what they wrote. */
static void
check_direct_write(tap *t, pprof_profile *const *ps, size_t n, const pprof_merge_options *o,
                   const char *what)
{
    pprof_merger *m = NULL;
    pprof_error e;
    pprof_status st = pprof_merger_new(o, &m, &e);
    for (size_t i = 0; st == PPROF_OK && i < n; i++)
        st = pprof_merger_add(m, ps[i], NULL, &e);
    pprof_profile *fin = NULL;
    pprof_buffer via = {0}, direct = {0}, gz_via = {0}, gz_direct = {0};
    pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT, gz = PPROF_WRITE_OPTIONS_INIT;
    raw.format = PPROF_FORMAT_RAW;
    gz.threads = 3;
    pprof_merge_summary sum = PPROF_MERGE_SUMMARY_INIT;
    bool ok = st == PPROF_OK && pprof_merger_finish(m, &fin, &e) == PPROF_OK &&
              pprof_profile_write_memory(fin, &raw, &via, &e) == PPROF_OK &&
              pprof_merger_write_memory(m, &raw, &direct, &sum, &e) == PPROF_OK &&
              pprof_profile_write_memory(fin, &gz, &gz_via, &e) == PPROF_OK &&
              pprof_merger_write_memory(m, &gz, &gz_direct, NULL, &e) == PPROF_OK;
    tap_ok(t,
           ok && via.len == direct.len && !memcmp(via.data, direct.data, via.len) &&
               gz_via.len == gz_direct.len && !memcmp(gz_via.data, gz_direct.data, gz_via.len) &&
               sum.samples == fin->samples.len && sum.locations == fin->locations.len &&
               sum.functions == fin->functions.len,
           "%s: writing straight from the merger gives finish's bytes (%zu bytes, %zu samples)",
           what, direct.len, sum.samples);
    char path[256];
    snprintf(path, sizeof(path), "%s/direct-%d.pb.gz", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid());
    uint8_t *file = NULL;
    size_t flen = 0;
    ok = ok && pprof_merger_write_file(m, &gz, path, NULL, &e) == PPROF_OK;
    FILE *fp = ok ? fopen(path, "rb") : NULL;
    if (fp) {
        file = malloc(gz_via.len + 1);
        flen = file ? fread(file, 1, gz_via.len + 1, fp) : 0;
        fclose(fp);
    }
    remove(path);
    tap_ok(t, ok && file && flen == gz_via.len && !memcmp(file, gz_via.data, flen),
           "%s: pprof_merger_write_file writes the same bytes", what);
    free(file);
    pprof_buffer_free(&via);
    pprof_buffer_free(&direct);
    pprof_buffer_free(&gz_via);
    pprof_buffer_free(&gz_direct);
    pprof_profile_free(fin);
    pprof_merger_free(m);
}

static void
test_corpus(tap *t)
{
    pprof_profile *ps[10];
    const char *names[10];
    char paths[10][512];
    size_t n = load_many(ps, names, paths);
    if (n < 3) {
        tap_diag("parca query-many corpus not found under %s; corpus tests skipped",
                 tap_real_corpus());
        return;
    }
    pprof_status st;
    pprof_profile *all = merge_n(ps, names, n, NULL, &st, NULL);
    tap_ok(t, st == PPROF_OK && all, "merge of %zu query-many profiles", n);
    check_direct_write(t, ps, n, NULL, "query-many");

    /* conservation of every value total */
    size_t nt = ps[0]->sample_types.len;
    int64_t want[8] = {0}, got[8], one[8];
    for (size_t i = 0; i < n; i++) {
        totals(ps[i], one, nt);
        for (size_t k = 0; k < nt; k++)
            want[k] += one[k];
    }
    totals(all, got, nt);
    tap_ok(t, nt <= 8 && !memcmp(want, got, nt * sizeof(int64_t)),
           "value totals per sample type are conserved (%lld == %lld for type 0)",
           (long long)want[0], (long long)got[0]);

    /* order independence: reversed, rotated, interleaved */
    pprof_profile *perm[10];
    const char *pn[10];
    for (size_t i = 0; i < n; i++) {
        perm[i] = ps[n - 1 - i];
        pn[i] = names[n - 1 - i];
    }
    pprof_profile *rev = merge_n(perm, pn, n, NULL, &st, NULL);
    tap_ok(t, same_bytes(all, rev), "reversed input order gives identical bytes");
    size_t k = 0;
    for (size_t i = 0; i < n; i += 2)
        perm[k++] = ps[i];
    for (size_t i = 1; i < n; i += 2)
        perm[k++] = ps[i];
    pprof_profile *inter = merge_n(perm, NULL, n, NULL, &st, NULL);
    tap_ok(t, same_bytes(all, inter), "interleaved input order gives identical bytes");

    /* grouping: ((0..2), (3..5), rest) via bytes, and a left fold of pairs */
    pprof_profile *g[3], *gr[3];
    size_t cut1 = n / 3, cut2 = 2 * n / 3;
    g[0] = merge_n(ps, NULL, cut1, NULL, &st, NULL);
    g[1] = merge_n(ps + cut1, NULL, cut2 - cut1, NULL, &st, NULL);
    g[2] = merge_n(ps + cut2, NULL, n - cut2, NULL, &st, NULL);
    for (int i = 0; i < 3; i++)
        gr[i] = reread(g[i]);
    pprof_profile *tree = merge_n(gr, NULL, 3, NULL, &st, NULL);
    tap_ok(t, st == PPROF_OK && same_bytes(all, tree),
           "merge of three group merges (through bytes) equals the flat merge");
    pprof_profile *acc = merge_n(ps + n - 1, NULL, 1, NULL, &st, NULL);
    for (size_t i = n - 1; i-- > 0;) {
        pprof_profile *pair[2] = {ps[i], acc};
        pprof_profile *next = merge_n(pair, NULL, 2, NULL, &st, NULL);
        pprof_profile_free(acc);
        acc = next;
    }
    tap_ok(t, same_bytes(all, acc), "right fold merge(p0, merge(p1, ...)) equals the flat merge");

    /* merge of one profile is its compaction: idempotent, totals kept */
    pprof_profile *c1 = merge_n(ps, NULL, 1, NULL, &st, NULL);
    pprof_profile *c2 = merge_n(&c1, NULL, 1, NULL, &st, NULL);
    totals(ps[0], want, nt);
    totals(c1, got, nt);
    tap_ok(t,
           same_bytes(c1, c2) && !memcmp(want, got, nt * sizeof(int64_t)) &&
               c1->samples.len <= ps[0]->samples.len,
           "merge of one profile is a fixed point with the same totals (%zu -> %zu samples)",
           ps[0]->samples.len, c1->samples.len);

    /* merging a profile with itself doubles every value, sample by sample */
    pprof_profile *twice[2] = {ps[0], ps[0]};
    pprof_profile *d = merge_n(twice, NULL, 2, NULL, &st, NULL);
    bool doubled = d && d->samples.len == c1->samples.len && d->values.len == c1->values.len &&
                   d->stack.len == c1->stack.len &&
                   !memcmp(d->stack.data, c1->stack.data, d->stack.len * sizeof(uint64_t));
    for (size_t i = 0; doubled && i < c1->values.len; i++)
        doubled = PPROF__AT(d->values, int64_t, i) == 2 * PPROF__AT(c1->values, int64_t, i);
    tap_ok(t, doubled, "merge(p, p) doubles every value of merge(p)");

    /* merge(p, -p) is empty */
    pprof_profile *neg = reread(ps[0]);
    for (size_t i = 0; neg && i < neg->values.len; i++)
        PPROF__AT(neg->values, int64_t, i) = -PPROF__AT(neg->values, int64_t, i);
    pprof_profile *pn2[2] = {ps[0], neg};
    pprof_profile *z = merge_n(pn2, NULL, 2, NULL, &st, NULL);
    tap_ok(t, z && z->samples.len == 0 && z->locations.len == 0 && z->functions.len == 0,
           "merge(p, -p) has no samples, locations or functions");
    /* and cancellation inside a tree gives the same bytes as the flat merge */
    pprof_profile *pz[3] = {ps[0], neg, ps[1]};
    pprof_profile *flat = merge_n(pz, NULL, 3, NULL, &st, NULL);
    pprof_profile *zr = reread(z);
    pprof_profile *pz2[2] = {zr, ps[1]};
    pprof_profile *tz = merge_n(pz2, NULL, 2, NULL, &st, NULL);
    tap_ok(t, same_bytes(flat, tz), "merge(merge(p, -p), q) equals merge(p, -p, q)");

    /* overflow */
    pprof_profile *big = reread(ps[0]);
    PPROF__AT(big->values, int64_t, 0) = INT64_MAX;
    pprof_profile *ov[2] = {big, big};
    const char *ovn[2] = {"big-a.pb", "big-b.pb"};
    pprof_error e;
    pprof_profile *o = merge_n(ov, ovn, 2, NULL, &st, &e);
    tap_ok(t,
           st == PPROF_E_OVERFLOW && !o && strstr(e.message, "big-b.pb") &&
               strstr(e.message, "overflows") && strstr(e.path, "sample["),
           "summed overflow fails with PPROF_E_OVERFLOW naming the sample: %s: %s", e.path,
           e.message);

    /* Whether a sum overflows is judged on the final sums, at finish, whatever the threads (with
     * a merger thread, stage 2 absorbs the samples while stage 1 goes on): a partial sum past
     * the limit is no error by itself, so adding goes on and a later input's own error is its
     * own. */
    pprof_profile *broken = reread(ps[1]);
    for (size_t i = 0; broken && i < broken->stack.len; i++)
        PPROF__AT(broken->stack, uint64_t, i) = UINT64_MAX - 7; /* a location id nobody has */
    for (unsigned th = 1; th <= 2; th++) {
        pprof_merge_options mo = PPROF_MERGE_OPTIONS_INIT;
        mo.threads = th;
        pprof_merger *mg = NULL;
        pprof_status s1 = PPROF_E_ARG, s2 = PPROF_E_ARG, s3 = PPROF_E_ARG;
        pprof_error e3 = {0};
        if (pprof_merger_new(&mo, &mg, &e) == PPROF_OK) {
            s1 = pprof_merger_add(mg, big, "big-a.pb", &e);
            s2 = pprof_merger_add(mg, big, "big-b.pb", &e);
            s3 = pprof_merger_add(mg, broken, "broken.pb", &e3);
        }
        pprof_merger_free(mg);
        tap_ok(t,
               s1 == PPROF_OK && s2 == PPROF_OK && s3 == PPROF_E_INVALID &&
                   strstr(e3.message, "broken.pb"),
               "%u thread(s): a sum past the limit is judged at finish; the next input's "
               "invalid location is its own error (%s: %s)",
               th, e3.path, e3.message);
        mo.threads = th;
        mg = NULL;
        pprof_error e4 = {0};
        pprof_status s4 = PPROF_E_ARG;
        if (pprof_merger_new(&mo, &mg, &e) == PPROF_OK &&
            pprof_merger_add(mg, big, "big-a.pb", &e) == PPROF_OK) {
            pprof_status sb = pprof_merger_add(mg, big, "big-b.pb", &e4);
            pprof_profile *x = NULL;
            s4 = sb ? sb : pprof_merger_finish(mg, &x, &e4);
            pprof_profile_free(x);
        }
        pprof_merger_free(mg);
        tap_ok(t,
               s4 == PPROF_E_OVERFLOW && strstr(e4.message, "big-b.pb") &&
                   strstr(e4.path, "sample["),
               "%u thread(s): an overflow comes out of finish, naming the input where the sum "
               "first passed the limit: %s: %s",
               th, e4.path, e4.message);
    }
    /* MAX + 1 - 1 in every order: the partial sums pass the limit in some orders only, the
     * total never does, so every order gives merge(big) */
    pprof_profile *plus = reread(ps[0]), *minus = reread(ps[0]);
    for (size_t i = 0; plus && minus && i < plus->values.len; i++)
        PPROF__AT(plus->values, int64_t, i) = PPROF__AT(minus->values, int64_t, i) = 0;
    if (plus && minus) {
        PPROF__AT(plus->values, int64_t, 0) = 1;
        PPROF__AT(minus->values, int64_t, 0) = -1;
        plus->hdr.duration_nanos = 1; /* and the same for the summed duration */
        minus->hdr.duration_nanos = -1;
    }
    int64_t big_duration = big->hdr.duration_nanos;
    big->hdr.duration_nanos = INT64_MAX;
    pprof_profile *only_big = merge_n(&big, NULL, 1, NULL, &st, NULL);
    const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int same_all = 0;
    for (int pi = 0; pi < 6; pi++) {
        pprof_profile *three[3] = {big, plus, minus}, *order[3];
        for (int q = 0; q < 3; q++)
            order[q] = three[perms[pi][q]];
        for (unsigned th = 1; th <= 2; th++) {
            pprof_merge_options mo = PPROF_MERGE_OPTIONS_INIT;
            mo.threads = th;
            mo.inline_conflict = pi % 2 ? PPROF_INLINE_LONGEST : PPROF_INLINE_KEEP;
            pprof_profile *x = merge_n(order, NULL, 3, &mo, &st, NULL);
            same_all += st == PPROF_OK && same_bytes(x, only_big);
            pprof_profile_free(x);
        }
    }
    tap_ok(t, same_all == 12, "MAX + 1 - 1 merges to MAX in all 6 orders (1 and 2 threads): %d/12",
           same_all);
    pprof_profile *bp[2] = {plus, big};
    o = merge_n(bp, NULL, 2, NULL, &st, &e);
    tap_ok(t, st == PPROF_E_OVERFLOW && !o && strstr(e.message, "overflows"),
           "MAX + 1 fails in either order: %s", e.message);
    big->hdr.duration_nanos = big_duration;
    pprof_profile_free(only_big);
    pprof_profile_free(plus);
    pprof_profile_free(minus);
    pprof_profile *alone[1] = {broken};
    o = merge_n(alone, NULL, 1, NULL, &st, &e);
    tap_ok(t, st == PPROF_E_INVALID && !o && strstr(e.path, "location_id"),
           "(the broken input alone fails: %s: %s)", e.path, e.message);
    pprof_profile_free(broken);

    /* incompatible types: a CPU profile against the heap profiles */
    char cpu_path[512];
    snprintf(cpu_path, sizeof(cpu_path), "%s/parca/query-fib.pb.gz", tap_real_corpus());
    pprof_profile *cpu = NULL;
    if (pprof_profile_read_file(cpu_path, NULL, &cpu, &e) == PPROF_OK &&
        cpu->sample_types.len != nt) {
        pprof_profile *inc[2] = {ps[0], cpu};
        const char *incn[2] = {"heap.pb", "cpu.pb"};
        o = merge_n(inc, incn, 2, NULL, &st, &e);
        tap_ok(t,
               st == PPROF_E_INCOMPATIBLE && !o && strstr(e.message, "heap.pb") &&
                   strstr(e.message, "cpu.pb") && strstr(e.message, "space/bytes") &&
                   strstr(e.message, "cpu/nanoseconds"),
               "incompatible inputs fail naming both files and types: %s", e.message);
    } else {
        tap_diag("query-fib.pb.gz not usable; incompatibility test on the corpus skipped");
    }
    pprof_profile_free(cpu);
    pprof_profile_free(o);
    pprof_profile_free(big);
    pprof_profile_free(flat);
    pprof_profile_free(zr);
    pprof_profile_free(tz);
    pprof_profile_free(z);
    pprof_profile_free(neg);
    pprof_profile_free(d);
    pprof_profile_free(c1);
    pprof_profile_free(c2);
    pprof_profile_free(acc);
    pprof_profile_free(tree);
    for (int i = 0; i < 3; i++) {
        pprof_profile_free(g[i]);
        pprof_profile_free(gr[i]);
    }
    pprof_profile_free(inter);
    pprof_profile_free(rev);
    pprof_profile_free(all);
    for (size_t i = 0; i < n; i++)
        pprof_profile_free(ps[i]);
}

/* ---------------------------------------------------------------- synthetic cases */

/* Input A: mapping at start, location 0x500 past it expanding into [inl, outer]; B: same
 * binary at another base, same offset, only [outer]. */
static pprof_profile *
inline_profile(uint64_t start, bool two_lines, int64_t value, int64_t col)
{
    pprof_profile *p = mk("samples", "count");
    mapping(p, 1, start, start + 0x10000, "/bin/app");
    function(p, 1, "inl");
    function(p, 2, "outer");
    int64_t both[] = {1, 10, col, 2, 20, 0};
    int64_t outer[] = {2, 20, 0};
    if (two_lines)
        location(p, 1, 1, start + 0x500, 2, both);
    else
        location(p, 1, 1, start + 0x500, 1, outer);
    uint64_t stk[] = {1};
    sample(p, 1, stk, value, 0, NULL);
    return p;
}

static void
test_inline(tap *t)
{
    pprof_profile *a = inline_profile(0x400000, true, 5, 0);
    pprof_profile *b = inline_profile(0x7f0000, false, 3, 0);
    pprof_profile *ab[2] = {a, b};
    const char *names[2] = {"a.pb", "b.pb"};
    warnings w = {0};
    pprof_merge_options o = PPROF_MERGE_OPTIONS_INIT;
    o.warn = on_warn;
    o.warn_ctx = &w;
    pprof_status st;
    pprof_profile *keep = merge_n(ab, names, 2, &o, &st, NULL);
    tap_ok(t, st == PPROF_OK && keep && keep->locations.len == 2 && keep->samples.len == 2,
           "inline conflict, policy keep: both expansions stay (like Go)");
    tap_ok(t, w.n == 1 && strstr(w.last, "a.pb") && strstr(w.last, "b.pb"),
           "inline conflict warns naming both files: %s", w.last);
    bool rebased = keep && keep->mappings.len == 1 &&
                   PPROF__AT(keep->mappings, pprof_mapping, 0).memory_start == 0x400000 &&
                   PPROF__AT(keep->locations, pprof__location, 0).address == 0x400500 &&
                   PPROF__AT(keep->locations, pprof__location, 1).address == 0x400500;
    tap_ok(t, rebased, "addresses are rebased onto the lowest base of the mapping");

    o.inline_conflict = PPROF_INLINE_LONGEST;
    pprof_profile *lon = merge_n(ab, names, 2, &o, &st, NULL);
    tap_ok(t,
           st == PPROF_OK && lon && lon->locations.len == 1 && lon->samples.len == 1 &&
               PPROF__AT(lon->values, int64_t, 0) == 8 &&
               PPROF__AT(lon->locations, pprof__location, 0).n_line == 2,
           "policy longest: one location with both lines, values summed to 8");
    pprof_profile *ba[2] = {b, a};
    pprof_profile *lon2 = merge_n(ba, NULL, 2, &o, &st, NULL);
    tap_ok(t, same_bytes(lon, lon2), "policy longest is order independent");

    o.inline_conflict = PPROF_INLINE_ERROR;
    pprof_error e;
    pprof_profile *er = merge_n(ab, names, 2, &o, &st, &e);
    tap_ok(t,
           st == PPROF_E_INVALID && !er && strstr(e.message, "a.pb") && strstr(e.message, "b.pb"),
           "policy error fails naming both files: %s", e.message);

    /* columns of a non-last inline frame are part of the key (Go's stride bug) */
    pprof_profile *c1 = inline_profile(0x400000, true, 1, 1);
    pprof_profile *c2 = inline_profile(0x400000, true, 1, 2);
    pprof_profile *cc[2] = {c1, c2};
    pprof_merge_options o2 = PPROF_MERGE_OPTIONS_INIT;
    pprof_profile *col = merge_n(cc, NULL, 2, &o2, &st, NULL);
    tap_ok(t, col && col->locations.len == 2,
           "locations differing only in the column of an inlined frame stay distinct");

    /* header: earliest non-zero time whatever the order; period max; duration sum */
    a->hdr.time_nanos = 5;
    b->hdr.time_nanos = 0;
    a->hdr.period = 10;
    b->hdr.period = 0;
    a->hdr.duration_nanos = 7;
    b->hdr.duration_nanos = 8;
    pprof_profile *h1 = merge_n(ab, NULL, 2, &o2, &st, NULL);
    pprof_profile *h2 = merge_n(ba, NULL, 2, &o2, &st, NULL);
    tap_ok(t,
           h1 && h2 && h1->hdr.time_nanos == 5 && h2->hdr.time_nanos == 5 && h1->hdr.period == 10 &&
               h2->hdr.period == 10 && h1->hdr.duration_nanos == 15,
           "time_nanos [5,0] and [0,5] both give 5; period max; duration summed");

    pprof_profile *objs[] = {keep, lon, lon2, c1, c2, col, h1, h2, a, b};
    for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++)
        pprof_profile_free(objs[i]);
}

/* One mapping key at three bases, with "no address" (0) locations, one at the start of its
 * mapping and one below it: the key of each must not depend on which base wins, or a grouped
 * merge reads an intermediate's rebased addresses as other locations. */
static pprof_profile *
addr0_profile(uint64_t start, int variant)
{
    pprof_profile *p = mk("samples", "count");
    mapping(p, 1, start, start + 0x10000, "/bin/app");
    function(p, 1, "x");
    function(p, 2, "y");
    function(p, 3, "z");
    int64_t x[] = {1, 10, 0}, y[] = {2, 20, 0}, z[] = {3, 30, 0};
    location(p, 1, 1, 0, 1, variant == 2 ? z : x);
    location(p, 2, 1, 0, 1, y);
    location(p, 3, 1, variant == 2 ? start : start + 0x500, 1, x);
    location(p, 4, 1, variant == 2 ? 0x1234 : start + 0x600, 1, y);
    for (uint64_t l = 1; l <= 4; l++)
        sample(p, 1, &l, (int64_t)l + variant, 0, NULL);
    return p;
}

static void
test_address0(tap *t)
{
    pprof_profile *in[3] = {addr0_profile(0x400000, 0), addr0_profile(0x7f0000, 1),
                            addr0_profile(0x300000, 2)};
    static const char *const pol[] = {"keep", "longest", "error"};
    for (int k = 0; k < 3; k++) {
        pprof_merge_options o = PPROF_MERGE_OPTIONS_INIT;
        o.inline_conflict = (pprof_inline_conflict)k;
        pprof_status st;
        pprof_profile *all = merge_n(in, NULL, 3, &o, &st, NULL);
        tap_ok(t, st == PPROF_OK && all, "policy %s: address 0 and offset 0 are no conflicts",
               pol[k]);
        if (!all)
            continue;
        size_t at0 = 0, raw = 0;
        for (size_t i = 0; i < all->locations.len; i++) {
            const pprof__location *l = &PPROF__AT(all->locations, pprof__location, i);
            at0 += l->address == 0 && l->mapping_id == 1;
            raw += l->address == 0x1234 && l->mapping_id == 0;
        }
        tap_ok(t, at0 == 3 && raw == 1,
               "policy %s: x, y and z stay at address 0 and x at the start of its mapping is the "
               "same location (%zu), the address below its mapping keeps its raw address "
               "without the mapping (%zu)",
               pol[k], at0, raw);
        for (int first = 0; first < 3; first++) {
            pprof_profile *pair[2] = {in[first], in[(first + 1) % 3]};
            pprof_profile *mid = merge_n(pair, NULL, 2, &o, &st, NULL);
            pprof_profile *back = reread(mid);
            pprof_profile *g[2] = {back, in[(first + 2) % 3]};
            pprof_profile *grouped = back ? merge_n(g, NULL, 2, &o, &st, NULL) : NULL;
            tap_ok(t, same_bytes(all, grouped),
                   "policy %s: inputs %d+%d through an encoded intermediate, then %d: same bytes",
                   pol[k], first, (first + 1) % 3, (first + 2) % 3);
            pprof_profile_free(mid);
            pprof_profile_free(back);
            pprof_profile_free(grouped);
        }
        pprof_profile_free(all);
    }
    for (int i = 0; i < 3; i++)
        pprof_profile_free(in[i]);
}

/* Policy longest picks among expansions that some sample still uses: one whose samples cancel
 * out is gone from an intermediate merge, so it must not win in the direct merge either. */
static void
test_longest_cancelled(tap *t)
{
    pprof_profile *a = inline_profile(0x400000, true, 1, 0);
    pprof_profile *b = inline_profile(0x400000, true, -1, 0);
    pprof_profile *c = inline_profile(0x400000, false, 5, 0);
    pprof_merge_options o = PPROF_MERGE_OPTIONS_INIT;
    o.inline_conflict = PPROF_INLINE_LONGEST;
    pprof_status st;
    pprof_profile *abc[3] = {a, b, c};
    pprof_profile *all = merge_n(abc, NULL, 3, &o, &st, NULL);
    pprof_profile *ab[2] = {a, b};
    pprof_profile *mid = merge_n(ab, NULL, 2, &o, &st, NULL);
    pprof_profile *back = reread(mid);
    pprof_profile *g[2] = {back, c};
    pprof_profile *grouped = back ? merge_n(g, NULL, 2, &o, &st, NULL) : NULL;
    tap_ok(t,
           all && all->locations.len == 1 &&
               PPROF__AT(all->locations, pprof__location, 0).n_line == 1,
           "policy longest: an expansion whose samples cancelled out does not win");
    tap_ok(t, same_bytes(all, grouped),
           "policy longest: merging the cancelling pair first gives the same bytes");
    check_direct_write(t, abc, 3, &o, "policy longest, cancelled expansion");
    pprof_profile *cancel[2] = {a, b};
    check_direct_write(t, cancel, 2, NULL, "merge(p, -p)");
    pprof_profile *objs[] = {a, b, c, all, mid, back, grouped};
    for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++)
        pprof_profile_free(objs[i]);
}

static void
test_labels(tap *t)
{
    /* labels in different order merge; a label with both str and num keeps both */
    pprof_profile *a = mk("samples", "count");
    function(a, 1, "f");
    int64_t ln[] = {1, 1, 0};
    location(a, 1, 0, 0, 1, ln);
    uint64_t stk[] = {1};
    pprof_label l1[] = {{S(a, "b"), S(a, "x"), 0, 0}, {S(a, "a"), S(a, "y"), 0, 0}};
    pprof_label l2[] = {{S(a, "a"), S(a, "y"), 0, 0}, {S(a, "b"), S(a, "x"), 0, 0}};
    pprof_label l3[] = {{S(a, "k"), S(a, "s"), 42, S(a, "bytes")}};
    sample(a, 1, stk, 1, 2, l1);
    sample(a, 1, stk, 2, 2, l2);
    sample(a, 1, stk, 4, 1, l3);
    sample(a, 1, stk, 0, 0, NULL); /* all zero: dropped */
    pprof_status st;
    pprof_profile *m = merge_n(&a, NULL, 1, NULL, &st, NULL);
    bool ok = m && m->samples.len == 2;
    bool kept_both = false;
    for (size_t i = 0; ok && i < m->samples.len; i++) {
        pprof_sample s = pprof_profile_sample(m, i);
        if (s.n_label == 2)
            ok = s.value[0] == 3;
        if (s.n_label == 1) {
            pprof_string u;
            kept_both = s.label[0].num == 42 && s.label[0].str != 0 &&
                        pprof_profile_string(m, s.label[0].num_unit, &u) && u.len == 5;
        }
    }
    tap_ok(t, ok, "samples whose labels differ only in order merge; zero samples are dropped");
    tap_ok(t, kept_both, "a label with both str and num keeps both (Go keeps only str)");
    /* samples of one stack share its entries in the merged model; everything that copies a
     * model must cope (repair copied p->stack.len entries and overran) */
    pprof_profile *sh = mk("samples", "count");
    function(sh, 1, "f");
    int64_t l2_[] = {1, 2, 0}, l3_[] = {1, 3, 0};
    location(sh, 1, 0, 0, 1, ln);
    location(sh, 2, 0, 0, 1, l2_);
    location(sh, 3, 0, 0, 1, l3_);
    uint64_t stk3[] = {1, 2, 3};
    for (int64_t k = 1; k <= 10; k++) {
        pprof_label lk = {S(sh, "k"), 0, k, 0};
        sample(sh, 3, stk3, k, 1, &lk);
    }
    pprof_profile *msh = merge_n(&sh, NULL, 1, NULL, &st, NULL);
    pprof_profile *fixed = NULL;
    pprof_check_summary sum = PPROF_CHECK_SUMMARY_INIT;
    pprof_error e0;
    tap_ok(t,
           msh && msh->samples.len == 10 && msh->stack.len == 3 &&
               pprof_repair(msh, &fixed, NULL, &e0) == PPROF_OK && same_bytes(msh, fixed) &&
               pprof_check(msh, NULL, NULL, NULL, &sum, &e0) == PPROF_OK &&
               sum.count[PPROF_SEVERITY_ERROR] == 0,
           "10 samples of one stack share its 3 entries; repair and check read such a model");
    pprof_profile_free(msh);
    pprof_profile_free(sh);
    pprof_profile_free(fixed);
    pprof_profile_free(m);
    pprof_profile_free(a);

    /* intersect: [samples, cpu] + [cpu] keeps cpu */
    pprof_profile *x = mk("samples", "count");
    pprof_value_type *vt = pprof__vec_push(NULL, &x->sample_types, sizeof(*vt));
    vt->type = S(x, "cpu");
    vt->unit = S(x, "nanoseconds");
    function(x, 1, "f");
    location(x, 1, 0, 0, 1, ln);
    sample(x, 1, stk, 3, 0, NULL);
    *(int64_t *)pprof__vec_push(NULL, &x->values, sizeof(int64_t)) = 30;
    PPROF__AT(x->samples, pprof__sample, 0).n_val = 2;
    pprof_profile *y = mk("cpu", "nanoseconds");
    y->hdr.period_type.type = S(y, "samples");
    y->hdr.period_type.unit = S(y, "count");
    function(y, 1, "f");
    location(y, 1, 0, 0, 1, ln);
    sample(y, 1, stk, 70, 0, NULL);
    pprof_profile *xy[2] = {x, y};
    pprof_error e;
    pprof_profile *bad = merge_n(xy, NULL, 2, NULL, &st, &e);
    tap_ok(t, st == PPROF_E_INCOMPATIBLE && !bad, "different type lists are incompatible: %s",
           e.message);
    pprof_merge_options o = PPROF_MERGE_OPTIONS_INIT;
    o.intersect_types = true;
    pprof_profile *in = merge_n(xy, NULL, 2, &o, &st, &e);
    pprof_string tn;
    tap_ok(
        t,
        st == PPROF_OK && in && in->sample_types.len == 1 && in->samples.len == 1 &&
            PPROF__AT(in->values, int64_t, 0) == 100 &&
            pprof_profile_string(in, PPROF__AT(in->sample_types, pprof_value_type, 0).type, &tn) &&
            tn.len == 3 && !memcmp(tn.data, "cpu", 3),
        "--intersect-types keeps the common type cpu with 30 + 70 = 100");
    pprof_profile_free(in);
    pprof_profile_free(x);
    pprof_profile_free(y);
}

static void
test_invalid(tap *t)
{
    pprof_profile *a = mk("samples", "count");
    function(a, 1, "f");
    int64_t ln[] = {9, 1, 0}; /* function 9 does not exist */
    location(a, 1, 0, 0, 1, ln);
    uint64_t stk[] = {1};
    sample(a, 1, stk, 1, 0, NULL);
    pprof_status st;
    pprof_error e;
    pprof_profile *m = merge_n(&a, NULL, 1, NULL, &st, &e);
    tap_ok(t,
           st == PPROF_E_INVALID && !m &&
               !strcmp(e.path, "location[0](id=1).line[0].function_id") &&
               strstr(e.message, "[CV6-line-function]"),
           "a dangling function id is PPROF_E_INVALID at %s", e.path);
    pprof_profile_free(a);
    pprof_merger *mg;
    pprof_merger_new(NULL, &mg, NULL);
    st = pprof_merger_finish(mg, &m, &e);
    tap_ok(t, st == PPROF_E_ARG && !m, "finish without inputs is PPROF_E_ARG");
    pprof_merger_free(mg);
}

/* A second input is first looked up in table order against what the merger holds (see
 * preresolve): only lookups, so it must fail, warn and leave broken unreferenced entries alone
 * exactly as a first input does. known: functions f, g at locations 1, 2. */
static pprof_profile *
known(void)
{
    pprof_profile *p = mk("samples", "count");
    mapping(p, 1, 0x1000, 0x9000, "bin");
    function(p, 1, "f");
    function(p, 2, "g");
    int64_t lf[] = {1, 10, 0}, lg[] = {2, 20, 0};
    location(p, 1, 1, 0x1100, 1, lf);
    location(p, 2, 1, 0x1200, 1, lg);
    uint64_t stk[] = {1, 2};
    sample(p, 2, stk, 1, 0, NULL);
    return p;
}

/* known's content in another order, plus: location 5 at f's address expanded into g and f (an
 * inline conflict), locations 3, 4 and 6 and function 3 that no sample uses. With bad,
 * locations 3 and 4 name missing functions 9 and 8 (4 used first), location 6 missing function
 * 7 and function 3 a string index out of range: Go refuses such a profile, and so does every
 * entry point of the library (pprof_validate), used or not. */
static pprof_profile *
second(bool used_bad)
{
    pprof_profile *p = mk("samples", "count");
    mapping(p, 1, 0x1000, 0x9000, "bin");
    function(p, 2, "g");
    function(p, 1, "f");
    function(p, 3, "h");
    if (used_bad)
        PPROF__AT(p->functions, pprof_function, 2).name = 1000;
    int64_t lf[] = {1, 10, 0}, lg[] = {2, 20, 0}, l9[] = {9, 1, 0}, l8[] = {8, 1, 0};
    int64_t lgf[] = {2, 20, 0, 1, 10, 0}, l7[] = {7, 1, 0};
    if (!used_bad) {
        l9[0] = l7[0] = 3;
        l8[0] = 1;
    }
    location(p, 2, 1, 0x1200, 1, lg);
    location(p, 1, 1, 0x1100, 1, lf);
    location(p, 3, 1, 0x1300, 1, l9);
    location(p, 4, 1, 0x1400, 1, l8);
    location(p, 5, 1, 0x1100, 2, lgf);
    location(p, 6, 1, 0x1600, 1, l7);
    uint64_t s1[] = {1, 2}, s2[] = {5, 2}, s3[] = {4, 3};
    sample(p, 2, s1, 2, 0, NULL);
    sample(p, 2, s2, 3, 0, NULL);
    if (used_bad)
        sample(p, 2, s3, 1, 0, NULL);
    return p;
}

static void
test_known_content(tap *t)
{
    pprof_profile *k = known(), *ok = second(false), *bad = second(true);
    const char *names[] = {"known.pb", "second.pb"};
    for (int order = 0; order < 2; order++) {
        /* second as the first input (nothing to look up), then after known */
        pprof_profile *ps[2] = {order ? k : ok, order ? ok : k};
        const char *ns[2] = {names[order ? 0 : 1], names[order ? 1 : 0]};
        warnings w = {0};
        pprof_merge_options o = PPROF_MERGE_OPTIONS_INIT;
        o.warn = on_warn;
        o.warn_ctx = &w;
        pprof_status st;
        pprof_error e;
        pprof_profile *m = merge_n(ps, ns, 2, &o, &st, &e);
        tap_ok(t,
               st == PPROF_OK && m && m->samples.len == 2 && m->locations.len == 3 &&
                   m->functions.len == 2 && w.n == 1 && strstr(w.last, "second.pb") &&
                   strstr(w.last, "1 location"),
               "second input %s: unused entries are left out, one conflict warned: %s",
               order ? "after known content" : "first", w.last);
        pprof_profile_free(m);

        ps[order ? 1 : 0] = bad;
        m = merge_n(ps, ns, 2, &o, &st, &e);
        tap_ok(t,
               st == PPROF_E_INVALID && !m && !strcmp(e.path, "function[2](id=3).name") &&
                   strstr(e.message, "second.pb: ") && strstr(e.message, "[PD1-string-index]"),
               "second input %s: refused before anything is absorbed, the first broken entity "
               "in table order named: %s %s",
               order ? "after known content" : "first", e.path, e.message);
        pprof_profile_free(m);

        o.inline_conflict = PPROF_INLINE_ERROR;
        ps[order ? 1 : 0] = ok;
        m = merge_n(ps, ns, 2, &o, &st, &e);
        tap_ok(t, st == PPROF_E_INVALID && !m && !strcmp(e.path, "location[4]"),
               "second input %s, policy error: the conflict is location[4]: %s",
               order ? "after known content" : "first", e.path);
        pprof_profile_free(m);
    }
    pprof_profile_free(k);
    pprof_profile_free(ok);
    pprof_profile_free(bad);
}

/* Each input is first tried against the one before it index by index (hints, see preresolve):
 * a hint must be taken only when the entity equals it by content. n functions fn<i>, each at
 * its own location with one sample. variant 1 keeps the tables' order but changes some entries
 * in place: a name that extends the one before at that index ("fn3" -> "fn3x", same length of
 * every other field), a function's start line, a location's line (at the same address: an
 * inline conflict). variant 2 lists everything in reverse order (hints miss until they stop). */
#define HINT_N 100

static pprof_profile *
aligned(int variant, char names[][16])
{
    pprof_profile *p = mk("samples", "count");
    mapping(p, 1, 0x1000, 0x90000, "bin");
    for (size_t k = 0; k < HINT_N; k++) {
        size_t i = variant == 2 ? HINT_N - 1 - k : k;
        snprintf(names[i], 16, variant == 1 && i == 3 ? "fn%zux" : "fn%zu", i);
        function(p, i + 1, names[i]);
        if (variant == 1 && i == 5)
            PPROF__AT(p->functions, pprof_function, k).start_line = 7;
    }
    for (size_t k = 0; k < HINT_N; k++) {
        size_t i = variant == 2 ? HINT_N - 1 - k : k;
        int64_t ln[] = {(int64_t)i + 1, variant == 1 && i == 8 ? 99 : 10, 0};
        location(p, i + 1, 1, 0x1100 + 0x10 * i, 1, ln);
    }
    for (size_t i = 0; i < HINT_N; i++) {
        uint64_t stk[] = {i + 1};
        sample(p, 1, stk, 1, 0, NULL);
    }
    return p;
}

static void
test_hints(tap *t)
{
    static char names[3][HINT_N][16];
    pprof_profile *v[3] = {aligned(0, names[0]), aligned(1, names[1]), aligned(2, names[2])};
    const int orders[][3] = {{0, 1, 2}, {2, 1, 0}, {1, 0, 2}, {0, 2, 1}};
    pprof_profile *first = NULL;
    bool same = true;
    for (size_t o = 0; o < sizeof(orders) / sizeof(orders[0]); o++) {
        pprof_profile *ps[3] = {v[orders[o][0]], v[orders[o][1]], v[orders[o][2]]};
        pprof_status st;
        pprof_profile *m = merge_n(ps, NULL, 3, NULL, &st, NULL);
        same = same && st == PPROF_OK && m && (!first || same_bytes(first, m));
        if (!first)
            first = m;
        else
            pprof_profile_free(m);
    }
    /* fn3 and fn3x, fn5 at two start lines: a location and a sample more for each, and for
     * the line 99 at fn8's address */
    tap_ok(t,
           same && first->functions.len == HINT_N + 2 && first->locations.len == HINT_N + 3 &&
               first->samples.len == HINT_N + 3,
           "inputs with tables in the same order, changed in place and reversed: the same bytes "
           "in every order (%zu functions, %zu locations)",
           first ? first->functions.len : 0, first ? first->locations.len : 0);
    pprof_profile_free(first);
    for (int i = 0; i < 3; i++)
        pprof_profile_free(v[i]);
}

/* ---------------------------------------------------------------- merge inputs */

/* A caller's own allocator: malloc's, through hooks. */
static void *
own_alloc(void *ctx, size_t n)
{
    (void)ctx;
    return malloc(n);
}
static void *
own_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    return realloc(p, n);
}
static void
own_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}
static pprof_allocator
own_allocator(void)
{
    pprof_allocator a = {own_alloc, own_realloc, own_free, NULL};
    return a;
}

/* A profile of n samples with stack [1, 2, 3]; bad makes sample `bad`'s location ids end in a
 * truncated varint. */
static pb
input_bytes(size_t n, size_t bad)
{
    pb b = {0}, s = {0};
    const char *const strs[] = {"", "samples", "count", "f"};
    pb_strings(&b, strs, 4);
    pb_value_type(&b, 1, 1, 2);
    for (size_t i = 0; i < n; i++) {
        if (i == bad) {
            pb_tag(&s, 1, PPROF_WT_LEN);
            pb_varint(&s, 2);
            pb_byte(&s, 1);
            pb_byte(&s, 0x80); /* a varint that never ends */
        } else {
            const uint64_t locs[] = {1, 2, 3};
            pb_packed(&s, 1, locs, 3);
        }
        pb_v(&s, 2, i + 1);
        pb_msg_free(&b, 2, &s);
    }
    pb_simple_locations(&b, 3);
    return b;
}

/* The corpus group merged through inputs (files mapped or inflated) and through profiles. */
static void
corpus_as_inputs(tap *t, pprof_profile **ps, const char **names, char paths[][512], size_t n)
{
    pprof_merger *a = NULL, *b = NULL;
    pprof_merger_new(NULL, &a, NULL);
    pprof_merger_new(NULL, &b, NULL);
    bool ok = n == 10;
    for (size_t i = 0; ok && i < n; i++) {
        pprof_merge_input *in = NULL;
        pprof_error e;
        ok = pprof_merger_add(a, ps[i], names[i], &e) == PPROF_OK &&
             pprof_merge_input_read_file(paths[i], NULL, &in, &e) == PPROF_OK &&
             pprof_merger_add_input(b, in, names[i], &e) == PPROF_OK;
        pprof_merge_input_free(in);
    }
    pprof_profile *ma = NULL, *mb = NULL;
    ok = ok && pprof_merger_finish(a, &ma, NULL) == PPROF_OK &&
         pprof_merger_finish(b, &mb, NULL) == PPROF_OK && same_bytes(ma, mb);
    tap_ok(t, ok, "10 corpus files merged as inputs and as profiles: the same bytes");
    pprof_profile_free(ma);
    pprof_profile_free(mb);
    pprof_merger_free(a);
    pprof_merger_free(b);
    for (size_t i = 0; i < n; i++)
        pprof_profile_free(ps[i]);
}

static void
test_inputs(tap *t)
{
    pprof_profile *ps[10];
    const char *names[10];
    char paths[10][512];
    size_t n = load_many(ps, names, paths);
    if (n == 0)
        tap_diag("parca query-many corpus not found under %s; its input test skipped",
                 tap_real_corpus());
    else
        corpus_as_inputs(t, ps, names, paths, n);
    pprof_merger *a = NULL;
    bool ok;

    /* more samples than one batch, raw and gzip, from memory; an input added twice doubles */
    pb raw = input_bytes(10000, SIZE_MAX);
    pprof_profile *full = NULL;
    pprof_merge_input *in = NULL;
    pprof_error e;
    pprof_status st = pprof_profile_read_memory(raw.d, raw.n, NULL, &full, &e);
    pprof_merger_new(NULL, &a, NULL);
    ok = st == PPROF_OK && pprof_merge_input_read_memory(raw.d, raw.n, NULL, &in, &e) == PPROF_OK &&
         pprof_merger_add_input(a, in, "x", &e) == PPROF_OK &&
         pprof_merger_add_input(a, in, "x", &e) == PPROF_OK;
    pprof_profile *twice = NULL, *doubled = NULL;
    pprof_profile *two[2] = {full, full};
    ok = ok && pprof_merger_finish(a, &twice, &e) == PPROF_OK &&
         (doubled = merge_n(two, NULL, 2, NULL, &st, NULL)) && same_bytes(twice, doubled);
    tap_ok(t, ok, "an input of 10000 samples added twice equals the profile merged with itself");
    pprof_profile_free(twice);
    pprof_profile_free(doubled);
    pprof_profile_free(full);
    pprof_merge_input_free(in);
    pprof_merger_free(a);
    pb_free(&raw);

    /* Without a caller's allocator, a large input's buffer and tables come from blocks in huge
     * pages (memory-private.h), which the input's profile holds: freeing the input must free
     * the input itself before the profile drops what may be the last reference (a free the
     * other way round used the released blocks, which AddressSanitizer reports). A small input,
     * an owned raw file and a caller's allocator keep their allocator. */
    raw = input_bytes(60000, SIZE_MAX);
    pprof_buffer gz = {0};
    ok = raw.n >= PPROF__BLOCKS_MIN_WORK &&
         pprof__compress(raw.d, raw.n, PPROF_FORMAT_GZIP, 1, 1, NULL, &gz, &e) == PPROF_OK &&
         pprof_profile_read_memory(raw.d, raw.n, NULL, &full, &e) == PPROF_OK;
    pprof_profile *one = ok ? merge_n(&full, NULL, 1, NULL, &st, NULL) : NULL;
    const struct {
        const void *d;
        size_t n;
        const char *what;
    } big_in[] = {{raw.d, raw.n, "raw"}, {gz.data, gz.len, "gzip"}};
    for (size_t k = 0; k < 2; k++) {
        pprof_profile *got = NULL;
        in = NULL;
        pprof_merger_new(NULL, &a, NULL);
        bool good =
            one &&
            pprof_merge_input_read_memory(big_in[k].d, big_in[k].n, NULL, &in, &e) == PPROF_OK &&
            in->p->blocks && pprof_merger_add_input(a, in, "x", &e) == PPROF_OK &&
            pprof_merger_finish(a, &got, &e) == PPROF_OK && same_bytes(got, one);
        tap_ok(t, good, "a %s input of %zu bytes read with the default allocator is in blocks",
               big_in[k].what, big_in[k].n);
        pprof_merge_input_free(in);
        pprof_merger_free(a);
        pprof_profile_free(got);
    }
    pprof_read_options own;
    pprof_read_options_init(&own);
    own.allocator = own_allocator();
    pb small = input_bytes(10, SIZE_MAX);
    pprof_merge_input *in_own = NULL, *in_small = NULL, *in_file = NULL;
    char tmpraw[] = "/tmp/test_merge_rawXXXXXX";
    int fdraw = mkstemp(tmpraw);
    bool wrote = fdraw >= 0 && write(fdraw, raw.d, raw.n) == (ssize_t)raw.n;
    ok = pprof_merge_input_read_memory(gz.data, gz.len, &own, &in_own, &e) == PPROF_OK &&
         !in_own->p->blocks &&
         pprof_merge_input_read_memory(small.d, small.n, NULL, &in_small, &e) == PPROF_OK &&
         !in_small->p->blocks && wrote &&
         pprof_merge_input_read_file(tmpraw, NULL, &in_file, &e) == PPROF_OK && !in_file->p->blocks;
    tap_ok(t, ok, "a caller's allocator, a small input and an owned raw file are not in blocks");
    pprof_merge_input_free(in_own);
    pprof_merge_input_free(in_small);
    pprof_merge_input_free(in_file);
    if (fdraw >= 0) {
        close(fdraw);
        unlink(tmpraw);
    }
    pprof_profile_free(one);
    pprof_profile_free(full);
    pprof_buffer_free(&gz);
    pb_free(&small);
    pb_free(&raw);

    /* a raw input file that shrinks after it is opened, before its samples are decoded
     * (issue 16 item 12: a mapped file raised SIGBUS): the input keeps what was read. In a
     * child, so that a crash is a failure here, not the end of the test program. */
    raw = input_bytes(10000, SIZE_MAX);
    char tmpl[] = "/tmp/test_merge_shrinkXXXXXX";
    int fd = mkstemp(tmpl);
    ok = fd >= 0 && write(fd, raw.d, raw.n) == (ssize_t)raw.n;
    pid_t pid = ok ? fork() : -1;
    if (pid == 0) {
        pprof_merger *c = NULL;
        pprof_profile *got = NULL, *want = NULL;
        in = NULL;
        bool good = pprof_merge_input_read_file(tmpl, NULL, &in, &e) == PPROF_OK &&
                    ftruncate(fd, 100) == 0 && pprof_merger_new(NULL, &c, NULL) == PPROF_OK &&
                    pprof_merger_add_input(c, in, tmpl, &e) == PPROF_OK &&
                    pprof_merger_finish(c, &got, &e) == PPROF_OK &&
                    pprof_profile_read_memory(raw.d, raw.n, NULL, &full, &e) == PPROF_OK &&
                    (want = merge_n(&full, NULL, 1, NULL, &st, NULL)) && same_bytes(got, want);
        _exit(good ? 0 : 1);
    }
    int status = -1;
    ok = ok && pid > 0 && waitpid(pid, &status, 0) == pid;
    tap_ok(t, ok && WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "a raw input file cut to 100 bytes after it is read merges what was read (%s %d)",
           WIFSIGNALED(status) ? "signal" : "exit",
           WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    if (fd >= 0) {
        close(fd);
        unlink(tmpl);
    }
    pb_free(&raw);

    /* a broken sample: found when absorbed, with the full read's code, path and offset */
    pb bad = input_bytes(5000, 4321);
    pprof_error full_err, in_err;
    st = pprof_profile_read_memory(bad.d, bad.n, NULL, &full, &full_err);
    in = NULL;
    pprof_merger_new(NULL, &a, NULL);
    pprof_status st_read = pprof_merge_input_read_memory(bad.d, bad.n, NULL, &in, &e);
    pprof_status st_add = in ? pprof_merger_add_input(a, in, "bad.pb", &in_err) : PPROF_E_ARG;
    tap_ok(t,
           st == PPROF_E_WIRE && st_read == PPROF_OK && st_add == st &&
               !strcmp(in_err.path, full_err.path) && in_err.offset == full_err.offset &&
               strstr(in_err.message, "bad.pb") && strstr(in_err.message, full_err.message),
           "a bad sample is %s at %s byte %llu, as a full read reports (%s)",
           pprof_status_name(st_add), in_err.path, (unsigned long long)in_err.offset,
           in_err.message);
    tap_ok(t, pprof_merger_finish(a, &twice, &e) == PPROF_E_INVALID || st_add != PPROF_OK,
           "the merger is unusable after the error");
    pprof_merge_input_free(in);
    pprof_merger_free(a);
    pb_free(&bad);

    /* limits are totals over the input, however it is batched */
    pb big = input_bytes(6000, SIZE_MAX);
    pprof_read_options ro;
    pprof_read_options_init(&ro);
    ro.max_stack_entries = 3 * 6000 - 1;
    st = pprof_profile_read_memory(big.d, big.n, &ro, &full, &full_err);
    pprof_merger_new(NULL, &a, NULL);
    in = NULL;
    st_read = pprof_merge_input_read_memory(big.d, big.n, &ro, &in, &e);
    st_add = in ? pprof_merger_add_input(a, in, "big.pb", &in_err) : PPROF_E_ARG;
    tap_ok(t,
           st == PPROF_E_LIMIT && st_read == PPROF_OK && st_add == PPROF_E_LIMIT &&
               strstr(in_err.message, full_err.message),
           "max_stack_entries counts every batch: %s", in_err.message);
    pprof_merge_input_free(in);
    pprof_merger_free(a);
    pb_free(&big);
}

static uint64_t
rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* An add returns while stage 2 (a thread of its own) may still sum its input's last batch; with
 * --intersect-types the next input's type list reshapes those sums, so the reshape waits for
 * stage 2 first. The first input is large enough to keep stage 2 busy at the switch; the sums
 * must come out as with one thread (and TSan sees no race). */
static void
test_intersect_threads(tap *t)
{
    pprof_profile *x = mk("samples", "count");
    pprof_value_type *vt = pprof__vec_push(NULL, &x->sample_types, sizeof(*vt));
    vt->type = S(x, "cpu");
    vt->unit = S(x, "nanoseconds");
    function(x, 1, "f");
    int64_t ln[] = {1, 1, 0};
    location(x, 1, 0, 0, 1, ln);
    uint64_t stk[] = {1};
    int64_t want = 70;
    for (size_t i = 0; i < 20000; i++) {
        pprof_label l = {S(x, "n"), 0, (int64_t)i, 0};
        sample(x, 1, stk, 1, 1, &l);
        *(int64_t *)pprof__vec_push(NULL, &x->values, sizeof(int64_t)) = (int64_t)(2 * i + 1);
        PPROF__AT(x->samples, pprof__sample, i).n_val = 2;
        want += (int64_t)(2 * i + 1);
    }
    pprof_profile *y = mk("cpu", "nanoseconds");
    y->hdr.period_type.type = S(y, "samples");
    y->hdr.period_type.unit = S(y, "count");
    function(y, 1, "f");
    location(y, 1, 0, 0, 1, ln);
    sample(y, 1, stk, 70, 0, NULL);
    pprof_profile *xy[2] = {x, y};
    pprof_merge_options o = PPROF_MERGE_OPTIONS_INIT;
    o.intersect_types = true;
    o.threads = 1;
    pprof_status st1, st2;
    pprof_profile *one = merge_n(xy, NULL, 2, &o, &st1, NULL);
    o.threads = 2;
    pprof_profile *two = merge_n(xy, NULL, 2, &o, &st2, NULL);
    int64_t sum = 0;
    for (size_t i = 0; two && i < two->values.len; i++)
        sum += PPROF__AT(two->values, int64_t, i);
    tap_ok(t,
           st1 == PPROF_OK && st2 == PPROF_OK && two->sample_types.len == 1 &&
               two->samples.len == 20001 && sum == want && same_bytes(one, two),
           "--intersect-types after a large input: cpu sums to %lld (want %lld) with 2 threads, "
           "the same bytes as with 1",
           (long long)sum, (long long)want);
    pprof_profile_free(one);
    pprof_profile_free(two);
    pprof_profile_free(x);
    pprof_profile_free(y);
}

/* finish's parallel sorts and copies: the same bytes for any number of threads, on inputs big
 * enough to be split (tens of thousands of stacks, samples and stack entries). */
static void
test_threads(tap *t)
{
    pprof_profile *ps[3];
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (size_t k = 0; k < 3; k++) {
        pprof_profile *p = ps[k] = mk("samples", "count");
        for (uint64_t fid = 1; fid <= 300; fid++) {
            char *name = pprof__arena_alloc(&p->arena, 16);
            snprintf(name, 16, "fn%llu", (unsigned long long)fid);
            function(p, fid, name);
        }
        for (uint64_t lid = 1; lid <= 600; lid++) {
            int64_t ln[] = {(int64_t)(1 + lid % 300), (int64_t)lid, 0};
            location(p, lid, 0, 0, 1, ln);
        }
        for (size_t i = 0; i < 20000; i++) {
            uint64_t stk[24];
            size_t depth = 1 + rnd(&x) % 24;
            for (size_t d = 0; d < depth; d++)
                stk[d] = 1 + rnd(&x) % 600;
            const char *th = rnd(&x) % 2 ? "a" : "b";
            int64_t span = (int64_t)(rnd(&x) % 3);
            pprof_label l[2] = {{S(p, "thread"), S(p, th), 0, 0}, {S(p, "span"), 0, span, 0}};
            sample(p, depth, stk, (int64_t)(rnd(&x) % 100), 2, l);
        }
    }
    pprof_merge_options o = PPROF_MERGE_OPTIONS_INIT;
    pprof_status st1, st3;
    pprof_profile *one = merge_n(ps, NULL, 3, &o, &st1, NULL);
    o.threads = 3;
    pprof_profile *three = merge_n(ps, NULL, 3, &o, &st3, NULL);
    tap_ok(
        t, st1 == PPROF_OK && st3 == PPROF_OK && one->samples.len > 40000 && same_bytes(one, three),
        "1 and 3 finishing threads give the same bytes (%zu samples)", one ? one->samples.len : 0);
    check_direct_write(t, ps, 3, &o, "3 x 20000 samples, 3 threads");
    /* Writing gives back the tables of absorbing (rebuilt by the next add): adding after a
     * write merges as if no write had happened. */
    for (unsigned th = 1; th <= 3; th += 2) {
        o.threads = th;
        pprof_merger *m = NULL;
        pprof_error e;
        pprof_buffer early = {0}, late = {0};
        pprof_write_options raw = PPROF_WRITE_OPTIONS_INIT;
        raw.format = PPROF_FORMAT_RAW;
        bool ok = pprof_merger_new(&o, &m, &e) == PPROF_OK &&
                  pprof_merger_add(m, ps[0], NULL, &e) == PPROF_OK &&
                  pprof_merger_add(m, ps[1], NULL, &e) == PPROF_OK &&
                  pprof_merger_write_memory(m, &raw, &early, NULL, &e) == PPROF_OK &&
                  pprof_merger_add(m, ps[1], NULL, &e) == PPROF_OK &&
                  pprof_merger_add(m, ps[2], NULL, &e) == PPROF_OK &&
                  pprof_merger_write_memory(m, &raw, &late, NULL, &e) == PPROF_OK;
        pprof_merger_free(m);
        pprof_profile *again[4] = {ps[0], ps[1], ps[1], ps[2]};
        pprof_profile *want = merge_n(again, NULL, 4, &o, &st1, NULL);
        pprof_buffer w = bytes(want);
        tap_ok(t, ok && early.len && w.len == late.len && !memcmp(w.data, late.data, w.len),
               "%u thread(s): adding after a write merges as if nothing had been written", th);
        pprof_buffer_free(&w);
        pprof_buffer_free(&early);
        pprof_buffer_free(&late);
        pprof_profile_free(want);
    }
    o.threads = 1;
    o.inline_conflict = PPROF_INLINE_LONGEST;
    check_direct_write(t, ps, 3, &o, "3 x 20000 samples, 1 thread, policy longest");
    pprof_profile_free(one);
    pprof_profile_free(three);
    for (size_t k = 0; k < 3; k++)
        pprof_profile_free(ps[k]);
}

/* Stacks come out in canonical order (finish sorts them by packed runs of frames, not by
 * comparing them): the merged samples' location id lists increase strictly, a stack before any
 * longer one it begins. With few locations and with many (fewer frames to a packed key), shared
 * prefixes longer than a key, and stacks that are prefixes of others. */
static void
test_stack_order(tap *t)
{
    static const uint64_t nlocs[] = {50, 70000};
    for (size_t c = 0; c < 2; c++) {
        uint64_t nl = nlocs[c], x = 0x2545F4914F6CDD1Du + c;
        pprof_profile *p = mk("samples", "count");
        for (uint64_t lid = 1; lid <= nl; lid++)
            location(p, lid, 0, 0x1000 + 16 * lid, 0, NULL);
        uint64_t prev[48] = {0}, stk[48];
        size_t prev_n = 0;
        for (size_t i = 0; i < 20000; i++) {
            size_t depth = 1 + rnd(&x) % 48, keep = 0;
            if (prev_n && rnd(&x) % 2) /* the previous stack cut short or gone on */
                keep = depth < prev_n ? depth : prev_n;
            memcpy(stk, prev, keep * sizeof(uint64_t));
            for (size_t d = keep; d < depth; d++) /* two choices a frame: long shared prefixes */
                stk[d] = 1 + (d * 977 + rnd(&x) % 2 + (c ? rnd(&x) % 3 * 30011 : 0)) % nl;
            sample(p, depth, stk, 1 + (int64_t)(rnd(&x) % 5), 0, NULL);
            memcpy(prev, stk, depth * sizeof(uint64_t));
            prev_n = depth;
        }
        pprof_merge_options o = PPROF_MERGE_OPTIONS_INIT;
        pprof_status st;
        pprof_profile *out = merge_n(&p, NULL, 1, &o, &st, NULL);
        size_t bad = 0, n = out ? out->samples.len : 0;
        for (size_t i = 1; i < n; i++) {
            pprof_sample a = pprof_profile_sample(out, i - 1), b = pprof_profile_sample(out, i);
            size_t k = 0;
            while (k < a.n_location_id && k < b.n_location_id &&
                   a.location_id[k] == b.location_id[k])
                k++;
            bool less = k < a.n_location_id && k < b.n_location_id
                            ? a.location_id[k] < b.location_id[k]
                            : a.n_location_id < b.n_location_id;
            bad += !less;
        }
        tap_ok(t, st == PPROF_OK && n > 5000 && bad == 0,
               "%llu locations: %zu merged stacks in canonical order (%zu out of order)",
               (unsigned long long)nl, n, bad);
        /* two threads share out the first keys and the runs they leave */
        o.threads = 2;
        pprof_profile *two = merge_n(&p, NULL, 1, &o, &st, NULL);
        tap_ok(t, st == PPROF_OK && out && two && same_bytes(out, two),
               "%llu locations: 1 and 2 sorting threads give the same bytes",
               (unsigned long long)nl);
        pprof_profile_free(two);
        pprof_profile_free(out);
        pprof_profile_free(p);
    }
}

/* Writing straight out encodes the location ids from a table of ready varints: ids of one, two
 * and three bytes (about 25000 of 40000 locations are used) give the bytes finish + write does. */
static void
test_direct_write_ids(tap *t)
{
    uint64_t x = 0x9E3779B97F4A7C15u;
    pprof_profile *p = mk("samples", "count");
    for (uint64_t lid = 1; lid <= 40000; lid++)
        location(p, lid, 0, 0x1000 + 16 * lid, 0, NULL);
    for (size_t i = 0; i < 10000; i++) {
        uint64_t stk[4];
        for (size_t d = 0; d < 4; d++)
            stk[d] = 1 + rnd(&x) % 40000;
        sample(p, 4, stk, 1 + (int64_t)(rnd(&x) % 5), 0, NULL);
    }
    pprof_merge_options o = PPROF_MERGE_OPTIONS_INIT;
    check_direct_write(t, &p, 1, &o, "40000 locations");
    pprof_profile_free(p);
}

/* ---------------------------------------------------------------- many labels on one sample */

/* One sample with n labels: keys "k<i>" in ascending or descending order, each with its own
 * value string. The strings point into keys (9 bytes per key, owned by the caller). */
static pprof_profile *
many_labels(size_t n, bool descending, char *keys)
{
    pprof_profile *p = mk("samples", "count");
    function(p, 1, "f");
    int64_t ln[] = {1, 1, 0};
    location(p, 1, 0, 0, 1, ln);
    size_t base = p->strings.len;
    for (size_t i = 0; i < n; i++) {
        snprintf(keys + 9 * i, 9, "k%07zu", i);
        pprof_string *d = pprof__vec_push(NULL, &p->strings, sizeof(*d));
        d->data = keys + 9 * i;
        d->len = 8;
    }
    int64_t v = S(p, "v");
    uint64_t stk[] = {1};
    pprof_label *labs = malloc(n * sizeof(*labs));
    for (size_t i = 0; i < n; i++) {
        size_t k = descending ? n - 1 - i : i;
        labs[i] = (pprof_label){(int64_t)(base + k), (k % 3) ? v : 0, (int64_t)k, 0};
    }
    sample(p, 1, stk, 1, n, labs);
    free(labs);
    return p;
}

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Best of three merges of p; the merged profile of the last one in *out. */
static double
time_merge(pprof_profile *p, pprof_profile **out)
{
    double best = 1e9;
    for (int r = 0; r < 3; r++) {
        pprof_status st;
        pprof_profile_free(*out);
        double t0 = now();
        *out = merge_n(&p, NULL, 1, NULL, &st, NULL);
        double dt = now() - t0;
        best = dt < best ? dt : best;
    }
    return best;
}

/* Labels come out string labels first, then numeric, each group by key, whatever order they
 * came in. Ordering n labels must cost O(n log n): a million labels in descending key order
 * (insertion sort's worst case, which took minutes) are timed against the same labels already
 * in order (linear for any sort), best of three each. The allowance (8x) is far above
 * log2(10^6) = 20 comparisons' share of a whole merge and far below a quadratic sort's 10^5. */
static void
test_options_init(tap *t)
{
    pprof_merge_options mo;
    pprof_write_options wo;
    memset(&mo, 0xab, sizeof(mo));
    memset(&wo, 0xab, sizeof(wo));
    pprof_merge_options_init(&mo);
    pprof_write_options_init(&wo);
    tap_ok(t,
           mo.struct_size == sizeof(mo) && !mo.intersect_types &&
               mo.inline_conflict == PPROF_INLINE_KEEP && !mo.warn && mo.threads == 0 &&
               wo.struct_size == sizeof(wo) && wo.format == PPROF_FORMAT_GZIP && wo.level == 0 &&
               wo.threads == 0,
           "pprof_merge_options_init and pprof_write_options_init give the _INIT defaults");
}

static void
test_many_labels(tap *t)
{
    const size_t n = 1000000;
    char *keys = malloc(9 * n);
    pprof_profile *asc = many_labels(n, false, keys), *desc = many_labels(n, true, keys);
    pprof_profile *m_asc = NULL, *m_desc = NULL;
    double t_asc = time_merge(asc, &m_asc), t_desc = time_merge(desc, &m_desc);
    bool ordered = m_desc && m_desc->samples.len == 1;
    if (ordered) {
        pprof_sample s = pprof_profile_sample(m_desc, 0);
        ordered = s.n_label == n;
        pprof_string prev = {"", 0};
        bool prev_num = false;
        for (size_t i = 0; ordered && i < s.n_label; i++) {
            pprof_string k;
            bool num = s.label[i].str == 0;
            ordered =
                pprof_profile_string(m_desc, s.label[i].key, &k) &&
                (num != prev_num ? num && !prev_num : i == 0 || memcmp(prev.data, k.data, 8) < 0);
            prev = k;
            prev_num = num;
        }
    }
    tap_ok(t, ordered && same_bytes(m_asc, m_desc),
           "a million labels on one sample come out in canonical order, whatever their input "
           "order");
    tap_ok(t, t_desc < 8 * t_asc + 0.05,
           "a million labels in descending order merge in %.3f s, in order %.3f s (under 8x)",
           t_desc, t_asc);
    pprof_profile_free(m_asc);
    pprof_profile_free(m_desc);
    pprof_profile_free(asc);
    pprof_profile_free(desc);
    free(keys);
}

/* ---------------------------------------------------------------- merging files */

typedef struct file_log {
    size_t n, order_ok, last_index;
    pprof_status last_status;
    pprof_merge_file_stage last_stage;
    uint64_t bytes;
} file_log;

static void
log_file(void *ctx, const pprof_merge_file_event *ev)
{
    file_log *l = ctx;
    l->order_ok += ev->index == l->n;
    l->n++;
    l->last_index = ev->index;
    l->last_status = ev->status;
    l->last_stage = ev->stage;
    l->bytes += ev->bytes == UINT64_MAX ? 0 : ev->bytes;
}

/* pprof_merger_add_files: six raw files of different sizes on 1 and 3 decoding threads give the
 * bytes of the same profiles added one by one; a file that cannot be read stops it there. */
static void
test_add_files(tap *t)
{
    char paths[7][64];
    const char *list[7];
    pprof_profile *ps[6] = {0};
    uint64_t total = 0;
    bool ok = true;
    for (int i = 0; i < 6; i++) {
        pb raw = input_bytes(1000 + 3000 * (size_t)i, SIZE_MAX);
        snprintf(paths[i], sizeof(paths[i]), "/tmp/test_merge_files%d_%d.pb", (int)getpid(), i);
        list[i] = paths[i];
        FILE *f = fopen(paths[i], "wb");
        ok = ok && f && fwrite(raw.d, 1, raw.n, f) == raw.n;
        if (f)
            fclose(f);
        total += raw.n;
        ok = ok && pprof_profile_read_memory(raw.d, raw.n, NULL, &ps[i], NULL) == PPROF_OK;
        pb_free(&raw);
    }
    pprof_status st;
    pprof_profile *want = ok ? merge_n(ps, list, 6, NULL, &st, NULL) : NULL;
    for (unsigned threads = 1; threads <= 3; threads += 2) {
        pprof_merger *m = NULL;
        pprof_profile *got = NULL;
        file_log log = {0};
        pprof_merge_files_options fo;
        pprof_merge_files_options_init(&fo);
        fo.threads = threads;
        fo.on_file = log_file;
        fo.ctx = &log;
        pprof_merge_files_summary sum = {.struct_size = sizeof(sum)};
        pprof_error e;
        bool good = want && pprof_merger_new(NULL, &m, NULL) == PPROF_OK &&
                    pprof_merger_add_files(m, list, 6, &fo, &sum, &e) == PPROF_OK &&
                    pprof_merger_finish(m, &got, &e) == PPROF_OK && same_bytes(got, want);
        tap_ok(t,
               good && log.n == 6 && log.order_ok == 6 && log.bytes == total && sum.files == 6 &&
                   pprof_merger_count(m) == 6,
               "add_files, %u decoding thread(s): six files in order, the bytes of adding them "
               "one by one",
               threads);
        pprof_profile_free(got);
        pprof_merger_free(m);
    }
    snprintf(paths[6], sizeof(paths[6]), "/tmp/test_merge_files%d_missing.pb", (int)getpid());
    const char *bad[4] = {list[0], list[1], paths[6], list[2]};
    pprof_merger *m = NULL;
    file_log log = {0};
    pprof_merge_files_options fo;
    pprof_merge_files_options_init(&fo);
    fo.threads = 2;
    fo.on_file = log_file;
    fo.ctx = &log;
    pprof_merge_files_summary sum = {.struct_size = sizeof(sum)};
    pprof_error e;
    pprof_merger_new(NULL, &m, NULL);
    st = m ? pprof_merger_add_files(m, bad, 4, &fo, &sum, &e) : PPROF_E_NOMEM;
    tap_ok(t,
           st == PPROF_E_IO && strstr(e.message, "_missing.pb") && log.n == 3 &&
               log.last_index == 2 && log.last_status == PPROF_E_IO &&
               log.last_stage == PPROF_MERGE_FILE_READ && sum.files == 2,
           "add_files stops at a missing file, naming it: %s", e.message);
    pprof_merger_free(m);
    pprof_profile_free(want);
    for (int i = 0; i < 6; i++) {
        pprof_profile_free(ps[i]);
        unlink(paths[i]);
    }
}

int
main(void)
{
    tap t = {0};
    test_threads(&t);
    test_intersect_threads(&t);
    test_stack_order(&t);
    test_direct_write_ids(&t);
    test_inputs(&t);
    test_corpus(&t);
    test_inline(&t);
    test_address0(&t);
    test_longest_cancelled(&t);
    test_labels(&t);
    test_many_labels(&t);
    test_options_init(&t);
    test_add_files(&t);
    test_invalid(&t);
    test_known_content(&t);
    test_hints(&t);
    return tap_done(&t);
}
