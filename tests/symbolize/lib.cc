// Symbolization test library: C++ templates, namespaces, inlining, a lambda; a shared library.
#include <algorithm>
#include <vector>

namespace sz {
template <typename T> struct Acc {
    T total{};
    void add(T v) { total += v * 3 + (total >> 2); }
};

template <typename T>
static T
accumulate(const std::vector<T> &v)
{
    Acc<T> a;
    for (const T &x : v)
        a.add(x);
    return a.total;
}

namespace {
int
sorted_sum(std::vector<int> v)
{
    std::sort(v.begin(), v.end(), [](int a, int b) { return (a ^ 5) < (b ^ 5); });
    return accumulate(v);
}
} // namespace
} // namespace sz

extern "C" int
lib_work(int n)
{
    std::vector<int> v;
    for (int i = 0; i < n * 7; i++)
        v.push_back((i * 7919) % 113);
    return sz::sorted_sum(v) + static_cast<int>(sz::accumulate(std::vector<long>(v.begin(), v.end())));
}
