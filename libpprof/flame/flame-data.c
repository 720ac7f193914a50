/* The HTML page's data block: the tree as parallel arrays (docs/flame.md, "Contract"). */
#include <inttypes.h>
#include <stdio.h>

#include "flame-private.h"
#include "hash-private.h"
#include "htab-private.h"
#include "pool-private.h"

typedef struct dctx {
    const pprof_flame_tree *t;
    const pprof_flame_write_options *o;
    pprof_buffer *out;
    const uint8_t *keep; /* NULL = every node */
    uint32_t *newidx;    /* kept node -> index in the data */
    size_t kept;
    pprof__out_file *sink; /* where out goes as it fills; NULL: out holds the whole block */
} dctx;

/* With a sink, what out holds goes to it once it is large enough to be worth a write, and out
 * is filled again from its start: the page's pages are touched once, not each held to the end.
 * A write that fails stops the writes; the sink's commit reports it. */
static pprof_status
spill(dctx *d, size_t at_least)
{
    if (!d->sink || d->out->len < at_least)
        return PPROF_OK;
    bool ok = pprof__out_write(d->sink, d->out->data, d->out->len);
    d->out->len = 0;
    return ok ? PPROF_OK : PPROF_E_IO;
}

#define SPILL_BYTES ((size_t)1 << 17)

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
    return spill(d, SPILL_BYTES);
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
    return spill(d, SPILL_BYTES);
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

static pprof_status time_block(dctx *d);

/* The nodes' values: ,"value":[[..]..] */
static pprof_status
node_values(dctx *d)
{
    pprof_status st = lit(d->out, ",\"value\":");
    return st ? st : per_type(d, d->t->value[0], false);
}

/* A part of the data written into a buffer of its own, on a worker when one is free: the
 * caller appends the part where it goes, so the bytes are the same whoever wrote them. */
typedef struct part {
    dctx d; /* d.out = &buf */
    pprof_buffer buf;
    size_t size; /* about what the part writes */
    pprof_status (*fn)(dctx *d);
    pprof_status st;
    pprof__job job;
    bool started;
} part;

/* Room for about size more bytes of out, in huge pages: an advance only (what is written grows
 * out as it needs), so a reservation that fails, or would be too large to risk, is skipped. */
static void
reserve(pprof_buffer *out, size_t size)
{
    if (size <= ((size_t)256 << 20))
        (void)pprof__buffer_reserve_large(out, size);
}

static void
run_part(void *arg)
{
    part *p = arg;
    reserve(&p->buf, p->size);
    p->st = p->fn(&p->d);
}

static void
part_start(part *p, pprof__pool *pool, const dctx *d, pprof_status (*fn)(dctx *d), size_t size)
{
    p->d = *d;
    p->d.out = &p->buf;
    p->d.sink = NULL;
    p->size = size;
    p->fn = fn;
    p->st = PPROF_OK;
    p->job = (pprof__job){.fn = run_part, .arg = p, .name = "pprof-flame-data"};
    p->started = pool && pprof__pool_start(pool, &p->job);
}

/* Waits for the part (or writes it here when no worker took it) and appends it to d's out, or
 * with a sink writes it there after what out holds (never copied into out). */
static pprof_status
part_finish(part *p, dctx *d)
{
    if (p->started)
        pprof__pool_wait(&p->job);
    else
        run_part(p);
    pprof_status st = p->st;
    if (!st && d->sink) {
        st = spill(d, 0);
        if (!st && !pprof__out_write(d->sink, p->buf.data, p->buf.len))
            st = PPROF_E_IO;
    } else if (!st) {
        st = pprof__buffer_append(d->out, p->buf.data, p->buf.len);
    }
    pprof_buffer_free(&p->buf);
    return st;
}

/* Trees smaller than this are written on the calling thread alone. */
#define PARALLEL_NODES 65536

