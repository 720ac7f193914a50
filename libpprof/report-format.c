/* Go's internal/measurement: unit scaling and percentages, as `go tool pprof` prints them. */
#include <math.h>
#include <stdio.h>

#include "report-private.h"
#include "utf8-private.h"

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

static const unit_type unit_types[] = {
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
      {"hrs", {"hour", "hr"}, 3600e9}},
     5},
    {{"GCU", {NULL}, 1},
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

/* unitType.sniffUnit: lowercased, one trailing 's' dropped when longer than 2 bytes. */
static const unit *
sniff(const unit_type *ut, const char *name)
{
    char low[64];
    size_t n = strlen(name);
    if (n >= sizeof(low))
        return NULL;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
    low[n] = 0;
    if (n > 2 && low[n - 1] == 's')
        low[--n] = 0;
    for (size_t i = 0; i < ut->n; i++)
        for (size_t k = 0; k < 4 && ut->units[i].aliases[k]; k++)
            if (!strcmp(low, ut->units[i].aliases[k]))
                return &ut->units[i];
    return NULL;
}

static bool
convert(const unit_type *ut, int64_t value, const char *from, const char *to, double *out,
        const char **unit_name)
{
    const unit *fu = sniff(ut, from);
    if (!fu)
        return false;
    double v = (double)value * fu->factor;
    if (!strcmp(to, "minimum") || !strcmp(to, "auto")) {
        double f = 0;
        const char *name = NULL;
        for (size_t i = 0; i < ut->n; i++)
            if (ut->units[i].factor >= f && v / ut->units[i].factor >= 1.0) {
                f = ut->units[i].factor;
                name = ut->units[i].name;
            }
        if (f != 0) {
            *out = v / f;
            *unit_name = name;
            return true;
        }
        *out = v / ut->def.factor;
        *unit_name = ut->def.name;
        return true;
    }
    const unit *tu = sniff(ut, to);
    if (!tu)
        tu = &ut->def;
    *out = v / tu->factor;
    *unit_name = tu->name;
    return true;
}

double
pprof__scale(int64_t value, const char *from, const char *to, const char **unit_name)
{
    if (value < 0 && value != INT64_MIN)
        return -pprof__scale(-value, from, to, unit_name);
    for (size_t i = 0; i < sizeof(unit_types) / sizeof(unit_types[0]); i++) {
        double v;
        if (convert(&unit_types[i], value, from, to, &v, unit_name))
            return v;
    }
    static const char *const skip[] = {"count", "sample", "unit", "minimum", "auto"};
    *unit_name = to;
    for (size_t i = 0; i < 5; i++)
        if (!strcmp(to, skip[i]))
            *unit_name = "";
    return (double)value;
}

void
pprof__scaled_label(char *dst, size_t cap, int64_t v, const char *from, const char *to)
{
    const char *u;
    double x = pprof__scale(v, from, to, &u);
    char num[64];
    snprintf(num, sizeof(num), "%.2f", x);
    size_t n = strlen(num);
    if (n >= 3 && !strcmp(num + n - 3, ".00"))
        num[n - 3] = 0;
    if (!strcmp(num, "0") || !strcmp(num, "-0")) {
        snprintf(dst, cap, "0");
        return;
    }
    snprintf(dst, cap, "%s%s", num, u);
}

void
pprof__percentage(char *dst, size_t cap, int64_t v, int64_t total)
{
    double ratio = 0;
    if (total != 0)
        ratio = fabs((double)v / (double)total) * 100;
    if (fabs(ratio) >= 99.95 && fabs(ratio) <= 100.05)
        snprintf(dst, cap, "  100%%");
    else if (fabs(ratio) >= 1.0)
        snprintf(dst, cap, "%5.2f%%", ratio);
    else
        snprintf(dst, cap, "%5.2g%%", ratio);
}

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
