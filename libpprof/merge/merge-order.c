/* Canonical order: every table sorted by content, stacks by radix passes over their frames'
 * ranks, samples by stack rank then labels; on up to m->o.threads threads. */
#include "merge-private.h"

/* Merges the sorted runs v[0, h) and v[h, n), stably; tmp holds h items. */
static void
merge_halves(uint32_t *v, uint32_t *tmp, size_t h, size_t n, cmp_fn cmp, const void *ctx)
{
    if (cmp(ctx, v[h - 1], v[h]) <= 0)
        return;
    memcpy(tmp, v, h * sizeof(uint32_t));
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        v[k++] = cmp(ctx, v[j], tmp[i]) < 0 ? v[j++] : tmp[i++];
    while (i < h)
        v[k++] = tmp[i++];
}

/* Stable merge sort of uint32 items with a context comparator (qsort_r is not portable). */
static void
msort(uint32_t *v, uint32_t *tmp, size_t n, cmp_fn cmp, const void *ctx)
{
    if (n < 16) {
        for (size_t i = 1; i < n; i++) {
            uint32_t x = v[i];
            size_t k = i;
            while (k > 0 && cmp(ctx, v[k - 1], x) > 0) {
                v[k] = v[k - 1];
                k--;
            }
            v[k] = x;
        }
        return;
    }
    size_t h = n / 2;
    msort(v, tmp, h, cmp, ctx);
    msort(v + h, tmp, n - h, cmp, ctx);
    merge_halves(v, tmp, h, n, cmp, ctx);
}

typedef struct sort_job {
    uint32_t *v, *tmp;
    size_t n;
    cmp_fn cmp;
    const void *ctx;
} sort_job;

static void
sort_half(void *c, size_t lo, size_t hi)
{
    const sort_job *j = c;
    size_t h = j->n / 2; /* where msort splits, so the result is the same as one msort's */
    for (size_t k = lo; k < hi; k++) {
        if (k == 0)
            msort(j->v, j->tmp, h, j->cmp, j->ctx);
        else
            msort(j->v + h, j->tmp + h, j->n - h, j->cmp, j->ctx);
    }
}

/* msort with its two halves sorted at once (tmp needs n entries here, not n / 2). */
static void
psort(uint32_t *v, uint32_t *tmp, size_t n, cmp_fn cmp, const void *ctx, pprof__pool *pool,
      unsigned threads)
{
    if (threads < 2 || n < 4096) {
        msort(v, tmp, n, cmp, ctx);
        return;
    }
    sort_job j = {v, tmp, n, cmp, ctx};
    pprof__par_for(pool, 2, 2, 1, sort_half, &j);
    merge_halves(v, tmp, n / 2, n, cmp, ctx);
}

int
pprof__merge_cmp_str(const void *ctx, uint32_t a, uint32_t b)
{
    const merge_ranks *f = ctx;
    return str_cmp(mstr(f->m, a), mstr(f->m, b));
}

#define CMP(x, y)                                                                                  \
    do {                                                                                           \
        if ((x) != (y))                                                                            \
            return (x) < (y) ? -1 : 1;                                                             \
    } while (0)

int
pprof__merge_cmp_mapping(const void *ctx, uint32_t a, uint32_t b)
{
    const merge_ranks *f = ctx;
    const mmapping *x = &PPROF__AT(f->m->mappings, mmapping, a);
    const mmapping *y = &PPROF__AT(f->m->mappings, mmapping, b);
    CMP(x->size, y->size);
    CMP(x->offset, y->offset);
    CMP(f->srank[x->key_str], f->srank[y->key_str]);
    return 0;
}

int
pprof__merge_cmp_function(const void *ctx, uint32_t a, uint32_t b)
{
    const merge_ranks *f = ctx;
    const mfunction *x = &PPROF__AT(f->m->functions, mfunction, a);
    const mfunction *y = &PPROF__AT(f->m->functions, mfunction, b);
    CMP(f->srank[x->name], f->srank[y->name]);
    CMP(f->srank[x->system_name], f->srank[y->system_name]);
    CMP(f->srank[x->filename], f->srank[y->filename]);
    CMP(x->start_line, y->start_line);
    return 0;
}

