/* Offline symbolization, shared by symbolize*.c. Not installed.
 *
 * symbolize.c       the driver: which locations need frames, the output profile, the report
 * symbolize-find.c  finding and opening a mapping's files (search order, build IDs, debug links)
 * symbolize-elf.c   segments (runtime address -> link-time address) and the symbol tables
 * symbolize-dwarf.c compilation units, the inline tree of one unit, frames of an address
 * symbolize-dwp.c   split units of a DWARF package (.dwp), which libdw 0.188 does not read
 * symbolize-names.c demangling and Go's spelling of names
 * symbolize-report.c the report's text and JSON
 * symbolize-cache.c the address index cache: frames of addresses looked up before, per file */
#ifndef PPROF_SYMBOLIZE_PRIVATE_H
#define PPROF_SYMBOLIZE_PRIVATE_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <sys/types.h>

#include "pprof/symbolize.h"
#include "profile-private.h"

/* One opened ELF file: read-only, mapped by libelf, never written. */
typedef struct pprof__sz_file {
    int fd; /* -1: none */
    Elf *elf;
    char *path; /* pprof__malloc'd */
    uint64_t size;
    dev_t dev;
    ino_t ino;
    uint8_t build_id[64];
    size_t build_id_len;
} pprof__sz_file;

/* A loadable segment of the executable: file range [offset, offset + filesz) at vaddr. */
typedef struct pprof__sz_seg {
    uint64_t offset, filesz, vaddr;
} pprof__sz_seg;

/* A function symbol [lo, hi) of .symtab or .dynsym, or an assembly label (STT_NOTYPE in
 * executable code, as _start and _dl_start_user). */
typedef struct pprof__sz_sym {
    uint64_t lo, hi;
    const char *name; /* in libelf's mapping of the file */
    const char *file; /* a local symbol's STT_FILE (the source named before it), or NULL */
    bool sized;       /* st_size was not 0 */
    bool label;       /* STT_NOTYPE: names only code that no function symbol covers */
    size_t order;     /* its place in the symbol table */
} pprof__sz_sym;

/* One address range [lo, hi) of a compilation unit. */
typedef struct pprof__sz_curange {
    uint64_t lo, hi;
    Dwarf_Off cu;  /* the unit DIE's offset (a node index in pprof__sz_unit.tops) */
    uint64_t size; /* the unit's size in bytes: no unit holds more DIEs than that */
} pprof__sz_curange;

/* A subprogram or inlined subroutine of the unit being looked at (a tree by parent). */
typedef struct pprof__sz_node {
    Dwarf_Off die;
    uint32_t parent; /* PPROF_NONE for a top-level node */
    uint32_t first_child, next_sibling;
    uint32_t range_off, n_range;
    bool inlined;
    /* read from the DIE on first use (an address's frames share nodes with its neighbours') */
    bool have_function, have_call;
    const char *name, *call_file;
    int64_t start_line, call_line, call_column;
} pprof__sz_node;

/* The inline tree of one compilation unit, kept while addresses fall in it. */
typedef struct pprof__sz_unit {
    bool valid;
    Dwarf_Off cu;
    Dwarf_Die cudie;
    pprof__vec nodes;  /* pprof__sz_node */
    pprof__vec ranges; /* uint64_t pairs (lo, hi) */
    pprof__vec tops;   /* pprof__sz_curange of top-level nodes: lo, hi, node index in .cu */
    Dwarf_Files *files;
    size_t n_files;
} pprof__sz_unit;

/* Go's .gopclntab, read in place from the file's image (pointers into libelf's mapping). */
typedef struct pprof__sz_gotab {
    bool ok;
    int version; /* 116 (1.16-1.17), 118 (1.18-1.19), 120 (1.20 on) */
    unsigned ptr, quantum;
    const uint8_t *image; /* the whole file */
    size_t image_size;
    const uint8_t *tab; /* the table, at vaddr */
    size_t size;
    uint64_t vaddr, nfunc, text, funcname_off, gofunc;
    bool have_gofunc;
    const uint8_t *funcnames, *cutab, *filetab, *pctab, *functab; /* to the table's end */
    size_t funcnames_len, cutab_len, filetab_len, pctab_len, functab_len;
} pprof__sz_gotab;

