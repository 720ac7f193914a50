/* [libpprof-formats] OpenTelemetry Profiles (OTLP) in and out.
 *
 * The protocol is pinned to opentelemetry-proto commit ac2c4b5d1f3a6079de62f9afec860158ecc8af09
 * (2026-08-18), package opentelemetry.proto.profiles.v1development (Alpha: it changes between
 * releases). ProfilesData and the exporter's ExportProfilesServiceRequest have the same fields
 * and are read and written alike. docs/otlp.md maps every field both ways.
 */
#ifndef PPROF_OTLP_H
#define PPROF_OTLP_H

#include <stdio.h>

#include "check.h"
#include "pprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A decoded ProfilesData: dictionary, resources, scopes and profiles. */
typedef struct pprof_otlp pprof_otlp;

/* Whether data (raw, gzip or zstd) is OTLP by content. Both OTLP and pprof are protobuf and
 * share field numbers 1 and 2 at the top, so this is true only when it is certain: the top
 * level holds nothing but length-delimited fields 1 and 2, and a field 2 (the dictionary) holds
 * a string_table (5) or stack_table (7) field, which a pprof Sample (field 2 there) never has.
 * Anything else is not claimed; callers may then go by a ".otlp" name. Decompresses at most
 * what the default read options allow. */
PPROF_API bool pprof_otlp_detect(const void *data, size_t size);
/* Whether path ends in ".otlp" (optionally followed by ".gz" or ".zst"). */
PPROF_API bool pprof_otlp_path_is_otlp(const char *path);

/* Reads raw, gzip or zstd OTLP within the limits of opts (NULL: defaults): max_strings,
 * max_mappings, max_locations, max_functions and max_lines bound the dictionary tables,
 * max_samples the samples, stacks and links, max_profiles the Profile messages (each becomes
 * pprof state of its own), max_labels the attribute table and all
 * attribute indices, max_stack_entries the stacks' location indices, max_values the values and
 * timestamps. Errors carry a path such as "dictionary.location_table[3].mapping_index" and a
 * byte offset. On failure *out is NULL. */
PPROF_API pprof_status pprof_otlp_read_memory(const void *data, size_t size,
                                              const pprof_read_options *opts, pprof_otlp **out,
                                              pprof_error *err);
/* Same, from a path; "-" reads standard input. */
PPROF_API pprof_status pprof_otlp_read_file(const char *path, const pprof_read_options *opts,
                                            pprof_otlp **out, pprof_error *err);
/* NULL is a no-op. */
PPROF_API void pprof_otlp_free(pprof_otlp *otlp);

/* The number of Profile messages over all resources and scopes. */
PPROF_API size_t pprof_otlp_profile_count(const pprof_otlp *otlp);

/* OTLP -> pprof. The rule: within one scope, profiles with the same time, duration, period
 * type, period and profile attributes (among them "pprof.profile_index", which pprof -> OTLP
 * writes to keep apart the profiles written together) become one pprof profile with a sample
 * type each, in the order they come, unless that type is already in the group (then, without
 * "pprof.profile_index", they are two measurements) or the group has 64 members; any other
 * profile becomes a pprof profile of its own.
 * Their samples are joined by sample key (stack, attributes, link and timestamp): the k-th
 * observation of a key in one profile and the k-th of that key in another are one pprof
 * sample, and a value a profile does not have is 0. A Sample with several observations (values
 * or timestamps) gives one observation each; each timestamp becomes the numeric label
 * "timestamp_unix_nano" (unit "nanoseconds") of its sample; a Link becomes the string labels
 * "trace_id" and "span_id" (lower-case hex). A timestamp past INT64_MAX, or a Link whose
 * trace_id is not 16 bytes or span_id not 8, is PPROF_E_INVALID with its path. *out is an array of
 * *n profiles, released with pprof_otlp_profiles_free. PPROF_E_INVALID with a path when an index is
 * out of range. */
