/* Split DWARF packages (.dwp, from llvm-dwp or dwp): the project's own reader, since libdw
 * before elfutils 0.191 reads .dwo files but not packages. The skeleton unit in the executable
 * keeps what libdw reads well (the unit's ranges, .debug_addr, the line table); the package
 * holds the split unit's DIEs, found by the skeleton's DWO id through .debug_cu_index (version 5,
 * or the GNU version 2 of DWARF 4 packages). Only the subprograms and inlined subroutines are
 * read, into a tree like symbolize-dwarf.c's, with names, call sites and declaration lines
 * resolved while walking, so a lookup touches no DIE.
 *
 * Hostile packages: every read goes through a cursor bounded by the unit's contribution, which
 * is itself checked against its section; the DIEs are walked in file order (sibling pointers
 * are never followed), so each step consumes at least one byte; origin chains stop after
 * MAX_HOPS, nesting at MAX_DEPTH, a range list after MAX_RANGES entries, and a unit's ranges
 * all together at a few per byte of the unit and its lists. */
#include <dwarf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize-private.h"

#define MAX_DEPTH 512
#define MAX_HOPS 16
#define MAX_RANGES 65536

/* DW_SECT_* of the two index versions */
enum { SECT5_INFO = 1, SECT5_ABBREV = 3, SECT5_STR_OFFSETS = 6, SECT5_RNGLISTS = 8 };
enum { SECT2_INFO = 1, SECT2_ABBREV = 3, SECT2_STR_OFFSETS = 6 };

/* ---------------------------------------------------------------- bounded reading */

typedef struct cursor {
    const uint8_t *p, *end;
    bool bad;
} cursor;

static cursor
cursor_at(const pprof__sz_bytes *b, uint64_t off, uint64_t len)
{
    cursor c = {NULL, NULL, true};
    if (!b->p || off > b->n || len > b->n - off) /* no section: NULL, where + 0 is undefined */
        return c;
    c.p = b->p + off;
    c.end = c.p + len;
    c.bad = false;
    return c;
}

static uint64_t
rd(cursor *c, unsigned n)
{
    if (c->bad || (size_t)(c->end - c->p) < n) {
        c->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)c->p[i] << (8 * i);
    c->p += n;
    return v;
}

static uint64_t
uleb(cursor *c)
{
    uint64_t v = 0;
    for (unsigned shift = 0; !c->bad; shift += 7) {
        if (c->p >= c->end) {
            c->bad = true;
            break;
        }
        uint8_t b = *c->p++;
        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    return 0;
}

static int64_t
sleb(cursor *c)
{
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b = 0;
    do {
        if (c->bad || c->p >= c->end) {
            c->bad = true;
            return 0;
        }
        b = *c->p++;
        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40))
        v |= ~UINT64_C(0) << shift;
    return (int64_t)v;
}

static void
skip(cursor *c, uint64_t n)
{
    if (c->bad || (uint64_t)(c->end - c->p) < n)
        c->bad = true;
    else
        c->p += n;
}

/* A NUL-terminated string at off of b, or NULL. */
static const char *
str_at(const pprof__sz_bytes *b, uint64_t off)
{
    if (off >= b->n || !memchr(b->p + off, 0, b->n - off))
        return NULL;
    return (const char *)b->p + off;
}

/* ---------------------------------------------------------------- the package */

static bool
section(Elf *elf, size_t shstrndx, Elf_Scn *scn, const char **name, pprof__sz_bytes *out)
{
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
        return false;
    *name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (!*name || strncmp(*name, ".debug_", 7) != 0)
        return false;
    if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
        return false;
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d || !d->d_buf)
        return false;
    out->p = d->d_buf;
    out->n = d->d_size;
    return true;
}

