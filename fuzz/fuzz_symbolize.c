/* The symbolizer's reading of ELF and DWARF (symbolize-find.c, -elf.c, -dwarf.c, -names.c,
 * -go.c, -xz.c): the input is an ELF image that libelf reads from memory. Every function
 * symbol (MiniDebugInfo's too), every compilation unit's ranges (their ends, then addresses
 * through them), every segment's first bytes and every .gopclntab function (entry, middle) are
 * looked up, and every name found is demangled; then all of it again with one allocation
 * failing, at up to 6 points. An input that is an xz stream is decoded (within 1 MiB); one
 * that is an address index (symbolize-cache.c) is parsed and each of its addresses looked up.
 * An image with a split DWARF unit index (a .dwp), or a .dwo's split unit, is read as a package:
 * each unit is walked with a made-up skeleton (its .debug_addr the image's first bytes), and
 * looked up at its functions' ends; the object's own skeleton units, if any, through it.
 * Nothing may crash, hang, leak or read outside the image. */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "symbolize-private.h"

#define MAX_LOOKUPS 4096

static void
lookup(const pprof_allocator *a, pprof__sz_object *obj, uint64_t vaddr, pprof__sz_frame *frames,
       size_t *budget)
{
    if (!*budget)
        return;
    (*budget)--;
    int n = pprof__sz_dwarf_frames(a, obj, vaddr, frames);
    FUZZ_CHECK(n >= -1 && n <= PPROF__SZ_MAX_FRAMES, "frame count %d", n);
    for (int i = 0; i < n; i++) {
        if (frames[i].file)
            FUZZ_CHECK(strlen(frames[i].file) < SIZE_MAX, "file");
        if (!frames[i].name)
            continue;
        bool owned;
        const char *s =
            pprof__sz_display_name(frames[i].name, PPROF_DEMANGLE_FULL, obj->go, &owned);
        FUZZ_CHECK(s != NULL, "demangling ran out of memory");
        if (owned)
            free((void *)s);
    }
    n = pprof__sz_go_frames(obj, vaddr, frames);
    FUZZ_CHECK(n >= 0 && n <= PPROF__SZ_MAX_FRAMES, "go frame count %d", n);
    for (int i = 0; i < n; i++) {
        if (frames[i].file)
            FUZZ_CHECK(strlen(frames[i].file) < SIZE_MAX, "go file");
        if (frames[i].name)
            FUZZ_CHECK(strlen(frames[i].name) < SIZE_MAX, "go name");
    }
    const pprof__sz_sym *sym = pprof__sz_symbol(obj, vaddr);
    if (sym) {
        bool owned;
        const char *s = pprof__sz_display_name(sym->name, PPROF_DEMANGLE_FULL, obj->go, &owned);
        if (owned)
            free((void *)s);
    }
}

/* Checks n frames of a package lookup. */
static void
check_dwp_frames(int n, const pprof__sz_frame *frames)
{
    FUZZ_CHECK(n >= -1 && n <= PPROF__SZ_MAX_FRAMES, "dwp frame count %d", n);
    for (int i = 0; i < n; i++) {
        if (frames[i].name)
            FUZZ_CHECK(strlen(frames[i].name) < SIZE_MAX, "dwp name");
        if (i && frames[i].file)
            FUZZ_CHECK(strlen(frames[i].file) < SIZE_MAX, "dwp file");
    }
}

/* Reads every unit of the image's package index, if it has one, with a made-up skeleton. */
static void
scan_dwp(const pprof_allocator *a, pprof__sz_object *obj, const char *image, size_t size,
         pprof__sz_frame *frames, size_t *budget)
{
    pprof__sz_dwp *d = pprof__sz_dwp_open(a, obj->bin.elf);
    if (!d)
        return;
    FUZZ_CHECK(d->version == 0 || d->version == 2 || d->version == 5, "index version %u",
               d->version);
    /* a .dwo (version 0) has no index: its one unit is walked, taken without an id */
    uint32_t slots = d->version ? d->n_slots : 1;
    for (uint32_t slot = 0; slot < slots && *budget; slot++) {
        uint32_t row = 1;
        uint64_t id = d->version ? pprof__sz_dwp_slot_id(d, slot, &row) : 0;
        if (!row)
            continue;
        pprof__sz_skel sk = {.key = slot + 1,
                             .dwo_id = id,
                             .has_dwo_id = d->version != 0,
                             .addr = {(const uint8_t *)image, size < 4096 ? size : 4096},
                             .addr_base = 8,
                             .addr_size = slot & 1 ? 4 : 8,
                             .ranges = {(const uint8_t *)image, size}};
        /* the first lookup reads the unit; then the ends of its top-level functions */
        (*budget)--;
        int n = pprof__sz_dwp_frames(a, d, &sk, NULL, 0, 0, frames);
        check_dwp_frames(n, frames);
        if (n < 0 || !d->valid)
            continue;
        size_t tops = d->tops.len < 64 ? d->tops.len : 64;
        for (size_t i = 0; i < tops && *budget; i++) {
            const pprof__sz_curange *t = &PPROF__AT(d->tops, pprof__sz_curange, i);
            uint64_t probe[3] = {t->lo, t->hi - 1, t->lo + (t->hi - t->lo) / 2};
            for (int k = 0; k < 3 && *budget; k++) {
                (*budget)--;
                check_dwp_frames(pprof__sz_dwp_frames(a, d, &sk, NULL, 0, probe[k], frames),
                                 frames);
            }
        }
    }
    /* an image that also holds skeleton units: looked up through the package */
    if (obj->dw && !obj->dwp) {
        obj->dwp = d;
        const pprof__sz_curange *c = obj->cus.data;
        for (size_t i = 0; i < obj->cus.len && i < 64; i++)
            lookup(a, obj, c[i].lo, frames, budget);
        return; /* freed with obj */
    }
    pprof__sz_dwp_free(a, d);
}

