/* Go regular expressions: RE2 (regex-re2.cc, the only C++ file) behind a small gate for the
 * few places RE2's syntax differs from Go's (regex.c). Not installed. */
#ifndef PPROF_REGEX_PRIVATE_H
#define PPROF_REGEX_PRIVATE_H

#include "profile-private.h"
#include "regex-re2-private.h"

/* ---- regex.c: Go's regexp. */

/* 0 when s is a pattern Go's regexp accepts, 1 when it is not (*why: Go's reason, a static
 * string), -1 when there was no memory to decide. */
int pprof__re2_check(const char *s, size_t n, const char **why);

typedef struct pprof__regex pprof__regex;

/* Compiles a Go pattern. option names the option in errors ("focus"). Errors: PPROF_E_ARG
 * (syntax, with Go's reason), PPROF_E_NOMEM. */
pprof_status pprof__regex_new(const char *pattern, size_t n, const char *option,
                              const pprof_allocator *a, pprof__regex **out, pprof_error *err);
void pprof__regex_free(pprof__regex *re);

/* Unanchored search, as Go's MatchString, in time linear in n. 1: match, 0: none, -1: no
 * memory for the search (the caller reports it: no answer is guessed). One thread at a time
 * per re (a scratch buffer for names that are not UTF-8). */
int pprof__regex_match(pprof__regex *re, const char *s, size_t n);
/* The same, and on a match the offsets of groups 0 .. max_groups - 1 in ovec (2 per group,
 * (size_t)-1 for a group that did not take part), as Go's FindStringSubmatchIndex. */
int pprof__regex_groups(pprof__regex *re, const char *s, size_t n, size_t *ovec, size_t max_groups);
const char *pprof__regex_option(const pprof__regex *re);

#endif
