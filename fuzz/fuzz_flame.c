/* What pprof-flame does: decode (or read folded stacks), build the stack tree with options
 * chosen from the input, the differential tree against the profile itself, and write the four
 * outputs. Oracles: the root is the profile's total for every type and every node's value is its
 * self plus its children's (or the build fails with a coded error and a message); the JSON and
 * the page's data block parse (fuzz/json-check.h), the data block holds no '<' and the page has
 * exactly one; the SVG is well-formed XML (fuzz/xml-check.h); a failing allocation gives
 * PPROF_E_NOMEM and leaks nothing; the same tree written twice gives the same bytes; the tree
 * taking the profile (pprof-flame's path) equals the tree built from it. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "flame.h"
#include "folded.h"
#include "fuzz.h"
#include "json-check.h"
#include "xml-check.h"

static const char *const TYPES[] = {NULL, "0", "1", "samples", "cpu", "no-such-type"};
static const char *const PALETTES[] = {"hot", "lang", "mem", "orange"};

/* Per name, against the tree's own per-name sums: flat = self summed over the name's nodes, cum
 * = value summed over those without an ancestor of the same name (found here by walking the
 * parents, where the tree keeps a count per name of the open path). Names, types and the default
 * type are in range and NUL-terminated where they say. */
static void
check_names(const pprof_flame_tree *t)
{
    size_t nt = pprof_flame_types(t), n = pprof_flame_count(t), nn = pprof_flame_names(t);
    FUZZ_CHECK(nt == 0 || pprof_flame_default_type(t) < nt, "default type %zu of %zu",
               pprof_flame_default_type(t), nt);
    for (size_t ty = 0; ty < nt; ty++) {
        pprof_flame_type y = pprof_flame_type_at(t, ty);
        FUZZ_CHECK(y.type && y.unit, "type %zu has no name or unit", ty);
    }
    for (size_t k = 0; k < nn; k++) {
        pprof_flame_name m = pprof_flame_name_at(t, k);
        FUZZ_CHECK(m.name && m.file && m.name[m.name_len] == 0 && m.file[m.file_len] == 0 &&
                       m.kind != PPROF_FLAME_KIND_INLINE,
                   "name %zu is not terminated or is inline", k);
    }
    if (n > 20000 || !nt || !nn)
        return; /* the parent walk below is quadratic in depth */
    bool base = pprof_flame_has_base(t);
    uint64_t *flat = calloc(nn * nt, sizeof(uint64_t)), *cum = calloc(nn * nt, sizeof(uint64_t));
    FUZZ_CHECK(flat && cum, "out of memory");
    for (int b = 0; b <= (int)base; b++) {
        memset(flat, 0, nn * nt * sizeof(uint64_t));
        memset(cum, 0, nn * nt * sizeof(uint64_t));
        for (size_t i = 1; i < n; i++) {
            pprof_flame_node nd = pprof_flame_node_at(t, i);
            FUZZ_CHECK(nd.name_id < nn, "node %zu: name %zu of %zu", i, nd.name_id, nn);
            bool outer = true;
            for (size_t u = nd.parent; u != PPROF_FLAME_NONE && u != 0 && outer;
                 u = pprof_flame_node_at(t, u).parent)
                outer = pprof_flame_node_at(t, u).name_id != nd.name_id;
            for (size_t ty = 0; ty < nt; ty++) {
                flat[nd.name_id * nt + ty] += (uint64_t)pprof_flame_self(t, i, ty, b);
                if (outer)
                    cum[nd.name_id * nt + ty] += (uint64_t)pprof_flame_value(t, i, ty, b);
            }
        }
        for (size_t k = 0; k < nn; k++)
            for (size_t ty = 0; ty < nt; ty++) {
                FUZZ_CHECK(flat[k * nt + ty] == (uint64_t)pprof_flame_flat(t, k, ty, b),
                           "name %zu type %zu: flat %lld, summed %llu", k, ty,
                           (long long)pprof_flame_flat(t, k, ty, b),
                           (unsigned long long)flat[k * nt + ty]);
                FUZZ_CHECK(cum[k * nt + ty] == (uint64_t)pprof_flame_cum(t, k, ty, b),
                           "name %zu type %zu: cum %lld, summed %llu", k, ty,
                           (long long)pprof_flame_cum(t, k, ty, b),
                           (unsigned long long)cum[k * nt + ty]);
            }
    }
    free(flat);
    free(cum);
    /* out of range reads are zero, not a crash */
    FUZZ_CHECK(pprof_flame_flat(t, nn, 0, false) == 0 && pprof_flame_cum(t, 0, nt, false) == 0 &&
                   pprof_flame_value(t, n, 0, false) == 0 && !pprof_flame_name_at(t, nn).name_len,
               "an out-of-range read gave a value");
}

