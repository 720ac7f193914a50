/* focus/ignore decided on a merge input's wire bytes, before any sample is decoded.
 *
 * When focus and ignore are the only operations, whether a sample survives depends on its
 * location ids alone, through a table of one state per location (ed_focus_state). Most samples
 * of a narrow focus are dropped: reading only their location ids, without decoding them into
 * the batch tables, checking them and copying them, leaves the batches the kept samples alone.
 * The output is the same: the merger's result does not depend on how the samples are grouped,
 * and the dropped samples reach no table of it.
 *
 * A dropped sample is never decoded, so the scan applies the decoder's and pprof_validate's
 * rules for samples itself (wire form, limits, location ids, one value per sample type, label
 * string indices). It is stricter than they are: anything it does not expect (an unknown
 * field, a bad id, a limit reached) makes it give up, and the edit then decodes every sample
 * as usual, which reports the input's first problem as it always does. */
#include <stdatomic.h>

#include "edit-private.h"
#include "pool-private.h"
#include "wire-private.h"

enum { SC_DROP = 0, SC_KEEP = 1, SC_GIVE_UP = 2 };

typedef struct scan {
    const uint8_t *buf, *buf_end;
    const uint64_t *span; /* (offset, length) per sample */
    const pprof__idmap *loc_idx;
    const uint8_t *state; /* FI_* per location index */
    uint64_t n_types, n_str;
    uint8_t *verdict; /* SC_* per sample */
    _Atomic uint64_t stack, values, labels, kept_stack, kept_labels;
    _Atomic bool give_up;
} scan;

/* A label's fields: key, str and num_unit must name strings; num is any number. */
static bool
label_ok(const scan *s, const uint8_t *p, const uint8_t *end)
{
    while (p < end) {
        uint32_t field, wt;
        uint64_t v;
        if (!pprof__tag(&p, end, &field, &wt) || field > 4 || wt != PPROF_WT_VARINT ||
            !pprof__varint(&p, end, &v))
            return false;
        /* index 0 names "" even in a profile without a string table */
        if (field != 3 && v >= s->n_str && v != 0)
            return false;
    }
    return true;
}

/* The location ids of a packed run: their states ORed into *seen (FI_FOCUS and FI_IGNORE are
 * bits), their number into *n; false when one does not name a location. */
static bool
scan_ids(const scan *s, const uint8_t *p, const uint8_t *end, uint8_t *seen, uint64_t *n)
{
    const pprof__idmap *idx = s->loc_idx;
    const uint8_t *state = s->state;
    uint8_t acc = 0;
    uint64_t k = 0;
    if (PPROF__LITTLE_ENDIAN && idx->dense) {
        /* Ids of up to 4 bytes (below 2^28: any dense table's) read 4 bytes at a time with no
         * branch on their length, which is random; longer ones, and the last bytes of the
         * buffer, go the general way below. An id that runs past end leaves p past end. */
        const uint64_t mask = idx->mask;
        const uint8_t *fast_end = s->buf_end - p > 4 ? s->buf_end - 4 : p;
        if (fast_end > end)
            fast_end = end;
        while (p < fast_end) {
            uint32_t w;
            memcpy(&w, p, 4);
            uint32_t stop = ~w & 0x80808080u;
            if (__builtin_expect(!stop, 0))
                break;
            unsigned bits = (unsigned)__builtin_ctz(stop);
            uint32_t x = w & (uint32_t)((UINT64_C(2) << bits) - 1);
            uint32_t id = (x & 0x7fu) | ((x >> 1) & 0x3f80u) | ((x >> 2) & 0x1fc000u) |
                          ((x >> 3) & 0xfe00000u);
            p += (bits >> 3) + 1;
            if ((uint64_t)id - 1 > mask)
                return false;
            acc |= state[id - 1];
            k++;
        }
        if (p > end)
            return false;
    }
    while (p < end) {
        uint64_t id;
        size_t len;
        /* no branch per byte where 8 bytes can be read */
        if (s->buf_end - p >= 8 && (len = pprof__varint8(p, end, &id)) != 0)
            p += len;
        else if (!pprof__varint(&p, end, &id))
            return false;
        uint32_t li = pprof__idmap_find(idx, id);
        if (li == PPROF_NONE)
            return false;
        acc |= state[li];
        k++;
    }
    *seen |= acc;
    *n += k;
    return true;
}

