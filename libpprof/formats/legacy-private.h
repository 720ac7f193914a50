/* The legacy readers' shared state (legacy.c, legacy-maps.c, legacy-binary.c, legacy-text.c,
 * legacy-java.c). Not installed. Each family parses into this model (samples of location
 * indices, locations by address, mappings from the memory map text), which legacy.c then
 * turns into one profile through the builder, merging as Go's pprof merges its input. */
#ifndef PPROF_LEGACY_PRIVATE_H
#define PPROF_LEGACY_PRIVATE_H

#include "htab-private.h"
#include "pprof/builder.h"
#include "pprof/legacy.h"
#include "profile-private.h"

/* What a family's parser says: parsed, not this family (the next is tried, as Go does), or an
 * error already in err. */
enum { LG_OK = 0, LG_NOT_MINE = 1, LG_ERROR = -1 };

#define LG_NOMAP UINT32_MAX
#define LG_FAKEMAP (UINT32_MAX - 1)

typedef struct lg_str {
    uint32_t off, len; /* in lg.text */
} lg_str;

typedef struct lg_loc {
    uint64_t addr;
    uint32_t fn; /* index into fns, PPROF_NONE: an address only */
    int64_t line;
    uint32_t map; /* set when the mappings are assigned */
} lg_loc;

typedef struct lg_fn {
    lg_str name, file;
} lg_fn;

typedef struct lg_map {
    uint64_t start, limit, offset;
    lg_str file, build_id;
} lg_map;

typedef struct lg_sample {
    size_t first; /* into lg.stack */
    uint32_t n;
    int64_t v[4];
    int64_t bytes; /* the numeric label "bytes" when has_bytes */
    bool has_bytes;
} lg_sample;

typedef struct lg {
    pprof_legacy_read_options o;
    pprof_error *err;
    const char *base; /* the input, for offsets */
    size_t size;
    const char *types[4][2];
    size_t ntypes;
    const char *ptype[2]; /* NULL: no period type */
    int64_t period, duration;
    lg_str count_type; /* a Go count profile's type, named by its header */
    bool has_count_type;
    bool java_unit, java_heap;   /* Java heap or contention: count_type holds the unit */
    bool all_addr_zero_unmapped; /* Java: no mapping is looked up for address 0 */
    pprof__vec samples;          /* lg_sample */
    pprof__vec stack;            /* uint32_t location indices */
    pprof__vec locs;             /* lg_loc */
    pprof__vec fns;              /* lg_fn */
    pprof__vec maps;             /* lg_map */
    pprof__vec text;             /* char: strings the model holds */
    pprof__u64map by_addr;       /* address -> location index */
} lg;

/* A line scanner with the meaning of Go's bufio.ScanLines: lines split at '\n', a '\r' before
 * it dropped, a last line without '\n' still a line. After the end, the current line is "". */
typedef struct lg_scan {
    const char *p, *end;
    const char *line;
    size_t len;
    uint64_t off; /* of the current line in the input */
    const char *base;
} lg_scan;

void lg_scan_init(lg_scan *s, const char *base, const char *p, const char *end);
bool lg_scan_next(lg_scan *s);

/* Text helpers with Go's meaning. */
void lg_trim(const char **p, size_t *n);
bool lg_space_or_comment(const char *p, size_t n);
bool lg_has_prefix(const char *p, size_t n, const char *prefix);
bool lg_contains(const char *p, size_t n, const char *needle);
bool lg_map_sentinel(const char *p, size_t n);
/* strconv.ParseInt(s, base, 64) and ParseUint: false on a syntax error or overflow. base 0
 * takes Go's prefixes (0x, 0o, 0b, a leading 0 for octal). */
bool lg_parse_int(const char *p, size_t n, int base, int64_t *out);
bool lg_parse_uint(const char *p, size_t n, int base, uint64_t *out);
/* Every 0x[0-9a-f]+ in the text, in order, appended as a frame of the open stack; adjust_from
 * is the first frame index adjusted by -1 (SIZE_MAX: none). LG_ERROR when one overflows. */
int lg_hex_frames(lg *g, const char *p, size_t n, size_t *nframes, size_t adjust_from,
                  uint64_t off);

/* Model building. */
pprof_status lg_nomem(lg *g);
int lg_invalid(lg *g, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool lg_text(lg *g, const char *p, size_t n, lg_str *out);
/* The location of addr, made on first use. */
int lg_loc_for(lg *g, uint64_t addr, uint32_t *idx);
/* Appends one frame to the stack being built (a sample begun with lg_sample_begin). */
int lg_push_frame(lg *g, uint64_t addr);
lg_sample *lg_sample_begin(lg *g);
/* Ends the sample begun last with n frames; LG_ERROR past the limits. */
int lg_sample_end(lg *g, uint64_t off);
void lg_set_types(lg *g, const char *const (*types)[2], size_t n, const char *ptype,
                  const char *punit, int64_t period);
/* Drops frame i of sample s (Go's removal of a duplicated or artificial frame). */
void lg_drop_frame(lg *g, lg_sample *s, uint32_t i);
/* Go's cleanupDuplicateLocations: a second frame that is the leaf adjusted by -1 goes. */
void lg_cleanup_duplicate_leaf(lg *g);
/* Go's scaleHeapSample. */
int lg_scale_heap(lg *g, int64_t *count, int64_t *size, int64_t rate, uint64_t off);

/* The memory map text from the scanner's next line on (Go's ParseMemoryMapFromScanner): the
 * mappings are parsed, massaged and assigned to the locations. */
int lg_parse_maps(lg *g, lg_scan *s);
/* Go's parseAdditionalSections: skips to a memory map sentinel, then the map. */
int lg_additional_sections(lg *g, lg_scan *s);
/* Assigns every location its mapping (Go's remapMappingIDs); done once, after the map. */
void lg_assign_mappings(lg *g);

/* Whether a line begins a thread profile (Go's threadzStartRE or threadStartRE, anywhere in
 * it). */
bool lg_thread_header(const char *p, size_t n);

/* The families, each LG_OK, LG_NOT_MINE or LG_ERROR. */
int lg_parse_cpu(lg *g, const uint8_t *b, size_t n);
int lg_parse_heap(lg *g, const char *b, size_t n);
int lg_parse_count(lg *g, const char *b, size_t n);
int lg_parse_thread(lg *g, const char *b, size_t n);
int lg_parse_contention(lg *g, const char *b, size_t n);
int lg_parse_java(lg *g, const char *b, size_t n);
/* The Java CPU profile after its header (legacy-java.c). */
int lg_parse_java_cpu(lg *g, const uint8_t *b, size_t n, size_t word, bool big, int64_t period);
/* Shared by both CPU profiles: the sample records up to the trailer; *end is where the text
 * after it begins. */
int lg_cpu_samples(lg *g, const uint8_t *b, size_t n, size_t word, bool big, bool adjust,
                   size_t *end);
/* Go's parseJavaLocations over the text after the samples. */
int lg_java_locations(lg *g, const char *b, size_t n);

/* The reader of the table (readers.c). */
bool pprof__legacy_detect_raw(const uint8_t *raw, size_t len);
pprof_status pprof__legacy_read_one(uint8_t *raw, size_t len, pprof_format container,
                                    const pprof_read_options *ro, pprof_profile **out,
                                    pprof_error *err);

#endif