static void
check_tree(const pprof_profile *p, const pprof_flame_tree *t)
{
    size_t nt = pprof_flame_types(t), n = pprof_flame_count(t);
    bool base = pprof_flame_has_base(t);
    for (size_t ty = 0; ty < nt; ty++) {
        int64_t sum = 0;
        bool ovf = false;
        for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE); i++) {
            pprof_sample s = pprof_profile_sample(p, i);
            ovf |= __builtin_add_overflow(sum, s.value[ty], &sum);
        }
        FUZZ_CHECK(ovf || sum == pprof_flame_value(t, 0, ty, false),
                   "type %zu: root %lld, total %lld", ty,
                   (long long)pprof_flame_value(t, 0, ty, false), (long long)sum);
    }
    for (size_t i = 0; i < n; i++) {
        pprof_flame_node nd = pprof_flame_node_at(t, i);
        FUZZ_CHECK(nd.end > i && nd.end <= n && (i == 0) == (nd.parent == PPROF_FLAME_NONE),
                   "node %zu: end %zu parent %zu", i, nd.end, nd.parent);
        for (int b = 0; b <= (int)base; b++)
            for (size_t ty = 0; ty < nt; ty++) {
                uint64_t sum = (uint64_t)pprof_flame_self(t, i, ty, b);
                for (size_t c = i + 1; c < nd.end; c = pprof_flame_node_at(t, c).end)
                    sum += (uint64_t)pprof_flame_value(t, c, ty, b);
                /* modulo 2^64, as the tree sums without overflow or fails */
                FUZZ_CHECK(base && b ? true : sum == (uint64_t)pprof_flame_value(t, i, ty, b),
                           "node %zu type %zu: self + children != value", i, ty);
            }
    }
    check_names(t);
}

static void
check_output(const pprof_flame_tree *t, pprof_flame_write_options o, size_t depth)
{
    pprof_buffer out = {0}, again = {0};
    pprof_error err;
    pprof_status st = pprof_flame_write_memory(t, &o, &out, &err);
    FUZZ_CHECK(st == PPROF_OK, "format %d: %s", (int)o.format, err.message);
    FUZZ_CHECK(pprof_flame_write_memory(t, &o, &again, &err) == PPROF_OK && again.len == out.len &&
                   !memcmp(again.data, out.data, out.len),
               "format %d: the same tree written twice differs", (int)o.format);
    size_t bad = 0;
    const uint8_t *d = out.data;
    switch (o.format) {
    case PPROF_FLAME_JSON:
        if (depth < 1000)
            FUZZ_CHECK(json_check_depth(d, out.len, 2 * (int)depth + 4, &bad),
                       "d3 JSON invalid at byte %zu of %zu", bad, out.len);
        break;
    case PPROF_FLAME_DATA:
        FUZZ_CHECK(json_check_depth(d, out.len, 8, &bad), "data invalid at byte %zu of %zu", bad,
                   out.len);
        break;
    case PPROF_FLAME_SVG:
        FUZZ_CHECK(xml_check(d, out.len, &bad), "SVG not well-formed at byte %zu of %zu: %.60s",
                   bad, out.len, (const char *)d + (bad < out.len ? bad : 0));
        break;
    case PPROF_FLAME_HTML: {
        static const char open[] = "<script type=\"application/json\" id=\"pprof-flame-data\">";
        const uint8_t *a = memmem(d, out.len, open, sizeof(open) - 1);
        FUZZ_CHECK(a, "no data block");
        a += sizeof(open) - 1;
        const uint8_t *b = memmem(a, out.len - (size_t)(a - d), "<", 1);
        FUZZ_CHECK(b && (size_t)(out.len - (size_t)(b - d)) >= 9 && !memcmp(b, "</script>", 9),
                   "the data block ends other than with </script>");
        FUZZ_CHECK(json_check_depth(a, (size_t)(b - a), 8, &bad), "page data invalid at %zu", bad);
        FUZZ_CHECK(!memmem(b + 9, out.len - (size_t)(b + 9 - d), open, sizeof(open) - 1),
                   "two data blocks");
        break;
    }
    }
    pprof_buffer_free(&out);
    pprof_buffer_free(&again);
}

