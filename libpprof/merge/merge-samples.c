/* Samples: each input sample's labels in canonical order, stack and sample keys, the stage-2
 * thread that interns stacks and samples and sums values, and the carries that make int64
 * overflow independent of the order of the inputs. */
#include "merge-private.h"

/* Labels in canonical order: string labels (str set) before numeric ones, each group stably
 * sorted by key content, so the value order inside one key is kept (as in Go's key). */
static int
label_order(const pprof_merger *m, const mlabel *a, const mlabel *b)
{
    int ca = a->str == 0, cb = b->str == 0;
    if (ca != cb)
        return ca - cb;
    return sid_cmp(m, a->key, b->key);
}

/* Short label lists (nearly all) are sorted in place by insertion. */
#define LABELS_SHORT 16

/* Sorts n labels into canonical order, stably, through tmp (n entries when n > LABELS_SHORT):
 * insertion sort on runs of LABELS_SHORT, then bottom-up merges, so a sample with very many
 * labels costs O(n log n) comparisons. */
static void
sort_labels(const pprof_merger *m, mlabel *lab, mlabel *tmp, size_t n)
{
    for (size_t lo = 0; lo < n; lo += LABELS_SHORT) {
        size_t hi = lo + LABELS_SHORT < n ? lo + LABELS_SHORT : n;
        for (size_t i = lo + 1; i < hi; i++) {
            mlabel x = lab[i];
            size_t k = i;
            while (k > lo && label_order(m, &lab[k - 1], &x) > 0) {
                lab[k] = lab[k - 1];
                k--;
            }
            lab[k] = x;
        }
    }
    mlabel *from = lab, *to = tmp;
    for (size_t w = LABELS_SHORT; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) /* ties take the left run: stable */
                to[o++] = label_order(m, &from[j], &from[i]) < 0 ? from[j++] : from[i++];
            while (i < mid)
                to[o++] = from[i++];
            while (j < hi)
                to[o++] = from[j++];
        }
        mlabel *t = from;
        from = to;
        to = t;
    }
    if (from != lab)
        memcpy(lab, from, n * sizeof(mlabel));
}

static bool
labels_equal(const mlabel *a, const mlabel *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].key != b[i].key || a[i].str != b[i].str || a[i].unit != b[i].unit ||
            a[i].num != b[i].num)
            return false;
    return true;
}

/* Samples are absorbed in two stages. Stage 1 (the calling thread) maps a sample onto the
 * merger's strings, functions and locations: its stack becomes merged location indices, its
 * labels merged string ids in canonical order, its values the merged columns. Stage 2 interns
 * the stacks and the samples and sums the values. Stage 2 owns the stack and sample tables and
 * stage 1 everything else, so with threads >= 2 stage 2 runs on a thread of its own, a batch
 * behind stage 1 (a job of the merger's pool, waited for when the merger is freed). Stage 2 takes
 * the samples in input order either way, so nothing depends on it. Within a batch, stage 2 works in
 * groups whose hash-table slots it prefetches a pass ahead: those tables are far larger than the
 * caches, and a miss per probe was most of the merge. Errors are reported as a one-at-a-time
 * merge would: a sample's error wins over any error of a later sample. */
/* Samples per batch handed to stage 2: an eighth of the input, so that the stages overlap
 * within a large input, within bounds that keep the handovers rare and the batches in cache.
 * Small inputs overlap across inputs (an add leaves its last batch in stage 2), so their batches
 * need not be small: each handover wakes a thread. */
#define SBATCH_MIN 1024
#define SBATCH_MAX 4096
#define PF 32 /* prefetch group */

/* The stage-2 keys' hash bits (stage 1 computes a stack's while mapping it, the same way). */
static uint32_t
stack_hash(const uint32_t *stk, size_t n)
{
    uint64_t h = pprof__hash_combine(4, n);
    for (size_t j = 0; j < n; j++)
        h = pprof__hash_combine(h, stk[j]);
    return (uint32_t)(pprof__mix64(h) >> 32);
}