PPROF_API pprof_status pprof_otlp_to_pprof(const pprof_otlp *otlp, pprof_profile ***out, size_t *n,
                                           pprof_error *err);
/* Frees the first n profiles and the array; n = 0 frees the array only, for a caller that keeps
 * the profiles (and frees each with pprof_profile_free). The profiles do not depend on otlp. */
PPROF_API void pprof_otlp_profiles_free(pprof_profile **profiles, size_t n);

typedef struct pprof_otlp_write_options {
    size_t struct_size;  /* sizeof(pprof_otlp_write_options) */
    pprof_format format; /* default PPROF_FORMAT_RAW: OTLP travels uncompressed or HTTP-gzipped */
    int level;           /* compression level, as in pprof_write_options */
    /* Resource attributes, each "KEY=VALUE" (a string value), in this order. */
    const char *const *resource;
    size_t n_resource;
    /* service.name of the resource; NULL: none (a "service.name=" resource entry also sets it). */
    const char *service_name;
} pprof_otlp_write_options;

#define PPROF_OTLP_WRITE_OPTIONS_INIT                                                              \
    {                                                                                              \
        sizeof(pprof_otlp_write_options), PPROF_FORMAT_RAW, 0, NULL, 0, NULL                       \
    }

PPROF_API void pprof_otlp_write_options_init(pprof_otlp_write_options *opts);

/* pprof -> OTLP: one ProfilesData with one resource and one scope ("libpprof"), every sample
 * type of every profile a Profile holding the samples whose value of that type is not 0 (a
 * sample whose values are all 0 is in the first), all sharing one dictionary in which strings,
 * mappings, locations, functions, stacks, links and attributes are deduplicated (index 0 of every
 * table is its zero value). Labels become attributes (a numeric label's unit its unit_strindex; the
 * labels of one key in one sample an array); header fields without a place in the protocol
 * become the profile attributes listed in docs/otlp.md. Appends to *out. PPROF_E_INVALID with
 * a path when a profile is not consistent (a sample's value count, an unknown id). */
PPROF_API pprof_status pprof_otlp_write_memory(const pprof_profile *const *profiles, size_t n,
                                               const pprof_otlp_write_options *opts,
                                               pprof_buffer *out, pprof_error *err);
/* Same, to a path, atomically as pprof_profile_write_file does; "-" is standard output. */
PPROF_API pprof_status pprof_otlp_write_file(const pprof_profile *const *profiles, size_t n,
                                             const pprof_otlp_write_options *opts, const char *path,
                                             pprof_error *err);
/* Same, to an open stream (flushed, not closed). */
PPROF_API pprof_status pprof_otlp_write_stream(const pprof_profile *const *profiles, size_t n,
                                               const pprof_otlp_write_options *opts, FILE *stream,
                                               pprof_error *err);

/* Checks OTLP against the protocol's rules, the O* rules of the registry (docs/rules.md):
 * index 0 of every dictionary table is the zero value, every index is in range, no duplicate
 * or orphaned entries (warnings), values and timestamps counts agree, timestamps fall in the
 * profile's window, stacks, functions and attribute keys and units are valid. Paths are OTLP's,
 * e.g. "dictionary.location_table[3].mapping_index". Arguments and result as pprof_check. */
PPROF_API pprof_status pprof_otlp_check(const pprof_otlp *otlp, const pprof_check_options *opts,
                                        pprof_finding_fn fn, void *ctx,
                                        pprof_check_summary *summary, pprof_error *err);
/* A failed pprof_otlp_read_* as the finding O10-decode (path, offset and message of the error)
 * passed to fn when opts enable it; false, with nothing reported, for errors that are not about
 * the input (PPROF_E_IO, PPROF_E_NOMEM, PPROF_E_ARG). */
PPROF_API bool pprof_otlp_check_read_error(const pprof_error *read_err,
                                           const pprof_check_options *opts, pprof_finding_fn fn,
                                           void *ctx, pprof_check_summary *summary);

#ifdef __cplusplus
}
#endif

#endif
