/* perf.data's file header, attributes and feature sections. */
#include <stdio.h>

#include "perf-private.h"

#define PERF_MAGIC2 UINT64_C(0x32454c4946524550) /* "PERFILE2" read little-endian */
#define PERF_FILE_HEADER_SIZE 104u
#define PERF_PIPE_HEADER_SIZE 16u

pprof_status
perf__nomem(perf__reader *r)
{
    return pprof__error(r->err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "out of memory");
}

const char *
perf__strndup(perf__reader *r, const uint8_t *s, size_t max)
{
    size_t n = 0;
    while (n < max && s[n])
        n++;
    char *d = pprof__arena_alloc(&r->arena, n + 1);
    if (!d)
        return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* The attr's flag bits numbered as on a little-endian machine: a big-endian compiler allocates
 * bitfields from the most significant bit of each byte, so each byte's bits are reversed. */
static uint64_t
attr_flags(const perf__reader *r, const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        uint8_t b = p[i];
        if (r->big) {
            b = (uint8_t)(((b & 0xf0) >> 4) | ((b & 0x0f) << 4));
            b = (uint8_t)(((b & 0xcc) >> 2) | ((b & 0x33) << 2));
            b = (uint8_t)(((b & 0xaa) >> 1) | ((b & 0x55) << 1));
        }
        v |= (uint64_t)b << (8 * i);
    }
    return v;
}

void
perf__attr_name_default(perf__attr *at)
{
    static const char *const hw[] = {
        "cycles",
        "instructions",
        "cache-references",
        "cache-misses",
        "branches",
        "branch-misses",
        "bus-cycles",
        "stalled-cycles-frontend",
        "stalled-cycles-backend",
        "ref-cycles",
    };
    static const char *const sw[] = {
        "cpu-clock",        "task-clock",   "page-faults",  "context-switches",
        "cpu-migrations",   "minor-faults", "major-faults", "alignment-faults",
        "emulation-faults", "dummy",        "bpf-output",   "cgroup-switches",
    };
    if (at->type == 0 && at->config < sizeof(hw) / sizeof(hw[0]))
        snprintf(at->name, sizeof(at->name), "%s", hw[at->config]);
    else if (at->type == 1 && at->config < sizeof(sw) / sizeof(sw[0]))
        snprintf(at->name, sizeof(at->name), "%s", sw[at->config]);
    else if (at->type == 2)
        snprintf(at->name, sizeof(at->name), "tracepoint-%llu", (unsigned long long)at->config);
    else
        snprintf(at->name, sizeof(at->name), "raw-%u-0x%llx", at->type,
                 (unsigned long long)at->config);
}

/* One attr of avail bytes (its own size field may say less, or more for a newer perf: only the
 * fields this reader knows are taken) and its ids (n_ids u64s at ids). */
pprof_status
perf__attr_add(perf__reader *r, const uint8_t *p, size_t avail, const uint8_t *ids, uint64_t n_ids)
{
    uint64_t off = perf__off(r, p);
    if (avail < PERF_ATTR_SIZE_VER0)
        return pprof__error(r->err, PPROF_E_INVALID, off, "attr",
                            "attribute of %zu bytes is shorter than the first perf's (64 bytes)",
                            avail);
    if (r->attrs.len >= 4096)
        return pprof__error(r->err, PPROF_E_LIMIT, off, "attr", "more than 4096 event attributes");
    uint32_t size = perf__u32(r, p + 4);
    if (size == 0)
        size = PERF_ATTR_SIZE_VER0;
    size_t have = size < avail ? size : avail;
    perf__attr *at = pprof__vec_push(&r->a, &r->attrs, sizeof(perf__attr));
    if (!at)
        return perf__nomem(r);
    memset(at, 0, sizeof(*at));
    at->type = perf__u32(r, p);
    at->config = perf__u64(r, p + 8);
    at->sample_period = perf__u64(r, p + 16);
    at->sample_type = perf__u64(r, p + 24);
    at->read_format = perf__u64(r, p + 32);
    at->flags = attr_flags(r, p + 40);
    at->freq = (at->flags >> 10) & 1;
    at->sample_id_all = (at->flags >> 18) & 1;
    if (have >= 80)
        at->branch_sample_type = perf__u64(r, p + 72);
    if (have >= 88)
        at->regs_user = perf__u64(r, p + 80);
    at->slot = -1;
    at->off = off;
    perf__attr_name_default(at);
    uint32_t idx = (uint32_t)(r->attrs.len - 1);
    for (uint64_t i = 0; i < n_ids; i++) {
        uint32_t old;
        bool added;
        if (!pprof__u64map_put(&r->ids, &r->a, perf__u64(r, ids + 8 * i), idx, &old, &added))
            return perf__nomem(r);
    }
    return PPROF_OK;
}

