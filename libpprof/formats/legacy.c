/* The legacy formats Go's pprof reads (pprof/legacy.h): detection, the families tried in Go's
 * order, and the model turned into one profile, merged as `go tool pprof` merges its input. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "legacy-private.h"

/* ---------------------------------------------------------------- text helpers */

void
lg_scan_init(lg_scan *s, const char *base, const char *p, const char *end)
{
    s->p = p;
    s->end = end;
    s->line = "";
    s->len = 0;
    s->off = (uint64_t)(p - base);
    s->base = base;
}

bool
lg_scan_next(lg_scan *s)
{
    if (s->p >= s->end) {
        s->line = "";
        s->len = 0;
        s->off = (uint64_t)(s->end - s->base);
        return false;
    }
    const char *nl = memchr(s->p, '\n', (size_t)(s->end - s->p));
    const char *e = nl ? nl : s->end;
    s->line = s->p;
    s->off = (uint64_t)(s->p - s->base);
    s->len = (size_t)(e - s->p);
    if (s->len && s->line[s->len - 1] == '\r')
        s->len--;
    s->p = nl ? nl + 1 : s->end;
    return true;
}

static bool
is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

void
lg_trim(const char **p, size_t *n)
{
    while (*n && is_space(**p))
        (*p)++, (*n)--;
    while (*n && is_space((*p)[*n - 1]))
        (*n)--;
}

bool
lg_space_or_comment(const char *p, size_t n)
{
    lg_trim(&p, &n);
    return !n || p[0] == '#';
}

bool
lg_has_prefix(const char *p, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && !memcmp(p, prefix, k);
}

bool
lg_contains(const char *p, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(p + i, needle, k))
            return true;
    return false;
}

bool
lg_map_sentinel(const char *p, size_t n)
{
    return lg_contains(p, n, "--- Memory map: ---") || lg_contains(p, n, "MAPPED_LIBRARIES:");
}

static int
digit_val(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z')
        return c - 'A' + 10;
    return 99;
}

/* Go's underscoreOK: underscores only between digits or after a base prefix. */
static bool
underscores_ok(const char *p, size_t n)
{
    char saw = '^';
    size_t i = 0;
    if (n && (p[0] == '-' || p[0] == '+'))
        i++;
    bool hex = false;
    if (n - i >= 2 && p[i] == '0') {
        char c = (char)(p[i + 1] | 0x20);
        if (c == 'b' || c == 'o' || c == 'x') {
            hex = c == 'x';
            i += 2;
            saw = '0';
        }
    }
    for (; i < n; i++) {
        char c = p[i];
        if ((c >= '0' && c <= '9') || (hex && ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'))) {
            saw = '0';
            continue;
        }
        if (c == '_') {
            if (saw != '0')
                return false;
            saw = '_';
            continue;
        }
        if (saw == '_')
            return false;
        saw = '!';
    }
    return saw != '_';
}

bool
lg_parse_uint(const char *p, size_t n, int base, uint64_t *out)
{
    if (!n)
        return false;
    const char *s0 = p;
    size_t n0 = n;
    bool base0 = base == 0;
    if (base0) {
        base = 10;
        if (p[0] == '0') {
            if (n >= 3 && (p[1] | 0x20) == 'b')
                base = 2, p += 2, n -= 2;
            else if (n >= 3 && (p[1] | 0x20) == 'o')
                base = 8, p += 2, n -= 2;
            else if (n >= 3 && (p[1] | 0x20) == 'x')
                base = 16, p += 2, n -= 2;
            else
                base = 8, p++, n--;
        }
    }
    uint64_t v = 0;
    bool underscores = false;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '_' && base0) {
            underscores = true;
            continue;
        }
        int d = digit_val(p[i]);
        if (d >= base)
            return false;
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            return false;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    if (underscores && !underscores_ok(s0, n0))
        return false;
    *out = v;
    return true;
}

