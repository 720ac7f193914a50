/* perf.data's records: walked in file order, queued per round and replayed in time order (as
 * perf report's ordered events), each kernel record decoded by its attr's sample_type. */
#include <stdio.h>
#include <stdlib.h>

#include "perf-private.h"

/* An invalid record: the message names the two figures, the error the record's offset. */
#define bad(r, rec, fmt, a, b)                                                                     \
    pprof__error((r)->err, PPROF_E_INVALID, perf__off((r), (rec)), "record", fmt,                  \
                 (unsigned long long)(a), (unsigned long long)(b))

/* The attr of a record: the only one, or the one whose id the record carries. */
static perf__attr *
record_attr(perf__reader *r, const uint8_t *rec, size_t size, uint32_t type)
{
    if (r->attrs.len == 1)
        return &PPROF__AT(r->attrs, perf__attr, 0);
    uint64_t id;
    if (type == PERF_R_SAMPLE) {
        if (r->id_pos < 0 || 8 + 8 * (size_t)(r->id_pos + 1) > size)
            return NULL;
        id = perf__u64(r, rec + 8 + 8 * r->id_pos);
    } else {
        if (r->id_tail < 0 || 8 + 8 * (size_t)(r->id_tail + 1) > size)
            return NULL;
        id = perf__u64(r, rec + size - 8 * (size_t)(r->id_tail + 1));
    }
    uint32_t i = pprof__u64map_get(&r->ids, id);
    return i < r->attrs.len ? &PPROF__AT(r->attrs, perf__attr, i) : NULL;
}

/* The time of a kernel record, for ordering; false when it has none. */
static bool
record_time(perf__reader *r, const uint8_t *rec, size_t size, uint32_t type, uint64_t *time)
{
    perf__attr *at = record_attr(r, rec, size, type);
    if (!at || !(at->sample_type & PERF_S_TIME))
        return false;
    uint64_t t = at->sample_type;
    size_t pos;
    if (type == PERF_R_SAMPLE) {
        pos = 8 + 8 * (size_t)(!!(t & PERF_S_IDENTIFIER) + !!(t & PERF_S_IP) + !!(t & PERF_S_TID));
    } else {
        size_t tail = 1 + !!(t & PERF_S_IDENTIFIER) + !!(t & PERF_S_CPU) +
                      !!(t & PERF_S_STREAM_ID) + !!(t & PERF_S_ID);
        if (8 * tail + 8 > size)
            return false;
        pos = size - 8 * tail;
    }
    if (pos + 8 > size)
        return false;
    *time = perf__u64(r, rec + pos);
    return true;
}

