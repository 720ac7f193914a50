/* [libpprof-formats] libpprof perf: Linux perf recordings (perf.data, file or pipe mode, and `perf
 * script` text) read into a pprof profile.
 *
 * perf.data (tools/perf/Documentation/perf.data-file-format.txt in the kernel): the header and
 * its feature sections (build IDs, event descriptions, command line, hostname, OS release, CPU
 * description, sample times, clock data), the attributes (any attr size an older or newer perf
 * wrote), and the records SAMPLE, MMAP, MMAP2, COMM, FORK, EXIT, LOST, LOST_SAMPLES and
 * FINISHED_ROUND, in either byte order. Records are replayed in time order within each round, as
 * perf report does, so a sample meets the mappings its process had at that time.
 *
 * The profile: sample types "samples/count" and then one per event ("cpu/nanoseconds" for
 * cpu-clock, "task-clock/nanoseconds", "NAME/count" otherwise); a sample of event E has
 * samples 1 and E's period (what perf report weighs by), 0 for the other events. Locations are
 * addresses (no lines, ready for a symbolizer) in mappings taken from the process's MMAP
 * records, with build IDs from MMAP2 or the header; kernel frames get function names from a
 * kallsyms file when one is given. Comments carry the perf command line, host, OS release, CPU
 * and perf version.
 *
 * What is not converted is counted in pprof_perf_stats and named by pprof_perf_warning: DWARF
 * unwinding dumps (user registers and stack), branch stacks, raw (tracepoint) payloads, AUX
 * data, compressed records. Such samples keep their leaf and frame-pointer chain.
 *
 * Thread rule: the library's (see pprof.h); calls share nothing.
 */
#ifndef PPROF_PERF_H
#define PPROF_PERF_H

#include "pprof.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pprof_perf_input {
    PPROF_PERF_INPUT_AUTO = 0,   /* perf.data by its magic, else perf script text */
    PPROF_PERF_INPUT_DATA = 1,   /* perf.data (file or pipe mode) only */
    PPROF_PERF_INPUT_SCRIPT = 2, /* `perf script` text only */
} pprof_perf_input;

/* Labels added to every sample. */
#define PPROF_PERF_LABEL_PID 0x1u  /* numeric "pid" */
#define PPROF_PERF_LABEL_TID 0x2u  /* numeric "tid" */
#define PPROF_PERF_LABEL_COMM 0x4u /* string "comm": the thread's name at the sample's time */
#define PPROF_PERF_LABEL_CPU 0x8u  /* numeric "cpu" */

typedef struct pprof_perf_options {
    size_t struct_size; /* sizeof(pprof_perf_options) */
    pprof_perf_input input;
    uint32_t labels; /* PPROF_PERF_LABEL_* */
    /* Keep only the samples of these events (names as perf prints them, "cpu-clock"); NULL or
     * 0 = every event. A name no event has is PPROF_E_ARG. */
    const char *const *events;
    size_t n_events;
    /* /proc/kallsyms text ("ADDRESS TYPE NAME [MODULE]" lines) naming kernel frames; NULL =
     * kernel frames stay addresses in the [kernel.kallsyms] mapping. Borrowed for the call. */
    const char *kallsyms;
    size_t kallsyms_size;
    uint64_t max_input_bytes; /* bytes read from a file or stdin */
    /* Records sorted at once inside one round (between FINISHED_ROUND records); a longer round
     * is replayed in pieces, counted in rounds_split. Bounds the sort's memory. */
    uint64_t max_round_records;
    uint64_t max_processes; /* processes tracked at once (their mappings) */
    pprof_allocator allocator;
    /* Each sample gets the numeric label "timestamp_unix_nano" (unit "nanoseconds"): its time
     * as wall-clock nanoseconds since the Unix epoch when the recording has clock data (perf
     * record -k CLOCK: HEADER_CLOCK_DATA pairs the clock with the wall clock), else the perf
     * clock's own nanoseconds (CLOCK_MONOTONIC-like: since boot, not the epoch). Samples then no
     * longer fold together: the profile holds one sample per perf sample. perf script text
     * gives the perf clock at microseconds. A sample without a time (no PERF_SAMPLE_TIME) gets
     * no label. */
    bool timestamps;
} pprof_perf_options;

