/* Frames from DWARF through libdw: a sorted table of the compilation units' address ranges,
 * and, for the unit an address falls in, its tree of subprograms and inlined subroutines, read
 * once and kept while the (sorted) addresses stay in that unit. An address's frames are the path
 * from the innermost node holding it up to its subprogram: the innermost takes the line table's
 * row, each caller the call site (DW_AT_call_file/line/column) of the level below it.
 *
 * Hostile DWARF: libdw checks offsets against the sections; what it cannot see is a
 * DW_AT_sibling pointing backwards, so a unit's walk stops after as many DIEs as the unit has
 * bytes, and the nesting is cut at MAX_DEPTH. */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize-private.h"

#define MAX_DEPTH 512
#define MAX_RANGES_PER_DIE 65536

int
pprof__sz_range_cmp(const void *x, const void *y)
{
    const pprof__sz_curange *a = x, *b = y;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return a->cu < b->cu ? -1 : a->cu > b->cu;
}

static bool
push_range(const pprof_allocator *a, pprof__vec *v, uint64_t lo, uint64_t hi, Dwarf_Off cu,
           uint64_t size)
{
    if (lo >= hi)
        return true;
    pprof__sz_curange *r = pprof__vec_push(a, v, sizeof(*r));
    if (!r)
        return false;
    *r = (pprof__sz_curange){lo, hi, cu, size};
    return true;
}

/* Units without ranges of their own (rare: DW_AT_low_pc alone) are found through aranges. */
static bool
load_aranges(const pprof_allocator *a, pprof__sz_object *obj)
{
    Dwarf_Aranges *ar;
    size_t n;
    if (dwarf_getaranges(obj->dw, &ar, &n) != 0)
        return true;
    for (size_t i = 0; i < n; i++) {
        Dwarf_Arange *one = dwarf_onearange(ar, i);
        Dwarf_Addr addr;
        Dwarf_Word len;
        Dwarf_Off off;
        if (one && dwarf_getarangeinfo(one, &addr, &len, &off) == 0 &&
            !push_range(a, &obj->cus, addr, addr + len < addr ? UINT64_MAX : addr + len, off,
                        UINT64_C(1) << 24))
            return false;
    }
    return true;
}

bool
pprof__sz_dwarf_load(const pprof_allocator *a, pprof__sz_object *obj)
{
    if (!obj->dw)
        return true;
    Dwarf_Off off = 0, next;
    size_t hsize;
    Dwarf_Half version;
    /* no type signature pointer: with one, libdw reads DWARF 4's .debug_types instead */
    while (dwarf_next_unit(obj->dw, off, &next, &hsize, &version, NULL, NULL, NULL, NULL, NULL) ==
               0 &&
           next > off) {
        Dwarf_Die cudie;
        /* a skeleton's ranges and lines are in this file, its subprograms in a .dwp */
        if (dwarf_offdie(obj->dw, off + hsize, &cudie) &&
            (dwarf_tag(&cudie) == DW_TAG_compile_unit ||
             dwarf_tag(&cudie) == DW_TAG_skeleton_unit)) {
            Dwarf_Addr base, lo, hi;
            ptrdiff_t r = 0;
            for (size_t k = 0;
                 (r = dwarf_ranges(&cudie, r, &base, &lo, &hi)) > 0 && k < MAX_RANGES_PER_DIE; k++)
                if (!push_range(a, &obj->cus, lo, hi, off + hsize, next - off))
                    return false;
        }
        off = next;
    }
    if (!obj->cus.len && !load_aranges(a, obj))
        return false;
    if (obj->cus.len)
        qsort(obj->cus.data, obj->cus.len, sizeof(pprof__sz_curange), pprof__sz_range_cmp);
    return true;
}

void
pprof__sz_unit_free(const pprof_allocator *a, pprof__sz_unit *u)
{
    pprof__free(a, u->nodes.data);
    pprof__free(a, u->ranges.data);
    pprof__free(a, u->tops.data);
    memset(u, 0, sizeof(*u));
}

/* Records a subprogram or inlined subroutine that has addresses; *idx its node, or PPROF_NONE
 * when it has none (a declaration, an abstract instance). False: out of memory. */