pprof__sz_dwp *
pprof__sz_dwp_open(const pprof_allocator *a, Elf *elf)
{
    size_t shstrndx;
    if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
        return NULL;
    pprof__sz_dwp *d = pprof__malloc(a, sizeof(*d));
    if (!d)
        return NULL;
    memset(d, 0, sizeof(*d));
    static const struct {
        const char *name;
        size_t off;
    } want[] = {
        {".debug_cu_index", offsetof(pprof__sz_dwp, index)},
        {".debug_info.dwo", offsetof(pprof__sz_dwp, info)},
        {".debug_abbrev.dwo", offsetof(pprof__sz_dwp, abbrev)},
        {".debug_str.dwo", offsetof(pprof__sz_dwp, str)},
        {".debug_str_offsets.dwo", offsetof(pprof__sz_dwp, str_offsets)},
        {".debug_rnglists.dwo", offsetof(pprof__sz_dwp, rnglists)},
    };
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
        const char *name;
        pprof__sz_bytes b;
        if (!section(elf, shstrndx, scn, &name, &b))
            continue;
        for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
            if (!strcmp(name, want[i].name))
                *(pprof__sz_bytes *)((char *)d + want[i].off) = b;
    }
    /* header: version (2 as 4 bytes, or 5 as 2 + 2 padding), columns, units, slots */
    cursor c = cursor_at(&d->index, 0, d->index.n);
    uint32_t version = (uint32_t)rd(&c, 4);
    d->version = version == 2 ? 2 : (version & 0xffff) == 5 ? 5 : 0;
    d->n_cols = (uint32_t)rd(&c, 4);
    d->n_units = (uint32_t)rd(&c, 4);
    d->n_slots = (uint32_t)rd(&c, 4);
    /* slots are a power of two (the probe sequence needs it); the tables must fit */
    uint64_t s = d->n_slots, u = d->n_units, k = d->n_cols;
    bool fits = !c.bad && k >= 1 && k <= 16 && s <= d->index.n && u <= d->index.n &&
                s * 12 + k * 4 + 2 * u * k * 4 <= d->index.n - 16;
    if (!d->index.n && d->info.n) { /* a .dwo file: one split unit, sections its own */
        d->version = 0;
        return d;
    }
    if (!d->version || !fits || !d->info.n || (s & (s - 1))) {
        pprof__free(a, d);
        return NULL;
    }
    d->hashes = d->index.p + 16;
    d->rows = d->hashes + s * 8;
    d->cols = d->rows + s * 4;
    d->offsets = d->cols + k * 4;
    d->sizes = d->offsets + u * k * 4;
    return d;
}

void
pprof__sz_dwp_free(const pprof_allocator *a, pprof__sz_dwp *d)
{
    if (!d)
        return;
    pprof__free(a, d->abbrevs.data);
    pprof__free(a, d->specs.data);
    pprof__free(a, d->nodes.data);
    pprof__free(a, d->ranges.data);
    pprof__free(a, d->tops.data);
    pprof__free(a, d);
}

static uint32_t
le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t
pprof__sz_dwp_slot_id(const pprof__sz_dwp *d, uint32_t slot, uint32_t *row)
{
    *row = le32(d->rows + 4 * (size_t)slot);
    return (uint64_t)le32(d->hashes + 8 * (size_t)slot) |
           (uint64_t)le32(d->hashes + 8 * (size_t)slot + 4) << 32;
}

/* The row (1-based) of the unit with id, or 0. */
static uint32_t
find_row(const pprof__sz_dwp *d, uint64_t id)
{
    uint32_t mask = d->n_slots - 1, h = (uint32_t)id & mask;
    uint32_t step = ((uint32_t)(id >> 32) & mask) | 1;
    for (uint32_t k = 0; k < d->n_slots; k++, h = (h + step) & mask) {
        uint32_t row;
        uint64_t have = pprof__sz_dwp_slot_id(d, h, &row);
        if (row == 0)
            return 0;
        if (have == id)
            return row <= d->n_units ? row : 0;
    }
    return 0;
}

/* The contribution of column sect of row into *out (an empty one when the row has none);
 * false when it lies outside its section. */
static bool
contribution(const pprof__sz_dwp *d, uint32_t row, uint32_t sect, const pprof__sz_bytes *whole,
             pprof__sz_bytes *out)
{
    out->p = whole->p;
    out->n = 0;
    for (uint32_t k = 0; k < d->n_cols; k++) {
        if (le32(d->cols + 4 * (size_t)k) != sect)
            continue;
        size_t at = 4 * ((size_t)(row - 1) * d->n_cols + k);
        uint64_t off = le32(d->offsets + at), len = le32(d->sizes + at);
        if (!whole->p || off > whole->n || len > whole->n - off)
            return false;
        out->p = whole->p + off;
        out->n = len;
        return true;
    }
    return true;
}

/* ---------------------------------------------------------------- one split unit */

typedef struct abbrev {
    uint64_t code;
    uint32_t tag, first, n; /* specs[first .. first + n) */
    bool children;
} abbrev;

typedef struct spec {
    uint32_t attr, form;
    int64_t implicit;
} spec;

typedef struct unit {
    const pprof__sz_dwp *d;
    const pprof__sz_skel *sk;
    pprof__sz_bytes info, str_offsets, rnglists; /* this unit's contributions */
    uint64_t die_start, end;                     /* in info: the first DIE, the unit's end */
    unsigned offset_size, len_size, version;
    uint64_t str_base;            /* in str_offsets: the first offset */
    uint64_t rng_base, rng_count; /* in rnglists: the offset table and its length */
    const abbrev *abbrevs;
    size_t n_abbrevs;
    const spec *specs;
} unit;

/* What the walk wants of one DIE. */
typedef struct die {
    const abbrev *ab; /* NULL: a null entry */
    const char *name, *linkage;
    uint64_t origin; /* unit-relative offset; 0: none */
    uint64_t low, high, ranges;
    int low_kind;    /* 0 none, 1 address, 2 index into .debug_addr */
    int high_kind;   /* 0 none, 1 address, 2 index, 3 offset from low */
    int ranges_kind; /* 0 none, 1 rnglistx, 2 offset into the contribution */
    int64_t decl_line, call_file, call_line, call_column;
} die;

