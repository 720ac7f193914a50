/* Go (RE2) regular expressions on PCRE2: a syntax gate that rejects what Go's regexp rejects
 * and rewrites the few escapes whose meaning differs, then PCRE2 with JIT and match limits.
 * Not installed. */
#ifndef PPROF_REGEX_PRIVATE_H
#define PPROF_REGEX_PRIVATE_H

#include "profile-private.h"

/* NULL when s is a pattern Go's regexp accepts, else why not (a static string). When out is
 * not NULL, the PCRE2 spelling of the same pattern is written there (at most 4 * n + 64 bytes
 * plus a NUL: each input byte becomes at most 34 output bytes only for \S, see regex.c, so the
 * caller sizes out with pprof__regex_translated_max). */
const char *pprof__re2_check(const char *s, size_t n, char *out, size_t *out_len);
size_t pprof__regex_translated_max(size_t n);

typedef struct pprof__regex pprof__regex;

/* Compiles a Go pattern. option names the option in errors ("focus"). Errors: PPROF_E_ARG
 * (syntax), PPROF_E_NOMEM. */
pprof_status pprof__regex_new(const char *pattern, size_t n, const char *option,
                              const pprof_allocator *a, pprof__regex **out, pprof_error *err);
void pprof__regex_free(pprof__regex *re);

/* Unanchored search, as Go's MatchString. 1: match, 0: none, -1: the match limit was hit
 * (the caller reports it: no answer is guessed). */
int pprof__regex_match(pprof__regex *re, const char *s, size_t n);
/* The same, and on a match the offsets of groups 0 .. max_groups - 1 in ovec (2 per group,
 * (size_t)-1 for a group that did not take part), as Go's FindStringSubmatchIndex. */
int pprof__regex_groups(pprof__regex *re, const char *s, size_t n, size_t *ovec,
                        size_t max_groups);
const char *pprof__regex_option(const pprof__regex *re);

#endif
