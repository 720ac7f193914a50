# TAP helpers for the test scripts (POSIX sh), with no side effect when sourced.
# skip_all REASON: the whole test is skipped. Under meson's TAP protocol a skip is the plan
# "1..0 # SKIP" and exit 0; exit 77 means skip only to the exitcode protocol and is an ERROR here.
skip_all() {
    echo "1..0 # SKIP $*"
    exit 0
}