static uint32_t
sample_hash(uint32_t sid, const mlabel *lab, size_t n_lab)
{
    uint64_t h = pprof__hash_combine(pprof__hash_combine(5, sid), n_lab);
    for (size_t j = 0; j < n_lab; j++)
        h = pprof__hash_combine(
            pprof__hash_combine(pprof__hash_combine(pprof__hash_combine(h, lab[j].key), lab[j].str),
                                lab[j].unit),
            (uint64_t)lab[j].num);
    return (uint32_t)(pprof__mix64(h) >> 32);
}

/* The stacks' and samples' hash tables serve absorbing only, and are the largest of the
 * merger's: writing gives them back for the encoding to reuse, and the next add builds them
 * again from the stacks and samples (stage 2 is idle between adds). */
void
pprof__merge_release_s2_tables(pprof_merger *m)
{
    pprof__htab *ts[] = {&m->stack_ht, &m->sample_ht};
    for (int k = 0; k < 2; k++) {
        pprof__free(&m->a, ts[k]->slot);
        ts[k]->slot = NULL;
        ts[k]->mask = ts[k]->count = 0;
    }
    m->s2_tables_gone = true;
}

static bool
rebuild_s2_tables(pprof_merger *m)
{
    if (!m->s2_tables_gone)
        return true;
    if (!pprof__htab_reserve(&m->stack_ht, &m->a, m->stacks.len) ||
        !pprof__htab_reserve(&m->sample_ht, &m->a, m->samples.len))
        return false;
    const mstack *sts = m->stacks.data;
    for (size_t i = 0; i < m->stacks.len; i++)
        pprof__htab_add(&m->stack_ht,
                        stack_hash((const uint32_t *)m->stack.data + sts[i].off, sts[i].n),
                        (uint32_t)i);
    const msample *ss = m->samples.data;
    const mlabel *labs = m->labels.data;
    for (size_t i = 0; i < m->samples.len; i++)
        pprof__htab_add(&m->sample_ht, sample_hash(ss[i].stack, labs + ss[i].lab_off, ss[i].n_lab),
                        (uint32_t)i);
    m->s2_tables_gone = false;
    return true;
}

/* Stage 2 for one group: the stack interned, the sample hashed. */
static bool
s2_stack(pprof_merger *m, const merge_batch *b, psample *q)
{
    const uint32_t *stk = (const uint32_t *)b->stk.data + q->stk_off;
    uint32_t n_loc = q->n_loc;
    if (pprof__htab_full(&m->stack_ht) && !pprof__htab_reserve(&m->stack_ht, &m->a, 1))
        return false;
    pprof__htab_probe slot;
    uint32_t sid;
    {
        const mstack *sts = m->stacks.data;
        const uint32_t *all = m->stack.data;
        HT_SCAN(&m->stack_ht, q->h32, slot, sid,
                (sts[sid].n == n_loc &&
                 (n_loc == 0 || !memcmp(all + sts[sid].off, stk, n_loc * sizeof(uint32_t)))));
    }
    if (sid == PPROF_NONE) {
        if (m->stack.len + n_loc >= UINT32_MAX || m->stacks.len >= UINT32_MAX - 1 ||
            !pprof__vec_grow(&m->a, &m->stack, sizeof(uint32_t), m->stack.len + n_loc))
            return false;
        mstack *ns = pprof__vec_push(&m->a, &m->stacks, sizeof(*ns));
        if (!ns)
            return false;
        ns->off = (uint32_t)m->stack.len;
        ns->n = n_loc;
        if (n_loc)
            memcpy((uint32_t *)m->stack.data + m->stack.len, stk, n_loc * sizeof(uint32_t));
        m->stack.len += n_loc;
        sid = (uint32_t)(m->stacks.len - 1);
        pprof__htab_insert_at(&m->stack_ht, &slot, sid);
    }
    q->sid = sid;
    const mlabel *lab = (const mlabel *)b->lab.data + q->lab_off;
    q->h32 = sample_hash(sid, lab, q->n_lab);
    pprof__htab_prefetch(&m->sample_ht, q->h32);
    return true;
}

static uint32_t
carry_hash(uint64_t at)
{
    return (uint32_t)(pprof__mix64(pprof__hash_combine(4, at)) >> 32);
}

