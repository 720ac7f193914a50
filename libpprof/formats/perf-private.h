/* The perf.data reader's shared state (perf-header.c, perf-records.c, perf-maps.c,
 * perf-profile.c, perf-script.c). Not installed. Layouts are those of the kernel's
 * include/uapi/linux/perf_event.h and tools/perf/Documentation/perf.data-file-format.txt. */
#ifndef PPROF_PERF_PRIVATE_H
#define PPROF_PERF_PRIVATE_H

#include "pprof/builder.h"
#include "pprof/perf.h"
#include "profile-private.h"

/* sample_type bits */
#define PERF_S_IP (1u << 0)
#define PERF_S_TID (1u << 1)
#define PERF_S_TIME (1u << 2)
#define PERF_S_ADDR (1u << 3)
#define PERF_S_READ (1u << 4)
#define PERF_S_CALLCHAIN (1u << 5)
#define PERF_S_ID (1u << 6)
#define PERF_S_CPU (1u << 7)
#define PERF_S_PERIOD (1u << 8)
#define PERF_S_STREAM_ID (1u << 9)
#define PERF_S_RAW (1u << 10)
#define PERF_S_BRANCH_STACK (1u << 11)
#define PERF_S_REGS_USER (1u << 12)
#define PERF_S_STACK_USER (1u << 13)
#define PERF_S_IDENTIFIER (1u << 16)
#define PERF_S_AUX (1u << 20)

/* read_format bits */
#define PERF_RF_ENABLED 1u
#define PERF_RF_RUNNING 2u
#define PERF_RF_ID 4u
#define PERF_RF_GROUP 8u
#define PERF_RF_LOST 16u

#define PERF_BRANCH_HW_INDEX (UINT64_C(1) << 17)

/* record types */
enum {
    PERF_R_MMAP = 1,
    PERF_R_LOST = 2,
    PERF_R_COMM = 3,
    PERF_R_EXIT = 4,
    PERF_R_FORK = 7,
    PERF_R_SAMPLE = 9,
    PERF_R_MMAP2 = 10,
    PERF_R_AUX = 11,
    PERF_R_ITRACE_START = 12,
    PERF_R_LOST_SAMPLES = 13,
    PERF_R_KERNEL_LAST = 21, /* AUX_OUTPUT_HW_ID, the last the kernel defines as of 6.1 */
    PERF_R_HEADER_ATTR = 64,
    PERF_R_HEADER_TRACING_DATA = 66,
    PERF_R_HEADER_BUILD_ID = 67,
    PERF_R_FINISHED_ROUND = 68,
    PERF_R_AUXTRACE_INFO = 70,
    PERF_R_AUXTRACE = 71,
    PERF_R_AUXTRACE_ERROR = 72,
    PERF_R_EVENT_UPDATE = 78,
    PERF_R_HEADER_FEATURE = 80,
    PERF_R_COMPRESSED = 81,
    PERF_R_FINISHED_INIT = 82,
    PERF_R_COMPRESSED2 = 83,
    PERF_R_USER_LAST = 83,
};

/* header features */
enum {
    PERF_F_BUILD_ID = 2,
    PERF_F_HOSTNAME = 3,
    PERF_F_OSRELEASE = 4,
    PERF_F_VERSION = 5,
    PERF_F_CPUDESC = 8,
    PERF_F_CMDLINE = 11,
    PERF_F_EVENT_DESC = 12,
    PERF_F_SAMPLE_TIME = 21,
    PERF_F_CLOCK_DATA = 29,
};

#define PERF_MISC_CPUMODE_MASK 7u
#define PERF_MISC_KERNEL 1u
#define PERF_MISC_USER 2u
#define PERF_MISC_COMM_EXEC (1u << 13)
#define PERF_MISC_MMAP_BUILD_ID (1u << 14)
#define PERF_MISC_BUILD_ID_SIZE (1u << 15)

