/* The memory map text that follows every legacy profile (Go's ParseProcMaps meaning): lines in
 * the form of /proc/PID/maps or the brief "START-END FILE (@OFFSET) BUILDID" form, executable
 * entries kept, "attr=value" lines defining $attr for the lines after them, glog prefixes
 * removed; then Go's heuristics on the mappings and the assignment of locations to them. */
#include "legacy-private.h"

static bool
is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool
is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool
is_perm(char c)
{
    return c == '-' || c == 'r' || c == 'w' || c == 'x' || c == 'p';
}

typedef struct cur {
    const char *p;
    size_t i, n;
} cur;

static size_t
span(const cur *c, size_t i, bool (*f)(char))
{
    while (i < c->n && f(c->p[i]))
        i++;
    return i;
}

typedef struct field {
    size_t at, len;
    bool set;
} field;

/* ^\s*(?:0x)?HEX[\s-]?\s*(?:0x)?HEX:? ; the index after it, 0 when it does not match. */
static size_t
hex_range(const cur *c, field *start, field *end)
{
    size_t i = span(c, 0, is_ws);
    if (i + 2 < c->n && c->p[i] == '0' && c->p[i + 1] == 'x' && is_hex(c->p[i + 2]))
        i += 2;
    size_t j = span(c, i, is_hex);
    if (j == i)
        return 0;
    *start = (field){i, j - i, true};
    i = j;
    if (i < c->n && (is_ws(c->p[i]) || c->p[i] == '-'))
        i++;
    i = span(c, i, is_ws);
    if (i + 2 < c->n && c->p[i] == '0' && c->p[i + 1] == 'x' && is_hex(c->p[i + 2]))
        i += 2;
    j = span(c, i, is_hex);
    if (j == i)
        return 0;
    *end = (field){i, j - i, true};
    i = j;
    if (i < c->n && c->p[i] == ':')
        i++;
    return i;
}

static bool
not_ws(char c)
{
    return !is_ws(c);
}

static bool
is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* \s+ then f+ from i: the end of the run, 0 when absent. */
static size_t
ws_then(const cur *c, size_t i, bool (*f)(char), field *out)
{
    size_t j = span(c, i, is_ws);
    if (j == i)
        return 0;
    size_t k = span(c, j, f);
    if (k == j)
        return 0;
    if (out)
        *out = (field){j, k - j, true};
    return k;
}

/* The procMaps form after the range: perms? offset? dev inode file? */
static bool
proc_form(const cur *c, size_t i, field *perm, field *off, field *file)
{
    size_t k;
    field f;
    /* the optional groups are taken when the rest still matches, as a backtracking match does */
    for (int take_perm = 1; take_perm >= 0; take_perm--) {
        size_t a = i;
        *perm = (field){0, 0, false};
        if (take_perm) {
            if (!(k = ws_then(c, a, is_perm, &f)))
                continue;
            *perm = f;
            a = k;
        }
        for (int take_off = 1; take_off >= 0; take_off--) {
            size_t b = a;
            *off = (field){0, 0, false};
            if (take_off) {
                if (!(k = ws_then(c, b, is_hex, &f)))
                    continue;
                *off = f;
                b = k;
            }
            /* \s+HEX:HEX\s+DIGITS */
            size_t d = ws_then(c, b, is_hex, NULL);
            if (!d || d >= c->n || c->p[d] != ':')
                continue;
            size_t e = span(c, d + 1, is_hex);
            if (e == d + 1)
                continue;
            size_t g = ws_then(c, e, is_digit, NULL);
            if (!g)
                continue;
            *file = (field){0, 0, false};
            if ((k = ws_then(c, g, not_ws, &f)))
                *file = f;
            return true;
        }
    }
    return false;
}

static bool
not_close_paren(char c)
{
    return is_hex(c);
}

/* The brief form after the range: perms? file? (@offset)? buildid? — every part optional. */
static void
brief_form(const cur *c, size_t i, field *perm, field *file, field *off, field *bid)
{
    size_t k;
    field f;
    *perm = *file = *off = *bid = (field){0, 0, false};
    if ((k = ws_then(c, i, is_perm, &f)))
        *perm = f, i = k;
    if ((k = ws_then(c, i, not_ws, &f)))
        *file = f, i = k;
    size_t j = span(c, i, is_ws);
    if (j > i && j + 1 < c->n && c->p[j] == '(' && c->p[j + 1] == '@') {
        size_t h = span(c, j + 2, not_close_paren);
        if (h > j + 2 && h < c->n && c->p[h] == ')') {
            *off = (field){j + 2, h - j - 2, true};
            i = h + 1;
        }
    }
    if ((k = ws_then(c, i, is_hex, &f)))
        *bid = f;
}

/* Go's removeLoggingInfo: a "file:line] " prefix goes. */
static void
remove_log_prefix(const char **p, size_t *n)
{
    size_t i = 0;
    while (i < *n && (*p)[i] != '[' && (*p)[i] != ']')
        i++;
    if (i >= *n || (*p)[i] != ']' || i + 1 >= *n || !is_ws((*p)[i + 1]))
        return;
    size_t d = i;
    while (d > 0 && is_digit((*p)[d - 1]))
        d--;
    if (d == i || d < 2 || (*p)[d - 1] != ':')
        return;
    *p += i + 2;
    *n -= i + 2;
}

