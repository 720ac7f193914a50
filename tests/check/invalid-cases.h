/* Broken profiles that every tool and entry point must refuse, with the rule each breaks. */
#ifndef PPROF_TESTS_CHECK_INVALID_CASES_H
#define PPROF_TESTS_CHECK_INVALID_CASES_H

#include "cases.h"

typedef struct icase {
    const char *rule; /* the rule id the refusal names */
    const char *what; /* which field or variant */
    void (*build)(pb *b);
} icase;

extern const icase ICASES[];
extern const size_t N_ICASES;
/* "RULE.WHAT.pb" */
void icase_file_name(const icase *c, char *out, size_t cap);

#endif