static int
abbrev_cmp(const void *x, const void *y)
{
    const abbrev *a = x, *b = y;
    return a->code < b->code ? -1 : a->code > b->code;
}

/* Reads the abbreviations at [off, end of the contribution); false: out of memory. */
static bool
read_abbrevs(const pprof_allocator *a, pprof__sz_dwp *d, const pprof__sz_bytes *contrib,
             uint64_t off)
{
    d->abbrevs.len = d->specs.len = 0;
    cursor c = cursor_at(contrib, off, off <= contrib->n ? contrib->n - off : 0);
    while (!c.bad) {
        uint64_t code = uleb(&c);
        if (!code || c.bad)
            break;
        abbrev *ab = pprof__vec_push(a, &d->abbrevs, sizeof(*ab));
        if (!ab)
            return false;
        ab->code = code;
        ab->tag = (uint32_t)uleb(&c);
        ab->children = rd(&c, 1) != 0;
        ab->first = (uint32_t)d->specs.len;
        for (;;) {
            uint64_t attr = uleb(&c), form = uleb(&c);
            if (c.bad || (!attr && !form))
                break;
            spec *s = pprof__vec_push(a, &d->specs, sizeof(*s));
            if (!s)
                return false;
            s->attr = attr > UINT32_MAX ? 0 : (uint32_t)attr;
            s->form = form > UINT32_MAX ? 0 : (uint32_t)form;
            s->implicit = form == DW_FORM_implicit_const ? sleb(&c) : 0;
        }
        ab = &PPROF__AT(d->abbrevs, abbrev, d->abbrevs.len - 1);
        ab->n = (uint32_t)(d->specs.len - ab->first);
        if (c.bad) /* an abbreviation cut off by the contribution's end is no abbreviation */
            d->abbrevs.len--;
    }
    if (d->abbrevs.len)
        qsort(d->abbrevs.data, d->abbrevs.len, sizeof(abbrev), abbrev_cmp);
    return true;
}