typedef struct attrs {
    pprof__vec defs; /* lg_str pairs: "$name", value */
    pprof__vec line; /* char: the line after replacement */
} attrs;

/* strings.Replacer: at each position the first definition that matches, in definition order. */
static bool
replace(lg *g, attrs *at, const char **p, size_t *n)
{
    size_t nd = at->defs.len / 2;
    if (!nd)
        return true;
    at->line.len = 0;
    const lg_str *d = at->defs.data;
    const char *text = g->text.data;
    for (size_t i = 0; i < *n;) {
        size_t k = 0;
        for (; k < nd; k++)
            if (d[2 * k].len && d[2 * k].len <= *n - i &&
                !memcmp(*p + i, text + d[2 * k].off, d[2 * k].len))
                break;
        const char *src = k < nd ? text + d[2 * k + 1].off : *p + i;
        size_t len = k < nd ? d[2 * k + 1].len : 1;
        if (at->line.len + len > (size_t)1 << 24 ||
            !pprof__vec_grow(&g->o.allocator, &at->line, 1, at->line.len + len))
            return false;
        memcpy((char *)at->line.data + at->line.len, src, len);
        at->line.len += len;
        i += k < nd ? d[2 * k].len : 1;
    }
    *p = at->line.data;
    *n = at->line.len;
    return true;
}

static int
add_mapping(lg *g, const cur *c, field start, field end, field perm, field off, field file,
            field bid, bool *recognized, uint64_t lineoff)
{
    *recognized = true;
    if (perm.set && !memchr(c->p + perm.at, 'x', perm.len))
        return LG_OK;
    lg_map m;
    memset(&m, 0, sizeof(m));
    if (!lg_parse_uint(c->p + start.at, start.len, 16, &m.start) ||
        !lg_parse_uint(c->p + end.at, end.len, 16, &m.limit) ||
        (off.set && !lg_parse_uint(c->p + off.at, off.len, 16, &m.offset))) {
        *recognized = false;
        return LG_OK;
    }
    if (g->maps.len >= g->o.max_mappings)
        return pprof__error(g->err, PPROF_E_LIMIT, lineoff, "",
                            "more than %llu mappings (max_mappings)",
                            (unsigned long long)g->o.max_mappings),
               LG_ERROR;
    if (!lg_text(g, file.set ? c->p + file.at : "", file.set ? file.len : 0, &m.file) ||
        !lg_text(g, bid.set ? c->p + bid.at : "", bid.set ? bid.len : 0, &m.build_id))
        return lg_nomem(g), LG_ERROR;
    lg_map *slot = pprof__vec_push(&g->o.allocator, &g->maps, sizeof(*slot));
    if (!slot)
        return lg_nomem(g), LG_ERROR;
    *slot = m;
    return LG_OK;
}

static int
parse_line(lg *g, attrs *at, const char *p, size_t n, uint64_t lineoff)
{
    remove_log_prefix(&p, &n);
    if (!replace(g, at, &p, &n))
        return lg_nomem(g), LG_ERROR;
    cur c = {p, 0, n};
    field start, end, perm, off, file, bid;
    bool recognized = false;
    size_t i = hex_range(&c, &start, &end);
    if (i) {
        bid = (field){0, 0, false};
        if (proc_form(&c, i, &perm, &off, &file) ||
            (brief_form(&c, i, &perm, &file, &off, &bid), true))
            if (add_mapping(g, &c, start, end, perm, off, file, bid, &recognized, lineoff))
                return LG_ERROR;
    }
    if (recognized)
        return LG_OK;
    const char *eq = n ? memchr(p, '=', n) : NULL; /* p may be NULL for an empty line */
    if (!eq)
        return LG_OK;
    const char *k = p, *v = eq + 1;
    size_t kn = (size_t)(eq - p), vn = n - kn - 1;
    lg_trim(&k, &kn);
    lg_trim(&v, &vn);
    /* every later line is matched against every definition: a bound keeps that linear */
    if (at->defs.len / 2 >= 256)
        return pprof__error(g->err, PPROF_E_LIMIT, lineoff, "",
                            "more than 256 $name=value definitions in the memory map"),
               LG_ERROR;
    lg_str ks, vs;
    /* the key gets its '$' in the text: copy "$" then the key contiguously */
    if (!lg_text(g, "$", 1, &ks) || !lg_text(g, k, kn, &vs) || !lg_text(g, v, vn, &vs))
        return lg_nomem(g), LG_ERROR;
    ks.len = (uint32_t)kn + 1;
    lg_str *d0 = pprof__vec_push(&g->o.allocator, &at->defs, sizeof(lg_str));
    if (d0)
        *d0 = ks;
    lg_str *d1 = d0 ? pprof__vec_push(&g->o.allocator, &at->defs, sizeof(lg_str)) : NULL;
    if (!d1)
        return lg_nomem(g), LG_ERROR;
    *d1 = vs;
    return LG_OK;
}