static pprof_status
body(dctx *d, pprof__pool *pool)
{
    const pprof_flame_tree *t = d->t;
    pprof_buffer *b = d->out;
    /* the values beside the other arrays (about as long as those before them) */
    part vals = {0};
    part_start(&vals, pool, d, node_values, t->nt < 64 ? 22 * d->kept * t->nt + 64 : 0);
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
    pprof_status vs = part_finish(&vals, d);
    if (!st)
        st = vs;
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
        st = pprof__buffer_printf(b, "},\"pruned\":%zu", t->n - d->kept);
    if (!st && t->n_timed && !t->value[1])
        st = time_block(d);
    return st ? st : lit(b, "}");
}

/* ---- the samples' times (docs/flame.md "Time") */

/* Records of w int64s interned in a vec: keys (node, self, values...) and, when summing per
 * slice, entries (tick, node, self, values...). */
typedef struct recs {
    pprof__vec v; /* int64 */
    pprof__htab h;
    size_t w;
    const int64_t *probe;
} recs;

static bool
rec_eq(const void *ctx, uint32_t i, const void *unused)
{
    const recs *r = ctx;
    (void)unused;
    return !memcmp((const int64_t *)r->v.data + (size_t)i * r->w, r->probe, r->w * sizeof(int64_t));
}

/* The index of the record equal to rec, added when new; UINT32_MAX without memory. */
static uint32_t
rec_intern(const pprof_allocator *a, recs *r, const int64_t *rec, bool *added)
{
    size_t w = r->w;
    r->probe = rec;
    uint32_t n = (uint32_t)(r->v.len / w);
    uint32_t id = pprof__htab_intern(&r->h, a, pprof__hash_bytes(0, rec, w * sizeof(int64_t)),
                                     rec_eq, r, NULL, n, added);
    if (id == PPROF_NONE)
        return UINT32_MAX;
    if (*added) {
        if (!pprof__vec_grow(a, &r->v, sizeof(int64_t), r->v.len + w))
            return UINT32_MAX;
        memcpy((int64_t *)r->v.data + r->v.len, rec, w * sizeof(int64_t));
        r->v.len += w;
    }
    return id;
}

/* An entry (tick, node, self, values...) is found by its first three. */
static bool
entry_eq(const void *ctx, uint32_t i, const void *unused)
{
    const recs *r = ctx;
    (void)unused;
    return !memcmp((const int64_t *)r->v.data + (size_t)i * r->w, r->probe, 3 * sizeof(int64_t));
}

static pprof_status
put_u64s(pprof_buffer *b, const int64_t *v, size_t n, size_t stride)
{
    if (!pprof__buffer_reserve(b, 22 * n + 2))
        return PPROF_E_NOMEM;
    b->data[b->len++] = '[';
    for (size_t i = 0; i < n; i++) {
        if (i)
            b->data[b->len++] = ',';
        pprof__flame_put_i64(b, v[i * stride]);
    }
    b->data[b->len++] = ']';
    return PPROF_OK;
}

/* "time":{"start":"NS","tick":NS,"slice":NS,"keys":{"node":[..],"self":[..],"value":[[..]..]},
 * "samples":[dt,key,dt,key,...]}: each sample (or, past max_time_samples, each sum of the
 * samples ending at one frame within one slice) as ticks since the one before and the key of
 * its (drawn node, ends there, values). */
