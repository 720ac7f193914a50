/* The symbolizer as a whole (pprof_symbolize): finding the file, reading it through the file
 * system, mapping runtime addresses through the PT_LOAD segments, DWARF and symbol tables,
 * demangling, building the output profile and the report. Two kinds of input:
 *  - the bytes of an ELF file (any bytes), written to a file in a private directory; a profile
 *    built here has mappings naming it (by path, through the binaries list by base name, and
 *    one whose build ID cannot match) and locations at addresses spread over the file;
 *  - "PPROFSZTREE\n" and records describing a small tree of files (ELF files, debug files,
 *    links, FIFOs, directories) built in the private directory, the mappings of the profile and
 *    the options (debug directories, binaries, debuginfod cache, sysroot, force, demangling,
 *    file size limit), so that every place the finder looks can hold something (see tree()).
 * The output must be a valid profile that encodes and decodes, the report must add up and
 * print, and symbolizing twice must give the same bytes (the second run answers from the
 * address index the first wrote in the private directory; an address in a file always gets the
 * same frames); with one allocation failing (up to 6 points) the call gives PPROF_E_NOMEM or
 * succeeds. Nothing is left behind in the directory's parent. */
#define _GNU_SOURCE /* nftw */
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "fuzz.h"
#include "pprof/builder.h"
#include "pprof/symbolize.h"
#include "validate-private.h"

#define MAX_ADDRS 512 /* every 16 bytes of a small file, evenly spread over a larger one */
#define MAX_MAPS 16
#define TREE_MAGIC "PPROFSZTREE\n"

/* One mapping of the profile to build: [start, limit) at offset, addresses every stride. */
typedef struct map_spec {
    uint64_t start, limit, offset, stride;
    const char *file, *build_id;
} map_spec;

/* A profile of one sample per address offset (a stack of one location in every mapping); with
 * lined, each mapping's first location already has a line (kept unless force). */
static pprof_profile *
make_profile(const map_spec *maps, size_t n, uint64_t size, bool lined)
{
    static const pprof_builder_value_type types[] = {{"samples", "count"}};
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    o.sample_types = types;
    o.n_sample_types = 1;
    pprof_builder *b;
    pprof_error err;
    FUZZ_CHECK(pprof_builder_new(&o, &b, &err) == PPROF_OK, "builder: %s", err.message);
    pprof_builder_map m[MAX_MAPS];
    pprof_builder_line line = {.line = 42};
    pprof_builder_str fname, ffile;
    FUZZ_CHECK(!pprof_builder_intern_cstr(b, "known", &fname, NULL) &&
                   !pprof_builder_intern_cstr(b, "known.c", &ffile, NULL) &&
                   !pprof_builder_function(b, fname, fname, ffile, 40, &line.function, NULL),
               "function");
    for (size_t i = 0; i < n; i++) {
        pprof_builder_mapping_desc d = {maps[i].start, maps[i].limit, maps[i].offset, {0},  {0},
                                        false,         false,         false,          false};
        FUZZ_CHECK(!pprof_builder_intern_cstr(b, maps[i].file, &d.filename, NULL) &&
                       !pprof_builder_intern_cstr(b, maps[i].build_id, &d.build_id, NULL) &&
                       !pprof_builder_mapping(b, &d, &m[i], &err),
                   "mapping: %s", err.message);
    }
    pprof_builder_loc stack[2 * MAX_MAPS];
    int64_t one = 1;
    for (uint64_t k = 0; k < MAX_ADDRS; k++) {
        size_t depth = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t off = k * maps[i].stride;
            if (off >= size || off >= maps[i].limit - maps[i].start)
                continue;
            /* with lined, the first address twice: once with a line, once without */
            for (size_t twice = 0; twice < 1u + (lined && k == 0); twice++) {
                bool with_line = lined && k == 0 && !twice;
                if (!with_line && !(maps[i].start + off))
                    continue; /* address 0 is no address: a location needs a line then */
                FUZZ_CHECK(!pprof_builder_location(b, m[i], maps[i].start + off, &line, with_line,
                                                   false, &stack[depth++], &err),
                           "location: %s", err.message);
            }
        }
        if (!depth)
            break;
        FUZZ_CHECK(!pprof_builder_add_sample(b, &one, 1, stack, depth, NULL, 0, NULL), "sample");
    }
    pprof_buffer buf = {0};
    pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
    w.format = PPROF_FORMAT_RAW;
    FUZZ_CHECK(pprof_builder_write_memory(b, 0, &w, &buf, &err) == PPROF_OK, "serialize: %s",
               err.message);
    pprof_builder_free(b);
    pprof_profile *p = NULL;
    FUZZ_CHECK(pprof_profile_read_memory(buf.data, buf.len, NULL, &p, &err) == PPROF_OK,
               "read back: %s", err.message);
    pprof_buffer_free(&buf);
    return p;
}

