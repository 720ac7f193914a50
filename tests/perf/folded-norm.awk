# Normalises folded stacks ("root;...;leaf COUNT") so that those of
# pprof-from-perf --symbolize | pprof-edit --no-inlines | pprof-convert --to=folded --labels comm
# and those of perf script | stackcollapse-perf.pl can be compared stack by stack. Each rule is
# a difference of naming, not of samples (docs/perf.md, "Compared with perf"):
#  - the root frame: "comm=NAME" (a label as root frame) is stackcollapse's "NAME", with its
#    spaces as "_";
#  - a frame neither side could name: ours is the address (0x...) or "[FILE]", perf's
#    "[unknown]" or "[FILE]" -> "[unknown]"; perf names [vdso] code from the kernel's image in
#    memory ("__vdso_*"), which no file on disk holds -> "[unknown]";
#  - PLT stubs: perf makes up "NAME@plt" symbols from the PLT's relocations; ELF has no symbol
#    there, so the symbolizer (as llvm-symbolizer and addr2line) names them by the symbol
#    before, "_init", or not at all -> "[unknown]";
#  - aliases, names the symbol tables give one address: perf picks one by its own rule
#    (global before local, fewer leading underscores, the longer name), the symbolizer as
#    llvm-symbolizer does (the widest, then the last in the table), so both become the name
#    aliases.sh lists for them (the first in byte order); perf's symbol version suffix
#    ("clock_gettime@@GLIBC_2.17") is dropped first.
# usage: awk -f folded-norm.awk ALIASES FOLDED
FNR == NR {
    alias[$1] = $2
    next
}
{
    count = $NF
    sub(/ [0-9]+$/, "")
    n = split($0, f, ";")
    out = ""
    for (i = 1; i <= n; i++) {
        s = f[i]
        if (i == 1) {
            sub(/^comm=/, "", s)
            gsub(/ /, "_", s)
        } else if (s ~ /^0x[0-9a-f]+$/ || s ~ /^\[.*\]$/ || s ~ /^__vdso_/ || s ~ /@plt$/ ||
                   s == "_init") {
            s = "[unknown]"
        } else {
            sub(/@.*$/, "", s)
            if (s in alias)
                s = alias[s]
        }
        out = out (i > 1 ? ";" : "") s
    }
    c[out] += count
}
END {
    for (k in c)
        print k, c[k]
}
