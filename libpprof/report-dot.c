/* -dot: graph.ComposeDot over the trimmed graph (visual mode: entropy order, nodelets for
 * labels and byte sizes, redundant residual edges removed), byte for byte. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report-graph-private.h"

pprof_status pprof__report_labels(const pprof__rctx *c, const pprof__graph *g, bool full,
                                  pprof__lines *l);
pprof_status pprof__graph_json(const pprof__rctx *c, const pprof__graph *g, pprof__regex *rx,
                               pprof_buffer *out);

/* ---- graph.ShortenFunctionName */

typedef struct shortener {
    pprof__regex *anon, *gover, *go, *java, *cpp;
} shortener;

static const char *const shortener_rx[] = {
    "^\\(anonymous namespace\\)::",
    "^(.*?)/v(?:[2-9]|[1-9][0-9]+)([./].*)$",
    "^(?:[\\w\\-\\.]+\\/)+(.+)",
    "^(?:[a-z]\\w*\\.)*([A-Z][\\w\\$]*\\.(?:<init>|[a-z][\\w\\$]*(?:\\$\\d+)?))(?:(?:\\()|$)",
    "^(?:[_a-zA-Z]\\w*::)+(_*[A-Z]\\w*::~?[_a-zA-Z]\\w*(?:<.*>)?)",
};

/* Leaves s empty: shortener_new frees what it made when it fails, and its caller frees s
 * again on its way out. */
static void
shortener_free(shortener *s)
{
    pprof__regex_free(s->anon);
    pprof__regex_free(s->gover);
    pprof__regex_free(s->go);
    pprof__regex_free(s->java);
    pprof__regex_free(s->cpp);
    memset(s, 0, sizeof(*s));
}

static pprof_status
shortener_new(const pprof_allocator *a, shortener *s, pprof_error *err)
{
    memset(s, 0, sizeof(*s));
    pprof__regex **slots[] = {&s->anon, &s->gover, &s->go, &s->java, &s->cpp};
    for (size_t i = 0; i < 5; i++) {
        pprof_status st =
            pprof__regex_new(shortener_rx[i], strlen(shortener_rx[i]), "shorten", a, slots[i], err);
        if (st) {
            shortener_free(s);
            return st;
        }
    }
    return PPROF_OK;
}

/* Appends the short form of name to buf (not NUL-terminated). */
static pprof_status
shorten(shortener *sh, const char *name, size_t n, pprof_buffer *buf)
{
    size_t ov[6];
    if (pprof__regex_groups(sh->anon, name, n, ov, 1) == 1) {
        name += ov[1];
        n -= ov[1];
    }
    pprof_buffer tmp = {0};
    pprof_status st = PPROF_OK;
    if (pprof__regex_groups(sh->gover, name, n, ov, 3) == 1) {
        for (int gi = 1; gi <= 2 && !st; gi++)
            if (ov[2 * gi] != (size_t)-1)
                st = pprof__buffer_append(&tmp, name + ov[2 * gi], ov[2 * gi + 1] - ov[2 * gi]);
        if (st) {
            pprof_buffer_free(&tmp);
            return st;
        }
        name = tmp.len ? (const char *)tmp.data : "";
        n = tmp.len;
    }
    pprof__regex *res[] = {sh->go, sh->java, sh->cpp};
    bool done = false;
    for (size_t i = 0; i < 3 && !done; i++) {
        if (pprof__regex_groups(res[i], name, n, ov, 2) != 1)
            continue;
        done = true;
        if (ov[2] != (size_t)-1)
            st = pprof__buffer_append(buf, name + ov[2], ov[3] - ov[2]);
    }
    if (!done)
        st = pprof__buffer_append(buf, name, n);
    pprof_buffer_free(&tmp);
    return st;
}

pprof_status
pprof__shorten_function_name(const char *name, size_t n, pprof_buffer *buf)
{
    shortener sh;
    pprof_status st = shortener_new(NULL, &sh, NULL);
    if (!st)
        st = shorten(&sh, name, n, buf);
    if (!st)
        st = pprof__buffer_append(buf, "", 1);
    shortener_free(&sh);
    return st;
}

/* ---- text helpers */