/* Bytes of a section (or of a unit's contribution to one), in libelf's data. */
typedef struct pprof__sz_bytes {
    const uint8_t *p;
    size_t n;
} pprof__sz_bytes;

/* A subprogram or inlined subroutine of a split unit, its names and call site resolved. */
typedef struct pprof__sz_dnode {
    const char *name; /* linkage name when there is one, else the name */
    int64_t decl_line, call_file, call_line, call_column;
    uint32_t parent, first_child, next_sibling;
    uint32_t range_off, n_range; /* pairs of pprof__sz_dwp.ranges */
    bool inlined;
} pprof__sz_dnode;

/* What a split unit needs of its skeleton. */
typedef struct pprof__sz_skel {
    uint64_t key; /* the skeleton's offset: which tree is loaded */
    uint64_t dwo_id;
    bool has_dwo_id;
    pprof__sz_bytes addr;   /* .debug_addr */
    pprof__sz_bytes ranges; /* .debug_ranges, for DWARF 4 */
    uint64_t addr_base, low_pc, ranges_base;
    unsigned addr_size;
} pprof__sz_skel;

/* A split DWARF package: its sections, its unit index, and the tree of the unit read last. */
typedef struct pprof__sz_dwp {
    pprof__sz_bytes index, info, abbrev, str, str_offsets, rnglists;
    unsigned version; /* of the index: 5, or 2 (GNU, DWARF 4) */
    uint32_t n_cols, n_units, n_slots;
    const uint8_t *hashes, *rows, *cols, *offsets, *sizes; /* the index's tables */
    pprof__sz_bytes addr;        /* .debug_addr of the file holding the skeletons */
    pprof__sz_bytes skel_ranges; /* and its .debug_ranges (DWARF 4 split units) */
    bool addr_loaded;
    bool valid;   /* the tree below is of the skeleton at key */
    uint64_t key; /* the skeleton unit DIE's offset */
    pprof__vec abbrevs, specs;
    pprof__vec nodes;              /* pprof__sz_dnode */
    pprof__vec ranges;             /* uint64_t pairs */
    size_t range_cap, range_steps; /* range list entries read for the unit: at most the cap */
    pprof__vec tops;   /* pprof__sz_curange of top-level nodes: lo, hi, node index in .cu */
    pprof__sz_skel sk; /* the skeleton looked at last */
    bool have_sk;
} pprof__sz_dwp;

/* A mapping's file with what was read from it. */
typedef struct pprof__sz_object {
    pprof__sz_file bin; /* the file found (an executable, a library or a debug file) */
    pprof__sz_file dbg; /* its separate debug file; fd -1 when none */
    pprof__sz_file alt; /* the .gnu_debugaltlink (dwz) file; fd -1 when none */
    Dwarf *dw, *alt_dw; /* NULL without DWARF */
    const char *found_by;
    const char *debug_found_by; /* how dbg was found, "" when none */
    pprof__vec segs;            /* pprof__sz_seg, from bin's program headers */
    pprof__vec syms;            /* pprof__sz_sym, sorted by lo */
    pprof__vec cus;             /* pprof__sz_curange, sorted by lo */
    pprof__sz_unit unit;        /* the last unit looked at */
    bool guessed_segments;      /* only a debug file: file offsets taken as vaddr - first vaddr */
    bool go;               /* a Go binary (.gopclntab or .go.buildinfo): names as Go prints them */
    pprof__sz_gotab gotab; /* frames where DWARF has none */
    bool dwarf_deferred;   /* pprof__sz_find_dwarf not called yet (defer_dwarf) */
    Elf *mini;             /* .gnu_debugdata's ELF (MiniDebugInfo), or NULL */
    char *mini_image;      /* its decompressed bytes (pprof__malloc'd) */
    pprof__sz_file dwpf;   /* the split DWARF package; fd -1 when none */
    pprof__sz_dwp *dwp;    /* read from dwpf, or NULL */
    const char *dwp_found_by; /* how dwpf was found, "" when none */
    bool split; /* dw has skeleton units: frames also come from files the index cannot key */
    pprof__sz_file dwof; /* the .dwo file of the skeleton at dwo_key; fd -1 when none */
    pprof__sz_dwp *dwo;  /* read from dwof, or NULL */
    uint64_t dwo_key;
    bool dwo_tried;
} pprof__sz_object;

