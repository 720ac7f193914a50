/* Finding a mapping's ELF file, its separate debug file and its dwz alt file, in the order
 * symbolize.h documents. Only the local file system is read: the debuginfod client cache is a
 * directory like any other, and no server is ever asked. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <dwarf.h>
#include <elfutils/libdwelf.h>

#include "symbolize-private.h"

enum { OPEN_OK, OPEN_MISSING, OPEN_BAD };

void
pprof__sz_file_close(const pprof_allocator *a, pprof__sz_file *f)
{
    if (f->elf)
        elf_end(f->elf);
    if (f->fd >= 0)
        close(f->fd);
    pprof__free(a, f->path);
    memset(f, 0, sizeof(*f));
    f->fd = -1;
}

void
pprof__sz_object_free(const pprof_allocator *a, pprof__sz_object *obj)
{
    pprof__sz_unit_free(a, &obj->unit);
    pprof__sz_dwp_free(a, obj->dwp);
    pprof__sz_file_close(a, &obj->dwpf);
    pprof__sz_dwp_free(a, obj->dwo);
    pprof__sz_file_close(a, &obj->dwof);
    if (obj->mini)
        elf_end(obj->mini);
    pprof__free(a, obj->mini_image);
    if (obj->dw)
        dwarf_end(obj->dw);
    if (obj->alt_dw)
        dwarf_end(obj->alt_dw);
    pprof__sz_file_close(a, &obj->alt);
    pprof__sz_file_close(a, &obj->dbg);
    pprof__sz_file_close(a, &obj->bin);
    pprof__free(a, obj->segs.data);
    pprof__free(a, obj->syms.data);
    pprof__free(a, obj->cus.data);
    memset(obj, 0, sizeof(*obj));
    obj->bin.fd = obj->dbg.fd = obj->alt.fd = obj->dwpf.fd = obj->dwof.fd = -1;
}

void
pprof__sz_build_id_hex(const pprof__sz_file *f, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < f->build_id_len; i++) {
        out[2 * i] = hex[f->build_id[i] >> 4];
        out[2 * i + 1] = hex[f->build_id[i] & 15];
    }
    out[2 * f->build_id_len] = 0;
}

static void set_why(pprof__sz_why *why, pprof_symbolize_result r, const char *path, const char *fmt,
                    ...) __attribute__((format(printf, 4, 5)));

/* Keeps the first real failure: a later "not found" must not hide why a file was refused. */
static void
set_why(pprof__sz_why *why, pprof_symbolize_result r, const char *path, const char *fmt, ...)
{
    if (why->result != PPROF_SYMBOLIZE_NOT_FOUND)
        return;
    why->result = r;
    snprintf(why->file, sizeof(why->file), "%s", path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why->reason, sizeof(why->reason), fmt, ap);
    va_end(ap);
}