/* Every string the dot text puts between quotes goes through here, so that no profile string
 * can end its dot string early and become dot syntax (a URL, a stylesheet, a new node): profile
 * strings are data, never markup (docs/report.md, "Strings in the dot graph").
 *
 * go_escaped: the strings Go passes through escapeForDot (function names, the legend): every
 * `\` and `"` escaped, newlines become \l, as Go does. Otherwise Go prints the string as it is
 * (label keys and values, units, file names, the title), and only what would end the string
 * early is escaped: a `"`, and a run of backslashes before a `"` or at the end of the string,
 * doubled so that it can join neither that quote nor the closing one, whichever way a Graphviz
 * version pairs backslashes. A string Go prints correctly thus stays byte for byte Go's
 * (Windows paths included).
 *
 * cap (0 for none): at most cap bytes of s, cut at a UTF-8 boundary, then "…" (the -svg text,
 * where a long name makes the layout slow). */
static pprof_status
dot_quote(pprof_buffer *b, const char *s, size_t n, bool go_escaped, size_t cap)
{
    bool cut = cap && n > cap;
    if (cut) {
        n = cap;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--;
    }
    pprof_status st = PPROF_OK;
    size_t run = 0;
    for (size_t i = 0; i < n && !st;) {
        const char *rep = NULL;
        size_t k = 1; /* the bytes replaced, each by rep */
        if (s[i] == '"') {
            rep = "\\\"";
        } else if (s[i] == '\\') {
            rep = "\\\\";
            while (!go_escaped && i + k < n && s[i + k] == '\\')
                k++;
            if (!go_escaped && i + k < n && s[i + k] != '"')
                rep = NULL;
        } else if (go_escaped && s[i] == '\n') {
            rep = "\\l";
        }
        if (!rep) {
            i += k;
            continue;
        }
        st = pprof__buffer_append(b, s + run, i - run);
        for (size_t j = 0; j < k && !st; j++)
            st = pprof__buffer_append(b, rep, 2);
        i += k;
        run = i;
    }
    if (!st)
        st = pprof__buffer_append(b, s + run, n - run);
    if (!st && cut)
        st = pprof__buffer_append(b, "\xe2\x80\xa6", 3);
    return st;
}

/* dot_quote of a NUL-terminated string Go prints raw, kept in slot and NUL-terminated for a %s
 * (the slot's text lasts until its next use). */
static const char *
quoted(pprof_buffer *slot, const char *s, size_t cap, pprof_status *st)
{
    slot->len = 0;
    if (!*st)
        *st = dot_quote(slot, s, strlen(s), false, cap);
    if (!*st)
        *st = pprof__buffer_append(slot, "", 1);
    return *st ? "" : (const char *)slot->data;
}

/* strings.Replace(s, from, to, -1), appended. */
static pprof_status
replace_all(pprof_buffer *b, const char *s, size_t n, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to), run = 0;
    pprof_status st = PPROF_OK;
    for (size_t i = 0; i + fl <= n && !st;) {
        if (memcmp(s + i, from, fl)) {
            i++;
            continue;
        }
        st = pprof__buffer_append(b, s + run, i - run);
        if (!st)
            st = pprof__buffer_append(b, to, tl);
        i += fl;
        run = i;
    }
    if (!st)
        st = pprof__buffer_append(b, s + run, n - run);
    return st;
}

/* filepath.Base. */
static pprof_string
go_base(pprof_string s)
{
    if (!s.len)
        return (pprof_string){".", 1};
    size_t n = s.len;
    while (n > 0 && s.data[n - 1] == '/')
        n--;
    if (!n)
        return (pprof_string){"/", 1};
    size_t b = n;
    while (b > 0 && s.data[b - 1] != '/')
        b--;
    return (pprof_string){s.data + b, n - b};
}