/* One frame as the files spell it; pointers into libelf/libdw data of the object. */
typedef struct pprof__sz_frame {
    const char *name; /* linkage (mangled) name when there is one, else the plain name */
    const char *file; /* NULL when unknown */
    int64_t line, column, start_line;
} pprof__sz_frame;

#define PPROF__SZ_MAX_FRAMES 256 /* inline levels kept for one address */

/* ---- symbolize-find.c */

typedef struct pprof__sz_search {
    const pprof_symbolize_options *o;
    const pprof_allocator *a;
    const char *cache;       /* the debuginfod client cache, or NULL */
    const char *const *dirs; /* the options' debug dirs, then the default one */
    size_t n_dirs;
    /* pprof__sz_find leaves DWARF unopened (obj->dwarf_deferred) when the file found has its
     * own: an address index may answer every address without it */
    bool defer_dwarf;
} pprof__sz_search;

/* Why a search failed, for the report. */
typedef struct pprof__sz_why {
    pprof_symbolize_result result;
    char file[512];
    char reason[512];
} pprof__sz_why;

/* Finds and opens the file of a mapping (build_id: lowercase hex or ""), then its separate
 * debug and alt files; fills obj (all of it owned by obj) or *why. */
bool pprof__sz_find(const pprof__sz_search *s, const char *filename, const char *build_id,
                    pprof__sz_object *obj, pprof__sz_why *why);
/* The rest of pprof__sz_find where it deferred DWARF: opens the file's DWARF, else looks for
 * its separate debug file, then the alt file. */
void pprof__sz_find_dwarf(const pprof__sz_search *s, pprof__sz_object *obj, pprof__sz_why *why);
/* Whether elf has a .debug_info section with bytes (what a deferred open would read). */
bool pprof__sz_has_own_dwarf(Elf *elf);
/* Whether elf is a debug-only file (its code segment holds no file bytes). */
bool pprof__sz_debug_only(Elf *elf);
/* An object over an ELF image in memory (the fuzz harness: libelf reads it in place, image
 * must outlive obj); segments, symbols and units loaded. False: not ELF, or out of memory. */
bool pprof__sz_open_memory(const pprof_allocator *a, char *image, size_t size,
                           pprof__sz_object *obj);
void pprof__sz_file_close(const pprof_allocator *a, pprof__sz_file *f);
void pprof__sz_object_free(const pprof_allocator *a, pprof__sz_object *obj);
/* The build ID of f as lowercase hex into out (at least 129 bytes). */
void pprof__sz_build_id_hex(const pprof__sz_file *f, char *out);

/* ---- symbolize-elf.c */

/* Reads the PT_LOAD segments and the function symbols of obj. False: out of memory. */
bool pprof__sz_elf_load(const pprof_allocator *a, pprof__sz_object *obj);
/* The link-time address of a file offset; false when no segment holds it. */
bool pprof__sz_vaddr(const pprof__sz_object *obj, uint64_t file_offset, uint64_t *vaddr);
/* The function symbol holding vaddr, or NULL. */
const pprof__sz_sym *pprof__sz_symbol(const pprof__sz_object *obj, uint64_t vaddr);

/* ---- symbolize-dwarf.c */

/* Ranges sorted by lo, then hi, then cu; the one of v holding addr, or NULL (ranges that
 * overlap, from nested units or bad DWARF, are looked at a few back); whether one of the n
 * [lo, hi) pairs at pair off of ranges (uint64_t) holds addr. The .dwp reader's too. */