carry *
pprof__merge_carry_find(const pprof_merger *m, uint64_t at)
{
    if (!m->carries.len)
        return NULL;
    carry *cs = m->carries.data;
    pprof__htab_probe slot;
    uint32_t idx;
    HT_SCAN(&m->carry_ht, carry_hash(at), slot, idx, cs[idx].at == at);
    return idx == PPROF_NONE ? NULL : &cs[idx];
}

/* Counts a wrap of value `at` (dir +1 upward, -1 downward); false when out of memory. */
static bool
carry_note(pprof_merger *m, uint64_t at, int dir, uint32_t input, uint32_t si, int64_t sum,
           int64_t add)
{
    carry *c = pprof__merge_carry_find(m, at);
    if (c) {
        c->n += dir;
        return true;
    }
    if (pprof__htab_full(&m->carry_ht) && !pprof__htab_reserve(&m->carry_ht, &m->a, 1))
        return false;
    if (!(c = pprof__vec_push(&m->a, &m->carries, sizeof(*c))))
        return false;
    carry x = {at, dir, input, si, sum, add};
    *c = x;
    pprof__htab_add(&m->carry_ht, carry_hash(at), (uint32_t)(m->carries.len - 1));
    return true;
}

/* The carries after the columns were reshaped (keep[i] = old column of new column i). */
bool
pprof__merge_carry_reshape(pprof_merger *m, const uint32_t *keep, size_t n_old, size_t n_new)
{
    carry *cs = m->carries.data;
    size_t k = 0;
    for (size_t i = 0; i < m->carries.len; i++) {
        uint64_t s = cs[i].at / n_old, t = cs[i].at % n_old;
        for (size_t j = 0; j < n_new; j++) {
            if (keep[j] == t) {
                cs[k] = cs[i];
                cs[k++].at = s * n_new + j;
                break;
            }
        }
    }
    m->carries.len = k;
    pprof__htab_clear(&m->carry_ht);
    if (k && !pprof__htab_reserve(&m->carry_ht, &m->a, k))
        return false;
    for (size_t i = 0; i < k; i++)
        pprof__htab_add(&m->carry_ht, carry_hash(cs[i].at), (uint32_t)i);
    return true;
}

/* Stage 2: the sample found or added, its values summed. */
static pprof_status
s2_sample(pprof_merger *m, merge_batch *b, const psample *q)
{
    const mlabel *lab = (const mlabel *)b->lab.data + q->lab_off;
    uint32_t sid = q->sid, h32 = q->h32, n_lab = q->n_lab;
    size_t nt = b->n_types;
    if (pprof__htab_full(&m->sample_ht) && !pprof__htab_reserve(&m->sample_ht, &m->a, 1))
        return PPROF_E_NOMEM;
    pprof__htab_probe slot;
    uint32_t idx;
    const msample *ss = m->samples.data;
    const mlabel *labels = m->labels.data;
    HT_SCAN(&m->sample_ht, h32, slot, idx,
            (ss[idx].stack == sid && ss[idx].n_lab == n_lab &&
             labels_equal(labels + ss[idx].lab_off, lab, n_lab)));
    int64_t *vals;
    if (idx == PPROF_NONE) {
        if (m->labels.len + n_lab >= UINT32_MAX || m->samples.len >= UINT32_MAX - 1)
            return PPROF_E_NOMEM;
        if (!pprof__vec_grow(&m->a, &m->labels, sizeof(mlabel), m->labels.len + n_lab) ||
            !pprof__vec_grow(&m->a, &m->values, sizeof(int64_t), m->values.len + nt))
            return PPROF_E_NOMEM;
        msample *ns = pprof__vec_push(&m->a, &m->samples, sizeof(*ns));
        if (!ns)
            return PPROF_E_NOMEM;
        const mstack st_ = PPROF__AT(m->stacks, mstack, sid);
        ns->lab_off = (uint32_t)m->labels.len;
        ns->n_lab = n_lab;
        ns->stack = sid;
        m->sample_bound += PPROF__SAMPLE_BOUND(st_.n, nt, n_lab);
        m->sample_guess += 4 + 2 * (size_t)st_.n + 5 * nt + 12 * (size_t)n_lab;
        if (n_lab)
            memcpy((mlabel *)m->labels.data + m->labels.len, lab, n_lab * sizeof(mlabel));
        m->labels.len += n_lab;
        vals = (int64_t *)m->values.data + m->values.len;
        memset(vals, 0, nt * sizeof(int64_t));
        m->values.len += nt;
        idx = (uint32_t)(m->samples.len - 1);
        pprof__htab_insert_at(&m->sample_ht, &slot, idx);
    } else {
        vals = (int64_t *)m->values.data + (size_t)idx * nt;
    }
    const int64_t *add = (const int64_t *)b->val.data + q->val_off;
    for (size_t t = 0; t < nt; t++) {
        int64_t sum;
        if (__builtin_add_overflow(vals[t], add[t], &sum) &&
            !carry_note(m, (uint64_t)idx * nt + t, add[t] > 0 ? 1 : -1, b->input, q->si, vals[t],
                        add[t]))
            return PPROF_E_NOMEM;
        vals[t] = sum;
    }
    return PPROF_OK;
}