/* Where the event id sits, from the first attr's sample_type (perf requires every attr of a
 * file to agree on it), and whether records can be replayed in time order. */
pprof_status
perf__attrs_done(perf__reader *r)
{
    if (!r->attrs.len)
        return PPROF_OK;
    const perf__attr *a0 = &PPROF__AT(r->attrs, perf__attr, 0);
    uint64_t t = a0->sample_type;
    r->id_pos = r->id_tail = -1;
    if (t & PERF_S_IDENTIFIER) {
        r->id_pos = 0;
        r->id_tail = 0;
    } else if (t & PERF_S_ID) {
        r->id_pos =
            !!(t & PERF_S_IP) + !!(t & PERF_S_TID) + !!(t & PERF_S_TIME) + !!(t & PERF_S_ADDR);
        r->id_tail = !!(t & PERF_S_CPU) + !!(t & PERF_S_STREAM_ID);
    }
    r->ordered = true;
    for (size_t i = 0; i < r->attrs.len; i++) {
        const perf__attr *at = &PPROF__AT(r->attrs, perf__attr, i);
        if (!at->sample_id_all || !(at->sample_type & PERF_S_TIME))
            r->ordered = false;
    }
    return PPROF_OK;
}

static pprof_status
feature_bad(perf__reader *r, const uint8_t *p, const char *what)
{
    return pprof__error(r->err, PPROF_E_INVALID, perf__off(r, p), "feature",
                        "malformed %s feature section", what);
}

/* A perf_header_string at p: u32 length, then that many bytes, NUL-padded. *used gets its
 * size. One that runs past len is a malformed what section (at sec); a failed copy is NOMEM. */
static pprof_status
header_string(perf__reader *r, const uint8_t *sec, const char *what, const uint8_t *p, size_t len,
              const char **out, size_t *used)
{
    *used = 0;
    *out = NULL;
    if (len < 4 || perf__u32(r, p) > len - 4)
        return feature_bad(r, sec, what);
    uint32_t n = perf__u32(r, p);
    *used = 4 + (size_t)n;
    *out = perf__strndup(r, p + 4, n);
    return *out ? PPROF_OK : perf__nomem(r);
}

static pprof_status
feature_cmdline(perf__reader *r, const uint8_t *p, size_t len)
{
    if (len < 4)
        return feature_bad(r, p, "cmdline");
    uint32_t nr = perf__u32(r, p);
    size_t pos = 4, total = 0;
    const char *parts[256];
    size_t n = 0;
    for (uint32_t i = 0; i < nr && n < 256; i++) {
        size_t used;
        const char *s;
        pprof_status st = header_string(r, p, "cmdline", p + pos, len - pos, &s, &used);
        if (st)
            return st;
        parts[n++] = s;
        total += strlen(s) + 1;
        pos += used;
    }
    char *c = pprof__arena_alloc(&r->arena, total + 1);
    if (!c)
        return perf__nomem(r);
    c[0] = 0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(parts[i]);
        if (i)
            c[at++] = ' ';
        memcpy(c + at, parts[i], l);
        at += l;
    }
    c[at] = 0;
    r->cmdline = c;
    return PPROF_OK;
}

/* Event names: u32 nr, u32 attr_size, then per event its attr, u32 nr_ids, a string and the
 * ids. A description names the attr that holds its first id, else the attr of its rank. */
static pprof_status
feature_event_desc(perf__reader *r, const uint8_t *p, size_t len)
{
    if (len < 8)
        return feature_bad(r, p, "event description");
    uint32_t nr = perf__u32(r, p), asz = perf__u32(r, p + 4);
    size_t pos = 8;
    for (uint32_t i = 0; i < nr; i++) {
        if (asz > len - pos || len - pos - asz < 4)
            return feature_bad(r, p, "event description");
        pos += asz;
        uint32_t n_ids = perf__u32(r, p + pos);
        pos += 4;
        size_t used;
        const char *name;
        pprof_status st =
            header_string(r, p, "event description", p + pos, len - pos, &name, &used);
        if (st)
            return st;
        pos += used;
        if (n_ids > (len - pos) / 8)
            return feature_bad(r, p, "event description");
        uint32_t idx = n_ids ? pprof__u64map_get(&r->ids, perf__u64(r, p + pos)) : i;
        pos += 8 * (size_t)n_ids;
        if (idx < r->attrs.len && name[0])
            snprintf(PPROF__AT(r->attrs, perf__attr, idx).name, sizeof(((perf__attr *)0)->name),
                     "%s", name);
    }
    return PPROF_OK;
}