int pprof__sz_range_cmp(const void *x, const void *y);
const pprof__sz_curange *pprof__sz_find_range(const pprof__vec *v, uint64_t addr);
bool pprof__sz_ranges_hold(const pprof__vec *ranges, uint32_t off, uint32_t n, uint64_t addr);

/* Reads the unit ranges of obj->dw. False: out of memory. */
bool pprof__sz_dwarf_load(const pprof_allocator *a, pprof__sz_object *obj);
/* The frames of vaddr, innermost first, into frames (room for PPROF__SZ_MAX_FRAMES); returns
 * how many (0: none), or -1 when out of memory. */
int pprof__sz_dwarf_frames(const pprof_allocator *a, pprof__sz_object *obj, uint64_t vaddr,
                           pprof__sz_frame *frames);
void pprof__sz_unit_free(const pprof_allocator *a, pprof__sz_unit *u);

/* ---- symbolize-dwp.c */

/* The package in elf (its sections stay in elf's data), or NULL when it has no usable unit
 * index or out of memory. A .dwo file (no index, one split unit) reads as a package too. */
pprof__sz_dwp *pprof__sz_dwp_open(const pprof_allocator *a, Elf *elf);
void pprof__sz_dwp_free(const pprof_allocator *a, pprof__sz_dwp *d);
/* The DWO id in slot of the index, *row its row (0: an empty slot); slot < n_slots. */
uint64_t pprof__sz_dwp_slot_id(const pprof__sz_dwp *d, uint32_t slot, uint32_t *row);
/* Fills sk from a skeleton (or DWARF 4 GNU split) unit DIE of dw; false when it is not one. */
bool pprof__sz_dwp_skeleton(pprof__sz_dwp *d, Dwarf *dw, Dwarf_Die *cudie, pprof__sz_skel *sk);
/* The frames of vaddr from sk's split unit, innermost first: names, declaration lines and the
 * callers' call sites (files from the skeleton's line table, files[0, n_files)); frames[0]'s
 * file, line and column are the caller's. Returns how many, 0 when no function holds vaddr
 * (frames untouched), -1 when out of memory. */
/* Without a package: the .dwo file the skeleton unit cudie names (DW_AT_dwo_name under
 * DW_AT_comp_dir), opened and kept in obj until another unit asks; NULL when there is none. */
pprof__sz_dwp *pprof__sz_dwo_for(const pprof_allocator *a, pprof__sz_object *obj, Dwarf_Die *cudie);
int pprof__sz_dwp_frames(const pprof_allocator *a, pprof__sz_dwp *d, const pprof__sz_skel *sk,
                         Dwarf_Files *files, size_t n_files, uint64_t vaddr,
                         pprof__sz_frame *frames);

/* ---- symbolize-go.c */

/* Reads obj->bin's .gopclntab into obj->gotab; false when there is none usable. */
bool pprof__sz_go_load(pprof__sz_object *obj);
/* The frames of vaddr from .gopclntab, innermost first (room for PPROF__SZ_MAX_FRAMES); 0 when
 * no function holds it. */
int pprof__sz_go_frames(const pprof__sz_object *obj, uint64_t vaddr, pprof__sz_frame *frames);
/* The entry address of function i of a loaded table (i == nfunc: the end of the last). */
uint64_t pprof__sz_go_entry(const pprof__sz_gotab *g, uint64_t i);

/* ---- symbolize-xz.c */

/* Decompresses the xz stream in[0, n) into *out (pprof__malloc'd, *out_n bytes, at most cap).
 * False: not xz, corrupt, truncated, larger than cap, or out of memory. */
bool pprof__sz_xz_decode(const pprof_allocator *a, const void *in, size_t n, size_t cap, char **out,
                         size_t *out_n);
/* The ELF file of elf's .gnu_debugdata, decompressed into *image (free both with elf_end and
 * pprof__free), or NULL when there is none usable. */
