/* Go's own line table, .gopclntab: what the Go runtime reads for its tracebacks, in every Go
 * binary, stripped (-ldflags="-s -w") or not. Layouts of Go 1.16 to current (header magics
 * 0xfffffffa 1.16-1.17, 0xfffffff0 1.18-1.19, 0xfffffff1 1.20 on); older ones are ignored.
 *
 * The table is read in place from the file's image: every offset is checked against its
 * part's bounds, so a hostile table gives no frames (or "?" names), never a read outside.
 *
 * Inline frames come from the function's inline tree (FUNCDATA_InlTree), which Go 1.18 on
 * keeps in go:func.*: its address is in the runtime's moduledata, found in the data by its
 * first word (the table's own address). */
#include <string.h>

#include "symbolize-private.h"

enum {
    GO116 = 116,
    GO118 = 118,
    GO120 = 120,
    PCDATA_INLTREE = 2,
    FUNCDATA_INLTREE = 3,
    MAX_PCVALUE_STEPS = 1 << 20, /* one function's table is never longer */
};

static uint32_t
rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t
rd_word(const uint8_t *p, unsigned size)
{
    uint64_t v = rd32(p);
    if (size == 8)
        v |= (uint64_t)rd32(p + 4) << 32;
    return v;
}

/* The file bytes [vaddr, vaddr + n) through the loadable segments, or NULL. */
static const uint8_t *
at_vaddr(const pprof__sz_object *obj, uint64_t vaddr, uint64_t n)
{
    const pprof__sz_gotab *g = &obj->gotab;
    const pprof__sz_seg *s = obj->segs.data;
    for (size_t i = 0; i < obj->segs.len; i++) {
        if (vaddr >= s[i].vaddr && vaddr - s[i].vaddr <= s[i].filesz &&
            n <= s[i].filesz - (vaddr - s[i].vaddr)) {
            uint64_t off = vaddr - s[i].vaddr + s[i].offset;
            if (off <= g->image_size && n <= g->image_size - off)
                return g->image + off;
        }
    }
    return NULL;
}

/* A pointer-size word of the data at vaddr as the loader leaves it: a PIE's words are written
 * by R_*_RELATIVE relocations, whose addend is the value (the file may hold 0 there). */
static bool
read_ptr(const pprof__sz_object *obj, uint64_t vaddr, uint64_t *v)
{
    const pprof__sz_gotab *g = &obj->gotab;
    const uint8_t *p = at_vaddr(obj, vaddr, g->ptr);
    if (!p)
        return false;
    *v = rd_word(p, g->ptr);
    if (*v)
        return true;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(obj->bin.elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t n = d ? sh.sh_size / sh.sh_entsize : 0;
        for (size_t i = 0; i < n; i++) {
            GElf_Rela r;
            if (!gelf_getrela(d, (int)i, &r))
                break;
            uint64_t type = g->ptr == 8 ? GELF_R_TYPE(r.r_info) : ELF32_R_TYPE(r.r_info);
            if (r.r_offset == vaddr && (type == R_X86_64_RELATIVE || type == R_AARCH64_RELATIVE ||
                                        type == R_386_RELATIVE)) {
                *v = (uint64_t)r.r_addend;
                return true;
            }
        }
    }
    return true;
}

/* A part of the table [off, end of table): false when off is past it. */
static bool
part(const pprof__sz_gotab *g, uint64_t off, const uint8_t **p, size_t *n)
{
    if (off > g->size)
        return false;
    *p = g->tab + off;
    *n = g->size - off;
    return true;
}

/* go:func.* from the moduledata: the data word equal to the table's address, followed by
 * funcnametab's slice; gofunc's place in the struct by layout. */
