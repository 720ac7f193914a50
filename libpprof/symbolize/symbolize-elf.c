/* What the ELF headers give: the loadable segments, which turn a file offset into a link-time
 * address (the same rule for non-PIE and PIE executables and shared libraries: no guessing
 * from where a mapping starts), and the function symbols, the fallback without DWARF. */
#include <stdlib.h>
#include <string.h>

#include "symbolize-private.h"

/* MiniDebugInfo holds symbols only: far smaller than this; larger is refused. */
#define MINI_MAX_BYTES ((size_t)256 << 20)

static bool
load_segments(const pprof_allocator *a, pprof__sz_object *obj)
{
    size_t n;
    if (elf_getphdrnum(obj->bin.elf, &n) != 0)
        return true; /* no program headers: every address is outside the segments */
    /* Without the executable, a debug file's segments keep their addresses but lost their
     * file offsets: they are taken to be laid out as GNU ld lays them out, at their distance
     * from the first segment's page (reported as a guess). */
    obj->guessed_segments = pprof__sz_debug_only(obj->bin.elf);
    uint64_t first = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(obj->bin.elf, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        if (first == UINT64_MAX)
            first = ph.p_vaddr & ~(ph.p_align > 1 ? ph.p_align - 1 : 0);
        if (obj->guessed_segments) {
            ph.p_offset = ph.p_vaddr - first;
            ph.p_filesz = ph.p_memsz;
        }
        pprof__sz_seg *s = pprof__vec_push(a, &obj->segs, sizeof(*s));
        if (!s)
            return false;
        /* A debug file keeps the program headers with p_filesz of the executable; memsz
         * covers .bss, which holds no code: filesz is the range that maps the file. */
        *s = (pprof__sz_seg){ph.p_offset, ph.p_filesz, ph.p_vaddr};
    }
    return true;
}

bool
pprof__sz_vaddr(const pprof__sz_object *obj, uint64_t file_offset, uint64_t *vaddr)
{
    const pprof__sz_seg *s = obj->segs.data;
    for (size_t i = 0; i < obj->segs.len; i++) {
        if (file_offset >= s[i].offset && file_offset - s[i].offset < s[i].filesz) {
            *vaddr = file_offset - s[i].offset + s[i].vaddr;
            return true;
        }
    }
    return false;
}

static int
sym_cmp(const void *x, const void *y)
{
    const pprof__sz_sym *a = x, *b = y;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* The function symbols of one symbol table section; false when out of memory. */
static bool
read_symtab(const pprof_allocator *a, Elf *elf, Elf_Scn *scn, pprof__vec *out)
{
    GElf_Shdr sh;
    Elf_Data *d = gelf_getshdr(scn, &sh) ? elf_getdata(scn, NULL) : NULL;
    if (!d || !sh.sh_entsize)
        return true;
    size_t n = sh.sh_size / sh.sh_entsize;
    const char *file = NULL; /* local symbols follow the STT_FILE of their source */
    for (size_t i = 0; i < n; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(d, (int)i, &sym))
            break;
        int t = GELF_ST_TYPE(sym.st_info);
        if (t == STT_FILE) {
            file = elf_strptr(elf, sh.sh_link, sym.st_name);
            continue;
        }
        /* Labels of hand-written assembly (glibc's _start, _dl_start_user) name code that no
         * function symbol covers; perf, addr2line and llvm-symbolizer name it by them too. */
        bool label = false;
        if (t == STT_NOTYPE && sym.st_shndx != SHN_UNDEF && sym.st_shndx < SHN_LORESERVE) {
            GElf_Shdr ls;
            Elf_Scn *lsec = elf_getscn(elf, sym.st_shndx);
            label = lsec && gelf_getshdr(lsec, &ls) && (ls.sh_flags & SHF_ALLOC) &&
                    (ls.sh_flags & SHF_EXECINSTR);
        }
        if ((t != STT_FUNC && t != STT_GNU_IFUNC && !label) || sym.st_shndx == SHN_UNDEF ||
            !sym.st_value)
            continue;
        const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
        /* ARM's mapping symbols ($x, $d) and assembler locals (.L) are not names of code */
        if (!name || !name[0] || (label && (name[0] == '$' || !strncmp(name, ".L", 2))))
            continue;
        pprof__sz_sym *s = pprof__vec_push(a, out, sizeof(*s));
        if (!s)
            return false;
        uint64_t hi = sym.st_value + sym.st_size;
        GElf_Shdr in;
        Elf_Scn *sec = sym.st_size ? NULL : elf_getscn(elf, sym.st_shndx);
        /* size 0 (hand-written assembly, _init/_fini): up to the next symbol once sorted, as
         * llvm-symbolizer has it (_init names the .plt after it), the last one to the end of
         * its section */
        if (sec && gelf_getshdr(sec, &in) && in.sh_addr <= sym.st_value &&
            sym.st_value - in.sh_addr < in.sh_size)
            hi = in.sh_addr + in.sh_size;
        *s =
            (pprof__sz_sym){sym.st_value,
                            hi < sym.st_value ? UINT64_MAX : hi,
                            name,
                            GELF_ST_BIND(sym.st_info) == STB_LOCAL && file && file[0] ? file : NULL,
                            sym.st_size != 0,
                            label,
                            out->len - 1};
    }
    return true;
}