/* callchain context markers: the top 4095 values of a u64 */
#define PERF_CTX_HV ((uint64_t)-32)
#define PERF_CTX_KERNEL ((uint64_t)-128)
#define PERF_CTX_USER ((uint64_t)-512)
#define PERF_CTX_GUEST ((uint64_t)-2048)
#define PERF_CTX_GUEST_KERNEL ((uint64_t)-2176)
#define PERF_CTX_GUEST_USER ((uint64_t)-2560)
#define PERF_CTX_MAX ((uint64_t)-4095)

#define PERF_ATTR_SIZE_VER0 64u
#define PERF_KERNEL_PID UINT64_C(0xffffffff)

typedef struct perf__attr {
    uint32_t type;
    uint64_t config, sample_period, sample_type, read_format, flags, branch_sample_type;
    uint64_t regs_user;
    bool freq, sample_id_all;
    char name[96];
    int slot;     /* index of its value in the profile's samples, -1 = left out */
    uint64_t off; /* where the attr is in the input */
} perf__attr;

typedef struct perf__map {
    uint64_t start, end, pgoff;
    const char *name;     /* in the reader's arena */
    const char *build_id; /* hex, in the arena; NULL = none in the record */
    pprof_builder_map bm; /* issued on first use */
    bool has_bm;
} perf__map;

typedef struct perf__proc {
    pprof__vec maps; /* perf__map sorted by start, disjoint */
} perf__proc;

typedef struct perf__sym {
    uint64_t addr;
    const char *name; /* borrowed from options.kallsyms, len below */
    uint32_t len;
    pprof_builder_fn fn; /* issued on first use */
    bool has_fn;
} perf__sym;

typedef struct perf__buildid {
    const char *name;
    const char *hex;
} perf__buildid;

typedef struct perf__comm {
    const char *s;
    pprof_builder_str bs;
    bool has_bs;
} perf__comm;

typedef struct perf__queued {
    uint64_t time;
    uint64_t off;
} perf__queued;

typedef struct perf__sample {
    uint64_t ip, time, id, period, nr;
    uint32_t pid, tid, cpu;
    const uint8_t *chain; /* nr u64s in the file's byte order */
} perf__sample;

/* A frame already resolved: (pid, ip, mode) under one generation of the mappings. */
typedef struct perf__fcache {
    uint64_t ip;
    uint32_t pid;
    uint32_t tag; /* (maps_gen << 3 | mode) + 1; 0 = empty */
    pprof_builder_loc loc;
    uint8_t kind; /* 0 mapped, 1 unmapped, 2 guest: for the counts */
} perf__fcache;

#define PERF_FCACHE_BITS 16

typedef struct perf__reader {
    pprof_allocator a;
    pprof_perf_options o;
    pprof_perf_stats *st;
    pprof_error *err;
    const uint8_t *base;
    size_t size;
    bool big, swap, pipe;
    bool may_cut; /* the data runs to the end of the input (pipe mode, or a data section past
                   * the end of the file): a last record cut short is a truncated file */
    void (*release)(void *ctx, uint64_t upto); /* pages before upto are done with */
    void *release_ctx;

    pprof__vec attrs; /* perf__attr */
    pprof__u64map ids;
    int id_pos;   /* u64 index of the event id in a SAMPLE, -1 = none */
    int id_tail;  /* its index from the end of a sample_id trailer, -1 = none */
    bool ordered; /* every attr gives a time to every record: replay rounds sorted */
    size_t attr_size_file;

    pprof__arena arena;
    const char *hostname, *osrelease, *version, *cpudesc, *cmdline;
    uint64_t first_time, last_time, feat_first, feat_last;
    bool have_time, have_feat_time, have_clock;
    uint64_t clock_wall, clock_ref;

    pprof__vec buildids; /* perf__buildid */
    pprof__htab buildid_idx;
    pprof__vec procs; /* perf__proc */
    pprof__u64map pid_idx;
    pprof__vec comms; /* perf__comm */
    pprof__u64map tid_comm;
    pprof__vec syms; /* perf__sym sorted */

    pprof__vec queue;         /* perf__queued of this round and the late ones of the last */
    uint64_t round_limit;     /* records up to this time are complete */
    uint64_t max_queued_time; /* the latest time queued so far */
    uint32_t maps_gen;        /* changes with every mapping change: invalidates fcache */
    perf__fcache *fcache;

    pprof_builder *b;
    size_t n_values;
    int64_t *values;
    pprof__vec stack; /* pprof_builder_loc */
    pprof_builder_str k_pid, k_tid, k_comm, k_cpu, k_time, k_ns;
} perf__reader;