/* Symbolizes p; checks the output and the report; returns the output's bytes. */
static pprof_buffer
symbolize(const pprof_profile *p, const pprof_symbolize_options *o)
{
    pprof_profile *out = NULL;
    pprof_symbolize_report *r = NULL;
    pprof_error err;
    pprof_status st = pprof_symbolize(p, o, &out, &r, &err);
    FUZZ_CHECK(st == PPROF_OK || st == PPROF_E_NOMEM || st == PPROF_E_LIMIT,
               "pprof_symbolize: %s (%d)", err.message, (int)st);
    pprof_buffer bytes = {0};
    if (st == PPROF_OK) {
        FUZZ_CHECK(pprof__validate(out, "symbolize", &err) == PPROF_OK,
                   "the symbolized profile is invalid: %s: %s", err.path, err.message);
        uint64_t unresolved = 0;
        for (size_t i = 0; i < pprof_symbolize_report_count(r); i++) {
            pprof_symbolize_mapping m = pprof_symbolize_report_mapping(r, i);
            FUZZ_CHECK(m.resolved <= m.addresses, "mapping %zu: %llu resolved of %llu", i,
                       (unsigned long long)m.resolved, (unsigned long long)m.addresses);
            FUZZ_CHECK(m.n_unresolved == 0 || m.unresolved, "unresolved list missing");
            for (size_t k = 1; k < m.n_unresolved; k++)
                FUZZ_CHECK(m.unresolved[k - 1] < m.unresolved[k], "unresolved not ascending");
            FUZZ_CHECK(m.reason && m.file && m.found_by && m.debug_file, "NULL report string");
            FUZZ_CHECK(strcmp(pprof_symbolize_result_name(m.result), "unknown"),
                       "result %d has no name", (int)m.result);
            /* a build ID names files: one that is not hex ("../x") is never looked up */
            bool hex = m.build_id[strspn(m.build_id, "0123456789abcdefABCDEF")] == 0;
            FUZZ_CHECK(hex || m.result == PPROF_SYMBOLIZE_NOTHING_TO_DO ||
                           (m.result == PPROF_SYMBOLIZE_NOT_SYMBOLIZABLE && !m.file[0]),
                       "mapping %zu: build ID %s, not hex, gave %s (%s)", i, m.build_id,
                       pprof_symbolize_result_name(m.result), m.file);
            /* without a sysroot, a /proc path would be this process's own file */
            FUZZ_CHECK((o->sysroot && o->sysroot[0]) || strncmp(m.mapping_file, "/proc/", 6) ||
                           strcmp(m.found_by, "path"),
                       "mapping %zu: %s opened without a sysroot", i, m.mapping_file);
            unresolved += m.n_unresolved;
        }
        FUZZ_CHECK(unresolved <= pprof_symbolize_report_unresolved(r), "unresolved count");
        FUZZ_CHECK(!pprof_symbolize_report_mapping(r, pprof_symbolize_report_count(r)).reason,
                   "a mapping past the last");
        pprof_buffer txt = {0};
        FUZZ_CHECK(pprof_symbolize_report_print(r, PPROF_PRINT_JSON, &txt, &err) == PPROF_OK,
                   "report JSON: %s", err.message);
        FUZZ_CHECK(pprof_symbolize_report_print(r, PPROF_PRINT_TEXT, &txt, &err) == PPROF_OK,
                   "report text: %s", err.message);
        pprof_buffer_free(&txt);
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        w.format = PPROF_FORMAT_RAW;
        FUZZ_CHECK(pprof_profile_write_memory(out, &w, &bytes, &err) == PPROF_OK,
                   "encoding the symbolized profile: %s", err.message);
        pprof_profile *again = NULL;
        FUZZ_CHECK(pprof_profile_read_memory(bytes.data, bytes.len, NULL, &again, &err) == PPROF_OK,
                   "the symbolized profile does not decode: %s", err.message);
        pprof_profile_free(again);
    }
    pprof_symbolize_report_free(r);
    pprof_profile_free(out);
    return bytes;
}

/* The same call with one allocation failing, at up to 6 points spread over the calls of a
 * successful run (from h): PPROF_E_NOMEM with a message, or success where a failure only costs
 * a file (a path that could not be copied is reported, not fatal). */
