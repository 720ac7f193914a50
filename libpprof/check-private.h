/* Shared by check.c, inline.c and repair.c. Not installed. */
#ifndef PPROF_CHECK_PRIVATE_H
#define PPROF_CHECK_PRIVATE_H

#include "pprof/check.h"
#include "profile-private.h"
#include "utf8-private.h"

/* Finding delivery: enabled mask, limit, callback, summary. */
typedef struct pprof__ck {
    const bool *enabled;
    size_t n_enabled;
    uint64_t max;
    uint64_t reported;
    pprof_finding_fn fn;
    void *ctx;
    pprof_check_summary *sum;
    const char *file;
    bool stop;
} pprof__ck;

void pprof__ck_init(pprof__ck *c, const pprof_check_options *opts, pprof_finding_fn fn, void *ctx,
                    pprof_check_summary *sum);
bool pprof__ck_on(const pprof__ck *c, pprof_rule r);
/* Counts a finding of an enabled rule; true when it should be formatted and delivered. */
bool pprof__ck_take(pprof__ck *c, pprof_rule r);
void pprof__ck_emit(pprof__ck *c, pprof_rule r, uint64_t off, const char *path, const char *msg);
void pprof__ck_put(pprof__ck *c, pprof_rule r, uint64_t off, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* NULL when s is valid RE2 syntax, else the reason. */
const char *pprof__regex_error(const char *s, size_t n);

#endif
