# Shared by fuzz/run, fuzz/smoke and fuzz/coverage (sourced, not run).
set -euo pipefail

FUZZ_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FUZZ_CORPUS=$FUZZ_ROOT/corpus
FUZZ_DICT=$FUZZ_CORPUS/dict/pprof.dict
# The harness lists are read from fuzz/meson.build, the one place they are kept.
FUZZ_ALL=$(sed -n "s/^fuzz_harnesses = \[\(.*\)\]/\1/p" "$FUZZ_ROOT/fuzz/meson.build" |
    sed "s/[',]/ /g")
# a list sed cannot read (split over lines, say) must stop the run, not make it pass empty
[ -n "${FUZZ_ALL// /}" ] || { echo "fuzz: no harness list read from fuzz/meson.build" >&2; exit 2; }
FUZZ_STRUCTURED=$(sed -n "s/^fuzz_structured = \[\(.*\)\]/\1/p" "$FUZZ_ROOT/fuzz/meson.build" |
    sed "s/[',]/ /g")

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1:suppressions=$FUZZ_ROOT/tests/asan-graphviz.supp}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Graphviz (fuzz_report's SVG) keeps process-lifetime allocations that are not ours
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$FUZZ_ROOT/tests/lsan-graphviz.supp}

fuzz_log() { printf '%s\n' "$*" >&2; }

# Seed directories of one harness: its kept corpus, its regressions, and for the checker the
# checker's own goldens.
fuzz_seed_dirs() {
    local h=$1
    printf '%s\n' "$FUZZ_CORPUS/$h"
    [ -d "$FUZZ_CORPUS/regress/$h" ] && printf '%s\n' "$FUZZ_CORPUS/regress/$h"
    [ "$h" = checker ] && [ -d "$FUZZ_CORPUS/check" ] && printf '%s\n' "$FUZZ_CORPUS/check"
    return 0
}

# fuzz_setup DIR ENGINE [HARNESS...]: configures (once) and builds the harnesses of one engine
# (only those named, when any are; "-" names none, for the AFL++ mutator alone).
fuzz_setup() {
    local dir=$1 engine=$2 cc cxx h only
    only=${*:3}
    # The C++ compiler (libpprof/edit/regex-re2.cc, and the linker of every harness) must be the C
    # compiler's pair: g++ does not know -fsanitize=fuzzer.
    case $engine in
    libfuzzer) cc=${FUZZ_CC:-clang} cxx=${FUZZ_CXX:-clang++} ;;
    afl) cc=${FUZZ_AFL_CC:-afl-clang-fast} cxx=${FUZZ_AFL_CXX:-afl-clang-fast++} ;;
    none) cc=${CC:-cc} cxx=${CXX:-c++} ;;
    *) fuzz_log "unknown engine $engine"; return 2 ;;
    esac
    if [ ! -f "$dir/build.ninja" ]; then
        # Other areas' warnings must not stop a fuzzing run; the normal builds use -Werror.
        CC=$cc CXX=$cxx meson setup "$dir" "$FUZZ_ROOT" -Dfuzzing="$engine" -Dtests=false -Dbench=false \
            -Dtools=false -Dwerror=false >/dev/null
    fi
    local targets=()
    for h in ${only:-$FUZZ_ALL}; do [ "$h" = - ] || targets+=("fuzz/fuzz_$h"); done
    [ "$engine" = none ] && targets+=(fuzz/libpprof-afl-mutator.so)
    if ! ninja -C "$dir" "${targets[@]}" >"$dir/fuzz-build.log" 2>&1; then
        grep -E -A5 "error|FAILED" "$dir/fuzz-build.log" | head -30 >&2
        fuzz_log "building the $engine harnesses in $dir failed (log: $dir/fuzz-build.log)"
        return 1
    fi
}

# Copies the crash files of a run into corpus/regress/<harness>/ and prints how to replay them.
fuzz_keep_crashes() {
    local h=$1 build=$2
    shift 2
    local n=0 f sum dst
    mkdir -p "$FUZZ_CORPUS/regress/$h"
    for f in "$@"; do
        [ -f "$f" ] || continue
        sum=$(sha1sum "$f" | cut -c1-40)
        dst=$FUZZ_CORPUS/regress/$h/crash-$sum
        cp "$f" "$dst"
        n=$((n + 1))
        echo "CRASH $h: kept as ${dst#"$FUZZ_ROOT"/}"
        echo "  reproduce: $build/fuzz/fuzz_$h ${dst#"$FUZZ_ROOT"/}"
    done
    return $n
}
