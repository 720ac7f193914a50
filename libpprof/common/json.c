/* The JSON string writers. */
#include <stdio.h>

#include "common-private.h"
#include "utf8-private.h"

/* Bytes that are not UTF-8 come out as \u00XX so that the document stays valid JSON. */
pprof_status
pprof__json_string(pprof_buffer *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    pprof_status st = pprof__buffer_append(b, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n && !st;) {
        unsigned char c = u[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x7f) {
            i++;
            continue;
        }
        size_t l = c >= 0x80 ? pprof__utf8_seq_len(u + i, n - i) : 0;
        if (l) { /* UTF-8 passes through; other bytes are escaped so the JSON stays valid */
            i += l;
            continue;
        }
        st = pprof__buffer_append(b, s + run, i - run);
        if (!st)
            st = c == '"' || c == '\\' ? pprof__buffer_printf(b, "\\%c", c)
                                       : pprof__buffer_printf(b, "\\u%04x", c);
        run = ++i;
    }
    if (!st)
        st = pprof__buffer_append(b, s + run, n - run);
    if (!st)
        st = pprof__buffer_append(b, "\"", 1);
    return st;
}

static const char hex[] = "0123456789abcdef";

pprof_status
pprof__flame_json_str(pprof_buffer *b, const char *str, size_t n)
{
    const uint8_t *s = (const uint8_t *)str;
    /* worst case: every byte 6 (\u00XX or \ufffd) */
    if (n > (SIZE_MAX - 2) / 6 || !pprof__buffer_reserve(b, 6 * n + 2))
        return PPROF_E_NOMEM;
    uint8_t *o = b->data + b->len;
    *o++ = '"';
    for (size_t i = 0; i < n;) {
        uint8_t c = s[i];
        if (c >= 0x20 && c < 0x80) {
            if (c == '"' || c == '\\') {
                *o++ = '\\';
                *o++ = c;
            } else if (c == '<' || c == '>' || c == '&') {
                memcpy(o, "\\u00", 4);
                o[4] = hex[c >> 4];
                o[5] = hex[c & 15];
                o += 6;
            } else {
                *o++ = c;
            }
            i++;
            continue;
        }
        if (c < 0x20) {
            memcpy(o, "\\u00", 4);
            o[4] = hex[c >> 4];
            o[5] = hex[c & 15];
            o += 6;
            i++;
            continue;
        }
        size_t l = pprof__utf8_seq_len(s + i, n - i);
        if (!l) {
            memcpy(o, "\\ufffd", 6);
            o += 6;
            i++;
        } else if (l == 3 && c == 0xe2 && s[i + 1] == 0x80 &&
                   (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) {
            memcpy(o, s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", 6);
            o += 6;
            i += 3;
        } else {
            memcpy(o, s + i, l);
            o += l;
            i += l;
        }
    }
    *o++ = '"';
    b->len = (size_t)(o - b->data);
    return PPROF_OK;
}
