#!/bin/sh
# Seeds of fuzz_symbolize and fuzz_symbolize_profile: tiny ELF files with DWARF (no libc, so a
# few KB each), made by the compilers and binutils of Debian 12 (the Rust ones by rustc when
# there is one: skipped without), and (fuzz_symbolize_profile only) tree inputs that lay out
# executables, debug files, links and bad files where the finder looks (packed by
# ../tools/sztree.py; what each is for: README.md). Run from anywhere: ./make-seeds.sh writes
# beside itself and into ../symbolize_profile/.
set -eu
d=$(cd "$(dirname "$0")" && pwd)
p=$d/../symbolize_profile
pack="python3 $d/../tools/sztree.py"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cd "$t"
cat >s.c <<'C'
static inline int sq(int x) { return x * x; }
static int __attribute__((noinline)) f(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i); return s; }
void _start(void) { volatile int r = f(7); (void)r; for (;;) ; }
C
cat >s.cc <<'C'
namespace ns { template <typename T> struct A { T v; __attribute__((noinline)) T get() const { return v * 2; } }; }
extern "C" void _start() { ns::A<long> a{3}; volatile long r = a.get(); (void)r; for (;;) ; }
C
# namespaces, class and function templates, a lambda, a virtual member, inlining at -O2
cat >ns.cc <<'C'
namespace outer { namespace inner {
template <typename T, int N> struct Box { T v[N]; __attribute__((noinline)) T sum() const { T s{}; for (int i = 0; i < N; i++) s += v[i]; return s; } };
template <typename F> __attribute__((noinline)) long apply(F f, long x) { return f(x); }
struct Op { virtual long run(long) const; };
long Op::run(long x) const { return x + 1; }
inline long twice(long x) { return x * 2; }
} }
using namespace outer::inner;
extern "C" void _start() {
  Box<long, 3> b{{1, 2, 3}}; Box<int, 2> c{{4, 5}};
  volatile long r = b.sum() + c.sum() + apply([](long x) { return twice(x) + 1; }, 3);
  Op o; r += o.run(r); (void)r; for (;;) ;
}
C
# a shared library: exported functions in .dynsym
cat >lib.c <<'C'
static inline int sq(int x) { return x * x; }
int __attribute__((noinline)) exported(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i); return s; }
int __attribute__((noinline)) other(int n) { return exported(n) + 1; }
C
# Go's spelling without Go (whose binaries are MBs): a .gopclntab section marks the file as Go,
# and the symbols carry type arguments and ABI wrapper suffixes as Go's linker writes them
cat >go.c <<'C'
int __attribute__((noinline)) gen(int x) __asm__("\"main.Map[go.shape.int,go.shape.string]\"");
int __attribute__((noinline)) gen(int x) { return x * 3; }
int __attribute__((noinline)) wrap(int x) __asm__("runtime.memmove.abi0");
int __attribute__((noinline)) wrap(int x) { return gen(x) + 1; }
int __attribute__((noinline)) both(int x) __asm__("\"main.(*T[go.shape.int]).M.abi0\"");
int __attribute__((noinline)) both(int x) { return wrap(x) + 2; }
int __attribute__((noinline)) odd(int x) __asm__("\"main.odd]x[y\"");
int __attribute__((noinline)) odd(int x) { return both(x) + 2; }
int __attribute__((noinline)) plain(int x) __asm__("main.main");
int __attribute__((noinline)) plain(int x) { return odd(x) + 2; }
__attribute__((section(".gopclntab"), used)) static const char pcln[16] = "go pcln";
void _start(void) { volatile int r = plain(7); (void)r; for (;;) ; }
C
cat >r.rs <<'C'
#![no_std]
#![no_main]
pub mod inner { pub struct W<T>(pub T); impl<T: Copy + core::ops::Mul<Output = T>> W<T> { #[inline(never)] pub fn sq(&self) -> T { self.0 * self.0 } } }
#[inline(never)] fn helper(x: u64) -> u64 { inner::W(x).sq() + 1 }
#[no_mangle] pub extern "C" fn _start() -> ! { let r = helper(unsafe { core::ptr::read_volatile(&7u64) }); unsafe { core::ptr::read_volatile(&r); } loop {} }
#[panic_handler] fn p(_: &core::panic::PanicInfo) -> ! { loop {} }
C
# the sources are named as in /src, whatever the temporary directory: the same bytes every run
flags="-O2 -nostdlib -static -Wl,--build-id -fno-asynchronous-unwind-tables -fdebug-prefix-map=$t=/src"
gcc $flags -g s.c -o "$d/c-dwarf5.elf"
gcc $flags -gdwarf-4 s.c -o "$d/c-dwarf4.elf"
gcc $flags -g -gz s.c -o "$d/c-compressed.elf"
g++ $flags -g s.cc -o "$d/cxx-template.elf"
gcc $flags s.c -o nodebug && strip --strip-debug nodebug -o "$d/c-symtab-only.elf"
strip -s "$d/c-dwarf4.elf" -o "$d/c-stripped.elf"
clang $flags -g -gdwarf-4 s.c -o "$d/clang-dwarf4.elf"
clang $flags -g -gdwarf-5 s.c -o "$d/clang-dwarf5.elf"
gcc -m32 $flags -g s.c -o "$d/c-m32.elf"
# the skeleton, without its .dwo beside it; then the .dwo alone (a split unit, no code)
gcc $flags -g -gsplit-dwarf s.c -o split && cp split "$d/c-split-dwarf.elf" && cp split*.dwo "$d/c-split-dwarf-dwo.elf"
# clang's split units packed by llvm-dwp: the package alone (a unit index, split units of C++
# with inlining, no code), DWARF 5 (index version 5) and 4 (GNU version 2)
for v in 5 4; do
    clang++ $flags -fno-exceptions -fno-rtti -g -gdwarf-$v -gsplit-dwarf ns.cc -o dwp$v
    llvm-dwp ns.dwo -o "$d/clang-split-dwarf$v.dwp" # the .dwo by name: -e looks under /src
done
g++ $flags -g -gdwarf-4 -fdebug-types-section s.cc -o "$d/cxx-type-units.elf"
g++ $flags -fno-exceptions -fno-rtti -g ns.cc -o "$d/cxx-namespaces.elf"
gcc -O2 -nostdlib -shared -fPIC -Wl,--build-id -Wl,-z,noseparate-code \
    -fno-asynchronous-unwind-tables lib.c -o lib.so && strip -s lib.so -o "$d/c-shared-dynsym.elf"
gcc $flags go.c -o "$d/go-like.elf"
# a Go 1.18-1.19 .gopclntab (one function with one inlined call) and the moduledata that
# leads to its inline tree, as a Go linker lays them out, in a C program
cat >gotab.c <<'C'
/* A Go 1.18-1.19 .gopclntab for one function, main.f, with main.g inlined in its first 16
 * bytes; go:func.* (the inline tree) through a moduledata in .noptrdata. */
#include <stddef.h>
#include <stdint.h>
__attribute__((noinline)) int f(int x) { return x * 3 + 1; }
void _start(void) { volatile int r = f(7); (void)r; for (;;) ; }
struct fn { uint32_t entryoff; int32_t nameoff, args; uint32_t deferreturn, pcsp, pcfile, pcln, npcdata, cu;
            uint8_t funcid, flag, pad, nfuncdata; uint32_t pcdata[3], funcdata[4]; };
struct tab {
    uint32_t magic; uint8_t pad1, pad2, minlc, ptrsize;
    uint64_t nfunc, nfiles; const void *text; uint64_t names, cutab, filetab, pctab, pcln;
    char funcnames[16]; uint32_t cus[2]; char files[16]; uint8_t pcs[16];
    uint32_t functab[4]; struct fn fn;
};
__attribute__((section(".gopclntab"), used)) const struct tab gotab = {
    0xfffffff0, 0, 0, 1, 8, 1, 1, (const void *)f,
    offsetof(struct tab, funcnames), offsetof(struct tab, cus), offsetof(struct tab, files),
    offsetof(struct tab, pcs), offsetof(struct tab, functab),
    "main.f\0main.g", {0, 0}, "/src/main.go",
    {0, 2, 0x40, 0, 22, 0x10, 2, 0x30, 0, 2, 0x10, 1, 0x30, 0},
    {0, 16, 0x40, 0},
    {0, 0, 0, 0, 0, 1, 4, 3, 0, 0, 0, 0, 4, {0, 0, 9}, {~0u, ~0u, ~0u, 0}},
};
/* parent, funcID, pad, file, line, func (main.g), parentPc */
struct inl { int16_t parent; uint8_t funcid, pad; int32_t file, line, func, parent_pc; };
__attribute__((used)) const struct inl inltree[1] = {{-1, 0, 0, 0, 10, 7, 0x20}};
__attribute__((section(".noptrdata"), used)) const void *const moduledata[40] = {
    &gotab, gotab.funcnames, [38] = inltree};
C
gcc $flags gotab.c -o "$d/go-pclntab.elf"
gcc $flags -g s.c -o s.elf
# MiniDebugInfo (.gnu_debugdata) as Fedora makes it: the function symbols that .dynsym lacks, in an
# xz-compressed copy of the debug file without DWARF, as .gnu_debugdata of the stripped file
nm -D --format=posix --defined-only s.elf 2>/dev/null | awk '{print $1}' | sort >dynsyms
nm --format=posix --defined-only s.elf | awk '$2 == "T" || $2 == "t" {print $1}' | sort >funcsyms
comm -13 dynsyms funcsyms >keep
objcopy --only-keep-debug s.elf dbg
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep dbg mini
rm -f mini.xz && xz --keep mini
strip --strip-all -R .comment s.elf -o "$d/c-minidebuginfo.elf"
objcopy --add-section .gnu_debugdata=mini.xz "$d/c-minidebuginfo.elf"
cp mini.xz "$d/xz-minidebuginfo.xz" # the xz stream alone (the harness decodes an xz input)
if command -v rustc >/dev/null; then
    r="rustc --edition 2021 --crate-type=bin -C panic=abort -C opt-level=1 -g -C relocation-model=static -C link-arg=-nostdlib -C link-arg=-static --remap-path-prefix=$t=/src"
    $r -C symbol-mangling-version=v0 r.rs -o "$d/rust-v0.elf"
    RUSTC_BOOTSTRAP=1 $r -Z unstable-options -C symbol-mangling-version=legacy r.rs -o "$d/rust-legacy.elf"
fi
# assembly: a label in code no function covers, a label at a function's address, one inside a
# function, an ARM-style mapping symbol, two functions at one address with different sizes,
# functions without a size, a mangled name too long to demangle and one that is not valid;
# gas's DWARF
python3 -c "print('_ZN' + '3abc' * 2300 + 'Ev')" >long
cat >a.s <<C
	.text
	.globl _start
	.type _start, @function
_start:
	call plain_label
	call unsized_fn
inner_loop:
	jmp _start
	.size _start, .-_start
plain_label:
	nop
"\$x":
	ret
	.type narrow, @function
	.size narrow, 1
	.type wide, @function
	.size wide, 2
narrow:
wide:
	nop
	ret
	.type unsized_fn, @function
unsized_fn:
also_here:
	nop
	ret
	.type "_Zbogus", @function
"_Zbogus":
	nop
	ret
	.type "$(cat long)", @function
"$(cat long)":
	nop
	ret
	.type _ZN3foo3barEv, @function
	.size _ZN3foo3barEv, 2
_ZN3foo3barEv:
	nop
	ret
C
gcc -c -g -Wa,--debug-prefix-map=$t=/src a.s -o a.o
gcc -nostdlib -static -Wl,--build-id a.o -o "$d/asm-labels.elf"
strip --strip-debug "$d/asm-labels.elf" -o "$d/asm-symtab-only.elf"
# a relocatable object: no program headers, sections at address 0
gcc -O2 -g -c -fno-asynchronous-unwind-tables -fdebug-prefix-map=$t=/src s.c -o "$d/c-object.elf"
# DWARF sections without a unit: an empty .debug_info, and one holding a truncated header
gcc $flags s.c -o nodebug2 && strip -s nodebug2
: >empty && printf '\007\000\000\000\005\000\001\010\000\000\000' >short
objcopy --add-section .debug_info=empty --add-section .debug_abbrev=empty nodebug2 "$d/c-empty-dwarf.elf"
objcopy --add-section .debug_info=short --add-section .debug_abbrev=empty nodebug2 "$d/c-short-dwarf.elf"
# DWARF without its line table: units and functions, but no file or line for any address (in
# assembly, code of no function is then known by nothing in DWARF)
objcopy --remove-section .debug_line --remove-section .debug_line_str "$d/c-dwarf5.elf" "$d/c-no-line-table.elf"
objcopy --remove-section .debug_line --remove-section .debug_line_str "$d/asm-labels.elf" "$d/asm-no-line-table.elf"
for f in "$d"/*.elf; do cp "$f" "$p/"; done

# ---- tree inputs (fuzz_symbolize_profile)
bid() { readelf -n "$1" | sed -n 's/.*Build ID: //p'; }
dir2() { echo "$1" | cut -c1-2; }
rest() { echo "$1" | cut -c3-; }
m="400000,404000,0"   # a mapping of the whole small executable at its link address
mt="401000,401200,1000" # its code only, every byte an address
gcc $flags -g s.c -o prog
objcopy --only-keep-debug prog prog.debug
strip -s prog -o prog.stripped
id=$(bid prog)
# by build ID in a debug directory: the .debug file first, then the executable by path for the
# segments; a second mapping without build ID takes the file by path and its debug file by ID
$pack "$p/tree-build-id-debug-dir" D:debug "f:debug/.build-id/$(dir2 $id)/$(rest $id).debug=prog.debug" \
    f:bin/prog=prog.stripped "m:$mt,/bin/prog,$id" "m:7f0000000000,7f0000004000,0,/bin/prog,"
# the executable's own link in the debug directory; kept lines, forced again
$pack "$p/tree-build-id-exe-link" D:nodir D:debug "f:debug/.build-id/$(dir2 $id)/$(rest $id)=prog" \
    "m:$mt,/gone/prog,$(echo $id | tr a-f A-F)" o:KF
# only the debug file anywhere: segment offsets guessed
$pack "$p/tree-debug-only" D:debug "f:debug/.build-id/$(dir2 $id)/$(rest $id).debug=prog.debug" \
    "m:$mt,/gone/prog,$id" o:K
# the debuginfod cache: debuginfo, then the executable for the segments
$pack "$p/tree-debuginfod-cache" c:cache "f:cache/$id/debuginfo=prog.debug" \
    "f:cache/$id/executable=prog.stripped" "m:$mt,/gone/prog,$id" o:N
# .gnu_debuglink without build IDs (the CRC decides): a wrong file beside, the right one in .debug/
gcc $flags -g -Wl,--build-id=none s.c -o nobid
objcopy --only-keep-debug nobid nobid.debug
objcopy --strip-all --add-gnu-debuglink=nobid.debug nobid nobid.linked
objcopy --only-keep-debug "$d/c-dwarf4.elf" wrong.debug
$pack "$p/tree-debuglink-crc" D:debug f:bin/nobid=nobid.linked f:bin/nobid.debug=wrong.debug \
    f:bin/.debug/nobid.debug=nobid.debug "m:$mt,/bin/nobid,"
# .gnu_debuglink with build IDs, found beside the file; no sysroot (the harness puts the path
# under the tree)
objcopy --strip-all --add-gnu-debuglink=prog.debug prog prog.linked
$pack "$p/tree-debuglink-build-id" r:- f:bin/prog=prog.linked f:bin/prog.debug=prog.debug \
    "m:$mt,/bin/prog,$id"
# a dwz-style .gnu_debugaltlink: the alt file found by build ID, then one found by its name
gcc $flags -O1 -g s.c -o alt && aid=$(bid alt)
printf 'alt.debug\0' >altlink && echo "$aid" | xxd -r -p >>altlink
objcopy --add-section .gnu_debugaltlink=altlink prog prog.alt
$pack "$p/tree-altlink" D:debug f:bin/prog=prog.alt \
    "f:debug/.build-id/$(dir2 $aid)/$(rest $aid).debug=alt" "m:$mt,/bin/prog,$id"
objcopy --only-keep-debug prog.alt prog.alt.debug
objcopy --strip-all --add-gnu-debuglink=prog.alt.debug prog prog.alt.linked
$pack "$p/tree-altlink-by-name" f:bin/prog=prog.alt.linked f:bin/prog.alt.debug=prog.alt.debug \
    f:bin/alt.debug=alt "m:$mt,/bin/prog,"
# every way a file is refused, each its own mapping: a directory, a FIFO, a link loop, a
# dangling link, not ELF, another build ID, a file too large (4 KiB limit), no symbols at all,
# pseudo files, kernel addresses, no file name; two --binary files of other names
strip -s nobid -o nosyms
printf 'not an ELF file\n' >text
gcc $flags -g s.c -o big -Wl,--build-id && truncate -s 9000 big
$pack "$p/tree-refusals" d:bin/dir p:bin/fifo l:bin/loop=loop l:bin/dangling=nowhere f:bin/text=text \
    f:bin/prog=prog f:bin/nosyms=nosyms f:big=big f:bin/other1=prog f:bin/other2=prog b:bin/other1 b:bin/other2 \
    "m:$m,/bin/dir," "m:10000000,10004000,0,/bin/fifo," "m:20000000,20004000,0,/bin/loop," \
    "m:30000000,30004000,0,/bin/dangling," "m:40000000,40004000,0,/bin/text," \
    "m:50000000,50004000,0,/bin/prog,0badc0de" "m:60000000,60004000,0,/big," \
    "m:70000000,70004000,0,/bin/nosyms," "m:80000000,80004000,0,[vdso]," \
    "m:90000000,90004000,0,//anon," "m:a0000000,a0004000,0,/memfd:jit (deleted)," \
    "m:b0000000,b0004000,0,anon_inode:[perf_event]," "m:c0000000,c0004000,0,/dev/zero (deleted)," \
    "m:d0000000,d0004000,0,/SYSV00000000," "m:ffffffff81000000,ffffffff81004000,0,[kernel.kallsyms]," \
    "m:e0000000,e0004000,0,," o:L
# the same file under two names (one opened once); a shared library at a PIE-like address
cp "$d/c-shared-dynsym.elf" lib
$pack "$p/tree-alias-shared" f:bin/prog=prog l:bin/link=prog f:lib/libx.so=lib \
    "m:$m,/bin/prog," "m:500000,504000,0,/bin/link," "m:7f0000000000,7f0000002000,0,/lib/libx.so,"
# more refusals: a socket, a character device, a file without build ID where one is wanted, a
# build ID too short for a .build-id path, a file name too long for a path, a debug link found
# nowhere and one naming its own file, an alt link without build ID and one to a file not
# there, address 0; a debug file
# by path too (no executable for it), and one without DWARF (closed again); a mapping named
# twice after its file was found under another name
objcopy --strip-all --add-gnu-debuglink=nobid.debug nobid nobid.nowhere
cp nobid self && objcopy --strip-all --add-gnu-debuglink=self nobid self.linked
printf 'alt.debug\0' >altnoid && objcopy --add-section .gnu_debugaltlink=altnoid prog prog.altnoid
long=$(python3 -c "print('/x' * 2500)")
$pack "$p/tree-refusals-more" s:bin/sock l:bin/null=/dev/null D:debug \
    "f:debug/.build-id/$(dir2 $id)/$(rest $id).debug=nobid" f:bin/nowhere=nobid.nowhere \
    f:bin/self=self.linked f:bin/altnoid=prog.altnoid f:bin/altgone=prog.alt f:bin/prog=prog \
    l:bin/link=prog "m:a0000000,a0000200,1000,/bin/altgone," \
    "m:$mt,/bin/sock," "m:10000000,10004000,0,/bin/null," "m:20000000,20004000,0,/gone,$id" \
    "m:30000000,30004000,0,/gone,ab" "m:40000000,40004000,0,$long," \
    "m:50000000,50000200,1000,/bin/nowhere," "m:60000000,60000200,1000,/bin/self," \
    "m:70000000,70000200,1000,/bin/altnoid," "m:0,200,1000,/bin/prog," o:K \
    "m:80000000,80000200,1000,/bin/link," "m:90000000,90000200,1000,/bin/link,"
$pack "$p/tree-debug-file-twice" D:debug "f:debug/.build-id/$(dir2 $id)/$(rest $id).debug=prog.debug" \
    f:bin/prog=prog.debug "m:$mt,/bin/prog,$id"
$pack "$p/tree-debug-no-dwarf" D:debug "f:debug/.build-id/$(dir2 $id)/$(rest $id).debug=prog.stripped" \
    f:bin/prog=prog.stripped "m:$mt,/bin/prog,"
# paths that are not the mappings' to open: build IDs that are not hex would lead out of the
# debug directory (DIR/.build-id/..//../trav.debug) and the cache (CACHE/../trav/debuginfo), a
# file planted at each; /proc/self/exe without a sysroot (the harness leaves /proc/ names as
# they are), and under the tree's sysroot, where it is the tree's file
$pack "$p/tree-build-id-not-hex" D:debug d:debug/.build-id c:cache d:cache f:trav.debug=prog \
    f:trav/debuginfo=prog "m:$mt,/gone/prog,../../trav" "m:7f0000000000,7f0000000200,1000,/gone/prog,../trav"
$pack "$p/tree-proc-path" r:- "m:$mt,/proc/self/exe," "m:7f0000000000,7f0000000200,1000,/proc/../proc/self/exe,"
$pack "$p/tree-proc-sysroot" f:proc/self/exe=prog "m:$mt,/proc/self/exe,"
ls -l "$d"/*.elf "$p"/tree-*
