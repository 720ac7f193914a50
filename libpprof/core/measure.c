/* Go's internal/measurement as go tool pprof uses it for label ranges, label frames and reports:
 * unit sniffing (lower case, a trailing 's' dropped from names longer than two bytes), conversion
 * through a factor, auto-scaling, and ScaledLabel's "%.2f" text. Same float operations in the
 * same order, so the same results. */
#include <stdio.h>
#include <string.h>

#include "measure-private.h"

typedef struct unit {
    const char *name;
    const char *aliases[4];
    double factor;
} unit;

typedef struct unit_type {
    unit def;
    unit units[9];
    size_t n;
} unit_type;

static const unit_type types[] = {
    {{"B", {"b", "byte"}, 1},
     {{"B", {"b", "byte"}, 1},
      {"kB", {"kb", "kbyte", "kilobyte"}, 1024.0},
      {"MB", {"mb", "mbyte", "megabyte"}, 1048576.0},
      {"GB", {"gb", "gbyte", "gigabyte"}, 1073741824.0},
      {"TB", {"tb", "tbyte", "terabyte"}, 1099511627776.0},
      {"PB", {"pb", "pbyte", "petabyte"}, 1125899906842624.0}},
     6},
    {{"s", {NULL}, 1e9},
     {{"ns", {"ns", "nanosecond"}, 1},
      {"us", {"\xce\xbcs", "us", "microsecond"}, 1e3},
      {"ms", {"ms", "millisecond"}, 1e6},
      {"s", {"s", "sec", "second"}, 1e9},
      {"hrs", {"hour", "hr"}, 3.6e12}},
     5},
    {{"GCU", {NULL}, 1.0},
     {{"n*GCU", {"nanogcu"}, 1e-9},
      {"u*GCU", {"microgcu"}, 1e-6},
      {"m*GCU", {"milligcu"}, 1e-3},
      {"GCU", {"gcu"}, 1},
      {"k*GCU", {"kilogcu"}, 1e3},
      {"M*GCU", {"megagcu"}, 1e6},
      {"G*GCU", {"gigagcu"}, 1e9},
      {"T*GCU", {"teragcu"}, 1e12},
      {"P*GCU", {"petagcu"}, 1e15}},
     9},
};

/* unitType.sniffUnit; Go lower-cases with Unicode rules, which differ from ASCII only for units
 * no alias can match. */
static const unit *
sniff(const unit_type *t, const char *s, size_t n)
{
    char low[64];
    if (n >= sizeof(low))
        return NULL;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    if (n > 2 && low[n - 1] == 's')
        n--;
    for (size_t u = 0; u < t->n; u++)
        for (size_t a = 0; a < 4 && t->units[u].aliases[a]; a++)
            if (strlen(t->units[u].aliases[a]) == n && !memcmp(t->units[u].aliases[a], low, n))
                return &t->units[u];
    return NULL;
}

static bool
eq(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && !memcmp(s, lit, n);
}

static void
set_unit(pprof_string *u, const char *name)
{
    u->data = name;
    u->len = strlen(name);
}

/* unitType.convertUnit */
static bool
convert(const unit_type *t, int64_t value, pprof_string from, pprof_string to, double *v,
        pprof_string *u)
{
    const unit *f = sniff(t, from.data, from.len);
    if (!f)
        return false;
    double x = (double)value * f->factor;
    if (eq(to.data, to.len, "minimum") || eq(to.data, to.len, "auto")) {
        double best = 0;
        const char *name = NULL;
        for (size_t i = 0; i < t->n; i++)
            if (t->units[i].factor >= best && x / t->units[i].factor >= 1.0) {
                best = t->units[i].factor;
                name = t->units[i].name;
            }
        if (best != 0) {
            *v = x / best;
            set_unit(u, name);
            return true;
        }
        *v = x / t->def.factor;
        set_unit(u, t->def.name);
        return true;
    }
    const unit *tu = sniff(t, to.data, to.len);
    const unit *use = tu ? tu : &t->def;
    *v = x / use->factor;
    set_unit(u, use->name);
    return true;
}

void
pprof__measure_scale(int64_t value, pprof_string from, pprof_string to, double *v, pprof_string *u)
{
    if (value < 0 && value != INT64_MIN) {
        pprof__measure_scale(-value, from, to, v, u);
        *v = -*v;
        return;
    }
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (convert(&types[i], value, from, to, v, u))
            return;
    *v = (double)value;
    if (eq(to.data, to.len, "count") || eq(to.data, to.len, "sample") ||
        eq(to.data, to.len, "unit") || eq(to.data, to.len, "minimum") ||
        eq(to.data, to.len, "auto")) {
        u->data = "";
        u->len = 0;
    } else {
        *u = to;
    }
}

size_t
pprof__measure_label(int64_t value, pprof_string from, pprof_string to, char *out, size_t cap)
{
    double v;
    pprof_string u;
    pprof__measure_scale(value, from, to, &v, &u);
    /* A whole number below 2^53 prints as its digits under Go's "%.2f" less ".00": written
     * here without printf's float path (a traces report labels every sample, -top every
     * node). */
    if (v > -9007199254740992.0 && v < 9007199254740992.0 && v == (double)(int64_t)v) {
        int64_t iv = (int64_t)v;
        if (iv == 0)
            return (size_t)snprintf(out, cap, "0");
        char digits[24];
        size_t d = sizeof(digits);
        uint64_t m = iv < 0 ? 0 - (uint64_t)iv : (uint64_t)iv;
        do
            digits[--d] = (char)('0' + m % 10);
        while ((m /= 10) != 0);
        if (iv < 0)
            digits[--d] = '-';
        size_t n = sizeof(digits) - d, need = n + u.len;
        if (cap > 0) {
            size_t w = need < cap ? need : cap - 1;
            size_t a = n < w ? n : w;
            memcpy(out, digits + d, a);
            if (w > a)
                memcpy(out + a, u.data, w - a);
            out[w] = 0;
        }
        return need;
    }
    char num[400];
    int n = snprintf(num, sizeof(num), "%.2f", v);
    if (n < 0 || (size_t)n >= sizeof(num))
        n = 0;
    if (n >= 3 && !memcmp(num + n - 3, ".00", 3))
        n -= 3;
    num[n] = 0;
    if (!strcmp(num, "0") || !strcmp(num, "-0"))
        return (size_t)snprintf(out, cap, "0");
    return (size_t)snprintf(out, cap, "%s%.*s", num, (int)u.len, u.data);
}

static pprof_string
cstr(const char *s)
{
    return (pprof_string){s, strlen(s)};
}

double
pprof__scale(int64_t v, const char *from, const char *to, const char **unit_name)
{
    double x;
    pprof_string u;
    pprof__measure_scale(v, cstr(from), cstr(to), &x, &u);
    /* u is "", a static name or `to`: each ends with its NUL */
    *unit_name = u.len ? u.data : "";
    return x;
}

void
pprof__scaled_label(char *dst, size_t cap, int64_t v, const char *from, const char *to)
{
    pprof__measure_label(v, cstr(from), cstr(to), dst, cap);
}