/* Decodes a SAMPLE up to its callchain, counting what follows that this reader leaves out. */
static pprof_status
parse_sample(perf__reader *r, const perf__attr *at, const uint8_t *rec, size_t size,
             perf__sample *s)
{
    const uint8_t *p = rec + 8, *end = rec + size;
    uint64_t t = at->sample_type;
    memset(s, 0, sizeof(*s));
    s->period = at->freq ? 1 : (at->sample_period ? at->sample_period : 1);
#define NEED(n)                                                                                    \
    do {                                                                                           \
        if ((uint64_t)(end - p) < (uint64_t)(n))                                                   \
            return bad(r, rec,                                                                     \
                       "sample of %llu bytes is shorter than its fields (sample_type 0x%llx)",     \
                       size, t);                                                                   \
    } while (0)
    if (t & PERF_S_IDENTIFIER) {
        NEED(8);
        p += 8;
    }
    if (t & PERF_S_IP) {
        NEED(8);
        s->ip = perf__u64(r, p);
        p += 8;
    }
    if (t & PERF_S_TID) {
        NEED(8);
        s->pid = perf__u32(r, p);
        s->tid = perf__u32(r, p + 4);
        p += 8;
    }
    if (t & PERF_S_TIME) {
        NEED(8);
        s->time = perf__u64(r, p);
        p += 8;
    }
    if (t & PERF_S_ADDR) {
        NEED(8);
        p += 8;
    }
    if (t & PERF_S_ID) {
        NEED(8);
        s->id = perf__u64(r, p);
        p += 8;
    }
    if (t & PERF_S_STREAM_ID) {
        NEED(8);
        p += 8;
    }
    if (t & PERF_S_CPU) {
        NEED(8);
        s->cpu = perf__u32(r, p);
        p += 8;
    }
    if (t & PERF_S_PERIOD) {
        NEED(8);
        s->period = perf__u64(r, p);
        p += 8;
    }
    if (t & PERF_S_READ) {
        uint64_t rf = at->read_format;
        uint64_t per = 8 * (uint64_t)(1 + !!(rf & PERF_RF_ID) + !!(rf & PERF_RF_LOST));
        uint64_t head = 8 * (uint64_t)(!!(rf & PERF_RF_ENABLED) + !!(rf & PERF_RF_RUNNING));
        if (rf & PERF_RF_GROUP) {
            NEED(8);
            uint64_t nr = perf__u64(r, p);
            p += 8;
            NEED(head);
            p += head;
            if (nr > (uint64_t)(end - p) / per)
                return bad(r, rec, "read group of %llu values runs past its sample (%llu bytes)",
                           nr, size);
            p += nr * per;
        } else {
            NEED(head + per);
            p += head + per;
        }
    }
    if (t & PERF_S_CALLCHAIN) {
        NEED(8);
        s->nr = perf__u64(r, p);
        p += 8;
        if (s->nr > (uint64_t)(end - p) / 8)
            return bad(r, rec, "callchain of %llu entries runs past its sample (%llu bytes)", s->nr,
                       size);
        s->chain = p;
        p += 8 * s->nr;
    }
    if (t & PERF_S_RAW) {
        NEED(4);
        uint32_t n = perf__u32(r, p);
        p += 4;
        NEED(n);
        p += n;
        if (n)
            r->st->raw_payloads++;
    }
    if (t & PERF_S_BRANCH_STACK) {
        NEED(8);
        uint64_t nr = perf__u64(r, p);
        p += 8;
        if (at->branch_sample_type & PERF_BRANCH_HW_INDEX) {
            NEED(8);
            p += 8;
        }
        if (nr > (uint64_t)(end - p) / 24)
            return bad(r, rec, "branch stack of %llu entries runs past its sample (%llu bytes)", nr,
                       size);
        p += 24 * nr;
        if (nr)
            r->st->branch_stacks++;
    }
    bool dwarf = false;
    if (t & PERF_S_REGS_USER) {
        NEED(8);
        uint64_t abi = perf__u64(r, p);
        p += 8;
        if (abi) {
            uint64_t n = 8 * (uint64_t)__builtin_popcountll(at->regs_user);
            NEED(n);
            p += n;
            dwarf = true;
        }
    }
    if (t & PERF_S_STACK_USER) {
        NEED(8);
        uint64_t n = perf__u64(r, p);
        p += 8;
        if (n) {
            NEED(n);
            p += n;
            dwarf = true;
        }
    }
    if (dwarf)
        r->st->dwarf_stacks++;
    if (t & PERF_S_AUX)
        r->st->aux_records++;
#undef NEED
    return PPROF_OK;
}

static pprof_status
do_sample(perf__reader *r, const uint8_t *rec, size_t size, uint16_t misc)
{
    r->st->samples++;
    perf__attr *at = record_attr(r, rec, size, PERF_R_SAMPLE);
    if (!at) {
        r->st->samples_unknown_id++;
        return PPROF_OK;
    }
    perf__sample s;
    pprof_status st = perf__ensure_setup(r);
    if (!st)
        st = parse_sample(r, at, rec, size, &s);
    if (st)
        return st;
    if (at->slot < 0) {
        r->st->samples_other_event++;
        return PPROF_OK;
    }
    if (!(at->sample_type & (PERF_S_IP | PERF_S_CALLCHAIN)))
        return pprof__error(r->err, PPROF_E_INVALID, perf__off(r, rec), "attr",
                            "sample of attr %zu (at byte %llu, sample_type 0x%llx) holds neither "
                            "an address (IP) nor a callchain: it has no stack to convert",
                            (size_t)(at - (perf__attr *)r->attrs.data), (unsigned long long)at->off,
                            (unsigned long long)at->sample_type);
    return perf__emit_sample(r, at, &s, misc & PERF_MISC_CPUMODE_MASK);
}

