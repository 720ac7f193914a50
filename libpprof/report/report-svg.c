/* -svg: the dot graph laid out and drawn by Graphviz's library in this process, which is what
 * `go tool pprof -svg` gets by piping -dot into `dot -Tsvg`, then reshaped for panning and
 * zooming in a browser as Go's driver.massageSVG reshapes it. The pan/zoom script is ours
 * (docs/report.md, "SVG"): the rest of the document is Go's byte for byte.
 *
 * Graphviz keeps process-wide state (its dot parser, error reporting and plugin tables), so
 * this is the one report that must not run on two threads at once (report.h). Everything of
 * ours lives in the call: one Graphviz context per render, freed before returning.
 *
 * Profile strings reach the dot text only through report-dot.c's dot_quote; as a second line
 * of defence the SVG Graphviz draws keeps no link or reference out of the document (see
 * drop_references). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-graph-private.h"
#include "utf8-private.h"

/* The most bytes of one string in the dot text Graphviz lays out, then "…": a name of a
 * megabyte made the layout take a minute and a gigabyte, and nobody reads a box that wide. The
 * -dot report keeps every string whole, as Go prints it. */
enum { SVG_STRING_MAX = 1024 };

/* Real profiles' graphs of 80 nodes have at most a few hundred edges (the corpus: 130); Go's
 * layout is kept up to this many. */
enum { SVG_DENSE_EDGES = 250 };

#ifndef PPROF_HAVE_GRAPHVIZ
/* Built with -Dgraphviz=disabled (the fuzzing service's static build: no static Graphviz). */
pprof_status
pprof__svg_from_dot(const char *dot, size_t n, pprof_buffer *svg, pprof_error *err)
{
    (void)dot;
    (void)n;
    (void)svg;
    return pprof__error(err, PPROF_E_ARG, PPROF_NO_OFFSET, "",
                        "svg: this libpprof was built without Graphviz (-Dgraphviz=disabled)");
}
#else
#include <gvc.h>

/* Wheel zoom about the pointer and drag to pan, on the group Go names "viewport"; the start
 * transform is the one Go writes (scale 0.5). Written for this file, not taken from SVGPan. */
static const char PAN_ZOOM_JS[] =
    "\n"
    "(function () {\n"
    "  'use strict';\n"
    "  var root = document.documentElement, vp = document.getElementById('viewport');\n"
    "  if (!vp || !root.createSVGPoint) return;\n"
    "  var s = 0.5, x = 0, y = 0, drag = null;\n"
    "  function apply() {\n"
    "    vp.setAttribute('transform', 'translate(' + x + ',' + y + ') scale(' + s + ')');\n"
    "  }\n"
    "  /* client (CSS pixel) coordinates to the root's user units */\n"
    "  function at(e) {\n"
    "    var p = root.createSVGPoint(), m = root.getScreenCTM();\n"
    "    p.x = e.clientX;\n"
    "    p.y = e.clientY;\n"
    "    return m ? p.matrixTransform(m.inverse()) : p;\n"
    "  }\n"
    "  root.addEventListener('wheel', function (e) {\n"
    "    e.preventDefault();\n"
    "    var d = e.deltaY * (e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 400 : 1);\n"
    "    var f = Math.pow(1.2, -d / 100), p = at(e);\n"
    "    if (s * f < 1e-3 || s * f > 1e3) return;\n"
    "    x = p.x - (p.x - x) * f;\n"
    "    y = p.y - (p.y - y) * f;\n"
    "    s *= f;\n"
    "    apply();\n"
    "  }, {passive: false});\n"
    "  root.addEventListener('mousedown', function (e) {\n"
    "    if (e.button !== 0) return;\n"
    "    var p = at(e);\n"
    "    drag = {px: p.x, py: p.y, x: x, y: y};\n"
    "    root.style.cursor = 'move';\n"
    "    e.preventDefault();\n"
    "  });\n"
    "  root.addEventListener('mousemove', function (e) {\n"
    "    if (!drag) return;\n"
    "    var p = at(e);\n"
    "    x = drag.x + p.x - drag.px;\n"
    "    y = drag.y + p.y - drag.py;\n"
    "    apply();\n"
    "  });\n"
    "  function stop() {\n"
    "    drag = null;\n"
    "    root.style.cursor = '';\n"
    "  }\n"
    "  root.addEventListener('mouseup', stop);\n"
    "  root.addEventListener('mouseleave', stop);\n"
    "})();\n";