bool
lg_parse_int(const char *p, size_t n, int base, int64_t *out)
{
    if (!n)
        return false;
    bool neg = false;
    if (p[0] == '+' || p[0] == '-') {
        neg = p[0] == '-';
        p++, n--;
    }
    uint64_t u;
    if (!lg_parse_uint(p, n, base, &u))
        return false;
    if (neg ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? (int64_t)(0 - u) : (int64_t)u;
    return true;
}

/* ---------------------------------------------------------------- the model */

pprof_status
lg_nomem(lg *g)
{
    return pprof__error(g->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
}

int
lg_invalid(lg *g, uint64_t off, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    pprof__error(g->err, PPROF_E_INVALID, off, "", "%s", msg);
    return LG_ERROR;
}

/* The text always has a byte more than it holds: its data is never NULL once a string is in. */
bool
lg_text(lg *g, const char *p, size_t n, lg_str *out)
{
    if (g->text.len + n >= UINT32_MAX ||
        !pprof__vec_grow(&g->o.allocator, &g->text, 1, g->text.len + n + 1))
        return false;
    out->off = (uint32_t)g->text.len;
    out->len = (uint32_t)n;
    if (n)
        memcpy((char *)g->text.data + g->text.len, p, n);
    g->text.len += n;
    return true;
}

int
lg_loc_for(lg *g, uint64_t addr, uint32_t *idx)
{
    uint32_t i = pprof__u64map_get(&g->by_addr, addr);
    if (i == PPROF_NONE) {
        if (g->locs.len >= g->o.max_stack_entries)
            return pprof__error(g->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                                "more than %llu locations (max_stack_entries)",
                                (unsigned long long)g->o.max_stack_entries),
                   LG_ERROR;
        lg_loc *l = pprof__vec_push(&g->o.allocator, &g->locs, sizeof(*l));
        uint32_t old;
        bool added;
        if (!l)
            return lg_nomem(g), LG_ERROR;
        l->addr = addr;
        l->fn = PPROF_NONE;
        l->line = 0;
        l->map = LG_NOMAP;
        i = (uint32_t)(g->locs.len - 1);
        if (!pprof__u64map_put(&g->by_addr, &g->o.allocator, addr, i, &old, &added))
            return lg_nomem(g), LG_ERROR;
    }
    *idx = i;
    return LG_OK;
}

lg_sample *
lg_sample_begin(lg *g)
{
    if (g->samples.len >= g->o.max_samples) {
        pprof__error(g->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                     "more than %llu samples (max_samples)", (unsigned long long)g->o.max_samples);
        return NULL;
    }
    lg_sample *s = pprof__vec_push(&g->o.allocator, &g->samples, sizeof(*s));
    if (!s) {
        lg_nomem(g);
        return NULL;
    }
    memset(s, 0, sizeof(*s));
    s->first = g->stack.len;
    return s;
}

int
lg_push_frame(lg *g, uint64_t addr)
{
    if (g->stack.len >= g->o.max_stack_entries)
        return pprof__error(g->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                            "more than %llu frames (max_stack_entries)",
                            (unsigned long long)g->o.max_stack_entries),
               LG_ERROR;
    uint32_t idx;
    if (lg_loc_for(g, addr, &idx))
        return LG_ERROR;
    uint32_t *slot = pprof__vec_push(&g->o.allocator, &g->stack, sizeof(*slot));
    if (!slot)
        return lg_nomem(g), LG_ERROR;
    *slot = idx;
    return LG_OK;
}

int
lg_sample_end(lg *g, uint64_t off)
{
    (void)off;
    lg_sample *s = &PPROF__AT(g->samples, lg_sample, g->samples.len - 1);
    s->n = (uint32_t)(g->stack.len - s->first);
    return LG_OK;
}

int
lg_hex_frames(lg *g, const char *p, size_t n, size_t *nframes, size_t adjust_from, uint64_t off)
{
    for (size_t i = 0; i + 2 < n + 1 && i + 1 < n; i++) {
        if (p[i] != '0' || p[i + 1] != 'x' || i + 2 >= n)
            continue;
        size_t j = i + 2;
        while (j < n && ((p[j] >= '0' && p[j] <= '9') || (p[j] >= 'a' && p[j] <= 'f')))
            j++;
        if (j == i + 2)
            continue;
        uint64_t addr;
        if (!lg_parse_uint(p + i + 2, j - i - 2, 16, &addr))
            return lg_invalid(g, off + i, "address %.*s does not fit 64 bits", (int)(j - i), p + i);
        if (*nframes >= adjust_from)
            addr--;
        if (lg_push_frame(g, addr))
            return LG_ERROR;
        (*nframes)++;
        i = j - 1;
    }
    return LG_OK;
}

void
lg_set_types(lg *g, const char *const (*types)[2], size_t n, const char *ptype, const char *punit,
             int64_t period)
{
    for (size_t i = 0; i < n; i++) {
        g->types[i][0] = types[i][0];
        g->types[i][1] = types[i][1];
    }
    g->ntypes = n;
    g->ptype[0] = ptype;
    g->ptype[1] = punit;
    g->period = period;
}

void
lg_drop_frame(lg *g, lg_sample *s, uint32_t i)
{
    uint32_t *st = &PPROF__AT(g->stack, uint32_t, s->first);
    memmove(st + i, st + i + 1, (s->n - i - 1) * sizeof(*st));
    s->n--;
}

void
lg_cleanup_duplicate_leaf(lg *g)
{
    for (size_t i = 0; i < g->samples.len; i++) {
        lg_sample *s = &PPROF__AT(g->samples, lg_sample, i);
        if (s->n <= 1) /* the stack table may be empty (NULL) then */
            continue;
        const uint32_t *st = &PPROF__AT(g->stack, uint32_t, s->first);
        if (PPROF__AT(g->locs, lg_loc, st[0]).addr == PPROF__AT(g->locs, lg_loc, st[1]).addr + 1)
            lg_drop_frame(g, s, 1);
    }
}

int
lg_scale_heap(lg *g, int64_t *count, int64_t *size, int64_t rate, uint64_t off)
{
    if (*count == 0 || *size == 0) {
        *count = *size = 0;
        return LG_OK;
    }
    if (rate <= 1)
        return LG_OK;
    double avg = (double)*size / (double)*count;
    double scale = 1 / (1 - exp(-avg / (double)rate));
    double c = (double)*count * scale, sz = (double)*size * scale;
    /* Go's conversion of an out-of-range float is unspecified; such a sample is refused */
    if (!(c > -9.2e18 && c < 9.2e18 && sz > -9.2e18 && sz < 9.2e18))
        return lg_invalid(g, off,
                          "the sampling correction of %lld bytes in %lld objects "
                          "overflows",
                          (long long)*size, (long long)*count);
    *count = (int64_t)c;
    *size = (int64_t)sz;
    return LG_OK;
}

/* ---------------------------------------------------------------- to a profile */

typedef struct emit {
    lg *g;
    pprof_builder *b;
    pprof__vec bmaps; /* pprof_builder_map per mapping, +1 for the fake one */
    pprof__vec bmap_ok;
    pprof__vec blocs; /* pprof_builder_loc per location */
    pprof__vec bloc_ok;
} emit;

static pprof_status
intern_text(emit *e, lg_str s, pprof_builder_str *out)
{
    return pprof_builder_intern(e->b, (const char *)e->g->text.data + s.off, s.len, out, e->g->err);
}

static pprof_status
emit_map(emit *e, uint32_t mi, pprof_builder_map *out)
{
    lg *g = e->g;
    size_t slot = mi == LG_FAKEMAP ? g->maps.len : mi;
    bool *ok = &PPROF__AT(e->bmap_ok, bool, slot);
    pprof_builder_map *bm = &PPROF__AT(e->bmaps, pprof_builder_map, slot);
    if (!*ok) {
        pprof_builder_mapping_desc d;
        memset(&d, 0, sizeof(d));
        if (mi == LG_FAKEMAP) {
            d.memory_limit = UINT64_MAX;
        } else {
            const lg_map *m = &PPROF__AT(g->maps, lg_map, mi);
            d.memory_start = m->start;
            d.memory_limit = m->limit;
            d.file_offset = m->offset;
            pprof_status st = intern_text(e, m->file, &d.filename);
            if (!st)
                st = intern_text(e, m->build_id, &d.build_id);
            if (st)
                return st;
        }
        pprof_status st = pprof_builder_mapping(e->b, &d, bm, g->err);
        if (st)
            return st;
        *ok = true;
    }
    *out = *bm;
    return PPROF_OK;
}

static pprof_status
emit_loc(emit *e, uint32_t li, pprof_builder_loc *out)
{
    lg *g = e->g;
    bool *ok = &PPROF__AT(e->bloc_ok, bool, li);
    pprof_builder_loc *bl = &PPROF__AT(e->blocs, pprof_builder_loc, li);
    if (!*ok) {
        const lg_loc *l = &PPROF__AT(g->locs, lg_loc, li);
        pprof_builder_map bm = PPROF_BUILDER_NONE;
        pprof_status st = PPROF_OK;
        if (l->map != LG_NOMAP)
            st = emit_map(e, l->map, &bm);
        pprof_builder_line line = {PPROF_BUILDER_NONE, l->line, 0};
        if (!st && l->fn != PPROF_NONE) {
            const lg_fn *f = &PPROF__AT(g->fns, lg_fn, l->fn);
            pprof_builder_str name, file;
            if (!(st = intern_text(e, f->name, &name)) && !(st = intern_text(e, f->file, &file)))
                st = pprof_builder_function(e->b, name, name, file, 0, &line.function, g->err);
        }
        if (!st)
            st = pprof_builder_location(e->b, bm, l->addr, &line, l->fn != PPROF_NONE ? 1 : 0,
                                        false, bl, g->err);
        if (st)
            return st;
        *ok = true;
    }
    *out = *bl;
    return PPROF_OK;
}

static bool
vec_zero(const pprof_allocator *a, pprof__vec *v, size_t elem, size_t n)
{
    if (!pprof__vec_grow(a, v, elem, n ? n : 1))
        return false;
    memset(v->data, 0, elem * (n ? n : 1));
    v->len = n;
    return true;
}

static pprof_status
emit_profile(lg *g, pprof_buffer *out)
{
    pprof_builder_value_type types[4];
    for (size_t i = 0; i < g->ntypes; i++)
        types[i] = (pprof_builder_value_type){g->types[i][0], g->types[i][1]};
    char *count_type = NULL;
    if (g->has_count_type || g->java_unit) {
        if (!(count_type = pprof__malloc(&g->o.allocator, g->count_type.len + 1)))
            return lg_nomem(g);
        memcpy(count_type, (const char *)g->text.data + g->count_type.off, g->count_type.len);
        count_type[g->count_type.len] = '\0';
        if (g->java_unit) {
            types[0] =
                (pprof_builder_value_type){g->java_heap ? "inuse_objects" : "contentions", "count"};
            types[1] =
                (pprof_builder_value_type){g->java_heap ? "inuse_space" : "delay", count_type};
        } else {
            types[0] = (pprof_builder_value_type){count_type, "count"};
            g->ptype[0] = count_type;
            g->ptype[1] = "count";
        }
    }
    pprof_builder_options bo = PPROF_BUILDER_OPTIONS_INIT;
    bo.sample_types = types;
    bo.n_sample_types = g->ntypes;
    bo.period_type = (pprof_builder_value_type){g->ptype[0], g->ptype[1]};
    bo.period = g->period;
    bo.max_samples = g->samples.len + 1;
    bo.max_locations = g->locs.len + 1;
    bo.max_functions = g->fns.len + 1;
    bo.max_mappings = g->maps.len + 2;
    bo.max_open_depth = g->o.max_stack_entries;
    bo.max_strings = 2 * g->maps.len + 2 * g->fns.len + 16;
    bo.max_string_bytes = g->text.len + 256;
    bo.allocator = g->o.allocator;
    emit e = {g, NULL, {0}, {0}, {0}, {0}};
    const pprof_allocator *a = &g->o.allocator;
    pprof_status st = pprof_builder_new(&bo, &e.b, g->err);
    pprof__free(&g->o.allocator, count_type); /* the builder interned it */
    if (st)
        return st;
    if (!vec_zero(a, &e.bmaps, sizeof(pprof_builder_map), g->maps.len + 1) ||
        !vec_zero(a, &e.bmap_ok, sizeof(bool), g->maps.len + 1) ||
        !vec_zero(a, &e.blocs, sizeof(pprof_builder_loc), g->locs.len) ||
        !vec_zero(a, &e.bloc_ok, sizeof(bool), g->locs.len))
        st = lg_nomem(g);
    if (!st && g->duration)
        st = pprof_builder_set_time(e.b, 0, g->duration, g->err);
    pprof__vec stack = {0};
    for (size_t i = 0; i < g->samples.len && !st; i++) {
        const lg_sample *s = &PPROF__AT(g->samples, lg_sample, i);
        bool zero = true;
        for (size_t k = 0; k < g->ntypes; k++)
            zero = zero && s->v[k] == 0;
        if (zero) /* Go's merge drops them */
            continue;
        if (!pprof__vec_grow(a, &stack, sizeof(pprof_builder_loc), s->n ? s->n : 1)) {
            st = lg_nomem(g);
            break;
        }
        for (uint32_t k = 0; k < s->n && !st; k++)
            st = emit_loc(&e, PPROF__AT(g->stack, uint32_t, s->first + k),
                          &PPROF__AT(stack, pprof_builder_loc, k));
        pprof_builder_label lab;
        memset(&lab, 0, sizeof(lab));
        if (!st && s->has_bytes) {
            st = pprof_builder_intern_cstr(e.b, "bytes", &lab.key, g->err);
            lab.num = s->bytes;
        }
        if (!st)
            st = pprof_builder_add_sample(e.b, s->v, g->ntypes, stack.data, s->n, &lab,
                                          s->has_bytes ? 1 : 0, g->err);
    }
    pprof__free(a, stack.data);
    pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
    wo.format = PPROF_FORMAT_RAW;
    if (!st)
        st = pprof_builder_finish(e.b, 0, NULL, &wo, out, NULL, g->err);
    pprof_builder_free(e.b);
    pprof__free(a, e.bmaps.data);
    pprof__free(a, e.bmap_ok.data);
    pprof__free(a, e.blocs.data);
    pprof__free(a, e.bloc_ok.data);
    return st;
}

/* ---------------------------------------------------------------- entry points */

void
pprof_legacy_read_options_init(pprof_legacy_read_options *opts)
{
    if (opts) {
        const pprof_legacy_read_options d = PPROF_LEGACY_READ_OPTIONS_INIT;
        *opts = d;
    }
}

static bool
cpu_header(const uint8_t *b, size_t n)
{
    /* five words 0, 3, 0 or 1, a period > 0, 0, in one of the four encodings */
    for (size_t word = 4; word <= 8; word += 4)
        for (int big = 0; big < 2; big++) {
            if (n < 5 * word)
                continue;
            uint64_t w[5];
            for (int i = 0; i < 5; i++) {
                uint64_t v = 0;
                for (size_t k = 0; k < word; k++)
                    v |= (uint64_t)b[i * word + (big ? word - 1 - k : k)] << (8 * k);
                w[i] = v;
            }
            if (w[0] == 0 && w[1] == 3 && w[2] <= 1 && w[3] > 0 && w[4] == 0)
                return true;
        }
    return false;
}

static bool
first_text_line(const char *p, size_t n, bool skip_comments, const char **line, size_t *len)
{
    lg_scan s;
    lg_scan_init(&s, p, p, p + n);
    while (lg_scan_next(&s))
        if (!skip_comments || !lg_space_or_comment(s.line, s.len)) {
            *line = s.line;
            *len = s.len;
            return true;
        }
    return false;
}

/* A legacy header line is text: a control byte in it (protobuf bytes that happen to hold
 * " profile: total ") says the bytes are something else, which the pprof decoder gets. */
static bool
lg_text_line(const char *l, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)l[i];
        if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
            return false;
    }
    return true;
}

