/* Nodes of a report: every location line becomes the node Go's graph.CreateNodes would make of
 * it after driver.aggregate at the granularity, and each sample adds its value to the cum of
 * the nodes on its stack (once each) and to the flat of its leaf. Nodes are interned by
 * sorting the line keys rather than hashing them, so node ids follow key order. */
#include <stdlib.h>

#include "report-private.h"

static const char base_key[] = "pprof::base";

/* Go's filepath.Clean, lexically, into the arena. s is non-empty. */
static pprof_string
clean_path(pprof__arena *arena, pprof_string s, bool *nomem)
{
    bool clean = s.len > 0;
    for (size_t i = 0; i < s.len && clean; i++) {
        const char *c = s.data + i;
        size_t left = s.len - i;
        bool at_start = i == 0 || c[-1] == '/';
        if (c[0] == '/' && left > 1 && c[1] == '/')
            clean = false;
        if (at_start && c[0] == '.' && (left == 1 || c[1] == '/'))
            clean = false;
        if (at_start && left >= 2 && c[0] == '.' && c[1] == '.' && (left == 2 || c[2] == '/'))
            clean = false;
    }
    if (s.len > 1 && s.data[s.len - 1] == '/')
        clean = false;
    if (clean)
        return s;
    char *out = pprof__arena_alloc(arena, s.len + 2);
    if (!out) {
        *nomem = true;
        return s;
    }
    bool rooted = s.data[0] == '/';
    size_t w = rooted ? 1 : 0, dotdot = w; /* dotdot: where ".." can no longer backtrack */
    if (rooted)
        out[0] = '/';
    size_t r = 0;
    while (r < s.len) {
        if (s.data[r] == '/') {
            r++;
        } else if (s.data[r] == '.' && (r + 1 == s.len || s.data[r + 1] == '/')) {
            r++;
        } else if (s.data[r] == '.' && r + 1 < s.len && s.data[r + 1] == '.' &&
                   (r + 2 == s.len || s.data[r + 2] == '/')) {
            r += 2;
            if (w > dotdot) {
                w--;
                while (w > dotdot && out[w] != '/')
                    w--;
            } else if (!rooted) {
                if (w > 0)
                    out[w++] = '/';
                out[w++] = '.';
                out[w++] = '.';
                dotdot = w;
            }
        } else {
            if ((rooted && w != 1) || (!rooted && w != 0))
                out[w++] = '/';
            while (r < s.len && s.data[r] != '/')
                out[w++] = s.data[r++];
        }
    }
    if (w == 0)
        out[w++] = '.';
    return (pprof_string){out, w};
}

