/* [libpprof] libpprof merge: exact, deterministic N-way merge of profiles.
 *
 * Semantics follow google/pprof's profile.Merge (see docs/merge.md for every deviation). A merger
 * absorbs profiles one at a time into tables keyed by content; its memory grows with the unique
 * content of the result, not with the inputs. The result does not depend on the order or the
 * grouping of the inputs: merge(merge(a,b),c), merge(a,merge(b,c)) and merge(c,b,a) encode to the
 * same bytes.
 *
 * Thread rule: one merger is used by one thread at a time; separate mergers are independent.
 * pprof_merger_add only reads its profile: mergers on many threads may add one profile at
 * once.
 */
#ifndef PPROF_MERGE_H
#define PPROF_MERGE_H

#include "check.h"
#include "pprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What to do when two locations share a mapping and a non-zero address but expand into
 * different inline frames (within one input or across inputs). A warning is always given. */
typedef enum pprof_inline_conflict {
    PPROF_INLINE_KEEP = 0,    /* keep both locations, as Go does */
    PPROF_INLINE_LONGEST = 1, /* rewrite every sample to the expansion with the most lines */
    PPROF_INLINE_ERROR = 2,   /* fail with PPROF_E_INVALID naming both inputs */
} pprof_inline_conflict;

typedef struct pprof_merge_options {
    size_t struct_size; /* sizeof(pprof_merge_options) */
    /* Keep only the sample types (by type name) that every input has, like Go's
     * CompatibilizeSampleTypes, instead of failing with PPROF_E_INCOMPATIBLE. */
    bool intersect_types;
    pprof_inline_conflict inline_conflict;
    pprof_warn_fn warn; /* NULL: warnings are dropped */
    void *warn_ctx;
    pprof_allocator allocator;
    /* Threads the merger may use (0 or 1: only the calling one). With 2 or more, a merger keeps
     * one thread of its own that absorbs samples while the caller's thread maps the next ones
     * (pprof_merger_add still returns only when its input is absorbed), pprof_merger_finish
     * and _write_* sort and copy on up to this many threads, and a short-lived thread faults
     * large buffers in ahead of their use. The allocator is then called from those threads
     * too. The result never depends on it. */
    unsigned threads;
} pprof_merge_options;

#define PPROF_MERGE_OPTIONS_INIT                                                                   \
    {                                                                                              \
        sizeof(pprof_merge_options), false, PPROF_INLINE_KEEP, NULL, NULL, {0, 0, 0, 0}, 0         \
    }

PPROF_API void pprof_merge_options_init(pprof_merge_options *opts);

typedef struct pprof_merger pprof_merger;

/* opts may be NULL for the defaults. */
PPROF_API pprof_status pprof_merger_new(const pprof_merge_options *opts, pprof_merger **out,
                                        pprof_error *err);
/* NULL is a no-op. */
PPROF_API void pprof_merger_free(pprof_merger *m);

/* Absorbs one profile; the merger keeps nothing that points into p, so p may be freed right
 * after. name (may be NULL) identifies the input in errors and warnings. Errors:
 * PPROF_E_INVALID (a reference the merge needs is broken; the path names it),
 * PPROF_E_INCOMPATIBLE (sample or period types differ; names both inputs and their types),
 * PPROF_E_OVERFLOW (a summed value leaves int64; names the sample), PPROF_E_NOMEM. After any
 * error the merger is unusable: every later call returns the same code. */
PPROF_API pprof_status pprof_merger_add(pprof_merger *m, const pprof_profile *p, const char *name,
                                        pprof_error *err);

/* A profile read only to be merged: everything but its samples is decoded when it is read
 * (on any thread: inputs are independent), and the samples are decoded a batch at a time
 * while pprof_merger_add_input absorbs them, so a large input never holds its whole sample
 * table decoded (several times the size of its encoding). Errors inside samples are therefore
 * reported by
 * pprof_merger_add_input, with the same codes, paths and byte offsets as a full read. The
 * type, pprof_merge_input, is declared in pprof.h (pprof_edit_input takes one too). */
PPROF_API pprof_status pprof_merge_input_read_memory(const void *data, size_t size,
                                                     const pprof_read_options *opts,
                                                     pprof_merge_input **out, pprof_error *err);
/* path "-" reads standard input. The file is read into memory, never mapped, so it may change
 * or shrink once this returns. */
PPROF_API pprof_status pprof_merge_input_read_file(const char *path, const pprof_read_options *opts,
                                                   pprof_merge_input **out, pprof_error *err);
/* NULL is a no-op. */
PPROF_API void pprof_merge_input_free(pprof_merge_input *in);

/* pprof_merger_add for a merge input; the input may be added to other mergers too, one at a
 * time (adding decodes its samples into it). */
PPROF_API pprof_status pprof_merger_add_input(pprof_merger *m, pprof_merge_input *in,
                                              const char *name, pprof_error *err);

/* ---------------------------------------------------------------- merging files */

/* Where a file of pprof_merger_add_files failed. */
typedef enum pprof_merge_file_stage {
    PPROF_MERGE_FILE_READ = 0,  /* reading or decoding it */
    PPROF_MERGE_FILE_CHECK = 1, /* the strict check found error-level findings */
    PPROF_MERGE_FILE_ADD = 2    /* absorbing it (the error names the input) */
} pprof_merge_file_stage;