/* Build ids: records of {header, pid, build_id[24], filename}. */
static pprof_status
feature_build_id(perf__reader *r, const uint8_t *p, size_t len)
{
    size_t pos = 0;
    while (len - pos >= 8) {
        uint16_t misc = perf__u16(r, p + pos + 4), size = perf__u16(r, p + pos + 6);
        if (size < 36 || size > len - pos)
            return feature_bad(r, p + pos, "build id");
        const uint8_t *e = p + pos;
        size_t n = 20;
        if ((misc & PERF_MISC_BUILD_ID_SIZE) && e[32] <= 20)
            n = e[32];
        char hex[41];
        for (size_t i = 0; i < n; i++)
            snprintf(hex + 2 * i, 3, "%02x", e[12 + i]);
        hex[2 * n] = 0;
        const char *name = perf__strndup(r, e + 36, size - 36u);
        const char *h = perf__strndup(r, (const uint8_t *)hex, sizeof(hex));
        if (!name || !h)
            return perf__nomem(r);
        pprof_status st = perf__add_buildid(r, name, h);
        if (st)
            return st;
        pos += size;
    }
    return PPROF_OK;
}

pprof_status
perf__feature(perf__reader *r, unsigned feat, const uint8_t *p, size_t len)
{
    size_t used;
    const char **dst = NULL;
    switch (feat) {
    case PERF_F_HOSTNAME: dst = &r->hostname; break;
    case PERF_F_OSRELEASE: dst = &r->osrelease; break;
    case PERF_F_VERSION: dst = &r->version; break;
    case PERF_F_CPUDESC: dst = &r->cpudesc; break;
    case PERF_F_CMDLINE: return feature_cmdline(r, p, len);
    case PERF_F_EVENT_DESC: return feature_event_desc(r, p, len);
    case PERF_F_BUILD_ID: return feature_build_id(r, p, len);
    case PERF_F_SAMPLE_TIME:
        if (len >= 16) {
            r->feat_first = perf__u64(r, p);
            r->feat_last = perf__u64(r, p + 8);
            r->have_feat_time = r->feat_last >= r->feat_first;
        }
        return PPROF_OK;
    case PERF_F_CLOCK_DATA:
        if (len >= 24) {
            r->clock_wall = perf__u64(r, p + 8);
            r->clock_ref = perf__u64(r, p + 16);
            r->have_clock = true;
        }
        return PPROF_OK;
    default: return PPROF_OK;
    }
    return header_string(r, p, "string", p, len, dst, &used);
}

typedef struct section {
    uint64_t off, size;
    const char *name;
} section;

static pprof_status
section_check(perf__reader *r, const section *s, uint64_t at)
{
    if (s->off > r->size || s->size > r->size - s->off)
        return pprof__error(r->err, PPROF_E_INVALID, at, s->name,
                            "%s section [%llu, +%llu) runs past the end of the file (%zu bytes)",
                            s->name, (unsigned long long)s->off, (unsigned long long)s->size,
                            r->size);
    return PPROF_OK;
}

static bool
overlap(const section *a, const section *b)
{
    return a->size && b->size && a->off < b->off + b->size && b->off < a->off + a->size;
}

static pprof_status
read_features(perf__reader *r, uint64_t data_end)
{
    uint64_t bits[4];
    for (int i = 0; i < 4; i++)
        bits[i] = perf__u64(r, r->base + 72 + 8 * i);
    uint64_t at = data_end;
    for (unsigned f = 0; f < 256; f++) {
        if (!((bits[f / 64] >> (f % 64)) & 1))
            continue;
        if (at > r->size || r->size - at < 16)
            return pprof__error(r->err, PPROF_E_INVALID, at, "feature",
                                "feature %u's section entry lies past the end of the file", f);
        section s = {perf__u64(r, r->base + at), perf__u64(r, r->base + at + 8), "feature"};
        pprof_status st = section_check(r, &s, at);
        if (!st)
            st = perf__feature(r, f, r->base + s.off, (size_t)s.size);
        if (st)
            return st;
        at += 16;
    }
    return PPROF_OK;
}