/* The last element of a '/'-path (filepath.Base), as a view. */
static pprof_string
path_base(const char *d, size_t n)
{
    while (n > 1 && d[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && d[b - 1] != '/')
        b--;
    if (n == 1 && d[0] == '/')
        b = 0;
    if (n == 0)
        return (pprof_string){".", 1};
    return (pprof_string){d + b, n - b};
}

/* report.trimPath: with no trim path, the search path's heuristic (the path after the first
 * "/BASE/" of a search directory); then the trim prefixes and Go's two /proc/self/cwd ones. */
static pprof_string
trim_path(pprof_string s, const char *trim, const char *search)
{
    if ((!trim || !*trim) && search) {
        for (const char *d = search; *d;) {
            size_t n = strcspn(d, ":");
            pprof_string b = path_base(d, n);
            for (size_t i = 0; b.len && i + b.len + 2 <= s.len; i++)
                if (s.data[i] == '/' && !memcmp(s.data + i + 1, b.data, b.len) &&
                    s.data[i + 1 + b.len] == '/')
                    return (pprof_string){s.data + i + b.len + 2, s.len - i - b.len - 2};
            d += n + (d[n] == ':');
        }
    }
    for (const char *t = trim ? trim : ""; *t;) {
        size_t n = strcspn(t, ":");
        size_t need = n + (n == 0 || t[n - 1] != '/');
        if (s.len >= need && !memcmp(s.data, t, n) && (need == n || s.data[n] == '/'))
            return (pprof_string){s.data + need, s.len - need};
        t += n + (t[n] == ':');
    }
    static const char *const prefixes[] = {"/proc/self/cwd/./", "/proc/self/cwd/"};
    for (size_t i = 0; i < 2; i++) {
        size_t n = strlen(prefixes[i]);
        if (s.len >= n && memcmp(s.data, prefixes[i], n) == 0)
            return (pprof_string){s.data + n, s.len - n};
    }
    return s;
}

static int
info_cmp(const pprof__node_info *a, const pprof__node_info *b)
{
    if (a->address != b->address)
        return a->address < b->address ? -1 : 1;
    if (a->lineno != b->lineno)
        return a->lineno < b->lineno ? -1 : 1;
    if (a->start_line != b->start_line)
        return a->start_line < b->start_line ? -1 : 1;
    int c = pprof__str_cmp(a->name, b->name);
    if (!c)
        c = pprof__str_cmp(a->file, b->file);
    if (!c)
        c = pprof__str_cmp(a->objfile, b->objfile);
    return c;
}

static int
rec_cmp(const void *x, const void *y)
{
    return info_cmp(*(const pprof__node_info *const *)x, *(const pprof__node_info *const *)y);
}

static pprof_string
str_at(const pprof_profile *p, int64_t i)
{
    pprof_string s = {"", 0};
    if (!pprof_profile_string(p, i, &s))
        s = (pprof_string){"", 0};
    return s;
}

/* The key of one line of a location (line NULL: a location without lines). */
static void
line_info(const pprof_profile *p, const pprof__location *l, const pprof_line *line,
          pprof_granularity g, bool obj_names, const pprof_string *fn_file, pprof__node_info *ni)
{
    bool keep_fn = g != PPROF_GRANULARITY_FILES;
    bool keep_line = g == PPROF_GRANULARITY_LINES || g == PPROF_GRANULARITY_ADDRESSES;
    memset(ni, 0, sizeof(*ni));
    ni->name = ni->file = ni->objfile = (pprof_string){"", 0};
    size_t mi;
    if (l->mapping_id && pprof_profile_find_mapping(p, l->mapping_id, &mi))
        ni->objfile = str_at(p, PPROF__AT(p->mappings, pprof_mapping, mi).filename);
    ni->address = g == PPROF_GRANULARITY_ADDRESSES ? l->address : 0;
    size_t fi;
    if (!line || !line->function_id || !pprof_profile_find_function(p, line->function_id, &fi))
        return; /* Go: {Address, Objfile} */
    const pprof_function *f = &PPROF__AT(p->functions, pprof_function, fi);
    ni->lineno = keep_line ? line->line : 0;
    if (keep_fn)
        ni->name = str_at(p, f->name);
    if (fn_file)
        ni->file = fn_file[fi];
    if (ni->name.len == 0 || obj_names) {
        ni->start_line = f->start_line;
    } else {
        ni->objfile = (pprof_string){"", 0};
    }
}

/* Every line's key, interned. */
static pprof_status
intern_lines(const pprof_profile *p, const pprof__nodes_cfg *cfg, pprof__nodes *n, pprof_error *err)
{
    size_t nl = p->locations.len, nf = p->functions.len;
    pprof_granularity g = cfg->granularity;
    pprof_string *fn_file = NULL;
    pprof__node_info *recs = NULL;
    pprof__node_info **order = NULL;
    pprof_status st = PPROF_E_NOMEM;
    bool nomem = false;
    if (g != PPROF_GRANULARITY_FUNCTIONS) {
        fn_file = pprof__malloc(&n->a, (nf ? nf : 1) * sizeof(*fn_file));
        if (!fn_file)
            goto out;
        for (size_t i = 0; i < nf; i++) {
            pprof_string s =
                trim_path(str_at(p, PPROF__AT(p->functions, pprof_function, i).filename),
                          cfg->trim_path, cfg->source_path);
            fn_file[i] = s.len ? clean_path(&n->arena, s, &nomem) : s;
        }
        if (nomem)
            goto out;
    }
    n->loc_off = pprof__malloc(&n->a, (nl + 1) * sizeof(uint32_t));
    if (!n->loc_off)
        goto out;
    size_t total = 0;
    for (size_t i = 0; i < nl; i++) {
        n->loc_off[i] = (uint32_t)total;
        uint32_t k = PPROF__AT(p->locations, pprof__location, i).n_line;
        total += k ? k : 1;
        if (total > UINT32_MAX - 1) {
            st = pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "location",
                              "more than 2^32 location lines");
            goto out;
        }
    }
    n->loc_off[nl] = (uint32_t)total;
    recs = pprof__malloc(&n->a, (total ? total : 1) * sizeof(*recs));
    order = pprof__malloc(&n->a, (total ? total : 1) * sizeof(*order));
    n->loc_node = pprof__malloc(&n->a, (total ? total : 1) * sizeof(uint32_t));
    if (!recs || !order || !n->loc_node)
        goto out;
    for (size_t i = 0; i < nl; i++) {
        const pprof__location *l = &PPROF__AT(p->locations, pprof__location, i);
        pprof__node_info *r = recs + n->loc_off[i];
        if (!l->n_line)
            line_info(p, l, NULL, g, cfg->obj_names, fn_file, r);
        for (uint32_t j = 0; j < l->n_line; j++)
            line_info(p, l, &PPROF__AT(p->lines, pprof_line, l->line_off + j), g, cfg->obj_names,
                      fn_file, r + j);
    }
    for (size_t i = 0; i < total; i++)
        order[i] = recs + i;
    qsort(order, total, sizeof(*order), rec_cmp);
    size_t nn = 0;
    for (size_t i = 0; i < total; i++)
        nn += i == 0 || info_cmp(order[i - 1], order[i]) != 0;
    n->info = pprof__malloc(&n->a, (nn ? nn : 1) * sizeof(*n->info));
    if (!n->info)
        goto out;
    nn = 0;
    for (size_t i = 0; i < total; i++) {
        if (i == 0 || info_cmp(order[i - 1], order[i]) != 0)
            n->info[nn++] = *order[i];
        n->loc_node[order[i] - recs] = (uint32_t)(nn - 1);
    }
    n->n = nn;
    st = PPROF_OK;
out:
    if (st == PPROF_E_NOMEM)
        pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory building report nodes");
    pprof__free(&n->a, fn_file);
    pprof__free(&n->a, recs);
    pprof__free(&n->a, order);
    return st;
}