static void
symbolize_nomem(const pprof_profile *p, pprof_symbolize_options o, uint64_t h)
{
    fuzz_failing_alloc fa = {0, UINT64_MAX, 0};
    o.allocator = fuzz_failing_allocator(&fa);
    pprof_profile *out = NULL;
    pprof_error err;
    if (pprof_symbolize(p, &o, &out, NULL, &err) != PPROF_OK)
        return;
    pprof_profile_free(out);
    uint64_t calls = fa.calls;
    uint64_t points = fuzz_fail_points(6);
    for (uint64_t k = 0; k < points && k < calls; k++) {
        uint64_t at = fuzz_fail_point(calls, k, points, h);
        fa = (fuzz_failing_alloc){0, at, 0};
        pprof_symbolize_report *r = NULL;
        pprof_status st = pprof_symbolize(p, &o, &out, &r, &err);
        FUZZ_CHECK(st == PPROF_OK || (st == PPROF_E_NOMEM && fa.failed && err.message[0]),
                   "allocation %llu failing gives %s", (unsigned long long)at,
                   pprof_status_name(st));
        FUZZ_CHECK(st == PPROF_OK || !out, "a failed call returned a profile");
        pprof_symbolize_report_free(r);
        pprof_profile_free(out);
    }
}

/* The arguments the call refuses, with a message. */
static void
check_refusals(const pprof_profile *p, const pprof_symbolize_options *o)
{
    pprof_profile *out = NULL;
    pprof_symbolize_report *r = NULL;
    pprof_error err;
    FUZZ_CHECK(pprof_symbolize(NULL, o, &out, &r, &err) == PPROF_E_ARG && !out && !r &&
                   err.message[0],
               "a NULL profile is not refused");
    FUZZ_CHECK(pprof_symbolize(p, o, NULL, &r, &err) == PPROF_E_ARG && !r && err.message[0],
               "a NULL output is not refused");
    pprof_buffer b = {0};
    FUZZ_CHECK(pprof_symbolize_report_print(NULL, PPROF_PRINT_TEXT, &b, &err) == PPROF_E_ARG &&
                   !b.len,
               "printing a NULL report is not refused");
}

static void
check_symbolize(const pprof_profile *p, const pprof_symbolize_options *o, uint64_t h)
{
    check_refusals(p, o);
    pprof_buffer one = symbolize(p, o), two = symbolize(p, o);
    FUZZ_CHECK(one.len == two.len && (!one.len || !memcmp(one.data, two.data, one.len)),
               "symbolizing the same profile twice gave different profiles");
    pprof_buffer_free(&one);
    pprof_buffer_free(&two);
    symbolize_nomem(p, *o, h);
}

/* ---------------------------------------------------------------- tree inputs */

/* A record of a tree input: op, a NUL-terminated name, then (op 'f') a 4-byte little-endian
 * length and the file's bytes, (op 'l') the link's NUL-terminated target, (op 'm') the
 * mapping's start, limit and file offset in hex, its file name and its build ID, each
 * NUL-terminated. Ops:
 *   f NAME DATA  a regular file          d NAME  a directory        p NAME  a FIFO
 *   s NAME  a Unix socket
 *   l NAME TARGET  a symbolic link (relative target, no "..": the tree is all there is; or
 *                  /dev/null, a character device)
 *   D NAME  a debug directory            b NAME  a --binary          c NAME  the debuginfod cache
 *   r NAME  the sysroot (default: the tree itself; "-": none, and mapping file names starting
 *           with '/' are taken under the tree by the harness instead, but for /proc/ ones:
 *           those must not be opened at all)
 *   m START LIMIT OFFSET FILE BUILD_ID  a mapping (at most MAX_MAPS)
 *   o FLAGS  F force, N no demangling, L a 4 KiB file size limit, K each mapping's first
 *            location has a line already
 * NAME is relative to the tree (no "..", no empty or "." component; "" for D, c, r: the tree);
 * a record that breaks a rule is skipped, and a truncated one ends the input. */
typedef struct tree_input {
    const uint8_t *p, *end;
    char dir[1024];
    char names[64][1200];
    size_t n_names;
    const char *debug_dirs[8], *binaries[8];
    size_t n_debug_dirs, n_binaries;
    const char *cache, *sysroot;
    map_spec maps[MAX_MAPS];
    size_t n_maps;
    bool force, no_demangle, small_limit, lined, no_sysroot;
} tree_input;

static const char *
take_str(tree_input *t)
{
    const uint8_t *z = t->p < t->end ? memchr(t->p, 0, (size_t)(t->end - t->p)) : NULL;
    if (!z)
        return NULL;
    const char *s = (const char *)t->p;
    t->p = z + 1;
    return s;
}

