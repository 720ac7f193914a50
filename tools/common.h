/* Shared pieces of the command-line tools: argument scanning without global state, exit
 * codes, error printing. Tools keep their options in a struct and their logic in the library. */
#ifndef PPROF_TOOLS_COMMON_H
#define PPROF_TOOLS_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#include "check.h"
#include "pprof.h"

enum {
    TOOL_EXIT_OK = 0,
    TOOL_EXIT_INVALID = 1, /* invalid input, or findings */
    TOOL_EXIT_USAGE = 2,
    TOOL_EXIT_IO = 3,
};

/* Read options that take, besides pprof, every format of libpprof-formats (readers.c). */
const pprof_read_options *tool_read_options(pprof_read_options *ro);
/* pprof_profile_read_file with those options. */
pprof_status tool_read_profile(const char *path, pprof_profile **out, pprof_error *err);
/* From now on tool_read_profile reads every input as JFR with these options (--from=jfr,
 * --event, --timestamps, --allow-truncated; copied, event borrowed), and says on stderr, as
 * prog, how many events a truncated recording kept. */
struct pprof_jfr_read_options;
void tool_read_jfr_with(const char *prog, const struct pprof_jfr_read_options *o);

/* A cursor over argv. Options come as -x VALUE, --long VALUE or --long=VALUE; "-" and
 * anything after "--" are operands. Go's single-dash words (-nodecount=20, -sample_index cpu)
 * are read as the double-dash option of the same name with '_' as '-' (--nodecount=20,
 * --sample-index cpu): pprof users type Go's flags. Single letters (-o, -n) stay ours. */
typedef struct tool_args {
    int argc;
    char **argv;
    int i;
    bool no_more_options;
    const char *inline_value; /* the part after '=' of the current --long=value */
    const char *cur;          /* the current option, for messages */
    char go_opt[64];          /* the double-dash spelling of a Go-style -word option */
} tool_args;

void tool_args_init(tool_args *a, int argc, char **argv);
/* Next argument: returns true and sets *opt (option) or *operand. False at the end. */
bool tool_args_next(tool_args *a, const char **opt, const char **operand);
/* Value of the current option; NULL (after printing a usage error) when missing. */
const char *tool_args_value(tool_args *a, const char *prog);
/* Whether the option is one of the given names ("-o", "--output"). */
bool tool_opt_is(const char *opt, const char *short_name, const char *long_name);

int tool_exit_for(pprof_status st);
/* "prog: file: error: path: message (byte N) [PPROF_E_X]" on stream. */
void tool_print_error(FILE *stream, const char *prog, const char *file, const pprof_error *err);
int tool_usage_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool tool_parse_u64(const char *s, unsigned long long *out);
/* --compress=gzip|zstd|none */
bool tool_parse_format(const char *s, pprof_format *out);
/* The output format when --compress was not given, from the output's name: .zst zstd, .gz
 * gzip, .pb none, anything else (standard output too) gzip, which every pprof reader takes. */
pprof_format tool_format_from_name(const char *out);
/* Whether the output would be the input, a regular file (st_dev and st_ino, symlinks followed;
 * "-" is standard input for in, standard output for out). False when either does not exist. */
bool tool_same_file(const char *in, const char *out);
/* Refuses (a usage error, exit 2) a text output that would replace its input profile, unless
 * force: "IN is the input: the WHAT would replace the profile". Returns 0 to go on. */
int tool_refuse_text_over_input(const char *prog, const char *in, const char *out, bool force,
                                const char *what);
/* Whether an output path means standard output: "-", /dev/stdout, /dev/fd/1. */
bool tool_is_stdout(const char *out);
/* The online cores, at least 1 and at most `most`: the tools' default thread count. */
unsigned tool_cores(unsigned most);
/* Whether an output path ("-" and /dev/stdout: standard output) is a terminal. */
bool tool_output_is_tty(const char *out);
/* Usage error (exit 2) unless force: a binary profile would be written to a terminal. */
int tool_refuse_binary_tty(const char *prog, const char *out, bool force);
/* Says on stderr, unless quiet, that Go's pprof cannot read a zstd output. */
void tool_note_format(const char *prog, pprof_format fmt, bool quiet);
void tool_print_version(FILE *out, const char *prog);

/* The findings tool_check_go_rules prints, as a pprof_finding_fn whose ctx is a go_check;
 * past TOOL_GO_CHECK_SHOWN of them only the summary counts. */
typedef struct go_check {
    const char *prog, *file, *lead;
    unsigned long long shown;
} go_check;
#define TOOL_GO_CHECK_SHOWN 10
bool tool_print_go_finding(void *ctx, const pprof_finding *f);
/* Checks p against the error-level rules Go enforces on reading (wire, container, postDecode
 * and CheckValid: the W, R, PD and CV rules of the checker) and prints the first findings on
 * stderr as "prog: FILE: LEAD: PATH: message [RULE]". Returns how many there were, or -1
 * after printing why the check could not run. */
long long tool_check_go_rules(const char *prog, const char *file, pprof_profile *p,
                              const char *lead);
/* The reports' reading rule: a profile that breaks an error-level rule Go enforces on reading is
 * refused as Go refuses it, naming each finding and then "what: N error(s)". Returns 0 to go
 * on, else the exit status (1 invalid, 3 when the check itself could not run). */
int tool_refuse_invalid(const char *prog, const char *file, pprof_profile *p, const char *what);

/* Reads a whole file ("-" = standard input), at most TOOL_READ_MAX bytes, appending to b (grown
 * with libc's realloc: release with pprof_buffer_free); err says why not. */
#define TOOL_READ_MAX ((size_t)1 << 32)
pprof_status tool_read_all(const char *path, pprof_buffer *b, pprof_error *err);

/* ---- outputs: every tool that writes a file calls this once, before writing. */
/* Installs the handlers that remove the temporary output file when SIGINT, SIGTERM, SIGHUP or
 * SIGQUIT ends the process (a signal the caller ignored stays ignored), ignores SIGXFSZ so that
 * a write past the file size limit fails with EFBIG and is reported as an I/O error, and sets
 * w's temporary-file callback (w may be NULL for a tool that writes only standard output).
 * SIGKILL cannot be caught: its temporary stays. */
void tool_output_init(pprof_write_options *w);
/* --level N for the format chosen (after --compress and the output's name decided it): a usage
 * error naming the format's range when N is outside it. */
int tool_check_level(const char *prog, const pprof_write_options *w);
/* The end of every tool's main: flushes and closes standard output and turns a failure there
 * (a full disk, /dev/full, a closed pipe's EIO) into exit 3 with a message; else returns rc. */
int tool_finish(const char *prog, int rc);

#endif
