/* pprof_symbolize: the output profile is a copy of the input whose locations without lines
 * (all, with force) get the frames of their address; new strings and functions are appended.
 * Mappings are done in the profile's order; each mapping's addresses are looked up in sorted
 * order, so that a compilation unit's tree is read once, and every answer is kept per file and
 * link-time address, so the same address of the same file always gets the same lines; with
 * the cache on, those answers also go to the file's address index (symbolize-cache.c), which
 * answers a later run before the file's DWARF is opened at all. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize-private.h"

/* One file (or one failure) per distinct (mapping file name, build ID). */
typedef struct sz_entry {
    const char *filename, *build_id; /* the input's strings (views are not NUL-terminated) */
    size_t filename_len, build_id_len;
    bool ok;
    uint32_t alias; /* another entry with the same file (dev, inode), or PPROF_NONE */
    pprof__sz_object obj;
    pprof__sz_why why;
    pprof__u64map cache; /* link-time address -> result index + 1 (0: nothing found) */
    bool dwarf, lines;   /* for the report: from the files, or from the index when deferred */
    /* the address index (symbolize-cache.c), when the cache is on */
    bool use_index;
    pprof__vec key;          /* the files' key */
    char *index_path;        /* pprof__malloc'd */
    pprof__sz_index ix;      /* what the file held (n_addr 0: nothing) */
    char *ix_buf;            /* its bytes */
    pprof__vec added;        /* pprof__sz_index_added: looked up in this run */
    pprof__vec added_frames; /* pprof__sz_frame */
} sz_entry;

typedef struct sz_result {
    uint32_t off, n; /* into ctx.rlines */
    bool dwarf;      /* file and line known for every frame */
} sz_result;

typedef struct sz_ctx {
    const pprof_profile *p;
    pprof_profile *c;
    const pprof_allocator *a;
    pprof_symbolize_options o;
    pprof__sz_search s;
    pprof_symbolize_report *r;
    pprof__vec entries; /* sz_entry */
    pprof__htab strs;   /* new strings: indices into c->strings */
    pprof__htab fns;    /* new functions: indices into c->functions */
    uint64_t next_fn_id;
    pprof__vec results; /* sz_result */
    pprof__vec rlines;  /* pprof_line */
    pprof__sz_frame frames[PPROF__SZ_MAX_FRAMES];
    char cache_dir[4096];
    char default_dir[4096];
    char index_dir[4096]; /* the address index cache; "" when off */
    const char **dirs;    /* the search's debug dirs */
    pprof_error *err;
} sz_ctx;

void
pprof_symbolize_options_init(pprof_symbolize_options *opts)
{
    pprof_symbolize_options d = PPROF_SYMBOLIZE_OPTIONS_INIT;
    *opts = d;
}

const char *
pprof_symbolize_result_name(pprof_symbolize_result r)
{
    static const char *const names[] = {
        "ok",      "nothing-to-do", "not-found",        "build-id-mismatch",
        "not-elf", "no-symbols",    "not-symbolizable", "unreadable"};
    return (unsigned)r < sizeof(names) / sizeof(names[0]) ? names[r] : "unknown";
}

