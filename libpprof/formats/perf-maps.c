/* What a perf recording says about processes: their mappings over time (MMAP, exec, fork,
 * exit), thread names, build ids by file name, and kernel symbols from a kallsyms text. */
#include <stdlib.h>

#include "perf-private.h"

static perf__proc *
proc_get(perf__reader *r, uint64_t pid, bool create)
{
    uint32_t i = pprof__u64map_get(&r->pid_idx, pid);
    if (i != PPROF_NONE)
        return &PPROF__AT(r->procs, perf__proc, i);
    if (!create || r->procs.len >= r->o.max_processes)
        return NULL;
    perf__proc *p = pprof__vec_push(&r->a, &r->procs, sizeof(*p));
    if (!p)
        return NULL;
    memset(p, 0, sizeof(*p));
    uint32_t old;
    bool added;
    if (!pprof__u64map_put(&r->pid_idx, &r->a, pid, (uint32_t)(r->procs.len - 1), &old, &added)) {
        r->procs.len--;
        return NULL;
    }
    return p;
}

static pprof_status
proc_missing(perf__reader *r)
{
    if (r->procs.len >= r->o.max_processes)
        return pprof__error(r->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "",
                            "more than %llu processes (max_processes)",
                            (unsigned long long)r->o.max_processes);
    return perf__nomem(r);
}