static pprof_status
time_block(dctx *d)
{
    const pprof_flame_tree *t = d->t;
    const pprof_allocator *a = &d->o->allocator;
    size_t n = t->n_timed, nt = t->nt;
    size_t cap = d->o->max_time_samples ? d->o->max_time_samples : 250000;
    bool coarse = n > cap;
    int64_t t0 = t->tm_time[0];
    int64_t tick = coarse ? 20000000 : 1000;
    recs keys = {{NULL, 0, 0}, {0}, nt + 2, NULL}, ents = {{NULL, 0, 0}, {0}, nt + 3, NULL};
    uint32_t *drawn = pprof__malloc(a, t->n * sizeof(uint32_t));
    int64_t *rec = pprof__malloc(a, (nt + 3) * sizeof(int64_t));
    pprof__vec seq = {NULL, 0, 0}; /* (tick, key) per entry */
    pprof_status st = PPROF_OK;
    if (!drawn || !rec || !pprof__htab_init(&keys.h, a, 1024) ||
        !pprof__htab_init(&ents.h, a, coarse ? 4096 : 1)) {
        st = PPROF_E_NOMEM;
        goto out;
    }
    /* a sample in a pruned subtree is drawn at its nearest kept ancestor, not as its self */
    for (size_t i = 0; i < t->n; i++)
        drawn[i] = !d->keep || d->keep[i] ? (uint32_t)i : drawn[t->parent[i]];
    if (coarse) {
        for (size_t k = 0; k < n && !st; k++) {
            uint32_t node = t->tm_node[k];
            rec[0] = (int64_t)(((uint64_t)t->tm_time[k] - (uint64_t)t0) / (uint64_t)tick);
            rec[1] = drawn[node];
            rec[2] = drawn[node] == node;
            ents.probe = rec;
            bool added;
            uint32_t n_ent = (uint32_t)(ents.v.len / (nt + 3));
            uint32_t id = pprof__htab_intern(&ents.h, a, pprof__hash_bytes(0, rec, 3 * 8), entry_eq,
                                             &ents, NULL, n_ent, &added);
            if (id == PPROF_NONE) {
                st = PPROF_E_NOMEM;
                break;
            }
            if (added) {
                if (!pprof__vec_grow(a, &ents.v, sizeof(int64_t), ents.v.len + nt + 3)) {
                    st = PPROF_E_NOMEM;
                    break;
                }
                int64_t *e = (int64_t *)ents.v.data + ents.v.len;
                memcpy(e, rec, 3 * sizeof(int64_t));
                memcpy(e + 3, t->tm_value + k * nt, nt * sizeof(int64_t));
                ents.v.len += nt + 3;
            } else {
                int64_t *e = (int64_t *)ents.v.data + (size_t)id * (nt + 3);
                for (size_t j = 0; j < nt; j++)
                    e[3 + j] = (int64_t)((uint64_t)e[3 + j] + (uint64_t)t->tm_value[k * nt + j]);
            }
        }
    }
    size_t n_out = coarse ? ents.v.len / (nt + 3) : n;
    if (!st && !pprof__vec_grow(a, &seq, sizeof(int64_t), 2 * n_out + 1))
        st = PPROF_E_NOMEM;
    for (size_t k = 0; k < n_out && !st; k++) {
        int64_t tk;
        if (coarse) {
            const int64_t *e = (const int64_t *)ents.v.data + k * (nt + 3);
            tk = e[0];
            memcpy(rec, e + 1, (nt + 2) * sizeof(int64_t));
        } else {
            uint32_t node = t->tm_node[k];
            tk = (int64_t)(((uint64_t)t->tm_time[k] - (uint64_t)t0) / (uint64_t)tick);
            rec[0] = drawn[node];
            rec[1] = drawn[node] == node;
            memcpy(rec + 2, t->tm_value + k * nt, nt * sizeof(int64_t));
        }
        bool added;
        uint32_t key = rec_intern(a, &keys, rec, &added);
        if (key == UINT32_MAX)
            st = PPROF_E_NOMEM;
        ((int64_t *)seq.data)[2 * k] = tk;
        ((int64_t *)seq.data)[2 * k + 1] = key;
    }
    /* ticks as differences: small numbers, the page's bulk */
    for (size_t k = n_out; !st && k-- > 1;)
        ((int64_t *)seq.data)[2 * k] -= ((int64_t *)seq.data)[2 * k - 2];
    size_t nk = keys.v.len / (nt + 2);
    const int64_t *kv = keys.v.data;
    pprof_buffer *b = d->out;
    if (!st)
        st = pprof__buffer_printf(b,
                                  ",\"time\":{\"start\":\"%" PRId64 "\",\"tick\":%" PRId64
                                  ",\"slice\":%" PRId64 ",\"keys\":{\"node\":",
                                  t0, tick, coarse ? tick : (int64_t)0);
    /* node indices as written (kept nodes renumbered) */
    for (size_t k = 0; k < nk && !st; k++)
        ((int64_t *)keys.v.data)[k * (nt + 2)] = d->newidx[kv[k * (nt + 2)]];
    if (!st)
        st = put_u64s(b, kv, nk, nt + 2);
    if (!st)
        st = lit(b, ",\"self\":");
    if (!st)
        st = put_u64s(b, kv + 1, nk, nt + 2);
    if (!st)
        st = lit(b, ",\"value\":[");
    for (size_t j = 0; j < nt && !st; j++) {
        if (j)
            st = lit(b, ",");
        if (!st)
            st = put_u64s(b, kv + 2 + j, nk, nt + 2);
    }
    if (!st)
        st = lit(b, "]},\"samples\":");
    if (!st)
        st = spill(d, SPILL_BYTES);
    if (!st)
        st = put_u64s(b, seq.data, 2 * n_out, 1);
    if (!st)
        st = lit(b, "}");
out:
    pprof__free(a, drawn);
    pprof__free(a, rec);
    pprof__free(a, seq.data);
    pprof__free(a, keys.v.data);
    pprof__free(a, ents.v.data);
    pprof__htab_free(&keys.h, a);
    pprof__htab_free(&ents.h, a);
    return st;
}