/* The page with its Graph view (Graphviz: small profiles only, 64 locations at most), the
 * format names, a write to a file equal to the one in memory, refused options, and a write with
 * one allocation failing. */
static void
writer_extras(const pprof_profile *p, const pprof_flame_tree *t, pprof_flame_write_options o,
              uint64_t h)
{
    static const char *const names[] = {"html", "svg", "json", "data"};
    pprof_flame_format ff;
    for (int i = 0; i < 4; i++)
        FUZZ_CHECK(pprof_flame_format_parse(names[i], &ff) && ff == (pprof_flame_format)i,
                   "format '%s' does not parse", names[i]);
    FUZZ_CHECK(!pprof_flame_format_parse("HTML", &ff) && !pprof_flame_format_parse(NULL, &ff),
               "a wrong format name parses");
    pprof_buffer out = {0};
    pprof_error err;
    if (pprof_profile_count(p, PPROF_TABLE_LOCATION) <= 64) {
        o.format = PPROF_FLAME_HTML;
        o.graph = p;
        o.graph_sample_type = (h >> 40) & 1 ? "no-such-type" : NULL;
        FUZZ_CHECK(pprof_flame_write_memory(t, &o, &out, &err) == PPROF_OK, "page with a graph: %s",
                   err.message);
        FUZZ_CHECK(memmem(out.data, out.len, "pprof-flame-data", 16), "no data block");
        pprof_buffer_free(&out);
        o.graph = NULL;
    }
    o.format = (pprof_flame_format)((h >> 41) % 4);
    const char *base = getenv("TMPDIR");
    char dir[4096], path[4200];
    snprintf(dir, sizeof(dir), "%s/pprof-fuzz-flame-XXXXXX", base && *base ? base : "/tmp");
    FUZZ_CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    snprintf(path, sizeof(path), "%s/out", dir);
    FUZZ_CHECK(pprof_flame_write_memory(t, &o, &out, &err) == PPROF_OK, "write: %s", err.message);
    FUZZ_CHECK(pprof_flame_write_file(t, &o, NULL, path, &err) == PPROF_OK, "write file: %s",
               err.message);
    size_t n;
    FUZZ_CHECK(fuzz_file_holds(path, out.data, out.len, &n),
               "the file (%zu bytes) differs from memory (%zu)", n, out.len);
    unlink(path);
    FUZZ_CHECK(rmdir(dir) == 0, "files left behind in %s", dir);
    pprof_buffer_free(&out);
    pprof_flame_write_options bad = o;
    bad.colors = "no-such-palette";
    FUZZ_CHECK(pprof_flame_write_memory(t, &bad, &out, &err) == PPROF_E_ARG && err.message[0],
               "an unknown palette is not refused");
    pprof_buffer_free(&out);
    bad = o;
    bad.format = (pprof_flame_format)9;
    FUZZ_CHECK(pprof_flame_write_memory(t, &bad, &out, &err) == PPROF_E_ARG,
               "format 9 is not refused");
    pprof_buffer_free(&out);
    /* the n-th allocation of the write failing (n from h) */
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    o.allocator = fuzz_failing_allocator(&fa);
    if (pprof_flame_write_memory(t, &o, &out, &err) == PPROF_OK && fa.calls) {
        uint64_t calls = fa.calls, points = fuzz_fail_points(1);
        for (uint64_t k = 0; k < points && k < calls; k++) {
            pprof_buffer_free(&out);
            uint64_t at = fuzz_fail_point(calls, k, points, h >> 43) % calls;
            fa = (fuzz_failing_alloc){0, at, 0};
            pprof_status st = pprof_flame_write_memory(t, &o, &out, &err);
            FUZZ_CHECK(st == PPROF_OK || (st == PPROF_E_NOMEM && fa.failed),
                       "write allocation %llu failing gives %s", (unsigned long long)at,
                       pprof_status_name(st));
        }
    }
    pprof_buffer_free(&out);
}