/* Room in stage 2's tables for what stage 1 expects of the rest of the input, faulted in by a
 * thread of its own while stage 2 goes on. A hint: failing to grow here is no error (growing
 * later is, where it is needed). */
static void
s2_make_room(pprof_merger *m, const merge_batch *b)
{
    pprof__prefault *pf = &m->s2_pf;
    pprof__prefault_join(pf);
    memset(pf, 0, sizeof(*pf));
    if (!m->s2_seen)
        return;
    struct {
        pprof__vec *v;
        size_t elem;
    } t[4] = {{&m->stack, sizeof(uint32_t)},
              {&m->labels, sizeof(mlabel)},
              {&m->samples, sizeof(msample)},
              {&m->stacks, sizeof(mstack)}};
    size_t new_samples = 0;
    for (size_t i = 0; i < 4; i++) {
        /* what the input's samples so far added, per sample, for the rest and an eighth */
        size_t added = t[i].v->len - m->s2_mark[i];
        size_t more = (size_t)((double)added / (double)m->s2_seen * (double)b->want_rest * 1.125);
        if (i == 2)
            new_samples = more;
        if (more && pprof__vec_grow(&m->a, t[i].v, t[i].elem, t[i].v->len + more))
            pprof__prefault_add(pf, (uint8_t *)t[i].v->data + t[i].v->len * t[i].elem,
                                more * t[i].elem);
    }
    size_t nv = new_samples * b->n_types;
    if (nv && pprof__vec_grow(&m->a, &m->values, sizeof(int64_t), m->values.len + nv))
        pprof__prefault_add(pf, (int64_t *)m->values.data + m->values.len, nv * sizeof(int64_t));
    pprof__prefault_start(pf, m->pool);
}

/* Stage 2 over a batch; stops at the first failure and records it in the batch. */
static void
s2_batch(pprof_merger *m, merge_batch *b)
{
    psample *q = b->q.data;
    size_t n = b->q.len;
    b->st = PPROF_OK;
    if (b->input_start) {
        const pprof__vec *v[4] = {&m->stack, &m->labels, &m->samples, &m->stacks};
        for (int i = 0; i < 4; i++)
            m->s2_mark[i] = v[i]->len;
        m->s2_seen = 0;
    }
    if (b->want_rest)
        s2_make_room(m, b);
    m->s2_seen += n;
    for (size_t base = 0; base < n; base += PF) {
        size_t k = n - base < PF ? n - base : PF;
        for (size_t i = 0; i < k; i++)
            pprof__htab_prefetch(&m->stack_ht, q[base + i].h32);
        for (size_t i = 0; i < k; i++)
            if (!s2_stack(m, b, &q[base + i])) {
                b->st = PPROF_E_NOMEM;
                return;
            }
        for (size_t i = 0; i < k; i++)
            if ((b->st = s2_sample(m, b, &q[base + i])))
                return;
    }
}

static void
s2_thread(void *arg)
{
    pprof_merger *m = arg;
    pthread_mutex_lock(&m->s2_mu);
    for (;;) {
        while (m->s2_done == m->s2_sent && !m->s2_quit)
            pthread_cond_wait(&m->s2_cv, &m->s2_mu);
        if (m->s2_done == m->s2_sent)
            break; /* quit, with nothing left */
        merge_batch *b = &m->batch[m->s2_done % 2];
        bool skip = m->s2_failed;
        pthread_mutex_unlock(&m->s2_mu);
        if (!skip)
            s2_batch(m, b);
        pthread_mutex_lock(&m->s2_mu);
        if (!skip && b->st)
            m->s2_failed = true;
        m->s2_done++;
        pthread_cond_broadcast(&m->s2_cv);
    }
    pthread_mutex_unlock(&m->s2_mu);
}