static bool
add_node(const pprof_allocator *a, pprof__sz_unit *u, Dwarf_Die *die, uint32_t parent,
         uint32_t *idx)
{
    *idx = PPROF_NONE;
    size_t first = u->ranges.len;
    Dwarf_Addr base, lo, hi;
    ptrdiff_t r = 0;
    for (size_t k = 0; (r = dwarf_ranges(die, r, &base, &lo, &hi)) > 0 && k < MAX_RANGES_PER_DIE;
         k++) {
        if (lo >= hi)
            continue;
        uint64_t *p = pprof__vec_push(a, &u->ranges, 2 * sizeof(uint64_t));
        if (!p)
            return false;
        p[0] = lo;
        p[1] = hi;
    }
    if (u->ranges.len == first || u->nodes.len >= PPROF_NONE - 1)
        return true;
    pprof__sz_node *n = pprof__vec_push(a, &u->nodes, sizeof(*n));
    if (!n)
        return false;
    uint32_t me = (uint32_t)(u->nodes.len - 1);
    *n = (pprof__sz_node){.die = dwarf_dieoffset(die),
                          .parent = parent,
                          .first_child = PPROF_NONE,
                          .next_sibling = PPROF_NONE,
                          .range_off = (uint32_t)first,
                          .n_range = (uint32_t)(u->ranges.len - first),
                          .inlined = dwarf_tag(die) == DW_TAG_inlined_subroutine};
    if (parent != PPROF_NONE) {
        pprof__sz_node *p = &PPROF__AT(u->nodes, pprof__sz_node, parent);
        n->next_sibling = p->first_child;
        p->first_child = me;
    } else {
        for (uint32_t k = 0; k < n->n_range; k++) {
            const uint64_t *rg = (const uint64_t *)u->ranges.data + 2 * (first + k);
            if (!push_range(a, &u->tops, rg[0], rg[1], me, 0))
                return false;
        }
    }
    *idx = me;
    return true;
}

/* Reads the tree of the unit whose DIE is at cu. False: out of memory. */
static bool
read_unit(const pprof_allocator *a, pprof__sz_object *obj, const pprof__sz_curange *cr)
{
    pprof__sz_unit *u = &obj->unit;
    u->valid = true;
    u->cu = cr->cu;
    u->nodes.len = u->ranges.len = u->tops.len = 0;
    u->files = NULL;
    u->n_files = 0;
    if (!dwarf_offdie(obj->dw, cr->cu, &u->cudie)) {
        u->valid = false;
        return true;
    }
    if (dwarf_getsrcfiles(&u->cudie, &u->files, &u->n_files) != 0)
        u->files = NULL, u->n_files = 0;
    Dwarf_Die *stack = pprof__malloc(a, MAX_DEPTH * sizeof(Dwarf_Die));
    uint32_t *parent = pprof__malloc(a, MAX_DEPTH * sizeof(uint32_t));
    bool ok = stack && parent;
    uint64_t budget = cr->size ? cr->size : 1;
    int depth = 0;
    if (!ok || dwarf_child(&u->cudie, &stack[0]) != 0)
        goto done;
    parent[0] = PPROF_NONE;
    for (;;) {
        if (!budget--)
            break;
        Dwarf_Die *d = &stack[depth];
        int tag = dwarf_tag(d);
        uint32_t me = parent[depth];
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
            uint32_t idx;
            if (!(ok = add_node(a, u, d, parent[depth], &idx)))
                break;
            if (idx != PPROF_NONE)
                me = idx;
        }
        if (depth + 1 < MAX_DEPTH && dwarf_haschildren(d) > 0 &&
            dwarf_child(d, &stack[depth + 1]) == 0) {
            parent[++depth] = me;
            continue;
        }
        int r;
        while ((r = dwarf_siblingof(&stack[depth], &stack[depth])) != 0) {
            if (r < 0 || depth == 0)
                goto done;
            depth--;
        }
    }
done:
    pprof__free(a, stack);
    pprof__free(a, parent);
    if (ok && u->tops.len)
        qsort(u->tops.data, u->tops.len, sizeof(pprof__sz_curange), pprof__sz_range_cmp);
    return ok;
}

/* The range of v (sorted by lo) holding addr, or NULL. Ranges that overlap (nested units, bad
 * DWARF) are looked at a few back from the last that starts at or before addr. */
const pprof__sz_curange *
pprof__sz_find_range(const pprof__vec *v, uint64_t addr)
{
    const pprof__sz_curange *r = v->data;
    size_t lo = 0, hi = v->len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo, k = 0; i > 0 && k < 16; i--, k++)
        if (addr >= r[i - 1].lo && addr < r[i - 1].hi)
            return &r[i - 1];
    return NULL;
}

bool
pprof__sz_ranges_hold(const pprof__vec *ranges, uint32_t off, uint32_t n, uint64_t addr)
{
    const uint64_t *rg = (const uint64_t *)ranges->data + 2 * (size_t)off;
    for (uint32_t k = 0; k < n; k++)
        if (addr >= rg[2 * k] && addr < rg[2 * k + 1])
            return true;
    return false;
}

static const char *
attr_string(Dwarf_Die *die, unsigned name)
{
    Dwarf_Attribute at;
    return dwarf_attr_integrate(die, name, &at) ? dwarf_formstring(&at) : NULL;
}