static pprof_status
nomem(sz_ctx *x)
{
    return pprof__error(x->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
}

/* ---------------------------------------------------------------- the copy */

static bool
copy_vec(const pprof_allocator *a, pprof__vec *dst, const pprof__vec *src, size_t elem)
{
    *dst = (pprof__vec){0};
    if (!src->len)
        return true;
    if (!pprof__vec_grow(a, dst, elem, src->len))
        return false;
    memcpy(dst->data, src->data, src->len * elem);
    dst->len = src->len;
    return true;
}

/* The input's tables, and its strings copied into the copy's arena (they point into the
 * input's buffer). */
static pprof_profile *
copy_profile(const pprof_profile *p, const pprof_allocator *a)
{
    pprof_profile *c = pprof__profile_new(a);
    if (!c)
        return NULL;
    c->source_format = p->source_format;
    c->hdr = p->hdr;
    c->has_string_table = true;
    const pprof__vec *src[] = {&p->sample_types, &p->samples,  &p->stack,     &p->values,
                               &p->labels,       &p->mappings, &p->locations, &p->lines,
                               &p->functions,    &p->comments};
    pprof__vec *dst[] = {&c->sample_types, &c->samples,   &c->stack, &c->values,    &c->labels,
                         &c->mappings,     &c->locations, &c->lines, &c->functions, &c->comments};
    size_t elem[] = {sizeof(pprof_value_type), sizeof(pprof__sample), sizeof(uint64_t),
                     sizeof(int64_t),          sizeof(pprof_label),   sizeof(pprof_mapping),
                     sizeof(pprof__location),  sizeof(pprof_line),    sizeof(pprof_function),
                     sizeof(int64_t)};
    bool ok = copy_vec(&c->alloc, &c->strings, &p->strings, sizeof(pprof_string));
    for (size_t i = 0; ok && i < sizeof(dst) / sizeof(dst[0]); i++)
        ok = copy_vec(&c->alloc, dst[i], src[i], elem[i]);
    pprof_string *s = c->strings.data;
    for (size_t i = 0; ok && i < c->strings.len; i++) {
        if (!s[i].len)
            continue;
        char *d = pprof__arena_alloc(&c->arena, s[i].len);
        if ((ok = d != NULL)) {
            memcpy(d, s[i].data, s[i].len);
            s[i].data = d;
        }
    }
    if (ok && !c->strings.len) { /* a built profile always has "" first */
        pprof_string *e = pprof__vec_push(&c->alloc, &c->strings, sizeof(*e));
        if ((ok = e != NULL))
            *e = (pprof_string){"", 0};
    }
    if (!ok) {
        pprof_profile_free(c);
        return NULL;
    }
    return c;
}

/* ---------------------------------------------------------------- interning */

typedef struct str_key {
    const char *s;
    size_t len;
} str_key;

static bool
str_eq(const void *ctx, uint32_t v, const void *key)
{
    const pprof_profile *c = ctx;
    const str_key *k = key;
    pprof_string s = PPROF__AT(c->strings, pprof_string, v);
    return s.len == k->len && !memcmp(s.data, k->s, k->len);
}

/* The string index of s in the output (NULL: ""), or -1 when out of memory. */
static int64_t
intern(sz_ctx *x, const char *s)
{
    if (!s || !s[0])
        return 0;
    str_key k = {s, strlen(s)};
    uint64_t h = pprof__mix64(pprof__hash_bytes(0, s, k.len));
    if (x->c->strings.len >= INT32_MAX)
        return -1;
    bool added;
    uint32_t v = pprof__htab_intern(&x->strs, x->a, h, str_eq, x->c, &k,
                                    (uint32_t)x->c->strings.len, &added);
    if (v == PPROF_NONE)
        return -1;
    if (added) {
        char *d = pprof__arena_alloc(&x->c->arena, k.len);
        pprof_string *e = d ? pprof__vec_push(x->a, &x->c->strings, sizeof(*e)) : NULL;
        if (!e) {
            pprof__htab_clear(&x->strs); /* the table names a string that is not there */
            return -1;
        }
        memcpy(d, s, k.len);
        *e = (pprof_string){d, k.len};
    }
    return v;
}

static bool
fn_eq(const void *ctx, uint32_t v, const void *key)
{
    const pprof_function *f =
        &PPROF__AT(((const pprof_profile *)ctx)->functions, pprof_function, v);
    const pprof_function *k = key;
    return f->name == k->name && f->system_name == k->system_name && f->filename == k->filename &&
           f->start_line == k->start_line;
}

/* The id of the output's function with these fields, added when new; 0 when out of memory. */
static uint64_t
intern_function(sz_ctx *x, pprof_function key)
{
    uint64_t h =
        pprof__hash_combine(pprof__hash_combine(0, (uint64_t)key.name), (uint64_t)key.system_name);
    h = pprof__mix64(pprof__hash_combine(pprof__hash_combine(h, (uint64_t)key.filename),
                                         (uint64_t)key.start_line));
    if (x->c->functions.len >= INT32_MAX)
        return 0;
    bool added;
    uint32_t v = pprof__htab_intern(&x->fns, x->a, h, fn_eq, x->c, &key,
                                    (uint32_t)x->c->functions.len, &added);
    if (v == PPROF_NONE)
        return 0;
    if (added) {
        pprof_function *f = pprof__vec_push(x->a, &x->c->functions, sizeof(*f));
        if (!f) {
            pprof__htab_clear(&x->fns);
            return 0;
        }
        key.id = x->next_fn_id++;
        *f = key;
    }
    return PPROF__AT(x->c->functions, pprof_function, v).id;
}

/* ---------------------------------------------------------------- one address */

/* Turns the frames into lines of the output (appended to rlines). False: out of memory. */
static bool
add_frames(sz_ctx *x, const pprof__sz_frame *f, int n, bool go, sz_result *res)
{
    res->off = (uint32_t)x->rlines.len;
    res->n = 0;
    res->dwarf = true;
    for (int i = 0; i < n; i++) {
        bool owned;
        const char *name = f[i].name ? f[i].name : "";
        const char *shown = pprof__sz_display_name(name, x->o.demangle, go, &owned);
        if (!shown)
            return false;
        pprof_function key = {0, intern(x, shown), intern(x, name), intern(x, f[i].file),
                              f[i].start_line};
        if (owned)
            free((void *)shown);
        if (key.name < 0 || key.system_name < 0 || key.filename < 0)
            return false;
        uint64_t id = intern_function(x, key);
        pprof_line *l = id ? pprof__vec_push(x->a, &x->rlines, sizeof(*l)) : NULL;
        if (!l)
            return false;
        *l = (pprof_line){id, f[i].line, f[i].column};
        res->n++;
        res->dwarf &= f[i].file != NULL && f[i].line > 0;
    }
    return true;
}

static bool load_tables(sz_ctx *x, sz_entry *e);

/* The frames of vaddr from e's files into f, after the fixes below; -1 when out of memory. */
static int
file_frames(sz_ctx *x, sz_entry *e, uint64_t vaddr, pprof__sz_frame *f)
{
    int n = pprof__sz_dwarf_frames(x->a, &e->obj, vaddr, f);
    if (n < 0)
        return -1;
    /* A compilation unit's range with neither a function nor a line there (top-level
     * assembly) says nothing of the code: the symbol table names it, without a file, as
     * llvm-symbolizer has it. */
    if (n == 1 && !f[0].name && f[0].line <= 0)
        n = 0;
    /* Go's own table where DWARF has nothing (a -ldflags=-w or -s -w build): the frames the
     * runtime itself would print, named as the table names them. */
    bool from_go = false;
    if (n == 0 && e->obj.gotab.ok && (n = pprof__sz_go_frames(&e->obj, vaddr, f)) > 0)
        from_go = true;
    /* The outermost frame is named as the symbol table names the code, as llvm-symbolizer
     * does for ELF: a GCC clone (.cold, .part.0, .isra.0) is DWARF's function under another
     * symbol, and profiles name the code that ran. */
    const pprof__sz_sym *sym = from_go ? NULL : pprof__sz_symbol(&e->obj, vaddr);
    if (sym && n == 0)
        f[0] = (pprof__sz_frame){sym->name, sym->file, 0, 0, 0}, n = 1;
    else if (sym)
        f[n - 1].name = sym->name;
    /* A line with no function around it (padding between functions) keeps its file and line
     * under an empty name, as llvm-symbolizer's "??"; with neither, nothing is known. */
    if (n == 1 && !f[0].name && !f[0].file)
        n = 0;
    return n;
}

/* Keeps vaddr's frames for the index written at the end. False: out of memory. */
static bool
remember(sz_ctx *x, sz_entry *e, uint64_t vaddr, const pprof__sz_frame *f, int n)
{
    if (e->added.len >= PPROF__SZ_INDEX_MAX_ADDRS)
        return true;
    pprof__sz_index_added *ad = pprof__vec_push(x->a, &e->added, sizeof(*ad));
    if (!ad ||
        !pprof__vec_grow(x->a, &e->added_frames, sizeof(*f), e->added_frames.len + (size_t)n))
        return false;
    *ad = (pprof__sz_index_added){vaddr, (uint32_t)e->added_frames.len, (uint32_t)n};
    if (n)
        memcpy((pprof__sz_frame *)e->added_frames.data + e->added_frames.len, f,
               (size_t)n * sizeof(*f));
    e->added_frames.len += (size_t)n;
    return true;
}

/* The result index + 1 for vaddr in e's file (0: no frames), or -1 when out of memory: from
 * the index when it has the address, else from the files. */
static int64_t
resolve(sz_ctx *x, sz_entry *e, uint64_t vaddr)
{
    uint32_t have = pprof__u64map_get(&e->cache, vaddr);
    if (have != PPROF_NONE)
        return have;
    pprof__sz_frame *f = x->frames;
    int n = e->ix.n_addr ? pprof__sz_index_lookup(&e->ix, vaddr, f) : -1;
    if (n < 0) {
        /* not in the index: the files, opened now if the index made that wait */
        if (e->obj.dwarf_deferred && !load_tables(x, e))
            return -1;
        if ((n = file_frames(x, e, vaddr, f)) < 0 || (e->use_index && !remember(x, e, vaddr, f, n)))
            return -1;
    }
    uint32_t value = 0;
    if (n > 0) {
        sz_result res;
        sz_result *slot = pprof__vec_push(x->a, &x->results, sizeof(*slot));
        if (!slot || !add_frames(x, f, n, e->obj.go, &res))
            return -1;
        *slot = res;
        value = (uint32_t)x->results.len;
    }
    uint32_t old;
    bool added;
    if (!pprof__u64map_put(&e->cache, x->a, vaddr, value, &old, &added))
        return -1;
    return value;
}

/* ---------------------------------------------------------------- files */

static bool
view_eq(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen == blen && !memcmp(a, b, alen);
}

/* Empty, or hex digits only: the only build IDs used to name files. */
static bool
hex_build_id(pprof_string id)
{
    for (size_t i = 0; i < id.len; i++) {
        char c = id.data[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return false;
    }
    return true;
}

/* The index of e's files from the cache directory, when there is a usable one. Without the
 * cache, or when the key cannot be made, the index is simply not used. */
static void
open_index(sz_ctx *x, sz_entry *e)
{
    char path[4400];
    if (!pprof__sz_index_key(x->a, &e->obj, &e->key) ||
        !pprof__sz_index_path(x->index_dir, &e->obj, &e->key, path, sizeof(path)))
        return;
    size_t n = strlen(path) + 1;
    if (!(e->index_path = pprof__malloc(x->a, n)))
        return;
    memcpy(e->index_path, path, n);
    e->use_index = true;
    pprof__sz_index_load(x->a, path, &e->key, &e->ix, &e->ix_buf);
}

/* DWARF (opened first when it was deferred) and Go's table of e's files. False: out of
 * memory. */
static bool
load_tables(sz_ctx *x, sz_entry *e)
{
    if (e->obj.dwarf_deferred) {
        pprof__sz_find_dwarf(&x->s, &e->obj, &e->why);
        if (e->obj.dbg.fd >= 0) { /* a debug file after all: its symbols and segments too */
            e->obj.segs.len = e->obj.syms.len = 0;
            if (!pprof__sz_elf_load(x->a, &e->obj))
                return false;
        }
    }
    if (!pprof__sz_dwarf_load(x->a, &e->obj))
        return false;
    if (e->obj.go)
        pprof__sz_go_load(&e->obj);
    e->dwarf = e->obj.dw != NULL;
    e->lines = e->dwarf || e->obj.gotab.ok;
    return true;
}

/* The entry of a mapping's (file name, build ID), found and opened on first use; NULL when out
 * of memory. */
static sz_entry *
entry_for(sz_ctx *x, pprof_string name, pprof_string bid)
{
    sz_entry *es = x->entries.data;
    for (size_t i = 0; i < x->entries.len; i++)
        if (view_eq(es[i].filename, es[i].filename_len, name.data, name.len) &&
            view_eq(es[i].build_id, es[i].build_id_len, bid.data, bid.len))
            return es[i].alias != PPROF_NONE ? &es[es[i].alias] : &es[i];
    char *fname = pprof__arena_alloc(&x->r->arena, name.len + 1);
    char *id = pprof__arena_alloc(&x->r->arena, bid.len + 1);
    sz_entry *e = fname && id ? pprof__vec_push(x->a, &x->entries, sizeof(*e)) : NULL;
    if (!e)
        return NULL;
    memcpy(fname, name.data, name.len);
    fname[name.len] = 0;
    for (size_t i = 0; i < bid.len; i++) /* build IDs compare in lowercase hex */
        id[i] = (char)(bid.data[i] >= 'A' && bid.data[i] <= 'F' ? bid.data[i] + 32 : bid.data[i]);
    id[bid.len] = 0;
    memset(e, 0, sizeof(*e));
    e->filename = fname;
    e->build_id = id;
    e->filename_len = name.len;
    e->build_id_len = bid.len;
    e->alias = PPROF_NONE;
    e->ok = pprof__sz_find(&x->s, fname, id, &e->obj, &e->why);
    if (!e->ok)
        return e;
    es = x->entries.data;
    for (size_t i = 0; i + 1 < x->entries.len; i++) { /* one file is opened once */
        if (es[i].ok && es[i].alias == PPROF_NONE && es[i].obj.bin.dev == e->obj.bin.dev &&
            es[i].obj.bin.ino == e->obj.bin.ino) {
            pprof__sz_object_free(x->a, &e->obj);
            e->alias = (uint32_t)i;
            return &es[i];
        }
    }
    if (x->index_dir[0])
        open_index(x, e);
    if (e->obj.dwarf_deferred && !e->ix.n_addr) {
        pprof__sz_find_dwarf(&x->s, &e->obj, &e->why);
        if (e->use_index && (e->obj.dbg.fd >= 0 || !e->obj.dw)) {
            /* its own DWARF was not usable after all: the index is the one of the files used */
            pprof__free(x->a, e->index_path);
            pprof__free(x->a, e->ix_buf);
            e->index_path = e->ix_buf = NULL;
            e->use_index = false;
            open_index(x, e);
        }
    }
    if (!pprof__sz_elf_load(x->a, &e->obj))
        return NULL;
    if (e->obj.dwarf_deferred) { /* what the index says the files give */
        e->dwarf = e->ix.flags & PPROF__SZ_INDEX_DWARF;
        e->lines = e->ix.flags & PPROF__SZ_INDEX_LINES;
        return e;
    }
    if (!load_tables(x, e))
        return NULL;
    if (!e->obj.dw && !e->obj.syms.len && !e->obj.gotab.ok) {
        e->ok = false;
        e->why.result = PPROF_SYMBOLIZE_NO_SYMBOLS;
        snprintf(e->why.file, sizeof(e->why.file), "%s", e->obj.bin.path);
        snprintf(e->why.reason, sizeof(e->why.reason),
                 "neither DWARF nor a symbol table (.symtab, .dynsym), and no debug file found");
    }
    return e;
}

/* A view as a C string for the report (NUL-terminated copy in a scratch buffer). */
static const char *
entry_name(sz_ctx *x, pprof_string s)
{
    char *d = pprof__arena_alloc(&x->r->arena, s.len + 1);
    if (!d)
        return NULL;
    memcpy(d, s.data, s.len);
    d[s.len] = 0;
    return d;
}

static void
free_entries(sz_ctx *x)
{
    sz_entry *es = x->entries.data;
    for (size_t i = 0; i < x->entries.len; i++) {
        pprof__sz_object_free(x->a, &es[i].obj);
        pprof__u64map_free(&es[i].cache, x->a);
        pprof__free(x->a, es[i].key.data);
        pprof__free(x->a, es[i].index_path);
        pprof__free(x->a, es[i].ix_buf);
        pprof__free(x->a, es[i].added.data);
        pprof__free(x->a, es[i].added_frames.data);
    }
    pprof__free(x->a, x->entries.data);
}

/* ---------------------------------------------------------------- one mapping */

typedef struct sz_addr {
    uint64_t vaddr;
    uint32_t loc;
} sz_addr;

static int
addr_cmp(const void *p, const void *q)
{
    const sz_addr *a = p, *b = q;
    if (a->vaddr != b->vaddr)
        return a->vaddr < b->vaddr ? -1 : 1;
    return a->loc < b->loc ? -1 : a->loc > b->loc;
}

static int
u64_cmp(const void *p, const void *q)
{
    uint64_t a = *(const uint64_t *)p, b = *(const uint64_t *)q;
    return a < b ? -1 : a > b;
}

/* What one mapping's pass collects besides the output. */
typedef struct sz_pass {
    pprof__vec todo;       /* sz_addr of locations inside a segment */
    pprof__vec unresolved; /* uint64_t runtime addresses */
    uint64_t outside, nosym;
    bool all_dwarf;
} sz_pass;

/* Gives location loc the lines of result r (copied: locations never share line ranges). */
static bool
set_lines(sz_ctx *x, uint32_t loc, const sz_result *r)
{
    pprof__location *l = &PPROF__AT(x->c->locations, pprof__location, loc);
    if (x->c->lines.len + r->n > UINT32_MAX ||
        !pprof__vec_grow(x->a, &x->c->lines, sizeof(pprof_line), x->c->lines.len + r->n))
        return false;
    memcpy((pprof_line *)x->c->lines.data + x->c->lines.len,
           (const pprof_line *)x->rlines.data + r->off, r->n * sizeof(pprof_line));
    l->line_off = (uint32_t)x->c->lines.len;
    l->n_line = r->n;
    x->c->lines.len += r->n;
    return true;
}

/* Looks up the sorted addresses of one mapping in e's file. */
static pprof_status
resolve_all(sz_ctx *x, sz_entry *e, sz_pass *ps, pprof_symbolize_mapping *rep)
{
    sz_addr *t = ps->todo.data;
    if (ps->todo.len)
        qsort(t, ps->todo.len, sizeof(*t), addr_cmp);
    int64_t res = 0;
    for (size_t i = 0; i < ps->todo.len; i++) {
        bool first = i == 0 || t[i].vaddr != t[i - 1].vaddr;
        if (first) {
            rep->addresses++;
            if ((res = resolve(x, e, t[i].vaddr)) < 0)
                return nomem(x);
        }
        const pprof__location *l = &PPROF__AT(x->c->locations, pprof__location, t[i].loc);
        if (res == 0) {
            uint64_t *u = first ? pprof__vec_push(x->a, &ps->unresolved, sizeof(*u)) : NULL;
            if (first && !u)
                return nomem(x);
            if (first) {
                *u = l->address;
                ps->nosym++;
            }
            continue;
        }
        const sz_result *r = &PPROF__AT(x->results, sz_result, res - 1);
        rep->resolved += first;
        ps->all_dwarf &= r->dwarf;
        if (!set_lines(x, t[i].loc, r))
            return nomem(x);
    }
    return PPROF_OK;
}

/* Sorts the unresolved addresses, drops repeats, and puts them in the report. */
static bool
report_unresolved(sz_ctx *x, sz_pass *ps, pprof_symbolize_mapping *rep)
{
    uint64_t *u = ps->unresolved.data;
    size_t n = 0;
    if (ps->unresolved.len)
        qsort(u, ps->unresolved.len, sizeof(*u), u64_cmp);
    for (size_t i = 0; i < ps->unresolved.len; i++)
        if (!n || u[n - 1] != u[i])
            u[n++] = u[i];
    uint64_t *dst = n ? pprof__arena_alloc(&x->r->arena, n * sizeof(*dst)) : NULL;
    if (n && !dst)
        return false;
    if (n)
        memcpy(dst, u, n * sizeof(*dst));
    rep->unresolved = dst;
    rep->n_unresolved = n;
    x->r->unresolved += n;
    return true;
}

/* The has_* flags after the pass: what every location of the mapping now has. */
static void
update_flags(sz_ctx *x, pprof_mapping *m, const uint32_t *locs, size_t n, const sz_pass *ps,
             uint64_t kept)
{
    bool all_lines = true;
    for (size_t i = 0; i < n; i++)
        all_lines &= PPROF__AT(x->c->locations, pprof__location, locs[i]).n_line > 0;
    bool dw = all_lines && ps->all_dwarf;
    m->has_functions = all_lines;
    m->has_filenames = dw && (!kept || m->has_filenames);
    m->has_line_numbers = dw && (!kept || m->has_line_numbers);
    m->has_inline_frames = dw && (!kept || m->has_inline_frames);
}

static pprof_status
map_locations(sz_ctx *x, const pprof_mapping *m, sz_entry *e, const uint32_t *locs, size_t n,
              sz_pass *ps, uint64_t *kept)
{
    for (size_t i = 0; i < n; i++) {
        const pprof__location *l = &PPROF__AT(x->c->locations, pprof__location, locs[i]);
        if (!l->address)
            continue;
        if (l->n_line && !x->o.force) {
            (*kept)++;
            continue;
        }
        uint64_t vaddr = 0;
        bool in = e && l->address >= m->memory_start &&
                  pprof__sz_vaddr(&e->obj, l->address - m->memory_start + m->file_offset, &vaddr);
        if (in) {
            sz_addr *a = pprof__vec_push(x->a, &ps->todo, sizeof(*a));
            if (!a)
                return nomem(x);
            *a = (sz_addr){vaddr, locs[i]};
            continue;
        }
        uint64_t *u = pprof__vec_push(x->a, &ps->unresolved, sizeof(*u));
        if (!u)
            return nomem(x);
        *u = l->address;
        ps->outside += e != NULL;
    }
    return PPROF_OK;
}

static void say(char *dst, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void
say(char *dst, size_t cap, const char *fmt, ...)
{
    size_t used = strlen(dst);
    if (used && used + 2 < cap)
        memcpy(dst + used, "; ", 3), used += 2;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst + used, cap - used, fmt, ap);
    va_end(ap);
}

static pprof_status
do_mapping(sz_ctx *x, size_t mi, const uint32_t *locs, size_t n, sz_pass *ps)
{
    pprof_mapping *m = &PPROF__AT(x->c->mappings, pprof_mapping, mi);
    pprof_string name = {"", 0}, bid = {"", 0};
    pprof__str(x->c, m->filename, &name);
    pprof__str(x->c, m->build_id, &bid);
    pprof_symbolize_mapping *rep = pprof__vec_push(x->a, &x->r->maps, sizeof(*rep));
    if (!rep)
        return nomem(x);
    memset(rep, 0, sizeof(*rep));
    rep->mapping_id = m->id;
    rep->result = PPROF_SYMBOLIZE_NOTHING_TO_DO;
    rep->file = rep->found_by = rep->debug_file = rep->debug_found_by = rep->reason = "";
    ps->todo.len = ps->unresolved.len = 0;
    ps->outside = ps->nosym = 0;
    ps->all_dwarf = true;
    uint64_t kept = 0;
    pprof_status st = map_locations(x, m, NULL, locs, n, ps, &kept);
    bool needed = ps->unresolved.len > 0;
    ps->unresolved.len = 0;
    sz_entry *e = NULL;
    char reason[1024] = "";
    if (!st && needed && m->memory_start >= UINT64_C(0xffff800000000000)) {
        rep->result = PPROF_SYMBOLIZE_NOT_SYMBOLIZABLE;
        say(reason, sizeof(reason), "kernel addresses");
    } else if (!st && needed && !hex_build_id(bid)) {
        /* it names files (DIR/.build-id/ab/cdef.debug, CACHE/ID/debuginfo): only hex digits
         * keep those inside their directories */
        rep->result = PPROF_SYMBOLIZE_NOT_SYMBOLIZABLE;
        say(reason, sizeof(reason),
            "the build ID is not hexadecimal: no file is looked up for this mapping");
    } else if (!st && needed) {
        if (!(e = entry_for(x, name, bid)))
            return nomem(x);
        rep->result = e->ok ? PPROF_SYMBOLIZE_OK : e->why.result;
        if (!e->ok) {
            rep->file = pprof__sz_report_str(x->r, e->why.file);
            say(reason, sizeof(reason), "%s", e->why.reason);
            e = NULL;
        } else {
            rep->file = pprof__sz_report_str(x->r, e->obj.bin.path);
            rep->found_by = e->obj.found_by;
            rep->debug_file = pprof__sz_report_str(x->r, e->obj.dbg.fd >= 0 ? e->obj.dbg.path : "");
            rep->debug_found_by = e->obj.dbg.fd >= 0 ? e->obj.debug_found_by : "";
            rep->dwarf = e->dwarf;
            rep->lines = e->lines;
        }
    }
    kept = 0;
    if (!st)
        st = map_locations(x, m, e, locs, n, ps, &kept);
    rep->kept = kept;
    rep->addresses = 0;
    if (!st && e)
        st = resolve_all(x, e, ps, rep);
    if (st)
        return st;
    if (!e) { /* nothing resolved: every address needing frames counts once */
        uint64_t *u = ps->unresolved.data;
        if (ps->unresolved.len) /* qsort's array may not be NULL, even empty */
            qsort(u, ps->unresolved.len, sizeof(*u), u64_cmp);
        for (size_t i = 0; i < ps->unresolved.len; i++)
            rep->addresses += i == 0 || u[i] != u[i - 1];
    } else {
        rep->addresses += ps->outside; /* distinct: a segment maps addresses one to one */
    }
    if (e && ps->outside)
        say(reason, sizeof(reason), "%llu address(es) outside every loadable segment",
            (unsigned long long)ps->outside);
    if (e && ps->nosym)
        say(reason, sizeof(reason), "%llu address(es) without a symbol",
            (unsigned long long)ps->nosym);
    if (e && e->obj.guessed_segments)
        say(reason, sizeof(reason),
            "only a debug file: segment file offsets guessed from their addresses");
    if (e && e->obj.dwp)
        say(reason, sizeof(reason), "split DWARF package %s (found %s)", e->obj.dwpf.path,
            e->obj.dwp_found_by);
    if (e && !e->dwarf && e->lines)
        say(reason, sizeof(reason), "no DWARF: frames from Go's .gopclntab");
    else if (e && !e->dwarf)
        say(reason, sizeof(reason), "no DWARF: function names from the symbol table only");
    rep->mapping_file = entry_name(x, name);
    rep->build_id = entry_name(x, bid);
    rep->reason = pprof__sz_report_str(x->r, reason);
    if (!rep->mapping_file || !rep->build_id || !rep->reason || !rep->file || !rep->debug_file ||
        !report_unresolved(x, ps, rep))
        return nomem(x);
    if (needed)
        update_flags(x, m, locs, n, ps, kept);
    return PPROF_OK;
}

/* ---------------------------------------------------------------- the whole profile */

/* Location indices grouped by mapping index: order[start[m] .. start[m + 1]). */
static pprof_status
group_locations(sz_ctx *x, uint32_t **order, uint32_t **start)
{
    size_t nm = x->c->mappings.len, nl = x->c->locations.len;
    uint32_t *s = pprof__malloc(x->a, (nm + 2) * sizeof(*s));
    uint32_t *o = pprof__malloc(x->a, (nl + 1) * sizeof(*o));
    uint32_t *mi = pprof__malloc(x->a, (nl + 1) * sizeof(*mi));
    if (!s || !o || !mi) {
        pprof__free(x->a, s);
        pprof__free(x->a, o);
        pprof__free(x->a, mi);
        return nomem(x);
    }
    memset(s, 0, (nm + 2) * sizeof(*s));
    for (size_t i = 0; i < nl; i++) {
        uint64_t id = PPROF__AT(x->c->locations, pprof__location, i).mapping_id;
        mi[i] = id ? pprof__idmap_find(&x->p->map_idx, id) : PPROF_NONE;
        if (mi[i] != PPROF_NONE)
            s[mi[i] + 2]++;
    }
    for (size_t m = 0; m < nm; m++)
        s[m + 2] += s[m + 1];
    for (size_t i = 0; i < nl; i++)
        if (mi[i] != PPROF_NONE)
            o[s[mi[i] + 1]++] = (uint32_t)i;
    pprof__free(x->a, mi);
    *order = o;
    *start = s;
    return PPROF_OK;
}

/* The debug directories searched: the options', then the default one (under the sysroot). */
static bool
search_dirs(sz_ctx *x)
{
    size_t n = x->o.n_debug_dirs;
    x->dirs = pprof__malloc(x->a, (n + 1) * sizeof(*x->dirs));
    if (!x->dirs)
        return false;
    for (size_t i = 0; i < n; i++)
        x->dirs[i] = x->o.debug_dirs[i];
    const char *root = x->o.sysroot ? x->o.sysroot : "";
    int len = snprintf(x->default_dir, sizeof(x->default_dir), "%s%s", root,
                       PPROF_SYMBOLIZE_DEFAULT_DEBUG_DIR);
    if (!x->o.no_default_dirs && len > 0 && (size_t)len < sizeof(x->default_dir))
        x->dirs[n++] = x->default_dir;
    x->s.dirs = x->dirs;
    x->s.n_dirs = n;
    return true;
}

static void
cache_dir(sz_ctx *x)
{
    x->s.cache = NULL;
    const char *c = x->o.debuginfod_cache;
    if (!c && x->o.no_default_dirs)
        return;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = -1;
    if (c)
        n = c[0] ? snprintf(x->cache_dir, sizeof(x->cache_dir), "%s", c) : -1;
    else if ((c = getenv("DEBUGINFOD_CACHE_PATH")) && c[0])
        n = snprintf(x->cache_dir, sizeof(x->cache_dir), "%s", c);
    else if (xdg && xdg[0])
        n = snprintf(x->cache_dir, sizeof(x->cache_dir), "%s/debuginfod_client", xdg);
    else if (home && home[0])
        n = snprintf(x->cache_dir, sizeof(x->cache_dir), "%s/.cache/debuginfod_client", home);
    if (n > 0 && (size_t)n < sizeof(x->cache_dir))
        x->s.cache = x->cache_dir;
}

/* The address index cache's directory into x->index_dir ("" when off). */
static void
index_dir(sz_ctx *x)
{
    const char *c = x->o.cache_dir, *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = -1;
    if (c)
        n = c[0] ? snprintf(x->index_dir, sizeof(x->index_dir), "%s", c) : -1;
    else if (!x->o.cache)
        n = -1;
    else if (xdg && xdg[0] == '/')
        n = snprintf(x->index_dir, sizeof(x->index_dir), "%s/libpprof", xdg);
    else if (home && home[0] == '/')
        n = snprintf(x->index_dir, sizeof(x->index_dir), "%s/.cache/libpprof", home);
    if (n <= 0 || (size_t)n >= sizeof(x->index_dir) - 64)
        x->index_dir[0] = 0;
    x->s.defer_dwarf = x->index_dir[0] != 0;
}

/* Writes the index of every file that looked addresses up in its files; a cache that cannot
 * be written only costs the next run its speed. */
static void
write_indexes(sz_ctx *x)
{
    sz_entry *es = x->entries.data;
    for (size_t i = 0; i < x->entries.len; i++) {
        sz_entry *e = &es[i];
        /* no index of split DWARF: a package in a debug dir or a .dwo file that appears or
         * changes later would not change the index's key, and a stale index would answer */
        if (e->ok && e->alias == PPROF_NONE && e->use_index && e->added.len && !e->obj.split)
            pprof__sz_index_write(x->a, x->index_dir, e->index_path, &e->key,
                                  (e->dwarf ? PPROF__SZ_INDEX_DWARF : 0) |
                                      (e->lines ? PPROF__SZ_INDEX_LINES : 0),
                                  &e->ix, &e->added, &e->added_frames);
    }
}

static pprof_status
run(sz_ctx *x)
{
    pprof_status st = pprof__profile_index(x->p, x->err);
    if (st)
        return st;
    const pprof_function *f = x->c->functions.data;
    for (size_t i = 0; i < x->c->functions.len; i++)
        if (f[i].id >= x->next_fn_id)
            x->next_fn_id = f[i].id + 1;
    if (!x->next_fn_id)
        x->next_fn_id = 1;
    if (x->next_fn_id == UINT64_MAX)
        return pprof__error(x->err, PPROF_E_LIMIT, PPROF_NO_OFFSET, "function",
                            "function ids leave no room for new functions");
    uint32_t *order = NULL, *start = NULL;
    if ((st = group_locations(x, &order, &start)))
        return st;
    sz_pass ps = {0};
    for (size_t m = 0; !st && m < x->c->mappings.len; m++)
        st = do_mapping(x, m, order + start[m], start[m + 1] - start[m], &ps);
    if (!st && x->index_dir[0])
        write_indexes(x);
    pprof__free(x->a, ps.todo.data);
    pprof__free(x->a, ps.unresolved.data);
    pprof__free(x->a, order);
    pprof__free(x->a, start);
    return st;
}

pprof_status
pprof_symbolize(const pprof_profile *p, const pprof_symbolize_options *opts, pprof_profile **out,
                pprof_symbolize_report **report, pprof_error *err)
{
    if (report)
        *report = NULL;
    if (!p || !out)
        return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "", "profile or output is NULL");
    *out = NULL;
    if (p->lazy.len)
        return pprof__error(err, PPROF_E_INVALID, PPROF_NO_OFFSET, "",
                            "a merge input's samples are not decoded: read the profile whole");
    sz_ctx x;
    memset(&x, 0, sizeof(x));
    pprof_symbolize_options_init(&x.o);
    if (opts)
        memcpy(&x.o, opts, opts->struct_size < sizeof(x.o) ? opts->struct_size : sizeof(x.o));
    x.p = p;
    x.err = err;
    x.s.o = &x.o;
    cache_dir(&x);
    index_dir(&x);
    x.r = pprof__malloc(&x.o.allocator, sizeof(*x.r));
    if (!x.r)
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
    memset(x.r, 0, sizeof(*x.r));
    x.r->a = x.o.allocator;
    pprof__arena_init(&x.r->arena, &x.r->a);
    x.a = &x.r->a; /* the output's allocator too: both are the options' */
    x.s.a = x.a;
    x.c = copy_profile(p, &x.o.allocator);
    pprof_status st = x.c && search_dirs(&x) ? PPROF_OK : nomem(&x);
    if (!st) {
        elf_version(EV_CURRENT);
        st = run(&x);
    }
    free_entries(&x);
    pprof__free(x.a, x.dirs);
    pprof__htab_free(&x.strs, x.a);
    pprof__htab_free(&x.fns, x.a);
    pprof__free(x.a, x.results.data);
    pprof__free(x.a, x.rlines.data);
    if (st) {
        pprof_profile_free(x.c);
        x.c = NULL;
    }
    *out = x.c;
    if (report)
        *report = x.r;
    else
        pprof_symbolize_report_free(x.r);
    return st;
}