bool
pprof__is_base_sample(const pprof_profile *p, const pprof__sample *s)
{
    const pprof_label *lab = (const pprof_label *)p->labels.data + s->lab_off;
    for (uint32_t k = 0; k < s->n_lab; k++) {
        pprof_string key = str_at(p, lab[k].key), v = str_at(p, lab[k].str);
        if (key.len == sizeof(base_key) - 1 && !memcmp(key.data, base_key, key.len) && v.len == 4 &&
            !memcmp(v.data, "true", 4))
            return true;
    }
    return false;
}

/* Adds every sample's value to its nodes. */
static pprof_status
sum_samples(const pprof_profile *p, pprof__nodes *n, pprof_error *err)
{
    size_t ns = p->samples.len, max_depth = 0;
    for (size_t i = 0; i < ns; i++) {
        uint32_t d = PPROF__AT(p->samples, pprof__sample, i).n_loc;
        max_depth = d > max_depth ? d : max_depth;
    }
    uint32_t *idx = pprof__malloc(&n->a, (max_depth + 1) * sizeof(uint32_t));
    if (!idx)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    pprof_status st = PPROF_OK;
    int64_t total = 0, base_total = 0;
    bool ovf = false;
    for (size_t i = 0; i < ns && st == PPROF_OK; i++) {
        const pprof__sample *s = &PPROF__AT(p->samples, pprof__sample, i);
        if (n->sample_index >= s->n_val) {
            char path[128];
            pprof__path(path, "sample[%zu].value", i);
            st = pprof__error(err, PPROF_E_INVALID, PPROF_NO_OFFSET, path,
                              "%u values, sample type %zu asked for", s->n_val, n->sample_index);
            break;
        }
        int64_t v = PPROF__AT(p->values, int64_t, s->val_off + n->sample_index);
        /* -mean: Go's divisor is the first value, and a sample adds to the divisors even when
         * its value is 0 */
        int64_t d = pprof__mean_divisor(p, s, n->flat_div != NULL);
        if (v == 0 && d == 0)
            continue;
        int64_t av = v < 0 ? -(uint64_t)v > INT64_MAX ? INT64_MAX : -v : v;
        ovf |= __builtin_add_overflow(total, av, &total);
        if (s->n_lab && pprof__is_base_sample(p, s))
            ovf |= __builtin_add_overflow(base_total, av, &base_total);
        if ((st = pprof__sample_locs(p, i, idx, err)))
            break;
        uint32_t stamp = (uint32_t)(i + 1), leaf = PPROF_NONE;
        for (uint32_t j = s->n_loc; j-- > 0;) {
            size_t k;
            const uint32_t *nodes = pprof__nodes_of(n, idx[j], &k);
            while (k-- > 0) {
                uint32_t id = nodes[k];
                if (n->stamp[id] != stamp) {
                    n->stamp[id] = stamp;
                    ovf |= __builtin_add_overflow(n->cum[id], v, &n->cum[id]);
                    if (n->cum_div)
                        n->cum_div[id] = pprof__add64(n->cum_div[id], d);
                }
                leaf = id;
            }
        }
        if (leaf != PPROF_NONE) {
            ovf |= __builtin_add_overflow(n->flat[leaf], v, &n->flat[leaf]);
            ovf |= __builtin_add_overflow(n->flat_sum, v, &n->flat_sum);
            if (n->flat_div)
                n->flat_div[leaf] = pprof__add64(n->flat_div[leaf], d);
        }
    }
    pprof__free(&n->a, idx);
    if (st == PPROF_OK && ovf)
        st = pprof__error(err, PPROF_E_OVERFLOW, PPROF_NO_OFFSET, "sample",
                          "a flat, cum or total value leaves int64");
    n->total = pprof__report_total(p, n->sample_index, n->flat_div != NULL);
    return st;
}