static const char *
find(const char *s, const char *end, const char *what)
{
    size_t n = strlen(what);
    for (; (size_t)(end - s) >= n; s++)
        if (!memcmp(s, what, n))
            return s;
    return NULL;
}

static const char *
skip_space(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f'))
        s++;
    return s;
}

/* NAME="one or more non-quote bytes" at s: the byte after it, or NULL. */
static const char *
attr(const char *s, const char *end, const char *name)
{
    size_t n = strlen(name);
    if ((size_t)(end - s) < n + 2 || memcmp(s, name, n) || s[n] != '=' || s[n + 1] != '"')
        return NULL;
    const char *v = s + n + 2, *q = v;
    while (q < end && *q != '"')
        q++;
    return q < end && q > v ? q + 1 : NULL;
}

/* Go's regexp <svg\s*width="[^"]+"\s*height="[^"]+"\s*viewBox="[^"]+"; its leftmost match. */
static bool
find_svg_head(const char *s, const char *end, const char **at, const char **after)
{
    for (const char *p = s; (p = find(p, end, "<svg")); p++) {
        const char *q = attr(skip_space(p + 4, end), end, "width");
        q = q ? attr(skip_space(q, end), end, "height") : NULL;
        q = q ? attr(skip_space(q, end), end, "viewBox") : NULL;
        if (q) {
            *at = p;
            *after = q;
            return true;
        }
    }
    return false;
}

/* Go's <g id="graph\d"; its leftmost match. */
static const char *
find_graph_group(const char *s, const char *end)
{
    for (const char *p = s; (p = find(p, end, "<g id=\"graph")); p++)
        if (end - p > 12 && p[12] >= '0' && p[12] <= '9')
            return p;
    return NULL;
}

/* Appends s[0, n) with dot's unquoted "&;" written "&amp;;", as massageSVG repairs it. */
static pprof_status
append_fixed(pprof_buffer *out, const char *s, size_t n)
{
    const char *end = s + n, *run = s;
    for (const char *p = s; (p = find(p, end, "&;"));) {
        pprof_status st = pprof__buffer_append(out, run, (size_t)(p - run));
        if (!st)
            st = pprof__buffer_append(out, "&amp;", 5);
        if (st)
            return st;
        run = ++p;
    }
    return pprof__buffer_append(out, run, (size_t)(end - run));
}

/* driver.massageSVG on dot's SVG: the fixed size and viewBox become 100%, the script and a
 * "viewport" group go before the graph's group, the group is closed before </svg>. Each edit
 * is made only where Go's pattern matches, as Go makes it. */
static pprof_status
massage(const char *svg, size_t n, pprof_buffer *out)
{
    pprof_buffer fixed = {0};
    pprof_status st = append_fixed(&fixed, svg, n);
    if (st)
        goto out;
    const char *s = fixed.len ? (const char *)fixed.data : "", *end = s + fixed.len;
    const char *head = NULL, *head_end = NULL;
    pprof_buffer a = {0}, b = {0};
    if (find_svg_head(s, end, &head, &head_end)) {
        if ((st = pprof__buffer_append(&a, s, (size_t)(head - s))) ||
            (st = pprof__buffer_append(&a, "<svg width=\"100%\" height=\"100%\"", 31)) ||
            (st = pprof__buffer_append(&a, head_end, (size_t)(end - head_end))))
            goto out_ab;
    } else if ((st = pprof__buffer_append(&a, s, fixed.len))) {
        goto out_ab;
    }
    s = a.len ? (const char *)a.data : "";
    end = s + a.len;
    const char *g = find_graph_group(s, end);
    if (g) {
        static const char open[] = "<script type=\"text/ecmascript\"><![CDATA[";
        static const char close[] = "]]></script><g id=\"viewport\" transform=\"scale(0.5,0.5) "
                                    "translate(0,0)\">";
        if ((st = pprof__buffer_append(&b, s, (size_t)(g - s))) ||
            (st = pprof__buffer_append(&b, open, sizeof(open) - 1)) ||
            (st = pprof__buffer_append(&b, PAN_ZOOM_JS, sizeof(PAN_ZOOM_JS) - 1)) ||
            (st = pprof__buffer_append(&b, close, sizeof(close) - 1)) ||
            (st = pprof__buffer_append(&b, g, (size_t)(end - g))))
            goto out_ab;
    } else if ((st = pprof__buffer_append(&b, s, a.len))) {
        goto out_ab;
    }
    s = b.len ? (const char *)b.data : "";
    end = s + b.len;
    const char *c = find(s, end, "</svg>");
    if (c) {
        if ((st = pprof__buffer_append(out, s, (size_t)(c - s))) ||
            (st = pprof__buffer_append(out, "</g>", 4)) ||
            (st = pprof__buffer_append(out, c, (size_t)(end - c))))
            goto out_ab;
    } else {
        st = pprof__buffer_append(out, s, b.len);
    }
out_ab:
    pprof_buffer_free(&a);
    pprof_buffer_free(&b);
out:
    pprof_buffer_free(&fixed);
    return st;
}