/* The tree again with its n-th allocation failing. */
static void
tree_nomem(const pprof_profile *p, pprof_flame_options fo, uint64_t h)
{
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    fo.allocator = fuzz_failing_allocator(&fa);
    pprof_flame_tree *t = NULL;
    pprof_error err;
    if (pprof_flame_tree_new(p, NULL, &fo, &t, &err) != PPROF_OK || !fa.calls) {
        pprof_flame_tree_free(t);
        return;
    }
    pprof_flame_tree_free(t);
    uint64_t calls = fa.calls, points = fuzz_fail_points(1);
    for (uint64_t k = 0; k < points && k < calls; k++) {
        uint64_t at = fuzz_fail_point(calls, k, points, h) % calls;
        fa = (fuzz_failing_alloc){0, at, 0};
        t = NULL;
        pprof_status st = pprof_flame_tree_new(p, NULL, &fo, &t, &err);
        FUZZ_CHECK(st == PPROF_OK || (st == PPROF_E_NOMEM && fa.failed && !t),
                   "allocation %llu failing gives %s", (unsigned long long)at,
                   pprof_status_name(st));
        pprof_flame_tree_free(t);
    }
}

static void
flame(const pprof_profile *p, uint64_t h)
{
    pprof_flame_options fo = PPROF_FLAME_OPTIONS_INIT;
    fo.sample_type = TYPES[(h >> 3) % (sizeof(TYPES) / sizeof(TYPES[0]))];
    fo.lines = h & 1;
    fo.reverse = h & 2;
    fo.normalize = h & 64;
    pprof_flame_tree *t = NULL;
    pprof_error err;
    const pprof_profile *base = h & 128 ? p : NULL;
    pprof_status st = pprof_flame_tree_new(p, base, &fo, &t, &err);
    if (st != PPROF_OK) {
        FUZZ_CHECK(err.message[0] && !t, "a tree error without a message");
        return;
    }
    check_tree(p, t);
    size_t depth = 0;
    for (size_t i = 0; i < pprof_flame_count(t); i++)
        if (pprof_flame_node_at(t, i).depth > depth)
            depth = pprof_flame_node_at(t, i).depth;
    pprof_flame_write_options o = PPROF_FLAME_WRITE_OPTIONS_INIT;
    o.colors = PALETTES[(h >> 8) % 4];
    o.hash = h & 4;
    o.inverted = h & 8;
    o.title = h & 16 ? "<t>&\"" : NULL;
    o.source = "in</script>";
    o.minwidth = (double)((h >> 12) % 4);
    o.minwidth_percent = h & 32;
    o.max_nodes = 1 + (h >> 16) % 64;
    /* a small cap sums the samples' times per slice (the page's coarse Time view) */
    o.max_time_samples = (h >> 22) & 1 ? 1 + (h >> 23) % 8 : 0;
    for (int f = 0; f < 4; f++) {
        o.format = (pprof_flame_format)f;
        check_output(t, o, depth);
    }
    writer_extras(p, t, o, h);
    pprof_flame_tree_free(t);
    tree_nomem(p, fo, h >> 20);
}

static pprof_profile *
read_input(const uint8_t *data, size_t size)
{
    pprof_read_options o = fuzz_read_options();
    pprof_error err;
    pprof_profile *p = NULL;
    if (pprof_profile_read_memory(data, size, &o, &p, &err) != PPROF_OK) {
        pprof_folded_read_options fo = PPROF_FOLDED_READ_OPTIONS_INIT;
        fo.max_stacks = 1u << 14;
        fo.max_frames = 1u << 14;
        if (pprof_folded_read_memory(data, size, &fo, &p, &err) != PPROF_OK)
            return NULL;
    }
    return p;
}

/* The reader pprof-flame uses (slim when valid, as read when not): pprof_validate says of it
 * what it says of p; a folded input is read as folded. */
static pprof_profile *
read_to_draw(const uint8_t *data, size_t size, const pprof_profile *p)
{
    pprof_buffer b = {malloc(size ? size : 1), size, size ? size : 1};
    FUZZ_CHECK(b.data, "out of memory");
    if (size)
        memcpy(b.data, data, size);
    pprof_read_options o = fuzz_read_options();
    pprof_profile *q = NULL;
    pprof_error err, e1, e2;
    if (pprof_flame_profile_read_buffer(&b, &o, &q, &err) != PPROF_OK) {
        FUZZ_CHECK(!q && !b.data && err.message[0], "a failed read without a message");
        return read_input(data, size);
    }
    FUZZ_CHECK(!b.data, "the input buffer was not taken");
    pprof_status s1 = pprof_validate(p, NULL, NULL, 0, NULL, &e1);
    pprof_status s2 = pprof_validate(q, NULL, NULL, 0, NULL, &e2);
    FUZZ_CHECK(s1 == s2 && (s1 == PPROF_OK || !strcmp(e1.message, e2.message)),
               "validate: '%s' on the profile read to draw, '%s' on the profile", e2.message,
               e1.message);
    FUZZ_CHECK(pprof_profile_count(q, PPROF_TABLE_SAMPLE) ==
                       pprof_profile_count(p, PPROF_TABLE_SAMPLE) &&
                   pprof_profile_count(q, PPROF_TABLE_LOCATION) ==
                       pprof_profile_count(p, PPROF_TABLE_LOCATION),
               "the profile read to draw has other tables");
    return q;
}