/* Only the interning, with Go's options (cfg). */
static pprof_status
intern_cfg(const pprof_profile *p, const pprof__nodes_cfg *cfg_in, const pprof_allocator *a,
           pprof__nodes *n, pprof_error *err)
{
    memset(n, 0, sizeof(*n));
    pprof__nodes_cfg cfg = *cfg_in;
    if (cfg.granularity == PPROF_GRANULARITY_NONE)
        cfg.granularity = PPROF_GRANULARITY_FUNCTIONS;
    if (a)
        n->a = *a;
    pprof__arena_init(&n->arena, &n->a);
    if (p->samples.len > UINT32_MAX - 1)
        return pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "sample",
                            "more than 2^32 samples");
    pprof_status st = pprof__profile_index(p, err);
    if (st == PPROF_OK)
        st = intern_lines(p, &cfg, n, err);
    return st;
}

pprof_status
pprof__nodes_intern(const pprof_profile *p, pprof_granularity g, const pprof_allocator *a,
                    pprof__nodes *n, pprof_error *err)
{
    pprof__nodes_cfg cfg = {g, false, NULL, NULL, false};
    return intern_cfg(p, &cfg, a, n, err);
}

pprof_status
pprof__nodes_build(const pprof_profile *p, size_t index, pprof_granularity g,
                   const pprof_allocator *a, pprof__nodes *n, pprof_error *err)
{
    pprof__nodes_cfg cfg = {g, false, NULL, NULL, false};
    return pprof__nodes_build_cfg(p, index, &cfg, a, n, err);
}

