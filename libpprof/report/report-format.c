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