static void
find_gofunc(pprof__sz_object *obj)
{
    pprof__sz_gotab *g = &obj->gotab;
    if (g->version < GO118)
        return; /* 1.16, 1.17: funcdata are plain pointers */
    unsigned gofunc_word = g->version >= GO120 ? 40 : 38;
    Elf_Scn *scn = NULL;
    size_t shstr;
    if (elf_getshdrstrndx(obj->bin.elf, &shstr) != 0)
        return;
    while ((scn = elf_nextscn(obj->bin.elf, scn))) {
        GElf_Shdr sh;
        const char *name =
            gelf_getshdr(scn, &sh) ? elf_strptr(obj->bin.elf, shstr, sh.sh_name) : NULL;
        if (!name || strcmp(name, ".noptrdata") != 0 || sh.sh_type != SHT_PROGBITS)
            continue;
        for (uint64_t a = sh.sh_addr; a + (gofunc_word + 1) * g->ptr <= sh.sh_addr + sh.sh_size;
             a += g->ptr) {
            uint64_t w0, w1, gf;
            if (!read_ptr(obj, a, &w0) || w0 != g->vaddr)
                continue;
            if (!read_ptr(obj, a + g->ptr, &w1) || w1 != g->vaddr + g->funcname_off)
                continue;
            if (read_ptr(obj, a + (uint64_t)gofunc_word * g->ptr, &gf) && gf) {
                g->gofunc = gf;
                g->have_gofunc = true;
            }
            return;
        }
    }
}

/* The .gopclntab section (".data.rel.ro.gopclntab" in a PIE). */
static Elf_Scn *
pclntab_section(Elf *elf, GElf_Shdr *sh)
{
    size_t shstr;
    if (elf_getshdrstrndx(elf, &shstr) != 0)
        return NULL;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        const char *name = gelf_getshdr(scn, sh) ? elf_strptr(elf, shstr, sh->sh_name) : NULL;
        size_t n = name ? strlen(name) : 0;
        if (n >= 10 && !strcmp(name + n - 10, ".gopclntab") && sh->sh_type == SHT_PROGBITS)
            return scn;
    }
    return NULL;
}

bool
pprof__sz_go_load(pprof__sz_object *obj)
{
    pprof__sz_gotab *g = &obj->gotab;
    memset(g, 0, sizeof(*g));
    size_t isize;
    char *image = elf_rawfile(obj->bin.elf, &isize);
    GElf_Shdr sh;
    if (!image || !pclntab_section(obj->bin.elf, &sh) || sh.sh_offset > isize ||
        sh.sh_size > isize - sh.sh_offset || sh.sh_size < 64)
        return false;
    g->image = (const uint8_t *)image;
    g->image_size = isize;
    g->tab = g->image + sh.sh_offset;
    g->size = sh.sh_size;
    g->vaddr = sh.sh_addr;
    uint32_t magic = rd32(g->tab);
    g->version = magic == 0xfffffffa   ? GO116
                 : magic == 0xfffffff0 ? GO118
                 : magic == 0xfffffff1 ? GO120
                                       : 0;
    g->quantum = g->tab[6];
    g->ptr = g->tab[7];
    if (!g->version || g->tab[4] || g->tab[5] || (g->ptr != 4 && g->ptr != 8) ||
        (g->quantum != 1 && g->quantum != 2 && g->quantum != 4))
        return false;
    unsigned words = g->version >= GO118 ? 8 : 7;
    if (8 + (uint64_t)words * g->ptr > g->size)
        return false;
    const uint8_t *h = g->tab + 8;
    uint64_t w[8];
    for (unsigned i = 0; i < words; i++)
        w[i] = rd_word(h + i * g->ptr, g->ptr);
    unsigned k = 2;
    g->nfunc = w[0];
    if (g->version >= GO118) {
        /* textStart is written by a relocation in a PIE */
        if (!read_ptr(obj, g->vaddr + 8 + 2 * (uint64_t)g->ptr, &g->text))
            return false;
        k = 3;
    }
    g->funcname_off = w[k];
    if (!part(g, w[k], &g->funcnames, &g->funcnames_len) ||
        !part(g, w[k + 1], &g->cutab, &g->cutab_len) ||
        !part(g, w[k + 2], &g->filetab, &g->filetab_len) ||
        !part(g, w[k + 3], &g->pctab, &g->pctab_len) ||
        !part(g, w[k + 4], &g->functab, &g->functab_len))
        return false;
    /* nfunc + 1 (entry, offset) pairs: the last entry is the end of the text */
    uint64_t pair = g->version >= GO118 ? 8 : 2 * (uint64_t)g->ptr;
    if (!g->nfunc || g->functab_len / pair < 2 || g->nfunc > g->functab_len / pair - 1)
        return false;
    find_gofunc(obj);
    g->ok = true;
    return true;
}

