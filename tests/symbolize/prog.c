/* Symbolization test program: inlining (static helpers at -O2), a recursive function, calls
 * into a shared library. Compiled -O2 -g by the test suite as PIE and non-PIE. */
#include <stdio.h>
#include <stdlib.h>

int lib_work(int n);

/* Hand-written assembly: a label (STT_NOTYPE) with neither a function symbol nor DWARF, as
 * glibc's _start and _dl_start_user; named by it, as perf and llvm-symbolizer name it. */
__asm__(".text\n.globl sz_asm_label\nsz_asm_label:\n\tnop\n\tnop\n\tret\n");

static inline int
square(int x)
{
    return x * x;
}

static inline int
sum_squares(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += square(i) ^ (s >> 3);
    return s;
}

__attribute__((noinline)) static int
fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) int
compute(int n)
{
    return sum_squares(n) + fib(n % 20);
}

int
main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10;
    printf("%d %d\n", compute(n), lib_work(n));
    return 0;
}