static inline uint16_t
perf__u16(const perf__reader *r, const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return r->swap ? __builtin_bswap16(v) : v;
}
static inline uint32_t
perf__u32(const perf__reader *r, const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return r->swap ? __builtin_bswap32(v) : v;
}
static inline uint64_t
perf__u64(const perf__reader *r, const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return r->swap ? __builtin_bswap64(v) : v;
}
static inline uint64_t
perf__off(const perf__reader *r, const uint8_t *p)
{
    return (uint64_t)(p - r->base);
}

pprof_status perf__nomem(perf__reader *r);
/* A copy of at most max bytes of s, up to its first NUL, in the arena. */
const char *perf__strndup(perf__reader *r, const uint8_t *s, size_t max);

/* perf-header.c */
pprof_status perf__read_file_header(perf__reader *r, uint64_t *data_off, uint64_t *data_end);
pprof_status perf__attr_add(perf__reader *r, const uint8_t *p, size_t avail, const uint8_t *ids,
                            uint64_t n_ids);
pprof_status perf__feature(perf__reader *r, unsigned feat, const uint8_t *p, size_t len);
pprof_status perf__attrs_done(perf__reader *r);
void perf__attr_name_default(perf__attr *at);

/* perf-records.c */
pprof_status perf__walk(perf__reader *r, uint64_t off, uint64_t end);

/* perf-maps.c */
pprof_status perf__mmap(perf__reader *r, uint64_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
                        const char *name, const char *build_id);
pprof_status perf__exec(perf__reader *r, uint64_t pid);
pprof_status perf__fork(perf__reader *r, uint64_t pid, uint64_t ppid);
void perf__exit(perf__reader *r, uint64_t pid);
perf__map *perf__find_map(perf__reader *r, uint64_t pid, uint64_t addr);
pprof_status perf__set_comm(perf__reader *r, uint64_t tid, const char *comm);
perf__comm *perf__get_comm(perf__reader *r, uint64_t tid);
pprof_status perf__add_buildid(perf__reader *r, const char *name, const char *hex);
const char *perf__find_buildid(perf__reader *r, const char *name);
pprof_status perf__load_kallsyms(perf__reader *r);
perf__sym *perf__find_sym(perf__reader *r, uint64_t addr);
void perf__maps_free(perf__reader *r);

/* perf-profile.c */
#define PERF_TIME_LABEL "timestamp_unix_nano"
/* A perf clock time as the label's value: wall-clock nanoseconds through the clock data when
 * the recording has it, else the perf clock itself. */
int64_t perf__wall_time(const perf__reader *r, uint64_t t);
/* Creates the builder and gives each attr its value slot: before the first sample. */
pprof_status perf__ensure_setup(perf__reader *r);
pprof_status perf__emit_sample(perf__reader *r, perf__attr *at, const perf__sample *s,
                               unsigned cpumode);

/* Where a conversion goes: a profile read back from the builder's bytes, or the builder's
 * bytes written straight to a file (what the tool does: no second encode). */
typedef struct perf__sink {
    pprof_profile **out;
    const char *path;
    const pprof_write_options *w;
} perf__sink;
pprof_status perf__deliver(pprof_builder *b, const perf__sink *k, const pprof_allocator *a,
                           pprof_error *err);

/* perf-script.c */
bool perf__looks_like_script(const uint8_t *p, size_t n);
pprof_status perf__read_script(const void *data, size_t size, const pprof_perf_options *o,
                               const perf__sink *k, pprof_perf_stats *st, pprof_error *err);

#endif