static const abbrev *
find_abbrev(const unit *u, uint64_t code)
{
    size_t lo = 0, hi = u->n_abbrevs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (u->abbrevs[mid].code == code)
            return &u->abbrevs[mid];
        if (u->abbrevs[mid].code < code)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static const char *
strx(const unit *u, uint64_t idx)
{
    if (idx > (UINT64_MAX - u->str_base) / u->offset_size)
        return NULL;
    cursor c = cursor_at(&u->str_offsets, u->str_base + idx * u->offset_size, u->offset_size);
    uint64_t off = rd(&c, u->offset_size);
    return c.bad ? NULL : str_at(&u->d->str, off);
}

/* Entry idx of .debug_addr from the skeleton's base; false when outside it. */
static bool
addrx(const unit *u, uint64_t idx, uint64_t *out)
{
    const pprof__sz_skel *sk = u->sk;
    unsigned n = sk->addr_size;
    if ((n != 4 && n != 8) || idx > (UINT64_MAX - sk->addr_base) / n)
        return false;
    cursor c = cursor_at(&sk->addr, sk->addr_base + idx * n, n);
    *out = rd(&c, n);
    return !c.bad;
}

/* Reads one attribute value of form; *s for string forms. */
static uint64_t
form_value(const unit *u, cursor *c, uint32_t form, int64_t implicit, const char **s)
{
    *s = NULL;
    for (int hops = 0; form == DW_FORM_indirect; hops++)
        form = hops < 4 ? (uint32_t)uleb(c) : (c->bad = true, 0);
    switch (form) {
    case DW_FORM_addr: return rd(c, u->sk->addr_size == 4 ? 4 : 8);
    case DW_FORM_data1:
    case DW_FORM_ref1:
    case DW_FORM_flag:
    case DW_FORM_strx1:
    case DW_FORM_addrx1: return rd(c, 1);
    case DW_FORM_data2:
    case DW_FORM_ref2:
    case DW_FORM_strx2:
    case DW_FORM_addrx2: return rd(c, 2);
    case DW_FORM_strx3:
    case DW_FORM_addrx3: return rd(c, 3);
    case DW_FORM_data4:
    case DW_FORM_ref4:
    case DW_FORM_ref_sup4:
    case DW_FORM_strx4:
    case DW_FORM_addrx4: return rd(c, 4);
    case DW_FORM_data8:
    case DW_FORM_ref8:
    case DW_FORM_ref_sig8:
    case DW_FORM_ref_sup8: return rd(c, 8);
    case DW_FORM_data16: skip(c, 16); return 0;
    case DW_FORM_sdata: return (uint64_t)sleb(c);
    case DW_FORM_udata:
    case DW_FORM_ref_udata:
    case DW_FORM_strx:
    case DW_FORM_addrx:
    case DW_FORM_loclistx:
    case DW_FORM_rnglistx:
    case DW_FORM_GNU_addr_index:
    case DW_FORM_GNU_str_index: return uleb(c);
    case DW_FORM_strp:
    case DW_FORM_line_strp:
    case DW_FORM_sec_offset:
    case DW_FORM_ref_addr:
    case DW_FORM_strp_sup:
    case DW_FORM_GNU_ref_alt:
    case DW_FORM_GNU_strp_alt: return rd(c, u->offset_size);
    case DW_FORM_string: {
        const uint8_t *z = c->bad ? NULL : memchr(c->p, 0, (size_t)(c->end - c->p));
        if (!z) {
            c->bad = true;
            return 0;
        }
        *s = (const char *)c->p;
        c->p = z + 1;
        return 0;
    }
    case DW_FORM_block1: skip(c, rd(c, 1)); return 0;
    case DW_FORM_block2: skip(c, rd(c, 2)); return 0;
    case DW_FORM_block4: skip(c, rd(c, 4)); return 0;
    case DW_FORM_block:
    case DW_FORM_exprloc: skip(c, uleb(c)); return 0;
    case DW_FORM_flag_present: return 1;
    case DW_FORM_implicit_const: return (uint64_t)implicit;
    default: /* an unknown form has an unknown size: the rest of the DIE cannot be read */
        c->bad = true;
        return 0;
    }
}

static bool
is_strx(uint32_t form)
{
    return form == DW_FORM_strx || form == DW_FORM_GNU_str_index ||
           (form >= DW_FORM_strx1 && form <= DW_FORM_strx4);
}

static bool
is_addrx(uint32_t form)
{
    return form == DW_FORM_addrx || form == DW_FORM_GNU_addr_index ||
           (form >= DW_FORM_addrx1 && form <= DW_FORM_addrx4);
}

static bool
is_ref(uint32_t form)
{
    return form == DW_FORM_ref1 || form == DW_FORM_ref2 || form == DW_FORM_ref4 ||
           form == DW_FORM_ref8 || form == DW_FORM_ref_udata;
}

/* The DIE at off of the unit's contribution to .debug_info.dwo; *next after it. False: it
 * does not parse (the walk stops there). */
static bool
read_die(const unit *u, uint64_t off, die *out, uint64_t *next)
{
    memset(out, 0, sizeof(*out));
    out->call_file = -1;
    if (off < u->die_start || off >= u->end)
        return false;
    cursor c = cursor_at(&u->info, off, u->end - off);
    uint64_t code = uleb(&c);
    if (c.bad)
        return false;
    if (code) {
        out->ab = find_abbrev(u, code);
        if (!out->ab)
            return false;
        /* no attribute at all in the unit: no specs array either */
        const spec *sp = out->ab->n ? u->specs + out->ab->first : NULL;
        for (uint32_t i = 0; i < out->ab->n && !c.bad; i++) {
            const char *s;
            uint32_t form = sp[i].form;
            uint64_t v = form_value(u, &c, form, sp[i].implicit, &s);
            if (c.bad)
                break;
            switch (sp[i].attr) {
            case DW_AT_name:
            case DW_AT_linkage_name:
            case DW_AT_MIPS_linkage_name:
                if (is_strx(form))
                    s = strx(u, v);
                else if (form == DW_FORM_strp)
                    s = str_at(&u->d->str, v);
                if (sp[i].attr == DW_AT_name)
                    out->name = s;
                else if (!out->linkage)
                    out->linkage = s;
                break;
            case DW_AT_abstract_origin:
            case DW_AT_specification:
                if (is_ref(form) && v && (sp[i].attr == DW_AT_abstract_origin || !out->origin))
                    out->origin = v;
                break;
            case DW_AT_low_pc:
                out->low = v;
                out->low_kind = is_addrx(form) ? 2 : form == DW_FORM_addr ? 1 : 0;
                break;
            case DW_AT_high_pc:
                out->high = v;
                out->high_kind = is_addrx(form) ? 2 : form == DW_FORM_addr ? 1 : 3;
                break;
            case DW_AT_ranges:
                out->ranges = v;
                out->ranges_kind = form == DW_FORM_rnglistx ? 1 : 2;
                break;
            case DW_AT_decl_line: out->decl_line = v > INT64_MAX ? 0 : (int64_t)v; break;
            case DW_AT_call_file: out->call_file = v > INT64_MAX ? -1 : (int64_t)v; break;
            case DW_AT_call_line: out->call_line = v > INT64_MAX ? 0 : (int64_t)v; break;
            case DW_AT_call_column: out->call_column = v > INT64_MAX ? 0 : (int64_t)v; break;
            default: break;
            }
        }
    }
    if (c.bad)
        return false;
    *next = (uint64_t)(c.p - u->info.p);
    return true;
}

/* Pushes [lo, hi) to d->ranges unless empty; false: out of memory. */
static bool
push_pair(const pprof_allocator *a, pprof__sz_dwp *d, uint64_t lo, uint64_t hi)
{
    if (lo >= hi)
        return true;
    uint64_t *p = pprof__vec_push(a, &d->ranges, 2 * sizeof(uint64_t));
    if (!p)
        return false;
    p[0] = lo;
    p[1] = hi;
    return true;
}

static uint64_t
end_of(uint64_t lo, uint64_t len)
{
    return lo + len < lo ? UINT64_MAX : lo + len;
}

/* The DWARF 5 range list at off of the unit's .debug_rnglists.dwo contribution. */
static bool
read_rnglist(const pprof_allocator *a, const unit *u, pprof__sz_dwp *d, uint64_t off)
{
    cursor c = cursor_at(&u->rnglists, off, off <= u->rnglists.n ? u->rnglists.n - off : 0);
    uint64_t base = u->sk->low_pc, x, y;
    unsigned as = u->sk->addr_size == 4 ? 4 : 8;
    for (size_t k = 0; k < MAX_RANGES && !c.bad && d->range_steps++ < d->range_cap; k++) {
        switch (rd(&c, 1)) {
        case DW_RLE_end_of_list: return true;
        case DW_RLE_base_addressx:
            if (!addrx(u, uleb(&c), &base))
                return true;
            break;
        case DW_RLE_startx_endx:
            x = uleb(&c), y = uleb(&c);
            if (!c.bad && addrx(u, x, &x) && addrx(u, y, &y) && !push_pair(a, d, x, y))
                return false;
            break;
        case DW_RLE_startx_length:
            x = uleb(&c), y = uleb(&c);
            if (!c.bad && addrx(u, x, &x) && !push_pair(a, d, x, end_of(x, y)))
                return false;
            break;
        case DW_RLE_offset_pair:
            x = uleb(&c), y = uleb(&c);
            if (!c.bad && !push_pair(a, d, end_of(base, x), end_of(base, y)))
                return false;
            break;
        case DW_RLE_base_address: base = rd(&c, as); break;
        case DW_RLE_start_end:
            x = rd(&c, as), y = rd(&c, as);
            if (!c.bad && !push_pair(a, d, x, y))
                return false;
            break;
        case DW_RLE_start_length:
            x = rd(&c, as), y = uleb(&c);
            if (!c.bad && !push_pair(a, d, x, end_of(x, y)))
                return false;
            break;
        default: return true;
        }
    }
    return true;
}

/* A DWARF 4 range list (GNU split units): in the skeleton's file's .debug_ranges at
 * DW_AT_GNU_ranges_base + off, pairs relative to the unit's base address. */
static bool
read_ranges_v4(const pprof_allocator *a, const unit *u, pprof__sz_dwp *d, uint64_t off)
{
    const pprof__sz_skel *sk = u->sk;
    unsigned as = sk->addr_size == 4 ? 4 : 8;
    uint64_t all = as == 4 ? UINT32_MAX : UINT64_MAX, base = sk->low_pc;
    if (off > UINT64_MAX - sk->ranges_base)
        return true;
    off += sk->ranges_base;
    cursor c = cursor_at(&sk->ranges, off, off <= sk->ranges.n ? sk->ranges.n - off : 0);
    for (size_t k = 0; k < MAX_RANGES && !c.bad && d->range_steps++ < d->range_cap; k++) {
        uint64_t x = rd(&c, as), y = rd(&c, as);
        if (c.bad || (!x && !y))
            break;
        if (x == all)
            base = y;
        else if (!push_pair(a, d, end_of(base, x), end_of(base, y)))
            return false;
    }
    return true;
}

/* The address ranges of a DIE onto d->ranges. */
static bool
die_ranges(const pprof_allocator *a, const unit *u, pprof__sz_dwp *d, const die *e)
{
    if (e->ranges_kind == 1) {
        if (e->ranges >= u->rng_count)
            return true;
        cursor c =
            cursor_at(&u->rnglists, u->rng_base + e->ranges * u->offset_size, u->offset_size);
        uint64_t off = rd(&c, u->offset_size);
        return c.bad || off > UINT64_MAX - u->rng_base || read_rnglist(a, u, d, u->rng_base + off);
    }
    if (e->ranges_kind == 2)
        return u->version < 5 ? read_ranges_v4(a, u, d, e->ranges)
                              : read_rnglist(a, u, d, e->ranges);
    uint64_t lo, hi;
    if (e->low_kind == 0 || e->high_kind == 0)
        return true;
    if (e->low_kind == 2 ? !addrx(u, e->low, &lo) : (lo = e->low, false))
        return true;
    if (e->high_kind == 3)
        hi = end_of(lo, e->high);
    else if (e->high_kind == 2 ? !addrx(u, e->high, &hi) : (hi = e->high, false))
        return true;
    return push_pair(a, d, lo, hi);
}

/* Name (linkage name first) and declaration line of a DIE, through its origins. */
static void
die_names(const unit *u, const die *e, pprof__sz_dnode *n)
{
    const char *name = NULL;
    die cur = *e;
    for (int hop = 0;; hop++) {
        if (!n->name)
            n->name = cur.linkage;
        if (!name)
            name = cur.name;
        if (!n->decl_line)
            n->decl_line = cur.decl_line;
        uint64_t next;
        /* references are from the unit's start, which is its contribution's */
        if (n->name || !cur.origin || hop == MAX_HOPS || !read_die(u, cur.origin, &cur, &next) ||
            !cur.ab)
            break;
    }
    if (!n->name)
        n->name = name;
}

/* Records a subprogram or inlined subroutine with addresses; *idx its node or PPROF_NONE. */
static bool
add_node(const pprof_allocator *a, const unit *u, pprof__sz_dwp *d, const die *e, uint32_t parent,
         uint32_t *idx)
{
    *idx = PPROF_NONE;
    size_t first = d->ranges.len; /* pairs */
    if (!die_ranges(a, u, d, e))
        return false;
    size_t n_range = d->ranges.len - first;
    if (!n_range || d->nodes.len >= PPROF_NONE - 1 || first > UINT32_MAX || n_range > UINT32_MAX)
        return true;
    pprof__sz_dnode *n = pprof__vec_push(a, &d->nodes, sizeof(*n));
    if (!n)
        return false;
    uint32_t me = (uint32_t)(d->nodes.len - 1);
    *n = (pprof__sz_dnode){.parent = parent,
                           .first_child = PPROF_NONE,
                           .next_sibling = PPROF_NONE,
                           .range_off = (uint32_t)first,
                           .n_range = (uint32_t)n_range,
                           .inlined = e->ab->tag == DW_TAG_inlined_subroutine,
                           .call_file = e->call_file,
                           .call_line = e->call_line,
                           .call_column = e->call_column};
    die_names(u, e, n);
    if (parent != PPROF_NONE) {
        pprof__sz_dnode *p = &PPROF__AT(d->nodes, pprof__sz_dnode, parent);
        n->next_sibling = p->first_child;
        p->first_child = me;
    } else {
        const uint64_t *rg = d->ranges.data;
        for (size_t k = first; k < first + n_range; k++) {
            pprof__sz_curange *t = pprof__vec_push(a, &d->tops, sizeof(*t));
            if (!t)
                return false;
            *t = (pprof__sz_curange){rg[2 * k], rg[2 * k + 1], me, 0};
        }
    }
    *idx = me;
    return true;
}

/* Sets up u for the split unit of sk: contributions, header, abbreviations. False: no such
 * unit, or a header that does not parse (the unit then has no frames). */
static bool
open_unit(const pprof_allocator *a, pprof__sz_dwp *d, const pprof__sz_skel *sk, unit *u,
          bool *nomem)
{
    memset(u, 0, sizeof(*u));
    u->d = d;
    u->sk = sk;
    pprof__sz_bytes abbrevs, area;
    if (d->version) {
        uint32_t row = sk->has_dwo_id ? find_row(d, sk->dwo_id) : 0;
        bool v5 = d->version == 5;
        if (!row || !contribution(d, row, SECT5_INFO, &d->info, &area) ||
            !contribution(d, row, v5 ? SECT5_ABBREV : SECT2_ABBREV, &d->abbrev, &abbrevs) ||
            !contribution(d, row, v5 ? SECT5_STR_OFFSETS : SECT2_STR_OFFSETS, &d->str_offsets,
                          &u->str_offsets) ||
            (v5 && !contribution(d, row, SECT5_RNGLISTS, &d->rnglists, &u->rnglists)))
            return false;
    } else {
        area = d->info, abbrevs = d->abbrev, u->str_offsets = d->str_offsets;
        u->rnglists = d->rnglists;
    }
    /* the area's split compilation unit of sk's id (a .dwo may hold type units too) */
    cursor c;
    uint64_t len, abbrev_off = 0, at = 0;
    for (;; at += u->len_size + len) {
        c = cursor_at(&area, at, at <= area.n ? area.n - at : 0);
        len = rd(&c, 4);
        u->offset_size = 4;
        if (len == 0xffffffff) {
            len = rd(&c, 8);
            u->offset_size = 8;
        }
        u->len_size = u->offset_size == 8 ? 12 : 4;
        if (c.bad || len > area.n - at - u->len_size)
            return false;
        u->version = (unsigned)rd(&c, 2);
        if (u->version != 5)
            break;
        uint8_t type = (uint8_t)rd(&c, 1);
        rd(&c, 1); /* address size: the skeleton's is the one used */
        abbrev_off = rd(&c, u->offset_size);
        uint64_t id = rd(&c, 8);
        if (c.bad)
            return false;
        /* a .dwo's unit is taken without an id to match (the fuzz harness has none) */
        if (type == DW_UT_split_compile && (sk->has_dwo_id ? id == sk->dwo_id : !d->version))
            break;
    }
    u->info.p = area.p + at;
    u->info.n = u->len_size + len;
    u->end = u->info.n;
    if (u->version == 5) {
        u->str_base = u->offset_size == 8 ? 16 : 8;
        cursor r = cursor_at(&u->rnglists, 0, u->rnglists.n);
        if (rd(&r, 4) == 0xffffffff)
            rd(&r, 8);
        rd(&r, 4); /* version, address size, segment selector size */
        u->rng_count = rd(&r, 4);
        u->rng_base = r.bad ? 0 : (uint64_t)(r.p - u->rnglists.p);
        if (r.bad)
            u->rng_count = 0;
    } else if (u->version >= 2 && u->version <= 4) {
        abbrev_off = rd(&c, u->offset_size);
        rd(&c, 1);
    } else {
        return false;
    }
    if (c.bad)
        return false;
    u->die_start = (uint64_t)(c.p - u->info.p);
    if (!read_abbrevs(a, d, &abbrevs, abbrev_off)) {
        *nomem = true;
        return false;
    }
    u->abbrevs = d->abbrevs.data;
    u->n_abbrevs = d->abbrevs.len;
    u->specs = d->specs.data;
    return true;
}

/* Reads the tree of sk's split unit into d. False: out of memory. */
static bool
read_tree(const pprof_allocator *a, pprof__sz_dwp *d, const pprof__sz_skel *sk)
{
    d->valid = true;
    d->key = sk->key;
    d->nodes.len = d->ranges.len = d->tops.len = 0;
    unit u;
    bool nomem = false;
    if (!open_unit(a, d, sk, &u, &nomem))
        return !nomem;
    /* Many DIEs may name one long range list: the entries read for a whole unit are capped
     * by the bytes that can describe them, so time and memory stay in proportion to the input. */
    uint64_t bytes = (uint64_t)u.info.n + u.rnglists.n + sk->ranges.n;
    d->range_cap = bytes < (SIZE_MAX >> 8) ? (size_t)(4 * bytes + MAX_RANGES) : SIZE_MAX;
    d->range_steps = 0;
    uint32_t parent[MAX_DEPTH];
    int depth = -1; /* the unit DIE is at 0 */
    uint64_t off = u.die_start, next;
    die e;
    bool ok = true;
    while (ok && off < u.end && read_die(&u, off, &e, &next)) {
        off = next;
        if (!e.ab) { /* the end of a list of children */
            if (--depth < 0)
                break;
            continue;
        }
        uint32_t me = depth >= 0 ? parent[depth] : PPROF_NONE;
        if (depth >= 0 &&
            (e.ab->tag == DW_TAG_subprogram || e.ab->tag == DW_TAG_inlined_subroutine)) {
            uint32_t idx;
            ok = add_node(a, &u, d, &e, me, &idx);
            if (idx != PPROF_NONE)
                me = idx;
        }
        if (e.ab->children) {
            if (depth + 1 >= MAX_DEPTH)
                break;
            parent[++depth] = me;
        } else if (depth < 0) {
            break; /* a unit DIE without children */
        }
    }
    if (ok && d->tops.len)
        qsort(d->tops.data, d->tops.len, sizeof(pprof__sz_curange), pprof__sz_range_cmp);
    return ok;
}

/* ---------------------------------------------------------------- lookups */

int
pprof__sz_dwp_frames(const pprof_allocator *a, pprof__sz_dwp *d, const pprof__sz_skel *sk,
                     Dwarf_Files *files, size_t n_files, uint64_t vaddr, pprof__sz_frame *frames)
{
    if ((!d->valid || d->key != sk->key) && !read_tree(a, d, sk)) {
        d->valid = false;
        return -1;
    }
    const pprof__sz_curange *top = pprof__sz_find_range(&d->tops, vaddr);
    if (!top)
        return 0;
    const pprof__sz_dnode *nodes = d->nodes.data;
    uint32_t cur = (uint32_t)top->cu;
    for (size_t guard = 0; guard < d->nodes.len; guard++) {
        uint32_t c = nodes[cur].first_child;
        while (c != PPROF_NONE &&
               !pprof__sz_ranges_hold(&d->ranges, nodes[c].range_off, nodes[c].n_range, vaddr))
            c = nodes[c].next_sibling;
        if (c == PPROF_NONE)
            break;
        cur = c;
    }
    int n = 0;
    for (uint32_t k = cur; k != PPROF_NONE && n < PPROF__SZ_MAX_FRAMES;) {
        const pprof__sz_dnode *node = &nodes[k];
        frames[n].name = node->name;
        frames[n].start_line = node->decl_line;
        n++;
        if (!node->inlined || node->parent == PPROF_NONE || n == PPROF__SZ_MAX_FRAMES)
            break;
        pprof__sz_frame *f = &frames[n];
        f->file = NULL;
        if (files && node->call_file >= 0 && (uint64_t)node->call_file < n_files)
            f->file = dwarf_filesrc(files, (size_t)node->call_file, NULL, NULL);
        f->line = node->call_line;
        f->column = node->call_column;
        k = node->parent;
    }
    return n;
}

/* ---------------------------------------------------------------- the skeleton, through libdw */

bool
pprof__sz_dwp_skeleton(pprof__sz_dwp *d, Dwarf *dw, Dwarf_Die *cudie, pprof__sz_skel *sk)
{
    uint64_t key = dwarf_dieoffset(cudie);
    if (d->have_sk && d->sk.key == key) { /* the same unit as the last address's */
        *sk = d->sk;
        return true;
    }
    memset(sk, 0, sizeof(*sk));
    sk->key = key;
    Dwarf_Half version;
    uint8_t type, addr_size, offset_size;
    uint64_t id;
    if (dwarf_cu_info(cudie->cu, &version, &type, NULL, NULL, &id, &addr_size, &offset_size) != 0)
        return false;
    Dwarf_Attribute at;
    Dwarf_Word w;
    if (type == DW_UT_skeleton) {
        sk->dwo_id = id;
        sk->has_dwo_id = true;
    } else if (dwarf_attr(cudie, DW_AT_GNU_dwo_id, &at) && dwarf_formudata(&at, &w) == 0) {
        sk->dwo_id = w;
        sk->has_dwo_id = true;
    }
    if (!sk->has_dwo_id)
        return false;
    sk->addr_size = addr_size;
    if ((dwarf_attr(cudie, DW_AT_addr_base, &at) || dwarf_attr(cudie, DW_AT_GNU_addr_base, &at)) &&
        dwarf_formudata(&at, &w) == 0)
        sk->addr_base = w;
    Dwarf_Addr low;
    if (dwarf_lowpc(cudie, &low) == 0)
        sk->low_pc = low;
    if (dwarf_attr(cudie, DW_AT_GNU_ranges_base, &at) && dwarf_formudata(&at, &w) == 0)
        sk->ranges_base = w;
    if (!d->addr_loaded) { /* .debug_addr and .debug_ranges of the file libdw reads, once */
        d->addr_loaded = true;
        Elf *elf = dwarf_getelf(dw);
        size_t shstrndx;
        if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0)
            for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
                const char *name;
                pprof__sz_bytes b;
                if (!section(elf, shstrndx, scn, &name, &b))
                    continue;
                if (!strcmp(name, ".debug_addr"))
                    d->addr = b;
                else if (!strcmp(name, ".debug_ranges"))
                    d->skel_ranges = b;
            }
    }
    sk->addr = d->addr;
    sk->ranges = d->skel_ranges;
    d->sk = *sk;
    d->have_sk = true;
    return true;
}