bool
pprof_legacy_detect(const void *data, size_t size)
{
    const uint8_t *b = data;
    if (!data || !size)
        return false;
    if (b[0] == 0 && cpu_header(b, size))
        return true;
    const char *p = data;
    size_t look = size < 4096 ? size : 4096;
    const char *l;
    size_t n;
    if (first_text_line(p, look, false, &l, &n) && lg_text_line(l, n)) {
        if (lg_contains(l, n, "heap profile:") || lg_has_prefix(l, n, "--- contention") ||
            lg_has_prefix(l, n, "--- mutex:"))
            return true;
        const char *t = l;
        size_t tn = n;
        lg_trim(&t, &tn);
        if ((tn == 15 && !memcmp(t, "--- heapz 1 ---", 15)))
            return true;
    }
    if (first_text_line(p, look, true, &l, &n) && lg_text_line(l, n))
        return lg_thread_header(l, n) ||
               (lg_contains(l, n, " profile: total ") && l[0] != ' ' && l[0] != '\t');
    return false;
}

static void
lg_free(lg *g)
{
    const pprof_allocator *a = &g->o.allocator;
    pprof__vec *v[] = {&g->samples, &g->stack, &g->locs, &g->fns, &g->maps, &g->text};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        pprof__free(a, v[i]->data);
    pprof__u64map_free(&g->by_addr, a);
}

