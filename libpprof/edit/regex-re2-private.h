/* RE2 through C (regex-re2.cc, the only C++ file in libpprof); regex.c is its one user.
 * Includes nothing C++ cannot read. Not installed. */
#ifndef PPROF_REGEX_RE2_PRIVATE_H
#define PPROF_REGEX_RE2_PRIVATE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Nothing here throws. */
typedef struct pprof__re2 pprof__re2;
enum { PPROF__RE2_OK = 0, PPROF__RE2_SYNTAX = 1, PPROF__RE2_NOMEM = 2 };
/* Compiles an RE2 pattern (UTF-8, Perl syntax as Go's). PPROF__RE2_SYNTAX sets
 * *why to Go's reason for the refusal (a static string). */
int pprof__re2_new(const char *pattern, size_t n, pprof__re2 **out, const char **why);
/* Unanchored search: 1 match, 0 none, -1 no memory. s need not be UTF-8 (RE2's own reading
 * of bad bytes; regex.c gives RE2 the subject as Go reads it). Thread-safe. */
int pprof__re2_match(const pprof__re2 *re, const char *s, size_t n);
/* The same, and on a match the offsets of groups 0 .. max_groups - 1 (at most 16) in ovec, two
 * a group, (size_t)-1 for a group that took no part. */
int pprof__re2_groups(const pprof__re2 *re, const char *s, size_t n, size_t *ovec,
                      size_t max_groups);
void pprof__re2_free(pprof__re2 *re);

#ifdef __cplusplus
}
#endif

#endif