/* Index of the first map whose end is above addr. */
static size_t
first_ending_after(const perf__proc *p, uint64_t addr)
{
    const perf__map *m = p->maps.data;
    size_t lo = 0, hi = p->maps.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m[mid].end <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A new mapping replaces what it overlaps, as the kernel's mmap does; the parts of older
 * mappings outside it stay. */
pprof_status
perf__mmap(perf__reader *r, uint64_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
           const char *name, const char *build_id)
{
    if (!len)
        return PPROF_OK;
    r->maps_gen++;
    uint64_t end = start + len < start ? UINT64_MAX : start + len;
    perf__proc *p = proc_get(r, pid, true);
    if (!p)
        return proc_missing(r);
    if (!build_id)
        build_id = perf__find_buildid(r, name);
    perf__map nm = {start, end, pgoff, name, build_id, PPROF_BUILDER_NONE, false};
    size_t i = first_ending_after(p, start);
    /* the mappings from i on that start below end overlap */
    size_t j = i;
    perf__map *m = p->maps.data;
    while (j < p->maps.len && m[j].start < end)
        j++;
    perf__map keep[2];
    size_t nk = 0;
    if (i < j && m[i].start < start) {
        keep[nk] = m[i];
        keep[nk].end = start;
        keep[nk].has_bm = false;
        nk++;
    }
    if (i < j && m[j - 1].end > end) {
        keep[nk] = m[j - 1];
        keep[nk].pgoff += end - m[j - 1].start;
        keep[nk].start = end;
        keep[nk].has_bm = false;
        nk++;
    }
    size_t removed = j - i, added = 1 + nk;
    if (added > removed &&
        !pprof__vec_grow(&r->a, &p->maps, sizeof(perf__map), p->maps.len + added - removed))
        return perf__nomem(r);
    m = p->maps.data;
    memmove(&m[i + added], &m[j], (p->maps.len - j) * sizeof(perf__map));
    p->maps.len = p->maps.len - removed + added;
    size_t k = i;
    if (nk && keep[0].start < start)
        m[k++] = keep[0];
    m[k++] = nm;
    if (nk && keep[nk - 1].start >= end)
        m[k++] = keep[nk - 1];
    return PPROF_OK;
}

pprof_status
perf__exec(perf__reader *r, uint64_t pid)
{
    perf__proc *p = proc_get(r, pid, false);
    if (p)
        p->maps.len = 0;
    r->maps_gen++;
    return PPROF_OK;
}

pprof_status
perf__fork(perf__reader *r, uint64_t pid, uint64_t ppid)
{
    perf__proc *parent = proc_get(r, ppid, false);
    size_t n = parent ? parent->maps.len : 0;
    perf__proc *child = proc_get(r, pid, true);
    if (!child)
        return proc_missing(r);
    parent = proc_get(r, ppid, false); /* the push may have moved it */
    r->maps_gen++;
    child->maps.len = 0;
    if (!n)
        return PPROF_OK;
    if (!pprof__vec_grow(&r->a, &child->maps, sizeof(perf__map), n))
        return perf__nomem(r);
    memcpy(child->maps.data, parent->maps.data, n * sizeof(perf__map));
    child->maps.len = n;
    return PPROF_OK;
}

void
perf__exit(perf__reader *r, uint64_t pid)
{
    perf__proc *p = proc_get(r, pid, false);
    r->maps_gen++;
    if (p) {
        pprof__free(&r->a, p->maps.data);
        memset(&p->maps, 0, sizeof(p->maps));
    }
}

perf__map *
perf__find_map(perf__reader *r, uint64_t pid, uint64_t addr)
{
    perf__proc *p = proc_get(r, pid, false);
    if (!p)
        return NULL;
    size_t i = first_ending_after(p, addr);
    perf__map *m = p->maps.data;
    return i < p->maps.len && m[i].start <= addr ? &m[i] : NULL;
}

pprof_status
perf__set_comm(perf__reader *r, uint64_t tid, const char *comm)
{
    perf__comm *c = pprof__vec_push(&r->a, &r->comms, sizeof(*c));
    if (!c)
        return perf__nomem(r);
    c->s = comm;
    c->has_bs = false;
    uint32_t old;
    bool added;
    uint32_t idx = (uint32_t)(r->comms.len - 1);
    if (!pprof__u64map_put(&r->tid_comm, &r->a, tid, idx, &old, &added))
        return perf__nomem(r);
    if (!added) {
        /* the map keeps the first value: point the old slot at the new name instead */
        r->comms.len--;
        perf__comm *o = &PPROF__AT(r->comms, perf__comm, old);
        if (strcmp(o->s, comm)) {
            o->s = comm;
            o->has_bs = false;
        }
    }
    return PPROF_OK;
}

perf__comm *
perf__get_comm(perf__reader *r, uint64_t tid)
{
    uint32_t i = pprof__u64map_get(&r->tid_comm, tid);
    return i != PPROF_NONE ? &PPROF__AT(r->comms, perf__comm, i) : NULL;
}

static bool
buildid_eq(const void *ctx, uint32_t v, const void *key)
{
    const perf__reader *r = ctx;
    return strcmp(PPROF__AT(r->buildids, perf__buildid, v).name, key) == 0;
}

pprof_status
perf__add_buildid(perf__reader *r, const char *name, const char *hex)
{
    uint64_t h = pprof__mix64(pprof__hash_bytes(0, name, strlen(name)));
    bool added;
    uint32_t v = pprof__htab_intern(&r->buildid_idx, &r->a, h, buildid_eq, r, name,
                                    (uint32_t)r->buildids.len, &added);
    if (v == PPROF_NONE)
        return perf__nomem(r);
    if (!added) {
        PPROF__AT(r->buildids, perf__buildid, v).hex = hex;
        return PPROF_OK;
    }
    perf__buildid *b = pprof__vec_push(&r->a, &r->buildids, sizeof(*b));
    if (!b)
        return perf__nomem(r); /* the index names a missing entry: lookups bound-check it */
    b->name = name;
    b->hex = hex;
    return PPROF_OK;
}

const char *
perf__find_buildid(perf__reader *r, const char *name)
{
    /* the kernel's map is "[kernel.kallsyms]_text"; its build id is filed as "[kernel.kallsyms]" */
    char kname[] = "[kernel.kallsyms]";
    const char *key = strncmp(name, kname, sizeof(kname) - 1) == 0 ? kname : name;
    uint64_t h = pprof__mix64(pprof__hash_bytes(0, key, strlen(key)));
    pprof__htab_probe pr;
    uint32_t v;
    PPROF__HTAB_FIND(&r->buildid_idx, h, pr, v, v < r->buildids.len && buildid_eq(r, v, key));
    return v != PPROF_NONE ? PPROF__AT(r->buildids, perf__buildid, v).hex : NULL;
}

static int
cmp_sym(const void *a, const void *b)
{
    const perf__sym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int
hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "ADDRESS TYPE NAME [MODULE]" lines; text symbols (t, T, w, W) only, zero addresses (what an
 * unprivileged reader of /proc/kallsyms sees) left out. */
pprof_status
perf__load_kallsyms(perf__reader *r)
{
    const char *s = r->o.kallsyms, *end = s + r->o.kallsyms_size;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        uint64_t addr = 0;
        const char *p = s;
        int d, nd = 0;
        while (p < le && nd < 16 && (d = hexval(*p)) >= 0) {
            addr = addr << 4 | (uint64_t)d;
            p++;
            nd++;
        }
        if (nd && p + 3 < le && *p == ' ' && p[2] == ' ' && strchr("tTwW", p[1]) && addr) {
            const char *n = p + 3, *ne = n;
            while (ne < le && *ne != ' ' && *ne != '\t' && *ne != '\r')
                ne++;
            perf__sym *sym = pprof__vec_push(&r->a, &r->syms, sizeof(*sym));
            if (!sym)
                return perf__nomem(r);
            *sym = (perf__sym){addr, n, (uint32_t)(ne - n), PPROF_BUILDER_NONE, false};
        }
        s = le + 1;
    }
    if (r->syms.len)
        qsort(r->syms.data, r->syms.len, sizeof(perf__sym), cmp_sym);
    return PPROF_OK;
}

perf__sym *
perf__find_sym(perf__reader *r, uint64_t addr)
{
    perf__sym *s = r->syms.data;
    size_t lo = 0, hi = r->syms.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? &s[lo - 1] : NULL;
}

void
perf__maps_free(perf__reader *r)
{
    for (size_t i = 0; i < r->procs.len; i++)
        pprof__free(&r->a, PPROF__AT(r->procs, perf__proc, i).maps.data);
    pprof__free(&r->a, r->procs.data);
    pprof__u64map_free(&r->pid_idx, &r->a);
    pprof__free(&r->a, r->comms.data);
    pprof__u64map_free(&r->tid_comm, &r->a);
    pprof__free(&r->a, r->buildids.data);
    pprof__htab_free(&r->buildid_idx, &r->a);
    pprof__free(&r->a, r->syms.data);
}