static void
lg_reset(lg *g)
{
    lg_free(g);
    pprof_legacy_read_options o = g->o;
    pprof_error *err = g->err;
    const char *base = g->base;
    size_t size = g->size;
    memset(g, 0, sizeof(*g));
    g->o = o;
    g->err = err;
    g->base = base;
    g->size = size;
}

/* Go's merge takes the main binary's mapping (the first of the memory map after Go's
 * heuristics) first, then the others in order of use; the builder numbers them in order of
 * use only. Moves the main mapping to the front when it is used but not first; whether it
 * did. */
static bool
main_mapping_first(pprof_profile *p, const lg_map *m0)
{
    pprof_mapping *m = p->mappings.data;
    size_t n = p->mappings.len, k = 0;
    while (k < n && !(m[k].memory_start == m0->start && m[k].memory_limit == m0->limit &&
                      m[k].file_offset == m0->offset))
        k++;
    if (k == 0 || k == n)
        return false;
    pprof_mapping first = m[k];
    memmove(m + 1, m, k * sizeof(*m));
    m[0] = first;
    for (size_t i = 0; i < n; i++)
        m[i].id = i + 1;
    for (size_t i = 0; i < p->locations.len; i++) {
        pprof__location *l = &PPROF__AT(p->locations, pprof__location, i);
        if (l->mapping_id == k + 1)
            l->mapping_id = 1;
        else if (l->mapping_id && l->mapping_id <= k)
            l->mapping_id++;
    }
    return true;
}

