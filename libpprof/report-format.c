/* Percentages and JSON strings as `go tool pprof` prints them (unit scaling: measure.c). */
#include <math.h>
#include <stdio.h>

#include "report-private.h"
#include "utf8-private.h"

void
pprof__percentage(char *dst, size_t cap, int64_t v, int64_t total)
{
    double ratio = 0;
    if (total != 0)
        ratio = fabs((double)v / (double)total) * 100;
    if (fabs(ratio) >= 99.95 && fabs(ratio) <= 100.05)
        snprintf(dst, cap, "  100%%");
    else if (fabs(ratio) >= 1.0)
        snprintf(dst, cap, "%5.2f%%", ratio);
    else
        snprintf(dst, cap, "%5.2g%%", ratio);
}

/* Bytes that are not UTF-8 come out as \u00XX so that the document stays valid JSON. */
pprof_status
pprof__json_string(pprof_buffer *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    pprof_status st = pprof__buffer_append(b, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n && !st;) {
        unsigned char c = u[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x7f) {
            i++;
            continue;
        }
        size_t l = c >= 0x80 ? pprof__utf8_seq_len(u + i, n - i) : 0;
        if (l) { /* UTF-8 passes through; other bytes are escaped so the JSON stays valid */
            i += l;
            continue;
        }
        st = pprof__buffer_append(b, s + run, i - run);
        if (!st)
            st = c == '"' || c == '\\' ? pprof__buffer_printf(b, "\\%c", c)
                                       : pprof__buffer_printf(b, "\\u%04x", c);
        run = ++i;
    }
    if (!st)
        st = pprof__buffer_append(b, s + run, n - run);
    if (!st)
        st = pprof__buffer_append(b, "\"", 1);
    return st;
}
