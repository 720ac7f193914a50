/* The one error type: code, byte offset, path inside the profile, message. */
#include <stdio.h>

#include "common-private.h"

const char *
pprof_status_name(pprof_status code)
{
    static const char *const names[] = {
        "PPROF_OK",
        "PPROF_E_ARG",
        "PPROF_E_NOMEM",
        "PPROF_E_IO",
        "PPROF_E_EMPTY",
        "PPROF_E_WIRE",
        "PPROF_E_LIMIT",
        "PPROF_E_COMPRESSION",
        "PPROF_E_INVALID",
        "PPROF_E_INCOMPATIBLE",
        "PPROF_E_OVERFLOW",
        "PPROF_E_STALE",
        "PPROF_E_UNSUPPORTED",
    };
    if ((unsigned)code < sizeof(names) / sizeof(names[0]))
        return names[code];
    return "PPROF_E_UNKNOWN";
}

const char *
pprof_version_string(void)
{
    return PPROF_VERSION_STRING;
}

pprof_status
pprof__error(pprof_error *err, pprof_status code, uint64_t offset, const char *path,
             const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    err->offset = offset;
    snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    return code;
}

void
pprof__path(char *dst, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, 128, fmt, ap);
    va_end(ap);
}