pprof_status
pprof__nodes_build_cfg(const pprof_profile *p, size_t index, const pprof__nodes_cfg *cfg,
                       const pprof_allocator *a, pprof__nodes *n, pprof_error *err)
{
    pprof_status st = intern_cfg(p, cfg, a, n, err);
    n->sample_index = index;
    if (st)
        return st;
    size_t nn = n->n ? n->n : 1;
    n->flat = pprof__malloc(&n->a, nn * sizeof(int64_t));
    n->cum = pprof__malloc(&n->a, nn * sizeof(int64_t));
    n->stamp = pprof__malloc(&n->a, nn * sizeof(uint32_t));
    if (!n->flat || !n->cum || !n->stamp)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    memset(n->flat, 0, nn * sizeof(int64_t));
    memset(n->cum, 0, nn * sizeof(int64_t));
    memset(n->stamp, 0, nn * sizeof(uint32_t));
    if (cfg->mean) {
        n->flat_div = pprof__malloc(&n->a, nn * sizeof(int64_t));
        n->cum_div = pprof__malloc(&n->a, nn * sizeof(int64_t));
        if (!n->flat_div || !n->cum_div)
            return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
        memset(n->flat_div, 0, nn * sizeof(int64_t));
        memset(n->cum_div, 0, nn * sizeof(int64_t));
    }
    return sum_samples(p, n, err);
}

void
pprof__nodes_free(pprof__nodes *n)
{
    pprof__free(&n->a, n->info);
    pprof__free(&n->a, n->flat);
    pprof__free(&n->a, n->cum);
    pprof__free(&n->a, n->flat_div);
    pprof__free(&n->a, n->cum_div);
    pprof__free(&n->a, n->stamp);
    pprof__free(&n->a, n->loc_off);
    pprof__free(&n->a, n->loc_node);
    pprof__arena_destroy(&n->arena);
    memset(n, 0, sizeof(*n));
}

static const char *
base_name(pprof_string s, size_t *len)
{
    /* filepath.Base: trailing slashes dropped, then what follows the last slash */
    size_t n = s.len;
    while (n > 1 && s.data[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && s.data[b - 1] != '/')
        b--;
    if (n == 1 && s.data[0] == '/')
        b = 0;
    *len = n - b;
    return s.data + b;
}

pprof_status
pprof__node_name(const pprof__node_info *i, pprof_buffer *buf)
{
    pprof_status st = PPROF_OK;
    bool sep = false;
#define SEP() (sep ? pprof__buffer_append(buf, " ", 1) : PPROF_OK)
    if (i->address) {
        st = pprof__buffer_printf(buf, "%016" PRIx64, i->address);
        sep = true;
    }
    if (!st && i->name.len) {
        st = SEP();
        if (!st)
            st = pprof__buffer_append(buf, i->name.data, i->name.len);
        sep = true;
    }
    if (st)
        return st;
    if (i->lineno != 0) {
        if (!(st = SEP()) && !(st = pprof__buffer_append(buf, i->file.data, i->file.len)))
            st = pprof__buffer_printf(buf, ":%" PRId64, i->lineno);
    } else if (i->file.len) {
        if (!(st = SEP()))
            st = pprof__buffer_append(buf, i->file.data, i->file.len);
    } else if (i->name.len) {
    } else if (i->objfile.len) {
        size_t bl;
        const char *b = base_name(i->objfile, &bl);
        if (!(st = SEP()))
            st = pprof__buffer_printf(buf, "[%.*s]", (int)bl, b);
    } else {
        if (!(st = SEP()))
            st = pprof__buffer_append(buf, "<unknown>", 9);
    }
#undef SEP
    if (!st)
        st = pprof__buffer_append(buf, "", 1);
    return st;
}

pprof_string
pprof__trim_source_path(pprof_string s, const char *trim, const char *search)
{
    return trim_path(s, trim, search);
}

pprof_string
pprof__clean_path(pprof__arena *arena, pprof_string s, bool *nomem)
{
    return clean_path(arena, s, nomem);
}
