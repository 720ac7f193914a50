/* [libpprof-formats] The legacy profile formats Go's pprof reads besides protobuf: the
 * gperftools CPU profile (binary: header words, period, sample records, trailer, then the
 * process's /proc/self/maps text), tcmalloc's heap, growth and heapz text profiles, contention
 * and thread ("threadz") text profiles, Go's text count profiles ("goroutine profile: total N")
 * and the Java CPU, heap and contention profiles. Each becomes a profile with the sample
 * types, units, period and stacks Go's profile.Parse gives it, then merged as `go tool pprof`
 * merges its input (identical stacks summed, all-zero samples dropped). docs/legacy.md says
 * what each family becomes. */
#ifndef PPROF_LEGACY_H
#define PPROF_LEGACY_H

#include "pprof.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pprof_legacy_read_options {
    size_t struct_size;         /* sizeof(pprof_legacy_read_options) */
    uint64_t max_input_bytes;   /* after decompression; 0 = 256 MiB */
    uint64_t max_samples;       /* sample records or lines; 0 = 1 << 24 */
    uint64_t max_stack_entries; /* frames over all samples; 0 = 1 << 26 */
    uint64_t max_mappings;      /* entries of the memory map; 0 = 1 << 16 */
    pprof_allocator allocator;
} pprof_legacy_read_options;

#define PPROF_LEGACY_READ_OPTIONS_INIT                                                             \
    {                                                                                              \
        sizeof(pprof_legacy_read_options), 0, 0, 0, 0,                                             \
        {                                                                                          \
            NULL, NULL, NULL, NULL                                                                 \
        }                                                                                          \
    }

PPROF_API void pprof_legacy_read_options_init(pprof_legacy_read_options *opts);

/* Whether the bytes (uncompressed) begin as one of the legacy formats: the gperftools or Java
 * CPU header words in either byte order and word size, or the first line of a text family. */
PPROF_API bool pprof_legacy_detect(const void *data, size_t size);

/* Reads a legacy profile (raw, gzip or zstd) into one valid profile. A malformed input is
 * PPROF_E_INVALID with the byte offset of the record or line at fault; never a partial
 * profile. On failure *out is NULL. */
PPROF_API pprof_status pprof_legacy_read_memory(const void *data, size_t size,
                                                const pprof_legacy_read_options *opts,
                                                pprof_profile **out, pprof_error *err);
/* Same, from a path; "-" reads standard input. */
PPROF_API pprof_status pprof_legacy_read_file(const char *path,
                                              const pprof_legacy_read_options *opts,
                                              pprof_profile **out, pprof_error *err);

#ifdef __cplusplus
}
#endif

#endif
