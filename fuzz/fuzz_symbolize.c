/* The symbolizer's reading of ELF and DWARF (symbolize-find.c, -elf.c, -dwarf.c, -names.c):
 * the input is an ELF image that libelf reads from memory. Every function symbol, every
 * compilation unit's ranges (their ends, then addresses through them) and every segment's first
 * bytes are looked up, and every name found
 * is demangled. Nothing may crash, hang or read outside the image. */
#include <string.h>

#include "fuzz.h"
#include "symbolize-private.h"

#define MAX_LOOKUPS 4096

static void
lookup(pprof__sz_object *obj, uint64_t vaddr, pprof__sz_frame *frames, size_t *budget)
{
    if (!*budget)
        return;
    (*budget)--;
    const pprof_allocator a = {0};
    int n = pprof__sz_dwarf_frames(&a, obj, vaddr, frames);
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
    const pprof__sz_sym *sym = pprof__sz_symbol(obj, vaddr);
    if (sym) {
        bool owned;
        const char *s = pprof__sz_display_name(sym->name, PPROF_DEMANGLE_FULL, obj->go, &owned);
        if (owned)
            free((void *)s);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* libelf may keep pointers into the image: a private copy, freed after */
    char *image = malloc(size ? size : 1);
    if (!image)
        return 0;
    memcpy(image, data, size);
    const pprof_allocator a = {0};
    pprof__sz_object obj;
    static pprof__sz_frame frames[PPROF__SZ_MAX_FRAMES];
    size_t budget = MAX_LOOKUPS;
    if (pprof__sz_open_memory(&a, image, size, &obj)) {
        const pprof__sz_sym *s = obj.syms.data;
        for (size_t i = 0; i < obj.syms.len; i++)
            lookup(&obj, s[i].lo, frames, &budget);
        const pprof__sz_curange *c = obj.cus.data;
        for (size_t i = 0; i < obj.cus.len; i++) {
            lookup(&obj, c[i].lo, frames, &budget);
            lookup(&obj, c[i].hi - 1, frames, &budget);
        }
        /* then addresses through each unit, inlined code included: a small unit byte by
         * byte, a larger one at 256 points */
        for (size_t i = 0; i < obj.cus.len; i++) {
            uint64_t step = (c[i].hi - c[i].lo) / 256 ? (c[i].hi - c[i].lo) / 256 : 1;
            for (uint64_t v = c[i].lo + 1; v < c[i].hi - 1 && budget; v += step)
                lookup(&obj, v, frames, &budget);
        }
        const pprof__sz_seg *g = obj.segs.data;
        for (size_t i = 0; i < obj.segs.len; i++) {
            uint64_t v;
            if (pprof__sz_vaddr(&obj, g[i].offset, &v))
                lookup(&obj, v, frames, &budget);
        }
    }
    pprof__sz_object_free(&a, &obj);
    free(image);
    return 0;
}