/* pprof-flame's path: the tree taking fresh copies of the profile (checked, slimmed, freed as
 * summed) and drawing the Graph view alongside gives the tree, the page and the view that the
 * tree built from the const profile and the view drawn alone give, or the same error. */
static void
take(const uint8_t *data, size_t size, const pprof_profile *p, uint64_t h)
{
    pprof_flame_options fo = PPROF_FLAME_OPTIONS_INIT;
    fo.sample_type = TYPES[(h >> 3) % (sizeof(TYPES) / sizeof(TYPES[0]))];
    fo.lines = h & 1;
    fo.reverse = h & 2;
    bool with_base = h & 128;
    pprof_flame_tree *want = NULL, *got = NULL;
    pprof_error err, err2;
    pprof_status want_st = pprof_flame_tree_new(p, with_base ? p : NULL, &fo, &want, &err);
    pprof_profile *in = (h >> 44) & 1 ? read_to_draw(data, size, p) : read_input(data, size);
    pprof_profile *base = with_base ? read_input(data, size) : NULL;
    FUZZ_CHECK(in && (!with_base || base), "the input read once but not twice");
    pprof_flame_write_options vo = PPROF_FLAME_WRITE_OPTIONS_INIT;
    vo.graph_sample_type = (h >> 40) & 1 ? "no-such-type" : NULL;
    bool view = !with_base && pprof_profile_count(p, PPROF_TABLE_LOCATION) <= 64;
    pprof_buffer got_view = {0}, want_view = {0};
    pprof_status st = pprof_flame_tree_new_take(&in, with_base ? &base : NULL, &fo, &vo,
                                                view ? &got_view : NULL, &got, &err2);
    FUZZ_CHECK(!in && !base, "a taken profile was not freed");
    FUZZ_CHECK(st == want_st, "take gives %s, the tree alone %s (%s)", pprof_status_name(st),
               pprof_status_name(want_st), st ? err2.message : err.message);
    if (st == PPROF_OK) {
        pprof_flame_write_options o = PPROF_FLAME_WRITE_OPTIONS_INIT;
        o.format = PPROF_FLAME_DATA;
        pprof_buffer a = {0}, b = {0};
        FUZZ_CHECK(pprof_flame_write_memory(want, &o, &a, &err) == PPROF_OK &&
                       pprof_flame_write_memory(got, &o, &b, &err) == PPROF_OK,
                   "data: %s", err.message);
        FUZZ_CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len),
                   "the taken tree's data (%zu bytes) differs from the tree's (%zu)", b.len, a.len);
        pprof_buffer_free(&a);
        pprof_buffer_free(&b);
        if (view) {
            vo.graph = p;
            FUZZ_CHECK(pprof_flame_graph_view_memory(&vo, &want_view, &err) == PPROF_OK, "view: %s",
                       err.message);
            FUZZ_CHECK(want_view.len == got_view.len &&
                           !memcmp(want_view.data, got_view.data, got_view.len),
                       "the view drawn alongside (%zu bytes) differs from the view alone (%zu)",
                       got_view.len, want_view.len);
        }
    } else {
        FUZZ_CHECK(!got && !strcmp(err.message, err2.message), "take says '%s', the tree '%s'",
                   err2.message, err.message);
    }
    pprof_buffer_free(&got_view);
    pprof_buffer_free(&want_view);
    pprof_flame_tree_free(want);
    pprof_flame_tree_free(got);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pprof_profile *p = read_input(data, size);
    if (!p)
        return 0;
    uint64_t h = fuzz_hash(data, size);
    flame(p, h);
    take(data, size, p, h);
    pprof_profile_free(p);
    return 0;
}