/* One file, once it is absorbed or has failed. Valid only during the call. */
typedef struct pprof_merge_file_event {
    size_t index; /* in the list */
    const char *path;
    uint64_t bytes; /* the file's size; UINT64_MAX when unknown (standard input) */
    pprof_status status;
    pprof_merge_file_stage stage; /* where it failed, when status is not PPROF_OK */
    const pprof_error *error;     /* the failure, when status is not PPROF_OK */
    uint64_t check_errors;        /* stage PPROF_MERGE_FILE_CHECK: error-level findings */
} pprof_merge_file_event;

typedef void (*pprof_merge_file_fn)(void *ctx, const pprof_merge_file_event *ev);

typedef struct pprof_merge_files_options {
    size_t struct_size; /* sizeof(pprof_merge_files_options) */
    /* Decoding threads (0: one per online core), at most one per file and 256. */
    unsigned threads;
    const pprof_read_options *read; /* NULL: the defaults */
    /* Read whole profiles and run pprof_check on each (with check_options, may be NULL) before
     * it is added; stop at the first with error-level findings. Findings go to on_finding with
     * their file set to the path, on the calling thread, file by file in list order before each
     * file's on_file: the files after the first that fails give none, however far the
     * decoding threads had read. */
    bool check;
    const pprof_check_options *check_options;
    pprof_finding_fn on_finding;
    void *finding_ctx;
    /* Called on the calling thread after each file, in list order. */
    pprof_merge_file_fn on_file;
    void *ctx;
} pprof_merge_files_options;

#define PPROF_MERGE_FILES_OPTIONS_INIT                                                             \
    {                                                                                              \
        sizeof(pprof_merge_files_options), 0, NULL, false, NULL, NULL, NULL, NULL, NULL            \
    }

PPROF_API void pprof_merge_files_options_init(pprof_merge_files_options *opts);

typedef struct pprof_merge_files_summary {
    size_t struct_size;  /* sizeof(pprof_merge_files_summary), set by the caller */
    size_t files;        /* absorbed */
    double wait_seconds; /* the calling thread waiting for decoding threads */
} pprof_merge_files_summary;

#define PPROF_MERGE_FILES_SUMMARY_INIT                                                             \
    {                                                                                              \
        sizeof(pprof_merge_files_summary), 0, 0.0                                                  \
    }

/* Adds the files at paths ("-" is standard input) to the merger, in list order, with what
 * pprof-merge does: the files are decoded as merge inputs on opts->threads threads (at nice 10,
 * so that the calling thread, which absorbs them and limits the run, keeps a core) into a
 * bounded window ahead of the merger (two files per thread, up to four while they add up to
 * less than 16 MiB), and the calling thread decodes one of the window itself rather than wait.
 * Stops at the first file that fails and returns its status; err names the file. sum (may be
 * NULL) is filled up to its struct_size. */
PPROF_API pprof_status pprof_merger_add_files(pprof_merger *m, const char *const *paths, size_t n,
                                              const pprof_merge_files_options *opts,
                                              pprof_merge_files_summary *sum, pprof_error *err);

/* Number of profiles absorbed so far. */
PPROF_API size_t pprof_merger_count(const pprof_merger *m);

/* Emits the merged profile with canonical ids. The merger is not consumed: more profiles may be
 * added and finish called again. Fails with PPROF_E_ARG when nothing was added. */
PPROF_API pprof_status pprof_merger_finish(pprof_merger *m, pprof_profile **out, pprof_error *err);

/* The size of a merged profile written by pprof_merger_write_file or _write_memory, filled up
 * to struct_size (set by the caller, e.g. with PPROF_MERGE_SUMMARY_INIT). */
typedef struct pprof_merge_summary {
    size_t struct_size; /* sizeof(pprof_merge_summary), set by the caller */
    size_t samples, locations, functions;
} pprof_merge_summary;

#define PPROF_MERGE_SUMMARY_INIT                                                                   \
    {                                                                                              \
        sizeof(pprof_merge_summary), 0, 0, 0                                                       \
    }

/* Writes the merged profile: the same bytes as pprof_merger_finish followed by
 * pprof_profile_write_file (or _write_memory, appending to *out), without building the output's
 * sample table, which is most of the merged profile's memory: the samples are encoded straight
 * from the merger. The merger is not consumed. sum (may be NULL) receives the output's size. */
PPROF_API pprof_status pprof_merger_write_file(pprof_merger *m, const pprof_write_options *opts,
                                               const char *path, pprof_merge_summary *sum,
                                               pprof_error *err);
PPROF_API pprof_status pprof_merger_write_memory(pprof_merger *m, const pprof_write_options *opts,
                                                 pprof_buffer *out, pprof_merge_summary *sum,
                                                 pprof_error *err);

/* Convenience: merges n profiles (names may be NULL, or n names, each may be NULL). */
PPROF_API pprof_status pprof_merge(const pprof_profile *const *profiles, const char *const *names,
                                   size_t n, const pprof_merge_options *opts, pprof_profile **out,
                                   pprof_error *err);

#ifdef __cplusplus
}
#endif

#endif
