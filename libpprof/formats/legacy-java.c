/* The Java profiles: the CPU profile (the binary layout of gperftools' with a 1 in its third
 * header word, addresses not adjusted) and the heap and contention text profiles
 * ("--- heapz 1 ---", "--- contentionz 1 ---": attributes, samples "A B @ ADDRESSES", then
 * one line per address naming its method). Locations are named by those lines; as Go
 * aggregates them, no location keeps an address. */
#include <math.h>

#include "legacy-private.h"

static bool
word_char(char c)
{
    return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool
attr_char(char c)
{
    return word_char(c) || c == ' ';
}

/* Go's attributeRx "([\w ]+)=([\w ]+)" searched in the line. */
static bool
find_attribute(const char *p, size_t n, const char **k, size_t *kn, const char **v, size_t *vn)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '=' || i == 0 || i + 1 >= n || !attr_char(p[i - 1]) || !attr_char(p[i + 1]))
            continue;
        size_t s = i;
        while (s > 0 && attr_char(p[s - 1]))
            s--;
        size_t e = i + 1;
        while (e < n && attr_char(p[e]))
            e++;
        *k = p + s;
        *kn = i - s;
        *v = p + i + 1;
        *vn = e - i - 1;
        lg_trim(k, kn);
        lg_trim(v, vn);
        return true;
    }
    return false;
}

/* Go's javaSampleRx " *(\d+) +(\d+) +@ +([ x0-9a-f]*)" searched in the line. */
static bool
find_sample(const char *p, size_t n, size_t *a1, size_t *n1, size_t *a2, size_t *n2, size_t *as,
            size_t *ae)
{
    for (size_t i = 0; i < n; i++) {
        if (!(p[i] >= '0' && p[i] <= '9') || (i > 0 && p[i - 1] >= '0' && p[i - 1] <= '9'))
            continue;
        size_t e = i;
        while (e < n && p[e] >= '0' && p[e] <= '9')
            e++;
        size_t s = e;
        while (s < n && p[s] == ' ')
            s++;
        if (s == e)
            continue;
        size_t e2 = s;
        while (e2 < n && p[e2] >= '0' && p[e2] <= '9')
            e2++;
        if (e2 == s)
            continue;
        size_t t = e2;
        while (t < n && p[t] == ' ')
            t++;
        if (t == e2 || t >= n || p[t] != '@')
            continue;
        size_t u = t + 1;
        while (u < n && p[u] == ' ')
            u++;
        if (u == t + 1)
            continue;
        size_t z = u;
        while (z < n && (p[z] == ' ' || p[z] == 'x' || (p[z] >= '0' && p[z] <= '9') ||
                         (p[z] >= 'a' && p[z] <= 'f')))
            z++;
        *a1 = i, *n1 = e - i, *a2 = s, *n2 = e2 - s, *as = u, *ae = z;
        return true;
    }
    return false;
}

typedef struct jline {
    const char *p;
    size_t n;
    uint64_t off;
} jline;

/* The lines that end with '\n' (the header and sample parsers of Go see no last line without
 * one). */
static bool
next_nl_line(const char *b, size_t n, size_t *pos, jline *l)
{
    const char *nl = *pos < n ? memchr(b + *pos, '\n', n - *pos) : NULL;
    if (!nl)
        return false;
    l->p = b + *pos;
    l->n = (size_t)(nl - l->p);
    l->off = *pos;
    *pos = (size_t)(nl - b) + 1;
    lg_trim(&l->p, &l->n);
    return true;
}

static int
fn_for(lg *g, const char *name, size_t nn, const char *file, size_t fnl, uint32_t *out)
{
    /* functions are few beside the locations: a linear search over the ones made keeps this
     * simple; a hash on the name bounds it */
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < nn; i++)
        h = (h ^ (uint8_t)name[i]) * 1099511628211ull;
    (void)h;
    for (size_t i = 0; i < g->fns.len; i++) {
        const lg_fn *f = &PPROF__AT(g->fns, lg_fn, i);
        if (f->name.len == nn && !memcmp((const char *)g->text.data + f->name.off, name, nn)) {
            *out = (uint32_t)i;
            return LG_OK;
        }
    }
    lg_fn f;
    if (!lg_text(g, name, nn, &f.name) || !lg_text(g, file, fnl, &f.file))
        return lg_nomem(g), LG_ERROR;
    lg_fn *slot = pprof__vec_push(&g->o.allocator, &g->fns, sizeof(*slot));
    if (!slot)
        return lg_nomem(g), LG_ERROR;
    *slot = f;
    *out = (uint32_t)(g->fns.len - 1);
    return LG_OK;
}

