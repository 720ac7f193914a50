/* Go's regexp answers, checked in (expected.tsv, written by gen.go from cases.txt), against
 * libpprof's: each pattern Go refuses is refused with Go's reason, each pattern Go accepts
 * gives Go's yes or no on each name. Usage: test_regex EXPECTED.tsv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex-private.h"
#include "tap.h"

static tap T;

/* Hex (or "-" for empty) into a new buffer; *n its length. NULL on a malformed field. */
static char *
unhex(const char *h, size_t *n)
{
    size_t len = strlen(h);
    if (strcmp(h, "-") == 0)
        len = 0;
    char *out = malloc(len / 2 + 1);
    if (!out || len % 2)
        return free(out), NULL;
    for (size_t i = 0; i < len / 2; i++) {
        unsigned v;
        if (sscanf(h + 2 * i, "%2x", &v) != 1)
            return free(out), NULL;
        out[i] = (char)v;
    }
    out[len / 2] = 0;
    *n = len / 2;
    return out;
}

/* open^count core close^count */
static char *
nest(unsigned long count, const char *o, const char *c, const char *e, size_t *n)
{
    size_t on, cn, en;
    char *po = unhex(o, &on), *pc = unhex(c, &cn), *pe = unhex(e, &en), *out = NULL;
    if (po && pc && pe && (out = malloc(count * (on + en) + cn + 1))) {
        size_t k = 0;
        for (unsigned long i = 0; i < count; i++, k += on)
            memcpy(out + k, po, on);
        memcpy(out + k, pc, cn);
        k += cn;
        for (unsigned long i = 0; i < count; i++, k += en)
            memcpy(out + k, pe, en);
        out[k] = 0;
        *n = k;
    }
    free(po);
    free(pc);
    free(pe);
    return out;
}

/* The pattern, printable and short, for test names. */
#define SHOW 64
static const char *
show(char *buf, const char *p, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 5 < SHOW; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c < 0x7f && c != '#')
            buf[k++] = (char)c;
        else
            k += (size_t)snprintf(buf + k, SHOW - k, "\\x%02x", c);
    }
    if (n > 0 && k + 5 >= SHOW)
        memcpy(buf + k, "...", 4);
    else
        buf[k] = 0;
    return buf;
}

int
main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
    if (!f) {
        printf("Bail out! cannot open %s\n", argc > 1 ? argv[1] : "(no argument)");
        return 1;
    }
    static char line[1 << 16];
    char b1[SHOW], b2[SHOW];
    char *pat = NULL;
    size_t pn = 0, lineno = 0;
    pprof__regex *re = NULL;
    const char *why = NULL;
    int rc = -2;
    size_t n_pat = 0, n_refused = 0, n_match = 0;
    while (fgets(line, sizeof(line), f)) {
        lineno++;
        line[strcspn(line, "\n")] = 0;
        if (line[0] == '#' || line[0] == 0)
            continue;
        char *fld[5] = {0};
        int nf = 0;
        for (char *t = strtok(line, "\t"); t && nf < 5; t = strtok(NULL, "\t"))
            fld[nf++] = t;
        if (fld[0][0] == 'P' || fld[0][0] == 'N') {
            pprof__regex_free(re);
            re = NULL;
            free(pat);
            pat = fld[0][0] == 'P' && nf == 2 ? unhex(fld[1], &pn)
                  : nf == 5 ? nest(strtoul(fld[1], NULL, 10), fld[2], fld[3], fld[4], &pn)
                            : NULL;
            if (!pat) {
                printf("Bail out! %s:%zu: bad pattern line\n", argv[1], lineno);
                return 1;
            }
            n_pat++;
            why = NULL;
            rc = pprof__re2_check(pat, pn, &why);
            pprof_error err;
            if (rc == 0 && pprof__regex_new(pat, pn, "test", NULL, &re, &err))
                tap_ok(&T, 0, "/%s/ compiles: %s", show(b1, pat, pn), err.message);
        } else if (fld[0][0] == 'E' && nf == 2 && pat) {
            n_refused++;
            tap_ok(&T, rc == 1 && why && strcmp(why, fld[1]) == 0, "/%s/ refused: %s (Go: %s)",
                   show(b1, pat, pn),
                   rc == 1   ? why
                   : rc == 0 ? "accepted"
                             : "no memory",
                   fld[1]);
        } else if (fld[0][0] == 'M' && nf == 3 && pat) {
            size_t sn;
            char *s = unhex(fld[1], &sn);
            int want = atoi(fld[2]);
            int got = re && s ? pprof__regex_match(re, s, sn) : rc == 1 ? -3 : -2;
            n_match++;
            tap_ok(&T, got == want, "/%s/ on %s: %d (Go: %d)%s%s", show(b1, pat, pn),
                   s ? show(b2, s, sn) : "?", got, want, got == -3 ? " refused: " : "",
                   got == -3 ? why : "");
            free(s);
        } else {
            printf("Bail out! %s:%zu: bad line\n", argv[1], lineno);
            return 1;
        }
    }
    fclose(f);
    pprof__regex_free(re);
    free(pat);
    tap_diag("%zu patterns, %zu refused by Go, %zu names matched", n_pat, n_refused, n_match);
    /* The one documented difference (docs/edit.md, difference 9): a pattern whose RE2 program
     * is past RE2's memory budget is refused, though Go, whose programs are smaller, takes it. */
    const char *big = "\\pL{1000}\\pL{1000}\\pL{1000}";
    why = NULL;
    tap_ok(&T,
           pprof__re2_check(big, strlen(big), &why) == 1 && why &&
               strcmp(why, "expression too large") == 0,
           "%s: refused as %s", big, why ? why : "(accepted)");
    tap_ok(&T, n_pat > 200, "the table is read whole");
    printf("1..%d\n", T.n);
    return T.failed ? 1 : 0;
}
