/* A strict JSON syntax check (RFC 8259, UTF-8 included) for the dump harness's JSON output. */
#ifndef PPROF_FUZZ_JSON_CHECK_H
#define PPROF_FUZZ_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct json_cur {
    const uint8_t *p, *end;
    int depth;
    int max_depth; /* 0: 64 */
} json_cur;

static bool json_value(json_cur *c);

static void
json_ws(json_cur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t'))
        c->p++;
}

static bool
json_lit(json_cur *c, const char *s)
{
    for (; *s; s++, c->p++)
        if (c->p >= c->end || *c->p != (uint8_t)*s)
            return false;
    return true;
}

static bool
json_hex4(json_cur *c)
{
    for (int i = 0; i < 4; i++, c->p++) {
        if (c->p >= c->end)
            return false;
        uint8_t h = *c->p;
        if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F')))
            return false;
    }
    return true;
}

static bool
json_utf8(json_cur *c)
{
    uint8_t b = *c->p;
    size_t n;
    uint32_t cp;
    if (b >= 0xc2 && b <= 0xdf)
        n = 2, cp = b & 0x1f;
    else if (b >= 0xe0 && b <= 0xef)
        n = 3, cp = b & 0x0f;
    else if (b >= 0xf0 && b <= 0xf4)
        n = 4, cp = b & 0x07;
    else
        return false;
    if ((size_t)(c->end - c->p) < n)
        return false;
    for (size_t i = 1; i < n; i++) {
        if ((c->p[i] & 0xc0) != 0x80)
            return false;
        cp = cp << 6 | (c->p[i] & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return false;
    c->p += n;
    return true;
}

static bool
json_string(json_cur *c)
{
    if (c->p >= c->end || *c->p != '"')
        return false;
    c->p++;
    while (c->p < c->end) {
        uint8_t b = *c->p;
        if (b == '"') {
            c->p++;
            return true;
        }
        if (b < 0x20)
            return false;
        if (b == '\\') {
            c->p++;
            if (c->p >= c->end)
                return false;
            uint8_t e = *c->p++;
            if (e == 'u') {
                if (!json_hex4(c))
                    return false;
            } else if (!strchr("\"\\/bfnrt", e) || e == 0) {
                return false;
            }
        } else if (b >= 0x80) {
            if (!json_utf8(c))
                return false;
        } else {
            c->p++;
        }
    }
    return false;
}

static bool
json_digits(json_cur *c)
{
    const uint8_t *s = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
        c->p++;
    return c->p > s;
}

static bool
json_number(json_cur *c)
{
    if (c->p < c->end && *c->p == '-')
        c->p++;
    if (c->p < c->end && *c->p == '0')
        c->p++;
    else if (!json_digits(c))
        return false;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        if (!json_digits(c))
            return false;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
            c->p++;
        if (!json_digits(c))
            return false;
    }
    return true;
}

static bool
json_container(json_cur *c, uint8_t close)
{
    if (++c->depth > (c->max_depth ? c->max_depth : 64))
        return false;
    c->p++;
    json_ws(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        c->depth--;
        return true;
    }
    for (;;) {
        json_ws(c);
        if (close == '}') {
            if (!json_string(c))
                return false;
            json_ws(c);
            if (c->p >= c->end || *c->p++ != ':')
                return false;
        }
        if (!json_value(c))
            return false;
        json_ws(c);
        if (c->p >= c->end)
            return false;
        uint8_t b = *c->p++;
        if (b == close)
            break;
        if (b != ',')
            return false;
    }
    c->depth--;
    return true;
}

static bool
json_value(json_cur *c)
{
    json_ws(c);
    if (c->p >= c->end)
        return false;
    switch (*c->p) {
    case '{': return json_container(c, '}');
    case '[': return json_container(c, ']');
    case '"': return json_string(c);
    case 't': return json_lit(c, "true");
    case 'f': return json_lit(c, "false");
    case 'n': return json_lit(c, "null");
    default: return json_number(c);
    }
}

/* True when [data, data+len) is exactly one JSON value, optionally surrounded by whitespace;
 * *bad is the offset of the first byte that does not fit. */
static inline bool
json_check_depth(const uint8_t *data, size_t len, int max_depth, size_t *bad)
{
    json_cur c = {data, data + len, 0, max_depth};
    bool ok = json_value(&c);
    json_ws(&c);
    ok = ok && c.p == c.end;
    *bad = (size_t)(c.p - data);
    return ok;
}

/* The same with containers nested at most 64 deep. */
static inline bool
json_check(const uint8_t *data, size_t len, size_t *bad)
{
    return json_check_depth(data, len, 64, bad);
}

#endif
