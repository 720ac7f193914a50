/* Replay driver: runs a harness over files and directories (not recursive) and prints TAP, so
 * that `meson test` replays the kept corpus and every past crash without a fuzzing engine. A
 * crash or failed oracle aborts the process, which the test runner reports as a failure; the
 * last "# running" line names the file. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

typedef struct list {
    char **v;
    size_t n, cap;
} list;

static void
push(list *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = realloc(l->v, l->cap * sizeof(char *));
        if (!l->v) {
            perror("realloc");
            exit(2);
        }
    }
    if (!(l->v[l->n++] = strdup(s))) {
        perror("strdup");
        exit(2);
    }
}

static int
cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
collect(list *l, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        printf("# %s: %s (skipped)\n", path, strerror(errno));
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        push(l, path);
        return;
    }
    DIR *d = opendir(path);
    if (!d) {
        printf("# %s: %s (skipped)\n", path, strerror(errno));
        return;
    }
    size_t first = l->n;
    struct dirent *e;
    char buf[4096];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
            continue;
        snprintf(buf, sizeof(buf), "%s/%s", path, e->d_name);
        if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
            push(l, buf);
    }
    closedir(d);
    qsort(l->v + first, l->n - first, sizeof(char *), cmp);
}

static int
run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            return -1;
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        buf = realloc(buf, cap);
    }
    int bad = ferror(f);
    fclose(f);
    if (!bad) {
        /* An exact-size copy, so ASan catches a harness reading past the input. */
        uint8_t *exact = malloc(n ? n : 1);
        if (exact) {
            memcpy(exact, buf, n);
            LLVMFuzzerTestOneInput(exact, n);
            free(exact);
        } else {
            bad = 1;
        }
    }
    free(buf);
    return bad ? -1 : 0;
}

int
main(int argc, char **argv)
{
    list l = {0};
    for (int i = 1; i < argc; i++)
        collect(&l, argv[i]);
    if (l.n == 0) {
        printf("1..0 # SKIP no inputs\n");
        return 0;
    }
    printf("1..%zu\n", l.n);
    int failed = 0;
    for (size_t i = 0; i < l.n; i++) {
        printf("# running %s\n", l.v[i]);
        fflush(stdout);
        if (run_file(l.v[i]) != 0) {
            printf("not ok %zu - %s (cannot read)\n", i + 1, l.v[i]);
            failed = 1;
        } else {
            printf("ok %zu - %s\n", i + 1, l.v[i]);
        }
        free(l.v[i]);
    }
    free(l.v);
    return failed;
}
