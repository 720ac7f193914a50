#!/bin/sh
# Seeds of fuzz_symbolize: tiny ELF executables with DWARF (no libc, so a few KB each), made by
# the compilers of Debian 12. Run from anywhere: ./make-seeds.sh writes beside itself.
set -eu
d=$(cd "$(dirname "$0")" && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cat >"$t/s.c" <<'C'
static inline int sq(int x) { return x * x; }
static int __attribute__((noinline)) f(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i); return s; }
void _start(void) { volatile int r = f(7); (void)r; for (;;) ; }
C
cat >"$t/s.cc" <<'C'
namespace ns { template <typename T> struct A { T v; __attribute__((noinline)) T get() const { return v * 2; } }; }
extern "C" void _start() { ns::A<long> a{3}; volatile long r = a.get(); (void)r; for (;;) ; }
C
flags="-O2 -nostdlib -static -Wl,--build-id -fno-asynchronous-unwind-tables"
gcc $flags -g "$t/s.c" -o "$d/c-dwarf5.elf"
gcc $flags -gdwarf-4 "$t/s.c" -o "$d/c-dwarf4.elf"
gcc $flags -g -gz "$t/s.c" -o "$d/c-compressed.elf"
g++ $flags -g "$t/s.cc" -o "$d/cxx-template.elf"
gcc $flags "$t/s.c" -o "$t/nodebug" && strip --strip-debug "$t/nodebug" -o "$d/c-symtab-only.elf"
strip -s "$d/c-dwarf4.elf" -o "$d/c-stripped.elf"
ls -l "$d"/*.elf
