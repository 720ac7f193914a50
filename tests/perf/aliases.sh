#!/bin/sh
# Prints "NAME CANONICAL" for the function names that the ELF symbol tables of a recording's
# files (and of their debug files under /usr/lib/debug) give one address: aliases such as
# clock_gettime and __clock_gettime, mmap and __mmap64, _exit and _Exit, glibc's IFUNC X and
# its resolver X_ifunc. The canonical name is the first in byte order. A name found at two
# addresses of one file (two static functions) is left out: it is not an alias.
# usage: aliases.sh PERF.DATA
# The files are those perf names frames in (perf buildid-list leaves some out in pipe mode).
perf script -i "$1" -F ip,dso 2>/dev/null | sed -n 's/.*(\(\/.*\))[[:space:]]*$/\1/p' | sort -u | while read -r path; do
    case $path in /*) ;; *) continue ;; esac
    id=$(readelf -n "$path" 2>/dev/null | awk '/Build ID:/ {print $3; exit}')
    dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
    for f in "$path" "$dbg"; do
        [ -f "$f" ] && readelf -sW "$f" 2>/dev/null | awk -v file="$path" '
            $4 ~ /^(FUNC|IFUNC|NOTYPE)$/ && $7 != "UND" && $7 != "ABS" && $2 !~ /^0+$/ && NF >= 8 {
                name = $8; sub(/@.*$/, "", name)
                print file, $2, name
            }'
    done
done | LC_ALL=C sort -u | LC_ALL=C awk '
    function find(x) { while (up[x] != x) x = up[x]; return x }
    { fa = $1 " " $2; fn = $1 " " $3
      w = (fn in where) && where[fn] != fa ? "-" : fa
      where[fn] = w
      row[NR] = fa SUBSEP $3 }
    END {
        # names that share an address in a file are one name, across every file
        for (r = 1; r <= NR; r++) {
            split(row[r], q, SUBSEP); split(q[1], p, " ")
            if (where[p[1] " " q[2]] == "-") continue
            if (!(q[2] in up)) up[q[2]] = q[2]
            if (!(q[1] in first)) { first[q[1]] = q[2]; continue }
            a = find(q[2]); b = find(first[q[1]])
            if (a < b) up[b] = a; else if (b < a) up[a] = b
        }
        for (x in up) if (find(x) != x) print x, find(x)
    }' | LC_ALL=C sort
