/* [libpprof] libpprof checker: every rule of docs/rules.md, each finding with a stable rule id,
 * severity, path, byte offset and message; the cross-file inline-consistency index; repair.
 *
 * Thread rule: as for the whole library. The checks only read the profile: many threads may
 * check one profile at once. */
#ifndef PPROF_CHECK_H
#define PPROF_CHECK_H

#include "pprof.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pprof_severity {
    PPROF_SEVERITY_NOTE = 0,
    PPROF_SEVERITY_WARNING = 1,
    PPROF_SEVERITY_ERROR = 2,
} pprof_severity;

/* "note", "warning" or "error". */
PPROF_API const char *pprof_severity_name(pprof_severity s);

/* Rule numbers are positions in the registry (libpprof/rules.def). New rules are only ever
 * appended, so a number keeps its meaning; the id string is the stable public name. */
typedef enum pprof_rule {
#define PPROF_RULE(sym, id, sev, ref, summary, rationale, example) PPROF_RULE_##sym,
#include "rules.def"
#undef PPROF_RULE
    PPROF_RULE_COUNT
} pprof_rule;

typedef struct pprof_rule_info {
    const char *id; /* stable, e.g. "S1-inline-count" */
    pprof_severity severity;
    const char *reference; /* row of the format reference, e.g. "2.2 S1" */
    const char *summary;   /* one line */
    const char *rationale;
    const char *example; /* a violating input, in words */
} pprof_rule_info;

/* NULL when rule is out of range. */
PPROF_API const pprof_rule_info *pprof_rule_get(pprof_rule rule);
/* Finds a rule by id (case-insensitive); false when there is none. */
PPROF_API bool pprof_rule_find(const char *id, pprof_rule *out);

typedef struct pprof_finding {
    pprof_rule rule;
    const char *rule_id;
    pprof_severity severity;
    const char *file;    /* the input's name for cross-file findings, else NULL */
    uint64_t offset;     /* byte offset in the decompressed input, or PPROF_NO_OFFSET */
    const char *path;    /* e.g. "location[12](id=57).line[1].function_id"; "" = whole profile */
    const char *message; /* what is wrong and what was expected */
} pprof_finding;

/* Receives each finding. The strings are valid only during the call. Return false to stop. */
typedef bool (*pprof_finding_fn)(void *ctx, const pprof_finding *f);

typedef struct pprof_check_options {
    size_t struct_size;    /* sizeof(pprof_check_options) */
    uint64_t max_findings; /* findings passed to the callback; later ones are only counted */
    /* NULL: every rule on. Else PPROF_RULE_COUNT entries (as of the caller's header); rules
     * past that count stay on. */
    const bool *enabled;
    size_t n_enabled;
    /* Rule S14 asks whether drop_frames and keep_frames are Go regular expressions, which takes
     * a regexp parser the core does not carry: pprof_regex_check (libpprof-analyze) or one of
     * the caller's, returning 0 for a valid pattern, 1 for an invalid one (*why: the reason),
     * -1 without memory. NULL: S14 is not checked. */
    int (*regex_check)(const char *pattern, size_t n, const char **why);
    /* Formats checked besides pprof (pprof_check_path), as pprof_read_options.readers. */
    const struct pprof_reader *const *readers;
} pprof_check_options;

#define PPROF_CHECK_OPTIONS_INIT                                                                   \
    {                                                                                              \
        sizeof(pprof_check_options), 1000, NULL, 0, NULL, NULL                                     \
    }

PPROF_API void pprof_check_options_init(pprof_check_options *opts);

/* Filled by every function that takes one, up to struct_size bytes (set by the caller, e.g. with
 * PPROF_CHECK_SUMMARY_INIT), so that a caller built against a smaller one keeps working. */
typedef struct pprof_check_summary {
    size_t struct_size; /* sizeof(pprof_check_summary), set by the caller */
    uint64_t count[3];  /* by severity, including findings past max_findings */
    uint64_t reported;  /* passed to the callback */
    bool truncated;     /* max_findings was reached or the callback stopped */
} pprof_check_summary;

#define PPROF_CHECK_SUMMARY_INIT                                                                   \
    {                                                                                              \
        sizeof(pprof_check_summary), {0, 0, 0}, 0, false                                           \
    }

/* Checks a decoded or built profile against every enabled rule and calls fn for each finding
 * (fn may be NULL to only count). Rules about wire bytes (W8, S18, S19) run only on profiles
 * read from bytes. Returns PPROF_OK when the check ran, whatever it found; PPROF_E_NOMEM.
 * summary may be NULL. opts may be NULL for the defaults. */
PPROF_API pprof_status pprof_check(const pprof_profile *p, const pprof_check_options *opts,
                                   pprof_finding_fn fn, void *ctx, pprof_check_summary *summary,
                                   pprof_error *err);

/* ---------------------------------------------------------------- validity */

/* Whether Go's pprof refuses a profile that breaks the rule when it reads one: the
 * error-level W, R, PD and CV rules of the registry. These, and no others, make a profile
 * invalid for the library. */
PPROF_API bool pprof_rule_go_enforced(pprof_rule rule);

