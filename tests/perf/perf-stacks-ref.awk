# `perf script -F ip,dso` to the lines perf_stacks prints: one sample per block, frames leaf
# first in the input, root first out; a frame in a file or [vdso] "DSO+0xADDR" (perf prints the address
# in the file), in the kernel or no file "0xADDR"; address 0 (an unwinder's filler) left out,
# as pprof-from-perf leaves it out.
function flush() {
    if (n) {
        line = ""
        for (i = n; i >= 1; i--)
            line = line f[i] (i > 1 ? ";" : "")
        print line " 1"
    } else if (seen) {
        print "- 1"
    }
    n = 0; seen = 0
}
/^[[:space:]]*$/ { flush(); next }
{
    seen = 1
    addr = $1; sub(/^0+/, "", addr); if (addr == "") next
    dso = $0; sub(/^[^(]*\(/, "", dso); sub(/\)[[:space:]]*$/, "", dso)
    if (dso == "" || dso == "[unknown]" || dso ~ /^\[kernel\.kallsyms\]/) f[++n] = "0x" addr
    else f[++n] = dso "+0x" addr
}
END { flush() }