/* Hands the batch being filled to stage 2 and returns the next one to fill, once stage 2 is
 * done with it. Without a stage-2 thread the batch is processed here and now. */
static merge_batch *
s2_send(pprof_merger *m)
{
    merge_batch *b = &m->batch[m->s2_sent % 2];
    if (!m->s2_running) {
        if (!m->s2_failed) {
            s2_batch(m, b);
            m->s2_failed = b->st != PPROF_OK;
        }
        m->s2_sent++;
        m->s2_done++;
    } else {
        pthread_mutex_lock(&m->s2_mu);
        m->s2_sent++;
        pthread_cond_broadcast(&m->s2_cv);
        while (m->s2_done + 1 < m->s2_sent) /* the other batch is still being absorbed */
            pthread_cond_wait(&m->s2_cv, &m->s2_mu);
        pthread_mutex_unlock(&m->s2_mu);
    }
    merge_batch *next = &m->batch[m->s2_sent % 2];
    next->input_start = false;
    next->want_rest = 0;
    next->q.len = next->stk.len = next->lab.len = next->val.len = 0;
    next->n_types = m->n_types;
    next->input = (uint32_t)m->n_inputs;
    return next;
}

/* Waits until stage 2 has absorbed everything sent. */
static void
s2_drain(pprof_merger *m)
{
    if (!m->s2_running)
        return;
    pthread_mutex_lock(&m->s2_mu);
    while (m->s2_done < m->s2_sent)
        pthread_cond_wait(&m->s2_cv, &m->s2_mu);
    pthread_mutex_unlock(&m->s2_mu);
}

static void
s2_start(pprof_merger *m)
{
    if (m->s2_running || m->o.threads < 2 || m->s2_tried)
        return;
    m->s2_tried = true; /* one attempt: without a thread, stage 2 runs inline */
    if (pthread_mutex_init(&m->s2_mu, NULL))
        return;
    if (pthread_cond_init(&m->s2_cv, NULL)) {
        pthread_mutex_destroy(&m->s2_mu);
        return;
    }
    m->s2_job = (pprof__job){.fn = s2_thread, .arg = m, .name = "pprof-merge-s2"};
    if (!pprof__pool_start(m->pool, &m->s2_job)) {
        pthread_cond_destroy(&m->s2_cv);
        pthread_mutex_destroy(&m->s2_mu);
        return;
    }
    m->s2_running = true;
}

void
pprof__merge_s2_stop(pprof_merger *m)
{
    if (!m->s2_running)
        return;
    pthread_mutex_lock(&m->s2_mu);
    m->s2_quit = true;
    pthread_cond_broadcast(&m->s2_cv);
    pthread_mutex_unlock(&m->s2_mu);
    pprof__pool_wait(&m->s2_job);
    pthread_cond_destroy(&m->s2_cv);
    pthread_mutex_destroy(&m->s2_mu);
    m->s2_running = false;
}

/* pprof__vec_grow without the call when there is room (nearly always: per sample). */
static inline bool
room(const pprof_allocator *a, pprof__vec *v, size_t elem, size_t need)
{
    return need <= v->cap || pprof__vec_grow(a, v, elem, need);
}

/* pprof__merge_map_str without the call when the string was mapped before (nearly always: a
 * label's key, value and unit). */
static inline pprof_status
label_str(in_ctx *c, int64_t idx, uint32_t *out, const char *path_fmt, size_t gsi, size_t j)
{
    if (idx >= 0 && (uint64_t)idx < c->p->strings.len && c->str_memo[idx] != PPROF_NONE) {
        *out = c->str_memo[idx];
        return PPROF_OK;
    }
    return pprof__merge_map_str(c, idx, out, path_fmt, gsi, j);
}

/* Stage 1 for one sample (index si in p's sample table, the input's sample si + sample_base):
 * checked and mapped into batch b, or nothing when all its values are zero. */