/* .symtab of the debug file, else of the file, else the file's .dynsym. */
static bool
load_symbols(const pprof_allocator *a, pprof__sz_object *obj)
{
    Elf *elves[2] = {obj->dbg.elf, obj->bin.elf};
    for (int want = SHT_SYMTAB; want; want = want == SHT_SYMTAB ? SHT_DYNSYM : 0) {
        for (size_t e = 0; e < 2; e++) {
            if (!elves[e])
                continue;
            for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elves[e], scn));) {
                GElf_Shdr sh;
                if (gelf_getshdr(scn, &sh) && sh.sh_type == (GElf_Word)want &&
                    !read_symtab(a, elves[e], scn, &obj->syms))
                    return false;
            }
            if (obj->syms.len)
                goto done;
        }
    }
    /* only .dynsym: the local functions may be in MiniDebugInfo, for the addresses that
     * .dynsym leaves out (its symbols name none that .dynsym has) */
    if (obj->bin.elf && !obj->dbg.elf &&
        (obj->mini = pprof__sz_minidebuginfo(a, obj->bin.elf, MINI_MAX_BYTES, &obj->mini_image))) {
        for (Elf_Scn *scn = NULL; (scn = elf_nextscn(obj->mini, scn));) {
            GElf_Shdr sh;
            if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB &&
                !read_symtab(a, obj->mini, scn, &obj->syms))
                return false;
        }
    }
done:
    if (obj->syms.len)
        qsort(obj->syms.data, obj->syms.len, sizeof(pprof__sz_sym), sym_cmp);
    /* One symbol per address, as llvm-symbolizer keeps them: the widest, then the last in the
     * symbol table (of a constructor's C1/C2 or a destructor's D1/D2 aliases, whichever the
     * linker wrote last). */
    pprof__sz_sym *d = obj->syms.data;
    size_t kept = 0;
    for (size_t i = 0; i < obj->syms.len; i++) {
        if (kept && d[kept - 1].lo == d[i].lo) {
            if (d[i].label && !d[kept - 1].label)
                continue; /* a function symbol wins over a label at its address */
            kept--;
        }
        d[kept++] = d[i];
    }
    obj->syms.len = kept;
    /* A label inside a sized function (a loop's entry in assembly) does not cut it short. */
    uint64_t covered = 0;
    kept = 0;
    for (size_t i = 0; i < obj->syms.len; i++) {
        if (d[i].label && d[i].lo < covered)
            continue;
        if (d[i].sized && !d[i].label && d[i].hi > covered)
            covered = d[i].hi;
        d[kept++] = d[i];
    }
    obj->syms.len = kept;
    /* A symbol of size 0 reaches to the next one (the last: its section's end, set when read). */
    pprof__sz_sym *s = obj->syms.data;
    for (size_t i = 0; i + 1 < obj->syms.len; i++)
        if (!s[i].sized && s[i + 1].lo > s[i].lo)
            s[i].hi = s[i + 1].lo;
    return true;
}

/* Go binaries carry their own sections (.gopclntab for the runtime's tables, .go.buildinfo). */
static bool
is_go(Elf *elf)
{
    size_t shstrndx;
    if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
        return false;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
        GElf_Shdr sh;
        const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
        if (name && (!strcmp(name, ".gopclntab") || !strcmp(name, ".go.buildinfo") ||
                     !strcmp(name, ".note.go.buildid")))
            return true;
    }
    return false;
}

bool
pprof__sz_elf_load(const pprof_allocator *a, pprof__sz_object *obj)
{
    obj->go = is_go(obj->bin.elf) || is_go(obj->dbg.elf);
    return load_segments(a, obj) && load_symbols(a, obj);
}

const pprof__sz_sym *
pprof__sz_symbol(const pprof__sz_object *obj, uint64_t vaddr)
{
    const pprof__sz_sym *s = obj->syms.data;
    size_t lo = 0, hi = obj->syms.len;
    while (lo < hi) { /* the first symbol starting after vaddr */
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].lo <= vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* the symbol starting last at or before vaddr, if it reaches vaddr (as llvm-symbolizer) */
    if (lo > 0 && vaddr >= s[lo - 1].lo && vaddr < s[lo - 1].hi)
        return &s[lo - 1];
    return NULL;
}