/* multilinePrintableName. */
static pprof_status
multiline_name(shortener *sh, const pprof__node_info *i, size_t cap, pprof_buffer *out)
{
    pprof_buffer a = {0}, b = {0}, c = {0};
    pprof_status st = PPROF_OK;
    bool sep = false;
#define SEP() (sep ? pprof__buffer_append(out, "\\n", 2) : PPROF_OK)
    if (i->address) {
        st = pprof__buffer_printf(out, "%016" PRIx64, i->address);
        sep = true;
    }
    if (!st && i->name.len) {
        st = shorten(sh, i->name.data, i->name.len, &a);
        if (!st)
            st = dot_quote(&b, a.len ? (const char *)a.data : "", a.len, true, cap);
        a.len = 0;
        if (!st)
            st = replace_all(&a, b.len ? (const char *)b.data : "", b.len, "::", "\\n");
        b.len = 0;
        if (!st)
            st = replace_all(&b, a.len ? (const char *)a.data : "", a.len, "[...]",
                             "[\xe2\x80\xa6]");
        if (!st)
            st = replace_all(&c, b.len ? (const char *)b.data : "", b.len, ".", "\\n");
        if (!st && c.len) {
            st = SEP();
            if (!st)
                st = pprof__buffer_append(out, c.data, c.len);
            sep = true;
        }
    }
    pprof_string file = i->file.len ? go_base(i->file) : i->file;
    if (!st) {
        if (i->lineno != 0) {
            if (!(st = SEP()) && !(st = dot_quote(out, file.data, file.len, false, cap)))
                st = pprof__buffer_printf(out, ":%" PRId64, i->lineno);
        } else if (file.len) {
            if (!(st = SEP()))
                st = dot_quote(out, file.data, file.len, false, cap);
        } else if (c.len) {
        } else if (i->objfile.len) {
            pprof_string o = go_base(i->objfile);
            if (!(st = SEP()) && !(st = pprof__buffer_append(out, "[", 1)) &&
                !(st = dot_quote(out, o.data, o.len, false, cap)))
                st = pprof__buffer_append(out, "]", 1);
        } else {
            if (!(st = SEP()))
                st = pprof__buffer_append(out, "<unknown>", 9);
        }
    }
#undef SEP
    if (!st)
        st = pprof__buffer_append(out, "\\n", 2);
    pprof_buffer_free(&a);
    pprof_buffer_free(&b);
    pprof_buffer_free(&c);
    return st;
}

/* ---- dotColor */

static double
go_min(double x, double y)
{
    if (isnan(x) || isnan(y))
        return NAN;
    return x < y ? x : y;
}

static double
go_max(double x, double y)
{
    if (isnan(x) || isnan(y))
        return NAN;
    return x > y ? x : y;
}

static unsigned
to_u8(double v)
{
    /* Go's uint8(float) on amd64: truncation through int64 */
    if (isnan(v) || v >= 9.2e18 || v <= -9.2e18)
        return 0;
    return (unsigned)((uint64_t)(int64_t)v & 0xff);
}

static void
dot_color(char *dst, size_t cap, double score, bool background)
{
    const double shift = 0.7;
    double saturation = background ? 0.1 : 1.0, value = background ? 0.93 : 0.7;
    score = go_max(-1.0, go_min(1.0, score));
    if (fabs(score) < 0.2)
        saturation *= fabs(score) / 0.2;
    if (score > 0.0)
        score = pow(score, 1.0 - shift);
    if (score < 0.0)
        score = -pow(-score, 1.0 - shift);
    double r, g, b;
    if (score < 0.0) {
        g = value;
        r = value * (1 + saturation * score);
    } else {
        r = value;
        g = value * (1 - saturation * score);
    }
    b = value * (1 - saturation);
    snprintf(dst, cap, "#%02x%02x%02x", to_u8(r * 255.0), to_u8(g * 255.0), to_u8(b * 255.0));
}

/* ---- nodelets */

typedef struct dtag {
    char name[160];
    const char *ext; /* label tag: its name in the graph's string table */
    size_t ext_len;
    int64_t value, flat, cum;
    int64_t flat_div, cum_div; /* -mean */
} dtag;

/* Go's Tag.FlatValue and CumValue. */
static int64_t
tag_flat(const dtag *t)
{
    return t->flat_div ? pprof__div64(t->flat, t->flat_div) : t->flat;
}

static int64_t
tag_cum(const dtag *t)
{
    return t->cum_div ? pprof__div64(t->cum, t->cum_div) : t->cum;
}

