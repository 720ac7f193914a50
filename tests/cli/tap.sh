# TAP helpers for the CLI tests (POSIX sh). Source it; call ok COND-STATUS "description".
# skip_all REASON comes from tests/tap.sh (meson test sets PPROF_SOURCE_ROOT; a script run by
# hand from a directory of tests/ finds it two levels up).
. "${PPROF_SOURCE_ROOT:-$(dirname "$0")/../..}/tests/tap.sh"
tap_n=0
tap_failed=0
ok() {
    tap_n=$((tap_n + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $tap_n - $2"
    else
        tap_failed=$((tap_failed + 1))
        echo "not ok $tap_n - $2"
    fi
}
skip() {
    tap_n=$((tap_n + 1))
    echo "ok $tap_n - $1 # SKIP $2"
}
diag() {
    printf '%s\n' "$@" | sed 's/^/# /'
}
done_testing() {
    echo "1..$tap_n"
    [ "$tap_failed" -eq 0 ]
}
# run CMD...: runs it, keeps stdout in $out, stderr in $err, exit status in $rc
run() {
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    out=$(cat "$tmp/stdout")
    err=$(cat "$tmp/stderr")
}
# expect_rc WANT DESCRIPTION: checks $rc, shows stderr on failure
expect_rc() {
    [ "$rc" -eq "$1" ]
    ok $? "$2 (exit $rc, want $1)"
    [ "$rc" -eq "$1" ] || diag "stderr: $err"
}
# has TEXT PATTERN DESCRIPTION: extended regex match
has() {
    printf '%s' "$1" | grep -Eq -- "$2"
    ok $? "$3"
}
magic() {
    od -An -tx1 -N4 "$1" | tr -d ' \n'
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pprof-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
