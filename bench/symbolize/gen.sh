#!/bin/sh
# Generates and builds the symbolization benchmark's binary: a C++ program of N translation
# units (default 80), each instantiating standard containers and algorithms over types of its
# own, compiled -O2 -g, which gives well over 50 MB of DWARF with deep inlining.
#   bench/symbolize/gen.sh OUTDIR [N]
set -eu
out=$1
n=${2:-80}
mkdir -p "$out/src"
i=0
while [ "$i" -lt "$n" ]; do
    cat >"$out/src/tu$i.cc" <<EOF2
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>
namespace tu$i {
struct Item { std::string name; long v; std::vector<int> parts; };
template <typename K, typename V> struct Table {
    std::map<K, std::vector<V>> m;
    std::unordered_map<K, std::set<V>> u;
    void add(const K &k, const V &v) { m[k].push_back(v); u[k].insert(v); }
    long score() const {
        long s = 0;
        for (const auto &kv : m) s += (long)kv.second.size() * 3 + (long)u.at(kv.first).size();
        return s;
    }
};
long run(int n) {
    Table<std::string, long> a; Table<long, std::string> b; Table<int, double> c;
    std::vector<Item> items;
    for (int j = 0; j < n; j++) {
        std::string k = "k" + std::to_string(j % 17 + $i);
        a.add(k, j); b.add(j % 13, k); c.add(j % 7, j * 0.5);
        items.push_back(Item{k, j, std::vector<int>(j % 5, j)});
    }
    std::sort(items.begin(), items.end(), [](const Item &x, const Item &y) { return x.name < y.name || (x.name == y.name && x.v > y.v); });
    std::stable_sort(items.begin(), items.end(), [](const Item &x, const Item &y) { return x.parts.size() < y.parts.size(); });
    auto it = std::unique(items.begin(), items.end(), [](const Item &x, const Item &y) { return x.name == y.name; });
    return a.score() + b.score() + c.score() + (it - items.begin());
}
}
long run$i(int n) { return tu$i::run(n); }
EOF2
    i=$((i + 1))
done
{
    i=0
    while [ "$i" -lt "$n" ]; do echo "long run$i(int);"; i=$((i + 1)); done
    echo "int main(int c, char **) { long s = 0;"
    i=0
    while [ "$i" -lt "$n" ]; do echo "s += run$i(c * 100);"; i=$((i + 1)); done
    echo "return (int)(s & 1); }"
} >"$out/src/main.cc"
ls "$out"/src/*.cc | xargs -P "$(nproc)" -I{} sh -c 'g++ -O2 -g -c "$1" -o "$1.o"' _ {}
g++ -O2 -g -o "$out/bigdwarf" "$out"/src/*.cc.o
size=0
for h in $(readelf -SW "$out/bigdwarf" | sed 's/\[ */[/' | awk '$2 ~ /^\.debug_/ { print $6 }'); do
    size=$((size + 0x$h))
done
echo "$out/bigdwarf: $size bytes of DWARF"
