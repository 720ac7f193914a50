/* [libpprof-analyze] libpprof edit: rewrite a profile (filter, prune, sample types, labels, scale,
 * aggregate, trim, redact) into a new, valid, compacted profile.
 *
 * Semantics follow google/pprof's profile package and `go tool pprof -proto` as Debian's
 * golang-go ships it; docs/edit.md gives, per operation, the Go function or flag it matches, the
 * fixed order in which the operations apply, and every deliberate difference.
 *
 * Regular expressions are Go's (RE2): a pattern Go rejects (backreferences, lookaround,
 * possessive or nested repetition, ...) fails with PPROF_E_ARG naming the option and giving
 * Go's reason; any other gets Go's answer, in time linear in the name (RE2: no backtracking,
 * no match limit). Each pattern is matched at most once per distinct string of the profile.
 *
 * Thread rule: as for the whole library. pprof_edit never modifies its input: many threads may
 * edit one profile at once.
 */
#ifndef PPROF_EDIT_H
#define PPROF_EDIT_H

#include "pprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether pattern (n bytes) is a regular expression Go's regexp accepts: 0 when it is, 1 when it
 * is not (*why: Go's reason, a static string), -1 without memory to decide. The shape of
 * pprof_check_options.regex_check, which turns rule S14 on. */
PPROF_API int pprof_regex_check(const char *pattern, size_t n, const char **why);

/* What redaction replaces with a keyed hash. */
#define PPROF_REDACT_FILES 0x1u    /* function file names */
#define PPROF_REDACT_MAPPINGS 0x2u /* mapping file names (and build ids are kept) */
#define PPROF_REDACT_LABELS 0x4u   /* string values of the labels named in redact_labels */

typedef struct pprof_edit_label {
    const char *key;
    const char *value;
} pprof_edit_label;

typedef struct pprof_edit_rename {
    const char *from;
    const char *to;
} pprof_edit_rename;

/* type NULL: every sample type. */
typedef struct pprof_edit_scale {
    const char *type;
    double factor;
} pprof_edit_scale;

/* What one operation did, for a verbose report: samples and value totals (one per sample type,
 * in the types' order before and after the step) going in and coming out. */
typedef struct pprof_edit_step {
    const char *op; /* the option's name, e.g. "focus" */
    size_t samples_in, samples_out;
    const int64_t *total_in;
    size_t n_total_in;
    const int64_t *total_out;
    size_t n_total_out;
} pprof_edit_step;

typedef void (*pprof_edit_step_fn)(void *ctx, const pprof_edit_step *step);

typedef struct pprof_edit_options {
    size_t struct_size; /* sizeof(pprof_edit_options) */

    /* Frame filters: Go regexps, NULL or "" = off (-focus, -ignore, -hide, -show, -show_from,
     * -prune_from). */
    const char *focus;
    const char *ignore;
    const char *hide;
    const char *show;
    const char *show_from;
    const char *prune_from;
    /* Profile.Prune with "^(" drop_frames ")$" and "^(" keep_frames ")$" (keep_frames alone is
     * an error). */
    const char *drop_frames;
    const char *keep_frames;
    /* Profile.RemoveUninteresting: prune with the profile's own drop_frames / keep_frames, as
     * go tool pprof does for every profile it loads. */
    bool remove_uninteresting;

    /* Label filters (-tagfocus, -tagignore: "[KEY=]RX[,RX...]" or a numeric range such as
     * "64kb:1mb"; -tagshow, -taghide: key regexps) and pseudo-frames (-tagroot, -tagleaf:
     * comma-separated keys). tag_unit is Go's -unit for the pseudo-frames' numbers (NULL:
     * "minimum"). */
    const char *tag_focus;
    const char *tag_ignore;
    const char *tag_show;
    const char *tag_hide;
    const char *tag_root;
    const char *tag_leaf;
    const char *tag_unit;

    /* Keep only these sample types (by type name), in this order. */
    const char *const *sample_types;
    size_t n_sample_types;

    /* Labels: removed, then renamed (string and numeric), then set (string; Profile.SetLabel
     * with one value). */
    const char *const *remove_labels;
    size_t n_remove_labels;
    const pprof_edit_rename *rename_labels;
    size_t n_rename_labels;
    const pprof_edit_label *set_labels;
    size_t n_set_labels;

    /* Values: Profile.Normalize to a base profile (NULL: off), then Profile.ScaleN by the
     * factors (a NULL type applies to every type; a later entry overrides an earlier one). */
    const pprof_profile *normalize_base;
    const pprof_edit_scale *scale;
    size_t n_scale;

    /* Profile.Aggregate at this granularity; no_inlines also folds inline frames. */
    pprof_granularity granularity;
    bool no_inlines;

    /* Trim: keep the leaf-most max_depth frames of each stack and add one root frame naming how
     * many were cut (0: off); drop samples whose |value| (of the default sample type) is below
     * min_fraction of the sum of |value| (0: off). */
    uint32_t max_depth;
    double min_fraction;

    /* Redact (PPROF_REDACT_*): replace with a hash keyed by redact_key (same input and key,
     * same output). */
    unsigned redact;
    const char *const *redact_labels;
    size_t n_redact_labels;
    const void *redact_key;
    size_t redact_key_len;

    pprof_warn_fn warn; /* Go's "matched no samples" warnings; NULL: dropped */
    void *warn_ctx;
    pprof_edit_step_fn step; /* NULL: no report */
    void *step_ctx;
    pprof_allocator allocator;
    unsigned threads; /* as pprof_merge_options.threads; the result never depends on it */

    /* Time: keep only the samples whose numeric label "timestamp_unix_nano" (the first one of
     * the sample) lies in [time_from, time_to). Each is an RFC 3339 time
     * ("2026-12-07T10:00:00.5Z", "...+01:00") or seconds (decimals allowed) from the first,
     * i.e. earliest, sample's time ("1.5"); NULL or "" leaves that side open. With either set,
     * samples without the label are dropped, and a profile none of whose samples has one is
     * PPROF_E_ARG. Applied right after normalize (docs/edit.md). */
    const char *time_from;
    const char *time_to;
    /* Remove every "timestamp_unix_nano" label, so that samples equal but for their times fold
     * into one (applied with the label operations). */
    bool drop_timestamps;
} pprof_edit_options;

/* Every operation off: all fields 0 or NULL. */
#define PPROF_EDIT_OPTIONS_INIT                                                                    \
    {                                                                                              \
        sizeof(pprof_edit_options), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, false, NULL,   \
            NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, NULL, 0, \
            PPROF_GRANULARITY_NONE, false, 0, 0.0, 0, NULL, 0, NULL, 0, NULL, NULL, NULL, NULL,    \
            {NULL, NULL, NULL, NULL}, 0, NULL, NULL, false                                         \
    }

PPROF_API void pprof_edit_options_init(pprof_edit_options *opts);

/* Returns a new profile: in, edited, with unreferenced strings, functions, locations and
 * mappings dropped and identical samples summed (all-zero samples dropped), in the merger's
 * canonical order. in is never modified. Errors: PPROF_E_ARG (an option is invalid; the message
 * names it), PPROF_E_INVALID (in breaks a rule the edit depends on; the path names the place),
 * PPROF_E_INCOMPATIBLE (normalize_base's sample types differ), PPROF_E_OVERFLOW (a value
 * scale, normalize, aggregation or the summing of identical samples takes out of int64, or a
 * normalize total that leaves it: the message names the sample; Go would wrap), PPROF_E_NOMEM. */
PPROF_API pprof_status pprof_edit(const pprof_profile *in, const pprof_edit_options *opts,
                                  pprof_profile **out, pprof_error *err);

/* The same edit written straight out: the same bytes as pprof_edit followed by
 * pprof_profile_write_file (or _write_memory, appending to *out), without building the output's
 * sample table. */
PPROF_API pprof_status pprof_edit_write_file(const pprof_profile *in,
                                             const pprof_edit_options *opts,
                                             const pprof_write_options *wopts, const char *path,
                                             pprof_error *err);
PPROF_API pprof_status pprof_edit_write_memory(const pprof_profile *in,
                                               const pprof_edit_options *opts,
                                               const pprof_write_options *wopts, pprof_buffer *out,
                                               pprof_error *err);

/* The same three for a merge input (pprof_merge_input_read_*): its samples are decoded and
 * edited a batch at a time, so the input's whole sample table is never decoded at once and
 * only one batch's edited copy exists; the result is the same bytes as editing the fully read
 * profile. Operations that need every sample (normalize, tag ranges' units, min_fraction)
 * read the samples once more per need. The call modifies the merge input (its batches are
 * decoded into it, and may be rewritten there), so one thread uses it at a time; it may be
 * edited or merged again afterwards. */
PPROF_API pprof_status pprof_edit_input(pprof_merge_input *in, const pprof_edit_options *opts,
                                        pprof_profile **out, pprof_error *err);
PPROF_API pprof_status pprof_edit_input_write_file(pprof_merge_input *in,
                                                   const pprof_edit_options *opts,
                                                   const pprof_write_options *wopts,
                                                   const char *path, pprof_error *err);
PPROF_API pprof_status pprof_edit_input_write_memory(pprof_merge_input *in,
                                                     const pprof_edit_options *opts,
                                                     const pprof_write_options *wopts,
                                                     pprof_buffer *out, pprof_error *err);

#ifdef __cplusplus
}
#endif

#endif
