// The only C++ in libpprof: RE2 behind three C functions (regex-private.h). RE2 is what Go's
// regexp is (same design, same syntax, linear time in the subject), so a pattern has Go's
// answer on every name without a backtracking limit to hit. No exception leaves this file:
// each entry point catches everything, and an allocation failure becomes PPROF__RE2_NOMEM.
#include <new>
#include <re2/re2.h>

#include "regex-re2-private.h"

// The compiled program and the DFA caches of one pattern share this budget (RE2 splits it; a
// search whose DFA runs out of room falls back to RE2's NFA, still linear). RE2's programs are
// bytewise, so a class costs it far more than it costs Go: with 32 MB, \pL{1000} compiles
// (about 2 s, 170 MB at its peak, parse and compile temporaries included) and three of them
// are refused as "expression too large" in 1 s and 52 MB, where 128 MB would take 7 s and
// 500 MB (docs/edit.md, difference 9). RE2's own default, 8 MB, refuses \pL{1000}.
static const int64_t k_max_mem = int64_t(32) << 20;

struct pprof__re2 {
    RE2 re;
    explicit pprof__re2(const re2::StringPiece &p, const RE2::Options &o) : re(p, o)
    {
    }
};

// RE2's error codes carry Go's reasons: RE2 and Go's regexp/syntax share their parser's design
// and their error set (regexp/syntax ErrorCode strings).
static const char *
go_reason(RE2::ErrorCode c)
{
    switch (c) {
    case RE2::ErrorBadEscape: return "invalid escape sequence";
    case RE2::ErrorBadCharClass: return "invalid character class";
    case RE2::ErrorBadCharRange: return "invalid character class range";
    case RE2::ErrorMissingBracket: return "missing closing ]";
    case RE2::ErrorMissingParen: return "missing closing )";
    case RE2::ErrorUnexpectedParen: return "unexpected )";
    case RE2::ErrorTrailingBackslash: return "trailing backslash at end of expression";
    case RE2::ErrorRepeatArgument: return "missing argument to repetition operator";
    case RE2::ErrorRepeatSize: return "invalid repeat count";
    case RE2::ErrorRepeatOp: return "invalid nested repetition operator";
    case RE2::ErrorBadPerlOp: return "invalid or unsupported Perl syntax";
    case RE2::ErrorBadUTF8: return "invalid UTF-8";
    case RE2::ErrorBadNamedCapture: return "invalid named capture";
    case RE2::ErrorPatternTooLarge: return "expression too large";
    default: return "regexp/syntax: internal error";
    }
}

extern "C" int
pprof__re2_new(const char *pattern, size_t n, pprof__re2 **out, const char **why)
{
    *out = nullptr;
    *why = nullptr;
    try {
        RE2::Options o;
        o.set_encoding(RE2::Options::EncodingUTF8); // Go: patterns and names are UTF-8
        o.set_posix_syntax(false);                  // Perl classes, \b, ^ $ at the text's ends
        o.set_longest_match(false);                 // leftmost-first, as regexp.Compile
        o.set_log_errors(false);                    // the caller reports, not RE2's log
        o.set_max_mem(k_max_mem);
        // submatches for pprof__re2_groups (the dot report's name shortening); a yes/no Match
        // asks for none, so RE2 still answers it with its DFA
        o.set_never_capture(false);
        o.set_case_sensitive(true);
        o.set_never_nl(false);
        o.set_dot_nl(false);
        pprof__re2 *r = new (std::nothrow) pprof__re2(re2::StringPiece(pattern, n), o);
        if (!r)
            return PPROF__RE2_NOMEM;
        if (!r->re.ok()) {
            *why = go_reason(r->re.error_code());
            delete r;
            return PPROF__RE2_SYNTAX;
        }
        *out = r;
        return PPROF__RE2_OK;
    } catch (const std::bad_alloc &) {
        return PPROF__RE2_NOMEM;
    } catch (...) {
        *why = "regexp/syntax: internal error";
        return PPROF__RE2_SYNTAX;
    }
}

extern "C" int
pprof__re2_match(const pprof__re2 *r, const char *s, size_t n)
{
    try {
        return r->re.Match(re2::StringPiece(s, n), 0, n, RE2::UNANCHORED, nullptr, 0) ? 1 : 0;
    } catch (...) {
        return -1;
    }
}

extern "C" int
pprof__re2_groups(const pprof__re2 *r, const char *s, size_t n, size_t *ovec, size_t max_groups)
{
    try {
        re2::StringPiece sub[16];
        size_t k = max_groups < 16 ? max_groups : 16;
        if (k > (size_t)r->re.NumberOfCapturingGroups() + 1)
            k = (size_t)r->re.NumberOfCapturingGroups() + 1;
        re2::StringPiece text(s, n);
        if (!r->re.Match(text, 0, n, RE2::UNANCHORED, sub, (int)k))
            return 0;
        for (size_t i = 0; i < max_groups; i++) {
            bool set = i < k && sub[i].data() != nullptr;
            ovec[2 * i] = set ? (size_t)(sub[i].data() - s) : (size_t)-1;
            ovec[2 * i + 1] = set ? (size_t)(sub[i].data() - s) + sub[i].size() : (size_t)-1;
        }
        return 1;
    } catch (...) {
        return -1;
    }
}

extern "C" void
pprof__re2_free(pprof__re2 *r)
{
    delete r; // RE2's destructor does not throw
}