static bool
str_eq(const lg *g, lg_str a, lg_str b)
{
    return a.len == b.len &&
           !memcmp((const char *)g->text.data + a.off, (const char *)g->text.data + b.off, a.len);
}

static bool
adjacent(const lg *g, const lg_map *m1, const lg_map *m2)
{
    if (m1->file.len && m2->file.len && !str_eq(g, m1->file, m2->file))
        return false;
    if (m1->build_id.len && m2->build_id.len && !str_eq(g, m1->build_id, m2->build_id))
        return false;
    if (m1->limit != m2->start)
        return false;
    if (m1->offset && m2->offset && m1->offset + (m1->limit - m1->start) != m2->offset)
        return false;
    return true;
}

/* Go's libRx: [.]so$ or [.]so[._][0-9] anywhere. */
static bool
looks_like_lib(const char *p, size_t n)
{
    for (size_t i = 0; i + 3 <= n; i++)
        if (!memcmp(p + i, ".so", 3) &&
            (i + 3 == n ||
             (i + 4 < n && (p[i + 3] == '.' || p[i + 3] == '_') && is_digit(p[i + 4]))))
            return true;
    return false;
}

/* Go's massageMappings over the maps just parsed. */
static int
massage(lg *g)
{
    lg_map *m = g->maps.data;
    size_t n = g->maps.len;
    if (n > 1) {
        size_t out = 1;
        for (size_t i = 1; i < n; i++) {
            lg_map *lm = &m[out - 1];
            if (adjacent(g, lm, &m[i])) {
                lm->limit = m[i].limit;
                if (m[i].file.len)
                    lm->file = m[i].file;
                if (m[i].build_id.len)
                    lm->build_id = m[i].build_id;
                continue;
            }
            m[out++] = m[i];
        }
        g->maps.len = n = out;
    }
    pprof__vec tmp = {0};
    for (size_t i = 0; i < n; i++) {
        /* the file with every "(deleted)" removed, then trimmed */
        tmp.len = 0;
        const char *f = (const char *)g->text.data + m[i].file.off;
        size_t fl = m[i].file.len;
        if (!pprof__vec_grow(&g->o.allocator, &tmp, 1, fl + 1)) {
            pprof__free(&g->o.allocator, tmp.data);
            return lg_nomem(g), LG_ERROR;
        }
        char *t = tmp.data;
        size_t tl = 0;
        for (size_t k = 0; k < fl;)
            if (fl - k >= 9 && !memcmp(f + k, "(deleted)", 9))
                k += 9;
            else
                t[tl++] = f[k++];
        const char *tp = t;
        lg_trim(&tp, &tl);
        if (!tl || looks_like_lib(tp, tl) || tp[0] == '[')
            continue;
        lg_map sw = m[0];
        m[0] = m[i];
        m[i] = sw;
        break;
    }
    pprof__free(&g->o.allocator, tmp.data);
    return LG_OK;
}

int
lg_parse_maps(lg *g, lg_scan *s)
{
    attrs at = {{0}, {0}};
    int r = LG_OK;
    while (r == LG_OK && lg_scan_next(s))
        r = parse_line(g, &at, s->line, s->len, s->off);
    pprof__free(&g->o.allocator, at.defs.data);
    pprof__free(&g->o.allocator, at.line.data);
    if (r == LG_OK)
        r = massage(g);
    if (r == LG_OK)
        lg_assign_mappings(g);
    return r;
}

int
lg_additional_sections(lg *g, lg_scan *s)
{
    while (!lg_map_sentinel(s->line, s->len) && lg_scan_next(s))
        ;
    return lg_parse_maps(g, s);
}

void
lg_assign_mappings(lg *g)
{
    lg_map *m = g->maps.data;
    size_t n = g->maps.len;
    const char *text = g->text.data;
    if (n > 1 && m[0].file.len >= 14 && !memcmp(text + m[0].file.off, "/anon_hugepage", 14) &&
        m[0].limit == m[1].start) {
        memmove(m, m + 1, (n - 1) * sizeof(*m));
        g->maps.len = --n;
    }
    if (n && m[0].start - m[0].offset == 0x400000) {
        m[0].start = 0x400000;
        m[0].offset = 0;
    }
    for (size_t i = 0; i < g->locs.len; i++) {
        lg_loc *l = &PPROF__AT(g->locs, lg_loc, i);
        uint64_t a = l->addr;
        l->map = LG_NOMAP;
        if (a == 0)
            continue;
        size_t k = 0;
        for (; k < n; k++)
            if (m[k].start <= a && a < m[k].limit)
                break;
        if (k == n)
            for (k = 0; k < n; k++)
                if (m[k].offset && m[k].start - m[k].offset <= a && a < m[k].start) {
                    m[k].start -= m[k].offset;
                    m[k].offset = 0;
                    break;
                }
        l->map = k < n ? (uint32_t)k : LG_FAKEMAP;
    }
}