/* Reads the file header (either mode) and, in file mode, the attrs and features. Gives the
 * span of records to walk. */
pprof_status
perf__read_file_header(perf__reader *r, uint64_t *data_off, uint64_t *data_end)
{
    if (r->size < PERF_PIPE_HEADER_SIZE)
        return pprof__error(r->err, PPROF_E_INVALID, 0, "header",
                            "%zu bytes: too short for a perf.data header", r->size);
    uint64_t m;
    memcpy(&m, r->base, 8);
    uint64_t host_le = 1;
    bool host_big = *(uint8_t *)&host_le == 0;
    if (m == PERF_MAGIC2 || __builtin_bswap64(m) == PERF_MAGIC2) {
        bool file_le_bytes = memcmp(r->base, "PERFILE2", 8) == 0;
        r->big = !file_le_bytes;
        r->swap = r->big != host_big;
    } else {
        return pprof__error(r->err, PPROF_E_INVALID, 0, "header",
                            "not a perf.data file (magic is not PERFILE2)");
    }
    r->st->swapped = r->swap;
    uint64_t hsize = perf__u64(r, r->base + 8);
    if (hsize == PERF_PIPE_HEADER_SIZE) {
        r->pipe = true;
        r->may_cut = true;
        r->st->pipe_mode = true;
        *data_off = PERF_PIPE_HEADER_SIZE;
        *data_end = r->size;
        return PPROF_OK;
    }
    if (hsize < PERF_FILE_HEADER_SIZE || r->size < PERF_FILE_HEADER_SIZE)
        return pprof__error(r->err, PPROF_E_INVALID, 8, "header",
                            "header size %llu: neither a file (>= 104) nor a pipe (16) header",
                            (unsigned long long)hsize);
    uint64_t attr_size = perf__u64(r, r->base + 16);
    section hdr = {0, hsize, "header"};
    section attrs = {perf__u64(r, r->base + 24), perf__u64(r, r->base + 32), "attrs"};
    section data = {perf__u64(r, r->base + 40), perf__u64(r, r->base + 48), "data"};
    pprof_status st;
    if ((st = section_check(r, &hdr, 8)) || (st = section_check(r, &attrs, 24)))
        return st;
    if (data.off > r->size)
        return section_check(r, &data, 40);
    if (data.size > r->size - data.off) {
        /* perf killed before it rewrote the header, or a cut file: read what is there */
        r->st->truncated_bytes += data.size - (r->size - data.off);
        data.size = r->size - data.off;
        r->may_cut = true;
    }
    if (overlap(&hdr, &attrs) || overlap(&hdr, &data) || overlap(&attrs, &data))
        return pprof__error(r->err, PPROF_E_INVALID, 24, "header",
                            "header sections overlap: header [0, +%llu), attrs [%llu, +%llu), "
                            "data [%llu, +%llu)",
                            (unsigned long long)hsize, (unsigned long long)attrs.off,
                            (unsigned long long)attrs.size, (unsigned long long)data.off,
                            (unsigned long long)data.size);
    if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > (1u << 16))
        return pprof__error(r->err, PPROF_E_INVALID, 16, "header",
                            "attr entry size %llu (expected 80 to 65536 bytes)",
                            (unsigned long long)attr_size);
    if (attrs.size % attr_size)
        return pprof__error(r->err, PPROF_E_INVALID, 32, "attrs",
                            "attrs section of %llu bytes is not a multiple of the entry size %llu",
                            (unsigned long long)attrs.size, (unsigned long long)attr_size);
    for (uint64_t o = attrs.off; o < attrs.off + attrs.size; o += attr_size) {
        const uint8_t *e = r->base + o;
        section ids = {perf__u64(r, e + attr_size - 16), perf__u64(r, e + attr_size - 8), "ids"};
        if ((st = section_check(r, &ids, o + attr_size - 16)))
            return st;
        if ((st = perf__attr_add(r, e, (size_t)attr_size - 16, r->base + ids.off, ids.size / 8)))
            return st;
    }
    if ((st = read_features(r, data.off + data.size)) || (st = perf__attrs_done(r)))
        return st;
    *data_off = data.off;
    *data_end = data.off + data.size;
    return PPROF_OK;
}
