/* The address index cache: one file per file used (its build ID in the name), holding the
 * frames the symbolizer gave each address it looked up, so that a repeat run over the same
 * binaries answers from the file and opens neither their DWARF nor their tables.
 *
 * The file (all integers little-endian):
 *   header, 48 bytes: "PPROFSZI", u32 version, u32 flags, u32 key length, u32 addresses,
 *     u32 frames, u32 string bytes, u64 zero, u32 CRC-32 of the whole file (this field read
 *     as zero), u32 zero;
 *   the key (what identifies the files and the symbolizer that wrote it);
 *   addresses, 16 bytes each, strictly ascending: u64 link-time address, u32 first frame,
 *     u32 frame count (0: the address has no frames);
 *   frames, 32 bytes each: u32 name, u32 file (string offset + 1, 0: none), then line,
 *     column and start line as they were (two's complement i64);
 *   strings, each ending with a NUL.
 * Whoever wrote a cache file, reading it can neither crash nor read out of bounds: every
 * count, offset and string is checked before use, the CRC catches a torn or damaged file, and
 * a file failing any check is ignored (the addresses are looked up in DWARF and the file is
 * replaced). Files are written to a temporary name and renamed, so a reader never sees half
 * of one; the directory keeps a bounded number of files and bytes, least recently used out
 * first. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "symbolize-private.h"

#define HEADER 48
#define ADDR_REC 16
#define FRAME_REC 32
#define VERSION 1
#define KNOWN_FLAGS (PPROF__SZ_INDEX_DWARF | PPROF__SZ_INDEX_LINES)

static const char magic[8] = {'P', 'P', 'R', 'O', 'F', 'S', 'Z', 'I'};

static uint32_t
get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t
get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void
put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void
put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t
checksum(const uint8_t *data, size_t size)
{
    static const uint8_t zero[4] = {0};
    uLong c = crc32(0L, Z_NULL, 0);
    c = crc32(c, data, 40);
    c = crc32(c, zero, 4);
    for (size_t off = 44; off < size;) { /* zlib takes uInt lengths */
        size_t n = size - off > (1u << 30) ? (1u << 30) : size - off;
        c = crc32(c, data + off, (uInt)n);
        off += n;
    }
    return (uint32_t)c;
}

bool
pprof__sz_index_parse(const void *data, size_t size, pprof__sz_index *ix)
{
    const uint8_t *d = data;
    memset(ix, 0, sizeof(*ix));
    if (size < HEADER || size > PPROF__SZ_INDEX_MAX_BYTES || memcmp(d, magic, 8) ||
        get32(d + 8) != VERSION || (get32(d + 12) & ~(uint32_t)KNOWN_FLAGS) || get64(d + 32) ||
        get32(d + 44))
        return false;
    uint32_t key_len = get32(d + 16), n_addr = get32(d + 20), n_frame = get32(d + 24),
             str_len = get32(d + 28);
    uint64_t want = (uint64_t)HEADER + key_len + (uint64_t)n_addr * ADDR_REC +
                    (uint64_t)n_frame * FRAME_REC + str_len;
    if (want != size || get32(d + 40) != checksum(d, size))
        return false;
    if (str_len && d[size - 1] != 0) /* every string ends inside the table */
        return false;
    ix->flags = get32(d + 12);
    ix->key = d + HEADER;
    ix->key_len = key_len;
    ix->addrs = ix->key + key_len;
    ix->frames = ix->addrs + (size_t)n_addr * ADDR_REC;
    ix->strs = (const char *)(ix->frames + (size_t)n_frame * FRAME_REC);
    ix->n_addr = n_addr;
    ix->n_frame = n_frame;
    ix->str_len = str_len;
    for (uint32_t i = 0; i < n_addr; i++) {
        const uint8_t *r = ix->addrs + (size_t)i * ADDR_REC;
        uint32_t first = get32(r + 8), n = get32(r + 12);
        if ((i && get64(r) <= get64(r - ADDR_REC)) || n > PPROF__SZ_MAX_FRAMES || first > n_frame ||
            n > n_frame - first)
            return false;
    }
    for (uint32_t i = 0; i < n_frame; i++) {
        const uint8_t *f = ix->frames + (size_t)i * FRAME_REC;
        uint32_t name = get32(f), file = get32(f + 4);
        if (name > str_len || file > str_len)
            return false;
    }
    return true;
}

