/* [libpprof-formats] libpprof jfr: Java Flight Recorder recordings read into a pprof profile.
 *
 * A recording is one or more chunks, each with a header (magic "FLR\0", version 2.0 or 2.1),
 * a metadata event describing every type, checkpoint events holding the constant pools
 * (classes, methods, symbols, packages, threads, stack traces, frame types) and the events
 * themselves, integers compressed as the header's features say. Recordings of the JDK
 * (-XX:StartFlightRecording, jcmd JFR.start) and of async-profiler are read alike.
 *
 * The profile (docs/jfr.md): sample types by event, only those the recording holds,
 *   jdk.ExecutionSample                  samples/count, cpu/nanoseconds (the sampling period
 *                                        of the recording's jdk.ActiveSetting events)
 *   jdk.NativeMethodSample               native/count
 *   jdk.ObjectAllocationSample (weight), alloc_objects/count, alloc_space/bytes, with the
 *   jdk.ObjectAllocationInNewTLAB,       label "class" (the TLAB events count only in a
 *   jdk.ObjectAllocationOutsideTLAB      recording without jdk.ObjectAllocationSample)
 *   jdk.JavaMonitorEnter, jdk.ThreadPark contentions/count, delay/nanoseconds
 * Frames are "java.util.HashMap.get" with their line; an inlined frame is an inline line of
 * the location of the frame it was inlined into; the frame type (Interpreted, JIT compiled,
 * Inlined, Native...) is the location's mapping, named "[JIT compiled]" and so on; a stack the
 * recorder cut is rooted at a frame "truncated". Every sample has the labels "thread" (the Java
 * thread name) and "thread_id" (numeric).
 *
 * Thread rule: the library's (see pprof.h); calls share nothing.
 */
#ifndef PPROF_JFR_H
#define PPROF_JFR_H

#include "pprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a read met; filled when pprof_jfr_read_options.stats is set. */
typedef struct pprof_jfr_stats {
    size_t struct_size; /* sizeof(pprof_jfr_stats), set by the caller */
    uint64_t chunks;
    uint64_t events;      /* events read (all types) */
    uint64_t events_kept; /* events that became samples */
    /* kept with an empty stack: no stack trace, or one in no constant pool */
    uint64_t events_no_stack;
    bool truncated; /* the recording ends inside a chunk (allow_truncated) */
    uint16_t version_major, version_minor;
} pprof_jfr_stats;

#define PPROF_JFR_STATS_INIT                                                                       \
    {                                                                                              \
        sizeof(pprof_jfr_stats), 0, 0, 0, 0, false, 0, 0                                           \
    }

typedef struct pprof_jfr_read_options {
    size_t struct_size; /* sizeof(pprof_jfr_read_options) */
    /* Only this event: a JFR name ("jdk.ExecutionSample") or "cpu", "native", "alloc"
     * (the three allocation events), "lock" (monitor enter and park); NULL = every event the
     * profile takes. An unknown name is PPROF_E_ARG. */
    const char *event;
    /* Add the numeric label "timestamp_unix_nano" (unit "nanoseconds"): the event's start,
     * its ticks mapped to wall time through its chunk's header. */
    bool timestamps;
    /* Read a recording that ends inside a chunk (a JVM still running or killed): what the
     * chunk holds before the cut is kept as far as its constant pools resolve it. Refused
     * with PPROF_E_INVALID by default. */
    bool allow_truncated;
    uint64_t max_input_bytes;  /* bytes read from a file or stdin; 0 = 1 TiB */
    uint64_t max_pool_entries; /* constant pool entries of one chunk; 0 = 1 << 24 */
    uint64_t max_types;        /* metadata classes of one chunk; 0 = 1 << 16 */
    uint64_t max_stack_depth;  /* frames taken from one stack trace; 0 = 1 << 14 */
    pprof_jfr_stats *stats;    /* filled when not NULL */
    pprof_allocator allocator;
} pprof_jfr_read_options;

#define PPROF_JFR_READ_OPTIONS_INIT                                                                \
    {                                                                                              \
        sizeof(pprof_jfr_read_options), NULL, false, false, 0, 0, 0, 0, NULL,                      \
        {                                                                                          \
            NULL, NULL, NULL, NULL                                                                 \
        }                                                                                          \
    }

PPROF_API void pprof_jfr_read_options_init(pprof_jfr_read_options *opts);

/* Whether data starts as a JFR chunk ("FLR\0"). */
PPROF_API bool pprof_jfr_detect(const void *data, size_t size);

/* Reads a recording (raw, or in a gzip or zstd file) from memory into a new profile (*out, on
 * success only). Errors carry the byte offset in the (decompressed) recording: PPROF_E_INVALID (a
 * malformed chunk, event, metadata or pool; a recording cut mid-chunk), PPROF_E_UNSUPPORTED (a
 * version other than 1.x or 2.x), PPROF_E_EMPTY (no bytes), PPROF_E_ARG (an unknown event name; an
 * event the recording does not hold), PPROF_E_LIMIT. */
PPROF_API pprof_status pprof_jfr_read_memory(const void *data, size_t size,
                                             const pprof_jfr_read_options *opts,
                                             pprof_profile **out, pprof_error *err);
/* Same from a path ("-" = standard input). */
PPROF_API pprof_status pprof_jfr_read_file(const char *path, const pprof_jfr_read_options *opts,
                                           pprof_profile **out, pprof_error *err);

#ifdef __cplusplus
}
#endif

#endif