/* A NUL-terminated string inside the record from byte from; NULL when it has no room. */
static const char *
record_string(perf__reader *r, const uint8_t *rec, size_t size, size_t from)
{
    if (from >= size)
        return NULL;
    return perf__strndup(r, rec + from, size - from);
}

static pprof_status
do_mmap(perf__reader *r, const uint8_t *rec, size_t size, uint32_t type, uint16_t misc)
{
    size_t name_at = type == PERF_R_MMAP ? 40 : 72;
    uint64_t pid = perf__u32(r, rec + 8);
    if ((misc & PERF_MISC_CPUMODE_MASK) == PERF_MISC_KERNEL)
        pid = PERF_KERNEL_PID;
    const char *name = record_string(r, rec, size, name_at);
    if (!name)
        return perf__nomem(r);
    const char *hex = NULL;
    if (type == PERF_R_MMAP2 && (misc & PERF_MISC_MMAP_BUILD_ID)) {
        size_t n = rec[40] <= 20 ? rec[40] : 20;
        char h[41];
        for (size_t i = 0; i < n; i++)
            snprintf(h + 2 * i, 3, "%02x", rec[44 + i]);
        h[2 * n] = 0;
        if (n && !(hex = perf__strndup(r, (const uint8_t *)h, sizeof(h))))
            return perf__nomem(r);
    }
    return perf__mmap(r, pid, perf__u64(r, rec + 16), perf__u64(r, rec + 24),
                      perf__u64(r, rec + 32), name, hex);
}

static pprof_status
do_kernel_record(perf__reader *r, const uint8_t *rec)
{
    uint32_t type = perf__u32(r, rec);
    uint16_t misc = perf__u16(r, rec + 4), size = perf__u16(r, rec + 6);
    switch (type) {
    case PERF_R_SAMPLE: return do_sample(r, rec, size, misc);
    case PERF_R_MMAP:
    case PERF_R_MMAP2: return do_mmap(r, rec, size, type, misc);
    case PERF_R_COMM: {
        const char *c = record_string(r, rec, size, 16);
        if (!c)
            return perf__nomem(r);
        pprof_status st = PPROF_OK;
        if (misc & PERF_MISC_COMM_EXEC)
            st = perf__exec(r, perf__u32(r, rec + 8));
        return st ? st : perf__set_comm(r, perf__u32(r, rec + 12), c);
    }
    case PERF_R_FORK:
    case PERF_R_EXIT: {
        uint32_t pid = perf__u32(r, rec + 8), ppid = perf__u32(r, rec + 12);
        uint32_t tid = perf__u32(r, rec + 16), ptid = perf__u32(r, rec + 20);
        if (type == PERF_R_EXIT) {
            if (pid == tid)
                perf__exit(r, pid);
            return PPROF_OK;
        }
        perf__comm *pc = perf__get_comm(r, ptid);
        pprof_status st = pc ? perf__set_comm(r, tid, pc->s) : PPROF_OK;
        if (!st && pid != ppid)
            st = perf__fork(r, pid, ppid);
        return st;
    }
    case PERF_R_LOST: r->st->lost += perf__u64(r, rec + 16); return PPROF_OK;
    case PERF_R_LOST_SAMPLES: r->st->lost += perf__u64(r, rec + 8); return PPROF_OK;
    case PERF_R_AUX:
    case PERF_R_ITRACE_START: r->st->aux_records++; return PPROF_OK;
    default:
        if (type > PERF_R_KERNEL_LAST)
            r->st->unknown_records++;
        return PPROF_OK;
    }
}