#define PPROF_PERF_OPTIONS_INIT                                                                    \
    {                                                                                              \
        sizeof(pprof_perf_options), PPROF_PERF_INPUT_AUTO, 0, NULL, 0, NULL, 0, UINT64_C(1) << 40, \
            UINT64_C(1) << 22, UINT64_C(1) << 20, {NULL, NULL, NULL, NULL}, false                  \
    }

PPROF_API void pprof_perf_options_init(pprof_perf_options *opts);

/* What the reader met. Counts of things not converted name what a warning is about. */
typedef struct pprof_perf_stats {
    size_t struct_size; /* sizeof(pprof_perf_stats), set by the caller */
    bool pipe_mode;     /* a `perf record -o -` stream */
    bool swapped;       /* written on a machine of the other byte order */
    bool script_text;   /* read from `perf script` text */
    uint64_t records;   /* records read (perf.data) or lines (text) */
    uint64_t samples;   /* SAMPLE records (or text samples) */
    uint64_t samples_converted;
    uint64_t samples_other_event; /* of an event left out by options.events */
    uint64_t samples_unknown_id;  /* naming an event id no attr has */
    uint64_t lost;                /* samples the kernel lost (LOST, LOST_SAMPLES) */
    uint64_t unmapped_frames;     /* frames in no mapping of their process */
    uint64_t dwarf_stacks;        /* samples with user registers/stack (not unwound) */
    uint64_t branch_stacks;       /* samples with a branch stack (not converted) */
    uint64_t raw_payloads;        /* samples with raw (tracepoint) data (not converted) */
    uint64_t aux_records;         /* AUX, AUXTRACE, ITRACE_START records and AUX samples */
    uint64_t compressed_records;  /* COMPRESSED records (perf record -z; not read) */
    uint64_t unknown_records;     /* record types this reader does not know */
    uint64_t rounds_split;        /* rounds longer than max_round_records */
    uint64_t truncated_bytes;     /* bytes at the end that do not form a whole record */
    uint64_t guest_frames;        /* frames in a guest context (kept as unmapped addresses) */
    uint64_t bad_lines;           /* text lines that were not understood (text input) */
} pprof_perf_stats;

#define PPROF_PERF_STATS_INIT                                                                      \
    {                                                                                              \
        sizeof(pprof_perf_stats), false, false, false, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   \
            0, 0, 0                                                                                \
    }

/* Reads a perf recording from memory into a new profile (*out, on success only). stats may be
 * NULL. Errors: PPROF_E_INVALID with the byte offset and what is wrong (a record running past
 * its section, a size below the record's header, a callchain longer than its record, ...);
 * PPROF_E_EMPTY for no bytes; PPROF_E_ARG for an unknown event name; PPROF_E_LIMIT. */
PPROF_API pprof_status pprof_perf_read_memory(const void *data, size_t size,
                                              const pprof_perf_options *opts, pprof_profile **out,
                                              pprof_perf_stats *stats, pprof_error *err);
/* Same from a path ("-" = standard input). A regular file is mapped, not copied. Without clock
 * data in the file, the profile's time is the file's modification time less the duration. */
PPROF_API pprof_status pprof_perf_read_file(const char *path, const pprof_perf_options *opts,
                                            pprof_profile **out, pprof_perf_stats *stats,
                                            pprof_error *err);

/* Converts the recording at in and writes the profile to out ("-" = standard output),
 * atomically, with wopts (NULL = gzip), straight from the conversion: the tool's path, with
 * no profile object in between. Errors as pprof_perf_read_file, and those of writing. */
PPROF_API pprof_status pprof_perf_convert_file(const char *in, const pprof_perf_options *opts,
                                               const pprof_write_options *wopts, const char *out,
                                               pprof_perf_stats *stats, pprof_error *err);

/* Writes into buf (at most cap bytes, NUL-terminated) one line naming what was read but not
 * converted or lost, e.g. "3 samples with DWARF register/stack dumps (not unwound; leaf and
 * frame-pointer chain kept); 12 samples lost by the kernel". Returns the length the full text
 * needs (0 = nothing to warn about), as snprintf. */
PPROF_API size_t pprof_perf_warning(const pprof_perf_stats *stats, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