static bool
is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* filepath.Base */
static void
base_name(const char **p, size_t *n)
{
    if (!*n) {
        *p = ".";
        *n = 1;
        return;
    }
    while (*n > 0 && (*p)[*n - 1] == '/')
        (*n)--;
    if (!*n) {
        *p = "/";
        *n = 1;
        return;
    }
    for (size_t i = *n; i > 0; i--)
        if ((*p)[i - 1] == '/') {
            *p += i;
            *n -= i;
            return;
        }
}

int
lg_java_locations(lg *g, const char *b, size_t n)
{
    size_t pos = 0;
    while (pos < n) {
        const char *nl = memchr(b + pos, '\n', n - pos);
        const char *l = b + pos;
        size_t ln = nl ? (size_t)(nl - l) : n - pos;
        uint64_t off = (uint64_t)(l - g->base);
        pos = nl ? (size_t)(nl - b) + 1 : n;
        lg_trim(&l, &ln);
        /* ^\s*0x([[:xdigit:]]+)\s+(.*)\s*$ */
        if (ln < 3 || l[0] != '0' || l[1] != 'x')
            continue;
        size_t h = 2;
        while (h < ln &&
               ((l[h] >= '0' && l[h] <= '9') || ((l[h] | 0x20) >= 'a' && (l[h] | 0x20) <= 'f')))
            h++;
        if (h == 2 || h >= ln || !is_ws(l[h]))
            continue;
        uint64_t addr;
        if (!lg_parse_uint(l + 2, h - 2, 16, &addr))
            return lg_invalid(g, off, "address 0x%.*s does not fit 64 bits", (int)(h - 2), l + 2);
        size_t r = h;
        while (r < ln && is_ws(l[r]))
            r++;
        const char *rest = l + r;
        size_t rn = ln - r;
        uint32_t li = pprof__u64map_get(&g->by_addr, addr);
        if (li == PPROF_NONE)
            continue;
        const char *fn = rest, *file = "";
        size_t fnn = rn, filen = 0;
        int64_t line = 0;
        bool done = false;
        if (rn && rest[rn - 1] == ')') {
            /* ^(.*)\s+\((.+):(-?\d+)\)$ : the last ':' and the last whitespace-'(' before it */
            size_t colon = rn - 1;
            while (colon > 0 && rest[colon - 1] != ':')
                colon--;
            if (colon > 0) {
                colon--;
                size_t d = colon + 1;
                if (d < rn - 1 && rest[d] == '-')
                    d++;
                size_t de = d;
                while (de < rn - 1 && rest[de] >= '0' && rest[de] <= '9')
                    de++;
                if (de > d && de == rn - 1) {
                    for (size_t j = colon; j-- > 1;)
                        if (rest[j] == '(' && is_ws(rest[j - 1]) && colon > j + 1) {
                            fn = rest;
                            fnn = j - 1;
                            file = rest + j + 1;
                            filen = colon - j - 1;
                            int64_t v;
                            if (lg_parse_int(rest + colon + 1, rn - 2 - colon, 10, &v) && v > 0)
                                line = v;
                            done = true;
                            break;
                        }
                }
            }
            if (!done)
                /* ^(.*)\s+\((.*)\)$ */
                for (size_t j = rn - 1; j-- > 1;)
                    if (rest[j] == '(' && is_ws(rest[j - 1])) {
                        fn = rest;
                        fnn = j - 1;
                        file = rest + j + 1;
                        filen = rn - 2 - j;
                        base_name(&file, &filen);
                        done = true;
                        break;
                    }
        }
        if (!done && lg_contains(rest, rn, "generated stub/JIT")) {
            fn = "STUB";
            fnn = 4;
        }
        uint32_t fi;
        if (fn_for(g, fn, fnn, file, filen, &fi))
            return LG_ERROR;
        lg_loc *loc = &PPROF__AT(g->locs, lg_loc, li);
        loc->fn = fi;
        loc->line = line;
        loc->addr = 0;
    }
    /* Go's remapMappingIDs with no memory map, then Aggregate without addresses: a location
     * left unnamed keeps the fake mapping but loses its address */
    for (size_t i = 0; i < g->locs.len; i++) {
        lg_loc *l = &PPROF__AT(g->locs, lg_loc, i);
        l->map = l->addr ? LG_FAKEMAP : LG_NOMAP;
        l->addr = 0;
    }
    return LG_OK;
}