/* Graphviz writes a link (<a xlink:href>, from a URL or href attribute), an <image xlink:href>
 * and an <?xml-stylesheet?> only when the dot text asks for them, and ours never does: one
 * found here came from a profile string that escaped its quotes. Appends s[0, n) without any
 * processing instruction but the XML declaration and without any href or xlink:href attribute
 * whose value is not a reference inside the document ("#..."). Graphviz writes every `"` and
 * `<` of an attribute value or text as an entity, so these patterns are only ever markup. */
static pprof_status
drop_references(const char *s, size_t n, pprof_buffer *out)
{
    const char *end = s + n, *run = s;
    pprof_status st = PPROF_OK;
    for (const char *p = s; p < end && !st;) {
        const char *skip_to = NULL;
        if (end - p > 2 && p[0] == '<' && p[1] == '?' &&
            !(end - p > 6 && !memcmp(p, "<?xml ", 6))) {
            const char *q = find(p, end, "?>");
            skip_to = q ? q + 2 : end;
        } else if (*p == ' ' || *p == '\n' || *p == '\t') {
            const char *a = p + 1;
            if (end - a > 6 && !memcmp(a, "xlink:", 6))
                a += 6;
            if (end - a > 6 && !memcmp(a, "href=\"", 6) && a[6] != '#') {
                const char *q = memchr(a + 6, '"', (size_t)(end - a - 6));
                skip_to = q ? q + 1 : end;
            }
        }
        if (!skip_to) {
            p++;
            continue;
        }
        st = pprof__buffer_append(out, run, (size_t)(p - run));
        p = run = skip_to;
    }
    if (!st)
        st = pprof__buffer_append(out, run, (size_t)(end - run));
    return st;
}

/* Graphviz's messages (a syntax error, an edge too long) go to standard error at once unless
 * their level is below the one agseterr sets; below it, Graphviz keeps them in a file of its own
 * and aglasterr returns the last one. pprof__svg_from_dot raises that level to AGMAX for the
 * call, so that nothing reaches standard error bare, and puts Graphviz's last error into the
 * error it returns. The level is Graphviz's process-wide setting (agseterrf's handler would be
 * too, and takes no argument through which a per-call buffer could reach it): it is raised only
 * during the call and put back before returning, and the library keeps no state of its own.
 * Writes " (Graphviz: syntax error in line 4 near 'x')" to dst, or "" when the call reported
 * no error. */
static void
gv_said(char *dst, size_t cap)
{
    *dst = 0;
    if (agerrors() < AGERR || cap < 32)
        return;
    char *m = aglasterr();
    if (!m)
        return;
    size_t n = strlen(m);
    while (n && (m[n - 1] == '\n' || m[n - 1] == ' ' || m[n - 1] == '\r'))
        n--;
    size_t o = (size_t)snprintf(dst, cap, " (Graphviz: ");
    for (size_t i = 0; i < n && o + 4 < cap; i++) {
        if (m[i] == '\n') {
            dst[o++] = ';';
            dst[o++] = ' ';
        } else if (m[i] != '\r') {
            dst[o++] = m[i];
        }
    }
    dst[o++] = ')';
    dst[o] = 0;
    free(m);
}

/* XML allows neither invalid UTF-8 nor control bytes other than tab, newline and carriage return,
 * and Graphviz copies names into the SVG as they are: a function named in Latin-1 made an SVG
 * that browsers refuse to show. Each such byte becomes U+FFFD in the dot text Graphviz reads (the
 * -dot report keeps Go's bytes; a NUL byte, which would end the text Graphviz reads, is one of
 * them). Leaves *clean empty when dot is already safe. */