int
pprof__merge_cmp_location(const void *ctx, uint32_t a, uint32_t b)
{
    const merge_ranks *f = ctx;
    const mlocation *x = &PPROF__AT(f->m->locations, mlocation, a);
    const mlocation *y = &PPROF__AT(f->m->locations, mlocation, b);
    uint64_t mx = x->mapping == PPROF_NONE ? 0 : (uint64_t)f->mrank[x->mapping] + 1;
    uint64_t my = y->mapping == PPROF_NONE ? 0 : (uint64_t)f->mrank[y->mapping] + 1;
    CMP(mx, my);
    CMP(x->rel, y->rel);
    CMP(x->folded, y->folded);
    const mline *lx = (const mline *)f->m->lines.data + x->line_off;
    const mline *ly = (const mline *)f->m->lines.data + y->line_off;
    for (uint32_t i = 0; i < x->n_line && i < y->n_line; i++) {
        CMP(f->frank[lx[i].fn], f->frank[ly[i].fn]);
        CMP(lx[i].line, ly[i].line);
        CMP(lx[i].column, ly[i].column);
    }
    CMP(x->n_line, y->n_line);
    return 0;
}

/* The ranks of frames [from, from + per) of a stack packed into one integer, most significant
 * first, each as rank + 1 in `bits` bits and 0 past the stack's end: keys order those frames
 * as canonical order does, rank by rank, and a stack that ends before one that goes on. */
static inline uint64_t
stack_key(const merge_ranks *f, uint32_t s, uint32_t from, unsigned bits, unsigned per)
{
    const mstack *x = &PPROF__AT(f->m->stacks, mstack, s);
    const uint32_t *st = (const uint32_t *)f->m->stack.data + x->off;
    uint64_t k = 0;
    for (uint32_t j = from; j < from + per; j++)
        k = (k << bits) | (j < x->n ? (uint64_t)f->lrank[f->target[st[j]]] + 1 : 0);
    return k;
}

#define RADIX_BITS 11
#define RADIX (1u << RADIX_BITS)

/* Stable sort of n (key, item) pairs: insertion sort when short, else LSD radix sort that skips
 * digits every key shares. kt and vt are scratch of n entries; cnt has RADIX. */
static void
sort_pairs(uint64_t *k, uint32_t *v, uint64_t *kt, uint32_t *vt, size_t n, uint32_t *cnt)
{
    if (n < 48) {
        for (size_t i = 1; i < n; i++) {
            uint64_t x = k[i];
            uint32_t y = v[i];
            size_t j = i;
            for (; j > 0 && k[j - 1] > x; j--) {
                k[j] = k[j - 1];
                v[j] = v[j - 1];
            }
            k[j] = x;
            v[j] = y;
        }
        return;
    }
    uint64_t any = 0, all = ~(uint64_t)0;
    for (size_t i = 0; i < n; i++) {
        any |= k[i];
        all &= k[i];
    }
    for (unsigned shift = 0; shift < 64; shift += RADIX_BITS) {
        if ((((any ^ all) >> shift) & (RADIX - 1)) == 0) /* the same digit in every key */
            continue;
        memset(cnt, 0, RADIX * sizeof(uint32_t));
        for (size_t i = 0; i < n; i++)
            cnt[(k[i] >> shift) & (RADIX - 1)]++;
        uint32_t sum = 0;
        for (size_t d = 0; d < RADIX; d++) {
            uint32_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) {
            uint32_t at = cnt[(k[i] >> shift) & (RADIX - 1)]++;
            kt[at] = k[i];
            vt[at] = v[i];
        }
        memcpy(k, kt, n * sizeof(uint64_t));
        memcpy(v, vt, n * sizeof(uint32_t));
    }
}

typedef struct stack_run {
    uint32_t lo, hi, from; /* ord[lo, hi) share frames [0, from) */
} stack_run;

typedef struct stack_sort {
    const merge_ranks *f;
    uint32_t *ord, *tmp; /* tmp: scratch of n */
    uint64_t *key, *kt;  /* kt: scratch of n */
    uint8_t *brk;        /* brk[i]: ord[i] differs from ord[i - 1] */
    uint32_t *rest;      /* rest[lo]: end of a first-level run to sort on, else 0 */
    unsigned bits, per;
    bool failed; /* a part ran out of memory (set atomically) */
} stack_sort;

/* Sorts run r by its next key; the runs of equal keys whose stacks go on are pushed on work,
 * or (rest, the first level) recorded there. Runs are disjoint, and so is all they touch. */