static pprof_status
s1_sample(in_ctx *c, size_t si, merge_batch *b)
{
    pprof_merger *m = c->m;
    const pprof_profile *p = c->p;
    pprof_sample s = pprof_profile_sample(p, si);
    size_t gsi = si + c->sample_base;
    char path[128];
    if (s.n_value != p->sample_types.len) {
        pprof__path(path, "sample[%zu].value", gsi);
        return pprof__merge_bad(c, path, "sample has %zu values but there are %zu sample types",
                                s.n_value, p->sample_types.len);
    }
    /* Zero in the input's own columns, not in the merged ones: those depend on the inputs
     * absorbed so far (type intersection), and whether a sample is checked and its locations
     * taken must not. A sample zero in the kept columns only is dropped by finish. */
    bool nonzero = false;
    for (size_t t = 0; t < s.n_value; t++)
        nonzero |= s.value[t] != 0;
    if (!nonzero)
        return PPROF_OK;
    size_t nt = b->n_types;
    if (b->stk.len + s.n_location_id >= UINT32_MAX ||
        !room(&m->a, &b->stk, sizeof(uint32_t), b->stk.len + s.n_location_id) ||
        !room(&m->a, &b->lab, sizeof(mlabel),
              b->lab.len + s.n_label * (s.n_label > LABELS_SHORT ? 2 : 1)) ||
        !room(&m->a, &b->val, sizeof(int64_t), b->val.len + nt) ||
        !room(&m->a, &b->q, sizeof(psample), b->q.len + 1))
        return nomem(m, c->err);
    psample *q = (psample *)b->q.data + b->q.len;
    q->si = (uint32_t)gsi;
    q->stk_off = (uint32_t)b->stk.len;
    q->n_loc = (uint32_t)s.n_location_id;
    uint32_t *stk = (uint32_t *)b->stk.data + q->stk_off;
    for (size_t j = 0; j < s.n_location_id; j++) {
        uint32_t li = pprof__idmap_find(&p->loc_idx, s.location_id[j]);
        if (li == PPROF_NONE) {
            pprof__path(path, "sample[%zu].location_id[%zu]", gsi, j);
            return pprof__merge_bad(c, path, "location id %llu does not exist",
                                    (unsigned long long)s.location_id[j]);
        }
        stk[j] = c->loc_memo[li]; /* most frames were mapped before */
        if (stk[j] == PPROF_NONE) {
            pprof_status st = pprof__merge_map_location(c, li, &stk[j]);
            if (st)
                return st;
        }
    }
    q->h32 = stack_hash(stk, s.n_location_id);
    q->lab_off = (uint32_t)b->lab.len;
    q->n_lab = (uint32_t)s.n_label;
    mlabel *lab = (mlabel *)b->lab.data + q->lab_off;
    for (size_t j = 0; j < s.n_label; j++) {
        const pprof_label *l = &s.label[j];
        pprof_status st;
        mlabel x = {0, 0, 0, l->num};
        if ((st = label_str(c, l->key, &x.key, "sample[%zu].label[%zu].key", gsi, j)) ||
            (st = label_str(c, l->str, &x.str, "sample[%zu].label[%zu].str", gsi, j)) ||
            (st = label_str(c, l->num_unit, &x.unit, "sample[%zu].label[%zu].num_unit", gsi, j)))
            return st;
        lab[j] = x;
    }
    sort_labels(m, lab, lab + s.n_label, s.n_label); /* scratch: the room grown past them */
    q->val_off = (uint32_t)b->val.len;
    int64_t *val = (int64_t *)b->val.data + q->val_off;
    for (size_t t = 0; t < nt; t++)
        val[t] = s.value[c->col_of[t]];
    b->stk.len += s.n_location_id;
    b->lab.len += s.n_label;
    b->val.len += nt;
    b->q.len++;
    return PPROF_OK;
}

/* Waits until stage 2 has absorbed the batches of the inputs added so far. An add returns with
 * its input's last batch still in stage 2, which finishes it while the next input's tables are
 * mapped; whatever touches stage 2's tables on the calling thread settles first. Stage 2's
 * failure (out of memory) is reported here. */
