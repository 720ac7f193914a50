/* A small XML 1.0 well-formedness check for the flame graph harness's SVG: one root element,
 * tags nested and closed in order, attribute values quoted without '<', every '&' a known entity
 * or a character reference to a character XML allows, comments and CDATA closed, "]]>" never
 * in text, and only UTF-8 characters XML allows (no C0 control but tab, LF, CR; no U+FFFE or
 * U+FFFF). No DTD. */
#ifndef PPROF_FUZZ_XML_CHECK_H
#define PPROF_FUZZ_XML_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "utf8-private.h"

enum { XML_MAX_DEPTH = 256 };

static bool
xml_char_ok(const uint8_t *p, const uint8_t *end, size_t *len)
{
    if (*p < 0x80) {
        *len = 1;
        return *p >= 0x20 || *p == '\t' || *p == '\n' || *p == '\r';
    }
    *len = pprof__utf8_seq_len(p, (size_t)(end - p));
    return *len && !(*len == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe);
}

static bool
xml_name_char(uint8_t c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80 ||
           (!first && ((c >= '0' && c <= '9') || c == '-' || c == '.'));
}

static const uint8_t *
xml_name(const uint8_t *p, const uint8_t *end)
{
    if (p >= end || !xml_name_char(*p, true))
        return NULL;
    while (p < end && xml_name_char(*p, false))
        p++;
    return p;
}

/* An entity or character reference at p ('&'); its end, or NULL. */
static const uint8_t *
xml_ref(const uint8_t *p, const uint8_t *end)
{
    static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (size_t i = 0; i < 5; i++) {
        size_t l = strlen(ents[i]);
        if ((size_t)(end - p) >= l && !memcmp(p, ents[i], l))
            return p + l;
    }
    if (end - p < 4 || p[1] != '#')
        return NULL;
    p += 2;
    bool hex = *p == 'x';
    p += hex;
    uint32_t v = 0;
    const uint8_t *d = p;
    for (; p < end && *p != ';'; p++) {
        int x = *p >= '0' && *p <= '9'                            ? *p - '0'
                : hex && (*p | 0x20) >= 'a' && (*p | 0x20) <= 'f' ? (*p | 0x20) - 'a' + 10
                                                                  : -1;
        if (x < 0 || v > 0x10ffff)
            return NULL;
        v = v * (hex ? 16 : 10) + (uint32_t)x;
    }
    if (p >= end || p == d)
        return NULL;
    bool ok = v == 0x9 || v == 0xa || v == 0xd || (v >= 0x20 && v <= 0xd7ff) ||
              (v >= 0xe000 && v <= 0xfffd) || (v >= 0x10000 && v <= 0x10ffff);
    return ok ? p + 1 : NULL;
}

/* Character data up to the next '<' (or the end); false on a bad character or reference. */
static bool
xml_text(const uint8_t **pp, const uint8_t *end, bool attr, uint8_t quote)
{
    const uint8_t *p = *pp;
    while (p < end && *p != '<' && !(attr && *p == quote)) {
        size_t l;
        if (*p == '&') {
            if (!(p = xml_ref(p, end)))
                return false;
            continue;
        }
        if (!attr && *p == '>' && p - *pp >= 2 && p[-1] == ']' && p[-2] == ']')
            return false;
        if (!xml_char_ok(p, end, &l))
            return false;
        p += l;
    }
    *pp = p;
    return true;
}

static const uint8_t *
xml_until(const uint8_t *p, const uint8_t *end, const char *close)
{
    size_t l = strlen(close);
    while ((size_t)(end - p) >= l && memcmp(p, close, l)) {
        size_t cl;
        if (!xml_char_ok(p, end, &cl))
            return NULL;
        p += cl;
    }
    return (size_t)(end - p) >= l ? p + l : NULL;
}

/* Whether [data, data + len) is a well-formed XML document; *bad: where it stopped. */
static inline bool
xml_check(const uint8_t *data, size_t len, size_t *bad)
{
    const uint8_t *p = data, *end = data + len;
    const uint8_t *names[XML_MAX_DEPTH];
    size_t name_len[XML_MAX_DEPTH];
    int depth = 0;
    bool root_done = false;
    if ((size_t)(end - p) >= 5 && !memcmp(p, "<?xml", 5) && !(p = xml_until(p, end, "?>")))
        goto fail;
    /* a document type declaration before the root (Graphviz's SVG has one), without an
     * internal subset: "<!DOCTYPE" up to its '>' */
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    if ((size_t)(end - p) >= 9 && !memcmp(p, "<!DOCTYPE", 9) && !(p = xml_until(p, end, ">")))
        goto fail;
    while (p < end) {
        const uint8_t *t = p;
        if (*p != '<') {
            if (!xml_text(&p, end, false, 0))
                goto fail;
            if (!depth) /* only whitespace outside the root */
                for (; t < p; t++)
                    if (*t != ' ' && *t != '\n' && *t != '\r' && *t != '\t')
                        goto fail;
            continue;
        }
        if ((size_t)(end - p) >= 4 && !memcmp(p, "<!--", 4)) {
            if (!(p = xml_until(p + 4, end, "-->")) || memmem(t + 4, (size_t)(p - t - 7), "--", 2))
                goto fail;
        } else if ((size_t)(end - p) >= 9 && !memcmp(p, "<![CDATA[", 9)) {
            if (!depth || !(p = xml_until(p + 9, end, "]]>")))
                goto fail;
        } else if (p + 1 < end && p[1] == '/') {
            const uint8_t *n = xml_name(p + 2, end);
            if (!n || !depth || (size_t)(n - p - 2) != name_len[depth - 1] ||
                memcmp(p + 2, names[depth - 1], name_len[depth - 1]))
                goto fail;
            while (n < end && (*n == ' ' || *n == '\n' || *n == '\t'))
                n++;
            if (n >= end || *n != '>')
                goto fail;
            p = n + 1;
            if (--depth == 0)
                root_done = true;
        } else {
            const uint8_t *n = xml_name(p + 1, end);
            if (!n || root_done || depth == XML_MAX_DEPTH)
                goto fail;
            names[depth] = p + 1;
            name_len[depth] = (size_t)(n - p - 1);
            p = n;
            for (;;) {
                const uint8_t *ws = p;
                while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
                    p++;
                if (p >= end)
                    goto fail;
                if (*p == '>' || (*p == '/' && p + 1 < end && p[1] == '>'))
                    break;
                const uint8_t *an = xml_name(p, end);
                if (p == ws || !an || an >= end || *an != '=' || an + 1 >= end ||
                    (an[1] != '"' && an[1] != '\''))
                    goto fail;
                uint8_t q = an[1];
                p = an + 2;
                if (!xml_text(&p, end, true, q) || p >= end || *p != q)
                    goto fail;
                p++;
            }
            if (*p == '/') {
                p += 2;
                if (!depth)
                    root_done = true;
            } else {
                p++;
                depth++;
            }
        }
    }
    if (depth || !root_done)
        goto fail;
    *bad = len;
    return true;
fail:
    *bad = (size_t)((p ? p : end) - data);
    return false;
}

#endif