Elf *pprof__sz_minidebuginfo(const pprof_allocator *a, Elf *elf, size_t cap, char **image);

/* ---- symbolize-cache.c: the address index cache */

#define PPROF__SZ_INDEX_MAX_BYTES                                                                  \
    (UINT64_C(64) << 20) /* a larger file is neither read nor written */
#define PPROF__SZ_INDEX_MAX_ADDRS (UINT32_C(1) << 20)     /* addresses kept per file */
#define PPROF__SZ_INDEX_MAX_FILES 1024u                   /* index files kept in the directory */
#define PPROF__SZ_INDEX_MAX_DIR_BYTES (UINT64_C(1) << 30) /* and their bytes */
#define PPROF__SZ_INDEX_DWARF 1u                          /* the report's "dwarf" */
#define PPROF__SZ_INDEX_LINES 2u                          /* the report's "lines" */

/* A parsed index file: views into its bytes, every count and offset checked. */
typedef struct pprof__sz_index {
    uint32_t flags, key_len, n_addr, n_frame, str_len;
    const uint8_t *key, *addrs, *frames;
    const char *strs;
} pprof__sz_index;

/* An address looked up in this run: frames [off, off + n) of a pprof__sz_frame vector. */
typedef struct pprof__sz_index_added {
    uint64_t vaddr;
    uint32_t off, n;
} pprof__sz_index_added;

/* Checks and parses an index file's bytes (not its key: the caller compares it). */
bool pprof__sz_index_parse(const void *data, size_t size, pprof__sz_index *ix);
/* The i-th address of a parsed index (0 past the end). */
uint64_t pprof__sz_index_address(const pprof__sz_index *ix, uint32_t i);
/* The frames of vaddr (room for PPROF__SZ_MAX_FRAMES), pointing into the index's bytes; -1
 * when the index does not have the address. */
int pprof__sz_index_lookup(const pprof__sz_index *ix, uint64_t vaddr, pprof__sz_frame *frames);
/* The key of obj's files (after pprof__sz_find), into key. False: out of memory, or a file
 * cannot be looked at. */
bool pprof__sz_index_key(const pprof_allocator *a, const pprof__sz_object *obj, pprof__vec *key);
/* DIR/<build ID>-<key checksum>.idx into out. */
bool pprof__sz_index_path(const char *dir, const pprof__sz_object *obj, const pprof__vec *key,
                          char *out, size_t cap);
/* Reads and checks the index at path, whose key must be key; *buf (free with pprof__free)
 * holds its bytes. False: none, or not usable. */
bool pprof__sz_index_load(const pprof_allocator *a, const char *path, const pprof__vec *key,
                          pprof__sz_index *ix, char **buf);
/* Writes old's addresses and the added ones (sorted here) to path, atomically (a temporary file
 * in dir, renamed). False: not written. */
bool pprof__sz_index_write(const pprof_allocator *a, const char *dir, const char *path,
                           const pprof__vec *key, uint32_t flags, const pprof__sz_index *old,
                           pprof__vec *added, const pprof__vec *frames);

/* ---- symbolize-names.c */

/* The name to show for a symbol: for Go (go), ".abi0" dropped and type arguments printed
 * "[...]" as the Go runtime prints them; else C++ and Rust demangled when asked. Returns name
 * itself or a string from malloc (*owned set) to free(); NULL only when out of memory. */
const char *pprof__sz_display_name(const char *name, pprof_demangle d, bool go, bool *owned);

/* ---- the report (symbolize.c builds it, symbolize-report.c prints it) */

struct pprof_symbolize_report {
    pprof_allocator a;
    pprof__arena arena; /* strings and address lists */
    pprof__vec maps;    /* pprof_symbolize_mapping */
    uint64_t unresolved;
};

/* A copy of s in r's arena ("" for NULL), or NULL when out of memory. */
const char *pprof__sz_report_str(pprof_symbolize_report *r, const char *s);

#endif
