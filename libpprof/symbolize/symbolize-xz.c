/* MiniDebugInfo: .gnu_debugdata, an xz-compressed ELF file holding the symbols of the local
 * functions that a stripped binary's .dynsym lacks (Fedora, RHEL, CentOS and others put it in
 * every package; gdb, perf, systemd-coredump read it). Decompressed by liblzma into memory,
 * within a size bound, and read by libelf from there. */
#include <lzma.h>
#include <string.h>

#include "symbolize-private.h"

/* liblzma's own allocations stay within this; the output within the caller's cap. */
#define XZ_MEMLIMIT (UINT64_C(64) << 20)

bool
pprof__sz_xz_decode(const pprof_allocator *a, const void *in, size_t n, size_t cap, char **out,
                    size_t *out_n)
{
    *out = NULL;
    *out_n = 0;
    lzma_stream z = LZMA_STREAM_INIT;
    if (lzma_stream_decoder(&z, XZ_MEMLIMIT, 0) != LZMA_OK)
        return false;
    size_t size = n * 4 < cap && n * 4 > n ? n * 4 : cap, used = 0;
    char *buf = size ? pprof__malloc(a, size) : NULL;
    bool ok = false;
    z.next_in = in;
    z.avail_in = n;
    while (buf) {
        z.next_out = (uint8_t *)buf + used;
        z.avail_out = size - used;
        lzma_ret r = lzma_code(&z, LZMA_FINISH);
        used = size - z.avail_out;
        if (r == LZMA_STREAM_END) {
            ok = used > 0;
            break;
        }
        if (r != LZMA_OK && r != LZMA_BUF_ERROR)
            break;       /* corrupt, truncated, over the memory limit */
        if (z.avail_out) /* no progress possible: the input ended early */
            break;
        if (size >= cap)
            break; /* larger than allowed */
        size_t grow = size > cap / 2 ? cap : size * 2;
        char *b = pprof__realloc(a, buf, grow);
        if (!b)
            break;
        buf = b;
        size = grow;
    }
    lzma_end(&z);
    if (!ok) {
        pprof__free(a, buf);
        return false;
    }
    *out = buf;
    *out_n = used;
    return true;
}

/* The .gnu_debugdata section's bytes of elf, or NULL. */
static const void *
debugdata(Elf *elf, size_t *n)
{
    size_t shstr;
    if (elf_getshdrstrndx(elf, &shstr) != 0)
        return NULL;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
        GElf_Shdr sh;
        const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstr, sh.sh_name) : NULL;
        if (!name || strcmp(name, ".gnu_debugdata") != 0 || sh.sh_type != SHT_PROGBITS)
            continue;
        Elf_Data *d = elf_rawdata(scn, NULL);
        if (!d || !d->d_buf || !d->d_size)
            return NULL;
        *n = d->d_size;
        return d->d_buf;
    }
    return NULL;
}

Elf *
pprof__sz_minidebuginfo(const pprof_allocator *a, Elf *elf, size_t cap, char **image)
{
    size_t n, size;
    const void *in = elf ? debugdata(elf, &n) : NULL;
    *image = NULL;
    if (!in || !pprof__sz_xz_decode(a, in, n, cap, image, &size))
        return NULL;
    GElf_Ehdr eh;
    Elf *mini = elf_memory(*image, size);
    if (!mini || elf_kind(mini) != ELF_K_ELF || !gelf_getehdr(mini, &eh)) {
        if (mini)
            elf_end(mini);
        pprof__free(a, *image);
        *image = NULL;
        return NULL;
    }
    return mini;
}