static int64_t
attr_int(Dwarf_Die *die, unsigned name)
{
    Dwarf_Attribute at;
    Dwarf_Word w;
    if (!dwarf_attr_integrate(die, name, &at) || dwarf_formudata(&at, &w) != 0 || w > INT64_MAX)
        return 0;
    return (int64_t)w;
}

/* A node's function: its linkage name when it has one (demangled later), else its name. */
static void
node_function(pprof__sz_object *obj, pprof__sz_node *n, pprof__sz_frame *f)
{
    Dwarf_Die die;
    if (!n->have_function && dwarf_offdie(obj->dw, n->die, &die)) {
        n->name = attr_string(&die, DW_AT_linkage_name);
        if (!n->name)
            n->name = attr_string(&die, DW_AT_MIPS_linkage_name);
        if (!n->name)
            n->name = attr_string(&die, DW_AT_name);
        n->start_line = attr_int(&die, DW_AT_decl_line);
    }
    n->have_function = true;
    f->name = n->name;
    f->start_line = n->start_line;
}

/* The call site of an inlined node: the caller's file, line and column. */
static void
call_site(pprof__sz_object *obj, pprof__sz_node *n, pprof__sz_frame *f)
{
    Dwarf_Die die;
    const pprof__sz_unit *u = &obj->unit;
    if (!n->have_call && dwarf_offdie(obj->dw, n->die, &die)) {
        int64_t file = attr_int(&die, DW_AT_call_file);
        if (u->files && file >= 0 && (uint64_t)file < u->n_files)
            n->call_file = dwarf_filesrc(u->files, (size_t)file, NULL, NULL);
        n->call_line = attr_int(&die, DW_AT_call_line);
        n->call_column = attr_int(&die, DW_AT_call_column);
    }
    n->have_call = true;
    f->file = n->call_file;
    f->line = n->call_line;
    f->column = n->call_column;
}

int
pprof__sz_dwarf_frames(const pprof_allocator *a, pprof__sz_object *obj, uint64_t vaddr,
                       pprof__sz_frame *frames)
{
    if (!obj->dw)
        return 0;
    const pprof__sz_curange *cr = pprof__sz_find_range(&obj->cus, vaddr);
    if (!cr)
        return 0;
    pprof__sz_unit *u = &obj->unit;
    if ((!u->valid || u->cu != cr->cu) && !read_unit(a, obj, cr))
        return -1;
    if (!u->valid)
        return 0;
    pprof__sz_frame *f0 = &frames[0];
    memset(f0, 0, sizeof(*f0));
    Dwarf_Line *row = dwarf_getsrc_die(&u->cudie, vaddr);
    if (!row) /* a unit without lines for it (crtstuff.c): the unit's name, no line */
        f0->file = dwarf_diename(&u->cudie);
    if (row) {
        int line = 0, col = 0;
        f0->file = dwarf_linesrc(row, NULL, NULL);
        if (dwarf_lineno(row, &line) == 0 && line > 0)
            f0->line = line;
        if (dwarf_linecol(row, &col) == 0 && col > 0)
            f0->column = col;
    }
    pprof__sz_skel sk; /* a split unit: its tree from the package, else from its .dwo */
    pprof__sz_dwp *pk = obj->dwp ? obj->dwp : pprof__sz_dwo_for(a, obj, &u->cudie);
    if (pk && pprof__sz_dwp_skeleton(pk, obj->dw, &u->cudie, &sk)) {
        int n = pprof__sz_dwp_frames(a, pk, &sk, u->files, u->n_files, vaddr, frames);
        return n ? n : row || f0->file ? 1 : 0;
    }
    const pprof__sz_curange *top = pprof__sz_find_range(&u->tops, vaddr);
    if (!top) /* lines without a function: the caller names it from symbols */
        return row || f0->file ? 1 : 0;
    pprof__sz_node *nodes = u->nodes.data;
    uint32_t cur = (uint32_t)top->cu;
    for (size_t guard = 0; guard < u->nodes.len; guard++) {
        uint32_t c = nodes[cur].first_child;
        while (c != PPROF_NONE &&
               !pprof__sz_ranges_hold(&u->ranges, nodes[c].range_off, nodes[c].n_range, vaddr))
            c = nodes[c].next_sibling;
        if (c == PPROF_NONE)
            break;
        cur = c;
    }
    /* From the innermost level up to its subprogram (an inlined node always has one above it;
     * a nested function's own subprogram ends its chain too). */
    int n = 0;
    for (uint32_t k = cur; k != PPROF_NONE && n < PPROF__SZ_MAX_FRAMES;) {
        pprof__sz_node *node = &nodes[k];
        node_function(obj, node, &frames[n]);
        n++;
        if (!node->inlined || node->parent == PPROF_NONE || n == PPROF__SZ_MAX_FRAMES)
            break;
        call_site(obj, node, &frames[n]);
        k = node->parent;
    }
    return n;
}
