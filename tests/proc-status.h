/* The tests' reading of their own /proc/self/status (resident memory peaks). */
#ifndef PPROF_TESTS_PROC_STATUS_H
#define PPROF_TESTS_PROC_STATUS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kilobytes of a /proc/self/status line (VmHWM, VmRSS); 0 when it cannot be read. */
static inline long
status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof(line), f))
        if (!strncmp(line, key, n) && line[n] == ':')
            kb = strtol(line + n + 1, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

#endif
