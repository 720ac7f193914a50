// Split DWARF test code (test_dwp.py): member functions defined out of their class (a
// DW_AT_specification behind each abstract origin), templates inlined into templates, a lambda,
// code in several discontiguous pieces (range lists), and a string table large enough for
// strx2 forms.
#include <map>
#include <string>
#include <vector>

namespace szsplit {
class Histogram {
  public:
    explicit Histogram(int buckets);
    void add(int v);
    long weighted() const;
    const std::vector<long> &counts() const { return counts_; }

  private:
    int bucket_of(int v) const;
    std::vector<long> counts_;
};

Histogram::Histogram(int buckets) : counts_(static_cast<size_t>(buckets > 0 ? buckets : 1)) {}

inline int
Histogram::bucket_of(int v) const
{
    int n = static_cast<int>(counts_.size());
    return ((v % n) + n) % n;
}

void
Histogram::add(int v)
{
    counts_[static_cast<size_t>(bucket_of(v))] += 1 + (v & 3);
}

long
Histogram::weighted() const
{
    long s = 0;
    for (size_t i = 0; i < counts_.size(); i++)
        s += counts_[i] * static_cast<long>(i + 1);
    return s;
}

template <typename K, typename F>
static long
fold(const std::map<K, long> &m, F f)
{
    long acc = 0;
    for (const auto &kv : m)
        acc = f(acc, kv.second);
    return acc;
}
} // namespace szsplit

extern "C" long
split_work(int n)
{
    szsplit::Histogram h(17);
    std::map<std::string, long> words;
    for (int i = 0; i < n; i++) {
        h.add(i * 31 - 7);
        words[std::to_string(i % 23)] += i;
    }
    long w = szsplit::fold(words, [](long a, long b) { return a * 3 + (b ^ (a >> 5)); });
    return w + h.weighted() + static_cast<long>(h.counts().size());
}