static const char *
file_kind(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

static uint64_t
max_bytes(const pprof__sz_search *s)
{
    return s->o->max_file_bytes ? s->o->max_file_bytes : UINT64_C(16) << 30;
}

/* Opens path as an ELF file. O_NONBLOCK: opening a FIFO must not wait for a writer; only a
 * regular file is read at all, and libelf maps it read-only instead of reading it whole. */
static int
open_elf(const pprof__sz_search *s, const char *path, pprof__sz_file *f, pprof__sz_why *why)
{
    memset(f, 0, sizeof(*f));
    f->fd = -1;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG || errno == ELOOP)
            return OPEN_MISSING;
        set_why(why, PPROF_SYMBOLIZE_UNREADABLE, path, "cannot open: %s", strerror(errno));
        return OPEN_BAD;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        set_why(why, PPROF_SYMBOLIZE_UNREADABLE, path, "cannot stat: %s", strerror(errno));
        close(fd);
        return OPEN_BAD;
    }
    if (!S_ISREG(st.st_mode)) {
        set_why(why, PPROF_SYMBOLIZE_UNREADABLE, path, "%s, not a regular file",
                file_kind(st.st_mode));
        close(fd);
        return OPEN_BAD;
    }
    if ((uint64_t)st.st_size > max_bytes(s)) {
        set_why(why, PPROF_SYMBOLIZE_UNREADABLE, path, "%llu bytes, more than the limit of %llu",
                (unsigned long long)st.st_size, (unsigned long long)max_bytes(s));
        close(fd);
        return OPEN_BAD;
    }
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    GElf_Ehdr eh;
    if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
        set_why(why, PPROF_SYMBOLIZE_NOT_ELF, path, "not an ELF file%s%s", elf_errno() ? ": " : "",
                elf_errno() ? elf_errmsg(-1) : "");
        if (elf)
            elf_end(elf);
        close(fd);
        return OPEN_BAD;
    }
    size_t n = strlen(path) + 1;
    f->path = pprof__malloc(s->a, n);
    if (!f->path) {
        elf_end(elf);
        close(fd);
        set_why(why, PPROF_SYMBOLIZE_UNREADABLE, path, "out of memory");
        return OPEN_BAD;
    }
    memcpy(f->path, path, n);
    f->fd = fd;
    f->elf = elf;
    f->size = (uint64_t)st.st_size;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    const void *id;
    ssize_t len = dwelf_elf_gnu_build_id(elf, &id);
    if (len > 0 && (size_t)len <= sizeof(f->build_id)) {
        memcpy(f->build_id, id, (size_t)len);
        f->build_id_len = (size_t)len;
    }
    return OPEN_OK;
}

/* Opens path and keeps it when its build ID is want (or either has none and lax). */
static int
try_file(const pprof__sz_search *s, const char *path, const char *want, bool lax, pprof__sz_file *f,
         pprof__sz_why *why)
{
    int r = open_elf(s, path, f, why);
    if (r != OPEN_OK)
        return r;
    char have[129];
    pprof__sz_build_id_hex(f, have);
    if (want[0] && have[0] ? strcmp(want, have) == 0 : lax)
        return OPEN_OK;
    if (!have[0])
        set_why(why, PPROF_SYMBOLIZE_BUILD_ID_MISMATCH, path,
                "the file has no build ID, the mapping's is %s", want);
    else
        set_why(why, PPROF_SYMBOLIZE_BUILD_ID_MISMATCH, path, "build ID %s, the mapping's is %s",
                have, want);
    pprof__sz_file_close(s->a, f);
    return OPEN_BAD;
}

static bool
join(char *dst, size_t cap, const char *a, const char *b)
{
    int n = snprintf(dst, cap, "%s%s%s", a, a[0] && b[0] != '/' ? "/" : "", b);
    return n > 0 && (size_t)n < cap;
}

/* DIR/.build-id/ab/cdef...SUFFIX */
static bool
build_id_path(char *dst, size_t cap, const char *dir, const char *id, const char *suffix)
{
    if (strlen(id) < 3)
        return false;
    int n = snprintf(dst, cap, "%s/.build-id/%.2s/%s%s", dir, id, id + 2, suffix);
    return n > 0 && (size_t)n < cap;
}

/* Looks for id in the debug directories (DIR/.build-id/ab/cdef.debug when debug, then
 * DIR/.build-id/ab/cdef when executables); *f opened on success. */
static bool
find_in_debug_dirs_as(const pprof__sz_search *s, const char *id, bool debug, bool executables,
                      pprof__sz_file *f, pprof__sz_why *why)
{
    char path[PATH_MAX];
    for (size_t i = 0; i < s->n_dirs; i++) {
        const char *dir = s->dirs[i];
        if (debug && build_id_path(path, sizeof(path), dir, id, ".debug") &&
            try_file(s, path, id, false, f, why) == OPEN_OK)
            return true;
        if (executables && build_id_path(path, sizeof(path), dir, id, "") &&
            try_file(s, path, id, false, f, why) == OPEN_OK)
            return true;
    }
    return false;
}