static const char *
string_at(const pprof__sz_index *ix, uint32_t ref)
{
    return ref ? ix->strs + (ref - 1) : NULL;
}

uint64_t
pprof__sz_index_address(const pprof__sz_index *ix, uint32_t i)
{
    return i < ix->n_addr ? get64(ix->addrs + (size_t)i * ADDR_REC) : 0;
}

int
pprof__sz_index_lookup(const pprof__sz_index *ix, uint64_t vaddr, pprof__sz_frame *frames)
{
    size_t lo = 0, hi = ix->n_addr;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t v = get64(ix->addrs + mid * ADDR_REC);
        if (v == vaddr) {
            const uint8_t *r = ix->addrs + mid * ADDR_REC;
            uint32_t first = get32(r + 8), n = get32(r + 12);
            for (uint32_t k = 0; k < n; k++) {
                const uint8_t *f = ix->frames + (size_t)(first + k) * FRAME_REC;
                frames[k] = (pprof__sz_frame){string_at(ix, get32(f)), string_at(ix, get32(f + 4)),
                                              (int64_t)get64(f + 8), (int64_t)get64(f + 16),
                                              (int64_t)get64(f + 24)};
            }
            return (int)n;
        }
        if (v < vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* ---------------------------------------------------------------- the key and the name */

static bool
key_put(const pprof_allocator *a, pprof__vec *key, const void *p, size_t n)
{
    if (!pprof__vec_grow(a, key, 1, key->len + n))
        return false;
    memcpy((char *)key->data + key->len, p, n);
    key->len += n;
    return true;
}

static bool
key_u64(const pprof_allocator *a, pprof__vec *key, uint64_t v)
{
    uint8_t b[8];
    put64(b, v);
    return key_put(a, key, b, 8);
}

/* A file's identity: its build ID and size, and, because a file rebuilt or stripped in place
 * may keep both, its device, inode, modification time and path. */
static bool
key_file(const pprof_allocator *a, pprof__vec *key, const pprof__sz_file *f)
{
    struct stat st;
    if (f->fd < 0)
        return key_u64(a, key, 0);
    if (fstat(f->fd, &st) != 0)
        return false;
    size_t n = strlen(f->path);
    return key_u64(a, key, 1) && key_u64(a, key, f->size) && key_u64(a, key, (uint64_t)f->dev) &&
           key_u64(a, key, (uint64_t)f->ino) && key_u64(a, key, (uint64_t)st.st_mtim.tv_sec) &&
           key_u64(a, key, (uint64_t)st.st_mtim.tv_nsec) && key_u64(a, key, f->build_id_len) &&
           key_put(a, key, f->build_id, f->build_id_len) && key_u64(a, key, n) &&
           key_put(a, key, f->path, n);
}

/* A split DWARF package beside the binary (NAME.dwp): whether there is one, and its identity,
 * so that a package added, removed or rebuilt gets a new index. */
static bool
key_dwp(const pprof_allocator *a, pprof__vec *key, const char *bin_path)
{
    char path[4200];
    struct stat st;
    int n = bin_path ? snprintf(path, sizeof(path), "%s.dwp", bin_path) : -1;
    if (n <= 0 || (size_t)n >= sizeof(path) || stat(path, &st) != 0)
        return key_u64(a, key, 0);
    return key_u64(a, key, 1) && key_u64(a, key, (uint64_t)st.st_size) &&
           key_u64(a, key, (uint64_t)st.st_dev) && key_u64(a, key, (uint64_t)st.st_ino) &&
           key_u64(a, key, (uint64_t)st.st_mtim.tv_sec) &&
           key_u64(a, key, (uint64_t)st.st_mtim.tv_nsec);
}

bool
pprof__sz_index_key(const pprof_allocator *a, const pprof__sz_object *obj, pprof__vec *key)
{
    /* what the frames depend on besides the files: the symbolizer's version of them */
    static const char logic[] = "libpprof-symbolize frames 1";
    key->len = 0;
    return key_put(a, key, logic, sizeof(logic)) && key_u64(a, key, obj->dwarf_deferred) &&
           key_file(a, key, &obj->bin) && key_file(a, key, &obj->dbg) &&
           key_file(a, key, &obj->alt) && key_dwp(a, key, obj->bin.path);
}

bool
pprof__sz_index_path(const char *dir, const pprof__sz_object *obj, const pprof__vec *key, char *out,
                     size_t cap)
{
    char hex[129];
    pprof__sz_build_id_hex(&obj->bin, hex);
    uLong h = crc32(crc32(0L, Z_NULL, 0), key->data, (uInt)key->len);
    int n =
        snprintf(out, cap, "%s/%s-%08lx.idx", dir, hex[0] ? hex : "nobuildid", (unsigned long)h);
    return n > 0 && (size_t)n < cap;
}

/* ---------------------------------------------------------------- reading */

bool
pprof__sz_index_load(const pprof_allocator *a, const char *path, const pprof__vec *key,
                     pprof__sz_index *ix, char **buf)
{
    *buf = NULL;
    memset(ix, 0, sizeof(*ix));
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
    if (fd < 0)
        return false;
    struct stat st;
    /* only the user's own regular file that no one else may write */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_size < HEADER ||
        (uint64_t)st.st_size > PPROF__SZ_INDEX_MAX_BYTES) {
        close(fd);
        return false;
    }
    size_t size = (size_t)st.st_size, got = 0;
    char *b = pprof__malloc(a, size);
    while (b && got < size) {
        ssize_t r = read(fd, b + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    bool ok = b && got == size && pprof__sz_index_parse(b, size, ix) && ix->key_len == key->len &&
              !memcmp(ix->key, key->data, key->len);
    if (ok) /* used now: the last to be evicted (see trim) */
        (void)futimens(fd, NULL);
    close(fd);
    if (!ok) {
        pprof__free(a, b);
        memset(ix, 0, sizeof(*ix));
        return false;
    }
    *buf = b;
    return true;
}

/* ---------------------------------------------------------------- writing */

typedef struct merged {
    uint64_t vaddr;
    const pprof__sz_frame *f; /* the new answer's frames (NULL when it has none) */
    uint32_t old;             /* its record in the old index, when from_old */
    uint32_t n;
    bool from_old; /* not f == NULL: a new answer of no frames has no frames pointer either */
} merged;

static int
added_cmp(const void *p, const void *q)
{
    const pprof__sz_index_added *x = p, *y = q;
    return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* The string table being built: offsets by the string's address (libdw hands out one pointer
 * per string; a repeated spelling at another address is only stored twice). */
typedef struct strtab {
    pprof__vec bytes;
    pprof__u64map at; /* pointer -> offset + 1 */
} strtab;

static bool
str_ref(const pprof_allocator *a, strtab *t, const char *s, uint32_t *ref)
{
    *ref = 0;
    if (!s)
        return true;
    uint32_t have = pprof__u64map_get(&t->at, (uint64_t)(uintptr_t)s);
    if (have != PPROF_NONE) {
        *ref = have;
        return true;
    }
    size_t n = strlen(s) + 1;
    if (t->bytes.len + n >= PPROF__SZ_INDEX_MAX_BYTES || !key_put(a, &t->bytes, s, n))
        return false;
    *ref = (uint32_t)(t->bytes.len - n + 1);
    uint32_t old;
    bool added;
    return pprof__u64map_put(&t->at, a, (uint64_t)(uintptr_t)s, *ref, &old, &added);
}

static bool
write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Creates dir and its parent when missing (the parent is ~/.cache or $XDG_CACHE_HOME). */
static void
make_dir(const char *dir)
{
    if (mkdir(dir, 0700) == 0 || errno == EEXIST)
        return;
    char parent[4096];
    int n = snprintf(parent, sizeof(parent), "%s", dir);
    char *slash = n > 0 && (size_t)n < sizeof(parent) ? strrchr(parent, '/') : NULL;
    if (!slash || slash == parent)
        return;
    *slash = 0;
    if (mkdir(parent, 0700) == 0)
        (void)mkdir(dir, 0700);
}

static bool
build(const pprof_allocator *a, const pprof__vec *key, uint32_t flags, const pprof__sz_index *old,
      merged *m, size_t nm, pprof__vec *out)
{
    strtab t;
    memset(&t, 0, sizeof(t));
    size_t n_frame = 0;
    for (size_t i = 0; i < nm; i++)
        n_frame += m[i].n;
    bool ok =
        (uint64_t)HEADER + key->len + (uint64_t)nm * ADDR_REC + (uint64_t)n_frame * FRAME_REC <
        PPROF__SZ_INDEX_MAX_BYTES;
    uint8_t *recs = ok ? pprof__malloc(a, nm * ADDR_REC + n_frame * FRAME_REC + 1) : NULL;
    ok = recs != NULL;
    size_t fi = 0;
    for (size_t i = 0; ok && i < nm; i++) {
        uint8_t *r = recs + i * ADDR_REC;
        put64(r, m[i].vaddr);
        put32(r + 8, (uint32_t)fi);
        put32(r + 12, m[i].n);
        pprof__sz_frame tmp[PPROF__SZ_MAX_FRAMES];
        const pprof__sz_frame *f = m[i].f;
        if (m[i].from_old) {
            const uint8_t * or = old->addrs + (size_t)m[i].old * ADDR_REC;
            pprof__sz_index_lookup(old, get64(or), tmp);
            f = tmp;
        }
        for (uint32_t k = 0; ok && k < m[i].n; k++, fi++) {
            uint8_t *fr = recs + nm * ADDR_REC + fi * FRAME_REC;
            uint32_t name = 0, file = 0;
            ok = str_ref(a, &t, f[k].name, &name) && str_ref(a, &t, f[k].file, &file);
            put32(fr, name);
            put32(fr + 4, file);
            put64(fr + 8, (uint64_t)f[k].line);
            put64(fr + 16, (uint64_t)f[k].column);
            put64(fr + 24, (uint64_t)f[k].start_line);
        }
    }
    size_t total = HEADER + key->len + nm * ADDR_REC + n_frame * FRAME_REC + t.bytes.len;
    ok = ok && total <= PPROF__SZ_INDEX_MAX_BYTES && pprof__vec_grow(a, out, 1, total);
    if (ok) {
        uint8_t *d = out->data;
        memset(d, 0, HEADER);
        memcpy(d, magic, 8);
        put32(d + 8, VERSION);
        put32(d + 12, flags);
        put32(d + 16, (uint32_t)key->len);
        put32(d + 20, (uint32_t)nm);
        put32(d + 24, (uint32_t)n_frame);
        put32(d + 28, (uint32_t)t.bytes.len);
        memcpy(d + HEADER, key->data, key->len);
        memcpy(d + HEADER + key->len, recs, nm * ADDR_REC + n_frame * FRAME_REC);
        if (t.bytes.len)
            memcpy(d + HEADER + key->len + nm * ADDR_REC + n_frame * FRAME_REC, t.bytes.data,
                   t.bytes.len);
        put32(d + 40, checksum(d, total));
        out->len = total;
    }
    pprof__free(a, recs);
    pprof__free(a, t.bytes.data);
    pprof__u64map_free(&t.at, a);
    return ok;
}

typedef struct dir_file {
    char name[256];
    uint64_t size;
    struct timespec used;
} dir_file;

static int
older_first(const void *p, const void *q)
{
    const dir_file *x = p, *y = q;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

/* Keeps the directory within PPROF__SZ_INDEX_MAX_FILES index files and
 * PPROF__SZ_INDEX_MAX_DIR_BYTES: the least recently used go first (a read touches its file);
 * a temporary file an interrupted run left an hour ago goes too. Only names this code makes
 * (*.idx, .tmp-*) are ever removed. */
static void
trim(const pprof_allocator *a, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    pprof__vec files = {0};
    uint64_t total = 0;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    for (struct dirent *de; (de = readdir(d));) {
        size_t n = strlen(de->d_name);
        bool idx =
            n > 4 && n < sizeof(((dir_file *)0)->name) && !strcmp(de->d_name + n - 4, ".idx");
        bool tmp = !strncmp(de->d_name, ".tmp-", 5);
        struct stat st;
        if ((!idx && !tmp) || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode))
            continue;
        if (tmp) {
            if (st.st_mtim.tv_sec + 3600 < now.tv_sec)
                (void)unlinkat(dirfd(d), de->d_name, 0);
            continue;
        }
        dir_file *f = files.len < 4 * PPROF__SZ_INDEX_MAX_FILES
                          ? pprof__vec_push(a, &files, sizeof(*f))
                          : NULL;
        if (!f)
            break;
        memcpy(f->name, de->d_name, n + 1);
        f->size = (uint64_t)st.st_size;
        f->used = st.st_mtim;
        total += f->size;
    }
    dir_file *f = files.data;
    size_t n = files.len;
    if (n > PPROF__SZ_INDEX_MAX_FILES || total > PPROF__SZ_INDEX_MAX_DIR_BYTES) {
        qsort(f, n, sizeof(*f), older_first);
        for (size_t i = 0;
             i < n && (n - i > PPROF__SZ_INDEX_MAX_FILES || total > PPROF__SZ_INDEX_MAX_DIR_BYTES);
             i++) {
            if (unlinkat(dirfd(d), f[i].name, 0) == 0)
                total -= f[i].size;
        }
    }
    pprof__free(a, files.data);
    closedir(d);
}

bool
pprof__sz_index_write(const pprof_allocator *a, const char *dir, const char *path,
                      const pprof__vec *key, uint32_t flags, const pprof__sz_index *old,
                      pprof__vec *added, const pprof__vec *frames)
{
    pprof__sz_index_added *ad = added->data;
    if (!added->len)
        return true;
    qsort(ad, added->len, sizeof(*ad), added_cmp);
    size_t cap = (size_t)old->n_addr + added->len;
    if (cap > PPROF__SZ_INDEX_MAX_ADDRS)
        cap = PPROF__SZ_INDEX_MAX_ADDRS;
    merged *m = pprof__malloc(a, (cap ? cap : 1) * sizeof(*m));
    if (!m)
        return false;
    /* old and new in address order; an address both have keeps the old answer (the same
     * files give the same frames), and past the bound the rest is left out */
    const pprof__sz_frame *fr = frames->data;
    size_t i = 0, j = 0, nm = 0;
    while (nm < cap && (i < old->n_addr || j < added->len)) {
        uint64_t ov = i < old->n_addr ? get64(old->addrs + i * ADDR_REC) : UINT64_MAX;
        bool take_old = i < old->n_addr && (j == added->len || ov <= ad[j].vaddr);
        if (take_old) {
            while (j < added->len && ad[j].vaddr == ov)
                j++;
            m[nm++] = (merged){ov, NULL, (uint32_t)i, get32(old->addrs + i * ADDR_REC + 12), true};
            i++;
        } else {
            if (!nm || m[nm - 1].vaddr != ad[j].vaddr)
                m[nm++] = (merged){ad[j].vaddr, fr ? fr + ad[j].off : NULL, 0, ad[j].n, false};
            j++;
        }
    }
    pprof__vec out = {0};
    bool ok = build(a, key, flags, old, m, nm, &out);
    pprof__free(a, m);
    if (!ok) {
        pprof__free(a, out.data);
        return false;
    }
    make_dir(dir);
    char tmp[4200];
    int n = snprintf(tmp, sizeof(tmp), "%s/.tmp-XXXXXX", dir);
    int fd = n > 0 && (size_t)n < sizeof(tmp) ? mkstemp(tmp) : -1;
    ok = fd >= 0;
    if (ok) {
        ok = fchmod(fd, 0600) == 0 && write_all(fd, out.data, out.len);
        ok = close(fd) == 0 && ok;
        ok = ok && rename(tmp, path) == 0;
        if (!ok)
            unlink(tmp);
    }
    pprof__free(a, out.data);
    if (ok)
        trim(a, dir);
    return ok;
}