static bool
sort_run(stack_sort *j, stack_run r, uint32_t *cnt, pprof__vec *work, bool keys_done)
{
    const pprof_allocator *a = &j->f->m->a;
    if (!keys_done)
        for (uint32_t i = r.lo; i < r.hi; i++)
            j->key[i] = stack_key(j->f, j->ord[i], r.from, j->bits, j->per);
    sort_pairs(j->key + r.lo, j->ord + r.lo, j->kt + r.lo, j->tmp + r.lo, r.hi - r.lo, cnt);
    for (uint32_t i = r.lo; i < r.hi;) {
        uint32_t k = i + 1;
        while (k < r.hi && j->key[k] == j->key[i])
            k++;
        if (i > r.lo)
            j->brk[i] = 1;
        /* equal keys that hold a last frame: their stacks may go on */
        if (k - i > 1 && (j->key[i] & (((uint64_t)1 << j->bits) - 1)) != 0) {
            if (!work) {
                j->rest[i] = k;
            } else {
                stack_run *w = pprof__vec_push(a, work, sizeof(stack_run));
                if (!w)
                    return false;
                *w = (stack_run){i, k, r.from + j->per};
            }
        }
        i = k;
    }
    return true;
}

static void
first_keys(void *c, size_t lo, size_t hi)
{
    stack_sort *j = c;
    for (size_t i = lo; i < hi; i++)
        j->key[i] = stack_key(j->f, (uint32_t)i, 0, j->bits, j->per);
}

/* The first-level runs that start in [lo, hi), each sorted to the end. */
static void
sort_rest(void *c, size_t lo, size_t hi)
{
    stack_sort *j = c;
    const pprof_allocator *a = &j->f->m->a;
    uint32_t *cnt = pprof__malloc(a, RADIX * sizeof(uint32_t));
    pprof__vec work = {0};
    bool ok = cnt != NULL;
    for (size_t i = lo; ok && i < hi; i++) {
        if (!j->rest[i])
            continue;
        stack_run *w = pprof__vec_push(a, &work, sizeof(stack_run));
        ok = w != NULL;
        if (w)
            *w = (stack_run){(uint32_t)i, j->rest[i], j->per};
        while (ok && work.len)
            ok = sort_run(j, PPROF__AT(work, stack_run, --work.len), cnt, &work, false);
    }
    if (!ok)
        __atomic_store_n(&j->failed, true, __ATOMIC_RELAXED);
    pprof__free(a, cnt);
    pprof__free(a, work.data);
}

/* Stacks in canonical order: the order of their location ranks frame by frame, a stack before
 * any longer one it begins (ties in index order, as a stable comparison sort gives), found
 * without comparing stacks: a stable sort by the first frames packed in one key (stack_key),
 * then each run of equal keys whose stacks go on sorted by the next frames' key, and so on.
 * Each stack's frames are read once per level, in order; the comparison sort this replaces
 * read two stacks at random for every comparison, which made ordering cache-bound. The
 * first keys, and the runs they leave, are shared out among the threads.
 * Ranks go to f->strank (stacks made equal share one); returns the number of ranks, or
 * SIZE_MAX when out of memory. */
size_t
pprof__merge_sort_stacks(const merge_ranks *f, uint32_t *ord, uint32_t *tmp, size_t n)
{
    const pprof_merger *m = f->m;
    const pprof_allocator *a = &m->a;
    unsigned bits = 1;
    while (bits < 32 && ((uint64_t)1 << bits) <= m->locations.len)
        bits++;
    stack_sort j = {.f = f, .ord = ord, .tmp = tmp, .bits = bits, .per = 64 / bits};
    j.key = pprof__malloc(a, (n + 1) * sizeof(uint64_t));
    j.kt = pprof__malloc(a, (n + 1) * sizeof(uint64_t));
    j.brk = pprof__malloc(a, n + 1);
    j.rest = pprof__malloc(a, (n + 1) * sizeof(uint32_t));
    uint32_t *cnt = pprof__malloc(a, RADIX * sizeof(uint32_t));
    size_t ranks = SIZE_MAX;
    if (!j.key || !j.kt || !j.brk || !j.rest || !cnt)
        goto done;
    memset(j.brk, 0, n + 1);
    memset(j.rest, 0, (n + 1) * sizeof(uint32_t));
    for (size_t i = 0; i < n; i++)
        ord[i] = (uint32_t)i;
    if (n > 1) {
        pprof__par_for(m->pool, m->o.threads, n, 8192, first_keys, &j);
        sort_run(&j, (stack_run){0, (uint32_t)n, 0}, cnt, NULL, true);
        pprof__par_for(m->pool, m->o.threads, n, 8192, sort_rest, &j);
        if (j.failed)
            goto done;
    }
    ranks = 0;
    for (size_t i = 0; i < n; i++) {
        ranks += j.brk[i];
        f->strank[ord[i]] = (uint32_t)ranks;
    }
    ranks += n != 0;
done:
    pprof__free(a, j.key);
    pprof__free(a, j.kt);
    pprof__free(a, j.brk);
    pprof__free(a, j.rest);
    pprof__free(a, cnt);
    return ranks;
}