static bool
find_in_debug_dirs(const pprof__sz_search *s, const char *id, bool executables_too,
                   pprof__sz_file *f, pprof__sz_why *why)
{
    return find_in_debug_dirs_as(s, id, true, executables_too, f, why);
}

/* CACHE/<build-id>/debuginfo of the debuginfod client cache. */
static bool
find_in_cache(const pprof__sz_search *s, const char *id, pprof__sz_file *f, pprof__sz_why *why)
{
    char path[PATH_MAX];
    int n = s->cache ? snprintf(path, sizeof(path), "%s/%s/debuginfo", s->cache, id) : -1;
    return n > 0 && (size_t)n < sizeof(path) && try_file(s, path, id, false, f, why) == OPEN_OK;
}

static const char *
base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* path with its "." and ".." components and repeated slashes resolved as text (".." at the
 * root stays there); false when it does not fit. */
static bool
lexical_path(char *dst, size_t cap, const char *path)
{
    size_t n = 0;
    dst[0] = 0;
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        const char *q = p;
        while (*q && *q != '/')
            q++;
        size_t len = (size_t)(q - p);
        if (len == 2 && p[0] == '.' && p[1] == '.') {
            while (n && dst[n - 1] != '/')
                n--;
            n -= n > 0;
        } else if (len && !(len == 1 && p[0] == '.')) {
            if (n + 1 + len >= cap)
                return false;
            dst[n++] = '/';
            memcpy(dst + n, p, len);
            n += len;
        }
        dst[n] = 0;
        p = q;
    }
    return true;
}

static bool
starts_dir(const char *p, const char *dir)
{
    size_t n = strlen(dir);
    return !strncmp(p, dir, n) && (p[n] == 0 || p[n] == '/');
}

/* Whether an absolute mapping path names a file of /proc (also as "//proc", "/x/../proc", or
 * through /dev/fd and /dev/std*, links into /proc/self): read without a sysroot, that is the
 * symbolizer's own process (/proc/self/exe is its own binary), not the profiled one's. */
static bool
proc_path(const char *filename)
{
    char n[PATH_MAX];
    if (filename[0] != '/')
        return false;
    if (!lexical_path(n, sizeof(n), filename))
        return true; /* too long to tell: not opened */
    return starts_dir(n, "/proc") || starts_dir(n, "/dev/fd") || starts_dir(n, "/dev/stdin") ||
           starts_dir(n, "/dev/stdout") || starts_dir(n, "/dev/stderr");
}

/* The mapping's file itself: build ID, cache, --binary, path; with exec_only, no debug-only
 * file (.debug, debuginfod's debuginfo). */