static bool
safe_rel(const char *s, bool empty_ok)
{
    if (!s[0])
        return empty_ok;
    if (s[0] == '/' || strlen(s) > 512)
        return false;
    for (const char *c = s; *c;) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return false;
        c += n + (e != NULL);
        if (e && !*c)
            return false; /* a trailing slash */
    }
    return true;
}

/* The tree's path of a relative name, kept in t (NULL when the tree holds too many). */
static const char *
tree_path(tree_input *t, const char *rel)
{
    if (t->n_names == sizeof(t->names) / sizeof(t->names[0]))
        return NULL;
    char *d = t->names[t->n_names++];
    snprintf(d, sizeof(t->names[0]), "%s%s%s", t->dir, rel[0] ? "/" : "", rel);
    return d;
}

/* mkdir -p of path's parent directories inside the tree. */
static void
make_parents(const tree_input *t, const char *path)
{
    char tmp[1200];
    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *c = tmp + strlen(t->dir) + 1; (c = strchr(c, '/')); c++) {
        *c = 0;
        mkdir(tmp, 0755);
        *c = '/';
    }
}

static uint64_t
hex(const char *s)
{
    uint64_t v = 0;
    for (; *s; s++) {
        int d = *s >= '0' && *s <= '9'   ? *s - '0'
                : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
                : *s >= 'A' && *s <= 'F' ? *s - 'A' + 10
                                         : -1;
        if (d < 0)
            break;
        v = v << 4 | (uint64_t)d;
    }
    return v;
}

static bool
tree_record(tree_input *t)
{
    uint8_t op = *t->p++;
    const char *name = take_str(t);
    if (!name)
        return false;
    bool empty_ok = op == 'D' || op == 'c' || op == 'r';
    const char *path = NULL;
    if (op != 'm' && op != 'o' && !(op == 'r' && !strcmp(name, "-")) && safe_rel(name, empty_ok) &&
        (path = tree_path(t, name)) && name[0])
        make_parents(t, path);
    switch (op) {
    case 'f': {
        if (t->end - t->p < 4)
            return false;
        uint32_t n = (uint32_t)t->p[0] | (uint32_t)t->p[1] << 8 | (uint32_t)t->p[2] << 16 |
                     (uint32_t)t->p[3] << 24;
        t->p += 4;
        if (n > (size_t)(t->end - t->p))
            return false;
        FILE *f = path ? fopen(path, "wbx") : NULL;
        if (f) {
            FUZZ_CHECK(fwrite(t->p, 1, n, f) == n && fclose(f) == 0, "writing %s", path);
        }
        t->p += n;
        break;
    }
    case 'd':
        if (path)
            mkdir(path, 0755);
        break;
    case 'p':
        if (path)
            mkfifo(path, 0644);
        break;
    case 'l': {
        const char *target = take_str(t);
        if (!target)
            return false;
        if (path && (!target[0] || !strcmp(target, "/dev/null") || safe_rel(target, false)))
            (void)!symlink(target, path);
        break;
    }
    case 's': {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        int fd = path && strlen(path) < sizeof(sa.sun_path) ? socket(AF_UNIX, SOCK_STREAM, 0) : -1;
        if (fd >= 0) {
            memcpy(sa.sun_path, path, strlen(path) + 1);
            (void)!bind(fd, (const struct sockaddr *)&sa, sizeof(sa));
            close(fd);
        }
        break;
    }
    case 'D':
        if (path && t->n_debug_dirs < 8)
            t->debug_dirs[t->n_debug_dirs++] = path;
        break;
    case 'b':
        if (path && t->n_binaries < 8)
            t->binaries[t->n_binaries++] = path;
        break;
    case 'c':
        if (path)
            t->cache = path;
        break;
    case 'r':
        if (!strcmp(name, "-"))
            t->no_sysroot = true;
        else if (path)
            t->sysroot = path;
        break;
    case 'm': {
        const char *f[4];
        for (int i = 0; i < 4; i++)
            if (!(f[i] = take_str(t)))
                return false;
        uint64_t start = hex(name), limit = hex(f[0]);
        if (t->n_maps == MAX_MAPS || limit <= start)
            break;
        const char *file = f[2];
        if (t->no_sysroot && file[0] == '/' && strncmp(file, "/proc/", 6)) {
            file = tree_path(t, file + 1);
            if (!file)
                break;
        }
        uint64_t span = limit - start, stride = span / MAX_ADDRS ? span / MAX_ADDRS : 1;
        t->maps[t->n_maps++] = (map_spec){start, limit, hex(f[1]), stride, file, f[3]};
        break;
    }
    case 'o':
        t->force |= strchr(name, 'F') != NULL;
        t->no_demangle |= strchr(name, 'N') != NULL;
        t->small_limit |= strchr(name, 'L') != NULL;
        t->lined |= strchr(name, 'K') != NULL;
        break;
    default: break;
    }
    return true;
}