static pprof_status
read_raw(const uint8_t *data, size_t size, const pprof_legacy_read_options *o, pprof_profile **out,
         pprof_error *err)
{
    lg g;
    memset(&g, 0, sizeof(g));
    g.o = *o;
    g.err = err;
    g.base = (const char *)data;
    g.size = size;
    int (*const text[])(lg *, const char *, size_t) = {
        lg_parse_heap, lg_parse_count, lg_parse_thread, lg_parse_contention, lg_parse_java};
    /* only what detection claims, so that every tool finds by content what this reads */
    int r = pprof_legacy_detect(data, size) ? lg_parse_cpu(&g, data, size) : LG_NOT_MINE;
    for (size_t i = 0;
         r == LG_NOT_MINE && pprof_legacy_detect(data, size) && i < sizeof(text) / sizeof(text[0]);
         i++) {
        lg_reset(&g);
        r = text[i](&g, (const char *)data, size);
    }
    pprof_status st = PPROF_OK;
    if (r == LG_NOT_MINE)
        st = pprof__error(err, PPROF_E_INVALID, 0, "",
                          "not a legacy profile Go reads (gperftools CPU, heap, growth, "
                          "contention, thread, Go count or Java) or malformed as one");
    else if (r == LG_ERROR)
        st = err ? err->code : PPROF_E_INVALID;
    else if (!g.ntypes)
        st = pprof__error(err, PPROF_E_INVALID, 0, "",
                          "the Java profile has no resolution attribute: no sample types");
    pprof_buffer buf = {0};
    if (!st)
        st = emit_profile(&g, &buf);
    bool has_main = g.maps.len > 0;
    lg_map main_map = has_main ? PPROF__AT(g.maps, lg_map, 0) : (lg_map){0};
    lg_free(&g);
    pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
    ro.allocator = o->allocator;
    if (!st)
        st = pprof_profile_read_memory(buf.data, buf.len, &ro, out, err);
    if (!st && has_main && main_mapping_first(*out, &main_map)) {
        /* written and read again so that no index of the profile holds the old ids */
        pprof_buffer again = {0};
        pprof_write_options wo = PPROF_WRITE_OPTIONS_INIT;
        wo.format = PPROF_FORMAT_RAW;
        st = pprof_profile_write_memory(*out, &wo, &again, err);
        pprof_profile_free(*out);
        *out = NULL;
        if (!st)
            st = pprof_profile_read_memory(again.data, again.len, &ro, out, err);
        pprof_buffer_free(&again);
    }
    pprof_buffer_free(&buf);
    if (st == PPROF_OK && !err)
        return st;
    return st;
}