static bool
find_binary(const pprof__sz_search *s, const char *filename, const char *id, bool exec_only,
            pprof__sz_file *f, const char **found_by, pprof__sz_why *why)
{
    char path[PATH_MAX];
    if (id[0] && find_in_debug_dirs_as(s, id, !exec_only, true, f, why)) {
        *found_by = "build-id";
        return true;
    }
    if (id[0] && s->cache) {
        static const char *const names[] = {"debuginfo", "executable"};
        for (size_t i = exec_only; i < 2; i++) {
            int n = snprintf(path, sizeof(path), "%s/%s/%s", s->cache, id, names[i]);
            if (n > 0 && (size_t)n < sizeof(path) &&
                try_file(s, path, id, false, f, why) == OPEN_OK) {
                *found_by = "debuginfod-cache";
                return true;
            }
        }
    }
    for (size_t i = 0; i < s->o->n_binaries; i++) {
        const char *b = s->o->binaries[i];
        /* A --binary meant for another mapping is not this one's mismatch: with a build ID it
         * must match quietly; without, its base name must be the mapping's. */
        pprof__sz_why quiet = {PPROF_SYMBOLIZE_NOT_FOUND, "", ""};
        bool named = filename[0] && strcmp(base_name(b), base_name(filename)) == 0;
        if (!id[0] && !named && s->o->n_binaries > 1)
            continue;
        if (try_file(s, b, id, true, f, named ? why : &quiet) == OPEN_OK) {
            *found_by = "binary";
            return true;
        }
    }
    if (!filename[0])
        return false;
    const char *root = s->o->sysroot ? s->o->sysroot : "";
    if (!root[0] && proc_path(filename)) {
        set_why(why, PPROF_SYMBOLIZE_NOT_SYMBOLIZABLE, filename,
                "a /proc path: not opened without --sysroot (it would be this process's file)");
        return false;
    }
    /* under a sysroot, ".." stays in it */
    char rel[PATH_MAX];
    if (root[0] && !lexical_path(rel, sizeof(rel), filename))
        return false;
    if (!join(path, sizeof(path), root, root[0] ? rel : filename))
        return false;
    if (try_file(s, path, id, true, f, why) == OPEN_OK) {
        *found_by = "path";
        return true;
    }
    return false;
}

static bool
crc_matches(const pprof__sz_file *f, uint32_t want)
{
    uint8_t buf[65536];
    uLong crc = crc32(0, Z_NULL, 0);
    for (uint64_t off = 0; off < f->size;) {
        ssize_t n = pread(f->fd, buf, sizeof(buf), (off_t)off);
        if (n <= 0)
            return false;
        crc = crc32(crc, buf, (uInt)n);
        off += (uint64_t)n;
    }
    return (uint32_t)crc == want;
}

/* The directory part of path into dst ("." when none). */
/* The directory part of path into dst: "." when none, "" for the root (so "dir/name" works). */
static void
dir_of(char *dst, size_t cap, const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 1;
    if (!slash || n >= cap)
        path = ".", n = 1;
    memcpy(dst, path, n);
    dst[n] = 0;
}

/* The k-th place a debug link may be: beside the file, in its .debug/, then under each debug
 * directory with the file's directory appended. False past the last. */
static bool
debuglink_place(const pprof__sz_search *s, const char *dir, const char *link, size_t k, char *dst,
                size_t cap)
{
    int n;
    if (k == 0)
        n = snprintf(dst, cap, "%s/%s", dir, link);
    else if (k == 1)
        n = snprintf(dst, cap, "%s/.debug/%s", dir, link);
    else if (k - 2 < s->n_dirs)
        n = snprintf(dst, cap, "%s/%s/%s", s->dirs[k - 2], dir[0] == '/' ? dir + 1 : dir, link);
    else
        return false;
    if (n <= 0 || (size_t)n >= cap)
        dst[0] = 0; /* too long: not a place */
    return true;
}

/* .gnu_debuglink, matched by build ID when both files have one, else by the link's CRC. */
static bool
find_debuglink(const pprof__sz_search *s, pprof__sz_object *obj, pprof__sz_why *why)
{
    GElf_Word crc;
    const char *link = dwelf_elf_gnu_debuglink(obj->bin.elf, &crc);
    if (!link || !link[0] || strchr(link, '/'))
        return false;
    char dir[PATH_MAX], path[PATH_MAX];
    dir_of(dir, sizeof(dir), obj->bin.path);
    for (size_t k = 0; debuglink_place(s, dir, link, k, path, sizeof(path)); k++) {
        if (!path[0] || strcmp(path, obj->bin.path) == 0)
            continue;
        pprof__sz_file f;
        if (open_elf(s, path, &f, why) != OPEN_OK)
            continue;
        bool same_id = obj->bin.build_id_len && f.build_id_len == obj->bin.build_id_len &&
                       !memcmp(f.build_id, obj->bin.build_id, f.build_id_len);
        bool no_ids = !obj->bin.build_id_len || !f.build_id_len;
        if (same_id || (no_ids && crc_matches(&f, crc))) {
            obj->dbg = f;
            return true;
        }
        set_why(why, PPROF_SYMBOLIZE_BUILD_ID_MISMATCH, path,
                "debug link %s does not match its file (build ID or CRC)", link);
        pprof__sz_file_close(s->a, &f);
    }
    return false;
}