static int
cmp_queued(const void *a, const void *b)
{
    const perf__queued *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Replays the queued records whose time is at most limit, in time order, and keeps the rest
 * for the next round. perf's rule for FINISHED_ROUND: the records before it are complete up
 * to the latest time of the round before, but a later round may still bring earlier records
 * than the last ones of this one. */
static pprof_status
flush_upto(perf__reader *r, uint64_t limit, uint64_t done_upto)
{
    perf__queued *q = r->queue.data;
    size_t n = r->queue.len, i = 0;
    if (n > 1) /* an empty queue has no array at all: qsort's NULL is undefined */
        qsort(q, n, sizeof(*q), cmp_queued);
    for (; i < n && q[i].time <= limit; i++) {
        pprof_status st = do_kernel_record(r, r->base + q[i].off);
        if (st)
            return st;
    }
    uint64_t keep_from = done_upto;
    for (size_t k = i; k < n; k++)
        if (q[k].off < keep_from)
            keep_from = q[k].off;
    if (i && i < n)
        memmove(q, q + i, (n - i) * sizeof(*q));
    r->queue.len = n - i;
    if (r->release)
        r->release(r->release_ctx, keep_from);
    return PPROF_OK;
}

static pprof_status
flush(perf__reader *r, uint64_t done_upto)
{
    return flush_upto(r, UINT64_MAX, done_upto);
}

/* Records that only a user-space perf writes: attrs and features of pipe mode, build ids. */
static pprof_status
do_user_record(perf__reader *r, const uint8_t *rec, size_t size, uint32_t type, uint64_t *skip)
{
    switch (type) {
    case PERF_R_HEADER_ATTR: {
        uint32_t asz = perf__u32(r, rec + 12);
        if (asz == 0)
            asz = PERF_ATTR_SIZE_VER0;
        if (asz > size - 8)
            return bad(r, rec, "attr of %llu bytes runs past its record of %llu", asz, size);
        size_t rest = size - 8 - asz;
        pprof_status st = perf__attr_add(r, rec + 8, asz, rec + 8 + asz, rest / 8);
        return st ? st : perf__attrs_done(r);
    }
    case PERF_R_HEADER_FEATURE:
        return perf__feature(r, (unsigned)perf__u64(r, rec + 8), rec + 16, size - 16);
    case PERF_R_EVENT_UPDATE:
        /* type 2 (NAME): u64 type, u64 id, then the name */
        if (size > 24 && perf__u64(r, rec + 8) == 2) { /* 24 bytes: the walk's minimum */
            uint32_t i = pprof__u64map_get(&r->ids, perf__u64(r, rec + 16));
            if (i < r->attrs.len) {
                perf__attr *at = &PPROF__AT(r->attrs, perf__attr, i);
                size_t n = size - 24 < sizeof(at->name) - 1 ? size - 24 : sizeof(at->name) - 1;
                memcpy(at->name, rec + 24, n);
                at->name[n] = 0;
            }
        }
        return PPROF_OK;
    case PERF_R_HEADER_BUILD_ID: {
        /* same layout as the build id feature's entries */
        return perf__feature(r, PERF_F_BUILD_ID, rec, size);
    }
    case PERF_R_HEADER_TRACING_DATA:
        /* the tracing data follows the record, padded to 8 bytes */
        *skip = (perf__u32(r, rec + 8) + UINT64_C(7)) & ~UINT64_C(7);
        return PPROF_OK;
    case PERF_R_AUXTRACE:
        *skip = perf__u64(r, rec + 8);
        r->st->aux_records++;
        return PPROF_OK;
    case PERF_R_AUXTRACE_INFO:
    case PERF_R_AUXTRACE_ERROR: r->st->aux_records++; return PPROF_OK;
    case PERF_R_COMPRESSED:
    case PERF_R_COMPRESSED2: r->st->compressed_records++; return PPROF_OK;
    default:
        if (type > PERF_R_USER_LAST)
            r->st->unknown_records++;
        return PPROF_OK;
    }
}

/* The least size of a record of a type this reader decodes: its fixed fields (a SAMPLE's
 * come from its attr, and are checked there). Other types are only counted. */
static uint16_t
min_size(uint32_t type)
{
    switch (type) {
    case PERF_R_MMAP: return 41; /* pid, tid, addr, len, pgoff, a name of at least its NUL */
    case PERF_R_MMAP2: return 73;
    case PERF_R_COMM: return 17;
    case PERF_R_FORK:
    case PERF_R_EXIT: return 24;
    case PERF_R_LOST: return 24;
    case PERF_R_LOST_SAMPLES: return 16;
    case PERF_R_HEADER_ATTR: return 8 + PERF_ATTR_SIZE_VER0;
    case PERF_R_HEADER_TRACING_DATA: return 12;
    case PERF_R_HEADER_BUILD_ID: return 36;
    case PERF_R_AUXTRACE: return 16;
    case PERF_R_EVENT_UPDATE: return 24;
    case PERF_R_HEADER_FEATURE: return 16;
    default: return 8;
    }
}

/* The end of the records [at, end) does not hold the record that starts there: a truncated
 * file when the data may run to the end of the input, else a broken record stream (a size
 * field that does not tile the data section). */
static pprof_status
cut_short(perf__reader *r, const char *what, uint64_t at, uint64_t end, uint64_t need)
{
    if (r->may_cut) {
        r->st->truncated_bytes += end - at;
        return PPROF_OK;
    }
    return pprof__error(r->err, PPROF_E_INVALID, at, "record",
                        "the %s at byte %llu needs %llu bytes but the data section ends "
                        "%llu bytes after it, at byte %llu: a size field before it is wrong",
                        what, (unsigned long long)at, (unsigned long long)need,
                        (unsigned long long)(end - at), (unsigned long long)end);
}

/* Walks [off, end): bad sizes are errors naming the offset; a record cut by the end of the
 * input is counted in truncated_bytes and ends the walk (see cut_short). */
pprof_status
perf__walk(perf__reader *r, uint64_t off, uint64_t end)
{
    pprof_status st;
    while (off < end) {
        const uint8_t *rec = r->base + off;
        if (end - off < 8) {
            if ((st = cut_short(r, "record", off, end, 8)))
                return st;
            break;
        }
        uint32_t type = perf__u32(r, rec);
        uint16_t size = perf__u16(r, rec + 6);
        if (size < 8)
            return bad(r, rec, "record of size %llu (type %llu) is shorter than its 8-byte header",
                       size, type);
        if (size < min_size(type))
            return pprof__error(r->err, PPROF_E_INVALID, off, "record",
                                "record of type %u at byte %llu has size %u, less than the %u "
                                "bytes of its type's fields",
                                type, (unsigned long long)off, size, min_size(type));
        if (size > end - off) {
            if ((st = cut_short(r, "record", off, end, size)))
                return st;
            break;
        }
        r->st->records++;
        uint64_t skip = 0;
        if (type >= 64) {
            if (type == PERF_R_FINISHED_ROUND) {
                if ((st = flush_upto(r, r->round_limit, off)))
                    return st;
                r->round_limit = r->max_queued_time;
            } else if ((st = do_user_record(r, rec, size, type, &skip))) {
                return st;
            }
        } else {
            uint64_t t = 0;
            if (r->ordered && record_time(r, rec, size, type, &t)) {
                if (r->queue.len >= r->o.max_round_records) {
                    r->st->rounds_split++;
                    if ((st = flush(r, off)))
                        return st;
                }
                perf__queued *q = pprof__vec_push(&r->a, &r->queue, sizeof(*q));
                if (!q)
                    return perf__nomem(r);
                q->time = t;
                q->off = off;
                if (t > r->max_queued_time)
                    r->max_queued_time = t;
            } else {
                /* untimed: everything queued before it happened before it */
                if ((st = flush(r, off)) || (st = do_kernel_record(r, rec)))
                    return st;
            }
        }
        off += size;
        if (skip > end - off) {
            if ((st = cut_short(r, "payload after a record", off, end, skip)))
                return st;
            off = end;
            break;
        }
        off += skip;
    }
    return flush(r, off);
}