static void
fill_options(pprof_legacy_read_options *o, const pprof_legacy_read_options *opts)
{
    pprof_legacy_read_options_init(o);
    if (opts)
        memcpy(o, opts, opts->struct_size < sizeof(*o) ? opts->struct_size : sizeof(*o));
    o->struct_size = sizeof(*o);
    if (!o->max_input_bytes)
        o->max_input_bytes = UINT64_C(256) << 20;
    if (!o->max_samples)
        o->max_samples = UINT64_C(1) << 24;
    if (!o->max_stack_entries)
        o->max_stack_entries = UINT64_C(1) << 26;
    if (!o->max_mappings)
        o->max_mappings = UINT64_C(1) << 16;
}

pprof_status
pprof_legacy_read_memory(const void *data, size_t size, const pprof_legacy_read_options *opts,
                         pprof_profile **out, pprof_error *err)
{
    if (!out || (!data && size))
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no input or no output");
    *out = NULL;
    pprof_legacy_read_options o;
    fill_options(&o, opts);
    if (!size)
        return pprof__error(err, PPROF_E_EMPTY, PPROF_NO_OFFSET, "", "empty input");
    pprof_format fmt = pprof_detect_format(data, size);
    if (fmt == PPROF_FORMAT_RAW) {
        if (size > o.max_input_bytes)
            return pprof__error(err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                                "%zu bytes, more than max_input_bytes", size);
        return read_raw(data, size, &o, out, err);
    }
    pprof_read_options ro = PPROF_READ_OPTIONS_INIT;
    ro.allocator = o.allocator;
    ro.max_decompressed_bytes = o.max_input_bytes;
    uint8_t *buf = NULL;
    size_t len = 0;
    pprof_status st = pprof__decompress(data, size, fmt, &ro, &buf, &len, err);
    if (!st)
        st = read_raw(buf, len, &o, out, err);
    pprof__free(&o.allocator, buf);
    return st;
}