static Dwarf *
dwarf_of(Elf *elf)
{
    Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
    if (!dw)
        return NULL;
    Dwarf_Off off = 0, next;
    size_t hsize;
    if (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) != 0) {
        dwarf_end(dw); /* sections without a single unit: no DWARF worth the name */
        return NULL;
    }
    return dw;
}

/* .gnu_debugaltlink (dwz): by build ID in the debug directories, then by its name relative to
 * the file holding the link. */
static void
find_altlink(const pprof__sz_search *s, pprof__sz_object *obj, pprof__sz_why *why)
{
    const char *name;
    const void *id;
    ssize_t len = dwelf_dwarf_gnu_debugaltlink(obj->dw, &name, &id);
    if (len <= 0 || len > 64)
        return;
    pprof__sz_file tmp = {0};
    memcpy(tmp.build_id, id, (size_t)len);
    tmp.build_id_len = (size_t)len;
    char hex[129];
    pprof__sz_build_id_hex(&tmp, hex);
    pprof__sz_why quiet = {PPROF_SYMBOLIZE_NOT_FOUND, "", ""};
    bool found = find_in_debug_dirs(s, hex, false, &obj->alt, &quiet);
    if (!found && name[0]) {
        char dir[PATH_MAX], path[PATH_MAX];
        dir_of(dir, sizeof(dir), obj->dbg.fd >= 0 ? obj->dbg.path : obj->bin.path);
        int n = name[0] == '/'
                    ? snprintf(path, sizeof(path), "%s%s", s->o->sysroot ? s->o->sysroot : "", name)
                    : snprintf(path, sizeof(path), "%s/%s", dir, name);
        found = n > 0 && (size_t)n < sizeof(path) &&
                try_file(s, path, hex, false, &obj->alt, &quiet) == OPEN_OK;
    }
    if (found && (obj->alt_dw = dwarf_begin_elf(obj->alt.elf, DWARF_C_READ, NULL)))
        dwarf_setalt(obj->dw, obj->alt_dw);
    else
        (void)why; /* without it, names in the alt file stay unknown: frames fall back */
}

/* Whether the file is a debug file (objcopy --only-keep-debug, eu-strip -f): its code segment
 * holds no bytes of the file. */
bool
pprof__sz_debug_only(Elf *elf)
{
    size_t n;
    if (elf_getphdrnum(elf, &n) != 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
            ph.p_memsz && !ph.p_filesz)
            return true;
    }
    return false;
}

/* Whether the first unit of dw is a skeleton whose split unit is elsewhere. */
static bool
has_skeleton(Dwarf *dw)
{
    Dwarf_Off next;
    size_t hsize;
    Dwarf_Die cu;
    Dwarf_Attribute at;
    if (dwarf_nextcu(dw, 0, &next, &hsize, NULL, NULL, NULL) != 0 || !dwarf_offdie(dw, hsize, &cu))
        return false;
    return dwarf_tag(&cu) == DW_TAG_skeleton_unit || dwarf_attr(&cu, DW_AT_GNU_dwo_id, &at);
}

/* The k-th place a package may be: beside the executable (NAME.dwp), beside its debug file
 * (NAME.debug.dwp, NAME.dwp), then under each debug directory by build ID
 * (.build-id/ab/cdef.dwp) and by the executable's path. False past the last. */