static int
remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag;
    FUZZ_CHECK(strncmp(path + ftw->base, ".tmp-", 5), "a temporary index left: %s", path);
    FUZZ_CHECK(remove(path) == 0, "removing %s: %s", path, strerror(errno));
    return 0;
}

static void
run_tree(const char *dir, const uint8_t *data, size_t size, uint64_t h)
{
    tree_input *t = calloc(1, sizeof(*t)); /* large for the stack */
    FUZZ_CHECK(t, "out of memory");
    snprintf(t->dir, sizeof(t->dir), "%s", dir);
    t->p = data + strlen(TREE_MAGIC);
    t->end = data + size;
    t->sysroot = t->dir;
    while (t->p < t->end && tree_record(t)) {
    }
    if (t->n_maps) {
        pprof_profile *p = make_profile(t->maps, t->n_maps, UINT64_MAX, t->lined);
        pprof_symbolize_options o = PPROF_SYMBOLIZE_OPTIONS_INIT;
        o.debug_dirs = t->debug_dirs;
        o.n_debug_dirs = t->n_debug_dirs;
        o.binaries = t->binaries;
        o.n_binaries = t->n_binaries;
        o.sysroot = t->no_sysroot ? NULL : t->sysroot;
        o.debuginfod_cache = t->cache ? t->cache : ""; /* never the user's cache */
        char index_dir[1100]; /* nor the user's index cache: the second run reads the first's */
        snprintf(index_dir, sizeof(index_dir), "%s/.index-cache", dir);
        o.cache_dir = index_dir;
        o.demangle = t->no_demangle ? PPROF_DEMANGLE_NONE : PPROF_DEMANGLE_FULL;
        o.force = t->force;
        o.max_file_bytes = t->small_limit ? 4096 : 8u << 20;
        check_symbolize(p, &o, h);
        pprof_profile_free(p);
    }
    free(t);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (4u << 20))
        return 0;
    const char *base = getenv("TMPDIR");
    char dir[1024], path[1100];
    snprintf(dir, sizeof(dir), "%s/pprof-fuzz-symbolize-XXXXXX", base && *base ? base : "/tmp");
    FUZZ_CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    uint64_t h = fuzz_hash(data, size);
    if (size >= strlen(TREE_MAGIC) && !memcmp(data, TREE_MAGIC, strlen(TREE_MAGIC))) {
        run_tree(dir, data, size, h);
        FUZZ_CHECK(nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0, "removing %s", dir);
        return 0;
    }
    snprintf(path, sizeof(path), "%s/obj", dir);
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f && fwrite(data, 1, size, f) == size && fclose(f) == 0, "writing %s", path);
    uint64_t span = size > 0x1000 ? size : 0x1000;
    uint64_t stride = size / MAX_ADDRS > 16 ? size / MAX_ADDRS : 16;
    const map_spec maps[3] = {
        {0x400000, 0x400000 + span, 0, stride, path, ""}, /* found by its path */
        {0x7f0000000000, 0x7f0000000000 + span, 0x1000, stride, "/nonexistent/obj",
         ""}, /* by base name among the binaries */
        {0x7f1000000000, 0x7f1000000000 + span, 0, stride, path,
         "0badc0de42"}, /* a build ID the file does not have */
    };
    pprof_profile *p = make_profile(maps, 3, size, false);
    const char *binaries[] = {path};
    pprof_symbolize_options o = PPROF_SYMBOLIZE_OPTIONS_INIT;
    o.binaries = binaries;
    o.n_binaries = 1;
    o.debuginfod_cache = ""; /* never the user's cache: the input alone decides */
    o.max_file_bytes = 8u << 20;
    char index_dir[1100]; /* the index cache: symbolizing twice, the second run reads it */
    snprintf(index_dir, sizeof(index_dir), "%s/index-cache", dir);
    o.cache_dir = index_dir;
    check_symbolize(p, &o, h);
    pprof_profile_free(p);
    unlink(path);
    if (access(index_dir, F_OK) == 0)
        FUZZ_CHECK(nftw(index_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0, "removing %s",
                   index_dir);
    FUZZ_CHECK(rmdir(dir) == 0, "files left behind in %s", dir);
    return 0;
}