/* Labels of two samples (ranked), the second part of the sample key. */
int
pprof__merge_cmp_labels(const void *ctx, uint32_t a, uint32_t b)
{
    const merge_ranks *f = ctx;
    const msample *x = &PPROF__AT(f->m->samples, msample, a);
    const msample *y = &PPROF__AT(f->m->samples, msample, b);
    const mlabel *labs = f->m->labels.data;
    const mlabel *lx = labs + x->lab_off, *ly = labs + y->lab_off;
    const uint32_t *r = f->srank;
    for (uint32_t i = 0; i < x->n_lab && i < y->n_lab; i++) {
        CMP(r[lx[i].key], r[ly[i].key]);
        CMP(r[lx[i].str], r[ly[i].str]);
        CMP(lx[i].num, ly[i].num);
        CMP(r[lx[i].unit], r[ly[i].unit]);
    }
    CMP(x->n_lab, y->n_lab);
    return 0;
}

typedef struct runs_job {
    const merge_ranks *f;
    uint32_t *out, *tmp;
    const uint32_t *pos;
} runs_job;

static void
sort_runs(void *c, size_t lo, size_t hi)
{
    const runs_job *j = c;
    const msample *ss = j->f->m->samples.data;
    const mlabel *labs = j->f->m->labels.data;
    size_t first = lo ? j->pos[lo - 1] : 0, last = hi ? j->pos[hi - 1] : 0;
    size_t rec_at = first, lab_at = first; /* how far records and labels were fetched */
    for (size_t r = lo; r < hi; r++) {
        size_t start = r ? j->pos[r - 1] : 0, end = j->pos[r];
        /* The runs' samples lie at random, and most runs hold one or two: their records are
         * fetched 32 samples ahead, their labels 16 ahead (the records are there by then). */
        for (; rec_at < last && rec_at < end + 32; rec_at++)
            __builtin_prefetch(&ss[j->out[rec_at]]);
        for (; lab_at < last && lab_at < end + 16; lab_at++)
            __builtin_prefetch(&labs[ss[j->out[lab_at]].lab_off]);
        if (end - start > 1) /* tmp at the run's own offset: runs never share scratch */
            msort(j->out + start, j->tmp + start, end - start, pprof__merge_cmp_labels, j->f);
    }
}

/* Samples in canonical order (stack rank, then labels): a stable counting sort by stack rank,
 * then each run of one rank (a few samples that differ in labels) sorted by labels. No full-key
 * comparison crosses stacks, and the rank pass reads the samples sequentially. */
bool
pprof__merge_order_samples(const merge_ranks *f, size_t n, size_t n_ranks, uint32_t *tmp,
                           uint32_t *out)
{
    const pprof_merger *m = f->m;
    uint32_t *pos = pprof__malloc(&m->a, (n_ranks + 1) * sizeof(uint32_t));
    if (!pos)
        return false;
    memset(pos, 0, (n_ranks + 1) * sizeof(uint32_t));
    const msample *ss = m->samples.data;
    for (size_t i = 0; i < n; i++)
        pos[f->strank[ss[i].stack] + 1]++;
    for (size_t r = 0; r < n_ranks; r++)
        pos[r + 1] += pos[r];
    for (size_t i = 0; i < n; i++)
        out[pos[f->strank[ss[i].stack]]++] = (uint32_t)i;
    /* pos[r] is now the end of rank r's run; the runs are sorted independently */
    runs_job j = {f, out, tmp, pos};
    pprof__par_for(m->pool, m->o.threads, n_ranks, 8192, sort_runs, &j);
    pprof__free(&m->a, pos);
    return true;
}

uint32_t *
pprof__merge_order(const pprof_merger *m, size_t n, cmp_fn cmp, const merge_ranks *f, uint32_t *tmp)
{
    uint32_t *v = pprof__malloc(&m->a, (n + 1) * sizeof(uint32_t));
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++)
        v[i] = (uint32_t)i;
    psort(v, tmp, n, cmp, f, m->pool, m->o.threads); /* tmp holds nmax + 1 entries */
    return v;
}