static pprof_status
xml_safe(const char *dot, size_t n, pprof_buffer *clean)
{
    const uint8_t *s = (const uint8_t *)dot;
    size_t run = 0;
    pprof_status st = PPROF_OK;
    for (size_t i = 0; i < n && !st;) {
        size_t l = (s[i] < 0x20 && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
                       ? 0
                       : pprof__utf8_seq_len(s + i, n - i);
        if (l) {
            i += l;
            continue;
        }
        st = pprof__buffer_append(clean, dot + run, i - run);
        if (!st)
            st = pprof__buffer_append(clean, "\xef\xbf\xbd", 3);
        run = ++i;
    }
    if (!st && clean->len)
        st = pprof__buffer_append(clean, dot + run, n - run);
    if (!st && clean->len)
        st = pprof__buffer_append(clean, "", 1);
    return st;
}

/* Lays out dot text (n bytes, then a NUL) with Graphviz's dot engine and appends its SVG. */
pprof_status
pprof__svg_from_dot(const char *dot, size_t n, pprof_buffer *svg, pprof_error *err)
{
    pprof_buffer clean = {0}, safe = {0};
    if (xml_safe(dot, n, &clean)) {
        pprof_buffer_free(&clean);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "svg: out of memory");
    }
    if (clean.len)
        dot = (const char *)clean.data;
    agerrlevel_t level = agseterr(AGMAX);
    agreseterrors();
    GVC_t *gvc = gvContext();
    if (!gvc) {
        agseterr(level);
        pprof_buffer_free(&clean);
        return pprof__error(err, PPROF_E_NOMEM, PPROF_NO_OFFSET, "", "svg: no Graphviz context");
    }
    const char *fail = NULL;
    pprof_status st = PPROF_OK;
    char *data = NULL;
    unsigned int len = 0;
    Agraph_t *g = agmemread(dot);
    if (g && agnedges(g) > SVG_DENSE_EDGES) {
        /* dot's crossing minimisation and network simplex grow so fast on dense graphs that a
         * few kilobytes of profile with many labels keep it busy for minutes (Go's -svg too):
         * past this many edges, straight edges and bounded iterations, a layout in seconds */
        agattr(g, AGRAPH, "splines", "line");
        agattr(g, AGRAPH, "mclimit", "0.001");
        agattr(g, AGRAPH, "nslimit", "0");
        agattr(g, AGRAPH, "nslimit1", "0");
        agattr(g, AGRAPH, "searchsize", "1");
    }
    if (!g) {
        fail = "svg: Graphviz could not read the dot graph";
    } else if (gvLayout(gvc, g, "dot")) {
        fail = "svg: Graphviz could not lay the graph out";
    } else {
        if (gvRenderData(gvc, g, "svg", &data, &len) || !data)
            fail = "svg: Graphviz could not draw the graph";
        else if (!(st = drop_references(data, len, &safe)))
            st = massage(safe.len ? (const char *)safe.data : "", safe.len, svg);
        gvFreeRenderData(data);
        gvFreeLayout(gvc, g);
    }
    if (g)
        agclose(g);
    gvFreeContext(gvc);
    if (fail) {
        char m[200];
        gv_said(m, sizeof(m));
        st = pprof__error(err, PPROF_E_INVALID, PPROF_NO_OFFSET, "", "%s%s", fail, m);
    }
    agseterr(level);
    pprof_buffer_free(&clean);
    pprof_buffer_free(&safe);
    return st;
}
#endif

pprof_status
pprof__render_svg(pprof__rctx *c, pprof_buffer *out)
{
    pprof_buffer dot = {0};
    pprof_status st = pprof__render_dot_text(c, PPROF_PRINT_TEXT, SVG_STRING_MAX, &dot);
    if (!st)
        st = pprof__buffer_append(&dot, "", 1);
    if (!st)
        st = pprof__svg_from_dot((const char *)dot.data, dot.len - 1, out, c->err);
    if (st == PPROF_E_NOMEM)
        st = pprof__error(c->err, st, PPROF_NO_OFFSET, "", "out of memory");
    pprof_buffer_free(&dot);
    return st;
}