/* The library's one validity decision: p checked against the Go-enforced rules only (those
 * the reader refuses itself, W6 and W8, included when the profile was read with relax bits).
 * Every entry point that computes from a profile (pprof_edit*, pprof_report_new,
 * pprof_diff_*, pprof_folded_write, pprof_merger_add*) calls it first and fails with its
 * error, so no operation reads a broken profile as if it meant something. Returns PPROF_OK;
 * PPROF_E_INVALID with err naming the first finding (path, offset, "message [RULE-ID]");
 * PPROF_E_NOMEM. fn (may be NULL) receives the findings, at most max_findings of them (0: 1),
 * and summary (may be NULL) counts them all. A success is remembered in p (a cache that many
 * threads reading p may fill at once), so later calls need not look again. */
PPROF_API pprof_status pprof_validate(const pprof_profile *p, pprof_finding_fn fn, void *ctx,
                                      uint64_t max_findings, pprof_check_summary *summary,
                                      pprof_error *err);

/* The rule a failed read maps to (W1-W8, R1, R2), or false for errors that are not about the
 * input's content (PPROF_E_IO, PPROF_E_NOMEM, PPROF_E_ARG). */
PPROF_API bool pprof_check_read_error_rule(const pprof_error *read_err, pprof_rule *out);
/* A failed pprof_profile_read_* as the finding of that rule (path, offset and message of the
 * error) passed to fn when opts (may be NULL) enable it, counted in summary (may be NULL); false,
 * with nothing reported, for errors that are not about the input (as above). */
PPROF_API bool pprof_check_read_error(const pprof_error *read_err, const pprof_check_options *opts,
                                      pprof_finding_fn fn, void *ctx, pprof_check_summary *summary);

/* ---------------------------------------------------------------- cross-file S1
 * Locations of several profiles keyed by (mapping build_id, else filename; address minus
 * memory_start). Profiles are added one at a time; a location whose key was seen in an earlier
 * profile with a different number of lines (S1-cross-inline-count) or a different (function
 * name, file, line, column) sequence (S1-cross-inline-frames) is reported, naming both files.
 * Address 0 and locations without a mapping are never compared. */
typedef struct pprof_inline_index pprof_inline_index;

/* a may be NULL for the library's default allocator. */
PPROF_API pprof_status pprof_inline_index_new(const pprof_allocator *a, pprof_inline_index **out,
                                              pprof_error *err);
PPROF_API void pprof_inline_index_free(pprof_inline_index *idx);
/* name labels the profile in messages and pprof_finding.file; it is copied. Only the first
 * conflict per key and added profile is reported. The enabled mask and max_findings of opts
 * apply to this call. */
PPROF_API pprof_status pprof_inline_index_add(pprof_inline_index *idx, const pprof_profile *p,
                                              const char *name, const pprof_check_options *opts,
                                              pprof_finding_fn fn, void *ctx,
                                              pprof_check_summary *summary, pprof_error *err);

/* ---------------------------------------------------------------- files */

/* Checks the profile in the file at path ("-" = standard input) as pprof-check does: pprof
 * (raw, gzip or zstd, read with PPROF_RELAX_STRING0 | PPROF_RELAX_CONCATENATED so that the
 * findings name what the reader would refuse) against every enabled rule, or OTLP (by content
 * or a .otlp name) against the O rules. Bytes that do not decode are reported as the finding of
 * the rule they break (pprof_check_read_error_rule; O10-decode for OTLP). With idx (may be
 * NULL), a pprof profile also enters the cross-file inline check under the name path.
 * *decoded (may be NULL) tells whether the bytes decoded; summary (may be NULL) counts the
 * findings of the call. Returns PPROF_OK when the file was checked, whatever was found,
 * undecodable bytes included; else the error that kept it from being read or checked (cannot
 * open, a directory, PPROF_E_NOMEM), in err. */
PPROF_API pprof_status pprof_check_path(const char *path, const pprof_check_options *opts,
                                        pprof_inline_index *idx, pprof_finding_fn fn, void *ctx,
                                        pprof_check_summary *summary, bool *decoded,
                                        pprof_error *err);

/* ---------------------------------------------------------------- repair */

typedef enum pprof_fix {
#define PPROF_FIX(sym, name, what) PPROF_FIX_##sym,
#include "fixes.def"
#undef PPROF_FIX
    PPROF_FIX_COUNT
} pprof_fix;

/* Short name such as "string-index"; NULL when out of range. */
PPROF_API const char *pprof_fix_name(pprof_fix fix);
/* One line saying what the fix does. */
PPROF_API const char *pprof_fix_description(pprof_fix fix);

typedef struct pprof_repair_stats {
    size_t struct_size; /* sizeof(pprof_repair_stats), set by the caller */
    uint64_t count[PPROF_FIX_COUNT];
} pprof_repair_stats;

#define PPROF_REPAIR_STATS_INIT                                                                    \
    {                                                                                              \
        sizeof(pprof_repair_stats),                                                                \
        {                                                                                          \
            0                                                                                      \
        }                                                                                          \
    }

/* Builds a new profile from p with every error-level finding repaired and everything else kept
 * as it was. p is only read. On success *out is owned by the
 * caller. stats may be NULL; otherwise up to stats->struct_size bytes of it are filled. */
PPROF_API pprof_status pprof_repair(const pprof_profile *p, pprof_profile **out,
                                    pprof_repair_stats *stats, pprof_error *err);

#ifdef __cplusplus
}
#endif

#endif