/* Opens the image with allocator a and looks its addresses up; whether it opened. */
static bool
scan(const pprof_allocator *a, const uint8_t *data, size_t size, pprof__sz_frame *frames)
{
    /* libelf may keep pointers into the image, and convert it in place: a private copy */
    char *image = malloc(size ? size : 1);
    FUZZ_CHECK(image, "out of memory");
    memcpy(image, data, size);
    pprof__sz_object obj;
    size_t budget = MAX_LOOKUPS;
    bool opened = pprof__sz_open_memory(a, image, size, &obj);
    if (opened) {
        const pprof__sz_sym *s = obj.syms.data;
        for (size_t i = 0; i < obj.syms.len; i++)
            lookup(a, &obj, s[i].lo, frames, &budget);
        const pprof__sz_curange *c = obj.cus.data;
        for (size_t i = 0; i < obj.cus.len; i++) {
            lookup(a, &obj, c[i].lo, frames, &budget);
            lookup(a, &obj, c[i].hi - 1, frames, &budget);
        }
        /* then addresses through each unit, inlined code included: a small unit byte by
         * byte, a larger one at 256 points */
        for (size_t i = 0; i < obj.cus.len; i++) {
            uint64_t step = (c[i].hi - c[i].lo) / 256 ? (c[i].hi - c[i].lo) / 256 : 1;
            for (uint64_t v = c[i].lo + 1; v < c[i].hi - 1 && budget; v += step)
                lookup(a, &obj, v, frames, &budget);
        }
        /* .gopclntab: each function's entry and a byte past it, as far as the budget goes */
        const pprof__sz_gotab *gt = &obj.gotab;
        for (uint64_t i = 0; gt->ok && i < gt->nfunc && budget; i++) {
            uint64_t e = pprof__sz_go_entry(gt, i);
            lookup(a, &obj, e, frames, &budget);
            lookup(a, &obj, e + 5, frames, &budget);
        }
        const pprof__sz_seg *g = obj.segs.data;
        for (size_t i = 0; i < obj.segs.len; i++) {
            uint64_t v;
            if (pprof__sz_vaddr(&obj, g[i].offset, &v))
                lookup(a, &obj, v, frames, &budget);
        }
        scan_dwp(a, &obj, image, size, frames, &budget);
    }
    pprof__sz_object_free(a, &obj);
    free(image);
    return opened;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pprof__sz_frame *frames = malloc(PPROF__SZ_MAX_FRAMES * sizeof(*frames));
    FUZZ_CHECK(frames, "out of memory");
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    pprof_allocator a = fuzz_failing_allocator(&fa);
    if (size >= 6 && !memcmp(data,
                             "\xfd"
                             "7zXZ",
                             6)) {
        char *out;
        size_t n;
        if (pprof__sz_xz_decode(&a, data, size, (size_t)1 << 20, &out, &n)) {
            FUZZ_CHECK(n > 0 && n <= (size_t)1 << 20, "decoded %zu bytes", n);
            pprof__free(&a, out);
        }
    }
    pprof__sz_index ix;
    if (pprof__sz_index_parse(data, size, &ix)) {
        for (uint32_t i = 0; i < ix.n_addr && i < MAX_LOOKUPS; i++) {
            uint64_t v = pprof__sz_index_address(&ix, i);
            int n = pprof__sz_index_lookup(&ix, v, frames);
            FUZZ_CHECK(n >= 0 && n <= PPROF__SZ_MAX_FRAMES, "index frame count %d", n);
            for (int k = 0; k < n; k++)
                FUZZ_CHECK((!frames[k].name || strlen(frames[k].name) < ix.str_len) &&
                               (!frames[k].file || strlen(frames[k].file) < ix.str_len),
                           "index strings");
            FUZZ_CHECK(pprof__sz_index_lookup(&ix, v + 1, frames) <= PPROF__SZ_MAX_FRAMES,
                       "index lookup");
        }
    }
    bool opened = scan(&a, data, size, frames);
    /* again with one allocation failing, at up to 6 points: a lookup gives -1 or fewer frames
     * (checked in lookup), and an object that only failed to allocate is not opened */
    uint64_t calls = fa.calls, h = fuzz_hash(data, size);
    uint64_t points = fuzz_fail_points(6);
    for (uint64_t k = 0; k < points && k < calls; k++) {
        fa = (fuzz_failing_alloc){0, fuzz_fail_point(calls, k, points, h), 0};
        bool again = scan(&a, data, size, frames);
        FUZZ_CHECK(fa.failed || again == opened, "opened %d, then %d", opened, again);
    }
    free(frames);
    return 0;
}
