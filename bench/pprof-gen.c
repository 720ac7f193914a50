/* pprof-gen: writes a deterministic synthetic profile (see gen.h). Same arguments, same bytes. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

static const char USAGE[] =
    "usage: pprof-gen [--preset NAME] [options] [-o OUT]\n"
    "Writes a synthetic pprof profile (default: raw protobuf to stdout, '-').\n"
    "  --preset NAME          small | medium (default) | large (~27.5 MB raw) | deep | labels |\n"
    "                         host; applied first, the options below override it\n"
    "  --seed N               random seed (default 1)\n"
    "  --samples N            number of Sample messages\n"
    "  --stacks N             distinct stacks the samples draw from\n"
    "  --functions N          functions\n"
    "  --locations N          locations (default functions * 3 / 2)\n"
    "  --mappings N           mappings (the first is the main binary)\n"
    "  --depth N              largest stack depth (depths range over depth/4..depth)\n"
    "  --inline-depth N       largest number of lines per location (1 = no inlining)\n"
    "  --labels N             labels per sample\n"
    "  --sample-types N       values per sample\n"
    "  --host N               host variant (0 = base); other hosts share most functions\n"
    "  --host-unique-pct N    percent of functions and stacks a host variant changes\n"
    "  --compress FMT         none (default) | gzip | zstd\n"
    "  --level N              compression level (0 = library default)\n"
    "  -o, --output PATH      output path, written atomically; '-' = stdout\n"
    "  -h, --help             this text\n";

typedef struct num_opt {
    const char *name;
    size_t offset;
    bool wide; /* uint64_t field rather than uint32_t */
} num_opt;

static const num_opt NUM_OPTS[] = {
    {"--seed", offsetof(pprof_gen_params, seed), true},
    {"--samples", offsetof(pprof_gen_params, samples), true},
    {"--stacks", offsetof(pprof_gen_params, stacks), false},
    {"--functions", offsetof(pprof_gen_params, functions), false},
    {"--locations", offsetof(pprof_gen_params, locations), false},
    {"--mappings", offsetof(pprof_gen_params, mappings), false},
    {"--depth", offsetof(pprof_gen_params, depth), false},
    {"--inline-depth", offsetof(pprof_gen_params, inline_depth), false},
    {"--labels", offsetof(pprof_gen_params, labels), false},
    {"--sample-types", offsetof(pprof_gen_params, sample_types), false},
    {"--host", offsetof(pprof_gen_params, host), false},
    {"--host-unique-pct", offsetof(pprof_gen_params, host_unique_pct), false},
};

typedef struct options {
    pprof_gen_params params;
    pprof_format format;
    int level;
    const char *output;
} options;

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int
usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pprof-gen: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n%s", USAGE);
    va_end(ap);
    return 2;
}

static bool
parse_u64(const char *s, unsigned long long *out)
{
    if (!s || !*s || *s == '-')
        return false;
    char *end;
    errno = 0;
    *out = strtoull(s, &end, 0);
    return errno == 0 && *end == 0;
}

/* Splits "--name=value" or takes the value from the next argument. */
static const char *
value_of(int argc, char **argv, int *i, const char *arg, char *name, size_t name_cap)
{
    const char *eq = strchr(arg, '=');
    if (eq && arg[0] == '-' && arg[1] == '-') {
        size_t n = (size_t)(eq - arg) < name_cap - 1 ? (size_t)(eq - arg) : name_cap - 1;
        memcpy(name, arg, n);
        name[n] = 0;
        return eq + 1;
    }
    snprintf(name, name_cap, "%s", arg);
    return *i + 1 < argc ? argv[++*i] : NULL;
}

static bool
takes_value(const char *name)
{
    return strcmp(name, "--help") != 0 && strcmp(name, "-h") != 0;
}

/* Returns -1 to go on, or an exit code. */
static int
parse(int argc, char **argv, options *o)
{
    char name[64];
    /* The preset comes first whatever its position, so later options override it. */
    for (int i = 1; i < argc; i++) {
        const char *v = argv[i][0] == '-' && takes_value(argv[i])
                            ? value_of(argc, argv, &i, argv[i], name, sizeof(name))
                            : NULL;
        if (v && strcmp(name, "--preset") == 0 && !pprof_gen_preset(v, &o->params))
            return usage_error("unknown preset '%s'", v);
    }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs(USAGE, stdout);
            return 0;
        }
        if (arg[0] != '-' || strcmp(arg, "-") == 0)
            return usage_error("unexpected operand '%s'", arg);
        const char *v = value_of(argc, argv, &i, arg, name, sizeof(name));
        if (!v)
            return usage_error("%s needs a value", name);
        if (strcmp(name, "--preset") == 0)
            continue;
        if (strcmp(name, "-o") == 0 || strcmp(name, "--output") == 0) {
            o->output = v;
            continue;
        }
        if (strcmp(name, "--compress") == 0) {
            if (strcmp(v, "none") == 0 || strcmp(v, "raw") == 0)
                o->format = PPROF_FORMAT_RAW;
            else if (strcmp(v, "gzip") == 0)
                o->format = PPROF_FORMAT_GZIP;
            else if (strcmp(v, "zstd") == 0)
                o->format = PPROF_FORMAT_ZSTD;
            else
                return usage_error("unknown compression '%s'", v);
            continue;
        }
        unsigned long long n;
        if (!parse_u64(v, &n))
            return usage_error("bad number '%s'", v);
        if (strcmp(name, "--level") == 0) {
            if (n > 22)
                return usage_error("level '%s' is out of range", v);
            o->level = (int)n;
            continue;
        }
        const num_opt *opt = NULL;
        for (size_t k = 0; k < sizeof(NUM_OPTS) / sizeof(NUM_OPTS[0]); k++)
            if (strcmp(name, NUM_OPTS[k].name) == 0)
                opt = &NUM_OPTS[k];
        if (!opt)
            return usage_error("unknown option '%s'", name);
        char *field = (char *)&o->params + opt->offset;
        if (opt->wide) {
            uint64_t w = n;
            memcpy(field, &w, sizeof(w));
        } else {
            if (n > UINT32_MAX)
                return usage_error("'%s' is out of range", v);
            uint32_t w = (uint32_t)n;
            memcpy(field, &w, sizeof(w));
        }
    }
    return -1;
}

int
main(int argc, char **argv)
{
    options o = {.format = PPROF_FORMAT_RAW, .level = 0, .output = "-"};
    pprof_gen_params_init(&o.params);
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    pprof_buffer buf = {0};
    pprof_error err;
    pprof_status st = pprof_gen_write(&o.params, o.format, o.level, &buf, &err);
    if (st == PPROF_OK)
        st = pprof_bytes_write_file(buf.data, buf.len, NULL, o.output, &err);
    pprof_buffer_free(&buf);
    if (st != PPROF_OK) {
        fprintf(stderr, "pprof-gen: %s: %s [%s]\n", o.output, err.message,
                pprof_status_name(err.code));
        return st == PPROF_E_IO ? 3 : st == PPROF_E_ARG ? 2 : 1;
    }
    return 0;
}
