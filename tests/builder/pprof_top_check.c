/* pprof_top_check FILE FUNCTION N: decodes and validates FILE (and runs pprof_check when the
 * library has it), prints the top functions by flat value (leaf frame, first sample type) and
 * exits 0 when FUNCTION is among the top N, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bhelp.h"

typedef struct row {
    pprof_string name;
    int64_t flat;
} row;

static int
by_flat(const void *a, const void *b)
{
    const row *x = a, *y = b;
    return x->flat < y->flat ? 1 : x->flat > y->flat ? -1 : 0;
}

int
main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: pprof_top_check FILE FUNCTION N\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 3;
    }
    static unsigned char buf[1 << 24];
    size_t len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    pprof_profile *p = bhelp_decode(buf, len);
    if (!p) {
        printf("%s: does not decode or validate\n", argv[1]);
        return 1;
    }
    size_t ns = pprof_profile_count(p, PPROF_TABLE_SAMPLE);
    row *rows = calloc(ns + 1, sizeof(row));
    size_t nr = 0;
    int64_t total = 0;
    for (size_t i = 0; i < ns; i++) {
        pprof_sample s = pprof_profile_sample(p, i);
        total += s.value[0];
        pprof_string n = {"(no frames)", 11};
        if (s.n_location_id)
            n = bhelp_loc_name(p, s.location_id[0]);
        if (!n.len)
            n = (pprof_string){"(unsymbolized)", 14};
        size_t j = 0;
        while (j < nr && !(rows[j].name.len == n.len && !memcmp(rows[j].name.data, n.data, n.len)))
            j++;
        if (j == nr)
            rows[nr++] = (row){n, 0};
        rows[j].flat += s.value[0];
    }
    qsort(rows, nr, sizeof(row), by_flat);
    int top = atoi(argv[3]), found = 0;
    printf("%lld samples; top functions by flat samples:\n", (long long)total);
    for (size_t j = 0; j < nr && j < 10; j++) {
        printf("  %6lld %5.1f%%  %.*s\n", (long long)rows[j].flat,
               total ? 100.0 * (double)rows[j].flat / (double)total : 0.0, (int)rows[j].name.len,
               rows[j].name.data);
        if ((int)j < top && rows[j].name.len == strlen(argv[2]) &&
            !memcmp(rows[j].name.data, argv[2], rows[j].name.len))
            found = 1;
    }
    printf("%s %s among the top %d\n", argv[2], found ? "is" : "is NOT", top);
    free(rows);
    pprof_profile_free(p);
    return found && total > 0 ? 0 : 1;
}