pprof_status
pprof__merge_s2_settle(pprof_merger *m, pprof_error *err)
{
    if (!m->s2_pending)
        return PPROF_OK;
    m->s2_pending = false;
    s2_drain(m);
    pprof__prefault_join(&m->s2_pf); /* stage 2 is idle */
    if (m->s2_failed)
        for (int k = 0; k < 2; k++)
            if (m->batch[k].st) {
                m->failed = m->batch[k].st;
                return nomem(m, err);
            }
    return PPROF_OK;
}

/* Room for everything p could add to stage 2's tables, made up front (as reserve_for in
 * merge.c does for stage 1's). */
static bool
reserve_s2(pprof_merger *m, const pprof_profile *p)
{
    const pprof_allocator *a = &m->a;
    size_t ns = p->samples.len + p->lazy.len / 2;
    return pprof__htab_reserve(&m->stack_ht, a, ns) && pprof__htab_reserve(&m->sample_ht, a, ns) &&
           pprof__vec_grow(a, &m->stacks, sizeof(mstack), m->stacks.len + ns) &&
           pprof__vec_grow(a, &m->stack, sizeof(uint32_t), m->stack.len + p->stack.len) &&
           pprof__vec_grow(a, &m->samples, sizeof(msample), m->samples.len + ns) &&
           pprof__vec_grow(a, &m->labels, sizeof(mlabel), m->labels.len + p->labels.len) &&
           pprof__vec_grow(a, &m->values, sizeof(int64_t),
                           m->values.len + ns * p->sample_types.len);
}

/* A merge input's samples are decoded a part at a time, so the input never holds more than one
 * part decoded (a decoded sample table is several times its encoding). */
pprof_status
pprof__merge_absorb_all_samples(in_ctx *c)
{
    pprof_merger *m = c->m;
    pprof_profile *p = (pprof_profile *)c->p; /* only merge inputs, which the merger may decode */
    size_t lazy = p->lazy.len / 2, total = lazy ? lazy : p->samples.len;
    pprof_status st = pprof__merge_s2_settle(m, c->err);
    if (st)
        return st;
    if (!reserve_s2(m, p) || !rebuild_s2_tables(m))
        return nomem(m, c->err);
    s2_start(m);
    merge_batch *b = &m->batch[m->s2_sent % 2];
    b->input_start = true;
    b->input = c->input;
    b->want_rest = 0;
    b->q.len = b->stk.len = b->lab.len = b->val.len = 0;
    b->n_types = m->n_types;
    size_t sbatch = total / 8 < SBATCH_MIN   ? SBATCH_MIN
                    : total / 8 > SBATCH_MAX ? SBATCH_MAX
                                             : total / 8;
    for (size_t base = 0; base < total && st == PPROF_OK; base += PPROF__LAZY_BATCH) {
        size_t n = total - base < PPROF__LAZY_BATCH ? total - base : PPROF__LAZY_BATCH;
        if (base == PPROF__LAZY_BATCH) /* stage 2 has seen a batch's worth of this input by then */
            b->want_rest = total - base;
        if (lazy && (st = pprof__decode_samples(p, base, n, c->err))) {
            if (c->err) { /* name the input, as the merger's own errors do */
                char msg[sizeof(c->err->message)];
                snprintf(msg, sizeof(msg), "%.100s: %.150s", c->name, c->err->message);
                memcpy(c->err->message, msg, sizeof(msg));
            }
            m->failed = st;
            break;
        }
        if (c->validate_samples && !(base == 0 && c->first_batch_valid) &&
            (st = pprof__validate_part(p, PPROF__VALIDATE_SAMPLES, base, c->name, c->err))) {
            m->failed = st;
            break;
        }
        c->sample_base = lazy ? base : 0;
        for (size_t i = lazy ? 0 : base; i < (lazy ? n : base + n); i++) {
            if ((st = s1_sample(c, i, b)))
                break;
            if (b->q.len == sbatch)
                b = s2_send(m);
        }
    }
    /* The samples before a stage-1 failure are absorbed first: an overflow among them is the
     * earlier error. */
    if (b->q.len)
        b = s2_send(m);
    m->s2_pending = true;
    if (st == PPROF_OK && m->s2_running)
        return PPROF_OK;
    pprof_status st2 = pprof__merge_s2_settle(m, c->err);
    return st2 ? st2 : st;
}