/* The header (the names) is written while the nodes kept are chosen, the nodes' per-type arrays
 * while their other arrays are: each part in a buffer of its own on a worker, appended in place
 * (the same bytes on one thread or two). With a sink, out goes to it as it fills. */
pprof_status
pprof__flame_write_data(const pprof_flame_tree *t, const pprof_flame_write_options *o,
                        pprof_buffer *out, pprof__out_file *sink, pprof_error *err)
{
    pprof__pool *pool = t->n >= PARALLEL_NODES ? pprof__pool_new(1) : NULL;
    part head = {0};
    dctx hd = {t, o, NULL, NULL, NULL, 0, NULL};
    size_t names = 1024;
    for (size_t i = 0; i < t->n_names; i++)
        names += t->names[i].name_len + t->names[i].file_len + 6;
    part_start(&head, pool, &hd, header, names);
    pprof__flame_keep k;
    size_t cap = o->max_nodes ? o->max_nodes : 150000;
    pprof_status st =
        pprof__flame_keep_select(t, 0, cap == SIZE_MAX ? 0 : cap, &o->allocator, &k, err);
    /* the whole block in out at once: the names, the nodes' arrays (as i64_array and node_array
     * reserve them) and the per-name ones; with a sink, the largest of them */
    size_t most = names + k.kept * (4 * 12 + 2 * 22 * t->nt) + t->n_names * t->nt * 2 * 22;
    if (sink)
        most = 22 * (k.kept > t->n_names ? k.kept : t->n_names) + SPILL_BYTES;
    if (!st && t->nt < 64)
        reserve(out, most + 4096);
    dctx d = {t, o, out, k.keep, NULL, k.kept, sink};
    pprof_status hs = part_finish(&head, &d);
    if (st) {
        pprof__pool_free(pool);
        return st;
    }
    st = hs;
    d.newidx = pprof__malloc(&o->allocator, (t->n ? t->n : 1) * sizeof(uint32_t));
    if (!d.newidx && !st)
        st = PPROF_E_NOMEM;
    size_t next = 0;
    for (size_t i = 0; i < t->n && !st; i++)
        if (!k.keep || k.keep[i])
            d.newidx[i] = (uint32_t)next++;
    if (!st)
        st = body(&d, pool);
    pprof__pool_free(pool);
    pprof__free(&o->allocator, d.newidx);
    pprof__flame_keep_free(&o->allocator, &k);
    if (st == PPROF_E_NOMEM)
        return pprof__error(err, st, PPROF_NO_OFFSET, "", "out of memory writing the data");
    return st;
}