static int
sort_tags_cmp(const dtag *a, const dtag *b, bool flat)
{
    if (!flat && a->cum != b->cum) {
        if (pprof__abs64(a->cum) != pprof__abs64(b->cum))
            return pprof__abs64(a->cum) > pprof__abs64(b->cum) ? -1 : 1;
    }
    if (a->flat != b->flat && pprof__abs64(a->flat) != pprof__abs64(b->flat))
        return pprof__abs64(a->flat) > pprof__abs64(b->flat) ? -1 : 1;
    const char *an = a->ext ? a->ext : a->name, *bn = b->ext ? b->ext : b->name;
    size_t al = a->ext ? a->ext_len : strlen(a->name), bl = b->ext ? b->ext_len : strlen(b->name);
    int c = memcmp(an, bn, al < bl ? al : bl);
    return c ? c : (al > bl) - (al < bl);
}

static void
sort_tags(dtag *t, size_t n, bool flat)
{
    for (size_t i = 1; i < n; i++) /* insertion sort: a node has few tags on screen */
        for (size_t j = i; j > 0 && sort_tags_cmp(&t[j], &t[j - 1], flat) < 0; j--) {
            dtag x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
}

typedef struct dot {
    const pprof__rctx *c;
    const pprof__graph *g;
    pprof_buffer *out;
    const char *tag_unit;
    size_t cap;        /* dot_quote's */
    pprof_buffer q[2]; /* quoted's slots */
} dot;

static void
label_of(const char *unit, int64_t v, char *dst, size_t cap)
{
    pprof__scaled_label(dst, cap, v, unit, "auto");
}

/* collapsedTags, then the nodelets. */
static pprof_status
numeric_nodelets(dot *d, dtag *ts, size_t n, bool flat_tags, const char *source, bool *any)
{
    const char *unit = d->tag_unit;
    sort_tags(ts, n, flat_tags);
    dtag groups_out[4];
    size_t ng = n;
    if (n > 4) {
        /* tagGroups: the first four, then each other tag joins the group whose first tag is
         * nearest in value */
        size_t *group = malloc(n * sizeof(size_t));
        if (!group)
            return PPROF_E_NOMEM;
        for (size_t i = 0; i < 4; i++)
            group[i] = i;
        for (size_t i = 4; i < n; i++) {
            size_t best = 0;
            double bd = fabs((double)ts[i].value - (double)ts[0].value);
            for (size_t k = 1; k < 4; k++) {
                double nd = fabs((double)ts[i].value - (double)ts[k].value);
                if (nd < bd) {
                    best = k;
                    bd = nd;
                }
            }
            group[i] = best;
        }
        for (size_t k = 0; k < 4; k++) {
            size_t cnt = 0, mn = k, mx = k;
            int64_t f = 0, cu = 0, fd = 0, cd = 0;
            for (size_t i = 0; i < n; i++) {
                if (group[i] != k)
                    continue;
                if (cnt) {
                    if (ts[i].value < ts[mn].value)
                        mn = i;
                    if (ts[i].value > ts[mx].value)
                        mx = i;
                }
                cnt++;
                f = (int64_t)((uint64_t)f + (uint64_t)ts[i].flat);
                cu = (int64_t)((uint64_t)cu + (uint64_t)ts[i].cum);
                fd = pprof__add64(fd, ts[i].flat_div);
                cd = pprof__add64(cd, ts[i].cum_div);
            }
            dtag *o = &groups_out[k];
            memset(o, 0, sizeof(*o));
            char a[64], b[64];
            label_of(unit, ts[mn].value, a, sizeof(a));
            if (cnt == 1) {
                snprintf(o->name, sizeof(o->name), "%s", a);
            } else {
                label_of(unit, ts[mx].value, b, sizeof(b));
                snprintf(o->name, sizeof(o->name), "%s..%s", a, b);
            }
            /* Go's tagGroupLabel divides here, and the groups then sort by the quotients */
            o->flat = fd ? pprof__div64(f, fd) : f;
            o->cum = cd ? pprof__div64(cu, cd) : cu;
        }
        free(group);
        ts = groups_out;
        ng = 4;
        sort_tags(ts, ng, flat_tags);
    } else {
        for (size_t i = 0; i < n; i++)
            label_of(unit, ts[i].value, ts[i].name, sizeof(ts[i].name));
    }
    pprof_status st = PPROF_OK;
    for (size_t j = 0; j < ng && !st; j++) {
        int64_t w = tag_cum(&ts[j]);
        const char *attr = " style=\"dotted\"";
        if (flat_tags || tag_flat(&ts[j]) == tag_cum(&ts[j])) {
            w = tag_flat(&ts[j]);
            attr = "";
        }
        if (!w)
            continue;
        char v[64];
        pprof__rctx_value(d->c, v, sizeof(v), w);
        const char *ws = quoted(&d->q[0], v, d->cap, &st),
                   *name = quoted(&d->q[1], ts[j].name, d->cap, &st);
        if (!st)
            st = pprof__buffer_printf(
                d->out,
                "N%s_%zu [label = \"%s\" id=\"N%s_%zu\" fontsize=8 shape=box3d "
                "tooltip=\"%s\"]\n%s -> N%s_%zu [label=\" %s\" weight=100 "
                "tooltip=\"%s\" labeltooltip=\"%s\"%s]\n",
                source, j, name, source, j, ws, source, source, j, ws, ws, ws, attr);
        *any = true;
    }
    return st;
}

/* The numeric tags of node under label set labels. */
static size_t
collect_numeric(const pprof__graph *g, uint32_t node, uint32_t labels, dtag *out)
{
    size_t n = 0;
    const pprof__gtag *t = g->tags.data;
    for (uint32_t i = g->tag_off[node]; i < g->tag_off[node + 1]; i++) {
        const pprof__gtag *x = &t[g->tag_list[i]];
        if (!x->numeric || x->labels != labels)
            continue;
        if (out) {
            memset(&out[n], 0, sizeof(dtag));
            out[n].value = x->value;
            out[n].flat = x->flat;
            out[n].cum = x->cum;
            out[n].flat_div = x->flat_div;
            out[n].cum_div = x->cum_div;
            size_t l;
            const char *s = pprof__gstr(g, x->name, &l);
            out[n].ext = s;
            out[n].ext_len = l;
        }
        n++;
    }
    return n;
}

static pprof_status
numeric_for(dot *d, uint32_t node, uint32_t labels, bool flat_tags, const char *source, bool *any)
{
    size_t n = collect_numeric(d->g, node, labels, NULL);
    if (!n)
        return PPROF_OK;
    dtag *ts = malloc(n * sizeof(dtag));
    if (!ts)
        return PPROF_E_NOMEM;
    collect_numeric(d->g, node, labels, ts);
    /* numeric tags sort by their formatted names (Tag.Name) */
    for (size_t i = 0; i < n; i++)
        ts[i].ext = ts[i].ext; /* kept: the formatted name orders ties */
    pprof_status st = numeric_nodelets(d, ts, n, flat_tags, source, any);
    free(ts);
    return st;
}

static pprof_status
add_nodelets(dot *d, uint32_t node, size_t id, bool *any)
{
    const pprof__graph *g = d->g;
    *any = false;
    bool flat_tags = g->out_off[node + 1] > g->out_off[node];
    size_t nl = 0;
    const pprof__gtag *t = g->tags.data;
    for (uint32_t i = g->tag_off[node]; i < g->tag_off[node + 1]; i++)
        nl += !t[g->tag_list[i]].numeric;
    dtag *ts = nl ? malloc(nl * sizeof(dtag)) : NULL;
    uint32_t *lab = nl ? malloc(nl * sizeof(uint32_t)) : NULL;
    if (nl && (!ts || !lab)) {
        free(ts);
        free(lab);
        return PPROF_E_NOMEM;
    }
    size_t k = 0;
    for (uint32_t i = g->tag_off[node]; i < g->tag_off[node + 1]; i++) {
        const pprof__gtag *x = &t[g->tag_list[i]];
        if (x->numeric)
            continue;
        memset(&ts[k], 0, sizeof(dtag));
        ts[k].ext = pprof__gstr(g, x->name, &ts[k].ext_len);
        ts[k].flat = x->flat;
        ts[k].cum = x->cum;
        ts[k].flat_div = x->flat_div;
        ts[k].cum_div = x->cum_div;
        ts[k].value = x->labels;
        k++;
    }
    sort_tags(ts, nl, flat_tags);
    pprof_status st = PPROF_OK;
    for (size_t i = 0; i < nl && i < 4 && !st; i++) {
        int64_t w = flat_tags ? tag_flat(&ts[i]) : tag_cum(&ts[i]);
        if (!w)
            continue;
        char v[64];
        pprof__rctx_value(d->c, v, sizeof(v), w);
        const char *ws = quoted(&d->q[0], v, d->cap, &st);
        if (!st)
            st = pprof__buffer_printf(d->out, "N%zu_%zu [label = \"", id, i);
        if (!st)
            st = dot_quote(d->out, ts[i].ext, ts[i].ext_len, false, d->cap);
        if (!st)
            st = pprof__buffer_printf(
                d->out, "\" id=\"N%zu_%zu\" fontsize=8 shape=box3d tooltip=\"%s\"]\n", id, i, ws);
        if (!st)
            st = pprof__buffer_printf(d->out,
                                      "N%zu -> N%zu_%zu [label=\" %s\" weight=100 tooltip=\"%s\" "
                                      "labeltooltip=\"%s\"]\n",
                                      id, id, i, ws, ws, ws);
        *any = true;
        char src[48];
        snprintf(src, sizeof(src), "N%zu_%zu", id, i);
        if (!st)
            st = numeric_for(d, node, (uint32_t)ts[i].value, flat_tags, src, any);
    }
    char src[48];
    snprintf(src, sizeof(src), "N%zu", id);
    if (!st)
        st = numeric_for(d, node, 0, flat_tags, src, any);
    free(ts);
    free(lab);
    return st;
}

/* ---- nodes and edges */

static pprof_status
add_node(dot *d, shortener *sh, uint32_t node, size_t id, double max_flat, pprof_buffer *tmp)
{
    const pprof__graph *g = d->g;
    const pprof__rctx *c = d->c;
    int64_t flat = pprof__flat_value(&g->nodes, node), cum = pprof__cum_value(&g->nodes, node);
    tmp->len = 0;
    pprof_status st = multiline_name(sh, &g->nodes.info[node], d->cap, tmp);
    char v[64], pct[40];
    pprof__rctx_value(c, v, sizeof(v), flat);
    const char *fv = quoted(&d->q[0], v, d->cap, &st), *cv = fv;
    if (!st && flat != 0) {
        pprof__percentage(pct, sizeof(pct), flat, c->total);
        const char *p = pct;
        while (*p == ' ')
            p++;
        st = pprof__buffer_printf(tmp, "%s (%s)", fv, p);
    } else if (!st) {
        st = pprof__buffer_append(tmp, "0", 1);
    }
    if (!st && cum != flat) {
        st = pprof__buffer_append(tmp, flat != 0 ? "\\n" : " ", flat != 0 ? 2 : 1);
        pprof__rctx_value(c, v, sizeof(v), cum);
        cv = quoted(&d->q[1], v, d->cap, &st);
        pprof__percentage(pct, sizeof(pct), cum, c->total);
        const char *p = pct;
        while (*p == ' ')
            p++;
        if (!st)
            st = pprof__buffer_printf(tmp, "of %s (%s)", cv, p);
    }
    int font = 8;
    if (max_flat != 0 && flat != 0 && (double)pprof__abs64(flat) <= max_flat)
        font += (int)ceil(16.0 * sqrt((double)pprof__abs64(flat) / max_flat));
    char col[16], fill[16];
    double score = (double)cum / (double)pprof__abs64(c->total);
    dot_color(col, sizeof(col), score, false);
    dot_color(fill, sizeof(fill), score, true);
    size_t nl;
    const char *name = pprof__gname(g, node, &nl);
    if (!st)
        st = pprof__buffer_printf(d->out, "N%zu [label=\"", id);
    if (!st)
        st = pprof__buffer_append(d->out, tmp->data, tmp->len);
    if (!st)
        st = pprof__buffer_printf(d->out, "\" id=\"node%zu\" fontsize=%d shape=box tooltip=\"", id,
                                  font);
    if (!st)
        st = dot_quote(d->out, name, nl, true, d->cap);
    if (!st)
        st =
            pprof__buffer_printf(d->out, " (%s)\" color=\"%s\" fillcolor=\"%s\"]\n", cv, col, fill);
    return st;
}

static pprof_status
add_edge(dot *d, const pprof__gedge *e, uint32_t from, uint32_t to, bool nodelets)
{
    const pprof__rctx *c = d->c;
    const pprof__graph *g = d->g;
    char v[64];
    int64_t ew = pprof__gedge_value(e);
    pprof__rctx_value(c, v, sizeof(v), ew);
    pprof_status st = PPROF_OK;
    const char *w = quoted(&d->q[0], v, d->cap, &st);
    if (!st)
        st = pprof__buffer_printf(d->out, "N%u -> N%u [label=\" %s%s\"", from, to, w,
                                  e->is_inline ? "\\n (inline)" : "");
    if (!st && c->total != 0) {
        int64_t t = c->total;
        int64_t x = pprof__abs64(pprof__div64((int64_t)((uint64_t)ew * 100), t));
        int weight = 1 + (int)(x < 100 ? x : 100);
        if (weight > 1)
            st = pprof__buffer_printf(d->out, " weight=%d", weight);
        x = pprof__abs64(pprof__div64((int64_t)((uint64_t)ew * 5), t));
        int width = 1 + (int)(x < 5 ? x : 5);
        if (!st && width > 1)
            st = pprof__buffer_printf(d->out, " penwidth=%d", width);
        char col[16];
        dot_color(col, sizeof(col), (double)ew / (double)pprof__abs64(t), false);
        if (!st)
            st = pprof__buffer_printf(d->out, " color=\"%s\"", col);
    }
    for (int k = 0; k < 2 && !st; k++) {
        size_t l1, l2;
        const char *s = pprof__gname(g, e->src, &l1), *t = pprof__gname(g, e->dst, &l2);
        st = pprof__buffer_printf(d->out, k ? " labeltooltip=\"" : " tooltip=\"");
        if (!st)
            st = dot_quote(d->out, s, l1, true, d->cap);
        if (!st)
            st = pprof__buffer_printf(d->out, " %s ", e->residual ? "..." : "->");
        if (!st)
            st = dot_quote(d->out, t, l2, true, d->cap);
        if (!st)
            st = pprof__buffer_printf(d->out, " (%s)\"", w);
    }
    if (!st && e->residual)
        st = pprof__buffer_printf(d->out, " style=\"dotted\"");
    if (!st && nodelets)
        st = pprof__buffer_printf(d->out, " minlen=2");
    if (!st)
        st = pprof__buffer_printf(d->out, "]\n");
    return st;
}

static pprof_status
compose(dot *d, shortener *sh, const pprof__lines *labels)
{
    const pprof__graph *g = d->g;
    const pprof__rctx *c = d->c;
    pprof_buffer *out = d->out;
    pprof_buffer tb = {0};
    pprof_status st = PPROF_OK;
    if (c->u->mappings.len) {
        pprof_string f = {"", 0};
        pprof_profile_string(c->u, PPROF__AT(c->u->mappings, pprof_mapping, 0).filename, &f);
        if (f.len) {
            pprof_string b = go_base(f);
            st = dot_quote(&tb, b.data, b.len, false, d->cap);
        }
    }
    if (!st)
        st = pprof__buffer_append(&tb, "", 1);
    const char *title = st ? "" : (const char *)tb.data;
    if (!st)
        st = pprof__buffer_printf(out,
                                  "digraph \"%s\" {\nnode [style=filled fillcolor=\"#f8f8f8\"]\n",
                                  *title ? title : "unnamed");
    size_t pos = 0;
    const char *first = pprof__lines_next(labels, &pos);
    if (!st && first) {
        st = pprof__buffer_printf(out, "subgraph cluster_L { \"");
        if (!st)
            st = dot_quote(out, first, strlen(first), true, d->cap);
        if (!st)
            st = pprof__buffer_printf(out, "\" [shape=box fontsize=16 label=\"");
        pos = 0;
        const char *l;
        while (!st && (l = pprof__lines_next(labels, &pos))) {
            st = dot_quote(out, l, strlen(l), true, d->cap);
            if (!st)
                st = pprof__buffer_append(out, "\\l", 2);
        }
        if (!st)
            st = pprof__buffer_printf(out, "\"");
        if (!st && *title)
            st = pprof__buffer_printf(out, " tooltip=\"%s\"", title);
        if (!st)
            st = pprof__buffer_printf(out, "] }\n");
    }
    pprof_buffer_free(&tb);
    if (st || !g->n)
        return st ? st : pprof__buffer_printf(out, "}\n");
    uint32_t *pos_of = calloc(g->nodes.n ? g->nodes.n : 1, sizeof(uint32_t));
    uint8_t *has_nodelets = calloc(g->nodes.n ? g->nodes.n : 1, 1);
    pprof_buffer tmp = {0};
    if (!pos_of || !has_nodelets)
        st = PPROF_E_NOMEM;
    double max_flat = (double)pprof__abs64(pprof__flat_value(&g->nodes, g->order[0]));
    for (size_t i = 0; i < g->n && !st; i++) {
        pos_of[g->order[i]] = (uint32_t)(i + 1);
        double f = (double)pprof__abs64(pprof__flat_value(&g->nodes, g->order[i]));
        if (f > max_flat)
            max_flat = f;
    }
    for (size_t i = 0; i < g->n && !st; i++) {
        uint32_t n = g->order[i];
        st = add_node(d, sh, n, i + 1, max_flat, &tmp);
        bool any = false;
        if (!st)
            st = add_nodelets(d, n, i + 1, &any);
        has_nodelets[n] = any;
    }
    uint32_t *e = NULL;
    size_t ne = 0;
    if (!st)
        st = pprof__graph_all_edges(g, &e, &ne);
    const pprof__gedge *E = g->edges.data;
    for (size_t i = 0; i < ne && !st; i++) {
        const pprof__gedge *x = &E[e[i]];
        st = add_edge(d, x, pos_of[x->src], pos_of[x->dst], has_nodelets[x->src]);
    }
    if (!st)
        st = pprof__buffer_printf(out, "}\n");
    pprof__free(&g->a, e);
    pprof_buffer_free(&tmp);
    free(pos_of);
    free(has_nodelets);
    return st;
}

/* The dot text; cap as dot_quote's (0: the -dot report, Go's strings whole). */
pprof_status
pprof__render_dot_text(pprof__rctx *c, pprof_print_format f, size_t cap, pprof_buffer *out)
{
    const pprof_report_render_options *o = c->o;
    pprof__graph g;
    pprof__graph_opts go = {
        o->granularity,  true, o->cum_sort, false, (size_t)o->node_count, o->node_fraction,
        o->edge_fraction};
    pprof__lines labels = {0};
    shortener sh;
    memset(&sh, 0, sizeof(sh));
    pprof_status st = pprof__graph_build(c, &go, &g);
    if (st)
        goto out;
    pprof__select_output_unit(c, &g);
    if (f == PPROF_PRINT_JSON) {
        st = pprof__graph_json(c, &g, NULL, out);
        goto out;
    }
    if ((st = shortener_new(&c->a, &sh, c->err)))
        goto out;
    st = pprof__report_labels(c, &g, true, &labels);
    dot d = {c, &g, out, g.tag_unit, cap, {{0}, {0}}};
    if (!st)
        st = compose(&d, &sh, &labels);
    pprof_buffer_free(&d.q[0]);
    pprof_buffer_free(&d.q[1]);
out:
    if (st == PPROF_E_NOMEM)
        st = pprof__error(c->err, st, PPROF_NO_OFFSET, "", "out of memory");
    shortener_free(&sh);
    pprof__lines_free(&labels);
    pprof__graph_free(&g);
    return st;
}

pprof_status
pprof__render_dot(pprof__rctx *c, pprof_print_format f, pprof_buffer *out)
{
    return pprof__render_dot_text(c, f, 0, out);
}