uint64_t
pprof__sz_go_entry(const pprof__sz_gotab *g, uint64_t i)
{
    if (g->version >= GO118)
        return g->text + rd32(g->functab + 8 * i);
    return rd_word(g->functab + 2 * g->ptr * i, g->ptr);
}

static uint64_t
func_off(const pprof__sz_gotab *g, uint64_t i)
{
    if (g->version >= GO118)
        return rd32(g->functab + 8 * i + 4);
    return rd_word(g->functab + 2 * g->ptr * i + g->ptr, g->ptr);
}

/* One _func record: what the lookups need. */
typedef struct go_func {
    uint64_t entry;
    int32_t nameoff;
    uint32_t pcfile, pcln, npcdata, cu;
    int32_t start_line;
    uint8_t nfuncdata;
    const uint8_t *pcdata; /* npcdata uint32, then the funcdata */
    const uint8_t *end;    /* of the table */
} go_func;

static bool
read_func(const pprof__sz_gotab *g, uint64_t fo, uint64_t entry, go_func *f)
{
    if (fo > g->functab_len)
        return false;
    const uint8_t *p = g->functab + fo, *end = g->functab + g->functab_len;
    unsigned head = g->version >= GO120 ? 44 : g->version >= GO118 ? 40 : g->ptr + 36;
    if ((size_t)(end - p) < head)
        return false;
    const uint8_t *q = g->version >= GO118 ? p + 4 : p + g->ptr; /* past the entry */
    f->entry = entry;
    f->nameoff = (int32_t)rd32(q);
    f->pcfile = rd32(q + 16);
    f->pcln = rd32(q + 20);
    f->npcdata = rd32(q + 24);
    f->cu = rd32(q + 28);
    f->start_line = g->version >= GO120 ? (int32_t)rd32(q + 32) : 0;
    f->nfuncdata = p[head - 1];
    f->pcdata = p + head;
    f->end = end;
    if (f->npcdata > (size_t)(end - f->pcdata) / 4)
        f->npcdata = 0;
    return true;
}

/* A NUL-terminated string at off of a part, or NULL. */
static const char *
cstr(const uint8_t *base, size_t len, uint64_t off)
{
    if (off >= len || !memchr(base + off, 0, len - off))
        return NULL;
    return (const char *)base + off;
}

static bool
varint(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
    uint32_t r = 0;
    for (unsigned shift = 0; *p < end && shift < 35; shift += 7) {
        uint8_t b = *(*p)++;
        r |= (uint32_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = r;
            return true;
        }
    }
    return false;
}

/* The value of the pc-value table at off for pc (Go's pcvalue), or -1. */
static int32_t
pcvalue(const pprof__sz_gotab *g, const go_func *f, uint32_t off, uint64_t pc)
{
    if (!off || off >= g->pctab_len)
        return -1;
    const uint8_t *p = g->pctab + off, *end = g->pctab + g->pctab_len;
    uint64_t at = f->entry;
    int32_t val = -1;
    for (int i = 0; i < MAX_PCVALUE_STEPS; i++) {
        uint32_t uv, pcd;
        if (p >= end || (*p == 0 && i > 0))
            return -1;
        if (!varint(&p, end, &uv) || !varint(&p, end, &pcd))
            return -1;
        val += (int32_t)(-(uv & 1) ^ (uv >> 1));
        at += (uint64_t)pcd * g->quantum;
        if (pc < at)
            return val;
    }
    return -1;
}

static const char *
file_name(const pprof__sz_gotab *g, const go_func *f, int32_t fileno)
{
    if (fileno < 0)
        return NULL;
    uint64_t i = (uint64_t)f->cu + (uint64_t)fileno;
    if (i >= g->cutab_len / 4)
        return NULL;
    uint32_t off = rd32(g->cutab + 4 * i);
    return off == UINT32_MAX ? NULL : cstr(g->filetab, g->filetab_len, off);
}

