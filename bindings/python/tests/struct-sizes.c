/* Prints the size of every public struct the Python binding mirrors with ctypes, one
 * "name size" per line; test_structs.py compares them with the binding's. */
#include <stdio.h>

#include "builder.h"
#include "check.h"
#include "interchange.h"
#include "merge.h"
#include "pprof.h"
#include "report.h"
#if defined(__has_include)
#if __has_include("symbolize.h")
#include "symbolize.h"
#define HAVE_SYMBOLIZE 1
#endif
#if __has_include("edit.h")
#include "edit.h"
#define HAVE_EDIT 1
#endif
#if __has_include("flame.h")
#include "flame.h"
#define HAVE_FLAME 1
#endif
#endif

#define SIZE(t) printf("%s %zu\n", #t, sizeof(t))

int
main(void)
{
    SIZE(pprof_error);
    SIZE(pprof_read_options);
    SIZE(pprof_write_options);
    SIZE(pprof_buffer);
    SIZE(pprof_header);
    SIZE(pprof_sample);
    SIZE(pprof_location);
    SIZE(pprof_mapping);
    SIZE(pprof_function);
    SIZE(pprof_label);
    SIZE(pprof_line);
    SIZE(pprof_merge_options);
    SIZE(pprof_merge_summary);
    SIZE(pprof_check_options);
    SIZE(pprof_check_summary);
    SIZE(pprof_finding);
    SIZE(pprof_rule_info);
    SIZE(pprof_builder_options);
    SIZE(pprof_builder_mapping_desc);
    SIZE(pprof_builder_line);
    SIZE(pprof_builder_label);
    SIZE(pprof_builder_frame);
    SIZE(pprof_speedscope_options);
    SIZE(pprof_cpuprofile_read_options);
    SIZE(pprof_cpuprofile_write_options);
    SIZE(pprof_builder_stats);
    SIZE(pprof_report_render_options);
#ifdef HAVE_SYMBOLIZE
    SIZE(pprof_symbolize_options);
    SIZE(pprof_symbolize_mapping);
#endif
#ifdef HAVE_EDIT
    SIZE(pprof_edit_options);
    SIZE(pprof_edit_step);
#endif
#ifdef HAVE_FLAME
    SIZE(pprof_flame_options);
    SIZE(pprof_flame_write_options);
#endif
    return 0;
}