/* ---------------------------------------------------------------- .dwo files */

pprof__sz_dwp *
pprof__sz_dwo_for(const pprof_allocator *a, pprof__sz_object *obj, Dwarf_Die *cudie)
{
    uint64_t key = dwarf_dieoffset(cudie);
    if ((obj->dwo_tried && obj->dwo_key == key) || obj->bin.fd < 0) /* from memory: no files */
        return obj->dwo;
    pprof__sz_dwp_free(a, obj->dwo);
    obj->dwo = NULL;
    pprof__sz_file_close(a, &obj->dwof);
    obj->dwo_tried = true;
    obj->dwo_key = key;
    Dwarf_Attribute at;
    const char *name = NULL, *dir = NULL;
    if (dwarf_attr(cudie, DW_AT_dwo_name, &at) || dwarf_attr(cudie, DW_AT_GNU_dwo_name, &at))
        name = dwarf_formstring(&at);
    if (!name || !name[0])
        return NULL;
    if (name[0] != '/' && dwarf_attr(cudie, DW_AT_comp_dir, &at))
        dir = dwarf_formstring(&at);
    char path[PATH_MAX];
    int n = snprintf(path, sizeof(path), "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
    if (n <= 0 || (size_t)n >= sizeof(path))
        return NULL;
    /* as symbolize-find.c opens files: a FIFO must not block, only a regular file is read */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0)
        return NULL;
    Elf *elf =
        fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
    obj->dwof.fd = fd;
    obj->dwof.elf = elf;
    obj->dwo = elf && elf_kind(elf) == ELF_K_ELF ? pprof__sz_dwp_open(a, elf) : NULL;
    if (!obj->dwo)
        pprof__sz_file_close(a, &obj->dwof);
    return obj->dwo;
}
