/* The HTML page's data block: the tree as parallel arrays (docs/flame.md, "Contract"). */
#include <inttypes.h>
#include <stdio.h>

#include "flame-private.h"

typedef struct dctx {
    const pprof_flame_tree *t;
    const pprof_flame_write_options *o;
    pprof_buffer *out;
    const uint8_t *keep; /* NULL = every node */
    uint32_t *newidx;    /* kept node -> index in the data */
    size_t kept;
} dctx;

static pprof_status
lit(pprof_buffer *b, const char *s)
{
    return pprof__buffer_append(b, s, strlen(s));
}

static pprof_status
str(pprof_buffer *b, const char *s)
{
    return pprof__json_string_html(b, s ? s : "", s ? strlen(s) : 0);
}

/* [a, b, ...] of one int64 per kept node (per name when per_name) from arr[i * nt + type]. */
static pprof_status
i64_array(dctx *d, const int64_t *arr, size_t type, bool per_name)
{
    const pprof_flame_tree *t = d->t;
    size_t n = per_name ? t->n_names : t->n;
    if (!pprof__buffer_reserve(d->out, 22 * (per_name ? n : d->kept) + 2))
        return PPROF_E_NOMEM;
    pprof_buffer *b = d->out;
    b->data[b->len++] = '[';
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        if (!per_name && d->keep && !d->keep[i])
            continue;
        if (!first)
            b->data[b->len++] = ',';
        first = false;
        pprof__flame_put_i64(b, arr[i * t->nt + type]);
    }
    b->data[b->len++] = ']';
    return PPROF_OK;
}

/* [[type 0...], [type 1...]] */
static pprof_status
per_type(dctx *d, const int64_t *arr, bool per_name)
{
    pprof_status st = lit(d->out, "[");
    for (size_t k = 0; k < d->t->nt && !st; k++) {
        if (k)
            st = lit(d->out, ",");
        if (!st)
            st = i64_array(d, arr, k, per_name);
    }
    return st ? st : lit(d->out, "]");
}

/* A per-node array of small numbers given by f. */
static pprof_status
node_array(dctx *d, int64_t (*f)(const dctx *, size_t))
{
    const pprof_flame_tree *t = d->t;
    if (!pprof__buffer_reserve(d->out, 12 * d->kept + 2))
        return PPROF_E_NOMEM;
    pprof_buffer *b = d->out;
    b->data[b->len++] = '[';
    bool first = true;
    for (size_t i = 0; i < t->n; i++) {
        if (d->keep && !d->keep[i])
            continue;
        if (!first)
            b->data[b->len++] = ',';
        first = false;
        pprof__flame_put_i64(b, f(d, i));
    }
    b->data[b->len++] = ']';
    return PPROF_OK;
}

static int64_t
f_parent(const dctx *d, size_t i)
{
    return i ? (int64_t)d->newidx[d->t->parent[i]] : -1;
}

static int64_t
f_name(const dctx *d, size_t i)
{
    return d->t->name[i];
}

static int64_t
f_inline(const dctx *d, size_t i)
{
    return d->t->inl[i];
}

static int64_t
f_kind(const dctx *d, size_t i)
{
    return pprof__flame_node_kind(d->t, i);
}

static pprof_status
header(dctx *d)
{
    const pprof_flame_tree *t = d->t;
    const pprof_flame_write_options *o = d->o;
    pprof_buffer *b = d->out;
    bool base = t->value[1] != NULL;
    pprof_status st = lit(b, "{\"format\":\"pprof-flame/1\",\"title\":");
    if (!st)
        st = str(b, o->title ? o->title : base ? "Differential Flame Graph" : "Flame Graph");
    if (!st)
        st = lit(b, ",\"source\":");
    if (!st)
        st = str(b, o->source);
    if (!st)
        st = lit(b, ",\"types\":[");
    for (size_t k = 0; k < t->nt && !st; k++) {
        st = lit(b, k ? ",{\"type\":" : "{\"type\":");
        if (!st)
            st = str(b, t->types[k].type);
        if (!st)
            st = lit(b, ",\"unit\":");
        if (!st)
            st = str(b, t->types[k].unit);
        if (!st)
            st = lit(b, "}");
    }
    int pal = pprof__flame_palette(o->colors);
    double mw = o->minwidth < 0 ? 0.1 : o->minwidth;
    if (!st)
        st = pprof__buffer_printf(
            b,
            "],\"default\":%zu,\"granularity\":\"%s\",\"colors\":\"%s\",\"hash\":%s,"
            "\"inverted\":%s,\"reverse\":%s,\"minwidth\":%s%.6g%s,\"names\":[",
            t->default_type, t->lines ? "lines" : "functions", pprof_flame_palettes()[pal],
            o->hash ? "true" : "false", o->inverted ? "true" : "false",
            t->reverse ? "true" : "false", o->minwidth_percent ? "\"" : "", mw,
            o->minwidth_percent ? "%\"" : "");
    for (size_t i = 0; i < t->n_names && !st; i++) {
        if (i)
            st = lit(b, ",");
        if (!st)
            st = pprof__json_string_html(b, t->names[i].name, t->names[i].name_len);
    }
    if (!st)
        st = lit(b, "],\"files\":[");
    for (size_t i = 0; i < t->n_names && !st; i++) {
        if (i)
            st = lit(b, ",");
        if (!st)
            st = pprof__json_string_html(b, t->names[i].file, t->names[i].file_len);
    }
    return st ? st : lit(b, "]");
}