static const char *
func_name(const pprof__sz_gotab *g, int32_t off)
{
    return off < 0 ? NULL : cstr(g->funcnames, g->funcnames_len, (uint64_t)off);
}

/* The inline tree of f (its bytes to the end of its data), or NULL. */
static const uint8_t *
inline_tree(const pprof__sz_object *obj, const go_func *f, size_t *len)
{
    const pprof__sz_gotab *g = &obj->gotab;
    if (f->nfuncdata <= FUNCDATA_INLTREE)
        return NULL;
    const uint8_t *fd = f->pcdata + 4 * (size_t)f->npcdata;
    uint64_t addr;
    if (g->version >= GO118) {
        if (!g->have_gofunc || (size_t)(f->end - fd) < 4 * (FUNCDATA_INLTREE + 1))
            return NULL;
        uint32_t off = rd32(fd + 4 * FUNCDATA_INLTREE);
        if (off == UINT32_MAX)
            return NULL;
        addr = g->gofunc + off;
    } else {
        /* pointers, aligned to their size in memory */
        uint64_t va = g->vaddr + (uint64_t)(fd - g->tab);
        if (g->ptr == 8 && (va & 4))
            va += 4;
        if (!read_ptr(obj, va + (uint64_t)FUNCDATA_INLTREE * g->ptr, &addr) || !addr)
            return NULL;
    }
    /* the tree's length is not stored: up to the end of its segment's file bytes */
    const pprof__sz_seg *s = obj->segs.data;
    for (size_t i = 0; i < obj->segs.len; i++) {
        if (addr >= s[i].vaddr && addr - s[i].vaddr < s[i].filesz) {
            *len = s[i].filesz - (addr - s[i].vaddr);
            return at_vaddr(obj, addr, *len);
        }
    }
    return NULL;
}

int
pprof__sz_go_frames(const pprof__sz_object *obj, uint64_t pc, pprof__sz_frame *frames)
{
    const pprof__sz_gotab *g = &obj->gotab;
    if (!g->ok || pc < pprof__sz_go_entry(g, 0) || pc >= pprof__sz_go_entry(g, g->nfunc))
        return 0;
    uint64_t lo = 0, hi = g->nfunc; /* the last function whose entry is <= pc */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (pprof__sz_go_entry(g, mid) <= pc)
            lo = mid;
        else
            hi = mid;
    }
    go_func f;
    if (!read_func(g, func_off(g, lo), pprof__sz_go_entry(g, lo), &f))
        return 0;
    size_t tree_len = 0;
    const uint8_t *tree = f.npcdata > PCDATA_INLTREE ? inline_tree(obj, &f, &tree_len) : NULL;
    size_t rec = g->version >= GO120 ? 16 : 20;
    int n = 0;
    for (uint64_t at = pc; n < PPROF__SZ_MAX_FRAMES;) {
        int32_t ix = tree ? pcvalue(g, &f, rd32(f.pcdata + 4 * PCDATA_INLTREE), at) : -1;
        const uint8_t *call =
            ix >= 0 && (size_t)ix < tree_len / rec ? tree + rec * (size_t)ix : NULL;
        pprof__sz_frame *fr = &frames[n++];
        int32_t line = pcvalue(g, &f, f.pcln, at);
        fr->file = file_name(g, &f, pcvalue(g, &f, f.pcfile, at));
        fr->line = line > 0 ? line : 0;
        fr->column = 0;
        if (!call) {
            fr->name = func_name(g, f.nameoff);
            fr->start_line = f.start_line;
            break;
        }
        /* 1.16-1.19: parent, funcID, pad, file, line, func, parentPc; 1.20 on: funcID, pad,
         * func, parentPc, startLine */
        int32_t name = (int32_t)rd32(call + (rec == 16 ? 4 : 12));
        int32_t parent_pc = (int32_t)rd32(call + (rec == 16 ? 8 : 16));
        fr->name = func_name(g, name);
        fr->start_line = rec == 16 ? (int32_t)rd32(call + 12) : 0;
        if (parent_pc < 0)
            break; /* a bad tree; a cycle ends at PPROF__SZ_MAX_FRAMES */
        at = f.entry + (uint64_t)parent_pc;
    }
    return n;
}
