/* Finding delivery, shared by the checker, the cross-profile inline check and repair: the
 * enabled mask, the caller's limit and callback, and the summary counts. */
#include <stdio.h>

#include <string.h>

#include "check-private.h"

static size_t
sum_size(const pprof_check_summary *user)
{
    return user->struct_size < sizeof(*user) ? user->struct_size : sizeof(*user);
}

pprof_check_summary *
pprof__sum_in(pprof_check_summary *local, const pprof_check_summary *user)
{
    memset(local, 0, sizeof(*local));
    if (!user)
        return NULL;
    memcpy(local, user, sum_size(user));
    local->struct_size = sizeof(*local);
    return local;
}

void
pprof__sum_out(pprof_check_summary *user, const pprof_check_summary *local)
{
    if (!user)
        return;
    size_t keep = user->struct_size;
    memcpy(user, local, sum_size(user));
    user->struct_size = keep;
}

void
pprof__ck_init(pprof__ck *c, const pprof_check_options *opts, pprof_finding_fn fn, void *ctx,
               pprof_check_summary *sum)
{
    pprof_check_options o = PPROF_CHECK_OPTIONS_INIT;
    if (opts) {
        size_t n = opts->struct_size < sizeof(o) ? opts->struct_size : sizeof(o);
        memcpy(&o, opts, n);
        o.struct_size = sizeof(o);
    }
    memset(c, 0, sizeof(*c));
    c->enabled = o.enabled;
    c->n_enabled = o.enabled ? o.n_enabled : 0;
    c->max = o.max_findings;
    c->regex_check = o.regex_check;
    c->fn = fn;
    c->ctx = ctx;
    c->sum = sum;
}

bool
pprof__ck_on(const pprof__ck *c, pprof_rule r)
{
    return !c->enabled || (size_t)r >= c->n_enabled || c->enabled[r];
}

bool
pprof__ck_take(pprof__ck *c, pprof_rule r)
{
    if (!pprof__ck_on(c, r))
        return false;
    if (c->sum)
        c->sum->count[pprof__rules[r].severity]++;
    if (c->stop || !c->fn || c->reported >= c->max) {
        if (c->sum)
            c->sum->truncated = c->sum->truncated || c->fn != NULL;
        return false;
    }
    return true;
}

void
pprof__ck_emit(pprof__ck *c, pprof_rule r, uint64_t off, const char *path, const char *msg)
{
    pprof_finding f = {
        .rule = r,
        .rule_id = pprof__rules[r].id,
        .severity = pprof__rules[r].severity,
        .file = c->file,
        .offset = off,
        .path = path ? path : "",
        .message = msg,
    };
    c->reported++;
    if (c->sum)
        c->sum->reported++;
    if (!c->fn(c->ctx, &f)) {
        c->stop = true;
        if (c->sum)
            c->sum->truncated = true;
    }
}

void
pprof__ck_put(pprof__ck *c, pprof_rule r, uint64_t off, const char *path, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    pprof__ck_emit(c, r, off, path, msg);
}
