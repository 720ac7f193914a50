/* Prints a profile's stacks as perf script prints addresses, one line per sample, root first:
 * "FRAME;FRAME COUNT", where a frame in a file mapping is "FILE+0xOFFSET" (the address in the
 * file, perf's map_ip; [vdso] too) and a kernel or unmapped frame "0xADDRESS". The test compares
 * these with `perf script -F ip,dso` of the same recording. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pprof.h"

int
main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: perf_stacks PROFILE\n");
        return 2;
    }
    pprof_profile *p;
    pprof_error err;
    if (pprof_profile_read_file(argv[1], NULL, &p, &err)) {
        fprintf(stderr, "perf_stacks: %s: %s\n", argv[1], err.message);
        return 1;
    }
    size_t ns = pprof_profile_count(p, PPROF_TABLE_SAMPLE);
    for (size_t i = 0; i < ns; i++) {
        pprof_sample s = pprof_profile_sample(p, i);
        for (size_t k = s.n_location_id; k-- > 0;) {
            size_t li, mi;
            if (!pprof_profile_find_location(p, s.location_id[k], &li))
                return 1;
            pprof_location l = pprof_profile_location(p, li);
            pprof_string name = {"", 0};
            pprof_mapping m = {0};
            if (l.mapping_id && pprof_profile_find_mapping(p, l.mapping_id, &mi)) {
                m = pprof_profile_mapping(p, mi);
                pprof_profile_string(p, m.filename, &name);
            }
            bool absolute =
                !name.len || (name.len >= 17 && !memcmp(name.data, "[kernel.kallsyms]", 17));
            if (!absolute)
                printf("%.*s+0x%" PRIx64, (int)name.len, name.data,
                       l.address - m.memory_start + m.file_offset);
            else
                printf("0x%" PRIx64, l.address);
            putchar(k ? ';' : ' ');
        }
        if (!s.n_location_id)
            printf("- ");
        printf("%" PRId64 "\n", s.value[0]);
    }
    pprof_profile_free(p);
    return 0;
}