int
lg_parse_java_cpu(lg *g, const uint8_t *b, size_t n, size_t word, bool big, int64_t period)
{
    static const char *const types[][2] = {{"samples", "count"}, {"cpu", "nanoseconds"}};
    lg_set_types(g, types, 2, "cpu", "nanoseconds", period * 1000);
    size_t end = 0;
    if (lg_cpu_samples(g, b, n, word, big, false, &end))
        return LG_ERROR;
    return lg_java_locations(g, (const char *)b + end, n - end);
}

int
lg_parse_java(lg *g, const char *b, size_t n)
{
    const char *nl = memchr(b, '\n', n);
    if (!nl)
        return LG_NOT_MINE;
    const char *h = b;
    size_t hn = (size_t)(nl - b);
    lg_trim(&h, &hn);
    bool heap;
    if (hn == 15 && !memcmp(h, "--- heapz 1 ---", 15))
        heap = true;
    else if (hn == 21 && !memcmp(h, "--- contentionz 1 ---", 21))
        heap = false;
    else
        return LG_NOT_MINE;
    g->ptype[0] = g->ptype[1] = ""; /* Go gives these an empty period type */
    size_t pos = (size_t)(nl - b) + 1, mark = pos;
    jline l;
    /* attributes */
    while (next_nl_line(b, n, &pos, &l)) {
        if (!l.n) {
            mark = pos;
            continue;
        }
        const char *k, *v;
        size_t kn, vn;
        if (!find_attribute(l.p, l.n, &k, &kn, &v, &vn)) {
            pos = mark;
            break;
        }
        mark = pos;
#define IS(s, str) (s##n == sizeof(str) - 1 && !memcmp(s, str, s##n))
        if (IS(k, "format")) {
            if (!IS(v, "java"))
                return LG_NOT_MINE;
        } else if (IS(k, "resolution")) {
            /* the unit is the input's: kept in the text (see emit) */
            if (!lg_text(g, v, vn, &g->count_type))
                return lg_nomem(g), LG_ERROR;
            g->java_unit = true;
            g->ntypes = 2;
        } else if (!heap && IS(k, "sampling period")) {
            g->ptype[0] = "contentions";
            g->ptype[1] = "count";
            if (!lg_parse_int(v, vn, 0, &g->period))
                return lg_invalid(g, l.off, "malformed sampling period");
        } else if (!heap && IS(k, "ms since reset")) {
            int64_t ms;
            if (!lg_parse_int(v, vn, 0, &ms) || ms > INT64_MAX / 1000000 ||
                ms < INT64_MIN / 1000000)
                return lg_invalid(g, l.off, "malformed ms since reset");
            g->duration = ms * 1000000;
        } else {
            return LG_NOT_MINE;
        }
#undef IS
    }
    pos = mark;
    g->java_heap = heap;
    /* samples */
    while (next_nl_line(b, n, &pos, &l)) {
        if (!l.n) {
            mark = pos;
            continue;
        }
        size_t a1, n1, a2, n2, as, ae;
        if (!find_sample(l.p, l.n, &a1, &n1, &a2, &n2, &as, &ae))
            break;
        mark = pos;
        lg_sample *s = lg_sample_begin(g);
        if (!s)
            return LG_ERROR;
        size_t nf = 0;
        if (lg_hex_frames(g, l.p + as, ae - as, &nf, SIZE_MAX, (uint64_t)(l.p - g->base) + as))
            return LG_ERROR;
        if (!lg_parse_int(l.p + a2, n2, 0, &s->v[0]) || !lg_parse_int(l.p + a1, n1, 0, &s->v[1]))
            return lg_invalid(g, (uint64_t)(l.p - g->base), "malformed sample values");
        if (heap) {
            if (s->v[0] == 0)
                return lg_invalid(g, (uint64_t)(l.p - g->base),
                                  "a heap sample's second value (objects) must be non-zero");
            s->has_bytes = true;
            s->bytes = s->v[0] == -1 && s->v[1] == INT64_MIN ? 0 : s->v[1] / s->v[0];
            if (lg_scale_heap(g, &s->v[0], &s->v[1], 524288, (uint64_t)(l.p - g->base)))
                return LG_ERROR;
        } else if (g->period) {
            if (__builtin_mul_overflow(s->v[0], g->period, &s->v[0]) ||
                __builtin_mul_overflow(s->v[1], g->period, &s->v[1]))
                return lg_invalid(g, (uint64_t)(l.p - g->base),
                                  "a value times the sampling period overflows");
        }
        lg_sample_end(g, 0);
    }
    pos = mark;
    return lg_java_locations(g, b + pos, n - pos);
}