static pprof_status
body(dctx *d)
{
    const pprof_flame_tree *t = d->t;
    pprof_buffer *b = d->out;
    pprof_status st = lit(b, ",\"nodes\":{\"parent\":");
    if (!st)
        st = node_array(d, f_parent);
    if (!st)
        st = lit(b, ",\"name\":");
    if (!st)
        st = node_array(d, f_name);
    if (!st)
        st = lit(b, ",\"inline\":");
    if (!st)
        st = node_array(d, f_inline);
    if (!st)
        st = lit(b, ",\"kind\":");
    if (!st)
        st = node_array(d, f_kind);
    if (!st)
        st = lit(b, ",\"value\":");
    if (!st)
        st = per_type(d, t->value[0], false);
    if (!st)
        st = lit(b, ",\"self\":");
    if (!st)
        st = per_type(d, t->self[0], false);
    if (!st)
        st = lit(b, "},\"base\":");
    if (!st && !t->value[1]) {
        st = lit(b, "null");
    } else if (!st) {
        st = lit(b, "{\"source\":");
        if (!st)
            st = str(b, d->o->base_source);
        if (!st)
            st = pprof__buffer_printf(
                b, ",\"normalized\":%s,\"value\":", t->normalized ? "true" : "false");
        if (!st)
            st = per_type(d, t->value[1], false);
        if (!st)
            st = lit(b, ",\"self\":");
        if (!st)
            st = per_type(d, t->self[1], false);
        if (!st)
            st = lit(b, ",\"top\":{\"flat\":");
        if (!st)
            st = per_type(d, t->flat[1], true);
        if (!st)
            st = lit(b, ",\"cum\":");
        if (!st)
            st = per_type(d, t->cum[1], true);
        if (!st)
            st = lit(b, "}}");
    }
    if (!st)
        st = lit(b, ",\"total\":[");
    for (size_t k = 0; k < t->nt && !st; k++)
        st = pprof__buffer_printf(b, "%s%" PRId64, k ? "," : "", t->value[0][k]);
    if (!st)
        st = lit(b, "],\"top\":{\"flat\":");
    if (!st)
        st = per_type(d, t->flat[0], true);
    if (!st)
        st = lit(b, ",\"cum\":");
    if (!st)
        st = per_type(d, t->cum[0], true);
    if (!st)
        st = pprof__buffer_printf(b, "},\"pruned\":%zu}", t->n - d->kept);
    return st;
}

pprof_status
pprof__flame_write_data(const pprof_flame_tree *t, const pprof_flame_write_options *o,
                        pprof_buffer *out, pprof_error *err)
{
    pprof__flame_keep k;
    size_t cap = o->max_nodes ? o->max_nodes : 150000;
    pprof_status st =
        pprof__flame_keep_select(t, 0, cap == SIZE_MAX ? 0 : cap, &o->allocator, &k, err);
    if (st)
        return st;
    dctx d = {t, o, out, k.keep, NULL, k.kept};
    d.newidx = pprof__malloc(&o->allocator, (t->n ? t->n : 1) * sizeof(uint32_t));
    if (!d.newidx)
        st = PPROF_E_NOMEM;
    size_t next = 0;
    for (size_t i = 0; i < t->n && !st; i++)
        if (!k.keep || k.keep[i])
            d.newidx[i] = (uint32_t)next++;
    if (!st)
        st = header(&d);
    if (!st)
        st = body(&d);
    pprof__free(&o->allocator, d.newidx);
    pprof__flame_keep_free(&o->allocator, &k);
    if (st == PPROF_E_NOMEM)
        return pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory writing the data");
    return st;
}