static bool
dwp_place(const pprof__sz_search *s, const pprof__sz_object *obj, const char *id, size_t k,
          char *dst, size_t cap, const char **how)
{
    const char *dbg = obj->dbg.fd >= 0 ? obj->dbg.path : NULL;
    size_t dn = dbg ? strlen(dbg) : 0;
    int n = -1;
    dst[0] = 0;
    if (k == 0)
        n = snprintf(dst, cap, "%s.dwp", obj->bin.path), *how = "beside-binary";
    else if (k == 1 && dbg)
        n = snprintf(dst, cap, "%s.dwp", dbg), *how = "beside-debug-file";
    else if (k == 2 && dbg && dn > 6 && !strcmp(dbg + dn - 6, ".debug"))
        n = snprintf(dst, cap, "%.*s.dwp", (int)(dn - 6), dbg), *how = "beside-debug-file";
    else if (k >= 3 && k - 3 < 2 * s->n_dirs) {
        const char *dir = s->dirs[(k - 3) / 2];
        if ((k - 3) % 2 == 0) {
            if (id[0] && build_id_path(dst, cap, dir, id, ".dwp"))
                n = 1;
            *how = "build-id";
        } else {
            n = snprintf(dst, cap, "%s/%s.dwp", dir,
                         obj->bin.path[0] == '/' ? obj->bin.path + 1 : obj->bin.path);
            *how = "debug-dir";
        }
    } else if (k >= 3) {
        return false;
    }
    if (n <= 0 || (size_t)n >= cap)
        dst[0] = 0;
    return true;
}

/* A split DWARF package for the skeleton units of obj->dw: the first place holding an ELF
 * file with a unit index. A package has no build ID; its units are matched by DWO id. */
static void
find_dwp(const pprof__sz_search *s, pprof__sz_object *obj)
{
    if (!has_skeleton(obj->dw))
        return;
    obj->split = true;
    char id[129], path[PATH_MAX];
    pprof__sz_build_id_hex(&obj->bin, id);
    const char *how = "";
    for (size_t k = 0; dwp_place(s, obj, id, k, path, sizeof(path), &how); k++) {
        pprof__sz_why quiet = {PPROF_SYMBOLIZE_NOT_FOUND, "", ""};
        if (!path[0] || open_elf(s, path, &obj->dwpf, &quiet) != OPEN_OK)
            continue;
        obj->dwp = pprof__sz_dwp_open(s->a, obj->dwpf.elf);
        if (obj->dwp) {
            obj->dwp_found_by = how;
            return;
        }
        pprof__sz_file_close(s->a, &obj->dwpf);
    }
}

static bool
pseudo_file(const char *filename)
{
    return filename[0] == '[' || !strncmp(filename, "//anon", 6) ||
           !strncmp(filename, "/memfd:", 7) || !strncmp(filename, "anon_inode:", 11) ||
           !strncmp(filename, "/dev/zero", 9) || !strncmp(filename, "/SYSV", 5);
}

