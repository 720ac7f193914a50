#!/bin/sh
# Seeds for the legacy readers: records small C programs with Debian's gperftools
# (libgoogle-perftools-dev): a CPU profile through libprofiler (CPUPROFILE) and heap profiles
# through libtcmalloc (HEAPPROFILE). Writes into OUTDIR (default corpus/legacy).
# With KEEP=1 the programs stay in OUTDIR/bin, where the profiles' mappings name them (for
# symbolization); otherwise they are built in a temporary directory that is removed.
# Usage: [KEEP=1] record.sh [OUTDIR]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$src/corpus/legacy}
lib=$(dirname "$(find /usr/lib -name libprofiler.so -print -quit 2>/dev/null)")
[ -n "$lib" ] && [ -e "$lib/libtcmalloc.so" ] || { echo "gperftools not installed (scripts/deps)" >&2; exit 77; }
mkdir -p "$out"
if [ "${KEEP:-0}" = 1 ]; then
    work=$(cd "$out" && pwd)/bin
    mkdir -p "$work"
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/legacy-record.XXXXXX")
    trap 'rm -rf "$work"' EXIT
fi

cat > "$work/spin.c" <<'C'
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i * i; }
__attribute__((noinline)) static void mid(unsigned long n) { leaf(n); leaf(n / 2); }
__attribute__((noinline)) static void other(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink ^= i; }
int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 40000000ul;
    for (int r = 0; r < 6; r++) { mid(n); other(n); }
    return 0;
}
C
cat > "$work/alloc.c" <<'C'
#include <stdlib.h>
#include <string.h>
static void *keep[4096];
__attribute__((noinline)) static void *small(size_t n) { void *p = malloc(n); memset(p, 1, n); return p; }
__attribute__((noinline)) static void *big(size_t n) { void *p = malloc(n); memset(p, 2, n); return p; }
int main(void)
{
    for (int i = 0; i < 4096; i++) keep[i] = small(1024 + (size_t)i);
    for (int i = 0; i < 64; i++) { void *p = big(1 << 20); if (i % 2) free(p); else keep[i] = p; }
    for (int i = 0; i < 2048; i++) free(keep[i + 1024]), keep[i + 1024] = NULL;
    return 0;
}
C
cc -O1 -g -fno-omit-frame-pointer -o "$work/spin" "$work/spin.c"
cc -O1 -g -fno-omit-frame-pointer -o "$work/alloc" "$work/alloc.c"
cd "$work"
CPUPROFILE="$work/cpu.prof" CPUPROFILE_FREQUENCY=250 LD_PRELOAD="$lib/libprofiler.so" ./spin
cp "$work/cpu.prof" "$out/gperftools-cpu.prof"
HEAPPROFILE="$work/heap" HEAP_PROFILE_ALLOCATION_INTERVAL=4194304 HEAP_PROFILE_INUSE_INTERVAL=0 \
    LD_PRELOAD="$lib/libtcmalloc.so" ./alloc 2>/dev/null
last=$(ls "$work"/heap.*.heap | sort | tail -1)
cp "$last" "$out/tcmalloc-heap.heap"
echo "recorded: $out/gperftools-cpu.prof $out/tcmalloc-heap.heap"