/* SC_KEEP or SC_DROP for one sample body, or SC_GIVE_UP; counts what the decoder would. */
static int
scan_sample(const scan *s, const uint8_t *p, const uint8_t *end, uint64_t *n_stack,
            uint64_t *n_labels)
{
    uint8_t seen = 0;
    uint64_t n_val = 0;
    while (p < end) {
        uint32_t field, wt;
        if (!pprof__tag(&p, end, &field, &wt) || field > 3)
            return SC_GIVE_UP;
        const uint8_t *run_end = end;
        if (wt == PPROF_WT_LEN) {
            uint64_t n;
            if (!pprof__varint(&p, end, &n) || n > (uint64_t)(end - p))
                return SC_GIVE_UP;
            run_end = p + n;
        } else if (wt != PPROF_WT_VARINT || field == 3) {
            return SC_GIVE_UP;
        }
        if (field == 3) {
            if (!label_ok(s, p, run_end))
                return SC_GIVE_UP;
            (*n_labels)++;
            p = run_end;
        } else if (wt == PPROF_WT_VARINT) { /* one id or value, not packed */
            const uint8_t *v_end = p;
            uint64_t v;
            if (!pprof__varint(&v_end, end, &v))
                return SC_GIVE_UP;
            if (field == 2)
                n_val++;
            else if (!scan_ids(s, p, v_end, &seen, n_stack))
                return SC_GIVE_UP;
            p = v_end;
        } else if (field == 1) {
            if (!scan_ids(s, p, run_end, &seen, n_stack))
                return SC_GIVE_UP;
            p = run_end;
        } else {
            while (p < run_end) {
                uint64_t v;
                if (!pprof__varint(&p, run_end, &v))
                    return SC_GIVE_UP;
                n_val++;
            }
        }
    }
    if (n_val != s->n_types)
        return SC_GIVE_UP;
    return (seen & FI_FOCUS) && !(seen & FI_IGNORE) ? SC_KEEP : SC_DROP;
}

static void
scan_part(scan *s, size_t lo, size_t hi)
{
    uint64_t n_stack = 0, n_values = 0, n_labels = 0, kept_stack = 0, kept_labels = 0;
    for (size_t i = lo; i < hi; i++) {
        const uint8_t *body = s->buf + s->span[2 * i];
        uint64_t ns = 0, nl = 0;
        int v = scan_sample(s, body, body + s->span[2 * i + 1], &ns, &nl);
        if (v == SC_GIVE_UP) {
            atomic_store_explicit(&s->give_up, true, memory_order_relaxed);
            return;
        }
        s->verdict[i] = (uint8_t)v;
        n_stack += ns;
        n_labels += nl;
        n_values += s->n_types;
        if (v == SC_KEEP) {
            kept_stack += ns;
            kept_labels += nl;
        }
    }
    atomic_fetch_add_explicit(&s->kept_stack, kept_stack, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->kept_labels, kept_labels, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->stack, n_stack, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->values, n_values, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->labels, n_labels, memory_order_relaxed);
}

typedef struct half {
    scan *s;
    size_t lo, hi;
} half;

static void
scan_half(void *arg)
{
    half *h = arg;
    scan_part(h->s, h->lo, h->hi);
}

bool
ed_prefilter_scan(pprof__ed *e, const uint8_t *state, pprof__vec *kept)
{
    const pprof_profile *p = e->lazy;
    const pprof_read_options *o = &p->lazy_opts;
    size_t n = p->lazy.len / 2;
    memset(kept, 0, sizeof(*kept));
    if (!n || !p->sample_types.len)
        return false;
    scan s = {.buf = p->buf,
              .buf_end = p->buf + p->buf_len,
              .span = p->lazy.data,
              .loc_idx = &p->loc_idx,
              .state = state,
              .n_types = p->sample_types.len,
              .n_str = p->strings.len};
    if (!(s.verdict = pprof__malloc(e->a, n)))
        return false;
    /* The scan pays off when it drops most samples: when the first sixteenth keeps half of
     * its samples or more, decoding every sample costs less. */
    size_t probe = n / 16, probe_kept = 0;
    scan_part(&s, 0, probe);
    for (size_t i = 0; i < probe && !atomic_load(&s.give_up); i++)
        probe_kept += s.verdict[i];
    if (atomic_load(&s.give_up) || (probe && 2 * probe_kept >= probe)) {
        pprof__free(e->a, s.verdict);
        return false;
    }
    /* with threads, the second half of the rest on another core */
    pprof__pool *pool = e->o.threads > 1 && n >= 32768 ? pprof__pool_new(1) : NULL;
    half h = {&s, pool ? probe + (n - probe) / 2 : n, n};
    pprof__job job = {.fn = scan_half, .arg = &h, .name = "pprof-edit-scan"};
    bool helped = pool && pprof__pool_start(pool, &job);
    scan_part(&s, probe, h.lo);
    if (helped)
        pprof__pool_wait(&job);
    else
        scan_half(&h);
    pprof__pool_free(pool);
    bool ok = !atomic_load(&s.give_up) && atomic_load(&s.stack) < o->max_stack_entries &&
              atomic_load(&s.values) < o->max_values && atomic_load(&s.labels) < o->max_labels;
    size_t n_kept = 0;
    for (size_t i = 0; ok && i < n; i++)
        n_kept += s.verdict[i];
    if (ok && n_kept && !pprof__vec_grow(e->a, kept, sizeof(uint64_t), 2 * n_kept))
        ok = false;
    uint64_t *out = kept->data;
    for (size_t i = 0; ok && i < n; i++)
        if (s.verdict[i]) {
            *out++ = s.span[2 * i];
            *out++ = s.span[2 * i + 1];
        }
    kept->len = ok ? 2 * n_kept : 0;
    e->pre.stack = atomic_load(&s.kept_stack);
    e->pre.labels = atomic_load(&s.kept_labels);
    pprof__free(e->a, s.verdict);
    return ok;
}