pprof_status
pprof_legacy_read_file(const char *path, const pprof_legacy_read_options *opts, pprof_profile **out,
                       pprof_error *err)
{
    if (!path || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "no path or no output");
    *out = NULL;
    pprof_legacy_read_options o;
    fill_options(&o, opts);
    uint8_t *data;
    size_t len;
    pprof_status st = pprof__read_all(path, o.max_input_bytes, &o.allocator, &data, &len, err);
    if (st)
        return st;
    st = pprof_legacy_read_memory(data, len, &o, out, err);
    pprof__free(&o.allocator, data);
    return st;
}

/* ---------------------------------------------------------------- the reader of the table */

static pprof_legacy_read_options
from_read_options(const pprof_read_options *ro)
{
    pprof_legacy_read_options o;
    fill_options(&o, NULL);
    if (ro) {
        o.allocator = ro->allocator;
        if (ro->max_decompressed_bytes)
            o.max_input_bytes = ro->max_decompressed_bytes;
        if (ro->max_samples && ro->max_samples < o.max_samples)
            o.max_samples = ro->max_samples;
        if (ro->max_stack_entries && ro->max_stack_entries < o.max_stack_entries)
            o.max_stack_entries = ro->max_stack_entries;
        if (ro->max_mappings && ro->max_mappings < o.max_mappings)
            o.max_mappings = ro->max_mappings;
    }
    return o;
}

pprof_status
pprof__legacy_read_one(uint8_t *raw, size_t len, pprof_format container,
                       const pprof_read_options *ro, pprof_profile **out, pprof_error *err)
{
    pprof_legacy_read_options o = from_read_options(ro);
    *out = NULL;
    pprof_status st = read_raw(raw, len, &o, out, err);
    pprof__free(&ro->allocator, raw);
    if (!st)
        (*out)->source_format = container;
    return st;
}

bool
pprof__legacy_detect_raw(const uint8_t *raw, size_t len)
{
    return pprof_legacy_detect(raw, len);
}