bool
pprof__sz_find(const pprof__sz_search *s, const char *filename, const char *build_id,
               pprof__sz_object *obj, pprof__sz_why *why)
{
    memset(obj, 0, sizeof(*obj));
    obj->bin.fd = obj->dbg.fd = obj->alt.fd = obj->dwpf.fd = obj->dwof.fd = -1;
    obj->found_by = obj->debug_found_by = obj->dwp_found_by = "";
    memset(why, 0, sizeof(*why));
    why->result = PPROF_SYMBOLIZE_NOT_FOUND;
    if (pseudo_file(filename)) {
        set_why(why, PPROF_SYMBOLIZE_NOT_SYMBOLIZABLE, filename,
                "a kernel or pseudo mapping, not a file");
        return false;
    }
    if (!find_binary(s, filename, build_id, false, &obj->bin, &obj->found_by, why)) {
        if (why->result == PPROF_SYMBOLIZE_NOT_FOUND) {
            snprintf(why->file, sizeof(why->file), "%s", filename);
            snprintf(why->reason, sizeof(why->reason), "no file found%s",
                     filename[0] ? "" : " (the mapping names none)");
        }
        return false;
    }
    /* Whatever went wrong on the way, a file was found: earlier refusals are not the result. */
    why->result = PPROF_SYMBOLIZE_NOT_FOUND;
    if (pprof__sz_debug_only(obj->bin.elf)) {
        /* A debug file's program headers keep addresses but not file offsets: the executable
         * gives those, when it is anywhere; the debug file then serves as its debug file. */
        pprof__sz_file exe = {.fd = -1};
        const char *how;
        pprof__sz_why quiet = {PPROF_SYMBOLIZE_NOT_FOUND, "", ""};
        if (find_binary(s, filename, build_id, true, &exe, &how, &quiet) &&
            !pprof__sz_debug_only(exe.elf)) {
            obj->dbg = obj->bin;
            obj->bin = exe;
            obj->debug_found_by = obj->found_by;
            obj->found_by = how;
            obj->dw = dwarf_of(obj->dbg.elf);
        } else if (exe.fd >= 0) {
            pprof__sz_file_close(s->a, &exe);
        }
    }
    if (!obj->dw && obj->dbg.fd < 0 && s->defer_dwarf && pprof__sz_has_own_dwarf(obj->bin.elf)) {
        obj->dwarf_deferred = true;
        return true;
    }
    pprof__sz_find_dwarf(s, obj, why);
    return true;
}

bool
pprof__sz_has_own_dwarf(Elf *elf)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return false;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
        GElf_Shdr sh;
        const char *name;
        if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size &&
            (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
            (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")))
            return true;
    }
    return false;
}

void
pprof__sz_find_dwarf(const pprof__sz_search *s, pprof__sz_object *obj, pprof__sz_why *why)
{
    obj->dwarf_deferred = false;
    if (!obj->dw)
        obj->dw = dwarf_of(obj->bin.elf);
    if (!obj->dw && obj->dbg.fd < 0) {
        char hex[129];
        pprof__sz_build_id_hex(&obj->bin, hex);
        pprof__sz_why quiet = {PPROF_SYMBOLIZE_NOT_FOUND, "", ""};
        if (hex[0] && find_in_debug_dirs(s, hex, false, &obj->dbg, &quiet))
            obj->debug_found_by = "build-id";
        else if (hex[0] && find_in_cache(s, hex, &obj->dbg, &quiet))
            obj->debug_found_by = "debuginfod-cache";
        else if (find_debuglink(s, obj, &quiet))
            obj->debug_found_by = "debuglink";
        if (obj->dbg.fd >= 0) {
            obj->dw = dwarf_of(obj->dbg.elf);
            if (!obj->dw) {
                pprof__sz_file_close(s->a, &obj->dbg);
                obj->debug_found_by = "";
            }
        }
    }
    if (obj->dw)
        find_altlink(s, obj, why);
    if (obj->dw)
        find_dwp(s, obj);
}

bool
pprof__sz_open_memory(const pprof_allocator *a, char *image, size_t size, pprof__sz_object *obj)
{
    memset(obj, 0, sizeof(*obj));
    obj->bin.fd = obj->dbg.fd = obj->alt.fd = obj->dwpf.fd = obj->dwof.fd = -1;
    obj->found_by = "memory";
    obj->debug_found_by = obj->dwp_found_by = "";
    elf_version(EV_CURRENT);
    GElf_Ehdr eh;
    obj->bin.elf = elf_memory(image, size);
    if (!obj->bin.elf || elf_kind(obj->bin.elf) != ELF_K_ELF || !gelf_getehdr(obj->bin.elf, &eh))
        return false;
    obj->bin.size = size;
    obj->dw = dwarf_of(obj->bin.elf);
    if (!pprof__sz_elf_load(a, obj) || !pprof__sz_dwarf_load(a, obj))
        return false;
    if (obj->go)
        pprof__sz_go_load(obj);
    return true;
}
