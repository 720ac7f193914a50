/* A client of the installed shared library: public headers only, exported symbols only. The
 * version macros agree with the library, and a corpus profile reads and round-trips. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof-version.h"
#include "pprof.h"

int
main(void)
{
    int n = 0, failed = 0;
#define CHECK(cond, what)                                                                          \
    do {                                                                                           \
        bool pass_ = (cond);                                                                       \
        n++;                                                                                       \
        failed += !pass_;                                                                          \
        printf("%s %d - %s\n", pass_ ? "ok" : "not ok", n, what);                                  \
    } while (0)
    CHECK(strcmp(pprof_version_string(), PPROF_VERSION_STRING) == 0,
          "pprof_version_string() == PPROF_VERSION_STRING");
    char v[64];
    snprintf(v, sizeof(v), "%d.%d.%d", PPROF_VERSION_MAJOR, PPROF_VERSION_MINOR,
             PPROF_VERSION_PATCH);
    CHECK(strcmp(v, PPROF_VERSION_STRING) == 0, "MAJOR.MINOR.PATCH == PPROF_VERSION_STRING");
    CHECK(PPROF_VERSION_ATLEAST(PPROF_VERSION_MAJOR, PPROF_VERSION_MINOR, PPROF_VERSION_PATCH) &&
              !PPROF_VERSION_ATLEAST(PPROF_VERSION_MAJOR, PPROF_VERSION_MINOR,
                                     PPROF_VERSION_PATCH + 1),
          "PPROF_VERSION_ATLEAST");
    CHECK(strcmp(pprof_status_name(PPROF_E_WIRE), "PPROF_E_WIRE") == 0 &&
              strcmp(pprof_status_name((pprof_status)9999), "PPROF_E_UNKNOWN") == 0,
          "pprof_status_name");

    const char *dir = getenv("PPROF_REAL_CORPUS");
    char path[1024];
    snprintf(path, sizeof(path), "%s/parca/query-fib.pb.gz", dir ? dir : "corpus/real");
    pprof_profile *p = NULL, *q = NULL;
    pprof_error err;
    pprof_status st = pprof_profile_read_file(path, NULL, &p, &err);
    if (st == PPROF_E_IO) {
        printf("ok %d - corpus round trip # SKIP %s missing\n", ++n, path);
    } else {
        pprof_buffer b = {0};
        pprof_write_options w = PPROF_WRITE_OPTIONS_INIT;
        CHECK(st == PPROF_OK && pprof_profile_write_memory(p, &w, &b, &err) == PPROF_OK &&
                  pprof_profile_read_memory(b.data, b.len, NULL, &q, &err) == PPROF_OK &&
                  pprof_profile_equal(p, q),
              "a corpus profile round-trips through the shared library");
        pprof_buffer_free(&b);
    }
    pprof_profile_free(p);
    pprof_profile_free(q);
    printf("1..%d\n", n);
    return failed ? 1 : 0;
}
