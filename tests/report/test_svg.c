/* The -svg step after the dot text (report-svg.c): Graphviz's messages come back inside the
 * error, never on standard error, and whatever link or stylesheet a dot text asks for never
 * reaches the SVG. TAP. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report-graph-private.h"
#include "tap.h"

/* dot laid out with standard error sent to a temporary file; *said: the bytes written there */
static pprof_status
run(const char *dot, pprof_buffer *svg, pprof_error *err, long *said)
{
    FILE *tmp = tmpfile();
    int saved = dup(2);
    fflush(stderr);
    if (tmp)
        dup2(fileno(tmp), 2);
    pprof_status st = pprof__svg_from_dot(dot, strlen(dot), svg, err);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    *said = tmp ? (fseek(tmp, 0, SEEK_END), ftell(tmp)) : -1;
    if (tmp)
        fclose(tmp);
    return st;
}

static bool
has(const pprof_buffer *b, const char *what)
{
    size_t n = strlen(what);
    for (size_t i = 0; i + n <= b->len; i++)
        if (!memcmp((const char *)b->data + i, what, n))
            return true;
    return false;
}

int
main(void)
{
    tap t = {0};
    pprof_buffer svg = {0};
    pprof_error err;
    long said = 0;
    pprof_status st = run("digraph { a -> b }", &svg, &err, &said);
    if (st && strstr(err.message, "without Graphviz")) {
        printf("1..0 # SKIP built without Graphviz\n");
        return 0;
    }
    tap_ok(&t, st == PPROF_OK && has(&svg, "</svg>"), "a graph draws");
    pprof_buffer_free(&svg);

    /* a syntax error: Graphviz's own words are in the message, none on standard error */
    memset(&err, 0, sizeof(err));
    st = run("digraph {\nnode [style=filled]\na -> b\nc [label=\"x\" \"y\" =]\n}", &svg, &err,
             &said);
    tap_ok(&t, st == PPROF_E_INVALID, "a syntax error is an error (%d)", st);
    tap_ok(&t, strstr(err.message, "could not read the dot graph") != NULL, "what failed: %s",
           err.message);
    tap_ok(&t, strstr(err.message, "(Graphviz: ") && strstr(err.message, "syntax error"),
           "Graphviz's message inside ours: %s", err.message);
    tap_ok(&t, said == 0, "nothing on standard error (%ld bytes)", said);
    pprof_buffer_free(&svg);

    /* the handler is put back: a second error is captured again, into the second message */
    memset(&err, 0, sizeof(err));
    st = run("digraph { a -> ", &svg, &err, &said);
    tap_ok(&t, st && strstr(err.message, "syntax error") && said == 0,
           "a second error is captured too: %s", err.message);
    pprof_buffer_free(&svg);

    /* links, images and a stylesheet the dot text asks for are dropped */
    st = run("digraph {\nstylesheet=\"http://127.0.0.1:9/track.css\"\n"
             "a [URL=\"javascript:window.__pwned=1\" target=\"_self\"]\n"
             "b [href=\"http://127.0.0.1:9/x\" image=\"http://127.0.0.1:9/i.png\"]\n"
             "c [URL=\"#N1\"]\na -> b [URL=\"javascript:1\" labelURL=\"javascript:2\" label=x]\n"
             "b -> c\n}",
             &svg, &err, &said);
    tap_ok(&t, st == PPROF_OK, "the hostile graph draws (%d %s)", st, st ? err.message : "");
    tap_ok(&t, !has(&svg, "javascript:"), "no javascript: link");
    tap_ok(&t, !has(&svg, "127.0.0.1"), "no reference out of the document");
    tap_ok(&t, !has(&svg, "<?xml-stylesheet"), "no stylesheet");
    tap_ok(&t, has(&svg, "xlink:href=\"#N1\""), "a reference inside the document stays");
    tap_ok(&t, has(&svg, "<?xml version"), "the XML declaration stays");
    if (t.failed)
        tap_diag("%.*s", (int)(svg.len < 3000 ? svg.len : 3000), (const char *)svg.data);
    pprof_buffer_free(&svg);

    /* a dense graph (40 nodes, 1,014 labelled edges, as a small profile with many labels makes)
     * is laid out in seconds: dot's default iterations take minutes on it (this test's timeout) */
    pprof_buffer dense = {0};
    pprof__buffer_printf(&dense, "digraph {\nnode [shape=box]\n");
    for (int i = 0; i < 40; i++)
        pprof__buffer_printf(&dense, "N%d [label=\"function_number_%d\\n%d.5s\"]\n", i, i, i);
    for (int i = 0; i < 40; i++)
        for (int j = 0; j < 40; j++)
            if (i != j && (i * 7 + j * 3) % 3)
                pprof__buffer_printf(&dense, "N%d -> N%d [label=\" %d.1s\"]\n", i, j, i + j);
    pprof__buffer_printf(&dense, "}\n");
    st = run((const char *)dense.data, &svg, &err, &said);
    tap_ok(&t, st == PPROF_OK && has(&svg, "</svg>") && has(&svg, "<title>N1&#45;&gt;N0</title>"),
           "a dense graph draws (%d %s)", st, st ? err.message : "");
    pprof_buffer_free(&svg);
    pprof_buffer_free(&dense);
    return tap_done(&t);
}
